"""Features MUSA lacks or treats differently (MP21xx), found from the tables.

A CUDA runtime or driver API of one of these families that the port renamed, but whose MUSA name the
vendor's tables do not give (the name came from the naming rules: MUSA may not have
it), is a hazard at the renamed name. A few families are hazards whatever the name:
a PTX version, and loading NVIDIA code at run time (the data is NVIDIA's even where
the call has a MUSA name). An API the tables mark unsupported is not renamed: it
stays, and MP1001's message names its family (``unported_note``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from ..rules.model import Rule
from .catalogue import CHECKS
from .scan import Hazard, Scan

VENDOR = "vendor"
# The tables whose names these families are about: the runtime and driver APIs (a
# cuDNN "graph" or a CUPTI callback id of cuGraphLaunch is another matter).
API_TABLES = frozenset(("runtime", "driver"))
# (check, pattern of the CUDA name, reported even when the vendor names it)
FAMILIES: tuple[tuple[str, re.Pattern[str], bool], ...] = (
    ("MP2107", re.compile(r"PTX_VERSION|[Pp]txVersion"), True),
    ("MP2108", re.compile(r"^(?:PFN_)?(?:cuLink|CU_JIT_|CUjit|cuModuleLoadData|cuModuleLoadFatBinary|"
                          r"CUlinkState|cudaLibraryLoadData|cuLibraryLoadData|nvrtc|nvJitLink)"), True),
    ("MP2014", re.compile(r"Cluster"), False),
    ("MP2101", re.compile(r"Graph|Stream(?:Begin|End|Is|Get)?Capture|CaptureMode|UserObject"), False),
    ("MP2102", re.compile(r"Texture|Surface|TexObject|SurfObject|TexRef|SurfRef|Mipmap|^cudaArray|"
                          r"^cuArray|^CUarray|^cuda(?:Malloc|Free)(?:3D)?Array|^cuda(?:Un)?Bind|"
                          r"ChannelDesc|ChannelFormat|^CU_TR_|ResourceDesc|ResourceViewDesc"), False),
    ("MP2103", re.compile(r"Cooperative"), False),
    ("MP2104", re.compile(r"Ipc|IPC"), False),
    ("MP2105", re.compile(r"Peer|P2P"), False),
    ("MP2106", re.compile(r"MemAdvise|MemPrefetch|MemRange(?:Get)?Attribute|MemLocation|MallocManaged|"
                          r"MemAttach|ManagedMemory|ConcurrentManagedAccess|PageableMemoryAccess|"
                          r"MemDiscard"), False),
)
_TITLES = {"MP2014": "thread block clusters", "MP2101": "CUDA graphs",
           "MP2102": "textures and surfaces", "MP2103": "cooperative launch",
           "MP2104": "IPC", "MP2105": "peer access", "MP2106": "unified memory hints",
           "MP2107": "PTX versions", "MP2108": "run-time compilation"}
_HINT = re.compile(r"Graph|Capture|Texture|Surface|Tex|Surf|Mipmap|Array|Bind|Channel|CU_TR_|"
                   r"Resource|Cooperative|Ipc|IPC|Peer|P2P|Mem|Managed|PTX|[Pp]tx|Link|JIT|jit|"
                   r"Module|Library|nvrtc|nvJitLink|Cluster|UserObject")


@functools.lru_cache(maxsize=4096)
def family_of(name: str) -> tuple[str, bool] | None:
    """(check, always) of the feature family a CUDA name belongs to, if any."""
    if _HINT.search(name) is None:
        return None
    for check, pattern, always in FAMILIES:
        if pattern.search(name):
            return check, always
    return None


def unported_note(name: str) -> str:
    """For MP1001: the feature family of a CUDA API with no MUSA form, and what to do."""
    fam = family_of(name)
    if fam is None:
        return ""
    check = CHECKS[fam[0]]
    return f" ({_TITLES[check.id]}: {_clause(check.instead)})"


def _clause(sentence: str) -> str:
    """A sentence of the catalogue as a clause: "Use X." -> "use X" (MUSA stays MUSA)."""
    sentence = sentence.rstrip(".")
    if len(sentence) > 1 and sentence[1].islower():
        return sentence[0].lower() + sentence[1:]
    return sentence


def feature_hazards(scan: Scan) -> Iterator[Hazard]:
    """MP21xx (and MP2014): renamed APIs of these families the vendor does not name."""
    edits = scan.edits
    for i, e in enumerate(edits.edits):
        rule = e.rule
        if not isinstance(rule, Rule) or rule.family not in API_TABLES:
            continue
        fam = family_of(e.old)
        if fam is None:
            continue
        check, always = fam
        if rule.origin == VENDOR and not always:
            continue
        start, end = edits.out_starts[i], edits.out_ends[i]
        title = _TITLES[check]
        if always:
            message = f"'{e.new}' ({title}, was {e.old}): {_clause(CHECKS[check].why.split(':')[0])}"
        else:
            message = (f"'{e.new}' ({title}, was {e.old}) is a name the vendor's tables do not "
                       f"give: MUSA may not have it; {_clause(CHECKS[check].instead)}")
        yield Hazard(check, start, end, message, device=False)
