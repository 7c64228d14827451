"""Round 5 of the hostile tester (issue 47): a port that could hang, and what OUT's own
folder and the project around a backend folder may hold. Each test failed before its
fix."""

from __future__ import annotations

import subprocess

import pytest
from conftest import make_tree
from relhelp import descendants, kill_all, start, temps

# -- item 1: a worker slow to start -------------------------------------------------------


def test_a_worker_slow_to_start_does_not_hang_the_run(tmp_path):
    """Enough sources for both pools of a run (the symbol index's, workers 1 and 2, and
    the planning's, 3 and 4). ``late``: a worker that the pool's end finds not yet past
    its fork, and which loses the SIGTERM ``Pool.terminate`` sends it (the race seen
    under load): it then waits for ever on the lock terminate holds, and the run with
    it. ``stuck``: a worker that never ends: the run must not wait for it without
    bound either."""
    fault = "worker:2=late,worker:4=stuck"
    src = make_tree(tmp_path / "s", {f"k{i}.cu": f"cudaStream_t s{i};\nvoid f{i}();\n"
                                     for i in range(80)})
    proc = start(src, "-q", "-j", "2", env={"MUSA_PORT_FAULTS": fault})
    try:
        err = proc.communicate(timeout=60)[1].decode()
    except subprocess.TimeoutExpired:
        kill_all(descendants(proc.pid) | {proc.pid})
        proc.wait()
        pytest.fail(f"the run hangs with {fault}")
    assert proc.returncode == 0, err
    out = tmp_path / "s_musa"
    assert sorted(p.name for p in out.glob("*.mu")) == sorted(f"k{i}.mu" for i in range(80))
    assert "cudaStream_t" not in (out / "k79.mu").read_text()
    assert temps(out) == []
