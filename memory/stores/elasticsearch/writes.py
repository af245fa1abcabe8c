"""Planning a write batch: what to read first, and the steps to send, each in its phase. No
client here: batch.py sends what this plans.

Invariant 23: there is no multi-document transaction, so every op is checked against the
stored documents (one mget) before anything is written; a stale batch plans nothing.
Invariant 23 (issue 16): steps fall into three phases — conditional writes (updates, deletes
and watermark moves carrying if_seq_no/if_primary_term), then inserts (`create` with the
record's own id, so a retry cannot duplicate), then audit events — and batch.py sends a phase
only when the previous one landed whole.
Invariant 24: batches holding only episodes and audit events do not force a refresh.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ...errors import ConflictError
from ...values import index_entry
from ..base import (
    AppendAudit,
    DeleteMemory,
    Op,
    PutCredential,
    PutMemory,
    PutTombstone,
    SetWatermark,
    UpdateMemory,
)
from .indices import IndexNames
from .results import has_direction, model_fields, to_source

CONDITIONAL, INSERT, AUDIT = 0, 1, 2
PHASE_NAMES = ("conditional writes", "inserts", "audit events")
UNREFRESHED = ("memory:episodic", "audit")
USAGE_FIELDS = ("use_count", "last_used_at")


@dataclass
class Step:
    """One bulk action. `before` is the stored document the plan was checked against
    ({"src", "seq_no", "term"}; None when it did not exist); `seq_no`/`term` are what the write
    returned, which is what an undo must be conditional on."""

    phase: int
    op: str  # "index" | "create" | "delete"
    index: str  # the alias
    id: str
    src: dict | None
    what: str  # "memory:<kind>", "tombstone", "audit", "watermark"
    before: dict | None = None
    if_seq_no: int | None = None
    if_term: int | None = None
    seq_no: int | None = None
    term: int | None = None
    extra: dict = field(default_factory=dict)

    def action(self) -> dict:
        meta: dict = {"_index": self.index, "_id": self.id}
        if self.if_seq_no is not None:
            meta.update(if_seq_no=self.if_seq_no, if_primary_term=self.if_term)
        return {self.op: meta}

    @property
    def lazy(self) -> bool:
        return self.what in UNREFRESHED

    @property
    def key(self) -> tuple[str, str]:
        return self.index, self.id


def watermark_id(user_id: str, name: str) -> str:
    return "wm_" + hashlib.sha1(f"{user_id}\x1f{name}".encode()).hexdigest()


def credential_id(token_id: str) -> str:
    """The state document of a bearer credential (issue 15)."""
    return f"cred_{token_id}"


def credential_source(op: PutCredential) -> dict:
    """`type`, `user_id` and `name` are the state index's mapped fields (listing by user);
    the record itself rides unindexed in `body` (the mapping is dynamic: false)."""
    c = op.credential
    return {"type": "credential", "user_id": c.user_id, "name": c.id,
            "body": c.model_dump(mode="json")}


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
        elif isinstance(op, PutCredential):
            wanted.append(("state", credential_id(op.credential.id)))
    return list(dict.fromkeys(wanted))


def found(doc: dict) -> dict | None:
    """An mget/get answer as {"src", "seq_no", "term"}, or None when the document is absent."""
    if not doc.get("found"):
        return None
    return {"src": doc["_source"], "seq_no": doc.get("_seq_no"), "term": doc.get("_primary_term")}


class Planner:
    """Turns ops into steps against `current` (what the mget saw), in op order within a phase.

    Several ops on one document in one batch fold into one step (a put then an update is one
    create of the final version), so the phase order can never reorder a document's history."""

    def __init__(self, names: IndexNames, current: dict, vectors: dict[str, np.ndarray],
                 next_seq: Callable[[], int]) -> None:
        self.names, self.current, self.vectors, self.next_seq = names, current, vectors, next_seq
        self.steps: list[Step] = []
        self.by_key: dict[tuple[str, str], Step] = {}

    def plan(self, ops: list[Op]) -> list[Step]:
        for op in ops:
            if isinstance(op, PutMemory):
                self._plan_put(op)
            elif isinstance(op, UpdateMemory):
                self._plan_update(op)
            elif isinstance(op, DeleteMemory):
                self._plan_delete(op)
            elif isinstance(op, PutTombstone):
                t = op.tombstone
                key, terms = index_entry(t.text)  # the lookup fields (invariant 63)
                src = {**t.model_dump(mode="json"), "seq": self.next_seq(), "match_key": key,
                       "match_terms": terms}
                if has_direction(self.vectors[t.id]):
                    src["vector"] = [float(x) for x in self.vectors[t.id]]
                self._add(Step(INSERT, "create", self.names.alias("tombstones"), t.id, src,
                               "tombstone"))
            elif isinstance(op, AppendAudit):
                e = op.event
                # Append-only: op_type create; an existing id is this same event (a retry).
                self._add(Step(AUDIT, "create", self.names.alias("audit"), e.id,
                               {**e.model_dump(mode="json"), "seq": self.next_seq()}, "audit"))
            elif isinstance(op, SetWatermark):
                self._plan_watermark(op)
            elif isinstance(op, PutCredential):
                self._plan_credential(op)
            else:  # pragma: no cover - the Op union is closed
                raise TypeError(f"unknown op {op!r}")
        return [s for s in self.steps if s.op != "skip"]

    def _add(self, step: Step) -> None:
        self.steps.append(step)
        self.by_key[step.key] = step

    def _conditional(self, step: Step, have: dict | None) -> Step:
        step.before = have
        if have is not None and have.get("seq_no") is not None:  # invariant 23
            step.if_seq_no, step.if_term = have["seq_no"], have["term"]
        return step

    def _plan_put(self, op: PutMemory) -> None:
        doc = op.doc
        key = (doc.kind.value, doc.id)
        have = self.current.get(key)
        new_src = to_source(doc, self.vectors[doc.id])
        if have is not None:
            if same_record(have["src"], new_src):
                return  # identical re-put: a retried apply converges (invariant 10)
            raise ConflictError(f"{doc.kind.value} {doc.id} already exists", target_id=doc.id)
        self.current[key] = {"src": new_src, "seq_no": None, "term": None}
        self._add(Step(INSERT, "create", self.names.alias(doc.kind.value), doc.id, new_src,
                       f"memory:{doc.kind.value}"))

    def _plan_update(self, op: UpdateMemory) -> None:
        doc = op.doc
        key = (doc.kind.value, doc.id)
        have = self.current.get(key)
        if have is None or have["src"].get("user_id") != doc.user_id:
            raise ConflictError(f"{doc.kind.value} {doc.id} no longer exists", target_id=doc.id)
        old = have["src"]
        new_src = to_source(doc, self.vectors[doc.id])
        if old.get("rev") == doc.rev and without_usage(old) == without_usage(new_src):
            return  # this update already landed (a retried batch): converge
        if old.get("rev") != op.expected_rev or doc.rev != op.expected_rev + 1:
            raise ConflictError(
                f"{doc.kind.value} {doc.id} changed since it was read (revision {old.get('rev')}, "
                f"expected {op.expected_rev}): reload and decide again", target_id=doc.id)
        # Usage stats belong to the store (bumped atomically by recall), not the caller's copy;
        # so does an episode's session context (issue 17).
        merge_usage(new_src, old)
        keep_context(new_src, old)
        alias = self.names.alias(doc.kind.value)
        self.current[key] = {**have, "src": new_src}
        earlier = self.by_key.get((alias, doc.id))
        if earlier is not None and earlier.op in ("create", "index"):
            earlier.src = new_src  # fold: the document's final version, in the earlier step
            return
        self._add(self._conditional(
            Step(CONDITIONAL, "index", alias, doc.id, new_src, f"memory:{doc.kind.value}"),
            have))

    def _plan_delete(self, op: DeleteMemory) -> None:
        key = (op.kind.value, op.id)
        have = self.current.get(key)
        if have is None or have["src"].get("user_id") != op.user_id:
            return  # already gone: a retried delete converges
        if op.expected_rev is not None and have["src"].get("rev") != op.expected_rev:
            raise ConflictError(f"{op.kind.value} {op.id} changed since it was read", target_id=op.id)
        alias = self.names.alias(op.kind.value)
        self.current[key] = None
        earlier = self.by_key.get((alias, op.id))
        if earlier is not None and earlier.op == "create":  # put and delete in one batch: nothing
            earlier.op = "skip"
            return
        if earlier is not None and earlier.op == "index":  # update then delete: the delete
            earlier.op, earlier.src = "delete", None
            return
        self._add(self._conditional(
            Step(CONDITIONAL, "delete", alias, op.id, None, f"memory:{op.kind.value}"), have))

    def _plan_watermark(self, op: SetWatermark) -> None:
        key = ("state", watermark_id(op.user_id, op.name))
        have = self.current.get(key)
        value = None if have is None else have["src"].get("value")
        if value == op.value and not (op.strict and op.expected != value):
            return  # already there (a retried copy): converge; a strict move never (inv. 38)
        if op.expected != value:
            raise ConflictError(
                f"watermark {op.name} for {op.user_id} moved to {value} (expected {op.expected})")
        src = {"type": "watermark", "user_id": op.user_id, "name": op.name, "value": op.value}
        alias = self.names.alias("state")
        self.current[key] = {**(have or {"seq_no": None, "term": None}), "src": src}
        earlier = self.by_key.get((alias, key[1]))
        if earlier is not None:
            earlier.src = src
            return
        # An absent watermark is created (a concurrent creator makes it 409); a present one is
        # replaced only at the seq_no read.
        step = Step(CONDITIONAL, "create" if have is None else "index", alias, key[1], src,
                    "watermark")
        self._add(self._conditional(step, have))


    def _plan_credential(self, op: PutCredential) -> None:
        """A new credential is created (a 409 then means the id exists); a revocation replaces
        the stored one only at the seq_no and revision read (invariant 23)."""
        key = ("state", credential_id(op.credential.id))
        have = self.current.get(key)
        src = credential_source(op)
        stored = None if have is None else have["src"].get("body")
        if stored == src["body"]:
            return  # this very record (a retried batch): converge
        cred = op.credential
        if op.expected_rev is None and have is not None:
            raise ConflictError(f"credential {cred.id} already exists", target_id=cred.id)
        if op.expected_rev is not None and (
                stored is None or stored.get("rev") != op.expected_rev
                or cred.rev != op.expected_rev + 1 or stored.get("user_id") != cred.user_id):
            raise ConflictError(f"credential {cred.id} changed since it was read: reload and "
                                "try again", target_id=cred.id)
        alias = self.names.alias("state")
        self.current[key] = {**(have or {"seq_no": None, "term": None}), "src": src}
        step = Step(CONDITIONAL, "create" if have is None else "index", alias, key[1], src,
                    "credential")
        self._add(self._conditional(step, have))


