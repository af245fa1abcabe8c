"""Recall quality: a named day or week is a narrow window (invariant 102);
"when we first met" asks for the oldest version (207); "how often did ..." and a wh-question
after a comma clause are past-tense slot questions (208); "we" / "our" and the user's own name
refer to a person (209, 210); the embedded query goes without he / she (211). Pure detection
and weights first, then the real store and retrieval."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.clock import fixed_clock
from memory.lexical import without_pronouns
from memory.models import CatalogDoc, MemoryKind
from memory.ranking import (
    Candidate,
    RankingParams,
    _time_multiplier,
    asks_about_person,
    chain_targets,
    person_weights,
)
from memory.search_config import DEFAULT, Purpose, RecallConfig
from memory.service import MemoryService
from memory.temporal import time_intent
from tests.recall_support import NOW, embedded_only  # noqa: F401 - the store fixture


def _day(y, m, d):
    return datetime(y, m, d, tzinfo=UTC)


# --- invariant 102: "the last day of March" is a day, "the first week of May" a week -------------
@pytest.mark.parametrize("q, window", [
    ("What did Jürgen do on the last day of March?", (_day(2026, 3, 30), _day(2026, 4, 2))),
    ("Where was she on the first day of February?", (_day(2026, 1, 31), _day(2026, 2, 3))),
    ("Who visited during the first week of June?", (_day(2026, 6, 1), _day(2026, 6, 8))),
    ("What broke in the LAST WEEK of October?", (_day(2026, 10, 25), _day(2026, 11, 1))),
    ("What happened on the very last day of December 2025?",
     (_day(2025, 12, 30), _day(2026, 1, 2))),
    ("Which trip was planned for the first week of May?", (_day(2026, 5, 1), _day(2026, 5, 8))),
])
def test_inv102_a_named_day_or_week_of_a_month(q, window):
    assert time_intent(q, NOW).window == window


@pytest.mark.parametrize("q, window", [
    ("What happened at the end of June?", (_day(2026, 6, 20), _day(2026, 7, 1))),  # as before
    ("What happened in March?", (_day(2026, 3, 1), _day(2026, 4, 1))),
    ("What did he do on the 3rd of March?", (_day(2026, 3, 2), _day(2026, 3, 5))),
])
def test_inv102_other_month_phrases_are_unchanged(q, window):
    assert time_intent(q, NOW).window == window


# --- invariant 102: a narrow window weighs its memories more; a fact only if it began or ended --
def test_inv102_narrow_window_multipliers(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    inside = svc.write_episodes("ana", [("Handed the keys back", _day(2026, 3, 31), "s1")],
                                actor="cli")[0]
    outside = svc.write_episodes("ana", [("Packed the van", _day(2026, 3, 20), "s2")],
                                 actor="cli")[0]
    holding = svc.write_fact("ana", "Has a beagle called Biscuit", valid_from=_day(2026, 1, 5)).fact
    ending = svc.write_fact("ana", "Rents a flat in Leeds", valid_from=_day(2025, 9, 1),
                            valid_to=_day(2026, 3, 31)).fact
    p = RankingParams()
    assert p.narrow_window_boost > p.window_boost > 1.0 and p.narrow_fact_edge
    day = time_intent("What did we do on the last day of March?", NOW)
    assert [_time_multiplier(d, day, p) for d in (inside, outside, holding, ending)] == \
        [p.narrow_window_boost, 1.0, 1.0, p.narrow_window_boost]
    # a month stays a wide window: the old boost, and a fact holding across it counts
    month = time_intent("What did we do in March?", NOW)
    assert [_time_multiplier(d, month, p) for d in (inside, outside, holding)] == \
        [p.window_boost, p.window_boost, p.window_boost]
    off = p.model_copy(update={"narrow_window_boost": p.window_boost, "narrow_fact_edge": False})
    assert [_time_multiplier(d, day, off) for d in (inside, outside, holding)] == \
        [p.window_boost, 1.0, p.window_boost]


def test_inv102_recall_puts_that_days_episode_first_on_the_real_store(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    day = svc.write_episodes("ana", [("Did the last walk round the flat, keys handed back",
                                      _day(2026, 3, 31), "s1")], actor="cli")[0]
    svc.write_fact("ana", "Her birthday is March 19", valid_from=_day(2026, 1, 2))
    svc.write_fact("ana", "Did a big shop in March for the move", valid_from=_day(2026, 1, 3))
    for n, t in enumerate(("The van is booked for March", "Boxes everywhere this March",
                           "March is chaos with the move")):
        svc.write_episodes("ana", [(t, _day(2026, 3, 10 + n), f"t{n}")], actor="cli")
    svc.write_episodes("ben", [("Keys handed back", _day(2026, 3, 31), "b")], actor="cli")
    q = "What did we do on the last day of March?"
    off = RecallConfig(ranking=DEFAULT.ranking.model_copy(
        update={"narrow_window_boost": DEFAULT.ranking.window_boost, "narrow_fact_edge": False}))
    before = svc.recall("ana", q, purpose=Purpose.EVAL, config=off).hits
    after = svc.recall("ana", q, purpose=Purpose.EVAL).hits
    assert before[0].doc.id != day.id
    assert after[0].doc.id == day.id
    assert {h.id for h in after} == {h.id for h in before}  # reorders, never adds or drops
    assert after[0].multipliers.time == pytest.approx(DEFAULT.ranking.narrow_window_boost)
    assert all(h.doc.user_id == "ana" for h in after)


# --- invariant 158: "back when we first spoke" asks for the state at the start -------------------
@pytest.mark.parametrize("q", [
    "What diet was she on back when we first spoke?",
    "Which phone did he have when I first met him?",
    "Where did they live when they first came to Köln?",
])
def test_inv158_when_someone_first_did_something_asks_for_the_oldest(q):
    it = time_intent(q, NOW)
    assert it.order == "first" and it.history


@pytest.mark.parametrize("q", [
    "When did we first meet?",  # asks when, names no version
    "What is her diet when she first lands abroad?",  # present tense: a routine, not history
])
def test_inv158_other_first_phrases_are_not(q):
    assert time_intent(q, NOW).order is None


def test_inv158_the_oldest_chain_member_is_the_target(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    old = svc.write_fact("ana", "Is vegan").fact
    mid = svc.write_fact("ana", "Is vegetarian", supersedes_id=old.id).fact
    new = svc.write_fact("ana", "Is pescatarian", supersedes_id=mid.id).fact
    chain = [store.get(MemoryKind.SEMANTIC, "ana", f.id) for f in (old, mid, new)]
    first = time_intent("What was her diet back when we first spoke?", NOW)
    assert chain_targets(chain, first) == [0]
    plain = time_intent("What was her diet back then?", NOW)  # a past cue: the one before now
    assert chain_targets(chain, plain) == [1]


# --- invariant 158: "how often did ..." and a wh-question after a comma clause -------------------
@pytest.mark.parametrize("q", [
    "Once the team grew, how often did he get paged?",
    "How many stars did his side project get?",
    "How long did the Anmeldung take?",
    "After the merger, which office was she at?",
])
def test_inv158_past_slot_questions(q):
    assert time_intent(q, NOW).tense_only


@pytest.mark.parametrize("q", [
    "How often does he go climbing?",  # present
    "How did the dinner go?",  # an event question, no slot
    "Did he ever finish the course, or drop it?",  # yes/no
    "How often did he move house before 2020?",  # a named anchor: a history question already
])
def test_inv158_other_questions_are_not(q):
    assert not time_intent(q, NOW).tense_only


# --- invariant 193: "we" / "our" and the user's own name refer to a person ---------------
@pytest.mark.parametrize("q", [
    "What breed is our dog?",
    "Where did we put the spare keys?",
    "Which café do we go to on Sundays?",
])
def test_inv193_we_and_our_ask_about_a_person(q):
    assert asks_about_person(q)


@pytest.mark.parametrize("q", [
    "How do we reset the lights after a power cut?",  # how-to: a procedure
    "Is my US visa waiver still valid?",  # "US" is a country, not a pronoun
    "What should I pack for Lisbon?",
])
def test_inv193_how_to_and_first_person_singular_are_not(q):
    assert not asks_about_person(q)


def test_inv193_a_question_naming_the_user_weighs_the_catalog_less(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    svc.add_catalog([CatalogDoc(title="Cats", text="Cats can live with dogs if introduced slowly")])
    fact = svc.write_fact("ana", "Never had a cat, only fostered one for a week").fact
    cat = next(h.doc for h in svc.recall("ana", "cats live with dogs", purpose=Purpose.EVAL).hits
               if h.doc.kind == MemoryKind.CATALOG)
    cands = [Candidate(cat, 1.0, {}, (1.0, 1.0, 1.0), None),
             Candidate(fact, 1.0, {}, (1.0, 1.0, 1.0), None)]
    p = RankingParams()
    q = "Did a cat ever live with Ana?"
    assert person_weights(cands, q, p) == [1.0, 1.0]  # no pronoun: nothing without the name
    assert person_weights(cands, q, p, names_user=True) == [p.person_catalog_weight, 1.0]
    assert person_weights(cands, "How do I help Ana's cat settle?", p, names_user=True) == \
        [1.0, 1.0]  # how-to: a procedure, whoever it names


def test_inv193_recall_reads_the_users_name_on_the_real_store(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    svc.add_catalog([CatalogDoc(title="Cats", text="Can a cat live with a beagle? Usually yes")])
    svc.write_fact("ana", "Her name is Ana and she is a nurse")
    fact = svc.write_fact("ana", "A visiting cat lived with the beagle for a week").fact
    for t in ("Lives in Bristol", "Drinks tea in the morning", "Works nights"):
        svc.write_fact("ana", t)
    q = "Did a cat ever live with Ana and the beagle?"
    hits = svc.recall("ana", q, purpose=Purpose.EVAL).hits
    cat = next(h for h in hits if h.doc.kind == MemoryKind.CATALOG)
    assert cat.multipliers.lift == pytest.approx(DEFAULT.ranking.person_catalog_weight)
    assert next(h for h in hits if h.id == fact.id).multipliers.lift != cat.multipliers.lift
    # someone else's name is no reference to the user: the catalog keeps its weight
    other = svc.recall("ana", "Did a cat ever live with Bruno and the beagle?",
                       purpose=Purpose.EVAL).hits
    assert next(h for h in other if h.doc.kind == MemoryKind.CATALOG).multipliers.lift == 1.0


# --- invariant 153: the embedded query goes without he / she ------------------------------------
@pytest.mark.parametrize("q, out", [
    ("What is his hobby project about?", "What is hobby project about?"),
    ("Where does SHE keep her EpiPens?", "Where does keep EpiPens?"),
    ("Wo wohnt er — where does he live?", "Wo wohnt er — where does live?"),
    ("Who is he?", "Who is he?"),  # nothing left but stop words: as it was
    ("Where do the shelves go?", "Where do the shelves go?"),  # "the", "shelves": no pronoun
    ("What does Heather herald?", "What does Heather herald?"),
])
def test_inv153_without_pronouns(q, out):
    assert without_pronouns(q) == out


def test_inv153_the_dense_leg_embeds_the_question_without_pronouns(store, hash_embedder):
    seen: list[str] = []

    class Spy:  # the real hashing embedder, recording what it is asked to embed
        name, dims = hash_embedder.name, hash_embedder.dims

        def embed(self, texts):
            seen.extend(texts)
            return hash_embedder.embed(texts)

    from memory.retrieval import retrieve

    svc = MemoryService(store, clock=fixed_clock(NOW))
    svc.write_fact("ravi", "Side project tinylog is a log viewer in Rust")
    retrieve(store, Spy(), "ravi", "What is his side project?", DEFAULT, NOW,
             purpose=Purpose.EVAL)
    assert seen == ["What is side project?"]
    seen.clear()
    off = DEFAULT.model_copy(update={"dense_drop_pronouns": False})
    retrieve(store, Spy(), "ravi", "What is his side project?", off, NOW, purpose=Purpose.EVAL)
    assert seen == ["What is his side project?"]
