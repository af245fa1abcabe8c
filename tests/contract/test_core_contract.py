"""The shared contract: one test per core invariant, run on every available backend."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memory.corrections import bumped as bump
from memory.errors import (
    ChainError,
    ConflictError,
    NotFoundError,
    ScopeError,
    TombstoneError,
    ValidationError,
)
from memory.models import AuditEvent, Episode, FactState, MemoryKind
from memory.search_config import DEFAULT, HISTORY, Purpose
from memory.stores.base import AppendAudit, PutMemory, UpdateMemory
from tests.conftest import NOW


def ids(result) -> list[str]:
    return [h.id for h in result.hits]


# invariant 1 -------------------------------------------------------------------------------
@pytest.mark.parametrize("user", [None, "", "   "])
def test_inv1_missing_scope_is_an_error_for_reads_and_mutations(service, user):
    with pytest.raises(ScopeError):
        service.recall(user, "anything")
    with pytest.raises(ScopeError):
        service.facts(user)
    with pytest.raises(ScopeError):
        service.write_episode(user, "hello")
    with pytest.raises(ScopeError):
        service.write_fact(user, "Likes tea")
    with pytest.raises(ScopeError):
        service.audit(user)


# invariant 2 -------------------------------------------------------------------------------
def test_inv2_recall_never_returns_another_users_memory(service):
    service.write_fact("alice", "Has a golden retriever called Rex", fact_type="world")
    service.write_episode("alice", "Rex the golden retriever chewed the hub cable again")
    service.write_fact("bob", "Has a cat called Miso")
    alice = service.recall("alice", "golden retriever Rex cable", purpose=Purpose.EVAL)
    bob = service.recall("bob", "golden retriever Rex cable", purpose=Purpose.EVAL)
    assert alice.hits and all(h.doc.user_id == "alice" for h in alice.hits)
    assert all(h.doc.user_id == "bob" for h in bob.hits)
    assert service.recall("nobody", "golden retriever", purpose=Purpose.EVAL).hits == []


# invariant 3 -------------------------------------------------------------------------------
def test_inv3_other_users_id_is_not_found_and_audited_as_denied(service):
    victim = service.write_fact("alice", "Lives in Bristol").fact
    for attempt in (
        lambda: service.write_fact("mallory", "Lives nowhere", supersedes_id=victim.id),
        lambda: service.retract("mallory", victim.id),
        lambda: service.forget("mallory", victim.id),
    ):
        with pytest.raises(NotFoundError) as other:
            attempt()
        with pytest.raises(NotFoundError) as missing:
            service.retract("mallory", "fact_doesnotexist")
        assert type(other.value) is type(missing.value)
    assert service.get_fact("alice", victim.id).state == FactState.ACTIVE
    denied = service.audit("mallory", action="denied")
    assert len(denied) == 3 and all(e.outcome == "denied" for e in denied)
    assert all(victim.id in e.target_ids for e in denied)


# invariant 4 -------------------------------------------------------------------------------
def test_inv4_natural_supersession_keeps_history_out_of_default_recall(service):
    old = service.write_fact("u", "Lives in Bristol", fact_type="identity",
                             valid_from="2020-01-01").fact
    new = service.write_fact("u", "Lives in Edinburgh", fact_type="identity",
                             supersedes_id=old.id, valid_from="2025-03-01").fact
    stored = service.get_fact("u", old.id)
    assert stored.state == FactState.SUPERSEDED
    assert stored.superseded_by == new.id and stored.superseded_at == NOW
    assert stored.valid_to.date().isoformat() == "2025-03-01"
    default = service.recall("u", "where does the user live Bristol Edinburgh", purpose=Purpose.EVAL)
    assert new.id in ids(default) and old.id not in ids(default)
    history = service.recall("u", "where does the user live Bristol Edinburgh", config=HISTORY,
                             purpose=Purpose.EVAL)
    assert {old.id, new.id} <= set(ids(history))


# invariant 5 -------------------------------------------------------------------------------
def test_inv5_only_head_can_be_superseded_and_chains_walk_both_ways(service):
    a = service.write_fact("u", "Uses vim").fact
    b = service.write_fact("u", "Uses neovim", supersedes_id=a.id).fact
    c = service.write_fact("u", "Uses helix", supersedes_id=b.id).fact
    with pytest.raises(ChainError):
        service.write_fact("u", "Uses emacs", supersedes_id=a.id)
    for start in (a, b, c):
        assert [f.id for f in service.chain("u", start.id)] == [a.id, b.id, c.id]


# invariant 6 -------------------------------------------------------------------------------
def test_inv6_harsh_contradiction_retracts_tombstones_and_penalises(service):
    old = service.write_fact("u", "Is allergic to peanuts", fact_type="constraint").fact
    res = service.write_fact("u", "Has no food allergies", fact_type="constraint",
                             supersedes_id=old.id, contradiction="harsh", confidence=0.9)
    assert res.replaced.state == FactState.RETRACTED
    assert res.tombstone is not None and res.tombstone.source_fact_id == old.id
    assert res.fact.confidence == pytest.approx(0.7)
    hits = service.recall("u", "peanuts allergy", config=HISTORY, purpose=Purpose.EVAL)
    assert old.id not in ids(hits)


def test_inv6_candidates_never_reach_agent_recall(service):
    cand = service.write_fact("u", "Prefers window seats", state="candidate").fact
    assert cand.id not in ids(service.recall("u", "window seats", config=HISTORY))


# invariant 7 -------------------------------------------------------------------------------
def test_inv7_tombstoned_value_is_refused_and_audited(service):
    fact = service.write_fact("u", "Lived in Bristol").fact
    service.retract("u", fact.id, reason="never lived there")
    for text in ("lived in bristol", "  Lived in   BRISTOL! "):
        with pytest.raises(TombstoneError) as err:
            service.write_fact("u", text)
        assert "retracted" in str(err.value)
    assert len(service.audit("u", action="write_refused")) == 2
    assert [f.text for f in service.facts("u", states=["active"])] == []
    # another user's tombstone does not bind this one
    service.write_fact("v", "Lived in Bristol")


# invariant 8 -------------------------------------------------------------------------------
def test_inv8_every_mutation_is_audited_and_forget_keeps_only_a_hash(service):
    ep = service.write_episode("u", "My secret is the blue door")
    fact = service.write_fact("u", "Secret: blue door", source_episode_ids=[ep.id]).fact
    service.forget("u", fact.id, reason="asked to forget")
    actions = [e.action for e in service.audit("u")]
    assert actions == ["forget", "write_fact", "write_episode"]
    forget = service.audit("u", action="forget")[0]
    assert forget.target_ids == [fact.id] and "text_sha256" in forget.before
    assert "blue door" not in forget.model_dump_json()
    with pytest.raises(NotFoundError):
        service.get_fact("u", fact.id)
    # the audit log is not evidence: no audit event ever appears among episodes
    assert [e.id for e in service.episodes("u")] == [ep.id]


# invariant 9 -------------------------------------------------------------------------------
def test_inv9_episodes_cannot_be_assistant_text():
    from pydantic import ValidationError as PydanticValidationError

    with pytest.raises(PydanticValidationError, match="role"):
        Episode(user_id="u", text="As an assistant I suggest...", role="assistant")


# invariant 10 ------------------------------------------------------------------------------
def test_inv10_batches_are_atomic_and_revision_checked(service):
    fact = service.write_fact("u", "Drinks coffee").fact
    stale = bump(fact, text="Drinks tea")
    service.store.apply([UpdateMemory(doc=stale, expected_rev=fact.rev)])
    before = len(service.audit("u"))
    ep = Episode(user_id="u", text="this must not land")
    with pytest.raises(ConflictError):
        service.store.apply([
            PutMemory(doc=ep),
            AppendAudit(event=AuditEvent(actor="cli", user_id="u", action="write_episode", target_ids=[ep.id])),
            UpdateMemory(doc=bump(fact, text="Drinks water"), expected_rev=fact.rev),  # stale
        ])
    assert service.episodes("u") == [] and len(service.audit("u")) == before
    assert service.get_fact("u", fact.id).text == "Drinks tea"
    service.store.apply([PutMemory(doc=ep)])
    service.store.apply([PutMemory(doc=ep)])  # identical re-put converges
    assert len(service.episodes("u")) == 1


# invariant 11 ------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [
    {"text": "x" * (32 * 1024 + 1)},
    {"text": "bell\x07"},
    {"text": "ok", "valid_from": "2025-02-30"},
    {"text": "ok", "valid_from": "2025-03-01", "valid_to": "2025-01-01"},
    {"text": "ok", "fact_type": "mood"},
    {"text": "ok", "source_episode_ids": ["ep_missing"]},
    {"text": "ok", "confidence": 1.5},
])
def test_inv11_bad_input_is_refused_and_nothing_written(service, kwargs):
    with pytest.raises(ValidationError):
        service.write_fact("u", **kwargs)
    assert service.facts("u") == [] and service.audit("u") == []


def test_inv11_unknown_user_reads_are_empty(service):
    assert service.facts("ghost") == [] and service.episodes("ghost") == []
    assert service.recall("ghost", "anything at all").hits == []


# invariant 12 ------------------------------------------------------------------------------
def test_inv12_fact_type_synonyms_are_coerced(service):
    assert service.write_fact("u", "Allergic to shellfish", fact_type="allergy").fact.fact_type == "constraint"
    assert service.facts("u")[0].fact_type.value == "constraint"


# invariants 13 and 14 ----------------------------------------------------------------------
def test_inv13_inv14_two_clocks(store):
    from memory.clock import fixed_clock
    from memory.service import MemoryService

    t1, t2 = NOW - timedelta(days=100), NOW - timedelta(days=10)
    early = MemoryService(store, clock=fixed_clock(t1))
    late = MemoryService(store, clock=fixed_clock(t2))
    bristol = early.write_fact("u", "Lives in Bristol", valid_from="2019-05-01").fact
    edin = late.write_fact("u", "Lives in Edinburgh", supersedes_id=bristol.id,
                           valid_from="2024-09-01").fact
    wrong = late.write_fact("u", "Owns a boat").fact
    late.retract("u", wrong.id)
    svc = late
    assert [f.id for f in svc.facts("u", as_of_valid="2022-01-01")] == [bristol.id]
    assert [f.id for f in svc.facts("u", as_of_valid="2024-10-01")] == [edin.id]
    # record time: before the supersession was recorded the store believed Bristol
    mid = (t1 + timedelta(days=5)).isoformat()
    assert [f.id for f in svc.facts("u", as_of_recorded=mid)] == [bristol.id]
    assert [f.id for f in svc.facts("u", as_of_recorded=NOW.isoformat())] == [edin.id]
    assert wrong.id not in [f.id for f in svc.facts("u", as_of_valid=NOW.isoformat())]


# invariant 15 ------------------------------------------------------------------------------
def test_inv15_only_agent_recall_bumps_usage(service):
    fact = service.write_fact("u", "Prefers aisle seats on long flights").fact
    service.recall("u", "aisle seats flights", purpose=Purpose.EVAL)
    service.recall("u", "aisle seats flights", purpose=Purpose.EXPLAIN, explain=True)
    assert service.get_fact("u", fact.id).use_count == 0
    service.recall("u", "aisle seats flights")
    service.recall("u", "aisle seats flights")
    got = service.get_fact("u", fact.id)
    assert got.use_count == 2 and got.last_used_at == NOW


def test_explain_reports_legs_multipliers_and_filters(service):
    service.write_fact("u", "Owns a Lumio Hub v2")
    old = service.write_fact("u", "Owns a Lumio Hub v1").fact
    service.write_fact("u", "Owns a Lumio Hub v3", supersedes_id=old.id)
    service.write_fact("u", "Maybe owns a Zigbee stick", state="candidate")
    res = service.recall("u", "Lumio hub", explain=True, purpose=Purpose.EXPLAIN)
    top = res.hits[0]
    assert set(top.legs) == {"bm25", "dense"} and top.rank == 1
    assert top.multipliers.total == pytest.approx(1.0)
    removed = {f.name: f.removed for f in res.explain.filters}
    assert removed["state:superseded"] == 1 and removed["state:candidate"] == 1
    assert res.explain.candidates["bm25"] >= 2


def test_playbook_outcomes_and_catalog(service):
    from memory.models import CatalogDoc

    pb = service.write_playbook("u", "Reset the hub", "hub offline", ["unplug", "wait 10 s", "replug"])
    pb = service.record_outcome("u", pb.id, success=True)
    pb = service.record_outcome("u", pb.id, success=False)
    assert (pb.success_count, pb.failure_count, pb.rev) == (1, 1, 3)
    service.add_catalog([CatalogDoc(title="Lumio Hub reset guide", text="Hold the button 10 s")])
    with_cat = service.recall("u", "reset the Lumio hub", config=DEFAULT.model_copy(
        update={"include_catalog": True}), purpose=Purpose.EVAL)
    kinds = {h.doc.kind for h in with_cat.hits}
    assert MemoryKind.CATALOG in kinds and MemoryKind.PROCEDURAL in kinds
    catalog_hit = next(h for h in with_cat.hits if h.doc.kind == MemoryKind.CATALOG)
    assert catalog_hit.multipliers.prior == pytest.approx(DEFAULT.ranking.catalog_prior)
    # Issue 17: catalog is eligible by default; a config can still leave it out.
    without = service.recall("u", "reset the Lumio hub", purpose=Purpose.EVAL,
                             config=DEFAULT.model_copy(update={"include_catalog": False}))
    assert MemoryKind.CATALOG not in {h.doc.kind for h in without.hits}


# invariant 591 (issue 28): a proposed retraction, as every backend stores and lists it ----
def test_inv591_trait_8_is_counted_and_paged_as_the_pure_function_does(service):
    from memory import retractions
    from memory.models import PREVIOUSLY_REJECTED, PROPOSED_RETRACTION
    from memory.stores.base import FactQuery, page_summaries

    target = service.write_fact("u", "Has a UPS").fact
    with service.batch("agent", "u") as b:
        b.add(retractions.proposal(target, now=NOW, confidence=0.5, origin="agent"),
              on_dead="allow", action="propose_retraction")
    service.write_fact("u", "Maybe owns a kettle", state="candidate", confidence=0.4)
    service.write_fact("u", "Owns a red bicycle", state="candidate")
    everything = service.store.fact_summaries(FactQuery(
        user_ids=["u"], states=frozenset({FactState.CANDIDATE}))).rows
    for traits in (None, frozenset({8, 9, 10, 11, 12, 13, 14, 15}), frozenset({0, 1})):
        query = FactQuery(user_ids=["u"], states=frozenset({FactState.CANDIDATE}),
                          trait_lead=PROPOSED_RETRACTION, trait_flag=PREVIOUSLY_REJECTED,
                          trait_below=0.7, traits=traits)
        got, want = service.store.fact_summaries(query), page_summaries(everything, query)
        assert ([r.id for r in got.rows], got.total, got.trait_counts) == \
            ([r.id for r in want.rows], want.total, want.trait_counts)
    # the proposal proposes a supersession and sits below the threshold: code 8 + 2 + 1
    assert service.store.fact_summaries(FactQuery(
        user_ids=["u"], states=frozenset({FactState.CANDIDATE}), trait_lead=PROPOSED_RETRACTION,
        trait_flag=PREVIOUSLY_REJECTED, trait_below=0.7)).trait_counts == {"u": {11: 1, 1: 1,
                                                                                0: 1}}


def test_inv591_a_closed_proposal_never_hides_the_users_words(service):
    from memory import retractions
    from memory.models import TombstoneKind

    ep = service.write_episode("u", "I never had a UPS, honestly")
    target = service.write_fact("u", "Has a UPS").fact
    wrong = service.write_fact("u", "Owns a jet ski", source_episode_ids=[ep.id],
                               state="candidate").fact
    with service.batch("agent", "u") as b:
        item = b.add(retractions.proposal(target, now=NOW, confidence=0.5, origin="agent",
                                          source_episode_ids=[ep.id]),
                     on_dead="allow", action="propose_retraction")
    with service.batch("operator:rita", "u") as b:
        b.change(item, action="review_retract", state=FactState.REJECTED)
        b.retract(target, targets=[item.id])
    assert service.store.contradicted_sources("u", [ep.id]) == set()
    with service.batch("operator:rita", "u", reason="never said") as b:
        b.retract(wrong, kind=TombstoneKind.REJECTED, action="review_reject")
    assert service.store.contradicted_sources("u", [ep.id]) == {ep.id}  # a false value does
