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
# cuDNN "graph" or a CUPTI callback id of cuGraphLaunch is another matter), and CUPTI's
# own table for its activity attributes and callbacks (CUPTI_FAMILY, alone).
API_TABLES = frozenset(("runtime", "driver", "cupti"))
VMM = re.compile(r"^(?:PFN_)?cuMem(?:Create|Release|Map|Unmap|MapArrayAsync|Address(?:Reserve|Free)|"
                 r"(?:Set|Get)Access|GetAllocation(?:Granularity|PropertiesFromHandle)|"
                 r"ExportToShareableHandle|ImportFromShareableHandle|RetainAllocationHandle)|"
                 r"^CUmem(?:AllocationProp|GenericAllocationHandle|AccessDesc|AllocationHandleType|"
                 r"AllocationGranularity|Location|AllocationType|Access_flags|AllocationCompType)|"
                 r"^CU_MEM_(?:ALLOCATION|HANDLE_TYPE|ACCESS_FLAGS|LOCATION_TYPE|ALLOC_GRANULARITY|"
                 r"CREATE)|^(?:PFN_)?cuMulticast|^CUmulticast|^CU_MULTICAST")
CONTEXT = re.compile(r"^(?:PFN_)?cu(?:Ctx|DevicePrimaryCtx|GreenCtx)|^CU(?:context|greenCtx)$|^CU_CTX_")
CUPTI_FAMILY = ("MP2114", re.compile(
    r"^cuptiActivity(?:Set|Get)Attribute|^CUPTI_ACTIVITY_ATTR_|^CUpti_ActivityAttribute|"
    r"^cuptiActivityRegisterCallbacks|^cupti(?:Subscribe|Unsubscribe|EnableCallback|EnableDomain|"
    r"EnableAllDomains|GetCallback)|^CUpti_(?:Callback|SubscriberHandle)|^CUPTI_CB_DOMAIN_|"
    r"^CUPTI_\w*CBID_"), True)
# (check, pattern of the CUDA name, reported even when the vendor names it)
FAMILIES: tuple[tuple[str, re.Pattern[str], bool], ...] = (
    ("MP2107", re.compile(r"PTX_VERSION|[Pp]txVersion"), True),
    ("MP2110", VMM, True),
    ("MP2111", CONTEXT, True),
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
                          r"MemAllocManaged|MemAttach|ManagedMemory|ConcurrentManagedAccess|"
                          r"PageableMemoryAccess|MemDiscard|MEM_ATTACH_|ADVISE_"), True),
)
_TITLES = {"MP2014": "thread block clusters", "MP2101": "CUDA graphs",
           "MP2102": "textures and surfaces", "MP2103": "cooperative launch",
           "MP2104": "IPC", "MP2105": "peer access", "MP2106": "managed memory",
           "MP2107": "PTX versions", "MP2108": "run-time compilation",
           "MP2110": "virtual memory", "MP2111": "contexts", "MP2114": "CUPTI"}
# What to tell of a family reported wherever it is used, named by the vendor or not.
_ALWAYS = {
    "MP2106": "is managed memory: MUSA names it, but on-demand page migration and the hints "
              "depend on the device; allocate with musaMalloc and copy where host and device "
              "share data, or check musaDevAttrConcurrentManagedAccess",
    "MP2110": "is the driver's virtual-memory API: MUSA has the calls torch_musa's allocator "
              "uses (muMemCreate, muMemMap, muMemSetAccess, muMemAddressReserve), not every "
              "handle type, location or multicast object; check each against your MUSA SDK's "
              "musa.h, or allocate with musaMalloc",
    "MP2111": "manages a driver context, which torch_musa's code never does (it works through "
              "the runtime's current device): use musaSetDevice/musaGetDevice and the primary "
              "context",
    "MP2114": "is CUPTI's activity attributes or callback API: torch_musa's profiling does not "
              "use MUPTI, and which attributes and callbacks MUPTI has is not documented; guard "
              "the tracing code with #ifndef __MUSACC__",
}
_HINT = re.compile(r"Graph|Capture|Texture|Surface|Tex|Surf|Mipmap|Array|Bind|Channel|CU_TR_|"
                   r"Resource|Cooperative|Ipc|IPC|Peer|P2P|Mem|MEM_|Managed|PTX|[Pp]tx|Link|JIT|jit|"
                   r"Module|Library|nvrtc|nvJitLink|Cluster|UserObject|Ctx|context|Multicast|"
                   r"MULTICAST|ADVISE_|CTX_|CUmem")


@functools.lru_cache(maxsize=4096)
def family_of(name: str, table: str = "runtime") -> tuple[str, bool] | None:
    """(check, always) of the feature family a CUDA name of ``table`` belongs to, if any."""
    if table == "cupti":
        return CUPTI_FAMILY[::2] if CUPTI_FAMILY[1].search(name) else None
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
        fam = family_of(e.old, rule.family)
        if fam is None:
            continue
        check, always = fam
        if rule.origin == VENDOR and not always:
            continue
        start, end = edits.out_starts[i], edits.out_ends[i]
        title = _TITLES[check]
        if check in _ALWAYS:
            message = f"'{e.new}' (was '{e.old}') {_ALWAYS[check]}"
        elif always:
            message = f"'{e.new}' ({title}, was {e.old}): {_clause(CHECKS[check].why.split(':')[0])}"
        else:
            message = (f"'{e.new}' ({title}, was {e.old}) is a name the vendor's tables do not "
                       f"give: MUSA may not have it; {_clause(CHECKS[check].instead)}")
        yield Hazard(check, start, end, message, device=False)
