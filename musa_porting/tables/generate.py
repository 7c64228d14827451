"""Generate the default mapping tables (``mapping/*.json``) and ``docs/coverage.md``.

The tables are derived from the real CUDA headers: the CUDA toolkit's include folder
(``/usr/local/cuda/include``) plus the headers shipped inside NVIDIA's PyPI wheels
(cuBLAS, cuRAND, cuSPARSE, cuFFT, cuSOLVER, cuDNN, NCCL, NVTX, NVRTC, CUPTI, NPP and
the CUDA runtime). Every function, type, enum constant and macro a header declares
(see ``scan.py``) whose name starts with its family's API prefix becomes an entry;
the prefix changes and the rest stays (``cublasSgemm_v2 -> mublasSgemm_v2``,
``CU_CUBEMAP_FACE_POSITIVE_X -> MU_CUBEMAP_FACE_POSITIVE_X``). ``irregular.py``
holds the curated prefixes and whole names, each with its source.

Usage (from a checkout; the output is deterministic, byte for byte, for the same
headers, and needs no network)::

    # once: the pinned wheels (about 2.2 GB; only their include/ members are read)
    python -m musa_porting.tables.generate --fetch-wheels /tmp/wheels
    # which runs: pip download --no-deps -d /tmp/wheels nvidia-cublas==13.10.0.20 ... (see WHEELS)

    # write mapping/*.json and docs/coverage.md
    python -m musa_porting.tables.generate --wheels-dir /tmp/wheels
    # write nothing; exit 1 if a committed file differs from what would be written
    python -m musa_porting.tables.generate --wheels-dir /tmp/wheels --check

Options: ``--include DIR`` (repeatable; default ``$CUDA_INCLUDE`` or
``/usr/local/cuda/include``), ``--wheels-dir DIR`` (``*.whl`` files, read in place),
``--out DIR`` (default ``mapping/`` of the checkout), ``--coverage FILE`` (default
``docs/coverage.md`` of the checkout, or ``OUT/coverage.md`` when ``--out`` is given),
``--partial`` (write only the families whose headers were found, instead of failing).

The generator is not run in CI (CI has no wheels); the generated files are committed.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Union

from . import irregular
from .irregular import Name, Prefix
from .scan import Declared, scan_text

ROOT = Path(__file__).resolve().parents[2]

# The wheels whose headers the committed tables were generated from. `--fetch-wheels`
# downloads exactly these; other versions work too, but give other tables.
WHEELS = {
    "nvidia-cuda-runtime": "13.5.37",
    "nvidia-cublas": "13.10.0.20",
    "nvidia-curand": "10.4.5.25",
    "nvidia-cusparse": "12.9.4.2",
    "nvidia-cufft": "12.5.0.14",
    "nvidia-cusolver": "12.4.1.2",
    "nvidia-cudnn-cu13": "9.28.0.42",
    "nvidia-nccl-cu13": "2.32.3",
    "nvidia-nvtx": "13.5.25",
    "nvidia-cuda-nvrtc": "13.5.37",
    "nvidia-cuda-cupti": "13.5.25",
    "nvidia-npp": "13.2.0.93",
}

Entry = Union[str, dict[str, object]]  # "musa", "status", "note": str; "primary": bool
STATUSES = ("supported", "unsupported", "unknown")

# --------------------------------------------------------------------------------------
# Header sources
# --------------------------------------------------------------------------------------


@dataclass
class HeaderSet:
    """Headers by include-relative path (``cublas_v2.h``, ``nvtx3/nvToolsExt.h``).

    A path may come from several sources (the toolkit and a newer wheel): its names
    are the union of all copies, and every source is recorded.
    """

    files: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # rel -> [(origin, text)]
    origins: list[str] = field(default_factory=list)
    _cache: dict[str, Declared] = field(default_factory=dict)
    _partial: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    def add(self, rel: str, origin: str, text: str) -> None:
        self.files.setdefault(rel, []).append((origin, text))

    def add_dir(self, root: Path) -> None:
        """Every ``.h``/``.hpp`` file under an include folder."""
        label = _dir_label(root)
        self.origins.append(label)
        for path in sorted(root.rglob("*")):
            if path.suffix in (".h", ".hpp", ".cuh") and path.is_file():
                rel = path.relative_to(root).as_posix()
                self.add(rel, label, path.read_text(encoding="utf-8", errors="replace"))

    def add_wheel(self, path: Path) -> None:
        """The ``include/`` members of a wheel, read in place (no unpacking)."""
        dist, version = _wheel_name(path)
        label = f"{dist} {version}"
        self.origins.append(label)
        with zipfile.ZipFile(path) as z:
            for member in sorted(z.namelist()):
                if "/include/" not in member or member.endswith("/"):
                    continue
                rel = member.split("/include/", 1)[1]
                if PurePosixPath(rel).suffix in (".h", ".hpp", ".cuh"):
                    self.add(rel, label, z.read(member).decode("utf-8", errors="replace"))

    def match(self, patterns: Iterable[str]) -> list[str]:
        """Paths matching any fnmatch pattern (``*`` also crosses ``/``), sorted."""
        pats = tuple(patterns)
        return sorted(rel for rel in self.files if any(fnmatch.fnmatchcase(rel, p) for p in pats))

    def declared(self, rel: str) -> Declared:
        if rel not in self._cache:
            decl = Declared()
            for _origin, text in self.files[rel]:
                decl.update(scan_text(text))
            self._cache[rel] = decl
        return self._cache[rel]

    def partial(self, rel: str) -> dict[str, list[str]]:
        """Names that only some copies of ``rel`` declare -> the origins declaring them
        (a toolkit and a newer wheel: the API the newer version added)."""
        copies = self.files[rel]
        if len(copies) < 2:
            return {}
        key = "\0partial\0" + rel
        if key not in self._partial:
            per = [(origin, scan_text(text).all()) for origin, text in copies]
            every = set.intersection(*(names for _, names in per))
            out: dict[str, set[str]] = {}
            for origin, names in per:
                for n in names - every:
                    out.setdefault(n, set()).add(origin)
            self._partial[key] = {n: sorted(o) for n, o in out.items()}
        return self._partial[key]

    def origins_of(self, rel: str) -> list[str]:
        return sorted({o for o, _ in self.files[rel]})


def _dir_label(root: Path) -> str:
    """A path-free label for an include folder: its CUDA version when it has cuda.h."""
    cuda_h = root / "cuda.h"
    if cuda_h.is_file():
        m = re.search(r"#define\s+CUDA_VERSION\s+(\d+)", cuda_h.read_text(errors="replace"))
        if m:
            v = int(m.group(1))
            return f"CUDA {v // 1000}.{v % 1000 // 10} include dir"
    return f"include dir {root.name}"


def _wheel_name(path: Path) -> tuple[str, str]:
    """(distribution, version) from a wheel file name."""
    parts = path.name.split("-")
    return parts[0].replace("_", "-").lower(), parts[1]


def load_headers(includes: Iterable[Path], wheels_dir: Path | None) -> HeaderSet:
    hs = HeaderSet()
    for inc in includes:
        if not inc.is_dir():
            raise SystemExit(f"error: include folder not found: {inc}")
        hs.add_dir(inc)
    if wheels_dir is not None:
        wheels = sorted(wheels_dir.glob("*.whl"))
        if not wheels:
            raise SystemExit(f"error: no *.whl files in {wheels_dir}")
        found = {}
        for w in wheels:
            dist, version = _wheel_name(w)
            found[dist] = version
            hs.add_wheel(w)
        for dist, version in WHEELS.items():
            if dist not in found:
                print(f"warning: {dist} {version} not in {wheels_dir}", file=sys.stderr)
            elif found[dist] != version:
                print(f"warning: {dist} is {found[dist]}, the committed tables used {version}",
                      file=sys.stderr)
    return hs


def fetch_wheels(dest: Path) -> None:
    """Download the pinned wheels (the only step that needs the network)."""
    dest.mkdir(parents=True, exist_ok=True)
    specs = [f"{d}=={v}" for d, v in WHEELS.items()]
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "-d", str(dest), *specs]
    print("+", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True)


# --------------------------------------------------------------------------------------
# Families
# --------------------------------------------------------------------------------------

INTEROP_NOTE = "graphics interop (OpenGL/EGL/VDPAU/Direct3D) is not available on MUSA"
RUNTIME_INTEROP_HEADERS = ("cuda_gl_interop.h", "cuda_egl_interop.h", "cuda_vdpau_interop.h")
DRIVER_INTEROP_HEADERS = ("cudaGL.h", "cudaGLTypedefs.h", "cudaEGL.h", "cudaEGLTypedefs.h",
                          "cudaVDPAU.h", "cudaVDPAUTypedefs.h")
# Interop names that show up in the core headers too.
RUNTIME_INTEROP = re.compile(
    r"^cuda(?:GL|GraphicsGL|WGL|EGL|Egl|GraphicsEGL|VDPAU|GraphicsVDPAU|D3D|GraphicsD3D)"
)
DRIVER_INTEROP = re.compile(
    r"^(?:PFN_)?(?:cu(?:GL|GraphicsGL|WGL|EGL|GraphicsEGL|VDPAU|GraphicsVDPAU|D3D"
    r"|GraphicsD3D)|CUegl|CUGL|CU_EGL|CU_GL_|CUDA_EGL)"
)

# Newer or niche API areas whose MUSA coverage is not verified. Matched against the
# name with its API prefix removed (`cudaGraphLaunch` -> `GraphLaunch`).
UNKNOWN_AREAS = re.compile(
    r"^(?:Graph(?!ics)|StreamBeginCapture|StreamEndCapture|StreamIsCapturing"
    r"|StreamGetCaptureInfo|StreamUpdateCaptureDependencies|ThreadExchangeStreamCaptureMode"
    r"|UserObject|DeviceGetGraphMemAttribute|DeviceSetGraphMemAttribute|DeviceGraphMemTrim"
    r"|Library|Kernel|DevResource|DevSmResource|ExecutionCtx|Logs|TensorMap|Multicast"
    r"|Coredump|CheckpointProcess|GetDriverEntryPoint|GetProcAddress|Tex|Surf"
    r"|CreateTextureObject|DestroyTextureObject|GetTextureObject|CreateSurfaceObject"
    r"|DestroySurfaceObject|GetSurfaceObject|CGGet|GetParameterBuffer|LaunchDevice"
    r"|Profiler|Occ(?!upancy))"
    r"|Texture|Surface|Cluster|Green",
    re.IGNORECASE,  # CU_DEVICE_ATTRIBUTE_MAX_TEXTURE1D_WIDTH like cudaDevAttrMaxTexture1DWidth
)
# `PFN_cuMemAlloc_v3020`: the suffix is a CUDA version; MUSA's typedef names are unverified.
VERSIONED_PFN = re.compile(r"^PFN_\w+_v\d{4,}$")
VERSIONED_PFN_NOTE = "PFN typedef suffixed with a CUDA version; MUSA's suffixes are unverified"

# Extracted names deliberately left out: per-thread-stream implementation names
# (`cudaMemcpyAsync_ptsz`), include guards (`CUBLAS_API_H_`, `CUDNN_H_`).
SKIP_PATTERN = re.compile(r"^(?:PFN_)?cu[a-zA-Z]\w*_pt(?:sz|ds)$|_H_*$|_HPP_*$|_INCLUDED_*$")
SKIP_NAMES = frozenset({"CUDART_DEVICE"})
# Header decoration macros (`CUBLASWINAPI`, `CUSPARSE_DEPRECATED`): exported, but nobody
# writes them; their MUSA spelling is a guess.
DECORATION_MACRO = re.compile(r"(?:API|_DEPRECATED\w*|_EXPORT|DECLSPEC|_INLINE\w*)$")
DECORATION_NOTE = "header decoration macro; MUSA spelling not verified"
# A library constant that names a CUDA API inside (`CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020`).
EMBEDDED_API = re.compile(r"_(?:cuda|cu|nvtx)[A-Z]")
EMBEDDED_API_NOTE = "names a CUDA API inside; MUSA's spelling of the rest not verified"


@dataclass
class Context:
    """What a family's classifier may look at for one name."""

    name: str
    kind: str  # function / type / constant / macro
    where: frozenset[str]  # headers declaring it
    prefix: Prefix


