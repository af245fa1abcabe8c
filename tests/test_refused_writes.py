"""Issue 30, item 1: every write through the door. A refused forget changes nothing (no history
redacted, no secret created), and an undo of an old plan by an operator without the role is
`denied` before any conflict (invariant 450). Real embedded store, real roles."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memory.access import Access, RoleMap
from memory.clock import fixed_clock
from memory.consolidation.apply import apply_plan, undo_plan
from memory.consolidation.planner import make_plan
from memory.embeddings import get_embedder
from memory.errors import AccessDenied
from memory.llm.offline import OfflineLLM
from memory.service import MemoryService
from memory.stores import open_store
from tests.conftest import NOW

ROLES = RoleMap(operators={"rev@example.com": "reviewer", "ada@example.com": "admin"})


def services(tmp_path):
    store = open_store(f"embedded:{tmp_path / 'door.db'}", get_embedder("hash"))
    free = MemoryService(store, clock=fixed_clock(NOW))
    guarded = MemoryService(store, clock=fixed_clock(NOW),
                            authorize=Access(ROLES, "login").authorize)
    return free, guarded


def bodies(svc: MemoryService, user: str) -> list[str]:
    return [e.model_dump_json() for e in svc.store.audit(user, limit=10**6)]


def test_inv450_a_refused_forget_changes_no_history_and_creates_no_secret(tmp_path):
    free, guarded = services(tmp_path)
    fact = free.write_fact("ana", "Keeps a canoe called Marlinspike").fact
    before = bodies(free, "ana")
    assert free.store.value_key() is None
    with pytest.raises(AccessDenied):
        guarded.forget("ana", fact.id, actor="operator:rev@example.com")
    after = bodies(free, "ana")
    assert after[1:] == before  # every earlier event exactly as it was, its text included
    denied = free.store.audit("ana", limit=1)[0]
    assert (denied.action, denied.outcome, denied.actor) == ("denied", "denied",
                                                            "operator:rev@example.com")
    assert "Marlinspike" in before[-1] and "Marlinspike" in after[-1]
    assert free.store.value_key() is None  # the secret is made only by a forget that happens
    assert free.get_fact("ana", fact.id).text == "Keeps a canoe called Marlinspike"
    # the admin's forget still works and redacts
    guarded.forget("ana", fact.id, actor="operator:ada@example.com")
    assert not any("Marlinspike" in b for b in bodies(free, "ana"))


def test_inv450_a_forget_of_a_record_that_moved_on_redacts_nothing(tmp_path):
    """A stale read (the fact was superseded since) conflicts before any redaction."""
    from memory.errors import ConflictError
    from memory.forgetting import forget

    free, _ = services(tmp_path)
    old = free.write_fact("ana", "Keeps a canoe called Marlinspike").fact
    free.write_fact("ana", "Keeps a kayak called Bosun", supersedes_id=old.id)

    class Stale:  # the service, but finding the fact as it was before the supersession
        def __init__(self, svc):
            self.svc = svc
            self.store = svc.store

        def find_memory(self, *a, **k):
            return old

        def batch(self, *a, **k):
            return self.svc.batch(*a, **k)

    before = bodies(free, "ana")
    with pytest.raises(ConflictError):
        forget(Stale(free), "ana", old.id, actor="cli")
    assert bodies(free, "ana") == before
    assert free.store.value_key() is None


def test_inv450_undo_of_an_old_plan_by_an_unlisted_operator_is_denied_not_a_conflict(tmp_path):
    free, guarded = services(tmp_path)
    free.write_episode("ana", "I live in Bristol and drink tea")
    first = apply_plan(free, make_plan(free, "ana", OfflineLLM()))
    free.write_episode("ana", "I am allergic to peanuts", timestamp=NOW + timedelta(days=1))
    apply_plan(free, make_plan(free, "ana", OfflineLLM()))  # the first plan is old now
    n = len(bodies(free, "ana"))
    with pytest.raises(AccessDenied):
        undo_plan(guarded, "ana", first.plan_id, actor="operator:eve@elsewhere.org")
    events = free.store.audit("ana", limit=10**6)
    assert len(events) == n + 1
    assert (events[0].action, events[0].outcome) == ("denied", "denied")
    assert events[0].after == {"attempted": "consolidate_undo"}
