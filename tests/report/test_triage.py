"""Issue 35, point 6: the summary ends with the hand work ranked: files by their
error-level findings, then their warnings, each with the reason of its top finding."""

from __future__ import annotations

import io

from rich.console import Console

from musa_porting import PortOptions, port_tree
from musa_porting.report.summary import print_summary

FILES = {
    # many warnings, no error (a kernel file with inline PTX)
    "ptx.cu": "".join(f'__device__ void f{i}() {{ asm volatile("bar.sync 0;"); }}\n' for i in range(5)),
    # one error (an expert-parallel file with NVSHMEM) and one warning
    "ep.cu": "__global__ void k(float* b) {\n  nvshmem_fence();\n  asm(\"membar.gl;\");\n}\n",
    # notes only: no hand work
    "groups.cu": "#define WARP_SIZE 32\n",
}


def test_the_summary_ends_with_the_files_ranked_by_hand_work(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for name, text in FILES.items():
        (src / name).write_text(text)
    r = port_tree(PortOptions(src=str(src), output=str(tmp_path / "out"), jobs=1))
    buf = io.StringIO()
    print_summary(r, Console(file=buf, width=200, force_terminal=False), max_findings=0)
    text = buf.getvalue()
    head = "Hand work, by file"
    assert head in text
    triage = text[text.index(head):].splitlines()
    assert len(triage) == 3  # the heading, then ep.mu, then ptx.mu: nothing after it
    assert "ep.mu: 1 error, 1 warning" in triage[1]
    assert "MP2109" in triage[1] and "NVSHMEM" in triage[1] and "line 2" in triage[1]
    assert "ptx.mu: 5 warnings" in triage[2] and "MP2001" in triage[2]
    assert "groups.mu" not in text[text.index(head):]
