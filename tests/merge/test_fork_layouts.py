"""Adopting a fork whatever its naming (issue 48 points 1-3): ``cp -a OLD_PORT OUT &&
musa-port NEW_SRC --output OUT --base-from OLD_SRC`` finds the fork's file for each
upstream file (by path pattern, then by content), merges the new release into it with
the porter's hand edits, puts the new release's new files where the fork keeps its
port, lists what it could not upgrade, and stops before writing when it cannot tell
which of two files is the fork's.

Three layouts, each a small tree of our own: a ``*_musa`` sibling folder beside the
CUDA one (torch_musa's SimplePorting), a vendor folder with the vendor word in its
file names beside the NVIDIA backend (``nvidia/x_nvidia.cu`` -> ``moore/x_moore.mu``),
and files the fork moved (one renamed too)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import make_tree

from musa_porting import PortOptions, port_tree
from musa_porting.cli.app import cli
from musa_porting.errors import PortError

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="the merge needs git")

COMMON = "#pragma once\n#define ALIGN 16\n"
HAND = "p[3] = 3; /* fixed on MUSA by hand */ }"


def kernel(name: str, extra: str = "") -> str:
    lines = [f"// {name}: part of the upstream project", "#include <cuda_runtime.h>",
             '#include "common.h"']
    lines += [f"__global__ void {name}_k{i}(float* p) {{ p[{i}] = {i}; }}" for i in range(8)]
    lines += [f"void {name}_run(cudaStream_t s) {{ cudaStreamSynchronize(s); }}", extra]
    return "\n".join(lines) + "\n"


def forked(text: str, hand: bool = False) -> str:
    """The fork's port of ``text`` (the runtime's names ported), with the porter's hand
    fix when ``hand``."""
    out = text.replace("cuda_runtime.h", "musa_runtime.h").replace("cudaStream", "musaStream")
    return out.replace("p[3] = 3; }", HAND) if hand else out


def adopt(tmp_path: Path, old: dict, new: dict, fork: dict, **kw):
    """The user's run: the fork copied to OUT, the new release ported into it with
    --base-from the old one. Returns OUT and the result."""
    old_src = make_tree(tmp_path / "old", old)
    new_src = make_tree(tmp_path / "new", new)
    port = make_tree(tmp_path / "old_port", fork)
    out = tmp_path / "out"
    shutil.copytree(port, out, symlinks=True)
    r = port_tree(PortOptions(src=str(new_src), output=str(out), base_from=str(old_src),
                              jobs=1, **kw))
    return out, r


def files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and ".musa-port" not in p.parts and p.name != ".musa-port-manifest.json"}


def written_beside(out: Path, port: dict, allowed: set[str]) -> list[str]:
    """OUT's files that are neither the fork's nor in ``allowed``."""
    return sorted(set(files(out)) - set(port) - allowed)


# -- a *_musa sibling folder (torch_musa's SimplePorting) ---------------------------------

SUFFIX_OLD = {"setup.py": "ext = 'csrc'\n", "csrc/ops.cu": kernel("ops"), "csrc/act.cu": kernel("act"),
              "csrc/common.h": COMMON}
SUFFIX_NEW = {**SUFFIX_OLD, "csrc/ops.cu": kernel("ops", "int ops_v2() { return 2; }"),
              "csrc/added.cu": kernel("added")}
SUFFIX_FORK = {"setup.py": "ext = 'csrc_musa'  # built from the port\n",
               **{k: v for k, v in SUFFIX_OLD.items() if k.startswith("csrc/")},
               "csrc_musa/ops.mu": forked(kernel("ops"), hand=True),
               "csrc_musa/act.mu": forked(kernel("act")),
               "csrc_musa/common.h": COMMON}


def test_a_musa_sibling_folder_is_upgraded_where_it_is(tmp_path):
    out, r = adopt(tmp_path, SUFFIX_OLD, SUFFIX_NEW, SUFFIX_FORK)
    ops = (out / "csrc_musa/ops.mu").read_text()
    assert "fixed on MUSA by hand" in ops and "int ops_v2() { return 2; }" in ops  # edit + upstream
    assert "<<<<<<<" not in ops and "musaStreamSynchronize" in ops
    assert "musaStreamSynchronize" in (out / "csrc_musa/added.mu").read_text()  # new: where the fork is
    assert (out / "setup.py").read_text() == SUFFIX_FORK["setup.py"]
    # Nothing of the new release beside the fork: csrc/ holds the fork's CUDA copies as they were.
    assert written_beside(out, SUFFIX_FORK, {"csrc_musa/added.mu"}) == []
    assert {k: v for k, v in files(out).items() if k.startswith("csrc/")} == \
        {k: v.encode() for k, v in SUFFIX_FORK.items() if k.startswith("csrc/")}
    assert r.merged == ["csrc_musa/ops.mu"] and not r.conflicted
    # The fork's copy of the old ops.cu is behind the new release, and said to be.
    assert list(r.not_upgraded) == ["csrc/ops.cu"]
    note = r.warnings[0]
    assert "cudaStream" not in note and "left out" not in note, note  # learned from the port, not the copies


def test_the_fork_s_layout_holds_for_the_runs_after(tmp_path):
    out, _ = adopt(tmp_path, SUFFIX_OLD, SUFFIX_NEW, SUFFIX_FORK)
    newer = make_tree(tmp_path / "newer", {**SUFFIX_NEW, "csrc/later/more.cu": kernel("more")})
    r = port_tree(PortOptions(src=str(newer), output=str(out), jobs=1))  # no --base-from
    assert (out / "csrc_musa/later/more.mu").is_file() and not (out / "csrc/later").exists()
    assert "fixed on MUSA by hand" in (out / "csrc_musa/ops.mu").read_text()
    assert not r.conflicted and list(r.not_upgraded) == ["csrc/ops.cu"]


def test_not_upgraded_files_fail_check_conflicts_until_updated(tmp_path):
    old_src = make_tree(tmp_path / "old", SUFFIX_OLD)
    new_src = make_tree(tmp_path / "new", SUFFIX_NEW)
    out = make_tree(tmp_path / "out", SUFFIX_FORK)
    report = tmp_path / "report.json"
    res = CliRunner().invoke(cli, [str(new_src), "-o", str(out), "--base-from", str(old_src),
                                   "--check", "conflicts", "--report-json", str(report)])
    assert res.exit_code == 1, res.output
    assert "not upgraded" in res.output and "csrc/ops.cu" in res.output
    run = json.loads(report.read_text())["run"]
    assert [x["path"] for x in run["not_upgraded"]] == ["csrc/ops.cu"] and run["conflicts"] == []
    # The porter brings the fork's copy up to the new release: nothing is behind.
    shutil.copy(new_src / "csrc/ops.cu", out / "csrc/ops.cu")
    res = CliRunner().invoke(cli, [str(new_src), "-o", str(out), "--check", "conflicts", "-q"])
    assert res.exit_code == 0, res.output


# -- a vendor folder and the vendor word in file names ----------------------------------

VENDOR_OLD = {"ops/add/nvidia/add_nvidia.cu": kernel("add"), "ops/add/nvidia/add_nvidia.cuh": COMMON,
              "ops/mul/nvidia/mul_nvidia.cu": kernel("mul"), "ops/mul/nvidia/mul_nvidia.cuh": COMMON,
              "ops/add/operator.cc": '#include "nvidia/add_nvidia.cuh"\nint add();\n', "common.h": COMMON}
VENDOR_NEW = {**VENDOR_OLD, "ops/add/nvidia/add_nvidia.cu": kernel("add", "int add_v2() { return 2; }"),
              "ops/sub/nvidia/sub_nvidia.cu": kernel("sub"), "ops/sub/nvidia/sub_nvidia.cuh": COMMON}
VENDOR_FORK = {**VENDOR_OLD,  # the NVIDIA backend stays beside the fork's
               "ops/add/operator.cc": ('#include "nvidia/add_nvidia.cuh"\n#include "moore/add_moore.h"\n'
                                       "int add();\n"),
               "ops/add/moore/add_moore.mu": forked(kernel("add"), hand=True),
               "ops/add/moore/add_moore.h": COMMON,
               "ops/mul/moore/mul_moore.mu": forked(kernel("mul")), "ops/mul/moore/mul_moore.h": COMMON}


def test_a_vendor_folder_and_vendor_word_are_upgraded_where_they_are(tmp_path):
    out, r = adopt(tmp_path, VENDOR_OLD, VENDOR_NEW, VENDOR_FORK)
    add = (out / "ops/add/moore/add_moore.mu").read_text()
    assert "fixed on MUSA by hand" in add and "int add_v2() { return 2; }" in add
    # The new operator gets the fork's naming: folder, word in the name, extensions.
    sub = (out / "ops/sub/moore/sub_moore.mu").read_text()
    assert "musaStreamSynchronize" in sub
    assert (out / "ops/sub/moore/sub_moore.h").read_text() == COMMON
    assert written_beside(out, VENDOR_FORK, {"ops/sub/moore/sub_moore.mu", "ops/sub/moore/sub_moore.h"}) == []
    assert (out / "ops/add/nvidia/add_nvidia.cu").read_text() == kernel("add")  # the NVIDIA backend
    assert "moore/add_moore.h" in (out / "ops/add/operator.cc").read_text()
    assert r.merged == ["ops/add/moore/add_moore.mu"] and not r.conflicted
    assert list(r.not_upgraded) == ["ops/add/nvidia/add_nvidia.cu"]


# -- files the fork moved ---------------------------------------------------------------

MOVED_OLD = {"csrc/a/ops.cu": kernel("ops"), "csrc/a/act.cu": kernel("act"), "csrc/a/gelu.cu": kernel("gelu"),
             "csrc/b/norm.cu": kernel("norm"), "csrc/common.h": COMMON}
MOVED_NEW = {**MOVED_OLD, "csrc/a/ops.cu": kernel("ops", "int ops_v2() { return 2; }"),
             "csrc/b/norm.cu": kernel("norm", "int norm_v2() { return 2; }"),
             "csrc/a/added.cu": kernel("added")}
MOVED_FORK = {"csrc/kernels/ops.mu": forked(kernel("ops"), hand=True), "csrc/a/act.mu": forked(kernel("act")),
              "csrc/a/gelu.mu": forked(kernel("gelu")),
              "csrc/kernels/layer_norm_impl.mu": forked(kernel("norm"), hand=True),  # moved and renamed
              "csrc/common.h": COMMON}


def test_files_the_fork_moved_are_upgraded_where_it_moved_them(tmp_path):
    out, r = adopt(tmp_path, MOVED_OLD, MOVED_NEW, MOVED_FORK)
    for rel, new in (("csrc/kernels/ops.mu", "ops_v2"), ("csrc/kernels/layer_norm_impl.mu", "norm_v2")):
        text = (out / rel).read_text()
        assert "fixed on MUSA by hand" in text and f"int {new}() {{ return 2; }}" in text, rel
    assert (out / "csrc/a/added.mu").is_file()  # beside the files the fork left in csrc/a
    assert written_beside(out, MOVED_FORK, {"csrc/a/added.mu"}) == []
    assert sorted(r.merged) == ["csrc/kernels/layer_norm_impl.mu", "csrc/kernels/ops.mu"]
    assert not r.conflicted and not r.not_upgraded
    assert "left out" not in r.warnings[0]


# -- near misses: two candidates tie, and the run stops before writing --------------------

def test_two_ports_of_one_file_as_close_stop_the_run_naming_both(tmp_path):
    old = {"csrc/x.cu": kernel("x")}
    fork = {"csrc_musa/x.mu": forked(kernel("x")), "csrc_mt/x.mu": forked(kernel("x"))}
    with pytest.raises(PortError) as err:
        adopt(tmp_path, old, {"csrc/x.cu": kernel("x", "int v2;")}, fork)
    assert "csrc_musa/x.mu" in str(err.value) and "csrc_mt/x.mu" in str(err.value)
    assert files(tmp_path / "out") == files(tmp_path / "old_port")
    assert not (tmp_path / "out/.musa-port").exists()


def test_a_folder_ported_into_two_places_stops_a_new_file_naming_both(tmp_path):
    old = {"csrc/a.cu": kernel("a"), "csrc/b.cu": kernel("b")}
    fork = {"csrc_musa/a.mu": forked(kernel("a")), "csrc_mt/b.mu": forked(kernel("b"))}
    with pytest.raises(PortError) as err:
        adopt(tmp_path, old, {**old, "csrc/c.cu": kernel("c")}, fork)
    msg = str(err.value)
    assert "csrc/c.cu" in msg and "csrc_musa" in msg and "csrc_mt" in msg
    assert files(tmp_path / "out") == files(tmp_path / "old_port")


def test_a_header_the_fork_left_beside_the_cuda_files_does_not_pull_new_files_there(tmp_path):
    """csrc/util.h has nothing to port: the fork kept it in csrc/ (its includes find it
    there); its ported kernels are in csrc_musa/, and so is the new release's."""
    old = {"csrc/ops.cu": kernel("ops"), "csrc/util.h": COMMON}
    fork = {**old, "csrc_musa/ops.mu": forked(kernel("ops"))}
    out, r = adopt(tmp_path, old, {**old, "csrc/new.cu": kernel("new")}, fork)
    assert (out / "csrc_musa/new.mu").is_file()
    assert written_beside(out, fork, {"csrc_musa/new.mu"}) == []


