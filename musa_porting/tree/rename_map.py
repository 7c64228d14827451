"""One rename map across ports: trees that include each other agree on their renames.

sgl-kernel's setup.py ports three trees with three SimplePorting calls (its ``csrc``,
flashinfer's ``include``, flashinfer's ``csrc``), and each includes the others'
headers. Each port decides the renames of the names its own tree defines, so without
a shared map flashinfer's header would define ``FLASHINFER_MUSA_CALL`` while
sgl-kernel's sources, ported first, still use ``FLASHINFER_CUDA_CALL``. The rule:

- **Later ports see earlier ones.** A port applies the renames of the ports it sees
  (a name another port renamed is renamed here too, defined here or not), and does not
  rename a name another port *used* and left as it was (it would break that tree):
  such a name is reported as a collision naming the port that uses it.
- **Which ports it sees.** ``SimplePorting`` calls in one process, from one working
  folder and of trees inside it (a setup.py's), share one map (``process_map()``): each
  call records its plan and the names its tree uses. A port also
  reads the manifests of the musa-port outputs its ``-I`` folders belong to: the folder
  itself, or ``<folder>_musa`` beside it or beside one of its parents (an output whose
  manifest says it holds the port of that folder), so a run from the command line sees
  the ports made before it, in any process.

Both arrive as two maps in the run's options (``outside_renames``: old -> new,
``outside_kept``: name -> the port that keeps it), so they are part of what decides the
output and of its fingerprint.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from ..rules.project import ProjectPlan
from ..write.manifest import MANIFEST_NAME, load_manifest
from .options import PortOptions

_PARENTS = 3  # how far above an -I folder its tree's output is looked for


@dataclass
class RenameMap:
    """The renames and the names left as they were, of the ports seen so far, each
    with the source folder of the port that decided it."""

    renames: dict[str, tuple[str, str]] = field(default_factory=dict)  # old -> (new, src)
    kept: dict[str, str] = field(default_factory=dict)  # name -> src

    def record(self, src: str, plan: ProjectPlan | None, uses: Iterable[str]) -> None:
        """What the port of ``src`` decided: its renames, and the names it used or kept
        under their CUDA names (a later port must not rename those)."""
        src = os.path.realpath(src)
        plan = plan or ProjectPlan()
        for r in plan.renames.values():
            self.renames.setdefault(r.old, (r.new, src))
        for c in [*plan.collisions, *plan.kept, *plan.left]:
            self.kept.setdefault(c.old, src)
        for name in uses:
            if name not in plan.renames:
                self.kept.setdefault(name, src)

    def constraints(self, src: str) -> tuple[dict[str, str], dict[str, str]]:
        """(renames, kept) for a port of ``src``, from the other ports of the map."""
        src = os.path.realpath(src)
        renames = {old: new for old, (new, where) in self.renames.items() if where != src}
        kept = {name: where for name, where in self.kept.items()
                if where != src and name not in renames}
        return renames, kept


# The maps SimplePorting calls in one process share, one per working folder: a
# setup.py makes its calls from one folder; builds of unrelated projects in one
# process (a test run, a build front end) do not mix.
_PROCESS: dict[str, RenameMap] = {}


def process_map(src: str) -> RenameMap | None:
    """The map of the SimplePorting calls made from the current working folder, for a
    port of ``src``; None when ``src`` is outside it (not a tree of this project)."""
    cwd = os.path.realpath(os.getcwd())
    real = os.path.realpath(src)
    if real != cwd and not real.startswith(cwd.rstrip(os.sep) + os.sep):
        return None
    return _PROCESS.setdefault(cwd, RenameMap())


def _output_of(folder: str) -> str | None:
    """The musa-port output that ``folder`` is, or that holds the port of ``folder`` or
    of one of its parents (``<parent>_musa``), or None."""
    folder = os.path.realpath(folder)
    if os.path.isfile(os.path.join(folder, MANIFEST_NAME)):
        return folder
    path = folder
    for _ in range(_PARENTS + 1):
        out = path.rstrip(os.sep) + "_musa"
        if os.path.isfile(os.path.join(out, MANIFEST_NAME)):
            m = load_manifest(out)
            if m.src and os.path.realpath(m.src) == path:
                return out
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return None


def from_outputs(src: str, include_dirs: Iterable[str]) -> RenameMap:
    """The map of the outputs the ``include_dirs`` belong to (not the port of ``src``
    itself, nor an output inside it)."""
    seen = RenameMap()
    src_real = os.path.realpath(src)
    done: set[str] = set()
    for d in include_dirs:
        out = _output_of(d if os.path.isabs(d) or os.path.isdir(d) else os.path.join(src, d))
        if out is None or out in done:
            continue
        done.add(out)
        m = load_manifest(out)
        if not m.src or os.path.realpath(m.src) == src_real:
            continue
        uses = {u for rec in m.files.values() if rec.symbols for u in rec.symbols.get("uses", ())}
        seen.record(m.src, ProjectPlan.from_json(m.project) if m.project else None, uses)
    return seen


def with_outside(opts: PortOptions, maps: Iterable[RenameMap] = ()) -> PortOptions:
    """``opts`` with the renames and kept names of the other ports it sees: the outputs
    its ``-I`` folders belong to, and ``maps`` (SimplePorting's process map)."""
    if not opts.project_symbols:
        return opts
    renames: dict[str, str] = {}
    kept: dict[str, str] = {}
    for m in [from_outputs(opts.src, opts.include_dirs), *maps]:
        r, k = m.constraints(opts.src)
        for old, new in r.items():
            renames.setdefault(old, new)
        for name, where in k.items():
            kept.setdefault(name, where)
    kept = {n: w for n, w in kept.items() if n not in renames}
    if not renames and not kept:
        return opts
    return replace(opts, outside_renames={**renames, **opts.outside_renames},
                   outside_kept={**kept, **opts.outside_kept})

