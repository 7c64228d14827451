"""Porting the bytes of one source file: rules, includes, markers, skipped regions.

A pure function of its inputs (bytes in, bytes and edits out) so that it can run in
any process and be tested without a tree.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence, Set
from dataclasses import dataclass, field

from ...rules.project import PROJECT_FAMILY
from ..cuda_strings import CudaStrings
from ..engine import Edit, Matcher, rewrite
from ..text_rules import TextRule, covers, cut_warnings, rewrite_text_rules
from . import lexer
from .arch_values import threshold_edits
from .dispatch_keys import registration_edits
from .legacy import LEGACY_FAMILY, LegacyGate, may_be_deprecated
from .messages import MessageWords
from .project_names import ProjectNames

INCLUDE_FAMILY = "includes"
# The headers of the CUDA libraries MUSA keeps under their own names (muThrust, muAlg and
# libcu++: <thrust/...>, <cub/cub.cuh>, <cuda/std/atomic>, <cuda/barrier>, <nv/target>):
# a rule for a part of a name (the manual's ".cuh -> .muh") does not rewrite their
# includes; a rule for the whole include still does. (tree/vendored.py knows their copies.)
KEPT_LIBRARY_HEADER = re.compile(r"(?:thrust|cub)/|cuda/std/|cuda/[a-z_]+$|nv/target$")

# Lets a caller decide, per include target, whether it is a file of the tree and
# what it becomes: returns the new target text, or None when it is not in the tree.
IncludeMapper = Callable[[str], "str | None"]


@dataclass
class FilePort:
    data: bytes
    edits: list[Edit]
    warnings: list[tuple[int, str]] = field(default_factory=list)  # (line, message)
    lexed: lexer.Lexed | None = None  # the input's lexing, for the scans that follow

    def by_family(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for e in self.edits:
            fam = getattr(e.rule, "family", INCLUDE_FAMILY)
            out[fam] = out.get(fam, 0) + 1
        return out

    def by_rule(self) -> dict[str, int]:
        """Replacements per rule key; include renames count as ``old -> new`` pairs, and
        a rule with an empty value as ``old (deleted)``."""
        out: dict[str, int] = {}
        for e in self.edits:
            key = f"{e.old} -> {e.new}" if e.rule is None else e.old if e.new else f"{e.old} (deleted)"
            out[key] = out.get(key, 0) + 1
        return out


def port_bytes(
    data: bytes,
    matcher: Matcher,
    *,
    include_mapper: IncludeMapper | None = None,
    skip: Set[str] = frozenset(),
    known_headers: Set[str] = frozenset(),
    messages: MessageWords | None = None,
    lexed: lexer.Lexed | None = None,
    strings: CudaStrings | None = None,
    arch_numbers: bool = False,
    text_rules: Sequence[TextRule] = (),
) -> FilePort:
    """Port one file's bytes.

    ``include_mapper`` resolves include targets that are files of the tree (their
    new text is fixed, and rules do not touch them). ``skip`` holds 'comments'
    and/or 'strings'; include targets stay eligible either way. ``known_headers``
    are header names the default tables produce: a user rule that rewrites an
    out-of-tree include into anything else gets a warning, since the header it now
    names may not exist. ``messages`` renames vocabulary words standing alone in
    comments and strings; ``strings`` ports string literals that name CUDA libraries and
    variables; ``arch_numbers`` the CUDA arch numbers compared with ``__CUDA_ARCH__``.
    Project symbols (rules of the ``project`` family) change where
    ``project_names.py`` says (in strings as whole words, not in file names).
    ``text_rules`` are the user's rules as torch_musa applies them (``port/text_rules.py``:
    SimplePorting's ``mapping_rule``): the ``matcher``'s user rules are then left to them.
    """
    lexed = lexed if lexed is not None else lexer.Lexed(data)
    incs = lexed.includes
    protected = lexed.markers
    fixed = []
    out_of_tree = []
    kept = []  # includes of CUB, Thrust and libcu++: no rule of a part of the name
    headers = matcher.headers
    for inc in incs:
        new = include_mapper(inc.target) if include_mapper is not None else None
        if any(s <= inc.start < e for s, e in protected):
            if new is None:
                out_of_tree.append(inc)
            continue
        if (covers(data, text_rules, inc.start - 1, inc.end + 1) if text_rules
                else _user_rule_covers(data, matcher, inc)):
            if new is None:
                out_of_tree.append(inc)
            continue  # the user's rule for the whole include wins (matched below)
        # A header rule matches the whole target with its delimiters: "<cuda.h>".
        hit = headers.get(data[inc.start - 1:inc.end + 1]) if headers else None
        if new is not None and not vendor_provides(inc.target, hit):
            fixed.append((inc.start, inc.end, new.encode("utf-8", "surrogateescape"), None))
            continue
        out_of_tree.append(inc)
        if hit is not None:
            fixed.append((inc.start - 1, inc.end + 1, hit[1], hit[2]))
        elif not text_rules and KEPT_LIBRARY_HEADER.match(inc.target):
            kept.append((inc.start, inc.end))

    # The whole include target, delimiters included: header keys carry them ("<cuda.h>").
    holes = lexer.merge_spans([(i.start - 1, i.end + 1) for i in incs])
    excluded = list(protected) + kept
    if skip:
        spans = [(s, e) for s, e, kind in lexed.typed if kind in skip]
        excluded.extend(lexer.subtract_spans(lexer.merge_spans(spans), holes))
    if excluded:
        excluded = lexer.merge_spans(excluded)
        # A fixed include edit must not overlap an excluded span.
        fixed = [f for f in fixed if not any(s < f[1] and f[0] < e for s, e in excluded)]
    if messages:
        hits = messages.hits(data)
        if hits:
            blocked = lexer.merge_spans(excluded + holes + [(f[0], f[1]) for f in fixed])
            fixed += messages.edits(data, hits, lexed.typed, skip, blocked)
    if strings is not None and "strings" not in skip:
        # Libraries and environment variables named by a string (cuda_strings.py).
        fixed += strings.edits(data, lexed, excluded + holes + [(f[0], f[1]) for f in fixed])
    # TORCH_LIBRARY_IMPL(ns, CUDA, m) -> PrivateUse1, as the tables port the key (dispatch_keys.py)
    fixed += [f for f in registration_edits(data, lexed, matcher.rules)
              if not any(s <= f[0] < e for s, e in excluded)]
    if arch_numbers:  # __CUDA_ARCH__ >= 800 -> __MUSA_ARCH__ >= 220 (arch_values.py)
        fixed += [f for f in threshold_edits(data, lexed)
                  if not any(s <= f[0] < e for s, e in excluded)]

    accept = None
    if PROJECT_FAMILY in matcher.families:
        accept = ProjectNames(lexed).accept
    if LEGACY_FAMILY in matcher.families and may_be_deprecated(data):
        gate = LegacyGate(data).accept
        names = accept
        accept = gate if names is None else (lambda s, e, r: names(s, e, r) and gate(s, e, r))
    warnings: list[tuple[int, str]] = []
    if text_rules:
        result, cuts = rewrite_text_rules(data, matcher, text_rules, excluded=excluded,
                                          fixed=fixed, accept=accept)
        warnings += cut_warnings(cuts)
    else:
        result = rewrite(data, matcher, excluded=excluded, fixed=fixed, accept=accept)
    if out_of_tree and result.edits:
        warnings += _include_warnings(result.data, result.edits, out_of_tree, known_headers)
    return FilePort(result.data, result.edits, warnings, lexed)


def vendor_provides(target: str, hit: tuple | None) -> bool:
    """A framework's own sources hold the very headers the vendor tables map
    (``aten/src/ATen/cuda/CUDAContext.h``): their includes still go to the header the vendor
    ships (``torch_musa/csrc/aten/musa/MUSAContext.h``), as porters write them, not to the
    tree's renamed copy. Only for a path with a folder (a tree's own ``"cuda.h"`` beside
    the file is its own) and a rule whose MUSA header is attested (status supported); an
    unverified one leaves the tree's copy, the one MUSA header known to exist."""
    return hit is not None and "/" in target and getattr(hit[2], "status", None) == "supported"


