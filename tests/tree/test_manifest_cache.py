"""A re-run reads the last manifest from the cache (write/manifest_cache.py) rather
than parsing and checking its JSON again: the same run, report and checks as without
the cache, and never the cached answer for a manifest whose bytes changed."""

from __future__ import annotations

import json
import os
from pathlib import Path

from conftest import make_tree
from conftest import run_cli as cli

from musa_porting.write import manifest as manifest_module
from musa_porting.write.manifest import MANIFEST_NAME, load_manifest

TREE = {
    "k.cu": "#include <cuda_runtime.h>\n__global__ void k() { __shfl_down(0, 1); }\n"
            "void MYLIB_CUDA_CHECK() { cudaMalloc(0, 0); thrust::cuda::par; cuDeviceGet(0, 0); }\n",
    "sub/h.cuh": "#pragma once\nvoid MYLIB_CUDA_CHECK();\n",
    "setup.py": "import torch\nx = torch.cuda.is_available()\n",
    "CMakeLists.txt": "project(x LANGUAGES CXX CUDA)\nadd_definitions(-DWITH_CUDA)\n",
    "notes.txt": "copied\n",
}


def _cached(cache: Path) -> list[Path]:
    return sorted(cache.glob("manifest-*.marshal"))


def test_a_rerun_from_the_cache_reports_what_the_json_says(tmp_path):
    src = make_tree(tmp_path / "src", TREE)
    cache = tmp_path / "cache"
    env = {"MUSA_PORT_CACHE_DIR": str(cache)}
    cli(src, "-o", tmp_path / "out", "-q", env=env, check=0)
    assert len(_cached(cache)) == 1  # written with the manifest
    runs = {}
    for name, where in (("cached", str(cache)), ("json", "off")):
        report = tmp_path / f"{name}.json"
        proc = cli(src, "-o", tmp_path / "out", "-q", "--report-json", report,
                   env={"MUSA_PORT_CACHE_DIR": where}, check=0)
        data = json.loads(report.read_text())
        for timing in ("elapsed_s", "mb_per_s"):
            data["run"].pop(timing)
        runs[name] = (proc.stdout.split("; 0 written")[0], data)
    assert "0 written" in proc.stdout
    assert runs["cached"] == runs["json"]
    assert runs["json"][1]["files"]  # the report has something to compare


def test_the_cache_holds_exactly_what_the_json_load_gives(tmp_path, monkeypatch):
    src = make_tree(tmp_path / "src", TREE)
    cache = tmp_path / "cache"
    cli(src, "-o", tmp_path / "out", "-q", env={"MUSA_PORT_CACHE_DIR": str(cache)}, check=0)
    monkeypatch.setenv("MUSA_PORT_CACHE_DIR", "off")
    from_json = load_manifest(str(tmp_path / "out"))
    monkeypatch.setenv("MUSA_PORT_CACHE_DIR", str(cache))

    def no_json(*args, **kwargs):
        raise AssertionError("the manifest was parsed again")

    monkeypatch.setattr(manifest_module.json, "loads", no_json)
    from_cache = load_manifest(str(tmp_path / "out"))
    assert from_cache == from_json and from_json.files and from_json.project
    assert [type(r.diagnostics) for r in from_cache.files.values()] == \
        [type(r.diagnostics) for r in from_json.files.values()]


def test_a_manifest_edited_after_it_was_cached_is_read_and_checked_again(tmp_path):
    src = make_tree(tmp_path / "src", TREE)
    out = tmp_path / "out"
    env = {"MUSA_PORT_CACHE_DIR": str(tmp_path / "cache")}
    cli(src, "-o", out, "-q", env=env, check=0)
    manifest = out / MANIFEST_NAME
    text = manifest.read_text()
    # The same size, and the same times to the second: only the bytes say it changed.
    st = manifest.stat()
    edited = text.replace('"notes.txt":', '"../xy.txt":', 1)
    assert edited != text and len(edited) == len(text)
    manifest.write_text(edited)
    os.utime(manifest, ns=(st.st_atime_ns, st.st_mtime_ns))
    proc = cli(src, "-o", out, "-q", env=env, check=0)
    assert "'../xy.txt'" in proc.stderr and "not paths inside the output" in proc.stderr
    assert (out / "notes.txt").read_text() == "copied\n"


def test_no_cache_is_written_when_it_is_off(tmp_path):
    src = make_tree(tmp_path / "src", TREE)
    cli(src, "-o", tmp_path / "out", "-q", env={"MUSA_PORT_CACHE_DIR": "off"}, check=0)
    cli(src, "-o", tmp_path / "out", "-q", env={"MUSA_PORT_CACHE_DIR": "off"}, check=0)
    assert not (Path.cwd() / "off").exists()
    assert (tmp_path / "out" / "k.mu").is_file()


def test_the_cache_keeps_the_manifests_of_the_output_folders_used_last(tmp_path, monkeypatch):
    from musa_porting.write import manifest_cache

    monkeypatch.setenv("MUSA_PORT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(manifest_cache, "KEEP", 2)
    for i in range(4):
        out = str(tmp_path / f"out{i}")
        manifest_cache.save(out, b"{}", ("src",), 0, ((), [], [], ()))
        os.utime(manifest_cache._file(out), (i, i))  # used in this order
    assert len(_cached(tmp_path / "cache")) == 2
    assert manifest_cache.load(str(tmp_path / "out3"), b"{}", ("src",)) is not None
    assert manifest_cache.load(str(tmp_path / "out3"), b"{ }", ("src",)) is None
    assert manifest_cache.load(str(tmp_path / "out3"), b"{}", ("kind",)) is None
