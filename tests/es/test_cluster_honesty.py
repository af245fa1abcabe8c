"""Issue 31, findings 2, 4-6 and 8, at the request level: tombstones matched on 9.2+, usage
bumps under a write block, key invalidation with `owner: true`, the licence read without the
`monitor` privilege, and `require_alias` on every write (invariants 22, 24, 25, 95, 98)."""

from __future__ import annotations

import logging

import numpy as np

from memory.models import MemoryKind, Tombstone
from memory.stores.base import PutTombstone
from memory.stores.elasticsearch import ElasticsearchStore
from tests.conftest import NOW
from tests.es.conftest import URL, Cluster, bulk_answer, hits_response, make_client


def opened(hash_embedder, version: str = "8.15.3", licence: str = "trial") -> tuple:
    cluster = Cluster(version=version, licence=licence)
    store = ElasticsearchStore(URL, hash_embedder, client=make_client(cluster))
    cluster.requests.clear()
    return cluster, store


def test_inv98_tombstones_on_9_2_are_scored_by_the_cluster_not_from_source(hash_embedder, caplog):
    """9.2 leaves dense vectors out of `_source` by default
    (https://www.elastic.co/docs/reference/elasticsearch/mapping-reference/dense-vector,
    `index.mapping.exclude_source_vectors`), so the 8.x path (knn, cosine from the returned
    vector) would skip every candidate. On 9.2 the store asks a script_score with
    cosineSimilarity over the user's tombstones
    (https://www.elastic.co/docs/reference/query-languages/query-dsl/query-dsl-script-score-query)
    and reads cosine = `_score` - 1. The choice is made at open and logged."""
    with caplog.at_level(logging.INFO, logger="memory.stores.elasticsearch.store"):
        cluster, store = opened(hash_embedder, version="9.2.1")
    assert store.tombstone_matching == "script_score"
    assert any("tombstones matched by script_score" in r.getMessage() for r in caplog.records)
    tomb = Tombstone(id="tomb_1", user_id="u", text="Lives in Bristol",
                     normalized="lives in bristol", kind="retracted", source_fact_id="fact_1",
                     actor="cli", created_at=NOW)
    cluster.on("POST", "/memdesk-tombstones/_search", (200, hits_response([
        {"_index": "memdesk-tombstones-v2", "_id": tomb.id, "_score": 1.93,
         "_source": tomb.model_dump(mode="json")}])))  # no vector: as 9.2 answers
    vec = hash_embedder.embed(["Lives in Bristol"])[0]
    ((got, cos),) = store.nearest_tombstones("u", vec, k=3)
    assert got.id == tomb.id and abs(cos - 0.93) < 1e-9
    (req,) = cluster.find("POST", "/memdesk-tombstones/_search")
    assert req.body["query"]["script_score"]["script"]["source"] == \
        "cosineSimilarity(params.query_vector, 'vector') + 1.0"
    assert req.body["query"]["script_score"]["query"] == {"bool": {"filter": [
        {"term": {"user_id": "u"}}, {"exists": {"field": "vector"}}]}}
    assert np.allclose(req.body["query"]["script_score"]["script"]["params"]["query_vector"], vec)
    assert "knn" not in req.body and req.params.get("_source_excludes") == "vector"
    store.close()


def test_inv98_tombstones_on_8_x_keep_the_knn_shape(hash_embedder):
    """8.x returns vectors in `_source`: the knn candidates are re-scored here (invariant 98)."""
    cluster, store = opened(hash_embedder, version="8.15.3")
    assert store.tombstone_matching == "knn_source"
    store.nearest_tombstones("u", hash_embedder.embed(["Lives in Bristol"])[0], k=3)
    (req,) = cluster.find("POST", "/memdesk-tombstones/_search")
    assert set(req.body) == {"knn", "size"} and req.body["knn"]["filter"] == {
        "term": {"user_id": "u"}}
    store.close()


