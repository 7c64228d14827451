"""What a port is asked to do: the options of one run (the CLI and SimplePorting
both build a ``PortOptions``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..port.filenames import DEFAULT_SOURCE_EXTENSIONS

SKIP_KINDS = ("comments", "strings")


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
    symbols_backend: str = "lexer"  # "lexer", or "clang" (pip install 'musa-port[clang]')
    defines: Sequence[str] = ()  # -D for the clang back end
    compile_commands: str | None = None  # compile_commands.json for the clang back end
    rename_paths: bool = False  # vocabulary words in folder and source file names too
    vocab_files: Sequence[str] = ()  # extra vocabulary files (--vocab)