Classifier = Callable[[Context, str, str], "tuple[str, str]"]


@dataclass(frozen=True)
class Family:
    name: str
    title: str
    headers: tuple[str, ...]  # fnmatch patterns of include-relative paths
    default_status: str = "supported"
    # (ctx, status, note) -> (status, note): family-specific honesty
    classify: Classifier | None = None
    pfn: bool = False  # derive PFN_<name> typedefs (driver)
    public_headers: tuple[str, ...] = ()  # for headers.json; default: top-level `headers`


def _only_in(ctx: Context, patterns: Iterable[str]) -> bool:
    pats = tuple(patterns)
    return bool(ctx.where) and all(any(fnmatch.fnmatchcase(h, p) for p in pats) for h in ctx.where)


def _stem(name: str, prefix: Prefix) -> str:
    return name.removeprefix("PFN_")[len(prefix.cuda):].lstrip("_")


def _classify_runtime(ctx: Context, status: str, note: str) -> tuple[str, str]:
    stem = _stem(ctx.name, ctx.prefix)
    if RUNTIME_INTEROP.match(ctx.name) or _only_in(ctx, RUNTIME_INTEROP_HEADERS):
        return "unsupported", INTEROP_NOTE
    if _only_in(ctx, ("cuda_device_runtime_api.h",)):
        return "unknown", "device runtime (dynamic parallelism) only"
    if UNKNOWN_AREAS.search(stem) and not stem.lower().startswith("error"):
        return "unknown", note
    return status, note


