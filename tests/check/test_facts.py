"""A file's facts (check/facts.py): what each kind of file names and defines, read
from its bytes, and near misses that name nothing; and a manifest's facts are trusted
only as a run writes them."""

from __future__ import annotations

import json

from musa_porting.check.facts import facts_ok
from musa_porting.check.gather import gather
from musa_porting.write.manifest import MANIFEST_NAME, FileRecord, Manifest, load_manifest


def test_cxx_registrations_in_every_form_and_not_in_comments():
    src = b"""#include "a_cuda.h"
  # include "b/c.cuh"
// #include "commented.cuh"
const char *s = "#include \\"in_a_string.h\\"";
TORCH_LIBRARY(my_ops, m) {
  m.def("scale(Tensor x) -> Tensor");
  m.def("other::named(Tensor x) -> Tensor");
  m.def(TORCH_SELECTIVE_SCHEMA("sel.overload(Tensor x) -> Tensor"));
  // m.def("commented_out(Tensor x) -> Tensor");
}
TORCH_LIBRARY_IMPL(my_ops, CUDA, m) { m.impl("scale", &scale_cuda); }
TORCH_LIBRARY_FRAGMENT(TORCH_EXTENSION_NAME, m) { m.def("frag(Tensor x) -> Tensor"); }
static auto r = c10::RegisterOperators().op("legacy::cuda_version", &v);
PYBIND11_MODULE(_ext, m) {
  m.def("nms", &nms);
  py::class_<Box>(m, "Box").def("area", &Box::area);
}
PyMODINIT_FUNC PyInit__version_cuda(void) { return NULL; }
"""
    f = gather("cxx", "x.cpp", src)
    assert [r[:2] for r in f["include"]] == [["a_cuda.h", 1], ["b/c.cuh", 2]]
    assert sorted((ns, name) for ns, name, *_ in f["ops"]) == [
        ("*", "frag"), ("legacy", "cuda_version"), ("my_ops", "scale"), ("my_ops", "sel"),
        ("other", "named")]
    assert sorted(r[0] for r in f["binds"]) == ["Box", "area", "nms"]  # not the op schemas
    assert [(r[0], r[3]) for r in f["init"]] == [("_version_cuda", "PyInit"),
                                                  ("_ext", "PYBIND11_MODULE")]


def test_a_kernel_file_has_only_its_includes_that_a_rename_may_break():
    assert gather("cxx", "k.cu", b'#include "k.cuh"\n__global__ void k() {}\n') == {
        "include": [["k.cuh", 1, 11]]}
    assert gather("cxx", "k.cu", b"__global__ void k() { x.defined(); }\n") == {}
    # A target with no renamed word nor extension names the same file before and after
    # the port (from the same folder, or by its unchanged name): not kept.
    src = b'#include "common/utils.h"\n#include "cuda/utils.h"\n#include "../Musa_ops.hpp"\n'
    assert [r[0] for r in gather("cxx", "a/k.cu", src)["include"]] == ["cuda/utils.h",
                                                                      "../Musa_ops.hpp"]


def test_a_header_included_again_and_again_is_kept_a_bounded_number_of_times():
    """A file that includes the same header thousands of times (generated or concatenated
    code) must not grow the manifest with the file: every include of one target resolves
    alike, so its first few lines stand for all; every distinct target is still kept."""
    src = b'#include "a.cuh"\n#include "b_cuda.h"\n' * 5000 + b'#include "last.cuh"\n'
    rows = gather("cxx", "k.cu", src)["include"]
    assert {r[0] for r in rows} == {"a.cuh", "b_cuda.h", "last.cuh"}
    assert len(rows) <= 2 * 8 + 1
    assert rows[:2] == [["a.cuh", 1, 11], ["b_cuda.h", 2, 11]]
    assert rows[-1] == ["last.cuh", 10001, 11]


def test_python_reads_ops_not_strings_nor_stores():
    src = b"""import torch
NOT_AN_OP = "torch.ops.mine.fake_cuda"
torch.ops.mine.placeholder_cuda = lambda: 0
torch.ops.load_library("x.so")
y = torch.ops.mine.real_cuda(1)
z = torch.ops.mine.real_cuda.default
"""
    f = gather("python", "pkg/m.py", src)
    assert [r[:3] for r in f["reads"]] == [["mine", "real_cuda", 5], ["mine", "real_cuda", 6]]


def test_python_that_names_no_word_the_port_renames_has_no_facts():
    # Nothing in it can differ from its other end by a rename: not read further.
    src = b"from . import _C\nimport torch\ny = torch.ops.mine.real(_C.forward(1))\n"
    assert gather("python", "pkg/m.py", src) == {}
    assert gather("python", "pkg/m.py", src + b"# needs the CUDA build\n")["imports"]


