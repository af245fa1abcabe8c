"""A denial of something on record always retracts it or sends the retraction to review (issue
28, item 5): the proposed retraction as a review item, from the agent's tool and from
consolidation, decided by retract or keep, on every available backend (the `service` fixture).
Invariants 590-591; the desk side is in tests/test_page_review_retraction.py."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from memory.access import Access, Role, RoleMap
from memory.cli import main
from memory.clock import fixed_clock
from memory.consolidation.apply import apply_plan, undo_plan
from memory.consolidation.plan import OpKind
from memory.consolidation.planner import make_plan
from memory.contradicted import contradicted_episodes
from memory.embeddings import get_embedder
from memory.errors import AccessDenied, ChainError, TombstoneError, ValidationError
from memory.llm.offline import OfflineLLM
from memory.models import PROPOSED_RETRACTION, FactState
from memory.policy import ReviewPolicy
from memory.service import MemoryService
from memory.stores import open_store
from memory.tools import ToolContext, execute
from memory.trace import diff_line
from review import ItemKind, QueueFilter, StaleItemError, decide, decide_many
from review.label_source import collect_labels
from review.labels import Outcome
from review.propose import propose, propose_retraction
from review.queue import list_queue, show_item
from review.undo import undo_last
from tests.conftest import NOW

HEDGED = "hmm I don't think I ever said I had a UPS"


def hedged_denial(service, user="ana", text="Has a UPS", said=HEDGED, confidence=0.6, by="seed"):
    """The tool path as the offline agent drives it: the fact recalled this turn, then a
    retraction below the policy's confidence. Returns (target, tool result, context)."""
    target = service.write_fact(user, text, actor=by).fact
    ep = service.write_episode(user, said, session_id="s")
    ctx = ToolContext(service=service, user_id=user, session_id="s", episode_id=ep.id,
                      user_message=said, policy=ReviewPolicy(), reader="offline-reader@test")
    execute(ctx, "recall_memory", {"query": text})
    res = execute(ctx, "write_memory", {"kind": "retraction", "supersedes_id": target.id,
                                        "confidence": confidence, "reason": "hedged denial"})
    return service.get_fact(user, target.id), res, ctx  # as recall left it (its use count)


def item_of(service, user="ana"):
    (item,) = [i for i in list_queue(service, QueueFilter(users=[user])).items
               if i.kind == ItemKind.RETRACTION]
    return item


# invariant 590: the entrances ------------------------------------------------------------------
def test_inv590_an_unsure_retraction_from_the_tool_waits_as_a_proposal(service):
    target, res, ctx = hedged_denial(service)
    assert res.ok, res.error
    (w,) = res.writes
    assert (w.op, w.status, w.old_id, w.old_text, w.text) == \
        ("retract", "review", target.id, "Has a UPS", None)
    assert PROPOSED_RETRACTION in w.flags and "awaiting_review" not in w.flags
    assert "stays on record" in res.message
    # nothing retracted, nothing tombstoned: the fact stays as it was
    assert service.get_fact("ana", target.id) == target
    assert service.store.list_tombstones("ana") == []
    item = service.get_fact("ana", w.memory_id)
    assert (item.state, item.supersedes, item.text, item.source_episode_ids) == \
        (FactState.CANDIDATE, target.id, "Has a UPS", [ctx.episode_id])
    assert item.reader == "offline-reader@test" and item.contradiction.value == "harsh"
    event = service.audit("ana", action="propose_retraction", limit=1)[0]
    assert event.target_ids == [item.id] and "hedged denial" in event.reason
    assert "proposed retracting 'Has a UPS'" in diff_line(w) and "tombstoned" not in diff_line(w)
    # the same denial again finds the proposal waiting: one per fact, nothing written
    before = len(service.audit("ana", limit=1000))
    again = execute(ctx, "write_memory", {"kind": "retraction", "supersedes_id": target.id,
                                          "confidence": 0.5})
    assert again.ok and again.writes[0].memory_id == item.id
    assert "awaiting_review" in again.writes[0].flags and "already waits" in again.message
    assert len(service.audit("ana", limit=1000)) == before
    # a confident retraction still applies at once (invariant 34 keeps it for the turn)
    sure = service.write_fact("ana", "Has a cat called Tom", actor="seed").fact
    execute(ctx, "recall_memory", {"query": "cat Tom"})
    done = execute(ctx, "write_memory", {"kind": "retraction", "supersedes_id": sure.id})
    assert done.writes[0].status == "applied"
    assert service.get_fact("ana", sure.id).state == FactState.RETRACTED


