"""The default mapping tables and their generator (musa_porting.tables).

- size and coverage of the shipped tables (>= 20,000 entries; every runtime-API
  function and type of the installed CUDA headers has an entry);
- validation of the shipped tables (no conflicting duplicates, no chains, no empty or
  malformed values, every key reachable, none of the must-not-change names a key);
- the generator on a small synthetic header set (determinism, the naming rules);
- the generator reproducing the committed tables byte for byte, when the wheels it
  reads are present (``MUSA_PORT_TABLE_HEADERS=/path/to/wheels``; not in CI).
"""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import ROOT

from musa_porting import port_text
from musa_porting.port.engine import Matcher, rewrite
from musa_porting.rules import build_ruleset, default_mapping_dir, load_mapping_dir
from musa_porting.rules.vocabulary import VOCABULARY_FILE
from musa_porting.tables import generate
from musa_porting.tables.families import SKIP_NAMES, SKIP_PATTERN
from musa_porting.tables.headers import load_headers
from musa_porting.tables.output import EXCEPTIONS_HEADING
from musa_porting.tables.scan import scan_text
from musa_porting.tables.vendor import default_vendor_dir, is_header_key
from musa_porting.tables.vocabulary import VENDOR_TABLES

SYNTHETIC = ROOT / "fixtures" / "synthetic_headers"
CUDA_INCLUDE = Path(os.environ.get("CUDA_INCLUDE", "/usr/local/cuda/include"))
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# A name may become a qualified name (legacy THC: THCCeilDiv -> at::ceil_div), not other text.
QUALIFIED = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*::)*[A-Za-z_][A-Za-z0-9_]*$")
HEADER = re.compile(r'^(?:<[\w./+-]+>|"[\w./+-]+")$')

# Names that keep their names on MUSA or are not CUDA APIs (BRIEF.md; issue 4).
MUST_NOT_BE_KEYS = {
    "cub", "cuda", "cuda_cub", "half", "half2", "__half", "__half2", "__float2half",
    "__syncwarp", "__ldg", "__launch_bounds__", "__CUDACC_VER_MAJOR__",
    "__CUDACC_VER_MINOR__", "__CUDACC_VER_BUILD__", "float4", "make_float4", "int2",
    "make_int2", "double2", "uchar4", "dim3",
}
MUST_NOT_BE_KEY_PATTERN = re.compile(
    r"^(?:THRUST_|CUB_|_CCCL|_LIBCUDACXX|__shfl\w*_sync$"
    r"|(?:make_)?(?:u?char|u?short|u?int|u?long|u?longlong|float|double)[1-4]$)"
)


@pytest.fixture(scope="module")
def rules():
    """Every rule of every shipped table, duplicates kept (one per file)."""
    return load_mapping_dir(default_mapping_dir())


@pytest.fixture(scope="module")
def ruleset():
    return build_ruleset()


# --- size and coverage --------------------------------------------------------------

def test_at_least_20000_entries_across_the_families(rules):
    assert len(rules) >= 20_000
    families = {r.family for r in rules}
    assert {"runtime", "driver", "device", "fp16_bf16", "cublas", "curand", "cusparse", "cufft",
            "cusolver", "cudnn", "nccl", "cupti", "nvtx", "nvrtc", "npp", "headers", "macros",
            "pytorch"} <= families


