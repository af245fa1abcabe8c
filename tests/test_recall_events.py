"""Recall quality: event questions (invariant 154) — a past-tense narrative question
gives episodes back the dense weight invariant 154 gives distilled memories. Pure detection
first, then the real store and retrieval."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.clock import fixed_clock
from memory.models import MemoryKind
from memory.ranking import RankingParams, kind_dense_weights
from memory.search_config import DEFAULT, Purpose, RecallConfig
from memory.service import MemoryService
from memory.temporal import event_question, time_intent
from tests.recall_support import NOW, embedded_only  # noqa: F401 - the store fixture


# --- invariant 154: an event question's answer is told in an episode ----------------------------
@pytest.mark.parametrize("q", [
    "How did the pay negotiation go?",
    "Why was the flight back from Houston such a letdown?",
    "What happened to the lights the first time the power went out?",
    "Why didn't the deterrent spray help with the chewing?",
    "Why couldn't they keep their old internet provider after the move?",
    "What broke his language server at the end of August?",
    "Which sensor turned out to be dead after the move?",
    "Where did they head right after handing back the keys?",
    "¿Qué pasó? — What did the vet say at the puppy's second jabs?",
    "Wie lief es? Was Jürgen's talk in Görlitz any good?",
])
def test_inv154_event_questions_are_past_tense_narratives(q):
    assert event_question(q)
    assert time_intent(q, NOW).event


@pytest.mark.parametrize("q", [
    "What breed is her pet?",
    "Which code editor does he use day to day?",
    "Where does she eat on Fridays?",
    "How do I get a battery sensor that dropped off the mesh back online?",
    "What is the checked bag weight limit on the Kirkwall flights?",
    "When is her sister coming to stay with them?",
    "Who is his boss now?",
    "What breed of pet does she have?",
    "",
])
def test_inv154_present_questions_are_not_events(q):
    assert not event_question(q)
    assert not time_intent(q, NOW).event


def test_inv154_kind_weights_on_an_event_question_are_the_episodes():
    p = RankingParams()
    assert p.event_plain_dense and p.distilled_weak_dense_weight is not None
    for cov in (0.0, 0.3, 1.0):
        plain = kind_dense_weights(cov, p)
        ev = kind_dense_weights(cov, p, event=True)
        assert ev.dense_weight == pytest.approx(plain.dense_weight)  # episodes unchanged
        assert ev.distilled_dense_weight is None  # = the episode's weight
    weak = kind_dense_weights(0.0, p)
    assert weak.distilled_dense_weight is not None
    assert weak.distilled_dense_weight > weak.dense_weight
    off = p.model_copy(update={"event_plain_dense": False})
    assert kind_dense_weights(0.0, off, event=True) == kind_dense_weights(0.0, off)


def test_inv154_recall_gives_an_event_question_the_episode_weight_on_the_real_store(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    eps = svc.write_episodes("ana", [
        ("The hoover robot got stuck under the sofa and the dog barked at it for an hour",
         NOW, "s1"),
        ("Booked the ferry to Bergen for June", NOW, "s2"),
        ("The kettle is descaled every month", NOW, "s3")], actor="cli")
    svc.write_fact("ana", "Robot vacuum runs on weekday mornings", source_episode_ids=[eps[0].id])
    svc.write_fact("ana", "Takes the ferry when visiting family in Norway")
    svc.write_fact("ben", "Robot vacuum got stuck at night")  # another user's: never a candidate
    p = DEFAULT.ranking
    for q, event in (("How did the robot's first outing go?", True),
                     ("How does the robot's timetable look?", False)):
        got = svc.recall("ana", q, purpose=Purpose.EVAL, explain=True)
        assert time_intent(q, NOW).event is event
        cov = got.explain.lexical_coverage
        assert cov is not None and cov < p.coverage_full  # a weak lexical match (invariant 154)
        want = kind_dense_weights(cov, p, event=event)
        assert got.explain.dense_weight == pytest.approx(want.dense_weight)
        if event:  # facts' dense shares weigh as an episode's: no distilled weight shown
            assert got.explain.distilled_dense_weight is None
        else:
            assert got.explain.distilled_dense_weight == pytest.approx(want.distilled_dense_weight)
        assert all(h.doc.user_id == "ana" for h in got.hits)
        assert {h.doc.kind for h in got.hits} >= {MemoryKind.EPISODIC, MemoryKind.SEMANTIC}
    # switched off, an event question ranks as any other (invariant 154 applies)
    off = RecallConfig(ranking=p.model_copy(update={"event_plain_dense": False}))
    q = "How did the robot's first outing go?"
    a = svc.recall("ana", q, purpose=Purpose.EVAL, explain=True, config=off)
    assert a.explain.distilled_dense_weight is not None


# --- invariant 102: a part of a season names its month ------------------------------------------
@pytest.mark.parametrize(("q", "month"), [
    ("What rota did she work at the start of the summer?", 6),
    ("Which tier did she have at the beginning of summer?", 6),
    ("Where did he climb in mid-summer?", 7),
    ("What did she eat at the end of the summer?", 8),
    ("Was the flat cold in late autumn?", 11),
])
def test_inv102_a_part_of_a_season_is_one_month(q, month):
    start, end = time_intent(q, NOW).window or (None, None)
    assert start == datetime(2026, month, 1, tzinfo=UTC)
    assert end == datetime(2026 + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    assert time_intent(q, NOW).history == (end <= NOW)  # a span still running is not history


def test_inv102_a_whole_season_and_winter_across_the_new_year():
    assert time_intent("What did he do over the summer?", NOW).window == (
        datetime(2026, 6, 1, tzinfo=UTC), datetime(2026, 9, 1, tzinfo=UTC))
    assert time_intent("Where was she in mid-winter?", NOW).window == (
        datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 2, 1, tzinfo=UTC))
    assert time_intent("What breed is her pet?", NOW).window is None


def test_inv102_history_question_with_a_season_part_gets_that_version_on_the_real_store(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    june, july = datetime(2026, 6, 1, tzinfo=UTC), datetime(2026, 7, 1, tzinfo=UTC)
    old = svc.write_fact("ana", "Works night shifts on the ward", valid_from=june).fact
    svc.clock = fixed_clock(july)
    new = svc.write_fact("ana", "Works a rotating rota of days and nights on the ward",
                         valid_from=july, supersedes_id=old.id).fact
    svc.clock = fixed_clock(NOW)
    svc.write_fact("ben", "Works night shifts at the depot")  # another user's
    got = svc.recall("ana", "What shifts did she work at the start of the summer?",
                     purpose=Purpose.EVAL)
    ids = [h.id for h in got.hits]
    assert ids[0] == old.id and new.id in ids
    assert all(h.doc.user_id == "ana" for h in got.hits)
    # the current question never sees the superseded version (invariants 6, 102)
    now_q = svc.recall("ana", "What shifts does she work?", purpose=Purpose.EVAL)
    assert old.id not in [h.id for h in now_q.hits]


# --- invariant 158: a wh-question in the past tense may ask for a superseded version ------------
@pytest.mark.parametrize(("q", "tense_only"), [
    ("Who was their internet provider in Leeds?", True),
    ("Which laptop did Parcelbird give him?", True),
    ("What was her shift pattern right after the nights ended?", True),
    ("Did he ever start his Neovim setup over?", False),  # yes/no: an event, not a slot
    ("Which relative introduced her to home automation?", False),  # wh-subject, past verb
    ("Who is their internet provider?", False),
    ("Where did she live before Lisbon?", False),  # history already (invariant 158)
])
def test_inv158_tense_only_is_a_past_wh_question_without_other_time_cue(q, tense_only):
    i = time_intent(q, NOW)
    assert i.tense_only is tense_only
    if tense_only:
        assert not i.history and not i.past and i.window is None  # nothing else said about time


def test_inv158_a_past_tense_question_finds_the_superseded_version_on_the_real_store(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    old = svc.write_fact("ana", "Internet provider is Virgin Media at the flat in Leeds").fact
    new = svc.write_fact("ana", "Internet provider is Zen fibre at the Bristol flat",
                         supersedes_id=old.id).fact
    svc.write_fact("ana", "Her sister introduced her to smart homes")
    svc.write_fact("ana", "Her partner works from home")
    svc.write_fact("ben", "Internet provider in Leeds is Virgin Media")  # another user's
    bt = svc.write_fact("ana", "Internet provider in Leeds was BT").fact
    svc.retract("ana", bt.id)  # never true: stays out (invariant 6)
    q = "Who was their internet provider in Leeds?"
    got = svc.recall("ana", q, purpose=Purpose.EVAL)
    ids = [h.id for h in got.hits]
    assert ids[0] == old.id and new.id in ids
    assert all(h.doc.user_id == "ana" for h in got.hits)
    assert bt.id not in ids
    assert all(h.doc.state.value in ("active", "superseded") for h in got.hits
               if h.doc.kind == MemoryKind.SEMANTIC)  # never retracted or rejected (invariant 6)
    top = got.hits[0]
    assert DEFAULT.ranking.chain_lift > 1.0
    assert top.multipliers.lift == pytest.approx(1.0)  # no sources, and no chain lift on tense alone
    # the present question and the switch turned off keep superseded versions out
    assert old.id not in [h.id for h in svc.recall("ana", "Who is their internet provider?",
                                                   purpose=Purpose.EVAL).hits]
    off = RecallConfig(ranking=DEFAULT.ranking.model_copy(update={"tense_superseded_weight": 0.0}))
    assert old.id not in [h.id for h in svc.recall("ana", q, purpose=Purpose.EVAL,
                                                   config=off).hits]


# --- invariant 158 (eighth pass): more past wordings, still only in the past tense --------------
def test_inv158_more_history_wordings_in_the_past_tense():
    for q in ("Which phone did I have first?", "What editor did I use first?",
              "Which employer came first?"):
        i = time_intent(q, NOW)
        assert i.history and i.order == "first", q
    for q in ("What hub did she use to have?", "Back when she lived in Leeds, who was her provider?",
              "What city did she live in prior?", "Did she use to eat meat?"):
        assert time_intent(q, NOW).past, q
    for q in ("What should I do first?", "Who is first in the queue?", "What do I need to do prior?",
              "What do I eat before a run?", "When I come back, when should I call?"):
        i = time_intent(q, NOW)
        assert not i.past and i.order is None, q
