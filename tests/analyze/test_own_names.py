"""Issue 46, point 4: a name the tree defines itself is the project's, not an unknown CUDA
API, however CUDA-like it looks (``NVPFTensor``, ``NVPF_CHECK``, ``cuSPH_Grid``,
``nv_clamp``), and so is the name musa-port renamed one of them to (``NVPF_CHECK_MUSA``):
reported once, where it is defined, not as MP1002 at every use.

Input: ``fixtures/own_names``, a particle filter with its own ``NVPF`` prefix and an SPH
solver with ``cu``/``CU_``/``nv_`` names, each with near misses that stay MP1002: a name
the tree only declares (a plugin's function) and names of NVIDIA's headers it only uses
(``__NV_E4M3``)."""

from __future__ import annotations

import pytest
from conftest import FIXTURES

from musa_porting import PortOptions, port_tree
from musa_porting.report.json_report import report_dict

SRC = FIXTURES / "own_names"


@pytest.fixture(scope="module")
def diags(tmp_path_factory):
    out = tmp_path_factory.mktemp("own") / "out"
    r = port_tree(PortOptions(src=str(SRC), output=str(out), jobs=1, dry_run=True))
    return report_dict(r)["diagnostics"]


def _found(diags, cid, level=None):
    return sorted((d["source_file"], d["source_line"], d["text"]) for d in diags
                  if d["id"] == cid and (level is None or d["level"] == level))


def test_uses_of_the_trees_own_names_are_not_unknown_cuda_names(diags):
    assert _found(diags, "MP1002", "warning") == [
        # NVIDIA's names, used by the tree and not defined in it
        ("fluids/density.cu", 12, "__NV_E4M3"),
        ("fluids/density.cu", 12, "__NV_SATFINITE"),
        # declared only: defined outside the tree
        ("particles/include/nvpf.h", 19, "NVPF_plugin_init"),
        ("particles/src/filter.cu", 13, "NVPF_plugin_init"),
    ]


def test_each_own_name_is_reported_once_where_it_is_defined(diags):
    notes = _found(diags, "MP1002", "note")
    assert notes == [
        ("fluids/sph.cuh", 10, "nv_clamp"),
        ("particles/include/nvpf.h", 6, "NVPF_CHECK"),
        ("particles/include/nvpf.h", 9, "NVPF_AOS"),
        ("particles/include/nvpf.h", 9, "NVPF_Layout_Type"),
        ("particles/include/nvpf.h", 9, "NVPF_SOA"),
        ("particles/include/nvpf.h", 11, "NVPFTensor"),
        ("particles/include/nvpf.h", 16, "NVPFTensor_t"),
    ]
    message = next(d["message"] for d in diags if d["text"] == "NVPFTensor" and d["level"] == "note")
    assert "defined in the tree" in message and "struct" in message
    # the one musa-port renamed: its MP1004 says so, and its new name is not a residual
    # (and, since the vendor abbreviations lead a name as words do, issue 45 point 3, the
    # project's cu/CU_ names too: renamed once, where they are defined, with MP1004)
    assert _found(diags, "MP1004") == [("fluids/sph.cuh", 3, "CU_SPH_ASSERT"),
                                       ("fluids/sph.cuh", 5, "cuSPH_Grid"),
                                       ("particles/include/nvpf.h", 7, "NVPF_CHECK_CUDA")]
    assert not [d for d in diags if "NVPF_CHECK_MUSA" in d["text"]]
