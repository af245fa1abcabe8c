"""`memdesk consolidate --user U [--dry-run] [--json]` and `memdesk consolidate undo PLAN_ID`."""

from __future__ import annotations

import argparse
from typing import Any

from ..consolidation.apply import apply_plan, undo_plan
from ..consolidation.planner import make_plan
from ..text import require_user
from . import CommandParser, Subcommands, emit


def register(sub: Subcommands, common: CommandParser) -> None:
    p = sub.add_parser("consolidate", parents=[common],
                       help="turn a user's new episodes into facts and playbooks (a reviewable plan)")
    p.add_argument("--user", help="the user whose episodes to consolidate (required)")
    p.add_argument("--dry-run", action="store_true", help="show the plan's diff; write nothing")
    p.add_argument("--only", action="append", default=None, metavar="OP_ID",
                   help="apply only these op ids of the plan (repeatable; partial approval)")
    p.set_defaults(func=cmd_consolidate)
    actions = p.add_subparsers(dest="consolidate_action", required=False)
    u = actions.add_parser("undo", parents=[common], help="undo an applied plan from the audit log")
    u.add_argument("plan_id")
    u.add_argument("--user", default=argparse.SUPPRESS, help="the plan's user (required)")
    u.set_defaults(func=cmd_undo)


def cmd_consolidate(args: argparse.Namespace) -> int:
    user = require_user(args.user)  # invariant 1: missing scope is exit 2
    svc, llm = args.runtime.service, args.runtime.llm
    plan = make_plan(svc, user, llm)
    payload = {"mode": llm.mode, "plan": plan.model_dump(mode="json"), "applied": None}
    if not args.dry_run:
        payload["applied"] = apply_plan(svc, plan, op_ids=args.only).model_dump(mode="json")

    def render(p: dict[str, Any]) -> str:
        u = plan.usage
        held = (f" · held to the schema by {u.structured}"
                + (f" ({u.invalid_replies} invalid reply asked again)" if u.invalid_replies
                   else "") if u.structured else "")  # invariant 436: which mode ran
        fallback = getattr(llm, "fallback", None)  # invariant 438
        out = [f"LLM: {llm.mode}{held}" + (f" · fallback: {fallback}" if fallback else ""),
               plan.render_diff()]
        if p["applied"] is None:
            out.append("dry run: nothing written")
        else:
            a = p["applied"]
            out.append(f"applied {len(a['applied'])} ops ({len(a['already'])} already applied, "
                       f"{len(a['declined'])} declined, {len(a.get('held') or [])} playbook "
                       f"op(s) kept for the next plan); watermark {a['watermark']}")
            if a["applied"]:
                out.append(f"undo with: memdesk consolidate undo {plan.id} --user {user}")
        return "\n".join(out)

    emit(args, payload, render)
    return 0


def cmd_undo(args: argparse.Namespace) -> int:
    res = undo_plan(args.runtime.service, require_user(getattr(args, "user", None)),
                    args.plan_id)
    emit(args, res.model_dump(mode="json"),
         lambda r: f"plan {r['plan_id']} undone: {len(r['reverted'])} memories reverted; "
                   f"watermark back to {r['watermark'] or '(start)'}")
    return 0
