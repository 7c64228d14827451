"""Issue 35, point 4: every inline-assembly statement is reported, each one inside a
multi-line macro too, and a finding on a statement of several lines carries its end line
(JSON ``end_line``, SARIF ``region.endLine``)."""

from __future__ import annotations

from musa_porting import PortOptions, port_tree
from musa_porting.report.json_report import report_dict
from musa_porting.report.sarif import sarif_dict

# A quantized GEMM's packed conversion (the shape of Marlin-style kernels): one asm
# statement over ten lines, then two statements in one multi-line macro.
KERNEL = """\
__device__ void dequant(unsigned q, unsigned* out) {
  asm volatile(
      "{\\n"
      ".reg .b32 a, b;\\n"
      "lop3.b32 a, %2, 0x000f000f, 0x64006400, 0xea;\\n"
      "lop3.b32 b, %2, 0x00f000f0, 0x64006400, 0xea;\\n"
      "mov.b32 %0, a;\\n"
      "mov.b32 %1, b;\\n"
      "}\\n"
      : "=r"(out[0]), "=r"(out[1])
      : "r"(q));
}
#define FENCE_AND_SYNC() \\
  asm volatile("fence.acq_rel.gpu;" ::: "memory"); \\
  asm volatile("bar.sync 0;" ::: "memory")
__device__ void f() { FENCE_AND_SYNC(); }
"""


def _port(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "dequant.cu").write_text(KERNEL)
    return port_tree(PortOptions(src=str(src), output=str(tmp_path / "out"), jobs=1))


def test_a_ten_line_asm_statement_carries_its_end_line(tmp_path):
    r = _port(tmp_path)
    found = [d for d in report_dict(r)["diagnostics"] if d["id"] == "MP2001"]
    assert [(d["line"], d["end_line"]) for d in found] == [(2, 11), (14, 14), (15, 15)]
    assert "fence" in found[1]["message"] and "barrier" in found[2]["message"]
    results = [x for x in sarif_dict(r)["runs"][0]["results"] if x["ruleId"] == "MP2001"]
    regions = [x["locations"][0]["physicalLocation"]["region"] for x in results]
    assert (regions[0]["startLine"], regions[0]["endLine"]) == (2, 11)
    assert "endColumn" not in regions[0]  # to the end of line 11
    assert (regions[1]["startLine"], regions[1]["endLine"]) == (14, 14)
    assert regions[1]["endColumn"] > regions[1]["startColumn"]


# Operands nested six parentheses deep, a ")" in a string, a comment and a character,
# then a statement that never closes (cut off by a bad edit): each ends where it ends.
TANGLED = """\
__device__ void g(unsigned* p, int i) {
  asm volatile("st.global.u32 [%0], %1; // )\\n"
               :
               : "l"(p + f(g(h(k(i))))),  /* ) */
                 "r"(')'));
  asm volatile("bar.sync 0;"
}
"""


def test_an_asm_statement_ends_at_its_own_closing_parenthesis(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "tangled.cu").write_text(TANGLED)
    r = port_tree(PortOptions(src=str(src), output=str(tmp_path / "out"), jobs=1))
    found = [d for d in report_dict(r)["diagnostics"] if d["id"] == "MP2001"]
    assert [(d["line"], d["end_line"]) for d in found] == [(2, 5), (6, 6)]


def test_the_token_loop_alone_gives_the_same_end_lines(tmp_path, monkeypatch):
    """Python 3.10's re has no possessive quantifiers: there the token loop finds every
    statement's end, and finds the same ones."""
    from musa_porting.analyze import ptx

    monkeypatch.setattr(ptx, "_STATEMENT", None)
    src = tmp_path / "src"
    src.mkdir()
    (src / "dequant.cu").write_text(KERNEL)
    (src / "tangled.cu").write_text(TANGLED)
    r = port_tree(PortOptions(src=str(src), output=str(tmp_path / "out"), jobs=1))
    found = [(d["file"], d["line"], d["end_line"]) for d in report_dict(r)["diagnostics"]
             if d["id"] == "MP2001"]
    assert sorted(found) == [("dequant.mu", 2, 11), ("dequant.mu", 14, 14), ("dequant.mu", 15, 15),
                             ("tangled.mu", 2, 5), ("tangled.mu", 6, 6)]