def phases(steps: list[Step]) -> list[list[Step]]:
    """The non-empty phases in order: conditional writes, inserts, audit events."""
    out = [[s for s in steps if s.phase == p] for p in (CONDITIONAL, INSERT, AUDIT)]
    return [p for p in out if p]


def refresh_modes(planned: list[list[Step]]) -> list[str]:
    """The `refresh` of each phase's bulk (invariant 24): `wait_for` when the phase writes an
    index the turn must see at once (anything but episodes and audit events), unless a later
    phase waits for a refresh of that same index anyway. Every index here has one shard
    (mappings/*.json), so one refresh makes every earlier acknowledged write to it visible."""
    modes: list[str] = []
    covered: set[str] = set()
    for steps in reversed(planned):
        eager = {s.index for s in steps if not s.lazy}
        if eager and not eager <= covered:
            modes.append("wait_for")
            covered |= eager
        else:
            modes.append("false")
    return list(reversed(modes))


def bulk_lines(steps: list[Step]) -> list[dict]:
    lines: list[dict] = []
    for step in steps:
        lines.append(step.action())
        if step.op != "delete":
            assert step.src is not None  # every write but a delete carries its document
            lines.append(step.src)
    return lines


def needs_read(ops: list[Op]) -> bool:
    """Only batches with a conditional op pay for the up-front mget. A batch of inserts (an
    episode and its audit event: most turns) goes straight to the bulk; a 409 on an insert is
    then checked for an identical earlier copy."""
    return any(isinstance(op, (UpdateMemory, DeleteMemory, SetWatermark, PutCredential))
               for op in ops)


