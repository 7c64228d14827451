"""The check of a ported tree (musa_porting/check/): a ported extension package that
hangs together (fixtures/hangs_together: setup.py with computed paths, csrc with a
musa/ folder, Python that calls ops and loads extensions by name, CMake, Make) has no
finding; broken in each way a port breaks it, one finding at the reference's line;
and near misses of each stay quiet."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES

from musa_porting.check.run import check_output
from musa_porting.write.manifest import FileRecord, Manifest

PACKAGE = FIXTURES / "hangs_together"


def ported(tmp_path: Path, edit: tuple[str, str, str] | None = None) -> Path:
    """The fixture as OUT, with the manifest a port would write (each output's input
    path); ``edit``: (file, old, new) done to one output first."""
    out = tmp_path / "out"
    shutil.copytree(PACKAGE, out, ignore=shutil.ignore_patterns("inputs.json"))
    renamed = json.loads((PACKAGE / "inputs.json").read_text())["renamed"]
    files = {}
    for p in sorted(out.rglob("*")):
        if p.is_file():
            rel = p.relative_to(out).as_posix()
            files[rel] = FileRecord(renamed.get(rel, rel), "ported")
    if edit is not None:
        name, old, new = edit
        path = out / name
        text = path.read_text()
        assert text.count(old) == 1, f"{old!r} must stand once in {name}"
        path.write_text(text.replace(old, new))
    (out / ".musa-port-manifest.json").write_text(Manifest("src", files=files).to_json())
    return out


def found(out: Path) -> list[tuple[str, str, int]]:
    return [(d.id, rel, d.line) for rel, d in check_output(str(out))]


def test_a_package_that_hangs_together_has_no_finding(tmp_path):
    # Near misses included: a glob of another backend's folder in neither tree, a
    # quoted system header, a string that looks like an op read, another library's op,
    # a placeholder stored into torch.ops, the extension's own import, a module's own
    # attribute and another backend's binding read off an extension, a module init's
    # name in a comment and a string.
    assert found(ported(tmp_path)) == []


BREAKS = [
    # A computed path whose f-string did not follow the rename: the exists check drops it.
    ("setup.py", "f'{name}_musa.mu'", "f'{name}_cuda.mu'", "MP5001", 24),
    ("setup.py", "'csrc/bind/bind.cpp', 'csrc/musa/scale_musa.mu'",
     "'csrc/bind/bind.cpp', 'csrc/cuda/scale_cuda.cu'", "MP5001", 30),
    ("setup.py", "glob.glob('csrc/musa/*.mu')", "glob.glob('csrc/cuda/*.cu')", "MP5001", 31),
    # An include folder, and a file taken out of a source list (ValueError if not there).
    ("setup.py", "include_dirs=[osp.join(extensions_dir, 'musa')]",
     "include_dirs=[osp.join(extensions_dir, 'cuda')]", "MP5001", 29),
    ("setup.py", "kernels.remove('csrc/musa/scale_musa.mu')",
     "kernels.remove('csrc/cuda/scale_musa.mu')", "MP5001", 33),
    ("CMakeLists.txt", "include_directories(${CMAKE_CURRENT_SOURCE_DIR}/csrc/musa)",
     "include_directories(${CMAKE_CURRENT_SOURCE_DIR}/csrc/cuda)", "MP5001", 8),
    ("CMakeLists.txt", "PRIVATE csrc/cpu csrc/musa)", "PRIVATE csrc/cpu csrc/cuda)", "MP5001", 9),
    ("CMakeLists.txt", "${KERNELS} csrc/musa/scale_musa.mu", "${KERNELS} csrc/cuda/scale_cuda.cu",
     "MP5001", 6),
    ("CMakeLists.txt", "/csrc/musa/*.mu", "/csrc/cuda/*.cu", "MP5001", 4),
    ("Makefile", "scale.so: csrc/musa/scale_musa.mu", "scale.so: csrc/cuda/scale_musa.mu",
     "MP5001", 3),
    ("csrc/version.cpp", "PyInit__version_musa", "PyInit__version_cuda", "MP5002", 6),
    ("ht_pkg/__init__.py", "f'{library}_musa'", "f'{library}_cuda'", "MP5005", 8),
    ("ht_pkg/__init__.py", "from . import musa", "from . import cuda", "MP5005", 16),
    ("ht_pkg/musa/streams.py", "from ..ops_musa import", "from ..ops_cuda import", "MP5005", 1),
    ("csrc/version.cpp", '"ht_pkg::cuda_version"', '"ht_pkg::musa_version"', "MP5003", 21),
    ("ht_pkg/ops.py", "bind.scale_musa(x)", "bind.scale_cuda(x)", "MP5004", 15),
    ("ht_pkg/ops.py", "['norm', 'scale_musa']", "['norm', 'scale_cuda']", "MP5004", 6),
    ("ht_pkg/ops.py", "ext_module.scale_musa(x)", "ext_module.scale_cuda(x)", "MP5004", 19),
    ("csrc/musa/scale_musa.mu", '"helpers.muh"', '"helpers.cuh"', "MP5006", 2),
]


@pytest.mark.parametrize(("name", "old", "new", "cid", "line"), BREAKS,
                         ids=[f"{b[3]}-{b[0]}-{b[4]}" for b in BREAKS])
def test_each_break_is_one_finding_at_the_reference(tmp_path, name, old, new, cid, line):
    (got,) = check_output(str(ported(tmp_path, (name, old, new))))
    rel, d = got
    where = {"MP5003": "ht_pkg/__init__.py"}.get(cid, name)  # an op: where Python reads it
    assert (d.id, rel, d.line) == (cid, where, line), d.message
    assert d.level == "error"
