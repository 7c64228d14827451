"""Integer constants of a C/C++ file, as far as a lexer can tell: object-like
``#define``s, ``constexpr``/``const`` integral variables, ``enum`` members, and C
integer expressions over them (``sizeof`` of builtin types included).

The hazard checks use it for sizes: a shared-memory tile ``[TILE][TILE + 1]``, a
block of ``THREADS`` threads. A name defined twice with different values (``WARP_SIZE``
64 for HIP, 32 for CUDA) has no value: the checks cannot tell which one is compiled.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping

# Bytes of builtin, CUDA and PyTorch types (LP64, as nvcc and mcc on Linux).
TYPE_SIZES = {
    **dict.fromkeys(("char", "signed char", "unsigned char", "int8_t", "uint8_t", "bool",
                     "char1", "uchar1", "__nv_fp8_e4m3", "__nv_fp8_e5m2", "__mt_fp8_e4m3",
                     "__mt_fp8_e5m2"), 1),
    **dict.fromkeys(("short", "unsigned short", "short int", "int16_t", "uint16_t", "half",
                     "__half", "__nv_bfloat16", "nv_bfloat16", "__mt_bfloat16", "mt_bfloat16",
                     "c10::Half", "at::Half", "c10::BFloat16", "at::BFloat16", "char2",
                     "uchar2"), 2),
    **dict.fromkeys(("int", "unsigned", "unsigned int", "signed", "signed int", "int32_t",
                     "uint32_t", "float", "half2", "__half2", "__nv_bfloat162",
                     "__mt_bfloat162", "char4", "uchar4", "short2", "ushort2", "wchar_t"), 4),
    **dict.fromkeys(("long", "unsigned long", "long int", "long long", "unsigned long long",
                     "long long int", "unsigned long long int", "int64_t", "uint64_t",
                     "size_t", "ptrdiff_t", "double", "float2", "int2", "uint2", "short4",
                     "ushort4", "intptr_t", "uintptr_t", "index_t", "int64"), 8),
    **dict.fromkeys(("float3", "int3", "uint3"), 12),
    **dict.fromkeys(("float4", "int4", "uint4", "double2", "long2", "ulong2", "longlong2",
                     "ulonglong2", "long double"), 16),
    **dict.fromkeys(("double3", "longlong3"), 24),
    **dict.fromkeys(("double4", "longlong4", "ulonglong4"), 32),
}


_TYPE_WORDS = frozenset(("int", "unsigned", "signed", "long", "short", "char", "size_t",
                         "int64_t", "uint64_t", "int32_t", "uint32_t", "const"))


class Unknown(Exception):
    """The expression holds a name or a construct with no known value."""


_TOKEN = re.compile(rb"\s*(?:(0[xX][0-9a-fA-F']+|0[bB][01']+|\d[\d']*)[uUlLzZ]*|"
                    rb"([A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)|"
                    rb"(<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%()<>&|^~!?:,]))")


@functools.lru_cache(maxsize=4096)
def _tokens(text: bytes) -> tuple[tuple[str, object], ...]:
    out: list[tuple[str, object]] = []
    pos, n = 0, len(text)
    while pos < n:
        m = _TOKEN.match(text, pos)
        if m is None:
            if text[pos:].strip():
                raise Unknown(text[pos:pos + 10])
            break
        pos = m.end()
        if m.group(1):
            out.append(("num", int(m.group(1).replace(b"'", b""), 0)))
        elif m.group(2):
            out.append(("name", re.sub(rb"\s+", b"", m.group(2)).decode()))
        else:
            out.append(("op", m.group(3).decode()))
    return tuple(out)


_BINARY = {"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6, "<": 7, ">": 7,
           "<=": 7, ">=": 7, "<<": 8, ">>": 8, "+": 9, "-": 9, "*": 10, "/": 10, "%": 10}


def _apply(op: str, a: int, b: int) -> int:
    if op in ("/", "%"):
        if b == 0:
            raise Unknown("division by zero")
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)  # C truncates
        return q if op == "/" else a - q * b
    if op in ("<<", ">>") and not 0 <= b < 128:
        raise Unknown("shift")
    return {"||": lambda: int(bool(a) or bool(b)), "&&": lambda: int(bool(a) and bool(b)),
            "|": lambda: a | b, "^": lambda: a ^ b, "&": lambda: a & b,
            "==": lambda: int(a == b), "!=": lambda: int(a != b), "<": lambda: int(a < b),
            ">": lambda: int(a > b), "<=": lambda: int(a <= b), ">=": lambda: int(a >= b),
            "<<": lambda: a << b, ">>": lambda: a >> b, "+": lambda: a + b,
            "-": lambda: a - b, "*": lambda: a * b}[op]()


class _Parser:
    """Precedence climbing over the tokens; names are looked up as they are met."""

    def __init__(self, tokens: tuple[tuple[str, object], ...], lookup: Callable[[str], int],
                 sizeof: Callable[[str], int]):
        self.t, self.i, self.lookup, self.sizeof = tokens, 0, lookup, sizeof

    def peek(self) -> tuple[str, object] | None:
        return self.t[self.i] if self.i < len(self.t) else None

    def take(self, value: object = None) -> tuple[str, object]:
        tok = self.peek()
        if tok is None or (value is not None and tok[1] != value):
            raise Unknown(f"expected {value}")
        self.i += 1
        return tok

    def expr(self, min_prec: int = 0) -> int:
        left = self.unary()
        while True:
            tok = self.peek()
            if tok is None or tok[0] != "op":
                return left
            if tok[1] == "?" and min_prec == 0:
                self.i += 1
                a = self.expr()
                self.take(":")
                b = self.expr()
                left = a if left else b
                continue
            prec = _BINARY.get(tok[1])  # type: ignore[arg-type]
            if prec is None or prec < min_prec:
                return left
            self.i += 1
            left = _apply(tok[1], left, self.expr(prec + 1))  # type: ignore[arg-type]

    def unary(self) -> int:
        kind, value = self.take()
        if kind == "num":
            return value  # type: ignore[return-value]
        if kind == "op":
            if value == "(":
                if self._c_cast():
                    return self.unary()
                v = self.expr()
                self.take(")")
                return v
            if value in ("-", "+", "~", "!"):
                v = self.unary()
                return {"-": -v, "+": v, "~": ~v, "!": int(not v)}[value]  # type: ignore[index]
            raise Unknown(value)
        name = str(value)
        if name == "sizeof":
            return self._sizeof()
        if name in ("static_cast", "int", "unsigned", "size_t", "long", "int64_t", "uint32_t"):
            return self._cast(name)
        if name in ("true", "false"):
            return int(name == "true")
        return self.lookup(name)

    def _c_cast(self) -> bool:
        """Skip ``int)`` of a C cast ``(int)x``, when the parenthesis holds a type."""
        j = self.i
        while j < len(self.t) and self.t[j][0] == "name" and self.t[j][1] in _TYPE_WORDS:
            j += 1
        if j > self.i and j < len(self.t) and self.t[j][1] == ")":
            self.i = j + 1
            return True
        return False

    def _sizeof(self) -> int:
        self.take("(")
        words: list[str] = []
        depth = 1
        while depth:
            kind, value = self.take()
            if value == "(":
                depth += 1
            elif value == ")":
                depth -= 1
                if not depth:
                    break
            words.append(str(value))
        return self.sizeof(" ".join(words))

    def _cast(self, name: str) -> int:
        if name == "static_cast":
            self.take("<")
            while self.take()[1] != ">":
                pass
        tok = self.peek()
        if tok is not None and tok[1] == "(":
            return self.unary()
        return self.lookup(name)


def evaluate(text: bytes | str, lookup: Callable[[str], int] | Mapping[str, int],
             sizeof: Callable[[str], int] | None = None) -> int:
    """The value of a C integer expression; raises Unknown."""
    data = text.encode() if isinstance(text, str) else text
    get = lookup.__getitem__ if isinstance(lookup, Mapping) else lookup

    def find(name: str) -> int:
        try:
            return get(name)
        except KeyError:
            raise Unknown(name) from None

    p = _Parser(_tokens(data), find, sizeof or type_size)
    value = p.expr()
    if p.peek() is not None:
        raise Unknown("trailing tokens")
    return value


def type_size(name: str) -> int:
    """Bytes of a builtin type (``unsigned long long``), or Unknown."""
    key = " ".join(name.replace("const", " ").replace("volatile", " ").split())
    if key in TYPE_SIZES:
        return TYPE_SIZES[key]
    if key.endswith("*"):
        return 8
    raise Unknown(name)


_INT_TYPE = (rb"(?:(?:unsigned|signed)\s+)?(?:long\s+long|long|int|short|char|size_t|u?int\d+_t|"
             rb"index_t|auto|unsigned|bool)(?:\s+int)?")
_DEFINE = re.compile(rb"#[ \t]*define[ \t]+([A-Za-z_]\w*)(?![\w(])[ \t]*((?:[^\n\\]|\\\r?\n|\\)*)")
CONST_DECL = re.compile(
    rb"\b(?:constexpr|const)\s+(?:(?:static|const|constexpr|__device__|__constant__|__host__)\s+)*"
    rb"(" + _INT_TYPE + rb")\s+(?:const\s+)?([A-Za-z_]\w*)\s*(?:=\s*([^;{}]+?)|\{([^;{}]+)\})\s*[;,]"
    rb"|\b(" + _INT_TYPE + rb")\s+const\s+([A-Za-z_]\w*)\s*=\s*([^;{}]+?)\s*;")
_ENUM = re.compile(rb"\benum\b[^{;()]*\{([^{}]*)\}")


class Constants:
    """The integer constants one file defines, evaluated on demand.

    ``code`` is the file with comments and strings blanked (``analyze/code_view``), so
    that a ``#define`` in a comment defines nothing.
    """

    def __init__(self, code: bytes):
        self.exprs: dict[str, list[bytes]] = {}
        if b"define" in code:
            for m in _DEFINE.finditer(code):
                value = m.group(2).replace(b"\\\r\n", b" ").replace(b"\\\n", b" ").strip()
                if value:
                    self.exprs.setdefault(m.group(1).decode(), []).append(value)
        if b"const" in code:
            for m in CONST_DECL.finditer(code):
                if m.group(2):
                    name, expr = m.group(2), m.group(3) or m.group(4)
                else:
                    name, expr = m.group(6), m.group(7)
                self.exprs.setdefault(name.decode(), []).append(expr)
        if b"enum" in code:
            for m in _ENUM.finditer(code):
                self._enum(m.group(1))
        self._values: dict[str, int | None] = {}
        self._busy: set[str] = set()

    def _enum(self, body: bytes) -> None:
        prev: bytes | None = None
        for item in body.split(b","):
            name, _, expr = item.partition(b"=")
            name = name.strip()
            if not re.fullmatch(rb"[A-Za-z_]\w*", name):
                return
            value = expr.strip() or (b"0" if prev is None else b"(" + prev + b") + 1")
            self.exprs.setdefault(name.decode(), []).append(value)
            prev = value

    def value(self, name: str, scope: Mapping[str, int] | None = None) -> int:
        """The value of ``name`` (``scope`` first: template arguments, locals). Values
        are cached for the file's own scope; in a ``scope`` they are worked out again."""
        if scope and name in scope:
            return scope[name]
        known = self._values.get(name)
        if known is not None:
            return known  # a file-level value holds in every scope
        cache = self._values if not scope else {}
        if name in cache or name in self._busy:
            v = cache.get(name)
            if v is None:
                raise Unknown(name)
            return v
        exprs = self.exprs.get(name)
        if not exprs:
            raise Unknown(name)
        self._busy.add(name)  # a definition that refers to itself has no value
        try:
            values = {evaluate(e, lambda n: self.value(n, scope)) for e in set(exprs)}
        except Unknown:
            cache[name] = None
            raise
        finally:
            self._busy.discard(name)
        cache[name] = values.pop() if len(values) == 1 else None
        if cache[name] is None:
            raise Unknown(name)
        return cache[name]  # type: ignore[return-value]

    def evaluate(self, expr: bytes | str, scope: Mapping[str, int] | None = None,
                 sizeof: Callable[[str], int] | None = None) -> int:
        """The value of ``expr`` in this file (``scope`` first); raises Unknown."""
        return evaluate(expr, lambda n: self.value(n, scope), sizeof)
