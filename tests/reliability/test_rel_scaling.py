"""Hostile sizes: porting cost grows linearly with the input, whatever its shape
(issue 28, "quadratic time"). Each test times two sizes of the same input in this
process and checks the growth, never an absolute time: linear means the larger size
costs about its size ratio; the bound leaves room for a loaded machine, and a quadratic
cost, which grows by the square of the ratio, is far beyond it."""

from __future__ import annotations

from relhelp import growth

from musa_porting.analyze.build_findings import build_diagnostics
from musa_porting.analyze.findings import find_diagnostics
from musa_porting.analyze.hazards import find_hazards
from musa_porting.analyze.project_findings import project_findings
from musa_porting.analyze.symbols import scan_lexer
from musa_porting.analyze.word_finder import WordFinder
from musa_porting.port.build.cmake.lexer import lex_cmake
from musa_porting.port.build.file import build_words, port_build_bytes
from musa_porting.port.build.rewrite import BuildContext
from musa_porting.port.build.shell.lexer import lex_make, lex_shell
from musa_porting.port.cxx.includes import IncludeResolver
from musa_porting.port.cxx.porter import lexer, port_bytes
from musa_porting.port.engine import Edit, Matcher
from musa_porting.port.python.source import port_python, python_rules
from musa_porting.rules import build_ruleset
from musa_porting.rules.project import ProjectPlan, Rename, Site
from musa_porting.rules.vocabulary import build_vocabulary
from musa_porting.tree.active_rules import _knowledge
from musa_porting.tree.walk import Ignorer

SLACK = 2.2  # over the size ratio: room for a loaded 2-core machine


def linear(small: int, large: int) -> float:
    """The most growth from ``small`` to ``large`` that passes as linear."""
    return SLACK * large / small


def test_one_long_line_costs_its_length_not_items_times_length():
    """All of a file's code on one line (minified or generated): each edit, finding,
    definition, include and marker used to look back to the start of its line, so
    60,000 edits on an 8.6 MB line took 12 s against 2 s for the same text split into
    lines. Each step of a file's port is timed on a line of its own items. (The look
    back runs at memory speed: only thousands of items on megabytes of line show it,
    hence 8 times the size.)"""
    matcher = Matcher(build_ruleset().rewriting())
    knowledge = _knowledge(build_ruleset(), frozenset())
    words = WordFinder(build_vocabulary())
    target = WordFinder(build_vocabulary().reversed())

    def each(n: int) -> int:
        return n

    def once(n: int) -> int:  # hazards: one finding per check and line
        return 1

    def none(n: int) -> int:
        return 0

    steps = {  # what is timed: the item the line repeats, the work, what it finds of n
        "edits": (b"cudaMalloc(&p, %d); ", lambda src: len(port_bytes(src, matcher).edits), each),
        "findings": (b"cudaFooBar%d(q); ",
                     lambda src: len(find_diagnostics(src, src, [], knowledge, limit=len(src))), each),
        "warp constants": (b"int WARP_%d = 32; ", lambda src: len(find_hazards(src)), once),
        "ballots": (b"unsigned m%d = __ballot_sync(x, y); ", lambda src: len(find_hazards(src)), once),
        "arch words": (b"x%d = SM80 + 1; ", lambda src: len(find_hazards(src)), none),
        "definitions": (b"int gemm_cuda_%d(int a) { return a; } ",
                        lambda src: len(scan_lexer(src, words, target).defs), each),
        # Not at a line's start: not includes, and each one was looked back from.
        "includes": (b"x #include <k%d.h> ", lambda src: len(lexer.includes(src)), none),
        "markers": (b"MUSIFY_EXCL_LINE%d ", lambda src: len(lexer.marker_spans(src)), each),
    }
    for name, (unit, work, expect) in steps.items():
        def make(n: int) -> tuple[bytes, int]:
            return b"".join(unit % i + b"x = y + z; " * 180 for i in range(n)) + b"\n", n  # noqa: B023

        def step(made: tuple[bytes, int]) -> None:
            assert work(made[0]) == expect(made[1]), name  # noqa: B023
        assert growth(step, make, 1_000, 8_000) < linear(1_000, 8_000), name


