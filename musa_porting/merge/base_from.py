"""``--base-from OLD_SRC``: adopt a port musa-port did not make (torch_musa's
SimplePorting, a hand port) and move it to a new upstream.

OLD_SRC is the upstream the port was made from: a folder, or a git ref of NEW_SRC's
repository (exported with ``git archive``). musa-port ports it into a temp folder,
finds which of OUT's files is the port of each of its files, whatever the fork's
naming (``pairing``), and where the fork keeps them (``schemes``, ``layout``), learns
the fork's conventions from the pairs (``learn``), and ports it again with them: that
port is the base each of OUT's files is merged against, as if musa-port had written
it, at the fork's path. Then NEW_SRC is ported into OUT with the same conventions (its
new files where the fork would keep them) and every file merged three ways (base, the
fork's file, the new port); files are renamed where git says (``renames``). What the
upgrade cannot reach is listed as not upgraded (``behind``). The temp folder goes when
the run ends; the conventions stay in OUT/.musa-port/conventions.json for the runs after.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..errors import PortError
from ..safe_open import read_regular
from ..tree.options import PortOptions
from ..write.manifest import UNTRUSTED, FileRecord, Manifest, load_manifest
from . import schemes
from .bases import STATE_DIR, make_folders
from .behind import behind_after_pairing, sha_of, upstream_changes
from .git import git, in_repository
from .layout import Layout, learn_layout
from .learn import Conventions, learn_names
from .pairing import pair_files

if TYPE_CHECKING:  # tarfile: only where --base-from names a git ref
    import tarfile

CONVENTIONS = STATE_DIR + "/conventions.json"
VOCABULARY = STATE_DIR + "/vocabulary.json"


@dataclass
class Adoption:
    old_src: str  # OLD_SRC's files (a temp export of a git ref)
    commit: str  # the git ref's commit ("" for a folder)
    base_out: str  # musa-port's port of OLD_SRC with the fork's conventions
    manifest: Manifest  # its manifest: the base of each output
    conventions: Conventions
    tmp: str
    # The upstream files that changed, paired with the fork's: each must be merged
    # into its own (``check``), or it is listed as not upgraded.
    changed: dict[str, str] = field(default_factory=dict)

    def extend(self, old: Manifest, out: str) -> None:
        """OUT's manifest (if any) and, for each of OUT's files the base port also has,
        a record owning it, whose base is that port: an untrusted record (planned again;
        its stat never matches), so OUT's bytes are compared with the base."""
        for rel, rec in self.manifest.files.items():
            if rel in old.files or rec.kind == "symlink" or not os.path.isfile(os.path.join(out, rel)):
                continue
            old.files[rel] = FileRecord(rec.src, rec.kind, UNTRUSTED, src_mode=rec.src_mode,
                                        out_size=-1, base=rec.base)
        known = set(old.dirs)
        old.dirs.extend(d for d in self.manifest.dirs
                        if d not in known and os.path.isdir(os.path.join(out, d)))

    def check(self, files, out: str) -> None:
        """After planning (``files``: the outcomes): the port of each upstream file that
        changed went into the fork's file, or that file is listed as not upgraded."""
        at = {f.rel: f.out_rel for f in files}
        for rel, theirs in self.changed.items():
            if at.get(rel) == theirs:
                continue
            why = (f"the new port of {rel} went to {at[rel]}" if rel in at
                   else f"{rel} was not ported")
            sha = sha_of(out, theirs)
            if sha:
                self.conventions.behind[theirs] = [
                    sha, f"the port of {rel}, which changed upstream: not merged ({why})"]

    def close(self) -> None:
        import shutil

        shutil.rmtree(self.tmp, ignore_errors=True)