def test_inv590_only_a_believed_fact_of_the_user_is_proposed(service):
    dead = service.write_fact("ana", "Owns a kayak", actor="seed").fact
    service.retract("ana", dead.id, actor="seed")
    with pytest.raises(ValidationError, match="only a believed fact"):
        propose_retraction(service, "ana", dead.id, confidence=0.5)
    bobs = service.write_fact("bob", "Has a UPS", actor="seed").fact
    with pytest.raises(Exception, match="no semantic memory"):
        propose_retraction(service, "ana", bobs.id, confidence=0.5)
    assert service.audit("ana", action="denied", limit=1)  # invariant 3: audited as denied


def test_inv590_consolidation_proposes_never_retracts_and_proposes_once(service):
    """invariant 34 stays: consolidation proposes; an operator retracts."""
    ups = service.write_fact("ana", "Has a UPS", actor="seed").fact
    dog = service.write_fact("ana", "Has a beagle called Biscuit", actor="seed").fact
    start = NOW - timedelta(hours=1)
    service.write_episodes("ana", [(HEDGED, start, "s1"), ("we don't have a UPS??",
                                                             start + timedelta(minutes=1), "s1"),
                                   ("That's wrong, I never had a dog",
                                    start + timedelta(minutes=2), "s1")])
    plan = make_plan(service, "ana", OfflineLLM())
    props = [op for op in plan.ops if op.kind == OpKind.PROPOSE_RETRACTION]
    assert sorted(op.old.id for op in props) == sorted([ups.id, dog.id])
    by_target = {op.old.id: op for op in props}
    assert len(by_target[ups.id].evidence) == 2  # two denials of one fact: one op
    assert all(op.review and op.fact.state == FactState.CANDIDATE for op in props)
    diff = plan.render_diff()
    assert "propose retracting 'Has a UPS'" in diff and "never true" in diff
    res = apply_plan(service, plan)
    assert sorted(res.applied) == sorted(op.id for op in props)
    # nothing retracted: both facts as they were, no tombstone; both wait for an operator
    assert service.get_fact("ana", ups.id).state == FactState.ACTIVE
    assert service.get_fact("ana", dog.id).state == FactState.ACTIVE
    assert service.store.list_tombstones("ana") == []
    items = [i for i in list_queue(service, QueueFilter(users=["ana"])).items
             if i.kind == ItemKind.RETRACTION]
    assert sorted(i.supersedes for i in items) == sorted([ups.id, dog.id])
    assert all(i.origin == "consolidation" and i.plan_id == plan.id for i in items)
    assert len(apply_plan(service, plan).applied) == 0  # re-apply converges (invariant 38)
    # a later denial of the same fact, in-turn or consolidated, adds no second proposal
    service.write_episodes("ana", [("honestly I never owned a UPS", NOW, "s2")])
    later = make_plan(service, "ana", OfflineLLM())
    assert not [op for op in later.ops if op.kind == OpKind.PROPOSE_RETRACTION]
    assert any(op.kind == OpKind.DROP and op.gate == "dedup" and "already waits" in op.reason
               for op in later.ops)
    # undoing the plan takes its proposals out with it
    undo_plan(service, "ana", plan.id, actor="cli")
    assert not [i for i in list_queue(service, QueueFilter(users=["ana"])).items
                if i.kind == ItemKind.RETRACTION]


