"""A proposed retraction on the Elasticsearch store (invariants 590-591): the exact request
bodies it is written, listed and decided with, on doccluster.DocCluster (documents kept with
Elasticsearch's documented semantics, see tests/es/test_intents.py)."""

from __future__ import annotations

import pytest

from memory.clock import fixed_clock
from memory.models import PROPOSED_RETRACTION, FactState
from memory.service import MemoryService
from memory.stores.elasticsearch import ElasticsearchStore
from review import ItemKind, QueueFilter, decide, list_queue
from review.propose import propose_retraction
from tests.conftest import NOW
from tests.es.conftest import URL, make_client
from tests.es.doccluster import DocCluster

CANDIDATES = {"bool": {"filter": [{"term": {"user_id": "ana"}},
                                  {"terms": {"state": ["candidate"]}}]}}


@pytest.fixture
def world(hash_embedder):
    cluster = DocCluster()
    store = ElasticsearchStore(URL, hash_embedder, client=make_client(cluster))
    svc = MemoryService(store, clock=fixed_clock(NOW))
    target = svc.write_fact("ana", "Has a UPS", actor="seed").fact
    ep = svc.write_episode("ana", "hmm I don't think I ever said I had a UPS")
    cluster.requests.clear()
    proposal, new = propose_retraction(svc, "ana", target.id, confidence=0.5,
                                       source_episode_ids=[ep.id], reason="hedged denial")
    assert new
    yield cluster, svc, target, ep, proposal
    store.close()


def bulk_sources(cluster, index: str) -> list[tuple[str, dict]]:
    """(action, source) of every bulk line sent to `index` since the requests were cleared."""
    return [(next(iter(a)), s or {}) for r in cluster.find("PUT", "/_bulk")
            for a, s in r.bulk_pairs if next(iter(a.values()))["_index"] == index]


def test_inv590_a_proposal_is_one_created_candidate_after_one_pending_lookup(world):
    cluster, _, target, ep, proposal = world
    (lookup,) = [r for r in cluster.find("POST", "/memdesk-semantic/_search")]
    assert lookup.body == {"query": CANDIDATES, "size": 1000, "track_total_hits": False,
                           "sort": [{"recorded_at": "asc"}, {"id": "asc"}]}
    ((action, src),) = bulk_sources(cluster, "memdesk-semantic")
    assert action == "create"
    assert {k: src[k] for k in ("id", "state", "text", "supersedes", "contradiction", "flags",
                                "source_episode_ids", "confidence")} == {
        "id": proposal.id, "state": "candidate", "text": "Has a UPS", "supersedes": target.id,
        "contradiction": "harsh", "flags": [PROPOSED_RETRACTION, "target_state:active"],
        "source_episode_ids": [ep.id], "confidence": 0.5}
    ((_, event),) = bulk_sources(cluster, "memdesk-audit")
    assert (event["action"], event["target_ids"], event["reason"]) == \
        ("propose_retraction", [proposal.id], "hedged denial")


def test_inv590_a_second_proposal_for_the_fact_writes_nothing(world):
    cluster, svc, target, _, proposal = world
    cluster.requests.clear()
    again, new = propose_retraction(svc, "ana", target.id, confidence=0.4)
    assert (again.id, new) == (proposal.id, False)
    assert not cluster.find("PUT", "/_bulk")


def test_inv591_the_listing_reads_the_flag_and_counts_the_kind(world):
    cluster, svc, _, _, proposal = world
    cluster.requests.clear()
    listing = list_queue(svc, QueueFilter(users=["ana"]))
    assert [(i.id, i.kind) for i in listing.items] == [(proposal.id, ItemKind.RETRACTION)]
    assert listing.counts["ana"]["retraction"] == 1
    (req,) = cluster.find("POST", "/memdesk-semantic/_search")
    assert req.body["query"] == {"bool": {"filter": [{"terms": {"user_id": ["ana"]}},
                                                     {"terms": {"state": ["candidate"]}}]}}
    assert "flags" in req.params["_source_includes"].split(",")
    assert "supersedes" in req.params["_source_includes"].split(",")


def test_inv591_retract_updates_both_checked_and_tombstones_the_fact(world):
    cluster, svc, target, ep, proposal = world
    cluster.requests.clear()
    out = decide(svc, "ana", proposal.id, "retract", operator="rita", expected_rev=1)
    updates = bulk_sources(cluster, "memdesk-semantic")
    assert [(a, s["id"], s["state"], s["rev"]) for a, s in updates] == [
        ("index", proposal.id, "rejected", 2), ("index", target.id, "retracted", 2)]
    lines = [a for r in cluster.find("PUT", "/_bulk") for a, _ in r.bulk_pairs
             if next(iter(a.values()))["_index"] == "memdesk-semantic"]
    assert all("if_seq_no" in a["index"] and "if_primary_term" in a["index"] for a in lines)
    ((action, tomb),) = bulk_sources(cluster, "memdesk-tombstones")
    assert action == "create" and (tomb["source_fact_id"], tomb["kind"], tomb["actor"]) == \
        (target.id, "retracted", "operator:rita")
    events = [s for _, s in bulk_sources(cluster, "memdesk-audit")]
    assert [(e["action"], e["target_ids"]) for e in events] == [
        ("review_retract", [proposal.id, target.id]), ("retract", [target.id, proposal.id])]
    assert out.tombstone.id == tomb["id"]
    assert svc.get_fact("ana", target.id).state == FactState.RETRACTED
    # the dead proposal cites the user's denial: the store does not hide that episode
    cluster.requests.clear()
    assert svc.store.contradicted_sources("ana", [ep.id]) == set()
    (req,) = cluster.find("POST", "/memdesk-semantic/_search")
    assert req.body["query"]["bool"]["filter"][1] == {"terms": {"state": ["rejected",
                                                                          "retracted"]}}


def test_inv591_keep_updates_the_proposal_only(world):
    cluster, svc, target, _, proposal = world
    cluster.requests.clear()
    decide(svc, "ana", proposal.id, "keep", operator="rita", expected_rev=1)
    assert [(a, s["id"], s["state"]) for a, s in bulk_sources(cluster, "memdesk-semantic")] == \
        [("index", proposal.id, "rejected")]
    assert bulk_sources(cluster, "memdesk-tombstones") == []
    assert [s["action"] for _, s in bulk_sources(cluster, "memdesk-audit")] == ["review_keep"]
    assert svc.get_fact("ana", target.id).state == FactState.ACTIVE
