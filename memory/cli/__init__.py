"""`memdesk` command line. Each feature module registers its own subcommands.

Exit codes: 0 ok, 2 usage or missing scope, 3 not found or denied, 4 refused by a tombstone,
5 conflict, 6 store unavailable, 7 malformed model output. Errors are one clear line on stderr.
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeAlias

from ..errors import MemdeskError
from ..inputs import json_safe, terminal_safe
from ..runtime import build_runtime
from .failures import translate

# Modules that add subcommands: each defines register(subparsers, common) -> None.
COMMAND_MODULES = [
    "memory.cli.core",
    "memory.cli.seed",  # issue 4: demo personas
    "memory.cli.consolidate",  # issue 5
    "memory.cli.review",  # issue 6 (the CLI layer; review/ holds the workflow)
    "memory.cli.es",  # issue 3: es bootstrap-users, migrate
    "memory.eval.cli",  # issue 7
    "memory.cli.erase",  # issue 11: erase a whole user
    "memory.cli.chat",  # issue 12: one agent turn
    "memory.cli.mcp",  # issue 15: MCP server and its tokens
    "memory.cli.export",  # issue 14: data-subject export and import
    "memory.cli.search",  # issue 34: an admin's search across users
]


# What each command module's register() is given, with the parser of the options every command
# takes (common_options): the table its subcommands are added to.
Subcommands: TypeAlias = "argparse._SubParsersAction[CommandParser]"


class UsageError(MemdeskError):
    exit_code = 2


class CommandParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one clear line, exit 2
        raise UsageError(f"{self.prog}: {message}")


def common_options() -> CommandParser:
    """Options every command takes: --store, --json (and --user where it reads memories)."""
    p = CommandParser(add_help=False)
    # SUPPRESS: given after the subcommand it wins; absent, the top-level value stands.
    p.add_argument("--store", default=argparse.SUPPRESS,
                   help="embedded:PATH or elasticsearch:URL (default: MEMDESK_STORE)")
    p.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                   help="machine-readable output")
    return p


def build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(prog="memdesk", description="Memdesk agent memory: inspect, write, recall.")
    parser.add_argument("--store", default=None,
                        help="embedded:PATH or elasticsearch:URL (default: MEMDESK_STORE)")
    parser.add_argument("--json", action="store_true", default=False, help="machine-readable output")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=CommandParser)
    common = common_options()
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub, common)
    return parser


def out(text: str, *, err: bool = False) -> None:
    """The one way CLI commands write human text: anything that would move the cursor is
    escaped first (invariant 68)."""
    print(terminal_safe(text), file=sys.stderr if err else sys.stdout)


def emit(args: argparse.Namespace, payload: Any, render: Callable[[Any], str] | None = None) -> None:
    """Print JSON with --json, else the human rendering (both terminal-safe, invariant 68)."""
    if getattr(args, "json", False) or render is None:
        print(json_safe(json.dumps(payload, indent=2, default=str, ensure_ascii=False)))
    else:
        text = render(payload)
        if text:
            out(text)


def _quiet_pipe() -> None:
    """The reader went away (`memdesk ... | head -1`): stop writing, say nothing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's final flush must not fail
    except (OSError, ValueError, io.UnsupportedOperation):
        pass  # stdout is not a real file (tests capture it): nothing to flush later


def main(argv: list[str] | None = None) -> int:
    try:
        try:
            args = build_parser().parse_args(argv)
            # Settings are read once, here; the store opens on first use (memory/runtime.py).
            args.runtime = build_runtime(store_url=args.store)
            try:
                code = int(args.func(args) or 0)
            finally:
                args.runtime.close()
            sys.stdout.flush()  # a closed pipe shows up here, inside the handlers below
            return code
        except MemdeskError:
            raise
        except (BrokenPipeError, KeyboardInterrupt):
            raise
        except Exception as exc:  # invariant 69: one clear line, never a traceback
            known = translate(exc)
            if known is None:
                out(f"memdesk: internal error ({type(exc).__name__}): {exc}", err=True)
                return 1
            raise known from exc
    except BrokenPipeError:
        _quiet_pipe()
        return 0
    except MemdeskError as exc:
        out(f"memdesk: error: {exc}", err=True)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
