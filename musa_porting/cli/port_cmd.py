"""``musa-port SRC``: port a tree (the default command)."""

from __future__ import annotations

import sys

import click

from .common import CONTEXT, EXIT_CHECK, console_for, progress_bar, split_csv, write_output


@click.command("port", context_settings=CONTEXT)
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
@click.option("--no-project-symbols", is_flag=True,
              help="Do not rename the tree's own names that hold a CUDA word (MYLIB_CUDA_CHECK -> "
                   "MYLIB_MUSA_CHECK, launchCudaKernel -> launchMusaKernel); by default every "
                   "name the tree defines is renamed everywhere in the tree.")
@click.option("--symbols", "symbols_backend", type=click.Choice(["lexer", "clang"]), default="lexer",
              show_default=True,
              help="How the tree's definitions are found: lexer (no dependency), or clang "
                   "(pip install 'musa-port[clang]'; uses -I, -D and --compile-commands).")
@click.option("-D", "--define", "defines", multiple=True, metavar="NAME[=V]",
              help="A macro for --symbols clang (repeatable).")
@click.option("--compile-commands", metavar="FILE",
              help="compile_commands.json with each file's flags, for --symbols clang.")
@click.option("--rename-paths", is_flag=True,
              help="Also rename files and folders whose names hold a CUDA word (gemm_cuda.cu -> "
                   "gemm_musa.mu, csrc/cuda/ -> csrc/musa/); includes and links follow.")
@click.option("--vocab", "vocab_files", multiple=True, metavar="FILE",
              help="Extra name-part vocabulary: a JSON object of CUDA words to MUSA words, false "
                   "to switch a word off (a rule file's 'vocabulary:' section does the same).")
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
@click.option("--diff", "diff", is_flag=False, flag_value="-", default=None, metavar="[FILE]",
              help="Print a git-apply-able unified diff from each source file to its ported "
                   "path (renames as renames); --diff=FILE writes it to FILE.")
@click.option("--report-json", metavar="FILE", help="Write the JSON report (schema: "
              "musa_porting/report/schemas/report.schema.json).")
@click.option("--report-csv", metavar="FILE", help="Write one CSV row per finding.")
@click.option("--sarif", metavar="FILE", help="Write findings as SARIF 2.1.0 for code scanning.")
@click.option("--report-files", is_flag=True, help="Show per-file counts in the summary.")
@click.option("--suppress", multiple=True, metavar="IDS",
              help="Diagnostic IDs (or names) to drop from reports and --check, e.g. MP1002.")
@click.option("--check", is_flag=True,
              help="Exit 1 when residual CUDA names or headers remain, or any error-level "
                   "finding (after --suppress).")
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
@click.option("-q", "--quiet", is_flag=True, help="Print only errors and the one-line total.")
def port_cmd(src, output, ignore, rules, no_default_rules, mapping_dir, skip, include_dirs,
             extensions, disable_families, enable_families, reverse, keep, no_project_symbols,
             symbols_backend, defines, compile_commands, rename_paths, vocab_files, no_python,
             launch, jobs, dry_run, diff, report_json, report_csv, sarif, report_files, suppress,
             check, arch, no_build_files, then_build, build_args, force, wait, paranoid, quiet):
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
    from ..analyze.checks import parse_ids
    from ..port.filenames import DEFAULT_SOURCE_EXTENSIONS
    from ..report import counts, csv_report, json_report, summary
    from ..report import sarif as sarif_report
    from ..tree.options import PortOptions, parse_arches
    from ..tree.porter import port_tree

    suppressed = parse_ids(suppress)
    exts = tuple(split_csv([extensions])) if extensions else DEFAULT_SOURCE_EXTENSIONS
    opts = PortOptions(
        src=src,
        output=output,
        ignore=split_csv(ignore),
        rule_files=list(rules),
        default_rules=not no_default_rules,
        mapping_dir=mapping_dir,
        skip=split_csv(skip),
        include_dirs=list(include_dirs),
        extensions=exts,
        keep=split_csv(keep),
        disable_families=split_csv(disable_families),
        enable_families=split_csv(enable_families),
        reverse=reverse,
        project_symbols=not no_project_symbols,
        symbols_backend=symbols_backend,
        defines=list(defines),
        compile_commands=compile_commands,
        rename_paths=rename_paths,
        vocab_files=list(vocab_files),
        python=not no_python,
        launch=list(launch),
        jobs=jobs,
        dry_run=dry_run,
        collect_diff=diff is not None,
        build_files=not no_build_files,
        arch=parse_arches(arch),
        force=force,
        wait=wait,
        paranoid=paranoid,
    )
    # The summary goes to stderr when stdout carries the diff or a report.
    to_stdout = "-" in (diff, report_json, report_csv, sarif)
    console = console_for(stderr=to_stdout)
    progress = None if quiet else progress_bar(console)
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
        from ..report.diff import tree_diff

        write_output(tree_diff(result.diff_items), diff)
    if report_json:
        json_report.write_json(result, report_json, suppressed)
    if report_csv:
        csv_report.write_csv(result, report_csv, suppressed)
    if sarif:
        sarif_report.write_sarif(result, sarif, suppressed)
    if quiet:
        click.echo(summary.total_line(result, suppressed), err=to_stdout)
    else:
        summary.print_summary(result, console, suppressed, report_files)
    if check and counts.check_count(result, suppressed):
        sys.exit(EXIT_CHECK)
    if then_build and not dry_run:
        import shlex

        from .build_cmd import build_cmd

        build_cmd.main([result.output, *shlex.split(build_args), *(["-q"] if quiet else [])],
                       prog_name="musa-port build", standalone_mode=False)