def _classify_driver(ctx: Context, status: str, note: str) -> tuple[str, str]:
    stem = _stem(ctx.name, ctx.prefix)
    if DRIVER_INTEROP.match(ctx.name) or _only_in(ctx, DRIVER_INTEROP_HEADERS):
        return "unsupported", INTEROP_NOTE
    if VERSIONED_PFN.match(ctx.name):
        return "unknown", VERSIONED_PFN_NOTE
    if ctx.name in ("cuuint32_t", "cuuint64_t"):
        return "unknown", note
    if UNKNOWN_AREAS.search(stem) and not stem.lower().startswith("error"):
        return "unknown", note
    return status, note


def _library(*rules: tuple[str, Callable[[Context], bool]]) -> Classifier:
    """A classifier for a library: decoration macros and the given groups are unknown."""

    def classify(ctx: Context, status: str, note: str) -> tuple[str, str]:
        if status != "supported":
            return status, note
        if ctx.kind == "macro" and DECORATION_MACRO.search(ctx.name):
            return "unknown", DECORATION_NOTE
        for group_note, test in rules:
            if test(ctx):
                return "unknown", group_note
        return status, note

    return classify


def _classify_npp(ctx: Context, status: str, note: str) -> tuple[str, str]:
    if ctx.name.startswith(irregular.NPP_SUPPORTED_PREFIX):
        return "supported", ""
    return status, note


