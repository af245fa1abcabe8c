"""`memdesk erase --user U --yes`: erase everything a user owns (issue 11, invariant 67)."""

from __future__ import annotations

import argparse
from typing import Any

from ..access import cli_actor  # issue 14: cli:<os user>
from ..errors import StoreUnavailableError, ValidationError
from ..forgetting import erase_user
from . import CommandParser, Subcommands, emit


def register(sub: Subcommands, common: CommandParser) -> None:
    p = sub.add_parser("erase", parents=[common],
                       help="erase every memory, tombstone text and audit event of one user")
    p.add_argument("--user", required=True, help="the user to erase")
    p.add_argument("--yes", action="store_true", help="confirm: this cannot be undone")
    p.set_defaults(func=cmd_erase)


def cmd_erase(args: argparse.Namespace) -> int:
    if not args.yes:
        raise ValidationError(f"erase deletes everything user {args.user!r} owns and cannot be "
                              "undone: pass --yes to confirm")
    res = erase_user(args.runtime.service, args.user, actor=cli_actor())

    def render(p: dict[str, Any]) -> str:
        # Invariant 459: "erased" only when a scan of the store's files finds none of the text.
        head = "erased" if not p["residue"] else "deleted from the store's records, NOT yet " \
            "gone from disk"
        out = [(f"user {p['user_id']} {head}: {p['memories']} memories deleted, "
               f"{p['tombstones']} tombstones kept as keyed hashes, {p['audit_events']} audit "
               "events replaced by one")]
        return "\n".join([*out, *(f"warning: {r}" for r in p["residue"])])

    emit(args, res.model_dump(mode="json"), render)
    return StoreUnavailableError.exit_code if res.residue else 0