def test_a_cuda_copy_the_fork_did_not_port_is_not_taken_for_its_port(tmp_path):
    """csrc_musa/ has no port of skip.cu (the porter left it out); the fork's csrc/skip.cu
    is the CUDA file as the old release had it: not its port, never written, and listed
    as not upgraded once skip.cu changes."""
    old = {"csrc/ops.cu": kernel("ops"), "csrc/skip.cu": kernel("skip")}
    fork = {**old, "csrc_musa/ops.mu": forked(kernel("ops"))}
    new = {**old, "csrc/skip.cu": kernel("skip", "int skip_v2;")}
    out, r = adopt(tmp_path, old, new, fork)
    assert files(out) == {k: v.encode() for k, v in fork.items()}
    assert list(r.not_upgraded) == ["csrc/skip.cu"] and not r.merged
    assert "1 file the fork left out" in r.warnings[0]


def test_a_cuda_file_the_fork_left_in_its_vendor_folder_is_not_merged(tmp_path):
    """ops/div/ has no moore/ port (the porter left div out): its nvidia/ file, the CUDA
    file as it was and the only file of its name, is not the port of itself. Merging
    the new port into it wrote conflict markers into the NVIDIA backend."""
    old = {f"ops/{op}/nvidia/{op}_nvidia.cu": kernel(op) for op in ("add", "mul", "div")}
    fork = {**old, "ops/add/moore/add_moore.mu": forked(kernel("add"), hand=True),
            "ops/mul/moore/mul_moore.mu": forked(kernel("mul"))}
    new = {**old, "ops/div/nvidia/div_nvidia.cu": kernel("div", "int div_v2;"),
           "ops/add/nvidia/add_nvidia.cu": kernel("add", "int add_v2;")}
    out, r = adopt(tmp_path, old, new, fork)
    assert (out / "ops/div/nvidia/div_nvidia.cu").read_text() == kernel("div")
    assert "int add_v2;" in (out / "ops/add/moore/add_moore.mu").read_text()
    assert r.merged == ["ops/add/moore/add_moore.mu"] and not r.conflicted
    assert sorted(r.not_upgraded) == ["ops/add/nvidia/add_nvidia.cu", "ops/div/nvidia/div_nvidia.cu"]
    assert "1 file the fork left out" in r.warnings[0]


