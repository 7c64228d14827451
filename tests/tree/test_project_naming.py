"""Issue 34: the tree's own names in the shapes porters rename (and keep), on small
fixtures of each shape (fixtures/naming) with a near miss beside each."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import FIXTURES

from musa_porting import PortOptions, port_tree

CASES = FIXTURES / "naming"


def port(src: Path, out: Path, **kw):
    """Port ``src`` into ``out`` in this process; the result and the output's texts."""
    result = port_tree(PortOptions(str(src), str(out), jobs=1, **kw))
    texts = {p.relative_to(out).as_posix(): p.read_text() for p in sorted(out.rglob("*"))
             if p.is_file() and not p.relative_to(out).parts[0].startswith(".musa-port")}
    return result, texts


def input_findings(result, cid: str) -> list[str]:
    """The messages of the run's findings ``cid`` about single inputs (twins, names taken)."""
    return [d.message for f in result.files for d in f.diagnostics if d.id == cid]


def copy_case(name: str, tmp_path: Path) -> Path:
    dst = tmp_path / name
    shutil.copytree(CASES / name / "src", dst)
    return dst


# -- point 1: names the tree defines that are exactly a vendor word ----------------------

def test_a_struct_a_namespace_and_an_enumerator_named_cuda_are_renamed_with_every_use(tmp_path):
    result, out = port(CASES / "vendor_words" / "src", tmp_path / "out")
    header, kernel, dispatch = (out["include/backend.h"], out["src/musa/runtime.mu"],
                                out["src/dispatch.cpp"])
    assert "enum class Backend { Cpu, Musa };" in header
    assert "struct Musa {\n  static Musa& instance();" in header
    assert "struct Allocator<Musa> {" in header
    assert "namespace musa {\nvoid synchronize();" in header and "}  // namespace musa" in header
    assert "namespace musa {\n\nvoid synchronize() { musaDeviceSynchronize(); }" in kernel
    assert "Musa& Musa::instance() {\n  static Musa c;" in kernel
    assert "void* Allocator<Musa>::alloc" in kernel
    assert "if (b == Backend::Musa) {\n    musa::synchronize();\n    engine::musa::current_device();" \
        in dispatch
    assert "return Musa::instance().device_count();" in dispatch
    # The CUDA libraries' own namespaces are not the tree's: they stay.
    assert "thrust::fill(thrust::cuda::par, p, p + n, 0);" in kernel
    assert "cuda::std::atomic<int> done{0};" in kernel and "#include <cuda/std/atomic>" in kernel
    renamed = {r.old: r.new for r in result.project.renames.values()}
    assert renamed["Cuda"] == "Musa" and renamed["cuda"] == "musa"


def test_uses_of_cuda_with_no_definition_in_the_tree_stay(tmp_path):
    result, out = port(CASES / "vendor_words_near_miss" / "src", tmp_path / "out")
    kernel = out["fill.mu"]
    assert "thrust::fill(thrust::cuda::par, p, p + n, 0);" in kernel
    assert "cuda::std::atomic<int> done{0};" in kernel
    # A parameter named cuda is a variable, not a backend's name: kept.
    assert "void zero(int* p, int n, bool cuda) {" in kernel and "if (cuda) done.store(1);" in kernel
    assert "cuda" not in {r.old for r in result.project.renames.values()}


def test_an_enum_with_both_backends_keeps_both(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "backend.h").write_text("enum class Backend { Cpu, Cuda, Musa };\n"
                                   "inline bool gpu(Backend b) { return b == Backend::Cuda; }\n")
    result, out = port(src, tmp_path / "out")
    assert out["backend.h"] == (src / "backend.h").read_text()
    (collision,) = [c for c in result.project.collisions if c.old == "Cuda"]
    assert collision.reason == "the tree already uses Musa"


# -- point 2: strings that spell the tree's renamed names -----------------------------------

