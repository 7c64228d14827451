"""musa-converter writes only imports that resolve with torch_musa installed (issue 27).

torch_musa registers ``torch.musa`` and ``torch.backends.mudnn`` as *attributes*
(``torch.__setattr__("musa", ...)``, ``torch.backends.__setattr__("mudnn", ...)`` in
its ``__init__.py``), not as modules: ``torch.musa.amp.autocast()`` works in code, but
``from torch.musa import amp`` and ``import torch.backends.mudnn as cudnn`` raise
ModuleNotFoundError. The converted scripts run here against a stand-in torch and
torch_musa that register them exactly so."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import make_tree

# A stand-in torch: torch.cuda and torch.backends.cudnn are real modules, as in torch.
TORCH = {
    "torch/__init__.py": "from . import backends, cuda\n",
    "torch/cuda/__init__.py": "from . import amp\n\ndef empty_cache():\n    raise RuntimeError('CUDA')\n",
    "torch/cuda/amp.py": "def autocast(*a, **k):\n    raise RuntimeError('CUDA')\n",
    "torch/backends/__init__.py": "from . import cudnn\n",
    "torch/backends/cudnn.py": "benchmark = False\n",
}
# A stand-in torch_musa, registering what the real one registers, the way it does.
TORCH_MUSA = {
    "torch_musa/__init__.py": """\
import sys
import types

import torch

from .core import amp, memory
from .core.memory import *  # noqa: F403  (empty_cache, ... as torch_musa re-exports them)

torch.__setattr__("musa", sys.modules[__name__])
_mudnn = types.ModuleType("mudnn")
_mudnn.benchmark = False
torch.backends.__setattr__("mudnn", _mudnn)
""",
    "torch_musa/core/__init__.py": "",
    "torch_musa/core/amp.py": """\
import contextlib


@contextlib.contextmanager
def autocast(enabled=True, **kw):
    yield


class GradScaler:
    def __init__(self, enabled=True):
        self.enabled = enabled
""",
    "torch_musa/core/memory.py": "__all__ = ['empty_cache']\n\ndef empty_cache():\n    return None\n",
}
# Shaped like yolov5's train.py and models/common.py and Swin-Transformer's main.py.
PROJECT = {
    "train.py": """\
import argparse
import torch
import torch.backends.cudnn as cudnn
from torch.cuda import amp
from models.common import Conv


def main():
    cudnn.benchmark = True
    scaler = torch.cuda.amp.GradScaler(enabled=True)
    with torch.cuda.amp.autocast(True):
        pass
    with amp.autocast(enabled=True):
        pass
    torch.cuda.empty_cache()
    print("OK", Conv().run(), scaler.enabled, torch.backends.cudnn.benchmark)


if __name__ == "__main__":
    main()
""",
    "models/__init__.py": "",
    "models/common.py": """\
import torch
from torch.cuda import amp
import torch.cuda.amp as amp2


class Conv:
    def run(self):
        with amp.autocast(enabled=False), amp2.autocast():
            torch.cuda.empty_cache()
        return "conv"
""",
    # Swin's main.py: the cudnn import comes first, with no torch_musa import anywhere.
    "main.py": """\
import torch.backends.cudnn as cudnn
import torch
from torch import cuda

cudnn.benchmark = True
print("OK", cuda.empty_cache(), torch.backends.cudnn.benchmark)
""",
    "skip_a.py": "import torch\ntorch.cuda.empty_cache()\n",
    "skip_b.py": "import torch\ntorch.cuda.empty_cache()\n",
}


@pytest.fixture
def site(tmp_path) -> Path:
    return make_tree(tmp_path / "site", {**TORCH, **TORCH_MUSA})


def run_py(args, cwd: Path, site: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, env=env)


def converter(*args, cwd: Path) -> subprocess.CompletedProcess:
    code = "import sys; from musa_porting.musa_converter import main; main(sys.argv[1:])"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True,
                          text=True)


def test_the_stand_in_refuses_what_musa_port_used_to_write(site, tmp_path):
    for bad in ("from torch.musa import amp", "import torch.musa.amp as amp",
                "import torch.backends.mudnn as cudnn"):
        proc = run_py(["-c", f"import torch, torch_musa\n{bad}"], tmp_path, site)
        assert "ModuleNotFoundError" in proc.stderr, bad
    proc = run_py(["-c", "import torch, torch_musa\nwith torch.musa.amp.autocast(): pass"],
                  tmp_path, site)
    assert proc.returncode == 0, proc.stderr


def test_converted_scripts_run_against_torch_musa(site, tmp_path):
    root = make_tree(tmp_path / "proj", PROJECT)
    proc = converter("-r", str(root), "-l", str(root / "train.py"), "--no-backup",
                     "-e", str(root / "skip_a.py"), str(root / "skip_b.py"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "MP4001" not in proc.stdout + proc.stderr  # torch.musa.empty_cache is known
    for script in ("train.py", "main.py"):
        run = run_py([script], root, site)
        assert run.returncode == 0 and run.stdout.startswith("OK"), (script, run.stderr)
    train = (root / "train.py").read_text()
    assert "from torch.backends import mudnn as cudnn" in train and "from torch_musa import amp" in train
    assert "torch.musa.amp.GradScaler" in train and "torch.musa.empty_cache()" in train
    common = (root / "models/common.py").read_text()
    assert "from torch_musa import amp\n" in common and "from torch_musa import amp as amp2" in common
    main = (root / "main.py").read_text()
    assert main.startswith("import torch_musa\nfrom torch.backends import mudnn as cudnn\n")
    # -e a b, torch_musa's form: both left alone.
    for skipped in ("skip_a.py", "skip_b.py"):
        assert (root / skipped).read_text() == PROJECT[skipped]


def test_an_import_of_an_attribute_submodule_is_left_and_said(tmp_path, site):
    root = make_tree(tmp_path / "proj", {"t.py": "import torch\nfrom torch.cuda.amp import autocast\n"})
    proc = converter("-r", str(root), "--no-backup", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (root / "t.py").read_text() == "import torch\nfrom torch.cuda.amp import autocast\n"
    assert "MP4008" in proc.stdout + proc.stderr
    assert run_py(["t.py"], root, site).returncode == 0  # it resolves (torch's own module)
