"""MkDocs hook: ``<!-- help: MODULE -->`` in a page becomes the ``--help`` of ``python -m
MODULE``, run at build time, so pages of commands that are not click commands (mkdocs-click
documents those) cannot disagree with their help either."""

from __future__ import annotations

import os
import re
import subprocess
import sys

MARK = re.compile(r"<!-- help: ([\w.]+) -->")


def _help(match: re.Match) -> str:
    module = match.group(1)
    proc = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "88"}, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"python -m {module} --help failed: {proc.stderr.strip()}")
    return f"```\n{proc.stdout.rstrip()}\n```"


def on_page_markdown(markdown: str, **_) -> str:
    return MARK.sub(_help, markdown)
