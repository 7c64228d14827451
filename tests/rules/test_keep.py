"""The names a project keeps: exact names and glob patterns, also after a union."""

from __future__ import annotations

from musa_porting.rules.keep import KeepSet, is_glob


def test_globs_and_names_are_kept_and_a_union_keeps_both_sides_globs():
    keep = KeepSet(["CUDA_CHECK", "PROJ_*_CUDA", "x?y", "[ab]_cuda"])
    assert [n for n in ("CUDA_CHECK", "PROJ_MAX_CUDA", "xzy", "a_cuda", "c_cuda", "PROJ_CUDA")
            if n in keep] == ["CUDA_CHECK", "PROJ_MAX_CUDA", "xzy", "a_cuda"]
    both = keep | ["*Forward_cuda", "cudaFoo"]
    assert isinstance(both, KeepSet)
    assert {"PROJ_A_CUDA", "myForward_cuda", "cudaFoo", "x1y"} <= {
        n for n in ("PROJ_A_CUDA", "myForward_cuda", "cudaFoo", "x1y", "cudaBar") if n in both}
    assert "cudaBar" not in both
    assert both.pattern_of("myForward_cuda") == "*Forward_cuda"
    assert [is_glob(n) for n in ("a*", "b?", "[c]", "plain_name")] == [True, True, True, False]
