"""Helpers of the round-4 reliability tests (issue 37): musa-port and musa-converter
run in this process, as a user would run them, with what they printed."""

from __future__ import annotations

import contextlib
import io
import signal
from dataclasses import dataclass


@dataclass
class Run:
    code: int
    out: bytes
    err: str

    def one_error(self, code: int = 2) -> str:
        """The run failed with ``code`` and exactly one ``error:`` line, no traceback."""
        assert self.code == code, (self.code, self.err)
        assert "Traceback" not in self.err, self.err
        errors = [ln for ln in self.err.splitlines() if ln.startswith("error: ")]
        assert len(errors) == 1, self.err
        return errors[0]


def run_main(args: list, converter: bool = False) -> Run:
    """``musa-port ARGS`` (or ``musa-converter ARGS``) in this process; the signal
    handlers it installs are put back."""
    if converter:
        from musa_porting.musa_converter import main
    else:
        from musa_porting.cli.app import main

    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    err = io.StringIO()
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8")
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        for s, h in handlers.items():
            signal.signal(s, h)
    out.flush()
    return Run(code, raw.getvalue(), err.getvalue())
