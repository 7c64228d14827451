"""Acceptance 1: the brief's mmcv scenario on the mmcv-like fixture tree, through the
CLI and through SimplePorting."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from conftest import MMCV_IGNORES, MMCV_RULES_JSON, MMCV_RULES_YAML, make_tree, run_cli, snapshot

from musa_porting import SimplePorting

IGNORED_DIRS = ["common/mlu", "common/mps", "parrots", "pytorch/mlu", "pytorch/mps", "pytorch/npu"]
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def _port_cli(src: Path, rules: Path | None) -> Path:
    # The manual's layout, as SimplePorting keeps it (the CLI renames paths by default:
    # test_the_cli_renames_mmcvs_cuda_folders_by_default).
    args = [src, "--ignore", ",".join(MMCV_IGNORES), "--keep-paths"]
    if rules is not None:
        args += ["--rule", rules]
    run_cli(*args, check=0)
    return src.parent / (src.name + "_musa")


def _port_simple(src: Path, rules: Path | None) -> Path:
    import json

    import yaml

    mapping = None
    if rules is not None:
        text = rules.read_text()
        mapping = yaml.safe_load(text) if rules.suffix == ".yaml" else json.loads(text)
    # torch_musa users pass ignore paths as paths from the working directory. extended=True:
    # the tree's own names too, as the CLI does (torch_musa's tree, SimplePorting's default,
    # is tests/simple_porting/test_torch_musa_compat.py's); the manual's layout kept.
    SimplePorting(cuda_dir_path=str(src), ignore_dir_paths=[str(src / p) for p in MMCV_IGNORES],
                  mapping_rule=mapping, quiet=True, extended=True, rename_paths=False).run()
    return src.parent / (src.name + "_musa")


def _files(root: Path) -> dict[str, Path]:
    """The tree's files; not musa-port's own folder in an output (the bases it keeps)."""
    return {p.relative_to(root).as_posix(): p for p in root.rglob("*")
            if (p.is_file() or p.is_symlink())
            and not p.relative_to(root).as_posix().startswith(".musa-port/")}


@pytest.mark.parametrize("how", [_port_cli, _port_simple], ids=["cli", "simple_porting"])
@pytest.mark.parametrize("rules", [MMCV_RULES_JSON, MMCV_RULES_YAML], ids=["json", "yaml"])
def test_mmcv_scenario(mmcv_tree, how, rules):
    before = snapshot(mmcv_tree)
    out = how(mmcv_tree, rules)
    assert snapshot(mmcv_tree) == before, "the input tree was modified"
    src_files, out_files = _files(mmcv_tree), _files(out)

    for d in IGNORED_DIRS:
        assert not (out / d).exists(), f"ignored {d} is in the output"

    # Every .cu/.cuh renamed (outside ignored dirs), nothing else renamed.
    kept = {r for r in src_files if not any(r.startswith(d + "/") for d in IGNORED_DIRS)}
    expected = {re.sub(r"\.cu(h?)$", r".mu\1", r) for r in kept}
    assert set(out_files) - {".musa-port-manifest.json"} == expected

    # Includes of renamed tree headers follow; out-of-tree includes per the rules.
    for rel, p in out_files.items():
        if p.is_symlink() or rel.endswith(".bin") or "." not in rel:
            continue
        text = p.read_bytes().decode("utf-8", "replace")
        for inc in INCLUDE_RE.findall(text):
            if inc.endswith((".cuh", ".cu")) and not inc.startswith("cub/"):  # CUB keeps its names
                pytest.fail(f"{rel} still includes {inc}")
    roi = (out / "pytorch/cuda/roi_align_cuda.mu").read_text()
    assert '#include "roi_align_cuda_kernel.muh"' in roi

    carafe = (out / "common/cuda/carafe_cuda_kernel.muh").read_text()
    for word in ("Accumulate", "accumulate_sum", "CURRENT_STATE", "CURRENT", "cuda_cub"):
        assert re.search(rf"\b{word}\b", carafe), word
    assert "Acmumulate" not in carafe and "MURRENT" not in carafe
    # The tree's own guard macro: its CUDA word renamed (project symbols) and the
    # user's sub-word rule _CUH -> _MUH applied on top.
    assert "#define CARAFE_MUSA_KERNEL_MUH" in carafe
    assert "cuda_cub" in (out / "pytorch/cuda/carafe_cuda.mu").read_text()

    helper = (out / "common/pytorch_cuda_helper.hpp").read_text()
    assert '#include "torch_musa/csrc/aten/musa/MUSAContext.h"' in helper
    assert '#include "torch_musa/csrc/core/MUSAGuard.h"' in helper
    assert "at::musa::getCurrentMUSAStream" in helper

    bind = (out / "pytorch/cuda/cudabind.cpp").read_text()
    assert ", CUDA," not in bind and bind.count(", PrivateUse1,") == 3
    assert "MMCV_WITH_MUSA" in (out / "pytorch/roi_align.cpp").read_text()
    assert ".is_privateuseone()" in (out / "pytorch/nms.cpp").read_text()
    assert "SHARED_MUSA_HELPER_MU_H_" in (out / "common/cuda/shared_cuda_helper.muh").read_text()
    # mmcv's own macro, defined in one file and used in others, renamed consistently.
    common = (out / "common/cuda/common_cuda_helper.hpp").read_text()
    assert "#define MUSA_1D_KERNEL_LOOP" in common and "CUDA_1D_KERNEL_LOOP" not in common
    assert "MUSA_1D_KERNEL_LOOP(" in (out / "common/cuda/roi_align_cuda_kernel.muh").read_text()

    # The PyTorch C++ API as current torch_musa names it (issue 13).
    nms = (out / "pytorch/cuda/nms_cuda.mu").read_text()
    assert '#include <torch_musa/csrc/core/MUSACachingAllocator.h>' in nms  # the include's <>
    assert "c10::musa::MUSACachingAllocator::raw_alloc" in nms and "at::kMUSA" in nms

    # Byte-for-byte copies and byte-exact rewrites.
    assert (out / "common/lut.bin").read_bytes() == (mmcv_tree / "common/lut.bin").read_bytes()
    # The Makefile is ported (issue 15): the toolchain's names, nvcc's flags, the .cu
    # patterns and the user rule's macro; its comments are not touched.
    makefile = (mmcv_tree / "Makefile").read_text()
    for old, new in [("CUDA_HOME ?= /usr/local/cuda", "MUSA_HOME ?= /usr/local/musa"),
                     ("$(CUDA_HOME)/bin/nvcc", "$(MUSA_HOME)/bin/mcc"),
                     ("-I$(CUDA_HOME)/include", "-I$(MUSA_HOME)/include"),
                     ("-DMMCV_WITH_CUDA", "-DMMCV_WITH_MUSA"),
                     ("-D__CUDA_NO_HALF_OPERATORS__", "-D__MUSA_NO_HALF_OPERATORS__"),
                     ("-arch=sm_80 -Xcompiler -fPIC", "--offload-arch=mp_22 -fPIC"),
                     ("pytorch/cuda/*.cu)", "pytorch/cuda/*.mu)"), ("$(CU_SRCS:.cu=.o)",
                     "$(CU_SRCS:.mu=.o)"), ("%.o: %.cu", "%.o: %.mu"),
                     ("-L$(CUDA_HOME)/lib64 -lcudart", "-L$(MUSA_HOME)/lib -lmusart")]:
        assert makefile.count(old) == 1, old
        makefile = makefile.replace(old, new)
    assert (out / "Makefile").read_text() == makefile
    assert makefile.startswith("# Builds the fixture ops as a PyTorch extension with nvcc (")
    crlf = (out / "pytorch/cuda/nms_cuda.mu").read_bytes()
    assert crlf.count(b"\r\n") == crlf.count(b"\n") > 0
    cpu = (out / "pytorch/cpu/roi_align.cpp").read_bytes()
    assert cpu.startswith(b"\xef\xbb\xbf") and b"caf\xe9" in cpu

    # The symlink stays a link, renamed with its target.
    link = out / "common/cuda/roi_align_kernel.muh"
    assert link.is_symlink() and os.readlink(link) == "roi_align_cuda_kernel.muh"
    assert link.resolve() == (out / "common/cuda/roi_align_cuda_kernel.muh").resolve()


@pytest.mark.parametrize("how", [_port_cli, _port_simple], ids=["cli", "simple_porting"])
def test_includes_follow_renames_without_the_cuh_rule(mmcv_tree, tmp_path, how):
    import json

    rules = json.loads(MMCV_RULES_JSON.read_text())
    del rules[".cuh"]
    path = tmp_path / "rules_without_cuh.json"
    path.write_text(json.dumps(rules))
    out = how(mmcv_tree, path)
    roi = (out / "pytorch/cuda/roi_align_cuda.mu").read_text()
    assert '#include "roi_align_cuda_kernel.muh"' in roi
    # The sources (.mu/.muh), not musa-port's manifest, which records what each includes.
    shared_users = [p for p in out.rglob("*.mu*") if p.suffix in (".mu", ".muh")
                    and p.is_file() and not p.is_symlink()
                    and '"shared_cuda_helper.muh"' in p.read_text(errors="replace")]
    assert len(shared_users) == 2
    carafe = (out / "common/cuda/carafe_cuda_kernel.muh").read_text()
    assert "#include <cub/cub.cuh>" in carafe  # outside the tree: kept


def test_cuh_rule_leaves_cubs_headers_and_warns_on_other_out_of_tree_includes(mmcv_tree, tmp_path):
    """Issue 49.6: the quick start's rule file (the manual's ``.cuh -> .muh``) turned
    ``<cub/cub.cuh>`` into ``<cub/cub.muh>``, and its first line was a warning caused by
    the example. CUB, Thrust and libcu++ keep their header names on MUSA (muAlg, muThrust):
    a sub-word rule leaves their includes; another header outside the tree still warns."""
    proc = run_cli(mmcv_tree, "--ignore", ",".join(MMCV_IGNORES), "--rule", MMCV_RULES_JSON,
                   check=0)
    out = mmcv_tree.parent / (mmcv_tree.name + "_musa")
    assert "#include <cub/cub.cuh>" in (out / "common/musa/carafe_musa_kernel.muh").read_text()
    assert "cub/cub" not in proc.stderr and "rewrote the include" not in proc.stderr
    src = make_tree(tmp_path / "t", {
        "k.cu": '#include <cub/block/block_reduce.cuh>\n#include <thrust/system/cuda/x.cuh>\n'
                '#include "vendor/helper.cuh"\n#include <cuda/std/atomic>\n'})
    proc = run_cli(src, "--rule", MMCV_RULES_JSON, check=0)
    ported = (tmp_path / "t_musa/k.mu").read_text()
    assert ported.startswith('#include <cub/block/block_reduce.cuh>\n#include <thrust/system/cuda/x.cuh>\n'
                             '#include "vendor/helper.muh"\n')
    assert re.search(r"k\.cu:3: warning: user rule '\.cuh' rewrote the include of "
                     r"'vendor/helper\.cuh'", proc.stderr), proc.stderr
    # A rule for the whole include is the user's choice, and it wins.
    whole = tmp_path / "whole.json"
    whole.write_text('{"#include <cub/block/block_reduce.cuh>": "#include <mu/block_reduce.muh>"}')
    run_cli(src, "--rule", whole, "-o", tmp_path / "w", check=0)
    assert (tmp_path / "w/k.mu").read_text().startswith("#include <mu/block_reduce.muh>\n")


def test_the_cli_renames_mmcvs_cuda_folders_by_default(mmcv_tree):
    """As porters lay out a port (issue 26): pytorch/cuda and common/cuda become musa/,
    the files named after CUDA follow, and so do includes, the symlink and the Makefile."""
    proc = run_cli(mmcv_tree, "--ignore", ",".join(MMCV_IGNORES), "--rule", MMCV_RULES_JSON,
                   check=0)
    out = mmcv_tree.parent / (mmcv_tree.name + "_musa")
    files = set(_files(out))
    assert {"pytorch/musa/roi_align_musa.mu", "pytorch/musa/musabind.cpp",
            "common/musa/roi_align_musa_kernel.muh", "common/pytorch_musa_helper.hpp",
            "common/musa/common_musa_helper.hpp", "pytorch/roi_align.cpp"} <= files
    assert not [f for f in files if "cuda" in f.lower()]
    roi = (out / "pytorch/musa/roi_align_musa.mu").read_text()
    assert '#include "roi_align_musa_kernel.muh"' in roi and '#include "pytorch_musa_helper.hpp"' in roi
    link = out / "common/musa/roi_align_kernel.muh"
    assert os.readlink(link) == "roi_align_musa_kernel.muh" and link.resolve().is_file()
    assert "$(wildcard pytorch/musa/*.mu)" in (out / "Makefile").read_text()
    assert "paths renamed: 2 folders (common/cuda -> common/musa, pytorch/cuda -> pytorch/musa)" \
        in proc.stdout
