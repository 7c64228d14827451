"""The fake ``mcc`` (fixtures/fake-mcc/mcc) that the build driver's tests run through ninja.

These tests pin down what the fake accepts and emits (README.md next to it), by running the
script directly, so a driver test failing can be told apart from the fake misbehaving.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

MCC = ROOT / "fixtures" / "fake-mcc" / "mcc"

BIG_KERNEL = """\
#include "tile.muh"
// the kernel below needs 64*65*4 + 128*8 + 6144*2 = 29952 bytes of static shared memory
template <typename T>
__global__ void big_tile_kernel(T* out, const T* __restrict__ in, int n) {
  __shared__ float tile[TILE][TILE + PAD];
  __shared__ double acc[TILE * 2];
  __shared__ __half h[4096], g[2048];
  extern __shared__ char dynamic_smem[];
  out[0] = in[0] + tile[0][0] + acc[0];
}
"""


def mcc(*args, cwd, env=None):
    """Run the fake mcc with ``sys.executable``; returns the completed process."""
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, str(MCC), *map(str, args)], cwd=cwd, env=full_env,
                          capture_output=True, text=True)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def tree(tmp_path):
    """src/k.mu -> ../include/k.muh -> detail/helpers.muh; <other.h> via -I; <musa_runtime.h> unresolved."""
    write(tmp_path / "include/k.muh",
          '#pragma once\n#include "detail/helpers.muh"\n#include <musa_runtime.h>\n')
    write(tmp_path / "include/detail/helpers.muh", "#pragma once\n#define THREADS 256\n")
    write(tmp_path / "third/other.h", "int other;\n")
    write(tmp_path / "third/never.h", "int never;\n")
    write(tmp_path / "src/k.mu", '#include "../include/k.muh"\n#include <other.h>\n'
          '#if 0\n#include <never.h>\n#endif\n__global__ void k(float* x) { x[threadIdx.x] = THREADS; }\n')
    return tmp_path


def test_compile_writes_object_and_depfile_with_the_include_chain(tree):
    proc = mcc("-c", "-fPIC", "-std=c++17", "-O2", "--offload-arch=mp_22", "-Ithird", "-DNDEBUG",
               "-MD", "-MF", "build/k.o.d", "src/k.mu", "-o", "build/k.o", cwd=tree)
    assert proc.returncode == 1 and "unable to open output file 'build/k.o'" in proc.stderr  # no mkdir
    (tree / "build").mkdir()
    proc = mcc("-c", "-fPIC", "-std=c++17", "-O2", "--offload-arch=mp_22", "-Ithird", "-DNDEBUG",
               "-MD", "-MF", "build/k.o.d", "src/k.mu", "-o", "build/k.o", cwd=tree)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    obj = (tree / "build/k.o").read_text().splitlines()
    assert obj[:3] == ["FAKE-MUSA-OBJECT v1", f"source: {tree / 'src/k.mu'}", "arches: mp_22"]
    assert obj[3].startswith("sha256: ") and len(obj[3]) == 8 + 64
    assert (tree / "build/k.o.d").read_text() == (
        "build/k.o: src/k.mu src/../include/k.muh \\\n"
        "  src/../include/detail/helpers.muh third/other.h\n")


def test_object_hash_follows_included_files_and_md_defaults_next_to_the_output(tree):
    assert mcc("-c", "-Ithird", "-MD", "src/k.mu", cwd=tree).returncode == 0  # -> k.o, k.d in cwd
    before = (tree / "k.o").read_text()
    assert (tree / "k.d").read_text().startswith("k.o: src/k.mu ")
    write(tree / "include/detail/helpers.muh", "#pragma once\n#define THREADS 128\n")
    assert mcc("-c", "-Ithird", "-MD", "src/k.mu", cwd=tree).returncode == 0
    assert (tree / "k.o").read_text() != before


def test_mmd_omits_isystem_headers_and_mt_names_the_target(tree):
    proc = mcc("-c", "-isystem", "third", "-MMD", "-MF", "k.d", "-MT", "obj/k.o", "src/k.mu", "-o", "k.o",
               cwd=tree)
    assert proc.returncode == 0, proc.stderr
    assert (tree / "k.d").read_text() == (
        "obj/k.o: src/k.mu src/../include/k.muh src/../include/detail/helpers.muh\n")


def test_depfile_escapes_spaces(tmp_path):
    write(tmp_path / "my dir/a.muh", "\n")
    write(tmp_path / "k.mu", '#include "my dir/a.muh"\n')
    assert mcc("-c", "-MD", "-MF", "k.d", "k.mu", "-o", "k.o", cwd=tmp_path).returncode == 0
    assert (tmp_path / "k.d").read_text() == "k.o: k.mu my\\ dir/a.muh\n"


@pytest.fixture
def big(tmp_path):
    write(tmp_path / "tile.muh", "#pragma once\n#define TILE 64\nconstexpr int PAD = 1;\n")
    write(tmp_path / "big.mu", BIG_KERNEL)
    return tmp_path


def test_shared_memory_over_the_mp21_limit_fails_there_only(big):
    proc = mcc("-c", "--offload-arch=mp_21", "-MD", "-MF", "big.o.d", "big.mu", "-o", "big.o", cwd=big)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        "big.mu:4:17: error: shared memory (29952) exceeds limit (28672) in function "
        "'_Z15big_tile_kernelIfEvPT_PKS0_i'",
        "1 error generated when compiling for mp_21.",
    ]
    assert not (big / "big.o").exists() and not (big / "big.o.d").exists()

    proc = mcc("-c", "--offload-arch=mp_31", "big.mu", "-o", "big.o", cwd=big)
    assert proc.returncode == 0 and proc.stderr == ""
    assert "arches: mp_31" in (big / "big.o").read_text()

    # A fat binary fails on its smallest arch; a stale object is removed like clang does.
    proc = mcc("-c", "--offload-arch=mp_31", "--offload-arch=mp_21", "big.mu", "-o", "big.o", cwd=big)
    assert proc.returncode == 1 and proc.stderr.endswith("1 error generated when compiling for mp_21.\n")
    assert not (big / "big.o").exists()


def test_shared_memory_error_in_a_header_kernel_has_the_include_stack(tmp_path):
    write(tmp_path / "kernels/smem.muh", "__global__ void fill(float* x, int n) {\n"
          "  __shared__ float buf[8192];\n}\n")
    write(tmp_path / "k.mu", '#include "kernels/smem.muh"\n')
    proc = mcc("-c", "--offload-arch=mp_21", "k.mu", "-o", "k.o", cwd=tmp_path)
    assert proc.stderr.splitlines() == [
        "In file included from k.mu:1:",
        "kernels/smem.muh:1:17: error: shared memory (32768) exceeds limit (28672) in function '_Z4fillPfi'",
        "1 error generated when compiling for mp_21.",
    ]


def test_shared_memory_limit_is_inclusive_and_sizes_follow_sizeof_and_vector_types(tmp_path):
    write(tmp_path / "n.mu", "int const threadsPerBlock = sizeof(unsigned long long int) * 8;\n"
          "__global__ static void __launch_bounds__(64) k(unsigned long long int* mask) {\n"
          "  __shared__ float4 boxes[threadsPerBlock * 28];\n"  # 64 * 28 * 16 = 28672: at the limit
          "  __shared__ char extra[EXTRA];\n}\n")
    assert mcc("-c", "--offload-arch=mp_21", "-DEXTRA=0", "n.mu", cwd=tmp_path).returncode == 0
    proc = mcc("-c", "--offload-arch=mp_21", "-DEXTRA=1", "n.mu", cwd=tmp_path)
    assert proc.stderr.splitlines()[0] == (
        "n.mu:2:46: error: shared memory (28673) exceeds limit (28672) in function '_Z1kPy'")


@pytest.mark.skipif(not shutil.which("c++filt"), reason="c++filt not installed")
def test_cxxfilt_demangles_the_kernel_names(big):
    names = ["_Z15big_tile_kernelIfEvPT_PKS0_i", "_Z4fillPfi"]
    proc = mcc("-c", "--offload-arch=mp_21", "big.mu", "-o", "big.o", cwd=big)
    assert names[0] in proc.stderr
    out = subprocess.run(["c++filt", *names], capture_output=True, text=True).stdout.splitlines()
    assert out == ["void big_tile_kernel<float>(float*, float const*, int)", "fill(float*, int)"]


def test_undeclared_cuda_identifiers_with_line_and_column(tmp_path):
    write(tmp_path / "u.mu", '// cudaMalloc in a comment is fine\n#define cudaFree musaFree\n'
          'void f(float* p) {\n  const char* s = "cudaMemcpy";\n'
          '  cudaError_t e = cudaGetLastError(); cudaFree(p);\n}\n')
    proc = mcc("-c", "u.mu", "-o", "u.o", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        "u.mu:5:3: error: use of undeclared identifier 'cudaError_t'",
        "u.mu:5:19: error: use of undeclared identifier 'cudaGetLastError'",
        "2 errors generated when compiling for mp_22.",
    ]
    assert not (tmp_path / "u.o").exists()


def test_inline_ptx_is_an_error_for_each_arch(tmp_path):
    write(tmp_path / "a.mu", "__device__ int lane() {\n  int id;\n"
          '  asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));\n  return id;\n}\n')
    proc = mcc("-c", "--offload-arch=mp_31", "a.mu", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        "a.mu:3:3: error: invalid inline assembly: PTX is not supported when compiling for mp_31",
        "1 error generated when compiling for mp_31.",
    ]


def test_error_and_warning_directives_respect_conditionals(tmp_path):
    write(tmp_path / "d.mu", "#if 0\n#error never\n#endif\n#if __MUSA_ARCH__ >= 310\n#error needs mp_22\n"
          "#else\n#warning slow path\n#endif\n")
    proc = mcc("-c", "d.mu", cwd=tmp_path)
    assert proc.returncode == 0 and (tmp_path / "d.o").exists()
    assert proc.stderr.splitlines() == ["d.mu:7:2: warning: slow path [-W#warnings]",
                                        "1 warning generated when compiling for mp_22."]
    proc = mcc("-c", "--offload-arch=mp_31", "d.mu", cwd=tmp_path)
    assert proc.stderr.splitlines() == ["d.mu:5:2: error: needs mp_22",
                                        "1 error generated when compiling for mp_31."]


def test_x_musa_makes_a_cpp_file_a_musa_compile(tmp_path):
    write(tmp_path / "b.cpp", "void f() { cudaDeviceSynchronize(); }\n")
    proc = mcc("-c", "b.cpp", "-o", "host.o", cwd=tmp_path)  # host C++: no MUSA diagnostics
    assert proc.returncode == 0 and (tmp_path / "host.o").read_text().startswith("FAKE-HOST-OBJECT v1\n")
    proc = mcc("-c", "-x", "musa", "b.cpp", "-o", "dev.o", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[0] == (
        "b.cpp:1:12: error: use of undeclared identifier 'cudaDeviceSynchronize'")


@pytest.mark.parametrize("args, message", [
    (["--offload-arch=mp_99"], "mcc: error: unsupported MUSA gpu architecture: mp_99"),
    (["--foo"], "mcc: error: unknown argument: '--foo'"),
    (["-std=c++99"], "mcc: error: invalid value 'c++99' in '-std=c++99'"),
])
def test_bad_arguments(tmp_path, args, message):
    write(tmp_path / "k.mu", "\n")
    proc = mcc("-c", *args, "k.mu", cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (1, message + "\n")
    assert not (tmp_path / "k.o").exists()


def test_missing_input_and_version(tmp_path):
    proc = mcc("-c", "x.mu", cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (1, "mcc: error: no such file or directory: 'x.mu'\n")
    proc = mcc("--version", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[0] == "mcc version 3.1.0 (fake, for musa-port tests)"


def test_link_writes_the_library_and_fails_on_a_missing_object(tmp_path):
    write(tmp_path / "a.mu", "\n")
    write(tmp_path / "b.mu", "\n")
    assert mcc("-c", "a.mu", "b.mu", cwd=tmp_path).returncode == 0
    proc = mcc("-shared", "-o", "libx.so", "a.o", "b.o", "-L/opt/musa/lib", "-lmusart", "-lmublas",
               cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "libx.so").read_text() == (
        f"FAKE-MUSA-SHARED-LIBRARY v1\nobject: {tmp_path / 'a.o'}\nobject: {tmp_path / 'b.o'}\n"
        "libdirs: /opt/musa/lib\nlibs: musart mublas\n")
    proc = mcc("-shared", "-o", "liby.so", "a.o", "gone.o", cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (1, "mcc: error: no such file or directory: 'gone.o'\n")
    assert not (tmp_path / "liby.so").exists()


def test_log_records_every_invocation(tmp_path):
    write(tmp_path / "k.mu", "\n")
    log = tmp_path / "mcc.log"
    env = {"FAKE_MCC_LOG": str(log), "FAKE_MCC_SLEEP": "0.01"}
    mcc("-c", "k.mu", "-o", "k.o", cwd=tmp_path, env=env)
    mcc("--bogus", cwd=tmp_path, env=env)
    first, second = (json.loads(line) for line in log.read_text().splitlines())
    assert first == {"argv": [str(MCC), "-c", "k.mu", "-o", "k.o"], "cwd": str(tmp_path),
                     "inputs": ["k.mu"], "output": "k.o", "exit": 0}
    assert second["argv"][1:] == ["--bogus"] and second["exit"] == 1


def test_link_accepts_host_objects_and_makes_executables(tmp_path):
    """Build systems compile host code with c++ and link with mcc: an ELF object is a link
    input, and a link without -shared writes an executable."""
    write(tmp_path / "k.mu", "__global__ void k() {}\n")
    write(tmp_path / "host.c", "int host(void) { return 1; }\n")
    assert mcc("-c", "k.mu", "-ffast-math", "-fgpu-rdc", "-gline-tables-only", cwd=tmp_path
               ).returncode == 0  # clang's spellings of nvcc's options are accepted
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no host C compiler")
    subprocess.run([cc, "-c", "host.c", "-o", "host.o"], cwd=tmp_path, check=True)
    lib = mcc("-shared", "-o", "libk.so", "k.o", "host.o", "-lmusart", cwd=tmp_path)
    assert lib.returncode == 0, lib.stderr
    assert (tmp_path / "libk.so").read_text().splitlines()[1:3] == [
        f"object: {tmp_path / 'k.o'}", f"host-object: {tmp_path / 'host.o'}"]
    app = mcc("host.o", "libk.so", "-o", "app", "-Wl,-rpath,/x", cwd=tmp_path)
    assert app.returncode == 0, app.stderr
    text = (tmp_path / "app").read_text()
    assert text.splitlines()[:3] == ["FAKE-MUSA-EXECUTABLE v1", f"host-object: {tmp_path / 'host.o'}",
                                     f"library: {tmp_path / 'libk.so'}"]
    assert os.access(tmp_path / "app", os.X_OK)
    write(tmp_path / "notes.txt", "hello\n")
    bad = mcc("host.o", "notes.txt", "-o", "app2", cwd=tmp_path)
    assert bad.returncode == 1 and "notes.txt: unknown file type" in bad.stderr
    assert not (tmp_path / "app2").exists()
