"""Document-level security: the per-user API key body, the licence check, and reads that use
the key while keeping the application user filter (invariant 27)."""

from __future__ import annotations

import pytest

from memory.cli import main
from memory.models import MemoryKind
from memory.stores.base import RecallFilter
from memory.stores.elasticsearch import ElasticsearchStore
from memory.stores.elasticsearch.indices import IndexNames
from memory.stores.elasticsearch.security import LicenceError, api_key_body
from tests.es.conftest import URL, Cluster, make_client


def test_inv27_api_key_body_reads_only_the_users_documents_and_the_catalog():
    body = api_key_body(IndexNames("memdesk"), "ana")
    (role,) = body["role_descriptors"].values()
    assert role["cluster"] == []
    user_perm, catalog_perm = role["indices"]
    assert user_perm == {"names": ["memdesk-episodic*", "memdesk-semantic*", "memdesk-procedural*",
                                   "memdesk-tombstones*", "memdesk-audit*"],
                         "privileges": ["read"], "query": {"term": {"user_id": "ana"}}}
    assert catalog_perm == {"names": ["memdesk-catalog*"], "privileges": ["read"]}
    assert not any("state" in n for perm in role["indices"] for n in perm["names"])  # keys live there
    assert body["name"] == "memdesk-memdesk-ana" and body["metadata"]["memdesk_user"] == "ana"


@pytest.mark.parametrize("licence", ["basic", "gold"])
def test_inv25_inv27_dls_needs_platinum_or_better(hash_embedder, licence):
    cluster = Cluster(licence=licence)
    store = ElasticsearchStore(URL, hash_embedder, client=make_client(cluster))
    with pytest.raises(LicenceError, match=f"{licence!r} licence.*Platinum, Enterprise or the trial"):
        store.bootstrap_user("ana")
    assert not cluster.find("PUT", "/_security/api_key")
    # no keys can exist on such a cluster: reads never look for one
    store.get(MemoryKind.SEMANTIC, "ana", "fact_1")
    assert not cluster.find("GET", "/memdesk-state/_doc/.*")


def test_inv27_minted_key_is_stored_and_used_for_that_users_reads(hash_embedder):
    cluster = Cluster(licence="platinum")
    cluster.on("PUT", "/_security/api_key", (200, {
        "id": "key-1", "name": "memdesk-memdesk-ana", "api_key": "secret", "encoded": "a2V5LTE6c2VjcmV0"}))
    cluster.on("PUT", "/memdesk-state/_doc/.*", (201, {"_index": "memdesk-state-v1", "_id": "x",
                                                       "result": "created", "_seq_no": 0,
                                                       "_primary_term": 1}))
    store = ElasticsearchStore(URL, hash_embedder, client=make_client(cluster))
    assert store.recall_path == "elasticsearch: client-side RRF"  # platinum has DLS, not rrf
    assert store.bootstrap_user("ana") == "key-1"
    (mint,) = cluster.find("PUT", "/_security/api_key")
    assert mint.body == api_key_body(IndexNames("memdesk"), "ana")
    (saved,) = cluster.find("PUT", "/memdesk-state/_doc/.*")
    assert saved.params == {"refresh": "wait_for"} and saved.body["encoded"] == "a2V5LTE6c2VjcmV0"
    cluster.requests.clear()
    store.search_bm25(RecallFilter(user_id="ana"), "tea", 10)
    (search,) = cluster.find("POST", r"/.*/_search")
    assert search.headers["authorization"] == "ApiKey a2V5LTE6c2VjcmV0"
    # the application-level user filter is still in the query
    assert '"term": {"user_id": "ana"}' in str(search.body).replace("'", '"')
    store.search_bm25(RecallFilter(user_id="bo"), "tea", 10)  # bo has no key: the store's client
    assert "authorization" not in cluster.find("POST", r"/.*/_search")[-1].headers


@pytest.mark.parametrize("argv,message", [
    (["es", "bootstrap-users", "--store", "embedded:/tmp/x.db"], "needs an Elasticsearch store"),
    (["migrate", "--from", "elasticsearch:http://x", "--to", "elasticsearch:http://y"],
     "--from must be embedded:PATH"),
    (["migrate", "--from", "embedded:/nonexistent/store.db", "--to", "elasticsearch:http://y"],
     "no such store file"),
])
def test_cli_usage_errors_are_one_clear_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("memdesk: error: ") and message in err and err.count("\n") == 1


def test_cli_migrate_to_a_non_es_target_is_refused(tmp_path, capsys, hash_embedder):
    from memory.stores.embedded import EmbeddedStore
    EmbeddedStore(tmp_path / "s.db", hash_embedder).close()
    assert main(["migrate", "--from", f"embedded:{tmp_path / 's.db'}", "--to", "embedded:/tmp/y"]) == 2
    assert "needs an Elasticsearch store" in capsys.readouterr().err
