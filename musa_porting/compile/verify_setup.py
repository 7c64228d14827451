"""What ``musa-port verify`` passes to its compilers besides the shim: the include
folders and macros a project's own CUDA build would have, gathered without asking the
user for any of them.

- torch's folders and flags (``torch_env``), when the tree includes torch's headers
  (or always with ``--torch``; never with ``--no-torch``);
- the CUDA toolkit's include folders from the nvcc verify runs (the host compiler
  needs them for ``cuda_runtime_api.h``, ``cublas_v2.h``...; nvcc has them already);
- the macros the CUDA build defines for its GPU part: the build macros the port
  renamed (``WITH_CUDA`` of a setup.py's ``define_macros`` -> ``WITH_MUSA``: the project
  plan in the manifest, ``analyze/build_symbols``), and the CUDA or MUSA on-switches
  the sources test (``#ifdef WITH_CUDA`` where no build file of the tree defines it),
  but not a macro the tree defines itself;
- stand-ins for the headers a CUDA build of torch generates and a CPU wheel lacks.

The user's ``-I`` and ``-D`` come first and last: their folders are searched first,
their macros are defined after (and so over) these.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..analyze.enable_macros import backend_switches
from ..port.filenames import DEFAULT_SOURCE_EXTENSIONS
from ..safe_open import read_regular
from .include_path import HeaderFinder, stand_ins, system_dirs, toolkit_dirs
from .torch_env import TorchEnv, find_torch, uses_torch

BUILD_MACRO = "build macro"  # analyze.build_symbols.KIND
_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.M)


@dataclass
class Setup:
    """Everything verify adds to the user's options, and what it says about it."""

    std: str
    include_dirs: list[str]  # every compile's, after the user's: torch's, the NVIDIA wheels'
    host_dirs: list[str]  # the host compiler's too: the CUDA toolkit's
    host_system_dirs: list[str]  # CCCL's, as nvcc.profile adds them
    defines: list[str]  # torch's, the build's GPU switches (before the user's -D)
    nvcc_flags: list[str] = field(default_factory=list)
    torch: TorchEnv | None = None
    torch_looked: list[str] = field(default_factory=list)  # where no torch was found, and why
    notes: list[str] = field(default_factory=list)


@dataclass
class TreeFacts:
    """What verify reads from the ported tree: macros it defines itself, the GPU
    switches its sources test, the build macros the port renamed."""

    own_macros: set[str]
    switches: set[str]
    build_macros: set[str]


def _read(path: Path) -> bytes:
    try:
        return read_regular(str(path))
    except OSError:
        return b""  # a link to a device or a FIFO: not a source to read


def tree_facts(out: Path, rels: Iterable[str], project: Mapping) -> TreeFacts:
    own: set[str] = set()
    switches: set[str] = set()
    for rel in rels:
        if os.path.splitext(rel)[1] in DEFAULT_SOURCE_EXTENSIONS:
            data = _read(out / rel)
            own.update(m.decode() for m in _DEFINE.findall(data))
            switches |= backend_switches(data)
    built = {row[1] for row in project.get("renames", [])
             if any(len(s) > 3 and s[3] == BUILD_MACRO for s in row[2])}
    return TreeFacts(own, switches, built)


def prepare(*, torch_mode: str, torch_python: str | None, std: str | None,
            nvcc: str, includes: Iterable[str],
            facts: TreeFacts) -> Setup:
    """The setup of one verify run. ``includes``: the out-of-tree include targets of
    the files it compiles (do they use torch?)."""
    torch, looked = None, []
    if torch_mode == "on" or (torch_mode == "auto" and uses_torch(includes)):
        torch, looked = find_torch(torch_mode, torch_python)
    notes = []
    if torch is not None:
        notes.append(f"against {torch.note()}: its include folders and CUDAExtension's flags")
    elif looked:
        notes.append("the tree includes torch's headers, but no torch was found ("
                     + "; ".join(looked) + "): install torch there, or name a Python that has "
                     "it with --torch-python")
    plain, system = toolkit_dirs(nvcc)
    dirs = [*(torch.include_dirs if torch else []), *(torch.library_include_dirs if torch else [])]
    defines = [*(torch.defines if torch else ()),
               *sorted((facts.switches | facts.build_macros) - facts.own_macros)]
    return Setup(std=std or (torch.std if torch else "c++17"),
                 include_dirs=dirs, host_dirs=plain, host_system_dirs=system,
                 defines=defines, nvcc_flags=list(torch.nvcc_flags) if torch else [],
                 torch=torch, torch_looked=looked, notes=notes)


def header_finder(setup: Setup, user_dirs: list[str], shim_dir: Path,
                  shim_headers: Mapping[str, str], cxx: str) -> Callable[[str], bool]:
    """Whether an include target is on the compiles' path: a shim header whose CUDA
    header is, a stand-in of the shim, or a header in the folders verify passes or the
    host compiler searches by itself."""
    plain = HeaderFinder([*user_dirs, *setup.include_dirs, *setup.host_dirs, *setup.host_system_dirs,
                          *system_dirs(cxx)])

    def on_path(target: str) -> bool:
        cuda = shim_headers.get(target)
        if cuda is not None:
            return plain(cuda[1:-1])
        return (shim_dir / target).is_file() or plain(target)

    return on_path


def write_stand_ins(setup: Setup, user_dirs: list[str], shim_dir: Path) -> None:
    for name in stand_ins([*user_dirs, *setup.include_dirs], shim_dir):
        setup.notes.append(f"{name}: a stand-in in the shim (a CUDA build of torch generates it; "
                           "this torch has none)")
