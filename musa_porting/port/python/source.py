"""Porting one Python file: bytes in, bytes, edits and findings out.

The file is searched for what may need porting (``torch.cuda``, ``.cuda(``, device
strings, ``cpp_extension``...); most files have none and cost one regex search. Each
logical line that has something is parsed (CPython's ``ast``) and rewritten by its tree
(``statement``), or, when it does not parse, by text rules (``fallback``) with a
finding. Every byte outside the rewritten nodes is kept: comments, docstrings,
formatting, line ends, encoding.
"""

from __future__ import annotations

import _symtable
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from ...analyze import python_findings as pf
from ...analyze.checks import Diagnostic
from ...rules.vocabulary import Vocabulary, build_vocabulary
from ..engine import Edit, Matcher, rewrite
from ..lines import Lines
from . import launch as launch_mod
from .context import RewriteContext
from .fallback import fallback_matcher
from .lexer import COMMENT, FSTRING, STRING, Lexed, coding_cookie, lex, readable_encoding, source_encoding
from .names import (
    EXTENSION_MODULE,
    EXTENSION_QUALIFIED,
    LAUNCH,
    NEEDS_TORCH_MUSA,
    distributed_names,
    extension_modules,
    torch_musa_names,
)
from .paths import PathMap
from .suspect import may_not_parse

if TYPE_CHECKING:  # built by the run (tree/python_run.py); porting does not need it loaded
    from .modules import ModuleTree

# What makes a logical line worth parsing: in code (or inside an f-string's braces)...
_CODE = [
    rb"\btorch(?:\s|\\)*\.(?:\s|\\)*(?:cuda|backends\s*\.\s*cudnn|utils\s*\.\s*cpp_extension"
    rb"|version\s*\.\s*cuda|backends\s*\.\s*cuda)\b",
    rb"\.\s*cuda\s*\(", rb"\bis_cuda\b", rb"\bcpp_extension\b",
    rb"\b(?:CUDAExtension|CUDA_HOME|CUDNN_HOME|_find_cuda_home)\b",
    rb"\bimport\s[^\n]*\b(?:cuda|cudnn)\b",
    rb"\b(?:cupyx?|pycuda|numba)\b", rb"\btriton\s*\.\s*(?:jit|autotune|heuristics)\b",
    rb"\bis_nccl_available\b", rb"\bBackend\s*\.\s*NCCL\b",
    rb"\b(?:import|from)\s[^\n]*\bpynvml\b",
]
# ... or in a string literal.
_STRINGS = [
    rb"""['"]cuda(?::[^'"\n]*)?['"]""", rb"""['"](?:nccl|nvcc)['"]""",
    rb"CUDA_VISIBLE_DEVICES", rb"(?<![\w-])(?:nvidia-smi|nvcc)(?![\w-])",
    rb"""lib(?:cu|nccl)\w*\.(?:so|a)[.\d]*['"]""",  # a CUDA library's file name
    rb"""['"]-(?:-?gencode|arch|-gpu-architecture|-generate-code)\b""",  # nvcc's arch flags
]
# Literal text every candidate above contains: found first (one cheap scan), so that
# the patterns only run on the few lines that have one.
_ANCHORS = [b"cud", b"CUDA", b"cpp_ext", b"cupy", b"numba", b"triton", b"nccl",
            b"NCCL", b"nvcc", b"nvidia-smi", b"libcu", b"gencode", b"-arch", b"-architecture",
            b"-generate-code", b"pynvml"]
_EMPTY_MATCHER = Matcher({})
_CPP_EXTENSION = re.compile(rb"\bcpp_extension\b")
# torch_musa's BuildExtension through torch's module (ext.BuildExtension): searched only in
# files that name cpp_extension, not by every file's scan.
_QUALIFIED_BUILD = re.compile(rb"\.[ \t]*BuildExtension\b")


