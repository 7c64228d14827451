"""musa-port: port CUDA source trees to MUSA, the CUDA-compatible platform of Moore
Threads GPUs."""

from __future__ import annotations

__version__ = "0.1.0"

from .errors import PortError  # noqa: E402
from .porter import PortOptions, PortResult, port_tree  # noqa: E402
from .simple_porting import SimplePorting  # noqa: E402

__all__ = ["PortError", "PortOptions", "PortResult", "SimplePorting", "port_tree", "__version__"]