FAMILIES: tuple[Family, ...] = (
    Family(
        "runtime", "CUDA runtime API",
        ("cuda_runtime_api.h", "driver_types.h", "cuda_runtime.h", "surface_types.h", "texture_types.h",
         "cuda_device_runtime_api.h", "library_types.h", "driver_functions.h", "cuda_profiler_api.h",
         "cuda_occupancy.h", *RUNTIME_INTEROP_HEADERS),
        classify=_classify_runtime,
        public_headers=("cuda_runtime.h", "cuda_runtime_api.h", "cuda_profiler_api.h", "cuda_occupancy.h",
                        "cuda_device_runtime_api.h", "cuda_awbarrier*.h", "cuda_pipeline*.h",
                        "cuda_stdint.h", *RUNTIME_INTEROP_HEADERS),
    ),
    Family(
        "driver", "CUDA driver API",
        ("cuda.h", "cudaTypedefs.h", "cudaProfiler.h", "cudaProfilerTypedefs.h", *DRIVER_INTEROP_HEADERS),
        classify=_classify_driver, pfn=True,
    ),
    Family(
        "device", "Math and device functions whose names change (cuComplex)",
        ("cuComplex.h",),
    ),
    Family(
        "fp16_bf16", "Reduced-precision types (bf16, fp8, fp6, fp4)",
        ("cuda_bf16.h", "cuda_bf16.hpp", "cuda_fp8.h", "cuda_fp8.hpp", "cuda_fp6.h", "cuda_fp6.hpp",
         "cuda_fp4.h", "cuda_fp4.hpp"),
        public_headers=("cuda_fp16.h", "cuda_fp16.hpp", "cuda_bf16.h", "cuda_bf16.hpp", "cuda_fp8.h",
                        "cuda_fp8.hpp", "cuda_fp6.h", "cuda_fp6.hpp", "cuda_fp4.h", "cuda_fp4.hpp"),
    ),
    Family(
        "cublas", "cuBLAS and cuBLASLt",
        ("cublas.h", "cublas_api.h", "cublas_v2.h", "cublasLt.h", "cublasXt.h"),
        classify=_library(
            ("cuBLASXt multi-GPU API; MUSA support not verified",
             lambda c: c.name.startswith(("cublasXt", "CUBLASXT")) or _only_in(c, ("cublasXt.h",))),
            ("legacy cuBLAS API (cublas.h); MUSA support not verified",
             lambda c: _only_in(c, ("cublas.h",))),
        ),
    ),
    Family("curand", "cuRAND (host API and device functions)", ("curand*.h",), classify=_library()),
    Family("cusparse", "cuSPARSE", ("cusparse.h", "cusparse_v2.h"), classify=_library()),
    Family(
        "cufft", "cuFFT and cuFFTXt",
        ("cufft.h", "cufftXt.h", "cufft_device.h", "cudalibxt.h"),
        classify=_library(
            ("cuFFTXt API (multi-GPU, callbacks); MUSA support not verified",
             lambda c: _only_in(c, ("cufftXt.h", "cufft_device.h", "cudalibxt.h"))),
        ),
    ),
    Family(
        "cusolver", "cuSOLVER",
        ("cusolver*.h",),
        classify=_library(
            ("cuSOLVER multi-GPU / refactorization / low-level API; MUSA support not verified",
             lambda c: _only_in(c, ("cusolverMg.h", "cusolverRf.h", "cusolverSp_LOWLEVEL_PREVIEW.h"))),
        ),
    ),
    Family(
        "cudnn", "cuDNN",
        ("cudnn*.h",),
        classify=_library(
            ("cuDNN backend (graph) API; muDNN support not verified",
             lambda c: c.name.startswith(("cudnnBackend", "CUDNN_BACKEND_", "CUDNN_ATTR_"))),
        ),
    ),
    Family(
        "nccl", "NCCL (MCCL on MUSA)",
        ("nccl.h", "nccl_device*.h", "nccl_device/*"),
        classify=_library(
            ("NCCL device API (nccl_device.h); MCCL support not verified",
             lambda c: _only_in(c, ("nccl_device*",))),
        ),
        public_headers=("nccl.h", "nccl_device.h"),
    ),
    Family(
        "cupti", "CUPTI (MUPTI on MUSA)",
        ("cupti*.h", "generated_cuda_meta.h", "generated_cuda_runtime_api_meta.h",
         "Openacc/cupti_openacc.h", "Openmp/cupti_openmp.h"),
        classify=_library(
            (EMBEDDED_API_NOTE, lambda c: bool(EMBEDDED_API.search(c.name[len(c.prefix.cuda):]))),
        ),
        public_headers=("cupti*.h",),
    ),
    Family(
        "nvtx", "NVTX (no MUSA equivalent known)",
        ("nvtx3/nvToolsExt*.h", "nvtx3/nvtx3.hpp"),
        default_status="unsupported",
        public_headers=("nvtx3/nvToolsExt*.h", "nvtx3/nvtx3.hpp"),
    ),
    Family("nvrtc", "NVRTC (no MUSA equivalent documented)", ("nvrtc.h",), default_status="unsupported"),
    Family(
        "npp", "NPP (MTPP on MUSA)", ("npp*.h",), default_status="unknown", classify=_classify_npp,
    ),
)
FAMILY_NAMES = tuple(f.name for f in FAMILIES)
CURATED_FAMILIES = ("headers", "macros", "pytorch")


