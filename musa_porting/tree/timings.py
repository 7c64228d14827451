"""Where a run's time goes, phase by phase: ``MUSA_PORT_TIMINGS=1 musa-port ...``
prints each phase's wall and CPU seconds to stderr when the run ends.

The figures behind a speed report ("the index took 0.3 s") come from here rather
than from a profiler, which slows the Python-heavy phases more than the rest. A
phase is what happened since the previous ``mark``; the first one starts when the
process started (Python's start-up and the imports). Each phase also shows the CPU of
the forked workers that ended in it (the index's and the port's pools end in their own
phase), so a regression shows in the process where it happens.
"""

from __future__ import annotations

import os
import sys
import time

_ON = os.environ.get("MUSA_PORT_TIMINGS") == "1"
_PHASES: list[tuple[str, float, float, float]] = []  # (name, wall, cpu here, cpu of workers)
_last: tuple[float, float, float] | None = None


def _process_age() -> float:
    """Seconds since this process started (Linux), else 0."""
    try:
        with open("/proc/self/stat", "rb") as fh:
            start_ticks = int(fh.read().rsplit(b")", 1)[1].split()[19])
        return time.clock_gettime(time.CLOCK_BOOTTIME) - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0


def _children_cpu() -> float:
    """CPU seconds of the child processes ended (and waited for) so far."""
    t = os.times()
    return t.children_user + t.children_system


def mark(name: str) -> None:
    """End the phase called ``name`` now."""
    global _last
    if not _ON:
        return
    now = (time.perf_counter(), time.process_time(), _children_cpu())
    if _last is None:
        _last = (now[0] - _process_age(), 0.0, 0.0)
    _PHASES.append((name, now[0] - _last[0], now[1] - _last[1], now[2] - _last[2]))
    _last = now


def report() -> None:
    """Print the phases to stderr: wall, CPU here, CPU of the workers."""
    if not _ON or not _PHASES:
        return
    rows = [*_PHASES, ("total", *(sum(p[i] for p in _PHASES) for i in (1, 2, 3)))]
    width = max(len(r[0]) for r in rows)
    for name, wall, cpu, workers in rows:
        sys.stderr.write(f"musa-port timing: {name:<{width}}  {wall:6.3f} s wall  {cpu:6.3f} s cpu"
                         f"  {workers:6.3f} s cpu in workers\n")
    _PHASES.clear()
