"""`memdesk review ...`: list, show, decide, bulk and history (issue 6).

Scope is explicit: `list` and `history` need --user (repeatable) or --all-users; `show` and
`decide` act on one user's item (invariant 40).
"""

from __future__ import annotations

import argparse
from datetime import timedelta
from typing import Any

from review.decisions import decide, decide_many
from review.models import Decision, ItemKind, QueueFilter
from review.queue import history, list_queue, show_item

from ..errors import ScopeError
from ..llm.judge import second_opinion
from ..models import FactType
from ..service import MemoryService
from . import CommandParser, Subcommands, emit
from . import out as out_line
from . import types as t


def _scope(p: argparse.ArgumentParser) -> None:
    p.add_argument("--user", action="append", default=[], help="a user to include (repeatable)")
    p.add_argument("--all-users", action="store_true", help="explicitly include every user")


def _users(args: argparse.Namespace, service: MemoryService) -> list[str]:
    if args.all_users:
        users = [u.user_id for u in service.users()]
        if not users:
            raise ScopeError("--all-users: the store has no users yet")
        return users
    if not args.user:
        raise ScopeError("a scope is required: pass --user U (repeatable) or --all-users")
    return args.user


def register(sub: Subcommands, common: CommandParser) -> None:
    review = sub.add_parser("review", help="the operator's review queue")
    rsub = review.add_subparsers(dest="review_command", required=True)

    p = rsub.add_parser("list", parents=[common], help="pending items, oldest first")
    _scope(p)
    p.add_argument("--kind", action="append", choices=[k.value for k in ItemKind])
    p.add_argument("--fact-type", action="append", choices=[t.value for t in FactType])
    p.add_argument("--min-confidence", type=t.CONFIDENCE)
    p.add_argument("--max-confidence", type=t.CONFIDENCE)
    p.add_argument("--min-age-days", type=t.DAYS, help="waiting at least this many days")
    p.add_argument("--max-age-days", type=t.DAYS, help="waiting at most this many days")
    p.add_argument("--newest-first", action="store_true")
    p.add_argument("--limit", type=t.count(0, 100_000, "limit"), default=200, help="items shown (0: all; default 200)")
    p.add_argument("--offset", type=t.count(0, 10**9, "offset"), default=0)
    p.set_defaults(func=cmd_list)

    p = rsub.add_parser("show", parents=[common], help="one item with its evidence")
    p.add_argument("item_id")
    p.add_argument("--user", required=True)
    p.set_defaults(func=cmd_show)

    p = rsub.add_parser("decide", parents=[common], help="decide one item")
    p.add_argument("item_id")
    p.add_argument("decision", choices=[d.value for d in Decision])
    _decision_options(p)
    p.add_argument("--rev", type=t.count(1, 10**9, "rev"), help="the revision you reviewed (from list/show)")
    p.add_argument("--text", help="edit: the corrected text")
    p.add_argument("--into", help="merge: the active fact to merge into")
    p.set_defaults(func=cmd_decide)

    p = rsub.add_parser("bulk", parents=[common], help="approve or reject several items")
    p.add_argument("decision", choices=[d.value for d in (Decision.APPROVE, Decision.REJECT)])
    p.add_argument("item_ids", nargs="+")
    _decision_options(p)
    p.set_defaults(func=cmd_bulk)

    p = rsub.add_parser("history", parents=[common], help="decided items: who, what, when")
    _scope(p)
    p.add_argument("--limit", type=t.count(1, 10_000, "limit"), default=50)
    p.set_defaults(func=cmd_history)


def _decision_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--user", required=True, help="the user whose item this is")
    p.add_argument("--operator", required=True, type=t.label("operator", required=True), help="your name, recorded in the audit log")
    p.add_argument("--reason", type=t.label("reason"),
                   help="required to reject (not to keep a proposed retraction's fact)")
    p.add_argument("--comment", type=t.label("comment"))


def _days(value: float | None) -> timedelta | None:
    return None if value is None else timedelta(days=value)