def test_strings_that_spell_a_renamed_name_follow_it(tmp_path):
    result, out = port(CASES / "strings" / "src", tmp_path / "out")
    pool, ops = out["musa/stream_pool.mu"], out["ops.cpp"]
    assert 'throw std::runtime_error("musa_stream_pool: could not create stream");' in pool
    assert '"musa_stream_pool");' in pool
    assert '{"roi_pool_musa", &roi_pool_musa},' in ops
    # A file's name in a string is the path renames' to decide; a longer word is another name.
    assert '"%s ready (see cuda/stream_pool.cu, cuda_stream_pool.log)\\n"' in pool
    assert 'return "kernels/roi_pool_cuda.cu";' in ops
    assert 'return "roi_pool_cudax is another name";' in ops
    assert {"cuda_stream_pool", "roi_pool_cuda"} <= set(result.project.renames)


# -- point 3: trees that already hold part of a MUSA port ----------------------------------

def test_a_tree_with_one_op_ported_by_hand_ports_the_rest_with_its_names(tmp_path):
    src = CASES / "partial_port" / "src"
    result, out = port(src, tmp_path / "out")
    # The porter's files are untouched: the hand-written change is there, byte for byte.
    for hand in ("musa/roi_align_musa.mu", "common/musa/helper_musa.muh"):
        assert out[hand] == (src / hand).read_text()
    # Their CUDA twins are not ported over them, nor beside them (no second definition).
    assert not any(p.startswith("cuda/") or p.startswith("common/cuda/") for p in out)
    assert set(result.ignored) == {"cuda/roi_align_cuda.cu", "common/cuda/helper_cuda.cuh"}
    # The other two ops follow the hand port's names: its folder, its helper, its macros.
    for op in ("nms", "sort"):
        text = out[f"musa/{op}_musa.mu"]
        assert '#include "../common/musa/helper_musa.muh"' in text
        assert "MUSA_1D_KERNEL_LOOP(i, n)" in text and "get_blocks_musa(n)" in text
        assert f"void {op}_forward_musa(" in text and "musaStream_t stream" in text
    ops = out["ops.cpp"]
    assert "roi_align_forward_musa(in, out, n, 0)" in ops and "nms_forward_musa(" in ops
    # Names the hand port defines are the renames of the CUDA ones, not collisions.
    renamed = {r.old: r.new for r in result.project.renames.values()}
    assert renamed["CUDA_1D_KERNEL_LOOP"] == "MUSA_1D_KERNEL_LOOP"
    assert renamed["roi_align_forward_cuda"] == "roi_align_forward_musa"
    assert not [c for c in result.project.collisions if c.old in renamed]


def test_a_cuda_file_beside_its_hand_written_musa_file_is_left_for_it(tmp_path):
    """Issue 37, item 7: foo_cuda.cu beside a hand-written foo_musa.cu stopped the port."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "foo_cuda.cu").write_text("void foo_cuda() { cudaDeviceSynchronize(); }\n")
    (src / "foo_musa.cu").write_text("void foo_musa() { musaDeviceSynchronize(); }  // by hand\n")
    (src / "bar_cuda.cpp").write_text('#include "foo_cuda.cu"\nvoid bar_cuda() { foo_cuda(); }\n')
    result, out = port(src, tmp_path / "out")
    assert out["foo_musa.mu"] == (src / "foo_musa.cu").read_text()
    assert set(out) == {"foo_musa.mu", "bar_musa.cpp"}
    assert out["bar_musa.cpp"] == '#include "foo_musa.mu"\nvoid bar_musa() { foo_musa(); }\n'
    assert any("foo_cuda.cu: not ported: foo_musa.cu beside it is its MUSA version" in m
               for m in input_findings(result, "MP0002"))


def test_a_musa_header_that_includes_its_cuda_twin_still_finds_it(tmp_path):
    """Issue 37, item 8: k.muh including k.cuh ended up including itself."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cuh").write_text("inline int k() { return 1; }\n")
    (src / "k.muh").write_text('#include "k.cuh"\ninline int k_musa() { return k() + 1; }\n')
    result, out = port(src, tmp_path / "out")
    assert out["k.muh"] == (src / "k.muh").read_text()
    assert out["k.cuh"] == "inline int k() { return 1; }\n"
    assert any("k.cuh: ported as k.cuh, not k.muh: k.muh includes it" in m
               for m in input_findings(result, "MP0001"))


