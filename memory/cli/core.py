"""Core memory commands: users, write-episode, write-fact, recall, facts, chain, forget, audit."""

from __future__ import annotations

import argparse
from typing import Any

from ..access import cli_actor  # issue 14: cli:<os user>
from ..errors import StoreUnavailableError
from ..models import Contradiction, FactState, FactType
from ..search_config import PRESETS, Purpose
from . import CommandParser, Subcommands, emit
from . import types as t


def _user(p: argparse.ArgumentParser) -> None:
    p.add_argument("--user", required=True, help="the user whose memories this touches")


def register(sub: Subcommands, common: CommandParser) -> None:
    p = sub.add_parser("users", parents=[common], help="users with counts per type and state")
    p.set_defaults(func=cmd_users)

    p = sub.add_parser("write-episode", parents=[common], help="store one of the user's messages")
    _user(p)
    p.add_argument("text")
    p.add_argument("--timestamp", help="when the user said it (ISO); default now")
    p.add_argument("--session", type=t.label("session"))
    p.set_defaults(func=cmd_write_episode)

    p = sub.add_parser("write-fact", parents=[common], help="write a semantic fact")
    _user(p)
    p.add_argument("text")
    p.add_argument("--fact-type", default="world", choices=[t.value for t in FactType])
    p.add_argument("--confidence", type=t.CONFIDENCE, default=0.8)
    p.add_argument("--state", default="active", choices=["active", "candidate"])
    p.add_argument("--source", action="append", default=[], help="source episode id (repeatable)")
    p.add_argument("--supersedes", help="id of the fact this one replaces")
    p.add_argument("--contradiction", default="natural", choices=[c.value for c in Contradiction])
    p.add_argument("--valid-from")
    p.add_argument("--valid-to")
    p.add_argument("--reason", type=t.label("reason"))
    p.set_defaults(func=cmd_write_fact)

    p = sub.add_parser("retract", parents=[common], help="the user says a fact was never true")
    _user(p)
    p.add_argument("fact_id")
    p.add_argument("--reason", type=t.label("reason"))
    p.set_defaults(func=cmd_retract)

    p = sub.add_parser("recall", parents=[common], help="hybrid recall for one user")
    _user(p)
    p.add_argument("query")
    p.add_argument("--k", type=t.count(1, 200, "k"), default=10)
    p.add_argument("--preset", default="default", choices=sorted(PRESETS))
    p.add_argument("--include-superseded", action="store_true")
    p.add_argument("--include-catalog", action="store_true")
    p.add_argument("--explain", action="store_true", help="per-hit legs, multipliers, filters")
    p.add_argument("--no-bump", action="store_true",
                   help="read-only: do not count this recall as a use of the facts it returns")
    p.set_defaults(func=cmd_recall)

    p = sub.add_parser("facts", parents=[common], help="list facts, optionally as of a time")
    _user(p)
    p.add_argument("--state", action="append", choices=[s.value for s in FactState])
    p.add_argument("--fact-type", choices=[t.value for t in FactType])
    p.add_argument("--as-of-valid", help="what was true on this date (valid time)")
    p.add_argument("--as-of-recorded", help="what the store believed on this date (record time)")
    p.set_defaults(func=cmd_facts)

    p = sub.add_parser("chain", parents=[common], help="a fact's supersession chain, oldest first")
    _user(p)
    p.add_argument("fact_id")
    p.set_defaults(func=cmd_chain)

    p = sub.add_parser("forget", parents=[common],
                       help="hard-delete one memory; its text leaves the audit log and tombstones")
    _user(p)
    p.add_argument("memory_id")
    p.add_argument("--reason", type=t.label("reason"))
    p.add_argument("--cascade", action="store_true",
                   help="an episode: also forget the facts and playbooks derived from it")
    p.set_defaults(func=cmd_forget)

    p = sub.add_parser("audit", parents=[common], help="the user's audit log, newest first")
    _user(p)
    p.add_argument("--limit", type=t.count(1, 100_000, "limit"), default=50)
    p.add_argument("--action")
    p.set_defaults(func=cmd_audit)


