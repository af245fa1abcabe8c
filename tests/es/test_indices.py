"""Start-up: index creation through versioned aliases, explicit mappings, and the clear errors
for an unreachable cluster, an old server and a differing mapping (invariants 22, 25)."""

from __future__ import annotations

import socket

import pytest

from memory.errors import MemdeskError, StoreUnavailableError
from memory.stores import open_store
from memory.stores.elasticsearch import ElasticsearchStore
from memory.stores.elasticsearch.indices import ALL_INDICES, MAPPING_VERSION, index_body
from memory.values import KEY_VERSION
from tests.es.conftest import URL, Cluster, doc_answer, make_client


def open_on(cluster: Cluster, embedder, **kw) -> ElasticsearchStore:
    return ElasticsearchStore(URL, embedder, client=make_client(cluster), **kw)


def test_inv22_creates_every_index_behind_a_versioned_alias(cluster, hash_embedder):
    store = open_on(cluster, hash_embedder, prefix="acme")
    assert [r.path for r in cluster.requests[:2]] == ["/", "/_license"]
    created = {r.path: r.body for r in cluster.requests if r.method == "PUT"}
    # every index, then the tombstone key version of a store with no tombstones (invariant 63)
    assert set(created) == {f"/acme-{n}-v{MAPPING_VERSION}" for n in ALL_INDICES} | {
        "/acme-state/_create/tombstone_keys"}
    assert created["/acme-state/_create/tombstone_keys"] == {
        "type": "key_version", "name": "tombstone_keys", "value": KEY_VERSION}
    for name in ALL_INDICES:
        body = created[f"/acme-{name}-v{MAPPING_VERSION}"]
        assert body["aliases"] == {f"acme-{name}": {"is_write_index": True}}
        props = body["mappings"]["properties"]
        assert body["mappings"]["dynamic"] is False
        assert body["mappings"]["_meta"]["embedder"] == "hash"
        if name == "catalog":
            assert "user_id" not in props  # the catalog has no owner (DLS tests its absence)
        elif name != "state":
            assert props["user_id"] == {"type": "keyword"}
    sem = created[f"/acme-semantic-v{MAPPING_VERSION}"]["mappings"]["properties"]
    assert sem["vector"] == {"type": "dense_vector", "dims": hash_embedder.dims, "index": True,
                             "similarity": "cosine", "index_options": {"type": "int8_hnsw"}}
    assert sem["text"]["type"] == "text" and sem["text"]["analyzer"] == "memdesk_text"
    assert sem["text"]["fields"]["raw"]["type"] == "keyword"
    assert sem["state"] == {"type": "keyword"} and sem["last_used_at"] == {"type": "date"}
    audit = created[f"/acme-audit-v{MAPPING_VERSION}"]["mappings"]["properties"]
    assert audit["before"] == {"type": "object", "enabled": False}
    assert store.recall_path == "elasticsearch: rrf retriever"


def test_existing_matching_indices_are_reused(cluster, hash_embedder):
    for name in ALL_INDICES:
        live = {f"memdesk-{name}-v{MAPPING_VERSION}": {"mappings": index_body(name, "hash", hash_embedder.dims)["mappings"]}}
        cluster.on("GET", f"/memdesk-{name}/_mapping", (200, live))
    cluster.on("GET", "/memdesk-state/_doc/tombstone_keys", (200, doc_answer(
        "memdesk-state", {"type": "key_version", "name": "tombstone_keys", "value": KEY_VERSION},
        "tombstone_keys")))
    open_on(cluster, hash_embedder)
    assert not [r for r in cluster.requests if r.method == "PUT"]
    # keys already current (invariant 63): one realtime GET, no scan of the tombstones
    assert [r.path for r in cluster.requests if "tomb" in r.path] == [
        "/memdesk-tombstones/_mapping", "/memdesk-state/_doc/tombstone_keys"]


