"""Issue 11 on every write path, on every available store: a harsh correction never restates
the value it retracts (invariant 62); a doubtful restatement waits in review as a candidate
flagged `possibly_restates:<tombstone>` (invariant 61); tombstones are found by index
(invariant 63)."""

from __future__ import annotations

import sqlite3

import pytest

from memory.consolidation.apply import apply_plan
from memory.consolidation.extract import ExtractedFact, Extraction, Usage
from memory.consolidation.planner import decide as plan_decide
from memory.consolidation.planner import gather, lookups
from memory.errors import TombstoneError
from memory.models import FactState
from memory.policy import ReviewPolicy
from memory.service import MemoryService
from memory.stores import open_store
from memory.stores.embedded import EmbeddedStore
from memory.values import KEY_VERSION, probe
from review import Decision, decide, list_queue, propose
from review.models import ItemKind, QueueFilter
from tests.conftest import NOW


def _active(svc, user):
    return [f.text for f in svc.facts(user, states=[FactState.ACTIVE])]


# --- invariant 62: harsh corrections --------------------------------------------------------
def test_inv62_write_fact_harsh_restatement_is_refused(service):
    old = service.write_fact("ana", "Lives in Bristol", actor="cli").fact
    with pytest.raises(TombstoneError, match="restates"):
        service.write_fact("ana", "lives in Bristól", supersedes_id=old.id,
                           contradiction="harsh", actor="cli")
    assert _active(service, "ana") == ["Lives in Bristol"]  # nothing retracted, nothing added
    assert service.store.list_tombstones("ana") == []
    assert service.audit("ana", action="write_refused", limit=1)
    # a real correction goes through, and its value is not the dead one
    res = service.write_fact("ana", "Lives in Leeds", supersedes_id=old.id,
                             contradiction="harsh", actor="cli")
    assert res.tombstone is not None and _active(service, "ana") == ["Lives in Leeds"]


def test_inv62_write_fact_doubtful_harsh_restatement_is_held(service):
    old = service.write_fact("ana", "Lives in Bristol", actor="cli").fact
    res = service.write_fact("ana", "Lives in Clifton, Bristol", supersedes_id=old.id,
                             contradiction="harsh", actor="cli")
    assert res.held is not None and res.tombstone is None and res.replaced is None
    assert res.fact.state == FactState.CANDIDATE and res.fact.supersedes == old.id
    assert f"possibly_restates:{old.id}" in res.fact.flags
    assert _active(service, "ana") == ["Lives in Bristol"]


def test_inv62_review_accept_of_harsh_restatement_is_refused(service):
    old = service.write_fact("ana", "Works at Acme Corp", actor="cli").fact
    cand = propose(service, "ana", "Works at ACME Corporation", supersedes_id=old.id,
                   contradiction="harsh")
    assert "previously_rejected" in cand.flags  # flagged against the value it would retract
    with pytest.raises(TombstoneError):
        decide(service, "ana", cand.id, Decision.ACCEPT, operator="rita", expected_rev=cand.rev)
    assert _active(service, "ana") == ["Works at Acme Corp"]
    assert service.store.list_tombstones("ana") == []


def test_inv62_consolidation_never_plans_a_harsh_restatement(service):
    old = service.write_fact("ana", "Is allergic to peanuts", fact_type="constraint",
                             actor="cli").fact
    ep = service.write_episode("ana", "No no, I have a peanut allergy, that's what I said")
    inputs = gather(service, "ana", now=NOW)
    extraction = Extraction(facts=[ExtractedFact(
        text="Has a peanut allergy", fact_type="constraint", confidence=0.9, evidence=[ep.id],
        supersedes_id=old.id, contradiction="harsh", reason="the user corrected it")])
    inputs = inputs.model_copy(update={"shown_facts": [old]})
    plan = plan_decide(lookups(service, inputs, extraction), extraction, Usage(mode="offline"),
                       ReviewPolicy())
    gate = [g for g in plan.gates if g.gate == "tombstone" and g.decision == "drop"]
    assert gate and "the value it retracts" in gate[0].reason
    apply_plan(service, plan)
    assert _active(service, "ana") == ["Is allergic to peanuts"]
    assert service.facts("ana", states=[FactState.CANDIDATE]) == []


