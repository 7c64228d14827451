"""Running a command the way the bench times it: wall time of the whole process
(start-up included), the CPU time of the process and every process it started and
waited for (``wait4``'s rusage: a pool's workers count), and the peak RSS summed
over the process and its children."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Sample:
    wall: float
    cpu: float
    rss_mb: int


def _rss_kb(pid: int) -> int:
    """RSS of a process and all its descendants, from /proc."""
    total = 0
    stack = [pid]
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
                        break
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    stack.extend(int(c) for c in fh.read().split())
        except (OSError, ValueError):
            continue
    return total


def timed(cmd: list[str], cwd: Path | None = None, check: bool = True) -> Sample:
    """Wall and CPU seconds (all processes) and peak summed RSS (MB) of a command.

    The file system is synced first: the write-back of what the command before wrote,
    and the freeing of the output it just deleted, are the kernel's work in the next
    writer's system time, and would be charged to the command timed (cp -r of mmcv's
    403 files once took 0.15 s of CPU, against 0.06 s for the 2,095 of the corpus)."""
    os.sync()
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err)
        peak = 0
        done = threading.Event()

        def poll() -> None:
            nonlocal peak
            while not done.is_set():
                peak = max(peak, _rss_kb(proc.pid))
                time.sleep(0.005)

        th = threading.Thread(target=poll, daemon=True)
        th.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        done.set()
        th.join()
        if check and proc.returncode != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed:\n{err.read().decode(errors='replace')[-2000:]}")
    return Sample(wall, usage.ru_utime + usage.ru_stime, peak // 1024)


def summary(samples: list[Sample]) -> dict:
    """Medians of wall and CPU, the highest peak RSS."""
    return {"wall_s": round(statistics.median(s.wall for s in samples), 3),
            "cpu_s": round(statistics.median(s.cpu for s in samples), 3),
            "peak_rss_mb": max(s.rss_mb for s in samples), "runs": len(samples)}


def prepare_python() -> None:
    """Time what a user's runs cost: with the package's bytecode written (a shell with
    PYTHONDONTWRITEBYTECODE set would recompile every module on every run) and the
    tables' compiled cache in place (the first run of an install builds it)."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    pkg = subprocess.run([sys.executable, "-c", "import os, musa_porting; "
                          "print(os.path.dirname(musa_porting.__file__))"],
                         capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run([sys.executable, "-m", "compileall", "-q", pkg], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, "-c", "from musa_porting.rules import build_ruleset; "
                    "build_ruleset()"], check=True)  # writes the tables' cache
