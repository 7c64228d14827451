"""Acceptance 2: the real mmcv 2.2.0 ops tree from PyPI, ported as the brief describes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import MMCV_RULES_JSON, run_cli, snapshot
from sdist import extract_subtree, fetch_sdist

from musa_porting.rules import build_ruleset
from musa_porting.rules.vocabulary import build_vocabulary

pytestmark = pytest.mark.slow

IGNORES = ["common/mlu", "common/mps", "parrots", "pytorch/mlu", "pytorch/mps", "pytorch/npu"]
IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


@pytest.fixture(scope="module")
def mmcv_csrc(tmp_path_factory) -> Path:
    archive = fetch_sdist("mmcv", "2.2.0")
    return extract_subtree(archive, "mmcv-2.2.0/mmcv/ops/csrc", tmp_path_factory.mktemp("mmcv"))


def _under(rel: str, dirs) -> bool:
    return any(rel == d or rel.startswith(d + "/") for d in dirs)


def test_real_mmcv_port(mmcv_csrc):
    src = mmcv_csrc
    all_src = [p for p in src.rglob("*") if p.is_file()]
    assert len(all_src) > 350  # the brief's 403 files
    before = snapshot(src)
    report = src.parent / "report.json"
    proc = run_cli(src, "--ignore", ",".join(IGNORES), "--rule", MMCV_RULES_JSON, "--report-json",
                   report, check=0)
    out = src.parent / "csrc_musa"
    assert snapshot(src) == before

    for d in IGNORES:
        assert (src / d).exists() and not (out / d).exists(), d

    kept = [p.relative_to(src).as_posix() for p in all_src
            if not _under(p.relative_to(src).as_posix(), IGNORES)]
    n_cuda = sum(1 for r in kept if r.endswith((".cu", ".cuh")))
    n_musa = sum(1 for p in out.rglob("*") if p.is_file() and p.suffix in (".mu", ".muh"))
    assert n_cuda > 100 and n_musa == n_cuda
    assert not [p for p in out.rglob("*") if p.suffix in (".cu", ".cuh")]
    r = json.loads(report.read_text())
    # Paths are renamed by default (issue 26): common/cuda and pytorch/cuda, and the files
    # named after CUDA; no output path names CUDA any more.
    output_of = {f["path"]: f["output"] for f in r["files"]}
    assert {"common/cuda": "common/musa", "pytorch/cuda": "pytorch/musa"}.items() <= \
        {x["path"]: x["output"] for x in r["renamed_paths"]}.items()
    assert not [o for o in output_of.values() if "cuda" in o.lower()]

    # Every changed identifier changed through a rule, a project-symbol rename or a word
    # of a message: no Acmumulate-style corruption.
    rules = build_ruleset(rule_files=[MMCV_RULES_JSON]).rewriting()
    value_idents = {i for r in rules.values() for i in IDENT.findall(r.value.encode())}
    value_idents |= {x["new"].encode() for x in r["project_symbols"]["renamed"]}
    # Includes name the renamed files, and arch thresholds take MUSA values (issue 26).
    value_idents |= {i for o in output_of.values() for i in IDENT.findall(o.encode())}
    value_idents |= {w.encode() for w in build_vocabulary().forms().values()}
    subword = {k.encode(): r.value.encode() for k, r in rules.items()
               if not (k[0].isalnum() and k[-1].isalnum())}
    unexplained = []
    for rel in kept:
        a, b = (src / rel).read_bytes(), (out / output_of[rel]).read_bytes()
        a_lines, b_lines = a.split(b"\n"), b.split(b"\n")
        assert len(a_lines) == len(b_lines), f"{rel}: line count changed"
        for la, lb in zip(a_lines, b_lines):
            if la == lb:
                continue
            old_ids = set(IDENT.findall(la))
            derived = {i.replace(k, v) for i in old_ids for k, v in subword.items() if k in i}
            for ident in set(IDENT.findall(lb)) - old_ids:
                if ident not in value_idents and ident not in derived and \
                        not ident.endswith((b"_muh", b"_mu")) and ident != b"muh":
                    unexplained.append((rel, ident.decode()))
    assert unexplained == []

    # mmcv's own names (CUDA_1D_KERNEL_LOOP & co., 133 MP1002 findings before) are
    # renamed; what is left is named outside the tree (an nvcc macro) or is a file name.
    left = sorted({d["text"] for d in r["diagnostics"] if d["id"] == "MP1002"})
    assert len([d for d in r["diagnostics"] if d["id"] == "MP1002"]) <= 15, left
    assert "CUDA_1D_KERNEL_LOOP" not in left
    assert "MUSA_1D_KERNEL_LOOP" in (out / "common/musa/common_musa_helper.hpp").read_text()

    # Specific shapes of the brief.
    helper = (out / "common/pytorch_musa_helper.hpp").read_text()
    assert "torch_musa/csrc/aten/musa/MUSAContext.h" in helper
    text = "\n".join(p.read_text(errors="replace") for p in out.rglob("*")
                     if p.is_file() and p.suffix in (".mu", ".muh"))
    assert "Acmumulate" not in text and "AT_DISPATCH_FLOATING_TYPES_AND_HALF" not in text
    assert proc.stdout.strip()

    # A second run rewrites nothing and keeps every mtime.
    first = snapshot(out)
    again = run_cli(src, "--ignore", ",".join(IGNORES), "--rule", MMCV_RULES_JSON, "-q", check=0)
    assert snapshot(out) == first
    assert " 0 written" in again.stdout


def test_real_mmcv_report_counts_match_tree(mmcv_csrc, tmp_path):
    """SimplePorting on the real tree: counts agree with what is on disk."""
    from musa_porting import SimplePorting

    rules = json.loads(MMCV_RULES_JSON.read_text())
    r = SimplePorting(str(mmcv_csrc), ignore_dir_paths=[str(mmcv_csrc / d) for d in IGNORES],
                      mapping_rule=rules, output_dir_path=str(tmp_path / "out"), quiet=True).run()
    on_disk = [p for p in (tmp_path / "out").rglob("*")
               if (p.is_file() or p.is_symlink())
               and not p.relative_to(tmp_path / "out").as_posix().startswith(".musa-port")]
    assert r.ported + r.copied + r.symlinks == len(on_disk)
    assert r.replacements > 1000
    assert set(r.ignored) == set(IGNORES)


def test_real_mmcv_is_the_same_with_the_pure_python_matcher(mmcv_csrc, tmp_path):
    """The compiled matcher (ahocorasick_rs) and the pure-Python fallback port the real
    tree to the same bytes, rules, project symbols and messages included."""
    import os
    import subprocess
    import sys

    trees = []
    for pure in ("0", "1"):
        out = tmp_path / f"out{pure}"
        subprocess.run([sys.executable, "-m", "musa_porting", str(mmcv_csrc), "-o", str(out), "-q",
                        "--ignore", ",".join(IGNORES), "--rule", str(MMCV_RULES_JSON)],
                       check=True, capture_output=True, env=dict(os.environ, MUSA_PORT_PURE_PYTHON=pure))
        trees.append({p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*"))
                      if p.is_file() and not p.relative_to(out).as_posix().startswith(".musa-port")})
    assert trees[0] == trees[1]


# mmcv's own macros and files built from CUDA words; the project-symbols work renames them.
MMCV_OWN_NAMES = {"CUDA_1D_KERNEL_LOOP", "CUDA_2D_KERNEL_LOOP", "CUDA_2D_KERNEL_BLOCK_LOOP",
                  "CUDA_INTRINSIC_FUNC", "cudawarpfunction"}


def test_real_mmcv_leaves_no_torch_or_cuda_api_unported(mmcv_csrc, tmp_path):
    """With the manual's rules, what MP1002 still names is mmcv's own (no CUDA 11/12
    name, nvcc macro or PyTorch C++ name), and torch's headers port to torch_musa's."""
    out, report = tmp_path / "out", tmp_path / "r.json"
    run_cli(mmcv_csrc, "-o", out, "--ignore", ",".join(IGNORES), "--rule", MMCV_RULES_JSON,
            "--report-json", report, "-q", check=0)
    left = {d["text"] for d in json.loads(report.read_text())["diagnostics"] if d["id"] == "MP1002"}
    assert left <= MMCV_OWN_NAMES
    helper = (out / "common/pytorch_musa_helper.hpp").read_text()  # paths renamed (issue 26)
    assert "#include <ATen/musa/MUSAApplyUtils.muh>" in helper
    assert '#include <torch_musa/csrc/aten/musa/MUSADeviceUtils.muh>' in (
        out / "common/musa/carafe_musa_kernel.muh").read_text()
    spconv = (out / "common/utils/spconv/tensorview/helper_launch.h").read_text()
    assert "MUSA_NUM_THREADS" in spconv  # torch's CUDA_NUM_THREADS, which mmcv redefines


def test_real_mmcv_reports_the_manuals_shared_memory_case(mmcv_csrc, tmp_path):
    """The torch_musa manual's mcc error on upfirdn2d_kernel.mu for an MTT S3000
    (``shared memory (42984) exceeds limit (28672)``) is pointed at before any compile,
    with the bytes and the limit of --arch mp_21, on the line that declares the tile."""
    report = tmp_path / "r.json"
    run_cli(mmcv_csrc, "-o", tmp_path / "out", "--ignore", ",".join(IGNORES), "--rule",
            MMCV_RULES_JSON, "--arch", "mp_21", "--report-json", report, "-q", check=0)
    shared = [d for d in json.loads(report.read_text())["diagnostics"]
              if d["id"] == "MP2005" and d["file"] == "pytorch/musa/upfirdn2d_kernel.mu"]
    assert len(shared) == 1
    d = shared[0]
    source = (mmcv_csrc / "pytorch/cuda/upfirdn2d_kernel.cu").read_text().splitlines()
    assert "__shared__ volatile scalar_t sx[tileInH][tileInW][loopMinor];" in source[d["line"] - 1]
    assert "42,888 bytes" in d["message"] and "28,672 bytes" in d["message"]
    assert "mp_21 (MTT S80/S3000)" in d["message"] and "upfirdn2d_kernel_small" in d["message"]
