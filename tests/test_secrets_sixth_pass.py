"""Issue 30, item 5, sixth pass (invariants 460, 273): secrets by meaning, by mechanism. The
rows of tests/data/secrets_probes6.jsonl were written before the detector changed for them
(README-secrets.md, sixth pass), one group per kind the blind table 4 still missed; each row
is a case here. The new words are data (memory/secret_frames/): removing them changes what is
withheld."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from memory import secret_shapes
from memory.sensitive import WITHHELD, masked
from tests.secrets_support import frames_edited

PROBES = [json.loads(line) for line in (Path(__file__).resolve().parent / "data"
          / "secrets_probes6.jsonl").read_text(encoding="utf-8").splitlines() if line]


def _kind(row: dict) -> str:
    return re.sub(r"^r\d-", "", row["mechanism"])  # rounds 2-5 reuse round 1's kinds


def test_inv460_the_probe_table_has_both_sides_of_every_kind():
    kinds = {_kind(r) for r in PROBES}
    assert len(kinds) >= 7
    assert all(any(r["secrets"] for r in PROBES if _kind(r) == k) for k in kinds)
    assert all(any(not r["secrets"] for r in PROBES if _kind(r) == k) for k in kinds)


def test_inv460_the_new_cue_words_are_data(tmp_path, monkeypatch):
    """Without "e" among the copulas, "codul de la poarta e 4826" hands nothing over; without
    "the old one" among the derived words, "same as the old one 4471 for the gate" neither;
    without "new one:" among the anaphora, "gate code changed again, new one: 9027" neither."""
    texts = ["codul de la poarta e 4826", "same as the old one 4471 for the gate",
             "gate code changed again, new one: 9027"]
    assert all(WITHHELD in masked(t) for t in texts)
    def without_the_rows(frames: dict) -> None:
        frames["copulas"].remove("e")
        frames["derived"] = [w for w in frames["derived"] if "old" not in w]
        frames["anaphora"] = [w for w in frames["anaphora"] if "new one" not in w]

    with frames_edited(tmp_path, monkeypatch, without_the_rows):
        assert [masked(t) for t in texts] == texts


@pytest.mark.parametrize("text, valid", [("my social 536 22 8150", True),  # spaces for dashes
                                         ("my social 536-22-8150", True),
                                         ("my social 536 22", False),
                                         ("my social club 1930", False)])
def test_inv273_an_ssn_typed_with_spaces_is_the_same_number(text, valid):
    assert bool(secret_shapes.identity_numbers(text)) is valid


@pytest.mark.parametrize("text, question", [
    ('the security question is "What was your first car?"', True),
    ("security question: 'name of your first pet'", True),
    ("the security question was “mother's maiden name”", True),
    ('security answer: "Hillcrest"', False),
    ("my security question: 'Marigold'", False)])
def test_inv460_a_security_questions_own_wording_is_no_answer(text, question):
    assert (masked(text) == text) is question
