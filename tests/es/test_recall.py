"""Recall on Elasticsearch: both hybrid paths, the knn pre-filter, the multiplier script and its
params, and parsing hits back into the shared ranking (invariants 2, 17, 20, 21); explain only
when asked, aligned candidate sets, exact tombstone similarity, millisecond watermarks and the
licence re-check (issue 16, invariants 21, 25, 97, 98)."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest

from memory.clock import fixed_clock
from memory.corrections import tombstone_of
from memory.models import CatalogDoc, Episode, Fact, FactState, MemoryKind
from memory.ranking import RankingParams, fuse, rrf
from memory.search_config import DEFAULT, HISTORY, LEGACY_RRF, Purpose
from memory.service import MemoryService
from memory.stores.base import LegHit, RecallFilter
from memory.stores.elasticsearch import ElasticsearchStore
from memory.stores.elasticsearch.painless import MULTIPLIER_SCRIPT
from memory.stores.elasticsearch.results import leg_ranks, to_source
from tests.conftest import NOW
from tests.es.conftest import URL, Cluster, hits_response, make_client, search_answer, source_hit

FACT = Fact(id="fact_tea", user_id="u", text="Likes green tea", recorded_at=NOW,
            last_used_at=NOW - timedelta(days=400), use_count=10)
EP = Episode(id="ep_tea", user_id="u", text="I drank tea in Kyoto", timestamp=NOW - timedelta(days=30),
             recorded_at=NOW)
CAT = CatalogDoc(id="cat_tea", title="Tea guide", text="Brew at 80 C", recorded_at=NOW)


def src(doc, embedder) -> dict:
    s = to_source(doc, embedder.embed([doc.search_text()])[0])
    s.pop("vector")
    return s


def store_with(licence: str, embedder) -> tuple[Cluster, ElasticsearchStore]:
    cluster = Cluster(licence=licence)
    store = ElasticsearchStore(URL, embedder, client=make_client(cluster))
    cluster.requests.clear()
    return cluster, store


USER_SCOPE = {"bool": {"filter": [
    {"term": {"user_id": "u"}},
    {"terms": {"kind": ["episodic", "procedural", "semantic"]}},
    {"bool": {"should": [{"bool": {"must_not": [{"term": {"kind": "semantic"}}]}},
                         {"terms": {"state": ["active"]}}], "minimum_should_match": 1}}]}}
# Issue 17: the default fusion is score-normalised (client-side); the one-request rrf retriever
# serves plain-RRF configs, so its tests ask for one.
# plain RRF (every kind's dense leg alike): the one-request hybrid path (invariant 21)
RRF_PARAMS = RankingParams(fusion="rrf", dense_weight=1.0, catalog_prior=0.85,
                           distilled_dense_weight=None)
RRF_CATALOG = DEFAULT.model_copy(update={"include_catalog": True, "ranking": RRF_PARAMS})
CATALOG_SCOPE = {"bool": {"filter": [{"term": {"kind": "catalog"}}],
                          "must_not": [{"exists": {"field": "user_id"}}]}}


def test_inv20_client_side_legs_prefilter_inside_knn(hash_embedder):
    cluster, store = store_with("basic", hash_embedder)
    assert store.recall_path == "elasticsearch: client-side RRF"
    svc = MemoryService(store, clock=fixed_clock(NOW))
    svc.recall("u", "green tea", config=DEFAULT.model_copy(update={"include_catalog": True}),
               purpose=Purpose.EVAL)
    bm25, dense = cluster.find("POST", r"/[^_].*/_search")
    index = "/memdesk-episodic,memdesk-semantic,memdesk-procedural,memdesk-catalog/_search"
    assert bm25.path == index and dense.path == index
    scope = {"bool": {"should": [USER_SCOPE, CATALOG_SCOPE], "minimum_should_match": 1}}
    # issue 17: episodes also match on their session context, at IndexParams().context_weight
    assert bm25.body["query"] == {"bool": {
        "should": [{"match": {"search_text": {"query": "green tea", "operator": "or"}}},
                   {"match": {"context": {"query": "green tea", "operator": "or", "boost": 0.5}}}],
        "minimum_should_match": 1, "filter": [scope]}}
    knn = dense.body["knn"]
    assert knn["filter"] == scope  # pre-filter: applied during the graph search
    # invariant 97: k = window of num_candidates = 2 x window (knn-search.html: the
    # graph search explores num_candidates per shard, keeps k), the rrf dense leg's search
    assert knn["field"] == "vector" and knn["k"] == 80 and knn["num_candidates"] == 160
    assert len(knn["query_vector"]) == hash_embedder.dims
    assert "query" not in dense.body and "post_filter" not in dense.body
    assert bm25.params == dense.params == {"_source_excludes": "vector"}


def test_inv21_client_side_path_fuses_with_the_shared_function(hash_embedder):
    cluster, store = store_with("basic", hash_embedder)
    old = Fact(id="fact_old", user_id="u", text="Liked tea", state=FactState.SUPERSEDED, recorded_at=NOW)
    cluster.on("POST", r"/.*/_search", lambda req: (200, search_answer(req,
        [source_hit("memdesk-semantic-v1", src(FACT, hash_embedder), 7.5),
         source_hit("memdesk-episodic-v1", src(EP, hash_embedder), 3.0),
         # a document the filter should have excluded never passes the store either
         source_hit("memdesk-semantic-v1", {**src(FACT, hash_embedder), "id": "fact_x",
                                            "user_id": "mallory"}, 9.9)]
        if "query" in req.body else
        [source_hit("memdesk-episodic-v1", src(EP, hash_embedder), 0.93),
         source_hit("memdesk-semantic-v1", src(old, hash_embedder), 0.91),
         source_hit("memdesk-semantic-v1", src(FACT, hash_embedder), 0.90)])))
    svc = MemoryService(store, clock=fixed_clock(NOW))
    res = svc.recall("u", "tea", config=HISTORY, purpose=Purpose.EVAL, explain=True)
    legs = {"bm25": [LegHit(doc=FACT, score=7.5), LegHit(doc=EP, score=3.0)],
            "dense": [LegHit(doc=EP, score=0.93), LegHit(doc=old, score=0.91),
                      LegHit(doc=FACT, score=0.90)]}
    want = fuse(legs, NOW, RankingParams())
    assert [(h.id, h.fused_score) for h in res.hits] == [(h.id, h.fused_score) for h in want]
    assert "fact_x" not in [h.id for h in res.hits]
    assert res.explain.path == "elasticsearch: client-side RRF"
    assert res.explain.candidates == {"bm25": 2, "dense": 3}


def rrf_hit(doc, embedder, ranks: list[int], leg_scores: list[float], k: int = 30) -> dict:
    """An rrf-retriever hit with the `_explanation` shape Elasticsearch 8.16+ writes."""
    score = rrf([r for r in ranks if r], k)
    details = []
    for i, (r, s) in enumerate(zip(ranks, leg_scores, strict=False)):
        if r:
            details.append({"value": 1.0 / (r + k),
                            "description": f"rrf score: [{1.0 / (r + k)}], for rank [{r}] in query "
                                           f"at index [{i}] computed as [1 / ({r} + {k})], for "
                                           "matching query with score",
                            "details": [{"value": s, "description": "function score, product of:",
                                         "details": []}]})
        else:
            details.append({"value": 0.0, "description": f"rrf score: [0], result not found in "
                                                         f"query at index [{i}]", "details": []})
    explanation = {"value": score, "description": "sum of:", "details": [
        {"value": score, "description": f"rrf score: [{score}] computed for initial ranks "
                                        f"{ranks} with rankConstant: [{k}] as sum of [1 / (rank + "
                                        "rankConstant)] for each query", "details": details},
        {"value": 0.0, "description": "match on required clause, product of:", "details": []}]}
    return {**source_hit(f"memdesk-{doc.kind.value}-v1", src(doc, embedder), score),
            "_explanation": explanation}


def test_inv21_rrf_retriever_request_shape(hash_embedder):
    cluster, store = store_with("trial", hash_embedder)
    svc = MemoryService(store, clock=fixed_clock(NOW))
    svc.recall("u", "green tea", config=RRF_CATALOG,
               purpose=Purpose.EVAL)
    (req,) = cluster.find("POST", r"/[^_].*/_search")
    rrf_body = req.body["retriever"]["rrf"]
    assert rrf_body["rank_constant"] == 30 and rrf_body["rank_window_size"] == 80
    assert req.body["size"] == 80 and "explain" not in req.body  # invariant 21: not asked
    assert "query" not in req.body and "knn" not in req.body  # retriever replaces both
    bm25_leg, dense_leg = (r["standard"]["query"]["function_score"] for r in rrf_body["retrievers"])
    scope = {"bool": {"should": [USER_SCOPE, CATALOG_SCOPE], "minimum_should_match": 1}}
    assert bm25_leg["query"] == {"bool": {
        "should": [{"match": {"search_text": {"query": "green tea", "operator": "or"}}},
                   {"match": {"context": {"query": "green tea", "operator": "or", "boost": 0.5}}}],
        "minimum_should_match": 1, "filter": [scope]}}  # the same context clause (issue 17)
    knn = dense_leg["query"]["knn"]
    assert knn["filter"] == scope and knn["num_candidates"] == 160  # pre-filter inside knn
    for leg in (bm25_leg, dense_leg):
        assert leg["boost_mode"] == "multiply" and leg["score_mode"] == "multiply"
        (fn,) = leg["functions"]
        script = fn["script_score"]["script"]
        assert script["source"] == MULTIPLIER_SCRIPT and script["lang"] == "painless"
        assert script["params"]["now"] == 1748779200000  # epoch millis of the service clock
        assert script["params"]["use_decay"] is True and script["params"]["catalog_prior"] == 0.85


def test_inv21_rrf_hits_become_ranked_hits_with_legs_and_multipliers(hash_embedder):
    cluster, store = store_with("trial", hash_embedder)
    cluster.on("POST", r"/.*/_search", lambda req: (200, search_answer(req, [
        rrf_hit(EP, hash_embedder, [2, 1], [2.9, 0.9]),
        rrf_hit(FACT, hash_embedder, [1, 2], [8.1, 0.8]),
        rrf_hit(CAT, hash_embedder, [0, 3], [0.0, 0.7]),
    ])))
    svc = MemoryService(store, clock=fixed_clock(NOW))
    res = svc.recall("u", "tea", config=RRF_CATALOG, purpose=Purpose.EXPLAIN, explain=True)
    assert [h.id for h in res.hits] == ["ep_tea", "fact_tea", "cat_tea"]
    ep, fact, cat = res.hits
    assert ep.fused_score == pytest.approx(1 / 32 + 1 / 31)
    assert fact.fused_score == ep.fused_score  # a tie: broken on best leg rank, then id, as fuse does
    assert fact.legs["bm25"].rank == 1 and fact.legs["dense"].rank == 2
    assert fact.legs["bm25"].score == pytest.approx(8.1)
    m = fact.multipliers
    assert m.use_boost == pytest.approx(1 + math.log10(11) * 0.2) and m.decay < 1.0
    assert fact.legs["bm25"].raw_score == pytest.approx(8.1 / m.total)
    assert set(cat.legs) == {"dense"} and cat.multipliers.prior == pytest.approx(0.85)
    assert res.explain.path == "elasticsearch: rrf retriever"
    assert res.explain.candidates == {"bm25": 2, "dense": 3}


def test_inv21_a_403_for_rrf_switches_to_client_side_once(hash_embedder):
    cluster, store = store_with("trial", hash_embedder)  # licence says yes, cluster says no
    denied = {"error": {"root_cause": [{"type": "security_exception", "reason":
                        "current license is non-compliant for [Reciprocal Rank Fusion (RRF)]"}],
                        "type": "security_exception", "reason":
                        "current license is non-compliant for [Reciprocal Rank Fusion (RRF)]"},
              "status": 403}
    cluster.on("POST", r"/.*/_search", lambda req: (403, denied) if "retriever" in req.body
               else (200, search_answer(req, [source_hit("memdesk-semantic-v1",
                                                         src(FACT, hash_embedder), 1.0)])))
    svc = MemoryService(store, clock=fixed_clock(NOW))
    res = svc.recall("u", "tea", config=RRF_CATALOG, purpose=Purpose.EVAL, explain=True)
    assert [h.id for h in res.hits] == ["fact_tea"]
    assert res.explain.path == "elasticsearch: client-side RRF"
    svc.recall("u", "tea again", config=RRF_CATALOG, purpose=Purpose.EVAL)
    assert len([r for r in cluster.requests if r.body and "retriever" in r.body]) == 1


def test_leg_ranks_reads_both_explain_layouts():
    older = {"value": 0.03, "description": "rrf score: [0.03] computed for initial ranks [1, 0] "
             "with rankConstant: [30] as sum of [1 / (rank + rankConstant)] for each query",
             "details": [{"value": 0.03, "description": "rrf score: ...", "details": [{"value": 4.2}]},
                         {"value": 0.0, "description": "rrf score: [0], result not found"}]}
    assert leg_ranks(older) == [(1, 4.2), (0, None)]
    assert leg_ranks({"value": 1.0, "description": "sum of:", "details": [older]}) == [(1, 4.2), (0, None)]
    assert leg_ranks({"value": 1.0, "description": "something else"}) is None
    assert leg_ranks(None) is None


def test_inv98_tombstone_similarity_is_the_exact_cosine_the_embedded_store_computes(
        cluster, es_store, hash_embedder, tmp_path):
    """int8_hnsw stores int8-quantised vectors and `_score` comes from them
    (dense-vector.html, "int8_hnsw ... automatically scalar quantizes"; cosine `_score` is
    (1 + cos) / 2), so a restatement near MEMDESK_TOMBSTONE_SIMILARITY could be refused by one
    store and not the other. The store asks for the candidates' vectors, re-scores with the
    embedded store's arithmetic (float32 dot of unit vectors) and orders by that."""
    from memory.models import Tombstone, TombstoneKind
    from memory.stores.base import PutTombstone
    from memory.stores.embedded import EmbeddedStore

    tombs = [Tombstone(user_id="u", text=t, normalized=t.lower(), kind=TombstoneKind.RETRACTED,
                       actor="agent") for t in ("Lived in Bristol", "Lives in Bristol now", "Owns a boat")]
    query = hash_embedder.embed(["Lives in Bristol"])[0]
    # Quantised scores in an order the exact cosine does not agree with.
    quantised = [0.97, 0.91, 0.60]
    cluster.on("POST", "/memdesk-tombstones/_search", (200, hits_response([
        {"_index": "memdesk-tombstones-v1", "_id": t.id, "_score": q,
         "_source": {**t.model_dump(mode="json"), "seq": i,
                     "vector": [float(x) for x in hash_embedder.embed([t.text])[0]]}}
        for i, (t, q) in enumerate(zip(tombs, quantised, strict=False))])))
    got = es_store.nearest_tombstones("u", query, 2)
    ref = EmbeddedStore(tmp_path / "ref.db", hash_embedder)
    ref.apply([PutTombstone(tombstone=t) for t in tombs])
    want = ref.nearest_tombstones("u", query, 2)
    ref.close()
    assert [t.id for t, _ in got] == [t.id for t, _ in want]
    for (_, g), (_, w) in zip(got, want, strict=False):
        assert g == pytest.approx(w, abs=1e-6)
    (req,) = cluster.find("POST", "/memdesk-tombstones/_search")
    assert req.body["knn"]["filter"] == {"term": {"user_id": "u"}}
    assert req.body["knn"]["k"] == 10 and req.body["size"] == 10  # more candidates than asked
    assert "_source_excludes" not in req.params  # the vectors come back for the exact score


