"""The unit of work: the one door every mutation in the product goes through.

    with svc.batch("cli", user_id, reason="moved") as b:
        new = b.add(fact)
        b.supersede(old, new)

A `Batch` checks ownership (invariant 3), chain heads (5), revisions (10) and tombstones (7),
appends one typed audit event per operation (8) and applies everything once, atomically (10),
when the `with` block ends without an exception. An exception anywhere writes nothing — except
the audit events of refused and denied attempts, which are recorded on their own at once, since
the attempt itself is what they record.

Outside `memory/stores/`, this is the only module that builds store operations (`Op`) or audit
events. Roles (who may do what) are checked here too, by the `authorize` hook the runtime
supplies, so no page or command can skip them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from datetime import datetime
from types import TracebackType
from typing import Any, Literal, Self, TypeVar

from pydantic import BaseModel

from . import inputs, textsafety
from .corrections import bumped, linked, retire, retracted, tombstone_of
from .credentials import Credential
from .errors import (
    AccessDenied,
    ChainError,
    ConflictError,
    NotFoundError,
    ScopeError,
    TombstoneError,
    ValidationError,
)
from .models import (
    CATALOG,
    PREVIOUSLY_REJECTED,
    AuditEvent,
    Contradiction,
    Fact,
    FactState,
    MemoryKind,
    Playbook,
    Tombstone,
    TombstoneKind,
    check_actor,
    snapshot,
)
from .redaction import Erasure
from .sensitive import refusal, secret_in
from .stores.base import (
    AnyMemory,
    AppendAudit,
    DeleteMemory,
    Op,
    PutCredential,
    PutMemory,
    PutTombstone,
    SetWatermark,
    Store,
    UpdateMemory,
)
from .text import MAX_TEXT_BYTES
from .values import POSSIBLY_RESTATES, Decision, Verdict

M = TypeVar("M", bound=BaseModel)

# Invariant 451: the store's writing methods. Outside memory/stores/, only this module calls
# them (tests/test_layers.py fails on any other call) — except the exceptions named below.
STORE_WRITES = frozenset({"apply", "bump_usage", "redact", "erase_user", "adopt_value_key",
                          "compact", "bootstrap_user"})
# Every write that does not go through a Batch, in one place: where it is called, the store
# method, and why it is no batch operation (tests/test_layers.py checks this list both ways).
# Writes of the product that are no Batch, named here: `bump_usage` below (usage counters of
# agent recall, invariant 15: no audit event per recall). Not listed because they call no store
# method outside this module and the stores, and each is one audited event through a Batch
# (invariant 8): `memdesk es reindex` moves indices on the cluster
# (memory/stores/elasticsearch/reindex.py: documents copied unchanged, server-side), then
# records `reindex`; `memdesk migrate` restores a history through Batch.restore, then records
# `migrate`. Both check the actor's role before anything is written.
DIRECT_WRITES: dict[tuple[str, str], str] = {
    ("memory/cli/es.py", "bootstrap_user"):
        "Elasticsearch API keys and roles for reading, not data; `memdesk es bootstrap-users` "
        "is an administrator's command on the cluster itself",
    ("memory/eval/stress.py", "apply"):
        "the stress suite applies a batch's own operations to inject a crash or a stale "
        "revision mid-transaction (its events are built by a Batch)",
    ("bench/bench_forget.py", "redact"): "benchmark of the store's redaction itself",
    ("bench/bench_forget.py", "compact"): "benchmark of the store's compaction itself",
    ("bench/bench_es.py", "apply"): "benchmark fixtures loaded in bulk",
    ("bench/bench_embedded.py", "apply"): "benchmark fixtures loaded in bulk",
    ("bench/bench_desk.py", "apply"): "benchmark fixtures loaded in bulk",
}

# (user_id, text, tombstones created in this batch) -> refuse / review / accept (memory/values.py)
TombstoneGate = Callable[[str, str, list[Tombstone]], Verdict]
# (actor, action, user_id) -> None, or raises AccessDenied
Authorize = Callable[[str, str, str], None]
# (event, key) -> a deterministic event id, for writers whose retries must converge
EventIds = Callable[[AuditEvent, str | None], str]

# What a write does with a value that restates a dead one (invariants 7, 44, 61-63):
#   refuse: an automated write (CLI, agent, consolidation): refused when confident, held as a
#           candidate for review when doubtful;
#   decide: a person approving an item: refused when confident, allowed when doubtful (deciding
#           the doubtful band is what review is for);
#   flag:   a proposal: always a candidate, flagged with its tombstone;
#   allow:  history being restored as it was (seeding, undo).
OnDead = Literal["refuse", "decide", "flag", "allow"]

MAX_STEPS = 200  # steps of one playbook (invariant 11)
_WRITE_ACTION = {MemoryKind.EPISODIC: "write_episode", MemoryKind.SEMANTIC: "write_fact",
                 MemoryKind.PROCEDURAL: "write_playbook", MemoryKind.CATALOG: "write_catalog"}


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def as_actor(actor: str) -> str:
    try:
        return check_actor(actor)
    except ValueError as exc:
        raise ValidationError(str(exc)) from None


def _size_ok(doc: AnyMemory) -> None:
    """Oversized text is refused whole (invariant 11): each text field is checked where it is
    cleaned, and a playbook's name, trigger and steps together are held to the same 32 KB here,
    so 10,000 small steps cannot make one record of megabytes."""
    if isinstance(doc, Playbook):
        size = len(doc.search_text().encode("utf-8", "surrogatepass"))
        if size > MAX_TEXT_BYTES or len(doc.steps) > MAX_STEPS:
            raise ValidationError(
                f"playbook {doc.name[:40]!r} is {size} bytes in {len(doc.steps)} steps; the "
                f"limit is {MAX_TEXT_BYTES} bytes (32 KB) and {MAX_STEPS} steps")


def _text_safe(doc: AnyMemory | Tombstone) -> None:
    """Invariant 11: no stored value holds a control or an invisible format character (bidi
    controls, zero-width): the write paths remove them (memory/text.py), and whatever reaches
    the door with one by another path (an import, a restore) is refused whole."""
    text = doc.text if isinstance(doc, Tombstone) else doc.search_text()
    bad = textsafety.first_unsafe(text)
    if bad is not None:
        what = "tombstone" if isinstance(doc, Tombstone) else doc.kind.value
        raise ValidationError(f"{what} {doc.id} holds {textsafety.describe(bad)}: stored text "
                              "must read as it is stored")


def _no_secret(doc: AnyMemory) -> None:
    """A fact or playbook holding a password, PIN, card number or key is refused whole
    (invariant 273, memory/sensitive.py); the user's own message stays as they said it."""
    if isinstance(doc, Fact | Playbook):
        kind = secret_in(doc.search_text())
        if kind:
            raise ValidationError(refusal(kind))


