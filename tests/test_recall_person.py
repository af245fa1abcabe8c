"""Recall quality: a question about him or her (invariant 193) asks for that
person's memories, so a catalog entry (general knowledge, no one's memory) weighs less; a
question about the state now (invariant 193) is answered by the active fact before an episode.
Pure detection and weights first, then the real store and retrieval."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.clock import fixed_clock
from memory.models import CatalogDoc, MemoryKind
from memory.ranking import (
    Candidate,
    RankingParams,
    asks_about_person,
    asks_present,
    person_weights,
    present_weights,
)
from memory.search_config import DEFAULT, Purpose, RecallConfig
from memory.service import MemoryService
from memory.temporal import time_intent
from tests.recall_support import ALIKE, NOW, embedded_only  # noqa: F401 - the store fixture


@pytest.mark.parametrize("q", [
    "Where do her home server's snapshots go every night?",
    "Which code editor does he use day to day?",
    "What battery backup keeps HIS network up in a blackout?",
    "Can I book him into a 9am call?",
    "¿Dónde vive? Where does she live now?",
    "Was hat er gesagt — what did he tell the landlord?",
    "How did she get to Porto in the end?",
    "How often does he cycle to work?",
])
def test_inv193_third_person_questions_ask_about_a_person(q):
    # "How did she get there?" asks what happened, not how to do it: still about her
    assert asks_about_person(q)


@pytest.mark.parametrize("q", [
    "How do I wipe Philips bulbs before relocating?",
    "Which is better for a beginner, ZHA or Z2M?",
    "What should I do with my smart gadgets when I relocate?",
    "Where should water alarms go in a kitchen?",
    "Can they fly with a cat in the cabin?",
    "What's the theme of the show?",  # "the", "show" are not pronouns
    "How should she reset her Hue bulbs before the move?",  # how-to: a procedure, whoever asks
    "Why does his Zigbee sensor keep dropping off?",
    "",
])
def test_inv193_general_and_first_person_questions_do_not(q):
    assert not asks_about_person(q)


def test_inv193_person_weights_touch_only_catalog_entries(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    svc.add_catalog([CatalogDoc(title="Backups", text="Schedule snapshots nightly")])
    fact = svc.write_fact("ana", "Home Assistant backs up nightly to Google Drive").fact
    cat = next(h.doc for h in svc.recall("ana", "snapshots nightly", purpose=Purpose.EVAL).hits
               if h.doc.kind == MemoryKind.CATALOG)
    cands = [Candidate(cat, 1.0, {}, (1.0, 1.0, 1.0), None),
             Candidate(fact, 1.0, {}, (1.0, 1.0, 1.0), None)]
    p = RankingParams()
    assert p.person_catalog_weight < 1.0
    assert person_weights(cands, "Where do her backups go?", p) == [p.person_catalog_weight, 1.0]
    assert person_weights(cands, "Where do backups go?", p) == [1.0, 1.0]
    off = p.model_copy(update={"person_catalog_weight": 1.0})
    assert person_weights(cands, "Where do her backups go?", off) == [1.0, 1.0]


def test_inv193_recall_puts_her_fact_above_the_catalog_on_the_real_store(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    svc.add_catalog([CatalogDoc(title="Snapshots",
                                text="Where do nightly snapshots go? To Google Drive")])
    fact = svc.write_fact("ana", "Nightly snapshots go to a NAS in the hallway").fact
    for t in ("Has a beagle called Biscuit", "Lives in Bristol", "Drinks tea in the morning"):
        svc.write_fact("ana", t)
    svc.write_fact("ben", "Nightly snapshots go to a NAS")  # another user's: never a candidate
    off = RecallConfig(ranking=DEFAULT.ranking.model_copy(update={"person_catalog_weight": 1.0}))
    q = "Where do her nightly snapshots go?"
    before = svc.recall("ana", q, purpose=Purpose.EVAL, config=off).hits
    after = svc.recall("ana", q, purpose=Purpose.EVAL).hits
    assert before[0].doc.kind == MemoryKind.CATALOG and before[1].doc.id == fact.id
    assert after[0].doc.id == fact.id  # her own memory first
    # reorders, never adds or drops: the same candidates, the catalog entry still there
    assert {h.id for h in after} == {h.id for h in before}
    cat = next(h for h in after if h.doc.kind == MemoryKind.CATALOG)
    assert cat.multipliers.lift == pytest.approx(DEFAULT.ranking.person_catalog_weight)
    assert all(h.doc.user_id in ("ana", None) for h in after)
    # the same words asked in general keep the catalog where fusion put it
    general = "Where do nightly snapshots go?"
    assert [h.id for h in svc.recall("ana", general, purpose=Purpose.EVAL, config=off).hits] == \
        [h.id for h in svc.recall("ana", general, purpose=Purpose.EVAL).hits]


# --- invariant 193: a question about the state now prefers the active fact to an episode --------
@pytest.mark.parametrize("q", [
    "Which internet company is she with now?",
    "What's his main code editor right now?",
    "Which editor does he write code in these days?",
    "Which neighbourhood is her place in at the moment?",
    "Does he still cycle to work?",
    "Is Jürgen currently in Görlitz?",
    "Doesn't she eat meat any more?",
])
def test_inv193_present_questions(q):
    assert asks_present(q)


@pytest.mark.parametrize("q", [
    "What is the plan for the Homey now that it's retired?",  # a clause, not a cue
    "The electricity went off and every bulb is blazing, what now?",  # a request
    "Where does she live?",
    "Which editor did he use before Zed?",
    "",
])
def test_inv193_other_questions_are_not(q):
    assert not asks_present(q)


def test_inv193_present_weights_touch_only_episodes_and_not_history_or_a_named_time(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    ep = svc.write_episodes("ana", [("Neovim is my editor", NOW, "s1")], actor="cli")[0]
    fact = svc.write_fact("ana", "Main editor is Zed").fact
    cands = [Candidate(ep, 1.0, {}, (1.0, 1.0, 1.0), None),
             Candidate(fact, 1.0, {}, (1.0, 1.0, 1.0), None)]
    p = RankingParams()
    assert p.present_episode_weight < 1.0
    q = "Which editor does he use now?"
    assert present_weights(cands, q, time_intent(q, NOW), p) == [p.present_episode_weight, 1.0]
    for other in ("Which editor did he use before Zed, still Vim?",
                  "Which editor was he still using in June?"):
        assert present_weights(cands, other, time_intent(other, NOW), p) == [1.0, 1.0]
    # the simple present is invariant 193's cue, with its own weight
    plain = "Which editor does he use?"
    no196 = p.model_copy(update={"simple_present_episode_weight": 1.0})
    assert present_weights(cands, plain, time_intent(plain, NOW), no196) == [1.0, 1.0]
    off = p.model_copy(update={"present_episode_weight": 1.0})
    assert present_weights(cands, q, time_intent(q, NOW), off) == [1.0, 1.0]


def test_inv193_recall_puts_the_active_fact_above_what_was_said_on_the_real_store(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    svc.write_episodes("ana", [
        ("Okay, Neovim is my main code editor now, main editor", datetime(2026, 3, 1, tzinfo=UTC),
         "s1"),
        ("Tea in the morning", NOW, "s2"), ("Lives near the canal", NOW, "s3")], actor="cli")
    fact = svc.write_fact("ana", "Main code editor is Zed; Neovim only on servers").fact
    svc.write_fact("ana", "Has a beagle called Biscuit")
    svc.write_fact("ben", "Main code editor is Neovim")  # another user's: never a candidate
    off = RecallConfig(ranking=ALIKE.model_copy(update={"present_episode_weight": 1.0}))
    q = "What is his main code editor now?"
    before = svc.recall("ana", q, purpose=Purpose.EVAL, config=off).hits
    after = svc.recall("ana", q, purpose=Purpose.EVAL,
                       config=RecallConfig(ranking=ALIKE)).hits
    assert before[0].doc.kind == MemoryKind.EPISODIC and before[1].doc.id == fact.id
    assert after[0].doc.id == fact.id
    assert {h.id for h in after} == {h.id for h in before}  # reorders, never adds or drops
    assert all(h.multipliers.lift == pytest.approx(DEFAULT.ranking.present_episode_weight)
               for h in after if h.doc.kind == MemoryKind.EPISODIC)
    assert all(h.doc.user_id in ("ana", None) for h in after)
