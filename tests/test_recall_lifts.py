"""Recall quality: source lift (invariant 142), history-chain lift (invariant 142)
and the RRF tail (invariant 144) — pure ranking tests, then on the real embedded store."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memory.clock import fixed_clock
from memory.models import Episode, Fact, FactState
from memory.ranking import RankingParams, adjust, fuse_candidates, lifts, tail_rrf
from memory.search_config import DEFAULT, Purpose
from memory.service import MemoryService
from memory.stores.base import LegHit
from memory.temporal import TimeIntent
from tests.recall_support import NOW, embedded_only  # noqa: F401 - the store fixture

# the dense leg weighs every kind alike here (invariant 154 off): these tests are about the lifts
P = RankingParams(tail_from=25, distilled_dense_weight=None)
OFF = RankingParams(source_lift=1.0, chain_lift=1.0, sourced_weight=1.0, tail_from=0)
HISTORY = TimeIntent(history=True)


def _ep(text: str, i: str) -> Episode:
    return Episode(id=i, user_id="u", text=text, timestamp=NOW - timedelta(days=1))


def _fact(text: str, i: str, **kw) -> Fact:
    return Fact(id=i, user_id="u", text=text, **kw)


def _cands(bm25: list, dense: list, params: RankingParams = P):
    legs = {"bm25": [LegHit(doc=d, score=s) for d, s in bm25],
            "dense": [LegHit(doc=d, score=s) for d, s in dense]}
    return fuse_candidates(legs, NOW, params)


# --- invariant 142: source lift --------------------------------------------------------------------
def test_inv142_a_fact_whose_source_episode_is_a_candidate_is_lifted():
    ep = _ep("We adopted a beagle called Biscuit", "ep1")
    sourced = _fact("Has a beagle called Biscuit", "f1", source_episode_ids=["ep1"])
    orphan = _fact("Had a beagle as a child", "f2", source_episode_ids=["ep_gone"])
    cands = _cands([(orphan, 5.0), (sourced, 4.9), (ep, 4.0)],
                   [(orphan, 0.80), (sourced, 0.79), (ep, 0.5)])
    assert lifts(cands, TimeIntent(), P) == [
        {"f1": P.source_lift, "ep1": P.sourced_weight}.get(c.doc.id, 1.0) for c in cands]
    # without the lift the orphan fact ranks first; with it, the corroborated one does
    assert [h.id for h in adjust(cands, TimeIntent(), OFF)][:2] == ["f2", "f1"]
    hits = adjust(cands, TimeIntent(), P)
    assert [h.id for h in hits][:2] == ["f1", "f2"]
    assert hits[0].multipliers.lift == pytest.approx(P.source_lift)
    assert hits[0].multipliers.post == pytest.approx(P.source_lift)


def test_inv142_no_lift_when_the_source_episode_is_not_a_candidate():
    sourced = _fact("Has a beagle", "f1", source_episode_ids=["ep1"])
    cands = _cands([(sourced, 3.0)], [(sourced, 0.7)])
    assert lifts(cands, TimeIntent(), P) == [1.0]


# --- invariant 142: the source episode yields to its fact ----------------------------------------
def test_inv142_an_episode_whose_fact_is_a_candidate_is_demoted_not_dropped():
    ep = _ep("Moved to Bristol, Bishopston, at last", "ep1")
    other = _ep("Bristol traffic was awful", "ep2")
    fact = _fact("Lives in Bishopston, Bristol", "f1", source_episode_ids=["ep1"])
    cands = _cands([(ep, 5.0), (other, 4.5), (fact, 4.0)], [(ep, 0.9), (other, 0.85), (fact, 0.7)])
    params = RankingParams(source_lift=1.0, sourced_weight=0.8)
    by_id = {c.doc.id: m for c, m in zip(cands, lifts(cands, TimeIntent(), params), strict=True)}
    assert by_id == {"ep1": 0.8, "ep2": 1.0, "f1": 1.0}
    ids = [h.id for h in adjust(cands, TimeIntent(), params)]
    assert ids[0] == "ep2" and set(ids) == {"ep1", "ep2", "f1"}  # demoted, still there
    assert [h.id for h in adjust(cands, TimeIntent(), OFF)][0] == "ep1"
    # without the fact among the candidates, nothing happens to the episode
    alone = _cands([(ep, 5.0), (other, 4.5)], [(ep, 0.9), (other, 0.85)])
    assert lifts(alone, TimeIntent(), params) == [1.0, 1.0]


# --- invariant 142: history-chain lift --------------------------------------------------------------
def test_inv142_history_questions_lift_facts_whose_chain_neighbour_is_a_candidate():
    old = _fact("Lived in Leeds", "old", state=FactState.SUPERSEDED, superseded_by="new")
    new = _fact("Lives in Bristol", "new", supersedes="old")
    other = _fact("Worked in Leeds", "other")
    cands = _cands([(new, 6.0), (other, 4.1), (old, 4.0)], [(new, 0.9), (other, 0.75), (old, 0.74)])
    by_id = {c.doc.id: m for c, m in zip(cands, lifts(cands, HISTORY, P), strict=True)}
    assert by_id == {"new": P.chain_lift, "old": P.chain_lift, "other": 1.0}
    # not a history question: the chain means nothing
    assert lifts(cands, TimeIntent(), P) == [1.0, 1.0, 1.0]
    ids = [h.id for h in adjust(cands, HISTORY, P)]
    assert ids.index("old") < ids.index("other")
    ids_off = [h.id for h in adjust(cands, HISTORY, OFF)]
    assert ids_off.index("old") > ids_off.index("other")


# --- invariant 144: the RRF tail ---------------------------------------------------------------------
def _tail_case():
    """40 episodes: e00..e29 found by both legs; t1 strong in BM25 only, t2 mid in both."""
    docs = [_ep(f"turn {i}", f"e{i:02d}") for i in range(30)]
    t1, t2 = _ep("lone", "t1"), _ep("agreed", "t2")
    bm25 = [(d, 10.0 - i * 0.1) for i, d in enumerate(docs)]
    bm25.insert(26, (t1, 7.3))
    bm25.insert(31, (t2, 6.9))
    dense = [(d, 0.9 - i * 0.005) for i, d in enumerate(docs)]
    dense.insert(29, (t2, 0.755))
    return bm25, dense


def test_inv144_the_head_keeps_score_order_and_the_tail_follows_rrf():
    bm25, dense = _tail_case()
    params = RankingParams(tail_from=25, tail_mix=1.0)
    cands = _cands(bm25, dense, params)
    head_off = [h.id for h in adjust(cands, TimeIntent(), OFF)]
    hits = adjust(cands, TimeIntent(), params)
    ids = [h.id for h in hits]
    assert ids[:25] == head_off[:25]  # the head is score fusion, untouched
    assert sorted(ids) == sorted(head_off)  # same candidates, only reordered
    tail = [c for c in cands if c.doc.id in set(ids[25:])]
    by_rrf = sorted(tail, key=lambda c: (-tail_rrf(c, params), c.best, c.doc.id))
    assert ids[25:] == [c.doc.id for c in by_rrf]
    # the document both legs found outranks the one-leg document in the tail
    assert ids.index("t2") < ids.index("t1")
    assert head_off.index("t1") < head_off.index("t2")


def test_inv144_tail_off_or_short_lists_are_plain_score_order():
    bm25, dense = _tail_case()
    cands = _cands(bm25, dense)
    plain = [h.id for h in adjust(cands, TimeIntent(), OFF)]
    assert [h.id for h in adjust(cands, TimeIntent(), P, limit=10)] == plain[:10]
    assert [h.id for h in adjust(cands, TimeIntent(), RankingParams(tail_from=0))] == plain


# --- on the real embedded store ---------------------------------------------------------------------


def test_inv142_recall_lifts_a_fact_found_with_its_source_episode(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    [ep] = svc.write_episodes("u", [("the beagle Biscuit chews cables", NOW - timedelta(days=2),
                                     "s1")], actor="cli")
    sourced = svc.write_fact("u", "the beagle Biscuit chews cables",
                             source_episode_ids=[ep.id]).fact
    other = svc.write_fact("u", "the beagle Biscuit chews the cables").fact
    hits = svc.recall("u", "beagle Biscuit cables", purpose=Purpose.EVAL).hits
    by_id = {h.id: h for h in hits}
    assert by_id[sourced.id].multipliers.lift == pytest.approx(DEFAULT.ranking.source_lift)
    assert by_id[other.id].multipliers.lift == 1.0
    # invariant 142: the episode behind the candidate fact yields to it
    assert by_id[ep.id].multipliers.lift == pytest.approx(DEFAULT.ranking.sourced_weight)


def test_inv142_recall_lifts_the_chain_on_history_questions_only(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    old = svc.write_fact("ana", "Lives in Hamburg, Ottensen", fact_type="identity").fact
    new = svc.write_fact("ana", "Lives in Lisbon, Alcântara", fact_type="identity",
                         supersedes_id=old.id).fact
    # chain resolution (invariant 158) off, so the chain lift alone shows
    cfg = DEFAULT.model_copy(update={"ranking": DEFAULT.ranking.model_copy(
        update={"chain_resolve": 0.0})})
    before = {h.id: h for h in svc.recall("ana", "Where did she live before Lisbon?", config=cfg,
                                          purpose=Purpose.EVAL).hits}
    assert before[old.id].multipliers.lift == pytest.approx(DEFAULT.ranking.chain_lift)
    assert before[new.id].multipliers.lift == pytest.approx(DEFAULT.ranking.chain_lift)
    # with it, the version before the named one ranks first (invariant 158)
    hits = svc.recall("ana", "Where did she live before Lisbon?", purpose=Purpose.EVAL).hits
    assert hits[0].id == old.id
    now = {h.id: h for h in svc.recall("ana", "Where does she live?", purpose=Purpose.EVAL).hits}
    assert now[new.id].multipliers.lift == 1.0  # the old version is not eligible: no chain


# --- invariant 101: dense centring is per user -----------------------------------------------------
def test_inv101_dense_centring_uses_the_users_own_view(store, hash_embedder):
    """Invariant 101: the mean subtracted from a user's vectors is their own view's, so another
    user's writes never move their dense scores; centring changes scores but not the candidates'
    owner, and a centred query against a centred matrix is still a cosine (at most 1)."""
    from memory.stores.base import RecallFilter
    from memory.stores.user_view import IndexParams

    svc = MemoryService(store, clock=fixed_clock(NOW))
    svc.write_episodes("ana", [("Maya bought a Homey hub", NOW, "a1"),
                               ("The weather was nice", NOW, "a1"),
                               ("Lunch with Tom at noon", NOW, "a1")], actor="cli")
    flt = RecallFilter(user_id="ana")
    vec = hash_embedder.embed(["Homey hub"])[0]
    before = [(h.doc.id, h.score) for h in store.search_dense(flt, vec, 10)]
    svc.write_episodes("ben", [(f"Homey hub note {i}", NOW, "b1") for i in range(50)], actor="cli")
    after = [(h.doc.id, h.score) for h in store.search_dense(flt, vec, 10)]
    assert after == before and len(before) == 3
    store.set_index_params(IndexParams(dense_centre=0.0))
    plain = [(h.doc.id, h.score) for h in store.search_dense(flt, vec, 10)]
    assert plain != before  # centring is on by default and changes the scores
    assert all(0.0 <= s <= 1.0 for _, s in before + plain)
