"""Issue 4's command-line side: `musa-port rules`, families on and off, --reverse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli, snapshot

from musa_porting.rules import build_ruleset


def test_rules_lookup_text_and_json():
    proc = run_cli("rules", "cudaMalloc", check=0)
    line = proc.stdout.strip()
    assert line.startswith("cudaMalloc -> musaMalloc  [runtime, supported] source: vendor; "
                           "version: CUDA 13; ")
    assert line.endswith("runtime.json")
    data = json.loads(run_cli("rules", "cudaMalloc", "--format", "json", check=0).stdout)
    [r] = data["rules"]
    assert (r["cuda"], r["musa"], r["family"], r["status"], r["source"], r["version"]) == (
        "cudaMalloc", "musaMalloc", "runtime", "supported", "vendor", "CUDA 13")
    assert r["file"].endswith("runtime.json") and data["missing"] == []


def test_rules_shows_where_an_entry_comes_from_and_its_cuda_version():
    """A name CUDA 13 dropped, one derived from a header, a torch one, a curated one."""
    out = run_cli("rules", "cudaBindTexture", "cufftXtSetDistribution", "CUDA_NUM_THREADS",
                  "kCUDA", check=0).stdout.splitlines()
    assert "[runtime, unknown] source: vendor; version: CUDA 11.8; " in out[0]  # textures: unverified
    assert "source: cuda-11.8 header cufftXt.h; version: CUDA 11.8; " in out[1]
    assert "source: torch header ATen/cuda/detail/KernelUtils.h; version: torch 2.13.0; " in out[2]
    assert out[3].startswith("kCUDA -> kMUSA  [pytorch, supported] source: curated: ")


def test_rules_missing_name_exits_1():
    proc = run_cli("rules", "cudaDefinitelyNotAThing")
    assert proc.returncode == 1 and "cudaDefinitelyNotAThing: no rule" in proc.stderr


def test_rules_families_count_entries_by_status():
    fams = {d["family"]: d for d in json.loads(run_cli("rules", "--families", "--format", "json",
                                                      check=0).stdout)}
    assert all(sum(d["status"].values()) == d["entries"] for d in fams.values())
    assert fams["runtime"]["status"]["supported"] > 0 and fams["runtime"]["status"]["unknown"] > 0
    proc = run_cli("rules", "--families", "--family", "runtime", check=0)
    s = fams["runtime"]["status"]
    assert f"({s['supported']} supported, {s['unknown']} unknown" in proc.stdout
    assert "unknown: the naming pattern made it" in proc.stderr


def test_rules_suggests_the_name_a_typo_meant():
    proc = run_cli("rules", "cudaMallocc")
    assert proc.returncode == 1
    assert proc.stderr.startswith("cudaMallocc: no rule; did you mean cudaMalloc")
    assert "did you mean" not in run_cli("rules", "xyzzyNothingLikeIt").stderr


def test_rules_list_a_family():
    data = json.loads(run_cli("rules", "--list", "--family", "macros", "--format", "json",
                              check=0).stdout)
    keys = {r["cuda"] for r in data["rules"]}
    assert {"__CUDACC__", "__CUDA_ARCH__", "__NVCC__"} <= keys
    assert {r["family"] for r in data["rules"]} == {"macros"}
    bad = run_cli("rules", "--list", "--family", "nosuch")
    assert bad.returncode == 2 and "unknown rule family 'nosuch'" in bad.stderr


def test_rules_families_and_user_rules(tmp_path):
    fams = json.loads(run_cli("rules", "--families", "--format", "json", check=0).stdout)
    assert {"runtime", "headers", "macros", "pytorch"} <= {f["family"] for f in fams}
    user = tmp_path / "u.json"
    user.write_text('{"cudaMalloc": "myMalloc"}')
    proc = run_cli("rules", "cudaMalloc", "--rule", user, check=0)
    assert proc.stdout.startswith(f"cudaMalloc -> myMalloc  [user, supported] {user}")


def test_disable_family_reports_instead_of_rewriting(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_text("#ifdef __CUDACC__\ncudaMalloc(&p, 4);\n#endif\n")
    report = tmp_path / "r.json"
    run_cli(src, "--disable-family", "macros", "--report-json", report, check=0)
    assert (tmp_path / "src_musa/a.mu").read_text() == "#ifdef __CUDACC__\nmusaMalloc(&p, 4);\n#endif\n"
    [d] = json.loads(report.read_text())["diagnostics"]
    assert (d["id"], d["text"]) == ("MP1001", "__CUDACC__")
    bad = run_cli(src, "--disable-family", "nosuch")
    assert bad.returncode == 2 and "unknown rule family 'nosuch'" in bad.stderr


def test_families_in_the_python_api(tmp_path):
    rs = build_ruleset(disable_families=["runtime"])
    assert "cudaMalloc" not in rs.rewriting() and "cudaMalloc" in rs.rules
    table = {"family": "extra", "enabled": False, "entries": {"cudaFoo": "musaFoo"}}
    d = tmp_path / "m"
    d.mkdir()
    (d / "extra.json").write_text(json.dumps(table))
    assert "cudaFoo" not in build_ruleset(mapping_dir=d).rewriting()
    assert "cudaFoo" in build_ruleset(mapping_dir=d, enable_families=["extra"]).rewriting()

    from musa_porting import SimplePorting

    src = tmp_path / "src"
    src.mkdir()
    (src / "a.cu").write_text("cudaMalloc(&p, 4);\n")
    SimplePorting(str(src), disable_families=["runtime"], quiet=True).run()
    assert (tmp_path / "src_musa/a.mu").read_text() == "cudaMalloc(&p, 4);\n"


def test_reverse_picks_the_primary_of_several_cuda_names(tmp_path):
    table = {"family": "t", "entries": {
        "__NVCC__": "__MUSACC__",
        "__CUDACC__": {"musa": "__MUSACC__", "primary": True},
        "<cublas.h>": "<mublas.h>", "<cublas_v2.h>": "<mublas.h>",
    }}
    d = tmp_path / "m"
    d.mkdir()
    (d / "t.json").write_text(json.dumps(table))
    rev = build_ruleset(mapping_dir=d).reversed()
    assert rev["__MUSACC__"].value == "__CUDACC__"  # marked primary
    assert rev["<mublas.h>"].value == "<cublas.h>"  # no mark: the shortest


CUDA_APP = {
    "kernels/common.cuh": '#pragma once\n#include <cuda_runtime.h>\n#include <cuda_fp16.h>\n'
                          '#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) '
                          'printf("%s\\n", cudaGetErrorString(e)); } while (0)\n',
    "kernels/saxpy.cu": '#include "common.cuh"\n__global__ void saxpy(float a, float* x) '
                        '{ x[threadIdx.x] *= a; }\nvoid run(cudaStream_t s, float* d) {\n'
                        '  CHECK(cudaMalloc(&d, 64));\n  saxpy<<<1, 16, 0, s>>>(2.f, d);\n'
                        '  CHECK(cudaStreamSynchronize(s));\n  cudaFree(d);\n}\n',
    "host/main.cpp": '#include "../kernels/common.cuh"\nint main() { cudaEvent_t e; '
                     'cudaEventCreate(&e); return 0; }\n',
    "README": "not ported\n",
}


def test_reverse_port_restores_the_original(tmp_path):
    src = tmp_path / "app"
    for rel, text in CUDA_APP.items():
        p = src / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    run_cli(src, check=0)
    ported = tmp_path / "app_musa"
    assert (ported / "kernels/saxpy.mu").read_text().startswith('#include "common.muh"')
    run_cli(ported, "--reverse", "--output", tmp_path / "back", check=0)
    original = {k: v[:2] for k, v in snapshot(src).items()}
    back = {k: v[:2] for k, v in snapshot(tmp_path / "back").items()
            if not k.startswith(".musa-port")}  # the manifest, the bases
    assert back == original


@pytest.mark.parametrize("name", ["cudaMalloc", "__CUDACC__", "cudaStream_t"])
def test_rules_lookup_agrees_with_a_port(tmp_path, name):
    value = json.loads(run_cli("rules", name, "--format", "json", check=0).stdout)["rules"][0]["musa"]
    src = Path(tmp_path / "s")
    src.mkdir()
    (src / "x.h").write_text(name + "\n")
    run_cli(src, check=0)
    assert (tmp_path / "s_musa/x.h").read_text() == value + "\n"


# Names the engine ports with more than one rule, or a rule that is not the name itself.
QUALIFIED = ["at::cuda::getCurrentCUDAStream", "c10::cuda::CUDAGuard", "CUTLASS_HOST_DEVICE",
             "c10::cuda::getCurrentCUDAStream", "at::cuda::CUDAEvent", "cudaMalloc"]


def test_rules_lookup_answers_what_the_port_writes(tmp_path):
    """Issue 49.2: `rules at::cuda::getCurrentCUDAStream` said at::musa::getCurrentCUDAStream
    (the shorter rule alone) while the port writes at::musa::getCurrentMUSAStream."""
    data = json.loads(run_cli("rules", *QUALIFIED, "--format", "json", check=0).stdout)
    said = {r["cuda"]: r["musa"] for r in data["rules"]}
    said.update({n: r["ported"] for n, r in data["related"].items()})
    src = tmp_path / "s"
    src.mkdir()
    (src / "x.h").write_text("".join(n + ";\n" for n in QUALIFIED))
    run_cli(src, "--no-project-symbols", check=0)
    written = (tmp_path / "s_musa/x.h").read_text().splitlines()
    assert {n: said.get(n) for n in QUALIFIED} == {n: w.rstrip(";") for n, w in zip(QUALIFIED, written)}
    assert said["at::cuda::getCurrentCUDAStream"] == "at::musa::getCurrentMUSAStream"
    rules = {n: [r["cuda"] for r in d["rules"]] for n, d in data["related"].items()}
    assert rules["at::cuda::getCurrentCUDAStream"] == ["at::cuda", "getCurrentCUDAStream"]
