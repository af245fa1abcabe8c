"""`memdesk` command line. Each feature module registers its own subcommands.

Exit codes: 0 ok, 2 usage or missing scope, 3 not found or denied, 4 refused by a tombstone,
5 conflict, 6 store unavailable, 7 malformed model output. Errors are one clear line on stderr.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable
from typing import Any

from ..errors import MemdeskError

# Modules that add subcommands: each defines register(subparsers, common) -> None.
COMMAND_MODULES = [
    "memory.cli.core",
    "memory.cli.seed",  # issue 4: demo personas
    "memory.cli.consolidate",  # issue 5
    "review.cli",  # issue 6
    "memory.cli.es",  # issue 3: es bootstrap-users, migrate
    "memory.eval.cli",  # issue 7
    "memory.cli.chat",  # issue 12: one agent turn
]


class UsageError(MemdeskError):
    exit_code = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one clear line, exit 2
        raise UsageError(f"{self.prog}: {message}")


def common_options() -> argparse.ArgumentParser:
    """Options every command takes: --store, --json (and --user where it reads memories)."""
    p = argparse.ArgumentParser(add_help=False)
    # SUPPRESS: given after the subcommand it wins; absent, the top-level value stands.
    p.add_argument("--store", default=argparse.SUPPRESS,
                   help="embedded:PATH or elasticsearch:URL (default: MEMDESK_STORE)")
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                   help="machine-readable output")
    return p


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="memdesk", description="Memdesk agent memory: inspect, write, recall.")
    parser.add_argument("--store", default=None,
                        help="embedded:PATH or elasticsearch:URL (default: MEMDESK_STORE)")
    parser.add_argument("--json", action="store_true", default=False, help="machine-readable output")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    common = common_options()
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and (name + ".").startswith(exc.name + "."):  # feature not in this build
                continue
            raise
        module.register(sub, common)
    return parser


def emit(args: argparse.Namespace, payload: Any, render: Callable[[Any], str] | None = None) -> None:
    """Print JSON with --json, else the human rendering."""
    if getattr(args, "json", False) or render is None:
        print(json.dumps(payload, indent=2, default=str, ensure_ascii=False))
    else:
        text = render(payload)
        if text:
            print(text)


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return int(args.func(args) or 0)
    except MemdeskError as exc:
        print(f"memdesk: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
