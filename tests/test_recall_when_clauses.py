"""Recall quality: "when" opening a clause and "old" describing a thing ask for no
earlier version in a question otherwise in the simple present (invariant 158). Pure detection
first, then the real store and retrieval."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.clock import fixed_clock
from memory.models import FactState
from memory.search_config import Purpose
from memory.service import MemoryService
from memory.temporal import present_not_history, time_intent
from tests.recall_support import embedded_only  # noqa: F401 - the store fixture

NOW = datetime(2026, 8, 20, 12, tzinfo=UTC)


@pytest.mark.parametrize("q", [
    "When does she have to be out of the old flat in Germany?",
    "What should I do with my smart gadgets when I relocate?",
    "When does his time at Parcelbird end?",
    "When do the shades in her room go up in the morning?",
    "Wann? When does Jürgen leave the old Wohnung in Köln?",
])
def test_inv158_simple_present_when_and_old_are_no_history(q):
    intent = time_intent(q, NOW)
    assert present_not_history(q)
    assert not intent.history and not intent.past and intent.anchor is None


@pytest.mark.parametrize("q", [
    "When did the tenancy on her old place run out?",   # past tense
    "What notebook did he have at his old job?",
    "What is Lukas's old room used for now?",            # "now" is invariant 193's cue
    "When is he flying home?",                           # progressive: an activity under way
    "What is the history of her hub?",                   # a history cue other than "when"
    "Where does she live since she left Leeds?",
    "When does she move in August?",                     # a named time keeps its reading
    "What does she do during the winter?",
])
def test_inv158_other_questions_keep_their_reading(q):
    before = time_intent(q, NOW)
    assert not present_not_history(q) or before.window is not None
    if "did" in q or "history" in q:
        assert before.history


def test_inv158_recall_keeps_the_superseded_flat_out_on_the_real_store(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    old = svc.write_fact("maya", "Lives in a flat in Ottensen, Hamburg, Germany").fact
    svc.write_fact("maya", "Lives in Alcântara, Lisbon", supersedes_id=old.id)
    lease = svc.write_fact("maya", "Her Hamburg lease ends on September 30").fact
    svc.write_fact("maya", "Has a beagle called Biscuit")
    svc.write_fact("ana", "Her flat in Germany: the lease ends on May 1")  # another user's
    assert svc.store.get(old.kind, "maya", old.id).state == FactState.SUPERSEDED
    present = svc.recall("maya", "When does she have to be out of the old flat in Hamburg?",
                         purpose=Purpose.EVAL).hits
    ids = [h.id for h in present]
    assert lease.id in ids[:2]  # the hashing embedder carries no meaning; eligibility is the rule
    assert old.id not in {h.id for h in present}
    assert all(h.doc.user_id == "maya" for h in present)
    # the past tense still asks for the earlier version: it stays eligible
    past = svc.recall("maya", "Where was her old flat?", purpose=Purpose.EVAL).hits
    assert old.id in {h.id for h in past}
