"""Hand edits in OUT survive a re-run (issue 39 deliverables 1-2, issue 37 item 4):
the bytes musa-port wrote are kept as the base, an edited output is merged three ways
with the new port, conflicts get diff3 markers and are listed (exit 1 under --check),
and the file as it was before the merge is kept where the run says."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import make_tree

from musa_porting import PortOptions, port_tree
from musa_porting.cli.app import cli
from musa_porting.merge.bases import base_bytes
from musa_porting.write.manifest import load_manifest

A_CU = """#include <cuda_runtime.h>
void alloc(float* p) {
  cudaMalloc(&p, 4);
}
void release(float* p) {
  cudaFree(p);
}
// a helper
int helper() { return 1; }
"""


@pytest.fixture
def tree(tmp_path) -> Path:
    return make_tree(tmp_path / "csrc", {"a.cu": A_CU, "README.md": "notes on cudaMalloc\n"})


def port(src: Path, **kw):
    return port_tree(PortOptions(src=str(src), jobs=1, **kw))


def rule_file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "rules.json"
    path.write_text(text)
    return str(path)


def edit_and_port(tree: Path, tmp_path: Path, old: str, new: str, rules: str, **kw):
    """Port; edit a.mu by hand (``old`` -> ``new``); port again with the rules ``rules``
    (JSON). Returns a.mu's path, its text as edited, and the second run's result."""
    port(tree)
    mu = tree.parent / "csrc_musa" / "a.mu"
    mine = mu.read_text().replace(old, new)
    mu.write_text(mine)
    return mu, mine, port(tree, rule_files=[rule_file(tmp_path, rules)], **kw)


def kept_path(result, rel: str) -> Path:
    """The pre-merge copy of ``rel`` the run's warnings name."""
    for w in result.warnings:
        m = re.search(r"your file before the merge is kept as (\S+)", w)
        if m and rel in w:
            return Path(m.group(1))
    raise AssertionError(f"no kept copy of {rel} named in {result.warnings}")


def test_the_bytes_musa_port_wrote_are_kept_as_the_base(tree):
    port(tree)
    out = tree.parent / "csrc_musa"
    manifest = load_manifest(str(out))
    for rel in ("a.mu", "README.md"):
        rec = manifest.files[rel]
        assert base_bytes(str(out), rec.base) == (out / rel).read_bytes()
    assert (out / ".musa-port").is_dir()


def test_a_hand_edit_survives_a_re_run_with_nothing_changed(tree):
    port(tree)
    out = tree.parent / "csrc_musa"
    mu = out / "a.mu"
    edited = mu.read_text().replace("return 1", "return 2")
    mu.write_text(edited)
    r = port(tree)
    assert mu.read_text() == edited
    assert r.written == 0 and not r.conflicted
    r = port(tree)  # and again, through the manifest's fast path
    assert mu.read_text() == edited


def test_an_edit_that_does_not_overlap_a_rule_change_merges_cleanly(tree, tmp_path):
    mu, before_merge, r = edit_and_port(tree, tmp_path, "return 1", "return 2",
                                        '{"cudaMalloc": "myMalloc"}')
    text = mu.read_text()
    assert "myMalloc(&p, 4)" in text and "return 2" in text and "<<<<<<<" not in text
    assert r.merged == ["a.mu"] and not r.conflicted
    assert kept_path(r, "a.mu").read_text() == before_merge
    # The merge is now the user's file: a re-run changes nothing.
    again = port(tree, rule_files=[rule_file(tmp_path, '{"cudaMalloc": "myMalloc"}')])
    assert mu.read_text() == text and again.written == 0


def test_an_edit_that_conflicts_with_a_rule_change_gets_diff3_markers_and_is_listed(tree, tmp_path):
    mu, mine, r = edit_and_port(tree, tmp_path, "musaFree(p);", "musaFree(p);  // checked by hand",
                                '{"cudaFree": "myFree"}')
    rules = str(tmp_path / "rules.json")
    text = mu.read_text()
    assert r.conflicted == ["a.mu"]
    block = re.search(r"^<<<<<<< (.*)\n(.*)\n\|\|\|\|\|\|\| (.*)\n(.*)\n=======\n(.*)\n>>>>>>> (.*)\n",
                      text, re.M)
    assert block, text
    ours_label, ours, base_label, base, theirs, theirs_label = block.groups()
    assert "checked by hand" in ours and "musaFree(p);" == base.strip() and "myFree(p);" == theirs.strip()
    assert "yours" in ours_label and "base" in base_label and "new port" in theirs_label
    # What the docs show is what the merge writes.
    docs = Path(__file__).parents[2] / "docs" / "keeping-a-fork-up-to-date.md"
    assert block.group(0) in docs.read_text()
    assert "return 1" in text  # the rest of the file as merged
    assert kept_path(r, "a.mu").read_text() == mine
    assert any("a.mu" in w and "conflict" in w for w in r.warnings)
    # --check fails while the markers are there, and names the file.
    res = CliRunner().invoke(cli, [str(tree), "--rule", rules, "--check", "-q"])
    assert res.exit_code == 1, res.output
    assert "a.mu" in res.output and "conflict" in res.output