def test_a_port_too_unlike_its_upstream_file_is_listed_not_upgraded(tmp_path):
    """The fork moved norm.cu and rewrote most of it: too unlike the port to merge
    (under half its lines in common), too like it to be a file the fork left out. It is
    kept as it is and listed as not upgraded: the new release's change never reaches it,
    and the run says so."""
    rewritten = forked(kernel("norm"))
    for i in range(1, 8):
        rewritten = rewritten.replace(f"p[{i}] = {i}; }}", f"p[{i}] = musa_fast({i}); }}")
    fork = {**MOVED_FORK, "csrc/kernels/layer_norm_impl.mu": rewritten}
    out, r = adopt(tmp_path, MOVED_OLD, MOVED_NEW, fork)
    assert (out / "csrc/kernels/layer_norm_impl.mu").read_text() == rewritten
    assert written_beside(out, fork, {"csrc/a/added.mu"}) == []
    assert "csrc/kernels/layer_norm_impl.mu" not in r.merged
    assert list(r.not_upgraded) == ["csrc/kernels/layer_norm_impl.mu"]
    assert "too unlike" in r.not_upgraded["csrc/kernels/layer_norm_impl.mu"]
    assert "1 whose port in the fork is unsure" in r.warnings[0] and "left out" not in r.warnings[0]


