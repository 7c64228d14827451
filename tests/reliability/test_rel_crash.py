"""Crash safety: SIGKILL at 10 moments of a 5,000-file port leaves every output old or
new, and a plain re-run gives exactly a clean port with no temp file left; SIGINT is
one line and exit 130, and cleans up; workers die with their parent. Issue 18 "crash
safety", issue 19 item 7 and the SIGINT and worker items."""

from __future__ import annotations

import shutil
import signal
import time
from pathlib import Path

import pytest
from conftest import make_tree
from conftest import run_cli as cli
from relhelp import (
    alive,
    descendants,
    kill_all,
    one_error,
    same_port,
    start,
    state,
    temps,
    wait_gone,
    without_manifest,
)

N_FILES = 5_000  # 20,000 cost 10 minutes of CI's 30; the moments scale with it


def _versions(root: Path, n: int) -> tuple[Path, Path]:
    """Two versions of one tree of ``n`` files: ``old``, and ``new`` with a quarter of
    the sources edited, some deleted and added, a folder renamed, and a folder that
    became a file. Most files are copied (cheap), a third are ported."""
    old, new = root / "old", root / "new"
    files = {}
    for i in range(n):
        d = f"d{i // 400}/e{i % 5}"
        ext = (".cu", ".h", ".txt")[i % 3]
        files[f"{d}/f{i}{ext}"] = f"cudaStream_t s{i};\n" if ext != ".txt" else f"data {i}\n"
    files["gone/x.cu"] = "cudaEvent_t e;\n"
    files["morph/m.cu"] = "int m;\n"
    make_tree(old, files)
    for i in range(0, n, 4):  # edits
        d, ext = f"d{i // 400}/e{i % 5}", (".cu", ".h", ".txt")[i % 3]
        files[f"{d}/f{i}{ext}"] = f"cudaEvent_t e{i};\n" if ext != ".txt" else f"new {i}\n"
    for i in range(1, n, 50):  # deletions
        files.pop(f"d{i // 400}/e{i % 5}/f{i}{('.cu', '.h', '.txt')[i % 3]}")
    for i in range(200):  # additions
        files[f"added/a{i}.cu"] = f"cudaMalloc(p, {i});\n"
    files = {("renamed/" + k[5:] if k.startswith("gone/") else k): v for k, v in files.items()}
    files.pop("morph/m.cu")
    files["morph"] = "cudaFree(0);\n"
    make_tree(new, files)
    return old, new


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    root = tmp_path_factory.mktemp("crash")
    old, new = _versions(root, N_FILES)
    ref_old, ref_new = root / "ref_old", root / "ref_new"
    for src, ref in ((old, ref_old), (new, ref_new)):
        proc = cli(src, "-o", ref, "-q")
        assert proc.returncode == 0, proc.stderr
    return root, old, new, state(ref_old), state(ref_new), ref_old


def _old_or_new(out: Path, old: dict, new: dict) -> None:
    """Every output is its old or its new version (temp files aside)."""
    now = state(out)
    for rel, row in now.items():
        if b"musa-port-tmp" in rel or rel in (b".musa-port-journal", b".musa-port-lock",
                                               b".musa-port-manifest.json"):
            continue
        assert row in (old.get(rel), new.get(rel)), rel


# The moments: fault points of the write path (see musa_porting/write/faults.py), and
# two SIGKILLs from outside at a time during planning.
KILL_POINTS = ["stage:1", "stage:650", "stage:1300", "commit:1", "commit:50", "commit:375",
               "commit:1375", "manifest:1", "journal:1"]


@pytest.mark.slow
@pytest.mark.parametrize("point", [*KILL_POINTS, "outside:0.5"])
def test_sigkill_at_any_moment_then_a_rerun_is_a_clean_port(trees, point, tmp_path):
    root, old, new, s_old, s_new, ref_old = trees
    out = tmp_path / "out"
    shutil.copytree(ref_old, out, symlinks=True)
    if point.startswith("outside:"):
        t0 = time.monotonic()
        proc = start(new, "-o", out, "-q")
        time.sleep(float(point.split(":")[1]) * 4)
        pids = descendants(proc.pid)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert wait_gone(pids, 5) == set(), "workers outlived their parent"
        assert time.monotonic() - t0 < 60
        rc = proc.returncode
    else:
        rc = cli(new, "-o", out, "-q", env={"MUSA_PORT_FAULTS": point + "=kill"}).returncode
    assert rc == -signal.SIGKILL, rc  # the fault point was reached
    _old_or_new(out, s_old, s_new)
    proc = cli(new, "-o", out, "-q")
    assert proc.returncode == 0, proc.stderr
    assert without_manifest(state(out)) == without_manifest(s_new)
    assert temps(out) == []
    assert cli(new, "-o", out, "-q").returncode == 0  # and it stays so
    assert without_manifest(state(out)) == without_manifest(s_new)