def test_inv590_a_denial_naming_nothing_on_record_stays_a_drop_and_apply_rechecks(service):
    ups = service.write_fact("ana", "Has a UPS", actor="seed").fact
    service.write_episodes("ana", [(HEDGED, NOW - timedelta(hours=1), "s1"),
                                   ("I never had a boat", NOW - timedelta(minutes=30), "s1")])
    plan = make_plan(service, "ana", OfflineLLM())
    assert [op.old.id for op in plan.ops if op.kind == OpKind.PROPOSE_RETRACTION] == [ups.id]
    # the tool path proposes the same fact between planning and applying: apply adds none
    proposal, new = propose_retraction(service, "ana", ups.id, confidence=0.5)
    assert new
    res = apply_plan(service, plan)
    assert res.applied == [] and len(res.already) == 1
    waiting = [i for i in list_queue(service, QueueFilter(users=["ana"])).items
               if i.kind == ItemKind.RETRACTION]
    assert [i.id for i in waiting] == [proposal.id]


def test_inv590_a_declined_proposal_still_reaches_the_queue(service):
    """invariant 456 for a denial: declining it on the plan would lose it."""
    ups = service.write_fact("ana", "Has a UPS", actor="seed").fact
    service.write_episodes("ana", [(HEDGED, NOW - timedelta(hours=1), "s1")])
    plan = make_plan(service, "ana", OfflineLLM())
    (op,) = [op for op in plan.ops if op.kind == OpKind.PROPOSE_RETRACTION]
    res = apply_plan(service, plan, op_ids=[])
    assert res.for_review == [op.id]
    assert item_of(service).supersedes == ups.id
    assert service.get_fact("ana", ups.id).state == FactState.ACTIVE


# invariant 591: the item ------------------------------------------------------------------------
def test_inv591_a_proposal_is_its_own_kind_first_and_never_a_value(service):
    target, res, _ = hedged_denial(service)
    cand = propose(service, "ana", "Owns a kettle", confidence=0.9)
    listing = list_queue(service, QueueFilter(users=["ana"]))
    kinds = {i.id: i.kind for i in listing.items}
    # below the confidence threshold and naming a fact to supersede, it is still a retraction
    assert kinds[res.writes[0].memory_id] == ItemKind.RETRACTION
    assert kinds[cand.id] == ItemKind.CANDIDATE
    assert listing.counts["ana"]["retraction"] == 1
    only = list_queue(service, QueueFilter(users=["ana"], kinds={ItemKind.RETRACTION}))
    assert [i.id for i in only.items] == [res.writes[0].memory_id] and only.total == 1
    low = list_queue(service, QueueFilter(users=["ana"], kinds={ItemKind.LOW_CONFIDENCE}))
    assert res.writes[0].memory_id not in [i.id for i in low.items]
    detail = show_item(service, "ana", res.writes[0].memory_id)
    ev = detail.evidence
    assert ev.replaces.id == target.id and [f.id for f in ev.chain] == [target.id]
    assert [e.text for e in ev.episodes] == [HEDGED]
    assert "hedged denial" in ev.reason and ev.stale is None
    # the fact's own text is no pending value: writing it again is "already on record"
    ctx = ToolContext(service=service, user_id="ana", policy=ReviewPolicy())
    again = execute(ctx, "write_memory", {"text": "Has a UPS"})
    assert again.writes[0].status == "duplicate" and again.writes[0].memory_id == target.id
    assert "awaiting_review" not in again.writes[0].flags