def guarded(op: str, vendor: str = "NVIDIA") -> str:
    return (f"#ifndef {op.upper()}_{vendor}_H\n#define {op.upper()}_{vendor}_H\n#include \"../operator.h\"\n"
            f"struct {op}_Descriptor {{ int n; }};\n#endif\n")


def test_an_operator_the_fork_did_not_port_is_left_out_not_paired_with_another_s_copy(tmp_path):
    """The fork ported add, mul and gemm into moore/, not div. The CUDA headers of the
    others are copies of their own upstream files, not ports of div's header, however
    many lines they share with it (the guard lines, the include): the run neither stops
    on them nor pairs them; div is left out, and its NVIDIA files stay as they were."""
    ops = ("add", "mul", "gemm", "div")
    old = {**{f"ops/{op}/nvidia/{op}_nvidia.cu": kernel(op) for op in ops},
           **{f"ops/{op}/nvidia/{op}_nvidia.cuh": guarded(op) for op in ops}}
    fork = {**old,
            **{f"ops/{op}/moore/{op}_moore.mu": forked(kernel(op), hand=op == "add") for op in ops[:3]},
            **{f"ops/{op}/moore/{op}_moore.h": guarded(op, "MOORE") for op in ops[:3]}}
    new = {**old, "ops/add/nvidia/add_nvidia.cu": kernel("add", "int add_v2;"),
           "ops/div/nvidia/div_nvidia.cuh": guarded("div") + "// v2\n"}
    out, r = adopt(tmp_path, old, new, fork)
    add = (out / "ops/add/moore/add_moore.mu").read_text()
    assert "fixed on MUSA by hand" in add and "int add_v2;" in add
    assert {k: v for k, v in files(out).items() if "/nvidia/" in k} == \
        {k: v.encode() for k, v in old.items()}
    assert written_beside(out, fork, set()) == [] and not r.conflicted
    assert sorted(r.not_upgraded) == ["ops/add/nvidia/add_nvidia.cu", "ops/div/nvidia/div_nvidia.cuh"]
    assert "2 files the fork left out" in r.warnings[0]


