"""Names the runtime resolves by string follow together or stay together (issue 44):
op registrations and the Python that calls them, extension module names with the build
and the loaders that compute them, and file paths the build computes. The fixture is an
extension package as real ones are laid out (fixtures/links/extension_package: setup.py
computing its sources and module names, csrc with a cuda/ folder and _cuda files, a
package that loads its extensions by computed names and calls ops through torch.ops),
ported whole and its csrc alone, with a near miss beside each rule."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import FIXTURES

from musa_porting import PortOptions, port_tree

PACKAGE = FIXTURES / "links" / "extension_package"


def port(src: Path, out: Path, **kw):
    """Port ``src`` into ``out`` in this process; the result and the output's texts."""
    result = port_tree(PortOptions(str(src), str(out), jobs=1, **kw))
    texts = {p.relative_to(out).as_posix(): p.read_text() for p in sorted(out.rglob("*"))
             if p.is_file() and not p.relative_to(out).parts[0].startswith(".musa-port")}
    return result, texts


def package(tmp_path: Path, edit: dict[str, tuple[str, str]] | None = None) -> Path:
    """A copy of the fixture package, with ``edit`` (file -> (old, new)) applied."""
    dst = tmp_path / "pkg"
    shutil.copytree(PACKAGE, dst)
    for rel, (old, new) in (edit or {}).items():
        text = (dst / rel).read_text()
        assert old in text, (rel, old)
        (dst / rel).write_text(text.replace(old, new))
    return dst


# -- op registrations --------------------------------------------------------------------

def test_an_op_registered_with_register_operators_keeps_its_name_and_its_callers(tmp_path):
    _, out = port(package(tmp_path), tmp_path / "out")
    assert '"spack::cuda_version"' in out["csrc/version.cpp"]
    init = out["spack/__init__.py"]
    assert "cuda_version = torch.ops.spack.cuda_version()" in init
    assert 'getattr(torch.ops.spack, "cuda_version")' in init
    assert "torch.ops.spack.cuda_version = cuda_version_placeholder" in init
    # csrc alone: the op stays too (its Python callers are not in the run)
    _, alone = port(package(tmp_path / "b") / "csrc", tmp_path / "out_csrc")
    assert '"spack::cuda_version"' in alone["version.cpp"]


def test_rename_exported_renames_the_op_and_every_python_caller_of_the_run(tmp_path):
    _, out = port(package(tmp_path), tmp_path / "out", rename_exported=True)
    assert '"spack::musa_version"' in out["csrc/version.cpp"]
    init = out["spack/__init__.py"]
    assert "cuda_version = torch.ops.spack.musa_version()" in init
    assert 'getattr(torch.ops.spack, "musa_version")' in init
    assert "torch.ops.spack.musa_version = cuda_version_placeholder" in init


def test_torch_ops_follow_the_ops_not_a_cpp_function_of_the_same_name(tmp_path):
    """A C++ function the tree renames shares its name with an op another library
    registers: Python's torch.ops call of that op stays; a call of the tree's own binding
    follows."""
    src = package(tmp_path, {
        "csrc/cuda/scatter_cuda.h": ("torch::Tensor scatter_cuda(torch::Tensor src);",
                                     "torch::Tensor scatter_cuda(torch::Tensor src);\n"
                                     "int64_t fused_cuda_sum(int64_t x);"),
        "spack/scatter.py": ("def scatter_sum(src):",
                             "def fused(x):\n    return torch.ops.torch_cluster.fused_cuda_sum(x)\n\n\n"
                             "def scatter_sum(src):"),
        "csrc/cuda/scatter_cuda.cu": ("torch::Tensor scatter_cuda(",
                                      "int64_t fused_cuda_sum(int64_t x) { return x; }\n\n"
                                      "torch::Tensor scatter_cuda(")})
    _, out = port(src, tmp_path / "out")
    assert "int64_t fused_musa_sum(int64_t x)" in out["csrc/musa/scatter_musa.h"]
    assert "torch.ops.torch_cluster.fused_cuda_sum(x)" in out["spack/scatter.py"]


