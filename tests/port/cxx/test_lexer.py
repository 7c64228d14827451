"""Comments, strings, includes and protective markers."""

from __future__ import annotations

from musa_porting.port.cxx.porter import lexer, port_bytes
from musa_porting.port.engine import Matcher

RULES = Matcher({"cudaFree": "musaFree", "\"cuda_runtime.h\"": "\"musa_runtime.h\""})


def port(text: str, **kw) -> str:
    return port_bytes(text.encode(), RULES, **kw).data.decode()


SRC = '''#include "cuda_runtime.h"
// cudaFree in a line comment
/* cudaFree in a
   block comment */
const char* s = "cudaFree in a string";
const char* r = R"x(cudaFree " in a raw string)x";
char c = 'c'; int n = 1'000'000; cudaFree(p);
'''


def test_rules_apply_everywhere_by_default():
    assert port(SRC).count("musaFree") == 5


def test_skip_comments():
    out = port(SRC, skip={"comments"})
    assert "// cudaFree in a line comment" in out and "/* cudaFree in a" in out
    assert '"musaFree in a string"' in out and "musaFree(p)" in out


def test_skip_strings_keeps_include_targets_eligible():
    out = port(SRC, skip={"strings"})
    assert out.startswith('#include "musa_runtime.h"')
    assert '"cudaFree in a string"' in out and 'R"x(cudaFree " in a raw string)x"' in out
    assert "// musaFree in a line comment" in out
    # Digit separators do not open a char literal that would swallow the call.
    assert "musaFree(p);" in out


def test_skip_both():
    out = port(SRC, skip={"comments", "strings"})
    assert out.count("musaFree") == 1 and '#include "musa_runtime.h"' in out


def test_musify_line_marker():
    out = port("cudaFree(a); // MUSIFY_EXCL_LINE\ncudaFree(b);\n")
    assert out == "cudaFree(a); // MUSIFY_EXCL_LINE\nmusaFree(b);\n"


def test_musify_start_stop_and_our_off_on():
    text = ("cudaFree(a);\n// MUSIFY_EXCL_START\ncudaFree(b);\n// MUSIFY_EXCL_STOP\ncudaFree(c);\n"
            "// musa-port: off\ncudaFree(d);\n// musa-port: on\ncudaFree(e);\n")
    out = port(text)
    assert [w for w in ("a", "b", "c", "d", "e") if f"musaFree({w})" in out] == ["a", "c", "e"]


def test_unterminated_exclusion_runs_to_end_of_file():
    out = port("cudaFree(a);\n/* musa-port: off */\ncudaFree(b);\ncudaFree(c);")
    assert out == "musaFree(a);\n/* musa-port: off */\ncudaFree(b);\ncudaFree(c);"


def test_marked_include_is_not_followed():
    def mapper(target):
        return "k.muh" if target == "k.cuh" else None

    out = port_bytes(b'#include "k.cuh" // MUSIFY_EXCL_LINE\n#include "k.cuh"\n', RULES,
                     include_mapper=mapper).data
    assert out == b'#include "k.cuh" // MUSIFY_EXCL_LINE\n#include "k.muh"\n'


def test_includes_found_with_bom_crlf_and_spacing():
    data = b'\xef\xbb\xbf#include <a.h>\r\n  #  include "b.cuh"\r\n#include_next <c.h>\n// #include "d.h"\n'
    incs = lexer.includes(data)
    assert [(i.target, i.angled, i.line) for i in incs] == [
        ("a.h", True, 1), ("b.cuh", False, 2), ("c.h", True, 3)]
    assert data[incs[1].start:incs[1].end] == b"b.cuh"


def test_error_and_warning_lines_are_messages_but_not_inside_comments():
    data = b'#error cudawarpfunction.cuh needs nvcc\n  #  warning "old CUDA" here\nint a; // #error no\n'
    spans = lexer.typed_spans(data)
    assert spans[:2] == [(7, 38, "strings"), (52, 67, "strings")]  # the messages, whole
    assert spans[2:] == [(75, 87, "comments")]  # a #error inside a comment is the comment
