"""The torch_musa SimplePorting drop-in: API, counts, fixed bugs, module CLI."""

from __future__ import annotations

import logging
import os
import subprocess
import sys

import pytest

import musa_porting.simple_porting as musa_sp
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
    with pytest.raises(PortError, match="must be a string"):
        SimplePorting(str(tmp_path), mapping_rule={"x": None}).run()


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


def test_module_command_says_a_bug_in_one_line(csrc, monkeypatch, capsys):
    """Whatever goes wrong, the command line prints one error line, never a traceback
    (issue 28 item 11): a bug is exit 3 with how to see the details."""
    def broken(self):
        raise RuntimeError("something unforeseen")

    monkeypatch.setattr(SimplePorting, "run", broken)
    monkeypatch.delenv("MUSA_PORT_DEBUG", raising=False)
    assert musa_sp.main(["--cuda-dir-path", str(csrc)]) == 3
    err = capsys.readouterr().err
    assert err.startswith("error: internal error: RuntimeError: something unforeseen")
    assert len(err.splitlines()) == 1 and "MUSA_PORT_DEBUG=1" in err


# -- torch_musa's types, as the original accepts them ---------------------------------

def test_dict_in_the_ignore_slot_is_an_error_with_the_fix(csrc):
    with pytest.raises(PortError, match=r"ignore_dir_paths got a dict .*mapping_rule="):
        SimplePorting("csrc", {"cuda": "musa"})
    with pytest.raises(PortError, match="ignore_dir_paths got a dict"):
        SimplePorting("csrc", '{"cuda": "musa"}')
    assert not (csrc.parent / "csrc_musa").exists()


def test_json_strings_are_parsed(csrc):
    SimplePorting("csrc", '["./csrc/mlu"]', '{"_CUH": "_MUH"}', quiet=True).run()
    out = csrc.parent / "csrc_musa"
    assert not (out / "mlu").exists() and (out / "deep/mlu/y.mu").exists()
    assert (out / "k.muh").read_text().startswith("#ifndef K_MUH")
    with pytest.raises(PortError, match="mapping_rule is not valid JSON"):
        SimplePorting("csrc", mapping_rule='{"a": }')
    with pytest.raises(PortError, match="mapping_rule must be a JSON object"):
        SimplePorting("csrc", mapping_rule='["a"]')


def test_drop_default_mapping_with_no_rules_renames_and_copies(csrc):
    r = SimplePorting("csrc", drop_default_mapping=True, quiet=True).run()
    out = csrc.parent / "csrc_musa"
    assert (out / "a.mu").read_text() == '#include "k.muh"\nvoid f() { cudaMalloc(&p, 4); }\n'
    assert r.rules == 0


def test_mapping_dir_tables_sit_above_the_defaults_as_torch_musa_merges_them(csrc, tmp_path, capsys):
    """torch_musa reads every *.json of mapping_dir_path but general.json, on top of its
    own general table: the defaults stay (cudaFree), the folder's rule wins over them,
    mapping_rule over both. A general.json there is read too, with a warning."""
    (csrc / "a.cu").write_text("void f() { cudaMalloc(&p, 4); cudaFree(p); cudaMemset(p, 0, 4); }\n")
    d = tmp_path / "maps"
    d.mkdir()
    (d / "extra.json").write_text('{"cudaMalloc": "fromExtra", "cudaMemset": "fromExtra2"}')
    SimplePorting("csrc", mapping_dir_path=str(d), mapping_rule={"cudaMemset": "fromUser"}).run()
    out = (csrc.parent / "csrc_musa/a.mu").read_text()
    assert out == "void f() { fromExtra(&p, 4); musaFree(p); fromUser(p, 0, 4); }\n"
    assert "general.json" not in capsys.readouterr().err
    (d / "general.json").write_text('{"cudaFree": "fromGeneral"}')
    SimplePorting("csrc", mapping_dir_path=str(d)).run()
    assert "fromGeneral(p)" in (csrc.parent / "csrc_musa/a.mu").read_text()
    err = capsys.readouterr().err
    assert "general.json" in err and "does not read" in err


def test_ignore_path_that_matches_nothing_is_reported(csrc, capsys):
    SimplePorting("csrc", ignore_dir_paths=["./csrc/nope", "mlu"]).run()
    err = capsys.readouterr().err
    assert "ignore_dir_paths: ./csrc/nope matched nothing in csrc" in err
    assert "mlu matched nothing" not in err


