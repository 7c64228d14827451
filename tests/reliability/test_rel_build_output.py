"""A compiler that prints without end (issue 37, item 5): ``build`` and ``verify`` read
its output in time linear in its length (each line was appended to the file's output
string: quadratic, 100,000 warnings took over 300 s) and keep the first and last
64 KB of it, saying how much was cut, with every error and warning still counted."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT, make_tree
from relhelp import growth
from round4 import run_main

FAKE_MCC = ROOT / "fixtures/fake-mcc/mcc"
SLACK = 2.2  # over the size ratio, as tests/reliability/test_rel_scaling.py allows


def _chatty(tmp_path: Path, lines: int, fail: bool = False) -> tuple[Path, Path]:
    """A ported one-file tree, and a launcher whose compile prints ``lines`` warnings
    (between two errors, and failing, with ``fail``)."""
    src = make_tree(tmp_path / f"src{lines}", {"a.cu": "__global__ void k() {}\n"})
    assert run_main([src, "-q"]).code == 0
    launcher = tmp_path / f"chatty{lines}"
    first = "echo 'a.mu:1:1: error: the first error'\n" if fail else ""
    last = "echo 'a.mu:1:1: error: the last error'; exit 1\n" if fail else 'exec "$@"\n'
    launcher.write_text(f"#!/bin/sh\n{first}seq 1 {lines} | sed 's/.*/a.mu:1:1: warning: unused "
                        f"variable v& [-Wunused-variable]/'\n{last}")
    launcher.chmod(0o755)
    return tmp_path / f"src{lines}_musa", launcher


def test_a_compile_that_prints_without_end_costs_its_length(tmp_path, monkeypatch):
    """Ninja's output read by ``run_ninja`` from a stand-in ninja that prints one
    compile's ``n`` warnings (no compiler, no port: only what musa-port does with the
    output is timed)."""
    from musa_porting.compile import ninja
    from musa_porting.compile.diagnostics import PortMap
    from musa_porting.compile.result import FileBuild

    def make(n: int) -> tuple[Path, int]:
        printed = tmp_path / f"ninja{n}.txt"
        template = "std::map<int, std::vector<float>>, " * 12  # as long as C++ warnings get
        lines = (f"a.mu:{i}:1: warning: unused variable 'v{i}' of type 'Tensor<{template}>' "
                 "[-Wunused-variable]\n" for i in range(n))
        printed.write_text("@@musa-port[1/1] MCC a.mu\n" + "".join(lines))
        fake = tmp_path / f"ninja{n}"
        fake.write_text(f"#!/bin/sh\nexec cat {printed}\n")
        fake.chmod(0o755)
        return fake, n

    def work(made: tuple[Path, int]) -> None:
        fake, n = made
        monkeypatch.setattr(ninja, "find_ninja", lambda: str(fake))
        f = FileBuild("a.mu", None, str(tmp_path / "a.o"), [])
        ninja.run_ninja(tmp_path, [f], None, keep_going=False, jobs=None,
                        portmap=PortMap(tmp_path))
        assert f.warnings == n

    assert growth(work, make, 2_000, 16_000) < SLACK * 8


def test_what_is_cut_is_said_and_counted(tmp_path):
    out, launcher = _chatty(tmp_path, 20_000, fail=True)
    report = tmp_path / "b.json"
    run = run_main(["build", out, "--mcc", FAKE_MCC, "--cxx", FAKE_MCC, "--launcher", launcher,
                    "--report-json", report])
    assert run.code == 1, run.err
    said = run.out.decode()
    assert "error: the first error" in said and "error: the last error" in said
    assert "lines (" in said and "of its compiler output cut" in said, said
    (f,) = json.loads(report.read_text())["files"]
    assert (f["errors"], f["warnings"]) == (2, 20_000)  # all counted, not all kept
    assert f["output_cut"]["lines"] > 15_000 and f["output_cut"]["bytes"] > 15_000 * 50
    assert len(json.dumps(f["diagnostics"])) < 2_000_000  # what is kept is capped
