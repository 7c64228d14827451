"""Compiler output, understood: clang-style (mcc) and nvcc diagnostics, mapped from
the ported file back to the CUDA original, with hints for the failures porters meet.

Porting keeps line numbers, so a location in a ported file maps to the same line of
its CUDA source; the output tree's manifest knows which source each file came from.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ..write.manifest import load_manifest

# file:line:col: error: message   (clang, gcc)
_CLANG_RE = re.compile(
    r"^(?P<file>[^\s:][^:\n]*?):(?P<line>\d+):(?:(?P<col>\d+):)? "
    r"(?P<sev>fatal error|error|warning|note|remark): (?P<msg>.*)$")
# file(line): error: message   (nvcc's front end)
_NVCC_RE = re.compile(
    r"^(?P<file>[^\s(][^(\n]*)\((?P<line>\d+)\): (?P<sev>catastrophic error|error|warning|remark)"
    r"(?: #[\w-]+)?: (?P<msg>.*)$")
# mcc: error: message   /   error: message
_BARE_RE = re.compile(r"^(?:[\w.+-]+: )?(?P<sev>fatal error|error|warning): (?P<msg>.*)$")
_GENERATED_RE = re.compile(r"^(\d+) errors? generated(?: when compiling for (\S+?))?\.$")

ERRORS = ("error", "fatal error", "catastrophic error")  # the severities that fail a compile
HINTS = {
    "MP3001": "shared-memory-limit",
    "MP3002": "undeclared-cuda-name",
    "MP3003": "fp64",
    "MP3004": "inline-asm",
    "MP3005": "missing-header",
}
_SHARED_RE = re.compile(r"shared memory \((\d+)\) exceeds limit \((\d+)\) in function '([^']+)'")
_UNDECLARED_RE = re.compile(r"(?:use of undeclared identifier|identifier) ['\"]((?:cuda|cu[A-Z]|CU|nccl|"
                            r"cublas|curand|cusparse|cufft|cudnn)\w*)['\"]")
_FP64_RE = re.compile(r"\bdouble\b.*(?:not supported|unsupported|disabled)|fp64", re.I)
_ASM_RE = re.compile(r"inline assembl|\bPTX\b|\basm\b", re.I)
# gcc: "x.h: No such file or directory"; clang, mcc: "'x.h' file not found"; nvcc's front
# end: 'cannot open source file "x.h"'.
_MISSING_RE = re.compile(r"^(?P<a>[^:\n]+): No such file or directory$|^'(?P<b>[^']+)' file not found$"
                         r'|^cannot open source file "(?P<c>[^"]+)"')


def missing_header(d: CompilerDiagnostic) -> str | None:
    """The header an error says is not on the include path, or None."""
    m = _MISSING_RE.match(d.message) if d.is_error else None
    return (m.group("a") or m.group("b") or m.group("c")) if m else None


@dataclass
class CompilerDiagnostic:
    """One diagnostic, where the compiler saw it and where the CUDA author wrote it."""

    severity: str  # "error", "warning", "note", "fatal error", ...
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    src_file: str | None = None  # the CUDA original, when the file is a ported one
    src_line: int | None = None
    hint_id: str | None = None
    hint: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity in ERRORS

    def where(self) -> str:
        """``ported.mu:12:5`` (and ``(CUDA: orig.cu:12)`` when the original is known)."""
        if self.file is None:
            return ""
        loc = f"{self.file}:{self.line}" if self.line is not None else self.file
        if self.column is not None and self.line is not None:
            loc += f":{self.column}"
        if self.src_file:
            loc += f" (CUDA: {self.src_file}:{self.src_line})"
        return loc

    def cuda_where(self) -> str:
        """The CUDA original's file:line when known, else the compiler's location."""
        if self.src_file:
            return f"{self.src_file}:{self.src_line}"
        return self.where()

    def to_dict(self) -> dict:
        return {k: v for k, v in vars(self).items()}


@dataclass
class PortMap:
    """Ported file -> CUDA source, from the output tree's manifest."""

    out_root: Path
    src_root: Path | None = None
    sources: dict[str, str] = field(default_factory=dict)  # out rel -> src rel

    @classmethod
    def load(cls, out_root: str | Path) -> PortMap:
        out = Path(out_root).resolve()
        m = load_manifest(str(out))
        return cls(out, Path(m.src) if m.src else None,
                   {rel: rec.src for rel, rec in m.files.items()})

    def source_of(self, path: str, cwd: str | Path | None = None) -> str | None:
        p = Path(path)
        if not p.is_absolute():
            p = Path(cwd or ".") / p
        try:
            rel = p.resolve().relative_to(self.out_root).as_posix()
        except (ValueError, OSError):
            return None
        src = self.sources.get(rel)
        if src is None or self.src_root is None:
            return None
        return str(self.src_root / src)


