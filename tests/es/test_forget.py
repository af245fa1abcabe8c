"""Forget and erase on Elasticsearch (invariants 66 and 67), by request shape: the store's secret
lives in the state index, redaction overwrites tombstones and audit events in place (no vector,
sequence kept), erase deletes by query, and a compaction expunges deleted documents."""

from __future__ import annotations

from memory.clock import fixed_clock
from memory.models import AuditEvent, Fact, Tombstone
from memory.redaction import KEYED_PREFIX, Erasure, keyed_value
from memory.service import MemoryService
from tests.conftest import NOW
from tests.es.conftest import search_answer, source_hit

KEY = "ab" * 32


def with_key(cluster) -> None:
    cluster.on("GET", "/memdesk-state/_doc/secret_value_key", (200, {
        "_index": "memdesk-state-v1", "_id": "secret_value_key", "found": True,
        "_source": {"type": "secret", "name": "value_key", "encoded": KEY}}))


def test_inv66_value_key_is_created_once_in_the_state_index(cluster, es_store):
    created = []

    def create(req):
        created.append(req)
        with_key(cluster)  # from now on the document exists
        return 201, {"_index": "memdesk-state-v1", "_id": "secret_value_key", "result": "created"}

    cluster.on("PUT", "/memdesk-state/_create/secret_value_key", create)
    assert es_store.value_key() is None  # reading never creates
    assert es_store.value_key(create=True) == bytes.fromhex(KEY)
    assert es_store.value_key(create=True) == bytes.fromhex(KEY)  # cached
    (req,) = created
    assert req.params == {"refresh": "wait_for", "require_alias": "true"}
    assert req.body["type"] == "secret" and len(req.body["encoded"]) == 64


def test_inv66_redact_overwrites_tombstones_and_events_in_place(cluster, es_store):
    with_key(cluster)
    tomb = Tombstone(id="tomb_1", user_id="u", text="Lives in Bristol", normalized="lives in bristol",
                     kind="retracted", source_fact_id="fact_1", actor="cli", created_at=NOW)
    other = Tombstone(id="tomb_2", user_id="u", text="Likes jazz", normalized="likes jazz",
                      kind="retracted", source_fact_id="fact_2", actor="cli", created_at=NOW)
    fact = Fact(id="fact_1", user_id="u", text="Lives in Bristol", recorded_at=NOW)
    wrote = AuditEvent(id="aud_1", actor="cli", user_id="u", action="write_fact",
                       target_ids=["fact_1"], after=fact.model_dump(mode="json"), at=NOW)
    refused = AuditEvent(id="aud_2", actor="cli", user_id="u", action="write_refused",
                         target_ids=["tomb_1"], after={"text": "Lives in Bristól"},
                         reason="restates a retracted value: 'Lives in Bristol'", at=NOW)
    unrelated = AuditEvent(id="aud_3", actor="cli", user_id="u", action="write_episode",
                           target_ids=["ep_9"], after={"id": "ep_9", "text": "Jazz tonight"}, at=NOW)
    sources = {
        "/memdesk-tombstones/_search": [{**t.model_dump(mode="json"), "seq": n}
                                        for n, t in enumerate((tomb, other), 1)],
        "/memdesk-audit/_search": [{**e.model_dump(mode="json"), "seq": n}
                                   for n, e in enumerate((wrote, refused, unrelated), 1)]}
    for path, docs in sources.items():
        cluster.on("POST", path, lambda req, docs=docs: (200, search_answer(
            req, [source_hit("x", d, sort=[d["seq"], d["id"]]) for d in docs])))
    erasure = Erasure(user_id="u", ids=frozenset({"fact_1"}), texts=("Lives in Bristol",))
    assert es_store.redact("u", erasure) == {"events": 2, "tombstones": 1}
    scans = cluster.find("POST", r"/memdesk-(tombstones|audit)/_search")
    assert all(r.body["query"] == {"bool": {"filter": [{"term": {"user_id": "u"}}]}} for r in scans)
    t_bulk, a_bulk = cluster.find("PUT", "/_bulk")
    assert t_bulk.params == a_bulk.params == {"refresh": "wait_for", "require_alias": "true"}
    ((action, src),) = t_bulk.bulk_pairs
    assert action == {"index": {"_index": "memdesk-tombstones", "_id": "tomb_1"}}
    assert src["text"] == "" and src["forgotten"] and src["seq"] == 1 and "vector" not in src
    assert src["normalized"] == keyed_value(bytes.fromhex(KEY), "Lives in Bristol")
    assert src["normalized"].startswith(KEYED_PREFIX)
    (w_action, w_src), (r_action, r_src) = a_bulk.bulk_pairs
    assert w_action == {"index": {"_index": "memdesk-audit", "_id": "aud_1"}}
    assert w_src["after"]["forgotten"] and w_src["after"]["id"] == "fact_1" and w_src["seq"] == 1
    assert "text" not in w_src["after"] and w_src["action"] == "write_fact"
    assert r_src["after"]["forgotten"] and "Bristol" not in r_src["reason"]
    assert r_action["index"]["_id"] == "aud_2"