def test_counts_and_users_parse_aggregations(cluster, es_store):
    cluster.on("POST", r"/memdesk-episodic,memdesk-semantic,memdesk-procedural/_search",
               lambda req: (200, hits_response([], aggs={
                   "kinds": {"buckets": [
                       {"key": "semantic", "doc_count": 3, "states": {"buckets": [
                           {"key": "active", "doc_count": 2}, {"key": "superseded", "doc_count": 1}]}},
                       {"key": "episodic", "doc_count": 4, "states": {"buckets": [
                           {"key": "all", "doc_count": 4}]}}]}} if "kinds" in req.body["aggs"] else {
                   "users": {"buckets": [{"key": "ana", "doc_count": 5}, {"key": "bo", "doc_count": 1}]}})))
    assert es_store.counts("ana") == {"semantic": {"active": 2, "superseded": 1}, "episodic": {"all": 4}}
    assert es_store.users() == ["ana", "bo"]
    kinds = cluster.find("POST", r"/.*/_search")[0].body
    assert kinds["query"] == {"term": {"user_id": "ana"}} and kinds["size"] == 0


def test_get_hides_another_users_document(cluster, es_store, hash_embedder):
    cluster.on("GET", "/memdesk-semantic/_doc/fact_tea", (200, {
        "_index": "memdesk-semantic-v1", "_id": "fact_tea", "_seq_no": 1, "_primary_term": 1,
        "found": True, "_source": src(FACT, hash_embedder)}))
    assert es_store.get(MemoryKind.SEMANTIC, "u", "fact_tea") == FACT
    assert es_store.get(MemoryKind.SEMANTIC, "mallory", "fact_tea") is None  # invariant 3
    assert es_store.owner_of(MemoryKind.SEMANTIC, "fact_tea") == "u"
    assert es_store.get(MemoryKind.SEMANTIC, "u", "fact_missing") is None