# -- the module's names and the object's attributes -----------------------------------

def test_logger_prints_and_set_level_silences(csrc, capsys, monkeypatch):
    SimplePorting("csrc", ignore_dir_paths=["./csrc/nope"]).run()
    out = capsys.readouterr()
    assert out.out.startswith("musa-port: ") and "matched nothing" in out.err
    level = musa_sp.LOGGER.level
    musa_sp.LOGGER.setLevel(logging.ERROR)  # what torchada does
    try:
        SimplePorting("csrc", ignore_dir_paths=["./csrc/nope"]).run()
    finally:
        musa_sp.LOGGER.setLevel(level)
    assert capsys.readouterr() == ("", "")


def test_ext_replaced_mapping_changes_the_port(csrc, monkeypatch):
    monkeypatch.setattr(musa_sp, "EXT_REPLACED_MAPPING", {"cu": "cu", "cuh": "cuh"})
    SimplePorting("csrc", quiet=True).run()
    out = csrc.parent / "csrc_musa"
    assert (out / "a.cu").read_text() == '#include "k.cuh"\nvoid f() { musaMalloc(&p, 4); }\n'
    assert not (out / "a.mu").exists()
    # Editing the dict in place works too, and includes follow the new names.
    monkeypatch.setitem(musa_sp.EXT_REPLACED_MAPPING, "cuh", "hpp")
    SimplePorting("csrc", quiet=True).run()
    assert (out / "a.cu").read_text().startswith('#include "k.hpp"')
    assert (out / "k.hpp").is_file() and not (out / "k.cuh").exists()


def test_module_mapping_rule_and_read_json(csrc, tmp_path, monkeypatch):
    monkeypatch.setattr(musa_sp, "_MAPPING_RULE", {"cudaMalloc": "fromModule"})
    SimplePorting("csrc", quiet=True).run()
    assert "fromModule(&p, 4)" in (csrc.parent / "csrc_musa/a.mu").read_text()
    SimplePorting("csrc", mapping_rule={"cudaMalloc": "fromUser"}, quiet=True).run()
    assert "fromUser(&p, 4)" in (csrc.parent / "csrc_musa/a.mu").read_text()
    d = tmp_path / "maps"
    d.mkdir()
    (d / "general.json").write_text('{"cudaMalloc": "fromFile"}')
    read = []

    def read_json(path):
        read.append(os.path.basename(path))
        return {k: v.upper() for k, v in musa_sp._read_json(path).items()}

    monkeypatch.setattr(musa_sp, "_MAPPING_RULE", {})
    monkeypatch.setattr(musa_sp, "read_json", read_json)
    SimplePorting("csrc", mapping_dir_path=str(d), quiet=True).run()
    assert read == ["general.json"]
    assert "FROMFILE(&p, 4)" in (csrc.parent / "csrc_musa/a.mu").read_text()


def test_load_replaced_mapping_gives_the_pairs_and_a_replacement_changes_the_port(csrc, monkeypatch):
    sp = SimplePorting("csrc", mapping_rule={"cudaMalloc": "mine"}, quiet=True)
    pairs = sp.load_replaced_mapping()
    assert sp.mapping_rule is pairs and ("cudaMalloc", "mine") in pairs
    assert [len(k) for k, _ in pairs] == sorted((len(k) for k, _ in pairs), reverse=True)
    assert len(pairs) > 10000  # the default tables, as torch_musa merges them in
    original = SimplePorting.load_replaced_mapping

    def load(self):
        original(self)  # then drop one pair and add one, as torchada's narrowing does
        self.mapping_rule = [(k, v) for k, v in self.mapping_rule if k != "cudaMalloc"]
        self.mapping_rule.append(("K_CUH", "K_HEADER"))

    monkeypatch.setattr(SimplePorting, "load_replaced_mapping", load)
    SimplePorting("csrc", quiet=True).run()
    out = csrc.parent / "csrc_musa"
    assert (out / "a.mu").read_text() == '#include "k.muh"\nvoid f() { cudaMalloc(&p, 4); }\n'
    assert "K_HEADER" in (out / "k.muh").read_text()


