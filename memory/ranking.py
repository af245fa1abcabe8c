"""Pure ranking functions shared by every backend: decay, use-count boost, catalog prior, RRF.

Each retrieval leg's raw score is multiplied by the document's multipliers, the leg is re-ranked
by that adjusted score, and the legs are fused with reciprocal rank fusion. The Elasticsearch
store computes the same multipliers in Painless (function_score) and must agree with this file
(invariant 17).
"""

from __future__ import annotations

import math
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from .clock import as_utc
from .models import MemoryKind
from .stores.base import AnyMemory, LegHit

DAY_MS = 86_400_000.0


class RankingParams(BaseModel):
    model_config = ConfigDict(frozen=True)
    rrf_k: int = Field(30, description="RRF rank constant")
    decay_offset_days: float = 180.0
    decay_scale_days: float = 1825.0
    decay_at_scale: float = Field(0.5, description="multiplier at offset + scale")
    use_boost_weight: float = 0.2
    catalog_prior: float = 0.85
    use_decay: bool = True
    use_boost: bool = True


class Multipliers(BaseModel):
    decay: float = 1.0
    use_boost: float = 1.0
    prior: float = 1.0

    @property
    def total(self) -> float:
        return self.decay * self.use_boost * self.prior


def gauss_decay(age_days: float, params: RankingParams) -> float:
    """Elasticsearch's gauss decay: 1 inside the offset, `decay_at_scale` at offset + scale."""
    distance = max(0.0, abs(age_days) - params.decay_offset_days)
    return math.exp(math.log(params.decay_at_scale) * (distance / params.decay_scale_days) ** 2)


def use_boost(use_count: int, params: RankingParams) -> float:
    return 1.0 + math.log10(1.0 + max(0, use_count)) * params.use_boost_weight


def decay_time(doc: AnyMemory) -> datetime | None:
    """Which clock decays: episodes on when they were said, facts on last use, others none."""
    if doc.kind == MemoryKind.EPISODIC:
        return doc.timestamp  # type: ignore[union-attr]
    if doc.kind == MemoryKind.SEMANTIC:
        return doc.last_used_at  # type: ignore[union-attr]
    return None


def multipliers(doc: AnyMemory, now: datetime, params: RankingParams) -> Multipliers:
    """Missing fields give 1.0, exactly as the Painless script does."""
    m = Multipliers()
    if params.use_decay:
        t = decay_time(doc)
        if t is not None:
            age_days = (as_utc(now).timestamp() - as_utc(t).timestamp()) * 1000.0 / DAY_MS
            m.decay = gauss_decay(age_days, params)
    if params.use_boost and doc.kind == MemoryKind.SEMANTIC:
        m.use_boost = use_boost(doc.use_count, params)  # type: ignore[union-attr]
    if doc.kind == MemoryKind.CATALOG:
        m.prior = params.catalog_prior
    return m


class LegRank(BaseModel):
    rank: int
    raw_score: float
    score: float = Field(description="raw score times the multipliers")


class RankedHit(BaseModel):
    """One fused result with everything needed to explain its position."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    doc: AnyMemory
    rank: int
    fused_score: float
    legs: dict[str, LegRank]
    multipliers: Multipliers
    rerank_score: float | None = None

    @property
    def id(self) -> str:
        return self.doc.id


def rank_leg(hits: list[LegHit], now: datetime, params: RankingParams) -> list[tuple[LegHit, LegRank, Multipliers]]:
    scored = []
    for hit in hits:
        m = multipliers(hit.doc, now, params)
        scored.append((hit, hit.score * m.total, m))
    # Stable order on ties: higher adjusted score, then the leg's own order.
    scored.sort(key=lambda t: -t[1])
    return [(h, LegRank(rank=i + 1, raw_score=h.score, score=s), m)
            for i, (h, s, m) in enumerate(scored)]


def rrf(ranks: list[int], k: int) -> float:
    return sum(1.0 / (k + r) for r in ranks)


def fuse(legs: dict[str, list[LegHit]], now: datetime, params: RankingParams) -> list[RankedHit]:
    """Adjust each leg by the multipliers, re-rank it, and fuse the legs with RRF."""
    docs: dict[str, AnyMemory] = {}
    leg_ranks: dict[str, dict[str, LegRank]] = {}
    mults: dict[str, Multipliers] = {}
    for name, hits in legs.items():
        for hit, lr, m in rank_leg(hits, now, params):
            docs.setdefault(hit.doc.id, hit.doc)
            mults.setdefault(hit.doc.id, m)
            leg_ranks.setdefault(hit.doc.id, {})[name] = lr
    fused = {i: rrf([lr.rank for lr in leg_ranks[i].values()], params.rrf_k) for i in docs}
    # Ties (common with RRF) break on the best single-leg rank, then id, so order is stable.
    order = sorted(docs, key=lambda i: (-fused[i], min(lr.rank for lr in leg_ranks[i].values()), i))
    return [RankedHit(doc=docs[i], rank=n + 1, fused_score=fused[i], legs=leg_ranks[i],
                      multipliers=mults[i]) for n, i in enumerate(order)]
