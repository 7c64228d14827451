"""``python -m musa_porting.simple_porting``: the constructor's parameters as options
(JSON for the list and the dict), errors in one line."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from ..errors import PortError, internal_error


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


def run_command(porting: type, argv: Sequence[str] | None = None) -> int:
    """The command, with ``porting`` the SimplePorting class (simple_porting.main)."""
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
    parser.add_argument("--extended", action="store_true",
                        help="port as musa-port does (MUTLASS, the tree's own names, paths) "
                             "instead of writing torch_musa's tree")
    args = parser.parse_args(argv)
    try:
        porting(
            args.cuda_dir_path,
            ignore_dir_paths=args.ignore_dir_paths,
            mapping_rule=args.mapping_rule,
            drop_default_mapping=args.drop_default_mapping,
            mapping_dir_path=args.mapping_dir_path,
            extended=True if args.extended else None,
        ).run()
    except PortError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("error: interrupted; outputs are each old or new, run again to complete",
              file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: one line, as musa-port says it
        if os.environ.get("MUSA_PORT_DEBUG"):
            raise
        print(f"error: {internal_error(exc)}", file=sys.stderr)
        return 3
    return 0
