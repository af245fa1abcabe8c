"""Planning a write batch: what to read first, the bulk actions in op order, the refresh
policy and the reading of the bulk response. No client here: the store sends what this plans.

Invariant 23: there is no multi-document transaction, so every op is checked against the
stored documents (one mget) before anything is written; updates, deletes and watermark moves
carry if_seq_no/if_primary_term; ids are the memories' own, so re-applying converges.
Invariant 24: batches holding only episodes and audit events do not force a refresh.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import datetime

import numpy as np

from ...errors import ConflictError, MemdeskError
from ...values import index_entry
from ..base import (
    AppendAudit,
    DeleteMemory,
    Op,
    PutMemory,
    PutTombstone,
    SetWatermark,
    UpdateMemory,
)
from .indices import IndexNames
from .results import has_direction, model_fields, to_source

Action = tuple[dict, "dict | None", str]  # (bulk action line, source or None, what)
UNREFRESHED = ("memory:episodic", "audit")


def watermark_id(user_id: str, name: str) -> str:
    return "wm_" + hashlib.sha1(f"{user_id}\x1f{name}".encode()).hexdigest()


def documents_read(ops: list[Op]) -> list[tuple[str, str]]:
    """(index name, id) of every stored document an op must be checked against."""
    wanted: list[tuple[str, str]] = []
    for op in ops:
        if isinstance(op, (PutMemory, UpdateMemory)):
            wanted.append((op.doc.kind.value, op.doc.id))
        elif isinstance(op, DeleteMemory):
            wanted.append((op.kind.value, op.id))
        elif isinstance(op, SetWatermark):
            wanted.append(("state", watermark_id(op.user_id, op.name)))
    return list(dict.fromkeys(wanted))


def current_from_mget(wanted: list[tuple[str, str]], docs: list[dict]) -> dict:
    return {key: ({"src": d["_source"], "seq_no": d.get("_seq_no"),
                   "term": d.get("_primary_term")} if d.get("found") else None)
            for key, d in zip(wanted, docs)}


class Planner:
    """Turns ops into bulk actions against `current` (what the mget saw), in op order."""

    def __init__(self, names: IndexNames, current: dict, vectors: dict[str, np.ndarray],
                 next_seq: Callable[[], int]):
        self.names, self.current, self.vectors, self.next_seq = names, current, vectors, next_seq

    def plan(self, ops: list[Op]) -> list[Action]:
        actions: list[Action] = []
        for op in ops:
            if isinstance(op, PutMemory):
                actions += self._plan_put(op, self.current, self.vectors)
            elif isinstance(op, UpdateMemory):
                actions += self._plan_update(op, self.current, self.vectors)
            elif isinstance(op, DeleteMemory):
                actions += self._plan_delete(op, self.current)
            elif isinstance(op, PutTombstone):
                t = op.tombstone
                key, terms = index_entry(t.text)  # the lookup fields (invariant 63)
                src = {**t.model_dump(mode="json"), "seq": self.next_seq(), "match_key": key,
                       "match_terms": terms}
                if has_direction(self.vectors[t.id]):
                    src["vector"] = [float(x) for x in self.vectors[t.id]]
                actions.append(({"create": {"_index": self.names.alias("tombstones"),
                                            "_id": t.id}}, src, "tombstone"))
            elif isinstance(op, AppendAudit):
                e = op.event
                # Append-only: op_type create; an existing id is this same event (a retry).
                actions.append(({"create": {"_index": self.names.alias("audit"), "_id": e.id}},
                                {**e.model_dump(mode="json"), "seq": self.next_seq()}, "audit"))
            elif isinstance(op, SetWatermark):
                actions += self._plan_watermark(op, self.current)
            else:  # pragma: no cover - the Op union is closed
                raise TypeError(f"unknown op {op!r}")
        return actions

    def _plan_put(self, op: PutMemory, current, vectors) -> list:
        doc = op.doc
        key = (doc.kind.value, doc.id)
        have = current.get(key)
        new_src = to_source(doc, vectors[doc.id])
        if have is not None:
            if same_record(have["src"], new_src):
                return []  # identical re-put: a retried apply converges (invariant 10)
            raise ConflictError(f"{doc.kind.value} {doc.id} already exists", target_id=doc.id)
        current[key] = {"src": new_src, "seq_no": None, "term": None}
        return [({"create": {"_index": self.names.alias(doc.kind.value), "_id": doc.id}},
                 new_src, f"memory:{doc.kind.value}")]

    def _plan_update(self, op: UpdateMemory, current, vectors) -> list:
        doc = op.doc
        key = (doc.kind.value, doc.id)
        have = current.get(key)
        if have is None or have["src"].get("user_id") != doc.user_id:
            raise ConflictError(f"{doc.kind.value} {doc.id} no longer exists", target_id=doc.id)
        old = have["src"]
        new_src = to_source(doc, vectors[doc.id])
        if old.get("rev") == doc.rev and _without_usage(old) == _without_usage(new_src):
            return []  # this update already landed (a retried batch): converge
        if old.get("rev") != op.expected_rev or doc.rev != op.expected_rev + 1:
            raise ConflictError(
                f"{doc.kind.value} {doc.id} changed since it was read (revision {old.get('rev')}, "
                f"expected {op.expected_rev}): reload and decide again", target_id=doc.id)
        # Usage stats belong to the store (bumped atomically by recall), not the caller's copy.
        if "use_count" in old:
            new_src["use_count"] = max(old.get("use_count") or 0, new_src.get("use_count") or 0)
            if old.get("last_used_at") and (new_src.get("last_used_at") is None
                                            or _ts(old["last_used_at"]) > _ts(new_src["last_used_at"])):
                new_src["last_used_at"] = old["last_used_at"]
        meta = {"_index": self.names.alias(doc.kind.value), "_id": doc.id}
        if have["seq_no"] is not None:  # invariant 23: optimistic concurrency on the write
            meta.update(if_seq_no=have["seq_no"], if_primary_term=have["term"])
        current[key] = {"src": new_src, "seq_no": None, "term": None}
        return [({"index": meta}, new_src, f"memory:{doc.kind.value}")]

    def _plan_delete(self, op: DeleteMemory, current) -> list:
        key = (op.kind.value, op.id)
        have = current.get(key)
        if have is None or have["src"].get("user_id") != op.user_id:
            return []  # already gone: a retried delete converges
        if op.expected_rev is not None and have["src"].get("rev") != op.expected_rev:
            raise ConflictError(f"{op.kind.value} {op.id} changed since it was read", target_id=op.id)
        meta = {"_index": self.names.alias(op.kind.value), "_id": op.id}
        if have["seq_no"] is not None:
            meta.update(if_seq_no=have["seq_no"], if_primary_term=have["term"])
        current[key] = None
        return [({"delete": meta}, None, f"memory:{op.kind.value}")]

    def _plan_watermark(self, op: SetWatermark, current) -> list:
        key = ("state", watermark_id(op.user_id, op.name))
        have = current.get(key)
        value = None if have is None else have["src"].get("value")
        if op.expected != value and value != op.value:
            raise ConflictError(
                f"watermark {op.name} for {op.user_id} moved to {value} (expected {op.expected})")
        src = {"type": "watermark", "user_id": op.user_id, "name": op.name, "value": op.value}
        meta = {"_index": self.names.alias("state"), "_id": key[1]}
        if have is None:
            action = {"create": meta}
        else:
            if have["seq_no"] is not None:
                meta.update(if_seq_no=have["seq_no"], if_primary_term=have["term"])
            action = {"index": meta}
        current[key] = {"src": src, "seq_no": None, "term": None}
        return [(action, src, "watermark")]


def refresh_policy(actions: list[Action]) -> tuple[str, set[str]]:
    """wait_for when any action is not an episode or audit append (agent and consolidation
    writes are visible to the next call in the turn); else no refresh, and the aliases written
    are returned so the store's listing reads refresh them lazily (invariant 24)."""
    touched = {next(iter(a.values()))["_index"] for a, _src, _what in actions}
    if all(what in UNREFRESHED for _a, _src, what in actions):
        return "false", touched
    return "wait_for", set()


