"""Words of a build file, each with where it stands: the unit the build rewrites and
the build findings work on, whatever the file's language (CMake, Make, shell).

A word knows whether it is code, a string, a pattern or prose, because the rules
differ: code is rewritten in full; a string that holds several words (a flag list,
a message) only where a word is plainly a build token (a variable reference, a path,
a flag, a file name), never a bare word, so "Building with nvcc" stays; a pattern (a
regular expression, a ``string(FIND)`` needle) only in variable references and file
names; prose (``message()``, ``echo``, ``COMMENT``, doc strings) only in variable
references; raw text (a CMake bracket argument) never. Comments are not words at all:
they are never rewritten, nor scanned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CODE = "code"
STRING = "string"
PATTERN = "pattern"
TEXT = "text"
RAW = "raw"  # a CMake bracket argument: read as written, never rewritten, still scanned

_SPLIT = re.compile(r"[^\s]+")


@dataclass(frozen=True)
class Word:
    """A word of a build file: its byte span, its text and where it stands."""

    start: int
    end: int
    text: str
    where: str


def split_words(text: str, start: int, end: int, where: str, seps: str = "") -> list[Word]:
    """The words of ``text[start:end]`` (split at whitespace, and at ``seps``)."""
    if seps:
        pattern = re.compile("[^\\s" + re.escape(seps) + "]+")
    else:
        pattern = _SPLIT
    return [Word(m.start(), m.end(), m.group(), where) for m in pattern.finditer(text, start, end)]


def string_words(text: str, start: int, end: int, seps: str = "") -> list[Word]:
    """The words of a quoted string's body: one word is code (``"nvcc"`` names the
    compiler), several are a string (a flag list or a sentence)."""
    words = split_words(text, start, end, STRING, seps)
    if len(words) == 1:
        w = words[0]
        return [Word(w.start, w.end, w.text, CODE)]
    return words