@dataclass(frozen=True)
class PythonRules:
    """What a run ports Python files with: built once, used for every file."""

    renames: Mapping[str, str]  # whole identifiers (user rules, project symbols)
    paths: PathMap | None  # ported trees that string paths follow
    names: frozenset[str]  # torch.musa's public names
    vocabulary: Vocabulary
    anchors: re.Pattern[bytes]
    candidates: re.Pattern[bytes]
    fallback: Matcher
    arches: tuple[str, ...] = ("mp_22",)  # --arch
    modules: ModuleTree | None = None  # the tree's Python modules, when it renamed some

    def hits(self, data: bytes) -> list[re.Match[bytes]]:
        """The candidates of ``data``, searched on the lines that hold an anchor and the
        line before each (``torch`` may end the line before ``.cuda``)."""
        out: list[re.Match[bytes]] = []
        done = 0  # end of the last line searched
        for a in self.anchors.finditer(data):
            if a.start() < done:
                continue
            ls = data.rfind(b"\n", 0, max(data.rfind(b"\n", 0, a.start()), 0)) + 1
            le = data.find(b"\n", a.end())
            before, done = done, len(data) if le < 0 else le
            out.extend(m for m in self.candidates.finditer(data, ls, done) if m.end() > before)
        return out


def python_rules(renames: Mapping[str, str] | None = None,
                 paths: PathMap | None = None, arches: tuple[str, ...] = ("mp_22",),
                 modules: ModuleTree | None = None) -> PythonRules:
    """The rules for a run. ``renames`` maps whole identifiers (old -> new): applied to
    attribute names, imported names and strings that are exactly the name. This is
    where the project-symbol renames of the C++ side reach Python. ``modules``: the
    tree's Python modules, whose imports follow their renames."""
    renames = dict(renames or {})
    vocab = _vocabulary()
    code = list(_CODE)
    strings = list(_STRINGS)
    anchors = list(_ANCHORS)
    words = sorted({w.cuda for w in vocab.words.values() if w.enabled}, key=len, reverse=True)
    if words:  # an environment variable's name with a CUDA word in it (FORCE_CUDA)
        strings.append(rb"""['"][A-Z0-9_]*(?:""" + "|".join(words).encode() + rb""")[A-Z0-9_]*['"]""")
        anchors += [w.encode() for w in words]
    if renames:
        keys = "|".join(re.escape(k) for k in sorted(renames, key=len, reverse=True)).encode()
        code.append(rb"(?<![\w])(?:" + keys + rb")(?![\w])")
        strings.append(rb"""['"](?:-D)?(?:""" + keys + rb""")(?:=[^'"]*)?['"]""")
        anchors += [k.encode() for k in renames]
    if modules is not None and not modules.renamed:
        modules = None
    if modules is not None:  # a renamed module's name, in code or in a module string
        words = "|".join(re.escape(w) for w in modules.words()).encode()
        code.append(rb"(?<![\w])(?:" + words + rb")(?![\w])")
        strings.append(rb"""['"][\w.]*(?<![\w])(?:""" + words + rb""")(?![\w])[\w.]*['"]""")
        anchors += [w.encode() for w in modules.words()]
    if paths is not None and paths.trigger():
        strings.append(paths.trigger().encode())
        anchors += [a.encode() for a in paths.anchors()]
    candidates = re.compile(b"(?P<code>" + b"|".join(code) + b")|(?P<str>"
                            + b"|".join(strings) + b")")
    anchor_re = re.compile(b"|".join(re.escape(a) for a in sorted(set(anchors), key=len,
                                                                   reverse=True)))
    return PythonRules(renames, paths, torch_musa_names(), vocab, anchor_re, candidates,
                       fallback_matcher(renames), tuple(arches), modules)


@lru_cache(maxsize=1)
def _vocabulary() -> Vocabulary:
    return build_vocabulary()


