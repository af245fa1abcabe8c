"""The review queue, derived from the store on every read: candidate facts are the items.

Nothing here keeps a second copy of truth (invariant 41). Listing asks the store for the
listing fields of the scope's candidates (a generic fact-summary query every backend offers) and
classifies, counts, filters and pages them with the pure `classify`/`select` below. `show_item` gathers one item's evidence
inside its user's scope.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from memory import retractions
from memory.errors import NotFoundError, ValidationError
from memory.models import PREVIOUSLY_REJECTED, PROPOSED_RETRACTION, Fact, FactState, MemoryKind
from memory.service import MemoryService
from memory.stores.base import FactQuery, FactSummary, RecallFilter, Store
from memory.text import require_user

from .models import (
    Evidence,
    HistoryEntry,
    ItemDetail,
    ItemKind,
    NearFact,
    QueueFilter,
    QueueItem,
    QueueListing,
)

# Audit actions written by review decisions (review/decisions.py); history reads them back.
DECISION_ACTIONS = ("review_approve", "review_accept", "review_reject", "review_edit",
                    "review_merge", "review_keep_both", "review_retract", "review_keep")


def scope(users: Iterable[str] | str | None) -> list[str]:
    """The explicit user scope of a queue read: at least one named user (invariant 40)."""
    if isinstance(users, str):
        users = [users]
    names = [require_user(u) for u in (users or [])]
    if not names:
        require_user(None)  # raises ScopeError: an empty scope never means "everyone"
    return list(dict.fromkeys(names))


def classify(s: FactSummary | Fact, threshold: float) -> ItemKind:
    """One kind per item, by precedence (invariant 48): a proposed retraction first (its text
    is a fact on record, not a value to believe, so no other kind describes it; invariant 591),
    then a dead value, then a proposed supersession, then low confidence. Pure."""
    if PROPOSED_RETRACTION in s.flags:
        return ItemKind.RETRACTION
    if PREVIOUSLY_REJECTED in s.flags:
        return ItemKind.PREVIOUSLY_REJECTED
    if s.supersedes:
        return ItemKind.CONTRADICTION
    if s.confidence < threshold:
        return ItemKind.LOW_CONFIDENCE
    return ItemKind.CANDIDATE


def candidate_summaries(store: Store, users: list[str]) -> list[FactSummary]:
    """Pending candidates of the named users, oldest first (listing fields only)."""
    return store.fact_summaries(FactQuery(user_ids=users,
                                          states=frozenset({FactState.CANDIDATE}))).rows


def to_item(s: FactSummary | Fact, kind: ItemKind) -> QueueItem:
    if isinstance(s, Fact):
        return QueueItem(id=s.id, user_id=s.user_id, kind=kind, rev=s.rev, text=s.text,
                         fact_type=s.fact_type.value, confidence=s.confidence,
                         recorded_at=s.recorded_at, supersedes=s.supersedes,
                         contradiction=s.contradiction.value if s.contradiction else None,
                         flags=list(s.flags), plan_id=s.plan_id, origin=s.origin)
    # Plain validation: pydantic-core's validator is faster than model_construct here.
    return QueueItem(
        id=s.id, user_id=s.user_id, kind=kind, rev=s.rev, text=s.text, fact_type=s.fact_type,
        confidence=s.confidence, recorded_at=s.recorded_at, supersedes=s.supersedes,
        contradiction=s.contradiction, flags=list(s.flags), plan_id=s.plan_id, origin=s.origin)


def select(summaries: list[FactSummary], flt: QueueFilter, now: datetime,
           threshold: float) -> QueueListing:
    """Classify, count (badges cover the whole scope), filter, sort and cut. Pure."""
    counts: dict[str, dict[str, int]] = {u: {k.value: 0 for k in ItemKind} for u in flt.users}
    types = {t.value for t in flt.fact_types} if flt.fact_types else None
    lo, hi = flt.min_confidence, flt.max_confidence
    newest = now - flt.min_age if flt.min_age is not None else None
    oldest = now - flt.max_age if flt.max_age is not None else None
    needle = (flt.text or "").strip().casefold()
    chosen: list[tuple[FactSummary, ItemKind]] = []
    for s in summaries:
        kind = classify(s, threshold)
        counts[s.user_id][kind.value] += 1
        if flt.kinds and kind not in flt.kinds:
            continue
        if (types and s.fact_type not in types) or (lo is not None and s.confidence < lo) \
                or (hi is not None and s.confidence > hi):
            continue
        if (newest and s.recorded_at > newest) or (oldest and s.recorded_at < oldest):
            continue
        if needle and needle not in s.text.casefold():
            continue
        chosen.append((s, kind))
    if flt.newest_first:
        chosen.reverse()  # summaries arrive oldest first
    total = len(chosen)
    # Only the page becomes QueueItems: building 10k models costs more than the whole listing.
    chosen = chosen[flt.offset: flt.offset + flt.limit if flt.limit else None]
    return QueueListing(items=[to_item(s, k) for s, k in chosen], total=total, counts=counts)


def list_queue(service: MemoryService, flt: QueueFilter, *,
               threshold: float | None = None) -> QueueListing:
    """The queue for an explicit set of users (invariant 40), oldest first by default."""
    users = scope(flt.users)
    if flt.min_confidence is not None and flt.max_confidence is not None \
            and flt.min_confidence > flt.max_confidence:
        raise ValidationError("min confidence is above max confidence")
    flt = flt.model_copy(update={"users": users})
    threshold = service.policy.min_confidence if threshold is None else threshold
    # The store filters, counts and pages by generic traits (a flag, a proposed supersession,
    # confidence below the threshold); which trait code is which review kind is review's own
    # rule (invariant 48, `kind_of_code`), so the categories never live in the store.
    now = service.clock()
    codes = None if not flt.kinds else frozenset(
        c for c in range(16) if kind_of_code(c) in flt.kinds)
    page = service.store.fact_summaries(FactQuery(
        user_ids=users, states=frozenset({FactState.CANDIDATE}),
        fact_types=frozenset(t.value for t in flt.fact_types) if flt.fact_types else None,
        min_confidence=flt.min_confidence, max_confidence=flt.max_confidence,
        recorded_after=now - flt.max_age if flt.max_age is not None else None,
        recorded_before=now - flt.min_age if flt.min_age is not None else None,
        text=(flt.text or "").strip() or None,
        newest_first=flt.newest_first, limit=flt.limit or None, offset=flt.offset,
        trait_lead=PROPOSED_RETRACTION, trait_flag=PREVIOUSLY_REJECTED, trait_below=threshold,
        traits=codes))
    counts: dict[str, dict[str, int]] = {u: {k.value: 0 for k in ItemKind} for u in users}
    for user, by_code in page.trait_counts.items():
        for code, n in by_code.items():
            counts[user][kind_of_code(code).value] += n
    return QueueListing(items=[to_item(s, classify(s, threshold)) for s in page.rows],
                        total=page.total, counts=counts)


def kind_of_code(code: int) -> ItemKind:
    """The review kind of a trait code (memory.stores.base.trait_code), by the precedence of
    `classify`: a proposed retraction first, then a dead value, then a proposed supersession,
    then low confidence. Pure."""
    if code & 8:
        return ItemKind.RETRACTION
    if code & 4:
        return ItemKind.PREVIOUSLY_REJECTED
    if code & 2:
        return ItemKind.CONTRADICTION
    if code & 1:
        return ItemKind.LOW_CONFIDENCE
    return ItemKind.CANDIDATE


def load_item(service: MemoryService, user_id: str, fact_id: str) -> Fact:
    """A queue item's fact, fetched by (user, id): another user's id is just missing (inv. 40)."""
    user_id = require_user(user_id)
    fact = service.store.get(MemoryKind.SEMANTIC, user_id, fact_id)
    if not isinstance(fact, Fact):  # a semantic id: a Fact, or missing
        raise NotFoundError(f"no review item {fact_id} for user {user_id}", target_id=fact_id)
    return fact


def show_item(service: MemoryService, user_id: str, fact_id: str, *, threshold: float | None = None,
              nearest_k: int = 5) -> ItemDetail:
    """An item with its evidence: source episodes, the fact it would replace and the chain it
    would join, the nearest facts in any state, the plan that proposed it and, for a dead
    value, the tombstones it restates. Every read names the item's user."""
    fact = load_item(service, user_id, fact_id)
    user_id, store = fact.user_id, service.store
    threshold = service.policy.min_confidence if threshold is None else threshold
    episodes, missing = [], []
    for ep_id in fact.source_episode_ids:
        ep = store.get(MemoryKind.EPISODIC, user_id, ep_id)
        (episodes.append(ep) if ep is not None else missing.append(ep_id))
    replaces = None
    chain: list[Fact] = []
    if fact.supersedes:
        replaces = store.get(MemoryKind.SEMANTIC, user_id, fact.supersedes)
        if replaces is not None:  # a proposed retraction joins no chain: it names one
            chain = [*service.chain(user_id, replaces.id),
                     *([] if PROPOSED_RETRACTION in fact.flags else [fact])]
    vec = service.embedder.embed([fact.text])[0]
    flt = RecallFilter(user_id=user_id, kinds=frozenset({MemoryKind.SEMANTIC}),
                       fact_states=frozenset(FactState))
    nearest = [NearFact(fact=h.doc, similarity=round(2 * h.score - 1, 4))  # back to cosine
               for h in store.search_dense(flt, vec, nearest_k + 1) if h.doc.id != fact.id]
    plan_events = service.audit(user_id, plan_id=fact.plan_id, limit=50) if fact.plan_id else []
    tombstones, similarity = [], None
    match = service.tombstone_match(user_id, fact.text)
    if match is not None:
        tomb, similarity = match
        tombstones = [t for t in store.list_tombstones(user_id)
                      if t.normalized == tomb.normalized or t.id == tomb.id]
    kind = classify(fact, threshold)
    reason = stale = None
    if kind == ItemKind.RETRACTION:  # invariant 591: the user's words and the reader's reason
        reason = proposed_because(service, fact)
        stale = retractions.stale_reason(fact, replaces if isinstance(replaces, Fact) else None)
    evidence = Evidence(episodes=episodes, missing_episode_ids=missing, replaces=replaces,
                        chain=chain, nearest=nearest[:nearest_k], plan_id=fact.plan_id,
                        plan_events=plan_events, tombstones=tombstones,
                        tombstone_similarity=similarity, reason=reason, stale=stale)
    return ItemDetail(item=to_item(fact, kind), fact=fact, evidence=evidence)


