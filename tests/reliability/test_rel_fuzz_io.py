"""Fuzzing what a tree brings besides its sources: compile_commands.json, settings
files and file names (issue 28 "fuzz targets"; C/C++, Python, CMake, Make, shell and
rule files have theirs elsewhere). Each asserts no exception but a one-line
``PortError`` (exit 2), the documented exit codes, and nothing outside the output
touched. ``FUZZ_CASES`` scales the number of cases.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil

from conftest import ROOT, make_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from relhelp import state

from musa_porting.analyze.clang_symbols import _load_commands
from musa_porting.cli.app import cli, run
from musa_porting.config import project_config
from musa_porting.errors import PortError

CASES = int(os.environ.get("FUZZ_CASES", "10000"))
FAST = settings(max_examples=max(1, CASES // 40), deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
SLOW = settings(max_examples=max(1, CASES // 1000), deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
FAKE_MCC = ROOT / "fixtures/fake-mcc/mcc"
_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=10)


# -- compile_commands.json ------------------------------------------------------------------

_FLAGS = ["-I", "-Iinc", "-I/abs", "-D", "-DX=1", "-U", "-std=c++17", "-isystem", "-include",
          "-x", "cu", "-Wall", "-Werror=foo", "-fno-rtti", "-fopenmp=libomp", "-MD", "-MF", "-MT",
          "-o", "-c", "-Xclang", "-load", "-fplugin=x.so", "-fprofile-generate=/tmp/x",
          "-Wp,-MD,x", "-Wl,-rpath,/x", "--driver-mode=g++", "@rsp", "a.cu", "/home/u/.bashrc",
          "touch PWNED;", "-ftime-trace", "-fmodules", "-fmodules-cache-path=/x", "-B/evil"]
_ALLOWED_FLAG = ("-I", "-D", "-U", "-std=", "-isystem", "-include", "-x", "-W", "-f")
_DENIED = ("-MD", "-MF", "-MT", "-o", "-Xclang", "-fplugin=x.so", "-fprofile-generate=/tmp/x",
           "-Wp,-MD,x", "-Wl,-rpath,/x", "-ftime-trace", "-fmodules", "-fmodules-cache-path=/x",
           "-B/evil", "@rsp", "--driver-mode=g++")
_entry = st.fixed_dictionaries(
    {"directory": st.sampled_from(["/src", ".", "rel/dir", ""]) | st.text(max_size=6),
     "file": st.sampled_from(["a.cu", "/src/a.cu", "b.cpp"]) | st.text(max_size=6)},
    optional={"arguments": st.lists(st.sampled_from(_FLAGS) | st.text(max_size=6), max_size=12)
              | _json,
              "command": st.lists(st.sampled_from(_FLAGS), max_size=12).map(" ".join)
              | st.text(max_size=20) | _json})


@FAST
@given(entries=st.one_of(st.lists(_entry | _json, max_size=4), _json),
       raw=st.none() | st.binary(max_size=60))
def test_compile_commands_pass_only_allowed_flags(tmp_path, entries, raw):
    path = tmp_path / "cc.json"
    path.write_bytes(raw if raw is not None else json.dumps(entries).encode())
    try:
        commands, dropped = _load_commands(str(path))
    except PortError as exc:
        assert "\n" not in str(exc)
        return
    for args in commands.values():
        i = 0
        while i < len(args):
            flag = args[i]
            assert flag.startswith(_ALLOWED_FLAG) and flag not in _DENIED, args
            i += 2 if flag in ("-I", "-D", "-U", "-isystem", "-include", "-x") else 1
    assert all(isinstance(d, str) for d in dropped)


# -- settings files -------------------------------------------------------------------------

_KEY = st.sampled_from(["ignore", "rule", "keep", "suppress", "disable-family",
                        "enable-family", "check-level", "ignores", "x"])
_TOML_VALUE = st.sampled_from(['"a"', '["a", "b"]', "[]", "1", "true", '"error"', '"warning"',
                               '"MP2002"', '["MP9999"]', '["nccl"]', '["no-such"]', '{a = 1}',
                               '"common/mlu,parrots"', '["/dev/zero"]', '"\\ud800"', "[1, 2]",
                               '"*a*"', "[[1]]", '"', "=", "["])
_line = st.one_of(st.tuples(_KEY, _TOML_VALUE).map(lambda kv: f"{kv[0]} = {kv[1]}"),
                  st.sampled_from(["[tool.musa-port]", "[tool]", 'musa-port = "x"',
                                   'tool = "musa-port"', "[project]", 'name = "p"', "[tool.x]",
                                   "", "# comment", "\ufeff", "[[tool.musa-port]]"]),
                  st.text(max_size=10))


@FAST
@given(lines=st.lists(_line, max_size=8), name=st.sampled_from(["pyproject.toml",
                                                                ".musa-port.toml"]),
       raw=st.none() | st.binary(max_size=40))
def test_settings_files_are_read_or_refused_in_one_line(tmp_path, lines, name, raw):
    proj = tmp_path / "proj"
    src = make_tree(proj, {"csrc/a.cu": "int a;\n"}) / "csrc"
    (proj / name).write_bytes(raw if raw is not None else
                              "\n".join(lines).encode("utf-8", "surrogatepass"))
    for explicit in (None, str(proj / name)):
        try:
            cfg = project_config(str(src), explicit)
        except PortError as exc:
            assert "\n" not in str(exc)
            continue
        assert isinstance(cfg.table, dict) and all(isinstance(k, str) for k in cfg.table)
        assert all(isinstance(n, int) and n >= 1 for n in cfg.lines.values())


_VALID_VALUE = st.sampled_from(['"a.cu"', '["a.cu", "b*"]', "[]", "1", "true", '"error"',
                               '"warning"', '"MP2002"', '["MP9999"]', '["nccl"]', '["no-such"]',
                               "{a = 1}", '"common/mlu,parrots"', '["/dev/zero"]', '["b.txt"]',
                               '"*a*"', "[[1]]", '["../../x"]', '"unknown-cuda-name"'])
_settings = st.dictionaries(_KEY, _VALID_VALUE, max_size=5).map(
    lambda d: "\n".join(f"{k} = {v}" for k, v in d.items()))


@SLOW
@given(lines=st.lists(_line, max_size=8) | _settings.map(lambda t: [t]))
def test_a_port_with_fuzzed_settings_exits_as_documented(tmp_path_factory, lines):
    proj = tmp_path_factory.mktemp("proj")
    src = make_tree(proj, {"csrc/a.cu": "int a;\n", "csrc/b.txt": "b\n"}) / "csrc"
    (proj / ".musa-port.toml").write_bytes("\n".join(lines).encode("utf-8", "surrogatepass"))
    before = state(proj, with_mtime=True)
    code, err = _cli(src, "--no-default-rules", "--no-project-symbols", "-j", "1", "-q")
    assert code in (0, 2) and "internal error" not in err, err
    if code == 2:
        assert len([ln for ln in err.splitlines() if ln.startswith("error: ")]) == 1, err
    after = state(proj, with_mtime=True)
    assert {k: v for k, v in after.items() if not k.startswith(b"csrc_musa")} == before


def _cli(*args) -> tuple[int, str]:
    """musa-port ARGS in this process: (exit code, stderr)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            run(cli, [str(a) for a in args], "musa-port")
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return code, err.getvalue()


