"""musa-port: port CUDA source trees to MUSA, the CUDA-compatible platform of Moore
Threads GPUs.

The public names are imported lazily, so ``musa-port --help`` and
``python -m musa_porting.simple_porting`` start fast and cleanly.
"""

from __future__ import annotations

__version__ = "0.1.0"

_EXPORTS = {
    "PortError": "errors",
    "PortOptions": "tree.options",
    "PortResult": "tree.result",
    "port_tree": "tree.porter",
    "SimplePorting": "simple_porting",
    "port_text": "port.text",
}

__all__ = [*_EXPORTS, "__version__"]


def __getattr__(name: str):
    if name in _EXPORTS:
        import importlib

        module = importlib.import_module(f".{_EXPORTS[name]}", __name__)
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
