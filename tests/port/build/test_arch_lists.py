"""Arch lists in build files and sources (issue 26, point 7): TORCH_CUDA_ARCH_LIST,
CMAKE_CUDA_ARCHITECTURES and nvcc's -gencode become the MUSA arches of --arch (in a
setup.py, a script, CMake), __CUDA_ARCH__ thresholds the MUSA values of the brief's table,
and each choice is reported (MP3104 in build files, MP2008 in sources). Input: ``fixtures/arch_lists``."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import FIXTURES, run_cli

SRC = FIXTURES / "arch_lists"


def _port(tmp_path, *args):
    src = tmp_path / "archs"
    shutil.copytree(SRC, src)
    report = tmp_path / "r.json"
    run_cli(src, "--report-json", report, "-q", *args, check=0)
    return tmp_path / "archs_musa", json.loads(report.read_text())


@pytest.fixture(scope="module")
def default(tmp_path_factory):
    return _port(tmp_path_factory.mktemp("arch"))


def test_a_setup_py_gets_the_arch_flags_and_list(default):
    out, _ = default
    setup = (out / "setup.py").read_text()
    assert 'os.environ.setdefault("TORCH_MUSA_ARCH_LIST", "22")' in setup
    assert 'nvcc_args = ["-O3", "--offload-arch=mp_22", "--use_fast_math"]' in setup
    assert 'TORCH_VERSION = "2.1"' in setup


def test_build_files_get_them_too(default):
    out, _ = default
    script = (out / "build.sh").read_text()
    assert 'export TORCH_MUSA_ARCH_LIST="22"' in script
    assert 'echo "TORCH_CUDA_ARCH_LIST=8.0 is what CI uses"' in script  # prose stays
    assert "mcc --offload-arch=mp_22 -c csrc/kernel.mu" in script
    cmake = (out / "CMakeLists.txt").read_text()
    assert 'string(APPEND MUSA_MCC_FLAGS " --offload-arch=mp_22")' in cmake
    assert 'set(TORCH_MUSA_ARCH_LIST "22")' in cmake


def test_arch_thresholds_in_sources(default):
    out, _ = default
    k = (out / "csrc" / "kernel.mu").read_text()
    assert "#if defined(__MUSA_ARCH__) && __MUSA_ARCH__ < 210" in k
    assert "#if __MUSA_ARCH__ >= 220  // bf16 math from sm_80 (the comment keeps its number)" in k
    assert "#elif 310 <= __MUSA_ARCH__" in k


def test_each_choice_is_reported(default):
    _, report = default
    def sites(finding_id):
        return sorted((d["source_file"], d["source_line"]) for d in report["diagnostics"]
                      if d["id"] == finding_id)

    # Build files' arch lists are build findings; a source's __CUDA_ARCH__ numbers are a
    # source's own (MP2008, issue 49 point 3), each where it fired.
    assert sites("MP3104") == [("CMakeLists.txt", 3), ("CMakeLists.txt", 4), ("build.sh", 3),
                               ("build.sh", 5), ("setup.py", 6), ("setup.py", 7)]
    assert sites("MP2008") == [("csrc/kernel.cu", 5), ("csrc/kernel.cu", 13),
                               ("csrc/kernel.cu", 15)]
    # The rewritten comparisons are reported as such, not as version hazards.
    assert not [d for d in report["diagnostics"] if d["id"] == "MP2003"]


def test_the_arches_come_from_the_arch_option(tmp_path):
    out, _ = _port(tmp_path, "--arch", "mp_21,mp_31")
    setup = (out / "setup.py").read_text()
    assert '"TORCH_MUSA_ARCH_LIST", "21;31"' in setup
    assert '"-O3", "--offload-arch=mp_21", "--offload-arch=mp_31", "--use_fast_math"' in setup
    assert 'export TORCH_MUSA_ARCH_LIST="21;31"' in (out / "build.sh").read_text()
    # Thresholds follow the brief's table, whatever --arch is.
    assert "__MUSA_ARCH__ >= 220" in (out / "csrc" / "kernel.mu").read_text()
