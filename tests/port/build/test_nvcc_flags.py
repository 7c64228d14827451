"""nvcc's option table (issue 15): it covers every option of the machine's ``nvcc --help``,
and docs/build-files.md prints it as generated."""

from __future__ import annotations

import re
import subprocess

from conftest import ROOT, need_nvcc

from musa_porting.port.build import nvcc_flags as nf

HELP_LINE = re.compile(r"^(--[A-Za-z][\w-]*)(?:[^(\n]*\((-[^)\s]+)\))?", re.M)


def test_the_table_has_every_option_of_nvcc_help():
    nvcc = need_nvcc()
    text = subprocess.run([str(nvcc), "--help"], capture_output=True, text=True, check=True).stdout
    listed = {m.group(1): m.group(2) for m in HELP_LINE.finditer(text)}
    assert len(listed) > 100, text[:500]  # the parse found the option list
    missing = sorted(set(listed) - {o.long for o in nf.OPTIONS})
    assert not missing, f"nvcc --help has options the table lacks: {missing}"
    by_long = {o.long: o for o in nf.OPTIONS}
    wrong = {long: (short, by_long[long].short) for long, short in listed.items()
             if short and by_long[long].short != short}
    assert not wrong, wrong


def test_every_option_says_what_it_becomes():
    for opt in nf.OPTIONS:
        assert opt.action in (nf.SAME, nf.MAP, nf.HOST, nf.LANG, nf.ARCH, nf.DROP, nf.LEFT), opt
        if opt.action in (nf.DROP, nf.LEFT):
            assert opt.note, f"{opt.long} is {opt.action} without saying why"
        if opt.action in (nf.MAP, nf.SAME):
            assert opt.mcc, opt.long


def test_the_docs_print_the_table_as_generated():
    doc = (ROOT / "docs" / "build-files.md").read_text(encoding="utf-8")
    assert nf.flag_table_markdown() in doc
    assert nf.NVCC_VERSION.split(" (")[0] in doc  # the source of the list is cited
