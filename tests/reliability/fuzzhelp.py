"""Inputs for fuzzing each kind of file musa-port reads, and a way to run the command
line in this process (a run costs ~0.3 s there, against ~0.8 s in a new interpreter).

Each kind's inputs are random mixes of fragments that steer its lexer into each of its
states (quotes, comments, continuations, nesting), of the names its rewrites look for,
and of random bytes: random text alone almost never reaches the code that ports.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal

from hypothesis import strategies as st

# FUZZ_CASES scales every fuzz target (10,000: the C/C++ target's count in CI).
SCALE = int(os.environ.get("FUZZ_CASES", "10000")) / 10_000

_BYTES = st.binary(max_size=6).map(lambda b: b.decode("latin-1"))
_COMMON = ["\n", "\r\n", "\r", "\t", " ", "  ", "\\", "\\\n", "\"", "'", "`", "#", "(", ")", "[",
           "]", "{", "}", ";", ",", ":", "=", "$", "\x00", "\xe9", "\ufeff", "\u4e2d", "x", "_",
           "MUSIFY_EXCL_LINE", "MUSIFY_EXCL_START", "MUSIFY_EXCL_STOP"]

FRAGMENTS = {
    "cxx": [
        "#include ", "#include <", "#include \"", "# include", "#define ", "#if ", "#endif",
        "#pragma ", "#error ", "\\\n", "\\\r\n", "\r\n", "\n", "\r", "\t", " ", "//", "/*", "*/",
        "\"", "'", "R\"(", ")\"", "R\"x(", ")x\"", "u8\"", "L'", "\\\"", "\\", "<", ">", "::",
        ".", "->", "(", ")", "{", "}", ";", ",", "<<<", ">>>", "32", "0x1F", "1e-5f", "asm(",
        "__shfl_sync", "warpSize", "MUSIFY_EXCL_LINE", "MUSIFY_EXCL_START", "MUSIFY_EXCL_STOP",
        "\ufeff", "\x00", "\xff", "\xe4\xb8\xad", "x", "_", "gemm_cuda", "MYLIB_CUDA_CHECK",
        "CUDA", "cuda", "Cuda", "cu", "\"k.cuh\"", "<cuda_runtime.h>", "kernel.cu",
    ],
    "python": [
        "import torch\n", "import torch_musa\n", "import os, subprocess\n",
        "from torch.utils.cpp_extension import CUDAExtension, BuildExtension, CUDA_HOME\n",
        "torch.cuda.", "is_available()", "device_count()", "foo_bar()", ".cuda()", ".cuda(0)",
        "x.is_cuda", "'cuda'", "\"cuda:0\"", "'nccl'", "\"nvcc\"", "'nvidia-smi'",
        "CUDA_VISIBLE_DEVICES", "os.environ['FORCE_CUDA']", "subprocess.run([", "])",
        "@triton.jit\n", "import cupy\n", "from numba import cuda\n", "torch.backends.cudnn",
        "torch.cuda.amp.autocast()", "sources=['k.cu', 'k.cuh']", "def f(x):\n", "    ",
        "return ", "x = ", "f'", "f\"{", "'''", '"""', "b'", "rb'", "ur'", "# coding: latin-1\n",
        "# coding: punycode\n", "# -*- coding: utf-16 -*-\n", "lambda: ", "print x\n", "<>",
        "0777", "if True:\n", "class A:\n", "pass\n", "with ", " as ", "*", "**", ".",
    ],
    "cmake": [
        "cmake_minimum_required(VERSION 3.18)\n", "project(p LANGUAGES CXX CUDA)\n",
        "find_package(CUDA REQUIRED)\n", "find_package(CUDAToolkit REQUIRED COMPONENTS cublas)\n",
        "cuda_add_library(k SHARED k.cu)\n", "add_library(k k.cu k.cuh)\n",
        "target_link_libraries(k CUDA::cudart CUDA::cublas ${CUDA_LIBRARIES})\n",
        "set(CMAKE_CUDA_ARCHITECTURES 80 86)\n", "enable_language(CUDA)\n",
        "set(CUDA_NVCC_FLAGS ${CUDA_NVCC_FLAGS} -arch=sm_80 -gencode arch=compute_80,code=sm_80)\n",
        "if(CUDA_VERSION VERSION_GREATER 11.0)\n", "endif()\n", "#[[", "]]", "#[=[", "]=]",
        "[[", "[=[", "]=]", "${", "$<", ">", "$ENV{CUDA_HOME}", "message(STATUS \"cuda\")\n",
        "nvcc", "-lcudart", "CUDA_HOME", "set(", "list(APPEND ", "(", ")",
    ],
    "make": [
        "NVCC = nvcc\n", "NVCC ?= $(CUDA_HOME)/bin/nvcc\n", "CUDA_HOME := /usr/local/cuda\n",
        "LDFLAGS += -L$(CUDA_HOME)/lib64 -lcudart -lcublas\n", "%.o: %.cu\n",
        "\t$(NVCC) -arch=sm_80 -c $< -o $@\n", "all: k.o\n", "$(", "${", "$(info ", "$(shell ",
        "$(warning ", "ifeq (", "endif\n", "# nvcc\n", "-gencode arch=compute_80,code=sm_80",
        "-Xcompiler -fPIC", "k.cu", "@echo nvcc\n", "&&", "|", "\\#", "define X\n", "endef\n",
    ],
    "shell": [
        "#!/bin/sh\n", "nvcc ", "-arch=sm_80 ", "-c k.cu ", "-o k.o ", "-lcudart ", "$(", "${",
        "echo ", "printf ", "<<EOF\n", "EOF\n", "<<'X'\n", "X\n", "export CUDA_HOME=/usr/local/cuda\n",
        "$CUDA_HOME/bin/nvcc", "# nvcc\n", "if [ -x nvcc ]; then\n", "fi\n", "&&", "|", "&",
        "-gencode arch=compute_80,code=sm_80 ", "-Xcompiler -fPIC ", "2>&1", "<<<", "$((1+2))",
    ],
}
# The file each kind is read from (a shell script by its first line, too).
FILE_OF = {"cxx": "k.cu", "python": "m.py", "cmake": "CMakeLists.txt", "make": "Makefile",
           "shell": "build.sh"}


