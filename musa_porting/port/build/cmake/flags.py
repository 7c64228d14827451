"""CMake's CUDA compile settings (``CMAKE_CUDA_ARCHITECTURES``, ``CMAKE_CUDA_STANDARD``,
``cuda_select_nvcc_arch_flags``) become ``MUSA_MCC_FLAGS``; a flags variable changed after
``musa_add_library`` has read it gets a note."""

from __future__ import annotations

from collections.abc import Callable

from ..rewrite import ARCH_NOTE, BuildContext, Rewriter
from ..words import CODE, split_words
from .lexer import Command
from .targets import TargetCommands

_FLAG_VARS = frozenset({"CMAKE_CUDA_FLAGS", "CUDA_NVCC_FLAGS", "MUSA_MCC_FLAGS"})


class FlagCommands:
    """The commands of one CMake file that set the device compiler's flags."""

    def __init__(self, rw: Rewriter, targets: TargetCommands):
        self.rw = rw
        self.targets = targets  # the musa_add_library calls made so far

    def handlers(self) -> dict[str, Callable[[Command], None]]:
        return {"set": self.set_var, "string": self.append_string, "list": self.append_list,
                "cuda_select_nvcc_arch_flags": self.cuda_select_nvcc_arch_flags}

    def set_var(self, cmd: Command) -> None:
        if not cmd.args:
            return
        var = cmd.args[0].value
        values = [a.value for a in cmd.args[1:] if a.value not in ("CACHE", "STRING", "FORCE")
                  and a.kind != "bracket"]
        if var == "CMAKE_CUDA_ARCHITECTURES":
            flags = self.rw.ctx.offload_flags()
            self.rw.change(cmd.start, cmd.end, f'string(APPEND MUSA_MCC_FLAGS " {flags}")')
            self.rw.note("MP3104", cmd.start, cmd.end, f"CMAKE_CUDA_ARCHITECTURES "
                         f"{';'.join(values[:1]) or '(empty)'} became {flags} in MUSA_MCC_FLAGS: "
                         "sm numbers do not map 1:1 to MUSA arches", ARCH_NOTE)
        elif var == "CMAKE_CUDA_STANDARD" and values and values[0].isdigit():
            std = f"-std=c++{values[0]}"
            self.rw.change(cmd.start, cmd.end, f'string(APPEND MUSA_MCC_FLAGS " {std}")')
            self.rw.note("MP3107", cmd.start, cmd.end, f"CMAKE_CUDA_STANDARD {values[0]} "
                         f"became {std} in MUSA_MCC_FLAGS", "keep it before musa_add_library, "
                         "which reads MUSA_MCC_FLAGS when it is called")
        self._flags_after_target(cmd, var)

    def append_string(self, cmd: Command) -> None:
        vals = cmd.words()
        if len(vals) > 1 and vals[0] in ("APPEND", "PREPEND"):
            self._flags_after_target(cmd, vals[1])

    def append_list(self, cmd: Command) -> None:
        vals = cmd.words()
        if len(vals) > 1 and vals[0] in ("APPEND", "PREPEND", "INSERT"):
            self._flags_after_target(cmd, vals[1])

    def _flags_after_target(self, cmd: Command, var: str) -> None:
        if var in _FLAG_VARS and self.targets.musa_targets:
            target = self.targets.musa_targets[-1]
            self.rw.note("MP3107", cmd.start, cmd.name_end, f"{var} changes after "
                         f"musa_add_library({target}), which has already read MUSA_MCC_FLAGS",
                         "move this before the musa_add_library calls it should reach")

    def cuda_select_nvcc_arch_flags(self, cmd: Command) -> None:
        if not cmd.args:
            return
        var = cmd.args[0].value
        flags = self.rw.ctx.offload_flags()
        self.rw.change(cmd.start, cmd.end, f"set({var} {flags})")
        self.rw.note("MP3104", cmd.start, cmd.end, f"cuda_select_nvcc_arch_flags became "
                     f"set({var} {flags}): sm numbers do not map 1:1 to MUSA arches", ARCH_NOTE)


def mapped_flags(flags: str, ctx: BuildContext) -> str:
    """nvcc flags as mcc takes them (for a suggestion), by the rewriter itself."""
    rw = Rewriter(flags, ctx)
    rw.statement(split_words(flags, 0, len(flags), CODE))
    out, pos = [], 0
    for c in sorted(rw.changes, key=lambda c: c.start):
        out += [flags[pos:c.start], c.new]
        pos = c.end
    return " ".join("".join(out + [flags[pos:]]).split())