def test_inv24_a_usage_bump_on_a_write_blocked_index_is_skipped_and_logged(hash_embedder, caplog):
    """A reindex write-blocks the old index; each bump item answers 403 cluster_block_exception
    (https://www.elastic.co/guide/en/elasticsearch/reference/8.15/index-modules-blocks.html).
    Recall must go on: the bump is skipped and logged, never raised."""
    cluster, store = opened(hash_embedder)
    cluster.on("PUT", "/_bulk", lambda req: bulk_answer(req, [403], errors={0: {
        "type": "cluster_block_exception",
        "reason": "index [memdesk-semantic-v2] blocked by: [FORBIDDEN/8/index write (api)];"}}))
    with caplog.at_level(logging.WARNING):
        store.bump_usage("u", [(MemoryKind.SEMANTIC, "fact_1")], NOW)
    assert any("not counted" in r.getMessage() and "write-blocked" in r.getMessage()
               for r in caplog.records)
    (bulk,) = cluster.find("PUT", "/_bulk")
    assert bulk.params == {"refresh": "false", "require_alias": "true"}
    store.close()


def test_inv95_a_failed_invalidation_is_logged_kept_and_shown_by_status(hash_embedder, caplog):
    """Keys are invalidated with `owner: true` — with manage_own_api_key the call must say so
    (https://www.elastic.co/docs/api/elasticsearch/operation/operation-security-invalidate-api-key).
    A refusal is logged, kept in the state index (no secret: the key id and the error) and
    listed by `memdesk es status`."""
    cluster, store = opened(hash_embedder, licence="platinum")
    err = {"type": "security_exception", "reason": "action [cluster:admin/xpack/security/api_key/"
           "invalidate] is unauthorized"}
    cluster.on("DELETE", "/_security/api_key", (403, {"error": {"root_cause": [err], **err},
                                                    "status": 403}))
    with caplog.at_level(logging.WARNING):
        store._user_keys._quietly_invalidate(["key-9"])
    (sent,) = cluster.find("DELETE", "/_security/api_key")
    assert sent.body == {"ids": ["key-9"], "owner": True}
    assert any("could not invalidate API key(s) key-9" in r.getMessage() for r in caplog.records)
    (kept,) = cluster.find("PUT", "/memdesk-state/_doc/keyfail_key-9")
    assert kept.body["type"] == "key_failure" and kept.body["name"] == "key-9"
    assert "403" in kept.body["value"] and kept.params["require_alias"] == "true"
    cluster.on("POST", "/memdesk-state/_search", (200, hits_response([
        {"_index": "memdesk-state-v2", "_id": "keyfail_key-9", "_score": None,
         "_source": kept.body, "sort": ["key-9"]}])))
    status = store.status()
    assert status["key_invalidation_failures"] == [
        {"key_id": "key-9", "error": kept.body["value"], "at": kept.body["updated_at"]}]
    store.close()


def test_inv25_a_403_on_the_licence_read_names_the_privilege_and_what_is_lost(hash_embedder, caplog):
    """GET /_license needs the `monitor` cluster privilege
    (https://www.elastic.co/guide/en/elasticsearch/reference/8.13/get-license.html, Authorization); without it
    the store runs as Basic, and says so once: which privilege, and that the rrf retriever and
    per-user keys are off."""
    cluster = Cluster(licence="platinum")
    err = {"type": "security_exception", "reason": "action [cluster:monitor/xpack/license/get] "
           "is unauthorized"}
    cluster.on("GET", "/_license", (403, {"error": {"root_cause": [err], **err}, "status": 403}))
    with caplog.at_level(logging.WARNING):
        store = ElasticsearchStore(URL, hash_embedder, client=make_client(cluster))
    assert store.licence == "basic" and not store.rrf_enabled
    (line,) = [r.getMessage() for r in caplog.records if "_license" in r.getMessage()]
    assert "`monitor`" in line and "rrf retriever" in line and "document-level" in line
    assert store.licence_note is not None and "monitor" in store.licence_note
    store.close()


def test_inv22_every_batch_write_requires_the_alias(hash_embedder):
    """`require_alias=true` (https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-bulk.html,
    query parameter `require_alias`): a lost alias fails the write instead of auto-creating a
    concrete index with a guessed mapping. Every write of a batch carries it: the batch
    document's create, each bulk and the commit flip."""
    cluster, store = opened(hash_embedder)
    store.apply([PutTombstone(tombstone=Tombstone(
        id="tomb_2", user_id="u", text="Likes jazz", normalized="likes jazz", kind="retracted",
        source_fact_id="fact_2", actor="cli", created_at=NOW))])
    writes = [r for r in cluster.requests if r.method in ("PUT", "POST", "DELETE")
              and not r.path.endswith(("/_mget", "/_search", "/_refresh"))]
    assert [r.path.split("/batch_")[0] for r in writes] == [
        "/memdesk-state/_create", "/_bulk", "/memdesk-state/_doc"]
    assert all(r.params.get("require_alias") == "true" for r in writes)