def test_killed_first_run_then_deleted_sources_leaves_no_stale_output(tmp_path):
    files = {f"d{i % 9}/f{i}.cu": f"cudaStream_t s{i};\n" for i in range(600)}
    src = make_tree(tmp_path / "s", files)
    out = tmp_path / "s_musa"
    proc = cli(src, "-q", env={"MUSA_PORT_FAULTS": "commit:400=kill"})
    assert proc.returncode == -signal.SIGKILL
    assert 300 < sum(1 for _ in out.rglob("*.mu")) < 600  # some renamed, not all
    for i in range(0, 600, 2):
        (src / f"d{i % 9}/f{i}.cu").unlink()
    assert cli(src, "-q").returncode == 0
    same_port(state(out), _clean(src, tmp_path / "ref"))
    assert temps(out) == []


def _clean(src: Path, dest: Path) -> dict:
    assert cli(src, "-o", dest, "-q").returncode == 0
    return state(dest)


@pytest.mark.parametrize("point", ["commit:1", "commit:300", "manifest:1"])
def test_sigint_during_the_renames_finishes_them_and_says_so(tmp_path, point):
    src = make_tree(tmp_path / "s", {f"d{i % 9}/f{i}.cu": "cudaStream_t s;\n" for i in range(400)})
    assert cli(src, "-q").returncode == 0
    for p in src.rglob("*.cu"):
        p.write_text("cudaEvent_t e;\n")
    proc = cli(src, "-q", env={"MUSA_PORT_FAULTS": point + "=int"})
    line = one_error(proc, 130)
    assert "interrupted" in line
    out = tmp_path / "s_musa"
    assert temps(out) == []
    same_port(state(out), _clean(src, tmp_path / "ref"))  # the commit was completed


def _big_tree(root: Path, n: int) -> Path:
    return make_tree(root, {f"d{i % 40}/f{i}.cu": f"cudaStream_t s{i};\n" * 20 for i in range(n)})


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_while_planning_is_one_line_and_leaves_nothing(tmp_path, sig, code):
    src = _big_tree(tmp_path / "s", 6000)
    proc = start(src, "-q", "-j", "2")
    out = tmp_path / "s_musa"
    deadline = time.monotonic() + 60
    while not any(out.glob("d*")) and time.monotonic() < deadline:  # staging has begun
        time.sleep(0.02)
    pids = descendants(proc.pid)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    err = err.decode(errors="replace")
    assert proc.returncode == code, err
    assert "Traceback" not in err and err.count("\n") == 1 and err.startswith("error: "), err
    assert wait_gone(pids, 5) == set()
    assert not out.exists()  # a first run interrupted while planning writes nothing


def test_workers_die_quietly_with_their_parent(tmp_path):
    src = _big_tree(tmp_path / "s", 6000)
    log = tmp_path / "stderr"
    with open(log, "wb") as fh:
        proc = start(src, "-q", "-j", "2", stderr=fh)
        deadline = time.monotonic() + 60
        pids: set[int] = set()
        while len(pids) < 2 and time.monotonic() < deadline:  # workers are at work
            pids = alive(descendants(proc.pid))
            time.sleep(0.01)
        assert pids, "no workers started"
        proc.kill()
        proc.wait()
        left = wait_gone(pids, 5)
        kill_all(left)
    text = log.read_bytes().decode(errors="replace")
    assert left == set(), f"workers outlived their parent: {left}; {text}"
    assert "Traceback" not in text and "BrokenPipeError" not in text, text


def test_the_lock_file_of_a_killed_run_does_not_block_the_next(tmp_path):
    src = make_tree(tmp_path / "s", {"a.cu": "cudaStream_t s;\n"})
    proc = cli(src, "-q", env={"MUSA_PORT_FAULTS": "stage:1=kill"})
    assert proc.returncode == -signal.SIGKILL
    assert (tmp_path / "s_musa/.musa-port-lock").exists()
    t0 = time.monotonic()
    assert cli(src, "-q", "--wait", "0").returncode == 0
    assert time.monotonic() - t0 < 30 and temps(tmp_path / "s_musa") == []

