"""The README is a front page and docs/ a site: the README stays short and its links
lead somewhere, every page is in the site's navigation, and the usage page documents
every option the commands have, generated from them (mkdocs-click), so that ``--help``
and the docs cannot disagree. ``.ci/run`` builds the site with ``mkdocs build --strict``
and runs this file again with the docs extra installed."""

from __future__ import annotations

import html
import importlib.util
import re

import click
import pytest
from conftest import ROOT, run_cli

from musa_porting.cli.port_cmd import port_cmd

README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
MKDOCS = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def test_the_readme_is_a_front_page():
    assert len(README.encode()) <= 12 * 1024
    headings = re.findall(r"^## (.+)$", README, re.M)
    assert headings == ["Install", "Quick start", "Three ways to use it", "What gets ported",
                        "What it reports", "Documentation"]


def test_the_readme_links_lead_to_files_of_the_repository():
    links = [t for t in re.findall(r"\]\(([^)\s]+)\)", README) if "://" not in t]
    assert len(links) >= 20
    for target in links:
        path = target.split("#", 1)[0]
        assert (ROOT / path).exists(), f"README links to {target}, which does not exist"


def test_the_readme_documentation_list_names_every_page_of_the_site():
    """Issue 49.6: the list left out the fork-update page, the tables and coverage. Every
    page of the site's navigation but the findings' own (the findings index leads there)
    and the home page (the README is it)."""
    listed = README.split("## Documentation", 1)[1]
    wanted = {p for p in _nav_pages() if not p.startswith("findings/") or p == "findings/index.md"}
    missing = sorted(p for p in wanted - {"index.md"} if f"](docs/{p})" not in listed)
    assert missing == []


def test_the_readme_quotes_no_speed_figures():
    """Figures go stale: the README links to the benchmark page instead."""
    assert "](docs/speed.md)" in README
    assert not re.search(r"\d\s*(MB/s|files/s)|\d+(\.\d+)?x (hipify|faster)", README)


def _nav_pages() -> set[str]:
    nav = MKDOCS[MKDOCS.index("\nnav:"):]
    return set(re.findall(r"^\s+-\s+(?:[^:\n]+:\s+)?(\S+\.md)$", nav, re.M))


def test_every_page_is_in_the_nav_and_every_nav_entry_is_a_page():
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert _nav_pages() == pages


def test_ruff_targets_the_lowest_python_the_package_allows():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    lowest = re.search(r'^requires-python = ">=3\.(\d+)"', pyproject, re.M).group(1)
    assert re.search(rf'^target-version = "py3{lowest}"', pyproject, re.M)


def _help_options(*args: str) -> set[str]:
    """The options a command's help describes (not the findings it lists)."""
    text = run_cli(*args).stdout.split("\nFindings (")[0]
    options = set()
    for line in text.splitlines():
        if re.match(r"^\s+-", line):
            term = re.split(r"\s{2,}", line.strip())[0]
            options.update(re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*", term))
    return options


def _rendered_usage_page() -> str:
    """docs/usage.md as the site shows it: mkdocs-click's blocks and the hook's --help
    expanded, as text."""
    markdown = pytest.importorskip("markdown")
    pytest.importorskip("mkdocs_click")
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    source = hooks.on_page_markdown((DOCS / "usage.md").read_text(encoding="utf-8"))
    rendered = markdown.markdown(source, extensions=["attr_list", "fenced_code", "mkdocs-click"])
    return html.unescape(re.sub(r"<[^>]+>", "", rendered))


def test_the_usage_page_has_every_option_of_every_command():
    page = _rendered_usage_page()
    commands = {("--help-all",): "port", ("check", "--help"): "check", ("build", "--help"): "build",
                ("verify", "--help"): "verify", ("rules", "--help"): "rules",
                ("explain", "--help"): "explain"}
    for args, name in commands.items():
        options = _help_options(*args)
        assert len(options) > (40 if name == "port" else 2), name
        missing = sorted(o for o in options if not re.search(rf"(?<![\w-]){o}(?![\w-])", page))
        assert not missing, f"musa-port {name}: not on the usage page: {missing}"
    for option in ("--root_path", "--launch_path", "--excluded_path", "--no-backup"):  # musa-converter
        assert option in page
    for option in ("--cuda-dir-path", "--ignore-dir-paths", "--mapping-rule",
                   "--drop-default-mapping", "--mapping-dir-path"):  # python -m ...simple_porting
        assert option in page


def test_the_synopsis_names_every_port_option():
    """The synopsis is written by hand: an option added to the port must be added there."""
    usage = (DOCS / "usage.md").read_text(encoding="utf-8")
    synopsis = usage.split("## Synopsis", 1)[1].split("```")[1]
    options = [p for p in port_cmd.params if isinstance(p, click.Option) and p.name != "help"]
    assert len(options) > 40
    missing = [p.opts[-1] for p in options
               if not any(re.search(rf"(?<![\w-]){o}(?![\w-])", synopsis)
                          for o in [*p.opts, *p.secondary_opts])]
    assert not missing, f"not in the usage page's synopsis: {missing}"


def test_the_usage_page_generates_its_option_lists():
    """The option lists are the commands' own (mkdocs-click directives), not copies."""
    usage = (DOCS / "usage.md").read_text(encoding="utf-8")
    for module, command in (("musa_porting.cli.app", "cli"),
                            ("musa_porting.musa_converter", "converter_cmd")):
        assert re.search(rf"::: mkdocs-click\n    :module: {module}\n    :command: {command}\n", usage)
    assert "<!-- help: musa_porting.simple_porting -->" in usage
    assert "- mkdocs-click" in MKDOCS and "- docs/hooks.py" in MKDOCS


def test_no_text_a_user_reads_cites_a_document_users_do_not_have():
    """Messages, docs and table sources cite public sources (the vendor's tables and
    repositories, torch_musa's code) or musa-port's own table, never an internal brief."""
    cited = []
    for top in ("musa_porting", "mapping", "docs", "README.md"):
        paths = [ROOT / top] if (ROOT / top).is_file() else sorted((ROOT / top).rglob("*"))
        for path in paths:
            if path.suffix not in (".py", ".json", ".md", ".txt", ".yaml") or not path.is_file():
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if re.search(r"brief(?!-diag|ly)", line, re.I):
                    cited.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:80]}")
    assert not cited, "\n".join(cited)


