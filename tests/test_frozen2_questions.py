"""The second frozen persona question set (invariants 100 and 151): written before any ranking
was seen, unchanged, and every id it names is a document agent recall may return from a store
seeded with the personas."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import pytest

from memory.eval.recall_eval import QUESTION_SETS, load_questions
from memory.personas import DATA_DIR

from .frozen_support import assert_answerable, seeded_documents

FROZEN2 = DATA_DIR / "questions_frozen2.json"
# Pinned when the set was committed, before any ranking was run on it (invariant 151).
# Never update this: a changed question is a new set with a new name.
FROZEN2_SHA256 = "6052462f218d2f4571123010e83ec6fbb6114b1541dbc9c6e1c2e6803a10b2d8"
TAGS = {"current", "history", "dated", "event", "playbook", "catalog"}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory):
    return seeded_documents(tmp_path_factory.mktemp("frozen2") / "p.db")


def _questions() -> list[dict]:
    return json.loads(FROZEN2.read_text(encoding="utf-8"))


def test_inv151_frozen2_file_is_unchanged():
    assert hashlib.sha256(FROZEN2.read_bytes()).hexdigest() == FROZEN2_SHA256


def test_inv151_frozen2_is_a_named_set_the_eval_loads():
    assert QUESTION_SETS["frozen2"] == FROZEN2
    assert len(load_questions("frozen2")) == len(_questions())


def test_inv100_inv151_every_id_is_a_document_agent_recall_may_return(seeded):
    docs, contradicted = seeded
    assert_answerable(_questions(), docs, contradicted)


def test_inv151_frozen2_is_large_and_spread_over_personas_tags_and_kinds(seeded):
    docs, _ = seeded
    questions = _questions()
    assert len(questions) >= 180
    assert {q["gold_kind"] for q in questions} == {"episodic", "semantic", "procedural", "catalog"}
    per_user = Counter(q["user_id"] for q in questions)
    assert set(per_user) == {"maya-smart-home", "lena-travels", "dev-ravi"}
    assert min(per_user.values()) >= 60
    assert {q["tag"] for q in questions} == TAGS
    # History questions ask about the past: most golds are a superseded version.
    history = [q for q in questions if q["tag"] == "history"]
    assert sum(docs[q["gold_id"]][2] == "superseded" for q in history) >= 0.8 * len(history)
    assert any(any(ord(c) > 127 for c in q["question"]) for q in questions)  # text is Unicode