@dataclass
class PythonPort:
    """One ported Python file."""

    data: bytes
    edits: list[Edit]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    warnings: list[tuple[int, str]] = field(default_factory=list)  # (line, message)

    @property
    def by_family(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for e in self.edits:
            fam = getattr(e.rule, "family", "python")
            out[fam] = out.get(fam, 0) + 1
        return out

    @property
    def by_rule(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for e in self.edits:
            key = getattr(e.rule, "key", e.old)
            out[key] = out.get(key, 0) + 1
        return out


def port_python(data: bytes, rules: PythonRules, *, bases: Sequence[str] = ("",),
                launch: bool = False, module: str = "") -> PythonPort:
    """Port one Python file. ``bases`` are the folders (relative to the root the path
    map uses) that relative path strings may start from; ``launch`` makes it a launch
    file, which gets ``import torch_musa``; ``module`` is its path in the tree of
    ``rules.modules`` (imports resolve from it)."""
    hits = rules.hits(data)
    if not hits and not launch:
        return PythonPort(data, [])
    lx = lex(data)
    statements: dict[tuple[int, int], None] = {}
    last = (0, 0)  # hits come in file order: one in the last statement found needs no search
    for m in hits:
        i = lx.span_at(m.start())
        kind = lx.kinds[i] if i >= 0 else None
        if (m.lastgroup == "code" and kind in (None, FSTRING) or
                m.lastgroup == "str" and kind in (STRING, FSTRING)) and \
                not last[0] <= m.start() < last[1]:
            last = lx.statement(m.start())
            statements.setdefault(last)
    encoding = source_encoding(data)
    paths = rules.paths
    cpp_extension = b"cpp_extension" in data and _CPP_EXTENSION.search(data) is not None
    if cpp_extension and b"BuildExtension" in data:
        for m in _QUALIFIED_BUILD.finditer(data):
            if lx.in_code(m.start()):
                statements.setdefault(lx.statement(m.start()))
        statements = dict.fromkeys(sorted(statements))
    ctx = RewriteContext(rules.names, rules.renames, rules.vocabulary,
                         cpp_extension=cpp_extension,
                         map_path=(lambda s: paths.rewrite(s, bases)) if paths is not None else None,
                         arches=rules.arches, distributed=distributed_names(data),
                         modules=rules.modules if module else None, module_file=module)
    if cpp_extension:
        ctx.extension_modules = extension_modules(data)
        ctx.extension_star = launch_mod.imports_module(lx, EXTENSION_MODULE, star=True)
    fixed: list[tuple[int, int, bytes, object]] = []
    found: list[tuple[int, pf.PyFinding]] = []
    warnings: list[tuple[int, str]] = []
    needs: list[int] = []  # statements that take an attribute torch_musa sets
    qualified: list[int] = []  # statements that name torch_musa's extension module
    for start, end in statements:
        _port_one(lx, start, end, encoding, ctx, rules.fallback, fixed, found, needs, qualified)
    if qualified and not launch_mod.imports_module(lx, EXTENSION_MODULE):
        # `import torch_musa.utils.musa_extension` imports torch_musa too
        _add_import(lx, f"import {EXTENSION_MODULE}", qualified + needs, EXTENSION_QUALIFIED, fixed)
    elif (launch or needs) and not launch_mod.imports_torch_musa(lx):
        if not _add_import(lx, launch_mod.LINE, needs, LAUNCH, fixed):
            warnings.append((1, "launch file without 'import torch': add 'import torch_musa' "
                                "before the script uses the musa device"))
    if not any(f.id == "MP4007" for _, f in found) and may_not_parse(lx, encoding):
        broken = _unreadable_encoding(data) or _syntax_error(data)
        if broken is not None:
            found.append((broken[0], pf.file_not_parsed(broken[1])))
    result = rewrite(data, _EMPTY_MATCHER, fixed=fixed)
    return PythonPort(result.data, result.edits, _place(data, result.data, result.edits, found),
                      warnings)


def _add_import(lx: Lexed, line: str, needs: list[int], rule, fixed: list) -> bool:
    """``line`` (an import) after the file's first ``import torch``, or before the first
    of the statements that ``needs`` it when that comes first; False when neither."""
    spot = launch_mod.insertion(lx, line)
    if needs and (spot is None or spot[0] > min(needs)):
        spot = launch_mod.before(lx, min(needs), line)  # the import that needs it comes first
    if spot is None:
        return False
    fixed.insert(0, (spot[0], spot[0], spot[1], rule))
    return True


def _port_one(lx: Lexed, start: int, end: int, encoding: str, ctx: RewriteContext,
              fallback: Matcher, fixed: list, found: list, needs: list,
              qualified: list) -> None:
    """Port the logical line [start, end): edits go to ``fixed``, findings to ``found``,
    the statement's offset to ``needs``/``qualified`` when an import must come before it."""
    from .statement import NotParsed, port_statement

    data = lx.data
    first = start
    while first < end and data[first:first + 1] in (b" ", b"\t", b"\f"):
        first += 1
    raw = data[first:end]
    try:
        text = raw.decode(encoding)
        res = port_statement(text, ctx, header=_ends_with_colon(lx, first, end),
                             indent=data[start:first].decode("ascii"))
    except (UnicodeError, LookupError):
        res = None
        reason = f"it is not valid {encoding}"
    except NotParsed as exc:
        res = None
        reason = str(exc)
    if res is None:
        comments = [(max(s, first) - first, min(e, end) - first)
                    for s, e, k in zip(lx.starts, lx.ends, lx.kinds)
                    if k == COMMENT and s < end and e > first]
        for e in rewrite(raw, fallback, excluded=comments).edits:
            fixed.append((first + e.start, first + e.end,
                          e.new.encode("utf-8", "surrogateescape"), e.rule))
        found.append((first, pf.not_parsed(reason)))
        return
    ascii_text = raw.isascii()
    if any(rule in NEEDS_TORCH_MUSA for _, _, _, rule in res.edits):
        needs.append(first)
    if any(rule is EXTENSION_QUALIFIED for _, _, _, rule in res.edits):
        qualified.append(first)
    for s, e, new, rule in res.edits:
        bs, be = (s, e) if ascii_text else (len(text[:s].encode(encoding)),
                                            len(text[:e].encode(encoding)))
        fixed.append((first + bs, first + be, new.encode(encoding, "surrogateescape")
                      if encoding == "utf-8" else new.encode(encoding), rule))
    for off, f in res.findings:
        found.append((first + (off if ascii_text else len(text[:off].encode(encoding))), f))


def _unreadable_encoding(data: bytes) -> tuple[int, str] | None:
    """Where and why the file declares an encoding CPython cannot read source in."""
    cookie = coding_cookie(data)
    if cookie is None or readable_encoding(cookie[0]) is not None:
        return None
    line = data.count(b"\n", 0, cookie[1]) + 1
    return cookie[1], (f"line {line}: its coding cookie names '{cookie[0]}', which is not an "
                       "encoding Python reads source files in")


def _syntax_error(data: bytes) -> tuple[int, str] | None:
    """Where and why the whole file does not parse as Python 3 (CPython's own parser, in
    C: a Python 2 file, a string never closed, tabs mixed with spaces), or None. The
    statements are ported one by one, each parsed alone, so only this says the file as
    a whole is broken. The parser and the symbol table, without the byte-code compiler:
    a fifth cheaper than compile(), and a misplaced ``return`` still parses."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "invalid escape sequence" and such: not ours to say
            _symtable.symtable(data, "<file>", "exec")
    except SyntaxError as exc:
        line = exc.lineno or 1
        offset = 0
        for _ in range(line - 1):
            nl = data.find(b"\n", offset)
            if nl < 0:
                break
            offset = nl + 1
        return offset, f"line {line}: {exc.msg}"
    except ValueError as exc:  # NUL bytes, on older Pythons
        return 0, str(exc)
    except (RecursionError, MemoryError):  # CPython cannot compile it either (a 5,000-term
        return 0, "it is nested too deeply for CPython to compile"  # sum; 200 open brackets)
    return None


def _ends_with_colon(lx: Lexed, start: int, end: int) -> bool:
    """The logical line's code ends with ':' (a compound statement's header)."""
    data = lx.data
    pos = end
    while pos > start:
        c = data[pos - 1:pos]
        if c in (b"\n", b"\r", b" ", b"\t", b"\f"):
            pos -= 1
            continue
        i = lx.span_at(pos - 1)
        if i >= 0 and lx.kinds[i] == COMMENT:
            pos = lx.starts[i]
            continue
        return c == b":"
    return False


def _place(src: bytes, out: bytes, edits: list[Edit],
           found: list[tuple[int, pf.PyFinding]]) -> list[Diagnostic]:
    """Findings at their place in the ported file and in the original (1-based). In
    file order, the edits before each finding are summed once for all (per finding,
    the sum cost findings x edits)."""
    diags = []
    by_end = sorted(edits, key=lambda e: e.end)
    src_lines, out_lines = Lines(src), Lines(out)
    shift, done = 0, 0
    for off, f in sorted(found, key=lambda x: x[0]):
        while done < len(by_end) and by_end[done].end <= off:
            e = by_end[done]
            shift += len(e.new.encode("utf-8", "surrogateescape")) - (e.end - e.start)
            done += 1
        sline, scol = src_lines.position(off)
        line, col = out_lines.position(off + shift)
        diags.append(Diagnostic(f.id, f.text, line, col, sline, scol, f.message))
    diags.sort(key=lambda d: (d.line, d.column, d.id))
    return diags
