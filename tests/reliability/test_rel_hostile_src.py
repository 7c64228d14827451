"""A hostile source tree or its surroundings: files swapped for links or FIFOs after the
walk, an output that reaches SRC through a bind mount, links that leave the tree and
come back, settings planted in a shared parent folder, a git configuration that runs
commands, rule files that are devices. Issue 24 items 6, 7, 9, 10 and 11; issue 28
items 1 and 13."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import make_tree, skip_or_fail_in_ci
from conftest import run_cli as cli
from relhelp import memory_capped, one_error, state, temps

from musa_porting.tree import porter as porter_mod
from musa_porting.tree.options import PortOptions
from musa_porting.tree.porter import port_tree

SECRET = "the secret\n"


# -- 24.6: a source swapped after the walk ---------------------------------------------------

class Blocked(BaseException):
    """Not an OSError: nothing in the run may take it for a read error."""


@pytest.fixture
def watchdog():
    """A run that blocks (reading a FIFO) fails the test after 30 s instead of hanging."""
    def expired(signum, frame):
        raise Blocked("the run blocked")

    old = signal.signal(signal.SIGALRM, expired)
    signal.alarm(30)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def _swap_after_walk(monkeypatch, swap) -> None:
    """Run ``swap()`` once the walk has listed SRC, before any file is read."""
    real = porter_mod.walk

    def walk_then_swap(*args, **kw):
        entries = list(real(*args, **kw))
        swap()
        return iter(entries)

    monkeypatch.setattr(porter_mod, "walk", walk_then_swap)


@pytest.mark.parametrize("victim,swap_in", [("notes.txt", "link"), ("k.cu", "link"),
                                            ("sub", "link"), ("notes.txt", "fifo"),
                                            ("k.cu", "fifo")])
def test_a_source_swapped_after_the_walk_is_not_read(tmp_path, monkeypatch, watchdog, victim,
                                                     swap_in):
    src = make_tree(tmp_path / "src", {"notes.txt": "notes\n", "k.cu": "cudaStream_t s;\n",
                                       "sub/inner.txt": "inner\n"})
    secret = make_tree(tmp_path / "secret", {"notes.txt": SECRET, "k.cu": SECRET,
                                             "inner.txt": SECRET})
    for p in secret.rglob("*"):
        p.chmod(0o600)

    def swap():
        target = src / victim
        if target.is_dir():
            for p in target.iterdir():
                p.unlink()
            target.rmdir()
        else:
            target.unlink()
        if swap_in == "fifo":
            os.mkfifo(target)
        else:
            os.symlink(secret if victim == "sub" else secret / victim, target)

    _swap_after_walk(monkeypatch, swap)
    out = tmp_path / "out"
    # Not read, not written, and said (it stopped the run; issue 44: the rest is ported).
    result = port_tree(PortOptions(src=str(src), output=str(out), jobs=1))
    said = [(f.rel, d.message) for f in result.files for d in f.diagnostics if d.id == "MP0004"]
    assert len(said) == 1 and victim in said[0][0] and "\n" not in said[0][1]
    assert not any(SECRET.encode() in p.read_bytes() for p in out.rglob("*") if p.is_file())
    written = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()
               and not p.relative_to(out).as_posix().startswith(".musa-port")}
    assert written == {"notes.txt", "k.mu", "sub/inner.txt"} - {said[0][0], "k.mu"
                                                                if victim == "k.cu" else ""}
    assert temps(tmp_path) == []


# -- 24.7: the output reaches SRC through a bind mount ----------------------------------------

def test_an_output_inside_src_through_a_bind_mount_is_refused(tmp_path):
    src = make_tree(tmp_path / "src", {"a.cu": "cudaStream_t s;\n"})
    alias = tmp_path / "alias"
    alias.mkdir()
    mounted = subprocess.run(["mount", "--bind", str(src), str(alias)], capture_output=True)
    if mounted.returncode != 0:
        skip_or_fail_in_ci(f"mount --bind not allowed here: {mounted.stderr.decode().strip()}")
    try:
        before = state(src)
        proc = cli(src, "-o", alias / "out")
        assert "inside the source folder" in one_error(proc)
        assert state(src) == before
    finally:
        subprocess.run(["umount", str(alias)], check=True)


def test_src_inside_the_output_through_a_link_is_refused(tmp_path):
    make_tree(tmp_path / "out/inner", {"a.cu": "cudaStream_t s;\n"})
    os.symlink(tmp_path / "out/inner", tmp_path / "src")
    proc = cli(tmp_path / "src", "-o", tmp_path / "out")
    assert "inside the output folder" in one_error(proc)


# -- 24.11: a link that leaves the tree and comes back ----------------------------------------

def test_a_link_that_leaves_the_tree_and_comes_back_follows_the_rename(tmp_path):
    src = make_tree(tmp_path / "csrc", {"real.cuh": "int r;\n", "sub/x.h": "int x;\n"})
    os.symlink("../csrc/real.cuh", src / "k.cuh")
    os.symlink("../../csrc/real.cuh", src / "sub/k2.cuh")
    os.symlink(f"{tmp_path}/csrc/sub/../real.cuh", src / "abs.cuh")
    assert cli(src, "-q").returncode == 0
    out = tmp_path / "csrc_musa"
    assert os.readlink(out / "k.muh") == "real.muh"
    assert os.readlink(out / "sub/k2.muh") == "../real.muh"
    assert os.path.realpath(out / "abs.muh") == str(out / "real.muh")


# -- 24.9 and 28.13: settings discovery ----------------------------------------------------------

RULE = '{"cudaStream_t": "PWNED_t"}\n'


def _shared(tmp_path: Path, project_files: dict[str, str]) -> Path:
    """tmp/shared/.musa-port.toml (with an injected rule) above tmp/shared/proj/csrc."""
    shared = make_tree(tmp_path / "shared", {".musa-port.toml": 'rule = ["evil.json"]\n',
                                             "evil.json": RULE})
    make_tree(shared / "proj", {"csrc/a.cu": "cudaStream_t s;\n", **project_files})
    return shared / "proj/csrc"


@pytest.mark.parametrize("marker", ["pyproject.toml", ".git/HEAD"])
def test_settings_above_the_project_root_are_not_read(tmp_path, marker):
    content = '[project]\nname = "p"\n' if marker == "pyproject.toml" else "ref: refs/heads/main\n"
    src = _shared(tmp_path, {marker: content})
    proc = cli(src, "-q")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "shared/proj/csrc_musa/a.mu").read_text() == "musaStream_t s;\n"


@pytest.mark.parametrize("how", ["owner", "mode"])
def test_settings_another_user_can_write_are_ignored_with_a_warning(tmp_path, how):
    src = _shared(tmp_path, {})
    settings = tmp_path / "shared/.musa-port.toml"
    if how == "owner":
        if os.geteuid() != 0:
            pytest.skip("chown to another user needs root")
        os.chown(settings, 65534, 65534)
    else:
        settings.chmod(0o666)
    proc = cli(src, "-q")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "shared/proj/csrc_musa/a.mu").read_text() == "musaStream_t s;\n"
    assert str(settings) in proc.stderr and "warning" in proc.stderr


def test_a_tool_key_that_is_a_string_is_not_a_crash(tmp_path):
    src = make_tree(tmp_path / "proj", {"pyproject.toml": 'tool = "musa-port"\n',
                                        "csrc/a.cu": "cudaStream_t s;\n"}) / "csrc"
    proc = cli(src, "-q")
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "proj/csrc_musa/a.mu").read_text() == "musaStream_t s;\n"


# -- 28.1: devices and FIFOs are never read ---------------------------------------------------

@pytest.mark.parametrize("how", ["settings", "option"])
@pytest.mark.parametrize("what", ["/dev/zero", "fifo"])
def test_a_rule_file_that_is_a_device_or_a_fifo_is_refused(tmp_path, how, what):
    src = make_tree(tmp_path / "proj", {"csrc/a.cu": "cudaStream_t s;\n"}) / "csrc"
    if what == "fifo":
        os.mkfifo(tmp_path / "fifo")
        what = str(tmp_path / "fifo")
    if how == "settings":
        (tmp_path / "proj/.musa-port.toml").write_text(f'rule = ["{what}"]\n')
        proc = cli(src, "-q", timeout=60, **memory_capped())
    else:
        proc = cli(src, "-q", "--rule", what, timeout=60, **memory_capped())
    assert what in one_error(proc)
    assert not (tmp_path / "proj/csrc_musa").exists()


def test_a_settings_file_that_is_a_fifo_is_refused(tmp_path):
    src = make_tree(tmp_path / "proj", {"csrc/a.cu": "cudaStream_t s;\n"}) / "csrc"
    os.mkfifo(tmp_path / "cfg.toml")
    proc = cli(src, "-q", "--config", tmp_path / "cfg.toml", timeout=60)
    assert "cfg.toml" in one_error(proc)


# -- 24.10: musa-converter and the tree's git configuration -----------------------------------

def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def test_musa_converter_does_not_run_the_trees_git_configuration(tmp_path):
    repo = make_tree(tmp_path / "repo", {"t.py": "import torch\nx = torch.cuda.is_available()\n"})
    _git(repo, "init", "-q")
    _git(repo, "add", "t.py")
    _git(repo, "-c", "user.email=a@b", "-c", "user.name=n", "commit", "-qm", "base")
    pwned = tmp_path / "PWNED"
    hook = tmp_path / "hook.sh"
    hook.write_text(f"#!/bin/sh\necho fsmonitor >> {pwned}\n")
    hook.chmod(0o755)
    _git(repo, "config", "core.fsmonitor", str(hook))
    _git(repo, "config", "filter.evil.clean", f"echo filter >> {pwned}; cat")
    (repo / ".git/info/attributes").write_text("*.py filter=evil\n")
    os.utime(repo / "t.py", (1, 1))  # the index's stat no longer matches: git would clean it
    proc = subprocess.run([sys.executable, "-m", "musa_porting.musa_converter", "-r", str(repo)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert not pwned.exists(), pwned.read_text()
    assert "torch.musa.is_available()" in (repo / "t.py").read_text()
