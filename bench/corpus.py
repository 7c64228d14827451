"""The bench corpus: mmcv 2.2.0's ops/csrc (the sdist, from PyPI) plus the CCCL headers
(thrust, cub, libcu++) from /usr/local/cuda/include/cccl or the nvidia-cuda-cccl wheel,
cached under $MUSA_PORT_BENCH_CACHE (default: the system temp folder)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from sdist import extract_subtree, fetch_sdist  # noqa: E402

# mmcv's other backends, as its setup.py's port ignores them.
MMCV_BACKENDS = ("common/mlu", "common/mps", "parrots", "pytorch/mlu", "pytorch/mps", "pytorch/npu")


def cache_root() -> Path:
    d = Path(os.environ.get("MUSA_PORT_BENCH_CACHE", Path(tempfile.gettempdir()) / "musa-port-bench"))
    d.mkdir(parents=True, exist_ok=True)
    return d


def cccl_headers(dest: Path) -> Path:
    """The CCCL headers: the local CUDA's, or the nvidia-cuda-cccl wheel's."""
    local = Path("/usr/local/cuda/include/cccl")
    if local.is_dir():
        shutil.copytree(local, dest, symlinks=True)
        return dest
    wheels = cache_root() / "wheels"
    wheels.mkdir(exist_ok=True)
    if not list(wheels.glob("nvidia_cuda_cccl*.whl")):
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d",
                        str(wheels), "nvidia-cuda-cccl"], check=True)
    wheel = sorted(wheels.glob("nvidia_cuda_cccl*.whl"))[-1]
    with zipfile.ZipFile(wheel) as zf:
        members = [m for m in zf.namelist() if "/include/" in m and not m.endswith("/")]
        for m in members:
            target = dest / m.split("/include/", 1)[1]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zf.read(m))
    return dest


def build_corpus() -> Path:
    corpus = cache_root() / "corpus"
    if (corpus / ".complete").exists():
        return corpus
    if corpus.exists():
        shutil.rmtree(corpus)
    corpus.mkdir()
    tmp = cache_root() / "extract"
    shutil.rmtree(tmp, ignore_errors=True)
    csrc = extract_subtree(fetch_sdist("mmcv", "2.2.0"), "mmcv-2.2.0/mmcv/ops/csrc", tmp)
    shutil.move(str(csrc), corpus / "mmcv_csrc")
    shutil.rmtree(tmp, ignore_errors=True)
    cccl_headers(corpus / "cccl")
    (corpus / ".complete").write_text("ok\n")
    return corpus


def mmcv_tree(corpus: Path) -> Path:
    """mmcv's ops/csrc alone, copied out of the corpus (a tool that writes beside its
    input, as SimplePorting writes ``<tree>_musa``, must not write into the corpus)."""
    tree = cache_root() / "mmcv_csrc"
    if not (tree / "pytorch").is_dir():
        shutil.rmtree(tree, ignore_errors=True)
        shutil.copytree(corpus / "mmcv_csrc", tree, symlinks=True)
    return tree


def tree_stats(root: Path) -> tuple[int, int]:
    files = size = 0
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            if not os.path.islink(p):
                files += 1
                size += os.path.getsize(p)
    return files, size


def backend_dirs(tree: Path) -> list[Path]:
    """mmcv's other backends in ``tree`` (mmcv's ops/csrc, or the corpus holding it)."""
    mmcv = tree if (tree / "pytorch").is_dir() else tree / "mmcv_csrc"
    return [mmcv / p for p in MMCV_BACKENDS]


def touch_one_percent(tree: Path, round_no: int) -> dict[Path, bytes]:
    """Append a comment to 1% of the tree's C/C++/CUDA files, spread over the tree;
    returns what to restore."""
    sources = sorted(p for p in tree.rglob("*")
                     if p.is_file() and p.suffix in (".cu", ".cuh", ".h", ".hpp", ".cpp", ".inl"))
    n = max(1, len(sources) // 100)
    touched = sources[:: max(1, len(sources) // n)][:n]
    originals = {p: p.read_bytes() for p in touched}
    for p in touched:
        p.write_bytes(originals[p] + f"\n// touched {round_no}\n".encode())
    return originals
