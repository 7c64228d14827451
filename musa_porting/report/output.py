"""Writing a report file: atomically (a CI job may read it while we write), or to
stdout for ``-``."""

from __future__ import annotations

import os
import sys


def write_text(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
        return
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    os.replace(tmp, path)
