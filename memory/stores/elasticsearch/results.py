"""Between models and documents: `_source` bodies, and parsing rrf hits into RankedHit. Pure."""

from __future__ import annotations

import re
from datetime import datetime
from typing import TypeVar

import numpy as np

from ...models import MODEL_BY_KIND, MemoryKind, Record
from ...ranking import LegRank, RankedHit, RankingParams, multipliers, rrf
from ..base import AnyMemory

# context: issue 17; batch: the stamp of the batch that wrote the record (issue 31, intents.py)
DERIVED_FIELDS = ("kind", "search_text", "vector", "context", "batch")
R = TypeVar("R", bound=Record)
LEG_NAMES = ("bm25", "dense")  # the order of the rrf retriever's children (queries.rrf_search)


def to_source(doc: AnyMemory, vector: np.ndarray) -> dict:
    """The stored document: the model's JSON plus kind, search text and vector. Catalog
    documents carry no user_id field at all (the DLS catalog rule tests its absence)."""
    src = doc.model_dump(mode="json")
    if not doc.OWNED:
        src.pop("user_id", None)
    src.update(kind=doc.kind.value, search_text=doc.search_text())
    if has_direction(vector):
        src["vector"] = [float(x) for x in np.asarray(vector, np.float32)]
    # else: cosine rejects a zero vector (text with no tokens); the doc is BM25-only.
    return src


def has_direction(vector: np.ndarray) -> bool:
    return bool(np.any(np.asarray(vector, np.float32)))


def model_fields(src: dict) -> dict:
    return {k: v for k, v in src.items() if k not in DERIVED_FIELDS}


def from_source(src: dict) -> AnyMemory:
    kind = MemoryKind(src["kind"])
    # the class of the kind: which union member it is, mypy cannot tell from a dict lookup
    return MODEL_BY_KIND[kind].model_validate(model_fields(src))  # type: ignore[return-value]


def source_as(model: type[R], src: dict) -> R:
    """A source read from one kind's index (the alias holds that kind only) as its record."""
    return model.model_validate(model_fields(src))


_INITIAL = re.compile(r"computed for initial ranks \[([0-9,\s]*)\]")


def _find_rrf_node(node: dict) -> dict | None:
    if _INITIAL.search(node.get("description", "")):
        return node
    for child in node.get("details", []) or []:
        found = _find_rrf_node(child)
        if found is not None:
            return found
    return None


def leg_ranks(explanation: dict | None) -> list[tuple[int, float | None]] | None:
    """[(rank, leg score)] per child retriever from an rrf hit's `_explanation`.

    Elasticsearch writes "rrf score: [s] computed for initial ranks [r1, r2] with rankConstant:
    [k] ..." (rank 0 = not in that leg), one detail per leg whose first detail is that leg's
    own explanation (its value is the leg score after the function_score multipliers). Versions
    differ in nesting (8.16+ wraps it in "sum of:"), so the node is searched for. None when the
    text cannot be read; the caller then reports no leg detail rather than guessing."""
    if not explanation:
        return None
    node = _find_rrf_node(explanation)
    if node is None:
        return None
    found = _INITIAL.search(node["description"])
    if found is None:  # not reached: the node was chosen for matching
        return None
    ranks = [int(x) for x in found.group(1).replace(" ", "").split(",") if x]
    details = node.get("details", []) or []
    out = []
    for i, rank in enumerate(ranks):
        score = None
        if rank > 0 and i < len(details):
            inner = details[i].get("details") or []
            if inner and isinstance(inner[0].get("value"), (int, float)):
                score = float(inner[0]["value"])
        out.append((rank, score))
    return out


def ranked_hits(hits: list[dict], now: datetime, params: RankingParams) -> list[RankedHit]:
    """RankedHit objects from an rrf-retriever response. Multipliers are recomputed with the
    pure function the Painless script mirrors; leg ranks come from `_explanation`; the fused
    score is recomputed with memory.ranking.rrf and ties broken exactly as ranking.fuse does
    (invariant 21)."""
    rows = []
    for n, hit in enumerate(hits):
        doc = from_source(hit["_source"])
        m = multipliers(doc, now, params)
        legs: dict[str, LegRank] = {}
        parsed = leg_ranks(hit.get("_explanation"))
        for name, (rank, score) in zip(LEG_NAMES, parsed or [], strict=False):
            if rank > 0:
                adjusted = score if score is not None else float("nan")
                raw = adjusted / m.total if score is not None and m.total else adjusted
                legs[name] = LegRank(rank=rank, raw_score=raw, score=adjusted,
                                     contribution=1.0 / (params.rrf_k + rank))
        fused = rrf([lr.rank for lr in legs.values()], params.rrf_k) if legs else float(hit["_score"])
        best = min((lr.rank for lr in legs.values()), default=n + 1)
        rows.append((fused, best, doc.id, doc, legs, m))
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    return [RankedHit(doc=doc, rank=i + 1, fused_score=fused, legs=legs, multipliers=m)
            for i, (fused, _best, _id, doc, legs, m) in enumerate(rows)]
