"""Building a ported tree: ``build.ninja`` and ``compile_commands.json`` from a compiler
profile, ninja to run them, and the compiler's diagnostics mapped back to CUDA.

The driver never schedules compiles itself: ninja does (depfiles make a re-build after
touching a header recompile only its dependents). A *profile* says how one compiler
is called; ``musa-port build`` uses mcc's, ``musa-port verify`` nvcc's through a shim.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from . import __version__
from .compile_diags import CompilerDiagnostic, PortMap, parse
from .errors import PortError
from .manifest import JOURNAL_NAME, MANIFEST_NAME

BUILD_DIR_NAME = ".musa-port-build"
HOST_EXTS = (".cpp", ".cc", ".cxx", ".c")
SKIP_DIRS = (BUILD_DIR_NAME,)
_STATUS = "@@musa-port[%f/%t] "
_STATUS_RE = re.compile(r"^@@musa-port\[(\d+)/(\d+)\] (.*)$")
_FAILED_RE = re.compile(r"^FAILED: (?:\[code=\d+\] )?(.*?)\s*$")


def gcc_depfile_flags(obj: str, dep: str) -> list[str]:
    """The depfile flags of gcc, clang, mcc and nvcc alike."""
    return ["-MD", "-MF", dep]


@dataclass
class Profile:
    """How one compiler is called. Commands are argv prefixes; the driver appends the
    depfile flags, the input and the output."""

    name: str
    device_cmd: list[str]  # compiles device sources (.mu as MUSA, or -x cu for nvcc)
    host_cmd: list[str]  # compiles host C/C++ sources
    link_cmd: list[str] | None  # links: link_cmd + ["-o", lib, *objects] + link_libs
    link_libs: list[str] = field(default_factory=list)
    device_exts: tuple[str, ...] = (".mu",)
    host_exts: tuple[str, ...] = HOST_EXTS
    depfile_flags: Callable[[str, str], list[str]] = gcc_depfile_flags  # (obj, depfile) -> flags
    per_file: Callable[[str], list[str]] | None = None  # extra flags for one file (by rel)


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


@dataclass
class FileBuild:
    """One compile: its source (ported file), object, and what the compiler said."""

    path: str  # ported file, relative to the tree
    source: str | None  # the CUDA original (absolute), when the manifest knows it
    obj: str
    command: list[str]
    status: str = "not built"  # "ok", "failed", "not built"
    output: str = ""
    diagnostics: list[CompilerDiagnostic] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.is_error)

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "warning")

    def first_error(self) -> CompilerDiagnostic | None:
        return next((d for d in self.diagnostics if d.is_error), None)


@dataclass
class BuildResult:
    out: str
    build_dir: str
    profile: str
    files: list[FileBuild]
    link: FileBuild | None = None
    ninja_output: str = ""
    elapsed: float = 0.0
    up_to_date: bool = False

    @property
    def failed(self) -> list[FileBuild]:
        items = [*self.files, *([self.link] if self.link else [])]
        return [f for f in items if f.status == "failed"]

    @property
    def ok(self) -> bool:
        return not self.failed and all(f.status == "ok" for f in self.files) and (
            self.link is None or self.link.status == "ok")

    def to_dict(self) -> dict:
        def one(f: FileBuild) -> dict:
            first = f.first_error()
            return {
                "file": f.path, "source": f.source, "object": f.obj, "status": f.status,
                "errors": f.errors, "warnings": f.warnings,
                "first_error": first.to_dict() if first else None,
                "diagnostics": [d.to_dict() for d in f.diagnostics],
                "command": shlex.join(f.command),
            }
        return {
            "schema_version": 1,
            "tool": {"name": "musa-port", "version": __version__},
            "kind": "build",
            "profile": self.profile,
            "out": self.out,
            "build_dir": self.build_dir,
            "ok": self.ok,
            "up_to_date": self.up_to_date,
            "totals": {
                "files": len(self.files),
                "ok": sum(1 for f in self.files if f.status == "ok"),
                "failed": sum(1 for f in self.files if f.status == "failed"),
                "not_built": sum(1 for f in self.files if f.status == "not built"),
                "errors": sum(f.errors for f in self.files),
                "warnings": sum(f.warnings for f in self.files),
            },
            "files": [one(f) for f in self.files],
            "link": one(self.link) if self.link else None,
            "run": {"elapsed_s": round(self.elapsed, 3)},
        }


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
        host = [opts.cxx, "-c", *common]
    libdir = [f"-L{Path(tc.home) / 'lib'}"] if tc.home else []
    return Profile("mcc", device, host, [tc.compiler, "-shared"],
                   [*libdir, "-lmusart", *[f"-l{lib}" for lib in opts.libs]])


def _ninja_escape_path(p: str) -> str:
    return p.replace("$", "$$").replace(" ", "$ ").replace(":", "$:")


def _ninja_escape_value(v: str) -> str:
    return v.replace("$", "$$")


def find_ninja() -> str:
    try:
        import ninja  # type: ignore[import-not-found]

        cand = Path(ninja.BIN_DIR) / "ninja"
        if cand.is_file():
            return str(cand)
    except ImportError:
        pass  # no ninja wheel: try PATH below
    found = shutil.which("ninja")
    if found:
        return found
    raise PortError("ninja not found: pip install ninja")


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
            rel = os.path.relpath(os.path.join(dirpath, name), out).replace(os.sep, "/")

            def hit(pats: Sequence[str], rel: str = rel, name: str = name) -> bool:
                return any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(name, p) for p in pats)

            if only and not hit(only):
                continue
            if exclude and hit(exclude):
                continue
            found.append(rel)
    return found


def write_build_files(out: Path, build_dir: Path, profile: Profile, sources: list[str],
                      launcher: str | None, shared: str | None, portmap: PortMap
                      ) -> tuple[list[FileBuild], FileBuild | None]:
    """Write build.ninja and compile_commands.json; return the planned compiles."""
    build_dir.mkdir(parents=True, exist_ok=True)
    prefix = shlex.split(launcher) if launcher else []
    files: list[FileBuild] = []
    lines = [
        "# Generated by musa-port; re-generated by every `musa-port build`.",
        "ninja_required_version = 1.3",
        "",
        "rule cc",
        "  command = $cmd",
        "  description = $desc",
        "  depfile = $out.d",
        "  deps = gcc",
        "",
        "rule link",
        "  command = $cmd",
        "  description = $desc",
        "",
    ]
    for rel in sources:
        src = str(out / rel)
        obj = str(build_dir / "obj" / (rel + ".o"))
        ext = os.path.splitext(rel)[1]
        base = profile.device_cmd if ext in profile.device_exts else profile.host_cmd
        dep = profile.depfile_flags(obj, obj + ".d")
        extra = profile.per_file(rel) if profile.per_file is not None else []
        cmd = [*prefix, *base, *extra, *dep, src, "-o", obj]
        files.append(FileBuild(rel, portmap.source_of(src), obj, cmd))
        lines += [f"build {_ninja_escape_path(obj)}: cc {_ninja_escape_path(src)}",
                  f"  cmd = {_ninja_escape_value(shlex.join(cmd))}",
                  f"  desc = {'CC' if base is profile.host_cmd else profile.name.upper()} {rel}",
                  ""]
    link = None
    if shared and profile.link_cmd is not None:
        target = str(build_dir / shared) if not os.path.isabs(shared) else shared
        objs = [f.obj for f in files]
        cmd = [*profile.link_cmd, "-o", target, *objs, *profile.link_libs]
        link = FileBuild(shared, None, target, cmd)
        lines += [f"build {_ninja_escape_path(target)}: link "
                  + " ".join(_ninja_escape_path(o) for o in objs),
                  f"  cmd = {_ninja_escape_value(shlex.join(cmd))}",
                  f"  desc = LINK {shared}", "",
                  f"default {_ninja_escape_path(target)}", ""]
    write_if_changed(build_dir / "build.ninja", "\n".join(lines))
    commands = [{"directory": str(build_dir), "file": str(out / f.path), "output": f.obj,
                 "command": shlex.join(f.command)} for f in files]
    write_if_changed(build_dir / "compile_commands.json", json.dumps(commands, indent=1) + "\n")
    return files, link


def write_if_changed(path: Path, text: str) -> None:
    """Keep the mtime of an unchanged generated file: ninja re-reads a changed
    build.ninja and re-compiles whatever depends on a changed shim header."""
    data = text.encode()
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass  # no previous file: write it
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide a generated file from others
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _failed_edge(outputs: str, build_dir: Path, by_obj: dict[str, FileBuild]
                 ) -> FileBuild | None:
    """The compile of a ``FAILED: <outputs>`` line. ninja joins an edge's outputs with
    spaces and does not escape them, so a path with a space is tried whole first."""
    for target in (outputs, outputs.split(" ")[0]):
        target = target if os.path.isabs(target) else str(build_dir / target)
        hit = by_obj.get(os.path.normpath(target))
        if hit is not None:
            return hit
    return None


def run_ninja(build_dir: Path, files: list[FileBuild], link: FileBuild | None, *,
              keep_going: bool, jobs: int | None, portmap: PortMap,
              progress: Callable[[int, int], None] | None = None) -> tuple[str, bool]:
    """Run ninja, attribute its output to each compile; return (output, up to date)."""
    by_obj = {f.obj: f for f in files}
    if link is not None:
        by_obj[link.obj] = link
    by_desc = {f.path: f for f in files}
    cmd = [find_ninja(), "-C", str(build_dir), "-k", "0" if keep_going else "1"]
    if jobs:
        cmd += ["-j", str(jobs)]
    env = dict(os.environ, NINJA_STATUS=_STATUS)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                            text=True, errors="replace")
    log: list[str] = []
    current: FileBuild | None = None
    skip_command_line = False
    failed: set[str] = set()
    assert proc.stdout is not None
    for raw in proc.stdout:
        line = raw.rstrip("\n")
        log.append(line)
        m = _STATUS_RE.match(line)
        if m:
            done, total, desc = int(m.group(1)), int(m.group(2)), m.group(3)
            rel = desc.split(" ", 1)[1] if " " in desc else desc
            current = by_desc.get(rel) or (link if link is not None and desc.startswith("LINK")
                                           else None)
            if progress is not None:
                progress(done, total)
            continue
        f = _FAILED_RE.match(line)
        if f:
            current = _failed_edge(f.group(1), build_dir, by_obj)
            if current is not None:
                failed.add(current.obj)
            skip_command_line = True
            continue
        if skip_command_line:
            skip_command_line = False  # ninja echoes the failed command: not compiler output
            continue
        if line.startswith("ninja: "):
            current = None
            continue
        if current is not None:
            current.output += line + "\n"
    proc.wait()
    out = "\n".join(log)
    up_to_date = "ninja: no work to do." in out
    # After a failure, ask ninja which edges are still out of date: those were not
    # built (stopped early, or waiting on a failed one); everything else is.
    dirty: set[str] = set()
    if proc.returncode != 0:
        dry = subprocess.run([*cmd[:3], "-n", "-k", "0"], capture_output=True, text=True,
                             env=env, errors="replace")
        for line in dry.stdout.splitlines():
            m = _STATUS_RE.match(line)
            if m:
                desc = m.group(3)
                rel = desc.split(" ", 1)[1] if " " in desc else desc
                item = by_desc.get(rel) or (link if desc.startswith("LINK") else None)
                if item is not None:
                    dirty.add(item.obj)
    for item in [*files, *([link] if link else [])]:
        if item.obj in failed:
            item.status = "failed"
        elif item.obj not in dirty and os.path.exists(item.obj):
            item.status = "ok"
        else:
            item.status = "not built"
        item.diagnostics = parse(item.output, portmap, build_dir)
    return out, up_to_date


def build(opts: BuildOptions, profile: Profile | None = None) -> BuildResult:
    """Build the ported tree ``opts.out`` (``musa-port build``)."""
    t0 = time.perf_counter()
    out = Path(opts.out).resolve()
    if not out.is_dir():
        raise PortError("ported tree not found", opts.out)
    profile = profile or mcc_profile(opts)
    build_dir = Path(opts.build_dir).resolve() if opts.build_dir else out / BUILD_DIR_NAME
    portmap = PortMap.load(out)
    sources = collect_sources(out, profile, opts.only, opts.exclude)
    if not sources:
        raise PortError("nothing to build: no " + "/".join(profile.device_exts + profile.host_exts)
                        + " files (after --only/--exclude)", opts.out)
    files, link = write_build_files(out, build_dir, profile, sources, opts.launcher, opts.shared,
                                    portmap)
    if opts.compile_commands:
        shutil.copyfile(build_dir / "compile_commands.json", out / "compile_commands.json")
    output, up_to_date = run_ninja(build_dir, files, link, keep_going=opts.keep_going,
                                   jobs=opts.jobs, portmap=portmap, progress=opts.progress)
    return BuildResult(str(out), str(build_dir), profile.name, files, link, output,
                       time.perf_counter() - t0, up_to_date)
