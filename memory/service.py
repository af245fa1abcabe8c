"""MemoryService: the correction model over a store. Every method names a user (invariant 1).

Pages, the CLI, consolidation and review call this layer; only stores do I/O.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime

from pydantic import BaseModel, ConfigDict
from pydantic import ValidationError as PydanticError

from .clock import Clock, parse_when, utcnow
from .errors import ChainError, NotFoundError, TombstoneError, ValidationError
from .models import (
    CATALOG,
    AuditEvent,
    CatalogDoc,
    Contradiction,
    Episode,
    Fact,
    FactState,
    FactType,
    MemoryKind,
    Playbook,
    Tombstone,
    TombstoneKind,
    check_actor,
    coerce_fact_type,
    snapshot,
)
from .ranking import RankedHit
from .rerank import get_reranker
from .retrieval import retrieve
from .search_config import DEFAULT, Purpose, RecallConfig
from .stores.base import (
    AnyMemory,
    AppendAudit,
    DeleteMemory,
    Op,
    PutMemory,
    PutTombstone,
    Store,
    UpdateMemory,
)
from .text import clean_text, normalise, require_user
from .values import match_tombstone

USER_KINDS = (MemoryKind.SEMANTIC, MemoryKind.EPISODIC, MemoryKind.PROCEDURAL)


class WriteResult(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    fact: Fact
    replaced: Fact | None = None  # the old fact, after supersession or retraction
    tombstone: Tombstone | None = None


class FilterCount(BaseModel):
    name: str
    removed: int
    detail: str


class RecallExplain(BaseModel):
    query: str
    path: str
    candidates: dict[str, int]
    filters: list[FilterCount]
    config: dict


class RecallResult(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    hits: list[RankedHit]
    explain: RecallExplain | None = None


class UserSummary(BaseModel):
    user_id: str
    episodes: int
    facts: dict[str, int]
    playbooks: int


def _model_error(exc: PydanticError) -> ValidationError:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "input"
    msg = str(first.get("msg", "invalid")).removeprefix("Value error, ")
    return ValidationError(f"invalid {where}: {msg}")


def audit_event(actor: str, user_id: str, action: str, *, targets: Iterable[str] = (),
                before=None, after=None, reason: str | None = None, plan_id: str | None = None,
                outcome: str = "ok", at: datetime | None = None) -> AuditEvent:
    """Build an audit event (invariant 8): actor, user, targets, before/after, reason, time."""
    return AuditEvent(actor=actor, user_id=user_id, action=action, target_ids=list(targets),
                      before=snapshot(before) if isinstance(before, BaseModel) else before,
                      after=snapshot(after) if isinstance(after, BaseModel) else after,
                      reason=reason, plan_id=plan_id, outcome=outcome,  # type: ignore[arg-type]
                      **({"at": at} if at else {}))


def bump(doc: AnyMemory, **changes) -> AnyMemory:
    """A copy with changes applied and the revision advanced (for UpdateMemory)."""
    return doc.model_validate({**doc.model_dump(), **changes, "rev": doc.rev + 1})


class MemoryService:
    def __init__(self, store: Store, *, clock: Clock = utcnow, tombstone_similarity: float = 0.85,
                 harsh_confidence_penalty: float = 0.2):
        self.store = store
        self.embedder = store.embedder
        self.clock = clock
        self.tombstone_similarity = tombstone_similarity
        self.harsh_confidence_penalty = harsh_confidence_penalty

    # scope and ownership --------------------------------------------------------------------
    def _actor(self, actor: str) -> str:
        try:
            return check_actor(actor)
        except ValueError as exc:
            raise ValidationError(str(exc)) from None

    def owned(self, user_id: str, kind: MemoryKind, memory_id: str, *, actor: str,
              action: str) -> AnyMemory:
        """Fetch a memory for a mutation. Another user's id is exactly a missing id to the
        caller, and the attempt is audited as denied (invariant 3)."""
        doc = self.store.get(kind, user_id, memory_id)
        if doc is not None:
            return doc
        owner = self.store.owner_of(kind, memory_id)
        if owner is not None and owner != user_id:
            self.store.apply([AppendAudit(event=audit_event(
                actor, user_id, "denied", targets=[memory_id], outcome="denied",
                reason=f"{action}: {kind.value} id belongs to another user", at=self.clock()))])
        raise NotFoundError(f"no {kind.value} memory {memory_id} for user {user_id}",
                            target_id=memory_id)

    def find_memory(self, user_id: str, memory_id: str, *, actor: str, action: str) -> AnyMemory:
        user_id = require_user(user_id)
        for kind in USER_KINDS:
            doc = self.store.get(kind, user_id, memory_id)
            if doc is not None:
                return doc
        for kind in USER_KINDS:
            if self.store.owner_of(kind, memory_id) is not None:
                return self.owned(user_id, kind, memory_id, actor=actor, action=action)
        raise NotFoundError(f"no memory {memory_id} for user {user_id}", target_id=memory_id)

    # tombstones -------------------------------------------------------------------------------
    def tombstone_match(self, user_id: str, text: str) -> tuple[Tombstone, float] | None:
        """The tombstone this text restates (memory/values.py: same value, same terms, or
        similar meaning with the same polarity), with its cosine (invariant 7)."""
        user_id = require_user(user_id)
        tombs = self.store.list_tombstones(user_id)
        if not tombs:
            return None
        vec = self.embedder.embed([text])[0]
        near = self.store.nearest_tombstones(user_id, vec, 5)
        found = match_tombstone(text, tombs, near, self.tombstone_similarity)
        return None if found is None else (found[0], found[1])

    def tombstone_for(self, fact: Fact, kind: TombstoneKind, actor: str,
                      reason: str | None) -> Tombstone:
        return Tombstone(user_id=fact.user_id, text=fact.text, normalized=normalise(fact.text),
                         kind=kind, source_fact_id=fact.id, reason=reason, actor=actor,
                         created_at=self.clock())

    def _refuse_if_tombstoned(self, user_id: str, text: str, actor: str) -> None:
        match = self.tombstone_match(user_id, text)
        if match is None:
            return
        tomb, sim = match
        self.store.apply([AppendAudit(event=audit_event(
            actor, user_id, "write_refused", targets=[tomb.id], outcome="refused",
            after={"text": text, "similarity": round(sim, 4)},
            reason=f"restates a {tomb.kind.value} value: {tomb.text!r}", at=self.clock()))])
        raise TombstoneError(
            f"refused: {text!r} restates a value this user's history marks {tomb.kind.value} "
            f"({tomb.text!r}, similarity {sim:.2f}, tombstone {tomb.id})", tombstone_id=tomb.id)

    # episodes ---------------------------------------------------------------------------------
    def write_episode(self, user_id: str, text: str, *, timestamp=None, session_id: str | None = None,
                      actor: str = "agent") -> Episode:
        return self.write_episodes(user_id, [(text, timestamp, session_id)], actor=actor)[0]

    def write_episodes(self, user_id: str, items: list[tuple[str, object, str | None]], *,
                       actor: str = "agent") -> list[Episode]:
        """The user's own messages, in one transaction. Assistant text never comes here (inv. 9)."""
        user_id, actor = require_user(user_id), self._actor(actor)
        now = self.clock()
        episodes, ops = [], []
        for text, timestamp, session_id in items:
            when = parse_when(timestamp, field="timestamp") or now
            ep = Episode(user_id=user_id, text=clean_text(text), timestamp=when,
                         session_id=session_id, recorded_at=now)
            episodes.append(ep)
            ops += [PutMemory(doc=ep), AppendAudit(event=audit_event(
                actor, user_id, "write_episode", targets=[ep.id], after=ep, at=now))]
        self.store.apply(ops)
        return episodes

    # facts ------------------------------------------------------------------------------------
    def build_fact(self, user_id: str, text: str, *, fact_type: str | FactType = FactType.WORLD,
                   confidence: float = 0.8, state: FactState | str = FactState.ACTIVE,
                   source_episode_ids: Iterable[str] = (), valid_from=None, valid_to=None,
                   origin: str = "agent", plan_id: str | None = None, fact_id: str | None = None,
                   flags: Iterable[str] = ()) -> Fact:
        """Validate input into a Fact (nothing written): bad types, dates and text are refused."""
        try:
            ftype = coerce_fact_type(fact_type)
        except ValueError as exc:
            raise ValidationError(str(exc)) from None
        try:
            return Fact(
                **({"id": fact_id} if fact_id else {}), user_id=require_user(user_id),
                text=clean_text(text), fact_type=ftype, confidence=confidence,
                state=FactState(state), source_episode_ids=list(source_episode_ids),
                valid_from=parse_when(valid_from, field="valid_from"),
                valid_to=parse_when(valid_to, field="valid_to"), recorded_at=self.clock(),
                origin=origin, plan_id=plan_id, flags=list(flags))
        except PydanticError as exc:
            raise _model_error(exc) from None

    def check_sources(self, user_id: str, episode_ids: Iterable[str]) -> None:
        for ep_id in episode_ids:
            if self.store.get(MemoryKind.EPISODIC, user_id, ep_id) is None:
                raise ValidationError(f"source episode {ep_id} not found for user {user_id}")

    def supersession_ops(self, old: Fact, new: Fact, contradiction: Contradiction, *, actor: str,
                         reason: str | None = None, plan_id: str | None = None) -> tuple[list[Op], Fact, Tombstone | None]:
        """Operations that retire `old` in favour of `new` (invariants 4-6). Pure: no I/O."""
        if old.state != FactState.ACTIVE or old.superseded_by:
            head = f"; its successor is {old.superseded_by}" if old.superseded_by else ""
            raise ChainError(f"fact {old.id} is {old.state.value}, not the head of its chain"
                             f"{head}: only the current head can be superseded", target_id=old.id)
        now = self.clock()
        tomb = None
        if contradiction == Contradiction.HARSH:
            # Never true: the old fact is retracted and its value tombstoned (invariant 6).
            replaced = bump(old, state=FactState.RETRACTED, superseded_by=new.id, superseded_at=now)
            tomb = self.tombstone_for(old, TombstoneKind.RETRACTED, actor, reason or "harsh contradiction")
        else:
            # No longer true: kept as history; valid time closes where the new fact starts (inv. 4).
            valid_to = old.valid_to or new.valid_from
            if valid_to and old.valid_from and valid_to < old.valid_from:
                valid_to = old.valid_from
            replaced = bump(old, state=FactState.SUPERSEDED, superseded_by=new.id,
                            superseded_at=now, valid_to=valid_to)
        action = "retract" if contradiction == Contradiction.HARSH else "supersede"
        ops: list[Op] = [UpdateMemory(doc=replaced, expected_rev=old.rev)]
        if tomb:
            ops.append(PutTombstone(tombstone=tomb))
        ops.append(AppendAudit(event=audit_event(
            actor, old.user_id, action, targets=[old.id, new.id], before=old, after=replaced,
            reason=reason, plan_id=plan_id, at=now)))
        return ops, replaced, tomb  # type: ignore[return-value]

    def write_fact(self, user_id: str, text: str, *, fact_type: str | FactType = FactType.WORLD,
                   confidence: float = 0.8, state: FactState | str = FactState.ACTIVE,
                   source_episode_ids: Iterable[str] = (), supersedes_id: str | None = None,
                   contradiction: Contradiction | str = Contradiction.NATURAL, valid_from=None,
                   valid_to=None, actor: str = "agent", reason: str | None = None) -> WriteResult:
        """Write a fact, optionally superseding (natural) or retracting (harsh) another."""
        user_id, actor = require_user(user_id), self._actor(actor)
        contradiction = Contradiction(contradiction)
        fact = self.build_fact(user_id, text, fact_type=fact_type, confidence=confidence,
                               state=state, source_episode_ids=source_episode_ids,
                               valid_from=valid_from, valid_to=valid_to, origin=actor)
        if fact.state not in (FactState.ACTIVE, FactState.CANDIDATE):
            raise ValidationError("a new fact starts as active or candidate")
        self.check_sources(user_id, fact.source_episode_ids)
        self._refuse_if_tombstoned(user_id, fact.text, actor)  # invariant 7
        ops: list[Op] = []
        replaced = tomb = None
        if supersedes_id:
            old = self.owned(user_id, MemoryKind.SEMANTIC, supersedes_id, actor=actor,
                             action="supersede")
            penalty = self.harsh_confidence_penalty if contradiction == Contradiction.HARSH else 0.0
            fact = Fact.model_validate({**fact.model_dump(), "supersedes": old.id,
                                        "contradiction": contradiction,
                                        "confidence": max(0.0, fact.confidence - penalty)})
            more, replaced, tomb = self.supersession_ops(old, fact, contradiction, actor=actor,
                                                         reason=reason)
            ops += more
        ops = [PutMemory(doc=fact), AppendAudit(event=audit_event(
            actor, user_id, "write_fact", targets=[fact.id], after=fact, reason=reason,
            at=fact.recorded_at)), *ops]
        self.store.apply(ops)
        return WriteResult(fact=fact, replaced=replaced, tombstone=tomb)

    def retract(self, user_id: str, fact_id: str, *, actor: str = "agent",
                reason: str | None = None) -> Tombstone:
        """The user says a fact was never true: retract it and tombstone its value (inv. 6)."""
        user_id, actor = require_user(user_id), self._actor(actor)
        old: Fact = self.owned(user_id, MemoryKind.SEMANTIC, fact_id, actor=actor, action="retract")  # type: ignore[assignment]
        if old.state in (FactState.RETRACTED, FactState.REJECTED):
            raise ChainError(f"fact {fact_id} is already {old.state.value}", target_id=fact_id)
        now = self.clock()
        new = bump(old, state=FactState.RETRACTED, superseded_at=now)
        tomb = self.tombstone_for(old, TombstoneKind.RETRACTED, actor, reason)
        self.store.apply([UpdateMemory(doc=new, expected_rev=old.rev), PutTombstone(tombstone=tomb),
                          AppendAudit(event=audit_event(actor, user_id, "retract", targets=[fact_id],
                                                        before=old, after=new, reason=reason, at=now))])
        return tomb

    def forget(self, user_id: str, memory_id: str, *, actor: str = "agent",
               reason: str | None = None) -> None:
        """Hard delete of one memory. The audit keeps ids and a hash, never the text (inv. 8)."""
        user_id, actor = require_user(user_id), self._actor(actor)
        doc = self.find_memory(user_id, memory_id, actor=actor, action="forget")
        digest = hashlib.sha256(doc.search_text().encode()).hexdigest()
        self.store.apply([
            DeleteMemory(kind=doc.kind, user_id=user_id, id=doc.id, expected_rev=doc.rev),
            AppendAudit(event=audit_event(actor, user_id, "forget", targets=[doc.id],
                                          before={"id": doc.id, "kind": doc.kind.value,
                                                  "text_sha256": digest},
                                          reason=reason, at=self.clock()))])

    # reading facts ------------------------------------------------------------------------------
    def get_fact(self, user_id: str, fact_id: str) -> Fact:
        user_id = require_user(user_id)
        fact = self.store.get(MemoryKind.SEMANTIC, user_id, fact_id)
        if fact is None:
            raise NotFoundError(f"no fact {fact_id} for user {user_id}", target_id=fact_id)
        return fact  # type: ignore[return-value]

    def chain(self, user_id: str, fact_id: str) -> list[Fact]:
        """The whole supersession chain through a fact, oldest first (walkable both ways)."""
        start = self.get_fact(user_id, fact_id)
        back: list[Fact] = []
        cur, seen = start, {start.id}
        while cur.supersedes and cur.supersedes not in seen:
            prev = self.store.get(MemoryKind.SEMANTIC, user_id, cur.supersedes)
            if prev is None:  # forgotten link: the chain ends here
                break
            back.append(prev)  # type: ignore[arg-type]
            seen.add(prev.id)
            cur = prev  # type: ignore[assignment]
        forward: list[Fact] = []
        cur = start
        while cur.superseded_by and cur.superseded_by not in seen:
            nxt = self.store.get(MemoryKind.SEMANTIC, user_id, cur.superseded_by)
            if nxt is None:
                break
            forward.append(nxt)  # type: ignore[arg-type]
            seen.add(nxt.id)
            cur = nxt  # type: ignore[assignment]
        return [*reversed(back), start, *forward]

    def facts(self, user_id: str, *, states: Iterable[FactState | str] | None = None,
              fact_type: FactType | str | None = None, as_of_valid=None,
              as_of_recorded=None) -> list[Fact]:
        """List facts; `as_of_valid` and `as_of_recorded` answer the two "as of" questions."""
        user_id = require_user(user_id)
        wanted = {FactState(s) for s in states} if states else None
        valid_at = parse_when(as_of_valid, field="as_of_valid")
        recorded_at = parse_when(as_of_recorded, field="as_of_recorded")
        ftype = None
        if fact_type:
            try:
                ftype = coerce_fact_type(fact_type)
            except ValueError as exc:
                raise ValidationError(str(exc)) from None
        out = []
        for f in self.store.list_facts(user_id, states=wanted):
            if ftype and f.fact_type != ftype:
                continue
            if valid_at and not valid_covers(f, valid_at):
                continue
            if recorded_at and not believed_at(f, recorded_at):
                continue
            out.append(f)
        return out

    # playbooks and catalog ---------------------------------------------------------------------
    def write_playbook(self, user_id: str, name: str, trigger: str, steps: list[str], *,
                       success_count: int = 0, failure_count: int = 0, confidence: float = 0.8,
                       source_episode_ids: Iterable[str] = (), actor: str = "agent") -> Playbook:
        user_id, actor = require_user(user_id), self._actor(actor)
        try:
            pb = Playbook(user_id=user_id, name=clean_text(name, field="name"),
                          trigger=clean_text(trigger, field="trigger"),
                          steps=[clean_text(s, field="step") for s in steps],
                          success_count=success_count, failure_count=failure_count,
                          confidence=confidence, source_episode_ids=list(source_episode_ids),
                          recorded_at=self.clock(), updated_at=self.clock())
        except PydanticError as exc:
            raise _model_error(exc) from None
        if not pb.steps:
            raise ValidationError("a playbook needs at least one step")
        self.check_sources(user_id, pb.source_episode_ids)
        self.store.apply([PutMemory(doc=pb), AppendAudit(event=audit_event(
            actor, user_id, "write_playbook", targets=[pb.id], after=pb, at=pb.recorded_at))])
        return pb

    def record_outcome(self, user_id: str, playbook_id: str, *, success: bool,
                       actor: str = "agent", reason: str | None = None) -> Playbook:
        user_id, actor = require_user(user_id), self._actor(actor)
        pb: Playbook = self.owned(user_id, MemoryKind.PROCEDURAL, playbook_id, actor=actor,
                                  action="record_outcome")  # type: ignore[assignment]
        field = "success_count" if success else "failure_count"
        new = bump(pb, **{field: getattr(pb, field) + 1, "updated_at": self.clock()})
        self.store.apply([UpdateMemory(doc=new, expected_rev=pb.rev), AppendAudit(event=audit_event(
            actor, user_id, "playbook_outcome", targets=[pb.id], before=pb, after=new,
            reason=reason, at=self.clock()))])
        return new  # type: ignore[return-value]

    def playbooks(self, user_id: str) -> list[Playbook]:
        return self.store.list_playbooks(require_user(user_id))

    def episodes(self, user_id: str, *, after=None, limit: int | None = None) -> list[Episode]:
        return self.store.list_episodes(require_user(user_id),
                                        after=parse_when(after, field="after"), limit=limit)

    def add_catalog(self, docs: list[CatalogDoc], *, actor: str = "seed") -> None:
        """Shared documents with no owner; audited under the reserved scope "catalog"."""
        actor = self._actor(actor)
        ops: list[Op] = []
        for doc in docs:
            ops += [PutMemory(doc=doc), AppendAudit(event=audit_event(
                actor, CATALOG, "write_catalog", targets=[doc.id], after=doc, at=self.clock()))]
        self.store.apply(ops)

    # recall -------------------------------------------------------------------------------------
    def recall(self, user_id: str, query: str, *, config: RecallConfig = DEFAULT,
               purpose: Purpose = Purpose.AGENT, explain: bool = False) -> RecallResult:
        """Hybrid recall scoped to one user (plus catalog when asked); see memory.ranking."""
        user_id = require_user(user_id)
        query = clean_text(query, field="query")
        reranker = get_reranker(config.rerank)  # an unknown name fails before any work
        now = self.clock()
        # Issue 17: the pipeline (time in the question, legs, fusion, adjust) is memory.retrieval.
        got = retrieve(self.store, self.embedder, user_id, query, config, now, reranker)
        hits, legs = got.hits, got.legs
        if purpose == Purpose.AGENT:  # invariant 15: explain and eval never bump
            used = [(h.doc.kind, h.id) for h in hits
                    if h.doc.kind in (MemoryKind.SEMANTIC, MemoryKind.PROCEDURAL)]
            self.store.bump_usage(user_id, used, now)
        result = RecallResult(hits=hits)
        if explain:
            result.explain = RecallExplain(
                query=query, path=getattr(self.store, "recall_path", "embedded: FTS5 + exact numpy"),
                candidates={name: len(v) for name, v in legs.items()},
                filters=filter_breakdown(self.store.counts(user_id), config),
                config=config.model_dump(mode="json"))
        return result

    # overview and audit ------------------------------------------------------------------------
    def users(self) -> list[UserSummary]:
        """Every user with counts per memory type and fact state (the desk's user picker)."""
        out = []
        for user in self.store.users():
            c = self.store.counts(user)
            out.append(UserSummary(user_id=user, episodes=sum(c.get("episodic", {}).values()),
                                   facts={s.value: c.get("semantic", {}).get(s.value, 0)
                                          for s in FactState},
                                   playbooks=sum(c.get("procedural", {}).values())))
        return out

    def audit(self, user_id: str, *, limit: int = 100, action: str | None = None,
              plan_id: str | None = None) -> list[AuditEvent]:
        return self.store.audit(require_user(user_id) if user_id != CATALOG else CATALOG,
                                limit=limit, action=action, plan_id=plan_id)


