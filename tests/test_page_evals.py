"""The Evals page runs for real (AppTest) over a real embedded store with seeded personas."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memory.embeddings import get_embedder
from memory.errors import AccessDenied, ValidationError
from memory.eval import desk_runs
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
    # Issue 14: the desk reads question sets only from the project's data folders; this test's
    # throwaway folder is made one of them.
    monkeypatch.setattr(desk_runs, "DATA_DIRS", [*desk_runs.DATA_DIRS, tmp_path])
    desk_runtime.clear()
    yield qpath
    desk_runtime().service.store.close()
    desk_runtime.clear()


def opened() -> AppTest:
    """The page with its "Run an eval" box open (issue 34: drawn only when opened)."""
    at = AppTest.from_file(PAGE, default_timeout=60)
    at.session_state["evals_run_open"] = True
    return at.run()


def test_empty_reports_say_how_to_make_one(desk):
    at = AppTest.from_file(PAGE, default_timeout=60).run()
    assert not at.exception and not at.error
    assert any("memdesk eval recall" in i.value for i in at.info)
    assert not at.multiselect and not at.button  # the run forms wait until their box is opened


def test_run_recall_eval_from_the_page_shows_the_report(desk):
    at = opened()
    at.selectbox(key="evals_questions").set_value(desk.resolve())
    at.button[0].click().run()
    assert not at.exception and not at.error
    assert any("Passed" in s.value for s in at.success)
    assert any("Isolation sweep" in m.value for m in at.markdown)
    assert list(Path("reports").glob("recall-default-*.json"))


def test_run_stress_from_the_page(desk):
    at = opened()
    at.multiselect(key="evals_scenarios").set_value(["isolation", "chain_of_three"])
    at.button[1].click().run()
    assert not at.exception and not at.error
    assert any("chain_of_three" in m.value for m in at.markdown)


def test_malformed_questions_file_is_one_clear_error(desk, tmp_path):
    empty = tmp_path / "empty-questions.json"
    empty.write_text("[]")
    at = opened()
    at.selectbox(key="evals_questions").set_value(empty.resolve())
    at.button[0].click().run()
    assert not at.exception
    assert len(at.error) == 1 and "is empty" in at.error[0].value


def test_the_page_offers_only_question_sets_in_the_data_folders(desk, tmp_path):
    """Invariant 125: no path is typed into the desk; the list holds the data folders' sets."""
    (tmp_path / "notes.json").write_text("[]")
    at = opened()
    options = at.selectbox(key="evals_questions").options
    assert "questions.json" in options and "notes.json" not in options
    # Every project set is offered, the frozen ones included (invariant 100).
    assert {"questions_frozen.json", "questions_frozen2.json"} <= set(options)
    assert not at.text_input  # no free path input anywhere on the page


def test_eval_runs_read_only_project_files_and_need_admin(desk, tmp_path):
    """Invariants 121 and 125 at the layer: a path outside the data folders is refused before
    anything runs; a viewer's run is denied and audited."""
    from memory.access import Access, RoleMap
    from memory.service import MemoryService

    svc = desk_runtime().service
    with pytest.raises(ValidationError, match="outside the project's data folders"):
        desk_runs.run_recall(svc, "operator:ada", "/etc/passwd")
    with pytest.raises(ValidationError, match="outside the project's data folders"):
        desk_runs.run_recall(svc, "operator:ada", tmp_path / ".." / ".." / "etc" / "passwd")
    roles = RoleMap(operators={"vic@example.com": "viewer"})
    guarded = MemoryService(svc.store, authorize=Access(roles, "login").authorize)
    with pytest.raises(AccessDenied, match="viewer, needs admin"):
        desk_runs.run_recall(guarded, "operator:vic@example.com", desk)
    with pytest.raises(AccessDenied):
        desk_runs.run_stress_scenarios(guarded, "operator:vic@example.com", ["isolation"])
    denied = svc.audit("catalog", action="denied")
    assert [e.actor for e in denied] == ["operator:vic@example.com"] * 2
    assert denied[0].after == {"attempted": "run_eval"} and denied[0].outcome == "denied"
    assert not list(Path("reports").glob("*.json"))  # nothing ran
