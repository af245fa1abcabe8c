"""The reader's knowledge is data (issue 28): every row of `memory/reading/tables/` is run by
one parametrised test per table. A new phrasing is a new row, never a new test function."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from memory.reading import FactRef, read_message
from memory.reading.links import linked_fact
from memory.reading.read import check_value
from memory.reading.tables import HERE, cues
from memory.slots import slot_key, slot_of
from memory.when import first_date

NOW = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)


def _rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (HERE / name).read_text(encoding="utf-8").splitlines()
            if line.strip()]


@pytest.mark.parametrize("cue", cues(), ids=lambda c: c.example[:40])
def test_inv535_every_cue_row_reads_its_own_example(cue):
    """Each row's example sentence, said by a new user, writes the row's fact."""
    ops = read_message(cue.example, NOW, []).operations
    assert cue.want in [op.text for op in ops], [op.text for op in ops]


@pytest.mark.parametrize("row", _rows("examples.jsonl"), ids=lambda r: r["text"][:40])
def test_inv533_every_example_message_resolves_as_its_row_says(row):
    """Messages against facts on record: the operations, the fact each replaces (by index into
    `facts`), the status (`write?`, `supersede?`, … = a candidate for review) and the valid-from date."""
    facts = [FactRef(id=f"f{i}", text=t) for i, t in enumerate(row["facts"])]
    got = [(op.op + ("?" if op.status == "candidate" else ""), op.text,
            int(op.old_id[1:]) if op.old_id else None,
            op.valid_from.isoformat() if op.valid_from else None)
           for op in read_message(row["text"], NOW, facts).operations]
    assert got == [tuple(o) for o in row["ops"]]


@pytest.mark.parametrize("row", _rows("dates.jsonl"), ids=lambda r: r["text"])
def test_inv531_every_date_row_is_placed_or_left_undated(row):
    want = date.fromisoformat(row["day"]) if row["day"] else None
    assert first_date(row["text"], NOW, row["tense"]) == want


@pytest.mark.parametrize("row", _rows("canonical.jsonl"), ids=lambda r: r["text"][:40])
def test_inv530_one_slot_vocabulary_reads_every_canonical_text(row):
    assert slot_of(row["text"]) == row["slot"]
    assert slot_key(row["text"]) == row.get("key", row["slot"] if row["slot"] in (
        "home", "employer", "job", "name", "diet", "manager", "partner", "bank") else None)


@pytest.mark.parametrize("value", ["the learning the cello", "we am a dentist", "I", "and Leeds",
                                   "is Bristol", "a flat in", "not seen a doctor"])
def test_inv532_a_value_that_is_not_english_the_user_would_sign_is_refused(value):
    assert check_value(value)


@pytest.mark.parametrize("value", ["Leeds", "a Lumio Hub v2", "São Paulo", "the cello",
                                   "東京", "Zigbee2MQTT", "two cats, Laddoo and Jalebi"])
def test_inv532_a_well_formed_value_passes(value):
    assert not check_value(value)


def test_inv535_the_tables_are_where_the_reader_looks():
    assert (HERE / "cues.jsonl").exists() and Path(HERE / "words.json").exists()
    assert len(cues()) >= 100


def test_inv534_a_link_needs_a_rare_shared_word_and_no_tie():
    facts = [FactRef(id="a", text="Has a cat called Luna"), FactRef(id="b", text="Lives in Leeds"),
             FactRef(id="c", text="Works at Leeds General Infirmary")]
    assert linked_fact("Luna died last night", facts).id == "a"
    assert linked_fact("Leeds was rainy", facts) is None  # two facts say Leeds: no link
    assert linked_fact("the weather was awful", facts) is None
    assert linked_fact("Luna died", facts, need=1.5) is None  # one word is not enough here
    # a link only ever proposes: the operation it makes is a candidate
    ops = read_message("Luna died last night", NOW, facts).operations
    assert [(o.op, o.old_id, o.status) for o in ops] == [("supersede", "a", "candidate")]
