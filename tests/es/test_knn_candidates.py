"""Issue 31, item 5: approximate kNN explores num_candidates >= 2 x k (invariant 97).

Elasticsearch documents num_candidates as the neighbours the graph search explores per shard
before keeping the best k; more tends to improve the accuracy of the final k, and its default
is 1.5 x k (https://www.elastic.co/guide/en/elasticsearch/reference/8.15/knn-search.html; the
knn query: query-dsl-knn-query.html, which takes no `k` on 8.15 and collects num_candidates per
shard; https://www.elastic.co/docs/solutions/search/vector/knn/optimize-performance-accuracy:
num_candidates is HNSW's search-time trade-off, rescore_vector only recovers what quantisation
lost). The limit is 10,000 (knn-search.html). Exact request bodies on the real client."""

from __future__ import annotations

import pytest

from memory.clock import fixed_clock
from memory.errors import MemdeskError
from memory.search_config import LEGACY_RRF, Purpose
from memory.service import MemoryService
from memory.settings import Settings
from memory.stores.elasticsearch import ElasticsearchStore
from tests.conftest import NOW
from tests.es.conftest import URL, Cluster, make_client


def _recall(licence: str, embedder, window: int, **store_kw) -> list:
    cluster = Cluster(licence=licence)
    store = ElasticsearchStore(URL, embedder, client=make_client(cluster), **store_kw)
    cluster.requests.clear()
    cfg = LEGACY_RRF.model_copy(update={"candidates": window})
    MemoryService(store, clock=fixed_clock(NOW)).recall("u", "tea", config=cfg,
                                                        purpose=Purpose.EVAL)
    return cluster.find("POST", r"/memdesk-.*/_search")


def _knn(reqs) -> dict:
    return next(r.body["knn"] for r in reqs if "knn" in (r.body or {}))


def _rrf_knn(reqs) -> dict:
    (req,) = reqs
    return req.body["retriever"]["rrf"]["retrievers"][1]["standard"]["query"][
        "function_score"]["query"]["knn"]


@pytest.mark.parametrize("per, window, want", [(2.0, 80, 160), (3.0, 80, 240),
                                               (2.0, 10, 20), (4.0, 3000, 10_000)])
def test_inv97_dense_legs_explore_a_multiple_of_k_on_both_paths(hash_embedder, per, window,
                                                                 want):
    knn = _knn(_recall("basic", hash_embedder, window, num_candidates=per))
    assert (knn["k"], knn["num_candidates"]) == (window, want)
    rrf = _rrf_knn(_recall("trial", hash_embedder, window, num_candidates=per))
    assert rrf["num_candidates"] == want and "k" not in rrf  # no `k` on the 8.15 knn query


def test_inv97_the_default_is_twice_k_and_less_than_twice_is_refused(hash_embedder):
    assert Settings().es_num_candidates == 2.0
    assert _knn(_recall("basic", hash_embedder, 80))["num_candidates"] == 160
    with pytest.raises(ValueError):
        Settings(es_num_candidates=1.5)
    with pytest.raises((ValueError, MemdeskError)):
        ElasticsearchStore(URL, hash_embedder, client=make_client(Cluster()), num_candidates=1.5)


def test_inv97_the_setting_reaches_the_store_from_the_environment(monkeypatch, hash_embedder):
    import functools

    from memory.stores import open_store
    from memory.stores.elasticsearch import connection
    cluster = Cluster()
    monkeypatch.setattr(connection, "Elasticsearch", functools.partial(
        connection.Elasticsearch, node_class=cluster.node_class(), meta_header=False))
    store = open_store(f"elasticsearch:{URL}", hash_embedder,
                       Settings(es_num_candidates=3.0))
    assert store.candidates_per_k == 3.0