def _snapshot(root: Path, but: Path) -> dict[str, tuple[bytes, int]]:
    return {p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file() and but not in p.parents}


def test_a_backend_folder_ported_into_its_sibling_inside_the_tree(tmp_path):
    root = copy_case("backend_folder", tmp_path)
    cuda, musa = root / "src/backends/cuda", root / "src/backends/musa"
    before = _snapshot(root, musa)
    result, out = port(cuda, musa)
    assert _snapshot(root, musa) == before  # nothing outside the output written
    assert set(out) == {"CMakeLists.txt", "kernels.muh", "musa_backend.h", "musa_backend.mu"}
    unit = out["musa_backend.mu"]
    # The shared headers are included as they were (they resolve from the sibling folder).
    assert '#include "musa_backend.h"\n#include "../../common/check.h"\n#include "kernels.muh"' in unit
    assert "void MusaBackend::scale(" in unit and "BackendBase* make_musa_backend()" in unit
    assert "ENGINE_CHECK(musaDeviceSynchronize() == musaSuccess);" in unit  # not the backend's
    # Where the rest of the tree names the CUDA backend, the porter adds the MUSA entry.
    said = {(m.file, m.line): m.what for m in result.shared_mentions}
    assert "uses make_cuda_backend (the port names it make_musa_backend)" in said["src/registry.cpp", 10]
    assert "the CUDA backend's Backend::Cuda" in said["src/registry.cpp", 10]
    assert said["src/registry.cpp", 3] == "a gate on WITH_CUDA"
    assert said["src/registry.cpp", 4] == "names backends/cuda (the port is src/backends/musa)"
    assert said["src/backend.h", 4] == "an enum with Cuda"
    assert said["CMakeLists.txt", 5] == "a gate on WITH_CUDA"
    assert not any(f.startswith("src/backends/") for f, _ in said)  # the backends themselves
    from musa_porting.report.shared import shared_files_text
    text = shared_files_text(result)
    assert "shared files that name the CUDA backend (3 in" in text and "  src/registry.cpp: 3:" in text


def test_a_backend_folder_begun_by_hand_keeps_the_porters_files(tmp_path):
    root = copy_case("backend_folder", tmp_path)
    cuda, musa = root / "src/backends/cuda", root / "src/backends/musa"
    musa.mkdir()
    hand = musa / "musa_backend.h"
    hand.write_text('#pragma once\n#include "../../backend.h"\n\n// by hand: one class for both\n'
                    "class MusaBackend : public BackendBase {\n public:\n"
                    "  void scale(float* v, int n, float s) override;\n};\n\n"
                    "BackendBase* make_musa_backend();\n")
    written = hand.read_bytes(), hand.stat().st_mtime_ns
    result, out = port(cuda, musa)
    assert (hand.read_bytes(), hand.stat().st_mtime_ns) == written
    assert '#include "musa_backend.h"' in out["musa_backend.mu"]
    assert "cuda_backend.h" in result.ignored
    assert any("cuda_backend.h: not ported: musa_backend.h in the output is its MUSA version" in m
               for m in input_findings(result, "MP0002"))


def test_an_output_beside_the_source_that_is_not_its_backend_twin_scans_nothing(tmp_path):
    root = copy_case("backend_folder", tmp_path)
    result, _ = port(root / "src/backends/cuda", root / "src/backends/cuda_port")
    assert result.shared_mentions == [] and result.shared_root == ""


# -- point 4: NVML is MTML; the vendor word ------------------------------------------------

def test_nvml_calls_and_the_vendor_word_are_ported(tmp_path):
    result, out = port(CASES / "nvml" / "src", tmp_path / "out")
    unit = out["gpu_info_musa.cpp"]  # the file's own name holds the vendor word too
    assert "#include <mtml.h>" in unit
    assert "if (mtmlLibraryInit() != MTML_SUCCESS) return 0;" in unit
    assert "mtmlReturn_t r = mtmlLibraryCountDevice(&n);" in unit and "mtmlLibraryShutDown();" in unit
    assert 'dlopen("libmtml.so.1", RTLD_LAZY)' in unit
    # A call MTML answers with two (a GPU handle, then its temperature) is left, and known.
    assert "nvmlDeviceGetTemperature(dev, NVML_TEMPERATURE_GPU, &t);" in unit
    assert out["CMakeLists.txt"] == ("add_library(gpu_info gpu_info_musa.cpp)\n"
                                     "target_link_libraries(gpu_info PRIVATE mtml)\n")


