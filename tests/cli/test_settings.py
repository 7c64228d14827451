"""``[tool.musa-port]``: every option of a port is a setting under its own name, the
command line wins, a bad value names the file, the line and the key, and
``--show-settings`` says what a run would use and where each value came from."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest
from conftest import make_tree, musa_port_here

from musa_porting.cli.port_cmd import port_cmd
from musa_porting.cli.settings import NOT_SETTINGS, primary_key


@pytest.fixture
def project(tmp_path) -> Path:
    return make_tree(tmp_path / "proj", {
        "csrc/k.cu": "__global__ void k() { cudaMalloc(p, 1); }\n",
        "csrc/Makefile": "all:\n\tnvcc -arch=sm_80 -c k.cu\n",
        "csrc/mlu/m.cu": "cudaFree(p);\n",
        "rules.json": '{"cudaMalloc": "myAlloc"}',
    })


def write_settings(project: Path, body: str) -> Path:
    path = project / "pyproject.toml"
    path.write_text(f'[project]\nname = "p"\n\n[tool.musa-port]\n{body}')
    return path


# A value each option takes, from its type; options whose values are checked against a
# list (IDs, arches, levels) get one from it.
VALID = {"suppress": '["MP2002"]', "arch": '["mp_31"]', "check": '"warning"', "diff": '"p.diff"',
         "disable-family": '["nccl"]', "enable-family": '["nccl"]', "skip": '["comments"]',
         "color": '"never"', "output-format": '"grouped"', "extensions": '".cu,.h"',
         "build-args": '"--arch mp_21"'}


def _value_for(p: click.Option) -> str:
    key = primary_key(p)
    if key in VALID:
        return VALID[key]
    if p.is_flag and p.is_bool_flag:
        return "true"
    if isinstance(p.type, click.Choice):
        return f'"{p.type.choices[-1]}"'
    if isinstance(p.type, (click.types.IntParamType, click.types.FloatParamType)):
        return "3"
    return '["x"]' if p.multiple else '"x"'


def test_every_port_option_is_a_setting_under_its_own_name(project):
    options = [p for p in port_cmd.params if isinstance(p, click.Option) and p.name not in NOT_SETTINGS]
    assert len(options) > 40
    body = "".join(f"{primary_key(p)} = {_value_for(p)}\n" for p in options)
    settings = write_settings(project, body)
    code, out, err = musa_port_here(project / "csrc", "--show-settings")
    assert code == 0, err
    for p in options:
        line = next((ln for ln in out.splitlines() if ln.startswith(f"{primary_key(p)} = ")), None)
        assert line is not None, f"{primary_key(p)} is not shown"
        assert re.search(rf"# {re.escape(str(settings))}:\d+$", line), line
    assert not (project / "csrc_musa").exists()  # --show-settings ports nothing


def test_settings_take_effect_and_the_command_line_wins(project):
    write_settings(project, 'arch = ["mp_31"]\njobs = 1\nignore = ["mlu"]\noutput = "out"\n'
                            'keep-paths = true\nrule = ["rules.json"]\npython = false\n'
                            'no-default-rules = true\n')  # the tables: only time here
    code, _, err = musa_port_here(project / "csrc", "-q")
    assert code == 0, err
    out = project / "out"  # relative to the settings file's folder
    assert "--offload-arch=mp_31" in (out / "Makefile").read_text()
    assert not (out / "mlu").exists()
    assert (out / "k.mu").read_text().startswith("__global__ void k() { myAlloc(p, 1); }")
    # The command line replaces a value (--arch) and adds to a list (--ignore: nothing
    # more to ignore here, so the file's still holds).
    code, _, err = musa_port_here(project / "csrc", "-q", "--arch", "mp_21", "--ignore", "nothing*")
    assert code == 0, err
    assert "--offload-arch=mp_21" in (out / "Makefile").read_text()
    assert "mp_31" not in (out / "Makefile").read_text() and not (out / "mlu").exists()


def test_show_settings_says_where_each_value_came_from(project):
    settings = write_settings(project, 'arch = ["mp_31"]\n\nignore = ["mlu"]\n')
    code, out, _ = musa_port_here(project / "csrc", "--show-settings", "--ignore", "x", "-j", "2")
    assert code == 0
    lines = {ln.split(" = ")[0]: ln for ln in out.splitlines() if " = " in ln}
    assert lines["arch"].endswith(f"# {settings}:5") and '["mp_31"]' in lines["arch"]
    assert lines["ignore"].endswith(f"# {settings}:7 + command line") and '["mlu", "x"]' in lines["ignore"]
    assert lines["jobs"].endswith("# command line") and "= 2" in lines["jobs"]
    assert lines["wait"].endswith("# default") and "600" in lines["wait"]
    # From the working folder, without SRC: the settings found from there.
    code, out2, _ = musa_port_here("--show-settings", cwd=project)
    assert code == 0 and lines["arch"] in out2


@pytest.mark.parametrize("body, key", [
    ('suppress = ["MP9999"]', "suppress"),
    ("jobs = 0", "jobs"),
    ('arch = ["sm_80"]', "arch"),
    ('symbols = "gcc"', "symbols"),
    ("dry-run = 1", "dry-run"),
    ('check = "notes"', "check"),
    ("rule = [1]", "rule"),
    ('keep-paths = true\nrename-paths = true', "rename-paths"),
    ('vendor-word = "moore threads"', "vendor-word"),
])
def test_a_bad_value_names_the_file_the_line_and_the_key(project, body, key):
    settings = write_settings(project, f"wait = 5\n{body}\n")
    line = 6 + body.count("\n")
    code, out, err = musa_port_here(project / "csrc", "-q")
    assert code == 2 and out == ""
    assert err.startswith(f"error: {settings}:{line}: {key}: "), err
    assert err.count("\n") == 1 and f"--{key}" not in err
    assert not (project / "csrc_musa").exists()


def test_unknown_key_suggests_the_near_one(project):
    settings = write_settings(project, 'ignores = ["mlu"]\n')
    code, _, err = musa_port_here(project / "csrc")
    assert code == 2
    assert err.startswith(f"error: {settings}:5: unknown key 'ignores'; did you mean 'ignore'?")


def test_vendor_word_and_base_from_are_settings(project, monkeypatch):
    """The options issues 34 and 39 added are settings like the rest: the vendor word
    renames the tree's own names, and --base-from's folder is relative to the file (a
    git ref is read as it is)."""
    (project / "csrc/info.cpp").write_text("bool is_nvidia_gpu() { return true; }\n")
    (project / "v1").mkdir()
    settings = write_settings(project, 'vendor-word = "MThreads"\nbase-from = "v1"\n')
    code, out, err = musa_port_here(project / "csrc", "--show-settings")
    assert code == 0, err
    assert 'vendor-word = "mthreads"' in out and f"# {settings}:5" in out
    assert f'base-from = "{project / "v1"}"' in out
    write_settings(project, 'base-from = "v1.0"\n')  # no such folder: a git ref
    assert 'base-from = "v1.0"' in musa_port_here(project / "csrc", "--show-settings")[1]

    seen = {}
    monkeypatch.setattr("musa_porting.cli.port_report.port_and_report",
                        lambda opts, *a: seen.setdefault("opts", opts))
    write_settings(project, 'vendor-word = "mthreads"\nbase-from = "v1"\n')
    assert musa_port_here(project / "csrc", "-q")[0] == 0
    assert seen["opts"].vendor_word == "mthreads" and seen["opts"].base_from == str(project / "v1")
    monkeypatch.undo()
    write_settings(project, 'vendor-word = "mthreads"\n')
    code, _, err = musa_port_here(project / "csrc", "-q", "--vendor-word", "moore")  # the line wins
    assert code == 0, err
    assert "bool is_moore_gpu()" in (project / "csrc_musa/info.cpp").read_text()