# -- extension module names --------------------------------------------------------------

def diagnostics(result, rel: str, id: str) -> list:
    return [d for f in result.files if f.rel == rel for d in f.diagnostics if d.id == id]


def test_module_names_follow_the_build_that_names_them_everywhere(tmp_path):
    result, out = port(package(tmp_path), tmp_path / "out")
    version, scatter = out["csrc/version.cpp"], out["csrc/scatter.cpp"]
    assert "PyMODINIT_FUNC PyInit__version_musa(void)" in version
    assert "PyMODINIT_FUNC PyInit__version_cpu(void)" in version
    assert "PyMODINIT_FUNC PyInit__scatter_musa(void)" in scatter
    setup = out["setup.py"]
    assert "suffices = ['cpu', 'musa']" in setup and "if suffix == 'musa':" in setup
    assert "Extension(f'spack._{name}_{suffix}', sources," in setup
    init = out["spack/__init__.py"]
    assert "f'{library}_musa', [osp.dirname(__file__)])" in init
    assert "f'{library}_cpu', [osp.dirname(__file__)])" in init
    # a message that spells the module is prose, not a loader
    assert "Could not find module '{library}_cpu' in" in init
    # another package's module, computed: not this tree's
    assert "importlib.import_module(f'cupy_backends.cuda.{name}')" in out["spack/scatter.py"]
    modules = {m.old: m for m in result.project.modules}
    assert modules["_version_cuda"].new == "_version_musa"
    assert "setup.py" in modules["_version_cuda"].reason
    assert not [d for f in result.files for d in f.diagnostics if d.id == "MP4010"]


def test_a_changed_decision_ports_every_file_again(tmp_path):
    """The build stops naming the modules the C++ binds: the re-run keeps them, in the
    C++ files it did not otherwise need to read again."""
    src = package(tmp_path)
    out = tmp_path / "out"
    port(src, out)
    setup = src / "setup.py"
    setup.write_text(setup.read_text().replace("f'spack._{name}_{suffix}'",
                                               "f'spack._{name}_{suffix}_ext'"))
    result, texts = port(src, out)
    assert "PyMODINIT_FUNC PyInit__version_cuda(void)" in texts["csrc/version.cpp"]
    assert "Extension(f'spack._{name}_{suffix}_ext', sources," in texts["setup.py"]
    assert {m.old: m.new for m in result.project.modules}["_*_cuda_ext"] == "_*_musa_ext"


def test_a_csrc_port_keeps_module_names_its_build_is_not_in_the_run(tmp_path):
    result, out = port(package(tmp_path) / "csrc", tmp_path / "out")
    assert "PyMODINIT_FUNC PyInit__version_cuda(void)" in out["version.cpp"]
    assert "PyMODINIT_FUNC PyInit__scatter_cuda(void)" in out["scatter.cpp"]
    assert "scatter_musa(src)" in out["scatter.cpp"]  # the tree's other names are renamed
    (note,) = [d for d in diagnostics(result, "version.cpp", "MP1007") if d.text.startswith("PyInit")]
    assert note.text == "PyInit__version_cuda" and note.src_line == 8
    assert "no build file of this run names the module _version_cuda" in note.message
    modules = {m.old: m for m in result.project.modules}
    assert modules["_version_cuda"].new is None
    # a name kept on purpose is a note (MP1007), not a residual the port missed
    assert not [d for f in result.files for d in f.diagnostics
                if d.id == "MP1002" and d.text in ("cuda_version", "PyInit__version_cuda")]


