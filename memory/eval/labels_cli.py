"""`memdesk eval labels [--user U]` and `memdesk eval export-labels --since DATE --out FILE
[--user U]`: review decisions as labels (issue 32). Without --user the scope is every user of
the store, named one by one (invariant 40)."""

from __future__ import annotations

import argparse
from datetime import date
from pathlib import Path
from typing import Any

from review.label_source import erased

from ..access import cli_actor
from ..cli import CommandParser, Subcommands, emit, out
from ..cli.export import _check_out, _write_private
from ..cli.types import known_user
from ..errors import ValidationError
from .label_export import cases_jsonl, export_labels
from .label_table import render_tables


def register(esub: Subcommands, common: CommandParser) -> None:
    p = esub.add_parser("labels", parents=[common],
                        help="review decisions as labels: precision per reader version")
    p.add_argument("--user", action="append", help="only this user (repeatable; default all)")
    p.set_defaults(func=cmd_labels)

    p = esub.add_parser("export-labels", parents=[common],
                        help="decided review examples as a statements file for `eval agent`")
    p.add_argument("--since", required=True, help="first decision day, YYYY-MM-DD")
    p.add_argument("--out", required=True, help="the statements file (JSONL) to write")
    p.add_argument("--user", action="append", help="only this user (repeatable; default all)")
    p.set_defaults(func=cmd_export_labels)


def _users(args: argparse.Namespace) -> list[str]:
    store = args.runtime.service.store
    if args.user:
        return [known_user(store, u) for u in args.user]
    users = sorted(store.users())
    if not users:
        raise ValidationError("no users in this store: nothing was decided yet")
    return users


def cmd_labels(args: argparse.Namespace) -> int:
    from review.label_source import label_tables

    tables = label_tables(args.runtime.service, _users(args))
    payload = tables.model_dump(mode="json", exclude={"labels"})
    payload["labels"] = len(tables.labels)
    emit(args, payload, lambda _: render_tables(tables))
    return 0


def cmd_export_labels(args: argparse.Namespace) -> int:
    try:
        since = date.fromisoformat(args.since)
    except ValueError:
        raise ValidationError(f"--since {args.since!r}: expected a date, YYYY-MM-DD") from None
    path = Path(args.out)
    _check_out(path)
    svc = args.runtime.service
    for user in args.user or []:  # invariant 494: named, an erased user is refused outright
        if erased(svc, user):
            raise ValidationError(f"{user} was erased: an erased user's examples are never "
                                  "exported")
    res = export_labels(svc, _users(args), since=since, actor=cli_actor())
    _write_private(path, cases_jsonl(res.cases))
    payload = {"out": str(path), "cases": len(res.cases), "labels": res.labels,
               "left_out": res.left_out, "refused_users": len(res.refused_users)}

    def render(p: dict[str, Any]) -> str:
        lines = [f"wrote {p['cases']} cases from {p['labels']} labels to {p['out']}"]
        lines += [f"  left out {n}: {why}" for why, n in p["left_out"].items()]
        if p["refused_users"]:
            lines.append(f"  refused: {p['refused_users']} erased user(s)")
        return "\n".join(lines)

    emit(args, payload, render)
    if res.refused_users and not args.json:
        out("an erased user's words are never exported (invariant 494)", err=True)
    return 0
