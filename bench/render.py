#!/usr/bin/env python3
"""The speed page's figures, rendered from the bench's JSON, so no figure is typed by hand.

    python bench/render.py [--json bench/results.json] [--page docs/speed.md] [--check]

Rewrites what lies between the page's ``<!-- bench:start -->`` and ``<!-- bench:end -->``
lines; ``--check`` only says (exit 1) whether the page is out of step with the JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START, END = "<!-- bench:start -->", "<!-- bench:end -->"
SCENARIO_NAMES = {"cold": "cold port", "no-change": "no-change re-run", "touched": "1% touched re-run"}
TREE_NAMES = {"bench": "bench corpus (mmcv 2.2.0 ops/csrc + CCCL headers)",
              "mmcv": "mmcv 2.2.0 ops/csrc alone"}


def _s(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f} s"


def _tree(name: str, tree: dict) -> list[str]:
    tools = tree["tools"]
    mp = tools.get("musa-port", {}).get("cold")
    lines = [f"**{TREE_NAMES.get(name, name)}**: {tree['files']:,} files, {tree['mb']} MB; "
             f"the touched re-run appends a comment to {tree['touched_files']} of them.", "",
             "| tool | run | wall | CPU (all processes) | peak RSS | against musa-port's cold port |",
             "|---|---|---|---|---|---|"]
    for tool, runs in tools.items():
        for scenario, fig in runs.items():
            cold = runs.get("cold")
            if tool == "musa-port":
                vs = "" if scenario == "cold" else \
                    f"{100 * fig['wall_s'] / cold['wall_s']:.0f}% of cold (wall)"
            elif scenario == "cold" and mp:
                vs = (f"takes **{fig['wall_s'] / mp['wall_s']:.2f}x** the wall time, "
                      f"**{fig['cpu_s'] / mp['cpu_s']:.2f}x** the CPU")
            else:
                vs = ""
            lines.append(f"| {tool} | {SCENARIO_NAMES[scenario]} | {_s(fig['wall_s'])} | "
                         f"{_s(fig['cpu_s'])} | {fig['peak_rss_mb']} MB | {vs} |")
    return lines


def markdown(res: dict) -> str:
    """The figures of one bench run as Markdown."""
    m = res["machine"]
    out = [f"Measured on {m['cores']} cores, Python {m['python']}; musa-port --jobs {res['jobs']}; "
           f"each figure the median of {res['runs']} interleaved rounds.", ""]
    for name, tree in res["trees"].items():
        out += [*_tree(name, tree), ""]
    for tool, why in res.get("missing", {}).items():
        out.append(f"- {tool}: not measured: {why}.")
    for tool, note in res.get("notes", {}).items():
        out.append(f"- {tool}: {note}.")
    out += ["", "| target | goal | measured | met |", "|---|---|---|---|"]
    for t in res["targets"]:
        goal = f"{t['op']} {t['goal']:g}"
        met = {True: "yes", False: "**no**", None: "not measured"}[t["met"]]
        out.append(f"| {t['target']} | {goal} | {'n/a' if t['measured'] is None else t['measured']:} "
                   f"| {met} |")
    s = res.get("startup")
    if s:
        out += ["", f"Start-up: `musa-port --help` {_s(s['help_s'])}, `--version` {_s(s['version_s'])} "
                f"(python -c pass {_s(s['python_pass_s'])}); `musa-port build` no-op re-build of the "
                f"ported mmcv tree {_s(s['build_noop_s'])}."]
    sc = res.get("scale")
    if sc:
        out += ["", "Scale: " + ", ".join(f"{n}x the corpus ({sc[n]['mb']} MB) {sc[n]['mb_s']:.1f} MB/s"
                                          for n in ("1", "4", "16") if n in sc)
                + f"; 16x MB/s is {100 * sc['ratio_16_to_1']:.0f}% of 1x."]
    sz = res.get("sizes")
    if sz:
        what = {"many": "100,000 small files", "big": "one 50 MB .cu file", "line": "a 1 MB line"}
        out += ["", "Sizes: " + "; ".join(f"{what[k]} {v['s']:.2f} s, peak RSS {v['peak_rss_mb']} MB"
                                          for k, v in sz.items()) + "."]
    return "\n".join(out)


def render_page(page: str, res: dict) -> str:
    """``page`` with its marked section replaced by the figures of ``res``."""
    head, sep, rest = page.partition(START + "\n")
    _, sep2, tail = rest.partition(END)
    if not sep or not sep2:
        raise SystemExit(f"the page has no {START} ... {END} section")
    return f"{head}{START}\n{markdown(res)}\n{END}{tail}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=str(ROOT / "bench" / "results.json"))
    ap.add_argument("--page", default=str(ROOT / "docs" / "speed.md"))
    ap.add_argument("--check", action="store_true", help="exit 1 if the page is out of step")
    args = ap.parse_args()
    page = Path(args.page).read_text(encoding="utf-8")
    new = render_page(page, json.loads(Path(args.json).read_text(encoding="utf-8")))
    if args.check:
        if new != page:
            print(f"{args.page}: out of step with {args.json}: run python bench/render.py")
            return 1
        return 0
    Path(args.page).write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
