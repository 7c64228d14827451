"""Real call sites of torch_musa's SimplePorting, each a fixture of its shape (see
fixtures/call_sites/README.md), run with only the import changed: the manual's mmcv
section and the README's examples, torchada's BuildExtension (mirror and in place,
on its mixed .cu/.mu tree), vllm_musa's porting script, ktransformers' and LMCache's
setup.py."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, MMCV_LIKE, snapshot

CALL_SITES = FIXTURES / "call_sites"


def copy_site(name: str, tmp_path: Path) -> Path:
    dst = tmp_path / name
    shutil.copytree(CALL_SITES / name, dst, symlinks=True)
    return dst


def run_script(script: str, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, script, *args], cwd=cwd, capture_output=True,
                          text=True, env=os.environ.copy())


# -- torch_musa's manual and README ---------------------------------------------------

@pytest.fixture
def mmcv_project(tmp_path) -> Path:
    """The README/manual scripts beside mmcv/ops/csrc (the mmcv-like tree)."""
    root = copy_site("readme_mmcv", tmp_path)
    shutil.copytree(MMCV_LIKE, root / "mmcv/ops/csrc", symlinks=True)
    return root


def test_manual_mmcv_section(mmcv_project):
    before = snapshot(mmcv_project / "mmcv/ops/csrc")
    proc = run_script("port_manual.py", mmcv_project)
    assert proc.returncode == 0, proc.stderr
    out = mmcv_project / "mmcv/ops/csrc_musa"
    kernels = sorted(p.name for p in (out / "pytorch/cuda").glob("*.mu"))
    assert kernels == ["carafe_cuda.mu", "nms_cuda.mu", "roi_align_cuda.mu"]
    assert not (out / "common/mlu").exists() and not (out / "parrots").exists()
    assert "MMCV_WITH_MUSA" in (out / "pytorch/roi_align.cpp").read_text()
    assert snapshot(mmcv_project / "mmcv/ops/csrc") == before
    assert "musa-port:" in proc.stdout and "ported" in proc.stdout


def test_readme_positional_form_is_an_error_with_the_fix(mmcv_project):
    """SimplePorting("./mmcv/ops/csrc", {"cuda": "musa"}) puts the rules in the ignore
    slot: a clear error, never a silent ignore of every `cuda` folder."""
    proc = run_script("port_positional.py", mmcv_project)
    assert proc.returncode != 0
    last = proc.stderr.strip().splitlines()[-1]
    assert "ignore_dir_paths got a dict" in last and "mapping_rule=" in last
    assert not (mmcv_project / "mmcv/ops/csrc_musa").exists()


def test_json_string_parameters(mmcv_project):
    proc = run_script("port_json_strings.py", mmcv_project)
    assert proc.returncode == 0, proc.stderr
    out = mmcv_project / "mmcv/ops/csrc_musa"
    assert not (out / "common/mlu").exists() and not (out / "pytorch/npu").exists()
    assert (out / "pytorch/mps").exists()
    assert "ROI_ALIGN_MUSA_KERNEL_MUH" in (out / "common/cuda/roi_align_cuda_kernel.muh").read_text()
    assert "MMCV_WITH_MUSA" in (out / "pytorch/roi_align.cpp").read_text()


# -- torchada -----------------------------------------------------------------------

def test_torchada_mirror_build_on_mixed_sources(tmp_path):
    """torchada 0.1.x: patches the module, ports csrc into csrc_musa, compiles from
    there. The hand-written utils.muh and mul_kernel.mu are the MUSA versions: kept,
    and nothing is generated over them from utils.cuh or mul_kernel.cu."""
    root = copy_site("torchada_mixed", tmp_path)
    proc = run_script("build_ext_mirror.py", root)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["csrc_musa/bindings.cpp", "csrc_musa/add_kernel.mu",
                                   "csrc/mul_kernel.mu"]
    assert proc.stderr == ""  # LOGGER.setLevel(logging.ERROR) silences the run
    out = root / "csrc_musa"
    assert sorted(p.name for p in out.iterdir()) == [
        ".musa-port", ".musa-port-manifest.json", "Makefile", "add_kernel.mu", "bindings.cpp",
        "mul_kernel.mu", "utils.muh"]
    src = root / "csrc"
    assert (out / "utils.muh").read_bytes() == (src / "utils.muh").read_bytes()
    assert (out / "mul_kernel.mu").read_bytes() == (src / "mul_kernel.mu").read_bytes()
    add = (out / "add_kernel.mu").read_text()
    assert '#include "utils.muh"' in add and "at::musa::OptionalMUSAGuard" in add
    assert '"torch_musa/csrc/core/MUSAGuard.h"' in add


def test_torchada_in_place_port(tmp_path):
    """torchada 0.1.10x: identity extension map, musa_dir_path = cuda_dir_path, its own
    modify_file (called for every file) and a load_replaced_mapping that edits the
    pairs: the sources are ported in place, names kept, .mu/.muh and Makefile untouched."""
    root = copy_site("torchada_mixed", tmp_path)
    src = root / "csrc"
    before = snapshot(src)
    proc = run_script("build_ext_in_place.py", root)
    assert proc.returncode == 0, proc.stderr
    assert not (root / "csrc_musa").exists()
    after = snapshot(src)
    assert sorted(after) == sorted(before)  # no file added, removed or renamed
    for name in ("utils.muh", "mul_kernel.mu", "Makefile"):
        assert after[name][1] == before[name][1], name
    add = (src / "add_kernel.cu").read_text()
    assert '#include "utils.cuh"' in add
    assert "at::musa::OptionalMUSAGuard" in add and "musaStream_t" in add
    assert "musaError_t" in (src / "utils.cuh").read_text()
    assert not (src / ".Makefile").exists()


# -- vllm_musa ----------------------------------------------------------------------

def test_vllm_musa_script_named_musa_porting(tmp_path):
    """vllm_musa's script is called musa_porting.py: run as it is, Python imports the
    script itself instead of the package (a circular import, before any code of ours).
    Where our code runs in that folder, it says so with the fix; renamed, it ports."""
    root = copy_site("vllm_musa_like", tmp_path)
    proc = run_script("musa_porting.py", root)
    assert proc.returncode != 0 and "circular import" in proc.stderr
    # The console command, run in that folder (a launcher outside it, like the
    # installed musa-port script, which does not put the folder on sys.path).
    launcher = tmp_path / "bin" / "musa-port"
    launcher.parent.mkdir()
    launcher.write_text("import sys\nfrom musa_porting.cli import main\nsys.exit(main())\n")
    proc = subprocess.run([sys.executable, str(launcher), "./csrc", "-q"], cwd=root,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    warning = [line for line in proc.stderr.splitlines() if "shadows" in line]
    assert len(warning) == 1 and "musa_porting.py" in warning[0] and "rename it" in warning[0]
    # The fix: rename the script; it then runs with only the import changed.
    shutil.rmtree(root / "csrc_musa")
    (root / "musa_porting.py").rename(root / "port_to_musa.py")
    proc = run_script("port_to_musa.py", root)
    assert proc.returncode == 0, proc.stderr
    kernel = (root / "csrc_musa/attention/attention_kernels.mu").read_text()
    assert '#include "attention_utils.muh"' in kernel
    assert "at::musa::OptionalMUSAGuard" in kernel and "__mt_bfloat16" in kernel
    assert "kCUDA" not in (root / "csrc_musa/torch_bindings.cpp").read_text()


def test_simple_porting_run_warns_about_a_shadowing_script(tmp_path):
    root = copy_site("vllm_musa_like", tmp_path)
    script = tmp_path / "elsewhere" / "port.py"
    script.parent.mkdir()
    script.write_text("from musa_porting import SimplePorting\nSimplePorting('./csrc').run()\n")
    proc = subprocess.run([sys.executable, str(script)], cwd=root, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "musa_porting.py shadows the musa_porting package" in proc.stderr
    assert "rename it" in proc.stderr


# -- ktransformers and LMCache --------------------------------------------------------

def test_ktransformers_setup(tmp_path):
    root = copy_site("ktransformers_like", tmp_path)
    proc = run_script("setup.py", root)
    assert proc.returncode == 0, proc.stderr
    out = root / "ktransformers/ktransformers_ext/cuda_musa"
    assert proc.stdout.split()[-2:] == [
        "ktransformers/ktransformers_ext/cuda_musa/custom_gguf/dequant.mu",
        "ktransformers/ktransformers_ext/cuda_musa/binding.cpp"]
    dequant = (out / "custom_gguf/dequant.mu").read_text()
    assert "mt_bfloat16*" in dequant and "nv_bfloat16" not in dequant
    assert "at::musa::OptionalMUSAGuard" in dequant and "<musa_bf16.h>" in dequant
    assert (out / "gptq_marlin/gptq_marlin.mu").is_file()


def test_lmcache_setup_with_trailing_slash(tmp_path):
    root = copy_site("lmcache_like", tmp_path)
    proc = run_script("setup.py", root)
    assert proc.returncode == 0, proc.stderr
    assert not (root / "_musa").exists() and not (root / "csrc/_musa").exists()
    out = root / "csrc_musa"
    assert "lmcache.c_ops csrc_musa/pybind.cpp csrc_musa/mem_kernels.mu" in proc.stdout
    mem = (out / "mem_kernels.mu").read_text()
    assert '#include "mem_kernels.muh"' in mem and "at::musa::getCurrentMUSAStream" in mem
    assert "c10::musa::OptionalMUSAGuard" in (out / "cal_cdf.mu").read_text()
    assert (out / "storage_manager/bitmap.cpp").is_file()
