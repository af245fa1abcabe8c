"""The third frozen persona question set (invariants 54, 65, 100 and 151): written before any
ranking was run on it by someone who had seen no ranking, unchanged, paraphrased, and every id
it names is a document agent recall may return from a store seeded with the personas."""

from __future__ import annotations

import hashlib
import json
import statistics
from collections import Counter

import pytest

from memory.eval.recall_eval import QUESTION_SETS, load_questions
from memory.personas import DATA_DIR
from memory.personas.overlap import gold_texts, overlap

from .frozen_support import assert_answerable, seeded_documents

FROZEN3 = DATA_DIR / "questions_frozen3.json"
# Pinned when the set was committed, before any ranking was run on it (invariant 151).
# Never update this: a changed question is a new set with a new name.
FROZEN3_SHA256 = "fbcb69ce0c6cc2914961b79fdbc2465969a788ce2362c7923c2ef4a442ebdd3a"
TAGS = {"current", "history", "dated", "event", "playbook", "catalog"}
PERSONAS = {"maya-smart-home", "lena-travels", "dev-ravi"}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return seeded_documents(tmp_path_factory.mktemp("frozen3") / "p.db")


def _questions() -> list[dict]:
    return json.loads(FROZEN3.read_text(encoding="utf-8"))


def test_inv151_frozen3_file_is_unchanged():
    assert hashlib.sha256(FROZEN3.read_bytes()).hexdigest() == FROZEN3_SHA256


def test_inv151_frozen3_is_a_named_set_the_eval_loads():
    assert QUESTION_SETS["frozen3"] == FROZEN3
    assert len(load_questions("frozen3")) == len(_questions())


def test_inv100_inv151_every_id_is_a_document_agent_recall_may_return(seeded):
    docs, contradicted = seeded
    assert_answerable(_questions(), docs, contradicted, id_prefix="f3")


def test_inv54_frozen3_questions_paraphrase_their_gold():
    texts = gold_texts()
    scores = {q["id"]: overlap(q["question"], texts[q["gold_id"]]) for q in _questions()}
    assert statistics.fmean(scores.values()) <= 0.30
    assert max(scores.values()) < 1.0  # no question made only of its gold's words


def test_inv151_frozen3_is_large_and_spread_over_personas_tags_and_kinds(seeded):
    docs, _ = seeded
    questions = _questions()
    assert len(questions) >= 200
    assert {q["gold_kind"] for q in questions} == {"episodic", "semantic", "procedural", "catalog"}
    per_user = Counter(q["user_id"] for q in questions)
    assert set(per_user) == PERSONAS
    assert min(per_user.values()) >= 60
    assert {q["tag"] for q in questions} == TAGS
    # History questions ask about the past: their golds are superseded versions.
    history = [q for q in questions if q["tag"] == "history"]
    assert all(docs[q["gold_id"]][2] == "superseded" for q in history)
    assert sum(any(ord(c) > 127 for c in q["question"]) for q in questions) >= 15  # Unicode text