# invariant 591: the decisions -------------------------------------------------------------------
@pytest.mark.parametrize("decision", ["retract", "approve"])
def test_inv591_retract_retracts_the_fact_through_the_one_path(service, decision):
    target, res, ctx = hedged_denial(service)
    item = item_of(service)
    out = decide(service, "ana", item.id, decision, operator="rita", expected_rev=item.rev,
                 comment="the user confirmed on the phone")
    assert out.fact.state == FactState.REJECTED and "retraction_applied" in out.fact.flags
    assert [f.id for f in out.touched] == [target.id]
    assert service.get_fact("ana", target.id).state == FactState.RETRACTED
    assert out.tombstone is not None and out.tombstone.source_fact_id == target.id
    assert [t.id for t in service.store.list_tombstones("ana")] == [out.tombstone.id]
    assert out.tombstone.actor == "operator:rita"
    e = service.audit("ana", action="review_retract", limit=1)[0]
    assert e.target_ids == [item.id, target.id] and e.comment == "the user confirmed on the phone"
    r = service.audit("ana", action="retract", limit=1)[0]
    assert r.target_ids == [target.id, item.id] and r.actor == "operator:rita"
    assert r.before["state"] == "active" and r.after["state"] == "retracted"
    with pytest.raises(TombstoneError):  # the value is dead now (invariant 7)
        service.write_fact("ana", "Has a UPS")
    # the denial is the user's true words: its episode is not hidden as contradicted
    assert contradicted_episodes(service.store, "ana", [ctx.episode_id]) == set()
    # retracting kills a value for good: it is not undone
    with pytest.raises(ChainError, match="cannot be undone"):
        undo_last(service, "ana", operator="rita")


@pytest.mark.parametrize("decision", ["keep", "reject"])
def test_inv591_keep_leaves_the_fact_and_writes_no_tombstone(service, decision):
    target, _, ctx = hedged_denial(service)
    item = item_of(service)
    out = decide(service, "ana", item.id, decision, operator="rita", expected_rev=item.rev)
    assert out.fact.state == FactState.REJECTED and "retraction_declined" in out.fact.flags
    assert out.tombstone is None and out.touched == []
    assert service.get_fact("ana", target.id) == target  # not even its revision moved
    assert service.store.list_tombstones("ana") == []
    assert service.tombstone_match("ana", "Has a UPS") is None
    assert service.audit("ana", action="review_keep", limit=1)[0].target_ids == [item.id, target.id]
    # the value can still be written: superseded by a newer one, and written again later
    new = service.write_fact("ana", "Has a new UPS", supersedes_id=target.id).fact
    assert new.state == FactState.ACTIVE
    assert service.write_fact("ana", "Has a UPS").fact.state == FactState.ACTIVE
    assert contradicted_episodes(service.store, "ana", [ctx.episode_id]) == set()


def test_inv591_keep_is_undone_back_into_the_queue(service):
    hedged_denial(service)
    item = item_of(service)
    decide(service, "ana", item.id, "keep", operator="rita", expected_rev=item.rev)
    res = undo_last(service, "ana", operator="rita")
    assert res.restored[0].id == item.id and res.restored[0].state == FactState.CANDIDATE
    assert item_of(service).id == item.id


@pytest.mark.parametrize("decision,words", [
    ("edit", "retract"), ("merge", "retract"), ("keep-both", "retract"), ("accept", "retract")])
def test_inv591_other_decisions_are_refused_with_a_clear_message(service, decision, words):
    target, _, _ = hedged_denial(service)
    item = item_of(service)
    with pytest.raises(ValidationError, match=f"proposed retraction.*{words}"):
        decide(service, "ana", item.id, decision, operator="rita", expected_rev=item.rev,
               text="Has no UPS", into=target.id)
    assert service.get_fact("ana", item.id).state == FactState.CANDIDATE
    assert service.get_fact("ana", target.id) == target


def test_inv591_retract_and_keep_apply_to_proposals_only(service):
    cand = propose(service, "ana", "Owns a kettle", confidence=0.9)
    for decision in ("retract", "keep"):
        with pytest.raises(ValidationError, match="proposes no retraction"):
            decide(service, "ana", cand.id, decision, operator="rita", expected_rev=cand.rev)
    assert service.get_fact("ana", cand.id).state == FactState.CANDIDATE


