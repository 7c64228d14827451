"""The bench's other figures: start-up (--help, --version against python -c pass), the
no-op re-build of the ported mmcv tree, and with --scale / --sizes the shapes that
break tools (1x/4x/16x the corpus; 100,000 small files, a 50 MB .cu file, a 1 MB line)."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from corpus import ROOT, build_corpus, cache_root, tree_stats
from measure import timed


def startup(runs: int) -> dict:
    """--help and --version of the console script, and python -c pass, medians."""
    def med(cmd: list[str]) -> float:
        return round(statistics.median(timed(cmd).wall for _ in range(runs)), 3)

    script = Path(sys.executable).with_name("musa-port")  # the console script users run
    version_cmd = [str(script)] if script.exists() else [sys.executable, "-m", "musa_porting"]
    return {"help_s": med([sys.executable, "-m", "musa_porting", "--help"]),
            "version_s": med([*version_cmd, "--version"]),
            "python_pass_s": med([sys.executable, "-c", "pass"])}


def build_overhead(out: Path, runs: int) -> float:
    """``musa-port build`` on the ported mmcv tree once (the fake mcc of the fixtures
    compiles nothing real), then the median of no-op re-builds: writing build.ninja
    and asking ninja, which finds nothing to do."""
    mcc = ROOT / "fixtures" / "fake-mcc" / "mcc"
    cmd = [sys.executable, "-m", "musa_porting", "build", str(out / "mmcv_csrc"), "--mcc", str(mcc),
           "--cxx", str(mcc), "-q", "--keep-going"]
    subprocess.run(cmd, capture_output=True)  # the first build (some files fail on the fake)
    return statistics.median([timed_any(cmd) for _ in range(runs)])


def timed_any(cmd: list[str]) -> float:
    """Wall seconds of a command, whatever its exit code (a build with failures is 1)."""
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def scale(runs: int, jobs: int | None) -> dict:
    """MB/s of a cold port at 1x, 4x and 16x the corpus (copies of it side by side):
    the cost must grow linearly."""
    corpus = build_corpus()
    out: dict = {}
    for n in (1, 4, 16):
        tree = cache_root() / f"scale{n}"
        if not (tree / ".complete").exists():
            shutil.rmtree(tree, ignore_errors=True)
            tree.mkdir(parents=True)
            for i in range(n):
                shutil.copytree(corpus, tree / f"copy{i}", symlinks=True)
            (tree / ".complete").write_text("ok\n")
        _, size = tree_stats(tree)
        dst = cache_root() / "work" / f"scale{n}_musa"
        cmd = [sys.executable, "-m", "musa_porting", str(tree), "-o", str(dst), "-q"]
        if jobs:
            cmd += ["--jobs", str(jobs)]
        walls = []
        for _ in range(runs if n < 16 else max(1, runs // 2)):
            shutil.rmtree(dst, ignore_errors=True)
            walls.append(timed(cmd).wall)
        wall = statistics.median(walls)
        out[str(n)] = {"mb": round(size / 1e6, 1), "s": round(wall, 3), "mb_s": size / 1e6 / wall}
    out["ratio_16_to_1"] = out["16"]["mb_s"] / out["1"]["mb_s"]
    return out


def sizes(jobs: int | None) -> dict:
    """The shapes that break tools: 100,000 small files, one 50 MB .cu file, a 1 MB line
    (time and peak RSS of a cold port of each)."""
    base = cache_root() / "sizes"
    made = base / ".complete"
    if not made.exists():
        shutil.rmtree(base, ignore_errors=True)
        many = base / "many"
        for i in range(100_000):
            d = many / f"d{i // 1000:03d}"
            if i % 1000 == 0:
                d.mkdir(parents=True)
            (d / f"k{i}.cu").write_bytes(b"#include <cuda_runtime.h>\n__global__ void k() {}\n"
                                         b"void f() { cudaMalloc(0, 0); }\n")
        big = base / "big"
        big.mkdir()
        unit = (ROOT / "fixtures" / "cuda_app" / "src" / "saxpy.cu").read_bytes()
        (big / "big.cu").write_bytes(unit * (50_000_000 // len(unit) + 1))
        line = base / "line"
        line.mkdir()
        (line / "line.cu").write_bytes(b"int x = 0" + b" + cudaSuccess" * 75_000 + b";\n")
        made.write_text("ok\n")
    res = {}
    for name in ("many", "big", "line"):
        dst = cache_root() / "work" / f"sizes_{name}_musa"
        shutil.rmtree(dst, ignore_errors=True)
        cmd = [sys.executable, "-m", "musa_porting", str(base / name), "-o", str(dst), "-q"]
        if jobs:
            cmd += ["--jobs", str(jobs)]
        sample = timed(cmd)
        res[name] = {"s": round(sample.wall, 2), "cpu_s": round(sample.cpu, 2),
                     "peak_rss_mb": sample.rss_mb}
    return res
