"""`memdesk chat --user U [--session S] "message" [--json]`: one agent turn from the CLI."""

from __future__ import annotations

import argparse
import sys

from ..agent import run_turn
from ..errors import MemdeskError
from ..text import require_user
from ..trace import render_text
from ..unit_of_work import as_actor
from . import CommandParser, Subcommands, emit
from . import types as t
from .types import known_user


class TurnFailed(MemdeskError):
    """The model failed after the user's message was stored (the trace says what happened)."""


def register(sub: Subcommands, common: CommandParser) -> None:
    p = sub.add_parser("chat", parents=[common],
                       help="one agent turn: store the message, let the agent recall, write, "
                            "correct or forget, and print the reply (--json: the whole trace)")
    p.add_argument("--user", help="the user you are chatting as (required)")
    p.add_argument("--session", help="session id to continue (default: a new session)")
    p.add_argument("--new-user", action="store_true",
                   help="start a user the store does not know yet (without it, an unknown user "
                        "is an error, so a typo never starts a new user)")
    p.add_argument("--operator", type=t.label("operator"),
                   help="your name: the agent acts with your role and its writes are audited as "
                        "operator:NAME (default: the agent alone)")
    p.add_argument("message")
    p.set_defaults(func=cmd_chat)


def cmd_chat(args: argparse.Namespace) -> int:
    user = require_user(args.user)  # invariant 1: a missing scope is exit 2
    rt = args.runtime
    if not args.new_user:
        known_user(rt.service.store, user)
    # A continued session brings the user's earlier messages of it, so "sorry,
    # I meant Bath" reads against what was said before (replies are never kept, invariant 70)
    earlier = ([{"role": "user", "content": e.text}
                for e in sorted(rt.service.episodes(user), key=lambda e: e.timestamp)
                if e.session_id == args.session][-20:] if args.session else None)
    operator = as_actor(f"operator:{args.operator}") if args.operator else None
    trace = run_turn(rt.service, user, args.session, args.message, llm=rt.llm,
                     history=earlier, consolidation=rt.settings.agent_consolidation,
                     operator=operator)
    emit(args, trace.model_dump(mode="json"), lambda _: render_text(trace))
    if trace.error:
        print(f"memdesk: error: {trace.error} (your message was kept as episode "
              f"{trace.episode_id})", file=sys.stderr)
        return trace.error_code or TurnFailed.exit_code
    return 0
