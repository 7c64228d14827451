"""Strings the code computes that name files of the tree or extension modules: followed.

A build computes its sources (``osp.join(extensions_dir, 'cuda', f'{name}_cuda.cu')``,
``"{}/src/*.cu".format(root)``, a bare name joined in a loop) and a package computes the
modules it loads (``find_spec(f'{library}_cuda')``, ``torch.ops.load_library(f'_C_{s}.so')``,
``import_module(f'pkg._ext_{suffix}')``). When the port renames the files and modules
those strings name, the strings must name the new ones, or an ``exists`` check or a glob
drops every CUDA source, and a loader falls back to the CPU build, in silence.

Each such expression is read statically (``values.py``): its alternatives, each literal
pieces where they are written and holes. A path is matched against the tree's inputs and
their output names, a module name against the run's module decisions
(``rules/modules.py``). The literal pieces are then rewritten, where they are written,
so that the computed value names the output (``_cuda.cu`` -> ``_musa.mu``; the rewrite
of each piece is checked against every file it matched), or kept as they are when the
names they build are kept (no other rule may change them: the device rule would make a
kept ``'cuda'`` folder ``'musa'``). A literal compared with a variable built from pieces
that changed (``suffix == 'cuda'``) changes with them. What matches renamed files or
modules but cannot be rewritten consistently (a hole over the renamed word, pieces that
two names need rewritten differently) is left as it is, with a finding (MP4010).

Only files that may hold such a string are read whole (``Links.trigger``); the rest of
the porter reads statement by statement.
"""

from __future__ import annotations

import ast
import posixpath
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ...analyze import python_findings as pf
from .computed_names import aligned, follows, joined, names, path_regex, tail, uses
from .lit_edits import Positions, lit_edits, written
from .paths import PathMap
from .values import HOLE, Lit, Value, Values

# How a path's pieces may follow: as they are, the extension, the words, and a piece
# that is whole folders as the output's folders (csrc -> csrc_musa) with the rest's words.
SAME, EXT, RENAMED, ALIGNED = 0, 1, 2, 3


@dataclass
class Links:
    """What a run's computed strings may name: the ported trees' files and the extension
    modules (``modules``: old name or pattern -> new, None when kept); ``rename`` is the
    vocabulary's rename of a name part, ``words`` finds a piece worth following, ``exts``
    the extensions the port renames (``.cu`` -> ``.mu``)."""

    paths: PathMap | None
    modules: tuple[tuple[str, str | None], ...]
    rename: Callable[[str], str | None]
    words: re.Pattern[str]
    strong: re.Pattern[bytes]  # a loader or build call, a renamed extension, a module
    weak: re.Pattern[bytes] | None  # a renamed name or a word, which counts with _PATHS
    exts: dict[str, str] = field(default_factory=dict)
    _pairs: list[tuple[str, str]] | None = None

    def pairs(self) -> list[tuple[str, str]]:
        """Every input path of the ported trees with its output path."""
        if self._pairs is None:
            self._pairs = [] if self.paths is None else [
                (posixpath.join(t.src, k), posixpath.join(t.out, v))
                for t in self.paths.trees for k, v in t.files.items()]
        return self._pairs

    def wanted(self, data: bytes) -> bool:
        """The file may compute a name to follow (cheap: regular expressions only)."""
        return self.strong.search(data) is not None or self.weak is not None \
            and self.weak.search(data) is not None and _PATHS.search(data) is not None

    def out_path(self, folder: str) -> str:
        for t in self.paths.trees if self.paths is not None else ():
            if folder == t.src or folder.startswith(t.src + "/") or not t.src:
                inner = folder[len(t.src):].lstrip("/")
                return posixpath.join(t.out, t.files.get(inner, inner)) if inner else t.out
        return folder


