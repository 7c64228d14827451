"""Issue 44: `musa-port verify` checks a PyTorch extension as it comes.

The fixture (fixtures/torch_ext) is a small extension as such packages are laid out: a
setup.py whose CUDAExtension defines WITH_CUDA, a host .cpp with the binding
(torch/extension.h, a WITH_CUDA gate) and a .cu kernel (ATen/cuda/CUDAContext.h,
c10/cuda/CUDAGuard.h, AT_DISPATCH on half). Ported whole, it must verify with no flag of
its own: torch's folders and CUDAExtension's flags come from the torch found, the
WITH_MUSA of the ported build from the port, the .cpp goes to the host compiler. The
only -I given are this machine's: its CUDA toolkit lacks the cuBLAS, cuSPARSE and
cuSOLVER headers that ATen/cuda includes (tests/cuda_headers.py).

One compile of each kind against torch's headers (~20-40 s of CPU each); the near misses
fail at their first include, in a second or two.
"""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest
from conftest import FIXTURES, run_cli
from cuda_headers import library_include_dirs

TORCH_EXT = FIXTURES / "torch_ext"
LIBRARIES = ("nvidia-cublas", "nvidia-cusparse", "nvidia-cusolver")

needs_nvcc = pytest.mark.usefixtures("nvcc")


