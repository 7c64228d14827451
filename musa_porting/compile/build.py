"""``musa-port build``: compile a ported tree with mcc, on ninja, with errors mapped
back to the CUDA lines."""

from __future__ import annotations

import fnmatch
import os
import re
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import PortError
from ..write.manifest import BUILD_DIR_NAME, JOURNAL_NAME, MANIFEST_NAME, STATE_DIR_NAME
from .diagnostics import PortMap
from .ninja import check_names, run_ninja, write_build_files, write_if_changed
from .profile import Profile
from .result import BuildResult

SKIP_DIRS = (BUILD_DIR_NAME, STATE_DIR_NAME)  # the kept copies of hand-edited files are not built


@dataclass
class BuildOptions:
    out: str  # the ported tree
    arch: Sequence[str] = ("mp_22",)
    mcc: str | None = None
    cxx: str = "c++"
    mcc_for_cpp: bool = False
    include_dirs: Sequence[str] = ()
    defines: Sequence[str] = ()
    std: str = "c++17"
    opt: str = "2"
    shared: str | None = None
    libs: Sequence[str] = ()
    jobs: int | None = None
    launcher: str | None = None
    keep_going: bool = False
    only: Sequence[str] = ()
    exclude: Sequence[str] = ()
    compile_commands: bool = False
    build_dir: str | None = None
    progress: Callable[[int, int], None] | None = None
    timeout: float | None = None  # seconds per compile (coreutils' timeout); None: none



def mcc_profile(opts: BuildOptions) -> Profile:
    """Moore Threads' mcc: .mu as MUSA, one --offload-arch per arch (a fat binary)."""
    from .toolchain import find_mcc

    tc = find_mcc(opts.mcc)
    for a in opts.arch:
        if not re.fullmatch(r"mp_\d+", a):
            raise PortError(f"--arch {a}: expected an arch such as mp_21, mp_22, mp_31")
    common = [f"-std={opts.std}", f"-O{opts.opt}", "-fPIC",
              *[f"-I{os.path.abspath(d)}" for d in opts.include_dirs], *[f"-D{d}" for d in opts.defines]]
    device = [tc.compiler, "-c", *common, *[f"--offload-arch={a}" for a in opts.arch]]
    if opts.mcc_for_cpp:
        host = [*device, "-x", "musa"]
    else:
        # A host file of the port includes musa_runtime.h as a CUDA one included
        # cuda_runtime.h: the host compiler finds it where mcc does (torch_musa's
        # include_paths(musa=True) adds the same folder).
        musa_include = Path(tc.home) / "include" if tc.home else None
        extra = [f"-I{musa_include}"] if musa_include is not None and musa_include.is_dir() else []
        host = [opts.cxx, "-c", *common, *extra]
    libdir = [f"-L{Path(tc.home) / 'lib'}"] if tc.home else []
    return Profile("mcc", device, host, [tc.compiler, "-shared"],
                   [*libdir, "-lmusart", *[f"-l{lib}" for lib in opts.libs]])



def collect_sources(out: Path, profile: Profile, only: Sequence[str], exclude: Sequence[str]
                    ) -> list[str]:
    """The files to compile, relative to the tree, in a stable order."""
    exts = set(profile.device_exts) | set(profile.host_exts)
    found = []
    for dirpath, dirnames, filenames in os.walk(out):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            if os.path.splitext(name)[1] not in exts or name in (MANIFEST_NAME, JOURNAL_NAME):
                continue
            if not os.path.isfile(os.path.join(dirpath, name)):
                continue  # a link to a device, a FIFO, or nothing: no compiler reads it
            rel = os.path.relpath(os.path.join(dirpath, name), out).replace(os.sep, "/")

            def hit(pats: Sequence[str], rel: str = rel, name: str = name) -> bool:
                return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(name, p) for p in pats)

            if only and not hit(only):
                continue
            if exclude and hit(exclude):
                continue
            found.append(rel)
    return found



def make_build_dir(out: Path, build_dir: Path) -> None:
    """Create the build folder. Inside the ported tree each folder on its way must be a
    real one: the port copies the tree's links, and one at .musa-port-build would send
    build.ninja, the objects and the shim wherever it points."""
    try:
        parts = build_dir.relative_to(out).parts
    except ValueError:
        build_dir.mkdir(parents=True, exist_ok=True)  # the user's --build-dir elsewhere
        return
    path = out
    for part in parts:
        path = path / part
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            os.mkdir(path)
            continue
        if not stat.S_ISDIR(st.st_mode):
            what = "a link" if stat.S_ISLNK(st.st_mode) else "a file"
            raise PortError(f"{what} is where the build keeps its files (not followed): remove "
                            "it, or pass --build-dir DIR", str(path))


def build(opts: BuildOptions, profile: Profile | None = None) -> BuildResult:
    """Build the ported tree ``opts.out`` (``musa-port build``)."""
    t0 = time.perf_counter()
    out = Path(opts.out).resolve()
    if not out.is_dir():
        raise PortError("ported tree not found", opts.out)
    if opts.build_dir is None and not (out / MANIFEST_NAME).is_file():
        raise PortError(f"not a tree musa-port ported (no {MANIFEST_NAME}); building it would "
                        f"write {BUILD_DIR_NAME}/ into it: pass --build-dir DIR to build it "
                        "anyway", opts.out)
    profile = profile or mcc_profile(opts)
    build_dir = Path(opts.build_dir).resolve() if opts.build_dir else out / BUILD_DIR_NAME
    portmap = PortMap.load(out)
    sources = collect_sources(out, profile, opts.only, opts.exclude)
    if not sources:
        raise PortError("nothing to build: no " + "/".join(profile.device_exts + profile.host_exts)
                        + " files (after --only/--exclude)", opts.out)
    check_names(out, build_dir, sources, profile)
    make_build_dir(out, build_dir)
    files, link = write_build_files(out, build_dir, profile, sources, opts.launcher, opts.shared,
                                    portmap)
    if opts.compile_commands:  # replaces a link there (the port copies links), never follows it
        write_if_changed(out / "compile_commands.json",
                         (build_dir / "compile_commands.json").read_text())
    output, up_to_date = run_ninja(build_dir, files, link, keep_going=opts.keep_going,
                                   jobs=opts.jobs, portmap=portmap, progress=opts.progress,
                                   timeout=opts.timeout)
    return BuildResult(str(out), str(build_dir), profile.name, files, link, output,
                       time.perf_counter() - t0, up_to_date)
