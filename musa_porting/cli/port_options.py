"""The options of ``musa-port SRC`` (the port command), in the order ``--help-all``
lists them. Each one is also a setting of ``[tool.musa-port]`` under its own name
(``cli/settings.py`` derives the keys from this list): a new option here is a setting
with no more work. Options about the run of musa-port itself (help, version, which
settings file) are not settings (``settings.NOT_SETTINGS``).

Options whose value is a path are ``click.Path`` typed: a relative one in a settings
file is relative to the file's folder."""

from __future__ import annotations

import click

from .. import __version__
from .common import color_option
from .option_values import (
    FolderOrRef,
    checked_arches,
    checked_build_args,
    checked_ids,
    checked_level,
    checked_vendor_word,
    complete_ids,
    complete_levels,
)
from .port_command import help_all_option

# What ``musa-port --help`` describes; every other option is listed by name under
# "Advanced options" (``--help-all`` describes them too).
COMMON = ("output", "ignore", "rules", "dry_run", "diff", "check", "suppress",
          "output_format", "sarif", "quiet", "verbose", "show_settings", "version", "help_all")
OUTPUT_FORMATS = ("text", "json", "sarif", "github", "grouped")


def port_options(f):
    """``f`` with every option of a port (and SRC)."""
    for decorator in reversed(OPTIONS):
        f = decorator(f)
    return f


