"""Issue 45 point 5: in a tree of per-vendor backend folders (nvidia/, ascend/,
cambricon/, metax/) the new folder is named by the vendor (moore/), as porters name
it; among API folders (hip/, sycl/) it stays musa/; --vendor-word wins
(fixtures/naming/vendor_folders, with a near miss)."""

from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES

from musa_porting import PortOptions, port_tree
from musa_porting.tree.vendor_folders import tree_vendor_word
from musa_porting.tree.walk import Entry

CASES = FIXTURES / "naming"


def outputs(src: Path, out: Path, **kw) -> dict[str, str]:
    port_tree(PortOptions(str(src), str(out), jobs=1, **kw))
    return {p.relative_to(out).as_posix(): p.read_text() for p in sorted(out.rglob("*"))
            if p.is_file() and not p.relative_to(out).parts[0].startswith(".musa-port")}


def test_a_folder_among_per_vendor_folders_takes_the_vendor_word(tmp_path):
    out = outputs(CASES / "vendor_folders" / "src", tmp_path / "out")
    assert {p for p in out if "/devices/" in p} == {
        "src/devices/ascend/gemm_ascend.cc", "src/devices/cambricon/gemm_cambricon.cc",
        "src/devices/cpu/gemm_cpu.cc", "src/devices/metax/gemm_metax.cc",
        "src/devices/moore/gemm_moore.mu", "src/devices/moore/moore_handle.muh"}
    assert out["src/devices/moore/gemm_moore.mu"].startswith('#include "moore_handle.muh"\n')


def test_the_vendor_word_option_wins(tmp_path):
    out = outputs(CASES / "vendor_folders" / "src", tmp_path / "out", vendor_word="moore")
    assert "src/devices/moore/gemm_moore.mu" in out
    out = outputs(CASES / "vendor_folders" / "src", tmp_path / "musa", vendor_word="musa")
    assert "src/devices/musa/gemm_musa.mu" in out


def test_among_api_folders_the_folder_is_musa(tmp_path):
    out = outputs(CASES / "vendor_folders_near_miss" / "src", tmp_path / "out")
    assert "backends/musa/copy_musa.mu" in out
    assert "void copy_musa(void* dst, const void* src, size_t n) {" in out["backends/musa/copy_musa.mu"]


def test_the_sibling_count():
    def tree(*dirs):
        return [Entry(d, "dir", 0o755, 0, 0) for d in dirs]

    assert tree_vendor_word(tree("b", "b/_nvidia", "b/_ascend", "b/_iluvatar")) == "moore"
    assert tree_vendor_word(tree("b", "b/nvidia", "b/ascend")) == "musa"  # one other vendor
    assert tree_vendor_word(tree("b", "b/nvidia", "b/amd", "b/intel", "b/hip", "b/sycl")) == "musa"
    assert tree_vendor_word(tree("b", "b/cuda", "b/ascend", "b/metax")) == "musa"  # no NVIDIA folder
