"""`memdesk search-all-users TEXT --all-users`: one search over every user's facts, each hit
naming its owner (issue 34). The scope is said on the command line; it is audited (invariant
541)."""

from __future__ import annotations

import argparse
from typing import Any

from ..access import cli_actor  # issue 14: cli:<os user>
from ..cross_user import ALL_USERS, LIMIT, search_all_users
from ..errors import ValidationError
from ..models import FactState
from . import CommandParser, Subcommands, emit
from . import types as t


def register(sub: Subcommands, common: CommandParser) -> None:
    p = sub.add_parser("search-all-users", parents=[common],
                       help="facts of every user containing TEXT (audited)")
    p.add_argument("text", help="words the fact contains (case-insensitive)")
    p.add_argument("--all-users", action="store_true",
                   help="confirm the scope: this reads every user's facts")
    p.add_argument("--state", action="append", choices=[s.value for s in FactState],
                   help="only facts in this state (repeatable)")
    p.add_argument("--limit", type=t.count(1, 10_000, "limit"), default=LIMIT)
    p.set_defaults(func=cmd_search_all_users)


def cmd_search_all_users(args: argparse.Namespace) -> int:
    if not args.all_users:
        raise ValidationError("search-all-users reads every user's facts: pass --all-users to "
                              "say so")
    res = search_all_users(args.runtime.service, args.text, actor=cli_actor(), scope=ALL_USERS,
                           states=set(args.state or ()) or None, limit=args.limit)

    def render(p: dict[str, Any]) -> str:
        head = (f"{p['total']} fact(s) of {p['users']} user(s) contain {p['query']!r}"
                + (f"; the newest {len(p['hits'])} shown" if len(p["hits"]) < p["total"] else ""))
        return "\n".join([head, *(f"{h['user_id']}  {h['fact_id']}  [{h['state']}]  {h['text']}"
                                  for h in p["hits"])])

    emit(args, res.model_dump(mode="json"), render)
    return 0
