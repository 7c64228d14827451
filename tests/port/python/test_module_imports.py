"""Python modules and packages the port renames (``pkg/cuda/`` -> ``pkg/musa/``,
``ops_cuda.py`` -> ``ops_musa.py``), and every import of them in the run: absolute,
relative, ``import a.b as c``, attribute chains through ``import a.b``, and the strings
``importlib.import_module`` and ``__import__`` take. A module other code imports by name
from outside the run (a public module of an installable package) keeps its name; a
private one, or one of a tree nothing outside imports, is renamed and followed.

Each case ports a small package whole and imports the result, as a user would."""

from __future__ import annotations

import subprocess
import sys

from conftest import make_tree, musa_port_here

# A tree of scripts and packages, with no setup.py: nothing outside imports its modules.
APP = {
    "run.py": """\
import importlib
import pkg.cuda.ops
import pkg.cuda as c
from pkg.cuda import kernels
from pkg.ops.ops_cuda import scale
from pkg import cuda as cu
import cuda_utils
import cuda_utils as cuda_u
ops = importlib.import_module("pkg.cuda.ops")
mod = __import__("pkg.ops.ops_cuda", fromlist=["scale"])


def main():
    return (pkg.cuda.ops.add(1, 2), c.ops.add(2, 2), kernels.K, scale(2), cu.kernels.K,
            cuda_utils.NAME, cuda_u.NAME, ops.add(3, 3), mod.scale(5), pkg.ping())
""",
    "pkg/__init__.py": """\
from . import cuda
from .cuda import ops as cuda_ops
from .ops import ops_cuda
from .ops.loader import load


def ping():
    return cuda_ops.add(0, 1) + ops_cuda.scale(1) + load().scale(1)
""",
    "pkg/cuda/__init__.py": "from . import ops, kernels\n",
    "pkg/cuda/ops.py": "def add(a, b):\n    return a + b\n",
    "pkg/cuda/kernels.py": "from ..ops.ops_cuda import scale\nK = scale(1)\n",
    "pkg/ops/__init__.py": "",
    "pkg/ops/ops_cuda.py": "def scale(x):\n    return 10 * x\n",
    "pkg/ops/loader.py": """\
import importlib


def load():
    return importlib.import_module(".ops_cuda", __package__)
""",
    "cuda_utils.py": "NAME = 'u'\n",
    "cuda/kernel.cu": "__global__ void k() {}\n",  # a folder of the tree, but not Python
    # Names that only look like the tree's modules: another package's module, an
    # attribute, a string that is not an import.
    "near.py": """\
import cuda
from cuda import cudart
import numba.cuda
args.cuda = True
flag = model.cuda
print("pkg.cuda.ops")
""",
}
EXPECTED = "(3, 4, 10, 20, 10, 'u', 'u', 6, 50, 21)"


def _port(tmp_path, files, *args):
    src = make_tree(tmp_path / "src", files)
    out = tmp_path / "out"
    code, stdout, stderr = musa_port_here(src, "-o", out, "-q", *args)
    assert code == 0, stdout + stderr
    return src, out


