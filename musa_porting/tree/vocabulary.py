"""The vocabulary of a run (the words its names and paths are renamed by), in its own
module: a no-change re-run renames paths with it but indexes no symbol, so it does not
import the symbol pass."""

from __future__ import annotations

from ..rules.vocabulary import Vocabulary, build_vocabulary
from .options import PortOptions
from .vendor_folders import DEFAULT_WORD


def run_vocabulary(opts: PortOptions) -> Vocabulary:
    """The vocabulary of a run: the shipped words (unless --no-default-rules), --vocab
    files, and the ``vocabulary:`` sections of the rule files, in that order; MUSA to
    CUDA for --reverse. Forward, the vendor word too (NVIDIA -> --vendor-word)."""
    sections = []
    if opts.rule_files:
        from ..rules.files import vocabulary_section  # the rule files' readers

        for path in opts.rule_files:
            section = vocabulary_section(path)
            if section is not None:
                sections.append((str(path), section))
    vocab = build_vocabulary(default=opts.default_rules, files=opts.vocab_files, sections=sections)
    if opts.reverse:
        return vocab.reversed()
    word = opts.vendor_word if opts.vendor_word is not None else DEFAULT_WORD
    return vocab.with_vendor_word(word) if opts.default_rules else vocab
