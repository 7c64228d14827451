"""The fast scans find exactly what their plain regular expressions find.

The residual scan, the warp-size hazard, the symbol index's word finder and its test
for bindings each have a faster implementation than the regex that defines them; these
tests hold the two to the same answers on generated text and on the fixtures.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from musa_porting.analyze import exported, include_findings, residuals, warp
from musa_porting.analyze.offsets import EditMap
from musa_porting.analyze.word_finder import WordFinder
from musa_porting.port.cxx.lexer import Include
from musa_porting.port.engine import Edit
from musa_porting.rules.model import Rule
from musa_porting.rules.vocabulary import build_vocabulary
from musa_porting.tree import backends

# Small alphabets that make the heads (cuda, CU_, NVx, __nv, cuX) and their
# near misses likely.
residual_text = st.text(alphabet="cudaCUDANVnv_xX9 .:(\n", max_size=120)
warp_text = st.text(alphabet="warpWARPlneL_x =!<{#defin\t32", max_size=60)

# The definition of the warp-size constant that warp.warp_constant reads backwards: a
# name holding "warp" or "lane" (any case) assigned (=, {) or #defined.
WARP_ASSIGN_RE = re.compile(rb"(?:[A-Za-z0-9_]*(?i:warp|lane)[A-Za-z0-9_]*[ \t]*"
                            rb"(?:(?<![=!<>])=[ \t]*\{?|\{)|"
                            rb"#[ \t]*define[ \t]+[A-Za-z0-9_]*(?i:warp|lane)[A-Za-z0-9_]*)[ \t]*$")


@settings(max_examples=800, deadline=None)
@given(residual_text)
def test_residual_matches_are_the_regex_matches(text):
    data = text.encode()
    expected = [(m.start(), m.group()) for m in residuals.RESIDUAL_RE.finditer(data)]
    assert [(m.start(), m.group()) for m in residuals.residual_matches(data)] == expected


def test_residual_matches_use_the_automaton():
    """The wheel is a dependency: the fast path is the one that runs."""
    assert residuals._automaton()


@settings(max_examples=800, deadline=None)
@given(warp_text)
def test_warp_context_is_the_regex_search(text):
    data = text.encode()
    m = WARP_ASSIGN_RE.search(data)
    assert warp.warp_constant(data, 0, len(data)) == (m.start() if m else None)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="cudaCUDAmsnclbh_x \n", max_size=120))
def test_word_finder_starts_are_the_regex_starts(monkeypatch_env, text):
    vocab = build_vocabulary(default=True, files=[], sections=[])
    fast = WordFinder(vocab)
    monkeypatch_env.setenv("MUSA_PORT_PURE_PYTHON", "1")
    slow = WordFinder(vocab)
    monkeypatch_env.delenv("MUSA_PORT_PURE_PYTHON")
    assert fast._ac is not None and slow._ac is None
    low = text.encode().lower()
    assert fast.starts(low) == slow.starts(low)
    assert fast.present(low) == slow.present(low)


def test_scans_agree_on_the_fixtures():
    from conftest import FIXTURES

    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file() and path.suffix in (".cu", ".cuh", ".h", ".cpp", ".hpp", ".c"):
            data = path.read_bytes()
            assert [m.span() for m in residuals.residual_matches(data)] == \
                [m.span() for m in residuals.RESIDUAL_RE.finditer(data)], path
            for line in data.splitlines():
                m = WARP_ASSIGN_RE.search(line)
                assert warp.warp_constant(line, 0, len(line)) == (m.start() if m else None)


# Pieces of the bindings' anchors and their near misses (def and impl without the dot,
# class_ with no <, the words cut short).
anchor_pieces = st.lists(st.sampled_from([
    b".", b"def", b"impl", b"_static", b" ", b"\t", b"\n", b"(", b"x", b"class_", b"enum_",
    b"class", b"<", b"PYBIND11_MODULE", b"PYBIND11_", b"TORCH_LIBRARY", b"TORCH_EXTENSION_NAME",
    b"TORCH_EXTENSION"]), max_size=12).map(b"".join)


@settings(max_examples=800, deadline=None)
@given(anchor_pieces)
def test_may_bind_is_the_anchor_regex_search(data):
    assert exported.may_bind(data) == (exported._ANCHOR.search(data) is not None)


# Include targets from the pieces the include findings look for, and near misses.
target = st.lists(st.sampled_from([
    "mma.h", "cuda/", "pipeline", "barrier", "ptx", "nvshmem", "nvshmemx", "cufile", "nv-p2p",
    ".h", "x", "a/", "cooperative_groups/", "reduce.h", "sm_80_intrinsics.h", "sm_", "90",
    "nvml.h", "thrust/", "musa_pipeline.h", "/"]), min_size=1, max_size=4).map("".join)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.tuples(target, st.sampled_from(["", "unknown", "supported"])), max_size=6),
       st.booleans())
def test_include_findings_skip_only_files_with_none(includes, skip_all):
    """The test of a file's includes as a whole finds a file with findings whenever
    reading them one by one would: a header renamed by an unknown-status rule, one of
    no twin, of no counterpart."""
    incs, edits = [], []
    for i, (name, status) in enumerate(includes):
        start = 100 * i + 10
        incs.append(Include(start, start + len(name), name, True, i + 1))
        if status:
            edits.append(Edit(start - 1, start + len(name) + 1, i + 1, 10, "<cuda_x.h>",
                              f"<{name}>", Rule("<cuda_x.h>", f"<{name}>", "runtime", status)))
    emap = EditMap(edits)
    skip = lambda inc: skip_all  # noqa: E731
    assert list(include_findings.include_findings(incs, emap, skip)) == \
        list(include_findings._each(incs, emap, skip))


def _backend_part_by_part(rel: str) -> str | None:
    """tree/backends.backend_of without its test of the whole path first."""
    for part in rel.lower().split("/"):
        for w in re.findall(r"[A-Za-z]+", part.rsplit(".", 1)[0] if "." in part else part):
            if w in backends.OTHER_BACKENDS:
                return w
    return None


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(["hip", "HIP", "cpu", "Cpu", "xpu", "chip", "hipx", "_", ".",
                                 "/", "k", "cuda", "ops", ".cpp", ".hip", "metal", "2", "-"]),
                max_size=8).map("".join))
def test_backend_of_is_the_part_by_part_search(rel):
    assert backends.backend_of(rel) == _backend_part_by_part(rel)

