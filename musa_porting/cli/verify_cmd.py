"""``musa-port verify``: check a port with nvcc through the shim, with the settings of
``[tool.musa-port.verify]``."""

from __future__ import annotations

import click

from .build_cmd import build_options, run_build
from .common import CONTEXT


@click.command("verify", context_settings=CONTEXT,
               short_help="Compile-check a port with nvcc: no MUSA needed.")
@click.argument("out", type=click.Path(path_type=str))
@click.option("--nvcc", metavar="PATH", help="The nvcc to use (default: $CUDA_HOME, $CUDA_PATH, "
              "PATH, /usr/local/cuda/bin/nvcc, the nvidia-cuda-nvcc wheel).")
@click.option("--mode", type=click.Choice(["ptx", "compile"]), default="compile",
              show_default=True, help="compile: nvcc -c (host and device code generated); "
              "ptx: stop at PTX, faster; nvcc's front end still checks host code, "
              "except code under #ifndef __CUDA_ARCH__.")
@click.option("--arch", default="sm_80", show_default=True, help="The CUDA arch to check with.")
@click.option("--cxx", default="c++", show_default=True, metavar="PATH",
              help="Host compiler for C/C++ files (nvcc compiles .mu and .cu files).")
@click.option("--torch/--no-torch", "torch", default=None,
              help="Compile against torch's headers with the flags of its CUDAExtension "
                   "(--torch: required; --no-torch: never). Default: when the tree includes "
                   "torch's headers and a torch is found.")
@click.option("--torch-python", metavar="PYTHON",
              help="The Python whose torch to use (default: the one running musa-port, then "
                   "python3 on PATH).")
@click.option("--config", "config_file", metavar="FILE", type=click.Path(dir_okay=False),
              help="Read the settings ([tool.musa-port.verify]) from FILE.")
@click.option("--no-config", is_flag=True, help="Read no settings file.")
@build_options(verify=True)
@click.pass_context
def verify_cmd(ctx, **given):
    """Compile-check a port with nvcc, without MUSA hardware or toolkit.

    Generates a shim include folder from the rules the port used (recorded in OUT's
    manifest) that maps every MUSA name back to CUDA and poisons the CUDA names the
    rules port, then compiles each ported .mu with nvcc and each C/C++ file with the
    host compiler, on the same ninja runner as `musa-port build`. A PyTorch extension
    is compiled against the torch found (its include folders and CUDAExtension's
    flags); the CUDA toolkit's include folders come from the nvcc, and the macros
    the CUDA build defines for its GPU code (WITH_CUDA, renamed WITH_MUSA) from the
    port. A leftover CUDA name, a corrupted identifier, an include of a header that was
    renamed, or a header not on the include path fails at its line. Settings:
    [tool.musa-port.verify], keys as the options. Exit codes: 0 all compile, 1 a file
    fails, 2 bad input.
    """
    from ..compile.verify import VerifyOptions, verify
    from .settings import resolve

    v = resolve(ctx, _verify_config(given), port=False).values
    vopts = VerifyOptions(out=v["out"], nvcc=v["nvcc"], mode=v["mode"],
                          include_dirs=list(v["include_dirs"]), defines=list(v["defines"]),
                          arch=v["arch"], std=v["std"], jobs=v["jobs"], keep_going=v["keep_going"],
                          only=list(v["only"]), exclude=list(v["exclude"]),
                          build_dir=v["build_dir"], timeout=v["timeout"],
                          torch={None: "auto", True: "on", False: "off"}[v["torch"]],
                          torch_python=v["torch_python"], cxx=v["cxx"])
    run_build(vopts, None, v["report_json"], v["quiet"], "Verify", runner=verify)


def _verify_config(given: dict):
    """The ``verify`` table of the settings the port of OUT read: found from the port's
    SRC (the manifest says which), else from OUT."""
    import os

    from ..config import project_config
    from ..write.manifest import MANIFEST_NAME, load_manifest

    out = given["out"]
    start = out
    if given["config_file"] is None and not given["no_config"] \
            and os.path.isfile(os.path.join(out, MANIFEST_NAME)):
        src = load_manifest(out).src
        start = src if src and os.path.isdir(src) else out
    cfg = project_config(start, given["config_file"], not given["no_config"])
    for w in cfg.warnings:
        click.echo(w, err=True)
    return cfg.section("verify")
