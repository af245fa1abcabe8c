"""The recall pipeline behind `MemoryService.recall` (issue 17): plan, legs, fusion, adjust.

1. Plan: what the question says about time (memory.temporal) widens the fact states — superseded
   versions become eligible for "before ...", "when ...", "back in June" questions.
2. Legs: BM25 and dense, each pre-filtered to the user (invariant 2), or the store's one-request
   hybrid path when it has one and the fusion is plain RRF (it ranks the same way, invariant 17).
3. Fusion (memory.ranking.fuse), then `adjust`: question episodes, history, named times, session
   diversification. Then an optional reranker; the caller cuts the top k.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from . import contradicted
from .clock import as_utc
from .embeddings import Embedder
from .lexical import analyse, without_names, without_pronouns
from .lexicon import expansions
from .models import Fact, FactState, MemoryKind
from .ranking import (
    Candidate,
    RankedHit,
    RankingParams,
    adjust,
    fuse_candidates,
    kind_dense_weights,
    multiplier_values,
    term_coverage,
)
from .rerank import Reranker
from .search_config import Purpose, RecallConfig
from .stores.base import Capability, LegHit, RecallFilter, Store
from .temporal import TimeIntent, time_intent


class Retrieved(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    hits: list[RankedHit]
    legs: dict[str, list]
    intent: TimeIntent
    filter: RecallFilter
    contradicted: set[str] = set()  # episodes behind never-true values (invariant 65)
    # What the explain view shows of the query side: the BM25 query after dropping the user's
    # own name (invariant 153) and the dense weight this query got (invariant 154).
    lexical_query: str = ""
    dense_weight: float | None = None
    lexical_coverage: float | None = None
    # invariant 154: the dense weight of facts, playbooks and catalog when it differs
    distilled_dense_weight: float | None = None
    # invariant 169: the lexicon's words the BM25 leg also scored, with their weight
    lexical_extra: dict[str, float] = {}


def plan_filter(user_id: str, config: RecallConfig, intent: TimeIntent) -> RecallFilter:
    states = set(config.fact_states())
    if config.use_time and intent.history:
        states.add(FactState.SUPERSEDED)  # history, never the never-true states (invariants 6, 102)
    return RecallFilter(user_id=user_id, kinds=config.kinds, fact_states=frozenset(states),
                        include_catalog=config.include_catalog)


def chain_members(store: Store, flt: RecallFilter, cands: list[Candidate], now: datetime,
                  params: RankingParams) -> list[Candidate]:
    """The versions of the best candidates' facts that the legs missed (invariant 158): a
    history question names one version ("before Helio Health") and asks for another, which may
    share none of its words. Only the user's own facts in an eligible state (invariant 6)."""
    if MemoryKind.SEMANTIC not in flt.kinds:
        return []
    have = {c.doc.id for c in cands}
    todo = [link for c in cands[:params.chain_top] if isinstance(c.doc, Fact)
            for link in (c.doc.supersedes, c.doc.superseded_by) if link is not None]
    out: list[Candidate] = []
    now_s = as_utc(now).timestamp()
    while todo and len(out) < 4 * params.chain_top:
        fid = todo.pop()
        if fid in have:
            continue
        have.add(fid)
        doc = store.get(MemoryKind.SEMANTIC, flt.user_id, fid)
        if not isinstance(doc, Fact) or doc.user_id != flt.user_id \
                or doc.state not in flt.fact_states:
            continue
        out.append(Candidate(doc, 0.0, {}, multiplier_values(doc, now_s, params), None))
        todo += [link for link in (doc.supersedes, doc.superseded_by) if link is not None]
    return out


def query_texts(store: Store, user_id: str, query: str, config: RecallConfig) -> tuple[str, str]:
    """The lexical leg's query and the dense leg's (the text it embeds), as recall rewrites
    them; bench/bench_compare.py embeds the latter ahead of its timed calls."""
    lex_query = dense_query = query
    if config.drop_names != "off":  # invariant 153: the user's name is a reference
        lex_query = without_names(query, store.user_names(user_id))
        if config.drop_names == "both":
            dense_query = lex_query
    if config.dense_drop_pronouns:  # invariant 153: "he" / "her" are no evidence for the dense leg
        dense_query = without_pronouns(dense_query)
    return lex_query, dense_query