def test_recall_filter_without_catalog_searches_only_user_indices(hash_embedder):
    from memory.stores.elasticsearch.indices import IndexNames
    from memory.stores.elasticsearch.queries import leg_indices
    names = IndexNames("memdesk")
    flt = RecallFilter(user_id="u", kinds=frozenset({MemoryKind.SEMANTIC}))
    assert leg_indices(names, flt) == ["memdesk-semantic"]


def test_a_text_without_tokens_has_no_vector_and_no_dense_search(cluster, es_store, hash_embedder):
    import numpy as np

    ep = Episode(id="ep_bang", user_id="u", text="!!", recorded_at=NOW)
    assert "vector" not in to_source(ep, hash_embedder.embed(["!!"])[0])  # cosine rejects zeros
    assert es_store.search_dense(RecallFilter(user_id="u"), np.zeros(hash_embedder.dims), 10) == []
    assert not cluster.requests


def test_inv21_rrf_path_and_client_side_fuse_give_the_same_ranking(hash_embedder):
    """Play the cluster's part with the Painless mirror: adjust each leg by the script, rank,
    fuse with RRF, answer with explanations. The store's parse must equal ranking.fuse."""
    from memory.stores.elasticsearch.indices import IndexNames
    from memory.stores.elasticsearch.painless import script_params
    from memory.stores.elasticsearch.results import ranked_hits
    from tests.es.test_painless import doc_values, run_script

    params = RRF_PARAMS
    docs = [
        Fact(id="fact_fresh", user_id="u", text="a", recorded_at=NOW, last_used_at=NOW, use_count=40),
        Fact(id="fact_stale", user_id="u", text="b", recorded_at=NOW,
             last_used_at=NOW - timedelta(days=2500)),
        Episode(id="ep_old", user_id="u", text="c", timestamp=NOW - timedelta(days=4000), recorded_at=NOW),
        Episode(id="ep_new", user_id="u", text="d", timestamp=NOW, recorded_at=NOW),
        CatalogDoc(id="cat_1", title="e", text="f", recorded_at=NOW),
    ]
    by_id = {d.id: d for d in docs}
    legs = {"bm25": [("fact_stale", 9.0), ("ep_old", 8.0), ("fact_fresh", 3.0), ("cat_1", 2.5)],
            "dense": [("ep_old", 0.95), ("ep_new", 0.94), ("cat_1", 0.90), ("fact_fresh", 0.80)]}
    names, p = IndexNames("memdesk"), script_params(IndexNames("memdesk"), NOW, params)
    ranks: dict[str, dict[str, tuple[int, float]]] = {}
    for leg, hits in legs.items():
        adjusted = []
        for doc_id, raw in hits:
            d = by_id[doc_id]
            m = run_script(names.concrete(d.kind.value), doc_values(src(d, hash_embedder)), p)
            adjusted.append((doc_id, raw * m))
        adjusted.sort(key=lambda t: -t[1])
        for r, (doc_id, s) in enumerate(adjusted, 1):
            ranks.setdefault(doc_id, {})[leg] = (r, s)
    response = [rrf_hit(by_id[i], hash_embedder,
                        [ranks[i].get(leg, (0, 0.0))[0] for leg in ("bm25", "dense")],
                        [ranks[i].get(leg, (0, 0.0))[1] for leg in ("bm25", "dense")])
                for i in ranks]
    response.sort(key=lambda h: -h["_score"])
    got = ranked_hits(response, NOW, params)
    want = fuse({leg: [LegHit(doc=by_id[i], score=s) for i, s in hits] for leg, hits in legs.items()},
                NOW, params)
    assert [(h.id, h.rank) for h in got] == [(h.id, h.rank) for h in want]
    for g, w in zip(got, want, strict=False):
        assert g.fused_score == pytest.approx(w.fused_score)
        assert {k: v.rank for k, v in g.legs.items()} == {k: v.rank for k, v in w.legs.items()}
        for leg in w.legs:
            assert g.legs[leg].score == pytest.approx(w.legs[leg].score, rel=1e-9)
            assert g.legs[leg].raw_score == pytest.approx(w.legs[leg].raw_score, rel=1e-9)
        assert g.multipliers.total == pytest.approx(w.multipliers.total, rel=1e-12)


