"""Can the last run's manifest be trusted? A fingerprint of everything a port's
output depends on except the input files themselves (those are checked one by one)."""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
from collections.abc import Sequence

from .. import __version__
from ..rules.mapping_dir import default_mapping_folder
from ..tree.options import PortOptions


def rules_stamp(opts: PortOptions) -> str:
    """What the rules in force depend on, without loading them: the options and the
    size and mtime of every table and rule file."""
    parts: list[object] = [opts.default_rules, opts.mapping_dir, sorted(opts.disable_families),
                           sorted(opts.enable_families), opts.reverse,
                           sorted((opts.inline_rules or {}).items()), opts.torch_musa_tables]
    if opts.text_rules:  # the order of the user's rules decides (torch_musa's semantics)
        parts.append(list((opts.inline_rules or {}).items()))
    table_dir = opts.mapping_dir if opts.mapping_dir is not None else (
        default_mapping_folder() if opts.default_rules else None)
    paths = sorted(_json_files(table_dir)) if table_dir else []
    for path in [*paths, *map(str, opts.rule_files)]:
        try:
            st = os.stat(path)
            parts.append((os.path.abspath(path), st.st_size, st.st_mtime_ns))
        except OSError:
            parts.append((os.path.abspath(path), "missing"))
    return repr(parts)


def _json_files(folder: str) -> list[str]:
    """What ``Path(folder).glob("*.json")`` lists, as strings, without pathlib."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    return [os.path.join(os.path.normpath(folder), n) for n in names if n.endswith(".json")]


def rule_options(opts: PortOptions) -> dict:
    """The options that decide the rules, as the manifest records them (``musa-port
    verify`` rebuilds the same rules from them)."""
    return {
        "default_rules": opts.default_rules,
        "mapping_dir": os.path.abspath(opts.mapping_dir) if opts.mapping_dir else None,
        "rule_files": [os.path.abspath(f) for f in opts.rule_files],
        "inline_rules": dict(opts.inline_rules or {}),
        "disable_families": list(opts.disable_families),
        "enable_families": list(opts.enable_families),
        "reverse": opts.reverse,
    }


def options_fingerprint(opts: PortOptions, stamp: str, tree_files: Sequence[str],
                        watched: Sequence[str] = (), unported: Sequence[str] = ()) -> str:
    """What decides the port beyond each file's own bytes; ``watched``: files whose
    size and mtime count too (inputs read only for their names, not ported);
    ``unported``: the sources that keep their own names because they are not text
    (``tree/unported.py``): when one becomes text, what includes it is ported again."""
    h = hashlib.sha256()
    h.update(__version__.encode())
    h.update(stamp.encode("utf-8", "surrogateescape"))
    h.update(repr((sorted(opts.skip), list(opts.include_dirs), sorted(opts.extensions),
                   sorted(opts.keep), opts.reverse, opts.project_symbols, opts.symbols_backend,
                   list(opts.defines), opts.rename_paths, opts.python, sorted(opts.launch),
                   opts.rename_exported, sorted(opts.outside_renames.items()),
                   sorted(opts.outside_kept.items()), opts.vendor_word)).encode())
    for path in [*opts.vocab_files, *([opts.compile_commands] if opts.compile_commands else []),
                 *watched]:
        try:
            st = os.stat(path)
            h.update(repr((os.path.abspath(path), st.st_size, st.st_mtime_ns)).encode())
        except OSError:
            h.update(repr((os.path.abspath(path), "missing")).encode())
    h.update(repr(("build files", opts.build_files, list(opts.arch))).encode())
    h.update(repr((opts.arch_values, opts.messages, opts.text_files)).encode())
    if opts.renames is not None:
        h.update(repr(sorted(opts.renames.items())).encode())
    if opts.layout is not None:  # a fork's layout (--base-from): where each input goes
        h.update(json.dumps(opts.layout.to_json(), sort_keys=True).encode())
    if opts.file_name is not None:  # a caller's naming function: what it says for this tree
        h.update(repr([opts.file_name(posixpath.basename(r)) for r in tree_files]).encode())
    for rel in tree_files:
        h.update(rel.encode("utf-8", "surrogateescape") + b"\0")
    if unported:
        h.update(b"unported\0" + "\0".join(unported).encode("utf-8", "surrogateescape"))
    return h.hexdigest()
