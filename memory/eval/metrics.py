"""Pure retrieval metrics: recall@k, reciprocal rank, fractional evidence recall, leak counting.

Everything here takes plain values (ranked id lists, owner lists) so it is tested on tiny
hand-made cases without a store.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import BaseModel


def rank_of(ranked_ids: Sequence[str], gold_id: str) -> int | None:
    """1-based position of the gold id in the ranking, or None when it is absent."""
    for i, doc_id in enumerate(ranked_ids, start=1):
        if doc_id == gold_id:
            return i
    return None


def hit_at(rank: int | None, k: int) -> float:
    """Recall@k for one question with one gold document: 1.0 if found within k, else 0.0."""
    return 1.0 if rank is not None and rank <= k else 0.0


def reciprocal_rank(rank: int | None) -> float:
    return 0.0 if rank is None else 1.0 / rank


def fractional_recall(ranked_ids: Sequence[str], evidence: Iterable[str], k: int) -> float:
    """LoCoMo's "recall accuracy": the share of a question's evidence found in the top k.

    A question with no evidence counts as 1.0, as in the official scoring code."""
    wanted = set(evidence)
    if not wanted:
        return 1.0
    return len(wanted & set(ranked_ids[:k])) / len(wanted)


def count_leaks(asking_user: str, owners: Iterable[str | None]) -> int:
    """Hits owned by anyone but the asker. Owner-less (catalog) documents are shared, not leaks."""
    return sum(1 for owner in owners if owner is not None and owner != asking_user)


class RankSummary(BaseModel):
    """Recall@1/5/10 and MRR over a group of single-gold questions."""

    n: int
    r1: float
    r5: float
    r10: float
    mrr: float


def summarise_ranks(ranks: Sequence[int | None]) -> RankSummary:
    n = len(ranks)
    if n == 0:
        return RankSummary(n=0, r1=0.0, r5=0.0, r10=0.0, mrr=0.0)
    return RankSummary(
        n=n,
        r1=sum(hit_at(r, 1) for r in ranks) / n,
        r5=sum(hit_at(r, 5) for r in ranks) / n,
        r10=sum(hit_at(r, 10) for r in ranks) / n,
        mrr=sum(reciprocal_rank(r) for r in ranks) / n,
    )


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0
