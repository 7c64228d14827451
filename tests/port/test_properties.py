"""Engine properties, checked with hypothesis."""

from __future__ import annotations

import string

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from musa_porting.port.engine import IDENT_BYTES, Matcher, rewrite
from musa_porting.rules import build_ruleset

IDENT_CHARS = string.ascii_letters + string.digits + "_"
# Small alphabets make collisions between keys and text likely, which is the point.
key_text = st.text(alphabet="cuCU_da.:", min_size=1, max_size=5)
any_text = st.text(alphabet="cuCU_da.: \n", max_size=60)


def _is_ident(b: int) -> bool:
    return b in IDENT_BYTES


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(key_text, st.text(alphabet="mMxX", min_size=1, max_size=4), min_size=1,
                       max_size=6), any_text)
def test_no_edit_splits_an_identifier_on_an_alphanumeric_edge(rules, text):
    data = text.encode()
    for e in rewrite(data, Matcher(rules)).edits:
        if e.old[0].isalnum() and e.start > 0:
            assert not _is_ident(data[e.start - 1])
        if e.old[-1].isalnum() and e.end < len(data):
            assert not _is_ident(data[e.end])
        assert data[e.start:e.end] == e.old.encode()


ident = st.text(alphabet=string.ascii_lowercase + "_", min_size=1, max_size=6).filter(
    lambda s: s[0].isalpha() and s[-1].isalpha())
separator = st.text(alphabet=" \t\n();,.<>+*-=\"'/#", min_size=1, max_size=3)


@settings(max_examples=300, deadline=None)
@given(st.lists(ident, min_size=1, max_size=8, unique=True), st.data())
def test_rename_then_inverse_restores_the_input(keys, data):
    # Injective rename-only rules: values from a disjoint alphabet (upper case).
    values = data.draw(st.lists(st.text(alphabet=string.ascii_uppercase, min_size=1, max_size=6),
                                min_size=len(keys), max_size=len(keys), unique=True))
    forward = dict(zip(keys, values))
    inverse = {v: k for k, v in forward.items()}
    words = data.draw(st.lists(st.sampled_from(keys), max_size=12))
    seps = data.draw(st.lists(separator, min_size=len(words) + 1, max_size=len(words) + 1))
    text = seps[0] + "".join(w + s for w, s in zip(words, seps[1:]))
    ported = rewrite(text.encode(), Matcher(forward)).data
    assert rewrite(ported, Matcher(inverse)).data == text.encode()


_DEFAULTS = build_ruleset().rewriting()
_DEFAULT_MATCHER = Matcher(_DEFAULTS)
_pieces = sorted(set(_DEFAULTS) | {r.value for r in _DEFAULTS.values()})
neutral = st.sampled_from([" ", "\n", "(", ")", ";", "x", "_", "::", ".", "<", ">", "\"", "/", "0"])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_pieces), neutral), max_size=25))
def test_porting_its_own_output_changes_nothing(parts):
    text = "".join(parts).encode()
    once = rewrite(text, _DEFAULT_MATCHER).data
    twice = rewrite(once, _DEFAULT_MATCHER)
    assert twice.data == once, [e.old for e in twice.edits]


_KEY_BYTES = [k.encode() for k in _DEFAULTS]


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.binary(max_size=200),
                 st.lists(st.sampled_from([b"nccl", b"nvcc", b"cu", b"mu", b" ", b"_", b"x",
                                           b"NV", b"cublas", b"\n"]), max_size=20).map(b"".join)))
def test_bytes_without_keys_round_trip(blob):
    """Bytes holding no key of the tables anywhere (checked the slow and obvious way,
    not with the matcher under test) come out as they went in."""
    assume(not any(k in blob for k in _KEY_BYTES))
    assert rewrite(blob, _DEFAULT_MATCHER).data == blob


def _reference(data: bytes, rules: dict[str, str]) -> bytes:
    """Leftmost-longest with boundary checks, written the slow and obvious way."""
    keys = sorted((k.encode() for k in rules), key=len, reverse=True)
    out, i = [], 0
    while i < len(data):
        for k in keys:
            if not data.startswith(k, i):
                continue
            j = i + len(k)
            if k[0:1].isalnum() and i > 0 and _is_ident(data[i - 1]):
                continue
            if k[-1:].isalnum() and j < len(data) and _is_ident(data[j]):
                continue
            out.append(rules[k.decode()].encode())
            i = j
            break
        else:
            out.append(data[i:i + 1])
            i += 1
    return b"".join(out)


