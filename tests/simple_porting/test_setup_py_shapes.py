"""Shapes of real setup.py / porting-script call sites of SimplePorting that broke
musa-port where torch_musa's own worked (issue 27): an output folder holding a
committed port, a script named musa_porting.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SETUP = """\
from musa_port import SimplePorting
SimplePorting(cuda_dir_path="./csrc"{extra}).run()
"""


def run(script: Path, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(script)], cwd=cwd, capture_output=True, text=True,
                          env=os.environ.copy())


@pytest.fixture
def project(tmp_path) -> Path:
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc/ops.cu").write_text("void f() { cudaMalloc(&p, 4); }\n")
    committed = tmp_path / "csrc_musa"  # a fork that commits its port: no manifest
    committed.mkdir()
    (committed / "ops.mu").write_text("void f() { musaMalloc(&p, 4); } // hand-fixed\n")
    return tmp_path


def test_an_output_folder_holding_a_committed_port_names_the_keyword(project):
    script = project / "setup.py"
    script.write_text(SETUP.format(extra=""))
    proc = run(script, project)
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert str(project / "csrc_musa/ops.mu") in lines[-1] or "csrc_musa/ops.mu" in lines[-1]
    assert "force=True" in lines[-1] and "--force" not in proc.stderr
    # The traceback ends at the user's call: none of the engine's frames.
    frames = [ln for ln in lines if ln.lstrip().startswith('File "')]
    assert any("setup.py" in f for f in frames)
    assert not [f for f in frames if "porter.py" in f or "output_state.py" in f]
    assert "hand-fixed" in (project / "csrc_musa/ops.mu").read_text()


def test_force_true_replaces_it_as_torch_musa_does(project):
    script = project / "setup.py"
    script.write_text(SETUP.format(extra=", force=True"))
    proc = run(script, project)
    assert proc.returncode == 0, proc.stderr
    assert (project / "csrc_musa/ops.mu").read_text() == "void f() { musaMalloc(&p, 4); }\n"
    assert "force=True" in proc.stderr and "--force" not in proc.stderr


SCRIPT = """\
from musa_port import SimplePorting  # vLLM forks: python musa_porting.py

if __name__ == "__main__":
    SimplePorting(cuda_dir_path="./csrc", mapping_rule={"__nv_bfloat16": "__mt_bfloat16"}).run()
"""


def test_a_script_named_musa_porting_imports_the_alias(tmp_path):
    """The script's own name hides ``musa_porting``; ``musa_port`` is the same package
    under a name it cannot hide, loaded once (the engine's modules under that name)."""
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc/k.cu").write_text("__nv_bfloat16 x; void f() { cudaFree(0); }\n")
    script = tmp_path / "musa_porting.py"
    script.write_text(SCRIPT)
    proc = run(script, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "csrc_musa/k.mu").read_text() == "__mt_bfloat16 x; void f() { musaFree(0); }\n"
    assert "shadows" not in proc.stderr  # it imports the alias already: nothing to warn about
    # Imported the old way, the script hides the package: the warning names the alias.
    script.write_text(SCRIPT.replace("musa_port ", "musa_porting "))
    proc = run(script, tmp_path)
    assert proc.returncode != 0 and "circular import" in proc.stderr
    other = tmp_path / "elsewhere.py"
    other.write_text("import sys; sys.path.pop(0)\nfrom musa_porting import SimplePorting\n"
                     "SimplePorting('./csrc').run()\n")
    proc = subprocess.run([sys.executable, str(other)], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    shadow = [ln for ln in proc.stderr.splitlines() if "shadows" in ln]
    assert len(shadow) == 1 and "from musa_port import SimplePorting" in shadow[0]


def test_the_alias_is_the_same_api():
    import musa_port
    import musa_porting

    assert musa_port.__version__ == musa_porting.__version__
    assert set(musa_port.__all__) == set(musa_porting.__all__)
    assert musa_port.SimplePorting.__module__ == "musa_port.simple_porting"
    proc = subprocess.run([sys.executable, "-m", "musa_port.simple_porting", "--help"],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "--cuda-dir-path" in proc.stdout


def test_a_setup_py_with_empty_rule_values_deletes(tmp_path):
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc/gemm.cu").write_text(
        "void g(__nv_fp8_e4m3 *a, float *__restrict__ b) {\n#pragma unroll\n}\n")
    script = tmp_path / "setup.py"
    script.write_text(SETUP.format(extra=', mapping_rule={"__nv_fp8_e4m3 *": "", '
                                         '"__restrict__": "", "#pragma unroll": ""}'))
    proc = run(script, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "csrc_musa/gemm.mu").read_text() == "void g(a, float * b) {\n\n}\n"