def _fact_line(f: dict) -> str:
    dates = ""
    if f.get("valid_from") or f.get("valid_to"):
        dates = f"  valid {str(f.get('valid_from') or '…')[:10]}→{str(f.get('valid_to') or '…')[:10]}"
    return (f"{f['id']}  [{f['state']}/{f['fact_type']} {f['confidence']:.2f}]  {f['text']}{dates}")


def cmd_users(args: argparse.Namespace) -> int:
    rows = [u.model_dump() for u in args.runtime.service.users()]

    def render(rows: list[dict[str, Any]]) -> str:
        if not rows:
            return "no users yet (run `memdesk seed` for demo personas)"
        lines = [f"{'user':<24}{'episodes':>9}{'playbooks':>10}  facts"]
        for r in rows:
            facts = " ".join(f"{k}={v}" for k, v in r["facts"].items() if v)
            lines.append(f"{r['user_id']:<24}{r['episodes']:>9}{r['playbooks']:>10}  {facts or '-'}")
        return "\n".join(lines)

    emit(args, rows, render)
    return 0


def cmd_write_episode(args: argparse.Namespace) -> int:
    ep = args.runtime.service.write_episode(args.user, args.text, timestamp=args.timestamp,
                                      session_id=args.session, actor=cli_actor())
    emit(args, ep.model_dump(mode="json"), lambda e: f"episode {e['id']} stored")
    return 0


def cmd_write_fact(args: argparse.Namespace) -> int:
    res = args.runtime.service.write_fact(
        args.user, args.text, fact_type=args.fact_type, confidence=args.confidence,
        state=args.state, source_episode_ids=args.source, supersedes_id=args.supersedes,
        contradiction=args.contradiction, valid_from=args.valid_from, valid_to=args.valid_to,
        actor=cli_actor(), reason=args.reason)
    payload = res.model_dump(mode="json")

    def render(p: dict[str, Any]) -> str:
        out = [f"fact {p['fact']['id']} stored ({p['fact']['state']})"]
        if p.get("replaced"):
            out.append(f"{p['replaced']['id']} is now {p['replaced']['state']}")
        if p.get("tombstone"):
            out.append(f"tombstone {p['tombstone']['id']} keeps {p['tombstone']['text']!r} dead")
        if p.get("held"):  # issue 11: possibly restates a dead value; a person decides
            out.append(f"held for review: {p['held']['reason']}")
        return "\n".join(out)

    emit(args, payload, render)
    return 0


def cmd_retract(args: argparse.Namespace) -> int:
    tomb = args.runtime.service.retract(args.user, args.fact_id, actor=cli_actor(), reason=args.reason)
    emit(args, tomb.model_dump(mode="json"), lambda t: f"{args.fact_id} retracted; tombstone {t['id']}")
    return 0