@pytest.mark.parametrize("ported", [("add", "mul"), ("add",)])
def test_the_vendor_word_the_fork_puts_in_names_is_the_new_release_s_too(tmp_path, ported):
    """The fork renamed ADD_NVIDIA_H to ADD_MOORE_H and MUL_NVIDIA_H to MUL_MOORE_H: the
    new operator's header is guarded by SUB_MOORE_H. Near miss: one name is no
    convention (the fork's one rename is kept, the new header gets musa-port's name)."""
    old = {**{f"ops/{op}/nvidia/{op}_nvidia.cu": kernel(op) for op in ported},
           **{f"ops/{op}/nvidia/{op}_nvidia.cuh": guarded(op) for op in ported}}
    fork = {**{f"ops/{op}/moore/{op}_moore.mu": forked(kernel(op)) for op in ported},
            **{f"ops/{op}/moore/{op}_moore.h": guarded(op, "MOORE") for op in ported}}
    new = {**old, "ops/sub/nvidia/sub_nvidia.cu": kernel("sub"),
           "ops/sub/nvidia/sub_nvidia.cuh": guarded("sub"),
           "ops/add/nvidia/add_nvidia.cuh": guarded("add") + "// v2\n"}
    out, r = adopt(tmp_path, old, new, fork)
    assert (out / "ops/add/moore/add_moore.h").read_text() == guarded("add", "MOORE") + "// v2\n"
    guard = (out / "ops/sub/moore/sub_moore.h").read_text().split()[1]
    assert guard == ("SUB_MOORE_H" if len(ported) == 2 else "SUB_MUSA_H")
    assert ("NVIDIA -> MOORE" in r.warnings[0]) == (len(ported) == 2)


