"""Extension module names, one decision per module (rules/modules.py), from the names a
build computes (analyze/module_names.py) read as patterns (rules/name_patterns.py)."""

from __future__ import annotations

from musa_porting.analyze.module_names import cmake_modules, python_modules
from musa_porting.rules import name_patterns as np
from musa_porting.rules.modules import plan_modules
from musa_porting.rules.project import ProjectPlan, Site
from musa_porting.rules.vocabulary import build_vocabulary

RENAME = build_vocabulary().rename


def test_patterns_keep_holes_apart_from_literal_stars():
    parts = np.parse("pkg._*_cuda[*]")
    assert parts == ("pkg._", None, "_cuda*")
    assert np.to_glob(parts) == "pkg._*_cuda[*]"
    assert np.tail(parts) == ("_", None, "_cuda*")
    assert np.tail(np.parse("*._ext")) == ("_ext",)
    assert np.literal(np.parse("a_cuda")) == "a_cuda" and np.literal(parts) is None


def test_a_pattern_follows_a_rename_only_when_its_holes_cover_the_same_text():
    t = np.parse("_*_cuda")
    assert np.follows(t, "_version_cuda", np.renamed(t, RENAME), "_version_musa")
    # the word is in what the code computes: rewriting the literal runs cannot follow
    hole = np.parse("*_ops")
    assert not np.follows(hole, "cuda_ops", np.renamed(hole, RENAME), "musa_ops")
    assert np.intersect(np.parse("_*_cuda"), np.parse("*_cuda"))
    assert not np.intersect(np.parse("_*_cuda"), np.parse("*_cpu"))
    assert np.intersect(np.parse("a*c"), np.parse("*b*"))


SETUP = b"""\
import glob, os
from itertools import product
from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension
suffices = ['cpu', 'cuda']
mains = glob.glob('csrc/*.cpp')
exts = []
for main, suffix in product(mains, suffices):
    name = main.split(os.sep)[-1][:-4]
    Extension = CppExtension if suffix == 'cpu' else CUDAExtension
    exts += [Extension(f'pkg._{name}_{suffix}', [main])]
exts.append(CUDAExtension(name='pkg.fused_cuda', sources=['k.cu']))
exts.append(CUDAExtension(os.environ['EXT'], sources=['k.cu']))  # nothing known: no name
cmdclass = {'build_ext': BuildExtension}
"""


def test_a_setup_py_names_its_modules_as_patterns_of_what_it_computes():
    got = {g: (line, how) for g, line, _, how in python_modules(SETUP)}
    assert got == {"pkg._*_cpu": (10, "Extension"), "pkg._*_cuda": (10, "Extension"),
                   "pkg.fused_cuda": (11, "CUDAExtension")}
    assert python_modules(b"print('no build here')\n") == []


def test_cmake_module_targets_and_not_other_libraries():
    text = ("pybind11_add_module(ops_cuda a.cpp)\nadd_library(helpers_cuda STATIC h.cpp)\n"
            "add_library(plugin_cuda MODULE p.cpp)\nPython_add_library(${NAME}_cuda b.cpp)\n"
            "python_add_library(static_cuda STATIC s.cpp)\n")
    assert [(g, line) for g, line, _, _ in cmake_modules(text)] == [
        ("ops_cuda", 1), ("plugin_cuda", 3), ("*_cuda", 4)]


def site(file: str, line: int, kind: str) -> Site:
    return Site(file, line, 1, kind)


def test_one_decision_per_module_for_every_side():
    cxx = {"_version_cuda": site("csrc/version.cpp", 8, "PyInit (module init)"),
           "_version_cpu": site("csrc/version.cpp", 10, "PyInit (module init)"),
           "kernels_cuda": site("csrc/bind.cpp", 3, "PYBIND11_MODULE"),
           "cuda_ops": site("csrc/ops.cpp", 3, "PYBIND11_MODULE")}
    builds = [("pkg._*_cuda", site("setup.py", 10, "Extension")),
              ("pkg.*_ops", site("setup.py", 12, "CUDAExtension")),
              ("pkg.fused_cuda", site("setup.py", 11, "CUDAExtension"))]
    links = {m.old: m for m in plan_modules(cxx, builds, RENAME)}
    assert links["_version_cuda"].new == "_version_musa"
    assert "setup.py:10" in links["_version_cuda"].reason
    assert "_version_cpu" not in links  # no word: nothing to decide
    assert links["kernels_cuda"].new is None  # no build of the run names it
    assert "no build file of this run" in links["kernels_cuda"].reason
    assert links["cuda_ops"].new is None  # named with the word in what setup.py computes
    assert "computes the part" in links["cuda_ops"].reason
    assert links["fused_cuda"].new == "fused_musa"  # only the build names it
    assert ProjectPlan(modules=list(links.values())).module_renames() == {"_version_cuda": "_version_musa",
                                                     "fused_cuda": "fused_musa"}