def prepare(opts: PortOptions, Porter) -> tuple[PortOptions, Adoption]:  # noqa: N803 - the class
    """The options NEW_SRC is ported with, and the adoption (its temp folder removed by
    ``close``); ``Porter``: tree.porter.Porter (given: this module is below it)."""
    import shutil
    import tempfile

    from ..tree.paths import check_paths

    src, out = check_paths(opts.src, opts.output, opts.reverse)
    _check_base_folder(opts.base_from or "", out)
    tmp = tempfile.mkdtemp(prefix="musa-port-base-")
    try:
        old_src, commit = _old_source(opts.base_from or "", src, tmp)
        base_opts = replace(opts, src=old_src, output=os.path.join(tmp, "probe"), dry_run=False,
                            collect_diff=False,
                            progress=None, force=True, base_from=None)
        entries = schemes.old_entries(base_opts, old_src)
        guess = schemes.by_existence(base_opts, old_src, entries, out, Porter)
        conv = _conventions(opts, guess)
        first = Porter(conv.apply(replace(base_opts, output=os.path.join(tmp, "first")), old_src, None)).run()
        files = [f for f in first.files if f.kind != "symlink"]
        pairing = pair_files([f.rel for f in files], fork_files(out),
                             _reader(first.output, {f.rel: f.out_rel for f in files}),
                             _reader(old_src), _reader(out))
        choice, names = schemes.by_pairs(base_opts, old_src, entries, pairing.pairs, Porter)
        layout = learn_layout(pairing.pairs, names, pairing.copies) if pairing.pairs else None
        conv = _conventions(opts, choice, layout)
        if pairing.pairs:
            conv.ignore = sorted([*pairing.left_out, *pairing.unsure])
            conv.unsure = sorted(pairing.unsure)
        # The names are learned from the first port (its #include lines, which name the
        # files where that port put them, are left out: where the fork keeps a file is
        # its layout's).
        at = {f.rel: f for f in first.files}
        triples = []
        for rel, theirs in pairing.pairs.items():
            f = at.get(rel)
            if f is None or f.kind != "ported":
                continue
            try:
                triples.append((read_regular(os.path.join(old_src, rel)),
                                read_regular(os.path.join(first.output, f.out_rel)),
                                read_regular(os.path.join(out, theirs))))
            except OSError:
                continue
        conv.rules, conv.vocabulary = learn_names(triples)
        _learn_kinds(conv, first, base_opts, [t[2] for t in triples])
        changed = upstream_changes(old_src, src, [f.rel for f in files])
        conv.behind = behind_after_pairing(pairing, changed, out, src)
        vocab = _vocab_file(conv, tmp)
        base_out = os.path.join(tmp, "base")
        Porter(conv.apply(replace(base_opts, output=base_out), old_src, vocab)).run()
        adoption = Adoption(old_src, commit, base_out, load_manifest(base_out), conv, tmp,
                            {rel: pairing.pairs[rel] for rel in changed if rel in pairing.pairs})
        return conv.apply(opts, src, vocab), adoption
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _conventions(opts: PortOptions, scheme, layout: Layout | None = None) -> Conventions:
    rename_paths, renames = scheme
    return Conventions(None if rename_paths == opts.rename_paths else rename_paths, renames,
                       layout=layout.to_json() if layout else None)


def _reader(folder: str, where: dict[str, str] | None = None):
    """A file's bytes by its path (``where``: the path each has in ``folder``), or None."""
    def read(rel: str) -> bytes | None:
        if where is not None:
            rel = where.get(rel, "")
            if not rel:
                return None
        try:
            return read_regular(os.path.join(folder, rel))
        except OSError:
            return None

    return read


def fork_files(out: str) -> list[str]:
    """OUT's files, but musa-port's own (its state folder, manifest and lock)."""
    from ..tree.walk import Ignorer, walk
    from ..write.manifest import RESERVED_NAMES, STATE_DIR_NAME

    try:
        entries = walk(out, Ignorer([]), {})
        return [e.rel for e in entries if e.kind == "file" and e.rel not in RESERVED_NAMES
                and not e.rel.startswith(STATE_DIR_NAME + "/")]
    except (OSError, PortError):
        return []


def _learn_kinds(conv: Conventions, first, opts: PortOptions, forks: list[bytes]) -> None:
    """The families of names the fork left alone: the tree's own names (when it keeps
    every one musa-port renames and follows none), and table families."""
    from ..tree.active_rules import load_ruleset
    from .learn import learn_families

    plan = first.project
    if plan is not None and plan.renames:
        kept = [n for n in plan.renames if conv.rules.get(n) == n]
        followed = [r for r in plan.renames.values()
                    if any(r.new.encode() in text for text in forks)]
        if kept and not followed:
            conv.project_symbols = False
    used: dict[str, int] = {}
    for f in first.files:
        for key, n in f.record.by_rule.items():
            used[key] = used.get(key, 0) + n
    if not any(conv.rules.get(k) == k for k in used):
        return
    rules = load_ruleset(opts).rules

    def family_of(name: str) -> str | None:
        rule = rules.get(name)
        return None if rule is None or rule.is_user else rule.family

    conv.disable_families = learn_families(conv.rules, used, family_of)


