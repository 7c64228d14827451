"""The rewriting engine: boundaries, leftmost-longest, fallback, byte round-trips."""

from __future__ import annotations

import pytest

from musa_porting.port.engine import Matcher, rewrite


def port(text: str | bytes, rules: dict[str, str]) -> bytes:
    data = text.encode() if isinstance(text, str) else text
    return rewrite(data, Matcher(rules)).data


def test_subword_key_never_touches_identifiers():
    assert port("Accumulate(cu); cu", {"cu": "mu"}) == b"Accumulate(mu); mu"


@pytest.mark.parametrize("text", ["cuda_cub::par", "my_cuda", "cudart", "CUDA", "xcuda", "cuda2"])
def test_alnum_edges_need_identifier_boundaries(text):
    assert port(text, {"cuda": "musa"}) == text.encode()


def test_whole_word_matches_everywhere_else():
    assert port("cuda::std; (cuda) cuda", {"cuda": "musa"}) == b"musa::std; (musa) musa"


def test_underscore_edge_matches_inside_identifiers():
    text = "#ifndef PYTORCH_CUDA_HELPER_CUH\n#define FOO_CUDA_KERNEL_CUH\n"
    assert port(text, {"_CUH": "_MUH"}) == (
        b"#ifndef PYTORCH_CUDA_HELPER_MUH\n#define FOO_CUDA_KERNEL_MUH\n")
    # ...but its alphanumeric right edge still needs a boundary.
    assert port("X_CUHX", {"_CUH": "_MUH"}) == b"X_CUHX"


def test_punctuation_keys_match_mid_expression():
    rules = {".is_cuda()": ".is_privateuseone()", "::cuda::": "::musa::", ", CUDA,": ", PrivateUse1,"}
    text = "if (x.is_cuda()) at::cuda::getStream(); REG(f, CUDA, g);"
    assert port(text, rules) == (
        b"if (x.is_privateuseone()) at::musa::getStream(); REG(f, PrivateUse1, g);")


def test_leftmost_longest_and_one_pass():
    rules = {"cudaMalloc": "musaMalloc", "cudaMallocHost": "musaMallocHost", "musaMalloc": "WRONG"}
    assert port("cudaMallocHost cudaMalloc", rules) == b"musaMallocHost musaMalloc"


def test_output_of_one_rule_is_not_rewritten_by_another():
    rules = {"a": "b", "b": "c"}
    assert port("a b", rules) == b"b c"


def test_shorter_key_is_tried_when_longest_fails_boundary():
    # "cudaStream" fails its right boundary in "cudaStreamX"; "cuda::" does not apply;
    # the shorter "cudaStr" does not exist; a key ending in punctuation does.
    rules = {"foo_bar": "X", "foo_": "Y_"}
    assert port("foo_barbaz", rules) == b"Y_barbaz"
    rules = {"ab": "X", "a": "Y"}
    assert port("ab_ a", rules) == b"ab_ Y"


def test_match_at_offset_zero_and_end_of_file():
    assert port("cudaFree", {"cudaFree": "musaFree"}) == b"musaFree"
    assert port("cudaFree(x);\ncudaFree", {"cudaFree": "musaFree"}) == b"musaFree(x);\nmusaFree"


def test_bytes_round_trip_outside_edits():
    data = b"\xef\xbb\xbfcudaFree(p);\r\n// caf\xe9 \xff\xfe\r\ncudaFree(q);\r\n"
    out = port(data, {"cudaFree": "musaFree"})
    assert out == data.replace(b"cudaFree", b"musaFree")


def test_edits_carry_line_column_and_rule():
    data = b"int a;\r\n  cudaMalloc(&p);\n\tx = cudaFree(p);"
    res = rewrite(data, Matcher({"cudaMalloc": "musaMalloc", "cudaFree": "musaFree"}))
    assert [(e.line, e.column, e.old, e.new) for e in res.edits] == [
        (2, 3, "cudaMalloc", "musaMalloc"),
        (3, 6, "cudaFree", "musaFree"),
    ]


