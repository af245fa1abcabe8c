"""Every review decision path, on every available backend (the `service` fixture)."""

from __future__ import annotations

import pytest

from memory.errors import ChainError, NotFoundError, TombstoneError, ValidationError
from memory.models import Fact, FactState
from memory.search_config import Purpose
from memory.stores.base import PutMemory
from review import Decision, StaleItemError, decide, decide_many, history, propose, show_item


def state(service, user, fact_id):
    return service.get_fact(user, fact_id).state


def last_event(service, user, action):
    events = service.audit(user, action=action, limit=5)
    assert events, f"no {action} event"
    return events[0]


def test_inv42_approve_activates_with_operator_event(service):
    ep = service.write_episode("ana", "I started learning the cello this spring")
    cand = propose(service, "ana", "Plays the cello", source_episode_ids=[ep.id])
    res = decide(service, "ana", cand.id, "approve", operator="rita", expected_rev=cand.rev,
                 comment="clear from the episode")
    assert res.fact.state == FactState.ACTIVE and state(service, "ana", cand.id) == FactState.ACTIVE
    e = last_event(service, "ana", "review_approve")
    assert e.actor == "operator:rita" and e.comment == "clear from the episode"
    assert e.before["state"] == "candidate" and e.after["state"] == "active"
    hits = service.recall("ana", "cello", purpose=Purpose.EVAL).hits
    assert cand.id in [h.id for h in hits]


def test_inv44_reject_requires_reason_and_tombstones(service):
    cand = propose(service, "ana", "Owns a red bicycle")
    with pytest.raises(ValidationError, match="reason"):
        decide(service, "ana", cand.id, "reject", operator="rita", expected_rev=cand.rev)
    assert state(service, "ana", cand.id) == FactState.CANDIDATE  # nothing written
    res = decide(service, "ana", cand.id, "reject", operator="rita", expected_rev=cand.rev,
                 reason="the user never said this", comment="hallucinated")
    assert res.fact.state == FactState.REJECTED and res.tombstone is not None
    assert res.tombstone.kind.value == "rejected" and res.tombstone.actor == "operator:rita"
    e = last_event(service, "ana", "review_reject")
    assert e.reason == "the user never said this" and e.comment == "hallucinated"
    assert e.before["state"] == "candidate" and e.after["state"] == "rejected"
    # invariant 44: the dead value stays dead — the agent cannot write it ...
    with pytest.raises(TombstoneError):
        service.write_fact("ana", "Owns a red bicycle")
    # ... and proposed again it is queued flagged, never active, and approval is refused.
    again = propose(service, "ana", "owns a red bicycle!", actor="consolidation")
    assert "previously_rejected" in again.flags and again.state == FactState.CANDIDATE
    detail = show_item(service, "ana", again.id, threshold=0.7)
    assert detail.item.kind.value == "previously_rejected"
    assert [t.source_fact_id for t in detail.evidence.tombstones] == [cand.id]
    with pytest.raises(TombstoneError):
        decide(service, "ana", again.id, "approve", operator="rita", expected_rev=again.rev)
    assert state(service, "ana", again.id) == FactState.CANDIDATE
    assert service.audit("ana", action="review_refused")[0].outcome == "refused"


def test_inv42_edit_then_approve_is_tombstone_checked(service):
    dead = propose(service, "ana", "Works at Globex")
    decide(service, "ana", dead.id, "reject", operator="rita", expected_rev=dead.rev, reason="no")
    cand = propose(service, "ana", "Works at Initech as a tester")
    with pytest.raises(TombstoneError):
        decide(service, "ana", cand.id, "edit", operator="rita", expected_rev=cand.rev,
               text="Works at Globex")
    with pytest.raises(ValidationError, match="text"):
        decide(service, "ana", cand.id, "edit", operator="rita", expected_rev=cand.rev)
    res = decide(service, "ana", cand.id, "edit", operator="rita", expected_rev=cand.rev,
                 text="Works at Initech as a QA engineer")
    stored = service.get_fact("ana", cand.id)
    assert stored.state == FactState.ACTIVE and stored.text == "Works at Initech as a QA engineer"
    e = last_event(service, "ana", "review_edit")
    assert e.before["text"] == "Works at Initech as a tester" and e.after["text"] == stored.text
    assert res.fact.rev == cand.rev + 1