# --- forget and erase on a cluster (invariant 481) ---------------------------------------
MERGE_DOC = "https://www.elastic.co/docs/api/elasticsearch/v8/operation/operation-indices-forcemerge"


def test_inv481_a_merge_still_running_is_reported_as_pending_not_done(hash_embedder):
    """The force merge runs as a task (`wait_for_completion=false`, see MERGE_DOC: "If the client
    connection is lost before completion then the force merge process will continue in the
    background"); each poll lets the cluster wait (GET _tasks/<id>?wait_for_completion=true),
    a 408 means the wait ran out. After every poll ran out, compact() says "merge pending"
    with the task id; it never reports a failure or a clean finish."""
    cluster, store = opened(hash_embedder)
    cluster.on("GET", "/_tasks/.*", (408, {"error": {"type": "elasticsearch_timeout_exception",
                                                     "reason": "Timed out waiting"}, "status": 408}))
    (line,) = store.compact()
    assert line.startswith("merge pending: task node-1:11 is still running")
    (merge,) = cluster.find("POST", r"/.*/_forcemerge")
    assert merge.params == {"only_expunge_deletes": "true", "wait_for_completion": "false"}
    assert len(cluster.find("GET", "/_tasks/node-1:11")) == 10  # bounded, and never re-sent
    store.close()


def test_inv481_deleted_versions_left_in_segments_are_residue(hash_embedder):
    """An expunge-deletes merge only merges segments whose deleted share exceeds
    `index.merge.policy.expunge_deletes_allowed` (10% by default), so after it the index
    stats (`docs.deleted`) are read and any deleted version left is reported."""
    cluster, store = opened(hash_embedder)
    cluster.on("GET", r"/.*/_stats/docs", (200, {"indices": {
        "memdesk-semantic-v2": {"primaries": {"docs": {"count": 40, "deleted": 3}}},
        "memdesk-audit-v2": {"primaries": {"docs": {"count": 90, "deleted": 0}}}}}))
    (line,) = store.compact()
    assert line.startswith("memdesk-semantic-v2: 3 deleted document version(s) still in Lucene")
    store.close()


def test_inv481_reindex_backups_holding_forgotten_text_are_deleted(hash_embedder, caplog):
    """`memdesk es reindex` keeps the old index write-blocked as a backup; a later forget would
    never reach it. compact() (run after every forget and erase) deletes such backups."""
    cluster, store = opened(hash_embedder)
    cluster.on("GET", "/memdesk-semantic-v\\*/_alias", (200, {
        "memdesk-semantic-v1": {"aliases": {}}, "memdesk-semantic-v2": {
            "aliases": {"memdesk-semantic": {"is_write_index": True}}},
        "memdesk-semantic-v3": {"aliases": {}}}))  # v3: a copy in progress, never a backup
    cluster.on("DELETE", "/memdesk-semantic-v1", (200, {"acknowledged": True}))
    with caplog.at_level(logging.WARNING):
        assert store.compact() == []
    (gone,) = cluster.find("DELETE", "/memdesk-semantic-v1")
    assert not cluster.find("DELETE", "/memdesk-semantic-v3")
    assert any("memdesk-semantic-v1" in r.getMessage() and "forgotten" in r.getMessage()
               for r in caplog.records)
    store.close()


def test_inv481_an_erase_whose_answer_is_lost_is_not_resent(hash_embedder):
    """delete_by_query goes through the no-retry client
    (https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-delete-by-query.html:
    with wait_for_completion=false it returns a task): a lost answer is reported — it may be
    running — and the erase stops before writing its audit event; nothing is sent twice."""
    from elastic_transport import ConnectionTimeout

    from memory.errors import StoreUnavailableError

    cluster, store = opened(hash_embedder)
    cluster.on("GET", "/memdesk-state/_doc/secret_value_key", (200, {
        "_index": "memdesk-state-v2", "_id": "secret_value_key", "found": True, "_seq_no": 1,
        "_primary_term": 1, "_source": {"type": "secret", "name": "value_key",
                                        "encoded": "ab" * 32}}))
    cluster.on("POST", r"/.*/_delete_by_query", lambda req: ConnectionTimeout("lost"))
    from memory.models import AuditEvent
    event = AuditEvent(actor="cli", user_id="u", action="erase_user")
    try:
        store.erase_user("u", event)
    except StoreUnavailableError as exc:
        assert "may be running" in str(exc) and "safe to repeat" in str(exc)
    else:
        raise AssertionError("a lost delete_by_query must be reported")
    assert len(cluster.find("POST", r"/.*/_delete_by_query")) == 1
    assert not [r for r in cluster.find("PUT", "/_bulk")
                if any("memdesk-audit" in str(a) for a, _ in r.bulk_pairs)]
    store.close()


