"""An output's facts for the check that the ported tree hangs together (``check/``),
gathered where the file is ported (in the worker): the check after the port then joins
them without reading the outputs again."""

from __future__ import annotations

import os

from ..check.facts import kind_by_name
from ..check.gather import gather
from ..write.files import read_file
from .vendored import in_library
from .walk import Entry


def output_facts(libraries: frozenset[str], rel: str, out_rel: str, kind: str | None,
                 data: bytes) -> tuple[dict | None, str]:
    """The facts of output ``out_rel`` (input ``rel``) holding ``data``, and a warning
    when gathering them failed (a bug of the check: the file is ported all the same,
    and ``musa-port check`` reads it again). None to read in a vendored library, where
    the port renames nothing, so no reference can break."""
    if in_library(rel, libraries):
        return ({} if kind is not None else None), ""
    try:
        return gather(kind, out_rel, data), ""
    except Exception as exc:  # noqa: BLE001 - one file's facts never end the port
        if os.environ.get("MUSA_PORT_DEBUG"):
            raise
        what = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
        return None, (f"{out_rel}: warning: could not read what it names for the check that "
                      f"the tree hangs together ({what}); 'musa-port check' reads it again; "
                      "please report it")


def copied_facts(libraries: frozenset[str], e: Entry, out_rel: str, src_path: str,
                 data: bytes | None) -> tuple[dict | None, str]:
    """The facts of a source copied as it is (--no-python, a MUSA twin): its bytes'."""
    kind = kind_by_name(out_rel)
    if kind is None:
        return None, ""
    return output_facts(libraries, e.rel, out_rel, kind, read_file(src_path, e.identity)
                        if data is None else data)
