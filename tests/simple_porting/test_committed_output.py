"""A committed output folder (issue 36, point 3): a project that commits the tree
torch_musa's SimplePorting wrote (vLLM's MUSA forks commit csrc_musa/). SimplePorting
replaces it, as torch_musa does, when git can give back every file it replaces; else it
stops as before, naming the first file git cannot give back, and force=True."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import make_tree

from musa_porting import PortError, SimplePorting

if shutil.which("git") is None:  # pragma: no cover - git is on every CI machine
    pytest.skip("no git", allow_module_level=True)


def git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=cwd,
                   check=True, capture_output=True)


@pytest.fixture
def project(tmp_path, monkeypatch):
    """csrc/ and the csrc_musa/ torch_musa wrote for it, hand-fixed, all committed."""
    make_tree(tmp_path, {
        "csrc/a.cu": "void a() { cudaDeviceSynchronize(); }\nint one = 1;\n",
        "csrc/b.cu": "void b() { cudaGetLastError(); }\n",
        "csrc_musa/a.mu": "void a() { musaDeviceSynchronize(); /* hand fix */ }\nint one = 1;\n",
        "csrc_musa/b.mu": "void b() { musaGetLastError(); }\n",
        "csrc_musa/NOTES.md": "ported with torch_musa\n",  # not an output of the port
    })
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "port")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_clean_committed_port_is_replaced(project, capsys):
    SimplePorting("csrc").run()
    out = project / "csrc_musa"
    assert (out / "a.mu").read_text() == "void a() { musaDeviceSynchronize(); }\nint one = 1;\n"
    assert (out / "NOTES.md").read_text() == "ported with torch_musa\n"  # kept
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if "committed port" in line and "git checkout" in line]
    replaced = [line for line in err if "replaced (tracked by git, unchanged)" in line]
    assert len(replaced) == 1 and "a.mu" in replaced[0]  # b.mu was already the port's bytes
    # The next call knows the folder as musa-port's (its manifest is there now).
    SimplePorting("csrc").run()
    assert "committed port" not in capsys.readouterr().err
    # The hand fix git gives back is the porter's edit from then on: kept by the next
    # build, and merged with a new port of an edited source (the bases musa-port wrote).
    git(project, "checkout", "--", "csrc_musa")
    SimplePorting("csrc", quiet=True).run()
    assert "/* hand fix */" in (out / "a.mu").read_text()
    (project / "csrc/a.cu").write_text("void a() { cudaDeviceSynchronize(); }\nint one = 1;\nvoid z();\n")
    r = SimplePorting("csrc", quiet=True).run()
    assert (out / "a.mu").read_text() == \
        "void a() { musaDeviceSynchronize(); /* hand fix */ }\nint one = 1;\nvoid z();\n"
    assert r.merged == ["a.mu"] and not r.conflicted


@pytest.mark.parametrize("name, why", [("a.mu", "changed since the last commit"),
                                       ("c.mu", "not tracked by git")])
def test_a_file_git_cannot_give_back_stops_the_call(project, name, why):
    if name == "a.mu":  # a hand fix not committed yet
        (project / "csrc_musa/a.mu").write_text("void a() { /* new hand fix */ }\n")
    else:  # a new source, and a file of the user's where its port goes
        (project / "csrc/c.cu").write_text("void c();\n")
        (project / "csrc_musa/c.mu").write_text("mine\n")
    before = {p.name: p.read_bytes() for p in (project / "csrc_musa").iterdir()}
    with pytest.raises(PortError) as e:
        SimplePorting("csrc", quiet=True).run()
    assert why in e.value.message and "force=True" in e.value.message
    assert e.value.path.endswith(name)
    assert {p.name: p.read_bytes() for p in (project / "csrc_musa").iterdir()} == before
    SimplePorting("csrc", quiet=True, force=True).run()  # the way past it
    assert (project / "csrc_musa/a.mu").read_text() == "void a() { musaDeviceSynchronize(); }\nint one = 1;\n"


def test_outside_git_it_stops_as_before(tmp_path, monkeypatch):
    make_tree(tmp_path, {"csrc/a.cu": "void a();\n", "csrc_musa/a.mu": "mine\n"})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    with pytest.raises(PortError, match="not in a git repository.*force=True"):
        SimplePorting("csrc", quiet=True).run()
    assert (tmp_path / "csrc_musa/a.mu").read_text() == "mine\n"


# -- issue 47 items 2 and 5: the check's git runs nothing the repository names, and a git
# that fails cannot say "unchanged" -----------------------------------------------------

def test_the_check_runs_nothing_the_repository_configuration_names(project):
    """A project shipped with ``core.fsmonitor`` set to a command: git status would run
    it. The check's git must not (it goes through the hardened runner)."""
    marker = project / "PWNED"
    hook = project / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    git(project, "config", "core.fsmonitor", str(hook))
    git(project, "config", "filter.evil.clean", f"touch {marker}; cat")
    (project / ".gitattributes").write_text("*.mu filter=evil\n")
    SimplePorting("csrc", quiet=True).run()
    assert not marker.exists()
    assert "/* hand fix */" not in (project / "csrc_musa/a.mu").read_text()  # the check passed


def test_a_git_that_cannot_tell_refuses(project):
    """A damaged index: ``git status`` fails. That is not "nothing changed": the call
    stops, naming the file and force=True, and the uncommitted hand fix stays."""
    (project / "csrc_musa/a.mu").write_text("void a() { /* new hand fix */ }\n")
    (project / ".git/index").write_bytes(b"DIRC\0\0\0\2garbage")
    with pytest.raises(PortError) as e:
        SimplePorting("csrc", quiet=True).run()
    assert "git" in e.value.message and "force=True" in e.value.message
    assert e.value.path.endswith("a.mu")
    assert (project / "csrc_musa/a.mu").read_text() == "void a() { /* new hand fix */ }\n"


def test_a_git_status_that_times_out_refuses(project, monkeypatch):
    """``git status`` over its time limit says nothing about the files either."""
    import musa_porting.simple.committed as committed

    real = committed.run_git

    def slow_status(folder, *args, **kw):
        if args[0] == "status":
            raise subprocess.TimeoutExpired(["git", *args], kw["timeout"])
        return real(folder, *args, **kw)

    monkeypatch.setattr(committed, "run_git", slow_status)
    (project / "csrc_musa/a.mu").write_text("void a() { /* new hand fix */ }\n")
    with pytest.raises(PortError, match=r"git status` took over 120 s.*force=True") as e:
        SimplePorting("csrc", quiet=True).run()
    assert e.value.path.endswith("a.mu")
    assert (project / "csrc_musa/a.mu").read_text() == "void a() { /* new hand fix */ }\n"