def cmd_list(args: argparse.Namespace) -> int:
    service = args.runtime.service
    flt = QueueFilter(users=_users(args, service), kinds=set(args.kind) if args.kind else None,
                      fact_types=set(args.fact_type) if args.fact_type else None,
                      min_confidence=args.min_confidence, max_confidence=args.max_confidence,
                      min_age=_days(args.min_age_days), max_age=_days(args.max_age_days),
                      newest_first=args.newest_first, limit=args.limit or None,
                      offset=args.offset)
    listing = list_queue(service, flt)

    def render(p: dict[str, Any]) -> str:
        lines = [f"{i['id']}  rev {i['rev']}  [{i['user_id']} {i['kind']} {i['fact_type']} "
                 f"{i['confidence']:.2f}]  "
                 + ("the user may have said this was never true: "
                    if i["kind"] == ItemKind.RETRACTION.value else "") + i["text"]
                 for i in p["items"]]
        badges = "  ".join(f"{u}: " + ", ".join(f"{k}={n}" for k, n in c.items() if n)
                           for u, c in p["counts"].items() if any(c.values()))
        return "\n".join([*lines, f"{p['total']} matching; pending {badges or 'none'}"])

    emit(args, listing.model_dump(mode="json"), render)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    detail = show_item(args.runtime.service, args.user, args.item_id)
    note = second_opinion(args.runtime.llm, detail)  # invariant 440: advice beside the evidence

    def render(p: dict[str, Any]) -> str:
        item, ev = p["item"], p["evidence"]
        head = (f"{item['id']}  rev {item['rev']}  {item['kind']}  [{item['fact_type']} "
                f"{item['confidence']:.2f}]  {item['text']}")
        lines = [head]
        if item["kind"] == ItemKind.RETRACTION.value:  # invariant 591: what it would kill
            lines[0] = (f"{item['id']}  rev {item['rev']}  retraction  [{item['confidence']:.2f}]"
                        f"  the user may have said this was never true: {item['text']}")
            if ev["replaces"]:
                lines.append(f"  would retract: {ev['replaces']['id']} "
                             f"({ev['replaces']['state']})  {ev['replaces']['text']}")
            if ev["reason"]:
                lines.append(f"  why proposed: {ev['reason']}")
            if ev["stale"]:
                lines.append(f"  no longer applies: {ev['stale']} (keep closes it)")
            lines.append(f"  decide: memdesk review decide {item['id']} retract|keep "
                         f"--user {item['user_id']} --operator NAME --rev {item['rev']}")
        elif ev["replaces"]:
            lines.append(f"  would replace: {ev['replaces']['id']}  {ev['replaces']['text']}")
        lines += [f"  episode {e['id']}: {e['text']}" for e in ev["episodes"]]
        lines += [f"  near ({n['similarity']:.2f}, {n['fact']['state']}): {n['fact']['text']}"
                  for n in ev["nearest"]]
        lines += [f"  tombstone {t['id']} ({t['kind']} by {t['actor']}): {t['text']}"
                  for t in ev["tombstones"]]
        if ev["plan_id"]:
            lines.append(f"  plan {ev['plan_id']}: {len(ev['plan_events'])} audit events")
        if p["judge"]:
            lines.append(f"  {p['judge']['text']}")
        return "\n".join(lines)

    emit(args, {**detail.model_dump(mode="json"),
                "judge": note.model_dump(mode="json") if note else None}, render)
    return 0


def cmd_decide(args: argparse.Namespace) -> int:
    res = decide(args.runtime.service, args.user, args.item_id, args.decision,
                 operator=args.operator, expected_rev=args.rev, text=args.text, into=args.into,
                 reason=args.reason, comment=args.comment)
    emit(args, res.model_dump(mode="json"),
         lambda p: f"{p['fact']['id']} {p['decision']}: now {p['fact']['state']}")
    return 0


def cmd_bulk(args: argparse.Namespace) -> int:
    out = decide_many(args.runtime.service, [(args.user, i, None) for i in args.item_ids],
                      args.decision, operator=args.operator, reason=args.reason,
                      comment=args.comment)
    emit(args, [o.model_dump(mode="json") for o in out],
         lambda rows: "\n".join(f"{r['fact_id']}: " + ("ok" if r["ok"] else r["error"])
                                for r in rows))
    # Any item left undecided makes the run fail with that item's exit code (first failure),
    # named in one line on stderr (issue 11, invariant 69).
    failed = [o for o in out if not o.ok]
    if failed:
        out_line(f"memdesk: error: {len(failed)} of {len(out)} items not decided; first: "
                 f"{failed[0].fact_id}: {failed[0].error}", err=True)
    return next((o.exit_code or 1 for o in failed), 0)


def cmd_history(args: argparse.Namespace) -> int:
    service = args.runtime.service
    rows = [h.model_dump(mode="json") for h in history(service, _users(args, service),
                                                       limit=args.limit)]
    emit(args, rows, lambda rows: "\n".join(
        f"{r['at'][:19]}  {r['operator']:<12} {r['decision']:<10} {r['user_id']}  {r['fact_id']}"
        f"  {r['text'] or ''}" + (f"  ({r['comment']})" if r["comment"] else "")
        for r in rows) or "no decisions yet")
    return 0
