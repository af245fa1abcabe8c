"""Session context of episodes on Elasticsearch (issue 17; invariants 101 and 104). Pure: which
sessions a batch touched, the session read, and the partial updates; store.py sends them.

An episode's `context` field holds the texts of its neighbouring turns of the same session
(`memory.lexical.session_contexts`, ±`IndexParams.window`), so the BM25 leg finds a turn through
what was said around it (`queries.bm25_query`'s context clause) and the hit is still the turn.
It is derived index data, like the vector: filled after a batch lands, never audited, never
part of the model (`results.DERIVED_FIELDS`), and recomputed without a forgotten turn before
that turn is deleted (invariant 104).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from elastic_transport import ObjectApiResponse

from ...lexical import session_contexts
from ...models import Episode, MemoryKind
from ..base import DeleteMemory, Op, PutMemory, UpdateMemory

SESSION_FIELDS = ("id", "session_id", "text", "timestamp", "context")
SESSION_SORT = [{"timestamp": "asc"}, {"id": "asc"}]  # ends in the unique id: search_after pages
ALL_SORT = [{"user_id": "asc"}, {"session_id": "asc"}, {"timestamp": "asc"}, {"id": "asc"}]
EPISODIC = MemoryKind.EPISODIC.value

Session = tuple[str, str]  # (user, session)


def session_query(user_id: str, session_ids: Iterable[str]) -> dict:
    """One user's turns of these sessions (the user filter is never optional)."""
    return {"bool": {"filter": [{"term": {"user_id": user_id}},
                                {"terms": {"session_id": sorted(set(session_ids))}}]}}


def all_sessions_query() -> dict:
    """Every episode that belongs to a session (`memdesk es reindex` recomputes them all)."""
    return {"bool": {"filter": [{"exists": {"field": "session_id"}}]}}


def _place(src: Mapping | None) -> tuple | None:
    if src is None:
        return None
    return src.get("user_id"), src.get("session_id"), src.get("text"), src.get("timestamp")


def touched_sessions(ops: list[Op], current: Mapping[tuple[str, str], dict | None]) -> set[Session]:
    """The (user, session) pairs whose contexts a batch can change: a put of an episode with a
    session, an update that changes an episode's text, session or time (its old and new session),
    a delete of one. `current` is what the batch's mget saw ({(index name, id): {"src", ...}}),
    read before planning."""
    out: set[Session] = set()
    for op in ops:
        if isinstance(op, PutMemory) and isinstance(op.doc, Episode):
            if op.doc.session_id is not None:
                out.add((op.doc.user_id, op.doc.session_id))
        elif isinstance(op, UpdateMemory) and isinstance(ep := op.doc, Episode):
            have = current.get((EPISODIC, ep.id))
            old = have["src"] if have else None
            new = ep.model_dump(mode="json")
            if old is not None and _place(old) == _place(new):
                continue  # same text at the same place: every context stays (writes.keep_context)
            for src in (old, new):
                if src is not None and src.get("session_id") is not None \
                        and src.get("user_id") == ep.user_id:
                    out.add((ep.user_id, src["session_id"]))
        elif isinstance(op, DeleteMemory) and MemoryKind(op.kind) == MemoryKind.EPISODIC:
            have = current.get((EPISODIC, op.id))
            src = have["src"] if have else None
            if (op.user_id is not None and src is not None and src.get("user_id") == op.user_id
                    and src.get("session_id")):
                out.add((op.user_id, src["session_id"]))
    return out


def final_episodes(ops: list[Op]) -> dict[str, Episode | None]:
    """Each episode a batch wrote, as the batch leaves it (None: deleted). The session read may
    not see the batch's own writes yet (episodes are written without a refresh, invariant 24),
    so they are merged in from here."""
    out: dict[str, Episode | None] = {}
    for op in ops:
        if isinstance(op, (PutMemory, UpdateMemory)) and isinstance(op.doc, Episode):
            out[op.doc.id] = op.doc
        elif isinstance(op, DeleteMemory) and MemoryKind(op.kind) == MemoryKind.EPISODIC:
            out[op.id] = None
    return out


def changed_contexts(user_id: str, sessions: Iterable[str], stored: list[dict],
                     final: Mapping[str, Episode | None], window: int) -> dict[str, str]:
    """{episode id: context} for the turns of these sessions of one user whose stored context
    differs from what their neighbours now say, in session then time order. `stored` are the
    session read's sources (SESSION_FIELDS); `final` overrides them (the batch's own episodes,
    or the turns being forgotten as None)."""
    wanted = set(sessions)
    turns: dict[str, dict[str, tuple[str, str, datetime]]] = {s: {} for s in sorted(wanted)}
    have: dict[str, str] = {}
    for src in stored:
        have[src["id"]] = src.get("context") or ""
        if src["id"] in final or src.get("session_id") not in wanted:
            continue
        turns[src["session_id"]][src["id"]] = (src["id"], src.get("text") or "",
                                               datetime.fromisoformat(src["timestamp"]))
    for doc_id, ep in final.items():
        if ep is not None and ep.user_id == user_id and ep.session_id in wanted:
            turns[ep.session_id][doc_id] = (doc_id, ep.search_text(), ep.timestamp)
    out: dict[str, str] = {}
    for members in turns.values():
        for doc_id, ctx in session_contexts(list(members.values()), window).items():
            if ctx != have.get(doc_id, ""):
                out[doc_id] = ctx
    return out


def update_lines(alias: str, contexts: Mapping[str, str]) -> list[dict]:
    """Partial updates of the `context` field only. No upsert: a turn deleted meanwhile (a
    forget) answers 404 and is never brought back; no if_seq_no: the context depends on the
    neighbours, not on the turn's own version, so the newest neighbours' words win."""
    lines: list[dict] = []
    for doc_id, ctx in contexts.items():
        lines += [{"update": {"_index": alias, "_id": doc_id, "retry_on_conflict": 3}},
                  {"doc": {"context": ctx}}]
    return lines


def failed_items(resp: Mapping[str, Any] | ObjectApiResponse[Any]) -> list[dict]:
    """Items of a context bulk that did not land, a turn deleted meanwhile (404) excepted."""
    return [r for item in resp.get("items", []) for r in item.values()
            if r.get("status", 200) >= 300 and r.get("status") != 404]
