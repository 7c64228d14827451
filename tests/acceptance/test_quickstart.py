"""Acceptance 5: a fresh clone, a fresh venv, the README's two quick-start commands."""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest
from conftest import ROOT

pytestmark = pytest.mark.slow


def quickstart_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section, re.S)


def test_readme_has_two_commands_and_ci_runs_the_second():
    cmds = quickstart_commands()
    assert len(cmds) == 2
    assert cmds[1] in (ROOT / ".ci/run").read_text().splitlines()


@pytest.mark.skipif(os.environ.get("MUSA_PORT_QUICKSTART_INNER") == "1",
                    reason="already inside the quick-start check")
@pytest.mark.skipif(not (ROOT / ".git").exists() or shutil.which("git") is None,
                    reason="needs a git checkout to clone")
def test_fresh_clone_quickstart(tmp_path):
    clone = tmp_path / "musa-port"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    install_and_port, install_and_test = quickstart_commands()
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep)
                                  if not p.startswith(str(ROOT)))

    proc = subprocess.run(["bash", "-c", install_and_port], cwd=clone, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "Ported" in proc.stdout and "replacements" in proc.stdout
    out = clone / "fixtures/mmcv_like_musa"
    assert (out / "pytorch/musa/roi_align_musa.mu").is_file()  # paths renamed, as the porters do
    assert not (out / "pytorch/cuda").exists()
    assert not (out / "common/mlu").exists()

    # The test command, on two test files: enough to show that it installs the test
    # extra into a fresh venv and pytest runs. The whole suite is the outer run, which
    # in CI is this same command on a clean clone (.ci/run).
    env2 = dict(env, MUSA_PORT_QUICKSTART_INNER="1",
                PYTEST_ADDOPTS="-q -m 'not slow' tests/port/test_engine.py "
                               "tests/acceptance/test_quickstart.py")
    proc = subprocess.run(["bash", "-c", install_and_test], cwd=clone, env=env2,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert re.search(r"\d+ passed", proc.stdout)
