"""The command-line conventions people bring from ruff, black, clang-tidy and hipify:
--diff is a review, usage errors name what was typed, a folder called like a command,
one file to stdout, ignore paths, --check levels with the findings listed, --version,
--color and NO_COLOR, shell completion, settings files, pre-commit, a CI recipe, and
help that fits one screen."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, make_tree, snapshot

USAGE = (ROOT / "docs" / "usage.md").read_text(encoding="utf-8")
REPORTS = (ROOT / "docs" / "reports-and-ci.md").read_text(encoding="utf-8")


@pytest.fixture
def csrc(tmp_path) -> Path:
    return make_tree(tmp_path / "csrc", {
        "a.cu": '#include "k.cuh"\nvoid f() { cudaMalloc(&p, 4); }\n',
        "k.cuh": "#pragma once\n",
        "app/src/x.cu": "cudaFree(p);\n",
        "mlu/m.cu": "cudaFree(p);\n",
    })


def cli(*args, cwd=None, env=None, check=None) -> subprocess.CompletedProcess:
    full = {**os.environ, **(env or {})}
    proc = subprocess.run([sys.executable, "-m", "musa_porting", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, env=full)
    if check is not None:
        assert proc.returncode == check, proc.stdout + proc.stderr
    return proc


# -- --diff is a review ---------------------------------------------------------------

def test_diff_implies_dry_run_unless_write(csrc):
    out = csrc.parent / "csrc_musa"
    proc = cli(csrc, "--diff", check=0)
    assert "+void f() { musaMalloc(&p, 4); }" in proc.stdout and not out.exists()
    proc = cli(csrc, f"--diff={csrc.parent / 'p.diff'}", "-q", check=0)
    assert (csrc.parent / "p.diff").is_file() and not out.exists()
    proc = cli(csrc, "--diff", "--write", "-q", check=0)
    assert "+void f()" in proc.stdout and (out / "a.mu").is_file()
    assert "contradict" in cli(csrc, "--diff", "--write", "--dry-run", check=2).stderr
    # A bare --diff before SRC does not take SRC as its file.
    assert "+void f() { musaMalloc(&p, 4); }" in cli("--diff", csrc, check=0).stdout


# -- what the user typed --------------------------------------------------------------

def test_usage_errors_name_the_command_typed(csrc):
    # Which help option click's hint names (-h or --help) is click's choice and varies
    # with its version; the command in it must be the one typed.
    err = cli(csrc, "--bogus", check=2).stderr
    assert "Usage: musa-port [OPTIONS] SRC" in err
    assert re.search(r"Try 'musa-port (-h|--help)' for help\.", err), err
    assert "musa-port port" not in err
    err = cli("port", csrc, "--bogus", check=2).stderr  # typed: then it is named
    assert re.search(r"Try 'musa-port port (-h|--help)' for help\.", err), err


@pytest.mark.parametrize("word", ["build", "verify", "rules"])
def test_folder_named_like_a_command(tmp_path, word):
    make_tree(tmp_path / word, {"k.cu": "cudaFree(p);\n"})
    for spelling in (f"./{word}", f"{word}/"):
        cli(spelling, "-q", cwd=tmp_path, check=0)
        assert (tmp_path / f"{word}_musa/k.mu").read_text() == "musaFree(p);\n"
    # The bare word is the command; when it fails, a hint says how to port the folder.
    proc = cli(word, cwd=tmp_path)
    assert proc.returncode == 2
    assert f"hint: `musa-port {word}` runs the {word} command; to port the folder {word}, " \
           f"write musa-port ./{word}" in proc.stderr


# -- one file ---------------------------------------------------------------------------

def test_single_file_to_stdout_and_to_o_file(csrc, tmp_path):
    before = snapshot(csrc)
    proc = cli(csrc / "a.cu", check=0)
    assert proc.stdout == '#include "k.muh"\nvoid f() { musaMalloc(&p, 4); }\n'
    target = tmp_path / "a.mu"
    proc = cli(csrc / "a.cu", "-o", target, check=0)
    assert proc.stdout == "" and target.read_text() == '#include "k.muh"\nvoid f() { musaMalloc(&p, 4); }\n'
    os.utime(target, ns=(1, 1))
    cli(csrc / "a.cu", "-o", target, check=0)
    assert target.stat().st_mtime_ns == 1  # unchanged: not rewritten
    assert snapshot(csrc) == before
    assert "never writes its input" in cli(csrc / "a.cu", "-o", csrc / "a.cu", check=2).stderr
    (tmp_path / "out").mkdir()
    cli(csrc / "a.cu", "-o", tmp_path / "out", check=0)  # a folder: the ported name in it
    assert (tmp_path / "out/a.mu").read_text() == target.read_text()
    assert "--sarif needs a folder" in cli(csrc / "a.cu", "--sarif", tmp_path / "s", check=2).stderr


def test_single_file_findings_on_stderr_check_and_diff(tmp_path):
    # a ballot kept in 32 bits: a warning-level hazard (its full mask alone is a note)
    f = make_tree(tmp_path, {"k.cu": "cudaFooBar(1);\nunsigned b = __ballot_sync(0xffffffff, p);\n"}) / "k.cu"
    proc = cli(f, check=0)
    assert proc.stdout == (tmp_path / "k.cu").read_text()  # nothing to rewrite
    assert re.search(rf"^{re.escape(str(f))}:1:1: warning: .* \[MP1002 unknown-cuda-name\]$",
                     proc.stderr, re.M)
    proc = cli(f, "--check", check=1)
    assert "--check=error failed on 1 finding" in proc.stderr
    assert cli(f, "--check=warning", check=1).stderr.count("\n  ") == 2
    cli(f, "--check", "--suppress", "MP1002", check=0)
    diff = cli(f, "--diff", check=0).stdout
    assert "rename from k.cu" in diff and "rename to k.mu" in diff


# -- ignores ----------------------------------------------------------------------------

def test_ignore_paths_from_cwd_and_src_and_unmatched_warning(csrc):
    out = csrc.parent / "csrc_musa"
    proc = cli("csrc", "--ignore", "./csrc/app/src", "--ignore", "./mlu", "-q", cwd=csrc.parent,
               check=0)
    assert not (out / "app/src").exists() and not (out / "mlu").exists()
    assert "matched nothing" not in proc.stderr
    proc = cli(csrc, "--ignore", "./app/nothing,npu", "-q", check=0)
    assert f"warning: ignore pattern ./app/nothing matched nothing in {csrc}" in proc.stderr
    assert "ignore pattern npu matched nothing" in proc.stderr


# -- --check ----------------------------------------------------------------------------

def test_check_levels_list_what_failed(tmp_path):
    src = make_tree(tmp_path / "s", {"a.cu": "unsigned b = __ballot_sync(0xffffffff, p);\n"})
    cli(src, "--check", "-q", check=0)  # a warning-level hazard: not an error
    proc = cli(src, "--check=warning", "-q", check=1)
    assert "--check=warning failed on 1 finding" in proc.stderr
    assert re.search(r"s_musa/a\.mu:1:1: warning: .* \[MP2002 warp-size-32\]$", proc.stderr, re.M)
    # A residual fails the default level, and says so; --check never eats SRC.
    (src / "b.cu").write_text("cudaFooBar(1);\n")
    proc = cli("--check", src, "-q", check=1)
    assert "warning: 'cudaFooBar'" in proc.stderr and "[MP1002 unknown-cuda-name]" in proc.stderr
    assert "residual CUDA names and headers" in proc.stderr  # the header line says what failed
    assert "is not one of error, warning" in cli(src, "--check=notes", check=2).stderr


# -- version, colour, completion --------------------------------------------------------

def test_version_in_help_and_works_everywhere(csrc):
    assert "--version" in cli("--help", check=0).stdout
    assert re.fullmatch(r"musa-port, version \d+\.\d+\.\d+\n", cli("--version", check=0).stdout)
    assert cli(csrc, "--version", check=0).stdout == cli("--version").stdout


def test_color_and_no_color(csrc):
    assert "\x1b[" in cli(csrc, "-n", "--color", "always", check=0).stdout
    # rich colours a pipe under FORCE_COLOR; NO_COLOR and --color never take every escape
    # code away (bold too), and the flag wins over NO_COLOR.
    assert "\x1b[" in cli(csrc, "-n", env={"FORCE_COLOR": "1"}, check=0).stdout
    assert "\x1b[" not in cli(csrc, "-n", env={"NO_COLOR": "1", "FORCE_COLOR": "1"}, check=0).stdout
    assert "\x1b[" not in cli(csrc, "-n", "--color", "never", env={"FORCE_COLOR": "1"}).stdout
    assert "\x1b[" in cli(csrc, "-n", "--color=always", env={"NO_COLOR": "1"}, check=0).stdout
    assert "--color" in cli("build", "--help", check=0).stdout


def completion(words: str, cword: int) -> list[str]:
    env = {"_MUSA_PORT_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(cword)}
    proc = subprocess.run([sys.executable, "-c", "from musa_porting.cli import main; main()"],
                          capture_output=True, text=True, env={**os.environ, **env})
    return proc.stdout.split()


def test_shell_completion_as_documented():
    assert 'eval "$(_MUSA_PORT_COMPLETE=bash_source musa-port)"' in USAGE
    proc = subprocess.run([sys.executable, "-c", "from musa_porting.cli import main; main()"],
                          capture_output=True, text=True,
                          env={**os.environ, "_MUSA_PORT_COMPLETE": "bash_source"})
    assert "complete -o nosort -F _musa_port_completion musa-port" in proc.stdout
    assert "plain,build" in completion("musa-port bu", 1)
    assert "file,./cs" in completion("musa-port ./cs", 1)  # SRC is a path
    assert "plain,--ignore" in completion("musa-port ./csrc --ig", 2)
    # Before SRC too: the options of a port, not only --version and --help.
    assert {"plain,--output", "plain,--output-format"} <= set(completion("musa-port --out", 1))
    # Finding IDs, names and families after explain and --suppress (the last of a list).
    assert "plain,MP2002" in completion("musa-port explain MP20", 2)
    assert "plain,warp-size-32" in completion("musa-port explain warp-size", 2)
    assert "plain,MP2002,MP1002" in completion("musa-port ./csrc --suppress MP2002,MP100", 3)


# -- rules --families --family ----------------------------------------------------------

def test_rules_families_filter_and_suggestions():
    out = cli("rules", "--families", "--family", "cublas,nccl", check=0).stdout
    assert [line.split()[0] for line in out.splitlines()] == ["cublas", "nccl"]
    data = json.loads(cli("rules", "--families", "--family", "npp", "--format", "json").stdout)
    assert [d["family"] for d in data] == ["npp"]
    err = cli("rules", "--families", "--family", "cubals", check=2).stderr
    assert "unknown rule family 'cubals' (did you mean cublas" in err
    assert "(did you mean nccl" in cli("rules", "--list", "--family", "ncl", check=2).stderr


# -- settings files ---------------------------------------------------------------------

@pytest.fixture
def project(tmp_path) -> Path:
    root = make_tree(tmp_path / "proj", {
        "csrc/src/a.cu": "cudaMalloc(p, 1);\ncudaFooBar();\nunsigned b = __ballot_sync(0xffffffff, p);\n",
        "csrc/mlu/m.cu": "cudaMalloc(p, 1);\n",
        "rules.json": '{"cudaMalloc": "myAlloc"}',
    })
    return root


def test_pyproject_settings_and_flags_win(project):
    (project / "pyproject.toml").write_text(
        '[project]\nname = "p"\n\n[tool.musa-port]\nignore = ["csrc/mlu"]\nrule = ["rules.json"]\n'
        'keep = ["cudaFooBar"]\ncheck-level = "warning"\n')
    out = project / "csrc_musa"
    proc = cli(project / "csrc", "-q", "--check", cwd=project.parent)
    assert proc.returncode == 1 and "MP2002" in proc.stderr and "MP1002" not in proc.stderr
    assert not (out / "mlu").exists() and (out / "src/a.mu").read_text().startswith("myAlloc(p, 1);")
    # Flags win: a later rule file, --check=error over check-level, --suppress added.
    (project / "mine.json").write_text('{"cudaMalloc": "flagAlloc"}')
    cli(project / "csrc", "-q", "--check=error", "--rule", project / "mine.json", check=0)
    assert (out / "src/a.mu").read_text().startswith("flagAlloc(p, 1);")
    cli(project / "csrc", "-q", "--check", "--suppress", "MP2002", check=0)
    # --no-config: none of it.
    proc = cli(project / "csrc", "-q", "--check", "--no-config", check=1)
    assert "MP1002" in proc.stderr and (out / "mlu/m.mu").is_file()


def test_musa_port_toml_families_and_errors(project):
    cfg = project / ".musa-port.toml"
    cfg.write_text('disable-family = "runtime"\n')
    cli(project / "csrc", "-q", "--no-project-symbols", check=0)
    assert (project / "csrc_musa/src/a.mu").read_text().startswith("cudaMalloc(p, 1);")
    cli(project / "csrc", "-q", "--enable-family", "runtime", check=0)  # the flag wins
    assert (project / "csrc_musa/src/a.mu").read_text().startswith("musaMalloc(p, 1);")
    cfg.write_text('ignores = ["mlu"]\n')
    err = cli(project / "csrc", check=2).stderr.strip()
    assert err == (f"error: {cfg}:1: unknown key 'ignores'; did you mean 'ignore'? ('musa-port "
                   "--show-settings' lists the keys)")
    cfg.write_text('rule = [1]\n')
    assert cli(project / "csrc", check=2).stderr.strip() == \
        f"error: {cfg}:1: rule: must be a list of strings"
    cfg.write_text("[broken\n")
    assert cli(project / "csrc", check=2).stderr.startswith(f"error: {cfg}:1:")
    other = project / "other.toml"
    other.write_text('keep = ["cudaFooBar"]\n')
    cli(project / "csrc", "-q", "--config", other, check=0)  # --config: that file instead


# -- pre-commit and CI ------------------------------------------------------------------

def _argv(command: str) -> list[str]:
    argv = shlex.split(command)
    assert argv[0] == "musa-port"
    return [sys.executable, "-m", "musa_porting", *argv[1:]]


def test_pre_commit_hook_runs_a_dry_run_check(project):
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "musa-port" and hook["pass_filenames"] is False
    assert hook["entry"] == "musa-port --check --dry-run" and hook["language"] == "python"
    before = snapshot(project)
    # As pre-commit runs it: the entry, then the args of the user's config.
    proc = subprocess.run([*_argv(hook["entry"]), "./csrc"], cwd=project, capture_output=True,
                          text=True)
    assert proc.returncode == 1 and "MP1002 unknown-cuda-name" in proc.stderr
    assert snapshot(project) == before  # a dry run: nothing written
    (project / "csrc/src/a.cu").write_text("cudaMalloc(p, 1);\n")
    before = snapshot(project)
    proc = subprocess.run([*_argv(hook["entry"]), "./csrc"], cwd=project, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    assert snapshot(project) == before
    assert re.search(r"files: '(.*)'", (ROOT / ".pre-commit-hooks.yaml").read_text())
    assert re.search(hook["files"], "csrc/src/a.cu") and re.search(hook["files"], "CMakeLists.txt")


def test_ci_recipe_writes_sarif_on_the_cuda_lines(project):
    block = next(b for b in re.findall(r"```yaml\n(.*?)```", REPORTS, re.S) if "upload-sarif" in b)
    steps = yaml.safe_load(block)["jobs"]["musa-port"]["steps"]
    [run] = [s["run"] for s in steps if "run" in s and s["run"].startswith("musa-port ")]
    [upload] = [s for s in steps if "upload-sarif" in s.get("uses", "")]
    assert upload["if"] == "always()"  # the upload runs when --check fails the job
    (project / ".git").mkdir()  # the job's checkout: a repository with csrc/ below its root
    proc = subprocess.run(_argv(run), cwd=project, capture_output=True, text=True)
    assert proc.returncode == 1 and not (project / "csrc_musa").exists()
    sarif = json.loads((project / upload["with"]["sarif_file"]).read_text())
    results = sarif["runs"][0]["results"]
    [res] = [r for r in results if r["ruleId"] == "MP1002"]
    loc = res["locations"][0]["physicalLocation"]
    # Relative to the repository's root, where GitHub resolves it.
    assert loc["artifactLocation"] == {"uri": "csrc/src/a.cu", "uriBaseId": "%SRCROOT%"}
    assert loc["region"]["startLine"] == 2
    assert res["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"] == \
        "csrc_musa/src/a.mu"


# -- help -------------------------------------------------------------------------------

def test_help_fits_one_screen_and_lists_every_option():
    proc = cli("--help", env={"COLUMNS": "80"}, check=0)
    lines = proc.stdout.splitlines()
    assert len(lines) <= 45, len(lines)  # what the usage page says
    assert max(len(line) for line in lines) <= 80
    # Each other command's description whole, at any width (click cuts long ones "...").
    for columns in ("80", "120"):
        others = cli("--help", env={"COLUMNS": columns}, check=0).stdout.split("Other commands")[1]
        assert "..." not in others and "build    Compile a ported tree" in others
    assert "Advanced options (--help-all describes them):" in proc.stdout
    full = cli("--help-all", env={"COLUMNS": "80"}, check=0).stdout

    described = set(re.findall(r"^ {2}(?:-\w, )?(--[a-z][\w-]*)", full, re.M))
    shown = set(re.findall(r"(?<![\w-])--[a-z][\w-]*", proc.stdout.split("Other commands (")[0]))
    # Every option of the port command is in both: described, or named under Advanced.
    assert len(described) > 40
    assert described <= shown
    assert "Other commands" in proc.stdout and "_MUSA_PORT_COMPLETE" in proc.stdout


@pytest.mark.parametrize("args", [("rules", "--list"), ("SRC", "--no-default-rules")])
def test_a_closed_pipe_ends_quietly_with_the_code_of_sigpipe(args, csrc):
    """Issue 49.5: `musa-port ... | head` printed "error: Broken pipe" twice and exited 1,
    the code of a failed --check. Now it stops as a command killed by SIGPIPE looks to a
    shell (141), with nothing on stderr."""
    args = [str(csrc) if a == "SRC" else a for a in args]  # a port prints its summary
    proc = subprocess.Popen([sys.executable, "-m", "musa_porting", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.readline()  # what head -1 reads, then it exits
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert err == ""


def test_standard_input_is_ported_with_findings_on_the_given_name(tmp_path):
    """Issue 49.7: for editors and pre-commit-style tools, `musa-port - --stdin-filename
    path/x.cu` prints the port of stdin (as ruff's --stdin-filename), its kind and includes
    taken from the name, and the findings on it."""
    make_tree(tmp_path / "src", {"k.cuh": "#pragma once\n"})
    code = b'#include "k.cuh"\nvoid f(float* p) { cudaMalloc(&p, 4); asm volatile("nop;"); }\n'
    run = subprocess.run([sys.executable, "-m", "musa_porting", "-", "--stdin-filename",
                          "src/x.cu"], input=code, capture_output=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout == (b'#include "k.muh"\nvoid f(float* p) { musaMalloc(&p, 4); '
                          b'asm volatile("nop;"); }\n')
    assert re.search(rb"^src/x\.cu:2:\d+: .*MP2001", run.stderr, re.M), run.stderr
    assert not (tmp_path / "src/x.cu").exists() and not (tmp_path / "-_musa").exists()
    # --check reads the same findings; a Python name gets the Python port.
    py = subprocess.run([sys.executable, "-m", "musa_porting", "-", "--stdin-filename", "t.py",
                         "--check"], input=b"import torch\nx = torch.cuda.is_available()\n",
                        capture_output=True, cwd=tmp_path)
    assert py.stdout.endswith(b"x = torch.musa.is_available()\n"), py.stdout
    wrong = subprocess.run([sys.executable, "-m", "musa_porting", str(tmp_path / "src"),
                            "--stdin-filename", "x.cu"], capture_output=True, text=True)
    assert wrong.returncode == 2 and "--stdin-filename" in wrong.stderr


def test_one_location_style_and_one_line_format_in_every_text_output(tmp_path):
    """Issue 49.4: the summary printed absolute output paths (`/abs/s_musa/a.mu:l:c: warning:
    msg [ID name]`), --check and single-file mode relative source paths in another format
    (`s/a.cu:l:c: ID name (level): msg`). Now one line format, a compiler's, and one
    location: the file the user opens, relative to the working folder (the ported file
    after a port, the CUDA file after a dry run or for one file, as SARIF places them)."""
    make_tree(tmp_path / "s", {"a.cu": "int x;\nunsigned b = __ballot_sync(0xffffffff, p);\n"})
    line = re.compile(r"^(\S+):(\d+):(\d+): (error|warning|note): .+ \[MP2002 warp-size-32\]$", re.M)
    ported = cli("s", "--check=warning", cwd=tmp_path, check=1)
    dry = cli("s", "--dry-run", "--check=warning", "-o", "d", cwd=tmp_path, check=1)
    one = cli("s/a.cu", "--check=warning", cwd=tmp_path, check=1)
    assert {m.group(1) for m in line.finditer(ported.stdout + ported.stderr)} == {"s_musa/a.mu"}
    assert {m.group(1) for m in line.finditer(dry.stdout + dry.stderr)} == {"s/a.cu"}
    assert {m.group(1) for m in line.finditer(one.stderr)} == {"s/a.cu"}
    assert str(tmp_path) not in ported.stdout + ported.stderr  # no absolute paths
    assert {m.group(2) for m in line.finditer(ported.stdout + ported.stderr + dry.stderr)} == {"2"}


def test_a_machine_format_is_the_only_output(tmp_path):
    """Issue 49.4: --output-format json wrote about 100 summary lines to stderr as well. As
    ruff does, a machine format is the whole output: the warnings are in it."""
    make_tree(tmp_path / "s", {"a.cu": "cudaFooBar(1);\n", "b.cu": "#include <nothere.cuh>\n"})
    for fmt in ("json", "sarif"):
        proc = cli("s", "--output-format", fmt, "--check", "--ignore", "nothing", cwd=tmp_path)
        assert proc.returncode == 1 and proc.stderr == "", proc.stderr
        report = json.loads(proc.stdout)
        warnings = report["warnings"] if fmt == "json" else [
            n["message"]["text"] for n in report["runs"][0]["invocations"][0]["toolExecutionNotifications"]]
        assert any("ignore pattern nothing matched nothing" in w for w in warnings)
