"""The MUSA-to-CUDA shim that lets nvcc compile-check a port (``musa-port verify``).

A generated include folder maps every MUSA name the rules produce back to CUDA:

- one file per header rule (``musa_runtime.h`` includes ``<cuda_runtime.h>``;
  ``torch_musa/csrc/aten/musa/MUSAContext.h`` includes ``<ATen/cuda/CUDAContext.h>``);
- a prelude per file, force-included in its compile, that (1) defines the MUSA names
  as the CUDA ones (``#define musaMalloc cudaMalloc``, namespace aliases such as
  ``namespace at { namespace musa = cuda; }``, compiler macros only where CUDA defines
  theirs), (2) includes the headers that file reaches outside the tree (those on the
  include path: a missing one is left to the file's own include, whose error then
  comes first), and then (3) ``#pragma GCC poison``s the CUDA names the rules port.

Poisoning comes last so that the CUDA and third-party headers, which use those names,
are already in; from then on a CUDA name left in the ported code is a compile error
at its line, while a MUSA name still compiles (a macro defined before the poison may
expand to a poisoned name). Over-renamed or corrupted identifiers fail as undeclared.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path

from ..rules import RuleSet
from .ninja import write_if_changed

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NAMESPACE = re.compile(r"([A-Za-z_]\w*)::([A-Za-z_]\w*)")
_METHOD_CALL = re.compile(r"(?:\.|->)([A-Za-z_]\w*)\(\)")  # .is_cuda() -> .is_musa()
# MUSA names a rule may produce; anything else (kPrivateUse1, is_privateuseone) is a real
# name in CUDA builds too and must not be redefined.
_MUSA_NAME = re.compile(r"^(?:__)?(?:musa|MUSA|mu|MU|mt|MT|mccl|MCCL|mupti|MUPTI|mtpp|Mtpp|MTPP)"
                        r"|^PFN_mu|^make_mu|MUSA|Musa|musa")


def _is_compiler_macro(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


NAMES = "musa_port_names.h"
POISON = "musa_port_poison.h"


def generate(ruleset: RuleSet, dest: Path, renamed_includes: dict[str, str] | None = None,
             own_macros: Iterable[str] = ()) -> dict[str, str]:
    """Write the shim's shared parts into ``dest``: the header files, the names header
    (MUSA names as CUDA names) and the poison header. ``renamed_includes`` maps
    include targets the port rewrote to the original's (delimited) target;
    ``own_macros`` are names the ported tree defines itself, which are not mapped.
    Returns the headers written: MUSA path -> the CUDA header it includes (delimited)."""
    dest.mkdir(parents=True, exist_ok=True)
    reverse = ruleset.reversed()  # MUSA -> CUDA, the primary CUDA name for shared ones
    defines: list[str] = []
    defined: set[str] = set(own_macros)  # and .is_musa() / ->is_musa() define is_musa once
    aliases: dict[str, list[tuple[str, str]]] = {}
    headers: dict[str, str] = {}
    for musa, r in sorted(reverse.items()):
        cuda = r.value
        if musa[:1] in '<"' and musa[-1:] in '>"':
            headers[musa[1:-1]] = cuda
            continue
        ns_m, ns_c = _NAMESPACE.fullmatch(musa), _NAMESPACE.fullmatch(cuda)
        # at::cuda -> at::musa is a namespace (lower case); at::kCUDA -> at::kMUSA is not:
        # its unqualified rule (kCUDA -> kMUSA) maps it back.
        if ns_m and ns_c and ns_m.group(1) == ns_c.group(1) and _MUSA_NAME.search(ns_m.group(2)) \
                and ns_c.group(2).islower():
            aliases.setdefault(ns_m.group(1), []).append((ns_m.group(2), ns_c.group(2)))
            continue
        call_m, call_c = _METHOD_CALL.fullmatch(musa), _METHOD_CALL.fullmatch(cuda)
        if call_m and call_c and _MUSA_NAME.search(call_m.group(1)):
            musa, cuda = call_m.group(1), call_c.group(1)  # the method: #define is_musa is_cuda
        if not (_IDENT.fullmatch(musa) and _IDENT.fullmatch(cuda)) or not _MUSA_NAME.search(musa):
            continue
        if musa in defined:
            continue
        if _is_compiler_macro(cuda):
            defines.append(f"#if defined({cuda})\n#define {musa} {cuda}\n#endif")
        else:
            defines.append(f"#define {musa} {cuda}")
        defined.add(musa)

    # Includes the port rewrote into headers no rule names (a user's /cuda/ -> /musa/):
    # map them back to what the CUDA original included.
    for path, cuda in (renamed_includes or {}).items():
        headers.setdefault(path, cuda)
    written: dict[str, str] = {}
    for path, cuda in headers.items():
        target = dest / path
        if not target.resolve().is_relative_to(dest.resolve()):
            continue
        written[path] = cuda
        target.parent.mkdir(parents=True, exist_ok=True)
        up = "../" * path.count("/")
        write_if_changed(target, f"/* musa-port shim: {path} -> {cuda} */\n#pragma once\n"
                                 f'#include "{up}{NAMES}"\n#include {cuda}\n')

    ns_lines = []
    for ns, pairs in sorted(aliases.items()):
        body = " ".join(f"namespace {c} {{}} namespace {m} = {c};" for m, c in sorted(pairs))
        ns_lines.append(f"namespace {ns} {{ {body} }}")
    write_if_changed(dest / NAMES, "\n".join([
        "/* Generated by musa-port verify: MUSA names as CUDA names. */",
        "#pragma once", "#pragma GCC system_header", *defines,
        "#ifdef __cplusplus", *ns_lines, "#endif", ""]))

    # A CUDA name that is a macro in the headers (cublasCreate -> cublasCreate_v2) is
    # not poisoned: poisoning would remove the macro that the MUSA name expands through.
    poison = sorted(k for k, r in ruleset.rewriting().items()
                    if r.value and r.value != k and _IDENT.fullmatch(k) and not _is_compiler_macro(k))
    write_if_changed(dest / POISON, "\n".join([
        "/* Generated by musa-port verify: a CUDA name the rules port is an error. */",
        "#pragma once", "#pragma GCC system_header",
        *(f"#ifndef {n}\n#pragma GCC poison {n}\n#endif" for n in poison), ""]))
    return written


def write_prelude(dest: Path, name: str, external_includes: Iterable[tuple[str, bool]],
                  on_path: Callable[[str], bool]) -> Path:
    """A file's prelude (force-included): the names, the headers that file reaches
    outside the tree (so they are in before the poison), then the poison.

    Only the headers ``on_path`` finds are included. Not ``__has_include``: GCC before
    14 (https://gcc.gnu.org/PR80753) then skips the file's own ``#include`` of a missing
    header without an error, and what the user saw was the hundreds of errors that
    follow, not the missing header. Left to the file, the missing header is its first
    error, at its line."""
    lines = ["/* Generated by musa-port verify. */", "#pragma once", "#pragma GCC system_header",
             f'#include "../{NAMES}"']  # relative to this file: any folder name works
    for target, angled in sorted(set(external_includes)):
        if target.startswith((".", "/")) or not on_path(target):
            continue  # relative to the including file (only meaningful there), or missing
        lines.append(f"#include <{target}>" if angled else f'#include "{target}"')
    lines += [f'#include "../{POISON}"', ""]
    path = dest / "pre" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    write_if_changed(path, "\n".join(lines))
    return path
