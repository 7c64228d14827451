"""Issue 15: porting build files (CMake, Makefiles, shell scripts), text in, text and
findings out. The fixture projects and real build files are in test_build_fixtures.py."""

from __future__ import annotations

import pytest

from musa_porting.analyze.build_findings import build_diagnostics
from musa_porting.analyze.checks import CHECKS
from musa_porting.port.build.cmake.lexer import lex_cmake
from musa_porting.port.build.file import build_words, port_build_bytes
from musa_porting.port.build.rewrite import BuildContext
from musa_porting.port.filenames import ported_name

REL = {"cmake": "CMakeLists.txt", "make": "Makefile", "shell": "build.sh"}


def port(text: str | bytes, kind: str = "cmake", *, rel: str | None = None,
         arch=("mp_22",), tree=(), macros=None, keep=(), rename_cu=True):
    """Port one build file's text; returns (new text, findings)."""
    rel = rel or REL[kind]
    out_rel_of = {r: ported_name(r) for r in (*tree, rel)}
    ctx = BuildContext(rel, tuple(arch), out_rel_of, rename_cu=rename_cu,
                       macro=(macros or {}).get, keep=frozenset(keep))
    data = text.encode("latin-1") if isinstance(text, str) else text
    bp = port_build_bytes(data, kind, ctx)
    found = build_diagnostics(data, bp.data, bp.changes, bp.notes,
                              build_words(kind, bp.data.decode("latin-1")), ctx.keep, bp.protected)
    out = bp.data.decode("latin-1") if isinstance(text, str) else bp.data
    return out, found


def ids(found) -> list[str]:
    return [d.id for d in found]


def at(found, line: int) -> list[str]:
    return [d.id for d in found if d.line == line]


# -- the CMake tokeniser ---------------------------------------------------------------

def test_cmake_lexer_spans_arguments_and_comments_exactly():
    text = ('set(A "x ${B}\\" y" [=[raw ]] still]=] un\\;quoted) # tail\n'
            '#[[ block\ncomment ]] if((A) AND B)\nmessage(STATUS [[\n]])\n')
    lexed = lex_cmake(text)
    assert [c.name for c in lexed.commands] == ["set", "if", "message"]
    args = lexed.commands[0].args
    assert [(a.kind, a.text) for a in args] == [
        ("unquoted", "A"), ("quoted", '"x ${B}\\" y"'), ("bracket", "[=[raw ]] still]=]"),
        ("unquoted", "un\\;quoted")]
    assert [text[a.start:a.end] for a in args] == [a.text for a in args]
    assert args[2].body == "raw ]] still"
    assert [text[s:e] for s, e in lexed.comments] == ["# tail", "#[[ block\ncomment ]]"]
    assert lexed.commands[1].words() == ["A", "AND", "B"]  # nested parentheses
    assert not lexed.problems


def test_cmake_lexer_reports_unterminated_input_instead_of_failing():
    lexed = lex_cmake('set(A "open\n')
    assert lexed.problems and lexed.problems[0][0] == 1
    out, _ = port('project(p LANGUAGES CUDA)\nset(A "open\n')
    assert out.startswith("project(p LANGUAGES CXX)")  # what parsed is still ported


# -- CMake: FindCUDA, CUDAToolkit, the CUDA language -----------------------------------

def test_findcuda_becomes_findmusa():
    out, found = port(
        "find_package(CUDA 11.0 REQUIRED)\n"
        "set(CUDA_NVCC_FLAGS ${CUDA_NVCC_FLAGS} -O3 --use_fast_math\n"
        "    -gencode arch=compute_70,code=sm_70 -gencode arch=compute_80,code=sm_80)\n"
        "include_directories(${CUDA_INCLUDE_DIRS})\n"
        "cuda_add_library(kern SHARED kern.cu helpers.cuh)\n"
        "target_link_libraries(kern ${CUDA_LIBRARIES} ${CUDA_CUBLAS_LIBRARIES})\n")
    assert out == (
        'list(APPEND CMAKE_MODULE_PATH "${MUSA_PATH}/cmake")\n'
        "find_package(MUSA 11.0 REQUIRED)\n"
        "set(MUSA_MCC_FLAGS ${MUSA_MCC_FLAGS} -O3 -ffast-math\n"
        "    --offload-arch=mp_22)\n"
        "include_directories(${MUSA_INCLUDE_DIRS})\n"
        "musa_add_library(kern SHARED kern.mu helpers.muh)\n"
        "target_link_libraries(kern ${MUSA_LIBRARIES} ${MUSA_MUBLAS_LIBRARIES})\n")
    assert at(found, 2) == ["MP3106"]  # CUDA 11.0 is not a MUSA version
    assert at(found, 3) == ["MP3105"] and at(found, 4).count("MP3104") == 2


