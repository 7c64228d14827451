"""The tools the bench runs side by side on one tree, each as the command a user runs.

Every tool reads ``tree`` and writes ``out``; ``fresh`` prepares a cold run (no output
yet). A tool that cannot be had here says why in ``missing`` and is skipped.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from corpus import backend_dirs

# torch_musa's simple_porting.py as users install it (torch_musa.utils.simple_porting),
# or a copy of that file named here: torch_musa is not on PyPI.
SIMPLE_PORTING_ENV = "MUSA_PORT_BENCH_SIMPLE_PORTING"


@dataclass
class Tool:
    name: str
    missing: str | None = None  # why it is not measured
    note: str = ""  # what its figures mean, where that differs from musa-port's
    reruns: bool = True  # has a no-change / touched re-run worth timing

    def command(self, tree: Path, out: Path) -> list[str]:
        raise NotImplementedError

    def fresh(self, tree: Path, out: Path) -> None:
        shutil.rmtree(self.output(tree, out), ignore_errors=True)

    def output(self, tree: Path, out: Path) -> Path:
        return out


class MusaPort(Tool):
    def __init__(self, jobs: int | None):
        super().__init__("musa-port")
        self.jobs = jobs

    def command(self, tree: Path, out: Path) -> list[str]:
        skip = ",".join(d.relative_to(tree).as_posix() for d in backend_dirs(tree))
        cmd = [sys.executable, "-m", "musa_porting", str(tree), "-o", str(out), "-q",
               "--ignore", skip]
        return cmd + (["--jobs", str(self.jobs)] if self.jobs else [])


class Hipify(Tool):
    def __init__(self):
        ok = importlib.util.find_spec("torch") is not None
        super().__init__("PyTorch's hipify", None if ok else "torch not importable "
                         "(pip install torch==2.13.0)",
                         "it copies the tree once, then works on its copy: its re-runs redo "
                         "every file and do not see a touched input")

    def command(self, tree: Path, out: Path) -> list[str]:
        skip = [f"{d}/*" for d in backend_dirs(tree)]
        code = ("from torch.utils.hipify import hipify_python as h; "
                f"h.hipify(project_directory={str(tree)!r}, output_directory={str(out)!r}, "
                f"includes=['*'], ignores={skip!r}, show_detailed=False, show_progress=False, "
                "is_pytorch_extension=True)")
        return [sys.executable, "-c", code]


class SimplePorting(Tool):
    """torch_musa's own simple_porting.py, run as it is (it writes ``<tree>_musa``)."""

    def __init__(self):
        self.path = os.environ.get(SIMPLE_PORTING_ENV)
        if self.path is None and importlib.util.find_spec("torch_musa") is not None:
            self.path = importlib.util.find_spec("torch_musa.utils.simple_porting").origin
        missing = None if self.path and Path(self.path).is_file() else (
            "torch_musa's simple_porting.py not found: torch_musa is not on PyPI and its "
            f"source could not be fetched here; install torch_musa or set {SIMPLE_PORTING_ENV}"
            "=path/to/simple_porting.py")
        super().__init__("torch_musa's SimplePorting", missing,
                         "it deletes and rewrites its whole output on every run")

    def output(self, tree: Path, out: Path) -> Path:
        return Path(f"{tree}_musa")

    def command(self, tree: Path, out: Path) -> list[str]:
        skip = [str(d) for d in backend_dirs(tree)]
        code = ("import importlib.util as u, sys; "
                f"s = u.spec_from_file_location('simple_porting', {self.path!r}); "
                "m = u.module_from_spec(s); s.loader.exec_module(m); "
                f"m.SimplePorting(cuda_dir_path={str(tree)!r}, ignore_dir_paths={skip!r}, "
                "mapping_rule={}).run()")
        return [sys.executable, "-c", code]


class Copy(Tool):
    def __init__(self):
        super().__init__("cp -r", reruns=False)

    def command(self, tree: Path, out: Path) -> list[str]:
        return ["cp", "-r", str(tree), str(out)]


def all_tools(jobs: int | None) -> list[Tool]:
    return [MusaPort(jobs), Hipify(), SimplePorting(), Copy()]