def _vocab_file(conv: Conventions, tmp: str) -> str | None:
    if not conv.vocabulary:
        return None
    path = os.path.join(tmp, "vocabulary.json")
    with open(path, "w") as fh:
        json.dump(conv.vocabulary, fh)
    return path


def _check_base_folder(base: str, out: str) -> None:
    """OLD_SRC must be neither OUT, nor inside it, nor hold it: OUT's files would be
    their own base (every hand edit taken for musa-port's bytes, and replaced), or
    inputs of the base port."""
    from ..tree.paths import folder_within

    if not os.path.isdir(base):
        return
    if folder_within(base, out):
        where = "is the output folder" if folder_within(out, base) else "is inside the output folder"
    elif folder_within(out, base):
        where = "holds the output folder"
    else:
        return
    raise PortError(f"--base-from {base} {where} {out}: give the upstream the port was made "
                    "from (a folder or a git ref)")


def _old_source(base: str, src: str, tmp: str) -> tuple[str, str]:
    """OLD_SRC's folder, and its commit when it is a git ref of SRC's repository."""
    import io
    import shutil
    import tarfile

    if os.path.isdir(base):
        return os.path.abspath(base), ""
    if shutil.which("git") is None:
        raise PortError("--base-from: not a folder, and git is not installed to read it as a ref",
                        base)

    def run(*args: str, cwd: str = src) -> bytes:
        out = git(cwd, *args) if in_repository(cwd) else None
        if out is None:
            raise PortError(f"--base-from: neither a folder nor a git ref of {src}'s "
                            "repository", base)
        return out

    commit = run("rev-parse", "--verify", "--end-of-options", base + "^{commit}").decode().strip()
    prefix = run("rev-parse", "--show-prefix").decode().strip()
    top = run("rev-parse", "--show-toplevel").decode().strip()
    data = run("archive", "--format=tar", f"{commit}:{prefix}", cwd=top)
    folder = os.path.join(tmp, "old-src")
    os.mkdir(folder)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        if hasattr(tarfile, "data_filter"):
            try:
                tar.extractall(folder, filter=_links_kept)
            except tarfile.FilterError as exc:
                raise PortError(f"--base-from: the tree of {commit[:12]} holds a path that "
                                f"leaves it: {exc}", base) from None
        else:  # pragma: no cover - Python before 3.10.12
            tar.extractall(folder)
    return folder, commit


def _links_kept(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
    """tarfile's ``data`` filter (nothing written outside ``dest``, nor through a link
    extracted before), except that a symbolic link is kept whatever it points at, as
    a port keeps the links of a folder SRC (copied as they are, never followed):
    ``csrc/common.h -> ../include/common.h`` is common, and leaves the exported folder."""
    import tarfile

    if not member.issym():
        return tarfile.data_filter(member, dest)
    checked = tarfile.data_filter(member.replace(linkname=".", deep=False), dest)
    return checked.replace(linkname=member.linkname, deep=False) if checked is not None else None


def saved_conventions(opts: PortOptions) -> tuple[PortOptions, Conventions | None]:
    """``opts`` with the conventions an earlier ``--base-from`` learned for OUT, if any,
    and those conventions."""
    from ..tree.paths import check_paths

    try:
        out = check_paths(opts.src, opts.output, opts.reverse)[1]
    except PortError:
        return opts, None  # the run says what is wrong
    try:
        raw = read_regular(os.path.join(out, CONVENTIONS))
    except OSError:
        return opts, None
    conv = Conventions.from_json(raw)
    if conv is None:
        return opts, None
    vocab = os.path.join(out, VOCABULARY)
    return conv.apply(opts, opts.src, vocab if _regular(vocab) else None), conv


def _regular(path: str) -> bool:
    """A regular file, not a link to one: OUT is the user's, and what is under
    OUT/.musa-port is read as the port reads inputs (the vocabulary file is then read
    as a --vocab file is, which may follow a link)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def save_conventions(outdir, conv: Conventions) -> None:
    """Keep what ``--base-from`` learned in OUT, for the runs after (atomically)."""
    from ..write.files import write_file

    make_folders(outdir, STATE_DIR)
    for rel, text in ((CONVENTIONS, conv.to_json()),
                      (VOCABULARY, json.dumps(conv.vocabulary) if conv.vocabulary else None)):
        if text is None:
            continue
        tmp = rel + ".tmp"
        fd, name = outdir.at(tmp)
        write_file(name, text.encode(), 0o644, dir_fd=fd)
        outdir.replace(tmp, rel)
