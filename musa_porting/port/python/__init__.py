"""Porting Python files: scripts, packages and setup.py (``torch.cuda`` ->
``torch.musa``, device strings, ``CUDAExtension`` -> ``MUSAExtension``, paths to
ported sources, ``import torch_musa`` in launch files).

``port_python(data, python_rules(...))`` is the whole API: bytes in, bytes, edits
and findings out, for ``musa-port`` (tree/kinds.py) and ``musa-converter`` alike.
"""

from __future__ import annotations

from .paths import PathMap, PortedTree, tree_of_port
from .source import PythonPort, PythonRules, port_python, python_rules

__all__ = ["PathMap", "PortedTree", "PythonPort", "PythonRules", "port_python", "python_rules",
           "tree_of_port"]
