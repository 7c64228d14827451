"""Names of unknown status: the counts of the rules in force by status, where the count
is given, and a note (MP1010) at each rename to a MUSA name that the naming pattern made
and no vendor source shows, so a porter checks those first (the summary lists a file's
in one note)."""

from __future__ import annotations

import json

from conftest import make_tree, musa_port_here

from musa_porting.rules import build_ruleset

FP8 = ("#include <cuda_fp8.h>\n"
       "__device__ void f() {\n"
       "  __half2 h = __nv_cvt_fp8x2_to_halfraw2(v, __NV_E4M3);\n"
       "  __half2 g = __nv_cvt_fp8x2_to_halfraw2(w, __NV_E5M2);\n"
       "  __nv_fp8_e4m3 x = __nv_fp8_e4m3(1.0f);\n"
       "}\n")


def _unknown(name: str) -> bool:
    return build_ruleset().rules[name].status == "unknown"


def test_a_note_at_each_rename_to_an_unknown_name(tmp_path):
    assert _unknown("__nv_cvt_fp8x2_to_halfraw2") and not _unknown("__nv_fp8_e4m3")
    assert not _unknown("cudaMalloc")
    src = make_tree(tmp_path / "s", {"fp8.cu": FP8, "plain.cu": "cudaMalloc(&p, 4);\n"})
    code, _, err = musa_port_here(src, "-n", "--report-json", tmp_path / "r.json")
    assert code == 0, err
    notes = [d for d in json.loads((tmp_path / "r.json").read_text())["diagnostics"]
             if d["id"] == "MP1010"]
    # one at each rename in fp8.cu, none for plain.cu (only attested names)
    assert [(d["source_file"], d["source_line"], d["source_column"], d["level"], d["text"])
            for d in notes] == [("fp8.cu", n, 15, "note", "__mt_cvt_fp8x2_to_halfraw2")
                                for n in (3, 4)]
    assert "(was '__nv_cvt_fp8x2_to_halfraw2') is a MUSA name of unknown status" in \
        notes[0]["message"]
    # the summary lists them in one note per file (__nv_fp8_e4m3 is supported: not listed)
    code, grouped, _ = musa_port_here(src, "-n", "--output-format", "grouped", "-v")
    [listed] = [line for line in grouped.splitlines() if "MP1010" in line]
    assert "in this file: 2 (lines 3, 4: '__mt_cvt_fp8x2_to_halfraw2')" in listed
    assert "fp8_e4m3" not in listed
    # A user rule for the name decides it: no longer unknown.
    rule = tmp_path / "mine.json"
    rule.write_text('{"__nv_cvt_fp8x2_to_halfraw2": "__nv_cvt_fp8x2_to_halfraw2"}')
    code, _, _ = musa_port_here(src, "-n", "--rule", rule, "--report-json", tmp_path / "r2.json")
    assert not [d for d in json.loads((tmp_path / "r2.json").read_text())["diagnostics"]
                if d["id"] == "MP1010"]


def test_the_rule_count_is_given_by_status(tmp_path):
    src = make_tree(tmp_path / "s", {"k.cu": FP8})
    rule = tmp_path / "mine.json"
    rule.write_text('{"MY_THING": "MY_OTHER_THING"}')
    code, out, _ = musa_port_here(src, "--rule", rule, "--report-json", tmp_path / "r.json")
    report = json.loads((tmp_path / "r.json").read_text())
    status = report["rule_status"]
    assert sum(status.values()) == report["rules"] and status["user"] == 1
    assert status["unknown"] > 1000 and status["supported"] > 1000
    banner = out.splitlines()[0]
    assert banner.endswith(f"with {report['rules']:,} rules ({status['supported']:,} supported, "
                           f"{status['unknown']:,} unknown, 1 yours)")
    assert "1 file renamed CUDA names to MUSA names of unknown status" in out
    # A re-run that ports nothing says the same.
    code, again, _ = musa_port_here(src, "--rule", rule)
    assert again.splitlines()[0] == banner