def _user_rule_covers(data: bytes, matcher: Matcher, inc: lexer.Include) -> bool:
    """A user rule matches text covering the whole include target with its delimiters
    (``#include <ATen/cuda/CUDAContext.h>`` as one key): it wins over the tables' header
    rule and over following a file rename, as user rules always do."""
    if not matcher.user_text:
        return False
    ls = data.rfind(b"\n", 0, inc.start) + 1
    le = data.find(b"\n", inc.end)
    le = len(data) if le < 0 else le
    for s, e, _, _, rule in matcher.finditer(data, ls, le):
        if getattr(rule, "is_user", False) and s <= inc.start - 1 and e >= inc.end + 1:
            return True
    return False


def _include_warnings(new_data, edits, out_of_tree, known_headers) -> list[tuple[int, str]]:
    """Warn where a user rule rewrote an include of a header that is not in the tree."""
    touched = {}
    # Edits never overlap, so sorted by start their ends increase too: the first user
    # edit ending after an include starts is the only candidate (one bisect each).
    user = sorted((e for e in edits if e.rule is not None and getattr(e.rule, "is_user", False)),
                  key=lambda e: e.start)
    ends = [e.end for e in user]
    for inc in out_of_tree:
        j = bisect_right(ends, inc.start)
        if j < len(user) and user[j].start < inc.end:
            touched[inc.line] = (inc, user[j])
    if not touched:
        return []
    new_by_line = {i.line: i for i in lexer.includes(new_data)}
    out = []
    for line, (inc, e) in sorted(touched.items()):
        new_inc = new_by_line.get(line)
        new_target = new_inc.target if new_inc is not None else None
        if new_target is not None and new_target in known_headers:
            continue
        shown = f"'{new_target}'" if new_target is not None else "something that is no longer an include"
        out.append((line, f"user rule '{e.old}' rewrote the include of '{inc.target}', which is not a "
                          f"file of the ported tree, to {shown}; check that this header exists"))
    return out