def demangle(name: str) -> str:
    """C++ symbol -> readable name, with c++filt when there is one."""
    tool = shutil.which("c++filt")
    if tool and name.startswith("_Z"):
        try:
            out = subprocess.run([tool, name], capture_output=True, text=True, timeout=10)
            if out.returncode == 0 and out.stdout.strip():
                return out.stdout.strip()
        except (OSError, subprocess.SubprocessError):
            pass  # c++filt failed: fall back to the name in the symbol
    m = re.match(r"_Z(\d+)", name)  # _Z<len><name>...: the name, at least
    if m:
        n = int(m.group(1))
        return name[m.end():m.end() + n]
    return name


def _hint(d: CompilerDiagnostic, arch: str | None) -> None:
    if not d.is_error:
        return
    header = missing_header(d)
    if header is not None:
        d.hint_id = "MP3005"
        d.hint = f"{header} is not on the include path: pass the folder that holds it with -I DIR"
        return
    m = _SHARED_RE.search(d.message)
    if m:
        used, limit, mangled = int(m.group(1)), int(m.group(2)), m.group(3)
        kernel = demangle(mangled)
        where = d.cuda_where() or "its source"
        on = f" on {arch}" if arch else ""
        d.hint_id = "MP3001"
        d.hint = (f"kernel {kernel} ({where}) needs {used} bytes of static shared memory; the "
                  f"limit{on} is {limit}. Lower its tile or block size, build it for an arch "
                  f"with more shared memory, or leave the file out with --exclude")
        return
    m = _UNDECLARED_RE.search(d.message)
    if m:
        name = m.group(1)
        guess = "mu" + name[2:] if name.startswith("cu") else name
        if name.startswith("cuda"):
            guess = "musa" + name[4:]
        d.hint_id = "MP3002"
        d.hint = (f"'{name}' was not ported: add a rule such as {{\"{name}\": \"{guess}\"}} "
                  f"(musa-port --rule FILE) if MUSA has it")
        return
    if _FP64_RE.search(d.message):
        d.hint_id = "MP3003"
        d.hint = "double precision is not enabled for this arch: enable fp64 for the kernel's " \
                 "arch or compute in float"
        return
    if _ASM_RE.search(d.message):
        d.hint_id = "MP3004"
        d.hint = "inline PTX assembly does not run on MUSA: use a MUSA intrinsic, or guard " \
                 "the asm with #if !defined(__MUSA_ARCH__)"


def severity(line: str) -> str | None:
    """The severity of the diagnostic a line of compiler output is ("error",
    "warning", "note", ...), None for any other line: counts what is not kept."""
    m = _CLANG_RE.match(line) or _NVCC_RE.match(line) or _BARE_RE.match(line)
    return m.group("sev") if m else None


def parse(output: str, portmap: PortMap | None = None, cwd: str | Path | None = None
          ) -> list[CompilerDiagnostic]:
    """Every diagnostic in a compiler's output, mapped and hinted."""
    found: list[CompilerDiagnostic] = []
    pending: list[CompilerDiagnostic] = []  # errors waiting for the arch of their block
    for raw in output.splitlines():
        line = raw.rstrip()
        g = _GENERATED_RE.match(line)
        if g:
            for d in pending:
                _hint(d, g.group(2))
            pending = []
            continue
        m = _CLANG_RE.match(line) or _NVCC_RE.match(line)
        if m:
            col = m.groupdict().get("col")
            d = CompilerDiagnostic(m.group("sev"), m.group("msg"), m.group("file"),
                                   int(m.group("line")), int(col) if col else None)
            if portmap is not None:
                src = portmap.source_of(d.file, cwd)  # type: ignore[arg-type]
                if src is not None:
                    d.src_file, d.src_line = src, d.line
        else:
            b = _BARE_RE.match(line)
            if not b:
                continue
            d = CompilerDiagnostic(b.group("sev"), b.group("msg"))
        found.append(d)
        pending.append(d)
    for d in pending:
        _hint(d, None)
    return found