def test_python_findings_are_placed_in_linear_time():
    """A Python file of torch.cuda calls that torch.musa lacks: each finding's place
    summed the growth of every edit before it, so 4,000 -> 12,000 lines took
    3 s -> 24 s."""
    rules = python_rules()

    def make(n: int) -> tuple[bytes, int]:
        return b"import torch\n" + b"".join(b"torch.cuda.foo_%d()\n" % i for i in range(n)), n

    def port(made: tuple[bytes, int]) -> None:
        ported = port_python(made[0], rules)
        assert len(ported.edits) == len(ported.diagnostics) == made[1]

    assert growth(port, make, 1_000, 8_000, repeat=2) < linear(1_000, 8_000)


def test_project_symbol_findings_are_placed_in_linear_time():
    """A file that defines thousands of CUDA-named functions, each renamed (MP1004):
    each finding's output column summed the growth of every edit of the file, so
    6,000 -> 18,000 definitions took 1.3 s -> 10 s, and 200,000 did not finish."""
    def make(n: int) -> tuple[ProjectPlan, list[Edit]]:
        renames, edits = {}, []
        for i in range(n):  # line i+1: "void gemm_cuda_<i>(...)", and a cudaMalloc after it
            old, new = f"gemm_cuda_{i}", f"gemm_musa_{i}"
            renames[old] = Rename(old, new, [Site("k.cpp", i + 1, 6, "function")])
            at = i * 100
            edits += [Edit(at + 5, at + 5 + len(old), i + 1, 6, old, new),
                      Edit(at + 40, at + 50, i + 1, 41, "cudaMalloc", "musaMalloc")]
        return ProjectPlan(renames), edits

    def place(made: tuple[ProjectPlan, list[Edit]]) -> None:
        plan, edits = made
        found = project_findings("k.cpp", plan, edits)
        assert len(found) == len(plan.renames) and found[-1].column == 6

    assert growth(place, make, 1_000, 8_000) < linear(1_000, 8_000)


def test_a_header_of_many_multi_line_macros_costs_linear_time():
    """A header of thousands of multi-line #defines (CCCL's and CUTLASS's have them) with
    a finding in it: where each macro ends was read off a copy of the file up to each of
    its lines, so 16,000 macros took 0.7 s against 0.18 s for 8,000."""
    def make(n: int) -> bytes:
        macros = b"".join(b"#define M%d(x) \\\n  do { x += %d; \\\n  } while (0)\n" % (i, i)
                          for i in range(n))
        return macros + b'__global__ void k() { asm("bar.sync 0;"); }\n'

    def find(src: bytes) -> None:
        assert [h.id for h in find_hazards(src)] == ["MP2001"]

    assert growth(find, make, 1_000, 8_000) < linear(1_000, 8_000)


def test_includes_found_anywhere_in_the_tree_cost_linear_time():
    """Thousands of folders, each with a source that includes "sub/common.h", which
    is not beside it, and a common.h of its own: each folder's include was checked
    against every common.h of the tree (6,000 folders took 35 s against 4.8 s)."""
    def make(n: int) -> tuple[list[str], list[str]]:
        sources = [f"d{i}/a.cpp" for i in range(n)]
        return sources, sources + [f"d{i}/common.h" for i in range(n)] + ["lib/sub/common.h"]

    def resolve(made: tuple[list[str], list[str]]) -> None:
        sources, files = made
        resolver = IncludeResolver(files)
        assert {resolver.resolve(s, "sub/common.h") for s in sources} == {"lib/sub/common.h"}

    assert growth(resolve, make, 1_000, 8_000) < linear(1_000, 8_000)