class Batch:
    """Operations of one actor on one scope (a user, or the catalog), applied together."""

    def __init__(self, store: Store | None, actor: str, user_id: str, *, now: datetime,
                 reason: str | None = None, plan_id: str | None = None,
                 comment: str | None = None, gate: TombstoneGate | None = None,
                 authorize: Authorize | None = None, event_ids: EventIds | None = None,
                 harsh_penalty: float = 0.2) -> None:
        self.store, self.actor, self.user_id = store, as_actor(actor), user_id
        self.now, self.reason, self.plan_id, self.comment = now, reason, plan_id, comment
        self._gate, self._authorize, self._event_ids = gate, authorize, event_ids
        self.harsh_penalty = harsh_penalty
        self.ops: list[Op] = []
        self.events: list[AuditEvent] = []
        self.tombstones: list[Tombstone] = []
        self._docs: dict[tuple[MemoryKind, str], AnyMemory | None] = {}  # this batch's view
        self._checked: list[Fact] = []  # facts activated here: re-checked against new tombstones
        self.held: dict[str, Verdict] = {}  # facts held for review (or flagged), by id
        self._erasures: list[Erasure] = []  # texts redacted at commit, before the deletes
        self._erase_event: AuditEvent | None = None  # a whole user erased at commit
        self._compact = False
        self._erased_texts: list[str] = []  # a whole user's texts, scanned for after erasing
        self._new_records = False  # a memory new to this store (not a history copied as it was)
        self.redacted: dict[str, int] = {}  # counts of the redaction done at commit
        self.erased: dict[str, int] = {}  # counts of the erasure done at commit
        self.residue: list[str] = []  # where erased text may linger after compaction
        self.committed = False

    # reads through the batch ----------------------------------------------------------------
    def get(self, kind: MemoryKind, memory_id: str) -> AnyMemory | None:
        """The record as this batch will leave it (its own writes first, then the store)."""
        key = (kind, memory_id)
        if key in self._docs:
            return self._docs[key]
        if self.store is None:
            return None
        owner = None if kind == MemoryKind.CATALOG else self.user_id
        return self.store.get(kind, owner, memory_id)

    def owned(self, kind: MemoryKind, memory_id: str, *, action: str) -> AnyMemory:
        """A memory of this batch's user, for a mutation. Another user's id is exactly a missing
        id to the caller, and the attempt is audited as denied at once (invariant 3). An id that
        is no text at all is refused before any lookup (invariant 11)."""
        memory_id = inputs.memory_id(memory_id)
        doc = self.get(kind, memory_id)
        if doc is not None:
            return doc
        if self.store is not None:
            owner = self.store.owner_of(kind, memory_id)
            if owner is not None and owner != self.user_id:
                self.record_now("denied", [memory_id], outcome="denied",
                                reason=f"{action}: {kind.value} id belongs to another user")
        raise NotFoundError(f"no {kind.value} memory {memory_id} for user {self.user_id}",
                            target_id=memory_id)

    def owned_fact(self, fact_id: str, *, action: str) -> Fact:
        fact = self.owned(MemoryKind.SEMANTIC, fact_id, action=action)
        assert isinstance(fact, Fact)  # a semantic id reads as a Fact
        return fact

    # audit ------------------------------------------------------------------------------------
    def _event(self, action: str, targets: Iterable[str], *, before: Any = None,
               after: Any = None, reason: str | None = None, outcome: str = "ok",
               at: datetime | None = None, key: str | None = None) -> AuditEvent:
        event = AuditEvent(
            actor=self.actor, user_id=self.user_id, action=action, target_ids=list(targets),
            before=snapshot(before) if isinstance(before, BaseModel) else before,
            after=snapshot(after) if isinstance(after, BaseModel) else after,
            reason=reason if reason is not None else self.reason, plan_id=self.plan_id,
            outcome=outcome, comment=self.comment, at=at or self.now)
        if self._event_ids is not None:
            event = event.model_copy(update={"id": self._event_ids(event, key)})
        return event

    def event_for(self, action: str, targets: Iterable[str], *, after: Any = None) -> AuditEvent:
        """An event for a store-level operation that writes its own event atomically with the
        change (erasing a user); checked against the actor's role like any other."""
        targets = list(targets)
        self._check(action, targets)
        return self._event(action, targets, after=after)

    def note(self, action: str, targets: Iterable[str], *, before: Any = None,
             after: Any = None, reason: str | None = None, at: datetime | None = None,
             key: str | None = None) -> AuditEvent:
        """An audit event for something the other operations do not describe by themselves
        (a consolidation run, a merge of evidence). Applied with the batch."""
        targets = list(targets)
        self._check(action, targets)
        event = self._event(action, targets, before=before, after=after, reason=reason, at=at,
                            key=key)
        self.ops.append(AppendAudit(event=event))
        self.events.append(event)
        return event

    def record_now(self, action: str, targets: Iterable[str], *, outcome: str,
                   reason: str, after: Any = None) -> None:
        """A refused or denied attempt: recorded at once, on its own, whatever the batch
        does next (the caller is about to raise)."""
        if self.store is not None:
            event = self._event(action, targets, after=after, reason=reason, outcome=outcome)
            self.store.apply([AppendAudit(event=event)])

    def _check(self, action: str, targets: Iterable[str] = ()) -> None:
        """The actor's role must allow `action` (memory/access.py). A refusal is audited as
        `denied` at once, naming the action attempted, and raised (invariant 121)."""
        if self._authorize is None:
            return
        try:
            self._authorize(self.actor, action, self.user_id)
        except AccessDenied as exc:
            self.record_now("denied", targets, outcome="denied", reason=str(exc),
                            after={"attempted": action})
            raise

    def require(self, action: str, targets: Iterable[str] = ()) -> None:
        """Check the role up front, before anything is read or planned (e.g. a decision)."""
        self._check(action, targets)

    def _owner_ok(self, doc: AnyMemory) -> None:
        owner = doc.user_id if doc.OWNED else CATALOG
        if owner != self.user_id:
            raise ValidationError(f"{doc.kind.value} {doc.id} belongs to {owner!r}, not to this "
                                  f"batch's scope {self.user_id!r}")

    # tombstones -------------------------------------------------------------------------------
    def verdict(self, text: str, dying: Iterable[Tombstone] = ()) -> Verdict | None:
        """Refuse, review or accept `text` against the user's tombstones, those this batch
        created and those it is about to create (`dying`)."""
        if self._gate is None:
            return None
        return self._gate(self.user_id, text, [*self.tombstones, *dying])

    def _refuse_dead(self, fact: Fact, verdict: Verdict, action: str) -> None:
        tomb = verdict.tombstone
        assert tomb is not None
        sim = verdict.similarity if verdict.similarity is not None else 1.0
        # A forgotten value is not written back into the audit log by its refusal (inv. 66).
        said = ({"text_sha256": text_digest(fact.text), "forgotten": True} if tomb.forgotten
                else {"text": fact.text})
        dead = "a forgotten value" if tomb.forgotten else repr(tomb.text)
        self.record_now("review_refused" if action.startswith("review_") else "write_refused",
                        [fact.id, tomb.id], outcome="refused",
                        after={**said, "similarity": round(sim, 4)},
                        reason=f"restates a {tomb.kind.value} value: {dead} ({verdict.reason})")
        raise TombstoneError(
            f"refused: {fact.text!r} restates a value this user's history marks "
            f"{tomb.kind.value} ({dead}, similarity {sim:.2f}, tombstone {tomb.id})",
            tombstone_id=tomb.id, target_id=fact.id)

    def _guard(self, fact: Fact, on_dead: OnDead, action: str,
               dying: Iterable[Tombstone] = ()) -> Fact:
        """Invariant 7 at the door, as a three-way decision (memory/values.py)."""
        if on_dead == "allow" or fact.state not in (FactState.ACTIVE, FactState.CANDIDATE):
            return fact
        dying = list(dying)
        verdict = self.verdict(fact.text, dying)
        if verdict is None or verdict.tombstone is None or verdict.decision == Decision.ACCEPT:
            if fact.state == FactState.ACTIVE:
                self._checked.append(fact)
            return fact
        # A candidate is never believed, so it cannot resurrect: it is flagged, not refused.
        if verdict.decision == Decision.REFUSE and on_dead in ("refuse", "decide") \
                and fact.state == FactState.ACTIVE:
            self._refuse_dead(fact, verdict, action)
        if verdict.decision == Decision.REVIEW and on_dead == "decide":
            self._checked.append(fact)  # a person decided the doubtful band
            return fact
        # Held for review (or proposed): a candidate that names the value it may restate.
        flags = verdict.flags()
        if verdict.tombstone in dying:  # the value this very correction retracts
            flags = [PREVIOUSLY_REJECTED,
                     f"{POSSIBLY_RESTATES}:{verdict.tombstone.source_fact_id}"]
        self.held[fact.id] = verdict
        return fact.model_copy(update={"state": FactState.CANDIDATE,
                                       "flags": list(dict.fromkeys([*fact.flags, *flags]))})

    # writes -----------------------------------------------------------------------------------
    def add(self, doc: M, *, on_dead: OnDead = "refuse", action: str | None = None,
            at: datetime | None = None, key: str | None = None, reason: str | None = None,
            dying: Iterable[Tombstone] = ()) -> M:
        """Insert a new memory of this scope, audited with its full record."""
        memory: AnyMemory = doc  # type: ignore[assignment]  # M is always one memory kind
        self._owner_ok(memory)
        _size_ok(memory)
        _text_safe(memory)
        _no_secret(memory)
        action = action or _WRITE_ACTION[memory.kind]
        self._check(action, [memory.id])
        if isinstance(memory, Fact):
            memory = self._guard(memory, on_dead, action, dying)
        if self._docs.get((memory.kind, memory.id)) is not None:  # the store checks its own
            raise ValidationError(f"{memory.kind.value} {memory.id} already exists")
        self.ops.append(PutMemory(doc=memory))
        self._docs[(memory.kind, memory.id)] = memory
        self._new_records = True
        self.note(action, [memory.id], after=memory, reason=reason, at=at, key=key)
        return memory  # type: ignore[return-value]

    def change(self, old: M, *, action: str, at: datetime | None = None,
               key: str | None = None, reason: str | None = None, targets: Iterable[str] = (),
               on_dead: OnDead = "allow", dying: Iterable[Tombstone] = (),
               **changes: Any) -> M:
        """Update a memory read at revision `old.rev`: the store refuses it if that moved on."""
        return self.replace(old, bumped(old, **changes), action=action, at=at, key=key,
                            reason=reason, targets=targets, on_dead=on_dead, dying=dying)

    def replace(self, old: M, new: M, *, action: str, at: datetime | None = None,
                key: str | None = None, reason: str | None = None, targets: Iterable[str] = (),
                on_dead: OnDead = "allow", dying: Iterable[Tombstone] = ()) -> M:
        """Replace `old` by `new` (new.rev = old.rev + 1), audited with both."""
        cur: AnyMemory = old  # type: ignore[assignment]  # M is always one memory kind
        nxt: AnyMemory = new  # type: ignore[assignment]
        self._owner_ok(cur)
        self._check(action, [cur.id, *targets])
        if nxt.id != cur.id or nxt.rev != cur.rev + 1:
            raise ValidationError(f"an update of {cur.id} must keep its id and advance its "
                                  f"revision by one ({cur.rev} → {cur.rev + 1})")
        _size_ok(nxt)
        if textsafety.first_unsafe(nxt.search_text()) and \
                not textsafety.first_unsafe(cur.search_text()):
            _text_safe(nxt)  # an edit may not bring one in (an old record is still retired)
        if isinstance(nxt, Fact | Playbook) and secret_in(nxt.search_text()) and \
                not secret_in(cur.search_text()):
            _no_secret(nxt)  # an edit may not bring one in; retiring an old record still works
        if isinstance(nxt, Fact):
            nxt = self._guard(nxt, on_dead, action, dying)
        self.ops.append(UpdateMemory(doc=nxt, expected_rev=cur.rev))
        self._docs[(cur.kind, cur.id)] = nxt
        self.note(action, [cur.id, *targets], before=cur, after=nxt, reason=reason, at=at,
                  key=key)
        return nxt  # type: ignore[return-value]

    def tombstone(self, fact: Fact, kind: TombstoneKind, *, reason: str | None = None,
                  at: datetime | None = None, tombstone_id: str | None = None) -> Tombstone:
        """The value of `fact` declared never true (invariant 6). Every fact this batch already
        activated is matched against it, so a harsh correction cannot restate its own dead
        value (invariant 7)."""
        tomb = tombstone_of(fact, kind, self.actor, reason if reason is not None else self.reason,
                            at or self.now, tombstone_id)
        self.ops.append(PutTombstone(tombstone=tomb))
        self.tombstones.append(tomb)
        for active in self._checked:
            verdict = self.verdict(active.text)
            if verdict is not None and verdict.decision == Decision.REFUSE:
                self._refuse_dead(active, verdict, "write_fact")
        return tomb

    def supersede(self, old: Fact, new: Fact,
                  contradiction: Contradiction = Contradiction.NATURAL, *,
                  at: datetime | None = None, key: str | None = None,
                  reason: str | None = None) -> tuple[Fact, Tombstone | None]:
        """Retire `old` in favour of `new` (already added or activated in this batch): no
        longer true (natural, invariant 4) or never true (harsh: retracted and tombstoned,
        invariant 6). Only a chain head can be retired (invariant 5)."""
        contradiction = Contradiction(contradiction)
        when = at or self.now
        replaced = retire(old, new, contradiction, when)
        harsh = contradiction == Contradiction.HARSH
        action = "retract" if harsh else "supersede"
        self.replace(old, replaced, action=action, targets=[new.id], at=at, key=key,
                     reason=reason)
        tomb = None
        if harsh:
            tomb = self.tombstone(old, TombstoneKind.RETRACTED, at=at,
                                  reason=reason or self.reason or "harsh contradiction")
        return replaced, tomb

    def add_successor(self, old: Fact, new: Fact,
                      contradiction: Contradiction = Contradiction.NATURAL, *,
                      on_dead: OnDead = "refuse") -> tuple[Fact, Fact, Tombstone | None]:
        """Write `new` as the successor of `old` and retire `old`: the usual correction."""
        contradiction = Contradiction(contradiction)
        if old.state != FactState.ACTIVE or old.superseded_by:
            retire(old, new, contradiction, self.now)  # raises the chain error (invariant 5)
        # A harsh correction must not restate the value it retracts (invariant 62).
        dying = ([tombstone_of(old, TombstoneKind.RETRACTED, self.actor, self.reason, self.now)]
                 if contradiction == Contradiction.HARSH else [])
        new = self.add(linked(new, old, contradiction, self.harsh_penalty), on_dead=on_dead,
                       dying=dying)
        if new.state == FactState.CANDIDATE:
            return new, old, None  # proposed: the old fact stays until someone decides
        replaced, tomb = self.supersede(old, new, contradiction)
        return new, replaced, tomb

    def retract(self, fact: Fact, *, kind: TombstoneKind = TombstoneKind.RETRACTED,
                action: str | None = None, reason: str | None = None,
                at: datetime | None = None, tombstone_id: str | None = None,
                targets: Iterable[str] = ()) -> Tombstone:
        """Never true: the user denied it (retracted) or an operator refused it (rejected).
        `targets`: what else the event names (the proposal a review decision retracts for)."""
        new = retracted(fact, at or self.now, kind)
        self.replace(fact, new, action=action or "retract", reason=reason, at=at,
                     targets=targets)
        return self.tombstone(fact, kind, reason=reason, at=at, tombstone_id=tombstone_id)

    def retract_part(self, source: Fact, text: str, *, reason: str | None = None) -> Tombstone:
        """One item of `source` was never true ("not allergic to shellfish" over "Allergic to
        peanuts and shellfish"): its value is tombstoned like a whole retracted fact, so the
        write path refuses or holds it later (invariants 4, 7, 219). Audited as a retraction of
        the source, the value in the event (forgetting the source redacts both)."""
        self._owner_ok(source)
        self._check("retract", [source.id])
        value = " ".join(text.split())  # cleaned by the caller (MemoryService.write_fact)
        tomb = tombstone_of(source.model_copy(update={"text": value}), TombstoneKind.RETRACTED,
                            self.actor, reason if reason is not None else self.reason, self.now)
        self.ops.append(PutTombstone(tombstone=tomb))
        self.tombstones.append(tomb)
        self.note("retract", [source.id], after={"tombstone_id": tomb.id, "never_true": value},
                  reason=reason)
        return tomb

    def forget(self, doc: AnyMemory, *, reason: str | None = None,
               after: dict[str, Any] | None = None) -> None:
        """Hard delete. The audit keeps the id and a hash, never the text (invariants 8, 66);
        memory/forgetting.py redacts the text from history first."""
        self._owner_ok(doc)
        self._check("forget", [doc.id])
        self.ops.append(DeleteMemory(kind=doc.kind, user_id=doc.user_id, id=doc.id,
                                     expected_rev=doc.rev))
        self._docs[(doc.kind, doc.id)] = None
        self.note("forget", [doc.id], before={"id": doc.id, "kind": doc.kind.value,
                                              "text_sha256": text_digest(doc.search_text())},
                  after=after, reason=reason)

    def remove(self, doc: AnyMemory, *, action: str, reason: str | None = None,
               key: str | None = None) -> None:
        """Delete a record something else wrote (an undo), audited with what it held."""
        self._owner_ok(doc)
        self._check(action, [doc.id])
        self.ops.append(DeleteMemory(kind=doc.kind, user_id=doc.user_id, id=doc.id,
                                     expected_rev=doc.rev))
        self._docs[(doc.kind, doc.id)] = None
        self.note(action, [doc.id], before=doc, reason=reason, key=key)

    def set_watermark(self, name: str, value: str, *, expected: str | None) -> None:
        """Advance a per-user watermark from the value read (`expected`): compare-and-set, so
        a concurrent run that moved it first, even to the same value, is a conflict (inv. 38)."""
        self.ops.append(SetWatermark(user_id=self.user_id, name=name, value=value,
                                     expected=expected, strict=True))

    def put_credential(self, cred: Credential, *, action: str, before: Credential | None = None,
                       reason: str | None = None) -> Credential:
        """Issue 15: store a bearer credential of this batch's user, new (`before` None) or
        replacing `before` at its revision; audited without its hash (invariant 131)."""
        if cred.user_id != self.user_id or (before is not None and before.user_id != self.user_id):
            raise ValidationError(f"credential {cred.id} belongs to {cred.user_id!r}, not to "
                                  f"this batch's scope {self.user_id!r}")
        self._check(action)
        self.ops.append(PutCredential(credential=cred,
                                      expected_rev=None if before is None else before.rev))
        self.note(action, [cred.id], before=None if before is None else before.public(),
                  after=cred.public(), reason=reason)
        return cred

    # erasure (invariants 66, 67 and 450) -----------------------------------------------------
    def check_revisions(self, docs: Iterable[AnyMemory]) -> None:
        """Each record must still be at the revision read, before anything irreversible is
        prepared (a forget's redaction): a conflict now changes nothing (invariant 450)."""
        for doc in docs:
            cur = self.get(doc.kind, doc.id)
            if cur is None or cur.rev != doc.rev:
                raise ConflictError(f"{doc.kind.value} {doc.id} changed since it was read",
                                    target_id=doc.id)

    def _revisions_hold(self) -> None:
        """The deletes and updates of this batch still find the revisions they expect."""
        assert self.store is not None
        for op in self.ops:
            if isinstance(op, DeleteMemory | UpdateMemory):
                kind = op.kind if isinstance(op, DeleteMemory) else op.doc.kind
                owner = None if kind == MemoryKind.CATALOG else self.user_id
                rid = op.id if isinstance(op, DeleteMemory) else op.doc.id
                cur = self.store.get(kind, owner, rid)
                if cur is not None and op.expected_rev is not None \
                        and cur.rev != op.expected_rev:
                    raise ConflictError(f"{kind.value} {rid} changed since it was read",
                                        target_id=rid)

    def value_key(self) -> bytes:
        """The store's secret for keyed hashes of forgotten values, created on first use —
        only once this batch's actor may forget here (invariant 450)."""
        self._check("forget")
        if self.store is None:
            raise ValidationError("this batch has no store: it only records operations")
        key = self.store.value_key(create=True)
        assert key is not None  # created above
        return key

    def erase_text(self, erasure: Erasure, *, scan: Iterable[str] | None = None) -> None:
        """Redact these texts from the user's audit snapshots and tombstones at commit, after
        every check of this batch passed and just before its deletes (invariants 66, 450)."""
        if erasure.user_id != self.user_id:
            raise ValidationError(f"an erasure of {erasure.user_id!r} in a batch of "
                                  f"{self.user_id!r}")
        self._check("forget", sorted(erasure.ids))
        self._erasures.append(erasure)
        # looked for in the store's files after (invariant 459): the texts no other record holds
        self._erased_texts += list(erasure.texts if scan is None else scan)
        self._compact = True

    def erase_user(self, *, after: dict[str, Any], texts: Iterable[str] = ()) -> AuditEvent:
        """Erase everything this batch's user owns at commit, leaving one `erase_user` event
        (invariant 67); nothing else may share the batch."""
        targets: list[str] = []
        self.require("erase_user", targets)
        self._erase_event = self._event("erase_user", targets, after=after)
        self._erased_texts = list(texts)  # looked for in the store's files after (inv. 459)
        self._compact = True
        return self._erase_event

    # loading history as it was (seeding, migration, import) ---------------------------------
    def restore(self, item: AnyMemory | Tombstone | AuditEvent | Credential, *,
                on_dead: OnDead = "allow") -> None:
        """Copy a record of an existing history unchanged: a memory, a tombstone or an audit
        event (its own event, already written once). Nothing new is audited: the history is
        the audit. Used by seeding, migration and import, whose ids make re-runs converge.
        Restoring is an admin's (or a system actor's) act (invariant 120). A history from
        outside the store (an import file) passes `on_dead="decide"`: a fact it holds active
        that restates a value this store keeps dead is refused whole (invariant 178)."""
        self._check("restore")
        if on_dead != "allow" and not isinstance(item, AuditEvent | Credential):
            self._outside_ok(item)
            self._new_records = True
        if isinstance(item, Fact) and on_dead != "allow" and item.state == FactState.ACTIVE:
            item = self._guard(item, on_dead, "import_user")
        if isinstance(item, AuditEvent):
            self.ops.append(AppendAudit(event=item))
            self.events.append(item)
        elif isinstance(item, Tombstone):
            self.ops.append(PutTombstone(tombstone=item))
            self.tombstones.append(item)
        elif isinstance(item, Credential):  # issue 15: a migrated token keeps working
            self.ops.append(PutCredential(credential=item))
        else:
            self.ops.append(PutMemory(doc=item))
            self._docs[(item.kind, item.id)] = item

    def adopt_value_key(self, source: Store) -> None:
        """Migration: take the source store's secret, so forgotten values stay refused in the
        copy (invariant 66); a target with another secret of its own is refused."""
        self._check("restore")
        if self.store is None:
            raise ValidationError("this batch has no store: it only records operations")
        key = source.value_key()
        if key is None:
            return
        have = self.store.value_key()
        if have is None:
            self.store.adopt_value_key(key)
        elif have != key:
            raise ValidationError("the target already has another value key (it has forgotten "
                                  "values of its own): migrate into a fresh prefix "
                                  "(MEMDESK_ES_PREFIX)")

    def _outside_ok(self, item: AnyMemory | Tombstone) -> None:
        """Invariant 178: a history from outside the store (an import file) meets every check a
        write meets at this door — its scope, the size limit, text safety and secrets (an
        episode holding one is refused too: masking it would leave it in the file's audit)."""
        if isinstance(item, Tombstone):
            if item.user_id != self.user_id:
                raise ValidationError(f"tombstone {item.id} belongs to {item.user_id!r}, not "
                                      f"to this batch's scope {self.user_id!r}")
            _text_safe(item)
            return
        self._owner_ok(item)
        size = len(item.search_text().encode("utf-8", "surrogatepass"))
        if size > MAX_TEXT_BYTES:
            raise ValidationError(f"{item.kind.value} {item.id} is {size} bytes; the limit is "
                                  f"{MAX_TEXT_BYTES} (32 KB)")
        _size_ok(item)
        _text_safe(item)
        kind = secret_in(item.search_text())
        if kind:
            raise ValidationError(f"{item.kind.value} {item.id}: {refusal(kind)}")

    def restore_watermark(self, user_id: str, name: str, value: str,
                          expected: str | None = None) -> None:
        self.ops.append(SetWatermark(user_id=user_id, name=name, value=value, expected=expected))

    # commit -----------------------------------------------------------------------------------
    def commit(self) -> None:
        """Apply every operation at once (invariant 10). An empty batch writes nothing."""
        if self.committed:
            raise ChainError("this batch was already applied")
        if self.store is None:
            raise ValidationError("this batch has no store: it only records operations")
        if self._erase_event is not None:
            if self.ops or self._erasures:
                raise ValidationError("erasing a user is a batch of its own")
            self.erased = self.store.erase_user(self.user_id, self._erase_event)
        if self._erasures:
            # Redaction before the deletes: a crash between leaves the memory with its history
            # already redacted, and forgetting it again converges (invariant 66).
            self._revisions_hold()
            for erasure in self._erasures:
                for name, n in self.store.redact(self.user_id, erasure).items():
                    self.redacted[name] = self.redacted.get(name, 0) + n
        if self.ops:
            self._new_user_ok()
            self.store.apply(self.ops)
        self.committed = True
        if self._compact:
            self.residue = list(self.store.compact(self._erased_texts) or [])

    def _new_user_ok(self) -> None:
        """Invariant 68: the first write of a user whose id looks like an existing one
        ("аna" with a Cyrillic а beside "ana") is refused, naming the existing id."""
        assert self.store is not None
        if self.user_id == CATALOG or not self._new_records \
                or self.store.audit(self.user_id, limit=1):
            return
        existing = sorted((set(self.store.users()) | set(self.store.audit_users())) - {CATALOG})
        twin = textsafety.confusable_with(self.user_id, existing)
        if twin is not None:
            raise ScopeError(f"user id {self.user_id!r} looks the same as the existing user "
                             f"{twin!r} (Unicode confusables): use {twin!r}, or an id that "
                             "reads differently")

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc_type is None and self.store is not None:
            self.commit()


def bump_usage(store: Store, user_id: str, used: list[tuple[MemoryKind, str]],
               at: datetime) -> None:
    """Agent recall's usage counts (invariant 15): counters on records, not history, so they
    are no batch and no audit event (one per recall would bury the log). Named here so every
    write of the product is in this module (invariant 451)."""
    store.bump_usage(user_id, used, at)