def test_inv45_merge_moves_evidence_and_closes_candidate_without_tombstone(service):
    e1 = service.write_episode("ana", "Tea, always tea, never coffee")
    e2 = service.write_episode("ana", "Put the kettle on, I need my tea")
    target = service.write_fact("ana", "Prefers tea over coffee", source_episode_ids=[e1.id]).fact
    cand = propose(service, "ana", "Likes tea", source_episode_ids=[e2.id])
    res = decide(service, "ana", cand.id, "merge", operator="rita", expected_rev=cand.rev,
                 into=target.id, comment="duplicate")
    merged = service.get_fact("ana", target.id)
    assert merged.state == FactState.ACTIVE and merged.source_episode_ids == [e1.id, e2.id]
    closed = service.get_fact("ana", cand.id)
    assert closed.state == FactState.REJECTED and f"merged_into:{target.id}" in closed.flags
    assert service.store.list_tombstones("ana") == []  # merged is not "never true"
    assert res.touched[0].id == target.id
    assert last_event(service, "ana", "merge_sources").after["source_episode_ids"] == [e1.id, e2.id]
    # A merged value can still be written (no tombstone), and merge needs an active target.
    other = propose(service, "ana", "Drinks green tea")
    with pytest.raises(ValidationError, match="active"):
        decide(service, "ana", other.id, "merge", operator="rita", expected_rev=other.rev,
               into=cand.id)


def test_inv47_accept_contradiction_supersedes_old_fact(service):
    old = service.write_fact("ana", "Lives in Bristol", fact_type="identity").fact
    cand = propose(service, "ana", "Lives in Edinburgh", fact_type="identity",
                   supersedes_id=old.id, contradiction="natural", actor="consolidation")
    detail = show_item(service, "ana", cand.id, threshold=0.7)
    assert detail.item.kind.value == "contradiction" and detail.evidence.replaces.id == old.id
    assert [f.id for f in detail.evidence.chain] == [old.id, cand.id]
    with pytest.raises(ValidationError):
        decide(service, "ana", propose(service, "ana", "Has a dog").id, "accept",
               operator="rita", expected_rev=1)
    res = decide(service, "ana", cand.id, "accept", operator="rita", expected_rev=cand.rev)
    assert res.fact.state == FactState.ACTIVE and res.touched[0].id == old.id
    stored_old = service.get_fact("ana", old.id)
    assert stored_old.state == FactState.SUPERSEDED and stored_old.superseded_by == cand.id
    sup = last_event(service, "ana", "supersede")
    assert sup.actor == "operator:rita"
    assert [f.id for f in service.chain("ana", cand.id)] == [old.id, cand.id]


def test_inv47_harsh_contradiction_approved_retracts_and_penalises(service):
    old = service.write_fact("ana", "Is allergic to peanuts", fact_type="constraint").fact
    cand = propose(service, "ana", "Has no food allergies", fact_type="constraint",
                   confidence=0.9, supersedes_id=old.id, contradiction="harsh")
    res = decide(service, "ana", cand.id, "approve", operator="rita", expected_rev=cand.rev)
    assert state(service, "ana", old.id) == FactState.RETRACTED
    assert res.tombstone is not None and res.tombstone.kind.value == "retracted"
    assert res.fact.confidence == pytest.approx(0.9 - service.harsh_confidence_penalty)


