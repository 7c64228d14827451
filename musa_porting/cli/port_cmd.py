"""``musa-port SRC``: port a tree (the default command), or one file."""

from __future__ import annotations

import gc
import os
import sys

import click

from .. import __version__
from .common import (
    CONTEXT,
    EXIT_CHECK,
    check_outputs,
    color_option,
    console_for,
    progress_bar,
    split_csv,
    write_output,
)
from .port_command import PortCommand, help_all_option

# What ``musa-port --help`` describes; every other option is listed by name under
# "Advanced options" (``--help-all`` describes them too).
COMMON = ("output", "ignore", "rules", "keep", "dry_run", "diff", "write", "check", "suppress",
          "report_json", "sarif", "quiet", "color", "config_file", "version", "help_all")


@click.command("port", cls=PortCommand, common=COMMON, context_settings=CONTEXT)
@click.argument("src", type=click.Path(file_okay=True, dir_okay=True, path_type=str))
@click.option("-o", "--output", metavar="DIR",
              help="Output folder (default: SRC_musa); for one file: stdout.")
@click.option("--ignore", "ignore", multiple=True, metavar="PATTERNS",
              help="Paths or gitignore patterns to leave out (repeatable).")
@click.option("-r", "--rule", "rules", multiple=True, metavar="FILE",
              type=click.Path(dir_okay=False, path_type=str),
              help="Your rules, JSON or YAML; they win (repeatable).")
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
              help="CUDA-looking names meant to stay (not reported).")
@click.option("--no-project-symbols", is_flag=True,
              help="Do not rename the tree's own names that hold a CUDA word (MYLIB_CUDA_CHECK -> "
                   "MYLIB_MUSA_CHECK, launchCudaKernel -> launchMusaKernel); by default every "
                   "name the tree defines is renamed everywhere in the tree.")
@click.option("--rename-exported", is_flag=True,
              help="Also rename the tree's names that Python calls by name (pybind11 m.def, "
                   "py::class_, def_submodule, TORCH_LIBRARY op schemas), and the Python files "
                   "of this run that call them; by default they are kept (callers outside SRC "
                   "would break).")
@click.option("--symbols", "symbols_backend", type=click.Choice(["lexer", "clang"]), default="lexer",
              show_default=True,
              help="How the tree's definitions are found: lexer (no dependency), or clang "
                   "(pip install 'musa-port[clang]'; uses -I, -D and --compile-commands).")
@click.option("-D", "--define", "defines", multiple=True, metavar="NAME[=V]",
              help="A macro for --symbols clang (repeatable).")
@click.option("--compile-commands", metavar="FILE",
              help="compile_commands.json with each file's flags, for --symbols clang.")
@click.option("--rename-paths/--keep-paths", "rename_paths", default=None,
              help="Rename files and folders whose names hold a CUDA word (gemm_cuda.cu -> "
                   "gemm_musa.mu, csrc/cuda/ -> csrc/musa/), the default; includes, links, "
                   "build files and setup.py paths follow. --keep-paths keeps every name but "
                   ".cu/.cuh -> .mu/.muh (setting: rename-paths = false).")
@click.option("--vocab", "vocab_files", multiple=True, metavar="FILE",
              help="Extra name-part vocabulary: a JSON object of CUDA words to MUSA words, false "
                   "to switch a word off (a rule file's 'vocabulary:' section does the same).")
@click.option("--vendor-word", "vendor_word", default=None, metavar="WORD",
              help="The word that replaces NVIDIA in the tree's own names and messages "
                   "(gpu_info_nvidia -> gpu_info_musa, \"Nvidia GPUs\"): musa (the default), "
                   "mthreads, moore, ...; an empty word keeps NVIDIA.")
@click.option("--no-python", is_flag=True,
              help="Copy .py files as they are instead of porting them (torch.cuda -> "
                   "torch.musa, device strings, CUDAExtension -> MUSAExtension, ...).")
@click.option("--launch", "launch", multiple=True, metavar="FILE",
              help="A .py file of SRC that starts a run (train.py): it gets `import torch_musa` "
                   "after its first `import torch`. Repeatable.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, metavar="N",
              help="Port files in N processes (default: the number of CPUs). The output is "
                   "the same for any N.")
@click.option("-n", "--dry-run", is_flag=True, help="Compute everything, write nothing.")
@click.option("--diff", "diff", is_flag=False, flag_value="-", default=None, metavar="[=FILE]",
              help="Print a git-apply-able diff; write nothing.")
@click.option("--write", is_flag=True, help="With --diff: write the output too.")
@click.option("--report-json", metavar="FILE", help="Write the JSON report.")
@click.option("--report-csv", metavar="FILE", help="Write one CSV row per finding.")
@click.option("--sarif", metavar="FILE", help="Write findings as SARIF 2.1.0.")
@click.option("--report-files", is_flag=True, help="Show per-file counts in the summary.")
@click.option("--suppress", multiple=True, metavar="IDS",
              help="Findings to drop, by ID or name (MP1002,...).")
