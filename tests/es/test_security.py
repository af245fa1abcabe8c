"""Document-level security: the per-user API key body, the licence check, and reads that use
the key while keeping the application user filter (invariant 20). Keys are derived on demand,
short-lived, never stored, and invalidated when replaced (issue 16, invariant 95)."""

from __future__ import annotations

import pytest

from memory.cli import main
from memory.models import MemoryKind
from memory.stores.base import RecallFilter
from memory.stores.elasticsearch import ElasticsearchStore
from memory.stores.elasticsearch.indices import IndexNames
from memory.stores.elasticsearch.security import LicenceError, api_key_body
from memory.stores.elasticsearch.store import api_key_doc_id
from tests.es.conftest import URL, Cluster, make_client, search_answer


def test_inv20_api_key_body_reads_only_the_users_documents_and_the_catalog():
    body = api_key_body(IndexNames("memdesk"), "ana")
    (role,) = body["role_descriptors"].values()
    assert role["cluster"] == []
    user_perm, catalog_perm = role["indices"]
    assert user_perm == {"names": ["memdesk-episodic*", "memdesk-semantic*", "memdesk-procedural*",
                                   "memdesk-tombstones*", "memdesk-audit*",
                                   "memdesk-usage*"],  # invariant 24: use counts, by user
                         "privileges": ["read"], "query": {"term": {"user_id": "ana"}}}
    assert catalog_perm == {"names": ["memdesk-catalog*"], "privileges": ["read"]}
    assert not any("state" in n for perm in role["indices"] for n in perm["names"])  # keys live there
    assert body["name"] == "memdesk-memdesk-ana" and body["metadata"]["memdesk_user"] == "ana"
    assert body["expiration"] == "3600s"  # invariant 95: a lost key expires by itself


@pytest.mark.parametrize("licence", ["basic", "gold"])
def test_inv25_inv20_dls_needs_platinum_or_better(hash_embedder, licence):
    cluster = Cluster(licence=licence)
    store = ElasticsearchStore(URL, hash_embedder, client=make_client(cluster))
    cluster.requests.clear()  # start-up reads its tombstone key version (test_tombkeys.py)
    with pytest.raises(LicenceError, match=f"{licence!r} licence.*Platinum, Enterprise or the trial"):
        store.bootstrap_user("ana")
    assert not cluster.find("PUT", "/_security/api_key")
    # no keys can exist on such a cluster: reads never look for one
    store.get(MemoryKind.SEMANTIC, "ana", "fact_1")
    assert not cluster.find("GET", "/memdesk-state/_doc/.*")


class KeyCluster:
    """A platinum cluster that mints numbered keys and records invalidations."""

    def __init__(self, marked=("ana",), legacy_secret: str | None = None):
        self.cluster = Cluster(licence="platinum")
        self.minted: list[str] = []
        c = self.cluster
        c.on("PUT", "/_security/api_key", self.mint)
        c.on("DELETE", "/_security/api_key", lambda req: (200, {
            "invalidated_api_keys": req.body.get("ids") or ["old-1", "old-2"],
            "previously_invalidated_api_keys": [], "error_count": 0}))
        c.on("PUT", "/memdesk-state/_doc/.*", (201, {"_index": "memdesk-state-v1", "_id": "x",
                                                     "result": "created", "_seq_no": 0,
                                                     "_primary_term": 1}))

        def marker(req):
            user = next((u for u in ("ana", "bo") if req.path.endswith(api_key_doc_id(u))), None)
            if user not in marked:
                return 404, {"_index": "memdesk-state-v1", "_id": req.path, "found": False}
            src = {"type": "dls_user", "user_id": user}
            if legacy_secret:  # what an earlier version stored in plain text
                src = {"type": "api_key", "user_id": user, "key_id": "old", "encoded": legacy_secret}
            return 200, {"_index": "memdesk-state-v1", "_id": "k", "_seq_no": 1,
                         "_primary_term": 1, "found": True, "_source": src}
        c.on("GET", "/memdesk-state/_doc/.*", marker)

    def mint(self, req):
        n = len(self.minted) + 1
        self.minted.append(req.body["name"])
        return 200, {"id": f"key-{n}", "name": req.body["name"], "api_key": f"secret{n}",
                     "encoded": f"ENCODED{n}", "expiration": 1}

    def store(self, hash_embedder, now):
        store = ElasticsearchStore(URL, hash_embedder, client=make_client(self.cluster),
                                   clock=lambda: now[0])
        self.cluster.requests.clear()  # start-up requests are checked in test_indices.py
        return store


def auth_of_searches(cluster) -> list[str | None]:
    return [r.headers.get("authorization") for r in cluster.find("POST", r"/memdesk-.*/_search")]