CMAKE_PACKAGE = {
    "CMakeLists.txt": "cmake_minimum_required(VERSION 3.18)\nproject(fastops LANGUAGES CXX CUDA)\n"
                      "find_package(pybind11 REQUIRED)\n"
                      "pybind11_add_module(fastops_cuda src/bind.cpp src/kernels.cu)\n"
                      "add_library(cuda_helpers STATIC src/helpers.cpp)\n",
    "src/bind.cpp": "#include <pybind11/pybind11.h>\nvoid run_kernels();\n"
                    "PYBIND11_MODULE(fastops_cuda, m) { m.def(\"run\", &run_kernels); }\n",
    "src/kernels.cu": "__global__ void k() {}\nvoid run_kernels() { k<<<1, 1>>>(); }\n",
    "src/helpers.cpp": "int helper() { return 0; }\n",
    "fastops/__init__.py": "from . import fastops_cuda\n\n\ndef run():\n"
                           "    return fastops_cuda.run()\n",
    "fastops/direct.py": "import fastops.fastops_cuda\n\n\ndef run():\n"
                         "    return fastops.fastops_cuda.run()\n",
    "fastops/lazy.py": "import importlib\n\n\ndef load_all():\n"
                       "    return [importlib.import_module(f'fastops.fastops_{k}')\n"
                       "            for k in ('cuda',)]\n\n\n"
                       "def load(kind):\n"
                       "    return importlib.import_module(f'fastops.fastops_{kind}')\n",
}


def test_a_cmake_build_names_its_pybind11_module_and_the_imports_follow(tmp_path):
    from conftest import make_tree

    src = make_tree(tmp_path / "fastops", CMAKE_PACKAGE)
    result, out = port(src, tmp_path / "out")
    assert "pybind11_add_module(fastops_musa src/bind.cpp src/kernels.mu)" in out["CMakeLists.txt"]
    assert "PYBIND11_MODULE(fastops_musa, m)" in out["src/bind.cpp"]
    assert out["fastops/__init__.py"].startswith("from . import fastops_musa as fastops_cuda\n")
    assert out["fastops/direct.py"] == ("import fastops.fastops_musa\n\n\ndef run():\n"
                                        "    return fastops.fastops_musa.run()\n")
    assert "for k in ('musa',)]" in out["fastops/lazy.py"]
    # load(kind): the word is in what the caller passes, which the port cannot see
    (left,) = diagnostics(result, "fastops/lazy.py", "MP4010")
    assert left.src_line == 10 and "fastops_cuda" in left.message
    # csrc alone (no build file in the run): the module keeps its name
    _, alone = port(src / "src", tmp_path / "out_src")
    assert "PYBIND11_MODULE(fastops_cuda, m)" in alone["bind.cpp"]


# -- file paths the build computes ---------------------------------------------------------

def test_computed_sources_follow_the_renamed_files(tmp_path):
    _, out = port(package(tmp_path), tmp_path / "out")
    setup = out["setup.py"]
    assert "path = osp.join(extensions_dir, 'musa', f'{name}_musa.mu')" in setup
    assert "path = osp.join(extensions_dir, 'cpu', f'{name}_cpu.cpp')" in setup
    assert "suffices = ['cpu', 'musa']\n" in setup and "    suffices = ['musa']\n" in setup
    # a message that spells a folder of the tree is prose
    assert "print(f'{len(extensions)} extensions, cuda kernels in {extensions_dir}/cuda')" in setup


def test_a_folder_the_port_keeps_keeps_its_piece_in_a_computed_path(tmp_path):
    """--keep-paths: csrc/cuda/scatter_cuda.cu becomes csrc/cuda/scatter_cuda.mu, so the
    'cuda' piece stays as it is (the device-string rule would have made it 'musa')."""
    _, out = port(package(tmp_path), tmp_path / "out", rename_paths=False)
    setup = out["setup.py"]
    assert "path = osp.join(extensions_dir, 'cuda', f'{name}_cuda.mu')" in setup
    assert "suffices = ['cpu', 'musa']" in setup  # the module names still follow their build