def cmd_recall(args: argparse.Namespace) -> int:
    config = PRESETS[args.preset].model_copy(update={
        "k": args.k,
        "include_superseded": args.include_superseded or PRESETS[args.preset].include_superseded,
        "include_catalog": args.include_catalog or PRESETS[args.preset].include_catalog,
    })
    # invariant 15: explain and --no-bump recalls are read-only (issue 17: repeatable evaluation)
    purpose = Purpose.EXPLAIN if args.explain else Purpose.EVAL if args.no_bump else Purpose.AGENT
    t.known_user(args.runtime.service.store, args.user)
    res = args.runtime.service.recall(args.user, args.query, config=config, purpose=purpose,
                                explain=args.explain)
    payload = {
        "hits": [{"rank": h.rank, "id": h.id, "kind": h.doc.kind.value,
                  "text": h.doc.search_text(), "fused_score": h.fused_score,
                  "state": getattr(h.doc, "state", None),
                  "contradicted": h.id in res.contradicted,  # invariant 65: explain only
                  **({"legs": {k: v.model_dump() for k, v in h.legs.items()},
                      "multipliers": h.multipliers.model_dump()} if args.explain else {})}
                 for h in res.hits],
        "explain": res.explain.model_dump(mode="json") if res.explain else None,
    }

    def render(p: dict[str, Any]) -> str:
        lines = []
        for h in p["hits"]:
            kind = h["kind"] + (", contradicted" if h["contradicted"] else "")
            lines.append(f"{h['rank']:>2}. [{kind}] {h['text'][:100]}  ({h['id']}, "
                         f"score {h['fused_score']:.4f})")
            if args.explain:
                legs = ", ".join(f"{k} #{v['rank']} raw {v['raw_score']:.3f}" for k, v in h["legs"].items())
                m = h["multipliers"]
                lines.append(f"      legs: {legs}; decay {m['decay']:.3f} boost {m['use_boost']:.3f} "
                             f"prior {m['prior']:.2f}; question {m.get('question', 1):.2f} "
                             f"time {m.get('time', 1):.2f} adjacency {m.get('adjacency', 1):.2f} "
                             f"lift {m.get('lift', 1):.2f}")
        if p["explain"]:
            e = p["explain"]
            lines.append(f"path: {e['path']}; candidates {e['candidates']}")
            if e.get("lexical_query") and e["lexical_query"] != e["query"]:
                lines.append(f"BM25 query (the user's own name dropped): {e['lexical_query']}")
            if e.get("lexical_extra"):  # invariant 169
                lines.append("BM25 lexicon words: " + ", ".join(
                    f"{t} ×{w:g}" for t, w in sorted(e["lexical_extra"].items())))
            if e.get("dense_weight") is not None:
                cov = e.get("lexical_coverage")
                lines.append(f"dense weight {e['dense_weight']:.2f}" + (
                    f", facts, playbooks and catalog {e['distilled_dense_weight']:.2f}"
                    if e.get("distilled_dense_weight") is not None else "") + (
                    f" (the best BM25 hits hold {cov:.0%} of the query's words)" if cov is not None
                    else ""))
            lines.append("filters removed: " + ", ".join(f"{f['name']}={f['removed']}" for f in e["filters"]))
        return "\n".join(lines) or "no hits"

    emit(args, payload, render)
    return 0


def cmd_facts(args: argparse.Namespace) -> int:
    t.known_user(args.runtime.service.store, args.user)
    facts = args.runtime.service.facts(args.user, states=args.state, fact_type=args.fact_type,
                                 as_of_valid=args.as_of_valid, as_of_recorded=args.as_of_recorded)
    rows = [f.model_dump(mode="json") for f in facts]
    emit(args, rows, lambda rows: "\n".join(_fact_line(f) for f in rows) or "no facts")
    return 0


def cmd_chain(args: argparse.Namespace) -> int:
    rows = [f.model_dump(mode="json") for f in args.runtime.service.chain(args.user, args.fact_id)]
    emit(args, rows, lambda rows: "\n  ↓\n".join(_fact_line(f) for f in rows))
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    res = args.runtime.service.forget(args.user, args.memory_id, actor=cli_actor(), reason=args.reason,
                                cascade=args.cascade)

    def render(p: dict[str, Any]) -> str:
        out = [(f"{', '.join(p['forgotten'])} deleted; text redacted from {p['redacted_events']} "
               f"audit events and {p['redacted_tombstones']} tombstones")]
        if p["kept"]:
            out.append(f"derived from it and kept: {', '.join(p['kept'])} "
                       "(forget again with --cascade to delete them too)")
        out += [f"warning: {r}" for r in p["residue"]]
        return "\n".join(out)

    emit(args, res.model_dump(mode="json"), render)
    # Invariant 459: text a scan still finds on disk is no completed forget for a script.
    return StoreUnavailableError.exit_code if res.residue else 0


def cmd_audit(args: argparse.Namespace) -> int:
    rows = [e.model_dump(mode="json") for e in
            args.runtime.service.audit(args.user, limit=args.limit, action=args.action)]
    emit(args, rows, lambda rows: "\n".join(
        f"{e['at'][:19]}  {e['actor']:<16} {e['action']:<16} {e['outcome']:<8} "
        f"{','.join(e['target_ids'])}  {e.get('reason') or ''}" for e in rows) or "no events")
    return 0
