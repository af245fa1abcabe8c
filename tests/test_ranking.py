"""Pure ranking: decay, use boost, prior, RRF — invariant 17, tested without a store."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest

from memory.models import CatalogDoc, Episode, Fact, Playbook
from memory.ranking import (
    RankingParams,
    adaptive_dense_weight,
    fuse,
    gauss_decay,
    kind_dense_weights,
    multipliers,
    rrf,
    use_boost,
)
from memory.stores.base import LegHit
from tests.conftest import NOW

# the RRF path, every kind's dense leg alike (invariant 154 off); score fusion: test_fusion.py
P = RankingParams(fusion="rrf", dense_weight=1.0, distilled_dense_weight=None)


@pytest.mark.parametrize("age, expected", [
    (0, 1.0), (90, 1.0), (180, 1.0),  # inside the offset nothing decays
    (180 + 1825, 0.5),  # at offset + scale the multiplier is `decay`
    (-(180 + 1825), 0.5),  # symmetric, like Elasticsearch's gauss
    (180 + 2 * 1825, 0.5 ** 4),  # Gaussian: (2 scales)^2 = 4 halvings
])
def test_gauss_decay_matches_elasticsearch_definition(age, expected):
    assert gauss_decay(age, P) == pytest.approx(expected)


@pytest.mark.parametrize("uses, expected", [(0, 1.0), (9, 1.2), (99, 1.4)])
def test_use_boost(uses, expected):
    assert use_boost(uses, P) == pytest.approx(expected)


def test_multipliers_per_kind_and_missing_fields():
    old_ep = Episode(user_id="u", text="x", timestamp=NOW - timedelta(days=180 + 1825))
    assert multipliers(old_ep, NOW, P).decay == pytest.approx(0.5)
    never_used = Fact(user_id="u", text="x")
    m = multipliers(never_used, NOW, P)
    assert (m.decay, m.use_boost, m.prior) == (1.0, 1.0, 1.0)  # missing last_used_at → 1.0
    used = Fact(user_id="u", text="x", use_count=9, last_used_at=NOW - timedelta(days=180 + 1825))
    assert multipliers(used, NOW, P).total == pytest.approx(0.5 * 1.2)
    pb = Playbook(user_id="u", name="n", trigger="t", steps=["s"], use_count=99)
    assert multipliers(pb, NOW, P).total == 1.0  # procedural: no decay, no boost
    assert multipliers(CatalogDoc(title="t", text="x"), NOW, P).prior == pytest.approx(P.catalog_prior)
    assert multipliers(old_ep, NOW, RankingParams(use_decay=False)).decay == 1.0


def test_rrf_sums_reciprocal_ranks():
    assert rrf([1, 3], 30) == pytest.approx(1 / 31 + 1 / 33)


def test_fuse_prefers_documents_both_legs_agree_on():
    a, b, c = (Fact(user_id="u", text=t) for t in ("a", "b", "c"))
    legs = {
        "bm25": [LegHit(doc=a, score=9.0), LegHit(doc=b, score=5.0)],
        "dense": [LegHit(doc=c, score=0.9), LegHit(doc=b, score=0.8)],
    }
    hits = fuse(legs, NOW, P)
    assert hits[0].id == b.id and {h.id for h in hits[1:]} == {a.id, c.id}
    # a and c tie (each first in one leg): the tie breaks on id, so the order is stable
    assert [h.id for h in hits[1:]] == sorted([a.id, c.id])
    assert hits[0].legs["bm25"].rank == 2 and hits[0].legs["dense"].rank == 2
    assert hits[0].fused_score == pytest.approx(2 / 32)
    assert [h.rank for h in hits] == [1, 2, 3]


def test_multipliers_reorder_a_leg_before_fusion():
    fresh = Episode(user_id="u", text="fresh", timestamp=NOW)
    stale = Episode(user_id="u", text="stale", timestamp=NOW - timedelta(days=180 + 3 * 1825))
    hits = fuse({"bm25": [LegHit(doc=stale, score=2.0), LegHit(doc=fresh, score=1.5)]}, NOW, P)
    assert [h.id for h in hits] == [fresh.id, stale.id]
    assert hits[1].legs["bm25"].score == pytest.approx(2.0 * math.pow(0.5, 9))
    no_decay = fuse({"bm25": [LegHit(doc=stale, score=2.0), LegHit(doc=fresh, score=1.5)]}, NOW,
                    RankingParams(use_decay=False))
    assert [h.id for h in no_decay] == [stale.id, fresh.id]


# --- invariant 154: a distilled memory's dense leg may weigh more than an episode's ---------------
def test_inv154_kind_dense_weights_interpolate_each_kind_by_coverage():
    p = RankingParams(dense_weight=0.8, weak_dense_weight=1.6, distilled_weak_dense_weight=2.5,
                      distilled_dense_weight=None, coverage_full=0.75)
    weak, half, full = (kind_dense_weights(c, p) for c in (0.0, 0.375, 1.0))
    assert (weak.dense_weight, weak.distilled_dense_weight) == pytest.approx((1.6, 2.5))
    assert (half.dense_weight, half.distilled_dense_weight) == pytest.approx((1.2, 1.65))
    assert (full.dense_weight, full.distilled_dense_weight) == pytest.approx((0.8, 0.8))
    ws = [kind_dense_weights(c / 20, p) for c in range(21)]
    assert [w.distilled_dense_weight for w in ws] == sorted(
        (w.distilled_dense_weight for w in ws), reverse=True)
    assert all(w.distilled_dense_weight >= w.dense_weight for w in ws)
    # the episode weight is invariant 154's, unchanged
    assert [w.dense_weight for w in ws] == [adaptive_dense_weight(c / 20, p) for c in range(21)]
    # its own full weight too
    own = kind_dense_weights(1.0, p.model_copy(update={"distilled_dense_weight": 1.0}))
    assert (own.dense_weight, own.distilled_dense_weight) == pytest.approx((0.8, 1.0))
    # off: both kinds get the episode weight, as before
    off = kind_dense_weights(0.0, p.model_copy(update={"distilled_weak_dense_weight": None}))
    assert off.dense_weight == pytest.approx(1.6) and off.distilled_dense_weight is None
    assert kind_dense_weights(0.0, p.model_copy(update={"weak_dense_weight": None})) \
        == p.model_copy(update={"weak_dense_weight": None})


@pytest.mark.parametrize("fusion", ["score", "rrf"])
def test_inv154_fusion_weighs_the_dense_leg_by_kind(fusion):
    ep = Episode(user_id="u", text="went to the vet with Biscuit", timestamp=NOW)
    fact = Fact(user_id="u", text="Has a beagle called Biscuit")
    pb = Playbook(user_id="u", name="n", trigger="t", steps=["s"])
    legs = {"bm25": [LegHit(doc=ep, score=4.0), LegHit(doc=fact, score=1.0)],
            "dense": [LegHit(doc=ep, score=0.6), LegHit(doc=fact, score=0.6),
                      LegHit(doc=pb, score=0.2)]}
    plain = RankingParams(fusion=fusion, dense_weight=0.8, distilled_dense_weight=None)
    kinded = plain.model_copy(update={"distilled_dense_weight": 2.4})
    before = {h.id: h for h in fuse(legs, NOW, plain)}
    after = {h.id: h for h in fuse(legs, NOW, kinded)}
    # the episode is untouched, bit for bit; a distilled memory's dense share is times 3
    assert after[ep.id].legs["dense"].contribution == before[ep.id].legs["dense"].contribution
    assert after[ep.id].fused_score == before[ep.id].fused_score
    for d in (fact, pb):
        assert after[d.id].legs["dense"].contribution == pytest.approx(
            3 * before[d.id].legs["dense"].contribution)
    assert after[fact.id].legs["bm25"].contribution == before[fact.id].legs["bm25"].contribution
    # the same weight as the episode's changes nothing
    same = {h.id: h.fused_score for h in fuse(legs, NOW, plain.model_copy(
        update={"distilled_dense_weight": 0.8}))}
    assert same == {i: h.fused_score for i, h in before.items()}
