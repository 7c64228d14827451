"""Fuzzing the lexer, the engine and the scans that follow them, over random bytes and
random mixes of C++/CUDA fragments (issue 18 "Fuzzing").

Each case ports one file's bytes the way a run does (the default tables, comments and
strings skipped or not, the message vocabulary, the tree's own includes followed) and
then scans the output for findings. It asserts what a user relies on: no exception,
and every byte outside an edit comes out exactly as it went in. CI runs 10,000 cases
(``FUZZ_CASES`` sets another count: the README gives a longer run).
"""

from __future__ import annotations

import os

from fuzzhelp import FRAGMENTS, check_round_trip
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from musa_porting.analyze.findings import find_diagnostics
from musa_porting.port.cxx.messages import MessageWords
from musa_porting.port.cxx.porter import lexer, port_bytes
from musa_porting.port.engine import Matcher
from musa_porting.rules import build_ruleset
from musa_porting.rules.vocabulary import build_vocabulary
from musa_porting.tree.active_rules import _knowledge

CASES = int(os.environ.get("FUZZ_CASES", "10000"))

_RULESET = build_ruleset()
_MATCHER = Matcher(_RULESET.rewriting())
_KNOWLEDGE = _knowledge(_RULESET, frozenset())
_MESSAGES = MessageWords(build_vocabulary())

# Fragments that steer the lexer into each of its states (fuzzhelp), and names the
# tables know.
_NAMES = sorted(_RULESET.rewriting())[::97]  # a spread of ~300 table keys
_fragment = st.one_of(st.sampled_from(FRAGMENTS["cxx"]), st.sampled_from(_NAMES),
                      st.binary(max_size=6).map(lambda b: b.decode("latin-1")))
_source = st.one_of(
    st.binary(max_size=300),
    st.lists(_fragment, max_size=40).map(lambda parts: "".join(parts).encode("utf-8",
                                                                             "surrogateescape")),
)


def _tree_includes(target: str) -> str | None:
    """As if the tree held every ``*.cuh`` it includes: they follow the rename."""
    return target[:-4] + ".muh" if target.endswith(".cuh") else None


@settings(max_examples=CASES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_source, st.sampled_from([frozenset(), frozenset({"comments"}),
                                 frozenset({"comments", "strings"})]))
def test_random_sources_port_without_error_and_keep_untouched_bytes(src, skip):
    lexed = lexer.Lexed(src)
    for s, e, _kind in lexed.typed:
        assert 0 <= s <= e <= len(src)
    for inc in lexed.includes:
        assert 0 < inc.start <= inc.end < len(src)
    ported = port_bytes(src, _MATCHER, include_mapper=_tree_includes, skip=skip,
                        messages=_MESSAGES, lexed=lexed)
    check_round_trip(src, ported.data, ported.edits)
    event("edited" if ported.edits else "unchanged")  # --hypothesis-show-statistics
    out_lines, src_lines = ported.data.count(b"\n") + 1, src.count(b"\n") + 1
    for d in find_diagnostics(src, ported.data, ported.edits, _KNOWLEDGE, lexed):
        assert 1 <= d.line <= out_lines and d.column >= 1, d  # a place in each file
        assert 1 <= d.src_line <= src_lines and d.src_column >= 1, d
