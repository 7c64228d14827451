"""A no-change re-run imports only what it uses: not the porters, the findings, the
rule tables or the symbol index (their imports and regex compiles were most of its
time). A run with files to port imports them in the parent, before its workers fork,
so that each worker does not import them again."""

from __future__ import annotations

import subprocess
import sys

# Runs the CLI in this process and prints the modules it imported.
WRAPPER = """
import sys
from musa_porting.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    assert exc.code in (0, None), exc.code
print("\\n".join(sorted(sys.modules)))
"""

# What only porting a file needs: the porters of every kind, the findings, the
# tables and the rule files' loader, the symbol index, the matcher.
PORT_MODULES = {
    "musa_porting.port.cxx.porter",
    "musa_porting.port.engine",
    "musa_porting.port.python",
    "musa_porting.analyze.findings",
    "musa_porting.analyze.residuals",
    "musa_porting.analyze.symbols",
    "musa_porting.analyze.build_symbols",
    "musa_porting.analyze.near_misses",
    "musa_porting.rules.tables",
    "musa_porting.rules.files",
}


# What only git, a merge of hand edits or --base-from needs (processes, temp folders,
# archives) and random temp names: a port outside any repository, of outputs nobody
# edited, imports none of them.
MERGE_MODULES = {"subprocess", "tempfile", "tarfile", "shutil", "secrets", "random"}


def _tree(root):
    src = root / "src"
    (src / "sub").mkdir(parents=True)
    (src / "k.cu").write_text("#include <cuda_runtime.h>\n__global__ void k() {}\n"
                              "void MYLIB_CUDA_CHECK() { cudaMalloc(0, 0); }\n")
    (src / "sub" / "h.cuh").write_text("#pragma once\nvoid MYLIB_CUDA_CHECK();\n")
    (src / "setup.py").write_text("import torch\nx = torch.cuda.is_available()\n")
    (src / "CMakeLists.txt").write_text("project(x LANGUAGES CXX CUDA)\n")
    (src / "README").write_text("not ported\n")
    return src


def _modules(src, out, *args) -> set[str]:
    proc = subprocess.run([sys.executable, "-c", WRAPPER, str(src), "-o", str(out), "-q", *args],
                          capture_output=True, text=True, check=True)
    return set(proc.stdout.split())


def test_a_no_change_rerun_imports_no_porter(tmp_path):
    src = _tree(tmp_path)
    out = tmp_path / "out"
    first = _modules(src, out)
    assert PORT_MODULES <= first  # the cold port used them all
    again = _modules(src, out)
    assert (out / "k.mu").is_file()
    assert sorted(again & PORT_MODULES) == []
    assert "yaml" not in again
    assert sorted((first | again) & MERGE_MODULES) == []


def test_a_port_with_workers_imports_the_porters_once(tmp_path):
    # Imported in the parent before the pool forks, not again in each worker:
    # -X importtime prints a line for each process that imports a module.
    src = _tree(tmp_path)
    for i in range(70):  # enough sources for the worker pool
        (src / f"m{i}.cu").write_text(f"void f{i}() {{ cudaFree(0); }}\n")
    for i in range(8):
        (src / f"p{i}.py").write_text(f"import torch\nx{i} = torch.cuda.device_count()\n")
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", WRAPPER, str(src), "-o",
                           str(tmp_path / "out"), "-q", "--jobs", "2"],
                          capture_output=True, text=True, check=True)
    assert "musaFree" in (tmp_path / "out" / "m3.mu").read_text()
    assert "torch.musa" in (tmp_path / "out" / "p3.py").read_text()
    imported = [line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines()
                if line.startswith("import time:") and "|" in line]
    for name in ("musa_porting.port.cxx.porter", "musa_porting.port.python.source",
                 "musa_porting.analyze.findings", "musa_porting.port.build.file",
                 "musa_porting.analyze.build_findings"):
        assert imported.count(name) == 1, name
