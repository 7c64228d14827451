#!/usr/bin/env python3
"""What porting Python adds to a port, per .py file, over YOLOv5 (the manual's example).

    python bench/python_cost.py [--runs 11] [--jobs N]

Ports the pinned yolov5 wheel's scripts (fetched and cached like the test sdists) with
``musa-port SRC --launch train.py`` and with ``musa-port SRC --no-python``, cold (the
output removed before each run), the two interleaved, and prints the difference of the
medians over the number of .py files: CPU (user + system of the process) and wall.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from sdist import YOLOV5_WHEEL, fetch_pinned  # noqa: E402


def run(args: list[str]) -> tuple[float, float]:
    """(CPU, wall) seconds of one musa-port process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "musa_porting", *args], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime), wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--jobs", type=int, default=None)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(fetch_pinned(*YOLOV5_WHEEL)) as zf:
            zf.extractall(tmp, [n for n in zf.namelist() if n.startswith("yolov5/")])
        src = Path(tmp) / "yolov5"
        files = len(list(src.rglob("*.py")))
        out = Path(tmp) / "out"
        jobs = ["--jobs", str(a.jobs)] if a.jobs else []
        modes = {"python": ["--launch", str(src / "train.py")], "no-python": ["--no-python"]}
        cpu: dict[str, list[float]] = {m: [] for m in modes}
        wall: dict[str, list[float]] = {m: [] for m in modes}
        for _ in range(a.runs):
            for m, extra in modes.items():
                shutil.rmtree(out, ignore_errors=True)
                c, w = run([str(src), "-o", str(out), "-q", *jobs, *extra])
                cpu[m].append(c)
                wall[m].append(w)
    for m in modes:
        print(f"{m:>9}: CPU {statistics.median(cpu[m]):.3f} s, "
              f"wall {statistics.median(wall[m]):.3f} s (median of {a.runs})")
    dc = statistics.median(cpu["python"]) - statistics.median(cpu["no-python"])
    dw = statistics.median(wall["python"]) - statistics.median(wall["no-python"])
    print(f"Python porting adds {dc * 1000 / files:.2f} ms CPU and {dw * 1000 / files:.2f} ms "
          f"wall per .py file ({files} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
