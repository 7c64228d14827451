"""musa-converter on links and on large repositories (issue 37, items 9 and 10): a
script named through a link is converted where it lives and the link kept (or, when
it lives outside the project, refused with a message); git is asked about any number
of files, in time linear in their number; a file in a folder git ignores is not taken
for a committed one."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import make_tree
from relhelp import growth, state
from round4 import run_main

from musa_porting.convert import safety

GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
SCRIPT = "import torch\nx = torch.cuda.is_available()\n"
SLACK = 2.2  # over the size ratio, as tests/reliability/test_rel_scaling.py allows


def committed(root: Path, files: dict[str, str]) -> Path:
    make_tree(root, files)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=GIT_ENV,
                       capture_output=True)
    return root


# -- item 9: a script named through a link ----------------------------------------------------

def test_a_linked_script_is_converted_where_it_lives_and_the_link_kept(tmp_path):
    proj = committed(tmp_path / "proj", {"scripts/train_impl.py": SCRIPT})
    os.symlink("scripts/train_impl.py", proj / "train.py")
    run = run_main(["-r", proj / "train.py", "-l", proj / "train.py"], converter=True)
    assert run.code == 0, run.err
    assert os.readlink(proj / "train.py") == "scripts/train_impl.py"
    text = (proj / "scripts/train_impl.py").read_text()
    assert "torch.musa.is_available()" in text and "import torch_musa" in text
    assert not list(proj.rglob("*.orig"))  # git holds the original


def test_a_linked_script_outside_its_folder_is_refused(tmp_path):
    make_tree(tmp_path, {"shared/train.py": SCRIPT, "proj/x.txt": ""})
    os.symlink(tmp_path / "shared/train.py", tmp_path / "proj/train.py")
    before = state(tmp_path, with_mtime=True)
    line = run_main(["-r", tmp_path / "proj/train.py"], converter=True).one_error()
    assert str(tmp_path / "shared/train.py") in line and "link" in line, line
    assert state(tmp_path, with_mtime=True) == before


# -- item 10: large repositories ----------------------------------------------------------------

def test_more_paths_than_a_command_line_holds_are_converted(tmp_path):
    """700 files whose paths pass 3,000 bytes: 2.3 MB of paths, more than a command
    line holds (20,000 ordinary paths are as many bytes)."""
    deep = "/".join([f"{'a_long_folder_name_' * 12}{k}" for k in range(14)])
    assert len(deep) > 3_000
    files = {f"{deep}/m{i}.py": SCRIPT for i in range(700)}
    proj = committed(tmp_path / "p", files)
    run = run_main(["-r", proj, "--no-backup"], converter=True)
    assert run.code == 0, run.err
    assert "700 changed" in run.out.decode()
    assert all("torch.musa" in (proj / rel).read_text() for rel in list(files)[::100])


def _index_only(root: Path, n: int) -> list[str]:
    """A repository whose index holds ``n`` files that are not in its folders (git
    reads its index and stats each as for real files; creating them would cost the
    test far more than git does)."""
    root.mkdir()
    run = {"check": True, "env": GIT_ENV, "capture_output": True, "cwd": root}
    subprocess.run(["git", "init", "-q"], **run)
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], input=SCRIPT.encode(),
                          **run).stdout.decode().strip()
    rels = [f"pkg/d{i % 40}/m{i}.py" for i in range(n)]
    for k in range(min(n, 40)):
        (root / f"pkg/d{k}").mkdir(parents=True)
    subprocess.run(["git", "update-index", "--index-info"],
                   input="".join(f"100644 {blob}\t{r}\n" for r in rels).encode(), **run)
    return [str(root / r) for r in rels]


def test_asking_git_about_n_files_costs_n(tmp_path):
    def work(paths: list[str]) -> None:
        assert set(safety.git_states(paths).values()) == {safety.DIRTY}  # deleted, to git

    grew = growth(work, lambda n: _index_only(tmp_path / f"r{n}", n), 500, 4_000,
                  children=True)
    assert grew < SLACK * 8


@pytest.mark.parametrize("many", [False, True])
def test_a_file_in_a_folder_git_ignores_is_not_taken_for_a_committed_one(tmp_path, many):
    proj = committed(tmp_path / "p", {".gitignore": "build/\n", "a.py": SCRIPT,
                                      **{f"k{i}.py": SCRIPT for i in range(300 if many else 0)}})
    make_tree(proj, {"build/lib/b.py": SCRIPT})
    paths = [str(p) for p in proj.glob("*.py")] + [str(proj / "build/lib/b.py")]
    states = safety.git_states(paths)
    assert states[str(proj / "build/lib/b.py")] == safety.OUTSIDE  # backed up, not trusted to git
    assert states[str(proj / "a.py")] == safety.CLEAN
