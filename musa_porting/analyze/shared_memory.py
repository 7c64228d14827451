"""Shared memory beyond the target's per-kernel limit (MP2005).

A kernel's static ``__shared__`` arrays are sized as mcc sizes them: dimensions through
``#define``s, ``constexpr``/``const`` integers (the kernel's own locals included) and
the template arguments of each instantiation the file spells
(``upfirdn2d_kernel_small<T, 1, 1, 1, 1, 24, 24, 64, 32, 1>``). An element type that
depends on a template parameter (``scalar_t``, ``T``) is counted as 8 bytes, the
``double`` of PyTorch's dispatch, and the message says so; one the checks cannot size
(a CUB ``TempStorage``) is left out. Dynamic shared memory raised with
``cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, N)`` or asked
by a launch (``<<<g, b, N>>>``) is checked against the same limit.

Patterns from public CUDA code: StyleGAN2's ``upfirdn2d`` in mmcv (the manual's
``shared memory (42984) exceeds limit (28672)``), tiled transposes and reductions
(``__shared__ scalar_t tile[TILE][TILE + 1]``), FlashAttention-style kernels that
raise dynamic shared memory above 48 KB.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from .code_view import Function, angle_args, functions, match, split_args
from .consts import CONST_DECL, TYPE_SIZES, Unknown, type_size
from .host_code import HIP
from .scan import Hazard, Scan

_SHARED = re.compile(rb"__shared__\b")
_DECL = re.compile(rb"(.*?)\b([A-Za-z_]\w*)\s*((?:\[[^\[\]]*\]\s*)+)$", re.S)
_NOISE = re.compile(rb"__align__\s*\([^)]*\)|alignas\s*\([^)]*\)|\b(?:volatile|const|static|"
                    rb"typename|__restrict__)\b")
_TYPEDEF = re.compile(rb"\btypedef\s+([^;{}]+?)\s+([A-Za-z_]\w*)\s*;|"
                      rb"\busing\s+([A-Za-z_]\w*)\s*=\s*([^;{}]+);")
_DISPATCH_TYPES = frozenset(("scalar_t", "accscalar_t", "acc_t", "index_t_", "T", "scalar_type",
                             "DType", "Dtype", "dtype", "data_t", "value_t", "input_t", "output_t"))
KEYS = (b"__shared__", b"MaxDynamicSharedMemorySize", b"<<<")
_SET_ATTRIBUTE = re.compile(rb"\w*FuncSetAttribute\s*\(")
IDENT = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
DEPENDENT = 8  # bytes of a type that depends on a template parameter: double


@dataclass(frozen=True)
class _Array:
    start: int  # the offset of its __shared__
    end: int  # after its last ]
    name: str
    elem: str
    dims: tuple[bytes, ...]


def _arrays(code: bytes, body: tuple[int, int]) -> list[_Array]:
    out = []
    for m in _SHARED.finditer(code, body[0], body[1]):
        bol = max(code.rfind(b";", body[0], m.start()), code.rfind(b"{", body[0], m.start()),
                  code.rfind(b"}", body[0], m.start()))
        if b"extern" in code[bol + 1:m.start()]:
            continue  # dynamic shared memory, sized at launch
        end = code.find(b";", m.end(), body[1])
        if end < 0:
            continue
        decl = code[m.end():end].split(b"=")[0]
        d = _DECL.match(_NOISE.sub(b" ", decl).strip())
        if d is None:
            continue
        elem = " ".join(d.group(1).decode().split())
        dims = tuple(x.strip() for x in re.findall(rb"\[([^\[\]]*)\]", d.group(3)))
        name_at = code.find(d.group(2), m.end(), end)
        out.append(_Array(m.start(), code.find(b"]", code.rfind(b"[", name_at, end)) + 1,
                          d.group(2).decode(), elem, dims))
    return out


def _params(code: bytes, span: tuple[int, int] | None) -> list[tuple[str, str, bytes]]:
    """(kind "type"/"value", name, default) of each template parameter."""
    if span is None:
        return []
    out = []
    for p in split_args(code[span[0]:span[1]]):
        head, _, default = p.partition(b"=")
        words = head.split()
        if not words:
            continue
        kind = "type" if words[0] in (b"typename", b"class") else "value"
        out.append((kind, words[-1].decode(), default.strip()))
    return out


class _Kernel:
    """One ``__global__`` function, sized for one binding of its template parameters."""

    def __init__(self, scan: Scan, f: Function, arrays: list[_Array]):
        self.scan, self.f, self.arrays = scan, f, arrays
        code = scan.code
        self.params = _params(code, f.template)
        self.typedefs: dict[str, str] = {}
        for m in _TYPEDEF.finditer(code, f.body[0], f.body[1]):
            name, target = (m.group(2), m.group(1)) if m.group(2) else (m.group(3), m.group(4))
            self.typedefs[name.decode()] = " ".join(_NOISE.sub(b" ", target).decode().split())
        self.locals = [(m.group(2) or m.group(6), m.group(3) or m.group(4) or m.group(7))
                       for m in CONST_DECL.finditer(code, f.body[0], f.body[1])]

    def bindings(self) -> Iterator[tuple[dict[str, int], dict[str, str], int | None]]:
        """(values, types, the offset of the instantiation) of each way the file spells
        the kernel; its defaults when it spells none."""
        code, name = self.scan.code, self.f.name.encode()
        found = False
        if self.params and name:
            at = code.find(name)
            while at >= 0:
                end = at + len(name)
                lt = end + len(code[end:end + 20]) - len(code[end:end + 20].lstrip())
                got = angle_args(code, lt) if code[lt:lt + 1] == b"<" and (
                    at == 0 or code[at - 1] not in IDENT) else None
                if got is not None and len(got[0]) <= len(self.params):
                    bound = self._bind(got[0])
                    if bound is not None:
                        found = True
                        yield bound[0], bound[1], at
                at = code.find(name, end)
        if not found:
            bound = self._bind([])
            if bound is not None:
                yield bound[0], bound[1], None

    def _bind(self, args: list[bytes]) -> tuple[dict[str, int], dict[str, str]] | None:
        values: dict[str, int] = {}
        types: dict[str, str] = {}
        for i, (kind, pname, default) in enumerate(self.params):
            arg = args[i] if i < len(args) else default
            if kind == "type":
                types[pname] = " ".join(_NOISE.sub(b" ", arg).decode().split()) if arg else pname
                continue
            if not arg:
                continue
            try:
                values[pname] = self.scan.constants.evaluate(arg, values)
            except Unknown:
                return None
        return values, types

    def elem_size(self, elem: str, types: dict[str, str], depth: int = 0) -> tuple[int | None, bool]:
        """(bytes, assumed) of an element type: 8 assumed for a dependent type."""
        elem = types.get(elem, elem)
        if elem in TYPE_SIZES:
            return TYPE_SIZES[elem], False
        if depth < 4 and elem in self.typedefs:
            target = self.typedefs[elem]
            if any(re.search(rf"\b{re.escape(p)}\b", target) for k, p, _ in self.params if k == "type"):
                return DEPENDENT, True
            return self.elem_size(target, types, depth + 1)
        if elem in _DISPATCH_TYPES or any(k == "type" and p == elem for k, p, _ in self.params):
            return DEPENDENT, True
        try:
            return type_size(elem), False
        except Unknown:
            return None, False

    def size(self, values: dict[str, int], types: dict[str, str]):
        """(total bytes, [(array, bytes)], assumed) for one binding, or None."""
        scope = dict(values)
        for name, expr in self.locals:
            try:
                scope[name.decode()] = self.scan.constants.evaluate(expr, scope)
            except Unknown:
                pass
        sizes: dict[str, tuple[_Array, int, bool]] = {}
        for a in self.arrays:
            elem, guess = self.elem_size(a.elem, types)
            if elem is None:
                continue
            try:
                n = elem
                for d in a.dims:
                    n *= self.scan.constants.evaluate(d, scope)
            except Unknown:
                continue
            if a.name not in sizes or sizes[a.name][1] < n:  # #if alternatives: the larger
                sizes[a.name] = (a, n, guess)
        if not sizes:
            return None
        parts = sorted(sizes.values(), key=lambda p: -p[1])
        return sum(p[1] for p in parts), parts, any(p[2] for p in parts)


def shared_memory(scan: Scan) -> Iterator[Hazard]:
    """MP2005: static and dynamic shared memory over the target's limit."""
    data = scan.out
    if not scan.has(*KEYS):
        return
    limit, limit_text = scan.target.shared_limit()
    if any(_array_ahead(data, at) for at in scan.at(b"__shared__")):
        code = scan.code
        sized: dict[tuple, _Largest | None] = {}
        for f in functions(code, kernels_only=True):
            arrays = [a for a in _arrays(code, f.body) if not _hip(scan, a.start)]
            if arrays:
                yield from _static(scan, _Kernel(scan, f, arrays), limit, limit_text, sized)
    if scan.has(b"MaxDynamicSharedMemorySize"):
        yield from _dynamic_attribute(scan, limit, limit_text)
    if scan.launches:
        for at, args in scan.launches:
            if len(args) >= 3 and args[2]:
                n = scan.value(args[2])
                if n is not None and n > limit:
                    pos = data.find(args[2], at)
                    yield Hazard("MP2005", pos, pos + len(args[2]),
                                 f"the launch asks for {n:,} bytes of dynamic shared memory, over "
                                 f"{limit:,} bytes, {limit_text}")


