"""Moving a port to a new upstream release (issue 39 deliverable 3): ``musa-port
NEW_SRC --output OUT`` where OUT was ported from an older SRC merges file by file;
files added upstream are ported fresh, files deleted upstream go only if the user did
not edit them, and renamed files are followed where git says they were renamed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import make_tree

from musa_porting import PortOptions, port_tree

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "HOME": str(cwd),
                               "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
                               "PATH": "/usr/bin:/bin:/usr/local/bin"}).stdout


def body(name: str, extra: str = "") -> str:
    """A kernel file long enough for git to see a rename with a small change."""
    lines = [f"// {name}: part of the upstream project", "#include <cuda_runtime.h>"]
    lines += [f"__global__ void {name}_k{i}(float* p) {{ p[{i}] = {i}; }}" for i in range(12)]
    lines += [f"void {name}_run(cudaStream_t s) {{ cudaStreamSynchronize(s); }}", extra]
    return "\n".join(lines) + "\n"


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


@pytest.fixture
def upstream(tmp_path) -> Path:
    repo = make_tree(tmp_path / "upstream", {
        "csrc/edited.cu": body("edited"),
        "csrc/moving.cu": body("moving"),
        "csrc/dropped_edited.cu": body("dropped_edited"),
        "csrc/dropped.cu": body("dropped"),
    })
    git(repo, "init", "-q")
    commit_all(repo, "v1")
    return repo


def port(src: Path, out: Path):
    return port_tree(PortOptions(src=str(src), output=str(out), jobs=1))


def test_an_upgrade_merges_follows_renames_keeps_edited_deletions_and_adds(upstream, tmp_path):
    out = tmp_path / "fork"
    port(upstream / "csrc", out)
    # The porter's hand edits.
    for name in ("edited", "moving", "dropped_edited"):
        mu = out / f"{name}.mu"
        mu.write_text(mu.read_text().replace("p[3] = 3; }", f"p[3] = 3; /* {name}: fixed on MUSA */ }}"))
    # Upstream's next release, checked out in a folder of its own.
    new = tmp_path / "upstream-v2"
    git(tmp_path, "clone", "-q", str(upstream), str(new))
    src = new / "csrc"
    (src / "edited.cu").write_text(body("edited", "int edited_version() { return 2; }"))
    git(new, "mv", "csrc/moving.cu", "csrc/moved.cu")
    (src / "moved.cu").write_text(body("moving", "int moving_version() { return 2; }"))
    (src / "dropped_edited.cu").unlink()
    (src / "dropped.cu").unlink()
    (src / "added.cu").write_text(body("added"))
    commit_all(new, "v2")

    r = port(src, out)

    edited = (out / "edited.mu").read_text()
    assert "fixed on MUSA" in edited and "edited_version() { return 2; }" in edited
    assert "<<<<<<<" not in edited
    moved = (out / "moved.mu").read_text()
    assert "fixed on MUSA" in moved and "moving_version() { return 2; }" in moved
    assert not (out / "moving.mu").exists()
    assert "fixed on MUSA" in (out / "dropped_edited.mu").read_text()
    assert any("dropped_edited.mu" in w and "left in place" in w for w in r.warnings)
    assert not (out / "dropped.mu").exists() and sorted(r.removed) == ["dropped.mu", "moving.mu"]
    assert "musaStreamSynchronize" in (out / "added.mu").read_text()
    assert sorted(r.merged) == ["edited.mu", "moved.mu"] and not r.conflicted
    # The old output of the renamed file is kept where the run said.
    assert any("moved.mu" in w and "moving.mu" in w and "kept as" in w for w in r.warnings)


def test_without_git_a_renamed_file_is_a_deletion_and_an_addition(upstream, tmp_path):
    out = tmp_path / "fork"
    old = tmp_path / "v1"
    shutil.copytree(upstream / "csrc", old)
    port(old, out)
    mu = out / "moving.mu"
    mu.write_text(mu.read_text() + "// mine\n")
    new = tmp_path / "v2"
    shutil.copytree(old, new)
    (new / "moving.cu").rename(new / "moved.cu")
    r = port(new, out)
    assert "// mine" in mu.read_text()  # kept, with a warning
    assert any("moving.mu" in w and "left in place" in w for w in r.warnings)
    assert "// mine" not in (out / "moved.mu").read_text()


def test_the_source_tree_s_git_configuration_runs_nothing(upstream, tmp_path):
    """SRC may ship a .git of its own: asking it for renames must not run the commands
    its configuration names (an fsmonitor, a filter driver)."""
    out = tmp_path / "fork"
    port(upstream / "csrc", out)
    git(upstream, "mv", "csrc/moving.cu", "csrc/moved.cu")
    (upstream / "csrc/moved.cu").write_text(body("moving", "int v2;"))
    (upstream / "csrc/added.cu").write_text(body("added"))
    mark = tmp_path / "ran"
    (upstream / ".gitattributes").write_text("* filter=evil\n")
    git(upstream, "config", "filter.evil.clean", f"touch {mark}-clean; cat")
    git(upstream, "config", "filter.evil.smudge", f"touch {mark}-smudge; cat")
    git(upstream, "config", "core.fsmonitor", f"touch {mark}-fsmonitor; false")
    mu = out / "moving.mu"
    mu.write_text(mu.read_text() + "// mine\n")
    port(upstream / "csrc", out)
    assert "// mine" in (out / "moved.mu").read_text()  # git was asked, and answered
    assert not list(tmp_path.glob("ran*"))
