"""The ``musa-port`` command line: a thin layer over :mod:`musa_porting.porter`.

``musa-port SRC ...`` ports (the default command); other commands are named
(``musa-port port SRC`` is the explicit form, useful when SRC is called like one).
Exit codes: 0 success, 1 residuals remain under --check, 2 bad input or usage (nothing
written), 3 internal error.
"""

from __future__ import annotations

import os
import sys

import click

from . import __version__
from .errors import PortError

EXIT_OK = 0
EXIT_CHECK = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3


def _split_csv(values) -> list[str]:
    out = []
    for v in values:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


def _fail(message: str, code: int = EXIT_USAGE) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


class _DefaultToPort(click.Group):
    """A group whose first positional argument, when not a command name, is SRC."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = ["port", *args]
        return super().parse_args(ctx, args)

    def format_help(self, ctx, formatter):
        port = self.commands["port"]
        with click.Context(port, info_name=ctx.info_name, **port.context_settings) as pctx:
            port.format_help(pctx, formatter)
        others = [(n, c.get_short_help_str(70)) for n, c in self.commands.items() if n != "port"]
        if others:
            with formatter.section("Other commands"):
                formatter.write_dl(others)


CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(cls=_DefaultToPort, context_settings=CONTEXT, invoke_without_command=True)
@click.version_option(__version__, "--version", prog_name="musa-port")
@click.pass_context
def cli(ctx):
    """musa-port: port CUDA source trees to MUSA."""
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())
        ctx.exit(EXIT_USAGE)


@cli.command("port", context_settings=CONTEXT)
@click.argument("src", type=click.Path(file_okay=True, dir_okay=True, path_type=str))
@click.option("-o", "--output", metavar="DIR",
              help="Output folder. Default: SRC_musa beside SRC (a trailing slash on SRC "
                   "changes nothing).")
@click.option("--ignore", "ignore", multiple=True, metavar="PATTERNS",
              help="Comma-separated gitignore-style patterns, repeatable. A bare name (mlu) "
                   "ignores that folder or file at any depth; common/mlu only the one under "
                   "the root.")
@click.option("-r", "--rule", "rules", multiple=True, metavar="FILE",
              type=click.Path(dir_okay=False, path_type=str),
              help="User rules: a JSON object or YAML mapping of CUDA text to MUSA text. "
                   "Repeatable; user rules win over the default tables, later files over "
                   "earlier ones.")
@click.option("--no-default-rules", is_flag=True,
              help="Use only the --rule files, not the default tables.")
@click.option("--mapping-dir", metavar="DIR",
              help="Use the JSON tables in DIR instead of the default tables (torch_musa's "
                   "flat mapping folders work).")
@click.option("--skip", "skip", multiple=True, metavar="KINDS",
              help="Do not rewrite in these regions: comments, strings (comma-separated). "
                   "#include targets are always rewritten.")
@click.option("-I", "--include-dir", "include_dirs", multiple=True, metavar="DIR",
              help="Extra folder (inside SRC) to resolve #include targets in, so includes of "
                   "renamed headers follow the rename. Repeatable.")
@click.option("--extensions", metavar="EXTS",
              help="Comma-separated source extensions to rewrite (default: .cu,.cuh,.c,.cc,"
                   ".cpp,.cxx,.h,.hh,.hpp,.hxx,.inl,.inc,.ipp,.tpp,.mu,.muh). Other files are copied.")
@click.option("--disable-family", "disable_families", multiple=True, metavar="NAMES",
              help="Switch table families off (comma-separated, repeatable), e.g. nccl,npp: "
                   "their names are reported as unported instead of rewritten. "
                   "'musa-port rules --families' lists them.")
@click.option("--enable-family", "enable_families", multiple=True, metavar="NAMES",
              help="Switch on families that are off by default.")
@click.option("--reverse", is_flag=True,
              help="Port MUSA back to CUDA with the inverted tables (.mu -> .cu); output "
                   "SRC_cuda by default.")
@click.option("--keep", "keep", multiple=True, metavar="NAMES",
              help="CUDA-looking names that are meant to stay (comma-separated, repeatable): "
                   "not reported as residuals. A rule 'X: X' does the same.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, metavar="N",
              help="Port files in N processes (default: the number of CPUs). The output is "
                   "the same for any N.")
@click.option("-n", "--dry-run", is_flag=True, help="Compute everything, write nothing.")
@click.option("--diff", "diff", is_flag=False, flag_value="-", default=None, metavar="[FILE]",
              help="Print a git-apply-able unified diff from each source file to its ported "
                   "path (renames as renames); --diff=FILE writes it to FILE.")
@click.option("--report-json", metavar="FILE", help="Write the JSON report (schema: "
              "musa_porting/schemas/report.schema.json).")
@click.option("--report-csv", metavar="FILE", help="Write one CSV row per finding.")
@click.option("--sarif", metavar="FILE", help="Write findings as SARIF 2.1.0 for code scanning.")
@click.option("--report-files", is_flag=True, help="Show per-file counts in the summary.")
@click.option("--suppress", multiple=True, metavar="IDS",
              help="Diagnostic IDs (or names) to drop from reports and --check, e.g. MP1002.")
@click.option("--check", is_flag=True,
              help="Exit 1 when residual CUDA names or headers remain (after --suppress).")
@click.option("--build", "then_build", is_flag=True,
              help="After porting, build the output with mcc (as `musa-port build OUT`).")
@click.option("--build-args", metavar="ARGS", default="",
              help="Options for that build, e.g. \"--arch mp_21 --shared libops.so\".")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors and the one-line total.")
def port_cmd(src, output, ignore, rules, no_default_rules, mapping_dir, skip, include_dirs,
             extensions, disable_families, enable_families, reverse, keep, jobs, dry_run, diff,
             report_json, report_csv, sarif, report_files, suppress, check, then_build,
             build_args, quiet):
    """Port the CUDA tree SRC into SRC_musa.

    Source files are rewritten with the default tables plus your rules (literal,
    leftmost-longest, identifier-boundary aware); .cu/.cuh become .mu/.muh and
    includes follow; every other file is copied byte for byte. Re-runs rewrite only
    what changed. Protect code with MUSIFY_EXCL_LINE, MUSIFY_EXCL_START/STOP or
    "musa-port: off"/"musa-port: on" comments.

    \b
    Example:
      musa-port ./csrc --ignore mlu,npu --rule extra.json
    """
    from . import report
    from .porter import PortOptions, port_tree
    from .walker import DEFAULT_SOURCE_EXTENSIONS

    suppressed = report.parse_ids(suppress)
    exts = tuple(_split_csv([extensions])) if extensions else DEFAULT_SOURCE_EXTENSIONS
    opts = PortOptions(
        src=src,
        output=output,
        ignore=_split_csv(ignore),
        rule_files=list(rules),
        default_rules=not no_default_rules,
        mapping_dir=mapping_dir,
        skip=_split_csv(skip),
        include_dirs=list(include_dirs),
        extensions=exts,
        keep=_split_csv(keep),
        disable_families=_split_csv(disable_families),
        enable_families=_split_csv(enable_families),
        reverse=reverse,
        jobs=jobs,
        dry_run=dry_run,
        collect_diff=diff is not None,
    )
    # The summary goes to stderr when stdout carries the diff or a report.
    to_stdout = "-" in (diff, report_json, report_csv, sarif)
    console = _console(stderr=to_stdout)
    progress = None if quiet else _progress(console)
    if progress is not None:
        with progress:
            task = progress.add_task("porting", total=None)
            opts.progress = lambda done, total: progress.update(task, completed=done, total=total)
            result = port_tree(opts)
    else:
        result = port_tree(opts)
    for w in result.warnings:
        click.echo(w, err=True)
    if diff is not None:
        from .diff import tree_diff

        data = tree_diff(result.diff_items)
        if diff == "-":
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
        else:
            with open(diff, "wb") as fh:
                fh.write(data)
    if report_json:
        report.write_json(result, report_json, suppressed)
    if report_csv:
        report.write_csv(result, report_csv, suppressed)
    if sarif:
        report.write_sarif(result, sarif, suppressed)
    if quiet:
        click.echo(report.total_line(result, suppressed), err=to_stdout)
    else:
        report.print_summary(result, console, suppressed, report_files)
    if check and report.residual_count(result, suppressed):
        sys.exit(EXIT_CHECK)
    if then_build and not dry_run:
        import shlex

        build_cmd.main([result.output, *shlex.split(build_args), *(["-q"] if quiet else [])],
                       prog_name="musa-port build", standalone_mode=False)


def _build_options(f):
    """The options ``musa-port build`` shares with ``musa-port verify``."""
    opts = [
        click.option("-I", "--include-dir", "include_dirs", multiple=True, metavar="DIR",
                     help="Include folder for every compile (repeatable)."),
        click.option("-D", "--define", "defines", multiple=True, metavar="NAME[=V]",
                     help="Macro definition for every compile (repeatable)."),
        click.option("--std", default="c++17", show_default=True, help="C++ standard."),
        click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, metavar="N",
                     help="Parallel compiles (default: ninja's choice, CPUs + 2)."),
        click.option("--keep-going", is_flag=True,
                     help="Build every other file after a failure and report them all "
                          "(default: stop at the first failure)."),
        click.option("--only", multiple=True, metavar="GLOB",
                     help="Compile only files matching GLOB (path or name; repeatable)."),
        click.option("--exclude", multiple=True, metavar="GLOB",
                     help="Leave out files matching GLOB (repeatable)."),
        click.option("--report-json", metavar="FILE", help="Write the build report as JSON."),
        click.option("--build-dir", metavar="DIR",
                     help=f"Where build.ninja, objects and compile_commands.json go "
                          f"(default: OUT/{'.musa-port-build'})."),
        click.option("-q", "--quiet", is_flag=True, help="Print only the one-line result."),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


@cli.command("build", context_settings=CONTEXT)
@click.argument("out", type=click.Path(path_type=str))
@click.option("--arch", "arch", multiple=True, metavar="ARCHS",
              help="MUSA arches, comma-separated or repeated: mp_21 (MTT S80/S3000), mp_22 "
                   "(S4000), mp_31 (S5000). Several give a fat binary. Default: mp_22.")
@click.option("--mcc", metavar="PATH", help="The mcc to use (default: $MUSA_HOME/bin/mcc, "
              "$MUSA_PATH, the folder above `which mcc`, /usr/local/musa).")
@click.option("-O", "opt", default="2", show_default=True, metavar="LEVEL", help="Optimisation.")
@click.option("--shared", metavar="NAME.so", help="Link the objects into this shared library.")
@click.option("-l", "libs", multiple=True, metavar="LIB",
              help="Extra library to link (-l mublas); -lmusart is always linked.")
@click.option("--launcher", metavar="CMD",
              help="Prefix every compile, e.g. ccache, sccache or distcc.")
@click.option("--cxx", default="c++", show_default=True, metavar="PATH",
              help="Host compiler for C/C++ files.")
@click.option("--mcc-for-cpp", is_flag=True, help="Compile C/C++ files with mcc -x musa.")
@click.option("--compile-commands", is_flag=True,
              help="Also write compile_commands.json at the top of OUT (for clangd).")
@_build_options
def build_cmd(out, arch, mcc, opt, shared, libs, launcher, cxx, mcc_for_cpp, compile_commands,
              include_dirs, defines, std, jobs, keep_going, only, exclude, report_json,
              build_dir, quiet):
    """Compile a ported tree with mcc, on ninja; errors point at the CUDA lines.

    Writes build.ninja and compile_commands.json, runs ninja (a re-build only redoes
    what changed), and reports per file: ok / failed, errors, the first error mapped
    to the CUDA source, and hints (shared memory over the arch's limit, an unported
    cuda* name, fp64, inline PTX). Exit codes: 0 built, 1 a compile or link failed,
    2 bad input (no mcc, no tree).

    \b
    Example:
      musa-port build ./csrc_musa --arch mp_21,mp_22 --shared libops.so -j 8
    """
    from .build import BuildOptions

    bopts = BuildOptions(
        out=out, arch=_split_csv(arch) or ["mp_22"], mcc=mcc, cxx=cxx, mcc_for_cpp=mcc_for_cpp,
        include_dirs=list(include_dirs), defines=list(defines), std=std, opt=opt,
        shared=shared, libs=list(libs), jobs=jobs, launcher=launcher, keep_going=keep_going,
        only=list(only), exclude=list(exclude), compile_commands=compile_commands,
        build_dir=build_dir)
    _run_build(bopts, None, report_json, quiet, "Build")


def _run_build(bopts, profile, report_json, quiet, title, runner=None) -> None:
    from . import report
    from .build import build

    def run():
        return runner(bopts) if runner is not None else build(bopts, profile)

    console = _console(stderr=False)
    progress = None if quiet else _progress(console)
    if progress is not None:
        with progress:
            task = progress.add_task(title.lower(), total=None)
            bopts.progress = lambda done, total: progress.update(task, completed=done, total=total)
            result = run()
    else:
        result = run()
    if report_json:
        report.write_build_json(result, report_json)
    if quiet:
        t = result.to_dict()["totals"]
        click.echo(f"musa-port {title.lower()}: {'ok' if result.ok else 'FAILED'}; {t['ok']} ok, "
                   f"{t['failed']} failed, {t['not_built']} not built; {t['errors']} errors")
    else:
        report.print_build_summary(result, console, title)
    if not result.ok:
        sys.exit(EXIT_CHECK)


@cli.command("verify", context_settings=CONTEXT)
@click.argument("out", type=click.Path(path_type=str))
@click.option("--nvcc", metavar="PATH", help="The nvcc to use (default: $CUDA_HOME, $CUDA_PATH, "
              "PATH, /usr/local/cuda/bin/nvcc, the nvidia-cuda-nvcc wheel).")
@click.option("--mode", type=click.Choice(["ptx", "compile"]), default="compile",
              show_default=True, help="compile: nvcc -c (host and device code generated); "
              "ptx: stop at PTX, faster; nvcc's front end still checks host code, "
              "except code under #ifndef __CUDA_ARCH__.")
@click.option("--arch", default="sm_80", show_default=True, help="The CUDA arch to check with.")
@_build_options
def verify_cmd(out, nvcc, mode, arch, include_dirs, defines, std, jobs, keep_going, only,
               exclude, report_json, build_dir, quiet):
    """Compile-check a port with nvcc, without MUSA hardware or toolkit.

    Generates a shim include folder from the rules the port used (recorded in OUT's
    manifest) that maps every MUSA name back to CUDA and poisons the CUDA names the
    rules port, then compiles each ported file with nvcc on the same ninja runner as
    `musa-port build`. A leftover CUDA name, a corrupted identifier or an include of a
    header that was renamed fails at its line. Every file is checked (as with
    --keep-going). Exit codes: 0 all compile, 1 a file fails, 2 bad input.
    """
    from .verify import VerifyOptions

    vopts = VerifyOptions(out=out, nvcc=nvcc, mode=mode, include_dirs=list(include_dirs),
                          defines=list(defines), arch=arch, std=std, jobs=jobs, keep_going=True,
                          only=list(only), exclude=list(exclude), build_dir=build_dir)
    from .verify import verify

    _run_build(vopts, None, report_json, quiet, "Verify", runner=verify)


@cli.command("rules", context_settings=CONTEXT)
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
    """Look up rules: what NAME maps to, its family, status and table file.

    \b
    Examples:
      musa-port rules cudaMalloc
      musa-port rules --list --family cublas
      musa-port rules --families --format json
    Exits 1 when a NAME has no rule.
    """
    import json

    from .rules import build_ruleset

    rs = build_ruleset(rule_files=rule_files, default_rules=not no_default_rules,
                       mapping_dir=mapping_dir, disable_families=_split_csv(disable_families),
                       enable_families=_split_csv(enable_families))
    wanted = set(_split_csv(families))
    unknown = wanted - set(rs.families) - {"user"}
    if unknown:
        _fail(f"unknown rule family {sorted(unknown)[0]!r}; families: "
              + ", ".join(sorted(rs.families)))

    def row(r):
        return {"cuda": r.key, "musa": r.value, "family": r.family, "status": r.status,
                "enabled": r.is_user or r.family not in rs.disabled,
                "source": r.source, "note": r.note}

    if show_families:
        counts: dict[str, int] = {}
        for r in rs.rules.values():
            counts[r.family] = counts.get(r.family, 0) + 1
        data = [{"family": f, "entries": counts.get(f, 0), "enabled": f not in rs.disabled}
                for f in sorted(set(rs.families) | set(counts))]
        if fmt == "json":
            click.echo(json.dumps(data, indent=1))
        else:
            for d in data:
                click.echo(f"{d['family']:<12} {d['entries']:>7}  {'on' if d['enabled'] else 'off'}")
        return
    if names:
        found = [rs.rules[n] for n in names if n in rs.rules]
        missing = [n for n in names if n not in rs.rules]
    elif list_:
        found = sorted((r for r in rs.rules.values() if not wanted or r.family in wanted),
                       key=lambda r: (r.family, r.key))
        missing = []
    else:
        _fail("give NAMES to look up, or --list, or --families")
    if fmt == "json":
        click.echo(json.dumps({"rules": [row(r) for r in found], "missing": missing}, indent=1))
    else:
        for r in found:
            d = row(r)
            target = d["musa"] if d["musa"] is not None else "(no MUSA equivalent)"
            state = "" if d["enabled"] else ", family off"
            note = f"  # {d['note']}" if d["note"] else ""
            click.echo(f"{d['cuda']} -> {target}  [{d['family']}, {d['status']}{state}] "
                       f"{d['source']}{note}")
        for n in missing:
            click.echo(f"{n}: no rule", err=True)
    if missing:
        sys.exit(EXIT_CHECK)


def _console(stderr: bool):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


def _progress(console):
    """A progress bar for long runs, on a terminal only."""
    if not console.is_terminal:
        return None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    console=console, transient=True)


def main(argv=None) -> None:
    """Console entry point: turns errors into one line and an exit code."""
    try:
        rc = cli.main(args=argv, prog_name="musa-port", standalone_mode=False)
        if isinstance(rc, int) and rc:
            sys.exit(rc)
    except PortError as exc:
        _fail(str(exc), exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(EXIT_USAGE)
    except click.exceptions.Abort:
        _fail("aborted", 130)
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        _fail(f"{where}{exc.strerror or exc}")
    except KeyboardInterrupt:
        _fail("interrupted; outputs are each old or new, run again to complete", 130)
    except Exception as exc:  # a bug: say so in one line, keep the trace for debugging
        if os.environ.get("MUSA_PORT_DEBUG"):
            raise
        _fail(f"internal error: {type(exc).__name__}: {exc} (set MUSA_PORT_DEBUG=1 for "
              "details; please report it)", EXIT_INTERNAL)
