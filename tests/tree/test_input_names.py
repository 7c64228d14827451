"""Issue 44, point 1: two inputs that want one output path never stop the run. A MUSA
twin that already exists wins (kept as it is, includes of the CUDA file follow to it)
and the CUDA file is reported; two inputs that cannot be told apart each keep a name of
their own; either way a finding names both paths and the run ports everything else."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import FIXTURES, make_tree, musa_port_here

from musa_porting import PortOptions, port_tree

CASE = FIXTURES / "inputs" / "twin_in_renamed_folder" / "src"


def port(src: Path, out: Path, **kw):
    """Port ``src`` into ``out`` in this process; the result and the output's texts."""
    result = port_tree(PortOptions(str(src), str(out), jobs=1, **kw))
    texts = {p.relative_to(out).as_posix(): p.read_text() for p in sorted(out.rglob("*"))
             if p.is_file() and not p.relative_to(out).parts[0].startswith(".musa-port")}
    return result, texts


def found(result, prefix: str = "MP00") -> list[tuple[str, str, str, str, str]]:
    """The run's findings about its inputs: (input, output, ID, level, message)."""
    return sorted((f.rel, f.out_rel, d.id, d.level, d.message)
                  for f in result.files for d in f.diagnostics if d.id.startswith(prefix))


def test_a_musa_twin_inside_a_renamed_folder_wins_and_the_cuda_file_is_reported(tmp_path):
    """The reported tree: x-cuda/vendors/{cuda.h,musa.h}, x-cuda/ renamed to x-musa/:
    both wanted x-musa/vendors/musa.h and the run stopped (exit 2), losing the tree."""
    result, out = port(CASE, tmp_path / "out")
    hand = (CASE / "x-cuda/vendors/musa.h").read_text()
    assert out["x-musa/vendors/musa.h"] == hand  # the twin, kept as it is
    assert "x-musa/vendors/cuda.h" not in out  # the CUDA file is not ported beside it
    # Every include of the CUDA header, from anywhere in the tree, now names the twin.
    assert '#include "../vendors/musa.h"' in out["x-musa/kernels/scale.mu"]
    assert '#include "musa.h"' in out["x-musa/vendors/musa_extra.h"]
    use = out["ops/use.cpp"]
    assert ('#include "x-musa/vendors/musa.h"\n#include "x-musa/vendors/musa_extra.h"\n'
            '#include "x-musa/vendors/musa_notes.h"\n') in use
    assert "void use(musaStream_t s)" in use
    # Every other file is ported as it would be without the twin.
    assert set(out) == {"CMakeLists.txt", "ops/use.cpp", "x-musa/kernels/scale.mu",
                        "x-musa/vendors/musa.h", "x-musa/vendors/musa_extra.h",
                        "x-musa/vendors/musa_notes.h"}
    assert "x-musa/kernels/scale.mu" in out["CMakeLists.txt"]
    # One finding, naming both paths; a warning (--check=warning decides).
    [(rel, at, cid, level, msg)] = found(result)
    assert (rel, at, cid, level) == ("x-cuda/vendors/cuda.h", "x-musa/vendors/musa.h", "MP0002",
                                     "warning")
    assert "x-cuda/vendors/cuda.h" in msg and "x-cuda/vendors/musa.h" in msg
    assert result.ignored["x-cuda/vendors/cuda.h"]


def test_the_twin_case_exits_0_and_check_decides(tmp_path):
    out = tmp_path / "out"
    code, _, err = musa_port_here(CASE, "-o", out, "-q", "--check")
    assert code == 0, err
    assert (out / "x-musa/vendors/musa.h").is_file()
    code, stdout, err = musa_port_here(CASE, "-o", tmp_path / "out2", "-q", "--check=warning",
                                       "--output-format", "github")
    assert code == 1
    assert "MP0002" in stdout + err and "x-cuda/vendors/cuda.h" in stdout + err
    # A re-run changes nothing and says the same.
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    code, _, _ = musa_port_here(CASE, "-o", out, "-q")
    assert code == 0 and before == {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}


def test_a_musa_twin_that_wraps_its_cuda_file_keeps_both(tmp_path):
    """Near miss: the MUSA header includes the CUDA one (it wraps it, does not replace
    it): the CUDA header keeps its own name in the renamed folder, so the include finds
    it, and a finding names both."""
    src = make_tree(tmp_path / "src", {
        "x-cuda/vendors/cuda.h": "#pragma once\ninline int v() { return 1; }\n",
        "x-cuda/vendors/musa.h": '#pragma once\n#include "cuda.h"\ninline int w() { return v(); }\n',
        "use.cu": '#include "x-cuda/vendors/cuda.h"\n#include "x-cuda/vendors/musa.h"\n',
    })
    result, out = port(src, tmp_path / "out")
    assert out["x-musa/vendors/musa.h"] == (src / "x-cuda/vendors/musa.h").read_text()
    assert out["x-musa/vendors/cuda.h"] == (src / "x-cuda/vendors/cuda.h").read_text()
    assert out["use.mu"] == '#include "x-musa/vendors/cuda.h"\n#include "x-musa/vendors/musa.h"\n'
    [(rel, at, cid, level, msg)] = found(result)
    assert (rel, at, cid, level) == ("x-cuda/vendors/cuda.h", "x-musa/vendors/cuda.h", "MP0001",
                                     "warning")
    assert "x-cuda/vendors/musa.h" in msg and "x-musa/vendors/musa.h" in msg


