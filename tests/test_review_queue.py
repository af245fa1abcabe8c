"""The queue is derived from the store: kinds, filters, sort, badges, scope and evidence."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memory.clock import fixed_clock
from memory.errors import ScopeError, ValidationError
from memory.models import Fact, FactState, FactType
from memory.service import MemoryService
from memory.stores.base import FactSummary
from review import ItemKind, QueueFilter, decide, list_queue, propose, show_item
from review.queue import classify, select
from tests.conftest import NOW

T = 0.7  # review threshold used throughout (MEMDESK_REVIEW_CONFIDENCE default)


def summaries_from_facts(store, users):
    """The reference: listing fields built by decoding every full candidate fact."""
    out = [FactSummary(f.id, f.user_id, f.rev, f.state.value, f.text, f.fact_type.value,
                       f.confidence, f.recorded_at, f.supersedes,
                       f.contradiction.value if f.contradiction else None, tuple(f.flags),
                       f.plan_id, f.origin)
           for u in users for f in store.list_facts(u, states={FactState.CANDIDATE})]
    return sorted(out, key=lambda f: (f.recorded_at, f.id))


def at(service, days_ago: float) -> MemoryService:
    """The same store seen by a service whose clock is `days_ago` before NOW."""
    return MemoryService(service.store, clock=fixed_clock(NOW - timedelta(days=days_ago)))


@pytest.fixture
def queue(service):
    """Four kinds for ana, one candidate for bob, and an active fact that is not an item."""
    old = service.write_fact("ana", "Lives in Leeds", fact_type="identity").fact
    dead = propose(service, "ana", "Has a twin brother")
    decide(service, "ana", dead.id, "reject", operator="rita", expected_rev=dead.rev,
           reason="never said")
    items = {
        "candidate": propose(at(service, 10), "ana", "Enjoys jazz", fact_type="preference"),
        "low": propose(at(service, 5), "ana", "Might own a kayak", confidence=0.4),
        "contra": propose(at(service, 3), "ana", "Lives in York", fact_type="identity",
                          supersedes_id=old.id),
        "dead": propose(at(service, 1), "ana", "Has a twin brother", confidence=0.9),
        "bob": propose(at(service, 2), "bob", "Keeps bees", confidence=0.75),
    }
    return items


def ids(listing):
    return [i.id for i in listing.items]


def test_inv41_items_are_the_stores_candidates_with_kinds_and_badges(service, queue):
    q = list_queue(service, QueueFilter(users=["ana"]), threshold=T)
    assert ids(q) == [queue[k].id for k in ("candidate", "low", "contra", "dead")]  # oldest first
    assert [i.kind for i in q.items] == [ItemKind.CANDIDATE, ItemKind.LOW_CONFIDENCE,
                                         ItemKind.CONTRADICTION, ItemKind.PREVIOUSLY_REJECTED]
    assert q.counts == {"ana": {"retraction": 0, "previously_rejected": 1, "contradiction": 1,
                                "low_confidence": 1, "candidate": 1}}
    assert q.total == 4 and all(i.rev == 1 for i in q.items)
    # Derived, not copied: deciding an item removes it from the next listing.
    decide(service, "ana", queue["candidate"].id, "approve", operator="rita", expected_rev=1)
    assert queue["candidate"].id not in ids(list_queue(service, QueueFilter(users=["ana"]),
                                                       threshold=T))


def test_inv40_scope_is_explicit_and_never_widens(service, queue):
    with pytest.raises(ScopeError):
        list_queue(service, QueueFilter(users=[]))
    with pytest.raises(ScopeError):
        list_queue(service, QueueFilter(users=["  "]))
    assert {i.user_id for i in list_queue(service, QueueFilter(users=["bob"])).items} == {"bob"}
    both = list_queue(service, QueueFilter(users=["ana", "bob"]), threshold=T)
    assert both.total == 5 and set(both.counts) == {"ana", "bob"}
    assert list_queue(service, QueueFilter(users=["nobody"])).items == []


@pytest.mark.parametrize("flt, expected", [
    ({"kinds": {ItemKind.CONTRADICTION}}, ["contra"]),
    ({"kinds": {ItemKind.LOW_CONFIDENCE, ItemKind.CANDIDATE}}, ["candidate", "low", "bob"]),
    ({"fact_types": {FactType.IDENTITY}}, ["contra"]),
    ({"min_confidence": 0.7, "max_confidence": 0.8}, ["candidate", "contra", "bob"]),
    ({"max_confidence": 0.5}, ["low"]),
    ({"min_age": timedelta(days=4)}, ["candidate", "low"]),
    ({"max_age": timedelta(days=2, hours=1)}, ["bob", "dead"]),
    ({"newest_first": True, "limit": 2}, ["dead", "bob"]),
    ({"limit": 2, "offset": 1}, ["low", "contra"]),
])
def test_listing_filters_and_sort(service, queue, flt, expected):
    full = QueueFilter(users=["ana", "bob"], **flt)
    q = list_queue(service, full, threshold=T)
    assert ids(q) == [queue[k].id for k in expected]
    assert sum(sum(c.values()) for c in q.counts.values()) == 5  # badges ignore the filter
    # The store's in-place listing (when it has one) agrees with the pure reference select().
    ref = select(summaries_from_facts(service.store, ["ana", "bob"]), full, NOW, T)
    assert (ids(ref), [i.kind for i in ref.items], ref.total, ref.counts) == \
        (ids(q), [i.kind for i in q.items], q.total, q.counts)


def test_listing_refuses_inverted_confidence_range(service):
    with pytest.raises(ValidationError):
        list_queue(service, QueueFilter(users=["ana"], min_confidence=0.8, max_confidence=0.2))


def test_inv48_classification_precedence_is_pure():
    base = {"user_id": "u", "text": "x", "state": FactState.CANDIDATE}
    dead_contra = Fact(**base, supersedes="f1", confidence=0.1, flags=["previously_rejected"])
    assert classify(dead_contra, T) == ItemKind.PREVIOUSLY_REJECTED
    assert classify(Fact(**base, supersedes="f1", confidence=0.1), T) == ItemKind.CONTRADICTION
    assert classify(Fact(**base, confidence=0.69), T) == ItemKind.LOW_CONFIDENCE
    assert classify(Fact(**base, confidence=0.7), T) == ItemKind.CANDIDATE
    listing = select([], QueueFilter(users=["u"]), NOW, T)
    assert listing.items == [] and listing.counts == {"u": {k.value: 0 for k in ItemKind}}


def test_show_item_gathers_evidence_in_scope(service):
    ep = service.write_episode("ana", "We finally moved to Glasgow last week")
    service.write_episode("bob", "Glasgow is where I grew up")
    old = service.write_fact("ana", "Lives in Edinburgh", fact_type="identity").fact
    near = service.write_fact("ana", "Works in Glasgow city centre").fact
    service.write_fact("bob", "Lives in Glasgow")
    cand = Fact(user_id="ana", text="Lives in Glasgow", fact_type="identity",
                state=FactState.CANDIDATE, source_episode_ids=[ep.id], supersedes=old.id,
                contradiction="natural", plan_id="plan_123", origin="consolidation",
                recorded_at=NOW)
    with service.batch("consolidation", "ana", plan_id="plan_123") as b:
        b.add(cand, action="plan", reason="extracted from 1 episode", at=NOW)
    d = show_item(service, "ana", cand.id, threshold=T)
    ev = d.evidence
    assert [e.id for e in ev.episodes] == [ep.id] and ev.missing_episode_ids == []
    assert ev.replaces.id == old.id and [f.id for f in ev.chain] == [old.id, cand.id]
    near_ids = [n.fact.id for n in ev.nearest]
    assert cand.id not in near_ids and {old.id, near.id} <= set(near_ids)
    assert all(n.fact.user_id == "ana" for n in ev.nearest)
    assert ev.plan_id == "plan_123" and [e.action for e in ev.plan_events] == ["plan"]
    assert ev.tombstones == [] and d.item.kind == ItemKind.CONTRADICTION


def test_store_fast_listing_matches_full_fact_decoding(service, queue):
    """The store's summary listing (issue 6 fast path) agrees with decoding every fact."""
    from review.queue import candidate_summaries, pending_count
    users = ["ana", "bob", "nobody"]
    assert candidate_summaries(service.store, users) == summaries_from_facts(service.store, users)
    assert pending_count(service, "ana") == 4 and pending_count(service) == 5


