"""The rules of a run, compiled: the matcher and what the scanners need to know.

Loaded only when some file must be ported: a re-run where every input, rule file and
output is as the manifest recorded never needs them, and they are most of a
no-change run's time.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..rules.keep import KeepSet
from .options import PortOptions

if TYPE_CHECKING:  # imported where the rules are compiled (a no-change run never does)
    from ..analyze.residuals import Knowledge
    from ..port.cuda_strings import CudaStrings
    from ..port.cxx.messages import MessageWords
    from ..port.engine import Matcher
    from ..port.text_rules import TextRule
    from ..rules import RuleSet
    from ..rules.project import ProjectPlan
    from ..rules.vocabulary import Vocabulary


@dataclass
class ActiveRules:
    ruleset: RuleSet
    matcher: Matcher
    # Header names the default tables produce (user rules that produce another header
    # for an out-of-tree include get a warning).
    known_headers: frozenset[str]
    knowledge: Knowledge  # for the residual scan
    project: ProjectPlan | None = None  # the tree's own names renamed this run
    messages: MessageWords | None = None  # vocabulary words alone in comments and strings
    strings: CudaStrings | None = None  # string literals naming CUDA libraries and variables
    # The user's rules as torch_musa applies them (text replacement; port/text_rules.py),
    # in C/C++/CUDA files (``matcher`` has them too: the project's plan and the build
    # files' macro names read them there).
    text_rules: tuple[TextRule, ...] = ()


def load_ruleset(opts: PortOptions, tables: bool = True) -> RuleSet:
    """The tables and user rules of ``opts``, merged; with ``tables=False`` the user
    rules only (the files to port need nothing else)."""
    from ..rules import build_ruleset

    ruleset = build_ruleset(
        rule_files=opts.rule_files,
        inline_rules=opts.inline_rules,
        default_rules=opts.default_rules and tables,
        mapping_dir=opts.mapping_dir if tables else None,
        disable_families=opts.disable_families if tables else (),
        enable_families=opts.enable_families if tables else (),
    )
    if opts.torch_musa_tables and tables:
        from ..rules.torch_musa import torch_musa_only

        ruleset = torch_musa_only(ruleset, opts.enable_families)
    return ruleset


def compile_rules(opts: PortOptions, ruleset: RuleSet | None = None,
                  vocabulary: Vocabulary | None = None, tables: bool = True) -> ActiveRules:
    """Compile the matcher of the rules of ``opts`` (loading them unless given), before
    the project's renames are known: a run does this while its workers index."""
    from ..port.cuda_strings import CudaStrings
    from ..port.cxx.messages import MessageWords
    from ..port.engine import Matcher

    if ruleset is None:
        ruleset = load_ruleset(opts, tables)
    rules = ruleset.reversed() if opts.reverse else ruleset.rewriting()
    text_rules = ()
    if opts.text_rules and not opts.reverse:
        from ..port.text_rules import text_rules_of

        text_rules = text_rules_of(r for r in rules.values() if r.is_user)  # type: ignore[union-attr]
    matcher = Matcher(rules)
    known_headers = frozenset(
        value.decode("utf-8", "surrogateescape").strip('<>"')
        for _, value, rule in matcher.headers.values()
        if not getattr(rule, "is_user", False)
    ) | ruleset.other_headers
    words = vocabulary if opts.messages else None
    messages = MessageWords(words) if words else None
    strings = CudaStrings(words) if words is not None and not opts.reverse else None
    return ActiveRules(ruleset, matcher, known_headers, _knowledge(ruleset, opts.keep), None,
                       messages or None, strings, text_rules)


def with_project(active: ActiveRules, project: ProjectPlan | None) -> ActiveRules:
    """The rules with the project's renames, which never replace a rule."""
    if project is None:
        return active
    return replace(active, matcher=active.matcher.extended(project.rules()), project=project)


def keeping(active: ActiveRules, names: frozenset[str]) -> ActiveRules:
    """The rules with ``names`` kept as --keep keeps them (no residual findings): the
    names a vendored Thrust/CUB/libcu++ defines, which MUSA keeps."""
    if not names:
        return active
    k = active.knowledge
    return replace(active, knowledge=replace(k, keep=KeepSet(k.keep) | names))


def load_active_rules(opts: PortOptions, ruleset: RuleSet | None = None,
                      project: ProjectPlan | None = None,
                      vocabulary: Vocabulary | None = None, tables: bool = True) -> ActiveRules:
    """Compile the matcher for ``opts`` (loading the rules unless given): the rules,
    then the project's renames."""
    return with_project(compile_rules(opts, ruleset, vocabulary, tables), project)


def _knowledge(ruleset: RuleSet, keep_names) -> Knowledge:
    from ..analyze.residuals import Knowledge

    rules = ruleset.rules
    keep = set(keep_names) | {k for k, r in rules.items() if r.value == k}
    off = ruleset.disabled
    known = {k: r.note for k, r in rules.items()
             if r.value is None or (r.family in off and not r.is_user)}
    headers = {k.strip('<>"') for k in rules if k[:1] in '<"' and k[-1:] in '>"'}
    return Knowledge(known, KeepSet(keep), frozenset(headers))