def test_the_table_counts_the_docs_give_are_the_tables_by_status():
    """Where a count of the tables is given, it is given by status, and it is the one
    coverage.md (generated with the tables) totals."""
    total = re.search(r"^\| \*\*total\*\* \| \| \*\*(\d+)\*\* \| (\d+) \| (\d+) \| (\d+) \|",
                      (DOCS / "coverage.md").read_text(encoding="utf-8"), re.M)
    entries, supported, unknown, unsupported = (f"{int(n):,}" for n in total.groups())
    flat = " ".join((DOCS / "rules.md").read_text(encoding="utf-8").split())
    assert re.search(rf"{entries} entries \({supported} supported, {unknown} unknown, "
                     rf"{unsupported} unsupported[;)]", flat)


def test_the_readme_counts_the_rules_a_port_prints():
    """Issue 49.6: the README gave the tables' entries (33,124; 10,288 supported) where a
    run prints the rules in force (32,991; 10,303): a key two tables share counts once, a
    name with no MUSA equivalent is no rule. The README gives what a port of a tree with
    no rules of its own prints, and where the other figures come from."""
    from musa_porting.rules import build_ruleset
    from musa_porting.rules.project import status_counts

    rs = build_ruleset()
    rules = rs.rewriting()
    counts = status_counts(rules)
    unsupported = sum(1 for r in rs.rules.values() if r.value is None)
    flat = " ".join(README.split())
    assert re.search(rf"{len(rules):,} rules by default \(what a port prints: "
                     rf".*{counts['supported']:,} \*supported\*.*{counts['unknown']:,} \*unknown\*"
                     rf".*{unsupported:,} CUDA names with no MUSA equivalent", flat), \
        (len(rules), counts, unsupported)
    shown = "with {:,} rules ({:,} supported, {:,} unknown)".format(
        len(rules), counts["supported"], counts["unknown"])
    assert shown in (DOCS / "reports-and-ci.md").read_text(encoding="utf-8")


def test_the_install_and_ci_lines_can_be_followed_today():
    """musa-port is not on PyPI yet: the README, the getting-started page and the CI job
    install from a clone or from the git URL pinned to a commit, and pre-commit pins a
    commit, not a tag that does not exist."""
    reports = (DOCS / "reports-and-ci.md").read_text(encoding="utf-8")
    started = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    hooks = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    # Issue 49.1: the site's home page said `pip install musa-port`. Every page, every form
    # (an extra, quotes, a backtick after it), but a name with "@ git+..." after it.
    pages = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
             for p in sorted(DOCS.rglob("*.md"))}
    for name, text in {"README.md": README, **pages}.items():
        bare = re.search(r"""pip install ['"]?musa-port(\[[\w,]+\])?['"]?(?![\w.[-]|\s*@)""", text)
        assert bare is None, f"{name}: {bare.group(0)} cannot work: musa-port is not on PyPI"
    install = README.split("## Install", 1)[1].split("\n## ", 1)[0]
    assert "pip install ./musa-port" in install and "uv tool install" in install
    urls = re.findall(r"git\+([^\s\"'`]+)", install + reports + started)
    assert len(urls) >= 5 and all(re.search(r"@(COMMIT|[0-9a-f]{40})$", u) for u in urls), urls
    for text in (reports, hooks):
        assert re.search(r"rev: [0-9a-f]{40}", text) and "rev: v0" not in text
