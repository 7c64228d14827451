"""What a port is asked to do: the options of one run (the CLI and SimplePorting
both build a ``PortOptions``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..errors import PortError
from ..port.filenames import DEFAULT_SOURCE_EXTENSIONS

if TYPE_CHECKING:
    from ..merge.layout import Layout

SKIP_KINDS = ("comments", "strings")
# torch_musa's arches (TORCH_MUSA_ARCH_LIST 10, 21, 22, 31, 32), as mcc spells them.
MUSA_ARCHES = ("mp_10", "mp_21", "mp_22", "mp_31", "mp_32")


@dataclass
class PortOptions:
    """Everything that decides what a port produces."""

    src: str
    output: str | None = None
    ignore: Sequence[str] = ()
    rule_files: Sequence[str] = ()
    inline_rules: Mapping[str, str] | None = None
    default_rules: bool = True
    mapping_dir: str | None = None
    skip: Sequence[str] = ()
    include_dirs: Sequence[str] = ()
    extensions: Sequence[str] = DEFAULT_SOURCE_EXTENSIONS
    keep: Sequence[str] = ()  # CUDA-looking names that are meant to stay (not residuals)
    disable_families: Sequence[str] = ()  # table families to switch off (e.g. "nccl")
    enable_families: Sequence[str] = ()  # families that are off by default, switched on
    reverse: bool = False  # MUSA -> CUDA with the inverted tables (.mu -> .cu)
    python: bool = True  # port .py files (torch.cuda -> torch.musa, ...); False copies them
    launch: Sequence[str] = ()  # .py files that get `import torch_musa` (the scripts run)
    jobs: int | None = None  # processes for porting files (None: the number of CPUs)
    dry_run: bool = False  # compute everything, write nothing
    collect_diff: bool = False  # keep old and new bytes of every changed file
    progress: Callable[[int, int], None] | None = None  # (files done, files total)
    # The tree's own CUDA-named symbols (MYLIB_CUDA_CHECK -> MYLIB_MUSA_CHECK): on by default.
    project_symbols: bool = True
    # Also rename the tree's names that Python calls by name (pybind11, TORCH_LIBRARY),
    # and the Python files of the run that call them; kept by default.
    rename_exported: bool = False
    # What other ports decided (tree/rename_map.py): their renames, applied here too, and
    # the names they use unrenamed (name -> that port's source folder), not renamed here.
    outside_renames: Mapping[str, str] = field(default_factory=dict)
    outside_kept: Mapping[str, str] = field(default_factory=dict)
    symbols_backend: str = "lexer"  # "lexer", or "clang" (pip install 'musa-port[clang]')
    defines: Sequence[str] = ()  # -D for the clang back end
    compile_commands: str | None = None  # compile_commands.json for the clang back end
    # Vocabulary words in folder and file names too (csrc/cuda/gemm_cuda.cu ->
    # csrc/musa/gemm_musa.mu), as human porters do; SimplePorting keeps torch_musa's layout.
    rename_paths: bool = True
    vocab_files: Sequence[str] = ()  # extra vocabulary files (--vocab)
    # The word NVIDIA becomes in the tree's own names, folders and messages (gpu_info_nvidia
    # -> gpu_info_musa); "" leaves it (--vendor-word). None: the tree's, by how its backend
    # folders are named (tree/vendor_folders.py: musa, or moore among per-vendor folders).
    vendor_word: str | None = None
    build_files: bool = True  # port CMake files, Makefiles and shell scripts (see tree/kinds)
    arch: Sequence[str] = ("mp_22",)  # MUSA arches that nvcc's -arch/-gencode become
    # Extension renames of ported files, with dots, instead of .cu -> .mu, .cuh -> .muh
    # (SimplePorting's EXT_REPLACED_MAPPING; {".cu": ".cu"} keeps the names).
    renames: Mapping[str, str] | None = None
    # Each file's output name from its name (SimplePorting's change_filename, when a
    # caller replaces it); None: the extension renames above, for ported files only.
    file_name: Callable[[str], str] | None = None
    # Replace or remove paths in the output that musa-port did not write (see
    # write/output_state.py); by default the run stops with exit 2 naming the first.
    force: bool = False
    # What SimplePorting switches off to write the tree torch_musa's SimplePorting writes
    # (docs/simple-porting.md); the command line has them all on.
    torch_musa_tables: bool = False  # only the renames of torch_musa's tables (rules/torch_musa.py)
    text_rules: bool = False  # user rules as text replacement, torch_musa's order (port/text_rules.py)
    arch_values: bool = True  # __CUDA_ARCH__ >= 800 -> >= 220 (port/cxx/arch_values.py)
    # CUDA words standing alone in comments and strings (port/cxx/messages.py), and strings
    # that name CUDA libraries and variables (port/cuda_strings.py)
    messages: bool = True
    # Every file of the tree ported as C/C++/CUDA text is, by the tables and the rules (as
    # torch_musa ports every file); files that are not text copied.
    text_files: bool = False
    wait: float = 600.0  # seconds to wait for another run writing the same output
    paranoid: bool = False  # compare inputs by sha256 too, not only size, mtime, ctime
    # --base-from: the upstream (a folder, or a git ref of SRC) that OUT, a port musa-port
    # did not make, was made from (merge/base_from.py)
    base_from: str | None = None
    # Where a fork keeps the port of each input (merge/layout.py): learned by --base-from
    layout: Layout | None = None


def parse_arches(values: Sequence[str]) -> tuple[str, ...]:
    """``--arch mp_21,mp_22 --arch 31`` -> ("mp_21", "mp_22", "mp_31"); default mp_22."""
    out: list[str] = []
    for v in values:
        for item in v.split(","):
            item = item.strip()
            if not item:
                continue
            arch = item if item.startswith("mp_") else "mp_" + item
            if arch not in MUSA_ARCHES:
                raise PortError(f"{item}: expected one of " + ", ".join(MUSA_ARCHES))
            if arch not in out:
                out.append(arch)
    return tuple(out) or ("mp_22",)