def test_cudatoolkit_becomes_musatoolkit_with_its_components_and_targets():
    out, found = port(
        "find_package(CUDAToolkit REQUIRED COMPONENTS cublas cufft)\n"
        "target_link_libraries(app PRIVATE CUDA::cudart CUDA::cublas CUDA::cublasLt\n"
        "  CUDA::cufft CUDA::nvToolsExt)\n"
        "target_include_directories(app PRIVATE ${CUDAToolkit_INCLUDE_DIRS})\n")
    assert out == (
        "find_package(MUSAToolkit REQUIRED COMPONENTS mublas mufft)\n"
        "target_link_libraries(app PRIVATE MUSA::musart MUSA::mublas MUSA::mublasLt\n"
        "  MUSA::mufft CUDA::nvToolsExt)\n"
        "target_include_directories(app PRIVATE ${MUSAToolkit_INCLUDE_DIRS})\n")
    (left,) = [d for d in found if d.text == "CUDA::nvToolsExt"]
    assert left.id == "MP3102" and "NVTX" in left.message
    out, found = port("find_package(CUDAToolkit REQUIRED)\n"
                      "target_link_libraries(k CUDA::cublas CUDA::curand CUDA::cudart)\n")
    assert out.splitlines()[0] == "find_package(MUSAToolkit REQUIRED COMPONENTS mublas murand)"
    assert ids(found) == ["MP3107"]


def test_cuda_language_becomes_findmusa_and_cu_targets_musa_add_library():
    out, found = port(
        "cmake_minimum_required(VERSION 3.18)\n"
        "project(demo LANGUAGES CXX CUDA)\n"
        "set(CMAKE_CUDA_ARCHITECTURES 70 80)\n"
        "set(CMAKE_CUDA_STANDARD 17)\n"
        "set(SRCS a.cu b.cu)\n"
        "add_library(k STATIC ${SRCS} host.cpp)\n"
        "target_link_libraries(k PUBLIC CUDA::cudart)\n"
        "add_executable(app main.cpp)\n", arch=("mp_21", "mp_31"))
    assert out == (
        "cmake_minimum_required(VERSION 3.18)\n"
        "project(demo LANGUAGES CXX)\n"
        'list(APPEND CMAKE_MODULE_PATH "${MUSA_PATH}/cmake")\n'
        "find_package(MUSA REQUIRED)\n"
        'string(APPEND MUSA_MCC_FLAGS " --offload-arch=mp_21 --offload-arch=mp_31")\n'
        'string(APPEND MUSA_MCC_FLAGS " -std=c++17")\n'
        "set(SRCS a.mu b.mu)\n"
        "set(MUSA_LINK_LIBRARIES_KEYWORD PRIVATE)\n"
        "musa_add_library(k STATIC ${SRCS} host.cpp)\n"
        "target_link_libraries(k PUBLIC MUSA::musart)\n"
        "add_executable(app main.cpp)\n")
    assert ids(found) == ["MP3107", "MP3104", "MP3107", "MP3107"]
    assert "sm numbers do not map 1:1" in found[1].message and found[1].src_line == 3
    assert found[3].line == 9 and found[3].src_line == 6  # placed in the port and the original
    out, _ = port("project(k CUDA)\nenable_language(CUDA)\n")
    assert out == ('project(k CXX)\nlist(APPEND CMAKE_MODULE_PATH "${MUSA_PATH}/cmake")\n'
                   "find_package(MUSA REQUIRED)\nfind_package(MUSA REQUIRED)\n")
    out, _ = port("if(USE_GPU)\n  enable_language(CUDA)\nendif()\n")
    assert out == ('if(USE_GPU)\n  list(APPEND CMAKE_MODULE_PATH "${MUSA_PATH}/cmake")\n'
                   "  find_package(MUSA REQUIRED)\nendif()\n")


