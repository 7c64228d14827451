"""Fetching a source distribution from the package registry, for tests on real trees.

``pip download --no-binary`` cannot fetch mmcv's sdist (it runs the sdist's
setup.py, which needs torch), so the file is taken straight from the registry's
simple JSON index and checked against the sha256 the index publishes. Downloads are
cached under $MUSA_PORT_TEST_CACHE (default ~/.cache/musa-port-tests).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import tarfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path

# The manual's Python example: the yolov5 wheel carries the scripts.
YOLOV5_WHEEL = ("yolov5", "yolov5-7.0.14-py37.py38.py39.py310-none-any.whl",
                "67d0e3f7cb055cc7ff0c9d66fc993577f7394ca83a16ab097c0343ee4db3ca4b")


def cache_dir() -> Path:
    d = Path(os.environ.get("MUSA_PORT_TEST_CACHE", Path.home() / ".cache" / "musa-port-tests"))
    d.mkdir(parents=True, exist_ok=True)
    return d


@contextlib.contextmanager
def cache_lock(folder: Path) -> Iterator[None]:
    """One test process at a time fills the cache: the suite runs in parallel workers
    (pytest-xdist), and two that need the same download would both fetch it and write
    one file at once."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _download(name: str, filename: str) -> tuple[bytes, str]:
    """``filename`` of package ``name`` from the registry's simple JSON index, with the
    sha256 the index publishes."""
    index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/")
    req = urllib.request.Request(f"{index}/{name}/",
                                 headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        files = json.load(resp)["files"]
    entry = next(f for f in files if f["filename"] == filename)
    with urllib.request.urlopen(entry["url"], timeout=120) as resp:
        return resp.read(), entry["hashes"]["sha256"]


def _cache(target: Path, blob: bytes) -> Path:
    tmp = target.with_suffix(".part")
    tmp.write_bytes(blob)
    tmp.replace(target)
    return target


def fetch_sdist(name: str, version: str, sha256: str | None = None) -> Path:
    """The path of ``name-version.tar.gz``, downloaded once and checked against the
    pinned ``sha256``, or the one the index publishes."""
    return fetch_pinned(name, f"{name}-{version}.tar.gz", sha256)


def fetch_pinned(name: str, filename: str, sha256: str | None) -> Path:
    """``filename`` of package ``name``, checked against a pinned sha256 (also when it
    comes from the cache); with ``sha256=None``, against the index's, once."""
    target = cache_dir() / filename
    with cache_lock(target.parent):
        if target.is_file() and (sha256 is None
                                 or hashlib.sha256(target.read_bytes()).hexdigest() == sha256):
            return target
        blob, published = _download(name, filename)
        if hashlib.sha256(blob).hexdigest() != (sha256 or published):
            raise RuntimeError(f"{filename}: sha256 does not match")
        return _cache(target, blob)


def extract_subtree(archive: Path, member_prefix: str, dest: Path) -> Path:
    """Extract the members under ``member_prefix`` (e.g. 'mmcv-2.2.0/mmcv/ops/csrc')."""
    with tarfile.open(archive) as tf:
        members = [m for m in tf.getmembers()
                   if m.name == member_prefix or m.name.startswith(member_prefix + "/")]
        tf.extractall(dest, members=members, filter="data")
    return dest / member_prefix
