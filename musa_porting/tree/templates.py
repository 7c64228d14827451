"""Templates that generate CUDA: files beside the sources that a build step or a JIT
renders into code (flashinfer's ``.jinja`` kernels, CMake's ``configure_file`` inputs
``config.h.in``, ``.tmpl`` and the like). They hold the CUDA code of the files they
become, so a port that renames a header's ``Cutlass...`` class and leaves the template
that uses it makes code that no longer compiles.

A template is ported as the file it becomes when its name says what that is
(``kernel.cu.jinja``, ``config.h.in``, ``CMakeLists.txt.in``: the name without the
template's extension is one musa-port ports), or as C/C++/CUDA source when its content
is CUDA code (``__global__``, ``cudaStream_t``, ``#include <cuda_runtime.h>``,
``cutlass::``). Its name is kept: the code that renders it names it. A template left as
it is (neither) is reported, once per run, so the porter can look at it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable

EXTENSIONS = (".jinja", ".jinja2", ".j2", ".in", ".tmpl", ".tpl", ".template", ".mako")
# Files with a template's extension that are not templates of code.
NOT_TEMPLATES = re.compile(r"(?:MANIFEST|requirements[\w.-]*|constraints[\w.-]*)\.in\Z")
CUDA_CODE = re.compile(
    rb"__(?:global|device|shared|constant|host)__|__CUDA_ARCH__|__CUDACC__|<<<"
    rb"|\bcuda[A-Z_]\w*|\bcu(?:blas|dnn|fft|rand|sparse|solver)\w*"
    rb"|\b(?:cutlass|cute|cub|thrust|at::cuda|c10::cuda)::"
    rb"|#[ \t]*include[ \t]*[<\"](?:cuda|cutlass/|cute/|cub/|nv|cu[a-z]+\.h)")
SHOWN = 8  # templates named in the report


def is_template(rel: str) -> bool:
    base = posixpath.basename(rel)
    stem, ext = posixpath.splitext(base)
    return ext in EXTENSIONS and bool(stem) and not NOT_TEMPLATES.fullmatch(base)


def inner_name(rel: str) -> str:
    """The name of the file a template becomes: ``kernel.cu.jinja`` -> ``kernel.cu``."""
    return posixpath.splitext(rel)[0]


def shows_cuda(data: bytes) -> bool:
    return CUDA_CODE.search(data) is not None


def left_alone(files: Iterable, template: Callable[[str], bool]) -> list[str]:
    """The run's note on the templates it copied as they are (of the ``files``' outcomes,
    those ``template`` says are templates)."""
    rels = [f.rel for f in files if f.kind == "copied" and template(f.rel)]
    if not rels:
        return []
    shown = ", ".join(rels[:SHOWN]) + (f" and {len(rels) - SHOWN} more" if len(rels) > SHOWN else "")
    n = len(rels)
    return [f"note: {n} template{'s' if n > 1 else ''} copied as {'they are' if n > 1 else 'it is'} "
            f"(no CUDA in {'their names or content' if n > 1 else 'its name or content'}): {shown}; "
            "a template that generates CUDA is ported when its name says the file it becomes "
            "(kernel.cu.jinja) or its code is CUDA"]
