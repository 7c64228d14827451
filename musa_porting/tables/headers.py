"""Where the generator reads headers from: include folders, NVIDIA's wheels and the
torch wheel (read in place), which names each header declares (``scan``), and which
CUDA release each copy of a header comes from.

The same header path usually comes in several copies: CUDA 11.8 and 12.9 (the
``-cu11``/``-cu12`` wheels), the CUDA 13 toolkit and a newer CUDA 13 wheel. A family
reads the union of all copies, so a name CUDA 13 no longer declares
(``cudaThreadSynchronize``) still gets an entry, marked with the newest release that
declares it (``newest``).
"""

from __future__ import annotations

import fnmatch
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .scan import Declared, scan_text

# The CUDA 13 wheels, then the CUDA 12.9 and 11.8 releases of the libraries whose
# older API users still port from (runtime + driver, cuBLAS, cuRAND, cuSPARSE, cuFFT,
# cuSOLVER), then torch for the PyTorch C++ API (only ``TORCH_DIRS`` are read).
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
    "nvidia-cuda-runtime-cu12": "12.9.79",
    "nvidia-cublas-cu12": "12.9.1.4",
    "nvidia-curand-cu12": "10.3.10.19",
    "nvidia-cusparse-cu12": "12.5.10.65",
    "nvidia-cufft-cu12": "11.4.1.4",
    "nvidia-cusolver-cu12": "11.7.5.82",
    "nvidia-cuda-runtime-cu11": "11.8.89",
    "nvidia-cublas-cu11": "11.11.3.6",
    "nvidia-curand-cu11": "10.3.0.86",
    "nvidia-cusparse-cu11": "11.7.5.86",
    "nvidia-cufft-cu11": "10.9.0.58",
    "nvidia-cusolver-cu11": "11.4.1.48",
    "torch": "2.13.0",
    # Moore Threads' MTML binding: its pymtml.py is the nvml family's source (tables/nvml.py).
    "mthreads-ml-py": "2.4.3",
}
# The CUDA release a library wheel belongs to, by its name's suffix (the pins above are
# the libraries of CUDA 12.9.1 and 11.8.0); a wheel with cuda.h says its own.
CUDA_OF_SUFFIX = {"-cu11": (11, 8), "-cu12": (12, 9), "-cu13": (13,), "": (13,)}
TORCH = "torch"
# Wheels that are not headers: the one file of each a family reads.
EXTRA_FILES = {"mthreads-ml-py": "pymtml.py"}
TORCH_DIRS = ("ATen/cuda/", "c10/cuda/", "torch/csrc/cuda/")
Version = tuple[int, ...]


def version_label(version: Version) -> str:
    """``(12, 9)`` -> ``"12.9"``."""
    return ".".join(map(str, version))


