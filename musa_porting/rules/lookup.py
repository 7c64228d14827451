"""What ``musa-port rules NAME`` says about a name with no rule of its own: what a port
writes for it and the rules that win there (``at::cuda::getCurrentCUDAStream`` by
``at::cuda`` and ``getCurrentCUDAStream``, ``CUTLASS_HOST_DEVICE`` by ``CUTLASS_``), and
the rules that port it in context (``cutlass`` in ``cutlass::``, ``<cutlass/``,
``namespace cutlass``): prefix families such as mutlass have keys like these, not bare
words."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..port.engine import WORD_KEY, Matcher
from .model import Rule


def _others(rules: Mapping[str, Rule]) -> dict[str, Rule]:
    return {k: r for k, r in rules.items() if r.value is not None and r.value != k
            and not WORD_KEY.fullmatch(k.encode("utf-8", "surrogateescape"))}


def ported_by(name: str, rules: Mapping[str, Rule]) -> tuple[str, list[Rule]] | None:
    """``name`` as a port writes it (C++ code, every rule in force, the engine choosing
    as it does in a tree: ``at::cuda::getCurrentCUDAStream`` takes ``at::cuda`` and
    ``getCurrentCUDAStream``), with the rules that won; None when no rule matches in it.
    Asked only for a name with no rule of its own."""
    from ..port.cxx.porter import port_bytes

    active = {k: r for k, r in rules.items() if r.value is not None and r.value != k}
    if not active:
        return None
    result = port_bytes(name.encode("utf-8", "surrogateescape"), Matcher(active))
    if not result.edits:
        return None
    return result.data.decode("utf-8", "surrogateescape"), [e.rule for e in result.edits]


def in_context(name: str, rules: Mapping[str, Rule]) -> list[Rule]:
    """The rules whose key holds ``name`` as a whole word (``cutlass::`` for cutlass)."""
    word = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])")
    return sorted((r for k, r in _others(rules).items() if word.search(k)), key=lambda r: r.key)


def near_names(name: str, rules: Mapping[str, Rule], n: int = 3) -> list[str]:
    """Keys spelled almost like ``name`` (``cudaMalloc`` for ``cudaMallocc``): a typo's
    fix. Only keys of about its length that start alike are compared (the tables hold
    tens of thousands)."""
    import difflib

    head = name[:3].lower()
    pool = [k for k in rules if abs(len(k) - len(name)) <= 3 and k[:3].lower() == head]
    return difflib.get_close_matches(name, pool, n=n, cutoff=0.8)
