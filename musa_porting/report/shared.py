"""The summary's lines on a backend folder ported into its sibling: which shared files
of the project name the CUDA backend, so the porter adds the MUSA entry beside each."""

from __future__ import annotations

import os

from ..tree.result import PortResult


def shared_files_text(r: PortResult, files_shown: int = 8, lines_shown: int = 4) -> str:
    if not r.shared_mentions:
        return ""
    by_file: dict[str, list] = {}
    for m in r.shared_mentions:
        by_file.setdefault(m.file, []).append(m)
    root = os.path.relpath(r.shared_root) if r.shared_root else "."
    if root.startswith(".."):
        root = r.shared_root
    head = (f"shared files that name the CUDA backend ({len(by_file)} in {root}, not ported): "
            "add the MUSA entry beside each")
    lines = [head]
    for file, ms in list(by_file.items())[:files_shown]:
        shown = "; ".join(f"{m.line}: {m.what}" for m in ms[:lines_shown])
        more = f"; and {len(ms) - lines_shown} more lines" if len(ms) > lines_shown else ""
        lines.append(f"  {file}: {shown}{more}")
    if len(by_file) > files_shown:
        lines.append(f"  ... and {len(by_file) - files_shown} more files (the JSON report lists "
                     "every line)")
    if r.shared_cut:
        lines.append("  (the scan of the project stopped at its limit: files beyond it were "
                     "not read)")
    return "\n".join(lines)
