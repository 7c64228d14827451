"""Includes a rename cannot settle (MP1013, and MP2109 for the families MUSA has no
counterpart for): the include reshuffles human porters make.

A CUDA header the port renamed by a rule whose status is ``unknown`` names a MUSA
header the vendor's tables do not confirm (``<cuda_pipeline.h>`` ->
``<musa_pipeline.h>``; torch headers torch_musa's sources do not use): only some MUSA
toolkits may ship it. A few CUDA headers keep their names and have no MUSA twin known
(``<mma.h>``, libcu++'s sm_80/sm_90 headers, the cooperative-groups collectives, an
arch's intrinsics header, NVML). MP1003 keeps the CUDA headers no rule ported.

Patterns from public CUDA code: attention and GEMM kernels (``<mma.h>``,
``<cuda_pipeline.h>``, ``<cuda/barrier>``), cooperative-groups samples
(``<cooperative_groups/reduce.h>``), PyTorch extensions (``<ATen/cuda/...>``), monitoring
code (``<nvml.h>``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from ..port.cxx.lexer import Include
from . import no_counterpart
from .offsets import EditMap

# (pattern of the include target, what it is)
_NO_TWIN = (
    (re.compile(r"^mma\.h$"), "WMMA's header (nvcuda::wmma), which MUSA has no twin of (MP2010)"),
    (re.compile(r"^cuda/(?:pipeline|barrier|annotated_ptr|ptx|latch|semaphore)$"),
     "a libcu++ header of sm_80/sm_90 copy engines and barriers, which MUSA has no twin known of "
     "(MP2011)"),
    (re.compile(r"^cooperative_groups/(?:reduce|scan|memcpy_async)\.h$"),
     "a header of cooperative-groups collectives, which the vendor's tables do not name"),
    (re.compile(r"^sm_\d+_(?:intrinsics|atomic_functions)\.h(?:pp)?$"),
     "an NVIDIA arch's intrinsics header, which MUSA has no twin of"),
    (re.compile(r"^nvml\.h$"), "NVIDIA's management library, which the vendor's tables do not name"),
)
_ANY_NO_TWIN = re.compile("|".join(f"(?:{p.pattern})" for p, _ in _NO_TWIN))
# Every target a finding can be about holds one of these where the checks below look
# (no_counterpart's header words anywhere, the headers of no twin at its start): the
# includes of a file with none, and no header the port renamed, are not read one by one.
_MAY_FIND = re.compile(r"nvshmem|cufile|nv-p2p|^(?:mma\.h|cuda/|cooperative_groups/|sm_\d|nvml\.h)",
                       re.M)
_INSTEAD = ("include the MUSA header that declares what the file uses, drop the include, or "
            "guard it with #ifndef __MUSACC__")


def include_findings(includes: Sequence[Include], emap: EditMap,
                     skip: Callable[[Include], bool]) -> Iterator[tuple[int, str, str, str]]:
    """(offset, ID, text, message) of each include (in the ported text) that needs a
    person: ``skip`` says which to leave (protected, a file of the tree, MP1003's). It is
    asked only of an include that would be reported: it resolves the target in the tree,
    and a file's includes are mostly fine."""
    if not includes or (_MAY_FIND.search("\n".join(inc.target for inc in includes)) is None
                        and not any(e.old[:1] in "<\"" for e in emap.edits)):
        return  # (MP1014 needs an include the port renamed: one of those edits)
    yield from _each(includes, emap, skip)


def _each(includes: Sequence[Include], emap: EditMap,
          skip: Callable[[Include], bool]) -> Iterator[tuple[int, str, str, str]]:
    first: dict[str, tuple[str, int]] = {}  # a target: its include's source text, its line
    for inc in includes:
        target = inc.target
        merged = _merged(emap, inc, first)
        if merged is not None and not skip(inc):
            yield inc.start, "MP1014", target, merged
            continue
        gone = no_counterpart.header(target)
        rule = _unknown_header(emap, inc.start - 1) if gone is None else None
        if gone is None and rule is None and _ANY_NO_TWIN.match(target) is None:
            continue
        if skip(inc):
            continue
        if gone is not None:
            yield inc.start, "MP2109", target, gone
            continue
        if rule is not None:
            old, origin = rule
            whence = ("the vendor's tables name it, but no MUSA source is known to include it"
                      if origin == "vendor" else "the name comes from the naming rules, not "
                      "from the vendor's tables nor torch_musa's headers")
            yield (inc.start, "MP1013", target,
                   f"'{target}' (was '{old}') is a MUSA header not confirmed ({whence}): only "
                   f"some MUSA toolkits may ship it; {_INSTEAD}")
            continue
        for pattern, what in _NO_TWIN:
            if pattern.search(target):
                yield inc.start, "MP1013", target, f"'{target}' is {what}: {_INSTEAD}"
                break


def _merged(emap: EditMap, inc: Include, first: dict[str, tuple[str, int]]) -> str | None:
    """What to say of an include of a header a former include of the file already
    includes, when the port made them one (their source texts differ); None otherwise."""
    e = emap.edit_at(inc.start - 1)
    was = e.old.strip('<>"') if e is not None and e.old[:1] in "<\"" else inc.target
    seen = first.get(inc.target)
    if seen is None:
        first[inc.target] = (was, inc.line)
        return None
    if seen[0] == was:
        return None  # included twice in the source too: not the port's doing
    return (f"'{inc.target}' (was '{was}') is included already, on line {seen[1]} (was "
            f"'{seen[0]}'): the two CUDA headers are one on MUSA; drop this include")


def _unknown_header(emap: EditMap, at: int) -> tuple[str, str] | None:
    """The old header and the rule's origin, when a header rule of status ``unknown``
    wrote its value at ``at`` (in the ported text)."""
    e = emap.edit_at(at)
    rule = e.rule if e is not None else None
    if rule is not None and getattr(rule, "status", "") == "unknown" and e.old[:1] in "<\"":
        return e.old.strip('<>"'), rule.origin
    return None
