#!/usr/bin/env python3
"""Benchmark musa-port against cp -r and PyTorch's hipify on ~20 MB of real CUDA code.

    python bench/bench.py [--runs 5] [--json bench/results.json] [--jobs N] [--scale] [--sizes]

The corpus is mmcv 2.2.0's ops/csrc (the sdist, from PyPI) plus the CCCL headers
(thrust, cub, libcu++) from /usr/local/cuda/include/cccl or the nvidia-cuda-cccl wheel,
cached under $MUSA_PORT_BENCH_CACHE (default: the system temp folder). Every figure is
the median of --runs runs of the command-line tool, measured as wall time of the whole
process (start-up included), with peak RSS summed over the process and its children.
hipify is measured when ``import torch`` works (pip install torch==2.13.0).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from sdist import extract_subtree, fetch_sdist  # noqa: E402

# mmcv's other backends, as its port ignores them (paths are anchored at the corpus root).
MMCV_IGNORES = ",".join(f"mmcv_csrc/{p}" for p in (
    "common/mlu", "common/mps", "parrots", "pytorch/mlu", "pytorch/mps", "pytorch/npu"))


def cache_root() -> Path:
    d = Path(os.environ.get("MUSA_PORT_BENCH_CACHE", Path(tempfile.gettempdir()) / "musa-port-bench"))
    d.mkdir(parents=True, exist_ok=True)
    return d


def cccl_headers(dest: Path) -> Path:
    """The CCCL headers: the local CUDA's, or the nvidia-cuda-cccl wheel's."""
    local = Path("/usr/local/cuda/include/cccl")
    if local.is_dir():
        shutil.copytree(local, dest, symlinks=True)
        return dest
    wheels = cache_root() / "wheels"
    wheels.mkdir(exist_ok=True)
    if not list(wheels.glob("nvidia_cuda_cccl*.whl")):
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d",
                        str(wheels), "nvidia-cuda-cccl"], check=True)
    wheel = sorted(wheels.glob("nvidia_cuda_cccl*.whl"))[-1]
    with zipfile.ZipFile(wheel) as zf:
        members = [m for m in zf.namelist() if "/include/" in m and not m.endswith("/")]
        for m in members:
            target = dest / m.split("/include/", 1)[1]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zf.read(m))
    return dest


def build_corpus() -> Path:
    corpus = cache_root() / "corpus"
    if (corpus / ".complete").exists():
        return corpus
    if corpus.exists():
        shutil.rmtree(corpus)
    corpus.mkdir()
    tmp = cache_root() / "extract"
    shutil.rmtree(tmp, ignore_errors=True)
    csrc = extract_subtree(fetch_sdist("mmcv", "2.2.0"), "mmcv-2.2.0/mmcv/ops/csrc", tmp)
    shutil.move(str(csrc), corpus / "mmcv_csrc")
    shutil.rmtree(tmp, ignore_errors=True)
    cccl_headers(corpus / "cccl")
    (corpus / ".complete").write_text("ok\n")
    return corpus


def tree_stats(root: Path) -> tuple[int, int]:
    files = size = 0
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            if not os.path.islink(p):
                files += 1
                size += os.path.getsize(p)
    return files, size


def _rss_kb(pid: int) -> int:
    """RSS of a process and all its descendants, from /proc."""
    total = 0
    stack = [pid]
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
                        break
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as fh:
                    stack.extend(int(c) for c in fh.read().split())
        except (OSError, ValueError):
            continue
    return total


def timed(cmd: list[str], cwd: Path | None = None) -> tuple[float, int]:
    """Wall seconds and peak summed RSS (MB) of a command."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    done = threading.Event()

    def poll() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _rss_kb(proc.pid))
            time.sleep(0.005)

    th = threading.Thread(target=poll, daemon=True)
    th.start()
    _, err = proc.communicate()
    wall = time.perf_counter() - t0
    done.set()
    th.join()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{err.decode(errors='replace')[-2000:]}")
    return wall, peak // 1024