def _array_ahead(data: bytes, at: int) -> bool:
    """Whether the ``__shared__`` at ``at`` may declare a static array (a ``[`` before
    its ``;``, no ``extern`` before it): the rest of the check is paid only then."""
    end = data.find(b";", at, at + 400)
    return end > 0 and b"[" in data[at:end] and b"extern" not in data[max(0, at - 40):at]


def _hip(scan: Scan, pos: int) -> bool:
    """In a HIP-only branch (``#ifdef MMCV_WITH_HIP``): not compiled for MUSA."""
    return any(s <= pos < e for s, e, label in scan.platform_spans if label == HIP)


@dataclass(frozen=True)
class _Largest:
    """A kernel's largest binding: its total, its arrays by index with their bytes, and
    the offset of the instantiation that makes it."""

    total: int
    parts: tuple[tuple[int, int, bool], ...]  # (index in the kernel's arrays, bytes, assumed)
    assumed: bool
    at: int | None


def _largest(k: _Kernel) -> _Largest | None:
    best = None
    for values, types, at in k.bindings():
        got = k.size(values, types)
        if got is not None and (best is None or got[0] > best.total):
            total, parts, assumed = got
            best = _Largest(total, tuple((k.arrays.index(a), n, g) for a, n, g in parts),
                            assumed, at)
    return best


