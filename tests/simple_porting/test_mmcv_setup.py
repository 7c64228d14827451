"""Acceptance: mmcv 2.2.0's setup.py after a port, loaded with stub torch and
torch_musa packages: its source-collection function (get_extensions) must collect the
ported .mu sources and build the MUSA extension class, with no hand edits beyond the
README's list.

Two flows: musa-port on the whole sdist (the setup.py and the C++ tree are ported
into one new project), and the manual's (csrc ported into csrc_musa beside it, then
setup.py converted in place by musa-converter)."""

from __future__ import annotations

import runpy
import subprocess
import sys
import tarfile
import types
from pathlib import Path

import pytest
from conftest import MMCV_IGNORES, MMCV_RULES_JSON, run_cli
from sdist import fetch_sdist

pytestmark = pytest.mark.slow
CSRC = "mmcv/ops/csrc"


@pytest.fixture
def sdist(tmp_path) -> Path:
    with tarfile.open(fetch_sdist("mmcv", "2.2.0")) as tf:
        tf.extractall(tmp_path, filter="data")
    return tmp_path / "mmcv-2.2.0"


class _Extension:
    def __init__(self, name, sources, **kw):
        self.name, self.sources, self.kw = name, sources, kw


def _stubs() -> dict[str, types.ModuleType]:
    """torch and torch_musa as far as mmcv's setup.py touches them, and the packaging
    modules it imports (so the test needs neither torch nor setuptools)."""
    def module(name, **attrs):
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        return m

    never = types.SimpleNamespace(is_available=lambda: False)
    # torch_musa's module has MUSAExtension and BuildExtension, not CppExtension: torch's
    ext = module("torch_musa.utils.musa_extension", BuildExtension=type("BuildExtension", (), {}),
                 MUSAExtension=type("MUSAExtension", (_Extension,), {}))
    torch_ext = module("torch.utils.cpp_extension", ROCM_HOME=None,
                       CppExtension=type("CppExtension", (_Extension,), {}))
    torch_utils = module("torch.utils", __path__=[], cpp_extension=torch_ext)

    class DistributionNotFound(Exception):
        pass

    def get_distribution(name):
        raise DistributionNotFound(name)

    recorded: dict = {}
    return {
        "torch": module("torch", __version__="2.1.0", version=types.SimpleNamespace(hip=None),
                        musa=never, cuda=never, backends=types.SimpleNamespace(mps=never),
                        __path__=[], utils=torch_utils),
        "torch.utils": torch_utils,
        "torch.utils.cpp_extension": torch_ext,
        "torch_musa": module("torch_musa", __path__=[]),
        "torch_musa.utils": module("torch_musa.utils", __path__=[], musa_extension=ext),
        "torch_musa.utils.musa_extension": ext,
        "pkg_resources": module("pkg_resources", DistributionNotFound=DistributionNotFound,
                                get_distribution=get_distribution,
                                parse_version=lambda v: tuple(int(x) for x in v.split(".")[:3])),
        "setuptools": module("setuptools", find_packages=lambda *a, **k: [],
                             setup=lambda **kw: recorded.update(kw), recorded=recorded),
        "cv2": None,  # an import error, as on a machine without OpenCV
    }


def _extensions(setup_py: Path, monkeypatch) -> list:
    """Load setup.py with the stubs, in its folder, and call its get_extensions()."""
    for name, mod in _stubs().items():
        monkeypatch.setitem(sys.modules, name, mod)
    monkeypatch.chdir(setup_py.parent)
    monkeypatch.setenv("FORCE_MUSA", "1")
    monkeypatch.delenv("MMCV_WITH_OPS", raising=False)
    namespace = runpy.run_path(str(setup_py), run_name="mmcv_setup")
    assert sys.modules["setuptools"].recorded["ext_modules"]  # what setup() was given
    return namespace["get_extensions"]()


def _check(exts: list, csrc_out: Path, root: Path) -> None:
    (ext,) = exts
    assert type(ext).__name__ == "MUSAExtension"
    mus = {s for s in ext.sources if s.endswith(".mu")}
    # The CLI renames paths by default (issue 26): pytorch/cuda is pytorch/musa.
    ported = {"./" + p.relative_to(root).as_posix() for p in (csrc_out / "pytorch/musa").glob("*.mu")}
    assert len(ported) > 50 and mus == ported
    assert not [s for s in ext.sources if s.endswith(".cu")]
    assert all((root / s).is_file() and Path(s).parts[2] == csrc_out.name for s in ext.sources)
    assert ("MMCV_WITH_MUSA", None) in ext.kw["define_macros"]
    assert all(Path(d).is_dir() and csrc_out.name in Path(d).parts for d in ext.kw["include_dirs"])


def test_musa_port_on_the_whole_sdist(sdist, monkeypatch):
    ignores = ",".join(f"{CSRC}/{p}" for p in MMCV_IGNORES)
    run_cli(sdist, "--ignore", ignores, "--rule", MMCV_RULES_JSON, check=0)
    out = sdist.parent / "mmcv-2.2.0_musa"
    setup = (out / "setup.py").read_text()
    assert ("from torch_musa.utils.musa_extension import MUSAExtension\n"
            "        from torch.utils.cpp_extension import CppExtension\n") in setup
    assert "os.getenv(\n                'FORCE_MUSA', '0') == '1'" in setup
    # in the ported project the tree keeps its folder name; its files are .mu
    _check(_extensions(out / "setup.py", monkeypatch), out / CSRC, out)


def test_the_manuals_flow_csrc_musa_beside_csrc(sdist, monkeypatch):
    ignores = ",".join(MMCV_IGNORES)
    run_cli(sdist / CSRC, "--ignore", ignores, "--rule", MMCV_RULES_JSON, check=0)
    proc = subprocess.run([sys.executable, "-m", "musa_porting.musa_converter", "-r",
                           str(sdist / "setup.py")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    _check(_extensions(sdist / "setup.py", monkeypatch), sdist / "mmcv/ops/csrc_musa", sdist)