def test_a_shared_cuda_header_is_never_paired_with_another_operator_s(tmp_path):
    """Each operator has a cuda/kernel.cuh its backends share, and the fork's moore/
    includes it as it is. add's and sub's are alike (one name apart): sub's is the copy
    of sub's upstream file, never the port of add's, and the new release's add never
    reaches it. add's own copy is listed as not upgraded."""
    def shared(op: str) -> str:
        return kernel("shared").replace("shared_run", f"{op}_run")
    ops = ("add", "sub", "mul")
    old = {**{f"ops/{op}/cuda/kernel.cuh": shared(op) for op in ops},
           **{f"ops/{op}/nvidia/{op}_nvidia.cu": kernel(op) for op in ops}}
    fork = {**old, **{f"ops/{op}/moore/{op}_moore.mu": forked(kernel(op), hand=op == "add") for op in ops}}
    new = {**old, "ops/add/cuda/kernel.cuh": shared("add") + "int add_v2;\n"}
    out, r = adopt(tmp_path, old, new, fork)
    assert files(out) == {k: v.encode() for k, v in fork.items()}
    assert not r.merged and not r.conflicted
    assert list(r.not_upgraded) == ["ops/add/cuda/kernel.cuh"]


def test_two_files_too_unlike_to_merge_do_not_stop_the_run(tmp_path):
    """Two of the fork's files each share under half their lines with the port of
    norm.cu, as much as each other: neither would be merged, so the run does not stop
    on them (as it does for two files close enough to merge, above); norm.cu is unsure,
    listed as not upgraded, and the rest of the fork is upgraded."""
    rewritten = forked(kernel("norm"))
    for i in range(1, 8):
        rewritten = rewritten.replace(f"p[{i}] = {i}; }}", f"p[{i}] = musa_fast({i}); }}")
    fork = {**{k: v for k, v in MOVED_FORK.items() if k != "csrc/kernels/layer_norm_impl.mu"},
            "csrc/kernels/norm_fast.mu": rewritten, "csrc/kernels/norm_tuned.mu": rewritten}
    out, r = adopt(tmp_path, MOVED_OLD, MOVED_NEW, fork)
    assert "int ops_v2() { return 2; }" in (out / "csrc/kernels/ops.mu").read_text()
    assert (out / "csrc/kernels/norm_fast.mu").read_text() == rewritten
    assert (out / "csrc/kernels/norm_tuned.mu").read_text() == rewritten
    assert list(r.not_upgraded) == ["csrc/kernels/norm_fast.mu"]
    assert "too unlike" in r.not_upgraded["csrc/kernels/norm_fast.mu"]
