"""Issue 30, item 5: declined stays reviewable (invariant 456). Applying part of a plan moves the
watermark past every planned episode; each declined fact waits in the review queue as a
candidate with its evidence (and the fact it would replace), so nothing said is lost. Real
store, the offline model, the real review queue and decisions."""

from __future__ import annotations

from memory.consolidation.apply import apply_plan, declined_id, undo_plan
from memory.consolidation.plan import OpKind
from memory.consolidation.planner import make_plan
from memory.llm.offline import OfflineLLM
from memory.models import FactState
from review import decide
from review.models import QueueFilter
from review.queue import list_queue


def _plan(service):
    old = service.write_fact("ana", "Lives in Bristol", fact_type="identity").fact
    service.write_episode("ana", "We moved to Edinburgh")
    service.write_episode("ana", "I'm allergic to peanuts")
    plan = make_plan(service, "ana", OfflineLLM())
    sup = next(op for op in plan.actionable() if op.kind == OpKind.SUPERSEDE)
    add = next(op for op in plan.actionable() if op.kind == OpKind.ADD_FACT)
    return old, plan, sup, add


def test_inv456_a_declined_fact_waits_in_the_review_queue_with_its_evidence(service):
    old, plan, sup, add = _plan(service)
    res = apply_plan(service, plan, op_ids=[add.id])
    assert res.declined == [sup.id] and res.for_review == [sup.id]
    cand = service.get_fact("ana", declined_id(plan, sup))
    assert cand.state == FactState.CANDIDATE and cand.text == sup.fact.text
    assert cand.source_episode_ids == sup.fact.source_episode_ids and cand.source_episode_ids
    assert cand.supersedes == old.id
    assert cand.id in {i.id for i in list_queue(service, QueueFilter(users=["ana"])).items}
    assert make_plan(service, "ana", OfflineLLM()).actionable() == []  # watermark moved on
    # the reviewer approves it: the supersession happens after all
    decide(service, "ana", cand.id, "accept", operator="rita", expected_rev=cand.rev)
    assert service.get_fact("ana", old.id).state == FactState.SUPERSEDED
    # applying the same op of the plan later changes nothing more (decided in review)
    again = apply_plan(service, plan, op_ids=[sup.id, add.id])
    assert again.applied == [] and sup.id in again.already


def test_inv456_applying_a_declined_op_later_takes_its_stand_in_out_of_the_queue(service):
    old, plan, sup, add = _plan(service)
    apply_plan(service, plan, op_ids=[add.id])
    apply_plan(service, plan, op_ids=[sup.id, add.id])
    assert service.store.get_watermark("ana", "consolidation") is not None
    facts = {f.id: f for f in service.facts("ana")}
    assert declined_id(plan, sup) not in facts
    assert facts[sup.fact.id].state == FactState.ACTIVE
    assert service.get_fact("ana", old.id).state == FactState.SUPERSEDED


def test_inv456_undo_takes_the_declined_candidate_with_the_plan(service):
    _, plan, sup, add = _plan(service)
    apply_plan(service, plan, op_ids=[add.id])
    undo_plan(service, "ana", plan.id)
    ids = {f.id for f in service.facts("ana")}
    assert declined_id(plan, sup) not in ids and add.fact.id not in ids
    assert len(make_plan(service, "ana", OfflineLLM()).actionable()) == 2  # reachable again


def _playbook_plan(service):
    """A plan with a new playbook, a playbook's feedback count and a fact (offline model)."""
    from datetime import timedelta

    from tests.conftest import NOW
    pb = service.write_playbook("ana", "Reset the Lumio hub", "Lumio hub offline or dropping wifi",
                                ["Unplug the hub", "Hold reset for 10 seconds"], actor="seed")
    start = NOW - timedelta(days=1)
    service.write_episodes("ana", [(t, start + timedelta(minutes=i), "s1") for i, t in enumerate(
        ["my lumio hub keeps dropping wifi", "that worked, thanks"])])
    start = NOW - timedelta(hours=5)
    service.write_episodes("ana", [(t, start + timedelta(minutes=i), "s2") for i, t in enumerate(
        ["my router drops every night", "what fixed it was rebooting the router, then changing "
         "the channel to 6", "I'm allergic to peanuts"])])
    plan = make_plan(service, "ana", OfflineLLM())
    new = next(op for op in plan.actionable() if op.kind == OpKind.ADD_PLAYBOOK)
    count = next(op for op in plan.actionable() if op.kind == OpKind.UPDATE_PLAYBOOK)
    rest = [op.id for op in plan.actionable() if op not in (new, count)]
    return pb, plan, new, count, rest


