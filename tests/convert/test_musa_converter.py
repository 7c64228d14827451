"""musa-converter: the manual's flags, converting in place, and what makes it safe
(git, backups, dry runs and diffs); string paths into a tree musa-port ported."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, run_cli, snapshot

APP = FIXTURES / "python_app"
GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}


def converter(*args, check=None) -> subprocess.CompletedProcess:
    return run_cli(*args, check=check, module="musa_porting.musa_converter")


def git(repo: Path, *args) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          check=True, env=GIT_ENV).stdout


@pytest.fixture
def app(tmp_path) -> Path:
    dst = tmp_path / "app"
    shutil.copytree(APP, dst)
    return dst


@pytest.fixture
def repo(app) -> Path:
    git(app, "init", "-q")
    git(app, "add", "-A")
    git(app, "commit", "-qm", "base")
    return app


def test_the_manuals_flags(app):
    help_text = converter("--help", check=0).stdout
    for flag in ("-r, --root_path", "-l, --launch_path", "-e, --excluded_path", "--force",
                 "--no-backup", "--dry-run", "--diff"):
        assert flag in help_text, flag
    entry = (ROOT / "pyproject.toml").read_text()
    assert 'musa-converter = "musa_porting.musa_converter:main"' in entry


def test_converts_in_place_with_backups_outside_git(app):
    before = {p: p.read_bytes() for p in app.rglob("*.py")}
    proc = converter("-r", app, "-l", app / "train.py", check=0)
    train = (app / "train.py").read_text()
    assert "import torch_musa" in train and "torch.musa.amp.GradScaler()" in train
    assert (app / "train.py.orig").read_bytes() == before[app / "train.py"]
    assert not (app / "pkg" / "__init__.py.orig").exists()  # unchanged: no backup
    assert "MP4001" in proc.stdout and "converted train.py" in proc.stdout
    # a second run changes nothing and leaves the backups alone
    stamps = snapshot(app)
    again = converter("-r", app, "-l", app / "train.py", check=0)
    assert snapshot(app) == stamps
    assert ", 0 changed," in again.stdout


def test_no_backup(app):
    converter("-r", app, "--no-backup", check=0)
    assert not list(app.rglob("*.orig"))
    assert "torch.musa" in (app / "train.py").read_text()


def test_in_git_clean_files_are_converted_without_backups(repo):
    converter("-r", repo, "-l", repo / "train.py", check=0)
    assert not list(repo.rglob("*.orig"))
    changed = git(repo, "diff", "--name-only").split()
    assert set(changed) == {"setup.py", "train.py", "pkg/model.py"}


def test_in_git_files_with_uncommitted_changes_are_refused(repo):
    (repo / "pkg" / "model.py").write_text((repo / "pkg" / "model.py").read_text() + "# wip\n")
    before = snapshot(repo)
    proc = converter("-r", repo, check=2)
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ")
    assert "pkg/model.py" in proc.stderr and "--force" in proc.stderr
    assert snapshot(repo) == before  # nothing written, not even the clean files
    forced = converter("-r", repo, "--force", check=0)
    assert "torch.ops.app.scale_cuda" in (repo / "pkg" / "model.py").read_text()
    assert "musa" in (repo / "pkg" / "model.py").read_text()
    assert (repo / "pkg" / "model.py.orig").read_text().endswith("# wip\n")  # git cannot restore it
    assert not (repo / "train.py.orig").exists()
    assert "converted" in forced.stdout


def test_in_git_untracked_files_are_refused(repo):
    (repo / "new.py").write_text("x = y.cuda()\n")
    proc = converter("-r", repo / "new.py", check=2)
    assert "new.py" in proc.stderr
    assert (repo / "new.py").read_text() == "x = y.cuda()\n"


def test_dry_run_diff_writes_nothing_and_applies(app, tmp_path):
    before = snapshot(app)
    proc = converter("-r", app, "-l", app / "train.py", "--dry-run", "--diff", check=0)
    assert snapshot(app) == before
    assert proc.stdout.startswith("diff --git a/")
    assert "would change" in proc.stderr
    copy = tmp_path / "copy"
    shutil.copytree(app, copy)
    subprocess.run(["git", "apply", "-p1", "-"], input=proc.stdout, text=True, cwd=copy, check=True)
    converter("-r", app, "-l", app / "train.py", check=0)
    for p in app.rglob("*.py"):
        assert (copy / p.relative_to(app)).read_bytes() == p.read_bytes(), p


def test_excluded_and_launch_paths(app):
    converter("-r", app, "-l", f"{app / 'train.py'}", "-e", f"{app / 'pkg'},{app / 'setup.py'}",
              check=0)
    assert (app / "pkg" / "model.py").read_bytes() == (APP / "pkg" / "model.py").read_bytes()
    assert "CUDAExtension" in (app / "setup.py").read_text()
    assert "import torch_musa" in (app / "train.py").read_text()
    outside = converter("-r", app / "pkg", "-l", app / "train.py", check=2)
    assert "launch file" in outside.stderr
    missing = converter("-r", app / "nope", check=2)
    assert "root path not found" in missing.stderr


def test_setup_py_paths_follow_a_tree_musa_port_ported_beside_it(app, tmp_path):
    """The manual's mmcv flow: port csrc into csrc_musa, then convert setup.py."""
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"WITH_CUDA": "WITH_MUSA", "/cuda/": "/musa/"}))
    run_cli(app / "csrc", "--rule", rules, check=0)
    converter("-r", app / "setup.py", check=0)
    setup = (app / "setup.py").read_text()
    assert "glob.glob('./csrc_musa/*.cpp') + glob.glob('csrc_musa/**/*.mu', recursive=True)" in setup
    assert "sources.remove('./csrc_musa/kernels/skip.mu')" in setup
    assert "os.path.abspath('csrc_musa/kernels')" in setup
    assert "('WITH_MUSA', None)" in setup  # the identifier rule of that port
    assert "csrc/" not in setup.replace("csrc_musa/", "")


