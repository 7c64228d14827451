"""``--check conflicts`` (issue 48 point 5): CI can ask "are there unresolved merges?"
alone. It fails while an output holds conflict markers (or edits that could not be
merged), and not on residual CUDA names or findings, which ``--check`` and ``--check
warning`` fail on as well; without ``--check`` a conflict exits 0, as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import make_tree

from musa_porting.cli.app import cli

A_CU = """#include <cuda_runtime.h>
void release(float* p) {
  cudaFree(p);
}
int left() { return cudaFooBarNotAName(); }
"""


def run(*args: str):
    return CliRunner().invoke(cli, [*args, "-q"])


@pytest.fixture
def conflicted(tmp_path) -> tuple[Path, Path, str]:
    """A port whose a.mu holds a conflict (an edit of the line a new rule changes) and
    a residual CUDA name (cudaFooBarNotAName)."""
    src = make_tree(tmp_path / "csrc", {"a.cu": A_CU})
    assert run(str(src)).exit_code == 0
    mu = tmp_path / "csrc_musa/a.mu"
    mu.write_text(mu.read_text().replace("musaFree(p);", "musaFree(p);  // checked by hand"))
    rules = tmp_path / "rules.json"
    rules.write_text('{"cudaFree": "myFree"}')
    assert run(str(src), "--rule", str(rules)).exit_code == 0  # a conflict alone: exit 0
    assert "<<<<<<<" in mu.read_text()
    return src, mu, str(rules)


def test_check_conflicts_fails_on_conflicts_alone(conflicted):
    src, mu, rules = conflicted
    res = run(str(src), "--rule", rules, "--check", "conflicts")
    assert res.exit_code == 1, res.output
    assert "conflicts" in res.output and "a.mu" in res.output
    assert "MP1002" not in res.output  # the residual is not what it checks
    # The markers removed: the residual CUDA name is still there, and only the levels
    # that check findings fail on it.
    text = mu.read_text()
    mine = text[text.index("<<<<<<<"):text.index(">>>>>>>")]
    mu.write_text(text.replace(text[text.index("<<<<<<<"):text.index("\n", text.index(">>>>>>>")) + 1],
                               "  myFree(p);  // checked by hand\n"))
    assert "checked by hand" in mine
    assert run(str(src), "--rule", rules, "--check", "conflicts").exit_code == 0
    assert run(str(src), "--rule", rules, "--check").exit_code == 1
    assert run(str(src), "--rule", rules, "--check=warning").exit_code == 1


def test_every_level_fails_on_conflicts(conflicted):
    src, _, rules = conflicted
    for level in ("error", "warning"):
        res = run(str(src), "--rule", rules, f"--check={level}", "--suppress", "MP1002")
        assert res.exit_code == 1 and "conflicts" in res.output, (level, res.output)


def test_check_level_conflicts_is_a_setting(conflicted, tmp_path):
    src, _, rules = conflicted
    (tmp_path / "pyproject.toml").write_text('[tool.musa-port]\ncheck-level = "conflicts"\n')
    res = run(str(src), "--rule", rules, "--check")
    assert res.exit_code == 1 and "conflicts" in res.output
    assert "MP1002" not in res.output


def test_an_unknown_level_is_refused():
    res = CliRunner().invoke(cli, [".", "--check=conflict"])
    assert res.exit_code == 2 and "conflicts" in res.output