def test_inv22_a_differing_mapping_is_a_clear_error(cluster, hash_embedder):
    body = index_body("semantic", "hash", hash_embedder.dims)
    body["mappings"]["properties"]["state"] = {"type": "text"}
    cluster.on("GET", "/memdesk-semantic/_mapping", (200, {f"memdesk-semantic-v{MAPPING_VERSION}": {"mappings": body["mappings"]}}))
    with pytest.raises(MemdeskError) as err:
        open_on(cluster, hash_embedder)
    msg = str(err.value)
    assert f"memdesk-semantic-v{MAPPING_VERSION}" in msg and "state.type" in msg and "mappings/semantic.json" in msg


def test_inv22_another_embedder_is_a_mapping_difference(cluster, hash_embedder):
    body = index_body("episodic", "minilm", 384)
    cluster.on("GET", "/memdesk-episodic/_mapping", (200, {f"memdesk-episodic-v{MAPPING_VERSION}": {"mappings": body["mappings"]}}))
    with pytest.raises(MemdeskError, match="embedder.*'minilm'.*'hash'"):
        open_on(cluster, hash_embedder)


def test_inv22_an_older_mapping_version_asks_for_a_reindex(cluster, hash_embedder):
    body = index_body("audit", "hash", hash_embedder.dims)
    cluster.on("GET", "/memdesk-audit/_mapping", (200, {"memdesk-audit-v0": {"mappings": body["mappings"]}}))
    with pytest.raises(MemdeskError, match="memdesk-audit-v0.*reindex"):
        open_on(cluster, hash_embedder)


@pytest.mark.parametrize("version", ["8.14.3", "7.17.25"])
def test_inv25_a_server_older_than_8_15_is_refused(hash_embedder, version):
    cluster = Cluster(version=version)
    with pytest.raises(StoreUnavailableError, match=f"version {version}.*8.15 or newer"):
        open_on(cluster, hash_embedder)


@pytest.mark.parametrize("version", ["8.15.0", "8.19.3", "9.1.0"])
def test_supported_versions_open(hash_embedder, version):
    assert open_on(Cluster(version=version), hash_embedder).server_version == version


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # released on exit: nothing listens there


def test_inv29_unreachable_cluster_names_the_url_and_how_to_start_one(hash_embedder):
    url = f"http://elastic:s3cret@127.0.0.1:{_closed_port()}"
    with pytest.raises(StoreUnavailableError) as err:
        open_store(f"elasticsearch:{url}", hash_embedder)
    msg = str(err.value)
    assert "127.0.0.1" in msg and "s3cret" not in msg  # credentials are never echoed
    assert "docker compose up -d elasticsearch" in msg and "README" in msg
    assert err.value.exit_code == 6


def test_bad_prefix_is_refused(cluster, hash_embedder):
    with pytest.raises(MemdeskError, match="invalid index prefix"):
        open_on(cluster, hash_embedder, prefix="Has Spaces")


def test_close_twice_is_safe_and_use_after_close_is_clear(cluster, hash_embedder):
    store = open_on(cluster, hash_embedder)
    store.close()
    store.close()
    with pytest.raises(MemdeskError, match="closed"):
        store.users()
    with pytest.raises(MemdeskError, match="closed"):
        store.get("semantic", "u", "x")


def test_drop_indices_deletes_exactly_this_prefix(cluster, hash_embedder):
    store = open_on(cluster, hash_embedder, prefix="memdesk-test-1")
    cluster.on("DELETE", r"/.*", (200, {"acknowledged": True}))
    store.drop_indices()
    (req,) = cluster.find("DELETE", r"/.*")
    assert req.path == "/" + ",".join(f"memdesk-test-1-{n}-v{MAPPING_VERSION}" for n in ALL_INDICES)
    assert req.params == {"ignore_unavailable": "true"}  # no wildcard: destructive_requires_name


def test_inv22_object_fields_reported_without_a_type_still_match(cluster, hash_embedder):
    body = index_body("audit", "hash", hash_embedder.dims)
    live = {**body["mappings"], "dynamic": "false", "properties": {
        **body["mappings"]["properties"], "before": {"enabled": False}}}
    cluster.on("GET", "/memdesk-audit/_mapping", (200, {f"memdesk-audit-v{MAPPING_VERSION}": {"mappings": live}}))
    open_on(cluster, hash_embedder)
    assert not cluster.find("PUT", f"/memdesk-audit-v{MAPPING_VERSION}")