@dataclass
class Followed:
    """What the pass decided: byte edits, the literals' pieces no other rule may change
    (their piece spans), and findings (offset, finding)."""

    edits: list[tuple[int, int, bytes, str]] = field(default_factory=list)
    pinned: list[tuple[int, int]] = field(default_factory=list)
    findings: list[tuple[int, pf.PyFinding]] = field(default_factory=list)

    def merged(self, fixed: list[tuple[int, int, bytes, object]]) -> list[tuple[int, int, bytes, object]]:
        """The statement rewrites ``fixed`` with these: inside a decided literal's piece,
        this pass's word wins (another rule's edit there is dropped); a rewrite of more
        than the piece (a whole list of arch flags) wins over it."""
        from .names import COMPUTED

        pinned = set(self.pinned)
        out, beaten = [], set()
        for edit in fixed:
            s, e = edit[0], edit[1]
            over = [(ps, pe) for ps, pe in pinned if s < pe and ps < e or ps <= s < pe]
            if over and all(ps <= s and e <= pe for ps, pe in over):
                continue  # within a piece this pass decided
            beaten.update(over)
            out.append(edit)
        for s, e, new, why in self.edits:
            if not any(ps <= s < pe for ps, pe in beaten):
                out.append((s, e, new, COMPUTED.get(why, COMPUTED["path"])))
        return out


_CONSUMERS = rb"find_spec|import_module|__import__|load_library|Extension\s*\("
# A path API: what makes a string with a folder's name or a word in it worth reading
# (device strings and messages spell 'cuda' in many files that name no path).
_PATHS = re.compile(rb"(?:path|osp)\s*\.\s*\w+\s*\(|(?<![.\w])join\s*\(|\bPath\s*\(|glob\s*\(|"
                    rb"\bsources\b|_dirs?\b")


def computed_links(paths: PathMap | None, modules: dict[str, str | None], vocabulary) -> Links:
    """What a run's computed strings may name (``source._links`` says whether anything
    can be)."""
    words = sorted({w.cuda for w in vocabulary.words.values() if w.enabled}, key=len, reverse=True)
    exts = paths.extensions() if paths is not None else {}
    names = [re.escape(k).encode() for k in modules if "*" not in k]
    strong = [_CONSUMERS] + [re.escape(e).encode() + rb"['\"]" for e in exts] + names
    word = b"|".join(re.escape(w).encode() for w in words)
    # A word as a part of a name or path in a string ('{library}_cuda', 'csrc/cuda/'), or
    # alone in a join: not an identifier (is_cuda), not a device ('cuda', 'cuda:0').
    tok = rb"[\w./{}-]*"
    weak = [rb"(?i:['\"/]" + tok + rb"(?:[_/.](?:" + word + rb")|(?:" + word + rb")[_/.])" + tok
            + rb"['\"/]|join\s*\([^)\n]*['\"](?:" + word + rb")['\"])"] if words else []
    moved = sorted({n for t in paths.trees for n in t.renamed_names}
                   | {posixpath.basename(t.src) for t in paths.trees if t.src != t.out and t.src}
                   if paths is not None else ())
    if moved:  # a folder or file the port renames, beside a / or in a join
        name = b"|".join(re.escape(n).encode() for n in moved)
        weak.append(rb"/(?:" + name + rb")['\"/]|['\"](?:" + name + rb")/|join\s*\([^)\n]*['\"](?:"
                    + name + rb")['\"]")
    pieces = "|".join([*map(re.escape, words), *map(re.escape, exts)])
    piece_re = re.compile(f"(?i:{pieces})" if pieces else r"(?!)")
    return Links(paths, tuple(modules.items()), vocabulary.rename, piece_re, re.compile(b"|".join(strong)),
                 re.compile(b"|".join(weak)) if weak else None, exts)


