"""A retracted value restated in ten wordings never becomes active again (0 of 10), with the
real MiniLM embedder: invariant 31 end to end, run by run and all at once."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memory.consolidation.apply import apply_plan
from memory.consolidation.planner import make_plan
from memory.llm.offline import OfflineLLM
from memory.models import FactState
from memory.policy import ReviewPolicy
from tests.conftest import NOW

WORDINGS = [
    "I live in Bristol", "I'm living in Bristol", "We're based in Bristol these days",
    "My home is Bristol", "Bristol is where I live", "we relocated to Bristol",
    "I reside in Bristol, England", "We live in Bristol now", "moved back to Bristol last week",
    "We moved to Bristol last month",
]


def _setup(svc):
    old = svc.write_fact("ana", "Lives in Bristol", fact_type="identity", actor="seed").fact
    svc.retract("ana", old.id, actor="operator:kim", reason="the user never lived there")
    svc.write_fact("ana", "Lives in Edinburgh", fact_type="identity", actor="seed")
    return old


def _active_bristol(svc) -> list:
    return [f for f in svc.facts("ana", states=[FactState.ACTIVE]) if "bristol" in f.text.lower()]


@pytest.mark.parametrize("policy", ["review", "drop"])
def test_inv31_zero_of_ten_restatements_become_active(minilm_service, policy):
    """invariant 31: each of ten wordings, consolidated in its own run, stays dead."""
    svc = minilm_service
    _setup(svc)
    llm, pol = OfflineLLM(), ReviewPolicy(previously_rejected=policy)
    resurrected = 0
    for i, text in enumerate(WORDINGS):
        svc.write_episode("ana", text, timestamp=NOW + timedelta(hours=i))
        plan = make_plan(svc, "ana", llm, policy=pol)
        # the wording was extracted and judged by the tombstone gate (the test can fail)
        tomb = [g for g in plan.gates if g.gate == "tombstone"]
        assert tomb and tomb[0].decision == ("review" if policy == "review" else "drop"), text
        apply_plan(svc, plan)
        resurrected += bool(_active_bristol(svc))
    assert resurrected == 0
    flagged = [f for f in svc.facts("ana", states=[FactState.CANDIDATE])]
    if policy == "review":  # one flagged candidate, later restatements deduplicated against it
        assert [(f.text, f.flags) for f in flagged] == [("Lives in Bristol", ["previously_rejected"])]
    else:
        assert flagged == []


def test_inv31_ten_restatements_in_one_run(minilm_service):
    svc = minilm_service
    _setup(svc)
    svc.write_episodes("ana", [(t, NOW + timedelta(minutes=i), "s") for i, t in enumerate(WORDINGS)])
    plan = make_plan(svc, "ana", OfflineLLM(), policy=ReviewPolicy())
    assert all(op.fact is None or op.fact.state != FactState.ACTIVE for op in plan.ops)
    apply_plan(svc, plan)
    assert _active_bristol(svc) == []