def test_inv21_explain_is_sent_only_when_explain_is_asked(hash_embedder):
    """The rrf retriever computes explanations (re-running its legs on 8.16+) only when the
    search has `explain: true`; RRFRetrieverBuilder.combineInnerRetrieverResults records each
    leg's position only `if (explain)`. An agent or eval recall does not ask for it; the recall
    debugger (explain=True) does, and gets the per-leg ranks back."""
    cluster, store = store_with("trial", hash_embedder)
    def search(req):  # `_explanation` comes back only when asked for (search-search.html)
        hit = rrf_hit(FACT, hash_embedder, [1, 2], [8.1, 0.8])
        if not req.body.get("explain"):
            hit.pop("_explanation")
        return 200, search_answer(req, [hit])
    cluster.on("POST", r"/.*/_search", search)
    svc = MemoryService(store, clock=fixed_clock(NOW))
    rrf = LEGACY_RRF  # plain RRF: the fusion the one-request rrf retriever computes
    agent = svc.recall("u", "tea", config=rrf)  # Purpose.AGENT
    svc.recall("u", "tea", config=rrf, purpose=Purpose.EVAL)
    store.hybrid_search(RecallFilter(user_id="u"), "tea", hash_embedder.embed(["tea"])[0], 80,
                        NOW, RankingParams())  # the positional call of before: no explain
    debug = svc.recall("u", "tea", config=rrf, purpose=Purpose.EXPLAIN, explain=True)
    sent = [r.body for r in cluster.find("POST", r"/memdesk-.*/_search") if "retriever" in r.body]
    assert ["explain" in b for b in sent] == [False, False, False, True]
    assert agent.hits[0].id == "fact_tea" and agent.hits[0].legs == {}
    assert debug.hits[0].legs["bm25"].rank == 1 and debug.hits[0].legs["dense"].rank == 2


