"""Errors a user can act on. The CLI prints them as one line and exits 2."""

from __future__ import annotations


class PortError(Exception):
    """Bad input: a rule file, a path, an unreadable file. Nothing has been written."""

    exit_code = 2

    def __init__(self, message: str, path: str | None = None, line: int | None = None,
                 column: int | None = None):
        self.message = message
        self.path = path
        self.line = line
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = str(self.path)
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
        return where + self.message


class InputError(PortError):
    """One input could not be read (permission, deleted or replaced after the walk):
    the tree's run reports it as a finding about that input (MP0004) and goes on."""


def internal_error(exc: BaseException) -> str:
    """The one line a bug gets: what it was, and how to see where (the trace is for
    ``MUSA_PORT_DEBUG=1``)."""
    return (f"internal error: {type(exc).__name__}: {exc} (set MUSA_PORT_DEBUG=1 for "
            "details; please report it)")