def test_two_cuda_files_that_want_one_name_are_both_ported(tmp_path):
    """Near miss: a.cu and a.cuh both renamed to a.mu (a caller's extension map), neither
    the other's MUSA version: the first keeps the name, the other keeps its own, includes
    follow each, and a finding names both (it was exit 2, nothing written)."""
    src = make_tree(tmp_path / "src", {
        "a.cu": '#include "a.cuh"\nvoid a() { cudaFree(0); }\n',
        "a.cuh": "#pragma once\ncudaStream_t s;\n",
        "b/b.cu": '#include "../a.cuh"\nvoid b() { cudaDeviceSynchronize(); }\n',
    })
    result, out = port(src, tmp_path / "out", renames={".cu": ".mu", ".cuh": ".mu"})
    assert out == {"a.mu": '#include "a.cuh"\nvoid a() { musaFree(0); }\n',
                   "a.cuh": "#pragma once\nmusaStream_t s;\n",
                   "b/b.mu": '#include "../a.cuh"\nvoid b() { musaDeviceSynchronize(); }\n'}
    [(rel, at, cid, level, msg)] = found(result)
    assert (rel, at, cid, level) == ("a.cuh", "a.cuh", "MP0001", "warning")
    assert "a.cu " in msg and "a.mu" in msg


def _manifest_is_the_output(out: Path) -> None:
    """Every file the manifest names is in the output, and every output file is named."""
    import json

    data = json.loads((out / ".musa-port-manifest.json").read_text())
    listed = set(data["files"])
    there = {p.relative_to(out).as_posix() for p in out.rglob("*")
             if (p.is_file() or p.is_symlink()) and not p.relative_to(out).parts[0].startswith(".musa-port")}
    there |= {p.relative_to(out).as_posix() for p in out.glob(".musa-port*/**/*")
              if p.is_file() and p.relative_to(out).as_posix() in listed}
    assert listed == there


def test_inputs_renamed_onto_musa_ports_own_names_keep_theirs(tmp_path):
    """.cuda-port/ and .cuda-port-build/ became .musa-port/ and .musa-port-build/, the
    output's state folders: a file written there was lost (the bases' tidying removed
    it) while the manifest said it was there."""
    src = make_tree(tmp_path / "src", {".cuda-port/base/x.txt": "keep me\n",
                                       ".cuda-port-build/k.cu": "cudaStream_t s;\n",
                                       "a.cu": "cudaFree(0);\n"})
    out = tmp_path / "out"
    for _ in range(2):
        result, texts = port(src, out)
        assert texts == {".cuda-port/base/x.txt": "keep me\n",
                         ".cuda-port-build/k.mu": "musaStream_t s;\n", "a.mu": "musaFree(0);\n"}
        _manifest_is_the_output(out)
        said = found(result)
        assert [(rel, at, cid, level) for rel, at, cid, level, _ in said] == [
            (".cuda-port", ".cuda-port", "MP0003", "warning"),
            (".cuda-port-build", ".cuda-port-build", "MP0003", "warning")]
        assert "not renamed to .musa-port:" in said[0][4]
        assert {f.kind for f in result.files if f.rel.startswith(".cuda-port")} >= {"folder"}


def test_a_new_name_over_255_bytes_keeps_the_input_its_own(tmp_path):
    """An extension map that makes a 250-byte name longer stopped the run (exit 2)."""
    long = "k" * 247 + ".cu"
    src = make_tree(tmp_path / "src", {long: "cudaFree(0);\n",
                                       "use.cu": f'#include "{long}"\n'})
    result, texts = port(src, tmp_path / "out", renames={".cu": ".musa_source"})
    assert texts == {long: "musaFree(0);\n", "use.musa_source": f'#include "{long}"\n'}
    [(rel, at, cid, level, msg)] = found(result)
    assert (rel, at, cid, level) == (long, long, "MP0003", "warning")
    assert "kept its own name" in msg and "over the file system's 255" in msg


def test_a_folder_renamed_onto_a_file_of_the_tree_keeps_its_name(tmp_path):
    """cuda/ would become musa/, where the tree has a file named musa (a script)."""
    src = make_tree(tmp_path / "src", {"musa": "#!/bin/sh\necho musa\n",
                                       "cuda/k.cu": "cudaFree(0);\n",
                                       "use.cu": '#include "cuda/k.cu"\n'})
    result, texts = port(src, tmp_path / "out")
    assert texts["musa"] == "#!/bin/sh\necho musa\n"
    assert texts["cuda/k.mu"] == "musaFree(0);\n" and texts["use.mu"] == '#include "cuda/k.mu"\n'
    [(rel, at, cid, level, msg)] = found(result)
    assert (rel, cid, level) == ("cuda", "MP0001", "warning") and "the file musa" in msg


def test_names_over_what_the_output_file_system_holds_are_not_written(tmp_path, monkeypatch):
    """An output folder on a file system of shorter names (eCryptfs holds 143 bytes):
    such a name failed at the commit, half way through it, at every run. Now a renamed
    input keeps its own name where that fits, and one whose own name does not fit is not
    ported (an error naming it); the rest is written."""
    real = os.pathconf

    def pathconf(path, name):
        return 143 if name == "PC_NAME_MAX" else real(path, name)

    monkeypatch.setattr(os, "pathconf", pathconf)
    fits, too_long = "f" * 140 + ".cu", "t" * 150 + ".cu"
    src = make_tree(tmp_path / "src", {fits: "cudaFree(0);\n", too_long: "cudaFree(1);\n",
                                       "ok.cu": "cudaFree(2);\n"})
    result, texts = port(src, tmp_path / "out", renames={".cu": ".mu_source"})
    assert texts == {fits: "musaFree(0);\n", "ok.mu_source": "musaFree(2);\n"}
    said = found(result)
    assert [(rel, cid, level) for rel, _, cid, level, _ in said] == [
        (fits, "MP0003", "warning"), (too_long, "MP0003", "error")]
    assert "143" in said[1][4]
    assert result.not_ported == 1
