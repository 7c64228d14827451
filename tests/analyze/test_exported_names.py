"""Names a C++ extension exports to Python stay, unless --rename-exported (issue 27).

Fixtures shaped like the projects where a port broke the Python side: a pybind11
module and the Python file outside the ported folder that calls it (SageAttention,
mmcv's get_compiling_cuda_version), and a TORCH_LIBRARY extension called through
torch.ops (a vLLM fork, sglang's sgl-kernel), with a def_submodule("cuda_utils")."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import make_tree, run_cli

from musa_porting import SimplePorting
from musa_porting.analyze.exported import scan

PYBIND = {
    "csrc/pybind.cpp": """\
#include <torch/extension.h>
#include "quant.h"
std::string get_compiling_cuda_version();
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("quant_per_block_int8_cuda", &quant_per_block_int8_cuda, "quantize");
  m.def("get_compiling_cuda_version", &get_compiling_cuda_version, "version");
}
""",
    "csrc/quant.h": "void quant_per_block_int8_cuda(torch::Tensor x);\n",
    "csrc/quant.cu": """\
#include "quant.h"
static void launchCudaQuant(float *x) { cudaMemset(x, 0, 4); }
void quant_per_block_int8_cuda(torch::Tensor x) { launchCudaQuant(x.data_ptr<float>()); }
std::string get_compiling_cuda_version() { return "12.1"; }
""",
    # The Python side, outside the ported folder (a csrc port does not touch it).
    "sageattention/quant.py": """\
from . import _qattn


def per_block_int8(x):
    print(_qattn.get_compiling_cuda_version())
    return _qattn.quant_per_block_int8_cuda(x)
""",
}

TORCH_LIBRARY = {
    "csrc/torch_bindings.cpp": """\
#include "ops.h"
TORCH_LIBRARY_EXPAND(TORCH_EXTENSION_NAME, ops) {
  ops.def("cutlass_scaled_mm(Tensor! out, Tensor a, Tensor b) -> ()");
  ops.impl("cutlass_scaled_mm", torch::kCUDA, &cutlass_scaled_mm);
}
PYBIND11_MODULE(_C, m) {
  auto cuda_utils = m.def_submodule("cuda_utils", "device utilities");
  cuda_utils.def("get_device_attribute", &get_device_attribute);
}
""",
    "csrc/ops.h": "void cutlass_scaled_mm(torch::Tensor& out, torch::Tensor a, torch::Tensor b);\n",
    "csrc/scaled_mm.cu": """\
#include "ops.h"
void cutlass_scaled_mm(torch::Tensor& out, torch::Tensor a, torch::Tensor b) {
  cutlass::gemm::GemmCoord shape;
}
""",
    "vllm/_custom_ops.py": """\
import torch


def cutlass_scaled_mm(out, a, b):
    torch.ops._C.cutlass_scaled_mm(out, a, b)
    return torch.ops._C.cuda_utils.get_device_attribute(0, 0)
""",
}


def bound_names(tree: Path) -> dict[str, str]:
    """Every name the tree's bindings export, with the file binding it."""
    out = {}
    for p in tree.rglob("*"):
        if p.is_file() and p.suffix in (".cpp", ".mu", ".cu", ".h"):
            for name, _, _, how in scan(p.read_bytes()):
                if not how.startswith("bound by"):
                    out[name] = p.name
    return out


def defined(tree: Path, name: str) -> bool:
    return any(re.search(rf"\b{name}\s*\([^;]*\)\s*{{", p.read_text())
               for p in tree.rglob("*") if p.is_file() and p.suffix in (".mu", ".cpp"))


