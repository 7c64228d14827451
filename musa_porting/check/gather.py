"""Gathering a file's facts (``facts.py`` says what they are) with the reader of its
kind: where a file is ported, in the worker that ports it, and by ``musa-port check``
for an output that changed since."""

from __future__ import annotations


def gather(kind: str | None, rel: str, data: bytes) -> dict | None:
    """The facts of output ``rel`` (tree-relative, as in OUT) of ``kind`` holding
    ``data``; None for a kind that has none."""
    if kind == "cxx":
        from .cxx_facts import cxx_facts

        out = cxx_facts(data)
    elif kind == "python":
        from .python_facts import python_facts

        out = python_facts(data, rel)
    elif kind == "cmake":
        from .build_facts import cmake_facts

        out = cmake_facts(data, rel)
    elif kind == "make":
        from .build_facts import make_facts

        out = make_facts(data, rel)
    else:
        return None
    if out and b"musa-port:" in data:
        from ..analyze.suppress import suppressions

        marks, _ = suppressions(data)
        if marks:
            out["quiet"] = [[line, None if ids is None else sorted(ids)]
                            for line, ids in sorted(marks.items())]
    return out
