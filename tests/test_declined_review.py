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
