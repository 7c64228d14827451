#!/usr/bin/env python3
"""How close SimplePorting's tree is to a reference: a committed port (a fork's csrc_musa),
or the tree torch_musa's SimplePorting writes, worked out by the tests' model of it
(tests/simple_porting/torch_musa_model.py, from its documented behaviour and its tables in
../shared/data/torch_musa).

    python bench/agreement.py SRC [--committed DIR] [--rules JSON] [--ignore PATH ...]

Ports SRC (a folder named like the call's cuda_dir_path) into a temp folder with
SimplePorting, in both modes, and prints for each tree the share of the reference's lines
it has (difflib's matching lines, file by file; a missing file counts none) and the files
it has byte for byte. With --committed, torch_musa's modelled tree is measured too, so the
two figures the issue compares stand side by side.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests" / "simple_porting"), str(HERE.parent / "tests")]


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` but musa-port's own records."""
    out = {}
    for dirpath, _, names in os.walk(folder):
        for n in names:
            rel = os.path.relpath(os.path.join(dirpath, n), folder).replace(os.sep, "/")
            if not rel.startswith(".musa-port"):
                out[rel] = Path(dirpath, n).read_bytes()
    return out


def agreement(ref: dict[str, bytes], got: dict[str, bytes]) -> str:
    lines = equal = same = 0
    for rel, data in ref.items():
        a = data.decode("utf-8", "replace").splitlines()
        lines += len(a)
        if got.get(rel) == data:
            same, equal = same + 1, equal + len(a)
        elif rel in got:
            b = got[rel].decode("utf-8", "replace").splitlines()
            sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
            equal += sum(m.size for m in sm.get_matching_blocks())
    return f"{100 * equal / max(lines, 1):.1f}% of its lines, {same}/{len(ref)} files identical"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("src", type=Path)
    ap.add_argument("--committed", type=Path, help="the committed port to compare with")
    ap.add_argument("--rules", default="{}", help="the call's mapping_rule, as JSON")
    ap.add_argument("--ignore", action="append", default=[], help="ignore_dir_paths (from SRC's parent)")
    args = ap.parse_args()
    from torch_musa_model import FIXES, Call, port

    from musa_porting import SimplePorting

    rules = json.loads(args.rules)
    committed = args.committed.resolve() if args.committed else None
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        shutil.copytree(args.src, work / args.src.name, symlinks=True)
        os.chdir(work)
        call = Call(args.src.name, args.ignore, rules)
        _, torch_musa = port(call, work, frozenset({"binary files"}))  # it stops on binaries
        trees = {"torch_musa's SimplePorting (model)": torch_musa}
        for extended in (False, True):
            out = work / f"out-{extended}"
            SimplePorting(args.src.name, args.ignore, rules, output_dir_path=str(out),
                          extended=extended, quiet=True).run()
            trees[f"musa-port, extended={extended}"] = files_of(out)
        _, fixed = port(call, work, FIXES)
        print(f"torch_musa's tree with the fixes the docs list (model) vs musa-port's default: "
              f"{agreement(fixed, trees['musa-port, extended=False'])}")
        ref_name = "the committed port" if committed else "torch_musa's tree (model)"
        ref = files_of(committed) if committed else trees.pop(
            "torch_musa's SimplePorting (model)")
        for name, tree in trees.items():
            print(f"{name} vs {ref_name}: {agreement(ref, tree)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
