"""Issue 7: `musa-port verify` compiles a port with nvcc through the MUSA-to-CUDA shim."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, run_cli
from cuda_headers import library_include_dirs

CUDA_APP = FIXTURES / "cuda_app"

needs_nvcc = pytest.mark.usefixtures("nvcc")


@pytest.fixture(scope="module")
def lib_includes() -> list[str]:
    return [str(p) for p in library_include_dirs()]


@pytest.fixture(scope="module")
def ported_app(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("app")
    shutil.copytree(CUDA_APP, root / "app")
    run_cli(root / "app", "-q", check=0)
    return root / "app_musa"


def _verify(out: Path, lib_includes, *extra, report=None):
    args = ["verify", out, *[a for d in lib_includes for a in ("-I", d)], *extra]
    if report is not None:
        args += ["--report-json", report]
    return run_cli(*args)


@needs_nvcc
def test_ported_app_passes_verify(ported_app, lib_includes, tmp_path):
    report = tmp_path / "v.json"
    proc = _verify(ported_app, lib_includes, report=report)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(report.read_text())
    assert data["ok"] and data["profile"] == "nvcc"
    compiled = {f["file"] for f in data["files"]}
    assert compiled == {"src/saxpy.mu", "src/gemm.mu", "src/rng.mu", "src/main.cpp"}
    assert all(f["status"] == "ok" for f in data["files"])
    shim = Path(data["build_dir"]) / "shim"
    assert (shim / "musa_runtime.h").is_file() and (shim / "mublas.h").is_file()


@needs_nvcc
@pytest.mark.parametrize("sabotage, line_of, message", [
    # A corrupted identifier: what a naive `cu -> mu` does to `Accumulate`.
    ("corrupt", "Acmumulate", "Acmumulate"),
    # A CUDA name left behind: poisoned by the shim.
    ("leftover", "cudaFree(", 'poisoned "cudaFree"'),
    # An include that did not follow the .cuh -> .muh rename.
    ("include", '#include "../include/common.cuh"', "common.cuh"),
])
def test_sabotage_is_caught_at_its_file_and_line(ported_app, lib_includes, tmp_path, sabotage,
                                                  line_of, message):
    out = tmp_path / "app_musa"
    shutil.copytree(ported_app, out)
    if sabotage == "corrupt":
        target = out / "src/main.cpp"
        text = target.read_text()
        assert "Accumulate(y.data()" in text  # a call: the corrupted name is undeclared
        target.write_text(text.replace("Accumulate(y.data()", "Acmumulate(y.data()", 1))
    elif sabotage == "leftover":
        target = out / "src/saxpy.mu"
        text = target.read_text()
        assert "musaFree(" in text
        target.write_text(text.replace("musaFree(", "cudaFree(", 1))
    else:
        target = out / "src/gemm.mu"
        text = target.read_text()
        assert '#include "../include/common.muh"' in text
        target.write_text(text.replace('"../include/common.muh"', '"../include/common.cuh"'))
    want_line = next(i for i, ln in enumerate(target.read_text().splitlines(), 1) if line_of in ln)
    report = tmp_path / "v.json"
    proc = _verify(out, lib_includes, report=report)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    data = json.loads(report.read_text())
    rel = target.relative_to(out).as_posix()
    [failed] = [f for f in data["files"] if f["status"] == "failed"]
    assert failed["file"] == rel
    errors = [d for d in failed["diagnostics"] if d["severity"] in ("error", "fatal error")]
    assert any(message in d["message"] and d["line"] == want_line
               and Path(d["file"]).resolve() == target.resolve() for d in errors), errors
    assert f"{target}:{want_line}" in proc.stdout


def test_missing_nvcc_is_one_clear_error(ported_app, tmp_path):
    proc = run_cli("verify", ported_app, "--nvcc", tmp_path / "no-nvcc")
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("error: --nvcc") and "Traceback" not in proc.stderr


def test_verify_needs_a_ported_tree(tmp_path):
    proc = run_cli("verify", tmp_path)
    assert proc.returncode == 2 and "not a musa-port output" in proc.stderr


@needs_nvcc
@pytest.mark.parametrize("folder", ["plain", "with space, comma", "v(1)&more"])
def test_ptx_mode_reverifies_only_what_a_touched_header_reaches(ported_app, lib_includes, tmp_path,
                                                                 folder):
    out = tmp_path / folder / "app_musa"
    shutil.copytree(ported_app, out)
    report = tmp_path / "v.json"

    def objects() -> dict[str, int]:
        data = json.loads(report.read_text())
        assert data["ok"], data
        return {f["file"]: Path(f["object"]).stat().st_mtime_ns for f in data["files"]}

    assert _verify(out, lib_includes, "--mode", "ptx", report=report).returncode == 0
    first = objects()
    again = _verify(out, lib_includes, "--mode", "ptx", report=report)
    assert again.returncode == 0 and "up to date" in again.stdout
    assert objects() == first

    time.sleep(0.01)
    (out / "include" / "common.muh").touch()
    assert _verify(out, lib_includes, "--mode", "ptx", report=report).returncode == 0
    third = objects()
    assert sorted(f for f in third if third[f] != first[f]) == ["src/gemm.mu", "src/saxpy.mu"]


def test_shim_aliases_namespaces_but_not_qualified_constants(tmp_path):
    """at::cuda -> at::musa is a namespace alias; at::kCUDA -> at::kMUSA is a constant,
    mapped back by its unqualified rule (a namespace alias for it did not compile)."""
    from musa_porting.compile import shim
    from musa_porting.rules import build_ruleset

    shim.generate(build_ruleset(), tmp_path)
    names = (tmp_path / shim.NAMES).read_text()
    assert "namespace musa = cuda;" in names and "#define kMUSA kCUDA" in names
    assert "namespace kMUSA" not in names
    # .is_cuda() -> .is_musa(): the method is mapped back, once (also for ->is_musa()).
    assert names.count("#define is_musa is_cuda\n") == 1


@needs_nvcc
def test_a_macro_the_project_defines_itself_is_left_to_it(tmp_path):
    """mmcv defines its own CUDA_KERNEL_LOOP (a name torch has too) under #ifndef; the
    port renames both to MUSA_KERNEL_LOOP, and the shim must not pre-empt the
    project's definition with a mapping to CUDA's."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "loop.cuh").write_text(
        "#ifndef CUDA_KERNEL_LOOP\n#define CUDA_KERNEL_LOOP(i, n) \\\n"
        "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x)\n#endif\n")
    (src / "k.cu").write_text('#include "loop.cuh"\n__global__ void k(float *x, int n) {\n'
                              "  CUDA_KERNEL_LOOP(i, n) { x[i] = 0; }\n}\n")
    run_cli(src, "-q", check=0)
    assert "MUSA_KERNEL_LOOP(i, n)" in (tmp_path / "src_musa/k.mu").read_text()
    proc = _verify(tmp_path / "src_musa", [], "--mode", "ptx")
    assert proc.returncode == 0, proc.stdout + proc.stderr
