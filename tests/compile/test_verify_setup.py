"""Issue 44: what `musa-port verify` adds to its compiles on its own (in-process, no
compiler run): the CUDA build's GPU switches, the stand-in for torch's generated
header, and a prelude that never hides a missing header."""

from __future__ import annotations

from pathlib import Path

from conftest import run_cli

from musa_porting.analyze.enable_macros import backend_switches
from musa_porting.compile.include_path import CMAKE_MACROS, HeaderFinder, stand_ins
from musa_porting.compile.shim import write_prelude
from musa_porting.compile.verify_setup import tree_facts
from musa_porting.write.manifest import load_manifest


def test_the_gpu_switches_a_source_tests_and_not_its_optional_features():
    text = (b"#ifdef WITH_CUDA\n#endif\n#if defined(MMCV_WITH_MUSA) && ENABLE_CUDA_GRAPHS\n"
            b"#  elif CUDA_FOUND\n#endif\n#ifdef WITH_CUDNN\n#endif\n"
            b"int USE_CUDA;  // not a condition\n#define HAVE_CUDA 1\n")
    assert backend_switches(text) == {"WITH_CUDA", "MMCV_WITH_MUSA", "CUDA_FOUND"}


def test_the_macros_of_the_cuda_build_come_from_the_port(tmp_path):
    """setup.py defines WITH_CUDA (renamed WITH_MUSA by the port: defined), the
    sources test USE_CUDA that no build file defines (defined, as the CUDA build
    must), and a switch the tree #defines itself is left to it."""
    src = tmp_path / "pkg"
    (src / "csrc").mkdir(parents=True)
    (src / "setup.py").write_text(
        "from torch.utils.cpp_extension import CUDAExtension\n"
        "ext = CUDAExtension('pkg._C', ['csrc/a.cpp'], define_macros=[('WITH_CUDA', None)])\n")
    (src / "csrc/a.cpp").write_text("#ifdef WITH_CUDA\nint a;\n#endif\n#if USE_CUDA\nint b;\n#endif\n"
                                    "#ifdef HAS_CUDA\nint c;\n#endif\n")
    (src / "csrc/config.h").write_text("#define HAS_CUDA 1\n")
    run_cli(src, "-q", check=0)
    out = tmp_path / "pkg_musa"
    m = load_manifest(str(out))
    facts = tree_facts(out, m.files, m.project)
    assert facts.build_macros == {"WITH_MUSA"}
    # HAS_CUDA, which the tree defines, is the tree's own name: renamed, and left to it.
    assert facts.switches == {"WITH_MUSA", "USE_CUDA", "HAS_MUSA"}
    assert "HAS_MUSA" in facts.own_macros
    from musa_porting.compile.verify_setup import prepare

    setup = prepare(torch_mode="off", torch_python=None, std=None, nvcc="/nonexistent/nvcc",
                    includes=[], facts=facts)
    assert setup.defines == ["USE_CUDA", "WITH_MUSA"] and setup.std == "c++17"


def test_the_stand_in_for_torchs_generated_header(tmp_path):
    """A CPU wheel of torch has c10/cuda but not the CMake-generated header a CUDA
    build has: the shim gets a stand-in, and loses it when torch has its own."""
    torch_inc = tmp_path / "include"
    (torch_inc / "c10/cuda").mkdir(parents=True)
    (torch_inc / "c10/cuda/CUDAMacros.h").write_text("#include <c10/cuda/impl/cuda_cmake_macros.h>\n")
    shim = tmp_path / "shim"
    assert stand_ins([str(torch_inc)], shim) == [CMAKE_MACROS]
    assert "C10_CUDA_BUILD_SHARED_LIBS" in (shim / CMAKE_MACROS).read_text()
    (torch_inc / CMAKE_MACROS).parent.mkdir(parents=True)
    (torch_inc / CMAKE_MACROS).write_text("#define C10_CUDA_BUILD_SHARED_LIBS\n")
    assert stand_ins([str(torch_inc)], shim) == [] and not (shim / CMAKE_MACROS).exists()
    # No torch on the path: nothing to stand in for.
    assert stand_ins([str(tmp_path / "none")], shim) == []


def test_the_prelude_includes_only_headers_on_the_path(tmp_path):
    """No __has_include: GCC before 14 then skips the file's own #include of the
    header without a word. A header not found is left to the file."""
    here = tmp_path / "inc"
    (here / "torch").mkdir(parents=True)
    (here / "torch/extension.h").write_text("")
    path = write_prelude(tmp_path / "shim", "a.cpp.h",
                         [("torch/extension.h", True), ("ATen/cuda/CUDAContext.h", True),
                          ("local.h", False)], HeaderFinder([str(here)]))
    text = Path(path).read_text()
    assert "#include <torch/extension.h>" in text
    assert "CUDAContext" not in text and "local.h" not in text and "__has_include" not in text