def test_the_vendor_word_is_a_setting(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "info.cpp").write_text('// Copyright (c) NVIDIA CORPORATION.\n'
                                  'bool is_nvidia_gpu();\nbool is_nvidia_gpu() { return true; }\n'
                                  'const char* kMsg = "needs Nvidia GPUs";\n'
                                  '#include <nvidia/some_header.h>\n')
    _, out = port(src, tmp_path / "default")
    # Names and strings change; a comment naming NVIDIA is a copyright: it stays.
    assert out["info.cpp"] == ('// Copyright (c) NVIDIA CORPORATION.\n'
                               'bool is_musa_gpu();\nbool is_musa_gpu() { return true; }\n'
                               'const char* kMsg = "needs Musa GPUs";\n'
                               '#include <nvidia/some_header.h>\n')
    _, out = port(src, tmp_path / "mthreads", vendor_word="mthreads")
    assert "bool is_mthreads_gpu() {" in out["info.cpp"] and '"needs Mthreads GPUs"' in out["info.cpp"]
    _, out = port(src, tmp_path / "kept", vendor_word="")
    assert out["info.cpp"] == (src / "info.cpp").read_text()


def test_the_message_of_a_build_without_the_backend_names_musa(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "nms.cpp").write_text('#ifdef WITH_CUDA\n  return nms_cuda(x);\n#else\n'
                                 '  AT_ERROR("Not compiled with GPU support");  // with GPU support\n'
                                 '#endif\nconst char* n = "runs on GPU support hardware";\n')
    _, out = port(src, tmp_path / "out")
    assert 'AT_ERROR("Not compiled with MUSA support");  // with GPU support\n' in out["nms.cpp"]
    assert '"runs on GPU support hardware"' in out["nms.cpp"]


# -- point 5: the PyTorch API before 1.11 (THC) --------------------------------------------

def test_legacy_pytorch_apis_are_modernised(tmp_path):
    _, out = port(CASES / "legacy_torch" / "src", tmp_path / "out")
    unit = out["roi_pool_musa.mu"]
    assert ("#include <torch_musa/csrc/aten/musa/MUSAContext.h>\n"
            "#include <torch_musa/csrc/aten/musa/MUSAAtomic.muh>\n"
            "#include <torch_musa/csrc/aten/musa/MUSADeviceUtils.muh>\n") in unit
    assert 'TORCH_CHECK(input.is_musa(), "input must be a MUSA tensor");' in unit
    assert "dim3 grid(std::min(at::ceil_div(n, 512), 4096));" in unit
    assert "(input.data_ptr<scalar_t>(), output.data_ptr<scalar_t>(), n);" in unit
    assert "C10_MUSA_CHECK(musaGetLastError());" in unit
    # What has no 1:1 name stays for the porter (the tables say what to write instead).
    assert "THCState* state" in unit and "THCudaMalloc(state, bytes)" in unit
    # A file that calls no THC keeps the deprecated spellings that still compile.
    near = out["near_miss.cpp"]
    assert near == (CASES / "legacy_torch/src/near_miss.cpp").read_text()


# -- point 6: the include's delimiter is kept ----------------------------------------------

def test_a_torch_header_keeps_the_includes_delimiter(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "k.cu").write_text('#include <ATen/cuda/CUDAContext.h>\n#include "c10/cuda/CUDAGuard.h"\n')
    _, out = port(src, tmp_path / "out")
    assert out["k.mu"] == ('#include <torch_musa/csrc/aten/musa/MUSAContext.h>\n'
                           '#include "torch_musa/csrc/core/MUSAGuard.h"\n')


# -- point 7: where porters keep names, and why --------------------------------------------