def derive(name: str, prefixes: Iterable[Prefix], pfn: bool = False) -> tuple[str | None, Prefix] | None:
    """(MUSA name or None, the prefix rule) for ``name``, or None if no rule applies.

    The longest prefix the name starts with decides: ``cudart_x`` starts with
    ``cuda`` but fails its ``follow`` check, and does not fall back to ``cu``.
    """
    if pfn and name.startswith(irregular.PFN):
        inner = derive(name[len(irregular.PFN):], prefixes)
        if inner is None or inner[0] is None:
            return inner
        return irregular.PFN + inner[0], inner[1]
    best: Prefix | None = None
    for p in prefixes:
        if name.startswith(p.cuda) and (best is None or len(p.cuda) > len(best.cuda)):
            best = p
    if best is None:
        return None
    rest = name[len(best.cuda):]
    if rest and not re.match(f"[{best.follow}]", rest[0]):
        return None
    if not rest and not best.bare:
        return None
    return (None if best.musa is None else best.musa + rest), best


def _entry(musa: str | None, status: str, note: str, default_status: str,
           primary: bool = False) -> Entry:
    if musa is not None and status == default_status and not note and not primary:
        return musa
    out: dict[str, object] = {}
    if musa is not None:
        out["musa"] = musa
    out["status"] = status
    if note:
        out["note"] = note
    if primary:
        out["primary"] = True
    return out  # type: ignore[return-value]


def _kinds(hs: HeaderSet, headers: list[str]) -> tuple[dict[str, str], dict[str, set[str]]]:
    """name -> kind (function > type > constant > macro) and name -> declaring headers."""
    kind: dict[str, str] = {}
    where: dict[str, set[str]] = {}
    rank = {"function": 0, "type": 1, "constant": 2, "macro": 3}
    for rel in headers:
        decl = hs.declared(rel)
        for k, names in (("function", decl.functions), ("type", decl.types),
                         ("constant", decl.constants), ("macro", decl.macros)):
            for n in names:
                where.setdefault(n, set()).add(rel)
                if n not in kind or rank[k] < rank[kind[n]]:
                    kind[n] = k
    return kind, where


@dataclass
class Table:
    family: str
    title: str
    default_status: str
    source: str
    entries: dict[str, Entry]
    kinds: dict[str, str] = field(default_factory=dict)
    headers: list[str] = field(default_factory=list)  # scanned headers (for coverage)

    def document(self) -> dict[str, object]:
        return {
            "family": self.family,
            "title": self.title,
            "default_status": self.default_status,
            "source": self.source,
            "entries": self.entries,
        }


def _source(hs: HeaderSet, headers: list[str]) -> str:
    """``label: h1, h2; label2: h3`` grouping headers by where they came from."""
    by_origin: dict[str, list[str]] = {}
    for rel in headers:
        key = ", ".join(hs.origins_of(rel))
        by_origin.setdefault(key, []).append(rel)
    return "; ".join(f"{o}: {', '.join(rels)}" for o, rels in sorted(by_origin.items()))


def build_family(fam: Family, hs: HeaderSet, owned: set[str]) -> Table | None:
    headers = hs.match(fam.headers)
    if not headers:
        return None
    prefixes = irregular.PREFIXES[fam.name]
    kind, where = _kinds(hs, headers)
    entries: dict[str, Entry] = {}
    kinds: dict[str, str] = {}
    unsupported_note = irregular.UNSUPPORTED_NOTES.get(fam.name, "")
    for name in sorted(kind):
        if name in owned or name in SKIP_NAMES or SKIP_PATTERN.search(name):
            continue
        if fam.name == "fp16_bf16" and re.match(irregular.FP16_KEEP_PATTERN, name):
            continue
        derived = derive(name, prefixes, fam.pfn)
        if derived is None:
            continue
        musa, prefix = derived
        status = prefix.status or fam.default_status
        note = prefix.note
        if musa is None:
            status, note = "unsupported", unsupported_note or note
        elif fam.classify is not None:
            status, note = fam.classify(Context(name, kind[name], frozenset(where[name]), prefix),
                                        status, note)
            if status == "unsupported":
                musa = None  # known to have no MUSA form: reported, never rewritten
        if status == "supported":
            only = _only_some_versions(hs, name, where[name])
            if only:
                status, note = "unknown", f"only in {only}; MUSA support not verified"
        entries[name] = _entry(musa, status, note, fam.default_status)
        kinds[name] = kind[name]
    if fam.pfn:
        _plain_pfn(entries, kinds, prefixes)
    if fam.name == "npp":
        _npp_legacy(entries, kinds, owned)
    for item in irregular.FAMILY_NAMES.get(fam.name, ()):
        entries[item.cuda] = _entry(item.musa, item.status, item.note, fam.default_status)
        kinds.setdefault(item.cuda, item.kind)
    return Table(fam.name, fam.title, fam.default_status, _source(hs, headers), entries, kinds, headers)


