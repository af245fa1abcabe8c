"""The Evals page runs for real (AppTest) over a real embedded store with seeded personas."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memory.embeddings import get_embedder
from memory.service import MemoryService
from memory.stores import open_store
from memory.ui import runtime as desk_runtime
from tests.test_eval_recall import build_personas

PAGE = str(Path(__file__).resolve().parent.parent / "pages" / "evals.py")


@pytest.fixture
def desk(tmp_path, monkeypatch):
    db = tmp_path / "desk.db"
    store = open_store(f"embedded:{db}", get_embedder("hash"))
    questions = build_personas(MemoryService(store))
    store.close()
    qpath = tmp_path / "questions.json"
    qpath.write_text(json.dumps(questions))
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{db}")
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.chdir(tmp_path)  # reports/ is relative to where the desk runs
    desk_runtime.clear()
    yield qpath
    desk_runtime().service.store.close()
    desk_runtime.clear()


def test_empty_reports_say_how_to_make_one(desk):
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception and not at.error
    assert any("memdesk eval recall" in i.value for i in at.info)


def test_run_recall_eval_from_the_page_shows_the_report(desk):
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.text_input(key="evals_questions").set_value(str(desk))
    at.button[0].click().run()
    assert not at.exception and not at.error
    assert any("Passed" in s.value for s in at.success)
    assert any("Isolation sweep" in m.value for m in at.markdown)
    assert list(Path("reports").glob("recall-default-*.json"))


def test_run_stress_from_the_page(desk):
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.multiselect(key="evals_scenarios").set_value(["isolation", "chain_of_three"])
    at.button[1].click().run()
    assert not at.exception and not at.error
    assert any("chain_of_three" in m.value for m in at.markdown)


def test_missing_questions_file_is_one_clear_error(desk, tmp_path):
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    at.text_input(key="evals_questions").set_value(str(tmp_path / "none.json"))
    at.button[0].click().run()
    assert not at.exception
    assert len(at.error) == 1 and "no questions at" in at.error[0].value
