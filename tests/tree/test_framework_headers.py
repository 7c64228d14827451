"""Issue 45 point 6: a framework's own sources hold the headers the vendor tables map
(``ATen/cuda/CUDAContext.h``); their includes go to the header the vendor ships, as
porters write them, not to the tree's renamed copy (fixtures/naming/framework_headers,
with a near miss)."""

from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES

from musa_porting import PortOptions, port_tree

CASES = FIXTURES / "naming"


def port(src: Path, out: Path) -> dict[str, str]:
    port_tree(PortOptions(str(src), str(out), jobs=1))
    return {p.relative_to(out).as_posix(): p.read_text() for p in sorted(out.rglob("*"))
            if p.is_file() and not p.relative_to(out).parts[0].startswith(".musa-port")}


def test_a_header_the_vendor_ships_wins_over_the_trees_own_copy(tmp_path):
    out = port(CASES / "framework_headers" / "src", tmp_path / "out")
    sort = out["aten/src/ATen/native/musa/Sort.mu"]
    assert sort.startswith("#include <torch_musa/csrc/aten/musa/MUSAContext.h>\n")
    assert '#include "torch_musa/csrc/aten/musa/MUSAContext.h"\n' in sort
    # No table maps this one: the include follows the tree's renamed file.
    assert "#include <ATen/musa/MUSASortHelpers.muh>\n" in sort
    # An unverified MUSA header (status unknown): the tree's own port is the one known to exist.
    assert "#include <ATen/musa/ScanUtils.muh>\n" in sort
    # The tree's copies are still ported, under their renamed paths.
    assert "musaStream_t getCurrentMUSAStream();" in out["aten/src/ATen/musa/MUSAContext.h"]
    assert "aten/src/ATen/musa/ScanUtils.muh" in out


def test_a_projects_own_header_beside_the_file_is_its_own(tmp_path):
    out = port(CASES / "framework_headers_near_miss" / "src", tmp_path / "out")
    # "cublas_v2.h" is the project's shim beside the file (the table would say mublas.h).
    assert out["compat/gemm.mu"].startswith('#include "mublas_v2.h"\n#include "../kernels/tile.muh"\n')
    assert "compat/mublas_v2.h" in out
