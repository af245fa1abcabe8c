"""LoCoMo: evidence normalisation, category mapping, and a small slice run end to end."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory.cli import main
from memory.eval.locomo import (
    CATEGORIES,
    load_locomo,
    normalise_evidence,
    parse_session_time,
    render_markdown,
    run_locomo,
)
from memory.search_config import PRESETS

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "benchmarks" / "locomo" / "locomo10.json"
needs_data = pytest.mark.skipif(not DATA.exists(), reason=f"LoCoMo data not at {DATA}")


@pytest.mark.parametrize("raw, ids", [
    (["D1:3"], ["D1:3"]),
    (["D8:6; D9:17"], ["D8:6", "D9:17"]),
    (["D9:1 D4:4 D4:6"], ["D9:1", "D4:4", "D4:6"]),
    (["D:11:26"], ["D11:26"]),
    (["D30:05"], ["D30:5"]),
    (["D"], []),
    (["D1:3", "D1:3"], ["D1:3"]),
])
def test_inv57_evidence_ids_are_normalised(raw, ids):
    """Invariant 57: joined, typo'd and zero-padded evidence ids are cleaned before scoring."""
    assert normalise_evidence(raw) == ids


def test_inv57_categories_map_by_numeric_id():
    """Invariant 57: the file's ids, not the paper's listing order (4 is single-hop)."""
    assert CATEGORIES[4] == "single-hop" and CATEGORIES[1] == "multi-hop"
    assert CATEGORIES[5] == "adversarial"


def test_session_dates_parse():
    assert parse_session_time("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


@needs_data
def test_loader_keeps_every_evidence_id_that_names_a_real_turn():
    convs = load_locomo(DATA)
    assert len(convs) == 10 and sum(len(c.turns) for c in convs) == 5882
    qa = [q for c in convs for q in c.qa]
    assert len(qa) == 1986
    assert sum(1 for q in qa if not q.evidence) == 4  # the four category-3 items without evidence
    turns = {(c.sample_id, t.dia_id) for c in convs for t in c.turns}
    assert all((c.sample_id, e) in turns for c in convs for q in c.qa for e in q.evidence)


@needs_data
def test_small_slice_end_to_end(hash_embedder, tmp_path):
    variants = {"default": PRESETS["default"], "no_dense": PRESETS["bm25_only"]}
    report = run_locomo(DATA, hash_embedder, variants, store_path=tmp_path / "slice.db",
                        limit_conversations=1, limit_questions=40)
    assert report.conversations == 1 and report.questions == 40 and report.turns == 419
    for v in report.variants:
        assert v.n == 40
        assert 0.0 < v.overall[5] <= v.overall[10] <= v.overall[25] <= v.overall[50] <= 1.0
        assert set(v.per_category) <= set(CATEGORIES.values())
    # BM25 finds these literal questions' turns: a real retriever, not a zero.
    assert report.variants[1].overall[50] > 0.5
    # The ingested store is reused on a second run (its turn mapping sits beside it).
    again = run_locomo(DATA, hash_embedder, {"default": PRESETS["default"]},
                       store_path=tmp_path / "slice.db", limit_conversations=1, limit_questions=40)
    assert again.variants[0].overall == report.variants[0].overall
    assert again.reused_store and not report.reused_store
    assert "ingested store reused" in render_markdown(again)
    assert "DRAGON (paper)" in render_markdown(report)


@needs_data
def test_cli_slice_writes_reports(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    out = tmp_path / "reports"
    rc = main(["eval", "locomo", "--data", str(DATA), "--limit-conversations", "1",
               "--limit-questions", "10", "--no-dense", "--out", str(out), "--json"])
    assert rc == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["variants"][0]["label"] == "no_dense" and payload["questions"] == 10
    assert len(list(out.glob("locomo-no_dense-*.md"))) == 1


def test_missing_data_is_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    assert main(["eval", "locomo", "--data", str(tmp_path / "none.json")]) == 2
    assert "no LoCoMo data" in capsys.readouterr().err