@pytest.fixture(scope="module")
def ported(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("ext")
    shutil.copytree(TORCH_EXT, root / "torch_ext")
    run_cli(root / "torch_ext", "-q", check=0)
    return root / "torch_ext_musa"


def _machine_includes() -> list[str]:
    return [a for d in library_include_dirs(LIBRARIES) for a in ("-I", str(d))]


def _report(out: Path, tmp_path: Path, *args) -> tuple[object, dict]:
    report = tmp_path / "v.json"
    proc = run_cli("verify", out, "--report-json", report, *args)
    return proc, json.loads(report.read_text()) if report.is_file() else {}


@needs_nvcc
@pytest.mark.usefixtures("torch_installed")
def test_ported_extension_verifies_against_torch_with_no_flag_of_its_own(ported, tmp_path):
    proc, data = _report(ported, tmp_path, "--mode", "ptx", *_machine_includes())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    by_file = {f["file"]: f for f in data["files"]}
    assert set(by_file) == {"csrc/scale.cpp", "csrc/musa/scale_musa.mu"}
    assert all(f["status"] == "ok" for f in by_file.values())
    host, device = by_file["csrc/scale.cpp"]["command"], by_file["csrc/musa/scale_musa.mu"]["command"]
    # The host file is the host compiler's, the kernel nvcc's.
    assert host.startswith("c++ -c ") and "nvcc" in device.split()[0]
    # What torch's CUDAExtension passes, from torch itself; the ported build's macro.
    for flag in ("-D__CUDA_NO_HALF_OPERATORS__", "--expt-relaxed-constexpr"):
        assert flag in device.split() and flag not in host.split()
    for cmd in (host, device):
        words = cmd.split()
        assert "-DTORCH_API_INCLUDE_EXTENSION_H" in words and "-DWITH_MUSA" in words
        assert any(w.startswith("-DTORCH_EXTENSION_NAME=") for w in words)
        assert any(w.endswith("/torch/include") and w.startswith("-I") for w in words)
        assert "-std=c++20" in words  # torch 2.13's extensions are C++20
    assert any("torch 2.13.0" in n for n in data["notes"]), data["notes"]
    assert "torch 2.13.0" in proc.stdout


def _first_errors(data: dict) -> dict[str, dict]:
    return {f["file"]: f["first_error"] for f in data["files"] if f["status"] == "failed"}


@needs_nvcc
def test_a_header_not_on_the_path_is_the_first_error_and_said_plainly(ported, tmp_path):
    """The near miss: torch left out (--no-torch), torch's headers are really missing.
    The first error of each file is that header, at the line that includes it, not
    the hundreds of errors a silently skipped include brought before (GCC < 14 skips
    an #include that a __has_include of the prelude did not find)."""
    proc, data = _report(ported, tmp_path, "--no-torch", "--mode", "ptx")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    first = _first_errors(data)
    assert set(first) == {"csrc/scale.cpp", "csrc/musa/scale_musa.mu"}
    host = first["csrc/scale.cpp"]
    assert host["message"] == "torch/extension.h: No such file or directory"
    assert Path(host["file"]).name == "scale.cpp" and host["line"] == 2
    assert host["hint_id"] == "MP3005" and "--no-torch" in host["hint"]
    # The kernel's first include is a torch_musa header the shim maps back to ATen's.
    device = first["csrc/musa/scale_musa.mu"]
    assert device["message"].startswith("ATen/cuda/CUDAContext.h: No such file")
    assert "torch_musa/csrc/aten/musa/MUSAContext.h stands for it" in device["hint"]
    assert all(f["errors"] == 1 for f in data["files"])
    # The summary says it before anything else about the file.
    lines = [ln for ln in proc.stdout.splitlines() if "scale.cpp:2" in ln]
    assert lines and "torch/extension.h" in lines[0]


@needs_nvcc
def test_the_settings_file_switches_torch_off(tmp_path):
    """`[tool.musa-port.verify]` holds verify's options as keys, in the settings file
    the port read (found from its SRC): torch = false is --no-torch (the torch headers
    are then missing: the near miss above)."""
    proj = tmp_path / "proj"
    shutil.copytree(TORCH_EXT, proj / "torch_ext")
    (proj / "pyproject.toml").write_text(
        "[project]\nname = 'x'\n\n[tool.musa-port]\njobs = 1\n\n[tool.musa-port.verify]\n"
        "torch = false\nmode = 'ptx'\nonly = ['*.cpp']\n")
    run_cli(proj / "torch_ext", "-q", check=0)
    out = proj / "torch_ext_musa"
    proc, data = _report(out, tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert [f["file"] for f in data["files"]] == ["csrc/scale.cpp"]
    assert _first_errors(data)["csrc/scale.cpp"]["message"].startswith("torch/extension.h")
    (proj / "pyproject.toml").write_text("[tool.musa-port.verify]\ntorch = false\nignore = ['x']\n")
    proc = run_cli("verify", out)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "pyproject.toml:3: unknown key 'ignore'" in proc.stderr, proc.stderr


def test_torch_required_but_not_found_is_one_line(ported, tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'no python here' >&2\nexit 3\n")
    fake.chmod(0o755)
    proc = run_cli("verify", ported, "--torch", "--torch-python", fake)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith("error: --torch: no torch") and "no python here" in line


@pytest.mark.usefixtures("torch_installed")
def test_torch_is_asked_for_its_own_folders_and_flags():
    """As torch.utils.cpp_extension gives them (include_paths(), COMMON_NVCC_FLAGS),
    from the Python that runs musa-port."""
    import importlib.util
    import sysconfig

    from musa_porting.compile.torch_env import find_torch

    env, looked = find_torch("on")
    root = Path(importlib.util.find_spec("torch").origin).parent / "include"
    assert env is not None and not looked
    assert env.include_dirs == [str(root), str(root / "torch/csrc/api/include"),
                                sysconfig.get_paths()["include"]]
    assert env.nvcc_flags[:4] == ["-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__",
                                  "-D__CUDA_NO_BFLOAT16_CONVERSIONS__",
                                  "-D__CUDA_NO_HALF2_OPERATORS__"]
    assert env.std == "c++20" and env.version.startswith("2.13.0")


@needs_nvcc
def test_a_host_file_is_compiled_by_the_host_compiler(tmp_path):
    """A CPU file that g++ compiles cleanly must not be checked as CUDA (nvcc -x cu
    defines __CUDACC__ and __NVCC__, and torch's headers take their CUDA side then)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "host.cpp").write_text(textwrap.dedent("""\
        #include <cuda_runtime.h>
        #if defined(__CUDACC__) || defined(__NVCC__)
        #error host code compiled as CUDA
        #endif
        int device_count() { int n = 0; cudaGetDeviceCount(&n); return n; }
        """))
    (src / "k.cu").write_text("__global__ void k(float *x) { x[threadIdx.x] = 0; }\n")
    run_cli(src, "-q", check=0)
    proc, data = _report(tmp_path / "src_musa", tmp_path, "--mode", "ptx")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    commands = {f["file"]: f["command"].split()[0] for f in data["files"]}
    assert commands["host.cpp"] == "c++" and commands["k.mu"].endswith("nvcc")


@needs_nvcc
def test_fail_fast_stops_at_the_first_failure(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for name in ("a.cu", "b.cu"):
        (src / name).write_text("__global__ void k() { not_declared(); }\n")
    run_cli(src, "-q", check=0)
    proc, data = _report(tmp_path / "src_musa", tmp_path, "--mode", "ptx", "-j", "1",
                         "--fail-fast")
    assert proc.returncode == 1
    assert sorted(f["status"] for f in data["files"]) == ["failed", "not built"]
    proc, data = _report(tmp_path / "src_musa", tmp_path, "--mode", "ptx", "-j", "1")
    assert [f["status"] for f in data["files"]] == ["failed", "failed"]
    help_text = run_cli("verify", "--help").stdout
    assert "--keep-going / --fail-fast" in help_text and "stop at the first failure)" not in help_text
