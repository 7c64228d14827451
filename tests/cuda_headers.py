"""Headers of the CUDA math libraries (cuBLAS, cuRAND, ...), of torch, and nvcc, for tests.

The CUDA toolkit on the CI machines ships no cuBLAS or cuRAND headers, but the
NVIDIA wheels on PyPI do (``nvidia-cublas``: ``nvidia/cu13/include/cublas_v2.h``;
older ``-cu12`` wheels: ``nvidia/cublas/include``). ``library_include_dirs()``
finds them, in order:

1. ``$MUSA_PORT_CUDA_LIB_INCLUDE`` (folders separated by ``os.pathsep``);
2. wheels installed in this interpreter (the ``nvidia`` namespace package);
3. the cache ``$MUSA_PORT_TEST_CACHE/cuda-lib-headers/<package>/include``
   (default ``~/.cache/musa-port-tests``);
4. otherwise ``python -m pip download --no-deps`` of the wheel (nvidia-cublas is
   ~450 MB, so pip's ordinary settings such as ``PIP_FIND_LINKS`` /
   ``PIP_NO_INDEX`` apply), of which only the members under an ``include/``
   folder are kept in the cache; the wheel itself is deleted.

``python tests/cuda_headers.py`` prints the folders (one a line), e.g. for the
``LIB_INC`` of ``fixtures/cuda_app/Makefile``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from sdist import cache_lock

ENV_INCLUDE = "MUSA_PORT_CUDA_LIB_INCLUDE"
DEFAULT_PACKAGES = ("nvidia-cublas", "nvidia-curand")

# Headers that tell a package's include folder apart (keys: names without -cuNN).
MARKERS = {
    "nvidia-cublas": ("cublas_v2.h", "cublas_api.h"),
    "nvidia-curand": ("curand.h", "curand_kernel.h"),
    "nvidia-cusparse": ("cusparse.h",),
    "nvidia-cufft": ("cufft.h",),
    "nvidia-cusolver": ("cusolverDn.h",),
    "nvidia-cudnn": ("cudnn.h",),
    "nvidia-nccl": ("nccl.h",),
    "nvidia-npp": ("npp.h",),
    "nvidia-nvtx": ("nvtx3/nvToolsExt.h",),
    "nvidia-cuda-runtime": ("cuda_runtime.h",),
    "nvidia-cuda-cccl": ("cuda/std/version",),
    "torch": ("ATen/ATen.h", "c10/cuda/CUDAGuard.h", "torch/extension.h"),
}


def _project_name(spec: str) -> str:
    """'nvidia_cublas==13.1' -> 'nvidia-cublas' (PEP 503 normalized)."""
    m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
    if not m:
        raise ValueError(f"not a package requirement: {spec!r}")
    return re.sub(r"[-_.]+", "-", m.group(1)).lower()


def _markers(spec: str) -> tuple[str, ...]:
    name = _project_name(spec)
    return MARKERS.get(re.sub(r"-cu\d+$", "", name), ())


def _holds(folder: Path, markers: tuple[str, ...]) -> bool:
    return bool(markers) and all((folder / m).is_file() for m in markers)


def _nvidia_roots() -> list[Path]:
    """The folders of the ``nvidia`` namespace package of this interpreter."""
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    return [Path(p) for p in spec.submodule_search_locations]


def _env_dirs() -> list[Path]:
    value = os.environ.get(ENV_INCLUDE, "")
    return [Path(p) for p in value.split(os.pathsep) if p]


def _installed_dirs() -> list[Path]:
    # nvidia/cu13/include (CUDA 13 wheels), nvidia/cublas/include (-cu12 wheels), ...
    return sorted(d for root in _nvidia_roots() for d in root.glob("*/include") if d.is_dir())


def cache_root() -> Path:
    base = Path(os.environ.get("MUSA_PORT_TEST_CACHE", Path.home() / ".cache" / "musa-port-tests"))
    return base / "cuda-lib-headers"


def _cache_key(spec: str) -> str:
    name = _project_name(spec)
    rest = re.sub(r"[^A-Za-z0-9.]+", "_", spec.strip()[len(name):]).strip("_")
    return f"{name}_{rest}" if rest else name


def _download_headers(spec: str, target: Path) -> None:
    """pip-download the wheel of ``spec``; keep its ``include/`` members in ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    print(f"cuda_headers: downloading {spec} for its headers ...", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix=f".{target.name}-", dir=target.parent) as tmp:
        wheel_dir = Path(tmp, "wheel")
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
               "--progress-bar", "off", "-d", str(wheel_dir), spec]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        wheels = sorted(wheel_dir.glob("*.whl"))
        if proc.returncode != 0 or not wheels:
            raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout}\n{proc.stderr}")
        stage = Path(tmp, "include")
        for wheel in wheels:
            with zipfile.ZipFile(wheel) as zf:
                for info in zf.infolist():
                    parts = PurePosixPath(info.filename).parts
                    if info.is_dir() or "include" not in parts[:-1] or ".." in parts:
                        continue
                    rel = parts[parts.index("include") + 1:]
                    dest = stage.joinpath(*rel)
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    with zf.open(info) as src, open(dest, "wb") as out:
                        shutil.copyfileobj(src, out)
            wheel.unlink()  # the wheels are large; only the headers are kept
        if not stage.is_dir():
            raise RuntimeError(f"{wheels[0].name} has no include/ folder")
        target.mkdir(exist_ok=True)
        try:
            stage.rename(target / "include")
        except OSError:
            if not (target / "include").is_dir():  # else: a concurrent run won the race
                raise


