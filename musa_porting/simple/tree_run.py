"""``SimplePorting.run()`` on the engine, for a call that replaced no method: one port
of the tree, after the checks of a committed output folder (``committed.py``), with the
rename map that the calls of one process share (``tree/rename_map.py``)."""

from __future__ import annotations

from ..tree.options import PortOptions
from ..tree.result import PortResult
from .committed import FORCED, FROM_GIT, committed_output


def port_whole_tree(opts: PortOptions, notes: list[str]) -> PortResult:
    """Port ``opts.src``; ``notes`` gets what the user must hear before the summary."""
    from ..tree.input_findings import input_messages
    from ..tree.porter import port_tree
    from ..tree.rename_map import process_map, with_outside

    committed = committed_output(opts)  # a committed port that git can give back
    if committed:
        opts.force = True
        notes.append(committed)
    shared = process_map(opts.src)
    result = port_tree(with_outside(opts, [shared] if shared else []))
    if shared is not None:
        shared.record(opts.src, result.project, result.symbol_uses)
    notes.extend(input_messages(result.files))  # its findings are not shown: what one input had
    if committed:  # replaced because git has them, not because the call forced it
        result.warnings = [w.replace(FORCED, FROM_GIT) for w in result.warnings]
    return result
