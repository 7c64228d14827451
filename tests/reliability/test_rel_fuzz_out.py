"""Fuzzing what a run reads from its output folder: the manifest and the journal, as
anyone who ships a ``SRC_musa/`` folder can write them (issue 24 "property test",
issue 28 "fuzz targets": manifest, journal).

Around the output stands a sentinel tree: files, links, empty folders and files named
like musa-port's temp files, beside the output and far above it. Each case tampers
with the manifest and the journal (paths with ``..``, absolute paths, paths through
links planted in the output, names too long, wrong types, random bytes) and re-runs
the port in-process. It asserts what a user relies on: no exception but a one-line
``PortError`` (exit 2), and the sentinel tree and SRC byte for byte and mtime for
mtime as they were. ``FUZZ_CASES`` scales the number of cases (CI: the default).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import make_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from relhelp import state

from musa_porting.errors import PortError
from musa_porting.tree.options import PortOptions
from musa_porting.tree.porter import port_tree

CASES = max(1, int(os.environ.get("FUZZ_CASES", "10000")) // 200)  # 50 per target in CI
MANIFEST = ".musa-port-manifest.json"
JOURNAL = ".musa-port-journal"
TEMP = ".0123456789abcdef.musa-port-tmp"


class World:
    """tmp/world/{src, out, victim, far/away}: a port of src in out, and sentinels."""

    def __init__(self, root: Path):
        self.root = root
        self.src = make_tree(root / "src", {"a.txt": "a\n", "d/b.txt": "b\n", "d/e/c.h": "int c;\n",
                                            "k.cu": 'asm("mov.u32 %0, %%laneid;" : "=r"(x));\n'})
        os.symlink("a.txt", self.src / "l")
        (self.src / "empty").mkdir()
        for base in (root / "victim", root / "far/away"):
            make_tree(base, {"file.txt": "precious\n", TEMP: "precious\n", "d/f.txt": "f\n"})
            os.symlink("file.txt", base / "link")
            (base / "empty").mkdir()
        self.out = root / "out"
        port_tree(self.options())
        self.template = root / "template"
        shutil.copytree(self.out, self.template, symlinks=True)
        self.manifest = json.loads((self.out / MANIFEST).read_text())
        self.before = self.sentinels()

    def options(self, force: bool = False) -> PortOptions:
        return PortOptions(src=str(self.src), output=str(self.out), jobs=1, default_rules=False,
                           project_symbols=False, force=force, wait=0)

    def sentinels(self) -> tuple:
        return (state(self.root / "victim", with_mtime=True), state(self.root / "far", True),
                state(self.src, with_mtime=True), sorted(os.listdir(self.root)))

    def reset(self) -> None:
        shutil.rmtree(self.out)
        shutil.copytree(self.template, self.out, symlinks=True)

    def run(self, force: bool) -> None:
        try:
            port_tree(self.options(force))
        except PortError as exc:
            assert "\n" not in str(exc)  # one line, exit 2
        assert self.sentinels() == self.before


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> World:
    return World(tmp_path_factory.mktemp("world"))


def _paths(world_root: str) -> st.SearchStrategy[str]:
    part = st.sampled_from(["..", ".", "", "victim", "far", "away", "file.txt", "link", "empty",
                            TEMP, "d", "f.txt", "a.txt", "via", "x" * 300, "k.cu", MANIFEST])
    rel = st.lists(part, min_size=1, max_size=8).map("/".join)
    return st.one_of(rel, rel.map(lambda r: f"{world_root}/{r}"), rel.map(lambda r: "/" + r),
                     st.text(max_size=20))


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)


def _record(model: dict, path: str | None, world_root: Path, draw) -> dict:
    """A record that matches what is at ``path`` now (size and mtime), as a run that
    wrote it would have, or a record with random values."""
    rec = dict(model)
    target = path if path is None or path.startswith("/") else os.path.join(world_root, "out", path)
    try:
        found = os.lstat(target) if target else None
    except (OSError, ValueError):
        found = None
    if found is not None:
        rec.update(out_size=found.st_size, out_mtime_ns=found.st_mtime_ns,
                   kind="symlink" if os.path.islink(target) else "copied")
    if draw(st.booleans()):
        rec[draw(st.sampled_from(sorted(rec)))] = draw(_json)
    return rec


@settings(max_examples=CASES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_tampered_manifest_and_journal_never_touch_anything_outside_the_output(world, data):
    world.reset()
    root = str(world.root)
    draw = data.draw
    manifest = json.loads(json.dumps(world.manifest))
    model = next(iter(manifest["files"].values()))
    for key in draw(st.lists(_paths(root), max_size=6)):
        manifest["files"][key] = _record(model, key, world.root, draw)
    manifest["dirs"] += draw(st.lists(_paths(root), max_size=4))
    (world.out / MANIFEST).write_text(json.dumps(manifest))
    journal = draw(st.one_of(
        st.none(), st.binary(max_size=200),
        st.fixed_dictionaries({"stage_dirs": st.lists(_paths(root), max_size=4),
                               "created": st.lists(_paths(root), max_size=4),
                               "temps": st.lists(_paths(root), max_size=4),
                               "manifest": _paths(root) | _json}).map(json.dumps),
        st.lists(_paths(root), max_size=4).map("\n".join)))
    if journal is not None:
        (world.out / JOURNAL).write_bytes(journal if isinstance(journal, bytes) else
                                          journal.encode("utf-8", "surrogateescape"))
    if draw(st.booleans()):
        os.symlink(draw(st.sampled_from(["../victim", "../far", "/", ".."])), world.out / "via")
    world.run(force=draw(st.booleans()))


_value = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=6),
                  st.sampled_from(["MP9999", "MP2001", "..", "/", "symlink", "ported"]), _json)


def _mutate(value, draw):
    """``value`` with one value somewhere inside it replaced."""
    if isinstance(value, (dict, list)) and value and draw(st.integers(0, 3)):
        keys = sorted(value) if isinstance(value, dict) else list(range(len(value)))
        key = draw(st.sampled_from(keys))
        value[key] = _mutate(value[key], draw)
        return value
    return draw(_value)


@settings(max_examples=CASES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_manifest_with_values_a_run_never_writes_is_only_ever_ignored(world, data):
    """The fuzz target of the manifest: the run's own, a few values replaced anywhere
    (a record's field, a finding's ID, the project plan), or random bytes."""
    world.reset()
    manifest = json.loads(json.dumps(world.manifest))
    if data.draw(st.integers(0, 9)):
        for _ in range(data.draw(st.integers(1, 4))):
            files = manifest.get("files") if isinstance(manifest, dict) else None
            if isinstance(files, dict) and files and data.draw(st.integers(0, 3)):
                # most often a record: the run reuses records
                key = data.draw(st.sampled_from(sorted(files)))
                files[key] = _mutate(files[key], data.draw)
            else:
                manifest = _mutate(manifest, data.draw)
        raw = json.dumps(manifest).encode()
    else:
        raw = data.draw(st.binary(max_size=300))
    (world.out / MANIFEST).write_bytes(raw)
    world.run(force=False)
    world.run(force=True)


@settings(max_examples=CASES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(raw=st.one_of(st.binary(max_size=300), _json.map(lambda v: json.dumps(v).encode()),
                     st.fixed_dictionaries({}, optional={
                         "version": _value, "stage_dirs": _value, "created": _value,
                         "temps": _value, "manifest": _value}).map(lambda v: json.dumps(v).encode())))
def test_a_journal_of_random_bytes_or_values_is_only_ever_ignored(world, raw):
    """The fuzz target of the journal."""
    world.reset()
    (world.out / JOURNAL).write_bytes(raw)
    world.run(force=False)
