"""Request bodies for every search the store sends. Pure functions of plain values (no client),
so tests/es checks them against the shapes Elasticsearch documents.
"""

from __future__ import annotations

import math
from datetime import datetime

import numpy as np

from ...clock import as_utc
from ...models import MemoryKind
from ...ranking import RankingParams
from ..base import RecallFilter
from . import painless
from .indices import IndexNames

MAX_NUM_CANDIDATES = 10_000  # Elasticsearch's limit for knn num_candidates
SOURCE_EXCLUDES = ["vector"]  # vectors never travel back to the client


def leg_indices(names: IndexNames, flt: RecallFilter) -> list[str]:
    """The aliases a recall leg searches: the kinds asked for, plus catalog when asked."""
    out = [names.alias(k) for k in (MemoryKind.EPISODIC, MemoryKind.SEMANTIC, MemoryKind.PROCEDURAL)
           if k in flt.kinds]
    if flt.include_catalog:
        out.append(names.alias(MemoryKind.CATALOG))
    return out


def scope_filter(flt: RecallFilter) -> dict:
    """One user's documents of the asked kinds (facts only in the asked states), plus the
    owner-less catalog when asked. Used inside the knn `filter` and the BM25 `bool.filter`, so
    it is always a pre-filter (invariant 2, invariant 20)."""
    kinds = sorted(k.value for k in flt.kinds if k != MemoryKind.CATALOG)
    states = sorted(s.value for s in flt.fact_states)
    user_clause = {"bool": {"filter": [
        {"term": {"user_id": flt.user_id}},
        {"terms": {"kind": kinds}},
        # Facts must be in an allowed state; other kinds have no state.
        {"bool": {"should": [{"bool": {"must_not": [{"term": {"kind": "semantic"}}]}},
                             {"terms": {"state": states}}],
                  "minimum_should_match": 1}},
    ]}}
    should = [user_clause]
    if flt.include_catalog:
        should.append({"bool": {"filter": [{"term": {"kind": "catalog"}}],
                                "must_not": [{"exists": {"field": "user_id"}}]}})
    return {"bool": {"should": should, "minimum_should_match": 1}}


def bm25_query(flt: RecallFilter, text: str, context_boost: float = 0.0,
               extra_words: dict[float, str] | None = None) -> dict:
    """BM25 over `search_text`; with `context_boost` > 0 (issue 17) an episode also matches on
    its `context` field (the neighbouring turns of its session) at that weight, as the embedded
    store's context window does. Only the episodic index maps `context`: over the others the
    clause is a match on an unmapped field, which matches nothing and leaves their scores as
    they were (a document must still match `search_text` or `context`). Scoring note (docs/benchmarks.md, "Elasticsearch scoring"):
    the user scope is a filter, so it never scores, but term statistics stay per shard, i.e.
    shared by every user whose documents live on it."""
    match: list[dict] = [{"match": {"search_text": {"query": text, "operator": "or"}}}]
    if context_boost <= 0 and not extra_words:
        return {"bool": {"must": match, "filter": [scope_filter(flt)]}}
    if context_boost > 0:
        match.append({"match": {"context": {"query": text, "operator": "or",
                                            "boost": context_boost}}})
    # Invariant 169: the lexicon's other words for the question's, each weight one clause; a
    # document holding only such a word is found, below one holding the asked word.
    for weight, words in sorted((extra_words or {}).items(), reverse=True):
        match.append({"match": {"search_text": {"query": words, "operator": "or",
                                                "boost": weight}}})
    return {"bool": {"should": match, "minimum_should_match": 1, "filter": [scope_filter(flt)]}}


def num_candidates(k: int) -> int:
    return min(MAX_NUM_CANDIDATES, max(100, 2 * k))


# Invariant 97: approximate kNN explores num_candidates neighbours per shard and keeps the best
# k; "increasing num_candidates tends to improve the accuracy of the final k results" and
# Elasticsearch's default is 1.5 x k (knn-search.html, 8.15; "Optimize approximate kNN search
# performance and accuracy", elastic.co/docs/solutions/search/vector/knn/
# optimize-performance-accuracy: num_candidates is the search-time trade-off of HNSW indices;
# rescore_vector, 8.18+, only recovers what quantisation lost). Twice k by default, a setting
# (MEMDESK_ES_NUM_CANDIDATES, at least 2); bench/bench_knn_candidates.py measures the choice
# offline on an HNSW index with Lucene's defaults.
CANDIDATES_PER_K = 2.0


def checked_per_k(value: float) -> float:
    if not 2.0 <= value <= 20.0:
        raise ValueError(f"num_candidates per k must be between 2 and 20, got {value}")
    return float(value)