def test_identity_rule_protects_without_editing():
    rules = {"cudaFooBar": "cudaFooBar", "cuda": "musa"}
    res = rewrite(b"cudaFooBar cuda", Matcher(rules))
    assert res.data == b"cudaFooBar musa"
    assert [e.old for e in res.edits] == ["cuda"]


def test_excluded_spans_are_not_rewritten():
    data = b"cudaFree // cudaFree\ncudaFree"
    res = rewrite(data, Matcher({"cudaFree": "musaFree"}), excluded=[(9, 20)])
    assert res.data == b"musaFree // cudaFree\nmusaFree"


def test_non_ascii_rules():
    assert port("x caf\u00e9 y", {"caf\u00e9": "bar"}) == b"x bar y"


def test_port_text_library_call():
    from musa_porting import port_text

    text, edits = port_text("x = cudaMalloc(&p);\n// Accumulate cu\n", {"cudaMalloc": "musaMalloc",
                                                                        "cu": "mu"})
    assert text == "x = musaMalloc(&p);\n// Accumulate mu\n"
    assert [(e.line, e.column, e.old, e.new) for e in edits] == [
        (1, 5, "cudaMalloc", "musaMalloc"), (2, 15, "cu", "mu")]
    data, _ = port_text(b"cudaStream_t s; // caf\xe9")
    assert data == b"musaStream_t s; // caf\xe9"


def test_keys_starting_with_a_rare_byte_are_whole_identifiers_too():
    """Among many keys starting with one byte (``c``), a key starting with a rare one
    (``setCurrentCUDAStream``, ``resetCUDABlas``) matches, and only as a whole
    identifier, with either matcher."""
    rules = {f"cudaFn{i}": f"musaFn{i}" for i in range(40)}
    rules.update({f"CUfn{i}": f"MUfn{i}" for i in range(40)})
    rules.update({"setCUDABlas": "setMUSABlas", "resetCUDABlas": "resetMUSABlas",
                  "empty_cuda": "empty_musa", "kCUDA": "kMUSA"})
    m = Matcher(rules)
    text = (b"setCUDABlas(); resetCUDABlas(); xsetCUDABlas(); setCUDABlasX(); empty_cuda;"
            b" my_empty_cuda; at::kCUDA; kCUDA_; cudaFn3(); mkCUDA; kCUDA")
    assert rewrite(text, m).data == (
        b"setMUSABlas(); resetMUSABlas(); xsetCUDABlas(); setCUDABlasX(); empty_musa;"
        b" my_empty_cuda; at::kMUSA; kCUDA_; musaFn3(); mkCUDA; kMUSA")
    assert rewrite(b"kCUDA", m).data == b"kMUSA"  # at offset zero


def test_inner_matcher_acts_inside_names_like_the_rules_that_do():
    """A project's new names go through the rules that act inside a name (``_CUH``,
    ``substr:`` keys); the matcher of those, taken from the run's compiled matcher,
    rewrites exactly as one compiled from those rules alone."""
    rules = {"cudaStream_t": "musaStream_t", "_CUH": "_MUH", "<cuda.h>": "<musa.h>",
             "substr:Cuda": "Musa", "::cuda::": "::musa::"}
    inner = Matcher(rules).inner()
    alone = Matcher({k: v for k, v in rules.items() if k in ("_CUH", "substr:Cuda", "::cuda::")})
    assert set(inner.rules) == set(alone.rules)
    for name in (b"KERNEL_CUH", b"runCudaKernel", b"cudaStream_t", b"a::cuda::b", b"CUDA_CUH_X"):
        assert rewrite(name, inner).data == rewrite(name, alone).data
    assert rewrite(b"runCudaKernel_CUH", inner).data == b"runMusaKernel_MUH"