@pytest.mark.parametrize("move", ["superseded", "retracted"])
def test_inv591_a_fact_that_moved_on_makes_retract_stale(service, move):
    target, _, _ = hedged_denial(service)
    item = item_of(service)
    if move == "superseded":
        service.write_fact("ana", "Has a Lumio UPS 2", supersedes_id=target.id)
    else:
        service.retract("ana", target.id, actor="seed")
    tombs = service.store.list_tombstones("ana")
    with pytest.raises(StaleItemError, match="no longer applies") as err:
        decide(service, "ana", item.id, "retract", operator="rita", expected_rev=item.rev)
    assert err.value.fresh.state == FactState.CANDIDATE
    assert service.store.list_tombstones("ana") == tombs  # nothing written
    assert not service.audit("ana", action="review_retract", limit=1)
    assert show_item(service, "ana", item.id).evidence.stale
    # keep closes it, marked so: no label of the reader (invariant 591)
    out = decide(service, "ana", item.id, "keep", operator="rita", expected_rev=item.rev)
    assert "target_moved_on" in out.fact.flags
    assert item.id not in {lb.fact_id for lb in collect_labels(service, "ana")}


def test_inv591_a_forgotten_fact_takes_its_proposal_and_deciding_it_is_stale(service):
    target, _, ctx = hedged_denial(service)
    item = item_of(service)
    res = service.forget("ana", target.id, actor="cli")
    assert item.id in res.forgotten  # it held the fact's text (invariant 66)
    assert [f for f in service.facts("ana") if "UPS" in f.text] == []
    for decision in ("retract", "keep"):
        with pytest.raises(StaleItemError, match="was forgotten") as err:
            decide(service, "ana", item.id, decision, operator="rita", expected_rev=item.rev)
        assert err.value.fresh is None
    assert [e.id for e in service.episodes("ana")] == [ctx.episode_id]  # the denial stays
    assert not service.audit("ana", action="review_retract", limit=1)
    assert service.store.list_tombstones("ana") == []


def test_inv591_revision_and_decided_items_are_stale(service):
    hedged_denial(service)
    item = item_of(service)
    with pytest.raises(StaleItemError, match="loaded at revision"):
        decide(service, "ana", item.id, "retract", operator="rita", expected_rev=item.rev + 1)
    decide(service, "ana", item.id, "keep", operator="rita", expected_rev=item.rev)
    with pytest.raises(StaleItemError, match="already rejected"):
        decide(service, "ana", item.id, "retract", operator="ben", expected_rev=item.rev)


def test_inv591_a_viewer_is_denied_and_audited(tmp_path):
    store = open_store(f"embedded:{tmp_path / 'roles.db'}", get_embedder("hash"))
    seeder = MemoryService(store, clock=fixed_clock(NOW))
    target, _, _ = hedged_denial(seeder)
    item = item_of(seeder)
    roles = RoleMap(operators={"vic@example.com": "viewer", "rev@example.com": "reviewer"})
    svc = MemoryService(store, clock=fixed_clock(NOW),
                        authorize=Access(roles, "login").authorize)
    for decision in ("retract", "keep", "approve"):
        with pytest.raises(AccessDenied):
            decide(svc, "ana", item.id, decision, operator="vic@example.com",
                   expected_rev=item.rev)
    denied = svc.audit("ana", action="denied", limit=10)
    assert {e.after["attempted"] for e in denied} == {"review_retract", "review_keep",
                                                      "review_approve"}
    assert svc.get_fact("ana", target.id).state == FactState.ACTIVE
    assert Access(roles, "login").role_of("operator:rev@example.com") == Role.REVIEWER
    out = decide(svc, "ana", item.id, "retract", operator="rev@example.com",
                 expected_rev=item.rev)
    assert svc.get_fact("ana", target.id).state == FactState.RETRACTED and out.tombstone
    store.close()


def test_inv591_bulk_approve_never_retracts_and_bulk_reject_keeps(service):
    target, _, _ = hedged_denial(service)
    item = item_of(service)
    out = decide_many(service, [("ana", item.id, item.rev)], "approve", operator="rita",
                      contradictions=True)
    assert not out[0].ok and "proposed retraction" in out[0].error
    assert service.get_fact("ana", target.id).state == FactState.ACTIVE
    out = decide_many(service, [("ana", item.id, item.rev)], "reject", operator="rita",
                      reason="the user has one")
    assert out[0].ok and out[0].result.event.action == "review_keep"
    assert service.store.list_tombstones("ana") == []


