"""The libclang back end of the symbol index (``--symbols clang``).

Each C/C++/CUDA source of the tree is parsed as a translation unit with the include
folders and macros the user gives (``-I``, ``-D``, ``--compile-commands``), and every
declaration that is a definition is recorded in the tree file that spells it. Clang
sees what a lexer cannot: a name defined by a macro expansion
(``DECLARE_GLOBAL(int, cuda_counter)``), a template parameter, a definition behind
attributes or macros. A header is indexed from the translation units that include
it. A file whose own lines have errors (a missing include, say) is indexed by the
lexer instead, and its note says why; errors inside headers outside the tree are not
the file's fault and do not count.

libclang (``pip install 'musa-port[clang]'``) needs clang's resource headers
(``stddef.h`` and the rest): ``$MUSA_PORT_CLANG_RESOURCE_DIR``, the system clang's
``clang -print-resource-dir``, or the ones the ``clang-tidy`` wheel ships.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from ..errors import PortError
from ..safe_open import read_regular
from .symbols import Definition, FileSymbols, scan_lexer
from .word_finder import WordFinder

SOURCE_EXTS = (".cu", ".mu", ".cpp", ".cc", ".cxx", ".c")
CUDA_EXTS = (".cu", ".mu")
INSTALL_HINT = ("pip install 'musa-port[clang]' (libclang and clang's resource headers), or "
                "install clang (apt install clang) and put it on PATH")


def resource_dir() -> str:
    """clang's resource folder (the one holding ``include/stddef.h``)."""
    env = os.environ.get("MUSA_PORT_CLANG_RESOURCE_DIR")
    candidates = [env] if env else []
    clang = shutil.which("clang")
    if clang:
        try:
            out = subprocess.run([clang, "-print-resource-dir"], capture_output=True, text=True,
                                 timeout=30).stdout.strip()
            candidates.append(out)
        except (OSError, subprocess.SubprocessError):
            pass  # a broken clang on PATH: try the wheel
    # The clang-tidy wheel's headers, found without importing it: its __init__ needs
    # pkg_resources in some releases (16.0.4), which a venv without setuptools lacks.
    try:
        spec = importlib.util.find_spec("clang_tidy")
    except (ImportError, ValueError):
        spec = None  # no clang-tidy wheel
    for root in (spec.submodule_search_locations or []) if spec else []:
        base = Path(root) / "data" / "lib" / "clang"
        candidates += [str(p) for p in sorted(base.iterdir(), reverse=True)] if base.is_dir() else []
    for c in candidates:
        if c and (Path(c) / "include" / "stddef.h").is_file():
            return c
    raise PortError("--symbols clang: clang's resource headers (stddef.h) not found; " + INSTALL_HINT)


def _cindex():
    try:
        import clang.cindex as ci  # type: ignore[import-not-found]
    except ImportError:
        raise PortError("--symbols clang: libclang is not installed; " + INSTALL_HINT) from None
    try:
        ci.Index.create()
    except Exception as exc:  # libclang.so missing or unloadable
        raise PortError(f"--symbols clang: libclang does not load ({exc}); " + INSTALL_HINT) from None
    return ci