def test_ignore_patterns_cost_linear_time_however_many_wildcards():
    """An ignore pattern with many wildcards: backtracking regexes cost the name's
    length to the power of its wildcards (``*a*a*a*b`` took 0.25 s per 250-character
    name, ten stars never finished; so did three ``**`` on a deep path)."""
    ignorer = Ignorer(["*a*a*b", "x/**/a/**/b"])  # two wildcards: quadratic, before

    def make(n: int) -> list[str]:
        return ["a" * n, "x/" + "a/" * (n // 2) + "c"]

    def match(paths: list[str]) -> None:
        for _ in range(200):
            assert [ignorer.match(p, False) for p in paths] == [None, None]

    assert growth(match, make, 100, 800) < linear(100, 800)


def test_nested_substitutions_in_build_files_cost_linear_time():
    """``$(info $(info ...))`` nested in a Makefile line: each level rescanned the rest
    of the line for its close (1,000 levels: 0.4 s; 10,000: 41 s). And shell's ``$(``
    nested, lexed one level inside another (a RecursionError from 1,000 levels)."""
    def make(n: int) -> tuple[str, str]:
        return ("x = " + "$(info " * n + "nvcc" + ")" * n + "\n",
                "x=" + '"$(' * n + "nvcc -c k.cu" + ')"' * n + "\n")

    def lex(made: tuple[str, str]) -> None:
        makefile, script = made
        assert lex_make(makefile).statements and lex_shell(script).statements

    assert growth(lex, make, 500, 4_000) < linear(500, 4_000)


def test_build_files_with_thousands_of_edits_cost_linear_time():
    """A generated Makefile, CMake file or script of thousands of lines to port (found
    by the fuzz targets): each change was checked against every change made before it
    (4,000 lines of ``nvcc -c k.cu -lcudart`` took 2.3 s, 1,000 lines 0.19 s), and each
    line CMake inserts looked through the whole file for its line end."""
    ctx = BuildContext("build.sh", ("mp_22",), {"k.cu": "k.mu"}, rename_cu=True,
                       macro=lambda name: None, keep=frozenset())
    units = {"shell": b"nvcc -c k.cu -lcudart\n", "make": b"NVCC ?= $(CUDA_HOME)/bin/nvcc\n",
             "cmake": b"set(CUDA_NVCC_FLAGS -arch=sm_80)\nenable_language(CUDA)\n#" + b" x" * 500 + b"\n"}

    def make(n: int) -> tuple[dict[str, bytes], int]:
        return {kind: unit * n for kind, unit in units.items()}, n

    def port(made: tuple[dict[str, bytes], int]) -> None:
        files, n = made
        for kind, data in files.items():
            assert len(port_build_bytes(data, kind, ctx).edits) >= n, kind

    assert growth(port, make, 250, 2_000) < linear(250, 2_000)


def test_build_file_findings_are_placed_in_linear_time():
    """Thousands of recipe lines that call $(NVCC) with an arch option: each finding
    was checked against every note of the file (found by the Make fuzz target: 4,000
    lines took 0.66 s, 500 lines 0.03 s)."""
    ctx = BuildContext("Makefile", ("mp_22",), {"k.cu": "k.mu"}, rename_cu=True,
                       macro=lambda name: None, keep=frozenset())

    def make(n: int):
        data = b"\t$(NVCC) -arch=sm_80 -c $< -o $@\n" * n
        return data, port_build_bytes(data, "make", ctx), n

    def find(made) -> None:
        data, bp, n = made
        words = build_words("make", bp.data.decode("latin-1"))
        assert len(build_diagnostics(data, bp.data, bp.changes, bp.notes, words, ctx.keep,
                                     bp.protected)) == 2 * n

    assert growth(find, make, 500, 8_000) < linear(500, 8_000)


def test_one_python_statement_with_thousands_of_things_to_port_costs_linear_time():
    """A generated statement, a list of thousands of device strings on one line: each
    of them searched for its statement from the line's start (found by the fuzz
    targets: 4,000 took 0.3 s, 1,000 0.03 s)."""
    rules = python_rules()

    def make(n: int) -> tuple[bytes, int]:
        return b"devices = [" + b"'cuda', " * n + b"]\n", n

    def port(made: tuple[bytes, int]) -> None:
        assert len(port_python(made[0], rules).edits) == made[1]

    assert growth(port, make, 1_000, 8_000) < linear(1_000, 8_000)


def test_a_cmake_file_that_is_not_cmake_costs_linear_time():
    """A CMakeLists.txt of words that are not commands has a problem per word, and
    each problem's line was counted from the file's start (found by the fuzz targets:
    64,000 words took 5 s, 4,000 0.03 s)."""
    def make(n: int) -> str:
        return "nvcc " * n

    def lex(text: str) -> None:
        assert len(lex_cmake(text).problems) == text.count(" ")

    assert growth(lex, make, 2_000, 16_000) < linear(2_000, 16_000)


def test_arch_thresholds_among_comments_and_strings_cost_linear_time():
    """A header full of comments and strings with a ``__CUDA_ARCH__`` comparison in each
    block (CUTLASS's and CCCL's dispatch headers look so): each comparison's value was
    checked against every comment and string span of the file, which made the arch
    pass a sixth of the bench corpus's port (issue 26's cost)."""
    from musa_porting.port.cxx.arch_values import threshold_edits

    def make(n: int) -> tuple[bytes, int]:
        block = b'// note %d\nconst char* s%d = "x";\n#if __CUDA_ARCH__ >= 800\nint a%d;\n#endif\n'
        return b"".join(block % (i, i, i) for i in range(n)), n

    def edits(made: tuple[bytes, int]) -> None:
        assert len(threshold_edits(made[0], lexer.Lexed(made[0]))) == made[1]

    assert growth(edits, make, 1_000, 8_000) < linear(1_000, 8_000)


def test_definitions_far_from_any_statement_boundary_cost_linear_time():
    """Definitions with no ``;``, ``{`` or ``}`` before them (brace-less, hostile), a
    ``(`` never closed, a ``>`` with no ``<``: each look back to a statement's start,
    forward to a ``)`` or back to a ``<`` ran to the file's start or end, for every
    name (issue 47 item 12: 180,000 such definitions took 25 s of CPU)."""
    words = WordFinder(build_vocabulary())
    target = WordFinder(build_vocabulary().reversed())
    shapes = {b"int cudaVar%d = 1\n": 1, b"int cudaFn%d(\n": 0, b"x > cudaT%d = 1\n": 0,
              b"} cudaW%d;\n": 1}
    for unit, found in shapes.items():
        def make(n: int) -> tuple[bytes, int]:
            return b"".join(unit % i for i in range(n)), n * found  # noqa: B023

        def index(made: tuple[bytes, int]) -> None:
            assert len(scan_lexer(made[0], words, target).defs) == made[1], unit  # noqa: B023

        assert growth(index, make, 1_000, 8_000) < linear(1_000, 8_000), unit


def test_learning_a_forks_names_costs_linear_time():
    """``--base-from`` pairs the lines of OLD_SRC with the fork's by their shape (the
    line with its names blanked): a file of same-shaped lines was compared every line
    with every line (issue 47 item 11: 4,000 lines took 3 s, 16,000 lines 40 s). The
    fork inserted a line of its own and dropped one: every other line still pairs, with
    its own counterpart (it paired the first line with the 250th)."""
    from musa_porting.merge.learn import pairs

    def make(n: int) -> tuple[bytes, bytes, int]:
        old = [b"launch_cuda_%d(stream%d, cudaArg%d);" % (i, i, i) for i in range(n)]
        fork = [line.replace(b"cuda", b"mt") for line in old]
        fork.insert(n // 2, b"// MUSA: hand fix")
        del fork[n // 3]
        return b"\n".join(old), b"\n".join(fork), 3 * (n - 1)

    def learn(made: tuple[bytes, bytes, int]) -> None:
        old, fork, expected = made
        found = pairs(old, fork)
        assert len(found) == expected  # each line with its own counterpart, at any offset
        assert all(name.replace("cuda", "mt") == theirs for name, theirs in found)

    assert growth(learn, make, 500, 4_000) < linear(500, 4_000)