@dataclass
class HeaderSet:
    """Headers by include-relative path (``cublas_v2.h``, ``nvtx3/nvToolsExt.h``).

    A path may come from several sources (the toolkit and a newer wheel): its names
    are the union of all copies, and every source is recorded.
    """

    files: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # rel -> [(origin, text)]
    origins: list[str] = field(default_factory=list)
    # origin -> the CUDA release it comes from (None: not CUDA, e.g. torch)
    versions: dict[str, Version | None] = field(default_factory=dict)
    # Other files a family reads from a wheel (pymtml.py): name -> (origin, text).
    extras: dict[str, tuple[str, str]] = field(default_factory=dict)
    _cache: dict[str, Declared] = field(default_factory=dict)
    _copies: dict[str, list[tuple[str, Declared]]] = field(default_factory=dict)
    _partial: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    _newest: dict[str, dict[str, Version]] = field(default_factory=dict)

    def add(self, rel: str, origin: str, text: str) -> None:
        self.files.setdefault(rel, []).append((origin, text))

    def add_dir(self, root: Path) -> None:
        """Every ``.h``/``.hpp`` file under an include folder."""
        label, version = _dir_label(root)
        self.origins.append(label)
        self.versions[label] = version
        for path in sorted(root.rglob("*")):
            if path.suffix in (".h", ".hpp", ".cuh") and path.is_file():
                rel = path.relative_to(root).as_posix()
                self.add(rel, label, path.read_text(encoding="utf-8", errors="replace"))

    def add_wheel(self, path: Path) -> None:
        """The ``include/`` members of a wheel, read in place (no unpacking)."""
        dist, version = _wheel_name(path)
        label = f"{dist} {version}"
        if dist in EXTRA_FILES:
            with zipfile.ZipFile(path) as z:
                name = EXTRA_FILES[dist]
                self.extras[name] = (label, z.read(name).decode("utf-8", errors="replace"))
            return
        self.origins.append(label)
        cuda: Version | None = None if dist == TORCH else CUDA_OF_SUFFIX.get(_suffix(dist), (13,))
        with zipfile.ZipFile(path) as z:
            for member in sorted(z.namelist()):
                if "/include/" not in member or member.endswith("/"):
                    continue
                rel = member.split("/include/", 1)[1]
                if dist == TORCH and not rel.startswith(TORCH_DIRS):
                    continue  # torch's other 10,000 headers are not CUDA API
                if PurePosixPath(rel).suffix in (".h", ".hpp", ".cuh"):
                    text = z.read(member).decode("utf-8", errors="replace")
                    if rel == "cuda.h":
                        cuda = _cuda_version(text) or cuda
                    self.add(rel, label, text)
        self.versions[label] = cuda

    def match(self, patterns: Iterable[str]) -> list[str]:
        """Paths matching any fnmatch pattern (``*`` also crosses ``/``), sorted."""
        pats = tuple(patterns)
        return sorted(rel for rel in self.files if any(fnmatch.fnmatchcase(rel, p) for p in pats))

    def declared(self, rel: str) -> Declared:
        if rel not in self._cache:
            decl = Declared()
            for _origin, copy in self.copies(rel):
                decl.update(copy)
            self._cache[rel] = decl
        return self._cache[rel]

    def copies(self, rel: str) -> list[tuple[str, Declared]]:
        """Each copy of ``rel``: (origin, what it declares)."""
        if rel not in self._copies:
            self._copies[rel] = [(origin, scan_text(text)) for origin, text in self.files[rel]]
        return self._copies[rel]

    def _newest_generation(self, rel: str) -> list[tuple[str, Declared]]:
        versions = [self.versions.get(o) for o, _ in self.copies(rel)]
        top = max((v[0] for v in versions if v), default=None)
        return [(o, d) for (o, d), v in zip(self.copies(rel), versions) if not v or v[0] == top]

    def partial(self, rel: str) -> dict[str, list[str]]:
        """Names that only some copies of ``rel`` of the newest CUDA generation declare
        -> the origins declaring them (the CUDA 13.0 toolkit and a CUDA 13.5 wheel: the
        API the newer release added). Older releases are ``newest``'s business."""
        if rel not in self._partial:
            per = [(origin, decl.all()) for origin, decl in self._newest_generation(rel)]
            out: dict[str, set[str]] = {}
            if len(per) > 1:
                every = set.intersection(*(names for _, names in per))
                for origin, names in per:
                    for n in names - every:
                        out.setdefault(n, set()).add(origin)
            self._partial[rel] = {n: sorted(o) for n, o in out.items()}
        return self._partial[rel]

    def newest(self, rel: str) -> dict[str, Version]:
        """Name -> the newest CUDA release whose copy of ``rel`` declares it."""
        if rel not in self._newest:
            out: dict[str, Version] = {}
            for origin, decl in self.copies(rel):
                v = self.versions.get(origin)
                if v is None:
                    continue
                for n in decl.all():
                    if n not in out or v > out[n]:
                        out[n] = v
            self._newest[rel] = out
        return self._newest[rel]

    def generation(self, rels: Iterable[str]) -> int | None:
        """The newest CUDA major release any copy of these headers comes from."""
        return max((v[0] for rel in rels for o, _ in self.files[rel]
                    if (v := self.versions.get(o))), default=None)

    def origins_of(self, rel: str) -> list[str]:
        return sorted({o for o, _ in self.files[rel]})


def release_label(version: Version, generation: int | None) -> str:
    """``CUDA 13`` for any release of the newest generation read, else the release
    (``CUDA 12.9``, ``CUDA 11.8``): the newest that declares a name CUDA 13 dropped."""
    if generation is not None and version[0] == generation:
        return f"CUDA {generation}"
    return f"CUDA {version_label(version)}"


@dataclass
class Declarations:
    """Where each name is declared, over every CUDA header read: the newest release
    declaring it, the header, and its kind (for entries that need no family's scan)."""

    newest: dict[str, tuple[Version, str, str]] = field(default_factory=dict)
    generation: int | None = None

    @classmethod
    def of(cls, hs: HeaderSet, rels: Iterable[str]) -> Declarations:
        rels = sorted(set(rels))
        out = cls(generation=hs.generation(rels))
        for rel in rels:
            decl = hs.declared(rel)
            kinds = {n: k for k, names in (("macro", decl.macros), ("constant", decl.constants),
                                           ("type", decl.types), ("function", decl.functions))
                     for n in names}
            for name, version in hs.newest(rel).items():
                cur = out.newest.get(name)
                if cur is None or version > cur[0]:
                    out.newest[name] = (version, rel, kinds.get(name, "name"))
        return out

    def version(self, name: str) -> str | None:
        hit = self.newest.get(name)
        return None if hit is None else release_label(hit[0], self.generation)


def header_release(hs: HeaderSet, rel: str) -> Version:
    """The newest CUDA release with a copy of header ``rel``."""
    return max(v for o, _ in hs.files[rel] if (v := hs.versions.get(o)))


def _cuda_version(cuda_h: str) -> Version | None:
    m = re.search(r"#define\s+CUDA_VERSION\s+(\d+)", cuda_h)
    if not m:
        return None
    v = int(m.group(1))
    return (v // 1000, v % 1000 // 10)


def _dir_label(root: Path) -> tuple[str, Version | None]:
    """A path-free label for an include folder (its CUDA version when it has cuda.h),
    and that version."""
    cuda_h = root / "cuda.h"
    version = _cuda_version(cuda_h.read_text(errors="replace")) if cuda_h.is_file() else None
    if version:
        return f"CUDA {version_label(version)} include dir", version
    return f"include dir {root.name}", None


def _suffix(dist: str) -> str:
    m = re.search(r"-cu\d+$", dist)
    return m.group(0) if m else ""


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
            elif found[dist].split("+")[0] != version:
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


