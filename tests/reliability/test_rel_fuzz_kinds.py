"""A fuzz target per kind of file musa-port reads (issue 28): C/C++, Python, CMake,
Make, shell, and rule files in JSON and YAML. Each runs for a bounded number of cases
(seconds; ``FUZZ_CASES`` scales them, see fuzzhelp).

Two levels. The kind's port function, on thousands of inputs: no exception, every byte
outside an edit kept, every finding at a place in both files; a rule file loads or says
where it is wrong, and what loads ports a text. Then the command line, in this process,
on trees of such files: the exit code the README documents (0 for any source; 0 or 2
with one error line naming the file for a rule file), never an internal error, and
nothing outside the output touched (the sources and the rule file stay as they were).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from fuzzhelp import FILE_OF, SCALE, check_round_trip, rule_files, run_cli, sources
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from relhelp import state

from musa_porting.analyze.build_findings import build_diagnostics
from musa_porting.errors import PortError
from musa_porting.port.build.file import build_words, port_build_bytes
from musa_porting.port.build.rewrite import BuildContext
from musa_porting.port.cxx.porter import port_bytes
from musa_porting.port.engine import Matcher
from musa_porting.port.python import port_python, python_rules
from musa_porting.rules import build_ruleset
from musa_porting.rules.files import load_rule_file

_FAST = settings(deadline=None, database=None, max_examples=max(1, int(1000 * SCALE)),
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                        HealthCheck.function_scoped_fixture])
_CLI = settings(_FAST, max_examples=max(1, int(6 * SCALE)))
_PYTHON = python_rules()


def _placed(diagnostics, src: bytes, out: bytes) -> None:
    out_lines, src_lines = out.count(b"\n") + 1, src.count(b"\n") + 1
    for d in diagnostics:
        assert 1 <= d.line <= out_lines and d.column >= 1, d
        assert 1 <= d.src_line <= src_lines and d.src_column >= 1, d


@_FAST
@given(sources("python"), st.booleans())
def test_python_files_port_without_error_and_keep_untouched_bytes(src, launch):
    ported = port_python(src, _PYTHON, launch=launch)
    check_round_trip(src, ported.data, ported.edits)
    _placed(ported.diagnostics, src, ported.data)


@pytest.mark.parametrize("kind", ["cmake", "make", "shell"])
def test_build_files_port_without_error_and_keep_untouched_bytes(kind):
    ctx = BuildContext(FILE_OF[kind], ("mp_22",), {"k.cu": "k.mu", FILE_OF[kind]: FILE_OF[kind]},
                       rename_cu=True, macro=lambda name: None, keep=frozenset())

    @_FAST
    @given(sources(kind))
    def port(src):
        bp = port_build_bytes(src, kind, ctx)
        check_round_trip(src, bp.data, bp.edits)
        words = build_words(kind, bp.data.decode("latin-1"))
        _placed(build_diagnostics(src, bp.data, bp.changes, bp.notes, words, ctx.keep,
                                  bp.protected), src, bp.data)

    port()


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_rule_files_load_or_say_where_they_are_wrong(tmp_path, suffix):
    path = tmp_path / f"rules{suffix}"
    sample = b"#include <cuda.h>\ncudaMalloc(&p, 4); // CUDA\n"

    @settings(_FAST, max_examples=max(1, int(500 * SCALE)))
    @given(rule_files(suffix))
    def load(content):
        path.write_bytes(content)
        try:
            rules = load_rule_file(path)
        except PortError as exc:
            assert exc.path == str(path) and exc.message, exc
            lines = len(content.decode("utf-8", "replace").splitlines())  # YAML's breaks too
            assert exc.line is None or 1 <= exc.line <= lines + 2, exc
            return
        ruleset = build_ruleset(rule_files=[path], default_rules=False)
        assert len(ruleset.rules) <= len(rules)
        port_bytes(sample, Matcher(ruleset.rewriting()))

    load()


# -- the command line ------------------------------------------------------------------

_OPTIONS = [[], ["--skip", "comments,strings"], ["--reverse"], ["--rename-paths"],
            ["--dry-run", "--diff=-"], ["-j", "2"]]


def _outside(root: Path) -> dict:
    """Everything under ``root`` but the output."""
    return {k: v for k, v in state(root).items() if not (k == b"out" or k.startswith(b"out/"))}


def _case(base: Path) -> Path:
    return Path(tempfile.mkdtemp(dir=base))


@pytest.mark.parametrize("kind", ["cxx", "python", "cmake", "make", "shell"])
def test_each_source_kind_through_the_command_line(tmp_path, kind):
    """Any bytes in a source port: exit 0, one output per input, SRC untouched."""
    @_CLI
    @given(st.lists(sources(kind), min_size=1, max_size=4), st.sampled_from(_OPTIONS))
    def port(contents, options):
        case = _case(tmp_path)
        for i, data in enumerate(contents):
            (case / "src" / f"d{i}").mkdir(parents=True)
            (case / "src" / f"d{i}" / FILE_OF[kind]).write_bytes(data)
        (case / "src" / "run").write_bytes(b"#!/bin/sh\n" + contents[0])  # a script by its first line
        before = _outside(case)
        code, err = run_cli([str(case / "src"), "-o", str(case / "out"), "-q", "--no-config",
                             *options])
        assert code == 0 and "Traceback" not in err and "internal error" not in err, err
        assert _outside(case) == before
        if "--dry-run" not in options:
            outputs = [p for p in (case / "out").rglob("*") if p.is_file()
                       and not p.relative_to(case / "out").as_posix().startswith(".musa-port/")]
            assert len(outputs) == len(contents) + 2  # with run and the manifest
        shutil.rmtree(case)

    port()


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_rule_files_through_the_command_line(tmp_path, suffix):
    """A rule file ports (exit 0) or is one error line naming it (exit 2), and then
    nothing is written."""
    @_CLI
    @given(rule_files(suffix))
    def port(content):
        case = _case(tmp_path)
        (case / "src").mkdir()
        (case / "src" / "k.cu").write_bytes(b"#include <cuda.h>\ncudaMalloc(&p, 4); // CUDA\n")
        (case / "src" / "m.py").write_bytes(b"import torch\nx = torch.cuda.is_available()\n")
        rule = case / f"rules{suffix}"
        rule.write_bytes(content)
        before = _outside(case)
        code, err = run_cli([str(case / "src"), "-o", str(case / "out"), "-q", "--no-config",
                             "--rule", str(rule)])
        assert code in (0, 2) and "Traceback" not in err and "internal error" not in err, err
        assert _outside(case) == before
        if code == 2:
            errors = [ln for ln in err.splitlines() if ln.startswith("error: ")]
            assert len(errors) == 1 and errors[0].startswith(f"error: {rule}"), err
            assert not (case / "out").exists()
        shutil.rmtree(case)

    port()
