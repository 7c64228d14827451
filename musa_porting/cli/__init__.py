"""The ``musa-port`` command line: a thin layer over the library (``tree.porter``,
``compile.build``, ``compile.verify``, ``rules``); one module per command, the group
in ``app``.

Exit codes: 0 success, 1 findings remain under --check, 2 bad input or usage (nothing
written), 3 internal error, 130 interrupted (Ctrl-C; 143 SIGTERM, 129 SIGHUP), 141 stdout's
reader went away (``| head``), quietly.

This module imports nothing heavy: ``musa-port --version`` answers before click is
imported, so it costs no more than starting Python.
"""

from __future__ import annotations

import gc
import sys


def main(argv=None) -> None:
    """Console entry point."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args in (["--version"], ["-V"]):
        from .. import __version__

        sys.stdout.write(f"musa-port, version {__version__}\n")
        return
    gc.disable()  # the imports make thousands of objects, and no garbage
    try:
        from .app import main as app_main
    finally:
        gc.enable()
    try:
        app_main(args)
    finally:
        if argv is None:  # the process ends here: Python's last collection need not walk
            gc.freeze()  # what the run made (the manifest's 100,000 objects)


def __getattr__(name: str):
    # ``from musa_porting.cli import run, cli`` (musa-converter, older callers).
    if name in ("run", "cli", "folder_hint"):
        from . import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