def test_pybind11_names_are_kept_and_listed_with_their_binding_site(tmp_path):
    root = make_tree(tmp_path, PYBIND)
    report = tmp_path / "r.json"
    run_cli(root / "csrc", "--report-json", report, check=0)
    out = root / "csrc_musa"
    for name in ("quant_per_block_int8_cuda", "get_compiling_cuda_version"):
        assert bound_names(out)[name] == "pybind.cpp"  # the Python side's name, still bound
        assert defined(out, name)  # to the function the tree defines under that name
    quant = (out / "quant.mu").read_text()
    assert "launchMusaQuant" in quant and "launchCudaQuant" not in quant  # the rest renamed
    r = json.loads(report.read_text())
    kept = {k["name"]: k for k in r["project_symbols"]["kept"]}
    assert set(kept) == {"quant_per_block_int8_cuda", "get_compiling_cuda_version"}
    site = kept["quant_per_block_int8_cuda"]["sites"][0]
    assert (site["file"], site["line"]) == ("pybind.cpp", 5)
    assert "exported to Python" in kept["quant_per_block_int8_cuda"]["reason"]
    notes = [d for d in r["diagnostics"] if d["id"] == "MP1007"]
    assert {(d["source_file"], d["source_line"], d["text"]) for d in notes} == {
        ("pybind.cpp", 5, "quant_per_block_int8_cuda"), ("pybind.cpp", 6, "get_compiling_cuda_version")}


def test_simple_porting_keeps_them_too(tmp_path, monkeypatch):
    root = make_tree(tmp_path, PYBIND)
    monkeypatch.chdir(root)
    # extended=True: the tree's own names are renamed, but for these (by default none is).
    result = SimplePorting(cuda_dir_path="./csrc", quiet=True, extended=True).run()
    assert {k.old for k in result.project.kept} == {"quant_per_block_int8_cuda",
                                                    "get_compiling_cuda_version"}
    assert set(bound_names(root / "csrc_musa")) >= {"quant_per_block_int8_cuda",
                                                    "get_compiling_cuda_version"}


def test_torch_library_schemas_and_submodules_are_kept(tmp_path):
    root = make_tree(tmp_path, TORCH_LIBRARY)
    run_cli(root / "csrc", check=0)
    out = root / "csrc_musa"
    bindings = (out / "torch_bindings.cpp").read_text()
    assert 'ops.def("cutlass_scaled_mm(Tensor! out' in bindings
    assert 'ops.impl("cutlass_scaled_mm", torch::kMUSA, &cutlass_scaled_mm)' in bindings
    assert 'auto cuda_utils = m.def_submodule("cuda_utils"' in bindings
    mm = (out / "scaled_mm.mu").read_text()
    assert "void cutlass_scaled_mm(" in mm


@pytest.mark.parametrize("files, calls", [
    (PYBIND, {"sageattention/quant.py": ["get_compiling_musa_version",
                                         "quant_per_block_int8_musa"]}),
    (TORCH_LIBRARY, {"vllm/_custom_ops.py": ["torch.ops._C.mutlass_scaled_mm",
                                             "torch.ops._C.musa_utils.get_device_attribute"]}),
])
def test_rename_exported_renames_them_and_the_python_callers_of_the_run(tmp_path, files, calls):
    root = make_tree(tmp_path / "proj", files)
    report = tmp_path / "r.json"
    run_cli(root, "--rename-exported", "--report-json", report, check=0)
    out = tmp_path / "proj_musa"
    for rel, names in calls.items():
        text = (out / rel).read_text()
        for name in names:
            assert name in text, (rel, name, text)
    exported = {b for b in bound_names(out / "csrc")}
    for names in calls.values():
        for name in names:
            assert name.rsplit(".", 1)[-1] in exported or name.split(".")[-2] in exported
    r = json.loads(report.read_text())
    warned = [d for d in r["diagnostics"] if d["id"] == "MP1008"]
    assert warned and all("callers outside" in f["message"] for f in warned)
    assert r["project_symbols"]["kept"] == []


def test_a_rerun_after_the_upgrade_reindexes_manifests_without_exports(tmp_path):
    """A manifest written before exported names were looked for has index entries
    without them, and a plan that renamed them: a re-run must not trust those."""
    root = make_tree(tmp_path, PYBIND)
    run_cli(root / "csrc", check=0)
    manifest = root / "csrc_musa/.musa-port-manifest.json"
    text = manifest.read_text()
    # (index entries written before every form of registration was known hold their
    # exports under "exported": the same as holding none)
    old = re.sub(r',"exports":\[(?:\[[^\]]*\],?)*\](?=,"taken")', "", text)
    old = old.replace('"kept":[["get_compiling_cuda_version"', '"kept_":[["get_compiling_cuda_version"')
    assert old.count('"exported":[') == 1  # only the plan's, which an old plan lacks too
    manifest.write_text(old)
    run_cli(root / "csrc", check=0)
    plan = json.loads(manifest.read_text().split("\n", 1)[0] + "}}")["project"]
    assert {k[0] for k in plan["kept"]} == {"quant_per_block_int8_cuda", "get_compiling_cuda_version"}


