"""``SimplePorting.run()`` on the engine, for a call that replaced no method: one port
of the tree, with the rename map that the calls of one process share
(``tree/rename_map.py``)."""

from __future__ import annotations

from ..tree.options import PortOptions
from ..tree.result import PortResult


def port_whole_tree(opts: PortOptions, notes: list[str]) -> PortResult:
    """Port ``opts.src``; ``notes`` gets what the user must hear before the summary."""
    del notes  # nothing yet
    from ..tree.porter import port_tree
    from ..tree.rename_map import process_map, with_outside

    shared = process_map(opts.src)
    result = port_tree(with_outside(opts, [shared] if shared else []))
    if shared is not None:
        shared.record(opts.src, result.project, result.symbol_uses)
    return result
