"""Recovery after an interrupted run (SIGKILL, a power cut mid-run).

Before a run creates anything in the output it writes the journal: the folders that
may hold its temp files and the run's token (``files.temp_name``: the token and a
hash, so the journal need not list 100,000 names, and no file but the run's own
matches), the folders it creates, and where its new manifest is staged. The
manifest is staged last, after every output is in a temp file, so its presence says
the renames may have begun: its records are the run's intent. The next run (under
the lock) removes the temp files and the folders left empty, and adopts what the
killed run put in place (``Manifest.adopt``), so that those outputs are known as
musa-port's: replaced later, or removed when their input is gone.

The journal sits in the output, where a tree that ships its own ``SRC_musa/`` can
edit it: every path in it must be inside the output (``outdir.inside_rel``), the
staged manifest a temp name in its top folder, and a journal that is not a regular
file (a link, a FIFO) is not read. What fails the check is ignored with a warning
naming it, and every removal goes through ``OutDir``, which follows no link.

Names are bytes on disk: the journal is JSON with ``\\udcXX`` escapes for the bytes of
a name that are not UTF-8 (surrogateescape), so every name round-trips.
"""

from __future__ import annotations

import json
import os
import re
import stat

from .files import temp_name, write_file
from .manifest import (
    JOURNAL_NAME,
    MANIFEST_NAME,
    OLD_TEMP_RE,
    TEMP_RE,
    TMP_SUFFIX,
    Manifest,
    load_manifest,
)
from .outdir import OutDir, inside_rel

_TOKEN_RE = re.compile(r"[0-9a-f]{16}")


def journal_path(out: str) -> str:
    return os.path.join(out, JOURNAL_NAME)


def manifest_temp(token: str) -> str:
    """Where the run of ``token`` stages its manifest (in the output's top folder)."""
    return temp_name(MANIFEST_NAME, token)


def write_journal(outdir: OutDir, token: str, stage_dirs: list[str], created: list[str]) -> None:
    """Record what a run may leave behind, before it writes anything else."""
    data = json.dumps({"version": 3, "token": token, "stage_dirs": sorted(stage_dirs),
                       "created": created, "manifest": manifest_temp(token)}, ensure_ascii=True)
    tmp = temp_name(JOURNAL_NAME, token)
    root = outdir.folder("")
    write_file(tmp, data.encode("ascii"), 0o644, root)
    outdir.replace(tmp, JOURNAL_NAME)


def clear_journal(outdir: OutDir) -> None:
    """Remove the journal, if there is one: a run that wrote nothing must not write to
    the output at all (on a read-only file system, even removing a file that is not
    there fails)."""
    if outdir.lstat(JOURNAL_NAME) is not None:
        outdir.unlink(JOURNAL_NAME, missing_ok=True)


def _read(out: str, warnings: list[str]) -> dict | None:
    from ..safe_open import read_regular

    path = journal_path(out)
    try:
        raw = read_regular(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        warnings.append(f"{path}: warning: ignored: {exc.strerror or exc}")
        return {}
    try:
        data = json.loads(raw)
        if isinstance(data, dict):
            return data
    except ValueError:
        pass
    # The first journal format: one temp file per line.
    names = [ln for ln in raw.decode("utf-8", "surrogateescape").splitlines() if ln.strip()]
    return {"temps": names}


def _paths(data: dict, key: str, out: str, warnings: list[str], top: bool = False) -> list[str]:
    """The entries of ``data[key]`` that are paths inside the output (``top``: the
    output itself, "", too); the others are named in a warning and ignored."""
    value = data.get(key, [])
    items = value if isinstance(value, list) else [value]
    good = [r for r in items if (top and r == "") or inside_rel(r)]
    bad = [r for r in items if not ((top and r == "") or inside_rel(r))]
    if bad:
        shown = ", ".join(repr(b) for b in bad[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
        warnings.append(f"{journal_path(out)}: warning: ignored {key} outside the output: {shown}")
    return good


def _token(data: dict, out: str, warnings: list[str]) -> str | None:
    """The journal's run token (None: a journal of a run before tokens)."""
    token = data.get("token")
    if token is None or (isinstance(token, str) and _TOKEN_RE.fullmatch(token)):
        return token
    warnings.append(f"{journal_path(out)}: warning: ignored token {token!r}: not a run's token")
    return ""  # no temp name has it: nothing is removed as a temp file


def _staged_manifest(data: dict, out: str, warnings: list[str]) -> str | None:
    name = data.get("manifest")
    if not name:
        return None
    if isinstance(name, str) and is_temp(_token(data, out, []))(name) and TEMP_RE.fullmatch(name):
        return name
    warnings.append(f"{journal_path(out)}: warning: ignored manifest {name!r}: not a temp file "
                    "of the output's top folder")
    return None


def _remove(outdir: OutDir, rel: str) -> None:
    st = outdir.lstat(rel)
    if st is None:
        return
    if stat.S_ISDIR(st.st_mode):
        outdir.rmdir(rel)  # a folder staged for a commit is empty
    else:
        outdir.unlink(rel, missing_ok=True)


def is_temp(token: str | None):
    """The test of a temp name of the run of ``token`` (None: a run before tokens)."""
    if token is None:
        return OLD_TEMP_RE.match
    prefix = f".{token}."
    return lambda n: n.startswith(prefix) and TEMP_RE.match(n) is not None


def remove_temps(outdir: OutDir, stage_dirs: list[str], token: str | None,
                 keep: str | None = None) -> None:
    """Remove every temp file and temp folder of the run of ``token`` in these
    folders of the output (but ``keep``, a temp name in the top folder). Folders
    reached through a link are skipped."""
    ours = is_temp(token)
    for rel in stage_dirs:
        try:
            names = [n for n in outdir.names(rel) if ours(n)]
        except OSError:
            continue
        for name in names:
            if not (rel == "" and name == keep):
                _remove(outdir, f"{rel}/{name}" if rel else name)


def pending_intent(out: str, warnings: list[str] | None = None) -> Manifest:
    """The staged manifest of an interrupted run, read-only (for a dry run)."""
    notes: list[str] = []
    data = _read(out, notes)
    name = _staged_manifest(data, out, notes) if data else None
    intent = load_manifest(out, name) if name else Manifest()
    if warnings is not None:
        warnings.extend(notes)
    return intent


def recover(outdir: OutDir, keep_dirs: list[str]) -> Manifest:
    """Clean up after an interrupted run; returns its intent (see the docstring), with
    the warnings about entries it ignored. ``keep_dirs`` are folders of the current
    manifest, kept even when empty."""
    out = outdir.out
    warnings: list[str] = []
    data = _read(out, warnings)
    if data is None:
        return Manifest()
    name = _staged_manifest(data, out, warnings)
    intent = load_manifest(out, name) if name else Manifest()
    remove_temps(outdir, _paths(data, "stage_dirs", out, warnings, top=True),
                 _token(data, out, warnings))
    for rel in _paths(data, "temps", out, warnings):  # the first format
        if rel.endswith(TMP_SUFFIX):
            try:
                _remove(outdir, rel)
            except OSError:
                pass  # not ours to remove after all (a folder that is not empty)
    keep = set(keep_dirs) | set(intent.dirs)
    created = _paths(data, "created", out, warnings)
    for rel in sorted(created, key=lambda r: -r.count("/")):
        if rel not in keep:
            try:
                outdir.rmdir(rel)
            except OSError:
                pass  # not empty (the killed run put outputs in it), or a link
    clear_journal(outdir)
    intent.warnings[:0] = warnings
    return intent