def test_inv97_an_empty_kinds_list_searches_nothing(hash_embedder):
    """An empty index list in the URL is `POST /_search`: every index in the cluster
    (search-search.html: "To search all data streams and indices, omit this parameter"). A
    recall for no kinds (and no catalog) is empty without a request."""
    for licence in ("trial", "basic"):
        cluster, store = store_with(licence, hash_embedder)
        flt = RecallFilter(user_id="u", kinds=frozenset())
        vec = hash_embedder.embed(["tea"])[0]
        assert store.search_bm25(flt, "tea", 10) == [] and store.search_dense(flt, vec, 10) == []
        assert store.hybrid_search(flt, "tea", vec, 10, NOW, RankingParams()) in ([], None)
        assert not cluster.find("POST", r".*/_search")


def test_inv97_both_hybrid_paths_take_the_same_dense_candidates(hash_embedder):
    """The knn *query* in the rrf retriever's dense leg yields num_candidates hits per shard
    (no `k` on 8.15: KnnVectorQueryBuilder parses field, query_vector, num_candidates,
    similarity, filter) and its retriever keeps rank_window_size of them; the client-side leg's
    top-level knn asks k = that window of the same num_candidates (invariant 97: 2 x window,
    capped at 10,000): one graph search."""
    for window in (10, 80, 300):
        cfg = LEGACY_RRF.model_copy(update={"candidates": window})  # plain RRF: both paths
        rrf_cluster, rrf_store = store_with("trial", hash_embedder)
        MemoryService(rrf_store, clock=fixed_clock(NOW)).recall("u", "tea", config=cfg,
                                                                 purpose=Purpose.EVAL)
        (req,) = rrf_cluster.find("POST", r"/memdesk-.*/_search")
        rrf_knn = req.body["retriever"]["rrf"]["retrievers"][1]["standard"]["query"][
            "function_score"]["query"]["knn"]
        cs_cluster, cs_store = store_with("basic", hash_embedder)
        MemoryService(cs_store, clock=fixed_clock(NOW)).recall("u", "tea", config=cfg,
                                                               purpose=Purpose.EVAL)
        knn = next(r.body["knn"] for r in cs_cluster.find("POST", r"/memdesk-.*/_search")
                   if "knn" in r.body)
        assert rrf_knn["num_candidates"] == knn["num_candidates"] == min(10_000, 2 * window)
        assert knn["k"] == window
        assert req.body["retriever"]["rrf"]["rank_window_size"] == window


