"""Strings that name CUDA things (issue 26, point 6): shared-library names and
environment variables are ported where the MUSA name is attested and reported (MP1009)
where it is not; a backend string compared with the project's renamed enum follows.
Input: ``fixtures/cuda_strings``."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import FIXTURES, run_cli

SRC = FIXTURES / "cuda_strings"


@pytest.fixture(scope="module")
def ported(tmp_path_factory):
    root = tmp_path_factory.mktemp("strings")
    shutil.copytree(SRC, root / "src")
    report = root / "r.json"
    run_cli(root / "src", "--report-json", report, "-q", check=0)
    return root / "src_musa", json.loads(report.read_text())


def test_attested_names_are_ported(ported):
    out, _ = ported
    cpp = (out / "loader.cpp").read_text()
    for old, new in [('dlopen("libcudart.so"', 'dlopen("libmusart.so"'),
                     ('dlopen("libcuda.so.1"', 'dlopen("libmusa.so.1"'),
                     ('dlopen("libcublas.so"', 'dlopen("libmublas.so"'),
                     ('getenv("CUDA_VISIBLE_DEVICES")', 'getenv("MUSA_VISIBLE_DEVICES")'),
                     ('getenv("CUDA_HOME")', 'getenv("MUSA_HOME")')]:
        assert new in cpp and old not in cpp
    # The backend string follows the project's own enum, renamed with it.
    assert 'if (name == "musa") return Backend::kMusa;' in cpp
    py = (out / "loader.py").read_text()
    assert 'ctypes.CDLL("libmusart.so")' in py and 'os.environ["MUSA_VISIBLE_DEVICES"]' in py
    assert '"gpu" if name == "musa"' in py


def test_the_rest_is_reported(ported):
    out, report = ported
    found = {(d["file"], d["text"]) for d in report["diagnostics"] if d["id"] == "MP1009"}
    assert found == {("loader.cpp", "libnvrtc.so"), ("loader.cpp", "libmusa.so.1"),
                     ("loader.cpp", "CUDA_LAUNCH_BLOCKING"), ("loader.py", "libnvrtc.so.12")}
    d = next(d for d in report["diagnostics"] if d["text"] == "CUDA_LAUNCH_BLOCKING")
    assert (d["line"], d["source_line"]) == (24, 24)
    assert "MUSA_LAUNCH_BLOCKING" in d["message"] and "--keep" in d["message"]
    assert report["checks"]["MP1009"]["residual"] is True


def test_skip_strings_and_keep(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(SRC, src)
    report = tmp_path / "r.json"
    run_cli(src, "--skip", "strings", "--keep", "CUDA_LAUNCH_BLOCKING", "--report-json", report,
            "-q", check=0)
    cpp = (tmp_path / "src_musa" / "loader.cpp").read_text()
    assert 'dlopen("libcudart.so"' in cpp and 'getenv("CUDA_HOME")' in cpp
    texts = {d["text"] for d in json.loads(report.read_text())["diagnostics"] if d["id"] == "MP1009"}
    assert "CUDA_LAUNCH_BLOCKING" not in texts and "libnvrtc.so" in texts


@pytest.mark.parametrize("body,ported,reported", [
    ("libcudart.so", "libmusart.so", False),
    ("libcudnn.so.8", "libmudnn.so.8", False),  # the ported text's version is reported
    ("libmudnn.so.8", None, True),
    ("/usr/local/cuda/lib64/libcudart.so", None, True),
    ("libnvToolsExt.so", None, True),
    ("libcust_opapi.so", None, False),  # Ascend's, not CUDA's
    ("libfoo.so", None, False),
    ("CUDA_PATH", "MUSA_PATH", False),
    ("NCCL_DEBUG", None, True),
    ("MAX_JOBS", None, False),
    ("CUDA", None, False),  # a word: the messages' business
])
def test_what_a_string_names(body, ported, reported):
    from musa_porting.port.cuda_strings import CudaStrings
    from musa_porting.rules.vocabulary import build_vocabulary

    new, message = CudaStrings(build_vocabulary()).judge(body)
    assert (new, message is not None) == (ported, reported)