def test_inv48_listing_applies_precedence_to_stored_items(service):
    old = service.write_fact("cy", "Lives in Cork").fact
    dead = propose(service, "cy", "Lives in Galway")
    decide(service, "cy", dead.id, "reject", operator="rita", expected_rev=1, reason="never")
    flagged = propose(at(service, 1), "cy", "Lives in Galway", confidence=0.1,
                      supersedes_id=old.id)  # dead value + contradiction + low confidence
    contra_low = propose(service, "cy", "Lives in Dublin", confidence=0.1, supersedes_id=old.id)
    q = list_queue(service, QueueFilter(users=["cy"]), threshold=T)
    assert [(i.id, i.kind) for i in q.items] == [
        (flagged.id, ItemKind.PREVIOUSLY_REJECTED), (contra_low.id, ItemKind.CONTRADICTION)]
    ref = select(summaries_from_facts(service.store, ["cy"]), QueueFilter(users=["cy"]), NOW, T)
    assert [(i.id, i.kind) for i in ref.items] == [(i.id, i.kind) for i in q.items]


def test_search_text_narrows_the_queue_in_the_store_and_in_select(service, queue):
    """Issue 34: words in the item's text, case-insensitive, within the explicit scope."""
    q = list_queue(service, QueueFilter(users=["ana", "bob"], text="  YORK "), threshold=T)
    assert ids(q) == [queue["contra"].id] and q.total == 1
    pure = select(summaries_from_facts(service.store, ["ana", "bob"]),
                  QueueFilter(users=["ana", "bob"], text="york"), NOW, T)
    assert ids(pure) == ids(q)
    assert list_queue(service, QueueFilter(users=["bob"], text="york"), threshold=T).total == 0
