#!/usr/bin/env python3
"""Generate the first default mapping tables in ``mapping/``.

``runtime.json`` and ``driver.json`` are extracted from the CUDA headers under
``/usr/local/cuda/include`` (override with ``CUDA_INCLUDE``); the other families
(``headers``, ``macros``, ``pytorch``, ``fp16_bf16``) come from hand-written
dicts below, backed by the product brief.  The output is deterministic: running
the script twice gives byte-identical files.

Usage: ``python3 tools/first_tables.py [--check]``
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Union

ROOT = Path(__file__).resolve().parent.parent
MAPPING_DIR = ROOT / "mapping"
CUDA_INCLUDE = Path(os.environ.get("CUDA_INCLUDE", "/usr/local/cuda/include"))

Entry = Union[str, dict[str, str]]

# --------------------------------------------------------------------------------------
# Header scanning
# --------------------------------------------------------------------------------------

_COMMENT_OR_LITERAL = re.compile(
    r"//[^\n]*"  # line comment
    r"|/\*.*?\*/"  # block comment
    r'|"(?:\\.|[^"\\\n])*"'  # string literal
    r"|'(?:\\.|[^'\\\n])*'",  # char literal
    re.DOTALL,
)
_IDENT = r"[A-Za-z_]\w*"
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(" + _IDENT + r")", re.MULTILINE)
# `#define cuCtxCreate cuCtxCreate_v4`: the alias target is a name users can write too.
_ALIAS_DEFINE = r"^[ \t]*#[ \t]*define[ \t]+" + _IDENT + r"[ \t]+(" + _IDENT + r")[ \t]*$"
_ALIAS = re.compile(_ALIAS_DEFINE, re.MULTILINE)
_ENUM = re.compile(r"\benum\b([^{};()]*)\{([^{}]*)\}\s*(" + _IDENT + r")?")
_TAG = re.compile(
    r"\b(?:struct|union)\s+"
    r"(?:(?:__\w+|CUDA_ALIGN\w*|CUDART_ALIGN\w*)(?:\s*\([^()]*\))?\s+)*"
    r"(" + _IDENT + r")"
)
_CALL = re.compile(r"\b(" + _IDENT + r")\s*\(")
_FUNC_PTR = re.compile(r"\(\s*(?:" + _IDENT + r"\s+)*\*\s*(" + _IDENT + r")\s*\)\s*\(")
_NOT_A_RETURN_TYPE = frozenset(
    "return sizeof alignof decltype typeid if while for switch case else do new delete "
    "throw operator defined static_assert".split()
)
_ATTRIBUTE = re.compile(r"__attribute__\s*\(\(.*?\)\)|__declspec\s*\([^()]*\)", re.DOTALL)


def strip_comments(text: str) -> str:
    """Remove comments (keeping line breaks) and blank out string/char literals."""

    def repl(m: re.Match[str]) -> str:
        s = m.group(0)
        if s.startswith('"'):
            return '""'
        if s.startswith("'"):
            return "' '"
        return " " + "\n" * s.count("\n")

    return _COMMENT_OR_LITERAL.sub(repl, text)


def _statement_end(code: str, start: int) -> int:
    """Index of the ``;`` ending the statement that starts at ``start`` (brace-aware)."""
    depth = 0
    for i in range(start, len(code)):
        c = code[i]
        if c in "{(":
            depth += 1
        elif c in "})":
            depth -= 1
        elif c == ";" and depth <= 0:
            return i
    return len(code)


def _strip_braces(stmt: str) -> str:
    """Collapse every (nested) ``{...}`` body of ``stmt`` into ``{}``."""
    out: list[str] = []
    depth = 0
    for c in stmt:
        if c == "{":
            if depth == 0:
                out.append("{")
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                out.append("}")
        elif depth == 0:
            out.append(c)
    return "".join(out)


@dataclass
class Declared:
    """Names declared in a header, by kind."""

    functions: set[str] = field(default_factory=set)
    types: set[str] = field(default_factory=set)
    constants: set[str] = field(default_factory=set)
    macros: set[str] = field(default_factory=set)

    def all(self) -> set[str]:
        """Every declared name."""
        return self.functions | self.types | self.constants | self.macros


def scan_header(path: Path) -> Declared:
    """Extract declared functions, types, enum constants and macros from one header."""
    text = strip_comments(path.read_text(encoding="utf-8", errors="replace"))
    text = re.sub(r"\\\r?\n", " ", text)  # join continuation lines
    decl = Declared()
    decl.macros.update(_DEFINE.findall(text))
    decl.macros.update(_ALIAS.findall(text))
    code = "\n".join("" if line.lstrip().startswith("#") else line for line in text.splitlines())
    code = _ATTRIBUTE.sub(" ", code)

    for m in _ENUM.finditer(code):
        head = re.sub(r":.*", "", m.group(1))  # drop an underlying type (`: int`)
        head_names = re.findall(_IDENT, head)
        if head_names and head_names[-1] not in ("class", "struct"):
            decl.types.add(head_names[-1])
        if m.group(3):
            decl.types.add(m.group(3))
        for item in m.group(2).split(","):
            first = re.match(r"\s*(" + _IDENT + r")", item)
            if first:
                decl.constants.add(first.group(1))

    decl.types.update(_TAG.findall(code))

    for m in re.finditer(r"\btypedef\b", code):
        stmt = code[m.end() : _statement_end(code, m.end())]
        ptr = _FUNC_PTR.search(stmt)
        if ptr:
            decl.types.add(ptr.group(1))
            continue
        flat = _strip_braces(stmt)
        tail = flat.rsplit("}", 1)[-1]
        for part in tail.split(","):
            part = re.sub(r"\[[^\]]*\]", "", part)
            idents = re.findall(_IDENT, part)
            if idents:
                decl.types.add(idents[-1])

    for m in _CALL.finditer(code):
        before = code[: m.start()].rstrip()
        if not before or before[-1] in "*&":
            if before:
                decl.functions.add(m.group(1))
            continue
        prev = re.search(r"(" + _IDENT + r")$", before)
        if prev and prev.group(1) not in _NOT_A_RETURN_TYPE:
            decl.functions.add(m.group(1))
    decl.functions -= decl.types  # `typedef T (*name)(...)` and ctor-like forms
    return decl


# --------------------------------------------------------------------------------------
# Families
# --------------------------------------------------------------------------------------

RUNTIME_HEADERS = (
    "cuda_runtime_api.h",
    "driver_types.h",
    "cuda_runtime.h",
    "surface_types.h",
    "texture_types.h",
    "cuda_device_runtime_api.h",
    "library_types.h",
)
RUNTIME_INTEROP_HEADERS = ("cuda_gl_interop.h", "cuda_egl_interop.h", "cuda_vdpau_interop.h")
DRIVER_HEADERS = ("cuda.h", "cudaTypedefs.h")
DRIVER_INTEROP_HEADERS = (
    "cudaGL.h",
    "cudaGLTypedefs.h",
    "cudaEGL.h",
    "cudaEGLTypedefs.h",
    "cudaVDPAU.h",
    "cudaVDPAUTypedefs.h",
)

# Names owned by macros.json (they need a note there; no duplicates across files).
OWNED_ELSEWHERE = frozenset({"CUDA_VERSION", "CUDART_VERSION"})

# Interop headers: every name they declare (and the core headers do not) is
# unsupported. The patterns catch interop names that show up in the core headers.
RUNTIME_INTEROP = re.compile(
    r"^cuda(?:GL|GraphicsGL|WGL|EGL|Egl|GraphicsEGL|VDPAU|GraphicsVDPAU|D3D|GraphicsD3D)"
)
DRIVER_INTEROP = re.compile(
    r"^(?:PFN_)?(?:cu(?:GL|GraphicsGL|WGL|EGL|GraphicsEGL|VDPAU|GraphicsVDPAU|D3D"
    r"|GraphicsD3D)|CUegl|CUGL|CU_EGL|CU_GL_|CUDA_EGL)"
)
INTEROP_NOTE = "graphics interop (OpenGL/EGL/VDPAU/Direct3D) is not available on MUSA"

# Newer or niche API areas whose MUSA coverage we have not verified. Matched against the
# name with its API prefix removed (`cudaGraphLaunch` -> `GraphLaunch`).
UNKNOWN_AREAS = re.compile(
    r"^(?:Graph(?!ics)|StreamBeginCapture|StreamEndCapture|StreamIsCapturing"
    r"|StreamGetCaptureInfo|StreamUpdateCaptureDependencies|ThreadExchangeStreamCaptureMode"
    r"|UserObject|DeviceGetGraphMemAttribute|DeviceSetGraphMemAttribute|DeviceGraphMemTrim"
    r"|Library|Kernel|DevResource|DevSmResource|ExecutionCtx|Logs|TensorMap|Multicast"
    r"|Coredump|CheckpointProcess|GetDriverEntryPoint|GetProcAddress|Tex|Surf"
    r"|CreateTextureObject|DestroyTextureObject|GetTextureObject|CreateSurfaceObject"
    r"|DestroySurfaceObject|GetSurfaceObject|CGGet|GetParameterBuffer|LaunchDevice)"
    r"|Texture|Surface|Cluster|Green",
    re.IGNORECASE,  # CU_DEVICE_ATTRIBUTE_MAX_TEXTURE1D_WIDTH like cudaDevAttrMaxTexture1DWidth
)


# `PFN_cuMemAlloc_v3020`: the suffix is a CUDA version; MUSA's typedef names are unverified.
VERSIONED_PFN = re.compile(r"^PFN_\w+_v\d{4,}$")
VERSIONED_PFN_NOTE = "PFN typedef suffixed with a CUDA version; MUSA's suffixes are unverified"


# Extracted names deliberately left out: per-thread-stream implementation names
# (`cudaMemcpyAsync_ptsz`), include guards, and header-internal helper macros.
SKIP_PATTERN = re.compile(r"_pt(?:sz|ds)$|_H_*$")
RUNTIME_SKIP: frozenset[str] = frozenset({"CUDART_DEVICE"})
DRIVER_SKIP: frozenset[str] = frozenset()


def cuda_version() -> str:
    """The installed CUDA version as ``major.minor`` (from cuda.h)."""
    text = (CUDA_INCLUDE / "cuda.h").read_text(encoding="utf-8", errors="replace")
    m = re.search(r"#define\s+CUDA_VERSION\s+(\d+)", text)
    if not m:
        raise SystemExit("cannot find CUDA_VERSION in cuda.h")
    v = int(m.group(1))
    return f"{v // 1000}.{v % 1000 // 10}"


def runtime_musa_name(name: str) -> str | None:
    """MUSA runtime name for a CUDA runtime name, or None when it is out of scope."""
    if re.match(r"^cuda[A-Z_]", name) or re.match(r"^cuda\d", name):
        return "musa" + name[4:]
    if re.match(r"^CUDA[A-Z0-9_]", name):
        return "MUSA" + name[4:]
    return None


def driver_musa_name(name: str) -> str | None:
    """MUSA driver name for a CUDA driver name, or None when it is out of scope."""
    if name.startswith("PFN_"):
        inner = driver_musa_name(name[4:])
        return None if inner is None else "PFN_" + inner
    if re.match(r"^cuda[A-Z_]", name):
        return "musa" + name[4:]
    if re.match(r"^CUDA[A-Z0-9_]", name):
        return "MUSA" + name[4:]
    if re.match(r"^cu[A-Za-z]", name):
        return "mu" + name[2:]
    if re.match(r"^CU[A-Za-z_]", name):
        return "MU" + name[2:]
    return None


def _stem(name: str) -> str:
    """The identifier without its PFN_ / API prefix."""
    name = name.removeprefix("PFN_")
    for p in ("cuda", "CUDA", "cu", "CU"):
        if name.startswith(p):
            return name[len(p) :].lstrip("_")
    return name


def _is_error_code(stem: str) -> bool:
    """True for error codes (`cudaErrorInvalidTexture`, `CUDA_ERROR_...`): kept supported."""
    return stem.lower().startswith("error")


def build_family(
    core: tuple[str, ...],
    interop_headers: tuple[str, ...],
    interop: re.Pattern[str],
    rename: Callable[[str], str | None],
    unknown: set[str],
    skip: frozenset[str],
) -> dict[str, Entry]:
    """Entries for every prefixed name declared in ``core`` (+ interop) headers."""
    core_names: set[str] = set()
    for header in core:
        core_names |= scan_header(CUDA_INCLUDE / header).all()
    interop_names = {n for n in core_names if interop.match(n)}
    for header in interop_headers:
        path = CUDA_INCLUDE / header
        if path.exists():
            interop_names |= scan_header(path).all() - core_names
    entries: dict[str, Entry] = {}
    for name in sorted(core_names | interop_names):
        musa = rename(name)
        if not musa or name in OWNED_ELSEWHERE or name in skip or SKIP_PATTERN.search(name):
            continue
        stem = _stem(name)
        if name in interop_names:
            entries[name] = {"status": "unsupported", "note": INTEROP_NOTE}
        elif VERSIONED_PFN.match(name):
            entries[name] = {"musa": musa, "status": "unknown", "note": VERSIONED_PFN_NOTE}
        elif name in unknown or (UNKNOWN_AREAS.search(stem) and not _is_error_code(stem)):
            entries[name] = {"musa": musa, "status": "unknown"}
        else:
            entries[name] = musa
    return entries


def build_runtime() -> dict[str, Entry]:
    """Entries for the CUDA runtime API (runtime.json)."""
    host: set[str] = set()
    for header in RUNTIME_HEADERS:
        if header != "cuda_device_runtime_api.h":
            host |= scan_header(CUDA_INCLUDE / header).all()
    # Dynamic-parallelism-only names: declared only by the device runtime header.
    device_only = scan_header(CUDA_INCLUDE / "cuda_device_runtime_api.h").all() - host
    entries = build_family(
        RUNTIME_HEADERS,
        RUNTIME_INTEROP_HEADERS,
        RUNTIME_INTEROP,
        runtime_musa_name,
        device_only | RUNTIME_UNKNOWN,
        RUNTIME_SKIP,
    )
    for name, musa in RUNTIME_EXTRA.items():
        entries[name] = {"musa": musa, "status": "unknown"}
    return entries


def build_driver() -> dict[str, Entry]:
    """Entries for the CUDA driver API (driver.json)."""
    entries = build_family(
        DRIVER_HEADERS,
        DRIVER_INTEROP_HEADERS,
        DRIVER_INTEROP,
        driver_musa_name,
        DRIVER_UNKNOWN,
        DRIVER_SKIP,
    )
    # CUDA 12 also had `#define PFN_cuCtxGetCurrent PFN_cuCtxGetCurrent_v4000`; CUDA 13
    # keeps only the versioned typedefs, but user code still names the plain PFN_cuXxx.
    # It takes the status of the function it points to.
    for name in sorted(entries):
        if not VERSIONED_PFN.match(name):
            continue
        plain = re.sub(r"_v\d+$", "", name)
        if plain in entries:
            continue
        func = entries.get(plain[len("PFN_") :])
        musa = driver_musa_name(plain)
        assert musa is not None
        if func is None or isinstance(func, str):
            entries[plain] = musa
        elif "musa" in func:
            entries[plain] = {**func, "musa": musa}
        else:
            entries[plain] = dict(func)
    return entries


# Runtime helpers from driver_functions.h that carry `cuda` inside the name.
RUNTIME_EXTRA: dict[str, str] = {
    "make_cudaExtent": "make_musaExtent",
    "make_cudaPitchedPtr": "make_musaPitchedPtr",
    "make_cudaPos": "make_musaPos",
}
# Extracted names whose MUSA form we have not seen.
RUNTIME_UNKNOWN: set[str] = set()
DRIVER_UNKNOWN: set[str] = {"cuuint32_t", "cuuint64_t"}

# --------------------------------------------------------------------------------------
# Hand-written families (from the brief)
# --------------------------------------------------------------------------------------


def _unknown(musa: str, note: str | None = None) -> dict[str, str]:
    """An entry whose MUSA name is plausible but unverified."""
    entry = {"musa": musa, "status": "unknown"}
    if note:
        entry["note"] = note
    return entry


HEADERS: dict[str, Entry] = {
    "cuda_runtime.h": "musa_runtime.h",
    "cuda_runtime_api.h": "musa_runtime_api.h",
    "cuda.h": "musa.h",
    "cuda_fp16.h": "musa_fp16.h",
    "cuda_bf16.h": "musa_bf16.h",
    "cuda_fp8.h": "musa_fp8.h",
    "cublas_v2.h": "mublas.h",
    "cublas.h": "mublas.h",
    "cublasLt.h": "mublasLt.h",
    "curand.h": "murand.h",
    "curand_kernel.h": "murand_kernel.h",
    "cusparse.h": "musparse.h",
    "cufft.h": "mufft.h",
    "cudnn.h": "mudnn.h",
    "nccl.h": "mccl.h",
    "cuComplex.h": "muComplex.h",
    "cuda_profiler_api.h": _unknown("musa_profiler_api.h"),
    "cusolverDn.h": _unknown("musolverDn.h"),
    "cupti.h": _unknown("mupti.h"),
    "npp.h": _unknown("mtpp.h"),
    "ATen/cuda/CUDAContext.h": {
        "musa": "torch_musa/csrc/aten/musa/MUSAContext.h",
        "status": "supported",
        "note": "torch_musa header, included with quotes as in the torch_musa manual",
    },
    "c10/cuda/CUDAGuard.h": {
        "musa": "torch_musa/csrc/core/MUSAGuard.h",
        "status": "supported",
        "note": "torch_musa header, included with quotes as in the torch_musa manual",
    },
}

# torch_musa's headers are included with quotes (the manual's rules), whatever the
# CUDA original used.
QUOTED_TARGETS = {"ATen/cuda/CUDAContext.h", "c10/cuda/CUDAGuard.h"}


def delimited_headers(headers: dict[str, Entry]) -> dict[str, Entry]:
    """Each header as ``<name>`` and ``"name"``: the delimiters make the key match only
    a whole include target, so ``foo/cuda.h`` of another package is left alone."""
    out: dict[str, Entry] = {}
    for key, entry in headers.items():
        for left, right in (("<", ">"), ('"', '"')):
            if key in QUOTED_TARGETS:
                nl, nr = '"', '"'
            else:
                nl, nr = left, right
            if isinstance(entry, str):
                out[left + key + right] = nl + entry + nr
            else:
                out[left + key + right] = dict(entry, musa=nl + str(entry["musa"]) + nr)
    return out


VERSION_NOTE = "version values differ: CUDA 12080 vs MUSA 50200; comparisons change meaning"
MACROS: dict[str, Entry] = {
    "__CUDACC__": "__MUSACC__",
    "__NVCC__": "__MUSACC__",
    "__CUDA_ARCH__": {
        "musa": "__MUSA_ARCH__",
        "status": "supported",
        "note": "values 210/220/310 (mp_21/mp_22/mp_31): CUDA `>= 800` ~ `>= 220`, "
        "`>= 900` ~ `>= 310`; comparisons change meaning",
    },
    "CUDART_VERSION": {"musa": "MUSART_VERSION", "status": "supported", "note": VERSION_NOTE},
    "CUDA_VERSION": {"musa": "MUSA_VERSION", "status": "supported", "note": VERSION_NOTE},
}

TORCH_UNVERIFIED = "not verified to exist in torch_musa"
PYTORCH: dict[str, Entry] = {
    "at::cuda": "at::musa",
    "c10::cuda": "c10::musa",
    "getCurrentCUDAStream": "getCurrentMUSAStream",
    "getDefaultCUDAStream": "getDefaultMUSAStream",
    "CUDAGuard": "MUSAGuard",
    "OptionalCUDAGuard": "OptionalMUSAGuard",
    "CUDAStreamGuard": "MUSAStreamGuard",
    "CUDAStream": "MUSAStream",
    "CUDAEvent": _unknown("MUSAEvent", TORCH_UNVERIFIED),
    ".is_cuda()": ".is_privateuseone()",
    "at::kCUDA": "at::kPrivateUse1",
    "kCUDA": {
        "musa": "kPrivateUse1",
        "status": "supported",
        "note": "torch_musa registers as PrivateUse1; there is no DeviceType::MUSA",
    },
    "DeviceType::CUDA": "DeviceType::PrivateUse1",
    "C10_CUDA_KERNEL_LAUNCH_CHECK": _unknown("C10_MUSA_KERNEL_LAUNCH_CHECK", TORCH_UNVERIFIED),
    "C10_CUDA_CHECK": _unknown("C10_MUSA_CHECK", TORCH_UNVERIFIED),
    "AT_CUDA_CHECK": _unknown("AT_MUSA_CHECK", TORCH_UNVERIFIED),
    "CUDAExtension": {
        "musa": "MUSAExtension",
        "status": "supported",
        "note": "from torch_musa.utils.musa_extension",
    },
}

FP16_BF16: dict[str, Entry] = {
    "__nv_bfloat16": "__mt_bfloat16",
    "nv_bfloat16": "mt_bfloat16",
    "__nv_bfloat162": "__mt_bfloat162",
    "nv_bfloat162": "mt_bfloat162",
    "__nv_bfloat16_raw": _unknown("__mt_bfloat16_raw"),
    "__nv_bfloat162_raw": _unknown("__mt_bfloat162_raw"),
    "__nv_fp8_e4m3": "__mt_fp8_e4m3",
    "__nv_fp8_e5m2": "__mt_fp8_e5m2",
}
# The remaining __nv_fp8* types of cuda_fp8.h (x2/x4 vectors, e8m0, storage and
# interpretation types) are added from the header with status "unknown".
FP8_TYPE_HEADERS = ("cuda_fp8.h", "cuda_fp8.hpp")


def build_fp16_bf16() -> dict[str, Entry]:
    """Entries for the reduced-precision types (fp16_bf16.json)."""
    entries = dict(FP16_BF16)
    for header in FP8_TYPE_HEADERS:
        path = CUDA_INCLUDE / header
        if not path.exists():
            continue
        for name in scan_header(path).types:
            if name.startswith("__nv_fp8") and name not in entries:
                entries[name] = _unknown("__mt_" + name[len("__nv_") :])
    return entries


# --------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------


def table(family: str, title: str, source: str, entries: dict[str, Entry]) -> dict[str, object]:
    """A rich-format table."""
    return {
        "family": family,
        "title": title,
        "default_status": "supported",
        "source": source,
        "entries": entries,
    }


def render(doc: dict[str, object]) -> str:
    """Canonical, deterministic JSON text."""
    return json.dumps(doc, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def check_tables(tables: dict[str, dict[str, object]]) -> list[str]:
    """Problems violating the table rules (empty names, chains, conflicting duplicates)."""
    problems: list[str] = []
    seen: dict[str, tuple[str, Entry]] = {}
    values: dict[str, str] = {}
    for fam, doc in tables.items():
        entries = doc["entries"]
        assert isinstance(entries, dict)
        for key, val in entries.items():
            musa = val if isinstance(val, str) else val.get("musa")
            if not key or musa == "":
                problems.append(f"{fam}: empty key or value for {key!r}")
            if key in seen and seen[key][1] != val:
                problems.append(f"{fam}: {key!r} also in {seen[key][0]} with another value")
            seen[key] = (fam, val)
            if musa:
                values[musa] = fam
    for musa, fam in values.items():
        if musa in seen and seen[musa][1] != musa:
            problems.append(f"{fam}: value {musa!r} is also a key in {seen[musa][0]} (chain)")
    return problems


def build_all() -> dict[str, dict[str, object]]:
    """Every table, keyed by family."""
    ver = cuda_version()
    runtime = build_runtime()
    driver = build_driver()
    for name in list(driver):
        if name in runtime:
            if runtime[name] != driver[name]:
                raise SystemExit(f"{name}: runtime and driver disagree")
            del driver[name]  # keep each shared name once, in runtime.json
    inc = f"CUDA {ver} ({CUDA_INCLUDE})"
    return {
        "runtime": table(
            "runtime",
            "CUDA runtime API",
            f"{inc}: " + ", ".join(RUNTIME_HEADERS + RUNTIME_INTEROP_HEADERS),
            runtime,
        ),
        "driver": table(
            "driver",
            "CUDA driver API",
            f"{inc}: " + ", ".join(DRIVER_HEADERS + DRIVER_INTEROP_HEADERS),
            driver,
        ),
        "headers": table(
            "headers",
            "Header names, with their include delimiters",
            "musa-port brief (docs/BRIEF.md): MUSA headers and library prefixes",
            delimited_headers(HEADERS),
        ),
        "macros": table(
            "macros",
            "Compiler and version macros",
            "musa-port brief (docs/BRIEF.md): macros",
            MACROS,
        ),
        "pytorch": table(
            "pytorch",
            "PyTorch / torch_musa names",
            "musa-port brief (docs/BRIEF.md): PyTorch / torch_musa",
            PYTORCH,
        ),
        "fp16_bf16": table(
            "fp16_bf16",
            "Reduced-precision types (bf16, fp8)",
            f"musa-port brief (docs/BRIEF.md); {inc}: " + ", ".join(FP8_TYPE_HEADERS),
            build_fp16_bf16(),
        ),
    }


def main(argv: list[str]) -> int:
    """Write (or with --check, verify) every table in mapping/."""
    check_only = "--check" in argv
    tables = build_all()
    problems = check_tables(tables)
    for p in problems:
        print("error:", p, file=sys.stderr)
    if problems:
        return 1
    stale = []
    MAPPING_DIR.mkdir(exist_ok=True)
    for fam, doc in tables.items():
        path = MAPPING_DIR / f"{fam}.json"
        text = render(doc)
        old = path.read_text(encoding="utf-8") if path.exists() else None
        if old != text:
            stale.append(path.name)
            if not check_only:
                path.write_text(text, encoding="utf-8")
        entries = doc["entries"]
        assert isinstance(entries, dict)
        print(f"{path.name}: {len(entries)} entries")
    if check_only and stale:
        print("out of date:", ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
