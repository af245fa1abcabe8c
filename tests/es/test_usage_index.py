"""Issue 31, item 5: recall's use counts live in a small usage index (invariant 24), so a
bump rewrites no memory and no vector. Exact request bodies on the real client:

- created with the other indices, behind its alias (indices.html, aliases);
- bumps are scripted upserts, require_alias (docs-update.html "Upsert"; docs-bulk.html);
- reads add the counts with one realtime multi-get by ids (docs-multi-get.html: realtime by
  default, so a bump is read back at once), and the use boost ranks by them;
- forget deletes the usage document, erase every one of the user's (test_writes.py,
  test_forget.py); `memdesk es reindex` moves the index, or skips it while it does not exist.
"""

from __future__ import annotations

from memory.models import Fact, MemoryKind
from memory.ranking import RankingParams, multipliers
from memory.stores.base import RecallFilter
from memory.stores.elasticsearch import reindex as reindex_module
from memory.stores.elasticsearch.indices import ALL_INDICES, MAPPING_VERSION, IndexNames, index_body
from memory.stores.elasticsearch.results import to_source
from memory.stores.elasticsearch.writes import merge_usage
from tests.conftest import NOW
from tests.es.conftest import Cluster, hits_response, make_client, search_answer, source_hit


def _fact(embedder, **kw) -> tuple[Fact, dict]:
    fact = Fact(user_id="u", text="Drinks green tea", use_count=2, **kw)
    src = to_source(fact, embedder.embed([fact.text])[0])
    src.pop("vector")
    return fact, src


def _usage_answer(docs: dict[str, dict]):
    def answer(req):
        return 200, {"docs": [{"_index": "memdesk-usage-v3", "_id": i, "found": True,
                               "_version": 1, "_source": docs[i]} if i in docs else
                              {"_index": "memdesk-usage-v3", "_id": i, "found": False}
                              for i in req.body["ids"]]}
    return answer


def test_inv24_the_usage_index_is_created_with_the_others_behind_its_alias(hash_embedder):
    from memory.stores.elasticsearch import ElasticsearchStore
    cluster = Cluster()
    ElasticsearchStore("http://127.0.0.1:9200", hash_embedder, client=make_client(cluster))
    (create,) = cluster.find("PUT", f"/memdesk-usage-v{MAPPING_VERSION}")
    assert create.body["aliases"] == {"memdesk-usage": {"is_write_index": True}}
    assert create.body["mappings"]["properties"] == {
        "kind": {"type": "keyword"}, "last_used_at": {"type": "date"},
        "memory_id": {"type": "keyword"}, "use_count": {"type": "long"},
        "user_id": {"type": "keyword"}}
    assert create.body["mappings"]["dynamic"] is False
    assert "usage" in ALL_INDICES and "vector" not in index_body("usage", "hash", 8)["mappings"][
        "properties"]


def test_inv24_recall_adds_the_usage_counts_and_the_boost_reads_them(cluster, es_store,
                                                                     hash_embedder):
    fact, src = _fact(hash_embedder)
    cluster.on("POST", r"/memdesk-.*/_search",
               lambda req: (200, search_answer(req, [source_hit("memdesk-semantic-v3", src)])))
    cluster.on("POST", "/memdesk-usage/_mget", _usage_answer({f"semantic:{fact.id}": {
        "user_id": "u", "kind": "semantic", "memory_id": fact.id, "use_count": 7,
        "last_used_at": "2025-06-01T11:00:00Z"}}))
    flt = RecallFilter(user_id="u", kinds=frozenset({MemoryKind.SEMANTIC}))
    (hit,) = es_store.search_bm25(flt, "tea", 10)
    (req,) = cluster.find("POST", "/memdesk-usage/_mget")
    assert req.body == {"ids": [f"semantic:{fact.id}"]}
    assert hit.doc.use_count == 9  # the record's own 2 (from before the index) + 7
    assert hit.doc.last_used_at.isoformat() == "2025-06-01T11:00:00+00:00"
    params = RankingParams()
    assert multipliers(hit.doc, NOW, params).use_boost == \
        1.0 + __import__("math").log10(10) * params.use_boost_weight


def test_inv24_another_users_usage_document_adds_nothing_and_lists_carry_counts(
        cluster, es_store, hash_embedder):
    fact, src = _fact(hash_embedder)
    cluster.on("POST", "/memdesk-semantic/_search",
               lambda req: (200, hits_response([{**source_hit("memdesk-semantic-v3", src),
                                                 "sort": [1, fact.id]}])))
    cluster.on("POST", "/memdesk-usage/_mget", _usage_answer({f"semantic:{fact.id}": {
        "user_id": "mallory", "use_count": 50}}))
    (listed,) = es_store.list_facts("u")
    assert listed.use_count == 2  # export and the desk read these counts too


def test_inv24_a_write_keeps_the_records_stored_counts_never_the_sum():
    stored = {"use_count": 2, "last_used_at": "2025-05-01T00:00:00Z"}
    new = {"use_count": 9, "last_used_at": "2025-06-01T11:00:00Z"}  # read with the usage added
    merge_usage(new, stored)
    assert new == stored


def test_inv24_reindex_skips_an_index_this_version_adds_until_the_store_creates_it(
        hash_embedder):
    names = IndexNames("memdesk")
    cluster = Cluster()
    for name in ALL_INDICES:
        if name != "usage":
            cluster.on("GET", f"/_alias/memdesk-{name}", (200, {
                names.concrete(name): {"aliases": {names.alias(name): {}}}}))
    cluster.on("GET", "/_alias/memdesk-usage", (404, {
        "error": "alias [memdesk-usage] missing", "status": 404}))
    moved = reindex_module.reindex(make_client(cluster), names, "hash", hash_embedder.dims)
    assert moved == [] and not cluster.find("PUT", r"/.*")
