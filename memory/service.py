"""MemoryService: the correction model over a store. Every method names a user (invariant 1).

Pages, the CLI, consolidation and review call this layer; only stores do I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict
from pydantic import ValidationError as PydanticError

from . import contradicted, forgetting, inputs
from . import tombstones as _tombstones  # issue 11: the three-way tombstone check
from .clock import Clock, When, parse_when, utcnow
from .corrections import as_believed, believed_at, valid_covers
from .errors import NotFoundError, ValidationError
from .inputs import optional_label
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
    coerce_fact_type,
)
from .policy import ReviewPolicy
from .ranking import RankedHit
from .rerank import get_reranker
from .retrieval import retrieve
from .search_config import DEFAULT, Purpose, RecallConfig
from .sensitive import masked
from .stores.base import AnyMemory, FactPage, FactQuery, Store
from .text import clean_text, require_user
from .unit_of_work import Authorize, Batch, EventIds, as_actor, bump_usage
from .values import Decision, Verdict

__all__ = ["MemoryService", "believed_at", "valid_covers"]

USER_KINDS = (MemoryKind.SEMANTIC, MemoryKind.EPISODIC, MemoryKind.PROCEDURAL)


class WriteResult(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    fact: Fact
    replaced: Fact | None = None  # the old fact, after supersession or retraction
    tombstone: Tombstone | None = None
    # issue 11: why the fact was held for review instead (possibly restates a tombstone)
    held: Verdict | None = None


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
    lexical_query: str | None = None  # the BM25 query, the user's own name dropped (inv. 153)
    dense_weight: float | None = None  # this query's dense weight in fusion (invariant 154)
    lexical_coverage: float | None = None  # share of the query's words the best BM25 hits hold
    # the dense weight of facts, playbooks and catalog when it differs (invariant 154)
    distilled_dense_weight: float | None = None
    lexical_extra: dict[str, float] = {}  # the lexicon's words BM25 also scored (invariant 169)


class RecallResult(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    hits: list[RankedHit]
    contradicted: list[str] = []  # hits kept only by explain recall (invariant 65)
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


class MemoryService:
    def __init__(self, store: Store, *, clock: Clock = utcnow, tombstone_similarity: float = 0.85,
                 harsh_confidence_penalty: float = 0.2, authorize: Authorize | None = None,
                 policy: ReviewPolicy | None = None) -> None:
        self.store = store
        self.embedder = store.embedder
        self.clock = clock
        self.tombstone_similarity = tombstone_similarity
        self.harsh_confidence_penalty = harsh_confidence_penalty
        self.authorize = authorize  # roles (issue 14): checked inside every Batch
        self.policy = policy or ReviewPolicy()  # what waits for an operator (memory/policy.py)

    # the unit of work ---------------------------------------------------------------------------
    def batch(self, actor: str, user_id: str, *, reason: str | None = None,
              plan_id: str | None = None, comment: str | None = None,
              event_ids: EventIds | None = None) -> Batch:
        """The one door for mutations (memory/unit_of_work.py): `with svc.batch(...) as b:`.
        The scope is a user (invariant 1); the shared catalog has its own door below."""
        return self._batch(actor, require_user(user_id), reason=reason, plan_id=plan_id,
                           comment=comment, event_ids=event_ids)

    def catalog_batch(self, actor: str, *, reason: str | None = None) -> Batch:
        """Writes to the owner-less catalog, audited under the reserved scope "catalog"."""
        return self._batch(actor, CATALOG, reason=reason)

    def _batch(self, actor: str, scope: str, *, reason: str | None = None,
               plan_id: str | None = None, comment: str | None = None,
               event_ids: EventIds | None = None) -> Batch:
        return Batch(self.store, actor, scope, now=self.clock(), reason=reason, plan_id=plan_id,
                     comment=comment, gate=lambda user, text, pending: self.tombstone_verdict(user, text, pending=pending), authorize=self.authorize,
                     event_ids=event_ids, harsh_penalty=self.harsh_confidence_penalty)

    def require(self, actor: str, action: str, user_id: str | None = None) -> None:
        """Check a role for what is no batch (a read the layers guard: an export, an eval run,
        a chat turn, a dry run); a refusal is audited `denied` like any other (invariant 121).
        No user: the check is recorded under the shared scope "catalog"."""
        scope = require_user(user_id) if user_id is not None else CATALOG
        self._batch(actor, scope).require(action)

    # scope and ownership --------------------------------------------------------------------
    def owned(self, user_id: str, kind: MemoryKind, memory_id: str, *, actor: str,
              action: str) -> AnyMemory:
        """Fetch a memory for a mutation. Another user's id is exactly a missing id to the
        caller, and the attempt is audited as denied (invariant 3)."""
        return self.batch(actor, user_id).owned(kind, memory_id, action=action)

    def find_memory(self, user_id: str, memory_id: str, *, actor: str, action: str) -> AnyMemory:
        user_id, memory_id = require_user(user_id), inputs.memory_id(memory_id)  # inv. 11
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
        """The tombstone this text restates or may restate (refuse or review verdict), with
        its cosine (invariant 7)."""
        v = self.tombstone_verdict(user_id, text)
        if v.tombstone is None or v.decision == Decision.ACCEPT:
            return None
        return v.tombstone, v.similarity if v.similarity is not None else 1.0

    def tombstone_verdict(self, user_id: str, text: str, *, pending: Iterable[Tombstone] = (),
                          vector: np.ndarray | None = None) -> Verdict:
        """Refuse, review or accept `text` against the user's tombstones and the ones a batch
        creates (`pending`), by index (memory/tombstones.py; invariants 7, 61-63). A forgotten
        value is refused by its keyed hash alone (invariant 66)."""
        user_id = require_user(user_id)
        # Only a store where something was forgotten has a key (and forgotten tombstones).
        forgotten = (forgetting.forgotten_match(self.store, text,
                                                self.store.list_tombstones(user_id))
                     if self.store.value_key() is not None else None)
        if forgotten is not None:
            return Verdict(decision=Decision.REFUSE, tombstone=forgotten, similarity=1.0,
                           reason="the exact value of a forgotten tombstone")
        return _tombstones.check(self.store, self.embedder, user_id, text,
                                 threshold=self.tombstone_similarity, pending=pending,
                                 vector=vector)

    # episodes ---------------------------------------------------------------------------------
    def write_episode(self, user_id: str, text: str, *, timestamp: When = None,
                      session_id: str | None = None, actor: str = "agent") -> Episode:
        return self.write_episodes(user_id, [(text, timestamp, session_id)], actor=actor)[0]

    def write_episodes(self, user_id: str, items: Sequence[tuple[str, When, str | None]], *,
                       actor: str = "agent") -> list[Episode]:
        """The user's own messages, in one transaction. Assistant text never comes here (inv. 9)."""
        with self.batch(actor, user_id) as b:
            # a password or card number said in passing is withheld from the record (inv. 273)
            return [b.add(Episode(user_id=b.user_id, text=masked(clean_text(text)),
                                  timestamp=parse_when(timestamp, field="timestamp") or b.now,
                                  session_id=optional_label(session_id, "session"),  # inv. 68
                                  recorded_at=b.now))
                    for text, timestamp, session_id in items]

    # facts ------------------------------------------------------------------------------------
    def build_fact(self, user_id: str, text: str, *, fact_type: str | FactType = FactType.WORLD,
                   confidence: float = 0.8, state: FactState | str = FactState.ACTIVE,
                   source_episode_ids: Iterable[str] = (), valid_from: When = None,
                   valid_to: When = None, origin: str = "agent", plan_id: str | None = None, fact_id: str | None = None,
                   flags: Iterable[str] = (), reader: str | None = None) -> Fact:
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
                origin=origin, plan_id=plan_id, flags=list(flags), reader=reader)
        except PydanticError as exc:
            raise _model_error(exc) from None

    def check_sources(self, user_id: str, episode_ids: Iterable[str]) -> None:
        for ep_id in episode_ids:
            ep_id = inputs.memory_id(ep_id, "source episode id")  # invariant 11
            if self.store.get(MemoryKind.EPISODIC, user_id, ep_id) is None:
                raise ValidationError(f"source episode {ep_id} not found for user {user_id}")

    def write_fact(self, user_id: str, text: str, *, fact_type: str | FactType = FactType.WORLD,
                   confidence: float = 0.8, state: FactState | str = FactState.ACTIVE,
                   source_episode_ids: Iterable[str] = (), supersedes_id: str | None = None,
                   contradiction: Contradiction | str = Contradiction.NATURAL,
                   valid_from: When = None, valid_to: When = None, actor: str = "agent",
                   reason: str | None = None, never_true: str | None = None, reader: str | None = None) -> WriteResult:
        """Write a fact, optionally superseding (natural) or retracting (harsh) another.
        `never_true`: with a natural supersession, the part of the old fact the user says was
        never true ("Allergic to shellfish"); its value is tombstoned (invariant 219).
        `reader`: the reader and version that read it from the user's words (invariant 490)."""
        user_id, actor = require_user(user_id), as_actor(actor)
        reason = optional_label(reason, "reason")  # invariant 68
        contradiction = Contradiction(contradiction)
        if never_true is not None:
            if not supersedes_id or contradiction != Contradiction.NATURAL:
                raise ValidationError("`never_true` names a part of the fact this one replaces "
                                      "(a natural supersession)")
            never_true = clean_text(never_true)
        fact = self.build_fact(user_id, text, fact_type=fact_type, confidence=confidence,
                               state=state, source_episode_ids=source_episode_ids,
                               valid_from=valid_from, valid_to=valid_to, origin=actor,
                               reader=reader)
        if fact.state not in (FactState.ACTIVE, FactState.CANDIDATE):
            raise ValidationError("a new fact starts as active or candidate")
        self.check_sources(user_id, fact.source_episode_ids)
        with self.batch(actor, user_id, reason=reason) as b:
            if not supersedes_id:
                new = b.add(fact)
                return WriteResult(fact=new, held=b.held.get(new.id))
            old = b.owned_fact(supersedes_id, action="supersede")
            new, replaced, tomb = b.add_successor(old, fact, contradiction)
            if never_true is not None and new.state == FactState.ACTIVE:
                tomb = b.retract_part(old, never_true, reason=reason)
            return WriteResult(fact=new, replaced=None if new.state == FactState.CANDIDATE
                               else replaced, tombstone=tomb, held=b.held.get(new.id))

    def retract(self, user_id: str, fact_id: str, *, actor: str = "agent",
                reason: str | None = None) -> Tombstone:
        """The user says a fact was never true: retract it and tombstone its value (inv. 6)."""
        with self.batch(actor, user_id, reason=optional_label(reason, "reason")) as b:
            return b.retract(b.owned_fact(fact_id, action="retract"))

    def forget(self, user_id: str, memory_id: str, *, actor: str = "agent",
               reason: str | None = None, cascade: bool = False, with_sources: bool = False,
               keep: frozenset[str] = frozenset()) -> forgetting.ForgetResult:
        """Hard delete of one memory: its text leaves the record, the search indices, the audit
        snapshots and tombstones; `cascade` also forgets what was derived from an episode
        (invariants 8 and 66; memory/forgetting.py)."""
        return forgetting.forget(self, user_id, memory_id, actor=actor, reason=reason,
                                 cascade=cascade, with_sources=with_sources, keep=keep)

    # reading facts ------------------------------------------------------------------------------
    def get_fact(self, user_id: str, fact_id: str) -> Fact:
        user_id, fact_id = require_user(user_id), inputs.memory_id(fact_id, "fact id")
        fact = self.store.get(MemoryKind.SEMANTIC, user_id, fact_id)
        if not isinstance(fact, Fact):  # a semantic id: a Fact, or missing
            raise NotFoundError(f"no fact {fact_id} for user {user_id}", target_id=fact_id)
        return fact

    def fact_summaries(self, user_id: str, *, states: Iterable[FactState | str] | None = None,
                       fact_type: FactType | str | None = None, text: str | None = None,
                       limit: int | None = None, offset: int = 0) -> FactPage:
        """Listing fields of one user's facts, filtered and paged in the store (the Facts
        table lists thousands; no full record is decoded)."""
        return self.store.fact_summaries(FactQuery(
            user_ids=[require_user(user_id)],
            states=frozenset(FactState(s) for s in states) if states else None,
            fact_types=frozenset({coerce_fact_type(fact_type).value}) if fact_type else None,
            text=text or None, limit=limit, offset=offset))

    def chain(self, user_id: str, fact_id: str) -> list[Fact]:
        """The whole supersession chain through a fact, oldest first (walkable both ways)."""
        start = self.get_fact(user_id, fact_id)
        back: list[Fact] = []
        cur, seen = start, {start.id}
        while cur.supersedes and cur.supersedes not in seen:
            prev = self.store.get(MemoryKind.SEMANTIC, user_id, cur.supersedes)
            if not isinstance(prev, Fact):  # forgotten link: the chain ends here
                break
            back.append(prev)
            seen.add(prev.id)
            cur = prev
        forward: list[Fact] = []
        cur = start
        while cur.superseded_by and cur.superseded_by not in seen:
            nxt = self.store.get(MemoryKind.SEMANTIC, user_id, cur.superseded_by)
            if not isinstance(nxt, Fact):
                break
            forward.append(nxt)
            seen.add(nxt.id)
            cur = nxt
        return [*reversed(back), start, *forward]

    def facts(self, user_id: str, *, states: Iterable[FactState | str] | None = None,
              fact_type: FactType | str | None = None, as_of_valid: When = None,
              as_of_recorded: When = None) -> list[Fact]:
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
        listed = self.store.list_facts(user_id, states=wanted)
        by_id = {f.id: f for f in listed}
        opened = self._valid_to_before(user_id, listed, recorded_at) if (
            valid_at and recorded_at) else {}
        for f in listed:
            if ftype and f.fact_type != ftype:
                continue
            if recorded_at and not believed_at(f, recorded_at):
                continue
            if valid_at:
                # Both clocks: what the store believed at `recorded_at` about `valid_at`, on
                # the version as it stood then (invariant 184), not as later corrected.
                seen = f
                if recorded_at:
                    nxt = by_id.get(f.superseded_by or "") or (
                        self.store.get(MemoryKind.SEMANTIC, user_id, f.superseded_by)
                        if f.superseded_by else None)
                    seen = as_believed(f, recorded_at, valid_to_before=opened,
                                       successor=nxt if isinstance(nxt, Fact) else None)
                if not valid_covers(seen, valid_at):
                    continue
            out.append(f)
        return out

    def _valid_to_before(self, user_id: str, facts: list[Fact],
                         at: datetime) -> dict[str, datetime | None]:
        """The valid_to each fact superseded after `at` had before its supersession, from the
        audited `supersede` snapshot (invariant 184); a forgotten snapshot says nothing."""
        later = {f.id for f in facts
                 if f.state == FactState.SUPERSEDED and f.superseded_at and f.superseded_at > at}
        if not later:
            return {}
        out: dict[str, datetime | None] = {}
        for e in self.store.audit(user_id, limit=1_000_000, action="supersede"):  # newest first
            fid = e.target_ids[0] if e.target_ids else None
            if fid in later and fid not in out and isinstance(e.before, dict) \
                    and not e.before.get("forgotten") and "valid_to" in e.before:
                out[fid] = parse_when(e.before["valid_to"], field="valid_to")
        return out

    # playbooks and catalog ---------------------------------------------------------------------
    def write_playbook(self, user_id: str, name: str, trigger: str, steps: list[str], *,
                       success_count: int = 0, failure_count: int = 0, confidence: float = 0.8,
                       source_episode_ids: Iterable[str] = (), actor: str = "agent") -> Playbook:
        user_id = require_user(user_id)
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
        with self.batch(actor, user_id) as b:
            return b.add(pb)

    def record_outcome(self, user_id: str, playbook_id: str, *, success: bool,
                       actor: str = "agent", reason: str | None = None) -> Playbook:
        with self.batch(actor, user_id, reason=reason) as b:
            pb = b.owned(MemoryKind.PROCEDURAL, playbook_id, action="record_outcome")
            assert isinstance(pb, Playbook)  # a procedural id reads as a Playbook
            field = "success_count" if success else "failure_count"
            count = pb.success_count if success else pb.failure_count
            changes: dict[str, Any] = {field: count + 1, "updated_at": b.now}
            return b.change(pb, action="playbook_outcome", **changes)

    def playbooks(self, user_id: str) -> list[Playbook]:
        return self.store.list_playbooks(require_user(user_id))

    def episodes(self, user_id: str, *, after: When = None, limit: int | None = None) -> list[Episode]:
        return self.store.list_episodes(require_user(user_id),
                                        after=parse_when(after, field="after"), limit=limit)

    def add_catalog(self, docs: list[CatalogDoc], *, actor: str = "seed") -> None:
        """Shared documents with no owner; audited under the reserved scope "catalog"."""
        with self.catalog_batch(actor) as b:
            for doc in docs:
                b.add(doc)

    # recall -------------------------------------------------------------------------------------
    def recall(self, user_id: str, query: str, *, config: RecallConfig = DEFAULT,
               purpose: Purpose = Purpose.AGENT, explain: bool = False) -> RecallResult:
        """Hybrid recall scoped to one user (plus catalog when asked); see memory.ranking."""
        user_id = require_user(user_id)
        query = clean_text(query, field="query")
        reranker = get_reranker(config.rerank)  # an unknown name fails before any work
        now = self.clock()
        # Issue 17: the pipeline (time in the question, legs, fusion, adjust) is memory.retrieval;
        # it also screens out contradicted episodes for the agent (issue 11, invariant 65).
        got = retrieve(self.store, self.embedder, user_id, query, config, now, reranker,
                       purpose=purpose, explain=explain)
        hits, legs, contra = got.hits, got.legs, got.contradicted
        if purpose == Purpose.AGENT:  # invariant 15: explain and eval never bump
            used = [(h.doc.kind, h.id) for h in hits
                    if h.doc.TRACKS_USE]
            bump_usage(self.store, user_id, used, now)  # invariant 451: a named exception
        result = RecallResult(hits=hits, contradicted=[h.id for h in hits if h.id in contra])
        if explain:
            result.explain = RecallExplain(
                query=query, path=self.store.recall_path,
                candidates={name: len(v) for name, v in legs.items()},
                filters=filter_breakdown(self.store.counts(user_id), config)
                + contradicted.filter_counts(contra, purpose),
                config=config.model_dump(mode="json"), lexical_query=got.lexical_query,
                dense_weight=got.dense_weight, lexical_coverage=got.lexical_coverage,
                distilled_dense_weight=got.distilled_dense_weight,
                lexical_extra=got.lexical_extra)
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
        # Filters are text too (invariant 11): a non-UTF-8 byte is an error, not a crash.
        action = inputs.as_text(action, "action") if action is not None else None
        plan_id = inputs.memory_id(plan_id, "plan id") if plan_id is not None else None
        return self.store.audit(require_user(user_id) if user_id != CATALOG else CATALOG,
                                limit=limit, action=action, plan_id=plan_id)


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
