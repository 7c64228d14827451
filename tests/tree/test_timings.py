"""MUSA_PORT_TIMINGS=1: each phase's CPU in the parent and in the forked workers, so a
regression shows in the phase (and the process) where it happens."""

from __future__ import annotations

import os
import re
import subprocess
import sys

ROW = re.compile(r"musa-port timing: (.+?)\s+(\d+\.\d+) s wall\s+(\d+\.\d+) s cpu"
                 r"\s+(\d+\.\d+) s cpu in workers$")


def _timings(tmp_path, jobs: int) -> dict[str, tuple[float, float, float]]:
    src = tmp_path / "src"
    src.mkdir()
    for i in range(80):  # enough sources for the worker pools
        (src / f"k{i}.cu").write_text(f"__global__ void k{i}() {{}}\n"
                                      f"void f{i}() {{ cudaMalloc(0, 0); cudaFree(0); }}\n" * 40)
    env = {**os.environ, "MUSA_PORT_TIMINGS": "1"}
    proc = subprocess.run([sys.executable, "-m", "musa_porting", str(src), "-o",
                           str(tmp_path / f"out{jobs}"), "-q", "--jobs", str(jobs)],
                          capture_output=True, text=True, env=env, check=True)
    rows = {}
    for line in proc.stderr.splitlines():
        m = ROW.match(line)
        assert m, f"not a timing row: {line!r}"
        rows[m.group(1)] = (float(m.group(2)), float(m.group(3)), float(m.group(4)))
    return rows


def test_timings_show_each_phase_cpu_in_the_workers(tmp_path):
    rows = _timings(tmp_path, jobs=2)
    assert rows["files ported and staged"][2] > 0  # the workers ported the files
    assert rows["project symbols (index, tables, plan)"][2] > 0  # and indexed them
    phases = [v for k, v in rows.items() if k != "total"]
    assert abs(sum(v[2] for v in phases) - rows["total"][2]) < 0.01


def test_timings_without_workers_show_none(tmp_path):
    rows = _timings(tmp_path, jobs=1)
    assert rows["files ported and staged"][1] > 0
    assert all(v[2] == 0 for v in rows.values())
