"""Recovery after an interrupted run: the journal lists every temp file a run may
leave in the output, so the next run can remove them before it starts."""

from __future__ import annotations

import os
from collections.abc import Iterable

from .manifest import JOURNAL_NAME, TMP_SUFFIX


def journal_path(out: str) -> str:
    return os.path.join(out, JOURNAL_NAME)


def write_journal(out: str, tmp_rels: Iterable[str]) -> None:
    with open(journal_path(out), "w", encoding="utf-8") as fh:
        fh.write("\n".join(tmp_rels) + "\n")


def clear_journal(out: str) -> None:
    path = journal_path(out)
    if os.path.exists(path):
        os.unlink(path)


def recover(out: str) -> None:
    """Remove the temp files an interrupted run left (listed in its journal)."""
    journal = journal_path(out)
    try:
        with open(journal, encoding="utf-8") as fh:
            names = [line.strip() for line in fh if line.strip()]
    except OSError:
        return
    for rel in names:
        path = os.path.join(out, rel)
        if rel.endswith(TMP_SUFFIX) and os.path.lexists(path):
            os.unlink(path)
    os.unlink(journal)