class ClangIndexer:
    """Parses translation units on demand and answers per file."""

    def __init__(self, src: str, include_dirs: Sequence[str], defines: Sequence[str],
                 compile_commands: str | None):
        self.ci = _cindex()
        self.resource = resource_dir()
        self.src = Path(src).resolve()
        self.index_ = self.ci.Index.create()
        self.flags = []
        for d in include_dirs:
            p = Path(d)
            if not p.is_dir() and (self.src / d).is_dir():
                p = self.src / d
            self.flags.append(f"-I{p.resolve()}")
        self.flags += [f"-D{d}" for d in defines]
        self.commands, self.dropped = _load_commands(compile_commands) if compile_commands \
            else ({}, [])
        self._defs: dict[str, list[Definition]] = {}  # tree file -> definitions seen so far
        self._parsed: set[str] = set()
        self._failed: dict[str, str] = {}  # tree file -> first error in it

    def _args(self, path: Path) -> list[str]:
        args = self.commands.get(str(path))
        if args is None:
            args = [*self.flags, "-std=c++17"]
        lang = []
        if path.suffix in CUDA_EXTS:
            cuda = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
            lang = ["-x", "cuda", "--cuda-host-only", "-nocudalib", "-Wno-unknown-cuda-version"]
            lang += [f"--cuda-path={cuda}"] if Path(cuda, "include", "cuda_runtime.h").is_file() \
                else ["-nocudainc"]
        elif path.suffix in (".h", ".hh", ".hpp", ".hxx", ".cuh", ".muh", ".inl", ".inc"):
            lang = ["-x", "c++-header"]
        return [*lang, *args, f"-resource-dir={self.resource}"]

    def parse(self, rel: str) -> None:
        """Parse one file as a translation unit; record the definitions of every tree
        file it reaches, and the errors in each."""
        if rel in self._parsed:
            return
        self._parsed.add(rel)
        ci = self.ci
        path = self.src / rel
        try:
            tu = self.index_.parse(str(path), args=self._args(path),
                                   options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
        except ci.TranslationUnitLoadError as exc:
            self._failed[rel] = f"libclang could not parse it ({exc})"
            return
        for d in tu.diagnostics:
            if d.severity >= ci.Diagnostic.Error and d.location.file is not None:
                tree_rel = self._tree_rel(d.location.file.name)
                if tree_rel is not None:
                    self._failed.setdefault(tree_rel, f"{d.location.line}: {d.spelling}")
        seen: set[tuple[str, str]] = set()
        todo = list(tu.cursor.get_children())
        while todo:
            c = todo.pop()
            loc = c.location
            tree_rel = self._tree_rel(loc.file.name) if loc.file is not None else None
            if tree_rel is None:
                continue  # outside the tree (torch, CUDA, the C library): not ours
            todo.extend(c.get_children())
            kind = _kind(ci, c) if c.spelling else None
            if kind is None or (tree_rel, c.spelling) in seen:
                continue
            seen.add((tree_rel, c.spelling))
            if any(d.name == c.spelling for d in self._defs.get(tree_rel, ())):
                continue  # the same header, reached again through another source
            line, col = _spelling_site(loc.file.name, loc.line, loc.column, c.spelling)
            self._defs.setdefault(tree_rel, []).append(Definition(c.spelling, kind, line, col))

    def parse_all(self, rels: Sequence[str], jobs: int | None) -> None:
        """Parse these translation units, in ``jobs`` forked workers: each worker sends
        back what it found, which is merged in order, as parsing them here would."""
        from ..tree.parallel import map_forked

        todo = [r for r in rels if r not in self._parsed]
        for defs, failed in map_forked(self._parse_one, todo, jobs)():
            for rel, found in defs.items():
                have = {d.name for d in self._defs.get(rel, ())}
                self._defs.setdefault(rel, []).extend(d for d in found if d.name not in have)
            for rel, why in failed.items():
                self._failed.setdefault(rel, why)
        self._parsed.update(todo)

    def _parse_one(self, rel: str):
        """One unit parsed alone (in a worker): its definitions and errors per tree file."""
        self._defs, self._failed, self._parsed = {}, {}, set()
        try:
            self.parse(rel)
        except Exception as exc:  # noqa: BLE001 - a bug on one unit: that unit is not indexed
            if os.environ.get("MUSA_PORT_DEBUG"):
                raise
            self._failed[rel] = " ".join(f"musa-port failed on it: {type(exc).__name__}: {exc}".split())
        return self._defs, self._failed

    def _tree_rel(self, name: str) -> str | None:
        p = Path(name).resolve()
        try:
            return p.relative_to(self.src).as_posix()
        except ValueError:
            return None

    def index(self, rel: str, data: bytes, words: WordFinder, target: WordFinder,
              tree_sources: Sequence[str] = ()) -> FileSymbols:
        """``rel``'s definitions with a vocabulary word, from clang. A header is parsed
        through the sources of the tree (``tree_sources``) before on its own."""
        lexed = scan_lexer(data, words, target)  # the names it holds, and a fallback
        if Path(rel).suffix in SOURCE_EXTS:
            self.parse(rel)
        else:
            for s in tree_sources:
                self.parse(s)
            if rel not in self._defs:
                self.parse(rel)
        if rel in self._failed:
            lexed.note = f"clang: {self._failed[rel]}; indexed by the lexer"
            return lexed
        defs = [d for d in self._defs.get(rel, []) if words.vocabulary.rename(d.name) is not None]
        return FileSymbols(sorted(defs, key=lambda d: (d.line, d.column)), lexed.taken,
                           exported=lexed.exported, uses=lexed.uses)


def _kind(ci, c) -> str | None:
    K = ci.CursorKind
    kinds = {
        K.MACRO_DEFINITION: "macro", K.NAMESPACE: "namespace", K.NAMESPACE_ALIAS: "namespace",
        K.ENUM_CONSTANT_DECL: "enumerator", K.TYPEDEF_DECL: "typedef", K.TYPE_ALIAS_DECL: "alias",
        K.TYPE_ALIAS_TEMPLATE_DECL: "alias", K.FIELD_DECL: "variable", K.PARM_DECL: "variable",
        K.TEMPLATE_NON_TYPE_PARAMETER: "variable", K.TEMPLATE_TYPE_PARAMETER: "typedef",
    }
    if c.kind in kinds:
        return kinds[c.kind]
    defined = {
        K.FUNCTION_DECL: "function", K.CXX_METHOD: "function", K.FUNCTION_TEMPLATE: "function",
        K.CONSTRUCTOR: None, K.DESTRUCTOR: None, K.VAR_DECL: "variable", K.STRUCT_DECL: "struct",
        K.CLASS_DECL: "class", K.UNION_DECL: "union", K.ENUM_DECL: "enum", K.CLASS_TEMPLATE: "class",
    }
    if c.kind in defined and c.is_definition():
        return defined[c.kind]
    return None


def _spelling_site(path: str, line: int, column: int, name: str) -> tuple[int, int]:
    """Where ``name`` is spelled near clang's location (a macro expansion's location is
    the macro's name; the defined name is an argument further on the line)."""
    try:
        with open(path, "rb") as fh:
            lines = fh.read().split(b"\n")
        text = lines[line - 1]
    except (OSError, IndexError):
        return line, column
    i = text.find(name.encode(), column - 1)
    return (line, i + 1) if i >= 0 else (line, column)


# compile_commands.json comes with the tree: its flags reach libclang only through
# this allow-list (-MD -MF ~/.bashrc made libclang write a depfile there). Flags that
# take a value as the next argument, and -f/-W flags that name files or load code.
_WITH_VALUE = ("-I", "-D", "-U", "-isystem", "-include", "-x")
_PATH_VALUE = ("-I", "-isystem", "-include")
_F_OR_W = re.compile(r"-[fW][A-Za-z0-9][\w+-]*(?:=[\w.+,:-]*)?")
_F_DENIED = re.compile(r"plugin|profile|module|time-trace|save|record|crash|dump|file|path|"
                       r"dir|map|list|output|xray|proc-stat|instrument|embed")


def _allowed(flag: str, value: str | None) -> bool:
    if flag in _WITH_VALUE:
        return value is not None
    if flag.startswith("-std="):
        return True
    if flag.startswith(("-I", "-D", "-U", "-isystem", "-x")):
        return True  # joined: -Ifoo, -DX=1
    return bool(_F_OR_W.fullmatch(flag)) and not _F_DENIED.search(flag)


def _load_commands(path: str) -> tuple[dict[str, list[str]], list[str]]:
    """compile_commands.json: each file's flags that libclang may see (see _allowed),
    and the flags dropped (the compiler, -c, -o and the input go without a word)."""
    import json

    try:
        entries = json.loads(read_regular(path, follow=True).decode("utf-8"))
    except (OSError, ValueError) as exc:
        raise PortError(f"cannot read compile commands: {getattr(exc, 'strerror', None) or exc}",
                        path) from None
    out: dict[str, list[str]] = {}
    dropped: list[str] = []
    for e in entries if isinstance(entries, list) else []:
        if not isinstance(e, dict):
            continue
        directory = Path(str(e.get("directory", ".")))
        file = _resolved(directory, str(e.get("file", "")))
        if file is None:
            continue  # a NUL byte in it: no such file
        args = e.get("arguments") or _split(e.get("command", ""))
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            continue
        kept: list[str] = []
        i = 1
        while i < len(args):
            a = args[i]
            i += 1
            if a in ("-c", str(e.get("file"))) or Path(a).name == file.name:
                continue
            if a == "-o":
                i += 1
                continue
            value = None
            if a in _WITH_VALUE or a in ("-MF", "-MT", "-MQ", "-Xclang", "-Xpreprocessor"):
                value = args[i] if i < len(args) else None
                i += 1
            if not _allowed(a, value):
                if a not in dropped:
                    dropped.append(a)
                continue
            # A relative folder or file is relative to the entry's "directory".
            if value is not None and a in _PATH_VALUE and not os.path.isabs(value):
                value = str(_resolved(directory, value))
            for opt in ("-I", "-isystem"):
                if value is None and a.startswith(opt) and len(a) > len(opt) \
                        and not os.path.isabs(a[len(opt):]):
                    a = opt + str(_resolved(directory, a[len(opt):]))
            if "\0" in a or (value is not None and "\0" in value):
                continue  # no such path, and libclang would refuse the argument
            kept += [a] if value is None else [a, value]
        out[str(file)] = kept
    return out, dropped


def _resolved(directory: Path, path: str) -> Path | None:
    try:
        return (directory / path).resolve()
    except (ValueError, OSError):  # a NUL byte, a link loop
        return None


def _split(command: object) -> list[str]:
    try:
        return shlex.split(command) if isinstance(command, str) else []
    except ValueError:
        return []  # an unbalanced quote: no flags for that file