def library_include_dirs(packages=DEFAULT_PACKAGES, download: bool = True) -> list[Path]:
    """Include folders holding the headers of the given NVIDIA wheels (see the module doc).

    ``packages`` are pip requirements (``"nvidia-cublas"``, ``"nvidia-cublas==13.1.0.3"``).
    With ``download=False`` a package found nowhere raises ``LookupError`` instead of
    being downloaded.
    """
    if isinstance(packages, str):
        packages = (packages,)
    found: list[Path] = []
    for spec in packages:
        markers = _markers(spec)
        folder = next((d for d in [*_env_dirs(), *_installed_dirs()] if _holds(d, markers)), None)
        if folder is None:
            cached = cache_root() / _cache_key(spec)
            folder = cached / "include"
            with cache_lock(cache_root()):
                usable = _holds(folder, markers) if markers else folder.is_dir()
                if not usable:
                    if not download:
                        raise LookupError(f"headers of {spec} not found (set {ENV_INCLUDE}?)")
                    if cached.exists():
                        shutil.rmtree(cached)  # incomplete or stale
                    _download_headers(spec, cached)
                    if markers and not _holds(folder, markers):
                        raise RuntimeError(
                            f"{spec}: downloaded, but {', '.join(markers)} not in {folder}")
        folder = folder.resolve()
        if folder not in found:
            found.append(folder)
    return found


def torch_include_dirs(version: str = "2.13.0") -> list[Path]:
    """torch's C++ include folders (what ``torch.utils.cpp_extension.include_paths()``
    gives): the installed torch's when it is ``version``, else the headers of its wheel,
    downloaded once like the NVIDIA ones (``pip download torch==VERSION`` takes a local
    CPU wheel where pip's find-links has one; the CPU wheel carries ATen/cuda and c10/cuda)."""
    try:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as installed_version

        have = installed_version("torch")
    except (ImportError, PackageNotFoundError):
        have = None
    spec = importlib.util.find_spec("torch") if have else None
    if have and have.split("+")[0] == version and spec is not None and spec.origin:
        root = Path(spec.origin).parent / "include"
    else:
        [root] = library_include_dirs((f"torch=={version}",))
    return [root, root / "torch" / "csrc" / "api" / "include"]


def find_nvcc() -> Path | None:
    """nvcc from CUDA_HOME/CUDA_PATH, PATH, /usr/local/cuda, or the nvidia-cuda-nvcc wheel."""
    candidates = [Path(os.environ[v], "bin", "nvcc") for v in ("CUDA_HOME", "CUDA_PATH")
                  if os.environ.get(v)]
    on_path = shutil.which("nvcc")
    if on_path:
        candidates.append(Path(on_path))
    candidates.append(Path("/usr/local/cuda/bin/nvcc"))
    for root in _nvidia_roots():
        candidates += [root / "cu13" / "bin" / "nvcc", *sorted(root.glob("*/bin/nvcc"))]
    return next((p for p in candidates if p.is_file() and os.access(p, os.X_OK)), None)


if __name__ == "__main__":
    for d in library_include_dirs(sys.argv[1:] or DEFAULT_PACKAGES):
        print(d)
