"""The torch_musa SimplePorting drop-in: API, counts, fixed bugs, module CLI."""

from __future__ import annotations

import subprocess
import sys

import pytest

from musa_porting import PortError, SimplePorting


@pytest.fixture
def csrc(tmp_path, monkeypatch):
    root = tmp_path / "csrc"
    for rel, text in {
        "a.cu": '#include "k.cuh"\nvoid f() { cudaMalloc(&p, 4); }\n',
        "k.cuh": "#ifndef K_CUH\n#define K_CUH\n#endif\n",
        "mlu/x.cu": "cudaMalloc",
        "deep/mlu/y.cu": "cudaMalloc",
        "Makefile": "all:\n",
        "blob.bin": "\x00cudaMalloc",
    }.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    monkeypatch.chdir(tmp_path)
    return root


def test_run_returns_counts_and_writes_sibling(csrc):
    result = SimplePorting(cuda_dir_path="./csrc/", mapping_rule={"_CUH": "_MUH"}, quiet=True).run()
    out = csrc.parent / "csrc_musa"
    assert result.output == str(out)
    assert (out / "a.mu").read_text() == '#include "k.muh"\nvoid f() { musaMalloc(&p, 4); }\n'
    assert (out / "k.muh").read_text() == "#ifndef K_MUH\n#define K_MUH\n#endif\n"
    assert (out / "Makefile").exists() and not (out / ".Makefile").exists()
    # Ported: the four CUDA files and the Makefile (a build file); copied: blob.bin.
    assert result.ported == 5 and result.copied == 1 and result.replacements >= 4


def test_ignore_paths_are_anchored_and_bare_names_match_anywhere(csrc):
    SimplePorting("csrc", ignore_dir_paths=["./csrc/mlu"], quiet=True).run()
    out = csrc.parent / "csrc_musa"
    assert not (out / "mlu").exists() and (out / "deep/mlu/y.mu").exists()
    SimplePorting("csrc", ignore_dir_paths=["mlu"], quiet=True).run()
    assert not (out / "deep/mlu").exists()


def test_user_rules_win_over_defaults(csrc):
    SimplePorting("csrc", mapping_rule={"cudaMalloc": "myAlloc"}, quiet=True).run()
    assert "myAlloc(&p, 4)" in (csrc.parent / "csrc_musa/a.mu").read_text()


def test_drop_default_mapping(csrc):
    r = SimplePorting("csrc", mapping_rule={"_CUH": "_MUH"}, drop_default_mapping=True,
                      quiet=True).run()
    assert "cudaMalloc" in (csrc.parent / "csrc_musa/a.mu").read_text()
    assert r.rules == 1


def test_mapping_dir_path(csrc, tmp_path):
    d = tmp_path / "maps"
    d.mkdir()
    (d / "general.json").write_text('{"cudaMalloc": "fromDir"}')
    SimplePorting("csrc", mapping_dir_path=str(d), quiet=True).run()
    assert "fromDir(&p, 4)" in (csrc.parent / "csrc_musa/a.mu").read_text()


def test_errors_are_port_errors(tmp_path):
    with pytest.raises(PortError, match="source folder not found"):
        SimplePorting(str(tmp_path / "nope")).run()
    with pytest.raises(PortError, match="non-empty string"):
        SimplePorting(str(tmp_path), mapping_rule={"x": ""}).run()


def run_module(*args, cwd):
    return subprocess.run([sys.executable, "-m", "musa_porting.simple_porting", *args],
                          capture_output=True, text=True, cwd=cwd)


def test_module_command_accepts_torch_musa_arguments(csrc):
    proc = run_module("--cuda-dir-path", "csrc", "--ignore-dir-paths", '["csrc/mlu"]',
                      "--mapping-rule", '{"_CUH": "_MUH"}', cwd=csrc.parent)
    assert proc.returncode == 0, proc.stderr
    out = csrc.parent / "csrc_musa"
    assert (out / "k.muh").read_text().startswith("#ifndef K_MUH")
    assert not (out / "mlu").exists()
    proc = run_module("--cuda-dir-path", "csrc", "--drop-default-mapping", "--mapping-dir-path",
                      "nowhere", cwd=csrc.parent)
    assert proc.returncode == 2 and proc.stderr.strip() == "error: nowhere: mapping folder not found"


@pytest.mark.parametrize("flag, value, message", [
    ("--mapping-rule", '{"a": "b",}', "--mapping-rule is not valid JSON"),
    ("--mapping-rule", '["a"]', "--mapping-rule must be a JSON object"),
    ("--ignore-dir-paths", '{"a": 1}', "--ignore-dir-paths must be a JSON list"),
    ("--ignore-dir-paths", "[mlu]", "--ignore-dir-paths is not valid JSON"),
])
def test_module_command_malformed_json(csrc, flag, value, message):
    proc = run_module("--cuda-dir-path", "csrc", flag, value, cwd=csrc.parent)
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert not (csrc.parent / "csrc_musa").exists()
