"""The metrics on tiny hand-made cases whose recall and MRR are known by hand."""

from __future__ import annotations

import pytest

from memory.eval.metrics import (
    count_leaks,
    fractional_recall,
    hit_at,
    rank_of,
    reciprocal_rank,
    summarise_ranks,
)


@pytest.mark.parametrize("ranked, gold, rank", [
    (["a", "b", "c"], "a", 1),
    (["a", "b", "c"], "c", 3),
    (["a", "b", "c"], "z", None),
    ([], "a", None),
])
def test_rank_of(ranked, gold, rank):
    assert rank_of(ranked, gold) == rank


def test_recall_and_mrr_on_four_questions():
    # Gold ranks 1, 3, 7 and absent: R@1 = 1/4, R@5 = 2/4, R@10 = 3/4, MRR = (1 + 1/3 + 1/7) / 4.
    s = summarise_ranks([1, 3, 7, None])
    assert (s.n, s.r1, s.r5, s.r10) == (4, 0.25, 0.5, 0.75)
    assert s.mrr == pytest.approx((1 + 1 / 3 + 1 / 7) / 4)
    assert hit_at(5, 5) == 1.0 and hit_at(6, 5) == 0.0 and hit_at(None, 10) == 0.0
    assert reciprocal_rank(4) == 0.25 and reciprocal_rank(None) == 0.0


def test_empty_group_scores_zero_not_one():
    assert summarise_ranks([]).r10 == 0.0


def test_fractional_recall_counts_the_share_of_evidence_in_top_k():
    ranked = ["D1:1", "D2:5", "D3:3", "D4:4"]
    assert fractional_recall(ranked, ["D1:1", "D3:3"], 2) == 0.5
    assert fractional_recall(ranked, ["D1:1", "D3:3"], 3) == 1.0
    assert fractional_recall(ranked, ["D9:9"], 4) == 0.0
    assert fractional_recall(ranked, [], 1) == 1.0  # no evidence counts as 1 (official scoring)


def test_leak_counter_catches_a_planted_leak():
    assert count_leaks("ana", ["ana", "ana", None]) == 0  # catalog (no owner) is shared, not a leak
    assert count_leaks("ana", ["ana", "ben", None, "ben"]) == 2
