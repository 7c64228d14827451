"""Fetching a source distribution from the package registry, for tests on real trees.

``pip download --no-binary`` cannot fetch mmcv's sdist (it runs the sdist's
setup.py, which needs torch), so the file is taken straight from the registry's
simple JSON index and checked against the sha256 the index publishes. Downloads are
cached under $MUSA_PORT_TEST_CACHE (default ~/.cache/musa-port-tests).
"""

from __future__ import annotations

import hashlib
import json
import os
import tarfile
import urllib.request
from pathlib import Path


def cache_dir() -> Path:
    d = Path(os.environ.get("MUSA_PORT_TEST_CACHE", Path.home() / ".cache" / "musa-port-tests"))
    d.mkdir(parents=True, exist_ok=True)
    return d


def fetch_sdist(name: str, version: str, sha256: str | None = None) -> Path:
    """The path of ``name-version.tar.gz``, downloaded once and verified (against the
    index's sha256, and the pinned ``sha256`` when given, also for a cached file)."""
    filename = f"{name}-{version}.tar.gz"
    target = cache_dir() / filename
    if target.is_file():
        if sha256 is not None and hashlib.sha256(target.read_bytes()).hexdigest() != sha256:
            raise RuntimeError(f"{target}: sha256 is not the pinned {sha256}")
        return target
    index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/")
    req = urllib.request.Request(f"{index}/{name}/",
                                 headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        files = json.load(resp)["files"]
    entry = next(f for f in files if f["filename"] == filename)
    with urllib.request.urlopen(entry["url"], timeout=120) as resp:
        blob = resp.read()
    digest = hashlib.sha256(blob).hexdigest()
    if digest != entry["hashes"]["sha256"] or (sha256 is not None and digest != sha256):
        raise RuntimeError(f"{filename}: sha256 does not match the index or the pin")
    tmp = target.with_suffix(".part")
    tmp.write_bytes(blob)
    tmp.replace(target)
    return target


def extract_subtree(archive: Path, member_prefix: str, dest: Path) -> Path:
    """Extract the members under ``member_prefix`` (e.g. 'mmcv-2.2.0/mmcv/ops/csrc')."""
    with tarfile.open(archive) as tf:
        members = [m for m in tf.getmembers()
                   if m.name == member_prefix or m.name.startswith(member_prefix + "/")]
        tf.extractall(dest, members=members, filter="data")
    return dest / member_prefix