OPTIONS = [
    click.argument("src", type=click.Path(file_okay=True, dir_okay=True, path_type=str), required=False,
                   metavar="SRC"),
    click.option("-o", "--output", metavar="DIR", type=click.Path(path_type=str),
                 help="Output folder (default: SRC_musa)."),
    click.option("--stdin-filename", metavar="PATH",
                 help="With SRC '-': port standard input to standard output as the file PATH "
                      "(its kind, the includes beside it, the findings' file name), for editors "
                      "and hooks; default stdin.cu."),
    click.option("--ignore", "ignore", multiple=True, metavar="PATTERNS",
                 help="Paths or gitignore patterns to leave out."),
    click.option("-r", "--rule", "rules", multiple=True, metavar="FILE",
                 type=click.Path(dir_okay=False, path_type=str),
                 help="Your rules (JSON or YAML); they win."),
    click.option("--no-default-rules", is_flag=True,
                 help="Use only the --rule files, not the default tables."),
    click.option("--mapping-dir", metavar="DIR", type=click.Path(path_type=str),
                 help="Use the JSON tables in DIR instead of the default tables (torch_musa's "
                      "flat mapping folders work)."),
    click.option("--skip", "skip", multiple=True, metavar="KINDS",
                 help="Do not rewrite in these regions: comments, strings (comma-separated). "
                      "#include targets are always rewritten."),
    click.option("-I", "--include-dir", "include_dirs", multiple=True, metavar="DIR",
                 type=click.Path(path_type=str),
                 help="Extra folder (inside SRC) to resolve #include targets in, so includes of "
                      "renamed headers follow the rename. Repeatable."),
    click.option("--extensions", metavar="EXTS",
                 help="Comma-separated source extensions to rewrite (default: .cu,.cuh,.c,.cc,"
                      ".cpp,.cxx,.h,.hh,.hpp,.hxx,.inl,.inc,.ipp,.tpp,.mu,.muh). Other files are copied."),
    click.option("--disable-family", "disable_families", multiple=True, metavar="NAMES",
                 help="Switch table families off (comma-separated, repeatable), e.g. nccl,npp: "
                      "their names are reported as unported instead of rewritten. "
                      "'musa-port rules --families' lists them."),
    click.option("--enable-family", "enable_families", multiple=True, metavar="NAMES",
                 help="Switch on families that are off by default."),
    click.option("--reverse", is_flag=True,
                 help="Port MUSA back to CUDA with the inverted tables (.mu -> .cu); output "
                      "SRC_cuda by default."),
    click.option("--keep", "keep", multiple=True, metavar="NAMES",
                 help="CUDA-looking names meant to stay."),
    click.option("--no-project-symbols", is_flag=True,
                 help="Do not rename the tree's own names that hold a CUDA word (MYLIB_CUDA_CHECK -> "
                      "MYLIB_MUSA_CHECK, launchCudaKernel -> launchMusaKernel); by default every "
                      "name the tree defines is renamed everywhere in the tree."),
    click.option("--rename-exported", is_flag=True,
                 help="Also rename the tree's names that Python calls by name (pybind11 m.def, "
                      "py::class_, def_submodule, TORCH_LIBRARY op schemas) and the public "
                      "Python modules of an installable package, and the Python files of this "
                      "run that call or import them; by default they are kept (callers outside "
                      "SRC would break)."),
    click.option("--symbols", "symbols_backend", type=click.Choice(["lexer", "clang"]), default="lexer",
                 show_default=True,
                 help="How the tree's definitions are found: lexer (no dependency), or clang "
                      "(pip install 'musa-port[clang]'; uses -I, -D and --compile-commands)."),
    click.option("-D", "--define", "defines", multiple=True, metavar="NAME[=V]",
                 help="A macro for --symbols clang (repeatable)."),
    click.option("--compile-commands", metavar="FILE", type=click.Path(path_type=str),
                 help="compile_commands.json with each file's flags, for --symbols clang."),
    click.option("--rename-paths/--keep-paths", "rename_paths", default=None,
                 help="Rename files and folders whose names hold a CUDA word (gemm_cuda.cu -> "
                      "gemm_musa.mu, csrc/cuda/ -> csrc/musa/), the default; includes, links, "
                      "build files and setup.py paths follow. --keep-paths keeps every name but "
                      ".cu/.cuh -> .mu/.muh (setting: rename-paths = false)."),
    click.option("--vocab", "vocab_files", multiple=True, metavar="FILE", type=click.Path(path_type=str),
                 help="Extra name-part vocabulary: a JSON object of CUDA words to MUSA words, false "
                      "to switch a word off (a rule file's 'vocabulary:' section does the same)."),
    click.option("--vendor-word", "vendor_word", default=None, metavar="WORD",
                 callback=checked_vendor_word,
                 help="The word that replaces NVIDIA in the tree's own names, folders and messages "
                      "(gpu_info_nvidia -> gpu_info_musa, \"Nvidia GPUs\"): musa, mthreads, "
                      "moore, ...; an empty word keeps NVIDIA. [default: musa; moore in a tree "
                      "whose nvidia/ folder sits among folders named for other vendors]"),
    click.option("--no-python", is_flag=True,
                 help="Copy .py files as they are instead of porting them (torch.cuda -> "
                      "torch.musa, device strings, CUDAExtension -> MUSAExtension, ...)."),
    click.option("--launch", "launch", multiple=True, metavar="FILE", type=click.Path(path_type=str),
                 help="A .py file of SRC that starts a run (train.py): it gets `import torch_musa` "
                      "after its first `import torch`. Repeatable."),
    click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, metavar="N",
                 help="Port files in N processes (default: the number of CPUs). The output is "
                      "the same for any N."),
    click.option("-n", "--dry-run", is_flag=True, help="Compute everything, write nothing."),
    click.option("--diff", "diff", is_flag=False, flag_value="-", default=None, metavar="[=FILE]",
                 type=click.Path(allow_dash=True, path_type=str),
                 help="Print a git-apply-able diff; write nothing."),
    click.option("--write", is_flag=True, help="With --diff: write the output too."),
    click.option("--report-json", metavar="FILE", type=click.Path(allow_dash=True, path_type=str),
                 help="Write the JSON report."),
    click.option("--report-csv", metavar="FILE", type=click.Path(allow_dash=True, path_type=str),
                 help="Write one CSV row per finding."),
    click.option("--sarif", metavar="FILE", type=click.Path(allow_dash=True, path_type=str),
                 help="Write the findings as SARIF 2.1.0."),
    click.option("--report-files", is_flag=True, help="Show per-file counts in the summary."),
    click.option("--suppress", multiple=True, metavar="IDS", callback=checked_ids,
                 shell_complete=complete_ids,
                 help="Findings to drop: IDs, names, families."),
    click.option("--check", "check", is_flag=False, flag_value="", default=None,
                 metavar="[LEVEL]", callback=checked_level, shell_complete=complete_levels,
                 help="Exit 1 if CUDA names, errors or conflicts are left (LEVEL: "
                      "conflicts, error, warning)."),
    click.option("--output-format", type=click.Choice(OUTPUT_FORMATS), default="text",
                 metavar="FORMAT",
                 help="text, json, sarif, github (annotations) or grouped."),
    click.option("--arch", "arch", multiple=True, metavar="ARCHS", callback=checked_arches,
                 help="MUSA arches that nvcc's -arch/-gencode and CMAKE_CUDA_ARCHITECTURES become "
                      "in build files (comma-separated or repeated): mp_21 (MTT S80/S3000), mp_22 "
                      "(S4000), mp_31 (S5000); torch_musa also knows mp_10, mp_32. Default: mp_22."),
    click.option("--no-build-files", is_flag=True,
                 help="Copy CMake files, Makefiles and shell scripts as they are instead of "
                      "porting them."),
    click.option("--build", "then_build", is_flag=True,
                 help="After porting, build the output with mcc (as `musa-port build OUT`)."),
    click.option("--build-args", metavar="ARGS", default="", callback=checked_build_args,
                 help="Options for that build, e.g. \"--arch mp_21 --shared libops.so\"."),
    click.option("--force", is_flag=True,
                 help="Replace or remove paths in the output that musa-port did not write (not in "
                      "its manifest). Without it the run stops, naming the first, with nothing "
                      "written."),
    click.option("--wait", type=click.FloatRange(min=0), default=600, show_default=True,
                 metavar="SECONDS",
                 help="How long to wait for another musa-port run writing the same output."),
    click.option("--paranoid", is_flag=True,
                 help="Also compare each input's sha256 with the last run's, not only its size, "
                      "mtime and ctime (for file systems with coarse timestamps)."),
    click.option("--base-from", "base_from", metavar="OLD_SRC", type=FolderOrRef(),
                 help="OUT is a port musa-port did not make (torch_musa's SimplePorting, by hand) "
                      "of OLD_SRC, an older upstream (a folder, or a git ref of SRC's repository): "
                      "learn its conventions, and merge its hand edits into the port of SRC."),
    click.option("-q", "--quiet", is_flag=True, help="Print only errors and the one-line total."),
    click.option("-v", "--verbose", is_flag=True,
                 help="List all findings (notes too) and the settings file."),
    color_option,
    click.option("--config", "config_file", metavar="FILE", type=click.Path(dir_okay=False),
                 help="Settings (default: found above SRC)."),
    click.option("--no-config", is_flag=True, help="Read no settings file."),
    click.option("--show-settings", is_flag=True,
                 help="Show each setting and where it is from; port nothing."),
    click.version_option(__version__, "-V", "--version", prog_name="musa-port"),
    help_all_option,
]
