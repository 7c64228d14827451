"""Ignore patterns: gitignore's meaning, in time linear in the path whatever the
pattern (issue 28 item 3: ``*a*a*a*a*a*a*a*a*a*a*b`` against a 64-character file name
hung the walk)."""

from __future__ import annotations

import subprocess
import sys

import pathspec
import pytest
from conftest import make_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from musa_porting.errors import PortError
from musa_porting.tree.gitignore import GitIgnore
from musa_porting.tree.walk import Ignorer


def test_a_pattern_of_many_stars_does_not_hang_the_port(tmp_path):
    """The issue's case, as a user meets it: the setting in pyproject.toml, a tree
    with a long file name. Before, the walk never finished."""
    src = make_tree(tmp_path / "proj" / "src", {"a" * 64 + ".cu": "cudaMalloc(&p, 4);\n",
                                                "a_a_a_a_a_a_a_a_a_a_b": "data\n"})
    (tmp_path / "proj" / "pyproject.toml").write_text(
        '[tool.musa-port]\nignore = ["*a*a*a*a*a*a*a*a*a*a*b"]\n')
    proc = subprocess.run([sys.executable, "-m", "musa_porting", str(src), "-q"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path / "proj")
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "proj" / "src_musa"
    assert (out / ("a" * 64 + ".mu")).read_text() == "musaMalloc(&p, 4);\n"
    assert not (out / "a_a_a_a_a_a_a_a_a_a_b").exists()  # the pattern still means what it says


@pytest.mark.parametrize("pattern", ["!", "src\\"])
def test_a_pattern_that_is_not_one_is_an_error_naming_it(pattern):
    """Before, an internal error (exit 3) from the pattern library."""
    with pytest.raises(PortError, match="ignore pattern .* is not valid"):
        Ignorer([pattern])


def test_the_cli_says_which_ignore_pattern_is_not_valid(tmp_path):
    src = make_tree(tmp_path / "src", {"k.cu": "int x;\n"})
    proc = subprocess.run([sys.executable, "-m", "musa_porting", str(src), "--ignore", "src\\"],
                          capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "ignore pattern 'src\\\\' is not valid" in proc.stderr
    assert not (tmp_path / "src_musa").exists()


# gitignore's meaning, as pathspec's GitIgnoreSpec gives it, on random patterns and
# paths. Left out: bracket expressions that pathspec lets match a '/' (git does not),
# and newlines (pathspec's '.' stops at them, git's names hold them).
_glob = st.lists(st.sampled_from(["a", "b", "*", "**", "?", "[ab]", "[a-b]", "\\*", "\\", "!",
                                  "#", " ", "/", "c"]), min_size=1, max_size=8).map("".join)
_path = st.lists(st.sampled_from(["a", "b", "ab", "ba", "aab", "c", "*", "a b", "#", "!"]),
                 min_size=1, max_size=6).map("/".join)


def _reference(lines: list[str], path: str):
    try:
        spec = pathspec.GitIgnoreSpec.from_lines(lines)
    except ValueError:
        return "invalid"
    return spec.match_file(path)


def _ours(lines: list[str], path: str):
    try:
        return GitIgnore(lines).match_file(path)
    except PortError:
        return "invalid"


@pytest.mark.skipif(tuple(int(x) for x in pathspec.__version__.split(".")[:2]) < (0, 12),
                    reason="GitIgnoreSpec's edge cases settled in pathspec 0.12")
@settings(max_examples=800, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_glob, min_size=1, max_size=3), _path, st.booleans())
def test_patterns_mean_what_gitignore_says(lines, path, folder):
    probe = path + "/" if folder else path
    assert _ours(lines, probe) == _reference(lines, probe)
