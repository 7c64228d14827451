"""Rule loading: formats, precedence, and one-line errors with file:line:column."""

from __future__ import annotations

import json
import re

import pytest
from conftest import run_cli

from musa_porting.errors import PortError
from musa_porting.rules import build_ruleset, load_rule_file


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_flat_json_and_yaml_load_the_same_rules(tmp_path):
    j = write(tmp_path, "r.json", '{"_CUH": "_MUH", ", CUDA,": ", PrivateUse1,"}')
    y = write(tmp_path, "r.yaml", '"_CUH": "_MUH"\n", CUDA,": ", PrivateUse1,"\n')
    as_pairs = [[(r.key, r.value, r.line) for r in load_rule_file(p)] for p in (j, y)]
    assert [(k, v) for k, v, _ in as_pairs[0]] == [(k, v) for k, v, _ in as_pairs[1]]
    assert [ln for _, _, ln in as_pairs[1]] == [1, 2]


def test_user_rules_win_over_defaults_and_later_files_win(tmp_path):
    a = write(tmp_path, "a.json", '{"cudaMalloc": "myMalloc", "x": "a"}')
    b = write(tmp_path, "b.json", '{"x": "b"}')
    rs = build_ruleset(rule_files=[a, b])
    assert rs.rules["cudaMalloc"].value == "myMalloc"
    assert rs.rules["x"].value == "b"
    assert build_ruleset(rule_files=[b, a]).rules["x"].value == "a"


def test_no_default_rules_and_mapping_dir(tmp_path):
    d = tmp_path / "torch_musa_mapping"
    d.mkdir()
    write(d, "general.json", '{"cudaFoo": "musaFoo"}')
    rs = build_ruleset(mapping_dir=d)
    assert set(rs.rules) == {"cudaFoo"} and rs.rules["cudaFoo"].family == "general"
    assert len(build_ruleset(default_rules=False)) == 0
    assert len(build_ruleset()) > 100


@pytest.mark.parametrize(
    "name, text, where, what",
    [
        ("extra.json", '{\n  "a": "b",\n  "c" "d"\n}', "extra.json:3:7:", ""),  # json's words
        ("extra.json", '{\n  "a": "b",\n  "a": "c"\n}', "extra.json:3:3:", "duplicate key 'a'"),
        ("extra.json", '{\n  "": "b"\n}', "extra.json:2:3:", "empty rule key"),
        ("extra.json", '{\n  "a": 3\n}', "extra.json:2:3:", "must be a string"),
        ("extra.json", '["a", "b"]', "extra.json:1:1:", "must be a JSON object"),
        # at the trailing comma (Python 3.13's json) or just after it (3.10-3.12)
        ("extra.json", '{"a": "b",}', "extra.json:1:1[01]:", ""),
        ("extra.yaml", 'a: b\nc: [d\n', "extra.yaml:[23]:[0-9]+:", ""),  # the bracket never closed
        ("extra.yaml", 'a: b\na: c\n', "extra.yaml:2:1:", "duplicate key 'a'"),
        ("extra.yaml", 'a: b\nc:\n', "extra.yaml:2:3:", "must be a string"),
        ("extra.yaml", '- a\n- b\n', "extra.yaml:1:1:", "must be a mapping"),
    ],
)
def test_malformed_rule_files_name_file_line_column(tmp_path, name, text, where, what):
    p = write(tmp_path, name, text)
    with pytest.raises(PortError) as info:
        load_rule_file(p)
    msg = str(info.value)
    m = re.match(re.escape(str(p).replace(name, "")) + where + r" (\S.*)", msg)
    assert m, msg  # file:line:col: and a message (json's and YAML's own words vary by version)
    assert what in m.group(1)


def test_malformed_rule_file_cli_one_line_exit_2_nothing_written(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_text("cudaMalloc(p);\n")
    bad = write(tmp_path, "extra.json", '{\n  "a": "b",\n  "a": "c"\n}')
    proc = run_cli(src, "--rule", bad)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert lines == [f"error: {bad}:3:3: duplicate key 'a' (first at line 2)"]
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "src_musa").exists()


def test_missing_rule_file(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    proc = run_cli(src, "--rule", tmp_path / "nope.json")
    assert proc.returncode == 2 and "nope.json" in proc.stderr
    assert not (tmp_path / "src_musa").exists()


def test_rich_table_entries_and_statuses(tmp_path):
    table = {
        "family": "demo",
        "default_status": "supported",
        "entries": {
            "cudaA": "musaA",
            "cudaB": {"musa": "musaB", "status": "unknown"},
            "cudaGLThing": {"status": "unsupported", "note": "no GL interop"},
        },
    }
    d = tmp_path / "m"
    d.mkdir()
    (d / "demo.json").write_text(json.dumps(table, indent=1))
    rs = build_ruleset(mapping_dir=d)
    assert rs.rules["cudaB"].status == "unknown"
    assert rs.rules["cudaGLThing"].value is None
    assert set(rs.rewriting()) == {"cudaA", "cudaB"}


def test_rich_entries_say_their_source_and_version(tmp_path):
    """A table's default_source / version apply to entries that do not say their own,
    in a user's mapping folder as in the shipped tables."""
    table = {
        "family": "demo", "default_source": "vendor", "version": "CUDA 13",
        "entries": {
            "cudaA": "musaA",
            "cudaOld": {"musa": "musaOld", "status": "supported", "version": "CUDA 11.8"},
            "cudaMine": {"musa": "musaMine", "status": "supported", "source": "curated: me",
                         "version": None},
        },
    }
    d = tmp_path / "m"
    d.mkdir()
    (d / "demo.json").write_text(json.dumps(table, indent=1))
    rules = {r.key: (r.origin, r.version) for r in load_rule_file(d / "demo.json", family="demo")}
    assert rules == {"cudaA": ("vendor", "CUDA 13"), "cudaOld": ("vendor", "CUDA 11.8"),
                     "cudaMine": ("curated: me", None)}
    assert {k: (r.origin, r.version) for k, r in build_ruleset(mapping_dir=d).rules.items()} == rules
    bad = write(tmp_path, "t.json", '{"family": "x", "entries": {\n "cudaA": {"musa": "a", "version": 13}}}')
    with pytest.raises(PortError, match=r"t\.json:2:2: 'source' and 'version' of 'cudaA' must be strings"):
        load_rule_file(bad)


def test_rich_entry_without_musa_must_be_unsupported(tmp_path):
    p = write(tmp_path, "t.json", '{"family": "x", "entries": {\n "cudaA": {"status": "unknown"}}}')
    with pytest.raises(PortError, match=r"t\.json:2:2: entry 'cudaA' has no 'musa' name"):
        load_rule_file(p)