def test_inv456_declined_playbooks_are_offered_again_by_the_next_plan(service):
    """A playbook has no candidate state: the apply that declines it keeps it (with its
    evidence) and re-planning reaches it, though the watermark moved past its episodes."""
    from memory.models import MemoryKind
    pb, plan, new, count, rest = _playbook_plan(service)
    res = apply_plan(service, plan, op_ids=rest)
    assert sorted(res.held) == sorted([new.id, count.id])
    assert service.store.get_watermark("ana", "consolidation") == plan.watermark_after
    assert len(service.playbooks("ana")) == 1  # nothing of them written yet
    again = make_plan(service, "ana", OfflineLLM())
    assert again.episode_ids == []  # no new episode: the held ops are what it plans
    offered = {op.kind: op for op in again.actionable()}
    assert set(offered) == {OpKind.ADD_PLAYBOOK, OpKind.UPDATE_PLAYBOOK}
    assert offered[OpKind.ADD_PLAYBOOK].playbook.steps == new.playbook.steps
    assert offered[OpKind.ADD_PLAYBOOK].evidence == new.evidence  # evidence kept
    assert offered[OpKind.UPDATE_PLAYBOOK].playbook.success_count == 1
    # declined again: still held; then applied: written once, and held no more
    res2 = apply_plan(service, again, op_ids=[offered[OpKind.ADD_PLAYBOOK].id])
    assert res2.held == [offered[OpKind.UPDATE_PLAYBOOK].id]
    third = make_plan(service, "ana", OfflineLLM())
    assert [op.kind for op in third.actionable()] == [OpKind.UPDATE_PLAYBOOK]
    apply_plan(service, third)
    assert service.store.get(MemoryKind.PROCEDURAL, "ana", pb.id).success_count == 1
    assert len(service.playbooks("ana")) == 2
    assert make_plan(service, "ana", OfflineLLM()).actionable() == []


def test_inv456_a_held_count_is_rebased_on_the_playbook_as_it_is_now(service):
    from memory.models import MemoryKind
    pb, plan, new, count, rest = _playbook_plan(service)
    apply_plan(service, plan, op_ids=rest + [new.id])
    cur = service.store.get(MemoryKind.PROCEDURAL, "ana", pb.id)
    with service.batch("seed", "ana") as b:  # the playbook moved on meanwhile
        b.replace(cur, cur.model_copy(update={"rev": cur.rev + 1, "failure_count": 2}),
                  action="update_playbook")
    again = make_plan(service, "ana", OfflineLLM())
    (op,) = again.actionable()
    assert (op.old_playbook.rev, op.playbook.success_count, op.playbook.failure_count) == (
        cur.rev + 1, 1, 2)
    apply_plan(service, again)
    assert service.store.get(MemoryKind.PROCEDURAL, "ana", pb.id).success_count == 1


def test_inv456_undoing_the_apply_that_held_them_leaves_them_to_its_episodes(service):
    pb, plan, new, count, rest = _playbook_plan(service)
    apply_plan(service, plan, op_ids=rest)
    undo_plan(service, "ana", plan.id)
    again = make_plan(service, "ana", OfflineLLM())  # the episodes are new again: planned once
    kinds = [op.kind for op in again.actionable()]
    assert kinds.count(OpKind.ADD_PLAYBOOK) == 1 and kinds.count(OpKind.UPDATE_PLAYBOOK) == 1
    update = next(op for op in again.actionable() if op.kind == OpKind.UPDATE_PLAYBOOK)
    assert update.playbook.success_count == 1  # the feedback counted once, not held and again
