"""A drop-in for torch_musa's ``SimplePorting``, so existing ``setup.py`` files keep
working with this engine (and without torch_musa's bugs: user rules win over the
defaults, binaries are copied, ignored folders are ignored at every depth, the
output is updated in place instead of deleted and rewritten on every build).

    from musa_porting import SimplePorting
    SimplePorting(cuda_dir_path="./mmcv/ops/csrc",
                  ignore_dir_paths=["./mmcv/ops/csrc/common/mlu"],
                  mapping_rule={"MMCV_WITH_CUDA": "MMCV_WITH_MUSA"}).run()

Also a command: ``python -m musa_porting.simple_porting --cuda-dir-path DIR ...``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence

from .errors import PortError
from .tree.options import PortOptions
from .tree.porter import port_tree
from .tree.result import PortResult


def _ignore_pattern(cuda_dir: str, path: str) -> str:
    """torch_musa takes ignore paths (relative to cwd, or absolute); we take patterns.

    A path that names something inside the tree becomes a root-anchored pattern, so
    ``./csrc/common/mlu`` ignores exactly that folder; a bare name or anything else
    is used as a gitignore-style pattern (``mlu`` ignores every ``mlu``).
    """
    if "/" not in path.strip("/") and os.sep not in path.strip(os.sep):
        return path  # a bare name: every folder or file of that name, at any depth
    root = os.path.realpath(cuda_dir)
    for cand in (os.path.abspath(path), os.path.join(root, path)):
        real = os.path.realpath(cand)
        if os.path.lexists(cand) and real != root and real.startswith(root + os.sep):
            return "/" + os.path.relpath(real, root).replace(os.sep, "/")
    return path


class SimplePorting:
    """torch_musa's porting API on musa-port's engine. ``run()`` returns the counts."""

    def __init__(
        self,
        cuda_dir_path: str,
        ignore_dir_paths: Sequence[str] | None = None,
        mapping_rule: Mapping[str, str] | None = None,
        drop_default_mapping: bool = False,
        mapping_dir_path: str | None = None,
        *,
        output_dir_path: str | None = None,
        disable_families: Sequence[str] = (),
        enable_families: Sequence[str] = (),
        quiet: bool = False,
        rename_paths: bool = False,
        project_symbols: bool = True,
    ) -> None:
        if isinstance(ignore_dir_paths, str):
            ignore_dir_paths = [ignore_dir_paths]
        self.cuda_dir_path = cuda_dir_path
        self.ignore_dir_paths = list(ignore_dir_paths or [])
        self.mapping_rule = dict(mapping_rule or {})
        self.drop_default_mapping = drop_default_mapping
        self.mapping_dir_path = mapping_dir_path
        self.output_dir_path = output_dir_path
        self.disable_families = list(disable_families)
        self.enable_families = list(enable_families)
        self.quiet = quiet
        self.rename_paths = rename_paths
        self.project_symbols = project_symbols

    def options(self) -> PortOptions:
        return PortOptions(
            src=self.cuda_dir_path,
            output=self.output_dir_path,
            ignore=[_ignore_pattern(self.cuda_dir_path, p) for p in self.ignore_dir_paths],
            inline_rules=self.mapping_rule,
            default_rules=not self.drop_default_mapping,
            mapping_dir=self.mapping_dir_path,
            disable_families=self.disable_families,
            enable_families=self.enable_families,
            rename_paths=self.rename_paths,
            project_symbols=self.project_symbols,
        )

    def run(self) -> PortResult:
        """Port ``cuda_dir_path`` into ``<cuda_dir_path>_musa``."""
        result = port_tree(self.options())
        if not self.quiet:
            from .report.summary import total_line

            for w in result.warnings:
                print(w, file=sys.stderr)
            print(total_line(result))
        return result


def _json_arg(name: str, expected: type):
    def parse(text: str):
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise argparse.ArgumentTypeError(
                f"{name} is not valid JSON: {exc.msg} at column {exc.colno}") from None
        if not isinstance(value, expected):
            raise argparse.ArgumentTypeError(
                f"{name} must be a JSON {'list' if expected is list else 'object'}")
        return value
    return parse


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m musa_porting.simple_porting",
        description="torch_musa-compatible porting of a CUDA folder to <folder>_musa.",
    )
    parser.add_argument("--cuda-dir-path", required=True, help="the CUDA source folder")
    parser.add_argument("--ignore-dir-paths", type=_json_arg("--ignore-dir-paths", list),
                        default=[], help='JSON list of paths or patterns, e.g. \'["common/mlu"]\'')
    parser.add_argument("--mapping-rule", type=_json_arg("--mapping-rule", dict), default={},
                        help='JSON object of extra rules, e.g. \'{"_CUH": "_MUH"}\'')
    parser.add_argument("--drop-default-mapping", action="store_true",
                        help="use only --mapping-rule (and --mapping-dir-path)")
    parser.add_argument("--mapping-dir-path", help="folder of JSON tables replacing the defaults")
    args = parser.parse_args(argv)
    try:
        SimplePorting(
            args.cuda_dir_path,
            ignore_dir_paths=args.ignore_dir_paths,
            mapping_rule=args.mapping_rule,
            drop_default_mapping=args.drop_default_mapping,
            mapping_dir_path=args.mapping_dir_path,
        ).run()
    except PortError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