def test_inv98_episodes_in_the_watermarks_millisecond_are_not_dropped(cluster, es_store):
    """`timestamp` is a `date`: millisecond resolution (date.html; date_nanos is the
    nanosecond type), and a range bound with microseconds is read at millisecond precision
    too. The route below answers as Elasticsearch would, comparing both sides truncated to the
    millisecond. An episode 400 µs after the watermark, in the same millisecond, must come back
    (consolidation reads episodes after its watermark: a dropped one is never consolidated)."""
    from datetime import datetime

    base = NOW.replace(microsecond=500)
    eps = [Episode(id=f"ep_{i}", user_id="u", text=f"turn {i}", timestamp=base + timedelta(microseconds=d),
                   recorded_at=NOW) for i, d in enumerate((-300, 0, 400, 1500))]

    def ms(value: str) -> int:
        t = datetime.fromisoformat(value)
        return int(t.timestamp() * 1000)  # microseconds dropped, as a millisecond date does

    def search(req):
        rng = req.body["query"]["bool"]["filter"][1]["range"]["timestamp"]
        op, bound = next(iter(rng.items()))
        keep = [e for e in eps if (ms(e.timestamp.isoformat()) > ms(bound) if op == "gt"
                                   else ms(e.timestamp.isoformat()) >= ms(bound))]
        return 200, search_answer(req, [source_hit("memdesk-episodic-v1", {
            **e.model_dump(mode="json"), "kind": "episodic"}, sort=[0, 0, e.id]) for e in keep])
    cluster.on("POST", "/memdesk-episodic/_search", search)
    got = es_store.list_episodes("u", after=eps[1].timestamp)
    assert [e.id for e in got] == ["ep_2", "ep_3"]
    (req,) = cluster.find("POST", "/memdesk-episodic/_search")
    assert req.body["query"]["bool"]["filter"][1] == {
        "range": {"timestamp": {"gte": "2025-06-01T12:00:00.000Z"}}}


