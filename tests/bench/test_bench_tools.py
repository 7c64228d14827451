"""bench/tools.py: torch_musa's simple_porting.py is run as it is when it can be found,
and skipped with a note that says why when it cannot."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
import tools  # noqa: E402

# Stands in for torch_musa's file: the same entry point, writing <tree>_musa as it does.
FAKE = '''
import shutil
class SimplePorting:
    def __init__(self, cuda_dir_path, ignore_dir_paths=(), mapping_rule=None):
        self.src, self.skip = cuda_dir_path, ignore_dir_paths
    def run(self):
        shutil.copytree(self.src, self.src + "_musa")
        open(self.src + "_musa/ignored.txt", "w").write("\\n".join(self.skip))
'''


def test_simple_porting_file_named_is_run_as_it_is(tmp_path, monkeypatch):
    fake = tmp_path / "simple_porting.py"
    fake.write_text(FAKE)
    tree = tmp_path / "csrc"
    (tree / "pytorch" / "cuda").mkdir(parents=True)
    (tree / "pytorch" / "cuda" / "k.cu").write_text("cudaMalloc(0, 0);\n")
    monkeypatch.setenv(tools.SIMPLE_PORTING_ENV, str(fake))
    tool = tools.SimplePorting()
    assert tool.missing is None
    out = tool.output(tree, tmp_path / "unused")
    subprocess.run(tool.command(tree, tmp_path / "unused"), check=True)
    assert (out / "pytorch" / "cuda" / "k.cu").read_text() == "cudaMalloc(0, 0);\n"
    assert str(tree / "pytorch" / "mlu") in (out / "ignored.txt").read_text()  # mmcv's backends
    tool.fresh(tree, tmp_path / "unused")
    assert not out.exists()


def test_simple_porting_missing_is_said(tmp_path, monkeypatch):
    monkeypatch.setenv(tools.SIMPLE_PORTING_ENV, str(tmp_path / "nowhere.py"))
    tool = tools.SimplePorting()
    assert tool.missing is not None and tools.SIMPLE_PORTING_ENV in tool.missing
