#!/usr/bin/env python3
"""The floor under any port written in Python: copy a tree the way musa-port must
write it (read each file, write it to a temp file beside its output, rename it into
place), porting nothing, and time it against ``cp -r`` of the same tree.

    python bench/io_floor.py [TREE] [--runs 5]

TREE defaults to the bench corpus (bench/bench.py builds it). A port cannot beat
this floor plus the interpreter's start-up and its imports; the figure says how much
of the ``cp -r`` budget is left for porting.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import cache_root  # noqa: E402


def copy_atomically(src: str, out: str) -> int:
    n = 0
    for root, _dirs, files in os.walk(src):
        od = os.path.join(out, os.path.relpath(root, src))
        os.makedirs(od, exist_ok=True)
        for f in files:
            with open(os.path.join(root, f), "rb") as fh:
                data = fh.read()
            tmp = os.path.join(od, f".{f}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
            os.rename(tmp, os.path.join(od, f))
            n += 1
    return n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree", nargs="?", default=str(cache_root() / "corpus"))
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    if not os.path.isdir(a.tree):
        print(f"error: {a.tree}: no such folder (run bench/bench.py once to build the corpus)",
              file=sys.stderr)
        return 2
    floor, cp = [], []
    with tempfile.TemporaryDirectory(dir=cache_root()) as work:
        for _ in range(a.runs):
            dst = os.path.join(work, "cp")
            shutil.rmtree(dst, ignore_errors=True)
            os.sync()  # the last copy's write-back and deletion are not this one's (measure.timed)
            t = time.perf_counter()
            subprocess.run(["cp", "-r", a.tree, dst], check=True)
            cp.append(time.perf_counter() - t)
            dst = os.path.join(work, "py")
            shutil.rmtree(dst, ignore_errors=True)
            os.sync()
            t = time.perf_counter()
            files = copy_atomically(a.tree, dst)
            floor.append(time.perf_counter() - t)
    f, c = statistics.median(floor), statistics.median(cp)
    print(f"{files} files: cp -r {c:.3f} s; read + temp file + rename in Python {f:.3f} s "
          f"({100 * c / f:.0f}% of cp's MB/s, before start-up, imports and any porting)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
