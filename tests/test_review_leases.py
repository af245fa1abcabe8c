"""Several operators on one queue (issue 34): leases on the item on screen, stored per user and
written by compare-and-set; the Focus view's assignment; per-operator counts of the day."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memory.errors import AccessDenied
from memory.service import MemoryService
from review import QueueFilter, decide, list_queue, propose
from review import leases as L
from review.models import HistoryEntry, ItemKind, QueueItem
from tests.conftest import NOW, advancing_clock


def item(n: int, user: str = "ana") -> QueueItem:
    return QueueItem(id=f"f{n}", user_id=user, kind=ItemKind.CANDIDATE, rev=1, text=f"t{n}",
                     fact_type="other", confidence=0.9, recorded_at=NOW, origin="agent")


ITEMS = [item(n) for n in range(1, 6)]


def held(**by: str) -> dict[str, L.Lease]:
    return {k: L.Lease(operator=v, until=NOW + timedelta(seconds=60)) for k, v in by.items()}


# pure -----------------------------------------------------------------------------------------
def test_inv510_two_operators_are_handed_different_items():
    a = L.assign(ITEMS, {}, "alice", NOW, cursor=None, skipped=[])
    b = L.assign(ITEMS, held(f1="alice"), "bob", NOW, cursor=None, skipped=[])
    assert (a.item.id, b.item.id) == ("f1", "f2")
    assert b.busy == {"f1": "alice"} and b.held_by is None
    # bob's previous/next step over alice's item
    assert (b.prev_id, b.next_id) == ("f5", "f3")
    a2 = L.assign(ITEMS, held(f1="alice", f2="bob"), "alice", NOW, cursor="f1", skipped=[])
    assert (a2.item.id, a2.next_id, a2.prev_id) == ("f1", "f3", "f5")


def test_inv510_a_held_item_is_shown_only_when_asked_for():
    leases = held(f1="alice", f2="carol")
    got = L.assign(ITEMS, leases, "bob", NOW, cursor="f1", skipped=[])
    assert got.item.id == "f3"  # his old cursor was taken meanwhile: not handed to him
    asked = L.assign(ITEMS, leases, "bob", NOW, cursor=None, skipped=[], asked="f2")
    assert (asked.item.id, asked.held_by) == ("f2", "carol")
    # an ended lease holds nothing
    old = {"f1": L.Lease(operator="alice", until=NOW - timedelta(seconds=1))}
    assert L.assign(ITEMS, old, "bob", NOW, cursor=None, skipped=[]).item.id == "f1"


def test_inv510_skipped_items_come_last_and_everything_held_is_nothing_to_show():
    got = L.assign(ITEMS, held(f1="alice"), "bob", NOW, cursor=None, skipped=["f2", "f3"])
    assert got.item.id == "f4" and got.next_id == "f5" and got.prev_id == "f3"
    all_skipped = L.assign(ITEMS[:2], {}, "bob", NOW, cursor=None, skipped=["f1", "f2"])
    assert all_skipped.item.id == "f1"
    none = L.assign(ITEMS[:2], held(f1="alice", f2="carol"), "bob", NOW, cursor=None, skipped=[])
    assert none.item is None and none.busy == {"f1": "alice", "f2": "carol"}


def test_lease_map_round_trips_and_unreadable_values_hold_nothing():
    leases = held(f1="alice", f2="bob")
    assert L.parse(L.dump(leases)) == leases
    assert L.parse("not json") == {} and L.parse('{"f1": 3}') == {} and L.parse(None) == {}


def test_count_today_counts_each_operators_decisions_of_the_day():
    def h(op, days=0):
        return HistoryEntry(at=NOW - timedelta(days=days), operator=op, user_id="ana",
                            decision="approve", fact_id="x")
    got = L.count_today([h("alice"), h("bob"), h("alice"), h("bob", days=1)], NOW)
    assert got == {"alice": 2, "bob": 1}


# store ----------------------------------------------------------------------------------------
@pytest.fixture
def team(store):
    now, advance = advancing_clock(NOW)
    svc = MemoryService(store, clock=now)
    ids = []
    for n in range(4):  # oldest first: the queue's order is this order
        ids.append(propose(svc, "ana", f"Likes thing {n}").id)
        advance(seconds=1)
    return svc, advance, ids


def queue(svc):
    return list_queue(svc, QueueFilter(users=["ana"], limit=None)).items


def test_inv510_a_claim_is_held_renewed_released_and_ends_by_itself(team):
    svc, advance, ids = team
    assert L.claim(svc, "ana", ids[0], operator="alice").ok
    assert L.claim(svc, "ana", ids[0], operator="bob") == L.Claim(False, "alice")
    assert L.leases(svc, "ana")[ids[0]].operator == "alice"
    advance(seconds=L.LEASE_SECONDS - 10)
    assert L.claim(svc, "ana", ids[0], operator="alice").ok  # renewed while on screen
    advance(seconds=20)
    assert not L.claim(svc, "ana", ids[0], operator="bob").ok  # the renewal kept it
    # a claim of another item ends the operator's previous one (one item on screen)
    assert L.claim(svc, "ana", ids[1], operator="alice").ok
    assert set(L.leases(svc, "ana")) == {ids[1]}
    L.release(svc, "ana", ids[1], operator="alice")
    assert L.leases(svc, "ana") == {}
    assert L.claim(svc, "ana", ids[2], operator="carol").ok
    advance(seconds=L.LEASE_SECONDS + 1)  # a closed tab: nobody renews
    assert L.leases(svc, "ana") == {} and L.claim(svc, "ana", ids[2], operator="bob").ok
    # fresh claims are audited; renewals and releases are not
    claims = svc.audit("ana", action=L.CLAIM_ACTION)
    assert [(e.actor, e.target_ids) for e in reversed(claims)] == [
        ("operator:alice", [ids[0]]), ("operator:alice", [ids[1]]),
        ("operator:carol", [ids[2]]), ("operator:bob", [ids[2]])]


def test_inv510_a_claim_written_meanwhile_is_not_overwritten(team, monkeypatch):
    """Bob reads the map, Alice claims before Bob writes: Bob's compare-and-set fails, he reads
    again and finds Alice's lease; he is handed the next item."""
    svc, _, ids = team
    real = svc.store.get_watermark
    raced = []

    def read_then_alice_claims(user, name):
        value = real(user, name)
        if not raced:
            raced.append(True)
            assert L.claim(svc, "ana", ids[0], operator="alice").ok
        return value

    monkeypatch.setattr(svc.store, "get_watermark", read_then_alice_claims)
    assert L.claim(svc, "ana", ids[0], operator="bob") == L.Claim(False, "alice")
    monkeypatch.undo()
    got = L.take(svc, queue(svc), operator="bob", cursor=None, skipped=[])
    assert got.item.id == ids[1] and L.leases(svc, "ana")[ids[1]].operator == "bob"