def test_inv25_a_passing_licence_failure_is_read_again_a_403_is_final(hash_embedder):
    """GET /_license answers 404 while the cluster state holds no licence yet
    (RestGetLicenseAction: `hasLicense ? OK : NOT_FOUND`) and 5xx while a node is unhealthy:
    Basic for now, read again a minute later, so the rrf path comes back. A 403
    security_exception (no privilege to read it) is an answer: Basic for good."""
    now = [1000.0]
    cluster = Cluster(licence="trial")
    answers = [(404, {}), (503, {"error": "unavailable"})]
    cluster.on("GET", "/_license", lambda req: answers.pop(0) if answers else (200, {
        "license": {"status": "active", "uid": "u", "type": "trial"}}))
    store = ElasticsearchStore(URL, hash_embedder, client=make_client(cluster), clock=lambda: now[0])
    svc = MemoryService(store, clock=fixed_clock(NOW))
    assert store.licence == "basic" and store.recall_path == "elasticsearch: client-side RRF"
    svc.recall("u", "tea", config=LEGACY_RRF, purpose=Purpose.EVAL)
    assert len(cluster.find("GET", "/_license")) == 1  # not re-read on every call
    now[0] += 61
    svc.recall("u", "tea", config=LEGACY_RRF, purpose=Purpose.EVAL)  # 503 this time: still Basic, due again later
    assert len(cluster.find("GET", "/_license")) == 2 and store.licence == "basic"
    now[0] += 61
    svc.recall("u", "tea", config=LEGACY_RRF, purpose=Purpose.EVAL)
    assert store.licence == "trial" and store.recall_path == "elasticsearch: rrf retriever"
    assert any("retriever" in (r.body or {}) for r in cluster.find("POST", r"/memdesk-.*/_search"))

    denied = Cluster(licence="trial")
    err = {"type": "security_exception", "reason": "action [cluster:monitor/xpack/license/get] "
           "is unauthorized for user [memdesk]"}
    denied.on("GET", "/_license", (403, {"error": {"root_cause": [err], **err}, "status": 403}))
    store = ElasticsearchStore(URL, hash_embedder, client=make_client(denied), clock=lambda: now[0])
    now[0] += 3600
    MemoryService(store, clock=fixed_clock(NOW)).recall("u", "tea", config=LEGACY_RRF, purpose=Purpose.EVAL)
    assert store.licence == "basic" and len(denied.find("GET", "/_license")) == 1
