"""Templates that generate CUDA (issue 36, point 4): flashinfer's .jinja kernels, CMake's
configure_file inputs and the like are ported with the sources' rules when their name
says the file they become or their code is CUDA, keep their names, and the run says
which templates it left as they are."""

from __future__ import annotations

from conftest import make_tree

from musa_porting import PortOptions, SimplePorting, port_tree

TREE = {
    "include/gemm.cuh": "#include <cutlass/gemm/gemm.h>\nstruct CutlassGemmRunner { cudaStream_t s; };\n",
    # flashinfer's shape: a JIT template whose code is CUDA, named by what it configures
    "csrc/batch_decode_config.jinja": """\
#include "gemm.cuh"
using Runner = CutlassGemmRunner;  // {{ variant_name }}
__global__ void decode_{{ name }}(cudaStream_t stream) { cutlass::half_t h; }
""",
    "csrc/norm.cu.jinja": "void norm(cudaStream_t s) { cudaStreamSynchronize(s); }  // {{ dtype }}\n",
    "csrc/config.h.in": "#define WITH_CUDA @WITH_CUDA@\n#include <cuda_runtime.h>\n",
    "csrc/version.txt.in": "@PROJECT_VERSION@ (built with {{ compiler }})\n",
    "docs/page.jinja": "<h1>{{ title }}</h1> cuda is fast\n",
    "MANIFEST.in": "include csrc/*.cu\n",
}


def test_templates_of_cuda_code_are_ported_and_keep_their_names(tmp_path):
    src = make_tree(tmp_path / "src", TREE)
    result = port_tree(PortOptions(src=str(src)))
    out = tmp_path / "src_musa"
    decode = (out / "csrc/batch_decode_config.jinja").read_text()
    header = (out / "include/gemm.muh").read_text()
    assert "struct MutlassGemmRunner { musaStream_t s; }" in header
    # The template uses what the header declares, under the same name.
    assert "using Runner = MutlassGemmRunner;  // {{ variant_name }}" in decode
    assert "decode_{{ name }}(musaStream_t stream) { mutlass::half_t h; }" in decode
    assert "musaStreamSynchronize(s)" in (out / "csrc/norm.cu.jinja").read_text()  # by its name
    assert "#include <musa_runtime.h>" in (out / "csrc/config.h.in").read_text()  # a header's
    notes = [w for w in result.warnings if "template" in w]
    assert len(notes) == 1
    assert "2 templates copied as they are" in notes[0]
    assert "csrc/version.txt.in" in notes[0] and "docs/page.jinja" in notes[0]
    assert "MANIFEST.in" not in notes[0]  # not a template of code
    assert (out / "docs/page.jinja").read_bytes() == (src / "docs/page.jinja").read_bytes()


def test_simple_porting_ports_them_too(tmp_path, monkeypatch):
    make_tree(tmp_path, {f"csrc/{k}": v for k, v in TREE.items()})
    monkeypatch.chdir(tmp_path)
    SimplePorting("csrc", quiet=True).run()  # torch_musa's tree: every text file ported
    assert "musaStream_t stream" in (tmp_path / "csrc_musa/csrc/batch_decode_config.jinja").read_text()
    SimplePorting("csrc", output_dir_path="ext", quiet=True, extended=True).run()
    decode = (tmp_path / "ext/csrc/batch_decode_config.jinja").read_text()
    assert "using Runner = MutlassGemmRunner;" in decode