mixed_key = st.text(alphabet="cuCU_d:.(", min_size=1, max_size=5)


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(mixed_key, st.text(alphabet="mMx", min_size=1, max_size=3), min_size=1,
                       max_size=8), st.text(alphabet="cuCU_d:.( x\n", max_size=50))
def test_matcher_agrees_with_the_obvious_algorithm(rules, text):
    data = text.encode()
    assert rewrite(data, Matcher(rules)).data == _reference(data, rules)


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(st.text(alphabet="cudaCUDAx_9:.", min_size=1, max_size=7),
                       st.text(alphabet="mMxX", min_size=1, max_size=4), min_size=1, max_size=12),
       st.text(alphabet="cudaCUDAx_9:. \n", max_size=120), st.lists(st.integers(0, 120), max_size=4))
def test_the_compiled_matcher_finds_exactly_what_the_pure_python_one_does(monkeypatch_env, rules,
                                                                           text, cuts):
    """The Aho-Corasick word finder (ahocorasick_rs) and the token regex give the same
    matches, also on segments (the engine matches between excluded spans)."""
    data = text.encode()
    fast = Matcher(rules)
    monkeypatch_env.setenv("MUSA_PORT_PURE_PYTHON", "1")
    slow = Matcher(rules)
    monkeypatch_env.delenv("MUSA_PORT_PURE_PYTHON")
    bounds = sorted({0, len(data), *(min(c, len(data)) for c in cuts)})
    for s, e in zip(bounds, bounds[1:]):
        assert list(fast.finditer(data, s, e)) == list(slow.finditer(data, s, e))
    assert rewrite(data, fast).data == rewrite(data, slow).data


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(st.text(alphabet="cudaCUDAx_9:.", min_size=1, max_size=7),
                       st.text(alphabet="mMxX", min_size=1, max_size=4), min_size=1, max_size=10),
       st.dictionaries(st.text(alphabet="cudaCUDAx_9:.", min_size=1, max_size=7),
                       st.text(alphabet="pP", min_size=1, max_size=3), max_size=6),
       st.text(alphabet="cudaCUDAx_9:. \n", max_size=120), st.booleans())
def test_an_extended_matcher_is_the_matcher_of_the_merged_rules(monkeypatch_env, rules, extra,
                                                                text, pure):
    """The tables' matcher is compiled before the project's renames are known and then
    extended with them: the same matches as one matcher of both (a rule keeps its key)."""
    monkeypatch_env.setenv("MUSA_PORT_PURE_PYTHON", "1" if pure else "0")
    data = text.encode()
    extended = Matcher(rules).extended(extra)
    merged = Matcher({**extra, **rules})
    monkeypatch_env.delenv("MUSA_PORT_PURE_PYTHON")
    assert list(extended.finditer(data)) == list(merged.finditer(data))
    assert extended.rules == merged.rules and extended.families == merged.families


def test_the_compiled_matcher_is_in_use():
    """The wheel is a dependency: without it a port is slower, not different."""
    assert Matcher({"cudaMalloc": "musaMalloc"})._word_acs



def _tree_bytes(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.relative_to(root).as_posix().startswith(".musa-port")}


def test_both_matchers_port_the_fixtures_byte_for_byte_alike(tmp_path, monkeypatch):
    """The compiled (ahocorasick_rs) and the pure-Python matcher give the same trees."""
    from conftest import FIXTURES, MMCV_IGNORES, MMCV_RULES_JSON

    from musa_porting import PortOptions, port_tree

    cases = [("mmcv_like", dict(ignore=MMCV_IGNORES, rule_files=[str(MMCV_RULES_JSON)])),
             ("project_symbols/src", {}), ("cuda_app", {}), ("build_case", {}),
             ("python_app", {})]
    for name, extra in cases:
        outs = []
        for pure in ("0", "1"):
            monkeypatch.setenv("MUSA_PORT_PURE_PYTHON", pure)
            out = tmp_path / f"{name.replace('/', '_')}_{pure}"
            port_tree(PortOptions(str(FIXTURES / name), str(out), jobs=1, **extra))
            outs.append(_tree_bytes(out))
        assert outs[0] == outs[1], name