def test_wrong_credentials_are_a_clear_unavailable_error(hash_embedder):
    cluster = Cluster()
    err = {"type": "security_exception", "reason": "unable to authenticate user [elastic]"}
    cluster.on("GET", "/", (401, {"error": {"root_cause": [err], **err}, "status": 401}))
    with pytest.raises(StoreUnavailableError, match="refused the request.*401.*credentials"):
        open_on(cluster, hash_embedder)


def test_the_store_satisfies_the_protocol(cluster, hash_embedder):
    from memory.stores.base import Store
    assert isinstance(open_on(cluster, hash_embedder), Store)


def test_inv25_serverless_is_refused_at_open_with_a_clear_message(hash_embedder):
    """Serverless rejects the index settings this store sends (number_of_shards,
    auto_expand_replicas: "Serverless index settings list" in
    https://www.elastic.co/docs/reference/elasticsearch/index-settings), has no password login,
    and refuses a key with privileges minted from an API key (TransportCreateApiKeyAction:
    "creating derived api keys requires an explicit role descriptor that is empty"). So it is
    refused before anything is created, with one message saying what to use instead."""
    cluster = Cluster(version="8.11.0")
    cluster.on("GET", "/", (200, {"name": "serverless", "cluster_name": "x", "version": {
        "number": "8.11.0", "build_flavor": "serverless"}, "tagline": "You Know, for Search"}))
    with pytest.raises(StoreUnavailableError,
                       match="Serverless is not supported.*Elastic Cloud Hosted.*self-managed"):
        open_on(cluster, hash_embedder)
    assert [r.path for r in cluster.requests] == ["/"]  # nothing created, no licence read


def test_inv60_text_is_analysed_with_the_projects_stop_list_and_porter(hash_embedder):
    """Issue 31: Lucene's `english` analyser drops 33 stop words where the embedded store drops
    ~150 (memory.text.STOP_WORDS), so "i", "my", "what", "how", "do" flooded the BM25 window.
    Every text field now uses one custom analyser built from that same list: a pattern
    tokenizer splitting like FTS5's unicode61 (https://www.elastic.co/guide/en/elasticsearch/reference/8.15/analysis-pattern-tokenizer.html),
    lowercase, asciifolding, a `stop` filter with the list
    (https://www.elastic.co/guide/en/elasticsearch/reference/8.15/analysis-stop-tokenfilter.html)
    and `porter_stem`, the original Porter algorithm FTS5 uses
    (https://www.elastic.co/guide/en/elasticsearch/reference/8.15/analysis-porterstem-tokenfilter.html)."""
    from memory.stores.elasticsearch.indices import ANALYZER
    from memory.text import STOP_WORDS

    for name in ALL_INDICES:
        body = index_body(name, "hash", hash_embedder.dims)
        analysis = body["settings"]["analysis"]
        assert analysis["filter"]["memdesk_stop"] == {"type": "stop",
                                                      "stopwords": sorted(STOP_WORDS)}
        assert analysis["analyzer"][ANALYZER] == {
            "type": "custom", "tokenizer": "memdesk_words",
            "filter": ["lowercase", "asciifolding", "memdesk_stop", "porter_stem"]}
        assert analysis["tokenizer"]["memdesk_words"] == {"type": "pattern",
                                                          "pattern": r"[^\p{L}\p{N}\p{M}]+"}
        for field, spec in body["mappings"]["properties"].items():
            if spec.get("type") == "text" and field != "reason":  # a reason is never searched
                assert spec["analyzer"] == ANALYZER, (name, field)
    assert {"i", "my", "what", "how", "do"} <= STOP_WORDS
    assert MAPPING_VERSION == 3  # a new analyser is a new mapping: `memdesk es reindex` moves v2
