"""Every change a run makes in its output folder, proven inside it at the moment it
is made.

The paths come from a manifest and a journal that sit in the output, where anyone
who ships a ``SRC_musa/`` folder can edit them, and the output holds the links the
port copied from the tree. So a path is first checked to be relative and normalised
(no ``..``, no absolute path, no empty part: ``inside_rel``), and then every
operation is made relative to a directory fd of its folder, which was opened one
component at a time from the output's own fd with ``O_NOFOLLOW``: a link anywhere on
the way, or at the last component, is never followed, whatever the path says. The
folder fds are cached (files come folder by folder), a few dozen at most.

An error names the whole path in the output (an ``OSError`` whose filename is
``OUT/rel``), as the callers' messages expect.
"""

from __future__ import annotations

import errno
import os
import posixpath
import stat
import sys

from ..safe_open import NOFOLLOW, read_regular

_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
CACHED = 64  # folder fds kept open


def inside_rel(rel: object) -> bool:
    """A path relative to the output that stays in it, in the form musa-port writes:
    no empty, ``.`` or ``..`` part, not absolute, and nothing of a ``.git`` (a
    repository the user made of the output is theirs; musa-port never writes one, and
    a manifest that names one, from a musa-port that copied a clone's, is not
    followed). (String tests, not a split: a manifest of 100,000 records is checked
    at every run.)"""
    return (isinstance(rel, str) and rel not in ("", ".", "..", ".git") and "\0" not in rel
            and not rel.startswith(("/", "./", "../", ".git/"))
            and not rel.endswith(("/", "/.", "/..", "/.git"))
            and "//" not in rel and "/./" not in rel and "/../" not in rel and "/.git/" not in rel)


