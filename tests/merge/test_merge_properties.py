"""Property test of the re-port merge (issue 39 acceptance): for random trees, random
user edits of the output and random upstream edits, a re-run loses no line the user
added unless it conflicts, and every conflict is listed."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from musa_porting import PortOptions, port_tree
from musa_porting.merge.three_way import count_conflicts, merge

CALLS = ["cudaMalloc(&p, 4);", "cudaFree(p);", "cudaDeviceSynchronize();", "int x = 1;",
         "float y = 2.0f;", "cudaStream_t s;", "return;"]

lines = st.lists(st.sampled_from(CALLS), min_size=1, max_size=8)
# Several files per tree: a run costs the same for one file or six (the rules compile
# once per run), so each example checks many files' merges for the price of two runs.
trees = st.dictionaries(st.sampled_from(["a.cu", "b.cu", "sub/c.cuh", "d.cpp", "sub/e.cu", "f.h"]),
                        lines, min_size=2, max_size=6)
# An edit: (file index, line index, what): insert a line of the user's, or change one.
edits = st.lists(st.tuples(st.integers(0, 9), st.integers(0, 20), st.booleans()), max_size=8)


def render(body: list[str]) -> str:
    return "".join(f"{x}\n" for x in body)


def user_line(i: int) -> str:
    return f"// user fix {i}: checked on MUSA"


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(tree=trees, mine=edits, theirs=edits)
def test_a_re_run_keeps_every_line_the_user_added_or_lists_the_conflict(tree, mine, theirs):
    root = Path(tempfile.mkdtemp(prefix="merge-prop-"))
    try:
        src, out = root / "src", root / "out"
        for rel, body in tree.items():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            (src / rel).write_text(render(body))
        port_tree(PortOptions(src=str(src), output=str(out), jobs=1))
        outputs = sorted(p for p in out.rglob("*") if p.is_file()
                         and not p.relative_to(out).as_posix().startswith(".musa-port"))
        outputs = [p for p in outputs if p.name != ".musa-port-manifest.json"]
        added: dict[str, list[str]] = {}
        for n, (fi, li, change) in enumerate(mine):
            p = outputs[fi % len(outputs)]
            text = p.read_text().splitlines()
            at = li % (len(text) + 1)
            if change and text and at < len(text):
                text[at] = text[at] + f"  {user_line(n)}"
            else:
                text.insert(at, user_line(n))
            p.write_text("".join(x + "\n" for x in text))
            added.setdefault(p.relative_to(out).as_posix(), []).append(user_line(n))
        sources = sorted(p for p in src.rglob("*") if p.is_file())
        for n, (fi, li, change) in enumerate(theirs):  # upstream's next release
            p = sources[fi % len(sources)]
            text = p.read_text().splitlines()
            at = li % (len(text) + 1)
            if change and text and at < len(text):
                text[at] = CALLS[n % len(CALLS)]
            else:
                text.insert(at, f"int upstream_{n} = {n};")
            p.write_text("".join(x + "\n" for x in text))

        r = port_tree(PortOptions(src=str(src), output=str(out), jobs=1))

        conflicted = set(r.conflicted)
        for rel, mine_lines in added.items():
            text = (out / rel).read_text()
            for line in mine_lines:
                assert line in text or rel in conflicted, (rel, line, text)
            if "<<<<<<< yours" in text:
                assert rel in conflicted
        for f in r.files:  # every output with markers is listed, and only those
            text = (out / f.out_rel).read_bytes()
            assert (b"<<<<<<< yours" in text) == (f.out_rel in conflicted and f.merge != "not merged")
    finally:
        shutil.rmtree(root, ignore_errors=True)


base_lines = st.lists(st.sampled_from([b"a\n", b"b\n", b"c\n", b"d\n", b"e\r\n", b"f\n"]), max_size=12)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@settings(max_examples=120, deadline=None)  # a git merge-file per case
@given(base=base_lines, mine=edits, theirs=edits)
def test_the_merge_keeps_every_added_line_outside_a_conflict_and_counts_each(base, mine, theirs):
    """The merge itself, at many more cases than the tree test: each line the user added
    is in the result, outside markers or inside one; every conflict has its markers."""
    def edited(lines: list[bytes], ops, tag: bytes) -> tuple[list[bytes], list[bytes]]:
        lines, new = list(lines), []
        for n, (_, li, change) in enumerate(ops):
            at = li % (len(lines) + 1)
            line = tag + b"%d\n" % n
            if change and at < len(lines):
                lines[at] = line
            else:
                lines.insert(at, line)
            new.append(line)
        return lines, [x for x in new if x in lines]  # a later edit may replace an earlier

    base = [x if x.endswith(b"\n") else x + b"\n" for x in base]  # whole lines
    ours, added = edited(base, mine, b"mine ")
    theirs_lines, _ = edited(base, theirs, b"theirs ")
    m = merge(b"".join(base), b"".join(ours), b"".join(theirs_lines))
    out = m.data.splitlines(True)
    for line in added:
        assert line in out
    assert count_conflicts(m.data) == m.conflicts
    if not m.conflicts:
        assert b"<<<<<<<" not in m.data
