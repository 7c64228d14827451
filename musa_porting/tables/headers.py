"""Where the generator reads CUDA headers from: include folders and NVIDIA's wheels
(read in place), and which names each header declares (``scan``)."""

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


