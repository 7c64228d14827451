"""What an output path may be (issue 37, items 1 and 2): a path the user names (``-o``,
``--diff=FILE``, the reports) that exists and is not a regular file (a FIFO, a device,
a link to one, ``/dev/stdout``) is written through, as ``cat > path`` would, never
replaced; and no name a tree can hold is ever taken for a temp file. No test touches
the machine's own /dev: FIFOs, device nodes and sockets are made in tmp_path."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import make_tree
from relhelp import same_port, start, state, temps
from round4 import run_main

F_SETPIPE_SZ = 1031  # Linux: a pipe buffer that holds a whole report (nothing drains it)

REPORTS = {"--report-json": json.loads, "--sarif": json.loads,
           "--report-csv": lambda t: t.splitlines()[0].split(","),
           "--diff": lambda t: t.index("+musaStream_t s;")}


def _args(flag: str, path: Path) -> list:
    return [f"--diff={path}", "--write"] if flag == "--diff" else [flag, path]


@pytest.fixture
def src(tmp_path) -> Path:
    return make_tree(tmp_path / "src", {"k.cu": "cudaStream_t s;\ncudaFooBar(x);\n"})


def _fifo_reader(path: Path) -> int:
    os.mkfifo(path)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a reader, so a writer never waits
    fcntl.fcntl(fd, F_SETPIPE_SZ, 1 << 20)
    return fd


def _drain(fd: int) -> bytes:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks)


@pytest.mark.parametrize("flag", sorted(REPORTS))
def test_a_report_to_a_fifo_goes_through_it(tmp_path, src, flag):
    fifo = tmp_path / "fifo"
    fd = _fifo_reader(fifo)
    run = run_main([src, "-q", *_args(flag, fifo)])
    got = _drain(fd)
    assert run.code == 0, run.err
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still the FIFO
    REPORTS[flag](got.decode())  # the whole report reached its reader
    assert temps(tmp_path) == []


def test_one_file_to_a_fifo_and_through_a_link_to_one(tmp_path, src):
    fifo = tmp_path / "fifo"
    fd = _fifo_reader(fifo)
    os.symlink(fifo, tmp_path / "link")
    for target in (fifo, tmp_path / "link"):
        run = run_main([src / "k.cu", "-o", target])
        assert run.code == 0, run.err
        assert _drain(os.dup(fd)) == b"musaStream_t s;\ncudaFooBar(x);\n"
    os.close(fd)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.readlink(tmp_path / "link") == str(fifo)


def test_a_device_node_is_written_through_and_stays_a_device(tmp_path, src):
    if os.geteuid() != 0:
        pytest.skip("making a device node takes root")
    node = tmp_path / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a null device, here
    except PermissionError:
        pytest.skip("mknod is not allowed here")
    os.symlink(node, tmp_path / "to-null")
    for args in ([src / "k.cu", "-o", node], [src, "-q", "--report-json", node],
                 [src, "-q", "--sarif", tmp_path / "to-null"], [src, "-q", f"--diff={node}"]):
        run = run_main(args)
        assert run.code == 0, run.err
        st = os.lstat(node)
        assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3), args
    assert os.path.islink(tmp_path / "to-null") and temps(tmp_path) == []


def test_a_link_to_this_process_stdout_is_its_stdout(tmp_path, src):
    """/dev/stdout is a link to /proc/self/fd/1: made here as a link of our own."""
    alias = tmp_path / "stdout"
    os.symlink("/proc/self/fd/1", alias)
    proc = subprocess.run([sys.executable, "-m", "musa_porting", str(src), "--report-json",
                           str(alias)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["totals"]  # the report alone on stdout, the summary on stderr
    assert "Ported" in proc.stderr
    assert os.readlink(alias) == "/proc/self/fd/1"
    with open(tmp_path / "out.txt", "wb") as fh:  # stdout a file: it holds the report
        proc = subprocess.run([sys.executable, "-m", "musa_porting", str(src / "k.cu"), "-o",
                               str(alias)], stdout=fh, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out.txt").read_text() == "musaStream_t s;\ncudaFooBar(x);\n"
    assert os.readlink(alias) == "/proc/self/fd/1"


def test_a_socket_is_refused_before_the_port(tmp_path, src):
    sock = socket.socket(socket.AF_UNIX)
    path = tmp_path / "sock"
    sock.bind(str(path))
    try:
        line = run_main([src, "--report-json", path]).one_error()
        assert str(path) in line and "socket" in line, line
        assert stat.S_ISSOCK(os.lstat(path).st_mode)
        assert not (tmp_path / "src_musa").exists()
        line = run_main([src / "k.cu", "-o", path]).one_error()  # one file's -o too
        assert str(path) in line and "-o: is a socket" in line, line
        assert stat.S_ISSOCK(os.lstat(path).st_mode)
    finally:
        sock.close()


def test_regular_files_and_links_to_them_are_replaced_atomically(tmp_path, src):
    """The near miss: a regular file is replaced by a rename (a reader never sees half
    of it), and a link to one is replaced too, its target left alone."""
    report, target = tmp_path / "r.json", tmp_path / "target.json"
    report.write_text("old\n")
    target.write_text("kept\n")
    os.symlink(target, tmp_path / "link.json")
    inode = os.stat(report).st_ino
    assert run_main([src, "-q", "--report-json", report]).code == 0
    assert os.stat(report).st_ino != inode and json.loads(report.read_text())
    assert run_main([src, "-q", "--report-json", tmp_path / "link.json"]).code == 0
    assert not os.path.islink(tmp_path / "link.json") and target.read_text() == "kept\n"


# -- item 2: temp names ---------------------------------------------------------------------

def _old_temp(key: str) -> str:
    """The temp name a run used for output ``key`` before (a hash of the key alone)."""
    return "." + hashlib.sha256(key.encode()).hexdigest()[:16] + ".musa-port-tmp"


@pytest.fixture
def named_like_temps(tmp_path) -> Path:
    """Sources named as the temp files of other outputs, of the manifest and journal."""
    return make_tree(tmp_path / "src", {
        "a.cu": "cudaStream_t s;\n", "sub/b.cu": "cudaEvent_t e;\n",
        _old_temp("a.mu"): "not a.mu\n", f"sub/{_old_temp('sub/b.mu')}": "not b.mu\n",
        _old_temp(".musa-port-manifest.json"): "not the manifest\n",
        _old_temp(".musa-port-journal"): "not the journal\n",
    })


def test_a_source_named_like_a_temp_file_never_takes_an_outputs_place(tmp_path, named_like_temps):
    src = named_like_temps
    out = tmp_path / "src_musa"
    for _ in range(2):
        run = run_main([src, "-q"])
        assert run.code == 0, run.err
        assert (out / "a.mu").read_text() == "musaStream_t s;\n"
        assert (out / "sub/b.mu").read_text() == "musaEvent_t e;\n"
        for rel in [r for r in os.listdir(src) if r.endswith("tmp")] + \
                [f"sub/{_old_temp('sub/b.mu')}"]:
            assert (out / rel).read_bytes() == (src / rel).read_bytes(), rel
        assert json.loads((out / ".musa-port-manifest.json").read_text())["files"]


def test_recovery_after_a_kill_keeps_outputs_named_like_temps(tmp_path, named_like_temps):
    src = named_like_temps
    assert run_main([src, "-q"]).code == 0
    (src / "a.cu").write_text("cudaEvent_t e2;\n")
    (src / "sub/b.cu").write_text("cudaStream_t s2;\n")
    start(src, "-q", env={"MUSA_PORT_FAULTS": "commit:1=kill"}).wait(timeout=120)
    assert run_main([src, "-q"]).code == 0
    assert run_main([src, "-q", "-o", tmp_path / "ref"]).code == 0  # a clean port
    same_port(state(tmp_path / "src_musa"), state(tmp_path / "ref"))


def test_files_beside_a_single_output_or_a_converted_script_are_never_removed(tmp_path):
    """A file of the user's named as the temp file a write would use beside its target
    (it used to be removed as a leftover of a killed run)."""
    make_tree(tmp_path, {"k.cu": "cudaStream_t s;\n", "o/keep": "x\n", "p/train.py":
                         "import torch\nx = torch.cuda.is_available()\n"})
    target = tmp_path / "o" / "k.mu"
    planted = target.parent / _old_temp(str(target))
    planted.write_text("mine\n")
    assert run_main([tmp_path / "k.cu", "-o", target]).code == 0
    assert planted.read_text() == "mine\n" and target.read_text() == "musaStream_t s;\n"
    mine = tmp_path / "p" / ".train.py.musa-port-tmp"
    mine.write_text("mine\n")
    run = run_main(["-r", tmp_path / "p" / "train.py", "--force", "--no-backup"], converter=True)
    assert run.code == 0, run.err
    assert mine.read_text() == "mine\n" and "torch.musa" in (tmp_path / "p/train.py").read_text()
