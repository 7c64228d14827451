"""Issue 45 point 4: dispatch keys and device types registered for the CUDA backend are
ported to what torch_musa registers under (PrivateUse1), not by the name pattern
(fixtures/naming/dispatch_keys, with a near miss beside it)."""

from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES

from musa_porting import PortOptions, port_tree

CASES = FIXTURES / "naming"


def port(src: Path, out: Path, **kw) -> dict[str, str]:
    port_tree(PortOptions(str(src), str(out), jobs=1, **kw))
    return {p.relative_to(out).as_posix(): p.read_text() for p in sorted(out.rglob("*"))
            if p.is_file() and not p.relative_to(out).parts[0].startswith(".musa-port")}


def test_registrations_and_keys_of_the_cuda_backend_become_privateuse1(tmp_path):
    out = port(CASES / "dispatch_keys" / "src", tmp_path / "out")
    unit = out["csrc/musa/scale_musa.mu"]
    assert "TORCH_LIBRARY_IMPL(scaleops, PrivateUse1, m) {" in unit
    assert "TORCH_LIBRARY_IMPL( scaleops , AutogradPrivateUse1 , m ) {" in unit
    assert "TORCH_LIBRARY_IMPL(_, AutocastPrivateUse1, m) {" in unit
    assert "x.key_set().has(c10::DispatchKey::PrivateUse1)" in unit
    assert "t.key_set().has_backend(c10::BackendComponent::PrivateUse1Bit)" in unit
    assert "t.options().backend() == c10::Backend::SparsePrivateUse1" in unit
    assert "t.key_set().has(c10::DispatchKey::SparsePrivateUse1)" in unit
    # A device check: torch_musa's own code compares with kMUSA.
    assert 'TORCH_CHECK(x.device().type() == at::kMUSA, "x must be a MUSA tensor");' in unit
    stub = out["csrc/musa/stub.mu"]
    assert "REGISTER_MUSA_DISPATCH(scale_stub, &scale_kernel_impl);" in stub
    assert ("c10::DispatchKeySet({DispatchKey::PrivateUse1, DispatchKey::AutogradPrivateUse1,\n"
            "                              DispatchKey::QuantizedPrivateUse1, "
            "DispatchKey::NestedTensorPrivateUse1,\n"
            "                              DispatchKey::SparseCsrPrivateUse1});") in stub
    assert "return at::Backend::PrivateUse1;" in stub
    # The CPU backend's registration stays as it was.
    cpu = "csrc/cpu/scale_cpu.cpp"
    assert out[cpu] == (CASES / "dispatch_keys" / "src" / cpu).read_text()


def test_the_trees_own_backend_enum_and_macros_are_not_dispatch_keys(tmp_path):
    src = CASES / "dispatch_keys_near_miss" / "src"
    out = port(src, tmp_path / "out")
    assert all("PrivateUse1" not in text for text in out.values())
    # The tree's own enumerator is a project symbol: renamed as the tree's name it is (one
    # name in its definition and at every use), never made PyTorch's dispatch key.
    assert "enum class Backend { CPU, MUSA };" in out["backend.h"]
    assert "bool on_gpu(Backend b) { return b == Backend::MUSA; }" in out["launch.mu"]
    assert "REGISTER_KERNEL(fill, MUSA, fill_gpu);" in out["launch.mu"]
    assert "REGISTER_KERNEL(fill, CPU, fill_host);" in out["launch.mu"]
    # The macro and the rest of the header are as they were.
    assert out["backend.h"].endswith((src / "backend.h").read_text().split("\n", 3)[3])
