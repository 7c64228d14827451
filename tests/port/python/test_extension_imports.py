"""setup.py's imports from ``torch.utils.cpp_extension``: each name from where the MUSA
build has it. torch_musa's ``torch_musa.utils.musa_extension`` provides
``MUSAExtension``, ``BuildExtension`` and ``MUSA_HOME``; every other name
(``CppExtension``, ``include_paths``, ``load``...) stays imported from torch's module.
A qualified name the port writes (``torch_musa.utils.musa_extension.MUSAExtension``)
comes with its import."""

from __future__ import annotations

import runpy
import sys
import types

import pytest
from conftest import make_tree, musa_port_here

from musa_porting.port.python import port_python, python_rules

RULES = python_rules()


def port(src: str) -> str:
    return port_python(src.encode(), RULES).data.decode()


@pytest.mark.parametrize("before, after", [
    # the names torch_musa's module lacks stay with torch's, on a line of their own
    ("from torch.utils.cpp_extension import (CUDA_HOME, BuildExtension, CppExtension,\n"
     "                                       CUDAExtension)\n",
     "from torch_musa.utils.musa_extension import (MUSA_HOME, BuildExtension,\n"
     "                                       MUSAExtension)\n"
     "from torch.utils.cpp_extension import CppExtension\n"),
    ("from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension, load\n",
     "from torch_musa.utils.musa_extension import BuildExtension, MUSAExtension\n"
     "from torch.utils.cpp_extension import CppExtension, load\n"),
    ("from torch.utils.cpp_extension import CppExtension as Cpp, CUDAExtension as CE\n",
     "from torch_musa.utils.musa_extension import MUSAExtension as CE\n"
     "from torch.utils.cpp_extension import CppExtension as Cpp\n"),
    ("try:\n    from torch.utils.cpp_extension import (BuildExtension,  # build\n"
     "        CppExtension, include_paths)\nexcept ImportError:\n    pass\n",
     "try:\n    from torch_musa.utils.musa_extension import (BuildExtension,  # build\n"
     "        )\n    from torch.utils.cpp_extension import CppExtension, include_paths\n"
     "except ImportError:\n    pass\n"),
    ("if x: from torch.utils.cpp_extension import CUDAExtension, load_inline\r\n",
     "if x: from torch_musa.utils.musa_extension import MUSAExtension; "
     "from torch.utils.cpp_extension import load_inline\r\n"),
    # all of them torch_musa's: the module alone changes
    ("from torch.utils.cpp_extension import BuildExtension, CUDAExtension\n",
     "from torch_musa.utils.musa_extension import BuildExtension, MUSAExtension\n"),
    # none of them: nothing changes
    ("from torch.utils.cpp_extension import CppExtension, load, include_paths\n",
     "from torch.utils.cpp_extension import CppExtension, load, include_paths\n"),
    ("from torch.utils.cpp_extension import *\nE = CUDAExtension\n",
     "from torch.utils.cpp_extension import *\n"
     "from torch_musa.utils.musa_extension import *\nE = MUSAExtension\n"),
])
def test_each_name_is_imported_from_where_the_musa_build_has_it(before, after):
    assert port(before) == after
    assert port(after) == after


@pytest.mark.parametrize("before, after", [
    ("import torch.utils.cpp_extension as ext\n"
     "exts = [ext.CUDAExtension('a', []), ext.CppExtension('b', [])]\n"
     "cmd = {'build_ext': ext.BuildExtension}\n",
     "import torch.utils.cpp_extension as ext\nimport torch_musa.utils.musa_extension\n"
     "exts = [torch_musa.utils.musa_extension.MUSAExtension('a', []), ext.CppExtension('b', [])]\n"
     "cmd = {'build_ext': torch_musa.utils.musa_extension.BuildExtension}\n"),
    ("import os\nimport torch\nfrom torch.utils import cpp_extension\n\n\ndef home():\n"
     "    return cpp_extension.CUDA_HOME or cpp_extension.include_paths()\n",
     "import os\nimport torch\nimport torch_musa.utils.musa_extension\n"
     "from torch.utils import cpp_extension\n\n\ndef home():\n"
     "    return torch_musa.utils.musa_extension.MUSA_HOME or cpp_extension.include_paths()\n"),
    ("import torch.utils.cpp_extension\nE = torch.utils.cpp_extension.CUDAExtension\n"
     "L = torch.utils.cpp_extension.load\n",
     "import torch.utils.cpp_extension\nimport torch_musa.utils.musa_extension\n"
     "E = torch_musa.utils.musa_extension.MUSAExtension\nL = torch.utils.cpp_extension.load\n"),
])
def test_a_qualified_name_the_port_writes_comes_with_its_import(before, after):
    assert port(before) == after
    assert port(after) == after


