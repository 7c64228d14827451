"""Which code of a file a MUSA device compile never sees, so that hazards skip it.

Host-only code is a host source file with no device code in it (a ``.cpp`` launcher),
and the branches of ``#ifndef __CUDA_ARCH__`` (or ``#ifndef __CUDACC__``) and the
``#else`` of ``#ifdef __CUDA_ARCH__``: what ``nvcc``'s device pass never compiles. It
gets no device hazards. HIP-only code (``#ifdef MMCV_WITH_HIP``, ``#if
defined(USE_ROCM)``, ``__HIP_PLATFORM_AMD__``) is not compiled for MUSA at all, and gets
no hazards. The preprocessor lines are read directly; nothing is expanded, so a
condition this cannot read (``__CUDA_ARCH__ >= 700 || X``) leaves its branches alone.
"""

from __future__ import annotations

import posixpath
import re

HOST_EXTENSIONS = frozenset((".c", ".cc", ".cpp", ".cxx", ".c++"))
_DEVICE_MARK = re.compile(rb"__(?:global|device|shared|constant)__")

# '#' first, so the scan jumps from '#' to '#'; the line start is checked in Python.
_DIRECTIVE = re.compile(rb"#[ \t]*(ifdef|ifndef|if|elif|else|endif)\b")
_LINE_START = re.compile(rb"(?:\xef\xbb\xbf)?[ \t]*")
_COMMENT = re.compile(rb"//.*|/\*.*?\*/")
_BLANKS = re.compile(rb"\s+")
_RELEVANT = re.compile(rb"ARCH__|CC__|HIP|ROCM")
_ARCH = rb"__(?:CUDA|MUSA)_ARCH__"
_CC = rb"__(?:CUDACC|MUSACC|NVCC)__"
_HIP = rb"(?:[A-Za-z0-9_]*_)?(?:HIP|ROCM)(?:_[A-Za-z0-9_]*)?|__HIPCC__|__HIP_[A-Za-z0-9_]*"
_TERM = rb"(?:defined\(?(?:%s)\)?|(?:%s))"
_DEVICE = re.compile(_TERM % (_ARCH + rb"|" + _CC, _ARCH + rb"|" + _CC))  # nvcc's passes
_NOT_DEVICE = re.compile(rb"!" + _DEVICE.pattern)
_HIP_ON = re.compile(_TERM % (_HIP, _HIP))  # true only when compiled for AMD's HIP
_HIP_OFF = re.compile(rb"!" + _HIP_ON.pattern)
HOST, HIP = "host", "hip"


def is_host_file(rel: str, data: bytes) -> bool:
    """A host C/C++ source (by extension) that declares no device code."""
    ext = posixpath.splitext(rel)[1].lower()
    return ext in HOST_EXTENSIONS and _DEVICE_MARK.search(data) is None


def _condition(data: bytes, start: int) -> tuple[bytes, int]:
    """The text of a directive's condition (continuations joined, comments and blanks
    dropped) and the offset where its logical line ends."""
    end = start
    n = len(data)
    while True:
        nl = data.find(b"\n", end)
        if nl < 0:
            end = n
            break
        if nl > 0 and data[nl - 1:nl] == b"\\" or data[nl - 2:nl] == b"\\\r":
            end = nl + 1
            continue
        end = nl + 1
        break
    raw = data[start:end]
    if not _RELEVANT.search(raw):
        return b"", end  # no word that could make the branch host-only or HIP-only
    text = _COMMENT.sub(b"", raw.replace(b"\\\n", b" "))
    return _BLANKS.sub(b"", text), end


def _classify(word: bytes, cond: bytes) -> tuple[str | None, str | None]:
    """(what compiles the branch, what compiles the branches after it): HOST (the host
    pass only), HIP (a HIP build only, never MUSA), or None (cannot tell, or both)."""
    if word == b"ifdef":
        cond = b"defined(" + cond + b")"
    elif word == b"ifndef":
        cond = b"!defined(" + cond + b")"
    terms = cond.split(b"&&") if b"||" not in cond else [cond]
    this = HOST if any(_NOT_DEVICE.fullmatch(t) for t in terms) else \
        HIP if any(_HIP_ON.fullmatch(t) for t in terms) else None
    rest = HOST if _DEVICE.fullmatch(cond) else HIP if _HIP_OFF.fullmatch(cond) else None
    return this, rest


def platform_spans(data: bytes) -> list[tuple[int, int, str]]:
    """The branches of ``data`` that a MUSA device compile never sees, as sorted
    (start, end, HOST or HIP) spans."""
    if b"ARCH__" not in data and b"CC__" not in data and b"HIP" not in data and b"ROCM" not in data:
        return []
    spans: list[tuple[int, int, str]] = []
    # One frame per open #if: [branch start, its label, the label of later branches].
    stack: list[list] = []
    for m in _DIRECTIVE.finditer(data):
        bol = data.rfind(b"\n", 0, m.start()) + 1
        if _LINE_START.fullmatch(data, bol, m.start()) is None:
            continue
        word = m.group(1)
        cond, eol = _condition(data, m.end())
        if word in (b"if", b"ifdef", b"ifndef"):
            stack.append([eol, *_classify(word, cond)])
            continue
        if not stack:
            continue
        frame = stack[-1]
        if frame[1]:
            spans.append((frame[0], bol, frame[1]))
        if word == b"endif":
            stack.pop()
        elif word == b"else":
            frame[:] = [eol, frame[2], frame[2]]
        else:  # elif: reached only when the branches before it were not
            frame[:] = [eol, frame[2] or _classify(b"if", cond)[0], frame[2]]
    for frame in stack:  # an #if never closed: to the end of the file
        if frame[1]:
            spans.append((frame[0], len(data), frame[1]))
    return sorted(spans)
