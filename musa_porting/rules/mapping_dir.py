"""Where the shipped tables are: ``mapping/`` inside the installed package (the wheel)
or beside it (a source checkout). Its own module, because the table loader
(``tables.py``) and the vocabulary (``vocabulary.py``) both need it and each other's
names would otherwise go in a circle."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..errors import PortError

if TYPE_CHECKING:
    from pathlib import Path


def default_mapping_dir() -> Path:
    """The tables shipped with the package (wheel) or beside it (source checkout)."""
    from pathlib import Path  # here: a no-change re-run imports this module, not pathlib

    return Path(default_mapping_folder())


def default_mapping_folder() -> str:
    """``default_mapping_dir`` as a string, found without pathlib."""
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # musa_porting
    for candidate in (os.path.join(here, "mapping"), os.path.join(os.path.dirname(here), "mapping")):
        if os.path.isdir(candidate):
            return candidate
    raise PortError(f"default mapping tables not found (looked in {os.path.join(here, 'mapping')} "
                    f"and {os.path.join(os.path.dirname(here), 'mapping')}); reinstall musa-port")
