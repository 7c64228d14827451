"""Shared helpers: the fixture tree, the brief's mmcv ignores, running the CLI, nvcc."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

import pytest
from cuda_headers import find_nvcc

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
MMCV_LIKE = FIXTURES / "mmcv_like"
MMCV_RULES_JSON = FIXTURES / "mmcv_rules.json"
MMCV_RULES_YAML = FIXTURES / "mmcv_rules.yaml"
# The brief's ignores, as torch_musa users write them (paths under the tree).
MMCV_IGNORES = ["common/mlu", "common/mps", "parrots", "pytorch/mlu", "pytorch/mps", "pytorch/npu"]


# The compiled tables (rules/table_cache.py) of this test run go to a folder of its own,
# not the user's ~/.cache; the CLI runs of the tests inherit it.
if "MUSA_PORT_CACHE_DIR" not in os.environ:
    os.environ["MUSA_PORT_CACHE_DIR"] = tempfile.mkdtemp(prefix="musa-port-test-cache-")
    atexit.register(shutil.rmtree, os.environ["MUSA_PORT_CACHE_DIR"], True)

# A test run started in the background by a shell without job control inherits Ctrl-C
# ignored, and so would every musa-port it starts (a process that inherits SIGINT
# ignored rightly keeps ignoring it). The Ctrl-C tests stand for a user at a terminal:
# give the run a handler, which the processes it starts get back as the default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# CI must run the nvcc tests, never skip them: .ci/run sets this (and installs the
# nvidia-cuda-nvcc wheel where the machine has no CUDA toolkit).
REQUIRE_NVCC = os.environ.get("MUSA_PORT_REQUIRE_NVCC") == "1"


def skip_or_fail_in_ci(why: str) -> None:
    """What a case needs is missing here (a CUDA tool, a privilege): skip, but fail in
    CI, which must run every case."""
    if REQUIRE_NVCC:
        pytest.fail(why + "; MUSA_PORT_REQUIRE_NVCC=1 (CI) requires this case to run")
    pytest.skip(why)


def need_nvcc() -> Path:
    """nvcc for the tests that compile: skip where there is none, fail in CI."""
    nvcc = find_nvcc()
    if nvcc is None:
        skip_or_fail_in_ci("no nvcc (CUDA_HOME, CUDA_PATH, PATH, /usr/local/cuda, the "
                           "nvidia-cuda-nvcc wheel)")
    return nvcc


@pytest.fixture(scope="session")
def nvcc() -> Path:
    return need_nvcc()


# CI installs torch (the CPU wheel) into the test venv and must run the cases that
# compile against its headers (musa-port verify of a PyTorch extension): .ci/run sets
# this. Elsewhere they skip when this Python has no torch.
REQUIRE_TORCH = os.environ.get("MUSA_PORT_REQUIRE_TORCH") == "1"


def need_torch() -> None:
    """torch importable in this Python (without importing it: seconds): skip where it
    is not, fail where MUSA_PORT_REQUIRE_TORCH=1 (CI)."""
    import importlib.util

    if importlib.util.find_spec("torch") is None:
        why = "torch is not installed in this Python (pip install torch==2.13.0, the CPU wheel)"
        if REQUIRE_TORCH:
            pytest.fail(why + "; MUSA_PORT_REQUIRE_TORCH=1 (CI) requires this case to run")
        pytest.skip(why)


@pytest.fixture(scope="session")
def torch_installed() -> None:
    need_torch()


def run_cli(*args, cwd=None, check=None, module="musa_porting", env=None, timeout=600,
            **kw) -> subprocess.CompletedProcess:
    """Run ``python -m musa_porting`` (or another ``module``) as a user would; returns
    the completed process, stdout and stderr as text with undecodable bytes replaced.
    Arguments may be bytes (file names that are not UTF-8); ``env`` is added to the
    environment; ``kw`` go to subprocess (the reliability suite's ``unprivileged``)."""
    proc = subprocess.run([sys.executable, "-m", module, *map(arg, args)],
                          capture_output=True, text=True, errors="replace", cwd=cwd,
                          env={**os.environ, **(env or {})}, timeout=timeout, **kw)
    if check is not None:
        assert proc.returncode == check, proc.stdout + proc.stderr
    return proc


def musa_port_here(*args, cwd=None) -> tuple[int, str, str]:
    """``musa-port ARGS`` in this process (no interpreter to start: for the many small
    runs of the CLI tests); returns (exit code, stdout, stderr)."""
    import contextlib
    import io

    from musa_porting.cli import cli, run

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="replace")  # with .buffer
    err = io.StringIO()
    here = os.getcwd()
    os.chdir(cwd or here)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            run(cli, [str(a) for a in args], "musa-port")
        code = 0
    except SystemExit as exc:
        code = exc.code or 0
    finally:
        os.chdir(here)
    out.flush()
    return code, out.buffer.getvalue().decode("utf-8", "replace"), err.getvalue()


def arg(a) -> str | bytes:
    """A command-line argument: bytes as they are, anything else as text."""
    return a if isinstance(a, bytes) else str(a)


def make_tree(root: Path, files: Mapping[str, bytes | str]) -> Path:
    """Write ``files`` (path under root -> text or bytes) and return root."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(content.encode() if isinstance(content, str) else content)
    return root


def snapshot(root: Path) -> dict[str, tuple]:
    """Every entry under root: (kind, bytes or link target, mode, mtime_ns); not the
    base packs in OUT/.musa-port/base, whose names are random per run."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath, name)
            rel = p.relative_to(root).as_posix()
            if rel.startswith(".musa-port/base/"):
                continue
            st = p.lstat()
            if p.is_symlink():
                out[rel] = ("link", os.readlink(p), st.st_mode, st.st_mtime_ns)
            elif p.is_dir():
                out[rel] = ("dir", None, st.st_mode, None)
            else:
                out[rel] = ("file", p.read_bytes(), st.st_mode, st.st_mtime_ns)
    return out


@pytest.fixture
def mmcv_tree(tmp_path) -> Path:
    """A private copy of the mmcv-like fixture tree (symlinks kept as links)."""
    dst = tmp_path / "csrc"
    shutil.copytree(MMCV_LIKE, dst, symlinks=True)
    return dst


@pytest.fixture(scope="module")
def monkeypatch_env():
    """A monkeypatch that hypothesis tests may share across examples (environment only)."""
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()
