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
             if p.is_file() and not p.name.startswith(".musa-port")}
    return result, texts


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
