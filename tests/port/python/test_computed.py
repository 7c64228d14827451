"""Paths and module names the code computes follow the port (port/python/computed.py):
each form a build or a loader computes them in, the literal pieces rewritten where they
are written, and what cannot follow left with a finding (MP4010)."""

from __future__ import annotations

from musa_porting.port.python import PathMap, port_python, python_rules, tree_of_port

TREE = {  # input -> output, folders too (what a port's out_rel_of holds)
    "csrc": "csrc", "csrc/cuda": "csrc/musa", "csrc/cuda/scatter_cuda.cu": "csrc/musa/scatter_musa.mu",
    "csrc/cuda/segment_cuda.cu": "csrc/musa/segment_musa.mu",
    "csrc/cuda/scatter_cuda.h": "csrc/musa/scatter_musa.h", "csrc/cpu": "csrc/cpu",
    "csrc/cpu/scatter_cpu.cpp": "csrc/cpu/scatter_cpu.cpp", "csrc/scatter.cpp": "csrc/scatter.cpp",
    "docs": "docs", "docs/cuda": "docs/cuda", "docs/cuda/notes.txt": "docs/cuda/notes.txt",
}
KEPT_PATHS = {k: v.replace("musa", "cuda").replace(".mu", ".mu") for k, v in TREE.items()}
MODULES = {"_scatter_cuda": "_scatter_musa", "_segment_cuda": "_segment_musa",
           "_kept_cuda": None}


def port(src: str, tree=TREE, modules=MODULES, rel="setup.py"):
    rules = python_rules(paths=PathMap([tree_of_port(tree)]), extensions=modules)
    p = port_python(src.encode(), rules, bases=("", ""), module=rel)
    return p.data.decode(), [d for d in p.diagnostics if d.id == "MP4010"]


def test_every_form_of_a_computed_path_follows_where_its_pieces_are_written():
    src = ("import glob, os\nfrom pathlib import Path\n"
           "root = os.path.dirname(os.path.abspath(__file__))\n"
           "a = glob.glob('{}/csrc/cuda/*.cu'.format(root))\n"
           "b = glob.glob(os.path.join(root, 'csrc', 'cuda', '*.cu'))\n"
           "c = '%s/csrc/cuda/%s' % (root, 'scatter_cuda.cu')\n"
           "d = root + '/csrc/cuda/' + 'scatter_cuda.h'\n"
           "e = Path(__file__).parent / 'csrc' / 'cuda' / 'segment_cuda.cu'\n"
           "names = ['scatter_cuda.cu', 'segment_cuda.cu']\n"
           "f = [os.path.join('csrc', 'cuda', n) for n in names]\n")
    out, found = port(src)
    assert out == ("import glob, os\nfrom pathlib import Path\n"
                   "root = os.path.dirname(os.path.abspath(__file__))\n"
                   "a = glob.glob('{}/csrc/musa/*.mu'.format(root))\n"
                   "b = glob.glob(os.path.join(root, 'csrc', 'musa', '*.mu'))\n"
                   "c = '%s/csrc/musa/%s' % (root, 'scatter_musa.mu')\n"
                   "d = root + '/csrc/musa/' + 'scatter_musa.h'\n"
                   "e = Path(__file__).parent / 'csrc' / 'musa' / 'segment_musa.mu'\n"
                   "names = ['scatter_musa.mu', 'segment_musa.mu']\n"
                   "f = [os.path.join('csrc', 'musa', n) for n in names]\n")
    assert found == []


def test_a_folder_the_port_keeps_keeps_its_piece_and_the_extension_follows():
    """--keep-paths: csrc/cuda stays, so 'cuda' stays (the device rule would make it
    'musa'); the file's extension changes."""
    src = ("import os.path as osp\nfor name in files():\n"
           "    path = osp.join('csrc', 'cuda', f'{name}_cuda.cu')\n")
    out, found = port(src, KEPT_PATHS)
    assert "osp.join('csrc', 'cuda', f'{name}_cuda.mu')" in out and found == []


def test_a_comparison_with_a_computed_piece_follows_it():
    src = ("kinds = ['cpu', 'gpu_cuda']\n"
           "for kind in kinds:\n"
           "    if kind == 'gpu_cuda':\n        pass\n"
           "    if kind not in ('gpu_cuda', 'cpu'):\n        pass\n"
           "    if 'gpu_cuda' != kind:\n        pass\n"
           "    m = CUDAExtension(f'pkg._scatter_{kind}', [])\n")
    out, found = port(src, modules={"_scatter_gpu_cuda": "_scatter_gpu_musa"})
    assert out == ("kinds = ['cpu', 'gpu_musa']\n"
                   "for kind in kinds:\n"
                   "    if kind == 'gpu_musa':\n        pass\n"
                   "    if kind not in ('gpu_musa', 'cpu'):\n        pass\n"
                   "    if 'gpu_musa' != kind:\n        pass\n"
                   "    m = CUDAExtension(f'pkg._scatter_{kind}', [])\n")
    assert found == []


