"""``SimplePorting``'s arguments as torch_musa accepts them (lists or JSON strings,
dicts or lists of pairs), its default output folder, and the checks and notes of its
folders, each a one-line error or warning that says what to pass instead."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from ..errors import PortError
from ..tree.paths import inside

GENERAL = "general.json"  # torch_musa's own table, which it never reads from mapping_dir_path

DICT_IN_IGNORE = (
    "ignore_dir_paths got a dict {shown}: the second positional argument of SimplePorting "
    "is ignore_dir_paths; pass your rules as mapping_rule={{...}}")


def from_json(value: str, name: str):
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        raise PortError(f"{name} is not valid JSON: {exc.msg} at column {exc.colno}") from None


def ignore_list(value) -> list[str]:
    """torch_musa's accepted types: a list of paths, or a JSON string of one."""
    if value is None:
        return []
    if isinstance(value, str):
        if value.strip()[:1] in ("[", "{"):
            value = from_json(value, "ignore_dir_paths")
        else:
            return [value]  # one path (musa-port also takes a bare string)
    if isinstance(value, Mapping):
        shown = json.dumps(dict(value))[:60]
        raise PortError(DICT_IN_IGNORE.format(shown=shown))
    try:
        items = [os.fspath(p) for p in value]
    except TypeError:
        raise PortError(f"ignore_dir_paths must be a list of paths, not {type(value).__name__}") \
            from None
    return items


def rule_dict(value) -> dict[str, str]:
    """torch_musa's accepted types: a dict, or a JSON string of one (also a list of
    pairs, the shape ``load_replaced_mapping`` leaves)."""
    if value is None:
        return {}
    if isinstance(value, str):
        value = from_json(value, "mapping_rule")
        if not isinstance(value, dict):
            raise PortError("mapping_rule must be a JSON object of CUDA text to MUSA text")
    if isinstance(value, Mapping):
        return dict(value)
    try:
        return dict(value)
    except (TypeError, ValueError):
        raise PortError(f"mapping_rule must be a dict, not {type(value).__name__}") from None


def default_musa_dir(cuda_dir: str) -> str:
    """``./csrc`` and ``./csrc/`` give ``./csrc_musa`` (torch_musa wrote ``./_musa`` for a
    path with a trailing slash)."""
    path = cuda_dir.rstrip("/" + os.sep) or os.sep
    if os.path.basename(path) in ("", ".", ".."):
        path = os.path.abspath(path)
    return path + "_musa"


def check_output(cuda_dir: str, musa_dir: str) -> None:
    src, out = os.path.realpath(cuda_dir), os.path.realpath(musa_dir)
    if inside(out, src):
        raise PortError(f"musa_dir_path {musa_dir} is the source folder or inside it: "
                        "musa-port never writes into its input; set another musa_dir_path "
                        "(or replace modify_file to port in place)", cuda_dir)


def mapping_dir_note(d: str | None) -> str | None:
    """torch_musa reads every ``*.json`` of ``mapping_dir_path`` except ``general.json``
    (its general table comes from its own folder); musa-port reads that one too, on
    purpose (a file the user put there is not dropped in silence). Say so."""
    if not d or not os.path.isfile(os.path.join(d, GENERAL)):
        return None
    return (f"mapping_dir_path {os.path.join(d, GENERAL)}: torch_musa's SimplePorting does not "
            f"read {GENERAL} from mapping_dir_path (it uses its own); musa-port reads it, so its "
            "rules are in force")


def mapping_dir_files(directory: str) -> list[str]:
    """The rule tables of a mapping folder: every ``*.json`` in it, in name order."""
    from ..rules.vocabulary import VOCABULARY_FILE

    if not os.path.isdir(directory):
        raise PortError("mapping folder not found", directory)
    return [os.path.join(directory, n) for n in sorted(os.listdir(directory))
            if n.endswith(".json") and n != VOCABULARY_FILE]


def configured_mode(cuda_dir: str, notes: list[str]) -> bool:
    """Whether the project asks for musa-port's whole port by default: ``simple-porting =
    "extended"`` in the ``[tool.musa-port]`` settings found from ``cuda_dir`` upwards (as
    the command line finds them); ``notes`` gets the settings files passed over."""
    from ..config import project_config

    cfg = project_config(cuda_dir)
    notes.extend(cfg.warnings)
    return cfg.simple_porting == "extended"


def mode_options(extended: bool, rename_paths: bool | None, project_symbols: bool | None) -> dict:
    """The engine's switches for SimplePorting (docs/simple-porting.md): torch_musa's tree,
    but for its bugs, with the call's rules as text replacement; ``extended``: as the
    command line ports (every table family, the tree's own names, paths, arch values)."""
    return {
        "rename_paths": extended if rename_paths is None else rename_paths,
        "project_symbols": extended if project_symbols is None else project_symbols,
        "torch_musa_tables": not extended,
        "text_rules": True,
        "arch_values": extended,
        "messages": extended,
        "text_files": not extended,
    }
