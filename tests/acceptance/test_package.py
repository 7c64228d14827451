"""Publishing is one step when it comes: ``python -m build`` gives a wheel and a source
distribution that ``twine check`` passes, and the wheel installs in a fresh venv and
runs there (the tables inside it, both console scripts, the import names)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import tarfile
import zipfile

import pytest
from conftest import ROOT, make_tree, skip_or_fail_in_ci

pytestmark = pytest.mark.slow


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep)
                                  if not p.startswith(str(ROOT)))
    return env


def _run(*argv, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(a) for a in argv], capture_output=True, text=True, env=_env(), **kw)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc


def test_the_wheel_and_sdist_build_pass_twine_check_and_the_wheel_runs(tmp_path):
    for tool in ("build", "twine"):
        if importlib.util.find_spec(tool) is None:
            skip_or_fail_in_ci(f"{tool} is not installed (.ci/run installs it)")
    dist = tmp_path / "dist"
    _run(sys.executable, "-m", "build", "--outdir", dist, ROOT)
    [wheel] = dist.glob("musa_port-*.whl")
    [sdist] = dist.glob("musa_port-*.tar.gz")
    out = _run(sys.executable, "-m", "twine", "check", "--strict", wheel, sdist).stdout
    assert out.count("PASSED") == 2, out

    version = re.search(r'^version = "(.+)"$', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    assert wheel.name.startswith(f"musa_port-{version}-py3-none-any")
    names = zipfile.ZipFile(wheel).namelist()
    assert "musa_porting/mapping/runtime.json" in names and "musa_port/__init__.py" in names
    assert not any(n.startswith(("tests/", "fixtures/")) for n in names)
    with tarfile.open(sdist) as tar:
        members = tar.getnames()
    assert any(m.endswith("/mapping/runtime.json") for m in members)
    assert any(m.endswith("/pyproject.toml") for m in members)

    venv = tmp_path / "venv"
    bin_dir = venv / "bin"
    import pip

    if tuple(map(int, pip.__version__.split(".")[:2])) >= (22, 3):
        # The venv without a pip of its own (ensurepip costs ~15 s on a busy machine):
        # this pip installs into it, and what it installs is the wheel's and its
        # dependencies', all in the fresh venv.
        _run(sys.executable, "-m", "venv", "--without-pip", venv)
        _run(sys.executable, "-m", "pip", "--python", bin_dir / "python", "install", "-q",
             "--no-compile", wheel)
    else:  # pragma: no cover - a pip without --python (before 22.3)
        _run(sys.executable, "-m", "venv", venv)
        _run(bin_dir / "python", "-m", "pip", "install", "-q", "--no-compile", wheel)
    assert _run(bin_dir / "musa-port", "--version").stdout == f"musa-port, version {version}\n"
    assert _run(bin_dir / "musa-converter", "-V").stdout == f"musa-converter, version {version}\n"
    src = make_tree(tmp_path / "csrc", {"k.cu": "#include <cuda_runtime.h>\ncudaMalloc(&p, 4);\n"})
    _run(bin_dir / "musa-port", src, "-q", cwd=tmp_path)
    assert (tmp_path / "csrc_musa/k.mu").read_text() == "#include <musa_runtime.h>\nmusaMalloc(&p, 4);\n"
    _run(bin_dir / "python", "-c", "from musa_port import SimplePorting; "
         "from musa_porting import SimplePorting; SimplePorting.run", cwd=tmp_path)