def test_inv46_keep_both_leaves_old_fact_active(service):
    old = service.write_fact("ana", "Speaks French").fact
    cand = propose(service, "ana", "Speaks Spanish", supersedes_id=old.id)
    plain = propose(service, "ana", "Has a sister")
    with pytest.raises(ValidationError, match="keep-both"):
        decide(service, "ana", plain.id, "keep-both", operator="rita", expected_rev=plain.rev)
    res = decide(service, "ana", cand.id, "keep-both", operator="rita", expected_rev=cand.rev,
                 reason="both are true")
    assert state(service, "ana", old.id) == FactState.ACTIVE
    assert res.fact.state == FactState.ACTIVE and res.fact.supersedes is None
    assert f"kept_both:{old.id}" in res.fact.flags
    assert last_event(service, "ana", "review_keep_both").reason == "both are true"


def test_inv47_accept_refused_when_old_fact_is_no_longer_head(service):
    old = service.write_fact("ana", "Drives a Golf").fact
    a = propose(service, "ana", "Drives a Polo", supersedes_id=old.id)
    b = propose(service, "ana", "Drives a Tesla", supersedes_id=old.id)
    decide(service, "ana", a.id, "accept", operator="rita", expected_rev=a.rev)
    with pytest.raises(ChainError):
        decide(service, "ana", b.id, "accept", operator="rita", expected_rev=b.rev)
    assert state(service, "ana", b.id) == FactState.CANDIDATE


def test_inv42_second_operator_on_stale_item_gets_conflict_with_fresh_state(service):
    cand = propose(service, "ana", "Runs marathons")
    loaded_rev = cand.rev  # both operators loaded the item at this revision
    decide(service, "ana", cand.id, "approve", operator="rita", expected_rev=loaded_rev)
    with pytest.raises(StaleItemError) as err:
        decide(service, "ana", cand.id, "reject", operator="sam", expected_rev=loaded_rev,
               reason="no")
    assert err.value.exit_code == 5 and err.value.fresh.state == FactState.ACTIVE
    assert "already active" in str(err.value)
    assert state(service, "ana", cand.id) == FactState.ACTIVE
    assert service.audit("ana", action="review_reject") == []
    assert service.store.list_tombstones("ana") == []


def test_inv42_edited_item_rejects_decision_on_old_revision(service):
    cand = propose(service, "ana", "Cycles to work")
    from memory.corrections import bumped as bump
    from memory.stores.base import UpdateMemory
    changed = bump(cand, confidence=0.3)  # e.g. consolidation re-scored it meanwhile
    service.store.apply([UpdateMemory(doc=changed, expected_rev=cand.rev)])
    with pytest.raises(StaleItemError) as err:
        decide(service, "ana", cand.id, "approve", operator="sam", expected_rev=cand.rev)
    assert err.value.fresh.rev == cand.rev + 1 and err.value.fresh.confidence == 0.3
    assert state(service, "ana", cand.id) == FactState.CANDIDATE


def test_inv40_decision_never_touches_another_users_facts(service):
    bob_fact = service.write_fact("bob", "Prefers window seats").fact
    bob_cand = propose(service, "bob", "Likes aisle seats")
    ana_cand = propose(service, "ana", "Prefers window seats too")
    with pytest.raises(NotFoundError):  # --into a fact of B
        decide(service, "ana", ana_cand.id, "merge", operator="rita", expected_rev=1,
               into=bob_fact.id)
    with pytest.raises(NotFoundError):  # --user mismatch: B's item decided in A's scope
        decide(service, "ana", bob_cand.id, "approve", operator="rita", expected_rev=1)
    with pytest.raises(NotFoundError):
        show_item(service, "ana", bob_cand.id)
    with pytest.raises(NotFoundError):  # proposing a supersession of B's fact
        propose(service, "ana", "Prefers aisle seats", supersedes_id=bob_fact.id)
    # A candidate of ana that (wrongly) names bob's fact as the one it replaces: accepting it
    # cannot reach across, because every read is by (ana, id).
    stray = Fact(user_id="ana", text="Prefers aisle seats now", state=FactState.CANDIDATE,
                 supersedes=bob_fact.id, contradiction="harsh")
    service.store.apply([PutMemory(doc=stray)])
    assert show_item(service, "ana", stray.id).evidence.replaces is None
    with pytest.raises(ChainError):
        decide(service, "ana", stray.id, "accept", operator="rita", expected_rev=1)
    assert service.get_fact("bob", bob_fact.id) == bob_fact
    assert service.get_fact("bob", bob_cand.id) == bob_cand
    assert service.store.list_tombstones("bob") == []
    assert state(service, "ana", ana_cand.id) == FactState.CANDIDATE
    denied = service.audit("ana", action="denied")
    assert {bob_fact.id, bob_cand.id} <= {t for e in denied for t in e.target_ids}
    assert service.audit("bob", action="review_approve") == []


