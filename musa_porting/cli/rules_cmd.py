"""``musa-port rules``: look up what a name maps to, list rules and families."""

from __future__ import annotations

import sys

import click

from .common import CONTEXT, EXIT_CHECK, fail, split_csv


@click.command("rules", context_settings=CONTEXT, short_help="What a CUDA name maps to, and why.")
@click.argument("names", nargs=-1)
@click.option("--list", "list_", is_flag=True, help="List rules (all, or of --family).")
@click.option("--family", "families", multiple=True, metavar="NAMES",
              help="Only these families (comma-separated, repeatable).")
@click.option("--families", "show_families", is_flag=True,
              help="List the families with their entry counts and whether they are on.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
@click.option("-r", "--rule", "rule_files", multiple=True, metavar="FILE",
              help="Include user rules, as in a port.")
@click.option("--no-default-rules", is_flag=True, help="Without the default tables.")
@click.option("--mapping-dir", metavar="DIR", help="Tables from DIR instead of the defaults.")
@click.option("--disable-family", "disable_families", multiple=True, metavar="NAMES")
@click.option("--enable-family", "enable_families", multiple=True, metavar="NAMES")
def rules_cmd(names, list_, families, show_families, fmt, rule_files, no_default_rules,
              mapping_dir, disable_families, enable_families):
    """Look up rules: what NAME maps to, its family, status, source, version and file.

    The source says where a default table's mapping comes from (vendor: Moore Threads'
    tables; cuda-13.5 header X; torch header X; curated: ...), the version the newest
    release whose headers declare the CUDA name (CUDA 11.8 for a name CUDA 12 dropped).

    \b
    Examples:
      musa-port rules cudaMalloc
      musa-port rules --list --family cublas
      musa-port rules --families --format json
    Exits 1 when a NAME has no rule.
    """
    import json

    from ..rules import build_ruleset

    rs = build_ruleset(rule_files=rule_files, default_rules=not no_default_rules,
                       mapping_dir=mapping_dir, disable_families=split_csv(disable_families),
                       enable_families=split_csv(enable_families))
    wanted = set(split_csv(families))
    unknown = wanted - set(rs.families) - {"user"}
    if unknown:
        import difflib

        name = sorted(unknown)[0]
        near = difflib.get_close_matches(name, [*rs.families, "user"], n=3, cutoff=0.5)
        fail(f"unknown rule family {name!r}"
             + (f" (did you mean {' or '.join(near)}?)" if near else "")
             + "; families: " + ", ".join(sorted(rs.families)))

    def row(r):
        return {"cuda": r.key, "musa": r.value, "family": r.family, "status": r.status,
                "enabled": r.is_user or r.family not in rs.disabled,
                "source": r.origin or r.source, "version": r.version, "file": r.source,
                "note": r.note}

    if show_families:
        counts: dict[str, dict[str, int]] = {}
        for r in rs.rules.values():
            by_status = counts.setdefault(r.family, {})
            by_status[r.status] = by_status.get(r.status, 0) + 1
        data = [{"family": f, "entries": sum(counts.get(f, {}).values()),
                 "status": dict(sorted(counts.get(f, {}).items())), "enabled": f not in rs.disabled}
                for f in sorted(set(rs.families) | set(counts)) if not wanted or f in wanted]
        if fmt == "json":
            click.echo(json.dumps(data, indent=1))
        else:
            for d in data:
                status = ", ".join(f"{n} {s}" for s, n in d["status"].items())
                click.echo(f"{d['family']:<12} {d['entries']:>7}  {'on ' if d['enabled'] else 'off'}"
                           f"  ({status})")
            click.echo("supported: a vendor table or torch_musa's code names the MUSA name; "
                       "unknown: the naming pattern made it, no vendor source shows it (still "
                       "renamed; MP1010 lists them per file); unsupported: no MUSA equivalent",
                       err=True)  # stdout stays one line per family
        return
    related: dict[str, tuple[str | None, list]] = {}  # a name with no rule of its own
    if names:
        from ..rules.lookup import in_context, ported_by

        found = [rs.rules[n] for n in names if n in rs.rules]
        missing = []
        for n in names:
            if n in rs.rules:
                continue
            by = ported_by(n, rs.rewriting())
            if by is not None:
                related[n] = (by[0], by[1])  # ported inside a longer match: found
                continue
            missing.append(n)
            ctx = in_context(n, rs.rules)
            if ctx:
                related[n] = (None, ctx)
    elif list_:
        found = sorted((r for r in rs.rules.values() if not wanted or r.family in wanted),
                       key=lambda r: (r.family, r.key))
        missing = []
    else:
        fail("give NAMES to look up, or --list, or --families")
    if fmt == "json":
        click.echo(json.dumps({"rules": [row(r) for r in found], "missing": missing,
                               "related": {n: {"ported": new, "rules": [row(r) for r in rules]}
                                           for n, (new, rules) in related.items()}}, indent=1))
    else:
        for r in found:
            d = row(r)
            target = d["musa"] if d["musa"] is not None else "(no MUSA equivalent)"
            state = "" if d["enabled"] else ", family off"
            note = f"  # {d['note']}" if d["note"] else ""
            where = f"source: {d['source']}; " if d["source"] != d["file"] else ""
            where += f"version: {d['version']}; " if d["version"] else ""
            click.echo(f"{d['cuda']} -> {target}  [{d['family']}, {d['status']}{state}] "
                       f"{where}{d['file']}{note}")
        for n, (new, rules) in related.items():
            if new is not None:
                keys = ", ".join(dict.fromkeys(r.key for r in rules))
                fams = ", ".join(dict.fromkeys(r.family for r in rules))
                click.echo(f"{n} -> {new}  [{fams}] by the rule{'s' * (len(rules) > 1)} {keys}")
        for n in missing:
            ctx = related.get(n, (None, []))[1]
            shown = "; in context: " + ", ".join(f"{r.key} -> {r.value}" for r in ctx[:8]) \
                if ctx else ""
            if not ctx:
                from ..rules.lookup import near_names

                near = near_names(n, rs.rules)
                shown = f"; did you mean {' or '.join(near)}?" if near else ""
            click.echo(f"{n}: no rule{shown}", err=True)
    if missing:
        sys.exit(EXIT_CHECK)


