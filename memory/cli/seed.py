"""`memdesk seed`: load the demo personas and the shared catalog (issue 4).

Idempotent: fixed ids and content-derived audit ids, so a second run adds nothing (invariant 51).
`make demo` runs it with --if-empty, which leaves a store that already holds data untouched.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..personas.loader import seed
from . import CommandParser, Subcommands, emit


def register(sub: Subcommands, common: CommandParser) -> None:
    p = sub.add_parser("seed", parents=[common],
                       help="load the demo personas and catalog (idempotent)")
    p.add_argument("--if-empty", action="store_true",
                   help="do nothing when the store already holds any user or catalog document")
    p.add_argument("--only", action="append", metavar="SCOPE",
                   help="load only this persona (user id) or 'catalog'; repeatable")
    p.set_defaults(func=cmd_seed)


def cmd_seed(args: argparse.Namespace) -> int:
    service = args.runtime.service
    report = seed(service.store, if_empty=args.if_empty, only=args.only)
    payload = {"skipped_reason": report.skipped_reason, "added": report.added,
               "files": [f.model_dump() for f in report.files]}

    def render(p: dict[str, Any]) -> str:
        if p["skipped_reason"]:
            return f"seed skipped: {p['skipped_reason']}"
        lines = [f"{f['scope']:<20} {f['records']:>4} records: {f['added']} added, "
                 f"{f['unchanged']} unchanged, {f['kept']} kept as changed since seeding"
                 for f in p["files"]]
        return "\n".join([*lines, f"{p['added']} records added"])

    emit(args, payload, render)
    return 0