def _only_some_versions(hs: HeaderSet, name: str, headers: Iterable[str]) -> str:
    """The origins declaring ``name`` when every header declaring it has copies of
    several versions and only some declare it; "" otherwise."""
    origins: set[str] = set()
    for rel in headers:
        part = hs.partial(rel).get(name)
        if part is None:
            return ""
        origins.update(part)
    return ", ".join(sorted(origins))


def _plain_pfn(entries: dict[str, Entry], kinds: dict[str, str], prefixes: Iterable[Prefix]) -> None:
    """CUDA 12 also had ``#define PFN_cuCtxGetCurrent PFN_cuCtxGetCurrent_v4000``; CUDA 13
    keeps only the versioned typedefs, but user code still names the plain PFN_cuXxx.
    It takes the status of the function it points to."""
    for name in sorted(entries):
        if not VERSIONED_PFN.match(name):
            continue
        plain = re.sub(r"_v\d+$", "", name)
        if plain in entries:
            continue
        func = entries.get(plain[len(irregular.PFN):])
        derived = derive(plain, prefixes, pfn=True)
        assert derived is not None and derived[0] is not None
        musa = derived[0]
        if func is None or isinstance(func, str):
            entries[plain] = musa
        elif "musa" in func:
            entries[plain] = {**func, "musa": musa}
        else:
            entries[plain] = dict(func)
        kinds[plain] = "type"


def _npp_legacy(entries: dict[str, Entry], kinds: dict[str, str], owned: set[str]) -> None:
    """``nppiResize_8u_C1R`` for each ``nppiResize_8u_C1R_Ctx`` that NPP 13 declares alone."""
    for name in sorted(entries):
        legacy = name[: -len("_Ctx")]
        if kinds[name] != "function" or not name.endswith("_Ctx") or legacy in entries or legacy in owned:
            continue
        musa = musa_of(entries[name])
        assert musa is not None
        status = "supported" if legacy.startswith(irregular.NPP_SUPPORTED_PREFIX) else "unknown"
        entries[legacy] = _entry(musa[: -len("_Ctx")], status, irregular.NPP_LEGACY_NOTE, "unknown")
        kinds[legacy] = "function"


def _curated(items: Iterable[Name]) -> dict[str, Entry]:
    return {i.cuda: _entry(i.musa, i.status, i.note, "supported", i.primary) for i in items}


def _delimited(name: str, entry: Entry) -> dict[str, Entry]:
    """A header as ``<name>`` and ``"name"``: the delimiters make the key match only a
    whole include target, so ``foo/cuda.h`` of another package is left alone. When
    both forms map to one (quoted) MUSA header, only ``<name>`` stays primary."""
    out: dict[str, Entry] = {}
    quoted = name in irregular.QUOTED_TARGETS
    for left, right in (("<", ">"), ('"', '"')):
        nl, nr = ('"', '"') if quoted else (left, right)
        if isinstance(entry, str):
            out[left + name + right] = nl + entry + nr
            continue
        new = dict(entry)
        if "musa" in entry:
            new["musa"] = nl + str(entry["musa"]) + nr
        if quoted and left == '"':
            new.pop("primary", None)
        out[left + name + right] = new
    return out


def build_headers(hs: HeaderSet, tables: dict[str, Table]) -> Table:
    """headers.json: the brief's header names, and every public header of a family
    whose name carries the family's prefix (``cusolverDn.h -> musolverDn.h``, unknown)."""
    entries: dict[str, Entry] = {}
    curated = {i.cuda: i for i in irregular.HEADERS}
    derived: dict[str, Entry] = {}
    for fam in FAMILIES:
        if fam.name not in tables:
            continue
        patterns = fam.public_headers or tuple(p for p in fam.headers if "/" not in p)
        for rel in hs.match(patterns):
            if rel in curated or rel.startswith("generated_"):
                continue
            base = PurePosixPath(rel).name
            stem, dot, ext = base.partition(".")
            interop = rel in RUNTIME_INTEROP_HEADERS or rel in DRIVER_INTEROP_HEADERS
            if fam.default_status == "unsupported" or interop:
                note = INTEROP_NOTE if interop else irregular.UNSUPPORTED_NOTES.get(fam.name, "")
                derived[rel] = {"status": "unsupported", "note": note}
                continue
            prefixes = irregular.PREFIXES[fam.name]
            d = derive(stem, prefixes)
            if d is None or d[0] is None:
                continue
            derived[rel] = {"musa": rel[: len(rel) - len(base)] + d[0] + dot + ext, "status": "unknown"}
    for rel in sorted(derived):
        entries.update(_delimited(rel, derived[rel]))
    for name, item in curated.items():
        entries.update(_delimited(name, _entry(item.musa, item.status, item.note, "supported",
                                               item.primary)))
    labels = ", ".join(hs.origins) or "no headers"
    return Table("headers", "Header names, with their include delimiters", "supported",
                 f"musa-port brief (BRIEF.md: Headers); derived from the family headers in {labels}",
                 dict(sorted(entries.items())), {k: "header" for k in entries})


