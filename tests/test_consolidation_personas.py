"""Consolidation over the demo personas' real histories (offline model, embedded store): the
properties every run must keep, whatever the text."""

from __future__ import annotations

import pytest

from memory.consolidation.apply import WATERMARK, apply_plan, undo_plan
from memory.consolidation.plan import Plan
from memory.consolidation.planner import make_plan
from memory.llm.offline import OfflineLLM
from memory.models import FactState
from memory.personas.loader import seed
from memory.policy import ReviewPolicy
from memory.stores.base import SetWatermark


@pytest.fixture
def personas(service):
    seed(service.store)
    # Seeding marks the history consolidated; rewind the watermark so these runs re-read the
    # personas' whole real text ("" is the rewound watermark, as an undo of a first plan leaves).
    for user in service.store.users():
        current = service.store.get_watermark(user, WATERMARK)
        service.store.apply([SetWatermark(user_id=user, name=WATERMARK, value="", expected=current)])
    return service


def test_seeded_history_is_already_consolidated(service):
    seed(service.store)
    for user in service.store.users():
        assert make_plan(service, user, OfflineLLM(), policy=ReviewPolicy()).ops == []


def state(svc, user):
    """What a reader sees (revisions move on: an undo is itself a new revision)."""
    return (sorted((f.id, f.state.value, f.superseded_by) for f in svc.facts(user)),
            sorted((p.id, p.success_count, p.failure_count, tuple(p.steps))
                   for p in svc.playbooks(user)))


def test_inv30_inv31_inv39_persona_runs_keep_the_rules(personas):
    """invariants 30, 31 and 39 on real persona text: evidence is the user's, nothing
    tombstoned becomes active, and each run undoes to exactly the state before it."""
    svc = personas
    users = svc.store.users()
    assert len(users) >= 3
    for user in users:
        before = state(svc, user)
        episodes = {e.id for e in svc.episodes(user)}
        plan = make_plan(svc, user, OfflineLLM(), policy=ReviewPolicy())
        assert plan.gates and Plan.model_validate_json(plan.to_json()) == plan
        apply_plan(svc, plan)
        written = [f for f in svc.facts(user) if f.plan_id == plan.id]
        assert all(set(f.source_episode_ids) <= episodes for f in written)
        for f in written:
            if f.state == FactState.ACTIVE:
                assert svc.tombstone_match(user, f.text) is None, f.text
        assert make_plan(svc, user, OfflineLLM(), policy=ReviewPolicy()).ops == []
        undo_plan(svc, user, plan.id)
        assert state(svc, user) == before
