"""Writes: a validated batch in phases, refresh policy, optimistic concurrency, append-only
audit and atomic usage bumps (invariants 10, 15, 23, 24). Concurrency failures and undo:
tests/es/test_batches.py."""

from __future__ import annotations

import pytest

from memory.clock import fixed_clock
from memory.corrections import bumped as bump
from memory.errors import ConflictError
from memory.models import AuditEvent, Episode, FactState, MemoryKind
from memory.service import MemoryService
from memory.stores.base import AppendAudit, DeleteMemory, PutMemory, SetWatermark, UpdateMemory
from memory.stores.elasticsearch.results import to_source
from tests.conftest import NOW
from tests.es.conftest import bulk_answer, doc_answer


def found(index: str, src: dict, seq_no: int = 7, term: int = 2) -> dict:
    return {"_index": index + "-v1", "_id": src["id"], "_version": 3, "_seq_no": seq_no,
            "_primary_term": term, "found": True, "_source": src}


def stored(doc, embedder) -> dict:
    src = to_source(doc, embedder.embed([doc.search_text()])[0])
    src.pop("vector")  # the store asks for sources without vectors
    return src


def test_inv24_inv23_fact_insert_waits_for_refresh_and_its_audit_comes_after(cluster, es_store):
    svc = MemoryService(es_store, clock=fixed_clock(NOW))
    fact = svc.write_fact("u", "Likes green tea", fact_type="preference").fact
    assert not cluster.find("POST", "/_mget")  # inserts only: no read before the bulk
    inserts, audit = cluster.find("PUT", "/_bulk")
    assert inserts.params == {"refresh": "wait_for", "require_alias": "true"}
    ((a1, s1),) = inserts.bulk_pairs
    assert a1 == {"create": {"_index": "memdesk-semantic", "_id": fact.id}}
    assert s1["user_id"] == "u" and s1["kind"] == "semantic" and s1["state"] == "active"
    assert s1["search_text"] == "Likes green tea" and len(s1["vector"]) == es_store.embedder.dims
    # invariant 8 / 24 / 90: the audit index is append-only (op_type create with the event's
    # id), written last, and never waits for a refresh
    assert audit.params == {"refresh": "false", "require_alias": "true"}
    ((a2, s2),) = audit.bulk_pairs
    assert a2 == {"create": {"_index": "memdesk-audit", "_id": s2["id"]}}
    assert s2["action"] == "write_fact" and isinstance(s2["seq"], int)


def test_inv24_episodes_do_not_force_a_refresh_but_listing_reads_see_them(cluster, es_store):
    svc = MemoryService(es_store, clock=fixed_clock(NOW))
    svc.write_episode("u", "We moved to Edinburgh")
    episode, audit = cluster.find("PUT", "/_bulk")
    assert episode.params == audit.params == {"refresh": "false", "require_alias": "true"}
    assert [next(iter(a)) for a, _ in episode.bulk_pairs + audit.bulk_pairs] == ["create", "create"]
    svc.recall("u", "Edinburgh")  # recall never forces a refresh
    assert not cluster.find("POST", r"/.*/_refresh")
    svc.episodes("u")  # a listing read in the same process refreshes what it wrote, once
    assert [r.path for r in cluster.find("POST", r"/.*/_refresh")] == ["/memdesk-episodic/_refresh"]
    svc.episodes("u")
    assert len(cluster.find("POST", r"/.*/_refresh")) == 1


def test_inv23_update_carries_seq_no_and_primary_term(cluster, es_store):
    svc = MemoryService(es_store, clock=fixed_clock(NOW))
    old = svc.build_fact("u", "Lives in Bristol", fact_type="identity")
    cluster.on("GET", "/memdesk-semantic/_doc/" + old.id,
               (200, found("memdesk-semantic", stored(old, es_store.embedder))))
    cluster.on("POST", "/_mget", lambda req: (200, {"docs": [
        found(d["_index"], stored(old, es_store.embedder)) if d["_id"] == old.id
        else {"_index": d["_index"], "_id": d["_id"], "found": False} for d in req.body["docs"]]}))
    res = svc.write_fact("u", "Lives in Edinburgh", fact_type="identity", supersedes_id=old.id)
    conditional, inserts, audit = cluster.find("PUT", "/_bulk")
    ((action, replaced),) = conditional.bulk_pairs
    assert action == {"index": {"_index": "memdesk-semantic", "_id": old.id,
                                "if_seq_no": 7, "if_primary_term": 2}}
    assert replaced["state"] == "superseded" and replaced["superseded_by"] == res.fact.id
    assert replaced["rev"] == 2
    # Both write the semantic index: only the later bulk waits for its (one-shard) refresh.
    assert conditional.params == {"refresh": "false", "require_alias": "true"} and inserts.params == {"refresh": "wait_for", "require_alias": "true"}
    assert [a["create"]["_id"] for a, _ in inserts.bulk_pairs] == [res.fact.id]
    assert {s["action"] for _, s in audit.bulk_pairs} == {"write_fact", "supersede"}


