"""What a port musa-port did not make chose (torch_musa's SimplePorting, a hand port),
learned from the upstream it was made from (OLD_SRC) and the port itself (OUT), so
that musa-port's base and its port of the new upstream keep the fork's conventions,
and a difference of naming is not taken for the user's edit.

- Paths: which of musa-port's naming schemes puts the most of OLD_SRC's files where
  OUT has them (vocabulary words in paths, or --keep-paths, or the names kept as they
  are, .cu and all, as torch_musa's SimplePorting does).
- Names: OLD_SRC, musa-port's port of it and OUT, compared line by line (lines that
  differ only by names are paired, their names paired by position; ``align`` pairs
  the lines in near-linear time). A name the fork
  keeps where musa-port renames it becomes a rule to itself (and --keep); a name the
  fork renames otherwise (or that musa-port leaves) becomes a rule to the fork's name,
  when the name has a CUDA word in it or musa-port renames it (not every edit of the
  porter is a convention). A name counts when most of its places agree.
- The vendor word: when the fork's renames put one word for CUDA inside names
  (``launchCudaKernel`` -> ``launchMtKernel``), it becomes a vocabulary word, so the
  new upstream's names get it too.
- Files: OLD_SRC's files OUT does not have were left out by the fork: they are
  ignored in the new upstream too.

What is learned goes into the run as ordinary options (``Conventions.apply``: inline
rules, --keep, --keep-paths, extension renames, --vocab, --ignore) and is saved in
OUT/.musa-port/conventions.json, which every later run into OUT applies.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import asdict, dataclass, field, replace

from ..tree.options import PortOptions
from .align import matched_lines

NAME = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
# A name with a CUDA word or prefix: cudaMalloc, CUDA_CHECK, launchCudaKernel, cublasX,
# CUBLAS_OP_N, ncclComm_t, nvtxRangePush.
CUDA_ISH = re.compile(r"cuda|CUDA|Cuda|^cu[a-z]+[A-Z0-9_]|^CU[A-Z]*_|^nccl|^NCCL|^nv[a-zA-Z]|^NV")
VENDOR = re.compile(r"cuda|CUDA|Cuda")
AGREE = 0.6  # share of a name's places that must agree


@dataclass
class Conventions:
    rename_paths: bool | None = None  # None: as the user asked
    renames: dict[str, str] | None = None  # extension renames (None: .cu -> .mu)
    rules: dict[str, str] = field(default_factory=dict)  # name -> the fork's name
    ignore: list[str] = field(default_factory=list)  # OLD_SRC files the fork left out
    vocabulary: dict[str, str] = field(default_factory=dict)  # CUDA word -> the fork's
    project_symbols: bool | None = None  # False: the fork renames none of the tree's names
    disable_families: list[str] = field(default_factory=list)  # table families it left alone

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: bytes | str) -> Conventions | None:
        try:
            data = json.loads(text)
            conv = cls(**data)
        except (ValueError, TypeError):
            return None
        ok = (conv.rename_paths in (None, True, False)
              and (conv.renames is None or _str_map(conv.renames)) and _str_map(conv.rules)
              and _str_map(conv.vocabulary) and conv.project_symbols in (None, True, False)
              and all(isinstance(x, str) for x in [*conv.ignore, *conv.disable_families]))
        return conv if ok else None

    def apply(self, opts: PortOptions, src: str, vocab_file: str | None) -> PortOptions:
        """``opts`` with the fork's conventions under the user's own choices (the
        user's inline rules and --keep win)."""
        from ..tree.ignores import ignore_patterns

        kept = [k for k, v in self.rules.items() if k == v]
        return replace(
            opts,
            rename_paths=opts.rename_paths if self.rename_paths is None else self.rename_paths,
            renames=opts.renames if self.renames is None or opts.renames is not None else self.renames,
            inline_rules={**self.rules, **(opts.inline_rules or {})},
            keep=[*opts.keep, *kept],
            ignore=[*opts.ignore, *ignore_patterns([f"/{p}" for p in self.ignore
                                                    if os.path.lexists(os.path.join(src, p))], src)],
            vocab_files=[*opts.vocab_files, *([vocab_file] if vocab_file and self.vocabulary else [])],
            project_symbols=opts.project_symbols if self.project_symbols is None else (
                opts.project_symbols and self.project_symbols),
            disable_families=[*opts.disable_families,
                              *(f for f in self.disable_families if f not in opts.enable_families)],
        )

    def describe(self) -> str:
        parts = []
        if self.renames == {}:
            parts.append("paths and .cu names kept")
        elif self.rename_paths is False:
            parts.append("paths kept (.cu -> .mu)")
        kept = sorted(k for k, v in self.rules.items() if k == v)
        other = sorted(f"{k} -> {v}" for k, v in self.rules.items() if k != v)
        if kept:
            parts.append(f"{len(kept)} names kept ({', '.join(kept[:4])}{', ...' * (len(kept) > 4)})")
        if other:
            parts.append(f"{len(other)} names renamed as the fork does ({', '.join(other[:3])}"
                         f"{', ...' * (len(other) > 3)})")
        if self.project_symbols is False:
            parts.append("the tree's own names kept (--no-project-symbols)")
        if self.disable_families:
            parts.append("families left alone: " + ", ".join(self.disable_families))
        if self.vocabulary:
            parts.append("vendor word " + ", ".join(f"{k} -> {v}" for k, v in self.vocabulary.items()))
        if self.ignore:
            parts.append(f"{len(self.ignore)} files the fork left out")
        return "; ".join(parts) or "the fork's conventions are musa-port's"


def _str_map(m: object) -> bool:
    return isinstance(m, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in m.items())


# -- names --------------------------------------------------------------------------------

def pairs(a: bytes, b: bytes) -> list[tuple[str, str]]:
    """Names of ``a`` and what stands in their place in ``b``: lines that match but for
    their names (the same shape) give their names by position; the rest (hand edits)
    give nothing."""
    la, lb = a.splitlines(), b.splitlines()
    out: list[tuple[str, str]] = []
    both = set(NAME.findall(a)) & set(NAME.findall(b))
    for i, j in matched_lines([_shape(x) for x in la], [_shape(y) for y in lb],
                              [_hint(x, both) for x in la], [_hint(y, both) for y in lb]):
        nx, ny = NAME.findall(la[i]), NAME.findall(lb[j])
        if len(nx) == len(ny):
            out += [(p.decode("latin-1"), q.decode("latin-1")) for p, q in zip(nx, ny)]
    return out


def _shape(line: bytes) -> bytes:
    """A line with its names blanked: lines that differ only by names match."""
    return NAME.sub(b"N", line.strip())


def _hint(line: bytes, both: set[bytes]) -> bytes:
    """A line with the names blanked that only one of the two files has (those the
    port renamed): of same-shaped lines, those whose other names agree are each
    other's counterparts."""
    return NAME.sub(lambda m: m.group() if m.group() in both else b"N", line.strip())


def learn_names(triples) -> tuple[dict[str, str], dict[str, str]]:
    """``triples``: (OLD_SRC bytes, musa-port's port, the fork's) per file. Returns the
    rules (name -> the fork's name) and the vendor word (CUDA word -> the fork's)."""
    ours: dict[str, Counter] = {}
    fork: dict[str, Counter] = {}
    for old, port, theirs in triples:
        for s, p in pairs(old, port):
            ours.setdefault(s, Counter())[p] += 1
        for s, f in pairs(old, theirs):
            fork.setdefault(s, Counter())[f] += 1
    rules: dict[str, str] = {}
    for s, seen in fork.items():
        f, n = seen.most_common(1)[0]
        if n < AGREE * sum(seen.values()):
            continue
        mine = ours.get(s, Counter({s: 1})).most_common(1)[0][0]
        if f == mine or (mine == s and not CUDA_ISH.search(s)):
            continue  # agreed, or the porter's own edit of a name musa-port leaves
        rules[s] = f
    return rules, _vendor_word(rules)


def _vendor_word(rules: dict[str, str]) -> dict[str, str]:
    """The word the fork puts for CUDA inside names, when its renames agree on one
    (other than MUSA's): {"CUDA": word}."""
    words: Counter = Counter()
    for s, f in rules.items():
        m = VENDOR.search(s)
        if m is None or f == s:
            continue
        head, tail = s[:m.start()], s[m.end():]
        if f.startswith(head) and f.endswith(tail) and len(f) > len(head) + len(tail):
            words[f[len(head):len(f) - len(tail)].upper()] += 1
    if not words:
        return {}
    word, n = words.most_common(1)[0]
    if n < 2 or n < AGREE * sum(words.values()) or word == "MUSA" or not word.isalnum():
        return {}
    return {"CUDA": word}


def learn_families(rules: dict[str, str], used: dict[str, int], family_of) -> list[str]:
    """Table families the fork left alone: every name of the family that musa-port
    renamed in OLD_SRC (``used``: rule key -> places) is one the fork kept, two at least."""
    kept: dict[str, int] = {}
    ported: set[str] = set()
    for name in used:
        fam = family_of(name)
        if fam is None:
            continue
        if rules.get(name) == name:
            kept[fam] = kept.get(fam, 0) + 1
        elif name not in rules:
            ported.add(fam)
    return sorted(f for f, n in kept.items() if n >= 2 and f not in ported)