def test_what_has_no_mechanical_form_is_left_with_a_finding_that_says_what_to_do():
    text = (
        "include(CheckLanguage)\n"
        "check_language(CUDA)\n"
        "target_compile_options(k PRIVATE\n"
        "  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fPIC;--expt-relaxed-constexpr>)\n"
        "set_source_files_properties(glue.cpp PROPERTIES LANGUAGE CUDA)\n"
        "set_target_properties(k PROPERTIES CUDA_ARCHITECTURES 80 CUDA_SEPARABLE_COMPILATION ON)\n"
        'message(STATUS "compiler: ${CMAKE_CUDA_COMPILER}")\n'
        "add_library(objs OBJECT x.cu)\n"
        "cuda_add_cublas_to_target(k)\n")
    out, found = port(text)
    assert out == text.replace("x.cu", "x.mu")
    by_line = {d.line: d for d in found if d.id != "MP3108"}
    assert by_line[2].id == "MP3101" and "find_package(MUSA)" in by_line[2].message
    assert by_line[4].id == "MP3101" and 'string(APPEND MUSA_MCC_FLAGS " -fPIC")' in by_line[4].message
    assert by_line[5].id == "MP3101" and "rename the file to .mu" in by_line[5].message
    assert at(found, 6) == ["MP3104", "MP3101"]
    assert by_line[7].text == "CMAKE_CUDA_COMPILER" and "MUSA_MCC_EXECUTABLE" in by_line[7].message
    assert by_line[8].id == "MP3101" and "musa_add_library(objs STATIC" in by_line[8].message
    assert by_line[9].id == "MP3101" and "MUSA::mublas" in by_line[9].message
    for d in found:  # every finding says what happened and what to do
        problem, _, suggestion = d.message.partition("; ")
        assert problem and suggestion, d


def test_comments_messages_and_unrelated_strings_are_never_changed():
    text = (
        "# Install CUDA from https://developer.nvidia.com/cuda-downloads (nvcc, -lcudart)\n"
        "#[[ nvcc -arch=sm_80 -Xcompiler -fPIC\n   CUDA_HOME=/usr/local/cuda ]]\n"
        'message(STATUS "Building CUDA kernels with nvcc -arch=sm_80 from /usr/local/cuda")\n'
        'option(USE_NVCC "Build with nvcc and CUDA_HOME" ON)\n'
        'set(GREETING "hello from the cuda team")\n'
        "file(WRITE probe.cu [=[__global__ void k() { cudaMalloc(0, 0); }]=])\n"
        'string(REGEX REPLACE "-gencode arch=[^ ]+" "" FLAGS "${FLAGS}")\n'
        'add_custom_target(x COMMAND true COMMENT "nvcc step for ${CUDA_HOME}")\n')
    out, found = port(text)
    assert out == text.replace("probe.cu", "probe.mu").replace("${CUDA_HOME}", "${MUSA_HOME}")
    # Nothing is reported inside comments; the words of prose only as notes.
    assert all(d.line >= 4 for d in found)
    prose = [d for d in found if d.line in (4, 9) or (d.line == 5 and d.column > 16)]
    assert prose and {d.id for d in prose} == {"MP3108"}
    assert at(found, 6) == ["MP3103"] and at(found, 7) == ["MP3103"]  # a string, raw text
    assert "MP3102" in at(found, 8)  # -gencode in a regex: reported, not rewritten


def test_version_comparisons_and_flags_set_too_late():
    out, found = port(
        "find_package(CUDA)\n"
        "if(CUDA_VERSION VERSION_GREATER_EQUAL 11.8)\n"
        "  list(APPEND CUDA_NVCC_FLAGS -DHAS_FP8)\n"
        "endif()\n"
        "cuda_add_library(k k.cu)\n"
        "list(APPEND CUDA_NVCC_FLAGS -lineinfo)\n")
    assert "if(MUSA_VERSION VERSION_GREATER_EQUAL 11.8)" in out
    assert at(found, 3) == ["MP3106"]
    late = next(d for d in found if d.line == 7 and d.id == "MP3107")
    assert "after musa_add_library(k), which has already read MUSA_MCC_FLAGS" in late.message


def test_crlf_latin1_and_markers_round_trip():
    data = (b"project(p LANGUAGES CUDA)\r\n# caf\xe9 nvcc\r\n"
            b"set(X nvcc) # MUSIFY_EXCL_LINE\r\nset(Y nvcc)\r\n")
    out, found = port(data)
    assert out == (b'project(p LANGUAGES CXX)\r\nlist(APPEND CMAKE_MODULE_PATH "${MUSA_PATH}/cmake")'
                   b"\r\nfind_package(MUSA REQUIRED)\r\n# caf\xe9 nvcc\r\n"
                   b"set(X nvcc) # MUSIFY_EXCL_LINE\r\nset(Y mcc)\r\n")
    assert not [d for d in found if d.text == "nvcc"]  # protected: not reported either


