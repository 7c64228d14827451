"""Double precision in device code (MP2006): a warning where the first device function
that spells ``double`` (in its parameters or body) does, and a note where each other one
does. Enabling fp64 for an mp_21 build is one decision per file, and converting to float
starts where the first use is; the notes mark every function the decision touches (the
text views fold them into the warning).

Patterns from public CUDA code: geometry kernels in mmcv and detectron2 that
accumulate in ``double`` (IoU and polygon areas), ``atomicAdd(double*, double)``
fallbacks, statistics kernels casting to ``(double)``. A template instantiated with
``double`` by PyTorch's dispatch is not spelled ``double`` and is not reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .code_view import functions
from .scan import Hazard, Scan

_DOUBLE = re.compile(rb"\bdouble\b")


KEYS = (b"double", b"__device__", b"__global__")


def fp64_hazards(scan: Scan) -> Iterator[Hazard]:
    if not scan.has(b"double") or not scan.has(b"__device__", b"__global__"):
        return
    code = scan.code
    if _DOUBLE.search(code) is None:
        return
    uses = []
    seen = -1
    for f in functions(code):
        if f.body[0] < seen:
            continue  # a lambda or a function inside one already counted
        m = _DOUBLE.search(code, f.params[0], f.body[1])
        if m is not None:
            seen = f.body[1]
            uses.append((f, m))
    if not uses:
        return
    f, m = uses[0]
    where = ("mp_21 (MTT S80/S3000), a target of this run, needs fp64 enabled for the build and "
             "runs it slowly" if "mp_21" in scan.target.arches else "on mp_21 (MTT S80/S3000) "
             "fp64 must be enabled for the build and is slow; other MUSA arches may run it "
             "slowly too")
    yield Hazard("MP2006", m.start(), m.end(),
                 f"{_what(f)} computes in double: {where}; use float where the precision allows")
    if len(uses) > 1:
        line = code.count(b"\n", 0, m.start()) + 1
        for g, n in uses[1:]:
            yield Hazard("MP2006", n.start(), n.end(),
                         f"{_what(g)} computes in double too (this file's first, line {line}, is "
                         "the warning): use float here where the precision allows", level="note")


def _what(f) -> str:
    kind = "kernel" if f.kind == "global" else "device function"
    return f"{kind} '{f.name}'" if f.name else kind
