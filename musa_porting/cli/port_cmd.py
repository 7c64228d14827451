"""``musa-port SRC``: port a tree (the default command), or one file. The options are
in ``port_options``; the settings file's values join them in ``settings.resolve``;
what a tree's port prints and writes is ``port_report``'s."""

from __future__ import annotations

import gc
import os
import shlex

import click

from .common import CONTEXT, check_outputs, color_mode, split_csv
from .port_command import PortCommand
from .port_options import COMMON, port_options

STDIN_NAME = "stdin.cu"  # standard input with no --stdin-filename: a CUDA source


@click.command("port", cls=PortCommand, common=COMMON, context_settings=CONTEXT)
@port_options
@click.pass_context
def port_cmd(ctx: click.Context, **given):
    """Port the CUDA tree SRC to MUSA into SRC_musa; a re-run redoes only changes.

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
    from ..config import project_config
    from ..port.filenames import DEFAULT_SOURCE_EXTENSIONS
    from ..tree.ignores import ignore_patterns
    from ..tree.options import PortOptions, parse_arches
    from .settings import resolve, show_settings

    gc.freeze()  # the modules live as long as the process: out of the collector's sight
    gc.enable()
    timings.mark("imports of the port")

    src = given["src"]
    if src is None and not given["show_settings"]:
        raise click.MissingParameter(ctx=ctx, param=ctx.command.params[0])
    stdin_name = given["stdin_filename"]
    if stdin_name is not None and src != "-":
        raise click.UsageError("--stdin-filename names the file read from standard input: "
                               "give SRC as '-'")
    if src == "-":  # standard input, as the file it names (its settings, kind and includes)
        src = stdin_name or STDIN_NAME
    cfg = project_config(src or os.curdir, given["config_file"], not given["no_config"])
    for w in cfg.warnings:
        click.echo(w, err=True)
    settings = resolve(ctx, cfg)
    v = settings.values
    if given["show_settings"]:
        from ..tree.paths import default_output

        shown = {"color": color_mode(), "jobs": v["jobs"] or os.cpu_count(),
                 "output": v["output"] or default_output(src or os.curdir, v["reverse"]),
                 "extensions": v["extensions"] or ",".join(DEFAULT_SOURCE_EXTENSIONS),
                 "rename_paths": v["rename_paths"] is not False}
        click.echo(show_settings(ctx, settings, shown))
        return
    if v["write"] and v["dry_run"]:
        raise click.UsageError("--write and --dry-run contradict each other")
    if v["quiet"] and v["verbose"]:
        raise click.UsageError("--quiet and --verbose contradict each other")
    fmt = v["output_format"]
    stdout_format = "-" if fmt != "text" else None
    check_outputs(diff=v["diff"], report_json=v["report_json"], report_csv=v["report_csv"],
                  sarif=v["sarif"], output_format=stdout_format)
    build_argv = shlex.split(v["build_args"]) if v["build_args"] else []  # checked: option_values
    if v["verbose"]:
        click.echo(f"musa-port: settings from {cfg.path}" if cfg.path else
                   "musa-port: no settings file (searched from SRC up to the project's root)",
                   err=True)
    check = v["check"]
    level = None if check is None else (check or settings.check_level or "error")
    suppressed = parse_ids(v["suppress"])
    exts = tuple(split_csv([v["extensions"]])) if v["extensions"] else DEFAULT_SOURCE_EXTENSIONS
    cwd = os.getcwd()
    file_ignores, cli_ignores = settings.split("ignore")
    ignores = {**ignore_patterns(file_ignores, src, [cfg.folder, cwd], cfg.path),
               **ignore_patterns(cli_ignores, src, [cwd])}
    file_off, cli_off = map(split_csv, settings.split("disable_families"))
    file_on, cli_on = map(split_csv, settings.split("enable_families"))
    opts = PortOptions(
        src=src,
        output=v["output"],
        ignore=list(ignores.values()),
        rule_files=list(v["rules"]),
        default_rules=not v["no_default_rules"],
        mapping_dir=v["mapping_dir"],
        skip=split_csv(v["skip"]),
        include_dirs=list(v["include_dirs"]),
        extensions=exts,
        keep=split_csv(v["keep"]),
        disable_families=[f for f in file_off if f not in cli_on] + cli_off,
        enable_families=[f for f in file_on if f not in cli_off] + cli_on,
        reverse=v["reverse"],
        project_symbols=not v["no_project_symbols"],
        rename_exported=v["rename_exported"],
        symbols_backend=v["symbols_backend"],
        defines=list(v["defines"]),
        compile_commands=v["compile_commands"],
        rename_paths=v["rename_paths"] if v["rename_paths"] is not None else True,
        vocab_files=list(v["vocab_files"]),
        vendor_word=v["vendor_word"],
        python=not v["no_python"],
        launch=list(v["launch"]),
        jobs=v["jobs"],
        dry_run=v["dry_run"] or (v["diff"] is not None and not v["write"]),  # --diff reviews
        collect_diff=v["diff"] is not None,
        build_files=not v["no_build_files"],
        arch=parse_arches(v["arch"]),
        force=v["force"],
        wait=v["wait"],
        paranoid=v["paranoid"],
        base_from=v["base_from"],
    )
    if given["src"] == "-" or os.path.isfile(src):
        import sys

        from .file_mode import TREE_ONLY, port_one_file

        given_here = [flag for name, flag in TREE_ONLY.items()
                      if v[name] and settings.from_command_line(name)]
        if fmt in ("json", "sarif") and settings.from_command_line("output_format"):
            given_here.append(f"--output-format {fmt}")
        if given_here:
            raise click.UsageError(f"{given_here[0]} needs a folder, and {src} is a file")
        port_one_file(opts, v["output"], v["diff"], v["write"], suppressed, level, v["quiet"],
                      fmt if fmt in ("github", "grouped") else "text",
                      sys.stdin.buffer.read() if given["src"] == "-" else None)
        return
    from .port_report import port_and_report

    port_and_report(opts, v, ignores, suppressed, level, build_argv)
