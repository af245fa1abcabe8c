"""Recall quality (issue 17): per-user BM25, session context, fusion, time in questions,
question episodes, read-only evaluation — on the real embedded store (hash embedder) and the pure
ranking functions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from memory.clock import fixed_clock
from memory.lexical import LexicalIndex, Vocabulary, analyse, neighbour_pairs
from memory.models import CatalogDoc, Episode, Fact, FactState, MemoryKind
from memory.ranking import RankedHit, RankingParams, adjust, fuse, is_question
from memory.search_config import DEFAULT, Purpose, RecallConfig
from memory.service import MemoryService
from memory.stores import open_store
from memory.stores.base import LegHit, RecallFilter
from memory.stores.user_view import IndexParams
from memory.temporal import TimeIntent, time_intent
from tests.recall_support import NOW, embedded_only  # noqa: F401 - the store fixture

T0 = datetime(2026, 6, 1, 9, tzinfo=UTC)


def _episodes(svc: MemoryService, user: str, texts: list[str], session: str, start: datetime):
    return svc.write_episodes(user, [(t, start + timedelta(minutes=i), session)
                                     for i, t in enumerate(texts)], actor="cli")


# --- lexical analysis and BM25 -----------------------------------------------------------------
def test_analyse_keeps_non_ascii_words_and_drops_stop_words():
    assert analyse("Görlitzer Park, the Alcântara flat; 東京") == ["görlitzer", "park", "alcântara",
                                                                  "flat", "東京"]
    assert analyse("Biscuit's batteries") == ["biscuit", "batteri"]


def test_bm25_index_scores_like_bm25_and_context_adds_neighbour_words():
    vocab = Vocabulary()
    toks = [analyse(t) for t in ("the cat sat", "a dog chewed the cable", "cable wrap", "park")]
    docs = np.concatenate([np.full(len(t), i) for i, t in enumerate(toks)])
    terms = np.concatenate([vocab.encode(t) for t in toks])
    plain = LexicalIndex(4, docs, terms)
    s = plain.scores(vocab.lookup(analyse("cable")))
    assert s[0] == 0 and s[3] == 0 and s[1] > 0 and s[2] > s[1]  # shorter document, same tf
    ctx = neighbour_pairs(["a", "a", "a", None], [0, 1, 2, 3], 1)
    with_ctx = LexicalIndex(4, docs, terms, context=ctx, context_weight=0.5)
    s = with_ctx.scores(vocab.lookup(analyse("cat")))
    assert s[0] > s[1] > 0 and s[2] == 0 and s[3] == 0  # only the adjacent turn borrows "cat"


def test_inv101_bm25_statistics_are_per_user(store):
    """Invariant 101: another user's data never changes a user's BM25 scores."""
    svc = MemoryService(store, clock=fixed_clock(NOW))
    _episodes(svc, "ana", ["Maya bought a Homey hub", "The weather was nice", "Lunch with Tom"],
              "ana-1", T0)
    flt = RecallFilter(user_id="ana")
    before = [(h.doc.id, h.score) for h in store.search_bm25(flt, "Homey hub Tom", 10)]
    # ben writes hundreds of memories full of the same words; ana's statistics must not move
    _episodes(svc, "ben", [f"Homey hub note {i}" for i in range(300)], "ben-1", T0)
    after = [(h.doc.id, h.score) for h in store.search_bm25(flt, "Homey hub Tom", 10)]
    assert after == before and before
    assert all(h.doc.user_id == "ana" for h in store.search_bm25(flt, "Homey hub note", 50))


def test_a_turn_is_found_through_its_session_neighbours_and_returned_as_itself(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    eps = _episodes(svc, "ana", ["We took the beagle to the vet on Monday",
                                 "She said he needs a second jab",
                                 "Then we went for pizza"], "ana-vet", T0)
    _episodes(svc, "ana", ["A different day about gardening"], "ana-other", T0 + timedelta(days=3))
    flt = RecallFilter(user_id="ana")
    store.set_index_params(IndexParams(window=0, dense_window=0))
    assert eps[1].id not in [h.doc.id for h in store.search_bm25(flt, "vet beagle", 10)]
    store.set_index_params(IndexParams(window=1, context_weight=0.5))
    hits = store.search_bm25(flt, "vet beagle", 10)
    ids = [h.doc.id for h in hits]
    assert ids[0] == eps[0].id and eps[1].id in ids  # the jab turn, via its neighbour's words
    assert eps[2].id not in ids  # two turns away: outside a window of one
    assert hits[ids.index(eps[1].id)].doc.text == "She said he needs a second jab"
    assert hits[0].session_pos == ("ana-vet", 0)


def test_view_is_rebuilt_after_a_write(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    flt = RecallFilter(user_id="ana")
    _episodes(svc, "ana", ["first note about tea"], "s1", T0)
    assert len(store.search_bm25(flt, "coffee", 10)) == 0
    _episodes(svc, "ana", ["second note about coffee"], "s2", T0 + timedelta(hours=1))
    assert [h.doc.text for h in store.search_bm25(flt, "coffee", 10)] == ["second note about coffee"]


# --- fusion ----------------------------------------------------------------------------------
def _fact(i: str) -> Fact:
    return Fact(id=i, user_id="u", text=i, recorded_at=NOW)


def test_score_fusion_keeps_a_strong_single_leg_hit_near_the_top():
    """A fact that is dense #1 and absent from BM25 is not buried behind documents that are
    mediocre in both legs (the RRF failure the issue describes)."""
    star = _fact("star")
    strong = [_fact(f"b{i}") for i in range(6)]  # BM25's best, unknown to the dense leg
    mids = [_fact(f"mid{i}") for i in range(14)]  # middling in both legs
    fill = [_fact(f"f{i}") for i in range(40)]
    bm25 = [LegHit(doc=d, score=12.0 * 0.93 ** i)
            for i, d in enumerate([*strong, *fill[:8], *mids, *fill[8:]])]
    dense = ([LegHit(doc=star, score=0.93)]
             + [LegHit(doc=d, score=0.80 - i * 0.004) for i, d in enumerate(mids)]
             + [LegHit(doc=_fact(f"t{i}"), score=0.74 - i * 0.001) for i in range(60)])
    rrf = fuse({"bm25": bm25, "dense": dense}, NOW, RankingParams(fusion="rrf", dense_weight=1.0))
    score = fuse({"bm25": bm25, "dense": dense}, NOW, RankingParams(fusion="score"))
    assert [h.id for h in rrf].index("star") >= 10  # RRF: behind the middling ones
    assert [h.id for h in score].index("star") <= 5  # only BM25's clear winners stay ahead


# --- time in questions -----------------------------------------------------------------------
@pytest.mark.parametrize("query, past, window", [
    ("Which city did she live in before Lisbon?", True, None),
    ("What was her rota back in June?", False, ((2026, 6, 1), (2026, 7, 1))),
    ("Where was he in mid-July?", False, ((2026, 7, 10), (2026, 7, 22))),
    ("What happened last year?", False, ((2025, 1, 1), (2026, 1, 1))),
    ("What did she eat before August?", True, ((2026, 4, 3), (2026, 8, 1))),
    ("Which hub runs the lights?", False, None),
    ("May I ask which hub she has?", False, None),  # "may" the verb is not a month
    ("What did Melanie do on 8 May, 2023?", False, ((2023, 5, 7), (2023, 5, 10))),
])
def test_time_intent(query, past, window):
    intent = time_intent(query, NOW)
    assert intent.past == past
    want = None if window is None else tuple(datetime(*d, tzinfo=UTC) for d in window)
    assert intent.window == want


def test_inv102_history_questions_see_superseded_facts_never_retracted_ones(store):
    """Invariant 102: a question about the past makes superseded facts eligible (preferred when it
    says "before"); retracted, rejected and candidate facts never are."""
    svc = MemoryService(store, clock=fixed_clock(NOW))
    old = svc.write_fact("ana", "Lives in Hamburg, Ottensen", fact_type="identity").fact
    new = svc.write_fact("ana", "Lives in Lisbon, Alcântara", fact_type="identity",
                         supersedes_id=old.id).fact
    wrong = svc.write_fact("ana", "Lives in Madrid").fact
    svc.retract("ana", wrong.id)
    now_ids = [h.id for h in svc.recall("ana", "Where does she live?", purpose=Purpose.EVAL).hits]
    assert new.id in now_ids and old.id not in now_ids and wrong.id not in now_ids
    before = svc.recall("ana", "Where did she live before Lisbon?", purpose=Purpose.EVAL).hits
    ids = [h.id for h in before]
    assert old.id in ids and wrong.id not in ids
    assert ids.index(old.id) < ids.index(new.id) or before[ids.index(old.id)].multipliers.time > 1
    off = DEFAULT.model_copy(update={"use_time": False})
    assert old.id not in [h.id for h in svc.recall("ana", "Where did she live before Lisbon?",
                                                   config=off, purpose=Purpose.EVAL).hits]


def test_a_named_month_boosts_memories_dated_inside_it(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    june = _episodes(svc, "ana", ["The sensor on the back door dropped off"], "j", T0)[0]
    sept = _episodes(svc, "ana", ["The sensor on the back door dropped off"], "s",
                     T0 + timedelta(days=100))[0]
    hits = svc.recall("ana", "Which sensor dropped off in June?", purpose=Purpose.EVAL).hits
    ids = [h.id for h in hits]
    assert ids.index(june.id) < ids.index(sept.id)
    assert hits[ids.index(june.id)].multipliers.time == pytest.approx(DEFAULT.ranking.window_boost)


# --- question episodes, catalog, diversification --------------------------------------------
@pytest.mark.parametrize("text, want", [
    ("How do I debug a pod stuck in CrashLoopBackOff?", True),
    ("Is it normal for the app to take ten seconds? Feels slow.", True),
    ("Had a lovely day off, we walked the dog round the park.", False),
    ("Moved the Homey onto the shelf, it's much more central now.", False),
    ("Can you remind me which lamp is on the smart plug", True),
])
def test_is_question(text, want):
    assert is_question(text) is want


def test_inv103_the_users_own_question_ranks_below_the_catalog_page_that_answers_it(store):
    """Invariant 103: question episodes are down-weighted, not removed; the catalog is eligible
    by default (behind its prior)."""
    svc = MemoryService(store, clock=fixed_clock(NOW))
    q = _episodes(svc, "ana", ["How do I debug a pod stuck in CrashLoopBackOff?"], "s", T0)[0]
    _episodes(svc, "ana", ["We had pizza on Friday", "The pod of dolphins was lovely",
                           "Debugging the bike gears again", "Stuck in traffic for an hour",
                           "My sister visited", "New plant for the balcony"], "o", T0)
    svc.add_catalog([CatalogDoc(title="Kubernetes: debugging CrashLoopBackOff",
                                text="kubectl describe pod and kubectl logs --previous show why a "
                                     "pod is stuck in CrashLoopBackOff")])
    ask = "How do I debug a pod stuck in CrashLoopBackOff?"
    hits = svc.recall("ana", ask, purpose=Purpose.EVAL).hits
    assert hits[0].doc.kind == MemoryKind.CATALOG and hits[1].id == q.id
    assert hits[1].multipliers.question == pytest.approx(DEFAULT.ranking.question_weight)
    flat = DEFAULT.model_copy(update={"ranking": RankingParams(question_weight=1.0)})
    assert svc.recall("ana", ask, config=flat, purpose=Purpose.EVAL).hits[0].id == q.id
    no_cat = DEFAULT.model_copy(update={"include_catalog": False})
    assert all(h.doc.kind != MemoryKind.CATALOG for h in svc.recall(
        "ana", "CrashLoopBackOff", config=no_cat, purpose=Purpose.EVAL).hits)


def _hit(i: str, score: float, pos: int | None) -> RankedHit:
    from memory.ranking import Multipliers
    doc = Episode(id=i, user_id="u", text=f"note {i}.", timestamp=NOW)
    return RankedHit.model_construct(doc=doc, rank=0, fused_score=score, legs={},
                                     multipliers=Multipliers(), rerank_score=None,
                                     session_pos=None if pos is None else ("s", pos))


def test_adjust_demotes_a_turn_next_to_a_higher_ranked_one_only_when_asked():
    hits = [_hit("a", 1.0, 4), _hit("b", 0.95, 5), _hit("c", 0.9, None)]
    same = adjust(hits, TimeIntent(), RankingParams())
    assert [h.id for h in same] == ["a", "b", "c"]
    diverse = adjust(hits, TimeIntent(), RankingParams(adjacent_weight=0.9))
    assert [h.id for h in diverse] == ["a", "c", "b"]
    assert diverse[2].multipliers.adjacency == pytest.approx(0.9)


# --- read-only evaluation --------------------------------------------------------------------
def test_recall_no_bump_and_eval_leave_usage_alone(store, monkeypatch):
    """Invariant 55: `memdesk recall --no-bump` and every eval recall are read-only."""
    from memory.cli import main

    svc = MemoryService(store, clock=fixed_clock(NOW))
    fact = svc.write_fact("ana", "Drinks green tea every morning").fact
    url = store.url
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    store.close()
    assert main(["recall", "--store", url, "--user", "ana", "green tea", "--no-bump"]) == 0
    again = open_store(url, store.embedder)
    assert again.get(MemoryKind.SEMANTIC, "ana", fact.id).use_count == 0
    again.close()
    assert main(["recall", "--store", url, "--user", "ana", "green tea"]) == 0
    again = open_store(url, store.embedder)
    assert again.get(MemoryKind.SEMANTIC, "ana", fact.id).use_count == 1
    again.close()


def test_fact_states_of_a_plain_question_stay_active_only():
    from memory.retrieval import plan_filter
    flt = plan_filter("u", RecallConfig(), time_intent("Which hub runs the lights?", NOW))
    assert flt.fact_states == frozenset({FactState.ACTIVE})
    flt = plan_filter("u", RecallConfig(), time_intent("Which hub did she use before?", NOW))
    assert flt.fact_states == frozenset({FactState.ACTIVE, FactState.SUPERSEDED})