def test_a_file_it_cannot_write_stops_it_before_anything_is_written(app, monkeypatch):
    from musa_porting.convert import ConvertOptions, convert
    from musa_porting.errors import PortError

    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: not str(p).endswith("model.py")
                        and real_access(p, mode))
    before = snapshot(app)
    with pytest.raises(PortError, match="Permission denied") as err:
        convert(ConvertOptions(str(app)))
    assert err.value.path.endswith("model.py")
    assert snapshot(app) == before  # not even the files it could write, nor backups


def test_nccl_names_become_the_mccl_names_torch_musa_provides(tmp_path):
    """torch.distributed.is_nccl_available() -> is_mccl_available() as torch_musa does, and
    the other NCCL spellings torch_musa provides under an MCCL name (torch.musa.mccl,
    Backend.MCCL); a name of something else is left."""
    script = tmp_path / "app" / "dist_train.py"
    script.parent.mkdir()
    script.write_text(
        "import torch\nimport torch.distributed as dist\n"
        "from torch.distributed import is_nccl_available, Backend\n"
        "if dist.is_nccl_available() and torch.distributed.is_nccl_available():\n"
        "    dist.init_process_group(backend=dist.Backend.NCCL)\n"
        "ok = is_nccl_available() and Backend.NCCL == 'nccl'\n"
        "print(torch.cuda.nccl.version())\n"
        "store.is_nccl_available(); Enum.NCCL\n")
    from click.testing import CliRunner

    from musa_porting.musa_converter import converter_cmd

    ran = CliRunner().invoke(converter_cmd, ["-r", str(tmp_path / "app"), "--no-backup"])
    assert ran.exit_code == 0, ran.output
    assert script.read_text() == (
        "import torch\nimport torch.distributed as dist\n"
        "from torch.distributed import is_mccl_available as is_nccl_available, Backend\n"
        "if dist.is_mccl_available() and torch.distributed.is_mccl_available():\n"
        "    dist.init_process_group(backend=dist.Backend.MCCL)\n"
        "ok = is_nccl_available() and Backend.MCCL == 'mccl'\n"
        "print(torch.musa.mccl.version())\n"
        "store.is_nccl_available(); Enum.NCCL\n")