def test_the_manuals_flow_csrc_ported_beside_then_the_package_converted(tmp_path):
    """SimplePorting's layout: csrc ported into csrc_musa (the build is not in that run,
    so the modules keep their names), then musa-converter on the package: the setup.py's
    paths follow the port beside it, and the module names stay as its C++ keeps them."""
    from musa_porting.convert import ConvertOptions, convert

    src = package(tmp_path)
    port(src / "csrc", src / "csrc_musa")
    convert(ConvertOptions(str(src), backup=False, force=True))
    setup = (src / "setup.py").read_text()
    assert "extensions_dir = osp.join('csrc_musa')" in setup
    assert "path = osp.join(extensions_dir, 'musa', f'{name}_musa.mu')" in setup
    assert "suffices = ['cpu', 'cuda']" in setup and "if suffix == 'cuda':" in setup
    assert "    suffices = ['cuda']\n" in setup  # every list the suffix is taken from
    assert "PyInit__version_cuda" in (src / "csrc_musa/version.cpp").read_text()
    assert "f'{library}_cuda', [osp.dirname(__file__)])" in (src / "spack/__init__.py").read_text()


def test_rename_exported_on_csrc_alone_renames_the_modules_on_every_side(tmp_path):
    """--rename-exported on csrc alone renames PyInit__version_cuda (its build is not in
    the run): the module's decision follows the C++, so the run's Python and a later
    musa-converter build and load the module under the name the C++ now answers to, and
    MP1008 says that a build outside the run must follow."""
    from musa_porting.convert import ConvertOptions, convert

    src = package(tmp_path)
    result, out = port(src / "csrc", src / "csrc_musa", rename_exported=True)
    assert "PyMODINIT_FUNC PyInit__version_musa(void)" in out["version.cpp"]
    assert {m.old: m.new for m in result.project.modules}["_version_cuda"] == "_version_musa"
    assert [d.text for d in diagnostics(result, "version.cpp", "MP1008")
            if d.text.startswith("PyInit")] == ["PyInit__version_cuda"]
    convert(ConvertOptions(str(src), backup=False, force=True))
    setup = (src / "setup.py").read_text()
    assert "suffices = ['cpu', 'musa']" in setup and "    suffices = ['musa']\n" in setup
    assert "if suffix == 'musa':" in setup
    init = (src / "spack/__init__.py").read_text()
    assert "f'{library}_musa', [osp.dirname(__file__)])" in init
    assert "torch.ops.spack.musa_version()" in init


def test_rename_exported_where_the_build_cannot_follow_leaves_a_finding(tmp_path):
    """The build computes the part of the module's name that holds the word (a caller
    passes it): the module is kept on every side, unless --rename-exported renames its
    PyInit anyway; then the imports follow the C++ and the build's name, which cannot,
    is an MP4010 warning at its line rather than a silent mismatch."""
    from conftest import make_tree

    files = {"setup.py": "import os\nfrom setuptools import setup\n"
                         "from torch.utils.cpp_extension import CUDAExtension\n\n\n"
                         "def ext(kind):\n"
                         "    return CUDAExtension(f'pkg._ext_{kind}', ['csrc/ext.cpp'])\n\n\n"
                         "setup(name='pkg', ext_modules=[ext(os.environ.get('KIND', 'cuda'))])\n",
             "csrc/ext.cpp": "#include <Python.h>\nPyMODINIT_FUNC PyInit__ext_cuda(void) { return NULL; }\n",
             "pkg/__init__.py": "from . import _ext_cuda\n"}
    src = make_tree(tmp_path / "pkg", files)
    result, out = port(src, tmp_path / "kept")
    assert "PyInit__ext_cuda(void)" in out["csrc/ext.cpp"]
    assert out["pkg/__init__.py"] == "from . import _ext_cuda\n"
    assert not diagnostics(result, "setup.py", "MP4010")
    result, out = port(src, tmp_path / "renamed", rename_exported=True)
    assert "PyInit__ext_musa(void)" in out["csrc/ext.cpp"]
    assert out["pkg/__init__.py"] == "from . import _ext_musa as _ext_cuda\n"
    (left,) = diagnostics(result, "setup.py", "MP4010")
    assert left.src_line == 7 and "_ext_musa" in left.message