class OutDir:
    """The output folder ``out``, and the operations a run makes in it."""

    def __init__(self, out: str):
        self.out = out
        self._root: int | None = None
        self._fds: dict[str, int] = {}  # folder rel -> fd, oldest first
        self._retired: list[int] = []  # evicted while an operation may use them

    def path(self, rel: str) -> str:
        return os.path.join(self.out, rel) if rel else self.out

    def close(self) -> None:
        for fd in [*self._fds.values(), *self._retired, *([self._root] if self._root else [])]:
            os.close(fd)
        self._fds.clear()
        self._retired.clear()
        self._root = None

    def __enter__(self) -> OutDir:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- folders ---------------------------------------------------------------------------

    def folder(self, rel: str) -> int:
        """The fd of output folder ``rel`` ("" is the output), reached without following
        a link; an OSError names the path when a part of it is not a real folder."""
        if self._root is None:
            self._root = os.open(self.out, _DIR)  # the output itself is the user's choice
        if rel == "":
            return self._root
        fd = self._fds.get(rel)
        if fd is not None:
            return fd
        if not inside_rel(rel):
            raise OSError(errno.EINVAL, "not a path inside the output", self.path(rel))
        parts = rel.split("/")
        i = len(parts) - 1
        while i > 0 and "/".join(parts[:i]) not in self._fds:
            i -= 1
        fd = self._fds["/".join(parts[:i])] if i else self._root
        for j in range(i, len(parts)):
            try:
                fd = os.open(parts[j], _DIR | NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                where = self.path("/".join(parts[:j + 1]))
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise OSError(exc.errno, "a link or a file is where a folder must be (not "
                                  "followed)", where) from None
                raise OSError(exc.errno, exc.strerror, where) from None
            self._remember("/".join(parts[:j + 1]), fd)
        return fd

    def _remember(self, rel: str, fd: int) -> None:
        self._fds[rel] = fd
        while len(self._fds) > CACHED:  # files come folder by folder: the oldest goes
            self._retired.append(self._fds.pop(next(iter(self._fds))))

    def _sweep(self) -> None:
        """Close the fds retired since the last operation (none is in use between two)."""
        for fd in self._retired:
            os.close(fd)
        self._retired.clear()

    def forget(self, rel: str) -> None:
        """A folder was removed or moved: its fd, and those below it, go."""
        prefix = rel + "/"
        for key in [k for k in self._fds if k == rel or k.startswith(prefix) or rel == ""]:
            self._retired.append(self._fds.pop(key))

    def is_dir(self, rel: str) -> bool:
        self._sweep()
        try:
            self.folder(rel)
            return True
        except OSError:
            return False

    def at(self, rel: str) -> tuple[int, str]:
        """(the fd of ``rel``'s folder, its last name)."""
        if not inside_rel(rel):
            raise OSError(errno.EINVAL, "not a path inside the output", self.path(rel))
        parent, name = posixpath.split(rel)
        return self.folder(parent), name

    # -- operations ------------------------------------------------------------------------

    def _do(self, rel: str, op, *args, **kw):
        self._sweep()
        fd, name = self.at(rel)
        try:
            return op(name, *args, dir_fd=fd, **kw)
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, self.path(rel)) from None

    def lstat(self, rel: str) -> os.stat_result | None:
        """What is at ``rel`` (None: nothing, or its folder is not reachable)."""
        try:
            return self._do(rel, os.stat, follow_symlinks=False)
        except OSError:
            return None

    def unlink(self, rel: str, missing_ok: bool = False) -> None:
        try:
            self._do(rel, os.unlink)
        except FileNotFoundError:
            if not missing_ok:
                raise

    def rmdir(self, rel: str) -> None:
        self._do(rel, os.rmdir)
        self.forget(rel)

    def mkdir(self, rel: str, mode: int = 0o777) -> None:
        self._do(rel, os.mkdir, mode)

    def symlink(self, target: str, rel: str) -> None:
        self._sweep()
        fd, name = self.at(rel)
        try:
            os.symlink(target, name, dir_fd=fd)
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, self.path(rel)) from None

    def readlink(self, rel: str) -> str:
        return self._do(rel, os.readlink)

    def read(self, rel: str) -> bytes:
        """A regular file's bytes, never through a link, never a FIFO's or a device's."""
        return self._do(rel, read_regular)

    def replace(self, src_rel: str, dst_rel: str, folder: bool = False) -> None:
        """Rename ``src_rel`` over ``dst_rel`` (a link there is replaced, not followed);
        ``folder``: a folder moves, so fds cached under either path go."""
        self._sweep()
        sfd, sname = self.at(src_rel)
        dfd, dname = self.at(dst_rel)
        try:
            os.replace(sname, dname, src_dir_fd=sfd, dst_dir_fd=dfd)
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, self.path(dst_rel)) from None
        if folder:
            self.forget(src_rel)
            self.forget(dst_rel)

    def chmod(self, rel: str, mode: int) -> None:
        """Set a file's or folder's mode; a link is left alone (its mode means nothing)."""
        self._sweep()
        fd, name = self.at(rel)
        try:
            try:
                os.chmod(name, mode, dir_fd=fd, follow_symlinks=False)
            except (NotImplementedError, ValueError, OSError) as exc:
                if isinstance(exc, OSError) and exc.errno not in (errno.ENOTSUP, errno.EOPNOTSUPP):
                    raise
                if not stat.S_ISLNK(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode):
                    os.chmod(name, mode, dir_fd=fd)
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, self.path(rel)) from None

    def rmtree(self, rel: str) -> None:
        """Remove folder ``rel`` and everything in it, following no link."""
        self._sweep()
        fd, name = self.at(rel)
        self.forget(rel)
        try:
            if sys.version_info >= (3, 11):
                import shutil  # with its compression modules: only to remove a folder

                shutil.rmtree(name, dir_fd=fd)
            else:  # pragma: no cover - Python 3.10
                _rmtree_at(fd, name)
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, self.path(rel)) from None

    def remove(self, rel: str) -> None:
        """Remove what is at ``rel``, a folder with its contents too; nothing there is fine."""
        st = self.lstat(rel)
        if st is None:
            return
        if stat.S_ISDIR(st.st_mode):
            self.rmtree(rel)
        else:
            self.unlink(rel, missing_ok=True)

    def names(self, rel: str) -> list[str]:
        """The names in output folder ``rel``."""
        self._sweep()
        return os.listdir(self.folder(rel))


def _rmtree_at(dir_fd: int, name: str) -> None:  # pragma: no cover - Python 3.10
    fd = os.open(name, _DIR | NOFOLLOW, dir_fd=dir_fd)
    try:
        for entry in os.scandir(fd):
            if entry.is_dir(follow_symlinks=False):
                _rmtree_at(fd, entry.name)
            else:
                os.unlink(entry.name, dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=dir_fd)