def same_record(stored: dict, sent: dict) -> bool:
    return model_fields(stored) == model_fields(sent)


def without_usage(src: dict) -> dict:
    return {k: v for k, v in model_fields(src).items() if k not in USAGE_FIELDS + ("seq",)}


def merge_usage(new_src: dict, stored: dict) -> None:
    """A write keeps the record's stored usage fields as they are: since the usage index
    (invariant 24) recall counts uses there, the record's own fields are the counts from
    before it (or a migrated history's), and a copy read with the usage added must not write
    the sum back (it would be counted twice)."""
    if "use_count" not in stored:
        return
    new_src["use_count"] = stored.get("use_count") or 0
    new_src["last_used_at"] = stored.get("last_used_at")


CONTEXT_PLACE = ("kind", "user_id", "session_id", "timestamp")


def keep_context(new_src: dict, stored: dict) -> None:
    """Carry an episode's stored session context (issue 17: its neighbours' words, derived like
    the vector) into a whole-document write that leaves it at the same place of the same
    session; a move leaves it out, and the store's follow-up recomputes it (context.py)."""
    ctx = stored.get("context")
    if ctx and new_src.get("kind") == "episodic" and all(
            new_src.get(k) == stored.get(k) for k in CONTEXT_PLACE):
        new_src["context"] = ctx


def users_of(steps: list[Step]) -> list[str]:
    """The users a batch writes for (its document names the first: erase finds it by user)."""
    users = [s.src.get("user_id") for s in steps if s.src is not None]
    users += [s.before["src"].get("user_id") for s in steps if s.before is not None]
    return sorted({u for u in users if isinstance(u, str)})