def test_inv10_stale_revision_writes_nothing(cluster, es_store):
    svc = MemoryService(es_store, clock=fixed_clock(NOW))
    fact = svc.build_fact("u", "Drinks coffee")
    now_rev2 = bump(fact, text="Drinks tea")
    cluster.on("POST", "/_mget", lambda req: (200, {"docs": [
        found(d["_index"], stored(now_rev2, es_store.embedder)) if d["_id"] == fact.id
        else {"_index": d["_index"], "_id": d["_id"], "found": False} for d in req.body["docs"]]}))
    ep = Episode(user_id="u", text="this must not land")
    before = len(cluster.find("PUT", "/_bulk"))
    with pytest.raises(ConflictError, match="revision 2, expected 1"):
        es_store.apply([PutMemory(doc=ep),
                        AppendAudit(event=AuditEvent(actor="cli", user_id="u", action="write_episode", target_ids=[ep.id])),
                        UpdateMemory(doc=bump(fact, text="Drinks water"), expected_rev=fact.rev)])
    assert len(cluster.find("PUT", "/_bulk")) == before  # nothing was sent


def test_inv10_identical_reput_and_landed_update_converge(cluster, es_store):
    ep = Episode(user_id="u", text="hello", timestamp=NOW, recorded_at=NOW)
    fact = MemoryService(es_store, clock=fixed_clock(NOW)).build_fact("u", "Has a cat")
    landed = bump(fact, state=FactState.SUPERSEDED)
    cluster.on("POST", "/_mget", lambda req: (200, {"docs": [
        found(d["_index"], stored(ep if d["_id"] == ep.id else landed, es_store.embedder))
        for d in req.body["docs"]]}))
    es_store.apply([PutMemory(doc=ep), UpdateMemory(doc=landed, expected_rev=1)])
    assert not cluster.find("PUT", "/_bulk")  # both already there: nothing to send


def test_inv23_a_409_in_the_bulk_is_a_conflict_and_audit_409_is_a_retry(cluster, es_store):
    """A conditional write that meets a newer `_seq_no` answers 409
    version_conflict_engine_exception (optimistic-concurrency-control.html); an audit `create`
    that meets its own id answers 409 too (docs-index_.html, op_type=create), and when the stored
    event is this event, it is a retry, not an error."""
    fact = MemoryService(es_store, clock=fixed_clock(NOW)).build_fact("u", "Uses vim")
    newer = bump(fact, text="Uses emacs")
    reads = []

    def mget(req):
        reads.append(req)
        doc = stored(fact if len(reads) == 1 else newer, es_store.embedder)  # then: changed
        return 200, {"docs": [doc_answer(d["_index"], doc, d["_id"]) for d in req.body["docs"]]}
    cluster.on("POST", "/_mget", mget)
    event = AuditEvent(actor="cli", user_id="u", action="supersede", target_ids=[fact.id])
    cluster.on("PUT", "/_bulk", lambda req: bulk_answer(req, [409]))
    with pytest.raises(ConflictError, match=f"{fact.id} changed while this batch was written"):
        es_store.apply([UpdateMemory(doc=bump(fact, text="Uses neovim"), expected_rev=1),
                        AppendAudit(event=event)])
    assert len(cluster.find("PUT", "/_bulk")) == 1  # the audit event was never sent
    # An audit append alone that meets its own earlier copy is not an error.
    cluster.on("PUT", "/_bulk", lambda req: bulk_answer(req, [409]))
    event_src = {**event.model_dump(mode="json"), "seq": 1}
    cluster.on("POST", "/_mget", lambda req: (200, {"docs": [
        doc_answer(d["_index"], event_src, d["_id"]) for d in req.body["docs"]]}))
    es_store.apply([AppendAudit(event=event)])