def leg_candidates(window: int, per: float = CANDIDATES_PER_K) -> int:
    """num_candidates of both dense legs (invariant 97): `per` x the window, so the graph
    search explores more than it keeps. The knn *query* in the rrf retriever's dense leg takes
    no `k` on 8.15 (KnnVectorQueryBuilder: field, query_vector, num_candidates, similarity,
    filter): it yields num_candidates hits per shard and the standard retriever keeps the
    `rank_window_size` = window best; the client-side leg asks k = window of the same
    num_candidates. Both paths run the same graph search (every index has one shard)."""
    return min(MAX_NUM_CANDIDATES, max(window, math.ceil(per * window)))


def _vec(vector: np.ndarray) -> list[float]:
    return [float(x) for x in np.asarray(vector, np.float32)]


def knn_section(flt: RecallFilter, vector: np.ndarray, k: int,
                per: float = CANDIDATES_PER_K) -> dict:
    """Top-level `knn` for the dense leg; the scope filter runs during the graph search."""
    return {"field": "vector", "query_vector": _vec(vector), "k": min(k, MAX_NUM_CANDIDATES),
            "num_candidates": leg_candidates(k, per), "filter": scope_filter(flt)}


def knn_query(flt: RecallFilter, vector: np.ndarray, k: int,
              per: float = CANDIDATES_PER_K) -> dict:
    """The `knn` *query* (not the knn retriever): it can be wrapped in function_score. Its
    top-k is the retriever's window; the scope filter is still a pre-filter."""
    return {"knn": {"field": "vector", "query_vector": _vec(vector),
                    "num_candidates": leg_candidates(k, per), "filter": scope_filter(flt)}}


def with_multipliers(query: dict, script: dict) -> dict:
    """function_score whose Painless script returns decay x use boost x prior; multiplied in."""
    return {"function_score": {"query": query, "functions": [{"script_score": {"script": script}}],
                               "score_mode": "multiply", "boost_mode": "multiply"}}


def bm25_search(names: IndexNames, flt: RecallFilter, text: str, limit: int,
                context_boost: float = 0.0, extra_words: dict[float, str] | None = None) -> dict:
    """Client-side path, BM25 leg: raw scores (memory.ranking.fuse applies the multipliers).
    `context_boost`: the episodes' session-context clause; `extra_words`: the lexicon's
    expansions by weight (bm25_query)."""
    return {"index": ",".join(leg_indices(names, flt)),
            "query": bm25_query(flt, text, context_boost, extra_words),
            "size": limit, "source_excludes": SOURCE_EXCLUDES, "track_total_hits": False}


def dense_search(names: IndexNames, flt: RecallFilter, vector: np.ndarray, limit: int,
                 per: float = CANDIDATES_PER_K) -> dict:
    """Client-side path, dense leg: cosine `_score` = (1 + cos) / 2, like the embedded store."""
    return {"index": ",".join(leg_indices(names, flt)),
            "knn": knn_section(flt, vector, limit, per),
            "size": limit, "source_excludes": SOURCE_EXCLUDES, "track_total_hits": False}


def rrf_search(names: IndexNames, flt: RecallFilter, text: str, vector: np.ndarray, window: int,
               now: datetime, params: RankingParams, explain: bool = False,
               context_boost: float = 0.0, extra_words: dict[float, str] | None = None,
               per_k: float = CANDIDATES_PER_K) -> dict:
    """One request: the rrf retriever over a standard BM25 leg and a standard leg holding a
    knn query, each wrapped in the multiplier function_score so every leg is re-ranked by the
    adjusted score before fusion, exactly as memory.ranking.fuse does.

    `explain: true` (per-leg ranks for the recall debugger, parsed by results.leg_ranks) only
    when explain is asked: on 8.16+ the rrf retriever runs its legs again for it and builds an
    explanation per hit (invariant 21). Candidate sets: the dense leg matches the client-side
    path exactly (leg_candidates); the BM25 leg keeps the `window` best by *adjusted* score
    among all matches, where the client-side path keeps the `window` best by raw BM25 — the same
    set whenever BM25 matches at most `window` documents (README: Running Elasticsearch).
    `context_boost`: the BM25 leg's session-context clause, as on the client-side path;
    `extra_words`: the lexicon's expansions (invariant 169), as on the client-side path
    (issue 31, invariant 169: the same BM25 query on both paths)."""
    script = painless.script(names, now, params)
    body = {
        "index": ",".join(leg_indices(names, flt)),
        "retriever": {"rrf": {
            "retrievers": [
                {"standard": {"query": with_multipliers(
                    bm25_query(flt, text, context_boost, extra_words), script)}},
                {"standard": {"query": with_multipliers(knn_query(flt, vector, window, per_k),
                                                        script)}},
            ],
            "rank_constant": params.rrf_k,
            "rank_window_size": window,
        }},
        "size": window,
        "source_excludes": SOURCE_EXCLUDES,
        "track_total_hits": False,
    }
    if explain:
        body["explain"] = True
    return body


TOMBSTONE_CANDIDATES = 10


