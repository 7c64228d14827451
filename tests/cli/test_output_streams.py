"""Output for logs, pipes and terminals that asked for no escape codes: no line is
wrapped when stdout is not a terminal, NO_COLOR on a terminal writes no escape code at
all (the progress bar moves the cursor), and counts read as English."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import make_tree, musa_port_here

LONG = "a_folder_name_long_enough_to_push_every_line_of_the_summary_past_eighty_columns"


@pytest.fixture
def tree(tmp_path) -> Path:
    return make_tree(tmp_path / LONG / "csrc", {
        "k.cu": "cudaMalloc(p, 1);\ncudaFooBar(1);\n",
        "mlu/m.cu": "int m;\n",
        "npu/n.cu": "int n;\n",
    })


def test_no_line_is_wrapped_when_stdout_is_not_a_terminal(tree, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")  # what a CI runner may set: not a reason to wrap
    code, out, _ = musa_port_here(tree, "-n", "--ignore", "mlu,npu")
    assert code == 0
    lines = out.splitlines()
    banner = next(ln for ln in lines if ln.startswith("Dry run of"))
    assert banner.endswith(" unknown)") and f"{tree}_musa with " in banner  # one line, unbroken
    ignored = next(ln for ln in lines if ln.startswith("ignored by:"))
    assert ignored == "ignored by: mlu (1), npu (1)"
    [finding] = [ln for ln in lines if ln.endswith("[MP1002 unknown-cuda-name]")]
    assert finding.startswith(str(tree.parent)) and finding.endswith("[MP1002 unknown-cuda-name]")


def _on_a_terminal(args: list[str], env: dict[str, str]) -> bytes:
    """What musa-port writes to a terminal (stdout and stderr on one pty)."""
    master, slave = pty.openpty()
    base = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    proc = subprocess.Popen([sys.executable, "-m", "musa_porting", *args], stdout=slave,
                            stderr=slave, stdin=subprocess.DEVNULL, close_fds=True,
                            env={**base, "TERM": "xterm-256color", **env})
    os.close(slave)
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the other end closed
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=60)
    os.close(master)
    assert proc.returncode == 0, out.decode(errors="replace")
    return out


def test_no_color_on_a_terminal_writes_no_escape_code(tree):
    env: dict[str, str] = {}
    args = [str(tree), "-n", "--no-default-rules"]  # the tables would only cost time here
    coloured = _on_a_terminal(args, env)
    assert b"\x1b[" in coloured  # a terminal: colours and the progress bar's cursor moves
    plain = _on_a_terminal(args, {**env, "NO_COLOR": "1"})
    assert b"Dry run of" in plain and b"\x1b" not in plain
    dumb = _on_a_terminal(args, {**env, "TERM": "dumb"})
    assert b"Dry run of" in dumb and b"\x1b[?25l" not in dumb  # no bar hiding the cursor


def test_counts_read_as_english(tmp_path):
    src = make_tree(tmp_path / "s", {"k.cu": "cudaFree(p);\n"})
    os.symlink("k.cu", src / "link.cu")
    code, out, _ = musa_port_here(src, "-q")
    assert code == 0
    assert ", 1 link, " in out and "1 replacement, 0 residuals" in out
    assert "MB/s" not in out  # 13 bytes read: a rate would measure start-up


def test_a_file_that_is_not_a_source_is_named_not_echoed(tmp_path):
    readme = make_tree(tmp_path, {"README.md": "# cuda notes\n", "CMakeLists.txt":
                                  "find_package(CUDA REQUIRED)\n"}) / "README.md"
    code, out, err = musa_port_here(readme, "-o", tmp_path / "out.md")
    assert code == 2 and out == "" and not (tmp_path / "out.md").exists()
    assert err.startswith(f"error: {readme}: not a file musa-port ports (sources: .cu .cuh")
    code, out, _ = musa_port_here(tmp_path / "CMakeLists.txt")  # a build file is ported
    assert code == 0 and "MUSA" in out
