"""``musa-port verify``: compile-check a port with nvcc through the MUSA-to-CUDA shim.

Same ninja-based runner as ``musa-port build``, with an nvcc profile: every ported
``.mu`` (and ``.cu``) is compiled as CUDA (``-x cu``) with nvcc, and every ported C/C++
file with the host compiler, as a project's build compiles them (a CPU file that g++
compiles cleanly is not CUDA, and nvcc -x cu failed it), each with the shim folder on
the include path and its prelude force-included. What a project's CUDA build adds
besides (torch's folders and flags, the toolkit's folders, the GPU switches) is
``verify_setup``'s. Shim paths are given relative to the build folder, where ninja runs
the compiles: nvcc splits -I/-include values at commas, and the user's folders may
have them.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import PortError
from ..port.cxx import lexer
from ..port.cxx.includes import IncludeResolver
from ..port.filenames import DEFAULT_SOURCE_EXTENSIONS
from ..rules import build_ruleset
from ..safe_open import read_regular
from ..write.manifest import MANIFEST_NAME, load_manifest
from .build import (
    BUILD_DIR_NAME,
    SKIP_DIRS,
    BuildOptions,
    build,
    check_finished,
    collect_sources,
    make_build_dir,
)
from .missing_headers import explain
from .ninja import check_names
from .profile import HOST_EXTS, Profile, gcc_depfile_flags
from .result import BuildResult
from .shim import generate, write_prelude
from .toolchain import Toolchain, find_nvcc
from .torch_env import extension_name
from .verify_setup import Setup, header_finder, prepare, tree_facts, write_stand_ins

MODES = ("ptx", "compile")
_SHELL_SAFE = re.compile(r"[\w./+@%=:-]+", re.ASCII)


@dataclass
class VerifyOptions:
    out: str
    nvcc: str | None = None
    mode: str = "compile"
    include_dirs: Sequence[str] = ()
    defines: Sequence[str] = ()
    arch: str = "sm_80"
    std: str | None = None  # torch's when it compiles against torch, else c++17
    jobs: int | None = None
    keep_going: bool = True
    only: Sequence[str] = ()
    exclude: Sequence[str] = ()
    build_dir: str | None = None
    extra_flags: Sequence[str] = ()
    progress: object = None
    timeout: float | None = None  # seconds per compile
    torch: str = "auto"  # "on" (--torch), "off" (--no-torch), "auto": when the tree includes it
    torch_python: str | None = None  # the Python whose torch to use (default: ours, python3)
    cxx: str = "c++"  # the host compiler, for C/C++ files


class _IncludeGraph:
    """Which headers outside the tree each file reaches, through the tree's own headers."""

    def __init__(self, out: Path):
        self.out = out
        files = []
        for dirpath, dirnames, filenames in os.walk(out):
            dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
            for name in filenames:
                files.append(os.path.relpath(os.path.join(dirpath, name), out).replace(os.sep, "/"))
        self.resolver = IncludeResolver(files)
        self._direct: dict[str, tuple[list[str], list[tuple[str, bool]]]] = {}

    def _scan(self, rel: str) -> tuple[list[str], list[tuple[str, bool]]]:
        if rel not in self._direct:
            inner, outer = [], []
            data = _read(self.out / rel)
            for inc in lexer.includes(data):
                hit = self.resolver.resolve(rel, inc.target)
                if hit is not None:
                    inner.append(hit)
                else:
                    outer.append((inc.target, inc.angled))
            self._direct[rel] = (inner, outer)
        return self._direct[rel]

    def external(self, rel: str) -> list[tuple[str, bool]]:
        seen, todo, found = {rel}, [rel], []
        while todo:
            inner, outer = self._scan(todo.pop())
            found.extend(outer)
            for r in inner:
                if r not in seen and os.path.splitext(r)[1] in DEFAULT_SOURCE_EXTENSIONS:
                    seen.add(r)
                    todo.append(r)
        return found


def _renamed_includes(out: Path, src_root: Path | None, sources: dict[str, str]
                      ) -> dict[str, str]:
    """Out-of-tree includes the port rewrote: new target -> the original include line's
    target with its delimiters (``ATen/musa/Foo.muh`` -> ``<ATen/cuda/Foo.cuh>``).

    Porting keeps line numbers, so the n-th line's include in the ported file pairs
    with the same line's include in the CUDA original. The shim maps each one back;
    an include the port did not change (a stale ``"foo.cuh"``) is not mapped, and
    fails as it should."""
    if src_root is None:
        return {}
    files = {rel for rel in sources}
    resolver = IncludeResolver(files)
    mapped: dict[str, str] = {}
    for rel, src_rel in sorted(sources.items()):
        if os.path.splitext(rel)[1] not in DEFAULT_SOURCE_EXTENSIONS:
            continue
        new = lexer.includes(_read(out / rel))
        old = {i.line: i for i in lexer.includes(_read(src_root / src_rel))}
        for inc in new:
            orig = old.get(inc.line)
            if orig is None or orig.target == inc.target or inc.target.startswith((".", "/")):
                continue
            if resolver.resolve(rel, inc.target) is not None:
                continue
            mapped.setdefault(inc.target, f"<{orig.target}>" if orig.angled else f'"{orig.target}"')
    return mapped


def _read(path: Path) -> bytes:
    """A file of the port or its source, b"" when it is not a regular file: the port
    copies links as they are, and one to /dev/zero or a FIFO must not be read."""
    try:
        return read_regular(str(path))
    except OSError:
        return b""