def tombstone_knn(names: IndexNames, user_id: str, vector: np.ndarray, k: int) -> dict:
    """Candidates for the tombstone check, vectors included: the store re-scores them with an
    exact float32 cosine (invariant 98), because the int8_hnsw `_score` is quantised and would
    disagree with the embedded store near the similarity threshold. More candidates than k
    are fetched so the quantised order cannot push the exact nearest out."""
    n = max(k, TOMBSTONE_CANDIDATES)
    return {"index": names.alias("tombstones"),
            "knn": {"field": "vector", "query_vector": _vec(vector), "k": n,
                    "num_candidates": num_candidates(n),
                    "filter": {"term": {"user_id": user_id}}},
            "size": n}


TOMBSTONE_SCRIPT = "cosineSimilarity(params.query_vector, 'vector') + 1.0"


def tombstone_script(names: IndexNames, user_id: str, vector: np.ndarray, k: int) -> dict:
    """9.2+ (invariant 98): every tombstone of the user that has a vector, scored by the
    cluster with the exact cosine on the stored float vector — `_score` = cosine + 1 (a
    script_score may not be negative:
    https://www.elastic.co/docs/reference/query-languages/query-dsl/query-dsl-script-score-query).
    Nothing depends on vectors in `_source`, which 9.2 leaves out by default."""
    return {"index": names.alias("tombstones"),
            "query": {"script_score": {
                "query": {"bool": {"filter": [{"term": {"user_id": user_id}},
                                              {"exists": {"field": "vector"}}]}},
                "script": {"source": TOMBSTONE_SCRIPT, "params": {"query_vector": _vec(vector)}}}},
            "size": max(k, TOMBSTONE_CANDIDATES), "source_excludes": SOURCE_EXCLUDES,
            "track_total_hits": False}


def ms_floor(when: datetime) -> str:
    """`when` truncated to the millisecond, as Elasticsearch's `date` fields store and compare
    it (date.html: millisecond resolution; date_nanos for more)."""
    t = as_utc(when)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"


def tombstone_keys(names: IndexNames, user_id: str, keys: list[str], normalized: str,
                   terms: list[str], size: int) -> dict:
    """Tombstones with an equal canonical key or normalised text, or a shared slot term
    (memory/values.py; invariant 63): keyword lookups, never a scan of the user's tombstones."""
    should: list[dict] = [{"terms": {"match_key": keys}}, {"term": {"normalized": normalized}}]
    if terms:
        should.append({"terms": {"match_terms": terms}})
    return {"index": names.alias("tombstones"),
            "query": {"bool": {"filter": [{"term": {"user_id": user_id}}], "should": should,
                               "minimum_should_match": 1}},
            "size": size, "source_excludes": SOURCE_EXCLUDES}


def counts_aggs() -> dict:
    """Documents per kind and (facts) state; "all" for kinds without a state."""
    return {"kinds": {"terms": {"field": "kind", "size": 10},
                      "aggs": {"states": {"terms": {"field": "state", "missing": "all",
                                                    "size": 10}}}}}


USAGE_SCRIPT = """
if (ctx._source.user_id != params.user_id) { ctx.op = 'noop'; return; }
def n = ctx._source.containsKey('use_count') && ctx._source.use_count != null
  ? ctx._source.use_count : 0;
ctx._source.use_count = n + 1;
ctx._source.last_used_at = params.at;
""".strip()


def usage_id(kind: str, memory_id: str) -> str:
    """The usage document of one memory (invariant 24): kind and id, as memory ids are."""
    return f"{kind}:{memory_id}"


def usage_bump(at_iso: str, user_id: str, kind: str, memory_id: str) -> dict:
    """Scripted upsert into the usage index (invariant 24): the increment happens on the
    primary shard, never read-modify-write in the client (invariants 15, 24); a memory used for
    the first time gets the `upsert` document, a count of one (docs-update.html, "Upsert": the
    script runs only when the document exists). Another user's usage document is left alone."""
    return {"script": {"source": USAGE_SCRIPT, "lang": "painless",
                       "params": {"at": at_iso, "user_id": user_id}},
            "upsert": {"user_id": user_id, "kind": kind, "memory_id": memory_id,
                       "use_count": 1, "last_used_at": at_iso}}


def contradicted_sources(names: IndexNames, user_id: str, episode_ids: list[str]) -> dict:
    """Dead facts (retracted, rejected) of one user citing any of these episodes (issue 11,
    invariant 65). Only the fields the client needs travel back."""
    return {"index": names.alias("semantic"), "size": 10_000, "track_total_hits": False,
            "query": {"bool": {"filter": [
                {"term": {"user_id": user_id}},
                {"terms": {"state": ["rejected", "retracted"]}},
                {"terms": {"source_episode_ids": sorted(set(episode_ids))}}]}},
            "source_includes": ["user_id", "source_episode_ids", "flags"]}
