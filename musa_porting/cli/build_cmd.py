"""``musa-port build``: compile a ported tree with mcc; and what ``musa-port verify``
(``verify_cmd``) shares with it: options, and running and reporting a build."""

from __future__ import annotations

import sys

import click

from .common import CONTEXT, EXIT_CHECK, check_outputs, color_option, console_for, progress_bar, split_csv


def build_options(verify: bool = False):
    """The options ``musa-port build`` shares with ``musa-port verify``."""
    if verify:
        std = click.option("--std", default=None, metavar="STD",
                           help="C++ standard (default: the one torch's extensions use when "
                                "the check uses torch, else c++17).")
        keep_going = click.option("--keep-going/--fail-fast", default=True, show_default=True,
                                  help="Check every file and report each failure (the "
                                       "default), or stop at the first failure.")
    else:
        std = click.option("--std", default="c++17", show_default=True, help="C++ standard.")
        keep_going = click.option("--keep-going", is_flag=True,
                                  help="Build every other file after a failure and report them "
                                       "all (default: stop at the first failure).")
    opts = [
        click.option("-I", "--include-dir", "include_dirs", multiple=True, metavar="DIR",
                     help="Include folder for every compile (repeatable)."),
        click.option("-D", "--define", "defines", multiple=True, metavar="NAME[=V]",
                     help="Macro definition for every compile (repeatable)."),
        std,
        click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, metavar="N",
                     help="Parallel compiles (default: ninja's choice, CPUs + 2)."),
        keep_going,
        click.option("--only", multiple=True, metavar="GLOB",
                     help="Compile only files matching GLOB (path or name; repeatable)."),
        click.option("--exclude", multiple=True, metavar="GLOB",
                     help="Leave out files matching GLOB (repeatable)."),
        click.option("--report-json", metavar="FILE", help="Write the build report as JSON."),
        click.option("--build-dir", metavar="DIR",
                     help=f"Where build.ninja, objects and compile_commands.json go "
                          f"(default: OUT/{'.musa-port-build'})."),
        click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
                     metavar="SECONDS",
                     help="Stop a compile that runs longer than this (it then fails); needs "
                          "coreutils' timeout. Default: no limit."),
        click.option("-q", "--quiet", is_flag=True, help="Print only the one-line result."),
        color_option,
    ]

    def apply(f):
        for o in reversed(opts):
            f = o(f)
        return f

    return apply


def _check_launcher(ctx, param, value):
    """Split as a shell would, when the options are read: a quote not closed is one
    line (a PortError) and exit 2 before anything is written, through ``--build-args``
    too."""
    from ..compile.ninja import launcher_words

    launcher_words(value)
    return value


@click.command("build", context_settings=CONTEXT, short_help="Compile a ported tree with mcc (on ninja).")
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
@click.option("--launcher", metavar="CMD", callback=_check_launcher,
              help="Prefix every compile, e.g. ccache, sccache or distcc.")
@click.option("--cxx", default="c++", show_default=True, metavar="PATH",
              help="Host compiler for C/C++ files.")
@click.option("--mcc-for-cpp", is_flag=True, help="Compile C/C++ files with mcc -x musa.")
@click.option("--compile-commands", is_flag=True,
              help="Also write compile_commands.json at the top of OUT (for clangd).")
@build_options()
def build_cmd(out, arch, mcc, opt, shared, libs, launcher, cxx, mcc_for_cpp, compile_commands,
              include_dirs, defines, std, jobs, keep_going, only, exclude, report_json,
              build_dir, timeout, quiet):
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
    from ..compile.build import BuildOptions

    bopts = BuildOptions(
        out=out, arch=split_csv(arch) or ["mp_22"], mcc=mcc, cxx=cxx, mcc_for_cpp=mcc_for_cpp,
        include_dirs=list(include_dirs), defines=list(defines), std=std, opt=opt,
        shared=shared, libs=list(libs), jobs=jobs, launcher=launcher, keep_going=keep_going,
        only=list(only), exclude=list(exclude), compile_commands=compile_commands,
        build_dir=build_dir, timeout=timeout)
    run_build(bopts, None, report_json, quiet, "Build")


def run_build(bopts, profile, report_json, quiet, title, runner=None) -> None:
    from ..compile.build import build
    from ..report.build_summary import print_build_summary, write_build_json

    check_outputs(report_json=report_json)

    def run():
        return runner(bopts) if runner is not None else build(bopts, profile)

    console = console_for(stderr=False)
    progress = None if quiet else progress_bar(console)
    if progress is not None:
        with progress:
            task = progress.add_task(title.lower(), total=0)  # rich 12.0 takes no total=None
            bopts.progress = lambda done, total: progress.update(task, completed=done, total=total)
            result = run()
    else:
        result = run()
    if report_json:
        write_build_json(result, report_json)
    if quiet:
        t = result.to_dict()["totals"]
        click.echo(f"musa-port {title.lower()}: {'ok' if result.ok else 'FAILED'}; {t['ok']} ok, "
                   f"{t['failed']} failed, {t['not_built']} not built; {t['errors']} errors")
    else:
        print_build_summary(result, console, title)
    if not result.ok:
        sys.exit(EXIT_CHECK)
