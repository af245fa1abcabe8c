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
from .models import AnyMemory, LegHit, MemoryKind

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


def _multiplier_values(doc: AnyMemory, now_s: float, params: RankingParams) -> tuple[float, float, float]:
    """(decay, use_boost, prior) as plain floats: the hot path of every recall."""
    decay = boost = prior = 1.0
    kind = doc.kind
    if params.use_decay:
        t = doc.decay_time()
        if t is not None:
            decay = gauss_decay((now_s - t.timestamp()) * 1000.0 / DAY_MS, params)
    if params.use_boost and kind == MemoryKind.SEMANTIC:
        boost = use_boost(doc.use_count, params)  # type: ignore[union-attr]
    if kind == MemoryKind.CATALOG:
        prior = params.catalog_prior
    return decay, boost, prior


def multipliers(doc: AnyMemory, now: datetime, params: RankingParams) -> Multipliers:
    """Missing fields give 1.0, exactly as the Painless script does."""
    decay, boost, prior = _multiplier_values(doc, as_utc(now).timestamp(), params)
    return Multipliers(decay=decay, use_boost=boost, prior=prior)


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


def rrf(ranks: list[int], k: int) -> float:
    return sum(1.0 / (k + r) for r in ranks)


def fuse(legs: dict[str, list[LegHit]], now: datetime, params: RankingParams,
         limit: int | None = None) -> list[RankedHit]:
    """Adjust each leg by the multipliers, re-rank it, and fuse the legs with RRF.

    Plain floats throughout; explain objects are built only for the `limit` hits returned
    (a recall fuses ~160 candidates to keep 10)."""
    now_s = as_utc(now).timestamp()
    docs: dict[str, AnyMemory] = {}
    mults: dict[str, tuple[float, float, float]] = {}
    ranks: dict[str, dict[str, tuple[int, float, float]]] = {}
    for name, hits in legs.items():
        scored = []
        for order, hit in enumerate(hits):
            i = hit.doc.id
            m = mults.get(i)
            if m is None:
                m = mults[i] = _multiplier_values(hit.doc, now_s, params)
                docs[i] = hit.doc
            scored.append((-(hit.score * m[0] * m[1] * m[2]), order, hit.score, i))
        # Higher adjusted score first; ties keep the leg's own order.
        scored.sort()
        for rank, (neg, _, raw, i) in enumerate(scored, 1):
            ranks.setdefault(i, {})[name] = (rank, raw, -neg)
    k = params.rrf_k
    fused = {i: rrf([r[0] for r in leg.values()], k) for i, leg in ranks.items()}
    # Ties (common with RRF) break on the best single-leg rank, then id, so order is stable.
    order = sorted(fused, key=lambda i: (-fused[i], min(r[0] for r in ranks[i].values()), i))
    if limit is not None:
        order = order[:limit]
    out = []
    for n, i in enumerate(order, 1):
        d, b, p = mults[i]
        out.append(RankedHit.model_construct(
            doc=docs[i], rank=n, fused_score=fused[i], rerank_score=None,
            legs={name: LegRank.model_construct(rank=r, raw_score=raw, score=adj)
                  for name, (r, raw, adj) in ranks[i].items()},
            multipliers=Multipliers.model_construct(decay=d, use_boost=b, prior=p)))
    return out