def bulk_lines(actions: list[Action]) -> list[dict]:
    lines: list[dict] = []
    for action, src, _what in actions:
        lines.append(action)
        if src is not None:
            lines.append(src)
    return lines


def needs_read(ops: list[Op]) -> bool:
    """Only batches with a conditional op pay for the up-front mget. A batch of inserts (an
    episode and its audit event: most turns) goes straight to the bulk; a 409 on an insert is
    then checked for an identical earlier copy (`check_bulk` returns those to the store)."""
    return any(isinstance(op, (UpdateMemory, DeleteMemory, SetWatermark)) for op in ops)


def check_bulk(resp, actions: list[Action]) -> list[tuple[str, str, dict]]:
    """Raise for failures and lost races; return inserts that met an existing document with
    the same id, as (index, id, source) for the store to compare (identical = a retry)."""
    if not resp.get("errors"):
        return []
    conflicts, failures, existing, applied = [], [], [], 0
    for item, (action, src, what) in zip(resp["items"], actions):
        op_type, result = next(iter(item.items()))
        status = result.get("status", 500)
        if status < 300:
            applied += 1
        elif status == 409 and what in ("audit", "tombstone"):
            applied += 1  # already appended by an earlier attempt of this batch
        elif status == 409 and op_type == "create" and what.startswith("memory:"):
            meta = action["create"]
            existing.append((meta["_index"], meta["_id"], src))
        elif status == 409:
            conflicts.append(result.get("_id"))
        else:
            failures.append(f"{op_type} {result.get('_id')}: {result.get('error')}")
    if failures:
        raise MemdeskError(f"Elasticsearch rejected {len(failures)} write(s): {failures[0]}")
    if conflicts:
        raise ConflictError(
            f"{', '.join(conflicts)} changed while this batch was written (a concurrent "
            f"writer won); {applied} of {len(actions)} operations landed: reload and retry — "
            "re-applying the same batch converges", target_id=conflicts[0])
    return existing


def same_record(stored: dict, sent: dict) -> bool:
    return model_fields(stored) == model_fields(sent)


def _without_usage(src: dict) -> dict:
    return {k: v for k, v in model_fields(src).items() if k not in ("use_count", "last_used_at")}


def _ts(value: str) -> datetime:
    return datetime.fromisoformat(value)  # 3.11 reads a trailing Z
