"""Two runs on one output at once, and a run while the sources change under it.
Issue 18 "concurrency", issue 19 item 8."""

from __future__ import annotations

import fcntl
import os
import shutil
import threading
import time

import pytest
from conftest import make_tree
from conftest import run_cli as cli
from relhelp import one_error, same_port, start, state, temps

REPEATS = 20


def _tree(root, n=300, tag="cudaStream_t"):
    return make_tree(root, {f"d{i % 7}/f{i}.cu": f"{tag} s{i};\n" * 30 for i in range(n)})


def test_two_runs_at_once_always_give_a_clean_port(tmp_path):
    src = _tree(tmp_path / "s", 150)
    out = tmp_path / "out"
    ref = tmp_path / "ref"
    for rep in range(REPEATS):
        if rep % 2:  # every other time a re-run after an edit, else a first run
            for p in list(src.rglob("*.cu"))[rep::7]:
                p.write_text(p.read_text() + f"// edit {rep}\n")
        else:
            for p in (out, ref):
                if p.exists():
                    shutil.rmtree(p)
        a = start(src, "-o", out, "-q", "-j", "1")
        b = start(src, "-o", out, "-q", "-j", "1")
        err_a, err_b = a.communicate(timeout=120)[1], b.communicate(timeout=120)[1]
        assert (a.returncode, b.returncode) == (0, 0), (rep, err_a, err_b)
        assert temps(out) == []
        if rep % 5 == 4:
            assert cli(src, "-o", ref, "-q").returncode == 0
            same_port(state(out), state(ref))


def test_a_held_lock_makes_a_run_wait_or_fail_with_one_line(tmp_path):
    src = _tree(tmp_path / "s", 5)
    out = tmp_path / "s_musa"
    assert cli(src, "-q").returncode == 0
    (src / "d0/f0.cu").write_text("cudaEvent_t e;\n")
    before = state(out, with_mtime=True)
    fd = os.open(out / ".musa-port-lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX)  # as another run would
    try:
        line = one_error(cli(src, "-q", "--wait", "0.5"))
        assert "another musa-port run is writing" in line and "--wait" in line, line
        assert str(out / ".musa-port-lock") in line
        assert {k: v for k, v in state(out, with_mtime=True).items()
                if k != b".musa-port-lock"} == before
        waiter = start(src, "-q", "--wait", "60")
        time.sleep(1.0)
        assert waiter.poll() is None  # still waiting
    finally:
        os.close(fd)  # the other run ends
    _, err = waiter.communicate(timeout=60)
    assert waiter.returncode == 0, err
    assert (out / "d0/f0.mu").read_text() == "musaEvent_t e;\n"
    assert temps(out) == []


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_source_edited_during_the_run_is_reported_and_the_next_run_converges(tmp_path, jobs):
    src = _tree(tmp_path / "s", 2000)
    busy = src / "d0/f0.cu"
    stop = threading.Event()

    def edit():
        n = 0
        while not stop.is_set():
            n += 1
            with open(busy, "a") as fh:
                fh.write(f"cudaFree(p{n});\n")
            time.sleep(0.001)

    editor = threading.Thread(target=edit)
    editor.start()
    try:
        proc = cli(src, "-q", "-j", jobs)
    finally:
        stop.set()
        editor.join()
    assert proc.returncode == 0, proc.stderr
    assert f"{busy}: warning: changed while it was ported" in proc.stderr
    out = tmp_path / "s_musa"
    assert cli(src, "-q").returncode == 0
    same_port(state(out), state_of_clean(src, tmp_path / "ref"))
    assert "musaFree" in (out / "d0/f0.mu").read_text().splitlines()[-1]


def state_of_clean(src, dest):
    assert cli(src, "-o", dest, "-q").returncode == 0
    return state(dest)


@pytest.mark.parametrize("name", ["blob.bin", "k.cu", "build.sh"])
def test_a_file_that_vanishes_during_the_run_is_said_to_have_vanished(tmp_path, monkeypatch, name):
    """Deleted after the walk listed it: a finding names the file and says it vanished
    (it was "Permission denied", issue 28 item 16); nothing is written for it, the rest
    is ported (it stopped the run, issue 44)."""
    from musa_porting.tree import porter
    from musa_porting.tree.options import PortOptions

    src = make_tree(tmp_path / "s", {"keep.cu": "cudaFree(p);\n",
                                     name: "#!/bin/sh\nnvcc -c k.cu\ncudaMalloc\n"})
    listed = porter.walk

    def walk_then_delete(*args, **kw):
        entries = list(listed(*args, **kw))
        (src / name).unlink()
        yield from entries

    monkeypatch.setattr(porter, "walk", walk_then_delete)
    result = porter.port_tree(PortOptions(str(src), str(tmp_path / "out"), jobs=1))
    [(f, d)] = [(f, d) for f in result.files for d in f.diagnostics if d.id == "MP0004"]
    assert f.rel == name and f.kind == "not-ported"
    assert "vanished" in d.message and "Permission" not in d.message
    assert sorted(p.name for p in (tmp_path / "out").iterdir()
                  if not p.name.startswith(".musa-port")) == ["keep.mu"]
    assert temps(tmp_path) == []


def test_a_file_that_vanishes_while_the_walk_lists_its_folder_is_not_in_the_tree(tmp_path,
                                                                                  monkeypatch):
    """Listed by its folder, gone before its details are read: it is not part of the
    tree (before, the run stopped with "No such file or directory")."""
    from musa_porting.tree import walk as walk_mod

    src = make_tree(tmp_path / "s", {"a.cu": "x\n", "gone.cu": "y\n"})
    real = os.scandir

    class Gone:
        def __init__(self, entry):
            self.name, self.path = entry.name, entry.path

        def stat(self, follow_symlinks=True):
            raise FileNotFoundError(2, "No such file or directory", self.path)

    class Listing:
        def __init__(self, path):
            self.it = real(path)

        def __enter__(self):
            return [Gone(e) if e.name == "gone.cu" else e for e in self.it]

        def __exit__(self, *exc):
            self.it.close()

    monkeypatch.setattr(walk_mod.os, "scandir", Listing)
    entries = list(walk_mod.walk(str(src), walk_mod.Ignorer([])))
    assert [e.rel for e in entries] == ["a.cu"]