def build_all(hs: HeaderSet, partial: bool = False) -> dict[str, Table]:
    """Every table, keyed by family (files are written in this order)."""
    macros = _curated(irregular.MACROS)
    pytorch = _curated(irregular.PYTORCH)
    owned: set[str] = set(macros) | set(pytorch) | {
        i.cuda for names in irregular.FAMILY_NAMES.values() for i in names}
    tables: dict[str, Table] = {}
    missing = []
    for fam in FAMILIES:
        table = build_family(fam, hs, owned)
        if table is None:
            missing.append(fam.name)
            continue
        tables[fam.name] = table
        owned |= set(table.entries)
    if missing and not partial:
        raise SystemExit(
            "error: no headers found for: " + ", ".join(missing)
            + "\n(fetch them with --fetch-wheels DIR, pass --wheels-dir DIR, or use --partial)")
    tables["headers"] = build_headers(hs, tables)
    tables["macros"] = Table("macros", "Compiler and version macros", "supported",
                             "musa-port brief (docs/BRIEF.md): macros", macros, {k: "macro" for k in macros})
    tables["pytorch"] = Table("pytorch", "PyTorch / torch_musa names", "supported",
                              "musa-port brief (docs/BRIEF.md): PyTorch / torch_musa", pytorch,
                              {k: "name" for k in pytorch})
    return tables


# --------------------------------------------------------------------------------------
# Checks and output
# --------------------------------------------------------------------------------------

_IDENT = re.compile(r"^[A-Za-z_]\w*$")
_FORBIDDEN = re.compile(irregular.FORBIDDEN_KEY_PATTERN)


def musa_of(entry: Entry) -> str | None:
    return entry if isinstance(entry, str) else entry.get("musa")  # type: ignore[return-value]


def check_tables(tables: dict[str, Table]) -> list[str]:
    """Problems violating the table rules: forbidden or conflicting keys, empty or
    malformed values, chains (a value that is itself a rewritten key)."""
    problems: list[str] = []
    seen: dict[str, tuple[str, Entry]] = {}
    for fam, table in tables.items():
        for key, val in table.entries.items():
            musa = musa_of(val)
            status = table.default_status if isinstance(val, str) else val.get("status", table.default_status)
            if not key or musa == "":
                problems.append(f"{fam}: empty key or value for {key!r}")
            if status not in STATUSES or (musa is None and status != "unsupported"):
                problems.append(f"{fam}: bad status for {key!r}")
            if key in irregular.FORBIDDEN_KEYS or _FORBIDDEN.match(key):
                problems.append(f"{fam}: {key!r} must not be a key")
            if musa and _IDENT.match(key) and not _IDENT.match(musa):
                problems.append(f"{fam}: value {musa!r} of identifier {key!r} is not an identifier")
            if key in seen and seen[key][1] != val:
                problems.append(f"{fam}: {key!r} also in {seen[key][0]} with another value")
            seen[key] = (fam, val)
    by_value: dict[str, list[tuple[str, Entry]]] = {}
    for key, (fam, val) in seen.items():
        musa = musa_of(val)
        if musa and musa in seen and musa != key and musa_of(seen[musa][1]) not in (None, musa):
            problems.append(f"{fam}: value {musa!r} of {key!r} is also a key in {seen[musa][0]} (chain)")
        if musa:
            by_value.setdefault(musa, []).append((key, val))
    for musa, keys in sorted(by_value.items()):
        primaries = [k for k, v in keys if isinstance(v, dict) and v.get("primary")]
        if len(keys) > 1 and len(primaries) != 1:
            problems.append(f"{musa!r} is the value of {sorted(k for k, _ in keys)}: "
                            f"exactly one needs \"primary\": true (the one --reverse restores)")
        elif len(keys) == 1 and primaries:
            problems.append(f"{primaries[0]!r} is primary but shares its value with no other key")
    return problems


