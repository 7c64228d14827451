"""Recovery after an interrupted run (SIGKILL, a power cut mid-run).

Before a run creates anything in the output it writes the journal: the folders that
may hold its temp files (``files.temp_name``: a hash, so the journal need not list
100,000 names), the folders it creates, and where its new manifest is staged. The
manifest is staged last, after every output is in a temp file, so its presence says
the renames may have begun: its records are the run's intent. The next run (under
the lock) removes the temp files and the folders left empty, and adopts what the
killed run put in place (``Manifest.adopt``), so that those outputs are known as
musa-port's: replaced later, or removed when their input is gone.

Names are bytes on disk: the journal is JSON with ``\\udcXX`` escapes for the bytes of
a name that are not UTF-8 (surrogateescape), so every name round-trips.
"""

from __future__ import annotations

import json
import os
import stat

from .files import temp_name, write_file
from .manifest import JOURNAL_NAME, MANIFEST_NAME, TEMP_RE, TMP_SUFFIX, Manifest, load_manifest


def journal_path(out: str) -> str:
    return os.path.join(out, JOURNAL_NAME)


def manifest_temp() -> str:
    """Where a run stages its manifest (in the output's top folder)."""
    return temp_name(MANIFEST_NAME)


def write_journal(out: str, stage_dirs: list[str], created: list[str]) -> None:
    """Record what a run may leave behind, before it writes anything else."""
    data = json.dumps({"version": 2, "stage_dirs": sorted(stage_dirs), "created": created,
                       "manifest": manifest_temp()}, ensure_ascii=True)
    tmp = os.path.join(out, temp_name(JOURNAL_NAME))
    write_file(tmp, data.encode("ascii"), 0o644)
    os.replace(tmp, journal_path(out))


def clear_journal(out: str) -> None:
    try:
        os.unlink(journal_path(out))
    except FileNotFoundError:
        pass  # no run was interrupted, or nothing was staged


def _read(out: str) -> dict | None:
    try:
        with open(journal_path(out), "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    try:
        data = json.loads(raw)
        if isinstance(data, dict):
            return data
    except ValueError:
        pass
    # The first journal format: one temp file per line.
    names = [ln for ln in raw.decode("utf-8", "surrogateescape").splitlines() if ln.strip()]
    return {"temps": names}


def _real_dir(out: str, rel: str) -> bool:
    """``rel`` is a folder of the output, reached without following a link."""
    path = out
    for part in [p for p in rel.split("/") if p]:
        if part in (".", ".."):
            return False
        path = os.path.join(path, part)
        try:
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                return False
        except OSError:
            return False
    return True


def _remove(path: str) -> None:
    try:
        if stat.S_ISDIR(os.lstat(path).st_mode):
            os.rmdir(path)  # a folder staged for a commit is empty
        else:
            os.unlink(path)
    except FileNotFoundError:
        pass


def remove_temps(out: str, stage_dirs: list[str], keep: str | None = None) -> None:
    """Remove every temp file and temp folder in these folders of the output (but
    ``keep``, a temp name in the top folder)."""
    for rel in stage_dirs:
        if not _real_dir(out, rel):
            continue
        folder = os.path.join(out, rel)
        try:
            names = [e.name for e in os.scandir(folder) if TEMP_RE.match(e.name)]
        except OSError:
            continue
        for name in names:
            if not (rel == "" and name == keep):
                _remove(os.path.join(folder, name))


def pending_intent(out: str) -> Manifest:
    """The staged manifest of an interrupted run, read-only (for a dry run)."""
    data = _read(out)
    if not data or not data.get("manifest"):
        return Manifest()
    return load_manifest(out, data["manifest"])


def recover(out: str, keep_dirs: list[str]) -> Manifest:
    """Clean up after an interrupted run; returns its intent (see the docstring).
    ``keep_dirs`` are folders of the current manifest, kept even when empty."""
    data = _read(out)
    if data is None:
        return Manifest()
    intent = pending_intent(out)
    remove_temps(out, data.get("stage_dirs", []))
    for rel in data.get("temps", []):  # the first format
        if rel.endswith(TMP_SUFFIX) and _real_dir(out, os.path.dirname(rel)):
            _remove(os.path.join(out, rel))
    keep = set(keep_dirs) | set(intent.dirs)
    for rel in sorted(data.get("created", []), key=lambda r: -r.count("/")):
        if rel not in keep and _real_dir(out, rel):
            try:
                os.rmdir(os.path.join(out, rel))
            except OSError:
                pass  # not empty: the killed run put outputs in it
    clear_journal(out)
    return intent