def test_delete_and_watermark_are_conditional(cluster, es_store):
    fact = MemoryService(es_store, clock=fixed_clock(NOW)).build_fact("u", "Secret")
    wm = {"type": "watermark", "user_id": "u", "name": "consolidation", "value": "ep_1"}

    def mget(req):
        docs = []
        for d in req.body["docs"]:
            if d["_index"] == "memdesk-state":
                docs.append({"_index": "memdesk-state-v1", "_id": d["_id"], "_seq_no": 4,
                             "_primary_term": 1, "found": True, "_source": wm})
            else:
                docs.append(found(d["_index"], stored(fact, es_store.embedder), seq_no=9))
        return 200, {"docs": docs}
    cluster.on("POST", "/_mget", mget)
    es_store.apply([DeleteMemory(kind="semantic", user_id="u", id=fact.id, expected_rev=1),
                    SetWatermark(user_id="u", name="consolidation", value="ep_2", expected="ep_1")])
    *_, main, used = cluster.find("PUT", "/_bulk")
    (d, dsrc), (w, wsrc) = main.bulk_pairs
    assert d == {"delete": {"_index": "memdesk-semantic", "_id": fact.id, "if_seq_no": 9,
                            "if_primary_term": 2}} and dsrc is None
    # invariant 24: then its usage document, through the alias (docs-bulk.html require_alias)
    assert used.bulk_pairs == [({"delete": {"_index": "memdesk-usage",
                                            "_id": f"semantic:{fact.id}"}}, None)]
    assert used.params == {"refresh": "false", "require_alias": "true"}
    assert w["index"]["if_seq_no"] == 4 and wsrc["value"] == "ep_2"
    with pytest.raises(ConflictError, match="moved to ep_1"):
        es_store.apply([SetWatermark(user_id="u", name="consolidation", value="ep_3",
                                     expected="ep_0")])


def test_inv15_usage_bump_is_one_scripted_bulk_without_refresh(cluster, es_store):
    cluster.on("PUT", "/_bulk", lambda req: (200, {"took": 1, "errors": False, "items": [
        {"update": {"_index": a["update"]["_index"] + "-v1", "_id": a["update"]["_id"],
                    "status": 200}} for a, _ in req.bulk_pairs]}))
    es_store.bump_usage("u", [(MemoryKind.SEMANTIC, "fact_a"), (MemoryKind.PROCEDURAL, "pb_b"),
                              (MemoryKind.EPISODIC, "ep_c")], NOW)
    bulk = cluster.find("PUT", "/_bulk")[-1]
    assert bulk.params == {"refresh": "false", "require_alias": "true"}
    pairs = bulk.bulk_pairs
    # Invariant 24: each hit is a scripted upsert of its own small document in the usage
    # index, never an update of the memory (whose document holds the vector); episodes are
    # never bumped. docs-update.html: `upsert` is indexed when the document does not exist,
    # else the script runs; docs-bulk.html: an `update` action takes script and upsert.
    assert [a for a, _ in pairs] == [
        {"update": {"_index": "memdesk-usage", "_id": "semantic:fact_a", "retry_on_conflict": 3}},
        {"update": {"_index": "memdesk-usage", "_id": "procedural:pb_b",
                    "retry_on_conflict": 3}}]
    body = pairs[0][1]
    assert body["upsert"] == {"user_id": "u", "kind": "semantic", "memory_id": "fact_a",
                              "use_count": 1, "last_used_at": "2025-06-01T12:00:00Z"}
    script = body["script"]
    assert script["params"] == {"at": "2025-06-01T12:00:00Z", "user_id": "u"}
    assert script["lang"] == "painless" and "ctx._source.use_count = n + 1" in script["source"]
    assert "ctx.op = 'noop'" in script["source"]  # another user's document is left alone
    assert not [r for r in cluster.requests if "semantic" in r.path or "procedural" in r.path]


def test_inv23_an_insert_that_meets_its_own_copy_converges_and_a_stranger_conflicts(cluster, es_store):
    """`create` answers 409 when the id exists (docs-index_.html, op_type=create): the stored
    document is read back, and only an identical record counts as the same write."""
    ep = Episode(user_id="u", text="hello", timestamp=NOW, recorded_at=NOW)
    cluster.on("PUT", "/_bulk", lambda req: bulk_answer(req, [409]))
    cluster.on("POST", "/_mget", lambda req: (200, {"docs": [
        doc_answer(d["_index"], stored(ep, es_store.embedder), d["_id"]) for d in req.body["docs"]]}))
    es_store.apply([PutMemory(doc=ep)])  # the same record: a retried write, no error
    (read_back,) = cluster.find("POST", "/_mget")
    assert read_back.body == {"docs": [{"_index": "memdesk-episodic", "_id": ep.id}]}
    other = Episode(id=ep.id, user_id="u", text="something else", timestamp=NOW, recorded_at=NOW)
    with pytest.raises(ConflictError, match=f"episodic {ep.id} already exists"):
        es_store.apply([PutMemory(doc=other)])
