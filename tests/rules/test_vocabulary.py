"""The name-part vocabulary: CUDA words inside names, in every case style."""

from __future__ import annotations

import json

import pytest
from conftest import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from musa_porting.errors import PortError
from musa_porting.rules.vocabulary import build_vocabulary, split_parts

VENDOR = ROOT.parent / "shared" / "data" / "torch_musa"


@pytest.fixture(scope="module")
def vocab():
    return build_vocabulary()


@pytest.mark.parametrize("name,parts", [
    ("getCUDAStream", ["get", "CUDA", "Stream"]),
    ("MYLIB_CUDA_CHECK", ["MYLIB", "_", "CUDA", "_", "CHECK"]),
    ("CuptiTracer", ["Cupti", "Tracer"]),
    ("cuda2d_x", ["cuda", "2", "d", "_", "x"]),
])
def test_split_parts_round_trips(name, parts):
    assert split_parts(name) == parts
    assert "".join(split_parts(name)) == name


@pytest.mark.parametrize("cuda,musa", [
    ("MYLIB_CUDA_CHECK", "MYLIB_MUSA_CHECK"),   # the examples, every case style
    ("launchCudaKernel", "launchMusaKernel"),
    ("cuda_workspace_bytes", "musa_workspace_bytes"),
    ("CuptiTracer", "MuptiTracer"),
    ("cupti_buffer", "mupti_buffer"),
    ("WITH_CUDA", "WITH_MUSA"),
    ("CUDA_1D_KERNEL_LOOP", "MUSA_1D_KERNEL_LOOP"),
    ("getCUDAHooks", "getMUSAHooks"),
    ("gemm_cuda", "gemm_musa"),
    ("CUDART_VERSION", "MUSART_VERSION"),          # a word that goes on in its case
    ("ERROR_NVLINK_X", "ERROR_MTLINK_X"),          # the vendor's inner words
    ("my_nvtx_range", "my_mttx_range"),
    ("use_cublaslt", "use_mublaslt"),
    ("NcclComm", "McclComm"),
    ("NMSCUDAKernelLauncher", "NMSMUSAKernelLauncher"),  # two acronyms in one run
    ("CutlassGemm", "MutlassGemm"),                # MUTLASS and its CuTe (issue 26)
    ("cutlass_kernel", "mutlass_kernel"),
    ("CuteTensor", "MuteTensor"),
    ("CUTE_HELPER", "MUTE_HELPER"),
    ("num_nvl_bytes", "num_mtl_bytes"),            # NVLink's abbreviation
    ("NUM_MAX_NVL_PEERS", "NUM_MAX_MTL_PEERS"),
    ("kNumNVLRanks", "kNumMTLRanks"),
    ("has_nvswitch", "has_mtswitch"),              # the vendor's NVSWITCH -> MTSWITCH
])
def test_renames(vocab, cuda, musa):
    assert vocab.rename(cuda) == musa


@pytest.mark.parametrize("name", ["Accumulate", "cu_seqlens", "barracuda", "nv_half", "CURRENT",
                                  "accumulate_sum", "execute", "THREADS",
                                  # whole-part words never begin or end a longer part
                                  "EXECUTE", "execute_plan", "cuter", "CUTEST", "nvlist",
                                  "NVLS_SIZE"])
def test_names_without_a_word_stay(vocab, name):
    assert vocab.rename(name) is None


def test_words_can_be_switched_off_and_added():
    v = build_vocabulary(sections=[("rules.yaml", {"CUDA": False, "HIP": "MUSA"})])
    assert v.rename("WITH_CUDA") is None
    assert v.rename("hip_stream") == "musa_stream"
    assert v.rename("CuptiTracer") == "MuptiTracer"


def test_whole_words_are_not_words_of_prose(vocab):
    prose = vocab.forms(prose=True)
    assert "cute" not in prose and "NVL" not in prose and "CUDA" in prose
    assert {"cute", "CUTE", "nvl"} <= set(vocab.forms())


def test_a_vocabulary_file_can_mark_a_word_whole(tmp_path):
    f = tmp_path / "v.json"
    f.write_text('{"HIP": {"musa": "MUSA", "whole": true}}')
    v = build_vocabulary(default=False, files=[f])
    assert v.rename("hip_stream") == "musa_stream"
    assert v.rename("hipster") is None and v.rename("CHIP") is None


def test_bad_vocabulary_is_one_error(tmp_path):
    bad = tmp_path / "v.json"
    bad.write_text('{"CUDA": 3}')
    with pytest.raises(PortError, match="give its MUSA word"):
        build_vocabulary(files=[bad])
    bad.write_text('{"CUDA": "MU SA"}')
    with pytest.raises(PortError, match="not a name part"):
        build_vocabulary(files=[bad])


def test_every_shipped_word_has_a_source():
    doc = json.loads((ROOT / "mapping" / "vocabulary.json").read_text())
    assert doc["words"]["NVLINK"]["musa"] == "MTLINK"
    assert all(w["source"] for w in doc["words"].values())


@pytest.mark.skipif(not VENDOR.is_dir(), reason="needs ../shared/data/torch_musa")
def test_shipped_vocabulary_is_derived_from_the_vendor_tables():
    from musa_porting.tables import vocabulary

    assert vocabulary.main(["--vendor", str(VENDOR), "--check"]) == 0


@pytest.mark.skipif(not VENDOR.is_dir(), reason="needs ../shared/data/torch_musa")
def test_every_inner_word_change_of_the_vendor_tables_is_reviewed(vocab):
    """Each part the vendor's tables change inside a name is made by the vocabulary or
    left out with a reason (tables/vocabulary.py: LEFT_OUT)."""
    from musa_porting.tables import vocabulary

    assert vocabulary.unreviewed(VENDOR, vocab) == []
    # The lead words (cu, nv) are not inner words: only a name's first part, in their shape.
    inner = {k for k, w in vocab.words.items() if not w.lead}
    assert set(vocabulary.LEFT_OUT).isdisjoint(inner)
    assert {k for k, w in vocab.words.items() if w.lead} == {"CU", "NV"}


def _rename_part_trying_every_length(vocab, part):
    """Vocabulary.rename_part without its test of whether a part begins with a form."""
    hit = vocab._forms.get(part)
    if hit is not None:
        return hit
    for n in vocab._lengths:
        new = vocab._open.get(part[:n]) if n < len(part) else None
        if new is not None:
            rest = part[n:]
            if (rest.isupper() if part[n - 1].isupper() else rest.islower()) and rest.isalpha():
                return new + rest
    if part.isupper() and part.isalpha():
        for n in vocab._lengths:
            if len(part) - 1 > n >= 4 and vocab._open.get(part[-n:]) is not None:
                return part[:-n] + vocab._open[part[-n:]]
    return None


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(["CUDA", "cuda", "Cuda", "CUBLAS", "cublas", "LT", "lt", "RT",
                                 "rt", "NVIDIA", "Nvidia", "NMS", "CUTE", "cute", "r", "X", "x",
                                 "NV", "nv", "TX", "tx", "CU", "cu", "DNN", "dnn"]),
                min_size=1, max_size=4).map("".join))
def test_rename_part_is_the_same_with_the_begins_test(vocab, part):
    assert vocab.rename_part(part) == _rename_part_trying_every_length(vocab, part)