@click.option("--check", "check", is_flag=False, flag_value="", default=None,
              metavar="[=LEVEL]",
              help="Exit 1 on residuals, errors (=warning: warnings too).")
@click.option("--arch", "arch", multiple=True, metavar="ARCHS",
              help="MUSA arches that nvcc's -arch/-gencode and CMAKE_CUDA_ARCHITECTURES become "
                   "in build files (comma-separated or repeated): mp_21 (MTT S80/S3000), mp_22 "
                   "(S4000), mp_31 (S5000); torch_musa also knows mp_10, mp_32. Default: mp_22.")
@click.option("--no-build-files", is_flag=True,
              help="Copy CMake files, Makefiles and shell scripts as they are instead of "
                   "porting them.")
@click.option("--build", "then_build", is_flag=True,
              help="After porting, build the output with mcc (as `musa-port build OUT`).")
@click.option("--build-args", metavar="ARGS", default="",
              help="Options for that build, e.g. \"--arch mp_21 --shared libops.so\".")
@click.option("--force", is_flag=True,
              help="Replace or remove paths in the output that musa-port did not write (not in "
                   "its manifest). Without it the run stops, naming the first, with nothing "
                   "written.")
@click.option("--wait", type=click.FloatRange(min=0), default=600, show_default=True,
              metavar="SECONDS",
              help="How long to wait for another musa-port run writing the same output.")
@click.option("--paranoid", is_flag=True,
              help="Also compare each input's sha256 with the last run's, not only its size, "
                   "mtime and ctime (for file systems with coarse timestamps).")
@click.option("--base-from", "base_from", metavar="OLD_SRC",
              help="OUT is a port musa-port did not make (torch_musa's SimplePorting, by hand) "
                   "of OLD_SRC, an older upstream (a folder, or a git ref of SRC's repository): "
                   "learn its conventions, and merge its hand edits into the port of SRC.")
@click.option("-q", "--quiet", is_flag=True, help="Print only errors and the one-line total.")
@color_option
@click.option("--config", "config_file", metavar="FILE", type=click.Path(dir_okay=False),
              help="Settings (default: found above SRC).")
