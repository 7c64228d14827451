"""docs/speed.md's figures are bench/render.py's rendering of the committed
bench/results.json: a figure typed by hand, or a JSON re-measured without rendering the
page again, fails here."""

from __future__ import annotations

import copy
import importlib.util
import json

from conftest import ROOT


def _render():
    spec = importlib.util.spec_from_file_location("bench_render", ROOT / "bench" / "render.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _results() -> dict:
    return json.loads((ROOT / "bench" / "results.json").read_text(encoding="utf-8"))


def test_speed_page_matches_the_committed_bench_json():
    page = (ROOT / "docs" / "speed.md").read_text(encoding="utf-8")
    assert _render().render_page(page, _results()) == page


def test_speed_page_changes_with_the_figures():
    render = _render()
    res = _results()
    page = (ROOT / "docs" / "speed.md").read_text(encoding="utf-8")
    other = copy.deepcopy(res)
    other["trees"]["bench"]["tools"]["musa-port"]["cold"]["wall_s"] += 1.0
    assert render.render_page(page, other) != page


def test_a_missed_target_and_a_missing_tool_are_said():
    text = _render().markdown(_results())
    for t in _results()["targets"]:
        assert t["target"] in text
    res = _results()
    res["targets"][0]["met"] = False
    res["missing"] = {"torch_musa's SimplePorting": "not found here"}
    text = _render().markdown(res)
    assert "**no**" in text and "torch_musa's SimplePorting: not measured: not found here" in text
