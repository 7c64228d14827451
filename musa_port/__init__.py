"""``musa_port``: musa-port's package under a second name, which a project's own
``musa_porting.py`` cannot shadow.

Python puts a script's folder first on ``sys.path``, so where a project keeps a script
called ``musa_porting.py`` (vLLM's MUSA forks port with ``python musa_porting.py``),
``import musa_porting`` finds the script, not the package. ``from musa_port import
SimplePorting`` works there. This name is not a copy: its ``__path__`` is the
``musa_porting`` folder, whose files load under it (``musa_port.simple_porting``), found
beside this file without asking ``sys.path`` for ``musa_porting``.
"""

import os as _os

_HERE = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
_REAL = _os.path.join(_HERE, "musa_porting")
__path__ = [_REAL]
_INIT = _os.path.join(_REAL, "__init__.py")
with open(_INIT, "rb") as _fh:
    exec(compile(_fh.read(), _INIT, "exec"))  # noqa: S102 - the package's own lazy exports
