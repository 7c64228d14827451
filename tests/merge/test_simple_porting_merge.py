"""SimplePorting does deliverables 1-2 on every call (issue 39 deliverable 5): a
setup.py that ports on each build keeps the hand fixes in its output folder."""

from __future__ import annotations

from conftest import make_tree

from musa_porting import SimplePorting


def test_a_setup_py_that_ports_on_every_build_keeps_the_hand_fixes(tmp_path):
    src = make_tree(tmp_path / "csrc", {"k.cu": "#include <cuda_runtime.h>\nvoid f(float* p) {\n"
                                                 "  cudaMalloc(&p, 4);\n}\nint g() { return 1; }\n"})
    out = tmp_path / "csrc_musa"
    SimplePorting(cuda_dir_path=str(src)).run()
    ported = out / "k.mu"
    ported.write_text(ported.read_text().replace("return 1;", "return 2;  // fixed for MUSA"))
    SimplePorting(cuda_dir_path=str(src)).run()  # the next build
    assert "fixed for MUSA" in ported.read_text()
    # A new mapping rule on a later build: merged with the fix, the fix's file kept.
    r = SimplePorting(cuda_dir_path=str(src),
                      mapping_rule={"cudaMalloc": "myMalloc"}).run()
    text = ported.read_text()
    assert "myMalloc(&p, 4)" in text and "fixed for MUSA" in text
    assert r.merged == ["k.mu"] and list((out / ".musa-port/kept").rglob("k.mu"))