def verify_profile(opts: VerifyOptions, shim_dir: Path, tc: Toolchain, setup: Setup,
                   graph: _IncludeGraph | None = None,
                   on_path: Callable[[str], bool] = lambda target: True) -> Profile:
    """nvcc for .mu and .cu files, the host compiler for C/C++ files, both with the
    shim, ``setup``'s folders and macros, then the user's."""
    if opts.mode not in MODES:
        raise PortError(f"--mode {opts.mode}: use ptx or compile")
    shim = os.path.relpath(shim_dir, shim_dir.parent)
    user = [f"-I{os.path.abspath(d)}" for d in opts.include_dirs]
    dirs = [f"-I{d}" for d in setup.include_dirs]
    defines = [*[f"-D{d}" for d in setup.defines], *[f"-D{d}" for d in opts.defines]]
    mode = ["-c"] if opts.mode == "compile" else ["--ptx"]
    device = [tc.compiler, "-x", "cu", *mode, f"-std={setup.std}", f"-arch={opts.arch}",
              "-isystem", shim, *user, *dirs, *setup.nvcc_flags, *defines, *opts.extra_flags]
    host = [opts.cxx, "-c", f"-std={setup.std}", "-isystem", shim, *user, *dirs,
            *[f"-I{d}" for d in setup.host_dirs],
            *[a for d in setup.host_system_dirs for a in ("-isystem", d)], *defines]

    def per_file(rel: str) -> list[str]:
        external = graph.external(rel) if graph is not None else []
        path = write_prelude(shim_dir, _prelude_name(rel), external, on_path)
        named = [f"-DTORCH_EXTENSION_NAME={extension_name(rel)}"] if setup.torch else []
        return [*named, "-include", os.path.relpath(path, shim_dir.parent)]

    return Profile("nvcc", device, host, None, device_exts=(".mu", ".cu"), host_exts=HOST_EXTS,
                   depfile_flags=_ptx_depfile_flags if opts.mode == "ptx" else gcc_depfile_flags,
                   per_file=per_file, shell_paths=True)


def _prelude_name(rel: str) -> str:
    """A file name for ``rel``'s prelude that nvcc takes as one path: nvcc splits the
    values of -include and -I at commas."""
    flat = rel.replace("/", "__")
    safe = re.sub(r"[^\w.+-]", "_", flat)
    if safe != flat:
        safe += "-" + hashlib.sha1(rel.encode()).hexdigest()[:8]
    return safe + ".h"


def _ptx_depfile_flags(obj: str, dep: str) -> list[str]:
    """nvcc's own -MD runs a whole extra preprocessing pass (~4 s a file against the
    torch headers, a fifth of the compile). With --ptx the only host-compiler call is
    the device-side preprocessing, so it can write the depfile as it goes. -Xcompiler
    splits on commas and nvcc runs its steps through a shell without quoting them, so
    a path with anything but plain characters keeps nvcc's -MD. With -c the host compile
    gets -Xcompiler flags too and would overwrite the depfile, so -c keeps -MD as well."""
    if not _SHELL_SAFE.fullmatch(obj + dep):
        return gcc_depfile_flags(obj, dep)
    return [f"-Xcompiler=-MD,-MT,{obj},-MF,{dep}"]


def verify(opts: VerifyOptions) -> BuildResult:
    """Generate the shim from the rules the port used, then compile every file."""
    out = Path(opts.out).resolve()
    if not out.is_dir():
        raise PortError("ported tree not found", opts.out)
    if not (out / MANIFEST_NAME).is_file():
        raise PortError(f"no {MANIFEST_NAME}: not a musa-port output (port it first)", opts.out)
    check_finished(out, "verify")
    manifest = load_manifest(str(out))
    options = manifest.options
    ruleset = build_ruleset(
        rule_files=options.get("rule_files", []),
        inline_rules=options.get("inline_rules") or None,
        default_rules=options.get("default_rules", True),
        mapping_dir=options.get("mapping_dir"),
        disable_families=options.get("disable_families", []),
        enable_families=options.get("enable_families", []),
    )
    build_dir = Path(opts.build_dir).resolve() if opts.build_dir else out / BUILD_DIR_NAME / "verify"
    shim_dir = build_dir / "shim"
    graph = _IncludeGraph(out)
    tc = find_nvcc(opts.nvcc)
    # Before anything is written: names nvcc would hand a shell, links on the way.
    bare = verify_profile(opts, shim_dir, tc, Setup(opts.std or "c++17", [], [], [], []))
    sources = collect_sources(out, bare, opts.only, opts.exclude)
    check_names(out, build_dir, sources, bare)
    facts = tree_facts(out, manifest.files, manifest.project)
    setup = prepare(torch_mode=opts.torch, torch_python=opts.torch_python, std=opts.std,
                    nvcc=tc.compiler,
                    includes=(t for rel in sources for t, _ in graph.external(rel)), facts=facts)
    make_build_dir(out, build_dir)
    renamed = _renamed_includes(out, Path(manifest.src) if manifest.src else None,
                                {rel: rec.src for rel, rec in manifest.files.items()})
    shim_headers = generate(ruleset, shim_dir, renamed, own_macros=facts.own_macros)
    write_stand_ins(setup, [os.path.abspath(d) for d in opts.include_dirs], shim_dir)
    on_path = header_finder(setup, [os.path.abspath(d) for d in opts.include_dirs], shim_dir,
                            shim_headers, opts.cxx)
    profile = verify_profile(opts, shim_dir, tc, setup, graph, on_path)
    bopts = BuildOptions(out=str(out), jobs=opts.jobs, keep_going=opts.keep_going,
                         only=opts.only, exclude=opts.exclude, build_dir=str(build_dir),
                         progress=opts.progress, timeout=opts.timeout)  # type: ignore[arg-type]
    result = build(bopts, profile)
    result.notes = setup.notes
    explain(result, setup, opts.torch, tc.compiler, shim_dir)
    return result