def test_inv63_tombstone_candidates_are_keyword_lookups_plus_knn(cluster, es_store, hash_embedder):
    """Issue 11: the key / slot-term lookup is a filtered keyword query (never a scan of the
    user's tombstones); lookup fields are stripped from the Tombstone read back."""
    from memory.models import Tombstone, TombstoneKind
    from memory.values import index_entry, probe

    tomb = Tombstone(user_id="u", text="Lives in Bristol", normalized="lives in bristol",
                     kind=TombstoneKind.RETRACTED, actor="agent")
    key, terms = index_entry(tomb.text)
    src = {**tomb.model_dump(mode="json"), "seq": 1, "match_key": key, "match_terms": terms}
    cluster.on("POST", "/memdesk-tombstones/_search", lambda req: (200, hits_response(
        [] if "knn" in req.body else
        [{"_index": "memdesk-tombstones-v1", "_id": tomb.id, "_score": 1.0, "_source": src}])))
    p = probe("Based in Bristol")
    got = es_store.tombstone_candidates("u", p, hash_embedder.embed(["Based in Bristol"])[0], 5)
    assert got == [(tomb, None)]
    knn, lookup = cluster.find("POST", "/memdesk-tombstones/_search")
    assert knn.body["knn"]["filter"] == {"term": {"user_id": "u"}}
    q = lookup.body["query"]["bool"]
    assert q["filter"] == [{"term": {"user_id": "u"}}] and q["minimum_should_match"] == 1
    assert {"terms": {"match_key": p.keys}} in q["should"] and key in p.keys
    assert {"terms": {"match_terms": p.terms}} in q["should"]


def test_inv63_tombstone_writes_carry_the_lookup_fields(cluster, es_store):
    from memory.models import TombstoneKind
    from memory.stores.base import PutTombstone
    from memory.values import index_entry
    from tests.conftest import NOW

    svc = MemoryService(es_store, clock=fixed_clock(NOW))
    old = svc.build_fact("u", "Works at Acme Corp")
    tomb = tombstone_of(old, TombstoneKind.RETRACTED, "cli", None, NOW)
    es_store.apply([PutTombstone(tombstone=tomb)])
    (action, src), = cluster.find("PUT", "/_bulk")[-1].bulk_pairs
    assert action == {"create": {"_index": "memdesk-tombstones", "_id": tomb.id}}
    assert (src["match_key"], src["match_terms"]) == index_entry("Works at Acme Corp")


def test_inv169_the_bm25_leg_carries_the_lexicon_expansions(hash_embedder):
    cluster, store = store_with("basic", hash_embedder)
    svc = MemoryService(store, clock=fixed_clock(NOW))
    svc.recall("u", "which vehicle", purpose=Purpose.EVAL)
    bm25 = next(r for r in cluster.find("POST", r"/[^_].*/_search") if "query" in r.body)
    clauses = bm25.body["query"]["bool"]["should"]
    assert {"match": {"search_text": {"query": "automobile car", "operator": "or",
                                      "boost": 0.5}}} in clauses


def test_inv169_the_rrf_retriever_path_carries_the_lexicon_expansions_too(hash_embedder):
    """Issue 31: the one-request path dropped the lexicon's expansions, so the same question
    matched different words by licence. The rrf retriever's BM25 leg now holds the same weighted
    clauses as the client-side leg (standard retriever query:
    https://www.elastic.co/guide/en/elasticsearch/reference/8.15/retriever.html)."""
    cluster, store = store_with("trial", hash_embedder)
    svc = MemoryService(store, clock=fixed_clock(NOW))
    cfg = LEGACY_RRF.model_copy(update={"lexicon_weight": 0.5})  # plain rrf, with the lexicon
    svc.recall("u", "which vehicle", config=cfg, purpose=Purpose.EVAL)
    (rrf,) = [r for r in cluster.find("POST", r"/[^_].*/_search") if "retriever" in r.body]
    bm25 = rrf.body["retriever"]["rrf"]["retrievers"][0]["standard"]["query"]["function_score"]
    assert {"match": {"search_text": {"query": "automobile car", "operator": "or",
                                      "boost": 0.5}}} in bm25["query"]["bool"]["should"]


def test_inv21_recall_path_names_the_path_the_recall_took(hash_embedder):
    """A trial licence allows the rrf retriever, but only a plain-rrf ranking takes it: the
    default ranking fuses the legs in the client, and explain now says so."""
    cluster, store = store_with("trial", hash_embedder)
    svc = MemoryService(store, clock=fixed_clock(NOW))
    default = svc.recall("u", "tea", purpose=Purpose.EXPLAIN, explain=True)
    assert not any("retriever" in (r.body or {}) for r in cluster.find("POST", r"/.*/_search"))
    assert default.explain.path == "elasticsearch: client-side RRF"
    plain = svc.recall("u", "tea", config=LEGACY_RRF, purpose=Purpose.EXPLAIN, explain=True)
    assert plain.explain.path == "elasticsearch: rrf retriever"
