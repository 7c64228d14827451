"""Text rules for a statement that does not parse (a syntax error, Python 2 code).

The same renames as the parsed path, written as literal keys for the word-boundary
engine, so that an unparseable file is still ported as far as text can say: the
device string rule keeps its quotes (``"cuda"``), the call rule its parenthesis
(``.cuda(``), so prose that says cuda is left alone. Comments are never touched.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from ...rules.model import Rule
from ..engine import Matcher
from . import names as n

_TEXT_RULES = {
    "torch.cuda": "torch.musa",
    "torch.backends.cudnn": "torch.backends.mudnn",
    ".cuda(": ".musa(",
    ".is_cuda": ".is_musa",
    "'cuda'": "'musa'",
    '"cuda"': '"musa"',
    "'cuda:": "'musa:",
    '"cuda:': '"musa:',
    "'nccl'": "'mccl'",
    '"nccl"': '"mccl"',
    "CUDA_VISIBLE_DEVICES": "MUSA_VISIBLE_DEVICES",
    "torch.utils.cpp_extension": "torch_musa.utils.musa_extension",
    "CUDAExtension": "MUSAExtension",
    "CUDA_HOME": "MUSA_HOME",
}


def fallback_matcher(renames: Mapping[str, str]) -> Matcher:
    return _matcher(tuple(sorted(renames.items())))


@lru_cache(maxsize=8)
def _matcher(renames: tuple[tuple[str, str], ...]) -> Matcher:
    rules = {k: Rule(k, v, n.FAMILY, note="text rule") for k, v in _TEXT_RULES.items()}
    rules.update((k, n.rename_rule(k, v)) for k, v in renames)
    return Matcher(rules, include_targets=False)  # '"cuda"' is a device here, not a header