def _static(scan: Scan, k: _Kernel, limit: int, limit_text: str,
            sized: dict[tuple, _Largest | None]) -> Iterator[Hazard]:
    """MP2005 for one kernel. A kernel the file spells again byte for byte (generated or
    amalgamated sources) sizes alike: every copy is sized against every instantiation
    in the file, so ``sized`` keeps the answer by the kernel's text and its arrays'
    places in it, and n copies cost n, not n^2."""
    first = k.f.template[0] if k.f.template else k.f.start
    key = (scan.code[first:k.f.body[1]], tuple(a.start - first for a in k.arrays))
    if key not in sized:
        sized[key] = _largest(k)
    best = sized[key]
    if best is None or best.total <= limit:
        return
    total, assumed, at = best.total, best.assumed, best.at
    parts = [(k.arrays[i], n, g) for i, n, g in best.parts]
    data = scan.out
    largest = parts[0][0]
    shown = " + ".join(f"{a.name}{''.join(f'[{d.decode()}]' for d in a.dims)} {n:,}"
                       for a, n, _ in parts[:4])
    where = ""
    if at is not None:
        close = angle_args(scan.code, scan.code.find(b"<", at))
        spelled = data[at:close[1]].decode() if close else k.f.name
        line = data.count(b"\n", 0, at) + 1
        where = f" as {' '.join(spelled.split())} (line {line})"
    guess = (" with its template element type counted as 8 bytes (double; PyTorch's dispatch "
             "instantiates it)") if assumed else ""
    verb = "may need" if assumed else "needs"
    yield Hazard("MP2005", largest.start, largest.end,
                 f"kernel '{k.f.name}'{where} {verb} {total:,} bytes of static shared memory "
                 f"({shown}){guess}, over {limit:,} bytes, {limit_text}: shrink the tile, keep "
                 "it in float, or move it to global memory")


def _dynamic_attribute(scan: Scan, limit: int, limit_text: str) -> Iterator[Hazard]:
    data = scan.out
    for m in _SET_ATTRIBUTE.finditer(scan.code):
        close = match(scan.code, m.end() - 1)
        args = split_args(scan.code[m.end():close - 1])
        if len(args) < 3 or b"MaxDynamicSharedMemorySize" not in args[1]:
            continue
        pos = data.find(args[2], m.end(), close)
        n = scan.value(args[2])
        if n is None:
            yield Hazard("MP2005", pos, pos + len(args[2]),
                         f"dynamic shared memory is raised to '{args[2].decode()}' bytes; CUDA needs "
                         f"this only above 49,152 bytes, more than {limit:,}, {limit_text}: this "
                         "kernel may not fit")
            continue
        if n > limit:
            yield Hazard("MP2005", pos, pos + len(args[2]),
                         f"dynamic shared memory is raised to {n:,} bytes, over {limit:,} bytes, "
                         f"{limit_text}")