# invariant 591: labels --------------------------------------------------------------------------
def test_inv591_retract_is_a_right_label_and_keep_a_wrong_one(service, tmp_path, monkeypatch,
                                                              capsys):
    ups, _, _ = hedged_denial(service, by="agent")  # a reader wrote it: still no label of its own
    first = item_of(service)
    decide(service, "ana", first.id, "retract", operator="rita", expected_rev=first.rev)
    dog, _, _ = hedged_denial(service, text="Has a dog called Max",
                              said="I don't think we ever had a dog")
    second = item_of(service)
    decide(service, "ana", second.id, "keep", operator="rita", expected_rev=second.rev,
           reason="the user has Max")
    labels = {lb.fact_id: lb for lb in collect_labels(service, "ana")}
    assert set(labels) == {first.id, second.id}  # the retracted fact itself is no label
    right, wrong = labels[first.id], labels[second.id]
    assert (right.decision, right.outcome, right.outcome.right) == ("retract", Outcome.ACCEPTED,
                                                                    True)
    assert (wrong.decision, wrong.outcome, wrong.outcome.right) == ("keep", Outcome.REJECTED,
                                                                    False)
    assert right.reader == wrong.reader == "offline-reader@test"
    assert wrong.supersedes == dog.id and wrong.contradiction == "harsh"
    assert wrong.reason == "the user has Max"


def test_inv591_the_cli_lists_decides_and_counts_a_proposal(tmp_path, monkeypatch, capsys):
    url = f"embedded:{tmp_path / 'cli.db'}"
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_STORE", url)
    monkeypatch.delenv("MEMDESK_ES_URL", raising=False)
    store = open_store(url, get_embedder("hash"))
    target, res, _ = hedged_denial(MemoryService(store, clock=fixed_clock(NOW)))
    store.close()
    item_id = res.writes[0].memory_id

    def run(*args):
        capsys.readouterr()
        code = main(list(args))
        out = capsys.readouterr()
        return code, out.out, out.err

    code, out, _ = run("review", "list", "--user", "ana", "--kind", "retraction")
    assert code == 0 and item_id in out
    assert "retraction world 0.60]  the user may have said this was never true: Has a UPS" in out
    code, out, _ = run("review", "show", item_id, "--user", "ana")
    assert code == 0 and "the user may have said this was never true: Has a UPS" in out
    assert f"would retract: {target.id}" in out and "hedged denial" in out
    code, _, err = run("review", "decide", item_id, "edit", "--user", "ana", "--operator",
                       "rita", "--text", "x")
    assert code == 2 and "retract (approve) or keep (reject)" in err and "Traceback" not in err
    code, out, _ = run("review", "decide", item_id, "retract", "--user", "ana", "--operator",
                       "rita", "--rev", "1")
    assert code == 0 and "rejected" in out
    code, out, _ = run("review", "history", "--user", "ana")
    assert "retract" in out
    code, out, _ = run("eval", "labels", "--user", "ana", "--json")
    (row,) = json.loads(out)["by_reader"]
    assert code == 0 and (row["reader"], row["decided"], row["accepted"], row["precision"]) == \
        ("offline-reader@test", 1, 1, 1.0)


def test_inv591_exported_labels_expect_the_retraction_or_nothing(service):
    from datetime import date

    from memory.eval.label_export import export_labels

    hedged_denial(service)
    first = item_of(service)
    decide(service, "ana", first.id, "retract", operator="rita", expected_rev=first.rev)
    hedged_denial(service, text="Has a dog called Max", said="I don't think we ever had a dog")
    second = item_of(service)
    decide(service, "ana", second.id, "keep", operator="rita", expected_rev=second.rev)
    out = export_labels(service, ["ana"], since=date(2000, 1, 1), actor="cli")
    cases = {c.text: c for c in out.cases}
    ups, dog = cases[HEDGED], cases["I don't think we ever had a dog"]
    assert [g.text for g in ups.given] == ["Has a UPS"]
    assert [(e.op, e.value, e.old) for e in ups.expect] == [("retract", [], "g0")]
    assert [g.text for g in dog.given] == ["Has a dog called Max"] and dog.expect == []
