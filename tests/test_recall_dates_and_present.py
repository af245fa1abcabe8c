"""Recall quality: a question asking when is answered by a memory that says a date
or a time (invariant 193); a question in the simple present asks about the state now, so an
episode weighs less than the fact (invariant 193). Pure detection and weights first, then the
real store and retrieval."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.clock import fixed_clock
from memory.models import MemoryKind
from memory.ranking import (
    Candidate,
    RankingParams,
    asks_simple_present,
    asks_when,
    present_weights,
    says_date,
    when_weights,
)
from memory.search_config import DEFAULT, Purpose, RecallConfig
from memory.service import MemoryService
from memory.temporal import time_intent
from tests.recall_support import ALIKE, NOW, embedded_only  # noqa: F401 - the store fixture


def _cands(*docs):
    return [Candidate(d, 1.0, {}, (1.0, 1.0, 1.0), None) for d in docs]


# --- invariant 193: "when" questions and memories that say a date --------------------------------
@pytest.mark.parametrize("q", [
    "When is he going home to see his family in India?",
    "what time do the blinds open?",
    "How long is her status valid?",
    "Quick one. When does Maya turn a year older?",
    "¿Cuándo? When does Jürgen fly to Köln?",
])
def test_inv193_when_questions(q):
    assert asks_when(q)


@pytest.mark.parametrize("q", [
    "Where does she live?",
    "Does the camera record when the flat is empty?",  # "when" inside a clause asks no time
    "What happened when the power went out?",
    "",
])
def test_inv193_other_questions_do_not_ask_when(q):
    assert not asks_when(q)


@pytest.mark.parametrize("text,dated", [
    ("Flying home to Kochi from December 18 to January 3", True),
    ("Her birthday is the 19th of August", True),
    ("Bedroom blinds open at 6:45 on work days", True),
    ("No meetings before 10am", True),
    ("Jan lands on Thursday", True),
    ("Runs 5k on weekends", True),
    ("His parents live in Kochi", False),
    ("Her 2027 travel budget is capped at 80 flights", False),  # a bare year is no date
    ("Café in Zürich, opened by Jürgen", False),
])
def test_inv193_says_date(text, dated):
    assert says_date(text) is dated


def test_inv193_when_weights_lift_only_dated_memories(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    dated = svc.write_fact("ravi", "Flying home to Kochi from December 18 to January 3").fact
    plain = svc.write_fact("ravi", "His parents live in Kochi").fact
    ep = svc.write_episodes("ravi", [("Booked it, flying out on Friday", NOW, "s1")],
                            actor="cli")[0]
    cands = _cands(dated, plain, ep)
    p = RankingParams()
    assert p.when_dated_lift > 1.0
    w = p.when_dated_lift
    assert when_weights(cands, "When is he going home?", p) == [w, 1.0, w]
    assert when_weights(cands, "Where is he going home to?", p) == [1.0, 1.0, 1.0]
    off = p.model_copy(update={"when_dated_lift": 1.0})
    assert when_weights(cands, "When is he going home?", off) == [1.0, 1.0, 1.0]


def test_inv193_recall_puts_the_dated_fact_first_on_the_real_store(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    plain = svc.write_fact("ravi", "His home town is Kochi").fact
    dated = svc.write_fact("ravi", "Home to Kochi from December 18 to January 3").fact
    for t in ("Has an LG monitor", "Cycles to the office", "Prefers small pull requests"):
        svc.write_fact("ravi", t)
    svc.write_fact("ana", "Flying home to Kochi on May 2")  # another user's: never a candidate
    off = RecallConfig(ranking=ALIKE.model_copy(update={"when_dated_lift": 1.0}))
    q = "When is he going home to see his family in Kochi?"
    before = svc.recall("ravi", q, purpose=Purpose.EVAL, config=off).hits
    after = svc.recall("ravi", q, purpose=Purpose.EVAL,
                       config=RecallConfig(ranking=ALIKE)).hits
    assert before[0].doc.id == plain.id and before[1].doc.id == dated.id
    assert after[0].doc.id == dated.id and after[1].doc.id == plain.id
    assert {h.id for h in after} == {h.id for h in before}  # reorders, never adds or drops
    lift = {h.id: h.multipliers.lift for h in before}
    assert after[0].multipliers.lift == pytest.approx(lift[dated.id] * DEFAULT.ranking.when_dated_lift)
    assert after[1].multipliers.lift == pytest.approx(lift[plain.id])
    assert all(h.doc.user_id == "ravi" for h in after)


# --- invariant 193: the simple present asks about the state now ---------------------------------
@pytest.mark.parametrize("q", [
    "Which code editor does he use day to day?",
    "What coin cells do the contact sensors need?",
    "Where does Jürgen's cat sleep?",
    "Is there any light that mustn't lose power overnight?",
])
def test_inv193_simple_present_questions(q):
    assert asks_simple_present(q)


@pytest.mark.parametrize("q", [
    "What library is he using for the TUI?",  # progressive: an activity under way
    "Which editor did he use before Zed?",
    "What was her old address?",
    "Which hub does she use now?",  # invariant 193's cue, its own weight
    "Tell me about Biscuit",  # no present auxiliary
    "What happened to the lights?",
    "",
])
def test_inv193_other_questions_are_not(q):
    assert not asks_simple_present(q)


def test_inv193_weights_touch_only_episodes_and_not_history_events_or_named_times(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    ep = svc.write_episodes("ravi", [("Neovim is my editor", NOW, "s1")], actor="cli")[0]
    fact = svc.write_fact("ravi", "Main editor is Zed").fact
    cands = _cands(ep, fact)
    p = RankingParams()
    assert p.simple_present_episode_weight < 1.0
    q = "Which editor does he use day to day?"
    assert present_weights(cands, q, time_intent(q, NOW), p) == \
        [p.simple_present_episode_weight, 1.0]
    for other in ("Which editor does he use when he is in June in Kochi?",  # history / named time
                  "Which editor did he use before Zed?", "What is he using for the TUI?"):
        assert present_weights(cands, other, time_intent(other, NOW), p) == [1.0, 1.0]
    off = p.model_copy(update={"simple_present_episode_weight": 1.0})
    assert present_weights(cands, q, time_intent(q, NOW), off) == [1.0, 1.0]


def test_inv193_recall_puts_the_active_fact_above_an_episode_on_the_real_store(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    svc.write_episodes("ravi", [
        ("Okay, Neovim is my main code editor, main editor", datetime(2026, 3, 1, tzinfo=UTC),
         "s1"),
        ("Tea in the morning", NOW, "s2"), ("Lives near the canal", NOW, "s3")], actor="cli")
    fact = svc.write_fact("ravi", "Main code editor is Zed; Neovim only on servers").fact
    svc.write_fact("ravi", "Has a beagle called Biscuit")
    svc.write_fact("ana", "Main code editor is Neovim")  # another user's: never a candidate
    off = RecallConfig(ranking=ALIKE.model_copy(
        update={"simple_present_episode_weight": 1.0}))
    q = "What is his main code editor?"
    before = svc.recall("ravi", q, purpose=Purpose.EVAL, config=off).hits
    after = svc.recall("ravi", q, purpose=Purpose.EVAL,
                       config=RecallConfig(ranking=ALIKE)).hits
    assert before[0].doc.kind == MemoryKind.EPISODIC and before[1].doc.id == fact.id
    assert after[0].doc.id == fact.id
    assert {h.id for h in after} == {h.id for h in before}
    assert all(h.multipliers.lift == pytest.approx(DEFAULT.ranking.simple_present_episode_weight)
               for h in after if h.doc.kind == MemoryKind.EPISODIC)
    assert all(h.doc.user_id == "ravi" for h in after)
