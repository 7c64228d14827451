"""Helpers of the reliability suite: running musa-port as a user would (also as
another user, with faults injected), and looking at whole trees by content."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from conftest import arg, run_cli, skip_or_fail_in_ci

TEMP_RE = re.compile(rb"\.[0-9a-f]{16}\.musa-port-tmp\Z|musa-port-tmp|\.musa-port-journal|"
                     rb"\.musa-port-lock")


def start(*args, env: Mapping[str, str] | None = None, stderr=subprocess.PIPE,
          **kw) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "musa_porting", *map(arg, args)],
                            stdout=subprocess.DEVNULL, stderr=stderr,
                            env={**os.environ, **(env or {})}, **kw)


def one_error(proc: subprocess.CompletedProcess, code: int = 2) -> str:
    """The run failed with ``code`` and exactly one ``error:`` line, no traceback."""
    err = proc.stderr
    assert proc.returncode == code, (proc.returncode, proc.stdout, err)
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("error: ")]
    assert len(errors) == 1, err
    return errors[0]


def state(root: Path | str, with_mtime: bool = False) -> dict[bytes, tuple]:
    """Every entry under root by bytes path: (kind, sha256 or link target, mode[, mtime]);
    not the base packs in OUT/.musa-port/base, whose names are random per run (what
    they hold is checked through the manifest by tests/merge)."""
    out: dict[bytes, tuple] = {}
    base = os.fsencode(str(root))
    if not os.path.lexists(base):
        return out
    for dirpath, dirnames, filenames in os.walk(base):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, base)
            if rel.startswith(b".musa-port/base/"):
                continue
            st = os.lstat(p)
            mode = stat.S_IMODE(st.st_mode)
            if stat.S_ISLNK(st.st_mode):
                row: tuple = ("link", os.readlink(p), mode)
            elif stat.S_ISDIR(st.st_mode):
                row = ("dir", None, mode)
            elif not stat.S_ISREG(st.st_mode):  # a FIFO or socket: opening one could block
                row = ("special", stat.S_IFMT(st.st_mode), mode)
            else:
                with open(p, "rb") as fh:
                    row = ("file", hashlib.sha256(fh.read()).hexdigest(), mode)
            out[rel] = (*row, st.st_mtime_ns) if with_mtime and row[0] == "file" else row
    return out


def temps(root: Path | str) -> list[bytes]:
    """Temp files, journals and locks of musa-port left under root."""
    base = os.fsencode(str(root))
    found = []
    for dirpath, dirnames, filenames in os.walk(base):
        for name in dirnames + filenames:
            if TEMP_RE.search(name):
                found.append(os.path.relpath(os.path.join(dirpath, name), base))
    return found


def without_manifest(s: dict[bytes, tuple]) -> dict[bytes, tuple]:
    return {k: v for k, v in s.items() if k != b".musa-port-manifest.json"}


def clean_port(src: Path, dest: Path, *args) -> dict[bytes, tuple]:
    """The state of a port of ``src`` into a fresh ``dest`` (the reference)."""
    if dest.exists():
        shutil.rmtree(dest)
    proc = run_cli(src, "-o", dest, "-q", *args)
    assert proc.returncode == 0, proc.stderr
    return state(dest)


def same_port(a: dict[bytes, tuple], b: dict[bytes, tuple]) -> None:
    """Two output trees are the same port (the manifests differ only in paths)."""
    assert without_manifest(a) == without_manifest(b)


# -- without root's privileges ------------------------------------------------------------

def _drop_dac_capabilities() -> None:
    """In the child, before exec: give up root's power to read, write and search any
    file (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), so file modes apply to it as to a
    user. (Dropping to ``nobody`` does not work where the interpreter lives under
    /root.)"""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2):
        if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def unprivileged() -> dict:
    """``cli(..., **unprivileged())`` runs musa-port as a user whom file modes bind:
    itself when not root, else root without its file-access capabilities."""
    if os.geteuid() != 0:
        return {}
    probe = subprocess.run(["true"], preexec_fn=_drop_dac_capabilities, capture_output=True)
    if probe.returncode != 0:
        skip_or_fail_in_ci("running as root and cannot drop CAP_DAC_OVERRIDE")
    return {"preexec_fn": _drop_dac_capabilities}


def memory_capped(mb: int = 1500) -> dict:
    """``cli(..., **memory_capped())``: the run's address space is capped, so one that
    reads a device without limit fails fast (MemoryError) instead of taking the machine."""
    import resource

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))

    return {"preexec_fn": cap}


# -- processes ----------------------------------------------------------------------------

def descendants(pid: int) -> set[int]:
    """Every process whose chain of parents leads to ``pid`` (Linux /proc)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as fh:
                    raw = fh.read()
                parents[int(entry)] = int(raw[raw.rindex(b")") + 2:].split()[1])
            except (OSError, ValueError):
                continue
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier} - found
        found |= frontier
    return found


def alive(pids: set[int]) -> set[int]:
    out = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                raw = fh.read()
            if raw[raw.rindex(b")") + 2:raw.rindex(b")") + 3] != b"Z":
                out.add(pid)
        except OSError:
            pass
    return out


def wait_gone(pids: set[int], seconds: float) -> set[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = alive(pids)
        if not left:
            return left
        time.sleep(0.05)
    return alive(pids)


def kill_all(pids: set[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def measured(*args, env: Mapping[str, str] | None = None) -> dict:
    """Run musa-port in a fresh wrapper process: its exit code, wall and CPU seconds,
    and the peak RSS of the run and its workers (RUSAGE_CHILDREN of the wrapper counts
    only them)."""
    import json

    code = ("import json, resource, subprocess, sys, time\n"
            "t0 = time.perf_counter()\n"
            "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode\n"
            "ru = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
            "print(json.dumps({'rc': rc, 'wall': time.perf_counter() - t0, 'cpu': ru.ru_utime"
            " + ru.ru_stime, 'peak_mb': ru.ru_maxrss / 1024}))\n")
    proc = subprocess.run([sys.executable, "-c", code, sys.executable, "-m", "musa_porting",
                           *map(arg, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def growth(work, make, small: int, large: int, repeat: int = 3) -> float:
    """How much more CPU time ``work(make(large))`` takes than ``work(make(small))``:
    the inputs are made first, untimed; each size runs ``repeat`` times, interleaved so
    that a burst of load elsewhere on the machine hits both, and its best time counts.
    The sizes' ratio is what linear growth gives; a quadratic cost gives its square."""
    import gc

    inputs = {small: make(small), large: make(large)}
    best = {small: float("inf"), large: float("inf")}
    work(inputs[small])  # imports, tables, caches: paid once, by neither size
    for _ in range(repeat):
        for n in (small, large):
            gc.collect()
            t0 = time.process_time()
            work(inputs[n])
            best[n] = min(best[n], time.process_time() - t0)
    return best[large] / best[small]