def _mix(fragments: list[str], size: int = 40):
    """Fragments in random order; in a third of the inputs, one of them repeated a
    hundred to 3,000 times (nesting deeper than a recursive parser survives, thousands
    of edits on one line or in one statement)."""
    some = st.one_of(st.sampled_from(fragments), st.sampled_from(_COMMON))
    repeated = st.one_of(st.just(""), st.just(""),
                         st.tuples(some, st.integers(100, 3000)).map(lambda t: t[0] * t[1]))
    return st.tuples(st.lists(st.one_of(some, some, _BYTES), max_size=size), repeated,
                     st.integers(0, size)).map(
        lambda t: "".join(t[0][:t[2]] + [t[1]] + t[0][t[2]:]).encode("utf-8", "surrogateescape"))


def sources(kind: str):
    """Random files of ``kind``: random bytes, or random mixes of its fragments."""
    return st.one_of(st.binary(max_size=200), _mix(FRAGMENTS[kind]))


def check_round_trip(src: bytes, out: bytes, edits) -> None:
    """Outside the edits, the output is the input byte for byte; inside, each edit
    replaced exactly what it says it replaced."""
    pieces, at = [], 0
    for e in sorted(edits, key=lambda e: e.start):
        assert at <= e.start <= e.end <= len(src), (at, e)
        assert src[e.start:e.end] == e.old.encode("utf-8", "surrogateescape"), e
        pieces += [src[at:e.start], e.new.encode("utf-8", "surrogateescape")]
        at = e.end
    pieces.append(src[at:])
    assert b"".join(pieces) == out


