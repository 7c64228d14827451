"""String paths to ported sources follow the port: ``"csrc/foo.cu"`` names the file
the port wrote (``"csrc/foo.mu"`` inside a ported project, ``"csrc_musa/foo.mu"``
from a setup.py beside a ``csrc`` that was ported into ``csrc_musa``), and so do glob
patterns (``"csrc/**/*.cu"`` -> ``"csrc_musa/**/*.mu"``).

A path is rewritten only when it names files or folders of a ported tree, so that a
URL, a message or a path to anything else is left alone. All paths here are POSIX
and relative to one root (the tree root for ``musa-port``, the converted folder for
``musa-converter``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

_GLOB = re.compile(r"[*?\[]")
_NOT_A_PATH = re.compile(r"[\s:\\|<>\"'{}%$]|^/|^$")


@dataclass(frozen=True)
class PortedTree:
    """One ported tree: its source folder and its output folder (relative to the root;
    ``""`` for the root itself), and the output name of each file (relative to them)."""

    src: str
    out: str
    files: Mapping[str, str]
    dirs: frozenset[str] = frozenset()
    # Extensions of files whose name changes (".cu" when foo.cu became foo.mu).
    renamed_exts: frozenset[str] = field(init=False)
    # Folder and file names that change otherwise (cuda when csrc/cuda became csrc/musa).
    renamed_names: frozenset[str] = field(init=False)

    def __post_init__(self):
        exts, names = set(), set()
        for k, v in self.files.items():
            (a, x), (b, y) = posixpath.splitext(posixpath.basename(k)), \
                posixpath.splitext(posixpath.basename(v))
            if x != y and x:
                exts.add(x)
            if a != b:
                names.add(posixpath.basename(k))
        object.__setattr__(self, "renamed_exts", frozenset(exts))
        object.__setattr__(self, "renamed_names", frozenset(names))


class PathMap:
    """Rewrites path strings into the ported trees it knows."""

    def __init__(self, trees: Sequence[PortedTree]):
        # The deepest source folder first: a tree inside another wins.
        self.trees = sorted(trees, key=lambda t: -len(t.src))
        self._exts = {e: self._new_ext(e) for t in self.trees for e in t.renamed_exts}

    def trigger(self) -> str:
        """A regex (on the text of a string literal, quotes included) that a path this
        map may rewrite matches: a renamed extension at the end, or a moved folder."""
        parts = [re.escape(e) + r"['\"]" for e in sorted(self._exts)]
        for t in self.trees:
            if t.src != t.out and t.src:
                name = re.escape(posixpath.basename(t.src))
                parts.append(rf"[/'\"]{name}(?=[/'\"])")
        names = sorted({n for t in self.trees for n in t.renamed_names})
        if names:
            parts.append(r"[/'\"](?:" + "|".join(map(re.escape, names)) + r")(?=[/'\"])")
        return "|".join(parts)

    def anchors(self) -> list[str]:
        """Literal text that every string ``trigger`` matches contains."""
        out = sorted(self._exts)
        out += [posixpath.basename(t.src) for t in self.trees if t.src != t.out and t.src]
        out += sorted({n for t in self.trees for n in t.renamed_names})
        return out

    def extensions(self) -> dict[str, str]:
        """The extensions the ported trees rename, each one way (``.cu`` -> ``.mu``)."""
        return {e: new for e, new in self._exts.items() if new}

    def _new_ext(self, ext: str) -> str | None:
        """What files with ``ext`` become, when every tree agrees (.cu -> .mu)."""
        seen = {posixpath.splitext(v)[1] for t in self.trees for k, v in t.files.items()
                if k.endswith(ext) and posixpath.basename(k) != posixpath.basename(v)}
        return seen.pop() if len(seen) == 1 else None

    def rewrite(self, text: str, bases: Sequence[str]) -> str | None:
        """``text`` rewritten into the ported tree it names, or None. ``bases`` are the
        folders a relative path may be relative to, in order."""
        if _NOT_A_PATH.search(text) or "://" in text or len(text) > 1024:
            return None
        slash = text.endswith("/") and len(text) > 1
        body = text.rstrip("/") if slash else text
        for base in bases:
            new = self._rewrite_from(body, base)
            if new is not None:
                return new + ("/" if slash else "")
        if "/" not in body and _GLOB.search(body):
            return self._bare_pattern(body)
        return None

    def _bare_pattern(self, pattern: str) -> str | None:
        """``"*.cu"`` alone (joined to a folder elsewhere): follow the extension."""
        root, ext = posixpath.splitext(pattern)
        new = self._exts.get(ext)
        return root + new if new and not _GLOB.search(ext) else None

    def _rewrite_from(self, text: str, base: str) -> str | None:
        joined = posixpath.normpath(posixpath.join(base, text))
        if joined == ".":
            joined = ""
        if joined == ".." or joined.startswith("../"):
            return None
        for t in self.trees:
            inner = _under(joined, t.src)
            if inner is None:
                continue
            if _GLOB.search(text):
                new_inner = _map_glob(t, inner, self._exts)
            elif inner in t.files:
                new_inner = t.files[inner]
            elif inner == "" or inner in t.dirs:
                new_inner = inner
            else:
                return None
            if new_inner is None or (new_inner == inner and t.src == t.out):
                return None
            return _rebuild(text, _split(joined), _split(posixpath.join(t.out, new_inner)))
        return None


def _split(path: str) -> list[str]:
    return [c for c in path.split("/") if c not in ("", ".")]


def _under(path: str, folder: str) -> str | None:
    """``path`` relative to ``folder`` when it is inside it (or is it)."""
    if not folder:
        return path
    if path == folder:
        return ""
    if path.startswith(folder + "/"):
        return path[len(folder) + 1:]
    return None


def _rebuild(text: str, old: list[str], new: list[str]) -> str | None:
    """Apply the component changes old -> new to ``text``, whose last components are
    the last components of ``old`` (what comes before them is the base folder)."""
    if len(old) != len(new):
        return None
    comps = text.split("/")
    tail = 0  # plain components at the end of text, which line up with old's end
    for c in reversed(comps):
        if c in ("", ".", ".."):
            break
        tail += 1
    if any(c == ".." for c in comps[len(comps) - tail:]):
        return None
    offset = len(comps) - len(old)  # comps index = old index + offset
    for i, (a, b) in enumerate(zip(old, new)):
        if a == b:
            continue
        j = i + offset
        if j < len(comps) - tail:
            return None  # the change is in the base folder: the text cannot say it
        comps[j] = b
    return "/".join(comps)


def _map_glob(t: PortedTree, pattern: str, exts: Mapping[str, str | None]) -> str | None:
    """A glob over the tree: its extension follows when the files it matches were
    renamed (``**/*.cu`` -> ``**/*.mu``), and so does the folder it starts from
    (``csrc/cuda/*.cu`` -> ``csrc/musa/*.mu`` when the port renamed the folder)."""
    rx = _glob_regex(pattern)
    matched = [k for k in t.files if rx.fullmatch(k)]
    if not matched:
        return None  # not the port's files (an ignored folder, another extension)
    head, last = posixpath.split(pattern)
    comps = head.split("/") if head else []
    plain = next((i for i, c in enumerate(comps) if _GLOB.search(c)), len(comps))
    folder = "/".join(comps[:plain])
    if folder and t.files.get(folder, folder) != folder:
        head = "/".join([t.files[folder], *comps[plain:]])
    root, ext = posixpath.splitext(last)
    new_ext = exts.get(ext)
    if ext and new_ext and not _GLOB.search(ext) and all(
            posixpath.splitext(t.files[k])[1] == new_ext for k in matched):
        return posixpath.join(head, root + new_ext)
    return posixpath.join(head, last)


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """glob's matching for one pattern (``**`` spans folders, as with recursive=True)."""
    out = []
    comps = pattern.split("/")
    for n, comp in enumerate(comps):
        last = n == len(comps) - 1
        if comp == "**":
            out.append(".*" if last else "(?:[^/]+/)*")
            continue
        i = 0
        while i < len(comp):
            c = comp[i]
            if c == "*":
                out.append("[^/]*")
            elif c == "?":
                out.append("[^/]")
            elif c == "[":
                j = comp.find("]", i + 2)
                if j < 0:
                    out.append(re.escape(c))
                else:
                    inner = comp[i + 1:j]
                    out.append("[" + ("^" + inner[1:] if inner.startswith("!") else inner) + "]")
                    i = j
            else:
                out.append(re.escape(c))
            i += 1
        if not last:
            out.append("/")
    return re.compile("".join(out))


def with_folders(files: Mapping[str, str]) -> dict[str, str]:
    """``files`` (source path -> output path) with each folder's output path too, read
    off the files in it (``csrc/cuda/a.cu -> csrc/musa/a.mu`` gives ``csrc/cuda ->
    csrc/musa``): a manifest records files only."""
    out = dict(files)
    for src, dst in files.items():
        a, b = src.split("/")[:-1], dst.split("/")[:-1]
        if len(a) != len(b):
            continue
        for i in range(1, len(a) + 1):
            out.setdefault("/".join(a[:i]), "/".join(b[:i]))
    return out


def tree_of_port(out_rel_of: Mapping[str, str], dirs: Sequence[str] = ()) -> PortedTree:
    """The tree being ported by ``musa-port`` itself: files keep their folders."""
    return PortedTree("", "", dict(out_rel_of), frozenset(dirs))