def test_musa_converter_follows_a_port_that_renamed_exported_names(tmp_path):
    """The C++ side ported alone with --rename-exported, the package converted after:
    musa-converter reads the port's manifest and renames the calls, as a run of both
    together would."""
    root = make_tree(tmp_path, PYBIND)
    run_cli(root / "csrc", "--rename-exported", check=0)
    run_cli("-r", root, "--no-backup", check=0, module="musa_porting.musa_converter")
    py = (root / "sageattention/quant.py").read_text()
    assert "_qattn.quant_per_block_int8_musa(x)" in py and "get_compiling_musa_version" in py


# -- every form of op registration (issue 44) -------------------------------------------

REGISTRATIONS = b"""\
#include <torch/script.h>
namespace scatter { int64_t cuda_version() noexcept { return CUDA_VERSION; } }
static auto registry = torch::RegisterOperators().op(
    "torch_scatter::cuda_version", [] { return scatter::cuda_version(); });
static auto chain = torch::RegisterOperators()
    .op("mylib::gather_cuda(Tensor src, Tensor index) -> Tensor", &gather_cuda_impl)
    .op("mylib::scatter_cuda.out(Tensor src) -> Tensor", &scatter_cuda_out);
static auto ctor = torch::RegisterOperators("mylib::segment_cuda", &segment_cuda_impl);
static auto legacy = c10::RegisterOperators().op(c10::RegisterOperators::options()
    .schema("cuda_ops::nms_cuda(Tensor boxes, float t) -> Tensor")
    .kernel<decltype(nms_cuda_kernel), &nms_cuda_kernel>(c10::DispatchKey::CUDA));
TORCH_LIBRARY_FRAGMENT(mylib, m) {
  m.def("mylib::roi_cuda(Tensor x) -> Tensor");
  m.def(TORCH_SELECTIVE_SCHEMA("mylib::knn_cuda(Tensor x) -> Tensor"));
}
#ifdef WITH_CUDA
PyMODINIT_FUNC PyInit__version_cuda(void) { return NULL; }
#endif
"""


def test_every_form_of_op_registration_exports_the_op_and_its_namespace():
    found = {name: how for name, _, _, how in scan(REGISTRATIONS)}
    for op in ("cuda_version", "gather_cuda", "scatter_cuda", "segment_cuda", "nms_cuda",
               "roi_cuda", "knn_cuda"):
        assert op in found and not found[op].startswith("bound by"), (op, found)
    assert found["cuda_ops"] == "op namespace"  # torch.ops.cuda_ops is a name too
    # the functions the registrations bind are kept with them, as m.def's are
    for fn in ("gather_cuda_impl", "scatter_cuda_out", "segment_cuda_impl", "nms_cuda_kernel"):
        assert found[fn].startswith("bound by"), (fn, found)
    # a module's init function names the module Python imports
    assert found["PyInit__version_cuda"] == "PyInit (module init)"
    # "mylib::roi_cuda(...)" is the op roi_cuda, not a binding named "mylib"
    line = {name: line for name, line, _, _ in scan(REGISTRATIONS)}
    assert line["roi_cuda"] == 13 and line["cuda_version"] == 4


def test_strings_that_only_look_like_op_names_are_not_exports():
    near = b"""\
// static auto r = torch::RegisterOperators().op("mylib::old_cuda", &old_cuda);
static const char *kOp = "mylib::log_cuda";  // a message, not a registration
auto node = graph.op("mylib::fuse_cuda", inputs);  // another API's .op
/* PyInit__commented_cuda */
void call() { LOG(INFO) << "RegisterOperators().op(\\"mylib::text_cuda\\")"; }
const char *doc = R"(torch::RegisterOperators().op("mylib::raw_cuda", &raw_cuda))";
const char *init = "PyInit__quoted_cuda(void)";
"""
    assert scan(near) == []
