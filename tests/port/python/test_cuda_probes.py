"""Probes of the CUDA build or toolkit: ported where torch_musa has a MUSA counterpart
(``CUDA_HOME`` -> torch_musa's ``MUSA_HOME``), a finding at the line where it has none
(``torch.version.cuda`` is None on a MUSA build of torch, ``torch.backends.cuda`` is
CUDA's backend, ``nvcc --version`` has no MUSA output to parse): MP4009."""

from __future__ import annotations

import pytest

from musa_porting.port.python import port_python, python_rules

RULES = python_rules()


def _port(src: str):
    p = port_python(src.encode(), RULES)
    return p.data.decode(), [(d.id, d.line) for d in p.diagnostics], p.diagnostics


@pytest.mark.parametrize("src, line", [
    ("import torch\nv = torch.version.cuda.replace('.', '')\n", 2),
    ("import torch\nif torch.version.cuda is not None:\n    pass\n", 2),
    ("import torch\n\nsuffix = f'cu{torch.version.cuda}'\n", 3),
    ("from torch.version import cuda as cuda_version\n", 1),
    ("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n", 2),
    ("import torch\nbuilt = torch.backends.cuda.is_built()\n", 2),
    ("import subprocess\nout = subprocess.check_output([CUDA_HOME + '/bin/nvcc', '-V'],\n"
     "                              universal_newlines=True)\n", 2),
    ("import os\nrelease = os.popen('nvcc --version').read()\n", 2),
    ("from torch.utils.cpp_extension import _find_cuda_home, load\n", 1),
    ("import torch.utils.cpp_extension as ext\nhome = ext._find_cuda_home()\n", 2),
])
def test_a_probe_with_no_musa_value_is_a_finding_at_its_line(src, line):
    out, found, diags = _port(src)
    assert ("MP4009", line) in found
    assert "MP4006" not in [i for i, _ in found]  # the version probe, not any nvcc call
    assert out == src  # nothing to rename it to
    assert all("torch_musa" in d.message or "MUSA" in d.message for d in diags if d.id == "MP4009")


def test_cuda_home_has_torch_musas_counterpart():
    src = ("from torch.utils.cpp_extension import CUDA_HOME\n"
           "nvcc = os.path.join(CUDA_HOME, 'bin', 'nvcc')\n")
    out, found, _ = _port(src)
    assert out == ("from torch_musa.utils.musa_extension import MUSA_HOME\n"
                   "nvcc = os.path.join(MUSA_HOME, 'bin', 'mcc')\n")
    assert found == []


@pytest.mark.parametrize("src", [
    "import torch\nif torch.version.hip is not None:\n    pass\n",
    "import torch\nprint(torch.version.git_version, torch.version.__version__)\n",
    "print('cuda')\nprint('built for cuda')\n",
    "v = args.version.cuda\n",
    "import subprocess\nsubprocess.run(['nvcc', '-c', 'k.cu', '-o', 'k.o'])\n",
])
def test_what_only_looks_like_a_cuda_probe_is_no_mp4009(src):
    _, found, _ = _port(src)
    assert "MP4009" not in [i for i, _ in found]
