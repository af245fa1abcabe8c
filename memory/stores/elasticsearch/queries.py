"""Request bodies for every search the store sends. Pure functions of plain values (no client),
so tests/es checks them against the shapes Elasticsearch documents.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np

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


def bm25_query(flt: RecallFilter, text: str, context_boost: float = 0.0) -> dict:
    """BM25 over `search_text`; with `context_boost` > 0 (issue 17) an episode also matches on
    its `context` field (the neighbouring turns of its session) at that weight, as the embedded
    store's context window does. Scoring note (docs/benchmarks.md, "Elasticsearch scoring"):
    the user scope is a filter, so it never scores, but term statistics stay per shard, i.e.
    shared by every user whose documents live on it."""
    match = [{"match": {"search_text": {"query": text, "operator": "or"}}}]
    if context_boost <= 0:
        return {"bool": {"must": match, "filter": [scope_filter(flt)]}}
    match.append({"match": {"context": {"query": text, "operator": "or", "boost": context_boost}}})
    return {"bool": {"should": match, "minimum_should_match": 1, "filter": [scope_filter(flt)]}}


def num_candidates(k: int) -> int:
    return min(MAX_NUM_CANDIDATES, max(100, 2 * k))


def _vec(vector: np.ndarray) -> list[float]:
    return [float(x) for x in np.asarray(vector, np.float32)]


def knn_section(flt: RecallFilter, vector: np.ndarray, k: int) -> dict:
    """Top-level `knn` for the dense leg; the scope filter runs during the graph search."""
    return {"field": "vector", "query_vector": _vec(vector), "k": k,
            "num_candidates": num_candidates(k), "filter": scope_filter(flt)}


def knn_query(flt: RecallFilter, vector: np.ndarray, k: int) -> dict:
    """The `knn` *query* (not the knn retriever): it can be wrapped in function_score. Its
    top-k is the retriever's window; the scope filter is still a pre-filter."""
    return {"knn": {"field": "vector", "query_vector": _vec(vector),
                    "num_candidates": num_candidates(k), "filter": scope_filter(flt)}}


def with_multipliers(query: dict, script: dict) -> dict:
    """function_score whose Painless script returns decay x use boost x prior; multiplied in."""
    return {"function_score": {"query": query, "functions": [{"script_score": {"script": script}}],
                               "score_mode": "multiply", "boost_mode": "multiply"}}


def bm25_search(names: IndexNames, flt: RecallFilter, text: str, limit: int) -> dict:
    """Client-side path, BM25 leg: raw scores (memory.ranking.fuse applies the multipliers)."""
    return {"index": ",".join(leg_indices(names, flt)), "query": bm25_query(flt, text),
            "size": limit, "source_excludes": SOURCE_EXCLUDES, "track_total_hits": False}


def dense_search(names: IndexNames, flt: RecallFilter, vector: np.ndarray, limit: int) -> dict:
    """Client-side path, dense leg: cosine `_score` = (1 + cos) / 2, like the embedded store."""
    return {"index": ",".join(leg_indices(names, flt)), "knn": knn_section(flt, vector, limit),
            "size": limit, "source_excludes": SOURCE_EXCLUDES, "track_total_hits": False}


def rrf_search(names: IndexNames, flt: RecallFilter, text: str, vector: np.ndarray, window: int,
               now: datetime, params: RankingParams) -> dict:
    """One request: the rrf retriever over a standard BM25 leg and a standard leg holding a
    knn query, each wrapped in the multiplier function_score so every leg is re-ranked by the
    adjusted score before fusion, exactly as memory.ranking.fuse does. `explain` carries the
    per-leg ranks back (parsed by store._leg_ranks)."""
    script = painless.script(names, now, params)
    return {
        "index": ",".join(leg_indices(names, flt)),
        "retriever": {"rrf": {
            "retrievers": [
                {"standard": {"query": with_multipliers(bm25_query(flt, text), script)}},
                {"standard": {"query": with_multipliers(knn_query(flt, vector, window), script)}},
            ],
            "rank_constant": params.rrf_k,
            "rank_window_size": window,
        }},
        "size": window,
        "explain": True,
        "source_excludes": SOURCE_EXCLUDES,
        "track_total_hits": False,
    }


def tombstone_knn(names: IndexNames, user_id: str, vector: np.ndarray, k: int) -> dict:
    return {"index": names.alias("tombstones"),
            "knn": {"field": "vector", "query_vector": _vec(vector), "k": k,
                    "num_candidates": num_candidates(k),
                    "filter": {"term": {"user_id": user_id}}},
            "size": k, "source_excludes": SOURCE_EXCLUDES}


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


def usage_bump(at_iso: str, user_id: str) -> dict:
    """Scripted update: the increment happens on the primary shard, never read-modify-write in
    the client (invariant 15, invariant 24)."""
    return {"script": {"source": USAGE_SCRIPT, "lang": "painless",
                       "params": {"at": at_iso, "user_id": user_id}}}
