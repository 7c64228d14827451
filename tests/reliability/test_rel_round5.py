"""Round 5 of the hostile tester (issue 47): a port that could hang, and what OUT's own
folder and the project around a backend folder may hold. Each test failed before its
fix."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from conftest import make_tree
from relhelp import descendants, kill_all, start, state, temps
from round4 import run_main

HAS_GIT = shutil.which("git") is not None


def git(cwd, *args) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c",
                    "init.defaultBranch=master", *args], cwd=cwd, check=True, capture_output=True)


def finished(proc: subprocess.Popen, timeout: float = 60) -> str:
    """The run's stderr once it ended; a run still going after ``timeout`` seconds
    hangs: it is killed, with its workers, and the test fails."""
    try:
        return proc.communicate(timeout=timeout)[1].decode(errors="replace")
    except subprocess.TimeoutExpired:
        kill_all(descendants(proc.pid) | {proc.pid})
        proc.wait()
        pytest.fail(f"the run hangs: {proc.args}")


# -- item 1: a worker slow to start -------------------------------------------------------


def test_a_worker_slow_to_start_does_not_hang_the_run(tmp_path):
    """Enough sources for both pools of a run (the symbol index's, workers 1 and 2, and
    the planning's, 3 and 4). ``late``: a worker that the pool's end finds not yet past
    its fork, and which loses the SIGTERM ``Pool.terminate`` sends it (the race seen
    under load): it then waits for ever on the lock terminate holds, and the run with
    it. ``stuck``: a worker that never ends: the run must not wait for it without
    bound either."""
    fault = "worker:2=late,worker:4=stuck"
    src = make_tree(tmp_path / "s", {f"k{i}.cu": f"cudaStream_t s{i};\nvoid f{i}();\n"
                                     for i in range(80)})
    proc = start(src, "-q", "-j", "2", env={"MUSA_PORT_FAULTS": fault})
    err = finished(proc)
    assert proc.returncode == 0, err
    out = tmp_path / "s_musa"
    assert sorted(p.name for p in out.glob("*.mu")) == sorted(f"k{i}.mu" for i in range(80))
    assert "cudaStream_t" not in (out / "k79.mu").read_text()
    assert temps(out) == []


# -- item 3: a clone's .git, and OUT's own -------------------------------------------------

@pytest.mark.skipif(not HAS_GIT, reason="no git")
def test_a_git_folder_in_src_is_never_ported_and_outs_is_never_touched(tmp_path):
    """SRC is a clone (with a submodule's ``.git`` file); the porter makes OUT a
    repository of its own and commits; upstream moves on; the re-port touches nothing
    of OUT/.git. A manifest of a musa-port that copied ``.git`` (its records as such a
    run wrote them) gets no file under it removed or rewritten either."""
    src = make_tree(tmp_path / "s", {"k.cu": "cudaStream_t s;\n", "sub/m.cu": "cudaEvent_t e;\n",
                                     "sub/.git": "gitdir: ../.git/modules/sub\n"})
    git(src, "init", "-q")
    git(src, "add", "k.cu", "sub/m.cu")
    git(src, "commit", "-qm", "v1")
    out = tmp_path / "out"
    assert run_main([src, "-o", out, "-q"]).code == 0
    assert not (out / ".git").exists() and not (out / "sub/.git").exists()
    assert (out / "k.mu").read_text() == "musaStream_t s;\n"

    git(out, "init", "-q")
    git(out, "add", "-A")
    git(out, "commit", "-qm", "the port")
    (src / "k.cu").write_text("cudaStream_t s;\ncudaEvent_t e2;\n")
    git(src, "commit", "-qam", "v2")
    before = state(out / ".git", with_mtime=True)
    run = run_main([src, "-o", out, "-q"])
    assert run.code == 0, run.err
    assert state(out / ".git", with_mtime=True) == before
    assert (out / "k.mu").read_text() == "musaStream_t s;\nmusaEvent_t e2;\n"

    manifest = out / ".musa-port-manifest.json"
    data = json.loads(manifest.read_text())
    model = data["files"]["k.mu"]
    for rel in (".git/HEAD", ".git/index", "sub/.git"):
        target = out / rel
        if not target.exists():
            target.write_text("gitdir: x\n")
        st = os.lstat(target)
        data["files"][rel] = {**model, "src": rel, "kind": "copied", "base": "",
                              "out_size": st.st_size, "out_mtime_ns": st.st_mtime_ns}
    data["dirs"] += [".git", ".git/refs"]
    manifest.write_text(json.dumps(data))
    before = state(out / ".git", with_mtime=True)
    run = run_main([src, "-o", out, "-q"])
    assert run.code == 0, run.err
    assert state(out / ".git", with_mtime=True) == before
    assert (out / "sub/.git").read_text() == "gitdir: x\n"
    assert ".git/HEAD" in run.err  # the entries ignored are named
    git(out, "status")  # still a repository


# -- item 6: a source folder renamed onto musa-port's own --------------------------------------

@pytest.mark.parametrize("folder", [".cuda-port", ".cuda-port-build"])
def test_no_input_lands_on_a_reserved_name(tmp_path, folder):
    """A source folder whose vocabulary renaming is musa-port's state folder (or build
    folder): ported under its own name, with a finding naming it (MP0003), and nothing of it in
    musa-port's folder; a re-run with nothing changed writes nothing and renames
    nothing (its conventions.json is not read as musa-port's)."""
    src = make_tree(tmp_path / "s", {
        "k.cu": "cudaStream_t s;\n",
        f"{folder}/a.cu": "cudaEvent_t e;\n",
        f"{folder}/conventions.json": json.dumps({"rules": {"musaStream_t": "hijacked_t"},
                                                  "rename_paths": False, "renames": {}}),
    })
    out = tmp_path / "s_musa"
    run = run_main([src])
    assert run.code == 0, run.err
    assert (out / folder / "a.mu").read_text() == "musaEvent_t e;\n"
    assert (out / folder / "conventions.json").is_file()
    reserved = folder.replace("cuda", "musa")
    said = (run.out.decode() + run.err).splitlines()
    assert [ln for ln in said if folder in ln and reserved in ln and "warning" in ln
            and "MP0003" in ln]
    assert not (out / reserved / "a.mu").exists()
    assert not (out / reserved / "conventions.json").exists()
    before = state(out, with_mtime=True)
    again = run_main([src, "-q"])
    assert again.code == 0, again.err
    assert state(out, with_mtime=True) == before
    assert (out / "k.mu").read_text() == "musaStream_t s;\n"


# -- item 8: a FIFO in place of a base pack ---------------------------------------------------

def test_a_fifo_in_place_of_a_base_pack_does_not_hang_the_re_port(tmp_path):
    """A hand-edited output whose source changed needs its base, read from its pack;
    the pack is now a FIFO: never opened. The re-port ends, writes the new port, and
    keeps the user's file, saying there was nothing to merge with."""
    src = make_tree(tmp_path / "s", {"k.cu": "cudaStream_t s;\nint a;\n"})
    out = tmp_path / "s_musa"
    assert run_main([src, "-q"]).code == 0
    (out / "k.mu").write_text("musaStream_t s; // hand fix\nint a;\n")
    (src / "k.cu").write_text("cudaStream_t s;\nint a;\nint b;\n")
    packs = list((out / ".musa-port/base").iterdir())
    assert packs
    for pack in packs:
        pack.unlink()
        os.mkfifo(pack)
    proc = start(src, "-q")
    err = finished(proc)
    assert proc.returncode == 0, err
    assert (out / "k.mu").read_text() == "musaStream_t s;\nint a;\nint b;\n"
    assert "k.mu" in err and "kept" in err
    kept = list((out / ".musa-port/kept").rglob("k.mu"))
    assert [k.read_text() for k in kept] == ["musaStream_t s; // hand fix\nint a;\n"]


def test_a_link_in_musa_ports_folder_is_not_read_through(tmp_path):
    """OUT/.musa-port/vocabulary.json (what --base-from learned) as a link to a file
    outside OUT: not read, as no input is read through a link."""
    src = make_tree(tmp_path / "s", {"launch_cuda.cu": "cudaStream_t s;\n"})
    out = make_tree(tmp_path / "s_musa", {".musa-port/conventions.json":
                                          json.dumps({"vocabulary": {"CUDA": "ZZ"}})})
    (tmp_path / "elsewhere.json").write_text(json.dumps({"CUDA": "ZZ"}))
    os.symlink(tmp_path / "elsewhere.json", out / ".musa-port/vocabulary.json")
    run = run_main([src, "-q", "--force"])
    assert run.code == 0, run.err
    assert sorted(p.name for p in out.glob("*.mu")) == ["launch_musa.mu"]


# -- item 9: backend-folder mode's look at the project around it ------------------------------

def test_the_scan_of_the_project_around_a_backend_folder_opens_regular_files_only(tmp_path):
    """``musa-port proj/backends/cuda -o proj/backends/musa`` reads the project's shared
    files for lines that name the CUDA backend. A FIFO named like a header must not
    hang it (after the commit), and a header that is a link out of the project must
    not be read; a regular file of the project is (the near miss)."""
    outside = make_tree(tmp_path / "outside", {"secret.h": '#include "backends/cuda/k.h"\n'})
    proj = make_tree(tmp_path / "proj", {
        "CMakeLists.txt": "add_subdirectory(backends/cuda)\n",
        "backends/cuda/k.cu": "cudaStream_t s;\n",
    })
    os.mkfifo(proj / "registry.h")
    os.symlink(outside / "secret.h", proj / "linked.h")
    report = tmp_path / "r.json"
    proc = start(proj / "backends/cuda", "-o", proj / "backends/musa", "-q", "--report-json", report)
    err = finished(proc)
    assert proc.returncode == 0, err
    files = {m["file"] for m in json.loads(report.read_text())["shared_files"]["mentions"]}
    assert files == {"CMakeLists.txt"}


# -- item 13: SARIF URIs ------------------------------------------------------------------------

def test_sarif_uris_are_percent_encoded(tmp_path):
    """``a b#1%41.cu`` read as a URI is ``a b`` with a fragment, or decodes to
    ``a b#1A.cu``; a name that is not UTF-8 became a lone surrogate in the JSON. Each
    URI is RFC 3986's: every byte but the unreserved ones and ``/`` percent-encoded,
    and it decodes to the file's own name."""
    from urllib.parse import unquote_to_bytes

    names = [b"a b#1%41.cu", b"sub dir/k\xff.cu", b"plain.cu"]
    src = tmp_path / "s"
    for name in names:
        path = os.path.join(os.fsencode(src), name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(b"void f() { cudaFooBarBaz(q); }\n")
    sarif = tmp_path / "r.sarif"
    run = run_main([src, "-q", "--sarif", sarif])
    assert run.code == 0, run.err
    raw = sarif.read_bytes()
    assert b"\\ud" not in raw.lower()  # no lone surrogate escaped into the JSON
    results = json.loads(raw)["runs"][0]["results"]
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"]
            for r in results for loc in r["locations"] + r["relatedLocations"]}
    assert uris and all(set(u) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                      "0123456789-._~/%") for u in uris), uris
    decoded = {unquote_to_bytes(u) for u in uris}
    assert {n for n in names} <= decoded  # the CUDA files, by their own names
    assert b"a b#1%41.mu" in decoded