@click.option("--no-config", is_flag=True, help="Read no settings file.")
@click.version_option(__version__, "--version", prog_name="musa-port")
@help_all_option
def port_cmd(src, output, ignore, rules, no_default_rules, mapping_dir, skip, include_dirs,
             extensions, disable_families, enable_families, reverse, keep, no_project_symbols,
             rename_exported, symbols_backend, defines, compile_commands, rename_paths, vocab_files,
             vendor_word, no_python, launch, jobs, dry_run, diff, write, report_json, report_csv,
             sarif, report_files, suppress, check, arch, no_build_files, then_build, build_args,
             force, wait, paranoid, base_from, quiet, config_file, no_config):
    """Port the CUDA tree SRC into SRC_musa (or one file to stdout): sources
    rewritten, .cu/.cuh renamed .mu/.muh, the rest copied; re-runs redo only changes.

    \b
    Examples:
      musa-port ./csrc --ignore mlu,npu --rule extra.json
      musa-port ./csrc --dry-run --diff --check      (review, or gate CI)
      musa-port kernel.cu -o kernel.mu
    """
    from ..tree import timings

    timings.mark("start-up and imports")
    gc.disable()  # as in cli.main: the imports make no garbage
    from ..analyze.checks import parse_ids
    from ..config import CHECK_LEVELS, project_config
    from ..port.filenames import DEFAULT_SOURCE_EXTENSIONS
    from ..report import counts, summary
    from ..report.merges import conflict_lines
    from ..tree.ignores import ignore_patterns, unmatched
    from ..tree.options import PortOptions, parse_arches
    from ..tree.porter import port_tree

    gc.freeze()  # the modules live as long as the process: out of the collector's sight
    gc.enable()
    timings.mark("imports of the port")

    if check not in (None, "", *CHECK_LEVELS):
        raise click.BadParameter(f"{check!r} is not one of {', '.join(CHECK_LEVELS)}",
                                 param_hint="'--check'")
    if write and dry_run:
        raise click.UsageError("--write and --dry-run contradict each other")
    check_outputs(diff=diff, report_json=report_json, report_csv=report_csv, sarif=sarif)
    build_argv = _build_argv(build_args)
    cfg = project_config(src, config_file, not no_config)
    for w in cfg.warnings:
        click.echo(w, err=True)
    level = None if check is None else (check or cfg.check_level or "error")
    suppressed = parse_ids([*cfg.get("suppress"), *suppress])
    exts = tuple(split_csv([extensions])) if extensions else DEFAULT_SOURCE_EXTENSIONS
    cwd = os.getcwd()
    ignores = {**ignore_patterns(cfg.get("ignore"), src, [cfg.folder, cwd]),
               **ignore_patterns(ignore, src, [cwd])}
    cli_off, cli_on = split_csv(disable_families), split_csv(enable_families)
    opts = PortOptions(
        src=src,
        output=output,
        ignore=list(ignores.values()),
        rule_files=[*cfg.rule_files(), *rules],
        default_rules=not no_default_rules,
        mapping_dir=mapping_dir,
        skip=split_csv(skip),
        include_dirs=list(include_dirs),
        extensions=exts,
        keep=split_csv([*cfg.get("keep"), *keep]),
        disable_families=[f for f in cfg.get("disable-family") if f not in cli_on] + cli_off,
        enable_families=[f for f in cfg.get("enable-family") if f not in cli_off] + cli_on,
        reverse=reverse,
        project_symbols=not no_project_symbols,
        rename_exported=rename_exported,
        symbols_backend=symbols_backend,
        defines=list(defines),
        compile_commands=compile_commands,
        rename_paths=rename_paths if rename_paths is not None else cfg.flag("rename-paths", True),
        vocab_files=list(vocab_files),
        vendor_word=_vendor_word(vendor_word if vendor_word is not None
                                 else cfg.value("vendor-word", "musa")),
        python=not no_python,
        launch=list(launch),
        jobs=jobs,
        dry_run=dry_run or (diff is not None and not write),  # --diff reviews; --write writes
        collect_diff=diff is not None,
        build_files=not no_build_files,
        arch=parse_arches(arch),
        force=force,
        wait=wait,
        paranoid=paranoid,
        base_from=base_from,
    )
    if os.path.isfile(src):
        from .file_mode import TREE_ONLY, port_one_file

        given = [flag for name, flag in TREE_ONLY.items() if click.get_current_context().params[name]]
        if given:
            raise click.UsageError(f"{given[0]} needs a folder, and {src} is a file")
        port_one_file(opts, output, diff, write, suppressed, level, quiet)
        return
    # The summary goes to stderr when stdout carries the diff or a report.
    to_stdout = "-" in (diff, report_json, report_csv, sarif)
    console = None if quiet else console_for(stderr=to_stdout)  # -q: rich is not imported
    progress = None if console is None else progress_bar(console)
    if progress is not None:
        with progress:
            task = progress.add_task("porting", total=None)
            opts.progress = lambda done, total: progress.update(task, completed=done, total=total)
            result = port_tree(opts)
    else:
        result = port_tree(opts)
    timings.mark("port (the phases above)")
    for w in result.warnings:
        click.echo(w, err=True)
    for entry in unmatched(ignores, result.ignored):
        click.echo(f"warning: ignore pattern {entry} matched nothing in {src}", err=True)
    if diff is not None:
        from ..report.diff import tree_diff

        write_output(tree_diff(result.diff_items), diff)
    if report_json:
        from ..report import json_report

        json_report.write_json(result, report_json, suppressed)
    if report_csv:
        from ..report import csv_report

        csv_report.write_csv(result, report_csv, suppressed)
    if sarif:
        from ..report import sarif as sarif_report

        sarif_report.write_sarif(result, sarif, suppressed)
    if quiet:
        click.echo(summary.total_line(result, suppressed), err=to_stdout)
    else:
        summary.print_summary(result, console, suppressed, report_files)
    merges = conflict_lines(result)
    for line in merges:
        click.echo(line, err=True)
    timings.mark("reports and summary")
    timings.report()
    failed = level is not None and counts.check_count(result, suppressed, level)
    if failed:
        from .findings_out import echo_check_failure, src_path

        failures = counts.check_failures(result, suppressed, level)
        echo_check_failure([(src_path(src, f.rel), d) for f, d in failures], level)
    if level is not None and result.conflicted:
        n = len(result.conflicted)
        click.echo(f"musa-port: --check failed: {n} output{'s' * (n != 1)} "
                   f"{'hold' if n != 1 else 'holds'} conflicts (listed above)", err=True)
    if failed or (level is not None and result.conflicted):
        sys.exit(EXIT_CHECK)
    if then_build and not opts.dry_run:
        from .build_cmd import build_cmd

        build_cmd.main([result.output, *build_argv, *(["-q"] if quiet else [])],
                       prog_name="musa-port build", standalone_mode=False)


def _vendor_word(word: str) -> str:
    """A word of letters (it becomes part of names), or "" to keep NVIDIA."""
    if word and not word.isascii() or not (word.isalpha() or word == ""):
        raise click.BadParameter(f"{word!r} is not a word of letters", param_hint="'--vendor-word'")
    return word.lower()


def _build_argv(build_args: str) -> list[str]:
    """``--build-args`` split as a shell splits it, and read as ``musa-port build``
    reads its options, before anything is ported: a value it cannot read (a quote not
    closed, an unknown option) stops the run with nothing written, not after."""
    if not build_args:
        return []
    import shlex

    from .build_cmd import build_cmd

    try:
        argv = shlex.split(build_args)
    except ValueError:
        raise click.BadParameter("a quote is not closed", param_hint="'--build-args'") from None
    try:
        build_cmd.make_context("musa-port build", ["OUT", *argv]).close()
    except click.ClickException as exc:
        raise click.BadParameter(exc.format_message(), param_hint="'--build-args'") from None
    return argv


