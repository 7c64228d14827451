"""Where the shipped tables are: ``mapping/`` inside the installed package (the wheel)
or beside it (a source checkout). Its own module, because the table loader
(``tables.py``) and the vocabulary (``vocabulary.py``) both need it and each other's
names would otherwise go in a circle."""

from __future__ import annotations

from pathlib import Path

from ..errors import PortError


def default_mapping_dir() -> Path:
    """The tables shipped with the package (wheel) or beside it (source checkout)."""
    here = Path(__file__).resolve().parent.parent  # the musa_porting package
    for candidate in (here / "mapping", here.parent / "mapping"):
        if candidate.is_dir():
            return candidate
    raise PortError(f"default mapping tables not found (looked in {here / 'mapping'} "
                    f"and {here.parent / 'mapping'}); reinstall musa-port")