def test_inv510_two_operators_review_the_queue_to_empty_without_colliding(team):
    svc, advance, ids = team
    seen: dict[str, list[str]] = {"alice": [], "bob": []}
    cursors: dict[str, str | None] = {"alice": None, "bob": None}
    for _ in range(4):
        for op in ("alice", "bob"):
            got = L.take(svc, queue(svc), operator=op, cursor=cursors[op], skipped=[])
            cursors[op] = got.item.id if got.item else None
        if cursors["alice"] and cursors["bob"]:
            assert cursors["alice"] != cursors["bob"]
        for op in ("alice", "bob"):
            if cursors[op]:
                seen[op].append(cursors[op])
                decide(svc, "ana", cursors[op], "approve", operator=op, expected_rev=1)
                L.release(svc, "ana", cursors[op], operator=op)
        advance(seconds=5)
    assert queue(svc) == [] and sorted(seen["alice"] + seen["bob"]) == sorted(ids)
    assert not set(seen["alice"]) & set(seen["bob"])
    assert L.decided_today(svc, "ana") == {"alice": 2, "bob": 2}


def test_inv510_an_item_asked_for_is_shown_without_taking_anothers_lease(team):
    svc, _, ids = team
    L.claim(svc, "ana", ids[0], operator="alice")
    got = L.take(svc, queue(svc), operator="bob", cursor=None, skipped=[], asked=ids[0])
    assert (got.item.id, got.held_by) == (ids[0], "alice")
    assert L.leases(svc, "ana")[ids[0]].operator == "alice"


def test_inv510_a_viewer_cannot_claim(store):
    from memory.access import Access, RoleMap

    fid = propose(MemoryService(store), "ana", "Likes tea").id
    roles = RoleMap.model_validate({"operators": {"vic@x.org": "viewer"}})
    svc = MemoryService(store, authorize=Access(roles, "login").authorize)
    with pytest.raises(AccessDenied):
        L.claim(svc, "ana", fid, operator="vic@x.org")
    assert L.leases(svc, "ana") == {}
    assert svc.audit("ana", action="denied")[0].after == {"attempted": L.CLAIM_ACTION}
