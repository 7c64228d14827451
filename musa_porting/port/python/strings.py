"""The rules for string literals: what a string's text becomes, decided from the text
alone (the tree walk in ``transform`` says which strings are asked about).

A string is rewritten only when it *is* something to port, never because it mentions
CUDA: a device (``"cuda:0"``), the ``"nccl"`` backend, the ``"nvcc"`` key, an
environment variable's name, a path to a ported source, a renamed identifier. Prose
(``"cuda device, i.e. 0 or cpu"``, ``"barracuda"``, a URL) stays.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from ...rules.model import Rule
from ...rules.vocabulary import Vocabulary
from ..cuda_strings import library_file
from . import names as n

_DEVICE = re.compile(r"cuda(:(?:\d*|%[dis]|\{[^{}]*\}))?")
_ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")
_MACRO_FLAG = re.compile(r"-D([A-Za-z_][A-Za-z0-9_]*)(?:=.*)?", re.S)
_VISIBLE = re.compile(r"(?<![A-Za-z0-9_])CUDA_VISIBLE_DEVICES(?![A-Za-z0-9_])")


def rewrite_body(body: str, renames: Mapping[str, str],
                 map_path: Callable[[str], str | None] | None,
                 runs_a_program: bool) -> tuple[str, Rule] | None:
    """What the text of a string literal becomes, and by which rule; None to keep it.
    ``runs_a_program``: the string is an argument of subprocess.run() and the like,
    where ``"nvcc"`` names the program (a finding, not a rename)."""
    new = renames.get(body)
    if new is not None:
        return new, n.rename_rule(body, new)
    m = _MACRO_FLAG.fullmatch(body)
    if m is not None and m.group(1) in renames:  # "-DWITH_CUDA", "-DWITH_CUDA=1"
        old, new = m.group(1), renames[m.group(1)]
        return "-D" + new + body[m.end(1):], n.rename_rule(old, new)
    if map_path is not None:
        path = map_path(body)
        if path is not None:
            return path, n.PATH
    m = _DEVICE.fullmatch(body)
    if m:
        return "musa" + (m.group(1) or ""), n.DEVICE
    if body == "nccl":
        return "mccl", n.NCCL
    if body == "nvcc" and not runs_a_program:
        return "mcc", n.NVCC
    new = visible_devices(body)
    if new is not None:
        return new, n.VISIBLE_DEVICES
    new = library_file(body)  # ctypes.CDLL("libcudart.so")
    return (new, n.LIBRARY) if new is not None else None


def visible_devices(text: str) -> str | None:
    """``CUDA_VISIBLE_DEVICES`` anywhere in ``text`` (a shell command too) -> MUSA's."""
    if "CUDA_VISIBLE_DEVICES" not in text:
        return None
    new = _VISIBLE.sub("MUSA_VISIBLE_DEVICES", text)
    return new if new != text else None


def env_name(body: str, vocabulary: Vocabulary) -> tuple[str, Rule] | None:
    """An environment variable's name with its CUDA words renamed (FORCE_CUDA ->
    FORCE_MUSA, TORCH_CUDA_ARCH_LIST -> TORCH_MUSA_ARCH_LIST), or None."""
    if not _ENV_NAME.fullmatch(body):
        return None
    new = vocabulary.rename(body)
    if new is None:
        return None
    return new, Rule(body, new, n.FAMILY, note="environment variable")


def device_fstring_head(text: str) -> bool:
    """The first text part of an f-string that builds a device: ``f"cuda:{rank}"``."""
    return text == "cuda:"
