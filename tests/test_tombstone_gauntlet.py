"""Invariant 61: the tombstone gauntlet (tests/data/tombstones.jsonl: 250 labelled cases written
before the matcher was tuned, a third held out as `heldout`; then 94 paraphrase cases written
before the paraphrase rules, a third held out as `heldout2`) through the real write path, with
the real MiniLM embedder, on every available store. Prints counts per class for every split."""

from __future__ import annotations

import pytest

from memory.eval.gauntlet import MAX_DIFFERENT_REFUSED, load_cases, render_table, run_gauntlet
from memory.eval.stress import run_scenario

pytestmark = pytest.mark.slow


def test_gauntlet_file_is_labelled_and_covers_every_category():
    cases = load_cases()
    assert len(cases) >= 150
    cats = {c.category for c in cases}
    assert {"places", "numbers", "organisations", "allergies", "preferences", "devices",
            "relations", "dates", "negations", "non_latin", "emoji"} <= cats
    for first, last, split in [(0, 250, "heldout"), (250, len(cases), "heldout2")]:
        batch = cases[first:last]  # each batch of cases holds out its own third
        assert {c.split for c in batch} == {"tuning", split}
        assert 0.3 <= sum(c.split == split for c in batch) / len(batch) <= 0.36


def test_inv61_gauntlet_through_write_fact(minilm_service, capsys):
    report = run_gauntlet(minilm_service, load_cases())
    with capsys.disabled():
        print("\n" + render_table(report))
        for m in report.misses:
            print(f"  {m.case.split:7} {m.case.expected.value}->{m.got.value}: "
                  f"{m.case.dead!r} / {m.case.new!r}")
    assert report.restatements_accepted == 0, [m for m in report.misses if m.got == "accept"]
    assert report.different_refused <= MAX_DIFFERENT_REFUSED * report.different_total
    assert report.passed


def test_stress_reports_the_gauntlet_table(minilm):
    result = run_scenario("tombstone_gauntlet", minilm)
    assert result.passed, result.reason
    assert "| heldout | refuse |" in result.details["markdown"]