def test_modify_file_replaced_is_called_for_every_file(csrc, monkeypatch):
    calls = []

    def modify_file(self, cuda_filepath, musa_filepath):
        calls.append((os.path.relpath(cuda_filepath, "csrc"), os.path.relpath(musa_filepath)))
        assert isinstance(self.mapping_rule, list)  # loaded, as torch_musa left it

    monkeypatch.setattr(SimplePorting, "modify_file", modify_file)
    r = SimplePorting("./csrc", ignore_dir_paths=["./csrc/mlu"], quiet=True).run()
    assert sorted(calls) == [
        ("Makefile", "csrc_musa/Makefile"), ("a.cu", "csrc_musa/a.mu"),
        ("blob.bin", "csrc_musa/blob.bin"), ("deep/mlu/y.cu", "csrc_musa/deep/mlu/y.mu"),
        ("k.cuh", "csrc_musa/k.muh")]
    assert (csrc.parent / "csrc_musa/deep/mlu").is_dir()  # folders made first
    assert r.ported == 5 and set(r.ignored) == {"mlu"}


def test_our_modify_file_ports_one_file_and_leaves_unchanged_output_alone(csrc, tmp_path):
    sp = SimplePorting("csrc", quiet=True)
    target = tmp_path / "a.mu"
    sp.modify_file("csrc/a.cu", str(target))
    assert target.read_text() == '#include "k.muh"\nvoid f() { musaMalloc(&p, 4); }\n'
    os.utime(target, ns=(1, 1))
    sp.modify_file("csrc/a.cu", str(target))
    assert target.stat().st_mtime_ns == 1
    assert not list(tmp_path.glob(".*tmp*"))


def test_change_filename(csrc, monkeypatch):
    sp = SimplePorting("csrc")
    assert [sp.change_filename(n) for n in ("k.cuh", "a.cu", "Makefile", ".bashrc", "x.cpp")] == \
        ["k.muh", "a.mu", "Makefile", ".bashrc", "x.cpp"]
    monkeypatch.setattr(SimplePorting, "change_filename",
                    lambda self, name: name.replace(".cu", ".musa.cu"))
    SimplePorting("csrc", quiet=True).run()
    out = csrc.parent / "csrc_musa"
    assert (out / "a.musa.cu").read_text().startswith('#include "k.musa.cuh"')
    assert (out / "k.musa.cuh").is_file() and (out / "Makefile").is_file()


def test_process_ignore_dir_paths_replaced(csrc, monkeypatch):
    original = SimplePorting.process_ignore_dir_paths

    def process(self):
        self.ignore_dir_paths.append("deep")
        return original(self)

    monkeypatch.setattr(SimplePorting, "process_ignore_dir_paths", process)
    SimplePorting("csrc", quiet=True).run()
    assert not (csrc.parent / "csrc_musa/deep").exists()


def test_attributes_musa_dir_path_and_overwrite_default_mapping(csrc, tmp_path):
    sp = SimplePorting("./csrc/", quiet=True)
    assert sp.musa_dir_path == "./csrc_musa"
    assert sp.overwrite_default_mapping is False
    sp.overwrite_default_mapping = True
    assert sp.drop_default_mapping is True
    sp.musa_dir_path = str(tmp_path / "elsewhere")
    r = sp.run()
    assert r.output == str(tmp_path / "elsewhere")
    assert "cudaMalloc" in (tmp_path / "elsewhere/a.mu").read_text()  # no default rules
    sp.musa_dir_path = "csrc"
    with pytest.raises(PortError, match="musa_dir_path csrc is the source folder"):
        sp.run()


def test_user_musa_version_beside_the_cuda_file_is_kept(csrc, capsys):
    (csrc / "k.muh").write_text("// hand-written\n")
    (csrc / "a.mu").write_text('#include "k.muh"\nvoid f() { musaMalloc(&q, 8); }\n')
    r = SimplePorting("csrc").run()
    out = csrc.parent / "csrc_musa"
    assert (out / "k.muh").read_text() == "// hand-written\n"
    assert (out / "a.mu").read_text() == (csrc / "a.mu").read_text()
    assert set(r.ignored) == {"a.cu", "k.cuh"}
    err = capsys.readouterr().err
    assert "a.cu: not ported: a.mu beside it is its MUSA version" in err
    assert "k.cuh: not ported: k.muh beside it is its MUSA version" in err
