"""CUDA API uses a rename ports by name but not in meaning, rewritten n:m by human porters:
a tensor's or device's ``is_cuda()`` (MP2203) and a device's compute capability compared
with NVIDIA's numbers (MP2009).

``x.is_cuda()`` and ``x.device().is_cuda()`` become ``is_musa()``: torch_musa's own
sources spell it so (the table's source), but stock torch's ``ATen/core/TensorBase.h`` and
``c10/core/Device.h`` declare no such member (torch_musa's tensors are of the
``PrivateUse1`` device type). Which is right depends on the torch the port builds against,
so each call is a note at its site, not a warning that fails ``--check=warning``.
``prop.major >= 8`` (``cudaDeviceProp``, ``getCurrentDeviceProperties()``, the
``ComputeCapabilityMajor`` attribute) still compiles on MUSA, where ``major.minor`` is the
MUSA arch (2.1, 2.2, 3.1), so the test picks another branch than it did on NVIDIA's.

Patterns from public PyTorch extensions (``TORCH_CHECK(x.device().is_cuda(), ...)``,
``CHECK_CUDA(x)`` macros) and GEMM and attention kernels that pick a path by arch
(``props->major >= 8``, ``major * 10 + minor >= 80``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .scan import Hazard, Scan

_MEMBER, _MEMBER_CALL = "is_cuda", "is_cuda()"
# A device-property record: declared (``musaDeviceProp p``, ``const musaDeviceProp& p``,
# ``musaDeviceProp* p = ...``) or bound to torch's query (``auto* p = ...Properties(...)``).
_PROP_DECL = re.compile(rb"\b\w*DeviceProp\b\s*(?:const\s*)?[*&]?\s*(?:const\s*)?([A-Za-z_]\w*)")
_PROP_BOUND = re.compile(rb"\b([A-Za-z_]\w*)\s*=\s*(?:[\w:]+::)?get(?:Current)?DeviceProperties\s*\(")
_PROP_CALL = rb"(?:[\w:]+::)?get(?:Current)?DeviceProperties\s*\([^()]*\)"
# A variable a compute-capability attribute query fills (``&major, ...ComputeCapabilityMajor``,
# the driver's ``&major, ..._ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR``).
_ATTR_BOUND = re.compile(rb"&\s*([A-Za-z_]\w*)\s*,\s*\w*(?:ComputeCapability(?:Major|Minor)"
                         rb"|COMPUTE_CAPABILITY_(?:MAJOR|MINOR))\b")
_COMPARED = re.compile(rb"(?:[<>]=?|[!=]=)\s*\(?\s*\d|\d\s*\)?\s*(?:[<>]=?|[!=]=)|\*\s*10\b|\*\s*100\b")


def device_api_hazards(scan: Scan) -> Iterator[Hazard]:
    yield from _member_checks(scan)
    out = scan.out
    if (b"major" in out or b"minor" in out) and (
            b"DeviceProp" in out or b"ComputeCapability" in out or b"COMPUTE_CAPABILITY" in out):
        yield from _capability_checks(scan)


def _member_checks(scan: Scan) -> Iterator[Hazard]:
    """``.is_cuda()`` on a tensor or a device, renamed to ``.is_musa()`` (the tables' rule
    for the member call, or the word rule on the bare name, where it is called: a field
    of the tree's own named ``is_cuda`` is not)."""
    edits, out = scan.edits, scan.out
    if b"is_musa" not in out:
        return
    for i, e in enumerate(edits.edits):
        old = e.old
        if not old.endswith(_MEMBER_CALL) and old != _MEMBER:
            continue
        start, end = edits.out_starts[i], edits.out_ends[i]
        if old == _MEMBER:  # the bare name: a member call only after . or -> and before (
            before = out[max(0, start - 8):start].rstrip()
            if not before.endswith((b".", b"->")) or not out[end:end + 4].lstrip().startswith(b"("):
                continue
        elif not old.startswith((".", "->")):
            continue
        yield Hazard("MP2203", start, end, f"'{e.new.lstrip('.->')}' (was '{old.lstrip('.->')}'): "
                     "torch_musa's sources spell it so, but a stock torch's headers "
                     "(ATen/core/TensorBase.h, c10/core/Device.h) declare no is_musa() member "
                     "(torch_musa's tensors are on the PrivateUse1 device): if your torch "
                     "lacks it, write '.is_privateuseone()', or compare '.device().type()' "
                     "with at::musa::kMUSA", device=False)


def _capability_checks(scan: Scan) -> Iterator[Hazard]:
    """A device's ``major``/``minor`` compared with a number, or made an SM number."""
    code = scan.code
    names = {m.group(1) for m in _PROP_DECL.finditer(code)}
    names |= {m.group(1) for m in _PROP_BOUND.finditer(code)}
    bare = {m.group(1) for m in _ATTR_BOUND.finditer(code)}
    alts = [_PROP_CALL + rb"\s*->\s*(?:major|minor)\b"]
    if names:
        alts.append(rb"\b(?:" + b"|".join(map(re.escape, sorted(names)))
                    + rb")\s*(?:\.|->)\s*(?:major|minor)\b")
    if bare:  # the variable itself, where it is read (not where it is declared or set)
        alts.append(rb"(?<![\w.>&])(?:" + b"|".join(map(re.escape, sorted(bare)))
                    + rb")\b(?!\s*(?:[,(.;]|=(?!=)))")
    found = re.compile(b"|".join(alts))
    last = -1
    for m in found.finditer(code):
        s, e = scan.line(m.start())
        if s <= last:
            continue  # one per line
        if _COMPARED.search(code, s, e) is None:
            continue
        last = s
        text = scan.out[m.start():m.end()].decode("ascii", "replace")
        yield Hazard("MP2009", m.start(), m.end(), f"'{text}' is compared with a number: on "
                     "MUSA a device's major.minor is the MUSA arch (2.1, 2.2, 3.1), not NVIDIA's "
                     "compute capability; test for the MUSA arch, or the feature itself",
                     device=False)
