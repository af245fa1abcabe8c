"""Intent-first batches (issue 31): the batch document and the decisions taken from it. Pure.

Elasticsearch has single-document atomicity, `op_type=create` and compare-and-set
(`if_seq_no`/`if_primary_term`), and no multi-document transaction. So a batch is first written
whole as ONE document of the state index — its steps with their before-images and its audit
events, state `pending` (invariant 470) — then each step is applied stamped with the batch id
(field `batch`), then one compare-and-set flip of that document to `committed` commits it
(invariant 470). Until the flip, readers take a stamped record for its before-image
(invariant 470); an abandoned batch is rolled forward or back from its document by the sweeper
(sweeper.py, invariant 470).

The document: {"type": "batch", "name": <batch id>, "user_id": <first user>, "updated_at":
<when written>, "state": pending | resolving | committed | rolled_back, "body": {"steps": [...]}}.
`type`, `name`, `user_id` and `updated_at` are mapped fields of the state index; the rest rides unindexed
(`dynamic: false`). A committed or rolled-back document keeps no step (no text outlives the
batch: the forget guarantee, invariant 470).
"""

from __future__ import annotations

import copy
import hashlib
import json
import secrets
from datetime import UTC, datetime

from .results import model_fields
from .writes import USAGE_FIELDS, Step

PENDING, RESOLVING, COMMITTED, ROLLED_BACK = "pending", "resolving", "committed", "rolled_back"
FINISHED = (COMMITTED, ROLLED_BACK)
STAMP = "batch"  # the field every write of a batch carries: the batch id
LEASE_S = 300.0  # a pending batch younger than this may still be in its writer's hands

# What a step's answer, read back, says about it.
LANDED, SEND, CONFLICT, GONE, SAME = "landed", "send", "conflict", "gone", "same"


def new_id() -> str:
    return "batch_" + secrets.token_hex(12)


def stamp(steps: list[Step], bid: str) -> None:
    for s in steps:
        if s.src is not None:
            s.src[STAMP] = bid


def _plain(src: dict | None) -> dict | None:
    """A source as the batch document keeps it: no vector (it is derived: the store embeds the
    search text again when the step is sent from the document)."""
    if src is None:
        return None
    return {k: v for k, v in src.items() if k != "vector"}


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")


def document(bid: str, steps: list[Step], users: list[str], now: float) -> dict:
    """The pending batch document: everything needed to finish or undo the batch."""
    return {"type": "batch", "name": bid, "user_id": users[0] if users else None,
            "updated_at": iso(now), "state": PENDING, "id": bid, "body": {"users": users, "steps": [
                {"phase": s.phase, "op": s.op, "index": s.index, "id": s.id, "what": s.what,
                 "src": _plain(s.src), "before": _before(s)}
                for s in steps]}}


def _before(s: Step) -> dict | None:
    """A step's before-image as the document keeps it. A deleted document is kept as a digest
    only: deleting is how memdesk forgets, and the forgotten text must not live on in a batch
    document (invariant 470). So a delete is never undone from the document, only in-process."""
    if s.before is None:
        return None
    rec = {"seq_no": s.before.get("seq_no"), "term": s.before.get("term")}
    if s.op == "delete":
        return {**rec, "digest": digest(s.before["src"])}
    return {**rec, "src": _plain(s.before["src"])}


def digest(src: dict) -> str:
    return hashlib.sha256(json.dumps(_core(src), sort_keys=True).encode()).hexdigest()


def marker(doc: dict, state: str, now: float) -> dict:
    """The batch document after its decision: the state and who it was for, no step."""
    return {"type": "batch", "name": doc.get("id"), "user_id": doc.get("user_id"),
            "updated_at": iso(now), "state": state, "id": doc.get("id")}


def claimed(doc: dict, now: float) -> dict:
    """The document taken over by a sweeper (a compare-and-set: one sweeper wins)."""
    return {**copy.deepcopy(doc), "state": RESOLVING, "updated_at": iso(now)}


def steps_of(doc: dict) -> list[Step]:
    """The steps a batch document holds, ready to be classified and sent again."""
    out = []
    for rec in (doc.get("body") or {}).get("steps") or []:
        before = rec.get("before")
        out.append(Step(rec["phase"], rec["op"], rec["index"], rec["id"],
                        copy.deepcopy(rec.get("src")), rec["what"],
                        before=None if before is None else copy.deepcopy(before)))
    return out


def befores(doc: dict) -> dict[str, dict | None]:
    """{document id: its before-image (None: the batch created it)} of a pending batch."""
    out: dict[str, dict | None] = {}
    for rec in (doc.get("body") or {}).get("steps") or []:
        before = rec.get("before")
        out[rec["id"]] = None if before is None else before.get("src")  # a digest: no image
    return out


def age_s(doc: dict, now: float) -> float:
    try:
        at = datetime.fromisoformat(str(doc.get("updated_at"))).timestamp()
    except ValueError:
        return float("inf")  # unreadable: treat as abandoned
    return now - at


def other_batch(have: dict | None) -> str | None:
    return None if have is None else have["src"].get(STAMP)


def _matches(src: dict, before: dict) -> bool:
    if "src" in before:
        return _core(src) == _core(before["src"])
    return digest(src) == before.get("digest")


def _core(src: dict) -> dict:
    return {k: v for k, v in model_fields(src).items()
            if k not in (*USAGE_FIELDS, "seq", STAMP)}


def classify(step: Step, have: dict | None, bid: str, *, after_lost: bool) -> str:
    """What the stored document `have` ({"src", "seq_no", "term"} or None) says about `step`:

    LANDED — this batch's write is there (stamped with `bid` and equal to what was sent, usage
    aside; a delete finds nothing, but only right after a lost answer: our own first send);
    SEND — not there, and the document is still what the plan saw: send it (again);
    GONE — a delete finds the document already deleted by someone else (nothing to do or undo);
    SAME — an insert meets an equal record written by another batch (`other_batch` names it): a
    re-applied batch converges on it once that batch is known committed (batch.py asks);
    CONFLICT — another writer changed the document: this batch can no longer be applied.

    A record equal to ours but stamped by another batch is NOT ours (issue 31: the old
    "identical record = ours" rule could undo a concurrent writer's record)."""
    if step.op == "delete":
        if have is None:
            return LANDED if after_lost else GONE
        if step.before is not None and _matches(have["src"], step.before):
            return SEND
        return CONFLICT
    if have is not None:
        src = have["src"]
        if step.src is not None and _core(src) == _core(step.src):
            if src.get(STAMP) == bid:
                return LANDED
            if step.before is None:
                return SAME
        if step.before is not None and _matches(src, step.before):
            return SEND
        return CONFLICT
    return SEND if step.before is None else CONFLICT  # an update's target deleted: conflict