def test_python_paths_outside_setup_py_only_from_file():
    src = b"""import os, glob
here = os.path.dirname(__file__)
glob.glob(os.path.join(here, 'kernels', '*.cu'))
glob.glob('relative/*.cu')   # relative to where it runs: unknown
os.path.exists('/usr/local/cuda')
"""
    f = gather("python", "pkg/loader.py", src)
    assert [r[0] for r in f["paths"]] == ["pkg/kernels/*.cu"]


def test_setup_py_sources_are_relative_to_its_folder():
    src = b"""from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension
srcs = ['a.cpp']
srcs.append('cuda/b_cuda.cu')
setup(ext_modules=[CUDAExtension('pkg._C', srcs + ['c.cpp'])])
"""
    f = gather("python", "sub/setup.py", src)
    assert f["builds"] == [[["pkg._C"], 5, 20, ["sub/a.cpp", "sub/c.cpp", "sub/cuda/b_cuda.cu"]]]


def test_an_extension_class_chosen_by_a_condition_is_a_build():
    # mmcv: `extension = CUDAExtension` in one branch, `CppExtension` in another.
    src = b"""from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension, CppExtension
if cuda:
    extension = CUDAExtension
else:
    extension = CppExtension
ext = extension(name='pkg._ext', sources=['a.cpp'])
"""
    assert gather("python", "setup.py", src)["builds"] == [[["pkg._ext"], 7, 7, ["a.cpp"]]]


def test_a_jit_build_names_its_sources_too():
    src = b"""import os
from torch.utils.cpp_extension import load
here = os.path.dirname(os.path.abspath(__file__))
ext = load(name='fused_cuda', sources=[os.path.join(here, 'csrc', f) for f in ['a.cpp']] +
           [os.path.join(here, 'csrc', 'fused_kernel.cu')])
"""
    f = gather("python", "pkg/jit.py", src)
    assert f["builds"] == [[["fused_cuda"], 4, 7, ["pkg/csrc/fused_kernel.cu"]]]


def test_python_imports_and_names_read_off_them():
    src = b"""import os
import torch
from . import _C
from ..ops import nms as nms_op
import pkg.sub.mod
x = _C.forward_cuda(1)
s = '_C.in_a_string'
"""
    f = gather("python", "pkg/a/b.py", src)
    assert [r[0] for r in f["imports"]] == ["._C", "..ops.nms", "pkg.sub.mod"]
    assert ["._C", "forward_cuda"] in [r[:2] for r in f["attrs"]]
    assert not any(r[1] == "in_a_string" for r in f["attrs"])


def test_build_files_sources_and_globs_not_through_other_variables():
    cmake = b"""file(GLOB K ${CMAKE_CURRENT_SOURCE_DIR}/k/*.mu)
set(S a.cpp ${OTHER}/b.mu ${PROJECT_SOURCE_DIR}/top/c.mu)
message(STATUS "building x.cu")
"""
    f = gather("cmake", "sub/CMakeLists.txt", cmake)
    assert [(r[0], r[3]) for r in f["paths"]] == [("sub/k/*.mu", "cmake glob"),
                                                  ("sub/a.cpp", "cmake"), ("top/c.mu", "cmake")]
    make = b"K := $(wildcard k/*.mu)\nall: k/a.mu %.o $(X)/b.mu\n\tmcc -c k/a.mu\n"
    f = gather("make", "Makefile", make)
    assert sorted({(r[0], r[3]) for r in f["paths"]}) == [("k/*.mu", "make glob"),
                                                         ("k/a.mu", "make")]


def test_ignore_markers_are_kept_with_the_facts():
    f = gather("cxx", "k.cu", b'#include "gone.cuh"  // musa-port: ignore[MP5006]\n')
    assert f["quiet"] == [[1, ["MP5006"]]]


def test_a_manifest_record_with_facts_not_as_a_run_writes_them_is_dropped(tmp_path):
    good = {"include": [["a.h", 1, 11]], "builds": [[["m"], 1, 1, ["a.cpp"]]]}
    assert facts_ok(good) and facts_ok(None) and facts_ok({})
    for bad in ({"include": [["a.h", "1", 11]]}, {"include": "a.h"}, {"nope": []},
                {"builds": [[["m"], 1, 1, [3]]]}, {"include": [["a.h", True, 1]]}, []):
        assert not facts_ok(bad), bad
    files = {"a.cpp": FileRecord("a.cpp", "ported", facts=good),
             "b.cpp": FileRecord("b.cpp", "ported", facts={"include": [[1, 2, 3]]})}
    (tmp_path / MANIFEST_NAME).write_text(Manifest("s", files=files).to_json())
    m = load_manifest(str(tmp_path))
    assert list(m.files) == ["a.cpp"] and m.files["a.cpp"].facts == good
    assert "'b.cpp'" in m.warnings[0]
    json.loads((tmp_path / MANIFEST_NAME).read_text())  # what the test wrote is JSON