def test_inv95_inv25_memdesk_es_status_shows_what_needs_an_operator(monkeypatch, capsys):
    """`memdesk es status`: version, licence and why it fell back, recall path, tombstone
    matching, the sweeper's work at open, and the recorded key-invalidation failures."""
    import functools

    from memory.cli import main
    from memory.stores.elasticsearch import connection

    cluster = Cluster(version="9.2.0", licence="platinum")
    err = {"type": "security_exception", "reason": "action [cluster:monitor/xpack/license/get] "
           "is unauthorized"}
    cluster.on("GET", "/_license", (403, {"error": {"root_cause": [err], **err}, "status": 403}))
    cluster.on("POST", "/memdesk-state/_search", lambda req: (200, hits_response([
        {"_index": "memdesk-state-v3", "_id": "keyfail_key-9", "_score": None, "sort": ["key-9"],
         "_source": {"type": "key_failure", "name": "key-9", "value": "403 unauthorized",
                     "updated_at": "2026-12-07T10:00:00Z"}}]
        if req.body["query"]["bool"]["filter"][0]["term"]["type"] == "key_failure" else [])))
    monkeypatch.setattr(connection, "Elasticsearch", functools.partial(
        connection.Elasticsearch, node_class=cluster.node_class(), meta_header=False))
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    assert main(["es", "status", "--store", f"elasticsearch:{URL}"]) == 0
    out = capsys.readouterr().out
    assert "Elasticsearch 9.2.0, licence basic" in out
    assert "tombstones matched by: script_score" in out and "`monitor`" in out
    assert "API key invalidations that failed: 1" in out and "key-9" in out


def test_inv98_candidates_without_vectors_switch_to_script_score_never_silently(hash_embedder,
                                                                                caplog):
    """An 8.x-numbered server whose answers carry no vector in `_source` (an index setting, a
    proxy filtering `_source`) would make every candidate be skipped: the store logs it and
    asks again with script_score instead."""
    cluster, store = opened(hash_embedder, version="8.19.0")
    tomb = {"id": "tomb_1", "user_id": "u", "text": "Lives in Bristol",
            "normalized": "lives in bristol", "kind": "retracted", "source_fact_id": "fact_1",
            "actor": "cli", "created_at": NOW.isoformat()}
    cluster.on("POST", "/memdesk-tombstones/_search", lambda req: (200, hits_response([
        {"_index": "memdesk-tombstones-v3", "_id": "tomb_1",
         "_score": 1.9 if "query" in req.body else 0.95, "_source": dict(tomb)}])))
    with caplog.at_level(logging.WARNING):
        ((got, cos),) = store.nearest_tombstones("u", hash_embedder.embed(["Bristol"])[0], k=3)
    assert got.id == "tomb_1" and abs(cos - 0.9) < 1e-9
    assert store.tombstone_matching == "script_score"
    first, second = cluster.find("POST", "/memdesk-tombstones/_search")
    assert "knn" in first.body and "script_score" in second.body["query"]
    assert any("without vectors" in r.getMessage() for r in caplog.records)


def test_inv481_a_merge_the_cluster_refuses_is_residue_never_a_failed_forget(hash_embedder):
    """The forget has landed when compact() runs: a refused merge (403: the login lacks the
    `maintenance`/`manage` privilege, https://www.elastic.co/docs/api/elasticsearch/v8/operation/operation-indices-forcemerge)
    is reported as residue, and the forget stands."""
    cluster, store = opened(hash_embedder)
    err = {"type": "security_exception", "reason": "action [indices:admin/forcemerge] is "
           "unauthorized"}
    cluster.on("POST", r"/.*/_forcemerge", (403, {"error": {"root_cause": [err], **err},
                                                  "status": 403}))
    (line,) = store.compact()
    assert line.startswith("merge not run (") and "Lucene segments" in line
    store.close()
