"""Project symbols: the rename plan for names the tree itself defines.

A name the tree defines (see ``analyze/symbols.py``) that holds a vocabulary word is
renamed everywhere in the tree (``MYLIB_CUDA_CHECK`` -> ``MYLIB_MUSA_CHECK``), unless
the new name is already taken: defined or used in the tree, a name of the rule
tables, or the new name of another rename. Then neither is renamed and the collision
is reported, so a project that already has both ``CUDA_CHECK`` and ``MUSA_CHECK``
keeps both. Names the rules already port, and names the user keeps, are left to them;
so is a name that is only a word (``namespace cuda``): other code uses the same name
(``thrust::cuda``, CCCL's ``cuda::std``, ``at::cuda``), which a rename would break; and
so are the internals of the CUDA libraries MUSA keeps under their own names (Thrust,
CUB, libcu++: ``THRUST_*``, ``CUB_*``, ``_CCCL*``, ``_LIBCUDACXX*``) when a tree vendors
them, as the tables keep them. A name the tree exports to Python (a pybind11 or op
binding, ``analyze/exported.py``) is kept too, and listed with its binding site, unless
the run renames exported names (``--rename-exported``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Set
from dataclasses import dataclass, field

from .keep import KeepSet
from .model import Rule
from .vocabulary import Vocabulary

# Names of the CUDA libraries that keep their names on MUSA (muThrust and muAlg are
# drop-ins for Thrust and CUB; libcu++ keeps its own; muThrust's CUDA backend keeps the
# namespace cuda_cub and its CUDA_CUB_* macros): never renamed as project symbols,
# never keys of the tables (tables/irregular.FORBIDDEN_KEY_PATTERN uses it too). libcu++'s
# <nv/target> macros (NV_IF_TARGET, NV_IS_DEVICE, NV_PROVIDES_SM_80 and their helpers)
# keep theirs too: the include stays (port/cxx/porter.KEPT_LIBRARY_HEADER).
NV_TARGET_PREFIX = (r"NV_(?:IF|IS|PROVIDES|TARGET|DISPATCH|ANY_TARGET|NO_TARGET|HAS_FEATURE|EVAL|"
                    r"CONCAT|BLOCK_EXPAND|FIRST_ARG|HAS_COMMA|COMPILER|NOSAT|DEVICE_CHECK|"
                    r"STRIP_PAREN|REMOVE|ARCH_COND|BITSET|ARG32|TRIGGER_PAR|TEST_PAREN|PASTE|"
                    r"PAREN|NUM_ARGS)")
KEPT_LIBRARY_PREFIX = rf"_*(?:THRUST_|CUB_|CCCL|LIBCUDACXX|CUDA_CUB_|cuda_cub$|{NV_TARGET_PREFIX})"
KEPT_LIBRARY_NAME = re.compile(KEPT_LIBRARY_PREFIX)

PROJECT_FAMILY = "project"
# The origin of a project rule whose name is exactly a vocabulary word (``struct Cuda``,
# ``namespace cuda``): the engine changes it only where it names the tree's definition
# (port/cxx/vendor_words.py), not ``thrust::cuda`` or libcu++'s ``cuda::std``.
WORD_ORIGIN = "a name of the tree that is a vendor word"
# What a definition of exactly a word must be to be renamed: a type, a namespace or an
# enumerator names the backend (a singleton ``struct Cuda``, ``enum class Backend { Cuda }``,
# a tag ``Allocator<Cuda>``); a variable or parameter ``bool cuda`` is a flag, and a macro
# or function of that name is rarer than a clash with other code.
WORD_KINDS = frozenset(("namespace", "class", "struct", "union", "enum", "enumerator",
                        "typedef", "alias"))


def status_counts(rules: Mapping[str, object]) -> dict[str, int]:
    """How many of the rules in force are of each status: ``supported`` (a vendor table
    or source names the MUSA name), ``unknown`` (renamed by the naming pattern; no vendor
    source shows the MUSA name), and the user's (``user``) and the tree's own renames
    (``project``) apart."""
    out: dict[str, int] = {}
    for r in rules.values():
        family = getattr(r, "family", "")
        key = family if family in ("user", PROJECT_FAMILY) else getattr(r, "status", "supported")
        out[key] = out.get(key, 0) + 1
    return out


@dataclass(frozen=True)
class Site:
    """Where the tree defines a name (the source file, 1-based line and column)."""

    file: str
    line: int
    column: int
    kind: str


# Why a name is renamed, beyond "the tree defines it" (bits of Rename.how).
WORD, TWIN, OUTSIDE, MODULE = 1, 2, 4, 8
MODULE_REASON = "names an extension module"  # how a kept module's reason starts


@dataclass
class Rename:
    old: str
    new: str
    sites: list[Site]
    how: int = 0  # WORD | TWIN | OUTSIDE

    @property
    def word(self) -> bool:
        """The name is exactly a vocabulary word (WORD_ORIGIN)."""
        return bool(self.how & WORD)

    def reason(self) -> str:
        site = self.sites[0]
        if self.how & OUTSIDE:
            return "renamed by a port of a tree that shares it"
        if self.how & MODULE:
            return (f"names an extension module ({site.kind} at {site.file}:{site.line}); the "
                    "build that names the module is ported in this run, and renames it too")
        why = f"defined in the tree ({site.kind} at {site.file}:{site.line})"
        if self.how & WORD:
            why += f"; a {site.kind} named as the backend, renamed where it is the tree's"
        if self.how & TWIN:
            why += f"; {self.new} is already on the tree's MUSA side"
        return why

    def to_json(self) -> list:
        row = [self.old, self.new, [[s.file, s.line, s.column, s.kind] for s in self.sites]]
        return [*row, self.how] if self.how else row

    @classmethod
    def from_json(cls, row: list) -> Rename:
        return cls(row[0], row[1], [Site(*s) for s in row[2]], row[3] if len(row) > 3 else 0)


@dataclass(frozen=True)
class ModuleLink:
    """One extension module's decision (``rules/modules.py``): ``old`` its name (a
    pattern when only a build computing it names it: ``*`` for what it computes), ``new``
    its new name or None (kept), where it is named and why."""

    old: str
    new: str | None
    site: Site
    reason: str

    def to_json(self) -> list:
        s = self.site
        return [self.old, self.new, [s.file, s.line, s.column, s.kind], self.reason]

    @classmethod
    def from_json(cls, row: list) -> ModuleLink:
        return cls(row[0], row[1], Site(*row[2]), row[3])


@dataclass
class Collision:
    old: str
    new: str
    reason: str
    sites: list[Site]

    def to_json(self) -> list:
        return [self.old, self.new, self.reason, [[s.file, s.line, s.column, s.kind] for s in self.sites]]

    @classmethod
    def from_json(cls, row: list) -> Collision:
        return cls(row[0], row[1], row[2], [Site(*s) for s in row[3]])


@dataclass
class ProjectPlan:
    renames: dict[str, Rename] = field(default_factory=dict)
    collisions: list[Collision] = field(default_factory=list)
    # Names left because Python calls them by name (at their binding site), and the
    # exported names renamed all the same (--rename-exported): name -> binding site.
    kept: list[Collision] = field(default_factory=list)
    exported: dict[str, Site] = field(default_factory=dict)
    # Names left for another reason, each with it: --keep or a keep pattern, a name
    # shared with another backend, a variable that is just a word.
    left: list[Collision] = field(default_factory=list)
    # Every extension module whose name holds a word: renamed on every side, or kept.
    modules: list[ModuleLink] = field(default_factory=list)
    # Names the tree defines that look like CUDA's but hold no vocabulary word
    # (``NVPF_CHECK``): its own, kept, at their first definition site.
    own: dict[str, Site] = field(default_factory=dict)
    _by_file: dict | None = field(default=None, repr=False, compare=False)
    _names: frozenset[str] | None = field(default=None, repr=False, compare=False)

    def names(self) -> frozenset[str]:
        """The names of the ported tree that are the tree's own: its CUDA-looking names,
        the new names of its renames and the names it keeps (none is an unknown CUDA
        name: its definition's finding says what the port did with it)."""
        if self._names is None:
            self._names = frozenset(
                [*self.own, *(r.new for r in self.renames.values()),
                 *(c.old for c in (*self.collisions, *self.kept, *self.left))])
        return self._names

    def rules(self) -> dict[str, Rule]:
        """The renames as rules for the engine (family ``project``)."""
        out = {}
        for r in self.renames.values():
            site = r.sites[0]
            out[r.old] = Rule(r.old, r.new, PROJECT_FAMILY, "supported", site.file, site.line,
                              f"defined in the tree ({site.kind}, {site.file}:{site.line})",
                              origin=WORD_ORIGIN if r.word else "")
        return out

    def by_file(self) -> dict[str, list[tuple[str, Rename | Collision]]]:
        """Each renamed or colliding name at its first definition site, by file."""
        if self._by_file is not None:
            return self._by_file
        out: dict[str, list[tuple[str, Rename | Collision]]] = {}
        for r in self.renames.values():
            out.setdefault(r.sites[0].file, []).append(("rename", r))
        for c in self.collisions:
            out.setdefault(c.sites[0].file, []).append(("collision", c))
        for c in self.kept:
            out.setdefault(c.sites[0].file, []).append(("kept", c))
        for name, site in self.exported.items():
            r = self.renames[name]
            out.setdefault(site.file, []).append(("exported", Rename(r.old, r.new, [site])))
        for name, site in self.own.items():
            out.setdefault(site.file, []).append(("own", Collision(name, name, "", [site])))
        self._by_file = out
        return out

    def to_json(self) -> dict:
        return {"renames": [r.to_json() for r in self.renames.values()],
                "collisions": [c.to_json() for c in self.collisions],
                "kept": [c.to_json() for c in self.kept],
                "left": [c.to_json() for c in self.left],
                "exported": [[k, s.file, s.line, s.column, s.kind] for k, s in self.exported.items()],
                "modules": [m.to_json() for m in self.modules],
                "own": [[k, s.file, s.line, s.column, s.kind] for k, s in self.own.items()]}

    @classmethod
    def from_json(cls, data: Mapping) -> ProjectPlan:
        renames = [Rename.from_json(r) for r in data.get("renames", [])]
        return cls({r.old: r for r in renames},
                   [Collision.from_json(c) for c in data.get("collisions", [])],
                   [Collision.from_json(c) for c in data.get("kept", [])],
                   {x[0]: Site(*x[1:]) for x in data.get("exported", [])},
                   [Collision.from_json(c) for c in data.get("left", [])],
                   [ModuleLink.from_json(m) for m in data.get("modules", [])],
                   {x[0]: Site(*x[1:]) for x in data.get("own", [])})

    def module_renames(self) -> dict[str, str]:
        """The extension modules renamed by name (old -> new), for imports and loaders."""
        return {m.old: m.new for m in self.modules if m.new is not None and "*" not in m.old}

    def key(self) -> tuple:
        """What decides the ported text and its residuals (the sites do not)."""
        key = (tuple(sorted((r.old, r.new) for r in self.renames.values())),
               tuple(sorted((m.old, m.new or "") for m in self.modules)))
        return (*key, ("own", *sorted(self.own))) if self.own else key


def plan_renames(defs: Mapping[str, list[Site]], taken: Set[str], vocabulary: Vocabulary, *,
                 rule_names: Set[str] = frozenset(), rule_keys: Set[str] = frozenset(),
                 keep: Iterable[str] = (), refine: Callable[[str], str] | None = None,
                 exported: Mapping[str, Site] | None = None, rename_exported: bool = False,
                 outside_renames: Mapping[str, str] | None = None,
                 outside_kept: Mapping[str, str] | None = None,
                 existing: Set[str] = frozenset(),
                 shared: Mapping[str, str] | None = None,
                 library: Set[str] = frozenset(),
                 modules: Mapping[str, tuple[str | None, str]] | None = None) -> ProjectPlan:
    """The plan for the tree's definitions ``defs`` (name -> its definition sites).

    ``taken``: names of the tree a new name must not be (identifiers with a MUSA word);
    ``rule_names``: keys and values of the rules in force (a new name must not be one);
    ``rule_keys``: names the rules port already (not renamed here); ``keep``: --keep;
    ``refine``: what the rules do inside a name, applied to the new name too (a rule
    ``_CUH -> _MUH`` makes ``FOO_CUDA_CUH`` ``FOO_MUSA_MUH``, as it would have made it
    ``FOO_CUDA_MUH`` without the rename); ``exported``: names Python calls by name, at
    their binding site: kept (listed in ``plan.kept``) unless ``rename_exported``;
    ``outside_renames`` and ``outside_kept``: what other ports of trees that share names
    with this one decided (``tree/rename_map.py``): their renames are made here too, and
    a name one of them uses as it is stays (a collision naming that port);
    ``existing``: names the tree's MUSA side already has (a backend ported by hand in
    part): a new name among them is that name's MUSA twin, not a collision; ``shared``:
    names another backend of the tree uses too (name -> why), left as they are;
    ``library``: what a vendored Thrust, CUB or libcu++ defines (MUSA keeps those names);
    ``modules``: the exported names that name an extension module (``PyInit_x``,
    ``PYBIND11_MODULE(x, m)``), each with its new name, or None, and why
    (``rules/modules.py``): a module the run's build names is renamed with it, exported
    or not; another is kept, exported or not.
    """
    modules = modules or {}
    keep = KeepSet(keep)
    shared = shared or {}
    exported = exported or {}
    outside = dict(outside_renames or {})
    outside_kept = outside_kept or {}
    words = vocabulary.forms()
    wanted: dict[str, str] = {}
    plan = ProjectPlan()
    for name in sorted(defs):
        if name in outside:
            continue  # another port decided: below
        if name in outside_kept and name not in keep:
            new = vocabulary.rename(name)
            if new is not None and new != name and name not in rule_keys:
                plan.collisions.append(Collision(
                    name, refine(new) if refine is not None else new,
                    f"the port of {outside_kept[name]} uses it under this name",
                    sorted(defs[name], key=_site_order)))
            continue
        if name in rule_keys or name in library or KEPT_LIBRARY_NAME.match(name):
            continue  # the rules' names; a vendored Thrust/CUB/libcu++'s (MUSA keeps them)
        new = vocabulary.rename(name)
        if new is None or new == name:
            continue
        sites = sorted(defs[name], key=_site_order)
        pattern = keep.pattern_of(name)
        if pattern is not None:
            how = "--keep" if pattern == name else f"the keep pattern {pattern}"
            plan.left.append(Collision(name, new, f"kept by {how}", sites))
            continue
        if name in words and not any(s.kind in WORD_KINDS for s in defs[name]):
            # A variable or function that is just a word (bool cuda) is not the backend's
            # name; a type, namespace or enumerator is, and is renamed where it is the
            # tree's (thrust::cuda, CCCL's cuda::std and at::cuda stay the rules').
            plan.left.append(Collision(name, new, f"a {sites[0].kind} named just {name!r}, "
                                                  "not the backend's name", sites))
            continue
        if name in shared:
            plan.left.append(Collision(name, new, shared[name], sites))
            continue
        wanted[name] = refine(new) if refine is not None else new
    for old, (new_module, _) in modules.items():
        if old in wanted and new_module is not None:
            wanted[old] = new_module  # the name the build's rename gives it
    targets: dict[str, list[str]] = {}
    for old, new in wanted.items():
        targets.setdefault(new, []).append(old)
    for old, new in wanted.items():
        sites = sorted(defs[old], key=_site_order)
        if len(targets[new]) > 1:
            others = ", ".join(o for o in targets[new] if o != old)
            plan.collisions.append(Collision(old, new, f"{others} would also become {new}", sites))
        elif new in defs and new not in existing:
            plan.collisions.append(Collision(old, new, f"the tree already defines {new}", sites))
        elif new in taken and new not in existing:
            plan.collisions.append(Collision(old, new, f"the tree already uses {new}", sites))
        elif new in rule_names:
            plan.collisions.append(Collision(old, new, f"{new} is a name of the rule tables", sites))
        elif old in modules and modules[old][0] is None and not rename_exported:
            site = exported[old]
            plan.kept.append(Collision(old, new, f"{MODULE_REASON} ({site.kind} at "
                                                 f"{site.file}:{site.line}): {modules[old][1]}",
                                       [site]))
        elif old in exported and not rename_exported and old not in modules:
            site = exported[old]
            plan.kept.append(Collision(old, new, f"exported to Python ({site.kind} at "
                                                 f"{site.file}:{site.line})", [site]))
        else:
            followed = old in modules and modules[old][0] is not None
            plan.renames[old] = Rename(old, new, [exported[old]] if followed else sites,
                                       (WORD if old in words else 0) | (TWIN if new in existing else 0)
                                       | (MODULE if followed else 0))
            if old in exported and not followed:
                plan.exported[old] = exported[old]
    for old, (new, _) in sorted(modules.items()):
        if new is None or old in defs or old not in exported:
            continue  # PYBIND11_MODULE(x, m): x is not a definition, and follows too
        site = exported[old]
        if new in defs or new in taken or new in rule_names:
            plan.collisions.append(Collision(old, new, f"the tree already has {new}", [site]))
        else:
            plan.renames[old] = Rename(old, new, [site], MODULE)
    for old, new in sorted(outside.items()):
        if old in rule_keys or old in keep:
            continue
        sites = sorted(defs.get(old, ()), key=_site_order) or [
            Site("(another port)", 1, 1, "renamed by another port")]
        plan.renames[old] = Rename(old, new, sites, OUTSIDE)
    return plan


def _site_order(s: Site) -> tuple:
    return (s.file, s.line, s.column)