def _run_main(out) -> str:
    """Import the ported tree's run.py and call main(), as a user would."""
    proc = subprocess.run([sys.executable, "-c", "import run; print(run.main())"], cwd=out,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_the_original_tree_runs(tmp_path):
    src = make_tree(tmp_path / "src", APP)
    assert _run_main(src) == EXPECTED


def test_renamed_modules_and_packages_are_imported_under_their_new_names(tmp_path):
    _, out = _port(tmp_path, APP)
    assert (out / "pkg" / "musa" / "ops.py").is_file()
    assert (out / "pkg" / "ops" / "ops_musa.py").is_file()
    assert (out / "musa_utils.py").is_file()
    assert _run_main(out) == EXPECTED
    run = (out / "run.py").read_text()
    assert "import pkg.musa.ops\n" in run
    assert "import pkg.musa as c\n" in run
    assert "from pkg.musa import kernels\n" in run
    assert "from pkg.ops.ops_musa import scale\n" in run
    assert "from pkg import musa as cu\n" in run
    assert "import musa_utils as cuda_utils\n" in run
    assert "import musa_utils as cuda_u\n" in run
    assert 'importlib.import_module("pkg.musa.ops")' in run
    assert '__import__("pkg.ops.ops_musa", fromlist=["scale"])' in run
    assert "pkg.musa.ops.add(1, 2)" in run and "c.ops.add(2, 2)" in run
    init = (out / "pkg" / "__init__.py").read_text()
    assert init.startswith("from . import musa as cuda\nfrom .musa import ops as cuda_ops\n"
                           "from .ops import ops_musa as ops_cuda\n")
    assert (out / "pkg" / "musa" / "kernels.py").read_text().startswith(
        "from ..ops.ops_musa import scale\n")
    assert 'import_module(".ops_musa", __package__)' in (out / "pkg" / "ops" / "loader.py").read_text()


def test_names_that_only_look_like_the_trees_modules_stay(tmp_path):
    src, out = _port(tmp_path, APP)
    assert (out / "musa" / "kernel.mu").is_file()  # renamed, but no Python package
    assert (out / "near.py").read_text() == (src / "near.py").read_text()


def test_a_second_run_changes_nothing(tmp_path):
    _, out = _port(tmp_path, APP)
    before = {p: p.read_bytes() for p in out.rglob("*.py")}
    code, stdout, stderr = musa_port_here(tmp_path / "src", "-o", out, "-q")
    assert code == 0, stdout + stderr
    assert {p: p.read_bytes() for p in out.rglob("*.py")} == before


# The same tree as a package others install: its public modules are what other code
# imports by name, from outside the run.
SETUP = {"setup.py": "from setuptools import setup, find_packages\n"
                     "setup(name='pkg', packages=find_packages())\n"}
PRIVATE = {
    "pkg/_cuda_impl.py": "def twice(x):\n    return 2 * x\n",
    "pkg/_cuda_data/__init__.py": "",
    "pkg/cuda/ops.py": "from .._cuda_impl import twice\n\n\ndef add(a, b):\n    return twice(a + b) // 2\n",
}


def test_public_modules_of_an_installable_package_keep_their_names(tmp_path):
    src, out = _port(tmp_path, {**APP, **SETUP, **PRIVATE})
    assert (out / "pkg" / "cuda" / "ops.py").is_file()
    assert (out / "pkg" / "ops" / "ops_cuda.py").is_file()
    assert (out / "cuda_utils.py").is_file()
    assert not (out / "pkg" / "musa").exists()
    for rel in ("run.py", "pkg/__init__.py", "pkg/cuda/kernels.py", "pkg/ops/loader.py"):
        assert (out / rel).read_text() == (src / rel).read_text(), rel
    # a private module is the package's own business: renamed, and its imports follow
    assert (out / "pkg" / "_musa_impl.py").is_file()
    assert (out / "pkg" / "cuda" / "ops.py").read_text().startswith(
        "from .._musa_impl import twice\n")
    assert _run_main(out) == EXPECTED


def test_a_setup_py_lists_the_packages_under_their_names_in_out(tmp_path):
    setup = ("from setuptools import setup\n"
             "setup(name='pkg', packages=['pkg', 'pkg.cuda', 'pkg._cuda_data'],\n"
             "      package_data={'pkg._cuda_data': ['*.json']}, description='pkg.cuda')\n")
    _, out = _port(tmp_path, {**APP, **PRIVATE, "setup.py": setup})
    assert (out / "setup.py").read_text() == setup.replace("_cuda_data", "_musa_data")
    assert (out / "pkg" / "_musa_data" / "__init__.py").is_file()


def test_rename_exported_renames_public_modules_too_and_the_run_follows(tmp_path):
    _, out = _port(tmp_path, {**APP, **SETUP, **PRIVATE}, "--rename-exported")
    assert (out / "pkg" / "musa" / "ops.py").is_file()
    assert (out / "pkg" / "ops" / "ops_musa.py").is_file()
    assert (out / "pkg" / "musa" / "ops.py").read_text().startswith(
        "from .._musa_impl import twice\n")
    assert _run_main(out) == EXPECTED


def test_keep_paths_keeps_every_module_and_changes_no_import(tmp_path):
    src, out = _port(tmp_path, APP, "--keep-paths")
    assert (out / "pkg" / "cuda" / "ops.py").is_file()
    assert (out / "run.py").read_text() == (src / "run.py").read_text()
    assert _run_main(out) == EXPECTED


def test_without_python_no_folder_that_holds_python_is_renamed(tmp_path):
    _, out = _port(tmp_path, APP, "--no-python")
    assert (out / "pkg" / "cuda" / "ops.py").is_file()
    assert (out / "musa" / "kernel.mu").is_file()  # C++ only: renamed as before
    assert _run_main(out) == EXPECTED
