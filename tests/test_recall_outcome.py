"""Recall quality: event questions, the right episode first. A narrative event
question drops the source / sourced lifts (invariant 142); an event question asking for an
outcome lifts the episode told after the first report (invariant 142). Pure detection and pure
ranking first, then the real store and retrieval."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memory.clock import fixed_clock
from memory.models import Episode, Fact
from memory.ranking import Candidate, RankingParams, adjust, follow_lifts, lifts
from memory.search_config import DEFAULT, Purpose, RecallConfig
from memory.service import MemoryService
from memory.temporal import TimeIntent, asks_outcome, narrative_question, time_intent
from tests.recall_support import NOW, embedded_only  # noqa: F401 - the store fixture

P = RankingParams()
EVENT = TimeIntent(event=True)


def _ep(text: str, i: str, days_ago: float) -> Episode:
    return Episode(id=i, user_id="u", text=text, timestamp=NOW - timedelta(days=days_ago))


def _cand(doc, fused: float) -> Candidate:
    return Candidate(doc, fused, {}, (1.0, 1.0, 1.0), None)


# --- invariant 142: a narrative event question ---------------------------------------------------
@pytest.mark.parametrize("q", [
    "How did the kayak trip on the fjord go?",
    "How cold was it at the cabin in Tromsø?",
    "Why was the ferry crossing such an ordeal?",
    "What went wrong with the boiler service?",
    "What happened to the parcel from Kraków?",
    "When did she hand in her notice at the bakery?",
    "Pourquoi? — Why didn't the visa appointment in Zürich work out?",
])
def test_inv142_narrative_questions(q):
    assert narrative_question(q)
    assert time_intent(q, NOW).event


@pytest.mark.parametrize("q", [
    "Which bakery did she work at?",  # a slot question: a fact answers it as well
    "How many times did he move?",  # a quantity
    "How do I descale the kettle?",  # a how-to, no past tense
    "How does the heat pump work?",
    "When is the ferry to Bergen?",  # not past
    "What did the vet say?",  # an event, but no narrative opening
    "",
])
def test_inv142_not_narrative(q):
    assert not narrative_question(q)


def test_inv142_a_narrative_question_drops_the_source_and_sourced_lifts():
    ep = Episode(id="e1", user_id="u", text="Handed in my notice at the bakery today",
                 timestamp=NOW - timedelta(days=3))
    fact = Fact(id="f1", user_id="u", text="Left the bakery job", source_episode_ids=["e1"])
    cands = [_cand(fact, 1.0), _cand(ep, 1.02)]  # the lifts decide the order
    slot = "Which job did she leave?"
    narr = "When did she hand in her notice at the bakery?"
    assert lifts(cands, EVENT, P, slot) == [P.source_lift, P.sourced_weight]
    assert lifts(cands, EVENT, P, narr) == [1.0, 1.0]
    assert lifts(cands, TimeIntent(), P, narr) == [P.source_lift, P.sourced_weight]  # no event
    off = P.model_copy(update={"narrative_plain_source": False})
    assert lifts(cands, EVENT, off, narr) == [P.source_lift, P.sourced_weight]
    # ranked: the fact above its episode on the slot question, the episode first on the narrative
    assert [h.id for h in adjust(cands, EVENT, P, query=slot)] == ["f1", "e1"]
    assert [h.id for h in adjust(cands, EVENT, P, query=narr)] == ["e1", "f1"]


def test_inv142_on_the_real_store_the_episode_that_tells_it_comes_first(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    eps = svc.write_episodes("ana", [
        ("We finally moved into the flat in Tromsø on October 3, the boxes are everywhere",
         NOW - timedelta(days=49), "s1"),
        ("The kettle in the new kitchen is tiny", NOW - timedelta(days=40), "s2"),
    ], actor="cli")
    fact = svc.write_fact("ana", "Lives in Tromsø", source_episode_ids=[eps[0].id]).fact
    svc.write_episodes("ben", [("We moved into the flat in Tromsø on October 3",
                                NOW - timedelta(days=49), "b1")], actor="cli")
    q = "When did they move into the flat in Tromsø?"
    assert narrative_question(q)
    got = svc.recall("ana", q, purpose=Purpose.EVAL)
    ids = [h.id for h in got.hits]
    assert ids[0] == eps[0].id and fact.id in ids
    assert all(h.doc.user_id == "ana" for h in got.hits)  # never another user's (invariant 2)
    # only the date lift of invariant 193 ("October 3" on a "when" question), no sourced weight
    assert got.hits[0].multipliers.lift == pytest.approx(DEFAULT.ranking.when_dated_lift)
    off = RecallConfig(ranking=DEFAULT.ranking.model_copy(update={"narrative_plain_source": False}))
    before = [h.id for h in svc.recall("ana", q, purpose=Purpose.EVAL, config=off).hits]
    assert before.index(fact.id) < before.index(eps[0].id)  # the lifts put the fact first


# --- invariant 142: an outcome question lifts what was told after the report ---------------------
@pytest.mark.parametrize("q", [
    "What was really behind the boiler cutting out?",
    "How was the leak under the sink finally fixed?",
    "How did the kayak trip go?",
    "Did they ever find the lost suitcase?",
    "What turned out to be wrong with the heat pump in Göteborg?",
])
def test_inv142_outcome_questions(q):
    assert asks_outcome(q)


@pytest.mark.parametrize("q", [
    "Which boiler did they have?",  # no event
    "What did the plumber charge?",  # an event, no outcome asked
    "When did the boiler first cut out?",
    "How do I fix a leaking tap?",  # a how-to: no past tense
])
def test_inv142_not_outcome_questions(q):
    assert not asks_outcome(q)


def test_inv142_follow_lifts_the_later_related_episode_only():
    report = _ep("The boiler cut out again overnight, reset it twice, still no hot water", "r", 10)
    fix = _ep("Turned out the boiler pressure was too low, topped it up and it works", "x", 9)
    late = _ep("The boiler engineer sent the invoice for the annual check", "l", 1)  # > 7 days
    earlier = _ep("Booked the boiler service for next month", "b", 20)  # before the report
    other = _ep("Bought new running shoes", "o", 9)  # after it, no shared word
    fact = Fact(id="f", user_id="u", text="The boiler is a Worcester combi")
    cands = [_cand(report, 2.0), _cand(earlier, 1.5), _cand(fix, 1.4), _cand(late, 1.3),
             _cand(other, 1.2), _cand(fact, 1.1)]
    scores = [c.fused for c in cands]
    q = "What was really behind the boiler cutting out?"
    w = P.outcome_follow_lift
    assert w > 1.0
    assert follow_lifts(cands, q, EVENT, P, scores) == [1.0, 1.0, w, 1.0, 1.0, 1.0]
    # no event, no outcome cue, or switched off: nothing moves
    assert follow_lifts(cands, q, TimeIntent(), P, scores) == [1.0] * 6
    assert follow_lifts(cands, "What did the plumber charge?", EVENT, P, scores) == [1.0] * 6
    off = P.model_copy(update={"outcome_follow_lift": 1.0})
    assert follow_lifts(cands, q, EVENT, off, scores) == [1.0] * 6
    # a follow-up already above its report is not lifted again
    assert follow_lifts(cands, q, EVENT, P, [2.0, 1.5, 2.5, 1.3, 1.2, 1.1]) == [1.0] * 6
    # a wider window reaches the late episode too
    wide = P.model_copy(update={"outcome_follow_days": 14.0})
    assert follow_lifts(cands, q, EVENT, wide, scores)[3] == w
    # ranked: the fix passes the booking; nothing is dropped or added
    hits = adjust(cands, EVENT, P, query=q)
    assert [h.id for h in hits][:3] == ["r", "x", "b"]
    assert sorted(h.id for h in hits) == sorted(c.doc.id for c in cands)
    assert hits[1].multipliers.lift == pytest.approx(w)


def test_inv142_on_the_real_store_the_outcome_passes_the_plan(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    d = NOW - timedelta(days=30)
    eps = svc.write_episodes("ana", [
        ("Kayak trip on the fjord is booked for Saturday, Jonas is bringing the dry bags",
         d, "s1"),
        ("Kayak trip done: the fjord was glassy, we saw a seal, Jonas capsized once", d +
         timedelta(days=2), "s2"),
        ("The dry bags need a wash", d + timedelta(days=12), "s3"),
        ("Signed up for a kayak course in spring", d - timedelta(days=40), "s4"),
    ], actor="cli")
    svc.write_episodes("ben", [("Kayak trip on the fjord went great", d, "b1")], actor="cli")
    q = "How did the kayak trip on the fjord go?"
    assert asks_outcome(q)
    off = RecallConfig(ranking=DEFAULT.ranking.model_copy(update={"outcome_follow_lift": 1.0}))
    before = [h.id for h in svc.recall("ana", q, purpose=Purpose.EVAL, config=off).hits]
    got = svc.recall("ana", q, purpose=Purpose.EVAL)
    ids = [h.id for h in got.hits]
    assert before[0] == eps[0].id  # the plan matches the question best
    assert ids[0] == eps[1].id and eps[0].id in ids  # what happened comes first, the plan stays
    assert all(h.doc.user_id == "ana" for h in got.hits)
    assert sorted(ids) == sorted(before)