def test_inv67_erase_deletes_by_query_and_leaves_one_event(cluster, es_store):
    with_key(cluster)
    cluster.task_response = {"took": 1, "deleted": 5, "failures": []}  # each followed task
    svc = MemoryService(es_store, clock=fixed_clock(NOW))
    cluster.on("POST", "/memdesk-episodic,memdesk-semantic,memdesk-procedural/_search",
               lambda req: (200, {**search_answer(req, []), "aggregations": {"kinds": {
                   "buckets": [{"key": "episodic", "doc_count": 5,
                                "states": {"buckets": [{"key": "all", "doc_count": 5}]}}]}}}))
    from memory.forgetting import erase_user

    res = erase_user(svc, "u", actor="cli")
    assert res.memories == 5 and res.audit_events == 5
    deletes = cluster.find("POST", r"/.*/_delete_by_query")
    assert [r.path for r in deletes] == [
        "/memdesk-episodic,memdesk-semantic,memdesk-procedural/_delete_by_query",
        "/memdesk-usage/_delete_by_query",  # invariant 24: the user's use counts too
        "/memdesk-audit/_delete_by_query", "/memdesk-state/_delete_by_query"]
    assert deletes[1].body == {"query": {"term": {"user_id": "u"}}}
    # issue 31, invariant 481: each delete-by-query is a task, followed through the tasks API
    # (https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-delete-by-query.html,
    # wait_for_completion=false returns a task)
    assert all(r.params == {"refresh": "true", "conflicts": "proceed",
                            "wait_for_completion": "false"} for r in deletes)
    polls = cluster.find("GET", "/_tasks/.*")
    assert [p.params for p in polls][:3] == [{"wait_for_completion": "true", "timeout": "30s"}] * 3
    assert deletes[0].body == {"query": {"term": {"user_id": "u"}}}
    # issue 15: the user's credentials go with the watermarks
    assert deletes[3].body["query"]["bool"]["filter"][1] == {
        "terms": {"type": ["watermark", "credential", "batch"]}}
    ((action, event),) = cluster.find("PUT", "/_bulk")[-1].bulk_pairs
    assert action["create"]["_index"] == "memdesk-audit" and event["action"] == "erase_user"
    assert event["after"] == {"memories": 5, "tombstones": 0} and event["reason"] is None
    (merge,) = cluster.find("POST", r"/.*/_forcemerge")
    assert merge.params == {"only_expunge_deletes": "true", "wait_for_completion": "false"}
    assert merge.path.startswith("/memdesk-episodic,memdesk-semantic,memdesk-procedural,")


def test_inv66_migrate_carries_the_value_key(cluster, es_store, tmp_path, hash_embedder):
    from memory.migration import carry_value_key
    from memory.stores.embedded import EmbeddedStore

    src = EmbeddedStore(tmp_path / "s.db", hash_embedder)
    try:
        carry_value_key(src, es_store)  # no forgotten value yet: nothing to carry
        assert not cluster.find("PUT", r"/memdesk-state/_create/.*")
        key = src.value_key(create=True)

        def create(req):
            cluster.on("GET", "/memdesk-state/_doc/secret_value_key", (200, {
                "_index": "memdesk-state-v1", "_id": "secret_value_key", "found": True,
                "_source": req.body}))
            return 201, {"_index": "memdesk-state-v1", "_id": "secret_value_key"}

        cluster.on("PUT", "/memdesk-state/_create/secret_value_key", create)
        carry_value_key(src, es_store)
        (req,) = cluster.find("PUT", "/memdesk-state/_create/secret_value_key")
        assert req.body["encoded"] == key.hex() and es_store.value_key() == key
    finally:
        src.close()
