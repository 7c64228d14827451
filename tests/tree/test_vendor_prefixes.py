"""Issue 45 point 3: prefixes built on a vendor abbreviation (THC-era THCP, the API
prefixes cu and nv glued to a project's names) are renamed as vendor words are, in the
tree's own definitions and every use (fixtures/naming/vendor_prefixes, with a near miss)."""

from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES

from musa_porting import PortOptions, port_tree
from musa_porting.analyze.word_finder import WordFinder
from musa_porting.rules.vocabulary import build_vocabulary

CASES = FIXTURES / "naming"


def port(src: Path, out: Path, **kw):
    result = port_tree(PortOptions(str(src), str(out), jobs=1, **kw))
    texts = {p.relative_to(out).as_posix(): p.read_text() for p in sorted(out.rglob("*"))
             if p.is_file() and not p.relative_to(out).parts[0].startswith(".musa-port")}
    return result, texts


def test_thcp_and_the_api_prefixes_in_the_trees_names_take_musas_letters(tmp_path):
    result, out = port(CASES / "vendor_prefixes" / "src", tmp_path / "out")
    stream, event, unit = out["csrc/musa/Stream.h"], out["csrc/musa/Event.h"], out["csrc/musa/Event.cpp"]
    assert "struct THMPStream {" in stream and "extern PyObject* THMPStreamClass;" in stream
    assert "inline bool THMPStream_Check(PyObject* obj) {" in stream
    assert "PyObject* THMPStreamClass = nullptr;" in out["csrc/musa/Stream.cpp"]
    assert "struct THMPEvent {" in event and "PyObject* THMPEvent_record(PyObject* self" in event
    assert "auto* st = reinterpret_cast<THMPStream*>(stream);" in unit
    assert "MU_CHECK(musaEventRecord(ev->event, st->stream));" in unit
    assert "return blocks > MT_MAX_BLOCKS_PER_SM ? MT_MAX_SHARED_MEM_PER_SM / MT_MAX_BLOCKS_PER_SM" in unit
    assert 'mtAssert(module != nullptr, "THMPEvent_init needs a module");' in unit
    assert "int cu_seqlens[4] = {0, 3, 5, 9};" in unit
    limits = out["include/device_limits.h"]
    assert "#define MT_MAX_BLOCKS_PER_SM 32" in limits and "#define MU_CHECK(expr)" in limits
    assert "inline void mtAssert(bool ok, const char* what) {" in limits
    # A prefix is not a word of prose: the comment that names it stays.
    assert "// The framework's Python binding of a MUSA stream (THC-era prefix: THCP)." in stream
    renamed = {r.old: r.new for r in result.project.renames.values()}
    assert renamed["THCPEventClass"] == "THMPEventClass" and renamed["CU_CHECK"] == "MU_CHECK"


def test_names_that_only_begin_with_the_letters_keep_them(tmp_path):
    src = CASES / "vendor_prefixes_near_miss" / "src"
    result, out = port(src, tmp_path / "out")
    assert out["varlen.mu"] == (src / "varlen.cu").read_text().replace("cuda_runtime.h", "musa_runtime.h")
    assert not result.project.renames


def test_the_lead_words_shape():
    v = build_vocabulary()
    assert [v.rename(n) for n in ("cuCheck", "_nvAssert", "CU_CHECK", "THCPModule_init")] == [
        "muCheck", "_mtAssert", "MU_CHECK", "THMPModule_init"]
    assert [v.rename(n) for n in ("cu_seqlens", "CUSTOM", "NVALUES", "nvalues", "Cursor", "cuts",
                                  "THCK", "MATHCP")] == [None] * 8
    # libcu++'s <nv/target> macros keep their names (MUSA keeps the header): not even a hit.
    data = b"NV_IF_TARGET(NV_IS_DEVICE, (x();))\nCU_CHECK(y);\n"
    assert WordFinder(v).lead_starts(data) == [data.index(b"CU_CHECK")]
    # Switched off like any word.
    off = build_vocabulary(sections=[("rules.yaml", {"CU": False, "THCP": False})])
    assert off.rename("cuCheck") is None and off.rename("THCPStream") is None