# --- invariant 61: the review band on the write paths ----------------------------------------
def test_inv61_doubtful_restatement_waits_in_review_and_a_person_decides(service):
    dead = service.write_fact("ana", "Lives in Bristol", actor="cli").fact
    tomb = service.retract("ana", dead.id, actor="cli", reason="never lived there")
    res = service.write_fact("ana", "Lives in Bishopston, Bristol", actor="agent")
    assert res.held is not None and res.fact.state == FactState.CANDIDATE
    assert f"possibly_restates:{tomb.id}" in res.fact.flags
    assert _active(service, "ana") == []
    listing = list_queue(service, QueueFilter(users=["ana"]), threshold=0.5)
    assert [(i.id, i.kind) for i in listing.items] == [(res.fact.id, ItemKind.PREVIOUSLY_REJECTED)]
    # the doubtful band is the reviewer's call: approving it is allowed...
    decide(service, "ana", res.fact.id, Decision.APPROVE, operator="rita",
           expected_rev=res.fact.rev)
    assert _active(service, "ana") == ["Lives in Bishopston, Bristol"]
    # ...a confident restatement never is
    cand = propose(service, "ana", "Resides in Bristol")
    assert cand.flags == ["previously_rejected"]
    with pytest.raises(TombstoneError):
        decide(service, "ana", cand.id, Decision.APPROVE, operator="rita", expected_rev=cand.rev)


def test_inv61_non_latin_facts_survive_one_cyrillic_retraction(service):
    dead = service.write_fact("ana", "Живёт в Москве", actor="cli").fact
    service.retract("ana", dead.id, actor="cli")
    for text in ["Работает в Москве", "住在东京", "Ζει στην Αθήνα", "يعيش في القاهرة"]:
        assert service.write_fact("ana", text, actor="agent").held is None, text
    with pytest.raises(TombstoneError):
        service.write_fact("ana", "живет в москве", actor="agent")


# --- invariant 63: found by index --------------------------------------------------------------
def test_inv63_candidates_come_from_the_index_not_a_scan(service):
    for i in range(300):
        f = service.write_fact("ana", f"Owns a widget model {i}", actor="cli").fact
        service.retract("ana", f.id, actor="cli")
    dead = service.write_fact("ana", "Lives in Bristol", actor="cli").fact
    service.retract("ana", dead.id, actor="cli")
    vec = service.embedder.embed(["Based in Bristol"])[0]
    found = service.store.tombstone_candidates("ana", probe("Based in Bristol"), vec, 5)
    assert "Lives in Bristol" in [t.text for t, _ in found]
    assert len(found) <= 6  # the key hit and the 5 nearest, not 301 tombstones
    with pytest.raises(TombstoneError):
        service.write_fact("ana", "Based in Bristol", actor="agent")


def test_inv63_embedded_store_migrates_an_old_file(tmp_path, hash_embedder):
    path = tmp_path / "old.db"
    store = open_store(f"embedded:{path}", hash_embedder)
    svc = MemoryService(store)
    dead = svc.write_fact("ana", "Works at Acme Corp", actor="cli").fact
    svc.retract("ana", dead.id, actor="cli")
    store.close()
    db = sqlite3.connect(path)  # make it a file from before issue 11
    db.execute("DROP TABLE tombstone_terms")
    db.execute("DROP INDEX tombstones_key")
    db.execute("ALTER TABLE tombstones DROP COLUMN mkey")
    db.execute("ALTER TABLE tombstones DROP COLUMN mclaim")
    db.execute("DELETE FROM meta WHERE key = 'tombstone_keys'")
    db.commit()
    db.close()
    store = EmbeddedStore(path, hash_embedder)
    try:
        assert store._db.execute("SELECT value FROM meta WHERE key = 'tombstone_keys'"
                                 ).fetchone()[0] == KEY_VERSION
        assert store._db.execute("SELECT mkey FROM tombstones").fetchone()[0] == "employer=acm"
        with pytest.raises(TombstoneError):
            MemoryService(store).write_fact("ana", "Employed by ACME Inc.", actor="agent")
    finally:
        store.close()


def test_inv63_a_user_without_tombstones_costs_no_embedding(store):
    if not store.url.startswith("embedded:"):
        pytest.skip("the Elasticsearch store runs its knn leg on every check")
    calls = []

    class Counting:
        name, dims = store.embedder.name, store.embedder.dims

        def embed(self, texts):
            calls.append(list(texts))
            return store.embedder.embed(texts)

    from memory.tombstones import check

    v = check(store, Counting(), "nobody", "Lives in Bristol", threshold=0.85)
    assert v.decision == "accept" and calls == []