# -- file names -----------------------------------------------------------------------------

_PIECES = ["$(touch PWNED)", "`touch PWNED`", '"', "'", "\\", "\n", "\r", "|", ":", " ", "#",
           "$", "*", "?", "[", "-", "--", os.fsdecode(b"\xe9"), "\u00fc", "x" * 120, "a", ".",
           "cuda", "CUDA_x", "npp_"]
_name = st.tuples(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=5).map("".join),
                  st.sampled_from([".cu", ".cuh", ".cpp", ".h", ".txt", ".py", ""])).map(
    "".join).filter(lambda n: n not in (".", "..") and len(os.fsencode(n)) <= 255)


@SLOW
@given(names=st.lists(_name, min_size=1, max_size=4, unique=True),
       rename=st.booleans())
def test_file_names_port_and_build_or_are_refused_in_one_line(tmp_path_factory, names, rename):
    from musa_porting.compile.build import BuildOptions, build
    from musa_porting.tree.options import PortOptions
    from musa_porting.tree.porter import port_tree

    root = tmp_path_factory.mktemp("names")
    src = make_tree(root / "src", {n: "__global__ void k() {}\n" for n in names})
    make_tree(root / "sentinel", {"s.txt": "s\n"})
    before = state(root / "sentinel", with_mtime=True), state(src, with_mtime=True)
    out = root / "out"
    try:
        port_tree(PortOptions(src=str(src), output=str(out), jobs=1, default_rules=False,
                              project_symbols=False, rename_paths=rename))
        result = build(BuildOptions(out=str(out), mcc=str(FAKE_MCC), cxx=str(FAKE_MCC), jobs=2))
        assert all(f.status in ("ok", "failed", "not built") for f in result.files)
    except PortError as exc:
        assert "\n" not in str(exc)
    assert (state(root / "sentinel", with_mtime=True), state(src, with_mtime=True)) == before
    assert not [p for p in root.rglob("*") if p.name.startswith("PWNED")]
    shutil.rmtree(root)