def follow(data: bytes, rel: str, bases: Sequence[str], links: Links) -> Followed | None:
    """Follow the computed strings of one UTF-8 file (``rel``: its path, ``bases``: the
    folders its relative paths may start from). None when it does not parse."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    try:
        return _Pass(tree, data, rel, bases, links).run()
    except RecursionError:  # an expression nested deeper than the reading may recurse
        return None


@dataclass
class _Group:
    """One name's decision: the new text of each of its pieces, what the name is (for a
    finding), the kind of rewrite and where the expression is."""

    node: ast.AST
    pieces: dict[Lit, str]
    what: str
    why: str


class _Pass:
    def __init__(self, tree: ast.AST, data: bytes, rel: str, bases: Sequence[str], links: Links):
        self.tree, self.links = tree, links
        self.values = Values(tree, rel)
        self.pos = Positions(data)
        self.bases = [(b, links.out_path(b)) for b in dict.fromkeys(bases)]
        self.groups: list[_Group] = []
        self.found: list[tuple[int, pf.PyFinding]] = []

    def run(self) -> Followed:
        found, compares = uses(self.tree)
        for node, kind in found:
            for v in self.values.values(node):
                if kind in (".", "/"):
                    self._module(node, v, kind)
                elif any(p is not HOLE and p.node is not None and self.links.words.search(p.text)
                         for p in v):  # a piece with a word or a renamed extension
                    self._path(node, v, kind == "pattern")
        final, why = self._agreed()
        if final:
            self._comparisons(compares, final, why)
        # One finding per place and message: alternatives alike but for where their
        # pieces are written meet the same expression.
        out = Followed(findings=list({(at, f.message): (at, f) for at, f in self.found}.values()))
        for start, end, new, lit in lit_edits(self.pos, final):
            out.edits.append((start, end, new, why[lit]))
        for lit in final:
            at = written(self.pos, lit)
            if at is not None:
                out.pinned.append(at[0])
        return out

    def _agreed(self) -> tuple[dict[Lit, str], dict[Lit, str]]:
        """Each piece's text: what every name built from it needs, or as it is when two
        names need it different (then every piece of those names stays as it is, lest
        half a name change: a finding says which)."""
        failed: set[int] = set()
        while True:
            wanted: dict[Lit, dict[str, str]] = {}
            for k, g in enumerate(self.groups):
                for lit, new in g.pieces.items():
                    wanted.setdefault(lit, {}).setdefault(lit.text if k in failed else new, g.what)
            split = {lit for lit, news in wanted.items() if len(news) > 1}
            newly = [k for k, g in enumerate(self.groups)
                     if k not in failed and split.intersection(g.pieces)]
            if not newly:
                break
            for k in newly:
                failed.add(k)
                g = self.groups[k]
                lit = next(iter(split.intersection(g.pieces)))
                others = "; ".join(w for w in wanted[lit].values() if w != g.what)
                self.found.append((self.pos.start(g.node), pf.computed_name(
                    lit.text, f"'{lit.text}' builds {g.what} and {others}, which need it "
                              f"rewritten differently: left as it is; rewrite them by hand")))
        final = {lit: next(iter(news)) for lit, news in wanted.items()}
        why = {lit: next(g.why for g in self.groups if lit in g.pieces) for lit in final}
        return final, why

    def _decide(self, node: ast.AST, pieces: dict[Lit, str], what: str, why: str) -> None:
        """One name's pieces decided, unless a piece to change cannot be rewritten where it
        is written (an escape sequence, a literal of several pieces): then none is."""
        pieces = {p: t for p, t in pieces.items() if p.node is not None}
        stuck = next((p for p, t in pieces.items() if t != p.text and written(self.pos, p) is None),
                     None)
        if stuck is not None:
            pieces = {p: p.text for p in pieces}
            self.found.append((self.pos.start(node), pf.computed_name(
                stuck.text, f"'{stuck.text}' builds {what}, and it is written in a way the port "
                            "cannot rewrite in place (an escape sequence, a literal of several "
                            "pieces): left as it is; rewrite it by hand")))
        self.groups.append(_Group(node, pieces, what, why))

    # -- paths ---------------------------------------------------------------------------

    def _path(self, node: ast.AST, v: Value, pattern: bool) -> None:
        if any(p is not HOLE and re.search(r"(?:^|/)\.\.(?:/|$)", p.text) for p in v):
            return
        needle = max((seg for p in v if p is not HOLE
                      for seg in re.split(r"/|\*|\?|\[[^\]]*\]?" if pattern else "/", p.text)),
                     key=len, default="")
        pairs = [pair for pair in self.links.pairs() if needle in pair[0]]  # a C-speed sieve
        for base, out_base in self.bases:
            rx = path_regex(v, pattern, base)
            if rx is None:
                return
            matches = [(i, o, m.groups()) for i, o in pairs if (m := rx.fullmatch(i))]
            if not matches:
                continue
            i, o, _ = matches[0]
            whole = aligned(v, pattern, base, i, o) or {}  # pieces that are whole components
            for how in (SAME, EXT, RENAMED, ALIGNED):
                new = {p: whole[p] if how == ALIGNED and p in whole else
                       self._piece(p, min(how, RENAMED), p is v[-1]) for p in v if p is not HOLE}
                if all(path_regex(v, pattern, out_base, new, caps).fullmatch(o)  # type: ignore[union-attr]
                       for _, o, caps in matches):
                    i, o, _ = matches[0]
                    self._decide(node, new, f"the path to {i}" + (f" (now {o})" if i != o else ""),
                                 "path")
                    return
            i, o, _ = matches[0]
            self.found.append((self.pos.start(node), pf.computed_name(
                i, f"this path names {len(matches)} file(s) the port renamed ({i} is now {o}), "
                   "and its pieces cannot be rewritten to name them: an exists check or a glob "
                   "on it finds nothing; rewrite it by hand")))
            return

    def _piece(self, p: Lit, how: int, last: bool) -> str:
        text = p.text
        if how == RENAMED:
            text = "/".join(self.links.rename(s) or s for s in text.split("/"))
        if how != SAME and last:
            for ext, new in self.links.exts.items():
                if text.endswith(ext):
                    return text[:-len(ext)] + new
        return text

    # -- modules -------------------------------------------------------------------------

    def _module(self, node: ast.AST, v: Value, sep: str) -> None:
        slices = tail(v, sep)
        parts = joined([None if p is HOLE else p.text[s:e] for p, s, e in slices])
        if not any(parts):
            return  # nothing of the module's own name is known
        matched = [(old, new) for old, new in self.links.modules if names(parts, old)]
        if not matched:
            return
        kept = [old for old, new in matched if new is None]
        if len(kept) == len(matched):
            self._decide(node, {p: p.text for p, _, _ in slices if p is not HOLE},
                         f"the name of the module {kept[0]} (kept)", "module")
            return
        new: dict[Lit, str] = {}
        pieces: list[str | None] = []
        for p, s, e in slices:
            if p is HOLE:
                pieces.append(None)
                continue
            r = self.links.rename(p.text[s:e]) or p.text[s:e]
            new[p] = p.text[:s] + r + p.text[e:]
            pieces.append(r)
        new_parts = joined(pieces)
        if not kept and all(follows(parts, old, new_parts, target) for old, target in matched):
            old, target = matched[0]
            self._decide(node, new, f"the name of the module {old} (now {target})", "module")
            return
        old, target = next((o, t) for o, t in matched if t is not None)
        self.found.append((self.pos.start(node), pf.computed_name(
            old, f"this name computes the extension module {old}, which the port renames to "
                 f"{target} with its build, and its pieces cannot be rewritten to name it"
                 + (f" (it may also name {kept[0]}, which is kept)" if kept else "")
                 + ": the import fails, or the package falls back to another build; rewrite it "
                   "by hand")))

    # -- comparisons ---------------------------------------------------------------------

    def _comparisons(self, compares: list[ast.Compare], final: dict[Lit, str],
                     why: dict[Lit, str]) -> None:
        """``suffix == 'cuda'``: a literal compared with a variable whose pieces were
        decided gets the same decision."""
        for node in compares:
            if len(node.comparators) != 1:
                continue
            a, b = node.left, node.comparators[0]
            name, other = (a, b) if isinstance(a, ast.Name) else (b, a)
            if not isinstance(name, ast.Name):
                continue
            consts = other.elts if isinstance(other, (ast.Tuple, ast.List, ast.Set)) else [other]
            if not all(isinstance(c, ast.Constant) and isinstance(c.value, str) for c in consts):
                continue
            given: dict[str, set[str]] = {}
            for val in self.values.values(name):
                if len(val) == 1 and val[0] is not HOLE and val[0] in final:
                    given.setdefault(val[0].text, set()).add(final[val[0]])
            for c in consts:
                news = given.get(c.value, set())  # type: ignore[attr-defined]
                if len(news) == 1:
                    lit = Lit(c.value, c)  # type: ignore[attr-defined]
                    final[lit], why[lit] = next(iter(news)), "compared"
