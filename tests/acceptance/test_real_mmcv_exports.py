"""Real mmcv 2.2.0, ported with the torch_musa manual's call: every name mmcv's Python
side loads from the extension (the ``ext_loader.load_ext('_ext', [...])`` lists of
``mmcv/ops/*.py``, which mmcv asserts at import time) is still bound in the ported
tree, under its own name, to the function it bound before (issue 27)."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES
from sdist import extract_subtree, fetch_sdist

from musa_porting.analyze.exported import scan

pytestmark = pytest.mark.slow


def load_ext_names(ops: Path) -> dict[str, str]:
    """Every name the ``load_ext`` calls of ``ops/*.py`` ask for, with the file asking."""
    names: dict[str, str] = {}
    for py in sorted(ops.glob("*.py")):
        for node in ast.walk(ast.parse(py.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "load_ext":
                listed = node.args[1]
                assert isinstance(listed, ast.List), py
                for item in listed.elts:
                    names.setdefault(item.value, py.name)  # type: ignore[attr-defined]
    return names


def bindings(tree: Path) -> dict[str, str]:
    """Each name the tree binds, with the function its binding names."""
    out: dict[str, str] = {}
    for p in tree.rglob("*.cpp"):
        data = p.read_bytes()
        for m in re.finditer(rb'\bm\.def\(\s*"(\w+)"\s*,\s*&\s*(\w+)', data):
            out[m.group(1).decode()] = m.group(2).decode()
        for name, _, _, how in scan(data):
            if not how.startswith("bound by"):
                out.setdefault(name, "")
    return out


def test_every_name_mmcv_loads_is_still_bound(tmp_path):
    archive = fetch_sdist("mmcv", "2.2.0")
    root = extract_subtree(archive, "mmcv-2.2.0/mmcv", tmp_path).parent
    shutil.copy(FIXTURES / "call_sites/readme_mmcv/port_manual.py", root)
    proc = subprocess.run([sys.executable, "port_manual.py"], cwd=root, capture_output=True,
                          text=True, env=os.environ.copy())
    assert proc.returncode == 0, proc.stderr
    wanted = load_ext_names(root / "mmcv/ops")
    assert len(wanted) > 100 and "get_compiling_cuda_version" in wanted
    before, after = bindings(root / "mmcv/ops/csrc"), bindings(root / "mmcv/ops/csrc_musa")
    missing = sorted(n for n in wanted if n not in after)
    assert missing == [], f"{len(missing)} names mmcv loads are no longer bound: {missing[:10]}"
    changed = sorted(n for n in wanted if before.get(n) != after.get(n))
    assert changed == [], changed  # bound to the same function, under the same name
    ported = "\n".join(p.read_text(errors="replace") for p in (root / "mmcv/ops/csrc_musa").rglob("*")
                       if p.is_file() and p.suffix in (".cpp", ".mu", ".h", ".muh"))
    for name, fn in after.items():
        if name in wanted and fn:
            assert len(re.findall(rf"\b{fn}\b", ported)) >= 2, fn  # bound and defined/declared