# -- nvcc options, in Makefiles and scripts --------------------------------------------

@pytest.mark.parametrize("before, after, finding", [
    ("-Xcompiler -fPIC,-Wall", "-fPIC -Wall", None),
    ("-Xcompiler=-O2", "-O2", None),
    ("--compiler-options '-fPIC -g'", "-fPIC -g", None),
    ("-Xptxas -v -O2", "-O2", "MP3105"),
    ("-rdc=true", "-fgpu-rdc", "MP3105"),
    ("--relocatable-device-code false", "-fno-gpu-rdc", "MP3105"),
    ("-x cu", "-x musa", None),
    ("-ccbin g++-12 -O2", "-O2", "MP3105"),
    ("-maxrregcount=64 -O2", "-O2", "MP3105"),
    ("-use_fast_math", "-ffast-math", "MP3105"),
    ("-G", "-g", "MP3105"),
    ("-ptx", "-ptx", "MP3102"),
    ("-Werror -O2", "-Werror -O2", None),  # gcc's bare -Werror is not nvcc's form
    ("-Werror=unused-variable", "-Werror=unused-variable", None),  # nor gcc's -Werror=X
    ("-Werror cross-execution-space-call -O2", "-O2", "MP3105"),
    ("-arch=native", "--offload-arch=mp_22", "MP3104"),
    ("-arch sm_80 -code=sm_80,compute_80", "--offload-arch=mp_22", "MP3104"),
    ("-gencode=arch=compute_90a,code=sm_90a -O3", "--offload-arch=mp_22 -O3", "MP3104"),
    ("-I/usr/local/cuda/include -L/usr/local/cuda/lib64", "-I/usr/local/musa/include "
     "-L/usr/local/musa/lib", None),
    ("-lcudart -lcublasLt -lcudnn -lnccl -lcuda", "-lmusart -lmublasLt -lmudnn -lmccl -lmusa", None),
])
def test_nvcc_options_in_a_recipe(before, after, finding):
    out, found = port(f"k.o: k.cu\n\tnvcc {before} -c k.cu -o k.o\n", "make")
    assert out == f"k.o: k.mu\n\tmcc {after} -c k.mu -o k.o\n"
    assert ([finding] if finding else []) == sorted(set(ids(found)))


def test_arch_flags_in_a_cmake_list_stay_list_elements():
    out, _ = port('list(APPEND CUDA_NVCC_FLAGS -O3 "-gencode;arch=compute_70,code=sm_70")\n'
                  'set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -gencode arch=compute_80,code=sm_80")\n',
                  arch=("mp_21", "mp_22"))
    assert out == ('list(APPEND MUSA_MCC_FLAGS -O3 "--offload-arch=mp_21;--offload-arch=mp_22")\n'
                   'set(MUSA_MCC_FLAGS "${MUSA_MCC_FLAGS} --offload-arch=mp_21 --offload-arch=mp_22")\n')


def test_dropped_options_keep_the_layout_of_the_lines():
    out, _ = port("FLAGS := -O2 \\\n         --expt-relaxed-constexpr -lineinfo \\\n"
                  "         -Xptxas -v\n", "make")
    assert out == "FLAGS := -O2 \\\n         -gline-tables-only \\\n         \n"
    out, _ = port('set(F "--expt-extended-lambda;-O3")\nset(G "${G} --expt-relaxed-constexpr")\n')
    assert out == 'set(F "-O3")\nset(G "${G}")\n'


def test_arch_words_and_variables_follow_the_arch_option():
    out, found = port("ARCH ?= sm_86\nall:\n\tnvcc -arch=$(ARCH) k.cu\n", "make",
                      arch=("mp_31", "mp_22"))
    assert out == "ARCH ?= mp_31\nall:\n\tmcc --offload-arch=$(ARCH) k.mu\n"
    assert "only the first of --arch mp_31,mp_22" in found[0].message
    assert "$(ARCH) must now name MUSA arches" in found[1].message


# -- Makefiles and shell scripts -------------------------------------------------------

def test_make_prose_and_comments_stay():
    text = ("# nvcc from /usr/local/cuda (see https://docs.nvidia.com/cuda/)\n"
            "$(info building with nvcc in $(CUDA_HOME))\n"
            "all:\n\t@echo \"nvcc -arch=sm_80 $(CUDA_HOME)\" # nvcc\n\t$(CUDA_HOME)/bin/nvcc -c k.cu\n")
    out, found = port(text, "make")
    assert out == text.replace("$(CUDA_HOME)", "$(MUSA_HOME)").replace("bin/nvcc -c k.cu",
                                                                        "bin/mcc -c k.mu")
    assert {d.id for d in found} == {"MP3108"}


