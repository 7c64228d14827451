"""A project's own ``musa_porting.py`` hides this package.

Python puts a script's folder first on ``sys.path``, so in a folder holding a script
named ``musa_porting.py`` (vllm_musa ships one), ``import musa_porting`` finds that
script instead of this package, and ``python musa_porting.py`` that imports
SimplePorting from it fails with a circular import, before any code of ours runs.
The package is also importable as ``musa_port`` (see ``musa_port/__init__.py``), which
such a script cannot hide; the places where our code does run (the console commands,
``SimplePorting.run()``) look for such a file and say so, with both fixes. Code that
already imports ``musa_port`` is not warned: the script does not hide it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

SCRIPT = "musa_porting.py"
ALIAS = "musa_port"  # the second name of the package, which SCRIPT cannot shadow


def shadowing_script(folders: Iterable[str]) -> str | None:
    """The first ``musa_porting.py`` in ``folders``, or None."""
    for folder in folders:
        path = os.path.join(folder, SCRIPT)
        if os.path.isfile(path):
            return path
    return None


def shadow_warning(folders: Iterable[str] | None = None) -> str | None:
    """One line naming the script that shadows the package, and the fix; None when
    there is none. By default: the working folder and the running script's folder."""
    if folders is None:
        folders = [os.getcwd()]
        main = getattr(sys.modules.get("__main__"), "__file__", None)
        if main:
            folders.append(os.path.dirname(os.path.abspath(main)))
    if __name__.split(".")[0] == ALIAS:
        return None  # loaded as musa_port: the script hides nothing from this caller
    path = shadowing_script(folders)
    if path is None:
        return None
    shown = os.path.relpath(path) if not os.path.relpath(path).startswith("..") else path
    return (f"warning: {shown} shadows the musa_porting package for scripts run from its folder "
            f"(`python {SCRIPT}` fails with a circular import); import `{ALIAS}` instead "
            f"(`from {ALIAS} import SimplePorting`), or rename it, e.g. to port_to_musa.py")