def _runtime_api_names(path: Path) -> set[str]:
    """cuda* functions and types declared in a header, by plain regexes (independent
    of the generator's tokenizer)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"\\\n", " ", text)
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    names = {name for before, name in re.findall(r"(\w+|[*&])\s+(cuda[A-Za-z0-9_]*)\s*\(", code)
             if before != "return"}  # functions (not calls in inline bodies)
    names |= set(re.findall(r"\b(?:struct|enum|union)\s+(?:__\w+(?:\([^)]*\))?\s+)*(cuda\w*)", code))
    names |= set(re.findall(r"\btypedef\b[^;{]*?\b(cuda\w*)\s*;", code))  # typedef X cudaY;
    names |= set(re.findall(r"\}\s*(cuda\w*)\s*;", code))  # typedef struct {...} cudaY;
    names |= set(re.findall(r"\(\s*\w*\s*\*\s*(cuda\w*)\s*\)\s*\(", code))  # function pointers
    return names


@pytest.mark.parametrize("header", ["cuda_runtime_api.h", "driver_types.h"])
def test_every_runtime_function_and_type_has_an_entry(header, ruleset):
    path = CUDA_INCLUDE / header
    if not path.is_file():
        pytest.skip(f"{path} not installed")
    names = _runtime_api_names(path)
    assert len(names) > (100 if header == "cuda_runtime_api.h" else 50)
    missing = sorted(n for n in names if n not in ruleset.rules)
    assert not missing, f"{len(missing)} names of {header} have no entry: {missing[:20]}"


# --- validation of the shipped tables -------------------------------------------------

def test_no_key_in_two_files_with_different_values(rules):
    by_key = defaultdict(list)
    for r in rules:
        by_key[r.key].append(r)
    conflicts = {k: [(r.family, r.value, r.status) for r in rs] for k, rs in by_key.items()
                 if len({(r.value, r.status) for r in rs}) > 1}
    assert not conflicts, list(conflicts.items())[:10]


def test_no_chains_no_empty_values_and_well_formed_values(ruleset):
    rewriting = ruleset.rewriting()
    problems = []
    for key, r in ruleset.rules.items():
        if r.value is None:
            if r.status != "unsupported":
                problems.append(f"{key}: no MUSA name but status {r.status}")
            continue
        if not r.value:
            problems.append(f"{key}: empty value")
        elif r.value in rewriting and r.value != key:
            problems.append(f"{key} -> {r.value}, which is itself rewritten (chain)")
        if IDENT.match(key) and not QUALIFIED.match(r.value):
            problems.append(f"{key}: value {r.value!r} is not an identifier")
        if r.family == "headers":
            if not HEADER.match(key):
                problems.append(f"header key {key!r} lacks its include delimiters")
            if not HEADER.match(r.value):
                problems.append(f"header {key}: value {r.value!r} is not a delimited header path")
    assert not problems, problems[:20]


def test_every_key_maps_to_its_own_value(ruleset):
    """Each key, alone and between spaces, is rewritten to its own value: no longer or
    overlapping key shadows it. A header key is tried as the target of an #include
    (the only place it is meant to match)."""
    rewriting = ruleset.rewriting()
    matcher = Matcher(rewriting)
    wrong = []
    for key, r in rewriting.items():
        if HEADER.match(key):
            text = f"#include {key}\n"
            out = port_text(text, matcher)[0]
            if out != f"#include {r.value}\n":
                wrong.append((key, r.value, out))
            continue
        for before, after in (("", ""), (" ", ";\n")):
            data = f"{before}{key}{after}".encode()
            got = rewrite(data, matcher).data
            if got != f"{before}{r.value}{after}".encode():
                wrong.append((key, r.value, got))
    assert not wrong, wrong[:10]


def test_a_musa_name_shared_by_several_keys_has_one_primary(rules):
    """--reverse needs one CUDA name per MUSA name: where several keys share a value,
    exactly one is marked primary (``__CUDACC__`` over ``__NVCC__``)."""
    if not hasattr(rules[0], "primary"):
        pytest.skip("this musa-port has no primary rules")
    by_value = defaultdict(set)
    for r in rules:
        if r.value is not None:
            by_value[r.value].add((r.key, r.primary))
    bad = {v: sorted(ks) for v, ks in by_value.items()
           if (len(ks) > 1 and sum(p for _, p in ks) != 1) or (len(ks) == 1 and next(iter(ks))[1])}
    assert not bad
    primaries = {k for ks in by_value.values() for k, p in ks if p}
    assert {"__CUDACC__", "<cublas_v2.h>", '"cublas_v2.h"', "<ATen/cuda/CUDAContext.h>"} <= primaries


def test_names_that_must_not_change_are_not_keys(ruleset):
    bad = sorted(k for k in ruleset.rules if k in MUST_NOT_BE_KEYS or MUST_NOT_BE_KEY_PATTERN.match(k))
    assert not bad


def test_the_briefs_facts_are_in_the_tables(ruleset):
    facts = {
        "cudaMalloc": "musaMalloc", "cudaStream_t": "musaStream_t", "CUDA_R_16F": "MUSA_R_16F",
        "cuLaunchKernel": "muLaunchKernel", "CUresult": "MUresult",
        "CU_CUBEMAP_FACE_POSITIVE_X": "MU_CUBEMAP_FACE_POSITIVE_X",
        "cuCtxGetCurrent": "muCtxGetCurrent", "PFN_cuCtxGetCurrent": "PFN_muCtxGetCurrent",
        "cublasSgemm": "mublasSgemm", "cublasSgemm_v2": "mublasSgemm_v2",
        "CUBLAS_STATUS_SUCCESS": "MUBLAS_STATUS_SUCCESS", "cublasLtMatmul": "mublasLtMatmul",
        "curand_init": "murand_init", "curandState": "murandState",
        "CURAND_STATUS_SUCCESS": "MURAND_STATUS_SUCCESS", "cusparseCreate": "musparseCreate",
        "cufftExecC2C": "mufftExecC2C", "CUFFT_R2C": "MUFFT_R2C",
        "cusolverDnCreate": "musolverDnCreate", "cudnnCreate": "mudnnCreate",
        "CUDNN_STATUS_SUCCESS": "MUDNN_STATUS_SUCCESS", "ncclAllReduce": "mcclAllReduce",
        "ncclComm_t": "mcclComm_t", "NCCL_MAJOR": "MCCL_MAJOR",
        "cuptiActivityEnable": "muptiActivityEnable", "nppiResize_8u_C1R": "mtppiResize_8u_C1R",
        "NppiSize": "MtppiSize", "cuComplex": "muComplex", "make_cuComplex": "make_muComplex",
        "cuCadd": "muCadd", "__nv_bfloat16": "__mt_bfloat16", "nv_bfloat16": "mt_bfloat16",
        "__nv_bfloat162": "__mt_bfloat162", "__nv_fp8_e4m3": "__mt_fp8_e4m3",
        "__CUDACC__": "__MUSACC__", "__NVCC__": "__MUSACC__", "__CUDA_ARCH__": "__MUSA_ARCH__",
        "CUDART_VERSION": "MUSART_VERSION", "<cublas_v2.h>": "<mublas.h>",
        '"cublas_v2.h"': '"mublas.h"', "<cuda_runtime.h>": "<musa_runtime.h>",
        "<nccl.h>": "<mccl.h>", "<curand_kernel.h>": "<murand_kernel.h>",
        "<ATen/cuda/CUDAContext.h>": '<torch_musa/csrc/aten/musa/MUSAContext.h>',
        "at::cuda": "at::musa", "getCurrentCUDAStream": "getCurrentMUSAStream",
        # The rest of the brief's examples, each as the brief writes it.
        "nppiResize": "mtppiResize", "cublasLt": "mublasLt", "cublasLtHandle_t": "mublasLtHandle_t",
        "<cuda_runtime_api.h>": "<musa_runtime_api.h>", "<cuda.h>": "<musa.h>",
        "<cuda_fp16.h>": "<musa_fp16.h>", "<cuda_bf16.h>": "<musa_bf16.h>",
        "<cuda_fp8.h>": "<musa_fp8.h>", "<cublas.h>": "<mublas.h>", "<cusparse.h>": "<musparse.h>",
        "<cufft.h>": "<mufft.h>", "<cudnn.h>": "<mudnn.h>",
        "<c10/cuda/CUDAGuard.h>": '<torch_musa/csrc/core/MUSAGuard.h>',
        "c10::cuda": "c10::musa", "CUDAGuard": "MUSAGuard", "OptionalCUDAGuard": "OptionalMUSAGuard",
        # Current torch_musa (at::musa::kMUSA, Tensor::is_musa()); the manual's
        # .is_privateuseone() is a user rule (fixtures/mmcv_rules.json).
        ".is_cuda()": ".is_musa()", "at::kCUDA": "at::kMUSA", "kCUDA": "kMUSA",
    }
    got = {k: ruleset.rules[k].value if k in ruleset.rules else None for k in facts}
    assert got == facts
    for key in ("cudaMalloc", "cublasSgemm_v2", "ncclAllReduce", "__nv_bfloat16", "nppiResize_8u_C1R"):
        assert ruleset.rules[key].status == "supported", key
    assert ruleset.rules["nppiFilter_8u_C1R"].status == "unknown"  # NPP beyond the brief's example
    for key in ("nvrtcCompileProgram", "<nvtx3/nvToolsExt.h>"):
        assert ruleset.rules[key].status == "unsupported" and ruleset.rules[key].value is None, key
    # NVTX is MTTX, as the vendor's CUPTI tables name its callbacks; unverified.
    nvtx = ruleset.rules["nvtxRangePushA"]
    assert (nvtx.value, nvtx.status) == ("mttxRangePushA", "unknown")
    # Graphics interop: the vendor names a MUSA form, so it is rewritten, unverified.
    gl = ruleset.rules["cudaGLMapBufferObject"]
    assert (gl.value, gl.status, gl.origin) == ("musaGLMapBufferObject", "unknown", "vendor")


def test_names_from_older_cuda_releases_are_marked_with_the_newest_declaring_them(ruleset):
    """CUDA 13 dropped them; code written for CUDA 11 and 12 still uses them."""
    old = {
        "cudaThreadSynchronize": ("musaThreadSynchronize", "CUDA 12.9"),
        "cudaBindTexture": ("musaBindTexture", "CUDA 11.8"),
        "cusparseScsrgemm2": ("musparseScsrgemm2", "CUDA 11.8"),
        "cudaProfilerInitialize": ("musaProfilerInitialize", None),  # CUDA <= 10: the vendor's
    }
    got = {k: (ruleset.rules[k].value, ruleset.rules[k].version) for k in old}
    assert got == old
    assert ruleset.rules["cudaMalloc"].version == "CUDA 13"
    assert ruleset.rules["cufftXtSetDistribution"].origin == "cuda-11.8 header cufftXt.h"


def test_nvcc_macros_have_entries(ruleset):
    for key in ("__CUDA_NO_HALF_OPERATORS__", "__CUDA_NO_HALF_CONVERSIONS__", "__CUDA_NO_HALF2_OPERATORS__",
                "__CUDA_NO_BFLOAT16_CONVERSIONS__", "__CUDA_NO_BFLOAT162_OPERATORS__", "__CUDACC_RDC__",
                "__CUDA_ARCH_LIST__", "CUDA_API_PER_THREAD_DEFAULT_STREAM", "__CUDACC_RTC__"):
        rule = ruleset.rules[key]
        assert rule.family == "macros" and rule.value == key.replace("CUDA", "MUSA"), key
    assert ruleset.rules["__CUDACC_RDC__"].origin == "vendor"
    assert ruleset.rules["__CUDA_ARCH_LIST__"].origin.startswith("curated: nvcc documentation")


def test_the_pytorch_cpp_api(ruleset):
    """Generated from the torch 2.13.0 headers: names and header paths, supported only
    where torch_musa's sources use the MUSA name or ship the header."""
    names = {
        "CUDACachingAllocator": ("MUSACachingAllocator", "supported"),  # a namespace
        "getCurrentCUDABlasHandle": ("getCurrentMUSABlasHandle", "supported"),
        "C10_CUDA_KERNEL_LAUNCH_CHECK": ("C10_MUSA_KERNEL_LAUNCH_CHECK", "supported"),
        "CUDA_NUM_THREADS": ("MUSA_NUM_THREADS", "unknown"),  # a constexpr variable
        "CUDAEvent": ("MUSAEvent", "supported"),
        "<ATen/cuda/CUDAContext.h>": ('<torch_musa/csrc/aten/musa/MUSAContext.h>', "supported"),
        "<c10/cuda/CUDAStream.h>": ('<torch_musa/csrc/core/MUSAStream.h>', "supported"),
        "<ATen/cuda/CUDAApplyUtils.cuh>": ("<ATen/musa/MUSAApplyUtils.muh>", "supported"),
        "<ATen/cuda/DeviceUtils.cuh>": ('<torch_musa/csrc/aten/musa/MUSADeviceUtils.muh>', "supported"),
        "<ATen/cuda/ScanUtils.cuh>": ("<ATen/musa/ScanUtils.muh>", "unknown"),
    }
    got = {k: (ruleset.rules[k].value, ruleset.rules[k].status) for k in names}
    assert got == names
    assert {ruleset.rules[k].family for k in names} == {"pytorch"}
    assert ruleset.rules["CUDAEvent"].origin.startswith("torch header ")
    assert ruleset.rules["getCurrentCUDAStream"].version == "torch 2.13.0"