def render(doc: object) -> str:
    """Canonical, deterministic JSON text."""
    return json.dumps(doc, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def _status_counts(table: Table) -> dict[str, int]:
    counts = dict.fromkeys(STATUSES, 0)
    for val in table.entries.values():
        status = table.default_status if isinstance(val, str) else val.get("status", table.default_status)
        counts[status] += 1
    return counts


def render_coverage(tables: dict[str, Table], hs: HeaderSet) -> str:
    """docs/coverage.md: entries per family, by status and kind, and the headers used."""
    lines = [
        "# Mapping table coverage",
        "",
        "Generated by `python -m musa_porting.tables.generate` (see [tables.md](tables.md));",
        "do not edit by hand. Statuses: *supported* (a MUSA name from the brief or its prefix",
        "rule), *unknown* (a plausible MUSA name, not verified; still rewritten), *unsupported*",
        "(no MUSA equivalent: reported, not rewritten).",
        "",
        "| family | title | entries | supported | unknown | unsupported | functions | types "
        "| constants | macros |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    total = dict.fromkeys(("entries", *STATUSES, "function", "type", "constant", "macro"), 0)
    for fam, table in tables.items():
        counts = _status_counts(table)
        kinds = dict.fromkeys(("function", "type", "constant", "macro"), 0)
        for k in table.kinds.values():
            if k in kinds:
                kinds[k] += 1
        total["entries"] += len(table.entries)
        for k, v in (*counts.items(), *kinds.items()):
            total[k] += v
        kind_cells = " | ".join(str(kinds[k]) if kinds[k] else "" for k in kinds)
        lines.append(f"| {fam} | {table.title} | {len(table.entries)} | {counts['supported']} | "
                     f"{counts['unknown']} | {counts['unsupported']} | {kind_cells} |")
    lines.append(
        f"| **total** | | **{total['entries']}** | {total['supported']} | {total['unknown']} | "
        f"{total['unsupported']} | {total['function']} | {total['type']} | {total['constant']} | "
        f"{total['macro']} |")
    lines += ["", "(`headers` counts each header twice: as `<name>` and as `\"name\"`.)", "",
              "## Header sources", ""]
    lines += [f"- {o}" for o in hs.origins] or ["- none"]
    lines += ["", "## Headers read, per family", ""]
    for fam, table in tables.items():
        if not table.headers:
            continue
        by_origin: dict[str, dict[str, int]] = {}
        for rel in table.headers:
            # A folder of internals (nccl_device/impl/...) is summarized by its top level.
            top, slash, _ = rel.partition("/")
            shown = f"{top}/**" if slash and table.family not in ("nvtx",) else rel
            group = by_origin.setdefault(", ".join(hs.origins_of(rel)), {})
            group[shown] = group.get(shown, 0) + 1
        parts = "; ".join(
            f"{o}: " + ", ".join(f"`{h}`" + (f" ({n} files)" if n > 1 else "") for h, n in group.items())
            for o, group in sorted(by_origin.items()))
        lines.append(f"- **{fam}**: {parts}")
    return "\n".join(lines) + "\n"


def outputs(tables: dict[str, Table], hs: HeaderSet) -> dict[str, str]:
    """File name -> text for every table, plus ``coverage.md``."""
    out = {f"{fam}.json": render(t.document()) for fam, t in tables.items()}
    out["coverage.md"] = render_coverage(tables, hs)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m musa_porting.tables.generate",
        description="Generate musa-port's default mapping tables from CUDA headers.")
    ap.add_argument("--include", action="append", type=Path, metavar="DIR",
                    help="a CUDA include folder (repeatable; default $CUDA_INCLUDE or "
                         "/usr/local/cuda/include)")
    ap.add_argument("--wheels-dir", type=Path, metavar="DIR",
                    help="a folder of NVIDIA *.whl files whose include/ headers are read")
    ap.add_argument("--fetch-wheels", type=Path, metavar="DIR",
                    help="first download the pinned wheels into DIR (network), then use it "
                         "as --wheels-dir")
    ap.add_argument("--out", type=Path, metavar="DIR", help="where to write the *.json tables")
    ap.add_argument("--coverage", type=Path, metavar="FILE", help="where to write coverage.md")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 if a file differs from what would be written")
    ap.add_argument("--partial", action="store_true",
                    help="skip families whose headers are missing instead of failing")
    args = ap.parse_args(argv)

    includes = args.include or [Path(os.environ.get("CUDA_INCLUDE", "/usr/local/cuda/include"))]
    wheels_dir = args.wheels_dir
    if args.fetch_wheels is not None:
        fetch_wheels(args.fetch_wheels)
        wheels_dir = args.fetch_wheels
    if args.out is None and not (ROOT / "pyproject.toml").is_file():
        ap.error("--out is required outside a musa-port checkout")
    out_dir = args.out or ROOT / "mapping"
    coverage = args.coverage or (out_dir / "coverage.md" if args.out else ROOT / "docs" / "coverage.md")

    hs = load_headers(includes, wheels_dir)
    tables = build_all(hs, partial=args.partial)
    problems = check_tables(tables)
    for p in problems:
        print("error:", p, file=sys.stderr)
    if problems:
        return 1
    files = outputs(tables, hs)
    stale = []
    for name, text in files.items():
        path = coverage if name == "coverage.md" else out_dir / name
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        if old != text:
            stale.append(str(path))
            if not args.check:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text, encoding="utf-8")
    for fam, t in tables.items():
        print(f"{fam}.json: {len(t.entries)} entries")
    print(f"total: {sum(len(t.entries) for t in tables.values())} entries")
    if args.check and stale:
        print("out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