def prepare_python() -> None:
    """Time what a user's runs cost: with the package's bytecode written (a shell with
    PYTHONDONTWRITEBYTECODE set would recompile every module on every run) and the
    tables' compiled cache in place (the first run of an install builds it)."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    pkg = subprocess.run([sys.executable, "-c", "import os, musa_porting; "
                          "print(os.path.dirname(musa_porting.__file__))"],
                         capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run([sys.executable, "-m", "compileall", "-q", pkg], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, "-c", "from musa_porting.rules import build_ruleset; "
                    "build_ruleset()"], check=True)  # writes the tables' cache


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def bench(runs: int, jobs: int | None) -> dict:
    corpus = build_corpus()
    files, size = tree_stats(corpus)
    work = cache_root() / "work"
    out = work / "corpus_musa"
    musa = [sys.executable, "-m", "musa_porting", str(corpus), "-o", str(out), "-q",
            "--ignore", MMCV_IGNORES]
    if jobs:
        musa += ["--jobs", str(jobs)]

    cold, cold_rss = [], []
    for _ in range(runs):
        shutil.rmtree(out, ignore_errors=True)
        w, rss = timed(musa)
        cold.append(w)
        cold_rss.append(rss)
    rerun = [timed(musa)[0] for _ in range(runs)]

    sources = sorted(p for p in corpus.rglob("*")
                     if p.is_file() and p.suffix in (".cu", ".cuh", ".h", ".hpp", ".cpp", ".inl"))
    n_touch = max(1, len(sources) // 100)
    touched = sources[:: max(1, len(sources) // n_touch)][:n_touch]  # spread over the tree
    originals = {p: p.read_bytes() for p in touched}
    touch_runs = []
    try:
        for i in range(runs):
            for p in touched:
                p.write_bytes(originals[p] + f"\n// touched {i}\n".encode())
            touch_runs.append(timed(musa)[0])
    finally:
        for p, data in originals.items():
            p.write_bytes(data)
        timed(musa)  # leave the output in step with the corpus

    cp_runs = []
    for _ in range(runs):
        dst = work / "cp_copy"
        shutil.rmtree(dst, ignore_errors=True)
        cp_runs.append(timed(["cp", "-r", str(corpus), str(dst)])[0])

    help_runs = [timed([sys.executable, "-m", "musa_porting", "--help"])[0] for _ in range(runs)]
    script = Path(sys.executable).with_name("musa-port")  # the console script users run
    version_cmd = [str(script)] if script.exists() else [sys.executable, "-m", "musa_porting"]
    version_runs = [timed([*version_cmd, "--version"])[0] for _ in range(runs)]
    pass_runs = [timed([sys.executable, "-c", "pass"])[0] for _ in range(runs)]
    build_noop = build_overhead(out, runs)

    hip = None
    try:
        import torch  # noqa: F401
        have_torch = True
    except Exception:
        have_torch = False
    if have_torch:
        hip_runs = []
        for _ in range(runs):
            hip_src = work / "hip_src"
            shutil.rmtree(hip_src, ignore_errors=True)
            shutil.copytree(corpus, hip_src, symlinks=True)
            code = ("from torch.utils.hipify import hipify_python as h; "
                    f"h.hipify(project_directory={str(hip_src)!r}, "
                    f"output_directory={str(work / 'hip_out')!r}, includes=['*'], "
                    "show_detailed=False, show_progress=False, is_pytorch_extension=True)")
            shutil.rmtree(work / "hip_out", ignore_errors=True)
            hip_runs.append(timed([sys.executable, "-c", code])[0])
        hip = median(hip_runs)

    mb = size / 1e6
    res = {
        "machine": {"cores": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform()},
        "corpus": {"files": files, "mb": round(mb, 2), "path": str(corpus)},
        "runs": runs,
        "jobs": jobs or os.cpu_count(),
        "cold_s": median(cold),
        "cold_mb_s": mb / median(cold),
        "cold_files_s": files / median(cold),
        "peak_rss_mb": max(cold_rss),
        "rerun_s": median(rerun),
        "touch1pct_s": median(touch_runs),
        "touched_files": len(touched),
        "cp_s": median(cp_runs),
        "cp_mb_s": mb / median(cp_runs),
        "help_s": median(help_runs),
        "version_s": median(version_runs),
        "python_pass_s": median(pass_runs),
        "build_noop_s": build_noop,
        "hipify_s": hip,
        "hipify_mb_s": (mb / hip) if hip else None,
    }
    res["vs_cp"] = res["cold_mb_s"] / res["cp_mb_s"]
    res["vs_hipify"] = (res["cold_mb_s"] / res["hipify_mb_s"]) if hip else None
    res["rerun_vs_cold"] = res["rerun_s"] / res["cold_s"]
    res["touch_vs_cold"] = res["touch1pct_s"] / res["cold_s"]
    return res


def build_overhead(out: Path, runs: int) -> float:
    """``musa-port build`` on the ported mmcv tree once (the fake mcc of the fixtures
    compiles nothing real), then the median of no-op re-builds: writing build.ninja
    and asking ninja, which finds nothing to do."""
    mcc = ROOT / "fixtures" / "fake-mcc" / "mcc"
    cmd = [sys.executable, "-m", "musa_porting", "build", str(out / "mmcv_csrc"), "--mcc", str(mcc),
           "--cxx", str(mcc), "-q", "--keep-going"]
    subprocess.run(cmd, capture_output=True)  # the first build (some files fail on the fake)
    return median([timed_any(cmd) for _ in range(runs)])


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
            walls.append(timed(cmd)[0])
        out[n] = {"mb": round(size / 1e6, 1), "s": median(walls), "mb_s": size / 1e6 / median(walls)}
    out["ratio_16_to_1"] = out[16]["mb_s"] / out[1]["mb_s"]
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
        wall, rss = timed(cmd)
        res[name] = {"s": round(wall, 2), "peak_rss_mb": rss}
    return res


def table(r: dict) -> str:
    def f(x, spec=".3f"):
        return "n/a" if x is None else format(x, spec)

    rows = [
        ("corpus", f"{r['corpus']['files']} files, {r['corpus']['mb']} MB"),
        ("machine", f"{r['machine']['cores']} cores, Python {r['machine']['python']}"),
        ("runs (median of)", str(r["runs"])),
        ("musa-port --jobs", str(r["jobs"])),
        ("cold port", f"{f(r['cold_s'])} s, {f(r['cold_mb_s'], '.1f')} MB/s, "
                      f"{f(r['cold_files_s'], '.0f')} files/s"),
        ("peak RSS (all processes)", f"{r['peak_rss_mb']} MB"),
        ("no-change re-run", f"{f(r['rerun_s'])} s ({f(100 * r['rerun_vs_cold'], '.0f')}% of cold)"),
        (f"re-run, {r['touched_files']} files (1%) touched",
         f"{f(r['touch1pct_s'])} s ({f(100 * r['touch_vs_cold'], '.0f')}% of cold)"),
        ("cp -r", f"{f(r['cp_s'])} s, {f(r['cp_mb_s'], '.1f')} MB/s; musa-port is "
                  f"{f(100 * r['vs_cp'], '.0f')}% of cp's MB/s"),
        ("hipify", "not measured (torch not importable)" if r["hipify_s"] is None else
         f"{f(r['hipify_s'])} s, {f(r['hipify_mb_s'], '.1f')} MB/s; musa-port is "
         f"{f(r['vs_hipify'], '.1f')}x hipify"),
        ("musa-port --help", f"{f(r['help_s'])} s"),
        ("musa-port --version", f"{f(r['version_s'])} s; python -c pass {f(r['python_pass_s'])} s "
                                f"(+{f(1000 * (r['version_s'] - r['python_pass_s']), '.0f')} ms)"),
        ("build: ninja file + no-op re-build", f"{f(r['build_noop_s'])} s (mmcv's ported tree, "
                                               "fake mcc)"),
    ]
    w = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{w}}  {v}" for k, v in rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=None, help="musa-port --jobs (default: its own)")
    ap.add_argument("--json", default=str(ROOT / "bench" / "results.json"))
    ap.add_argument("--scale", action="store_true",
                    help="also time cold ports of 1x, 4x and 16x the corpus (MB/s must hold)")
    ap.add_argument("--sizes", action="store_true",
                    help="also time 100,000 small files, a 50 MB .cu file and a 1 MB line")
    args = ap.parse_args()
    prepare_python()
    res = bench(args.runs, args.jobs)
    print(table(res))
    if args.scale:
        res["scale"] = sc = scale(args.runs, args.jobs)
        print("\nscale   " + "   ".join(f"{n}x: {sc[n]['mb']} MB in {sc[n]['s']:.2f} s, "
                                       f"{sc[n]['mb_s']:.1f} MB/s" for n in (1, 4, 16)))
        print(f"        16x MB/s is {100 * sc['ratio_16_to_1']:.0f}% of 1x")
    if args.sizes:
        res["sizes"] = sz = sizes(args.jobs)
        for name, what in (("many", "100,000 small files"), ("big", "one 50 MB .cu file"),
                           ("line", "a 1 MB line")):
            print(f"{what:<22} {sz[name]['s']:.2f} s, peak RSS {sz[name]['peak_rss_mb']} MB")
    Path(args.json).write_text(json.dumps(res, indent=1) + "\n")
    print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
