"""torch_musa's loop, for a caller that replaced ``SimplePorting.modify_file``: the
tree is walked and named by the engine, and each file handed to the caller's
method."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..errors import PortError
from ..tree.result import FileOutcome, PortResult

if TYPE_CHECKING:
    from ..simple_porting import SimplePorting


def run_per_file(sp: SimplePorting) -> PortResult:
    """torch_musa's loop, for a caller's ``modify_file``: every file not ignored is
    handed to it with its output path (``change_filename``), folders made first.
    musa-port writes nothing itself, so the output may be the source folder."""
    from ..tree.kinds import KindSelector
    from ..tree.names import SUPERSEDED, output_names
    from ..tree.walk import Ignorer, walk

    if not isinstance(sp.mapping_rule, list):
        sp.load_replaced_mapping()  # a caller's modify_file reads the pairs, as torch_musa left them
    opts = sp.options()
    src, out = os.path.abspath(sp.cuda_dir_path), os.path.abspath(sp.musa_dir_path)
    if not os.path.isdir(src):
        raise PortError("source folder not found", sp.cuda_dir_path)
    result = PortResult(src, out)
    entries = list(walk(src, Ignorer(opts.ignore), result.ignored))
    superseded: dict[str, str] = {}
    aside: dict[str, str] = {}  # no name free for it: not handed to modify_file (a warning says so)
    out_rel_of = output_names(src, entries, KindSelector.from_options(opts), {}, None,
                              result.warnings, superseded, sp.change_filename, set_aside=aside)
    result.ignored.update({rel: SUPERSEDED for rel in superseded})
    for e in entries:
        if e.kind != "file" or e.rel in superseded or e.rel in aside:
            continue
        target = os.path.join(out, out_rel_of[e.rel])
        os.makedirs(os.path.dirname(target), exist_ok=True)
        sp.modify_file(os.path.join(src, e.rel), target)
        result.files.append(FileOutcome(e.rel, out_rel_of[e.rel], "ported", written=True))
    return result
