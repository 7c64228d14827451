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
    # csrc alone: the op stays too (its Python callers are not in the run)
    _, alone = port(package(tmp_path / "b") / "csrc", tmp_path / "out_csrc")
    assert '"spack::cuda_version"' in alone["version.cpp"]


def test_rename_exported_renames_the_op_and_every_python_caller_of_the_run(tmp_path):
    _, out = port(package(tmp_path), tmp_path / "out", rename_exported=True)
    assert '"spack::musa_version"' in out["csrc/version.cpp"]
    init = out["spack/__init__.py"]
    assert "cuda_version = torch.ops.spack.musa_version()" in init
    assert 'getattr(torch.ops.spack, "musa_version")' in init


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