def test_inv95_bootstrap_keeps_no_secret_and_invalidates_earlier_keys(hash_embedder):
    """security-api-invalidate-api-key.html: `name` + `owner: true` invalidates every key of
    that name the store's user owns — the keys earlier runs (or an earlier version) minted."""
    kc, now = KeyCluster(), [0.0]
    store = kc.store(hash_embedder, now)
    assert store.recall_path == "elasticsearch: client-side RRF"  # platinum has DLS, not rrf
    row = store.bootstrap_user("ana")
    assert row == {"user_id": "ana", "api_key_id": "key-1", "invalidated": 2}
    (revoke,) = kc.cluster.find("DELETE", "/_security/api_key")
    assert revoke.body == {"name": "memdesk-memdesk-ana", "owner": True}
    (marker,) = kc.cluster.find("PUT", "/memdesk-state/_doc/.*")
    assert marker.body == {"type": "dls_user", "user_id": "ana"}  # no key, no secret
    (mint,) = kc.cluster.find("PUT", "/_security/api_key")
    assert mint.body == api_key_body(IndexNames("memdesk"), "ana", expiration="3600s")


def test_inv95_reads_use_a_minted_key_never_a_stored_secret(hash_embedder):
    kc, now = KeyCluster(legacy_secret="PLAINTEXT"), [0.0]
    store = kc.store(hash_embedder, now)
    store.search_bm25(RecallFilter(user_id="ana"), "tea", 10)
    store.search_bm25(RecallFilter(user_id="ana"), "tea again", 10)
    assert auth_of_searches(kc.cluster) == ["ApiKey ENCODED1", "ApiKey ENCODED1"]  # minted once
    search = kc.cluster.find("POST", r"/memdesk-.*/_search")[0]
    assert '"term": {"user_id": "ana"}' in str(search.body).replace("'", '"')  # filter stays
    store.search_bm25(RecallFilter(user_id="bo"), "tea", 10)  # bo is not bootstrapped
    assert auth_of_searches(kc.cluster)[-1] is None
    assert len(kc.cluster.find("GET", "/memdesk-state/_doc/.*")) == 2  # one marker read each


def test_inv95_a_key_is_replaced_before_it_expires_and_the_old_one_invalidated(hash_embedder):
    kc, now = KeyCluster(), [0.0]
    store = kc.store(hash_embedder, now)
    store.search_bm25(RecallFilter(user_id="ana"), "tea", 10)
    now[0] += 0.8 * 3600 + 1  # past the renewal point, before the expiry
    store.search_bm25(RecallFilter(user_id="ana"), "tea", 10)
    assert auth_of_searches(kc.cluster) == ["ApiKey ENCODED1", "ApiKey ENCODED2"]
    (revoke,) = kc.cluster.find("DELETE", "/_security/api_key")
    # owner: true — manage_own_api_key needs it (https://www.elastic.co/docs/api/elasticsearch/operation/operation-security-invalidate-api-key)
    assert revoke.body == {"ids": ["key-1"], "owner": True}
    store.close()  # this process's keys do not outlive it
    assert kc.cluster.find("DELETE", "/_security/api_key")[-1].body == {"ids": ["key-2"], "owner": True}


def test_inv95_a_key_invalidated_elsewhere_is_replaced_once(hash_embedder):
    """Another process re-ran bootstrap-users: this process's key now answers 401
    security_exception. The read mints a fresh key and goes through once."""
    kc, now = KeyCluster(), [0.0]
    store = kc.store(hash_embedder, now)
    store.search_bm25(RecallFilter(user_id="ana"), "tea", 10)
    err = {"type": "security_exception", "reason": "unable to authenticate with provided credentials"}
    kc.cluster.on("POST", r"/memdesk-.*/_search", lambda req: (
        (401, {"error": {"root_cause": [err], **err}, "status": 401})
        if req.headers.get("authorization") == "ApiKey ENCODED1" else (200, search_answer(req, []))))
    assert store.search_bm25(RecallFilter(user_id="ana"), "tea", 10) == []
    assert auth_of_searches(kc.cluster)[-2:] == ["ApiKey ENCODED1", "ApiKey ENCODED2"]


def test_inv95_keys_cannot_be_minted_from_an_api_key_login(hash_embedder):
    """TransportCreateApiKeyAction refuses a key with privileges when the caller authenticated
    with an API key ("creating derived api keys requires an explicit role descriptor that is
    empty"): with MEMDESK_ES_API_KEY the store says so instead of failing at every read."""
    from memory.stores.elasticsearch.connection import ConnectionSettings

    kc = KeyCluster()
    store = ElasticsearchStore(URL, hash_embedder, client=make_client(kc.cluster),
                               connection=ConnectionSettings(url=URL, api_key="abc"))
    assert not store.dls_available
    with pytest.raises(LicenceError, match="MEMDESK_ES_API_KEY.*manage_own_api_key"):
        store.bootstrap_user("ana")
    store.search_bm25(RecallFilter(user_id="ana"), "tea", 10)
    assert not kc.cluster.find("PUT", "/_security/api_key")


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