def test_names_that_only_look_like_cpp_extensions_stay():
    src = ("from torch.utils.cpp_extension import CppExtension\n"
           "from mypkg import cpp_extension_helpers as ext\n"
           "E = ext.CUDAExtension\nimport torch\nB = torch.utils.data.BuildExtension\n")
    assert port(src) == src


# A package's setup.py and the helper it imports, run against stand-ins of torch and
# torch_musa that have exactly the names each module provides.

PKG = {
    "setup.py": """\
import os
from setuptools import setup
from torch.utils.cpp_extension import (BuildExtension, CppExtension, CUDAExtension,
                                       CUDA_HOME)
from build_helpers import extra_extensions

ext = CUDAExtension if CUDA_HOME is not None else CppExtension
setup(name='pkg', ext_modules=[ext('pkg._C', ['csrc/a.cpp']), CppExtension('pkg._cpu', [])]
      + extra_extensions(), cmdclass={'build_ext': BuildExtension})
""",
    "build_helpers.py": """\
import torch.utils.cpp_extension as ext


def extra_extensions():
    return [ext.CUDAExtension('pkg._ops', ['csrc/ops.cu'], include_dirs=ext.include_paths())]
""",
    "csrc/a.cpp": "int a() { return 0; }\n",
    "csrc/ops.cu": "__global__ void k() {}\n",
}


class _Ext:
    def __init__(self, name, sources, **kw):
        self.name, self.sources, self.kw = name, sources, kw


def _stubs(recorded: dict) -> dict[str, types.ModuleType]:
    def module(name, **attrs):
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        return m

    musa = module("torch_musa.utils.musa_extension", MUSA_HOME="/usr/local/musa",
                  MUSAExtension=type("MUSAExtension", (_Ext,), {}),
                  BuildExtension=type("MusaBuildExtension", (), {}))
    torch_ext = module("torch.utils.cpp_extension", CUDA_HOME=None,
                       CUDAExtension=type("CUDAExtension", (_Ext,), {}),
                       CppExtension=type("CppExtension", (_Ext,), {}),
                       BuildExtension=type("TorchBuildExtension", (), {}),
                       include_paths=lambda: ["/torch/include"])
    utils = module("torch.utils", __path__=[], cpp_extension=torch_ext)
    musa_utils = module("torch_musa.utils", __path__=[], musa_extension=musa)
    return {"torch": module("torch", __path__=[], utils=utils), "torch.utils": utils,
            "torch.utils.cpp_extension": torch_ext,
            "torch_musa": module("torch_musa", __path__=[], utils=musa_utils),
            "torch_musa.utils": musa_utils,
            "torch_musa.utils.musa_extension": musa,
            "setuptools": module("setuptools", setup=lambda **kw: recorded.update(kw))}


def test_a_ported_setup_py_and_its_helper_import_and_build_the_musa_extensions(
        tmp_path, monkeypatch):
    src = make_tree(tmp_path / "src", PKG)
    out = tmp_path / "out"
    code, stdout, stderr = musa_port_here(src, "-o", out, "-q")
    assert code == 0, stdout + stderr
    recorded: dict = {}
    for name, mod in _stubs(recorded).items():
        monkeypatch.setitem(sys.modules, name, mod)
    monkeypatch.syspath_prepend(str(out))
    monkeypatch.delitem(sys.modules, "build_helpers", raising=False)
    monkeypatch.chdir(out)
    runpy.run_path(str(out / "setup.py"), run_name="__main__")
    kinds = [(type(e).__name__, e.name) for e in recorded["ext_modules"]]
    assert kinds == [("MUSAExtension", "pkg._C"), ("CppExtension", "pkg._cpu"),
                     ("MUSAExtension", "pkg._ops")]
    assert recorded["ext_modules"][2].sources == ["csrc/ops.mu"]
    assert recorded["ext_modules"][2].kw["include_dirs"] == ["/torch/include"]
    assert recorded["cmdclass"]["build_ext"].__name__ == "MusaBuildExtension"
