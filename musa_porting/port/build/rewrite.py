"""Rewriting the words of a build file: nvcc options, and the toolchain's names.

One ``Rewriter`` per file collects ``Change``s and ``Note``s (``build_edits``: an arch that
does not map 1:1, a dropped nvcc option), statement by statement. The CMake, Make and
shell porters feed it the words their lexers found, plus what they know of the context
(a link command's bare library names, a compile-definitions command's macro names).
Here are the nvcc options, which may take the next word as their value;
``build_word_names`` decides the names within each remaining word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from . import nvcc_flags as nf
from .context import ARCH_NOTE, BuildContext
from .edits import Change, Edits, Note
from .word_names import REF, TARGET, word_edits
from .words import CODE, STRING, Word

_ARCH_LIST = re.compile(r"TORCH_CUDA_ARCH_LIST\}?\s*(?:[?:+]?=)?\s*[\"']?"
                        r"(?P<v>\d+\.\d+(?:\+PTX)?(?:[; ,]+\d+\.\d+(?:\+PTX)?)*)")

__all__ = ["ARCH_NOTE", "REF", "TARGET", "BuildContext", "Change", "Note", "Rewriter"]


class Rewriter(Edits):
    """Rewrites one build file's statements (``text``: Latin-1) into its ``Edits``."""

    def __init__(self, text: str, ctx: BuildContext):
        super().__init__(text)
        self.ctx = ctx

    # -- statements --------------------------------------------------------------------

    def statement(self, words: Sequence[Word], *, link: bool = False, defs: bool = False,
                  dirs: bool = False) -> None:
        """Rewrite one statement's words: nvcc options first (they may take the next
        word as their value), then each remaining word's names."""
        arch_written = False
        if words and "TORCH_CUDA_ARCH_LIST" in self.text[words[0].start:words[-1].end]:
            self.arch_list(words)
        i = 0
        while i < len(words):
            w = words[i]
            m = nf.match_flag(w.text) if w.where in (CODE, STRING) else None
            if m is not None:
                used, arch_written = self.flag(words, i, m, arch_written)
                if used:
                    i += used
                    continue
            self.word(w, link=link, defs=defs, dirs=dirs)
            i += 1

    def flag(self, words: Sequence[Word], i: int, m: nf.FlagMatch, arch_written: bool
             ) -> tuple[int, bool]:
        """One nvcc option at ``words[i]``: returns (words used, an arch flag written)."""
        w, opt = words[i], m.option
        value, end, used = m.value, w.end, 1
        sep = ""  # what separates the option from a value of its own (" ", ";", ...)
        if opt.value and not m.joined:
            nxt = words[i + 1] if i + 1 < len(words) else None
            if nxt is not None and nxt.start == w.end:
                nxt = None  # -L"$X/lib": the same word goes on, quoted; not a value of its own
            flag_like_ok = opt.action in (nf.HOST, nf.DROP) or opt.short == "-Xlinker"
            if nxt is not None and (flag_like_ok or not nxt.text.startswith("-")):
                quoted = self._quoted_group(w, nxt)
                if quoted is not None and opt.action in (nf.HOST, nf.DROP, nf.ARCH):
                    value, end = quoted
                    used = 1 + sum(1 for x in words[i + 1:] if x.start < end)
                else:
                    value, end, used = nxt.text, nxt.end, 2
                    sep = self.text[w.end:nxt.start]
        if opt.action == nf.ARCH:
            if value is None:
                return 0, arch_written
            return used, self.arch(w, value, end, arch_written, ";" in sep) or arch_written
        if opt.action == nf.HOST:
            if value is None:
                return 0, arch_written
            self.change(w.start, end, nf.host_flags(value))
            return used, arch_written
        if opt.action == nf.DROP:
            if self.drop(w.start, end):
                self.note("MP3105", w.start, end, f"dropped nvcc's '{self.text[w.start:end]}' "
                          f"({opt.long})", opt.note)
            return used, arch_written
        if opt.action == nf.LEFT:
            self.note("MP3102", w.start, w.end, f"'{w.text}' is nvcc's {opt.long}, which mcc "
                      "does not have", opt.note)
            return 1, arch_written
        if opt.action == nf.SAME:
            return 0, arch_written
        return self.mapped(w, m, value, end, used), arch_written

    def mapped(self, w: Word, m: nf.FlagMatch, value: str | None, end: int, used: int) -> int:
        """A ``map``/``lang`` option: its mcc spelling (words used; 0 leaves the word to
        the name rules)."""
        opt = m.option
        if opt.value and value is None:
            return 0  # gcc's bare -Werror and the like: not nvcc's form
        template = opt.mcc if isinstance(opt.mcc, str) else ""
        if opt.action != nf.LANG and not m.joined and template in (w.text + "{}", w.text + " {}"):
            return 0  # -I dir, -o x: mcc takes the same spelling; the value is a word
        if opt.action == nf.LANG:
            if value != "cu":
                return 0
            new = nf.mcc_spelling(opt, value)
        elif template.endswith(" {}") and not m.joined:
            # -MF x.d, -o x: only the option's spelling changes; the value is a word.
            self.change(w.start, w.end, template[:-3])
            return 1
        else:
            new = nf.mcc_spelling(opt, value)
        if new is None:
            return 0
        original = self.text[w.start:end]
        if new == original:
            return 0
        done = self.drop(w.start, end) if new == "" else self.change(w.start, end, new)
        if opt.note and done:
            self.note("MP3105", w.start, end, f"nvcc's '{original}' became "
                      f"'{new or '(nothing)'}'", opt.note)
        return used

    def arch(self, w: Word, value: str, end: int, written: bool, in_list: bool = False) -> bool:
        """An arch option (``-arch``, ``-code``, ``-gencode``): the first of a statement
        becomes the --arch flags, the others go. Returns True when flags were written."""
        original = self.text[w.start:end]
        if REF.search(value) and w.text.split("=")[0] in ("-arch", "--gpu-architecture"):
            new = f"--offload-arch={value}"
            if self.change(w.start, end, new):
                self.note("MP3104", w.start, end, f"nvcc's '{original}' became '{new}': "
                          f"{value} must now name MUSA arches", "set it to "
                          + ",".join(self.ctx.arches) + "; " + ARCH_NOTE)
            return True
        if written:
            if self.drop(w.start, end):
                self.note("MP3104", w.start, end, f"dropped nvcc's '{original}': the "
                          "--offload-arch flags before it cover the MUSA arches",
                          "nothing to do; " + ARCH_NOTE)
            return False
        t = self.text
        in_list = in_list or (w.start > 0 and t[w.start - 1] == ";") or (end < len(t) and t[end] == ";")
        flags = self.ctx.offload_flags(";" if in_list else " ")
        if self.change(w.start, end, flags):
            self.note("MP3104", w.start, end, f"nvcc's '{original}' became '{flags}': sm "
                      "numbers do not map 1:1 to MUSA arches", ARCH_NOTE)
        return True

    def arch_list(self, words: Sequence[Word]) -> None:
        """``TORCH_CUDA_ARCH_LIST="7.0 8.0+PTX"`` (an assignment, ``set()``, ``export``): the
        value becomes torch_musa's TORCH_MUSA_ARCH_LIST numbers for --arch ("22")."""
        start, end = words[0].start, words[-1].end
        for m in _ARCH_LIST.finditer(self.text, start, end):
            s, e = m.span("v")
            if not any(w.start <= s < w.end and w.where in (CODE, STRING) for w in words):
                continue  # prose: echo "TORCH_CUDA_ARCH_LIST=8.0"
            new = ";".join(a.removeprefix("mp_") for a in self.ctx.arches)
            if self.change(s, e, new):
                self.note("MP3104", s, e, f"TORCH_CUDA_ARCH_LIST '{m.group('v')}' became "
                          f"TORCH_MUSA_ARCH_LIST '{new}' (from --arch): sm numbers do not map "
                          "1:1 to MUSA arches", ARCH_NOTE)

    def _quoted_group(self, flag: Word, nxt: Word) -> tuple[str, int] | None:
        """When ``nxt`` opens a quoted string of its own (``-Xcompiler "-fPIC -O2"``), the
        string's body and the index just past its closing quote."""
        t = self.text
        q = nxt.start - 1
        if q <= flag.end or t[q] not in "\"'" or nxt.where != STRING:
            return None
        close = t.find(t[q], nxt.start)
        if close < 0:
            return None
        return t[nxt.start:close], close + 1

    # -- words -------------------------------------------------------------------------

    def word(self, w: Word, *, link: bool = False, defs: bool = False, dirs: bool = False) -> None:
        """The names in one word, by where it stands."""
        found, notes = word_edits(w, self.ctx, link=link, defs=defs, dirs=dirs)
        self.apply_word(w.start, found, notes)