def proposed_because(service: MemoryService, fact: Fact, *, scan: int = 1000) -> str | None:
    """The reason recorded when an item was proposed (its proposing event), if still in the
    newest `scan` proposals of its user."""
    for action in ("propose_retraction", "propose_fact"):
        for e in service.audit(fact.user_id, action=action, limit=scan):
            if e.target_ids[:1] == [fact.id]:
                return e.reason
    return None


def replaced_facts(service: MemoryService, items: Iterable[QueueItem]) -> dict[str, Fact]:
    """For each contradiction among `items`, the fact it would replace (read in the item's own
    user): what the List view shows beside the row (invariant 512)."""
    out: dict[str, Fact] = {}
    for i in items:
        if i.supersedes:
            old = service.store.get(MemoryKind.SEMANTIC, require_user(i.user_id), i.supersedes)
            if isinstance(old, Fact):  # a semantic id: a Fact, or gone
                out[i.id] = old
    return out


def history(service: MemoryService, users: Iterable[str] | str, *,
            limit: int = 100) -> list[HistoryEntry]:
    """Decided items, newest first, with who decided and when (read from the audit log)."""
    out: list[HistoryEntry] = []
    for user in scope(users):
        for action in DECISION_ACTIONS:
            for e in service.audit(user, action=action, limit=limit):
                after = e.after or {}
                out.append(HistoryEntry(
                    at=e.at, operator=e.actor.removeprefix("operator:"), user_id=e.user_id,
                    decision=action.removeprefix("review_").replace("_", "-"),
                    fact_id=e.target_ids[0] if e.target_ids else "",
                    text=after.get("text"), reason=e.reason, comment=e.comment))
    out.sort(key=lambda h: h.at, reverse=True)
    return out[:limit]


def pending_count(service: MemoryService, user_id: str | None = None) -> int:
    """Items waiting: for one user, or for every user of the store (the desk's sidebar badge)."""
    users = [user_id] if user_id else list(service.store.users())
    if not users:
        return 0
    return list_queue(service, QueueFilter(users=users, limit=1), threshold=0.0).total