def valid_covers(fact: Fact, at: datetime) -> bool:
    """Valid-time "as of": was this version true on that day? (invariant 13)

    Retracted, rejected and candidate facts were never believed true. An undated start is taken
    from record time; an undated end of a superseded fact is when it was superseded."""
    if fact.state not in (FactState.ACTIVE, FactState.SUPERSEDED):
        return False
    start = fact.valid_from or fact.recorded_at
    end = fact.valid_to or (fact.superseded_at if fact.state == FactState.SUPERSEDED else None)
    return start <= at and (end is None or at < end)


def believed_at(fact: Fact, at: datetime) -> bool:
    """Record-time "as of": did the store believe it then? (invariant 14)"""
    if fact.state in (FactState.CANDIDATE, FactState.REJECTED):
        return False
    return fact.recorded_at <= at and (fact.superseded_at is None or fact.superseded_at > at)


def filter_breakdown(counts: dict[str, dict[str, int]], config: RecallConfig) -> list[FilterCount]:
    """How many of this user's documents each recall filter removed (for explain)."""
    out = []
    excluded_kinds = [k for k in USER_KINDS if k not in config.kinds]
    kind_removed = sum(sum(counts.get(k.value, {}).values()) for k in excluded_kinds)
    out.append(FilterCount(name="kind", removed=kind_removed,
                           detail="kinds not asked for: " + (", ".join(k.value for k in excluded_kinds) or "none")))
    if MemoryKind.SEMANTIC in config.kinds:
        allowed = config.fact_states()
        facts = counts.get("semantic", {})
        for state in FactState:
            if state not in allowed:
                out.append(FilterCount(name=f"state:{state.value}", removed=facts.get(state.value, 0),
                                       detail=f"{state.value} facts never reach this recall"))
    return out
