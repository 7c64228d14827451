"""Porting a Makefile (``Makefile``, ``makefile``, ``GNUmakefile``, ``*.mk``) or a shell
script that calls nvcc (``*.sh``) to mcc.

Each statement's words (``shell.lexer``: a Makefile's recipes are shell, its other
lines make) go through ``build.rewrite``: ``nvcc`` -> ``mcc``, nvcc options to mcc's, ``.cu`` /
``.cuh`` -> ``.mu`` / ``.muh`` in rules, patterns and substitution references, ``-lcudart``
-> ``-lmusart``, ``CUDA_HOME`` / ``CUDA_PATH`` / ``/usr/local/cuda`` to the MUSA ones.
Comments, heredocs, ``$(info ...)`` text and what ``echo`` prints are left as they are.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from .. import names as bn
from ..rewrite import BuildContext, Rewriter
from .lexer import lex_make, lex_shell


def port_script_text(text: str, ctx: BuildContext, protected: Sequence[tuple[int, int]] = (),
                     *, make: bool = True) -> Rewriter:
    """The changes and notes for one Makefile (or, ``make=False``, shell script)."""
    rw = Rewriter(text, dataclasses.replace(ctx, names=dict(bn.HOME_VARS)))
    lexed = lex_make(text) if make else lex_shell(text)
    for words in lexed.statements:
        words = [w for w in words if not any(s <= w.start < e for s, e in protected)]
        rw.statement(words)
    return rw