# -- rule files ------------------------------------------------------------------------

RULE_KEYS = ["cudaMalloc", "cudaFooBar", "CUDA", "cuda", "cu", "_CUH", "::cuda::", "/cuda/",
             "<cuda.h>", "\"k.cuh\"", "#include", ".is_cuda()", ", CUDA,", "a b", "x", "",
             "\ud800", "\n", "\t", "\"", "\\", "entries", "vocabulary", "family", "musa"]
_RULE_VALUES = st.one_of(st.sampled_from(RULE_KEYS), st.text(max_size=6), st.integers(),
                         st.none(), st.booleans(), st.just([]), st.just({}))
_RICH_ENTRY = st.one_of(_RULE_VALUES, st.dictionaries(
    st.sampled_from(["musa", "status", "note", "primary", "source", "version", "x"]),
    st.one_of(st.sampled_from(["supported", "unsupported", "partial", "musaX"]), _RULE_VALUES),
    max_size=3))
_RULE_DICTS = st.one_of(
    st.dictionaries(st.one_of(st.sampled_from(RULE_KEYS), st.text(max_size=6)), _RULE_VALUES,
                    max_size=6),
    st.fixed_dictionaries({"entries": st.dictionaries(st.sampled_from(RULE_KEYS), _RICH_ENTRY,
                                                      max_size=4)},
                          optional={"family": _RULE_VALUES, "enabled": _RULE_VALUES,
                                    "default_status": _RULE_VALUES}),
    st.fixed_dictionaries({"vocabulary": st.dictionaries(st.sampled_from(RULE_KEYS),
                                                         _RULE_VALUES, max_size=3),
                           "cudaMalloc": st.just("musaMalloc")}),
)
_JSON_SYNTAX = ["{", "}", "[", "]", ":", ",", "\"", "\"cudaMalloc\"", "\"musaMalloc\"",
                "\"\\ud800\"", "\"\\u0000\"", "\\", "1", "-0.5e9", "true", "null", " ", "\n",
                "\"entries\"", "\"vocabulary\"", "\"a\": \"b\"", "{\"musa\": \"x\"}", "//", "/*"]
_YAML_SYNTAX = ["- ", ": ", "? ", "{", "}", "[", "]", ",", "&a ", "*a", "<<: *a\n", "!!str ",
                "!!python/name:os.system ", "---\n", "...\n", "|\n", ">\n", "'", "\"", "#",
                "\n", "  ", "\t", "%YAML 1.1\n", "cudaMalloc", "musaMalloc", "\"\\ud800\"",
                "vocabulary:\n", "  cuda: musa\n", "yes", "~", "0x1F", "2001-01-01"]


def _dumped_yaml(d: dict) -> str:
    import yaml

    return yaml.safe_dump(d, allow_unicode=True)


def rule_files(suffix: str):
    """Random rule files (bytes): well-formed ones of every shape musa-port reads, with
    odd names and values, and random mixes of the format's syntax."""
    if suffix == ".json":
        dumped = st.tuples(_RULE_DICTS, st.booleans()).map(
            lambda t: json.dumps(t[0], ensure_ascii=t[1]).encode("utf-8", "surrogatepass"))
        syntax = _mix(_JSON_SYNTAX, 30)
    else:
        dumped = _RULE_DICTS.map(lambda d: _dumped_yaml(d).encode("utf-8", "surrogatepass"))
        syntax = _mix(_YAML_SYNTAX, 30)
    return st.one_of(dumped, syntax, st.binary(max_size=100))


# -- the command line, in this process -------------------------------------------------

def run_cli(args: list[str]) -> tuple[int, str]:
    """``musa-port ARGS`` in this process: its exit code and what it printed on stderr.
    The signal handlers it installs are put back."""
    from musa_porting.cli.app import main

    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    err = io.StringIO()
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main(args)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        for s, h in handlers.items():
            signal.signal(s, h)
    return code, err.getvalue()