def test_names_another_backend_shares_are_kept_with_their_reason(tmp_path):
    result, out = port(CASES / "shared_backends" / "src", tmp_path / "out")
    unit = out["musa/peer_musa.mu"]
    assert "PROJ_CHECK_CUDA(musaGetDeviceCount(&n));" in unit
    assert "return n < PROJ_MAX_NVLINK ? n : PROJ_MAX_NVLINK;" in unit
    assert "int peers_musa() {" in unit  # the CUDA backend's own name is renamed
    assert "PROJ_MUSA_ALIGN" in unit  # defined in the shared header, but no other backend uses it
    kept = {c.old: c.reason for c in result.project.left}
    assert kept["PROJ_CHECK_CUDA"] == "shared with the hip backend (used in hip/peer_hip.cpp)"
    assert kept["PROJ_MAX_NVLINK"] == "shared with the hip backend (used in hip/peer_hip.cpp)"
    assert out["hip/peer_hip.cpp"] == (CASES / "shared_backends/src/hip/peer_hip.cpp").read_text()


def test_without_another_backend_the_same_names_are_renamed(tmp_path):
    src = copy_case("shared_backends", tmp_path)
    shutil.rmtree(src / "hip")
    result, out = port(src, tmp_path / "out")
    assert "PROJ_CHECK_MUSA(musaGetDeviceCount(&n));" in out["musa/peer_musa.mu"]
    assert "PROJ_MAX_MTLINK" in out["common/check.h"]
    assert not result.project.left


def test_keep_patterns_keep_names_of_a_shape_and_the_report_says_why(tmp_path):
    import json

    from musa_porting.report.json_report import report_dict

    src = copy_case("shared_backends", tmp_path)
    shutil.rmtree(src / "hip")
    result, out = port(src, tmp_path / "out", keep=["PROJ_*_CUDA", "PROJ_MAX_NVLINK"])
    unit = out["musa/peer_musa.mu"]
    assert "PROJ_CHECK_CUDA(musaGetDeviceCount(&n));" in unit and "PROJ_MAX_NVLINK" in unit
    assert "PROJ_MUSA_ALIGN" in unit  # PROJ_CUDA_ALIGN does not end with _CUDA
    report = json.loads(json.dumps(report_dict(result)))["project_symbols"]
    kept = {k["name"]: k["reason"] for k in report["kept"]}
    assert kept == {"PROJ_CHECK_CUDA": "kept by the keep pattern PROJ_*_CUDA",
                    "PROJ_MAX_NVLINK": "kept by --keep"}
    renamed = {k["name"]: k["reason"] for k in report["renamed"]}
    assert renamed["PROJ_CUDA_ALIGN"] == "defined in the tree (macro at common/check.h:14)"
    # A kept name is not reported as a CUDA name left behind.
    assert not [d for f in result.files for d in f.diagnostics if d.text == "PROJ_CHECK_CUDA"]


def test_keep_patterns_in_the_settings_file(tmp_path):
    from conftest import run_cli

    src = copy_case("shared_backends", tmp_path)
    shutil.rmtree(src / "hip")
    (src / ".musa-port.toml").write_text('keep = ["PROJ_*_CUDA"]\n')
    proc = run_cli(src, "-o", tmp_path / "out", "-q", check=0)
    assert "PROJ_CHECK_CUDA(musaGetDeviceCount(&n));" in (tmp_path / "out/musa/peer_musa.mu").read_text()
    assert proc.stderr == ""


def test_python_code_that_uses_pynvml_gets_the_mtml_binding(tmp_path):
    """mthreads-ml-py's pymtml keeps pynvml's names: only the imports change."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "mon.py").write_text("import os, pynvml\nimport pynvml as nv\n"
                                "from pynvml import nvmlInit, nvmlDeviceGetCount\n"
                                "pynvml.nvmlInit()\nprint(nv.nvmlDeviceGetCount())\n"
                                "import pynvml_utils\n")
    _, out = port(src, tmp_path / "out")
    assert out["mon.py"] == ("import os, pymtml as pynvml\nimport pymtml as nv\n"
                             "from pymtml import nvmlInit, nvmlDeviceGetCount\n"
                             "pynvml.nvmlInit()\nprint(nv.nvmlDeviceGetCount())\n"
                             "import pynvml_utils\n")
