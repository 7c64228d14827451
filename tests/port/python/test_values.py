"""What a string expression computes, read statically (port/python/values.py): the
pieces a port must follow and a check must match, from the forms real setup.py files and
package loaders use."""

from __future__ import annotations

import ast

from musa_porting.port.python.values import HOLE, Values, glob, text


def _values_of(src: str, expr: str, file: str = "pkg/setup.py") -> list[str]:
    """The glob patterns of the last expression statement ``expr`` in module ``src``."""
    tree = ast.parse(src + "\n" + expr)
    node = tree.body[-1].value
    return sorted(glob(v) for v in Values(tree, file).values(node))


def test_join_of_names_fstrings_and_literals():
    src = ("import os.path as osp\nextensions_dir = osp.join('csrc')\n"
           "for name in names_from_a_glob():\n    pass\n")
    assert _values_of(src, "osp.join(extensions_dir, 'cuda', f'{name}_cuda.cu')") \
        == ["csrc/cuda/*_cuda.cu"]


def test_loop_over_literal_lists_and_product():
    src = ("from itertools import product\nsuffices = ['cpu', 'cuda']\n"
           "for main, suffix in product(files(), suffices):\n    pass\n"
           "for library in ['_a', '_b']:\n    pass\n")
    assert _values_of(src, "f'pkg.{main}_{suffix}'") == ["pkg.*_cpu", "pkg.*_cuda"]
    assert _values_of(src, "f'{library}_cuda'") == ["_a_cuda", "_b_cuda"]


def test_format_percent_and_concatenation():
    src = "root = 'src'\nkind = 'cuda'\n"
    assert _values_of(src, "'{}/kernels/*.cu'.format(root)") == ["src/kernels/[*].cu"]
    assert _values_of(src, "'%s/%s_ops.cu' % (root, kind)") == ["src/cuda_ops.cu"]
    assert _values_of(src, "root + '/' + kind + '/x.cu'") == ["src/cuda/x.cu"]
    assert _values_of(src, "'{r}/{k}'.format(r=root, k=kind)") == ["src/cuda"]


def test_file_relative_folders():
    src = "import os\nhere = os.path.dirname(os.path.abspath(__file__))\n"
    assert _values_of(src, "os.path.join(here, 'csrc', 'cuda')") == ["pkg/csrc/cuda"]


def test_a_glob_pattern_keeps_its_wildcards():
    tree = ast.parse("import glob\nglob.glob('csrc/cuda/*.cu')")
    call = tree.body[-1].value
    (v,) = Values(tree).values(call.args[0])
    assert glob(v, pattern=True) == "csrc/cuda/*.cu"


def test_unknowns_are_holes_never_guesses():
    src = "import os\nroot = os.environ['ROOT']\n"
    (v,) = Values(ast.parse(src + "root")).values(ast.parse(src + "root").body[-1].value)
    assert v == (HOLE,) and text(v) is None
    # A name bound to something else as well: every alternative, the unknown one a hole.
    src2 = "x = 'a_cuda'\nif c:\n    x = compute()\n"
    assert _values_of(src2, "x + '.cu'") == ["*.cu", "a_cuda.cu"]


def test_literal_pieces_say_where_they_are_written():
    tree = ast.parse("f'{name}_cuda.cu'")
    node = tree.body[0].value
    (v,) = Values(tree).values(node)
    lit = v[-1]
    assert lit.text == "_cuda.cu" and lit.node is node and lit.part == 1


def test_self_reference_and_many_alternatives_end():
    src = "x = x + 'a'\ny = [str(i) for i in range(100)]\n"
    assert _values_of(src, "x") == ["*a"]
    src3 = "\n".join(f"z = 'v{i}'" for i in range(40))
    assert _values_of(src3, "z") == ["*"]
