"""Recall as configuration: one pydantic config and named presets (pick presets by name)."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .models import FactState, MemoryKind
from .ranking import RankingParams


class Purpose(StrEnum):
    AGENT = "agent"  # bumps last_used_at / use_count on returned facts and playbooks
    EXPLAIN = "explain"  # the recall debugger: read-only
    EVAL = "eval"  # evaluation runs: read-only, so runs are repeatable


class RecallConfig(BaseModel):
    model_config = ConfigDict(frozen=True)
    k: int = Field(10, ge=1, le=200)
    candidates: int = Field(80, ge=1, le=1000, description="per-leg candidate window")
    use_bm25: bool = True
    use_dense: bool = True
    ranking: RankingParams = RankingParams()
    rerank: str = Field("none", description="reranker name; see memory.rerank.RERANKERS")
    # Issue 17: the shared catalog is eligible by default, behind `ranking.catalog_prior`.
    include_catalog: bool = True
    include_superseded: bool = False
    use_time: bool = Field(True, description="read time in the question (memory.temporal): "
                           "history questions see superseded facts; named dates boost")
    # Third pass (invariant 153): the user's own name in a question is a reference, not evidence.
    drop_names: Literal["off", "bm25", "both"] = Field(
        "bm25", description="drop the user's own names from the BM25 query / and the embedded "
        "query text, when other content words remain")
    # Twelfth pass (invariant 153): facts are in the third person, so the question's "he" / "her"
    # pulls the dense leg to pronoun-heavy short facts; the embedded query text goes without them.
    dense_drop_pronouns: bool = Field(True, description="drop he/his/him/she/her/hers from the "
                                      "embedded query text when other content words remain")
    # recall6 (invariant 169): the general-English lexicon's other words for the question's words
    # join the BM25 query at this weight (memory.lexicon); 0 = off. Both stores (invariant 169).
    lexicon_weight: float = Field(0.5, ge=0.0, le=1.0, description="BM25 weight of the "
                                  "lexicon's expansions of the question's words; 0 = off")
    kinds: frozenset[MemoryKind] = frozenset(
        {MemoryKind.EPISODIC, MemoryKind.SEMANTIC, MemoryKind.PROCEDURAL}
    )

    def fact_states(self) -> frozenset[FactState]:
        """Agent recall sees active facts; superseded only on request; never the rest (inv. 6)."""
        if self.include_superseded:
            return frozenset({FactState.ACTIVE, FactState.SUPERSEDED})
        return frozenset({FactState.ACTIVE})


DEFAULT = RecallConfig()  # hybrid BM25 + dense, decay and use boost, no rerank
WITH_CATALOG = RecallConfig(include_catalog=True)  # what the chat agent uses
NO_DECAY = RecallConfig(ranking=RankingParams(use_decay=False))  # ablation: no time decay
NO_BOOST = RecallConfig(ranking=RankingParams(use_boost=False))  # ablation: no use-count boost
BM25_ONLY = RecallConfig(use_dense=False)  # ablation: lexical leg alone
DENSE_ONLY = RecallConfig(use_bm25=False)  # ablation: dense leg alone
HISTORY = RecallConfig(include_superseded=True)  # superseded facts too, as history
# RRF k=10 instead of 30: rewards agreement near the top of each leg. Measured by issue 7 (LoCoMo
# R@10 54.4 -> 62.1, persona questions unchanged; docs/benchmarks.md "Evaluation").
# Every kind's dense leg alike (distilled_dense_weight None, as before the fourteenth pass): plain
# RRF, which a store's one-request hybrid path serves.
SHARP_RRF = RecallConfig(ranking=RankingParams(fusion="rrf", dense_weight=1.0, rrf_k=10,
                                               distilled_dense_weight=None))
# Issue 17: the ranking before it (equal-weight RRF k=30, no post-fusion multipliers, no catalog),
# kept for comparison and for stores whose one-request path only does plain RRF.
LEGACY_RRF = RecallConfig(include_catalog=False, use_time=False, drop_names="off", lexicon_weight=0.0,
                          dense_drop_pronouns=False,
                          ranking=RankingParams(
    fusion="rrf", dense_weight=1.0, distilled_dense_weight=None, question_weight=1.0,
    past_weight=1.0, window_boost=1.0,
    source_lift=1.0, chain_lift=1.0, sourced_weight=1.0, tail_from=0, weak_dense_weight=None))
# Demote a turn whose session neighbour already ranks higher (measured: LoCoMo tune R@10 -0.5,
# persona tuning R@5 +0.02, so it is not the default).
DIVERSE = RecallConfig(ranking=RankingParams(adjacent_weight=0.9))
NO_CATALOG = RecallConfig(include_catalog=False)

PRESETS: dict[str, RecallConfig] = {
    "default": DEFAULT,
    "with_catalog": WITH_CATALOG,
    "no_decay": NO_DECAY,
    "no_boost": NO_BOOST,
    "bm25_only": BM25_ONLY,
    "dense_only": DENSE_ONLY,
    "history": HISTORY,
    "sharp_rrf": SHARP_RRF,
    "legacy_rrf": LEGACY_RRF,
    "diverse": DIVERSE,
    "no_catalog": NO_CATALOG,
}
