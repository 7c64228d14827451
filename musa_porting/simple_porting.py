"""A drop-in for torch_musa's ``torch_musa.utils.simple_porting``, so existing
``setup.py`` files and the tools that patch that module keep working with this
engine, with only the import changed (and without torch_musa's bugs: user rules win
over the defaults, binaries are copied, ignored folders are ignored at every depth,
the output is updated in place instead of deleted and rewritten on every build).

    from musa_porting import SimplePorting
    SimplePorting(cuda_dir_path="./mmcv/ops/csrc",
                  ignore_dir_paths=["./mmcv/ops/csrc/common/mlu"],
                  mapping_rule={"MMCV_WITH_CUDA": "MMCV_WITH_MUSA"}).run()

The module has the original's names, because real callers use them:
torchada does ``import torch_musa.utils.simple_porting as musa_sp`` and sets
``musa_sp.LOGGER``'s level, replaces ``musa_sp.EXT_REPLACED_MAPPING`` and
``musa_sp._MAPPING_RULE``, wraps ``SimplePorting.load_replaced_mapping`` and replaces
``SimplePorting.modify_file``, and sets ``musa_dir_path`` on an instance. Each is
wired to the engine: what a caller changes changes the port. Methods a caller did not
replace are not called one by one; ``run()`` ports the tree in one engine run.

Also a command: ``python -m musa_porting.simple_porting --cuda-dir-path DIR ...``.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Mapping, Sequence

from .errors import PortError
from .shadow import shadow_warning
from .simple.arguments import (
    check_output,
    configured_mode,
    default_musa_dir,
    ignore_list,
    mapping_dir_files,
    mapping_dir_note,
    mode_options,
    rule_dict,
)
from .simple.command import run_command
from .simple.per_file import run_per_file
from .tree.ignores import ignore_patterns, unmatched
from .tree.options import PortOptions
from .tree.result import PortResult
from .write.output_state import FORCE_HINT, Conflict


class _ConsoleHandler(logging.Handler):
    """Information to stdout, warnings to stderr, as the streams are at each message
    (a redirection or a test's capture set later is honoured)."""

    def emit(self, record: logging.LogRecord) -> None:
        stream = sys.stderr if record.levelno >= logging.WARNING else sys.stdout
        stream.write(self.format(record) + "\n")
        stream.flush()


# What run() prints goes through LOGGER: ``LOGGER.setLevel(logging.ERROR)`` silences it.
LOGGER = logging.getLogger("musa_porting.simple_porting")
if not LOGGER.handlers:
    LOGGER.addHandler(_ConsoleHandler())
    LOGGER.setLevel(logging.INFO)
    LOGGER.propagate = False

# File extensions (without dots) that change in the output: a caller may replace or
# edit this (torchada maps "cu" to "cu" to keep the names), and the port follows.
EXT_REPLACED_MAPPING: dict[str, str] = {"cu": "mu", "cuh": "muh"}

# Extra rules a caller may set at module level (torchada does); they sit above the
# default tables and below ``mapping_rule``.
_MAPPING_RULE: dict[str, str] = {}

def read_json(file_path: str) -> dict:
    """A JSON file's object (torch_musa's helper). When a caller replaces it, the JSON
    files of ``mapping_dir_path`` are read through the replacement."""
    with open(file_path, encoding="utf-8") as fh:
        return json.load(fh)


_read_json = read_json  # ours, to tell whether a caller replaced it


def _alias(name: str) -> property:
    """Another name for the attribute ``name``: reading or setting either changes both."""
    return property(lambda self: getattr(self, name), lambda self, value: setattr(self, name, value))


class SimplePorting:
    """torch_musa's porting API on musa-port's engine. ``run()`` returns the counts.

    The first five parameters are torch_musa's, in its order; the keyword-only ones
    are musa-port's. Paths in ``ignore_dir_paths`` name exactly that file or folder
    (relative to the working folder, to ``cuda_dir_path``, or absolute); a bare name
    ignores it at any depth.
    """

    def __init__(
        self,
        cuda_dir_path: str,
        ignore_dir_paths: Sequence[str] | str | None = None,
        mapping_rule: Mapping[str, str] | str | None = None,
        drop_default_mapping: bool = False,
        mapping_dir_path: str | None = None,
        *,
        output_dir_path: str | None = None,
        disable_families: Sequence[str] = (),
        enable_families: Sequence[str] = (),
        quiet: bool = False,
        rename_paths: bool | None = None,
        project_symbols: bool | None = None,
        force: bool = False,
        rename_exported: bool = False,
        extended: bool | None = None,
    ) -> None:
        self.cuda_dir_path = os.fspath(cuda_dir_path)
        self.ignore_dir_paths = ignore_list(ignore_dir_paths)
        self.mapping_rule: dict[str, str] | list[tuple[str, str]] = rule_dict(mapping_rule)
        self.drop_default_mapping = drop_default_mapping
        self.mapping_dir_path = os.fspath(mapping_dir_path) if mapping_dir_path else None
        self.musa_dir_path = os.fspath(output_dir_path) if output_dir_path else \
            default_musa_dir(self.cuda_dir_path)
        self.disable_families = list(disable_families)
        self.enable_families = list(enable_families)
        self.quiet = quiet
        self.rename_paths = rename_paths
        self.project_symbols = project_symbols
        self.force = force
        self.rename_exported = rename_exported
        # None: the project's [tool.musa-port] simple-porting, else False (torch_musa's tree)
        self.extended = extended
        self._configured: bool | None = None
        self._notes: list[str] = []  # settings files passed over
        self._user_rules = dict(self.mapping_rule)
        self._loaded: dict[str, str] | None = None  # the pairs load_replaced_mapping gave
        self._file_porter = None

    # torch_musa's attribute for drop_default_mapping; one setting under both names.
    overwrite_default_mapping = _alias("drop_default_mapping")
    output_dir_path = _alias("musa_dir_path")

    # -- the original's steps --------------------------------------------------------

    def process_ignore_dir_paths(self) -> list[str]:
        """Normalise ``ignore_dir_paths`` in place (paths made absolute where they exist
        from the working folder; bare names and patterns kept) and return it. ``run()``
        calls it first, so a replacement that edits the list changes what is ignored."""
        out = []
        for p in self.ignore_dir_paths:
            p = os.fspath(p)
            path_like = "/" in p.strip("/") or os.sep in p.strip(os.sep) or p.startswith(("./", "../"))
            out.append(os.path.abspath(p) if path_like and os.path.lexists(p) else p)
        self.ignore_dir_paths = out
        return out

    def load_replaced_mapping(self) -> list[tuple[str, str]]:
        """Merge the defaults and ``mapping_rule`` into ``self.mapping_rule``: the list of
        (CUDA, MUSA) pairs in force, longest key first, as torch_musa leaves it (here the
        user's rules win, and family switches apply). ``run()`` calls it only when a
        caller replaced it; the port then uses what the replacement left in
        ``self.mapping_rule`` (a pair it dropped is no longer rewritten)."""
        from .tree.active_rules import load_ruleset

        if isinstance(self.mapping_rule, dict):
            self._user_rules = dict(self.mapping_rule)
        rules = load_ruleset(self._options(loaded=False)).rewriting()
        pairs = sorted(((k, r.value) for k, r in rules.items()),  # type: ignore[misc]
                       key=lambda kv: (-len(kv[0]), kv[0]))
        self._loaded = dict(pairs)
        self.mapping_rule = list(pairs)
        return self.mapping_rule

    def change_filename(self, filename: str) -> str:
        """A file's name in the output: its extension mapped by ``EXT_REPLACED_MAPPING``
        (``k.cuh`` -> ``k.muh``). A name with no extension keeps it (torch_musa turned
        ``Makefile`` into ``.Makefile``). Replacing it renames the outputs."""
        stem, dot, ext = filename.rpartition(".")
        if not dot or not stem:
            return filename
        new = EXT_REPLACED_MAPPING.get(ext)
        return f"{stem}.{new}" if new else filename

    def modify_file(self, cuda_filepath: str, musa_filepath: str) -> None:
        """Port one file into ``musa_filepath`` with the rules of this object (includes
        follow the renames of ``cuda_dir_path``'s files); written atomically, and not at
        all when the bytes are already there. A caller that replaces it makes ``run()``
        call the replacement for every file, as torch_musa did."""
        from .tree.single_file import FilePorter
        from .write.files import write_if_changed

        if self._file_porter is None:
            self._file_porter = FilePorter(self._options(), self.cuda_dir_path, recursive=True)
        ported = self._file_porter.port(cuda_filepath)
        for w in [] if self.quiet else ported.warnings:
            LOGGER.warning(w)
        os.makedirs(os.path.dirname(os.path.abspath(musa_filepath)), exist_ok=True)
        write_if_changed(musa_filepath, ported.data, os.stat(cuda_filepath).st_mode & 0o7777)

    # -- the engine ------------------------------------------------------------------

    def _replaced(self, name: str) -> bool:
        """Whether a caller replaced method ``name`` (on the class, a subclass or this
        object)."""
        return name in vars(self) or getattr(type(self), name) is not _ORIGINAL[name]

    def _extended(self) -> bool:
        """Whether this call ports as the command line does (``extended``, else the
        project's settings), beyond torch_musa's tree."""
        if self.extended is None and self._configured is None:
            self._configured = configured_mode(self.cuda_dir_path, self._notes)
        return bool(self._configured if self.extended is None else self.extended)

    def _options(self, loaded: bool = True) -> PortOptions:
        rules, tables = (_engine_rules(self.mapping_rule, self._user_rules, self._loaded) if loaded
                         else ({**_MAPPING_RULE, **self._user_rules}, True))
        # The tables of mapping_dir_path sit above the default tables and below
        # mapping_rule, as torch_musa merges them with its own general.json.
        mapping_dir = self.mapping_dir_path
        dir_files: list[str] = []
        if mapping_dir and read_json is not _read_json:
            # A caller's read_json reads the mapping folder (as torch_musa's did).
            rules = {**_read_mapping_dir(mapping_dir), **rules}
        elif mapping_dir:
            dir_files = mapping_dir_files(mapping_dir)
        cwd = os.getcwd()
        return PortOptions(
            src=self.cuda_dir_path,
            output=self.musa_dir_path,
            ignore=list(ignore_patterns(self.ignore_dir_paths, self.cuda_dir_path, [cwd]).values()),
            rule_files=dir_files,
            inline_rules=rules,
            default_rules=not self.drop_default_mapping and tables,
            disable_families=self.disable_families,
            enable_families=self.enable_families,
            **mode_options(self._extended(), self.rename_paths, self.project_symbols),
            force=self.force,
            rename_exported=self.rename_exported,
            renames={"." + k: "." + v for k, v in EXT_REPLACED_MAPPING.items()},
            file_name=self.change_filename if self._replaced("change_filename") else None,
        )

    def options(self) -> PortOptions:
        """The engine's options for this port (what ``run()`` ports with)."""
        return self._options()

    def run(self) -> PortResult:
        """Port ``cuda_dir_path`` into ``musa_dir_path`` (default ``<cuda_dir_path>_musa``)."""
        from .port.text_rules import gathered
        from .simple.tree_run import port_whole_tree

        notes = [w for w in (shadow_warning(), mapping_dir_note(self.mapping_dir_path)) if w]
        self.process_ignore_dir_paths()
        self._extended()
        notes += self._notes
        if self._replaced("load_replaced_mapping") and not isinstance(self.mapping_rule, list):
            self.load_replaced_mapping()
        try:
            if self._replaced("modify_file"):
                result = run_per_file(self)
            else:
                check_output(self.cuda_dir_path, self.musa_dir_path)
                result = port_whole_tree(self.options(), notes)
        except PortError as exc:
            # The user's call is where it went wrong: no traceback through the engine,
            # and the fix said as this API spells it.
            if isinstance(exc, Conflict):
                exc = PortError(exc.message.replace(FORCE_HINT, "pass force=True to SimplePorting"),
                                exc.path)
            raise exc.with_traceback(None) from None
        patterns = ignore_patterns(self.ignore_dir_paths, self.cuda_dir_path, [os.getcwd()])
        notes += gathered(result.warnings)
        notes += [f"ignore_dir_paths: {e} matched nothing in {self.cuda_dir_path}"
                  for e in unmatched(patterns, result.ignored)]
        if not self.quiet:
            from .report.summary import total_line

            for note in notes:
                LOGGER.warning(note.replace("(--force)", "(force=True)"))
            LOGGER.info(total_line(result))
        return result


def _engine_rules(current: dict[str, str] | list[tuple[str, str]], user: dict[str, str],
                  loaded: dict[str, str] | None) -> tuple[dict[str, str], bool]:
    """The rules given to the engine above its tables, and whether the tables are used:
    ``_MAPPING_RULE``, then the user's ``mapping_rule``, then what a replaced
    ``load_replaced_mapping`` changed in ``current`` against the pairs it was given
    (``loaded``; a dropped pair stays as it is)."""
    rules = {**_MAPPING_RULE, **user}
    tables = True
    if isinstance(current, dict):
        rules.update(current)
    elif loaded is None:  # a replacement built the whole list itself
        rules, tables = {**rules, **dict(current)}, False
    else:
        now = dict(current)
        rules.update({k: v for k, v in now.items() if loaded.get(k) != v})
        rules.update({k: k for k in loaded if k not in now})
    return rules, tables


_ORIGINAL = {name: SimplePorting.__dict__[name] for name in
             ("load_replaced_mapping", "change_filename", "modify_file", "process_ignore_dir_paths")}


def _read_mapping_dir(directory: str) -> dict[str, str]:
    """A torch_musa mapping folder read through the module's ``read_json``."""
    rules: dict[str, str] = {}
    for path in mapping_dir_files(directory):
        data = read_json(path)
        if not isinstance(data, dict):
            raise PortError("read_json did not return an object", path)
        rules.update(data)
    return rules


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m musa_porting.simple_porting``: see simple/command.py."""
    return run_command(SimplePorting, argv)


if __name__ == "__main__":
    sys.exit(main())
