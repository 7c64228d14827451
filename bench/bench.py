#!/usr/bin/env python3
"""Benchmark musa-port against PyTorch's hipify, torch_musa's SimplePorting and cp -r.

    python bench/bench.py [--runs 3] [--json bench/results.json] [--jobs N] [--scale] [--sizes]

Two trees: the bench corpus (mmcv 2.2.0's ops/csrc plus the CCCL headers, see
corpus.py) and mmcv's ops/csrc alone (the tree a setup.py ports on a fresh build).
On each, every round runs every tool's cold port, then every tool's no-change re-run,
then touches 1% of the C/C++/CUDA files and runs every tool again (the touched files
are restored after): the tools interleave, their order turning each round, so a busy
moment of a shared machine does not land on one tool. A figure is the median over
--runs rounds of the command-line tool, start-up included: wall time and the CPU time
of all its processes (workers included). hipify is measured when torch is importable
(pip install torch==2.13.0); SimplePorting when torch_musa's simple_porting.py can be
found (see tools.py). The speed page's table is rendered from the JSON (render.py).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
from pathlib import Path

from corpus import ROOT, build_corpus, cache_root, mmcv_tree, touch_one_percent, tree_stats
from extras import build_overhead, scale, sizes, startup
from measure import prepare_python, summary, timed
from render import markdown
from tools import Tool, all_tools

SCENARIOS = ("cold", "no-change", "touched")


def run_tree(label: str, tree: Path, tools: list[Tool], runs: int) -> dict:
    """Every scenario of every tool on ``tree``, interleaved, ``runs`` rounds."""
    work = cache_root() / "work" / label
    work.mkdir(parents=True, exist_ok=True)
    live = [t for t in tools if t.missing is None]
    outs = {t.name: work / t.name.replace(" ", "_").replace("'", "") for t in live}
    samples: dict[str, dict[str, list]] = {t.name: {s: [] for s in SCENARIOS} for t in live}
    for r in range(runs):
        order = live[r % len(live):] + live[:r % len(live)]
        for t in order:
            t.fresh(tree, outs[t.name])
            samples[t.name]["cold"].append(timed(t.command(tree, outs[t.name])))
        for t in order:
            if t.reruns:
                samples[t.name]["no-change"].append(timed(t.command(tree, outs[t.name])))
        originals = touch_one_percent(tree, r)
        try:
            for t in order:
                if t.reruns:
                    samples[t.name]["touched"].append(timed(t.command(tree, outs[t.name])))
        finally:
            for p, data in originals.items():
                p.write_bytes(data)
    for t in live:
        t.fresh(tree, outs[t.name])  # GBs with --scale; and SimplePorting's is beside the tree
    files, size = tree_stats(tree)
    return {"files": files, "mb": round(size / 1e6, 2), "touched_files": len(originals),
            "tools": {t.name: {s: summary(v) for s, v in samples[t.name].items() if v}
                      for t in live}}


def targets(res: dict) -> list[dict]:
    """The speed targets (issue 29), each with its measured figure and whether it is met."""
    def fig(tree: str, tool: str, scenario: str, what: str):
        return res["trees"][tree]["tools"].get(tool, {}).get(scenario, {}).get(what)

    def ratio(a, b):
        return None if a is None or b is None else round(a / b, 2)

    hip, sp, mp = "PyTorch's hipify", "torch_musa's SimplePorting", "musa-port"
    rows = [
        ("bench corpus: cold port, hipify's wall / musa-port's", ">=", 8,
         ratio(fig("bench", hip, "cold", "wall_s"), fig("bench", mp, "cold", "wall_s"))),
        ("bench corpus: cold port, hipify's CPU / musa-port's", ">=", 5,
         ratio(fig("bench", hip, "cold", "cpu_s"), fig("bench", mp, "cold", "cpu_s"))),
        ("mmcv ops/csrc: cold port, SimplePorting's wall / musa-port's", ">=", 20,
         ratio(fig("mmcv", sp, "cold", "wall_s"), fig("mmcv", mp, "cold", "wall_s"))),
        ("bench corpus: no-change re-run / cold port (wall)", "<=", 0.10,
         ratio(fig("bench", mp, "no-change", "wall_s"), fig("bench", mp, "cold", "wall_s"))),
        ("bench corpus: no-change re-run / cold port (CPU)", "<=", 0.10,
         ratio(fig("bench", mp, "no-change", "cpu_s"), fig("bench", mp, "cold", "cpu_s"))),
    ]
    return [{"target": what, "op": op, "goal": goal, "measured": got,
             "met": None if got is None else (got >= goal if op == ">=" else got <= goal)}
            for what, op, goal, got in rows]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="rounds (each figure is their median)")
    ap.add_argument("--jobs", type=int, default=None, help="musa-port --jobs (default: its own)")
    ap.add_argument("--json", default=str(ROOT / "bench" / "results.json"))
    ap.add_argument("--scale", action="store_true",
                    help="also time cold ports of 1x, 4x and 16x the corpus (MB/s must hold)")
    ap.add_argument("--sizes", action="store_true",
                    help="also time 100,000 small files, a 50 MB .cu file and a 1 MB line")
    args = ap.parse_args()
    prepare_python()
    corpus = build_corpus()
    tools = all_tools(args.jobs)
    res: dict = {
        "machine": {"cores": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform()},
        "runs": args.runs, "jobs": args.jobs or os.cpu_count(),
        "missing": {t.name: t.missing for t in tools if t.missing},
        "notes": {t.name: t.note for t in tools if t.note and not t.missing},
        "trees": {"bench": run_tree("bench", corpus, tools, args.runs),
                  "mmcv": run_tree("mmcv", mmcv_tree(corpus), tools, args.runs)},
    }
    res["targets"] = targets(res)
    res["startup"] = startup(args.runs)
    musa_out = cache_root() / "work" / "build"
    timed(tools[0].command(corpus, musa_out))
    res["startup"]["build_noop_s"] = round(build_overhead(musa_out, args.runs), 3)
    if args.scale:
        res["scale"] = scale(args.runs, args.jobs)
    if args.sizes:
        res["sizes"] = sizes(args.jobs)
    shutil.rmtree(cache_root() / "work", ignore_errors=True)
    print(markdown(res))
    Path(args.json).write_text(json.dumps(res, indent=1) + "\n")
    print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