def test_shell_quotes_substitutions_heredocs_and_echo():
    text = ("#!/bin/bash\n"
            'export CUDA_HOME="${CUDA_HOME:-/usr/local/cuda-12.4}"\n'
            'NVCC_BIN="$(command -v nvcc)"\n'
            'echo "compiling with nvcc for sm_80"; "$NVCC_BIN" -arch=sm_80 -c k.cu '
            '-L"$CUDA_HOME/lib64" -lcudart\n'
            "cat > notes.txt <<EOF\nnvcc -lcudart\nEOF\n"
            'grep -q "cuda" log.txt\n')
    out, found = port(text, "shell")
    assert out == ("#!/bin/bash\n"
                   'export MUSA_HOME="${MUSA_HOME:-/usr/local/musa}"\n'
                   'NVCC_BIN="$(command -v mcc)"\n'
                   'echo "compiling with nvcc for sm_80"; "$NVCC_BIN" --offload-arch=mp_22 -c k.mu '
                   '-L"$MUSA_HOME/lib" -lmusart\n'
                   "cat > notes.txt <<EOF\nnvcc -lcudart\nEOF\n"
                   'grep -q "cuda" log.txt\n')
    assert "MUSA installs are not versioned" in next(d for d in found if d.line == 2).message
    assert at(found, 8) == ["MP3103"]  # a one-word string is a value: reported, kept


@pytest.mark.parametrize("opening", ["$(", '"$(', "$( ("])
def test_deeply_nested_substitutions_are_ported_without_recursion(opening):
    """A script that calls nvcc, with 1,000 nested ``$(`` (or quotes and parentheses
    inside them): the lexer recursed per level and died of RecursionError, exit 3
    (issue 28 item 9). The script is ported, and so is nvcc inside the nesting."""
    closing = {"$(": ")", '"$(': ')"', "$( (": ") )"}[opening]
    nested = opening * 1000 + "nvcc -c k.cu" + closing * 1000
    out, _ = port("#!/bin/sh\nnvcc -c a.cu\nx=" + nested + "\n", "shell")
    assert out == "#!/bin/sh\nmcc -c a.mu\nx=" + nested.replace("nvcc -c k.cu", "mcc -c k.mu") + "\n"


def test_macro_names_follow_the_rules_and_keep_silences():
    out, found = port("CXXFLAGS += -DMMCV_WITH_CUDA -D__CUDA_NO_HALF_OPERATORS__\n", "make",
                      macros={"MMCV_WITH_CUDA": "MMCV_WITH_MUSA"},
                      keep=("__CUDA_NO_HALF_OPERATORS__",))
    assert out == "CXXFLAGS += -DMMCV_WITH_MUSA -D__CUDA_NO_HALF_OPERATORS__\n"
    assert found == []
    out, _ = port("target_compile_definitions(k PRIVATE MMCV_WITH_CUDA=1)\n",
                  macros={"MMCV_WITH_CUDA": "MMCV_WITH_MUSA"})
    assert out == "target_compile_definitions(k PRIVATE MMCV_WITH_MUSA=1)\n"


def test_source_lists_follow_the_trees_output_names():
    tree = ("src/a.cu", "src/k.cuh", "kernels/b.cu")
    out, _ = port("add_library(k ../src/a.cu ${CMAKE_CURRENT_SOURCE_DIR}/b.cu "
                  "${PROJECT_SOURCE_DIR}/src/k.cuh gen/*.cu)\n", rel="kernels/CMakeLists.txt",
                  tree=tree)
    assert out == ("musa_add_library(k ../src/a.mu ${CMAKE_CURRENT_SOURCE_DIR}/b.mu "
                   "${PROJECT_SOURCE_DIR}/src/k.muh gen/*.mu)\n")
    # A port that keeps .cu names (--extensions without .cu) keeps them in build files too.
    out, _ = port("all: a.cu gen/*.cu\n", "make", rename_cu=False)
    assert out == "all: a.cu gen/*.cu\n"


def test_every_check_is_documented_with_a_level():
    build = {cid: c for cid, c in CHECKS.items() if cid.startswith("MP31")}
    assert sorted(build) == [f"MP310{i}" for i in range(1, 9)]
    errors = {cid for cid, c in build.items() if c.level == "error"}
    assert errors == {"MP3101", "MP3102"}  # what --check fails on, with the residuals