def retrieve(store: Store, embedder: Embedder, user_id: str, query: str, config: RecallConfig,
             now: datetime, reranker: Reranker | None = None, *,
             purpose: Purpose = Purpose.AGENT, explain: bool = False) -> Retrieved:
    intent = time_intent(query, now) if config.use_time else TimeIntent()
    if intent.tense_only and config.ranking.tense_superseded_weight > 0:
        # invariant 158: a past-tense question may ask for a superseded version
        intent = intent.model_copy(update={"history": True})
    flt = plan_filter(user_id, config, intent)
    params = config.ranking
    lex_query, dense_query = query_texts(store, user_id, query, config)
    legs: dict[str, list] = {}
    cov: float | None = None
    extra: dict[str, float] = {}
    hits: list[RankedHit] | list[Candidate] | None = None
    plain_rrf = (params.fusion == "rrf" and params.bm25_weight == params.dense_weight == 1.0
                 and params.distilled_dense_weight in (None, 1.0))
    # A store with a one-request hybrid path (Elasticsearch's rrf retriever) ranks like
    # memory/ranking.py (invariant 21); it answers None when its licence lacks the feature.
    if Capability.HYBRID_SEARCH in store.capabilities and config.use_bm25 \
            and config.use_dense and plain_rrf:
        vec = embedder.embed([dense_query])[0]
        # invariant 169: the lexicon's expansions on this path too (issue 31)
        if Capability.WEIGHTED_TERMS in store.capabilities:
            extra = expansions(analyse(lex_query), config.lexicon_weight)
        fused = (store.hybrid_search(flt, lex_query, vec, config.candidates, now, params,
                                     explain=explain, extra=extra) if extra else
                 store.hybrid_search(flt, lex_query, vec, config.candidates, now, params,
                                     explain=explain))
        if fused is not None:
            legs = {n: [h for h in fused if n in h.legs] for n in ("bm25", "dense")}
            # invariant 65: episodes behind a never-true value never reach the agent
            legs, fused, contra = contradicted.screen(store, user_id, purpose, legs, fused)
            hits = fused
    if hits is None:
        leg_hits: dict[str, list[LegHit]] = {}
        if config.use_bm25:
            # invariant 169: the lexicon's other words for the question's, at a lower weight
            if Capability.WEIGHTED_TERMS in store.capabilities:
                extra = expansions(analyse(lex_query), config.lexicon_weight)
            leg_hits["bm25"] = (store.search_bm25(flt, lex_query, config.candidates, extra=extra)
                                if extra else store.search_bm25(flt, lex_query, config.candidates))
        if config.use_dense:
            vec = embedder.embed([dense_query])[0]
            leg_hits["dense"] = store.search_dense(flt, vec, config.candidates)
        leg_hits, _, contra = contradicted.screen(store, user_id, purpose, leg_hits, None)
        legs = dict(leg_hits)
        if params.weak_dense_weight is not None and leg_hits.get("bm25") and "dense" in leg_hits:
            # invariant 154: how much of the question the best lexical hit holds
            top = leg_hits["bm25"][:params.coverage_hits]
            # the store's own account of each document's indexed words when it gives one (the
            # embedded store: context and source words too), else the hit's own text
            cov = term_coverage(analyse(lex_query), [
                t for h in top for t in (h.matched if h.matched is not None and
                                         params.coverage_context else analyse(h.doc.search_text()))],
                weights=top[0].term_idf if params.coverage_idf else None)  # invariant 154
            params = kind_dense_weights(cov, params, intent.event)  # invariant 154
        hits = fuse_candidates(leg_hits, now, params)
        if intent.history and not intent.tense_only and params.chain_resolve > 0 \
                and params.chain_top > 0:  # invariant 158: tense alone names no version
            hits = hits + chain_members(store, flt, hits, now, params)
    # Without a reranker only the top k need their final order.
    # invariant 193: a question naming the user (the name dropped above) is about a person
    hits = adjust(hits, intent, params, limit=None if reranker else config.k, query=query,
                  names_user=lex_query != query)
    if reranker is not None:
        hits = reranker.rerank(query, hits)
    return Retrieved(hits=hits[: config.k], legs=legs, intent=intent, filter=flt,
                     contradicted=contra, lexical_query=lex_query,
                     dense_weight=params.dense_weight if config.use_dense else None,
                     lexical_coverage=cov, lexical_extra=extra,
                     distilled_dense_weight=params.distilled_dense_weight
                     if config.use_dense and params.distilled_dense_weight != params.dense_weight
                     else None)