def test_inv42_operator_is_required_and_validated(service):
    cand = propose(service, "ana", "Has two cats")
    for bad in ("", "   ", "a:b"):
        with pytest.raises(ValidationError):
            decide(service, "ana", cand.id, "approve", operator=bad, expected_rev=cand.rev)
    with pytest.raises(ValidationError, match="unknown decision"):
        decide(service, "ana", cand.id, "maybe", operator="rita", expected_rev=cand.rev)
    assert state(service, "ana", cand.id) == FactState.CANDIDATE


def test_bulk_approve_and_reject_report_per_item(service):
    items = [propose(service, "ana", f"Visited city number {i}") for i in range(3)]
    decide(service, "ana", items[1].id, "approve", operator="rita", expected_rev=items[1].rev)
    out = decide_many(service, [("ana", f.id, f.rev) for f in items], Decision.APPROVE,
                      operator="sam", comment="batch")
    assert [o.ok for o in out] == [True, False, True] and "StaleItemError" in out[1].error
    with pytest.raises(ValidationError, match="reason"):
        decide_many(service, [("ana", items[0].id, 2)], "reject", operator="sam")
    with pytest.raises(ValidationError, match="bulk"):
        decide_many(service, [("ana", items[0].id, 2)], "merge", operator="sam")
    rej = [propose(service, "ana", f"Owns boat number {i}") for i in range(2)]
    out = decide_many(service, [("ana", f.id, f.rev) for f in rej], "reject", operator="sam",
                      reason="not said")
    assert all(o.ok for o in out)
    assert {t.source_fact_id for t in service.store.list_tombstones("ana")} == {f.id for f in rej}


def test_history_lists_who_decided_what_and_when(service):
    a = propose(service, "ana", "Collects stamps")
    b = propose(service, "bob", "Collects coins")
    decide(service, "ana", a.id, "approve", operator="rita", expected_rev=a.rev, comment="ok")
    decide(service, "bob", b.id, "reject", operator="sam", expected_rev=b.rev, reason="no")
    rows = history(service, ["ana", "bob"])
    assert {(h.user_id, h.operator, h.decision, h.fact_id) for h in rows} == {
        ("ana", "rita", "approve", a.id), ("bob", "sam", "reject", b.id)}
    assert [h.comment for h in history(service, "ana")] == ["ok"]


def test_inv512_bulk_approve_holds_contradictions_back_unless_included(service):
    old = service.write_fact("ana", "Lives in Leeds", fact_type="identity").fact
    contra = propose(service, "ana", "Lives in York", fact_type="identity", supersedes_id=old.id)
    plain_ = propose(service, "ana", "Collects shells")
    sel = [("ana", contra.id, contra.rev), ("ana", plain_.id, plain_.rev)]
    out = decide_many(service, sel, "approve", operator="rita")
    assert [o.ok for o in out] == [False, True]
    assert "held back" in out[0].error and "Lives in Leeds" in out[0].error
    assert state(service, "ana", contra.id) == FactState.CANDIDATE
    assert state(service, "ana", old.id) == FactState.ACTIVE
    out = decide_many(service, sel[:1], "approve", operator="rita", contradictions=True)
    assert out[0].ok and state(service, "ana", old.id) == FactState.SUPERSEDED