# --- the vendor's tables -----------------------------------------------------------------

def _documented_exceptions() -> dict[str, str]:
    """The deliberate exceptions docs/coverage.md lists: CUDA key -> reason."""
    text = (ROOT / "docs" / "coverage.md").read_text(encoding="utf-8")
    section = text.split(EXCEPTIONS_HEADING, 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| `((?:[^`]|\\\|)+)` \| `[^`]*` \| (.*) \|$", section, re.M)
    return {key.replace("\\|", "|"): reason.strip() for key, reason in rows}


def test_every_vendor_key_ports_to_the_vendors_value(ruleset):
    """Moore Threads' five tables (torch_musa, shipped beside the clone as
    ../shared/data/torch_musa): each key, ported alone, gives the vendor's value; an
    include table's key is tried as an include target. The only exceptions are the
    ones docs/coverage.md lists, each with its reason."""
    vendor = default_vendor_dir()
    if not (vendor / "mapping").is_dir():
        pytest.skip(f"the vendor data is not at {vendor}")
    exceptions = _documented_exceptions()
    assert exceptions and all(len(reason) > 20 for reason in exceptions.values())
    matcher = Matcher(ruleset.rewriting())
    wrong, keys = [], set()
    for table in VENDOR_TABLES:
        for key, value in json.loads((vendor / "mapping" / f"{table}.json").read_text()).items():
            keys.add(key)
            if key in exceptions:
                continue
            if table in ("include", "dnn-header") and is_header_key(key):
                got = port_text(f"#include <{key}>\n", matcher)[0]
                if got != f"#include <{value}>\n":
                    wrong.append((table, key, value, got))
            elif (got := rewrite(key.encode(), matcher).data.decode()) != value:
                wrong.append((table, key, value, got))
    assert wrong == []
    assert set(exceptions) <= keys


# --- the generator on synthetic headers ----------------------------------------------

def _generate(out: Path, *extra: str) -> int:
    """The naming rules alone (no vendor data) on the synthetic headers."""
    return generate.main(["--include", str(SYNTHETIC), "--partial", "--no-vendor", "--out", str(out),
                          *extra])


def test_generator_is_deterministic_and_applies_the_naming_rules(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    assert _generate(a) == 0 and _generate(b) == 0
    files = sorted(p.name for p in a.iterdir())
    assert files == sorted(p.name for p in b.iterdir())
    assert {"runtime.json", "driver.json", "cublas.json", "headers.json", "coverage.md"} <= set(files)
    for name in files:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    assert _generate(a, "--check") == 0  # up to date
    (a / "driver.json").write_text("{}")
    assert _generate(a, "--check") == 1

    rs = {r.key: r for r in load_mapping_dir(b)}
    expect = {
        "CU_CUBEMAP_FACE_POSITIVE_X": "MU_CUBEMAP_FACE_POSITIVE_X",  # not MUBEMAP
        "cuCtxGetCurrent": "muCtxGetCurrent",  # not Murrent
        "PFN_cuCtxGetCurrent": "PFN_muCtxGetCurrent",  # from PFN_cuCtxGetCurrent_v4000
        "CUresult": "MUresult",
        "CUstreamMemOpWaitValueParams_st": "MUstreamMemOpWaitValueParams_st",  # nested struct
        "cuLaunchKernel_v2": "muLaunchKernel_v2",  # #define alias target
        "cublasSgemm_v2": "mublasSgemm_v2",
        "cublasSgemm": "mublasSgemm",
        "CUBLAS_STATUS_SUCCESS": "MUBLAS_STATUS_SUCCESS",
        "cudaMalloc": "musaMalloc",
        "cudaStream_t": "musaStream_t",
        "cudaMemcpyHostToDevice": "musaMemcpyHostToDevice",
        "<cuda_runtime_api.h>": "<musa_runtime_api.h>",
        '"cublas_api.h"': '"mublas_api.h"',
    }
    assert {k: rs[k].value if k in rs else None for k in expect} == expect
    assert rs["cudaGraphLaunch"].status == "unknown"
    assert rs["cuGraphicsGLRegisterBuffer"].status == "unsupported"
    assert rs["cuGraphicsGLRegisterBuffer"].value is None
    assert rs["CUDA_VERSION"].family == "macros" and rs["CUDART_VERSION"].family == "macros"
    for absent in ("cudaNotDeclared", "cuNotDeclaredInComment", "cuNotAName", "CUBLAS_V2_H_",
                   "CUBLAS_API_H_"):
        assert absent not in rs
    coverage = (b / "coverage.md").read_text()
    assert "| runtime | CUDA runtime API |" in coverage
    assert "CUDA 13.0 include dir" in coverage


def _fake_vendor(root: Path) -> Path:
    """A folder shaped like torch_musa's data, with a few entries of each sort."""
    tables = {
        "general": {"cudaMalloc": "musaMalloc", "cudaStream_t": "musaStreamX_t",
                    "cuGraphicsGLRegisterBuffer": "muGraphicsGLRegisterBuffer",
                    "cudaThreadSynchronize": "musaThreadSynchronize", "cu": "mu",
                    "CUDA_VERSION": "MUSA_COMP_VERSION"},
        "extra": {"CUDAStream": "MUSAStream"},
        "include": {"cudaGL.h": "musaGL.h"},
        "dnn-naming": {}, "dnn-header": {},
    }
    (root / "mapping").mkdir(parents=True)
    for name, table in tables.items():
        (root / "mapping" / f"{name}.json").write_text(json.dumps(table))
    (root / "attested_names.tsv").write_text("# name\tfiles\tfile\nMUSAGuard\t1\tx.cpp\n")
    (root / "headers.txt").write_text("torch_musa/csrc/core/MUSAGuard.h\n")
    (root / "SOURCE").write_text("fake torch_musa\n")
    return root


def _fake_torch(root: Path) -> Path:
    (root / "c10/cuda").mkdir(parents=True)
    (root / "ATen/cuda/detail").mkdir(parents=True)
    (root / "c10/cuda/CUDAGuard.h").write_text(
        "namespace c10 { namespace cuda { struct CUDAGuard {}; struct OptionalCUDAGuard {}; } }\n")
    (root / "ATen/cuda/detail/KernelUtils.h").write_text(
        "namespace at { namespace cuda { namespace detail {\n"
        "constexpr int CUDA_NUM_THREADS = 1024;\n}}}\n#define CUDA_KERNEL_LOOP(i, n) for (;;)\n")
    return root


def _fake_old_cuda(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "cuda.h").write_text("#define CUDA_VERSION 11080\n")
    (root / "cuda_runtime_api.h").write_text(
        "extern cudaError_t cudaMalloc(void **p, size_t n);\n"
        "extern cudaError_t cudaThreadExit(void);\n")
    return root


def test_generator_with_the_vendor_older_releases_and_torch(tmp_path):
    vendor = _fake_vendor(tmp_path / "vendor")
    out = tmp_path / "out"
    argv = ["--include", str(SYNTHETIC), "--include", str(_fake_old_cuda(tmp_path / "cuda11")),
            "--include", str(_fake_torch(tmp_path / "torch")), "--partial",
            "--vendor", str(vendor), "--out", str(out)]
    assert generate.main(argv) == 0
    rs = {r.key: r for r in load_mapping_dir(out)}

    def entry(key):
        r = rs[key]
        return r.value, r.status, r.origin, r.version

    # The vendor's name wins over the rules, and is recorded as such.
    assert entry("cudaStream_t")[:3] == ("musaStreamX_t", "supported", "vendor")
    assert entry("cuGraphicsGLRegisterBuffer")[:3] == ("muGraphicsGLRegisterBuffer", "unknown", "vendor")
    assert entry('"cudaGL.h"')[:3] == ('"musaGL.h"', "unknown", "vendor")
    # A name only the vendor knows is added; the deliberate exceptions are not followed.
    assert entry("cudaThreadSynchronize") == ("musaThreadSynchronize", "supported", "vendor", None)
    assert "cu" not in rs and rs["CUDA_VERSION"].value == "MUSA_VERSION"
    # A name only CUDA 11.8 declares, with its version and header.
    assert entry("cudaThreadExit") == ("musaThreadExit", "supported",
                                       "cuda-11.8 header cuda_runtime_api.h", "CUDA 11.8")
    assert entry("cudaMalloc") == ("musaMalloc", "supported", "vendor", "CUDA 13")
    # torch: names with a CUDA word, attested or not; headers to torch_musa's.
    assert entry("CUDAGuard")[:3] == ("MUSAGuard", "supported", "torch header c10/cuda/CUDAGuard.h")
    assert entry("CUDA_NUM_THREADS")[:2] == ("MUSA_NUM_THREADS", "unknown")
    assert entry("CUDA_KERNEL_LOOP")[:2] == ("MUSA_KERNEL_LOOP", "unknown")
    assert entry("<c10/cuda/CUDAGuard.h>")[:2] == ("<torch_musa/csrc/core/MUSAGuard.h>", "supported")
    assert entry("<ATen/cuda/detail/KernelUtils.h>")[:2] == ("<ATen/musa/detail/KernelUtils.h>", "unknown")
    assert rs["CUDAStream"].family == "pytorch" and rs["CUDAStream"].origin == "vendor"

    coverage = (out / "coverage.md").read_text()
    exceptions = coverage.split(EXCEPTIONS_HEADING)[1].split("###")[0]
    assert "| `cu` | `mu` |" in exceptions and "| `CUDA_VERSION` | `MUSA_COMP_VERSION` |" in exceptions
    assert "| runtime | `cudaStream_t` | `musaStreamX_t` | `musaStream_t` |" in coverage
    assert "| runtime | `cudaGraphLaunch` |" not in coverage  # the vendor does not map it

    table = json.loads((out / "runtime.json").read_text())
    assert table["default_source"] and table["version"] == "CUDA 13"
    assert table["entries"]["cudaThreadExit"]["version"] == "CUDA 11.8"


def test_scanner_on_tricky_declarations():
    decl = scan_text("""
        #define LIBAPI
        #define LIB_DEPRECATED_TYPE
        #  define LIB_REPLACE(f) __declspec(deprecated(#f))
        #define LIB_OLD
            __declspec(deprecated("a stray line of a #define missing its backslash"))
        extern "C" {
        typedef enum { LIB_A = 1 << 2, LIB_B } libEnum_t LIB_DEPRECATED_TYPE;
        LIB_REPLACE(libNew) int LIBAPI libOld(int x);
        typedef struct __align__(16) { int a; } libAnon_t, *libAnonPtr_t;
        static inline struct libPair libMakePair(int a) { struct libPair p; return p; }
        typedef void (LIBAPI *libCallback_t)(void *user);
        }
        namespace lib { template <class T> __device__ T libLoad(const T *p) { return *p; } }
        int notAFunction = compute(3);
    """)
    assert {"libOld", "libMakePair", "libLoad"} <= decl.functions
    assert "compute" not in decl.functions and "LIB_REPLACE" not in decl.functions
    assert {"libEnum_t", "libAnon_t", "libAnonPtr_t", "libPair", "libCallback_t"} <= decl.types
    assert "LIB_DEPRECATED_TYPE" not in decl.types
    assert decl.constants == {"LIB_A", "LIB_B"}


# --- the committed tables, regenerated (needs the wheels; not in CI) ------------------

def test_generator_reproduces_the_committed_tables(tmp_path):
    wheels = os.environ.get("MUSA_PORT_TABLE_HEADERS")
    if not wheels:
        pytest.skip("set MUSA_PORT_TABLE_HEADERS to the folder of the pinned NVIDIA wheels "
                    "(python -m musa_porting.tables.generate --fetch-wheels DIR)")
    if not CUDA_INCLUDE.is_dir():
        pytest.skip(f"{CUDA_INCLUDE} not installed")
    if not (default_vendor_dir() / "mapping").is_dir():
        pytest.skip(f"the vendor data is not at {default_vendor_dir()}")
    out = tmp_path / "mapping"
    assert generate.main(["--include", str(CUDA_INCLUDE), "--wheels-dir", wheels, "--out", str(out)]) == 0
    # vocabulary.json has its own generator (musa_porting.tables.vocabulary).
    committed = {p.name: p.read_bytes() for p in (ROOT / "mapping").glob("*.json")
                 if p.name != VOCABULARY_FILE}
    committed["coverage.md"] = (ROOT / "docs" / "coverage.md").read_bytes()
    generated = {p.name: p.read_bytes() for p in out.iterdir()}
    assert sorted(generated) == sorted(committed)
    stale = [name for name in committed if generated[name] != committed[name]]
    assert not stale


# The headers of the acceptance: runtime, driver, cuBLAS, cuSPARSE, cuRAND, cuFFT, cuSOLVER.
API_HEADERS = (
    "cuda_runtime_api.h", "cuda_runtime.h", "driver_types.h", "surface_types.h", "texture_types.h",
    "library_types.h", "driver_functions.h", "cuda_device_runtime_api.h", "cuda_profiler_api.h",
    "cuda.h", "cudaTypedefs.h", "cudaProfiler.h", "cublas_api.h", "cublas_v2.h", "cublas.h",
    "cublasLt.h", "cublasXt.h", "cusparse.h", "curand*.h", "cufft.h", "cufftXt.h", "cusolver*.h",
)
API_NAME = re.compile(r"^(?:PFN_)?(?:make_)?(?:cuda|CUDA|cu[A-Z]|CU[A-Za-z_]|cublas|curand|cusparse"
                      r"|cufft|cusolver)")


def test_every_name_of_cuda_11_8_12_and_13_has_an_entry(ruleset):
    """Every function, type, enumerator and macro with a CUDA API prefix that the
    runtime, driver, cuBLAS, cuSPARSE, cuRAND, cuFFT and cuSOLVER headers of CUDA 11.8,
    12.9 and 13 declare is a key, but the names left out on purpose (docs/tables.md:
    per-thread-stream implementation names, include guards)."""
    wheels = os.environ.get("MUSA_PORT_TABLE_HEADERS")
    if not wheels:
        pytest.skip("set MUSA_PORT_TABLE_HEADERS to the folder of the pinned wheels")
    hs = load_headers([CUDA_INCLUDE] if CUDA_INCLUDE.is_dir() else [], Path(wheels))
    releases: dict[str, set[str]] = defaultdict(set)
    for rel in hs.match(API_HEADERS):
        for origin, decl in hs.copies(rel):
            if hs.versions.get(origin):
                releases[".".join(map(str, hs.versions[origin][:2]))] |= decl.all()
    assert {"11.8", "12.9", "13.0"} <= set(releases)
    missing = {}
    for release, names in sorted(releases.items()):
        left = sorted(n for n in names if API_NAME.match(n) and n not in ruleset.rules
                      and n not in SKIP_NAMES and not SKIP_PATTERN.search(n)
                      and n not in MUST_NOT_BE_KEYS)
        if left:
            missing[release] = left
    assert missing == {}
