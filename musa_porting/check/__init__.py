"""Does the ported tree hang together? The check after every port, and ``musa-port
check OUT``: what one file names (a source, a module, an op, a binding, a header)
another file of the ported tree must be or define.

Each file's facts are gathered where it is ported (``facts.py`` and the readers of each
kind) and kept in its manifest record; the checks join them across the tree
(``tree.py`` the view, ``sources.py``, ``modules.py``, ``names.py``, ``includes.py``),
and ``run.py`` runs them. See docs/hangs-together.md.
"""