def test_an_output_only_touched_is_replaced_without_a_word(tree, tmp_path):
    port(tree)
    mu = tree.parent / "csrc_musa" / "a.mu"
    os.utime(mu, (1, 1))  # same bytes, another mtime
    r = port(tree, rule_files=[rule_file(tmp_path, '{"cudaMalloc": "myMalloc"}')])
    assert "myMalloc" in mu.read_text()
    assert not r.merged and not r.conflicted and not (tree.parent / "csrc_musa/.musa-port/kept").exists()


def test_a_copied_file_edited_by_hand_is_merged_too(tree):
    port(tree)
    out = tree.parent / "csrc_musa"
    (out / "README.md").write_text("notes on cudaMalloc\nmy note\n")
    (tree / "README.md").write_text("# title\nnotes on cudaMalloc\n")
    port(tree)
    assert (out / "README.md").read_text() == "# title\nnotes on cudaMalloc\nmy note\n"


def test_an_edited_output_whose_input_is_gone_is_kept_after_a_merge(tree, tmp_path):
    mu, _, _ = edit_and_port(tree, tmp_path, "return 1", "return 2", '{"cudaMalloc": "myMalloc"}')
    (tree / "a.cu").unlink()
    r = port(tree)
    assert mu.is_file() and "return 2" in mu.read_text()
    assert any("a.mu" in w and "left in place" in w for w in r.warnings)


def test_an_edit_without_a_base_is_never_replaced_without_a_word(tree, tmp_path):
    """A manifest of an older musa-port (no base): the edit cannot be merged, so the
    new port is written and the edited file kept, and the run says where."""
    import shutil

    port(tree)
    out = tree.parent / "csrc_musa"
    shutil.rmtree(out / ".musa-port")
    mu = out / "a.mu"
    mine = mu.read_text().replace("return 1", "return 2")
    mu.write_text(mine)
    r = port(tree, rule_files=[rule_file(tmp_path, '{"cudaMalloc": "myMalloc"}')])
    assert "myMalloc" in mu.read_text()
    assert kept_path(r, "a.mu").read_text() == mine
    assert r.conflicted == ["a.mu"]


def test_a_dry_run_says_what_it_would_merge_and_writes_nothing(tree, tmp_path):
    mu, mine, r = edit_and_port(tree, tmp_path, "musaFree(p);", "musaFree(p);  // mine",
                                '{"cudaFree": "myFree"}', dry_run=True)
    assert r.conflicted == ["a.mu"] and mu.read_text() == mine
    assert not (mu.parent / ".musa-port/kept").exists()


def test_the_packs_hold_no_more_than_four_times_the_live_bases(tmp_path):
    """A pack whose bases were mostly replaced by later runs' is not kept for the few
    still live: they move to the new pack, and the old one goes."""
    body = "#include <cuda_runtime.h>\nvoid f{n}(float* p) {{ cudaMalloc(&p, {n}); }}\n"
    src = make_tree(tmp_path / "csrc", {f"k{n}.cu": body.format(n=n) * 40 for n in range(5)})
    out = tmp_path / "csrc_musa"
    port(src)
    for n in range(4):  # the next release changes four of the five files
        (src / f"k{n}.cu").write_text(body.format(n=n + 10) * 40)
    port(src)

    def live_and_packed():
        manifest = load_manifest(str(out))
        live = sum(int(r.base.split(":")[3]) for r in manifest.files.values() if r.base.count(":") == 3)
        packed = sum(p.stat().st_size for p in (out / ".musa-port/base").iterdir())
        for rel, rec in manifest.files.items():
            assert base_bytes(str(out), rec.base) == (out / rel).read_bytes()
        return live, packed

    live, packed = live_and_packed()
    assert packed == live
    port(src)  # and a run with nothing to do writes nothing
    assert live_and_packed() == (live, packed)