def test_module_names_loaders_compute_follow_the_run_s_decisions():
    src = ("import importlib, os.path as osp, torch\n"
           "for library in ['_scatter', '_segment']:\n"
           "    spec = importlib.machinery.PathFinder().find_spec(f'{library}_cuda', [here])\n"
           "for s in ['cuda']:\n"
           "    torch.ops.load_library(osp.join(here, f'_scatter_{s}.so'))\n"
           "    torch.ops.load_library(f'{here}/_kept_{s}.so')\n"
           "ext = importlib.import_module('pkg.' + '_segment' + '_cuda')\n"
           "print(f'{library}_cuda not found')\n"
           "other = importlib.import_module(f'cupy_backends.cuda.{name}')\n")
    out, found = port(src, rel="pkg/__init__.py")
    assert "find_spec(f'{library}_musa', [here])" in out
    assert "f'_scatter_{s}.so'" in out and "for s in ['cuda']:" in out  # _kept_cuda keeps 'cuda'
    # 'cuda' builds a module renamed and a module kept: both loaders left, each said
    assert [(f.line, "_scatter_cuda" in f.message and "_kept_cuda" in f.message)
            for f in found] == [(5, True), (6, True)]
    assert "import_module('pkg.' + '_segment' + '_musa')" in out
    assert "print(f'{library}_cuda not found')" in out  # a message
    assert "import_module(f'cupy_backends.cuda.{name}')" in out  # another package's module


def test_what_cannot_follow_is_left_with_a_finding():
    src = ("import os.path as osp\n"
           "def sources(kind, name):\n"
           "    return osp.join('csrc', kind, f'{name}_cuda.cu')\n"
           "for sub in ['cuda']:\n"
           "    k = osp.join('csrc', sub, 'scatter_cuda.cu')\n"
           "    n = osp.join('docs', sub, 'notes.txt')\n"
           "def load(kind):\n"
           "    return importlib.import_module(f'pkg._scatter_{kind}')\n")
    out, found = port(src)
    assert out == src
    by_line = {f.line: f.message for f in found}
    assert sorted(by_line) == [3, 5, 6, 8]
    assert "names 2 file(s) the port renamed" in by_line[3]  # kind covers 'cuda' -> 'musa'
    assert "docs/cuda/notes.txt" in by_line[5] and "csrc/musa" in by_line[6]  # 'cuda' both
    assert "module _scatter_cuda" in by_line[8]


def test_a_tree_ported_beside_its_source_is_followed_folder_by_folder():
    """musa-converter after a csrc port into csrc_musa: a piece that is whole folders
    takes the output's folders; the file name's piece follows its words."""
    from musa_porting.port.python import PortedTree
    from musa_porting.port.python.paths import with_folders

    files = with_folders({"cuda/scatter_cuda.cu": "musa/scatter_musa.mu",
                          "scatter.cpp": "scatter.cpp"})
    rules = python_rules(paths=PathMap([PortedTree("csrc", "csrc_musa", files)]))
    src = ("import os.path as osp\nextensions_dir = osp.join('csrc')\n"
           "for name in names():\n"
           "    path = osp.join(extensions_dir, 'cuda', f'{name}_cuda.cu')\n")
    out = port_python(src.encode(), rules, module="setup.py").data.decode()
    assert out == ("import os.path as osp\nextensions_dir = osp.join('csrc_musa')\n"
                   "for name in names():\n"
                   "    path = osp.join(extensions_dir, 'musa', f'{name}_musa.mu')\n")


def test_the_code_in_an_f_strings_fields_is_still_ported():
    src = "import os.path as osp\np = osp.join('csrc', 'cuda', f'{torch.cuda.current_device()}_cuda.cu')\n"
    out, _ = port(src)
    assert out == ("import os.path as osp\n"
                   "p = osp.join('csrc', 'musa', f'{torch.musa.current_device()}_musa.mu')\n")


def test_a_piece_that_cannot_be_rewritten_where_it_is_written_leaves_the_whole_name():
    """'cu' 'da' is one literal of two pieces: rewriting the file's piece alone would name
    csrc/cuda/scatter_musa.mu, which does not exist either."""
    src = "import os.path as osp\np = osp.join('csrc', 'cu' 'da', 'scatter_cuda.cu')\n"
    out, found = port(src)
    assert out == src and len(found) == 1 and found[0].line == 2


def test_every_assignment_of_a_name_is_one_decision_even_with_the_same_text():
    """A variable given a list in several places (an env override of the build's
    suffixes, as torch-scatter's setup.py has) holds each literal that flows into a
    computed name; two literals with the same text are two places to rewrite or keep,
    not one. A list assigned to another name (the near miss) stays the device rule's."""
    src = ("import os\n"
           "suffices = ['cpu', 'cuda']\n"
           "if os.getenv('FORCE_ONLY_CUDA', '0') == '1':\n"
           "    suffices = ['cuda']\n"
           "devices = ['cuda']\n"
           "for library in ['_scatter']:\n"
           "    for suffix in suffices:\n"
           "        m = CUDAExtension(f'pkg.{library}_{suffix}', [])\n")
    kept, found = port(src, modules={"_scatter_cuda": None})
    assert "suffices = ['cpu', 'cuda']\n" in kept and "    suffices = ['cuda']\n" in kept
    assert "devices = ['musa']\n" in kept and found == []
    renamed, found = port(src, modules={"_scatter_cuda": "_scatter_musa"})
    assert "suffices = ['cpu', 'musa']\n" in renamed and "    suffices = ['musa']\n" in renamed
    assert found == []
