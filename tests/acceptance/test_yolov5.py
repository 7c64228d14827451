"""Acceptance: the manual's own example, YOLOv5 (the ``yolov5`` wheel on PyPI carries
the scripts), converted with ``musa-converter -r yolov5 -l yolov5/train.py``; and the
cost of porting Python over that tree."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from conftest import snapshot
from sdist import YOLOV5_WHEEL as WHEEL
from sdist import fetch_pinned

pytestmark = pytest.mark.slow

DEVICE = re.compile(r"cuda(:\d*)?")


@pytest.fixture
def yolov5(tmp_path) -> Path:
    with zipfile.ZipFile(fetch_pinned(*WHEEL)) as zf:
        zf.extractall(tmp_path, [n for n in zf.namelist() if n.startswith("yolov5/")])
    return tmp_path / "yolov5"


def _code_strings_and_attrs(tree: ast.AST):
    """String constants (docstrings aside) and dotted attribute chains of a module."""
    docstrings = {id(n.value) for n in ast.walk(tree)
                  if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docstrings:
            yield "str", node.value
        elif isinstance(node, ast.JoinedStr) and node.values and \
                isinstance(node.values[0], ast.Constant):
            yield "fstr", node.values[0].value
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            yield "attr", f"{node.value.id}.{node.attr}"


def test_musa_converter_on_yolov5(yolov5):
    files = sorted(yolov5.rglob("*.py"))
    assert len(files) > 50
    proc = subprocess.run([sys.executable, "-m", "musa_porting.musa_converter", "-r", str(yolov5),
                           "-l", str(yolov5 / "train.py")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "converted train.py" in proc.stdout

    for f in files:  # every file still parses
        tree = ast.parse(f.read_bytes(), str(f))
        for kind, value in _code_strings_and_attrs(tree):
            assert not (kind == "attr" and value == "torch.cuda"), f
            assert not (kind == "str" and DEVICE.fullmatch(value)), (f, value)
            assert not (kind == "fstr" and value.startswith("cuda:")), (f, value)

    body = ast.parse((yolov5 / "train.py").read_bytes()).body
    imports = [a.name for n in body if isinstance(n, ast.Import) for a in n.names]
    assert imports.count("torch_musa") == 1
    assert imports.index("torch") < imports.index("torch_musa")
    others = [f for f in files if f.name != "train.py" or f.parent != yolov5]
    assert not any("import torch_musa" in f.read_text() for f in others)

    before = snapshot(yolov5)
    again = subprocess.run([sys.executable, "-m", "musa_porting.musa_converter", "-r", str(yolov5),
                            "-l", str(yolov5 / "train.py")], capture_output=True, text=True)
    assert again.returncode == 0 and ", 0 changed," in again.stdout
    assert snapshot(yolov5) == before


def test_python_porting_cost_per_file(yolov5):
    """CPU time of porting every .py file of YOLOv5 as the manual's command does (train.py
    the launch file), best of 3, over the number of files: the figure goes to the test log
    (``-s``); the issue's budget is 2 ms. Not a timing assert: figures in tests never are."""
    from musa_porting.port.python import port_python, python_rules

    files = sorted(yolov5.rglob("*.py"))
    data = [f.read_bytes() for f in files]
    launch = [f == yolov5 / "train.py" for f in files]
    rules = python_rules()
    port_python(b"import torch\ntorch.cuda.synchronize()\n", rules)  # imports, warm caches
    runs = []
    for _ in range(3):
        t = time.process_time()
        ported = [port_python(d, rules, launch=la) for d, la in zip(data, launch)]
        runs.append(time.process_time() - t)
    per_file_ms = min(runs) / len(files) * 1000
    print(f"python porting: {per_file_ms:.2f} ms per file over {len(files)} yolov5 files")
    changed = [f.name for f, d, p in zip(files, data, ported) if p.data != d]
    assert "train.py" in changed and len(changed) >= 10  # the work timed is the real port
