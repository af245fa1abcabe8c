"""The review page runs for real (AppTest) over a real embedded store."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memory.clock import fixed_clock
from memory.corrections import bumped as bump
from memory.embeddings import get_embedder
from memory.models import FactState
from memory.service import MemoryService
from memory.stores import open_store
from memory.stores.base import UpdateMemory
from memory.ui import runtime as desk_runtime
from review import decide, propose
from tests.conftest import NOW

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def desk(tmp_path, monkeypatch):
    db = tmp_path / "desk.db"
    store = open_store(f"embedded:{db}", get_embedder("hash"))
    svc = MemoryService(store, clock=fixed_clock(NOW))
    later = MemoryService(store, clock=fixed_clock(NOW + timedelta(hours=1)))
    ep = svc.write_episode("ana", "We moved to York in March")
    old = svc.write_fact("ana", "Lives in Leeds", fact_type="identity").fact
    ids = {"old": old.id,
           "contra": propose(svc, "ana", "Lives in York", fact_type="identity",
                             supersedes_id=old.id, source_episode_ids=[ep.id]).id,
           "low": propose(later, "ana", "Might own a kayak", confidence=0.3).id,
           "bob": propose(svc, "bob", "Keeps bees").id}
    store.close()
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{db}")
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_LLM", "offline")
    desk_runtime.clear()
    yield ids
    desk_runtime().service.store.close()
    desk_runtime.clear()


def page(**state) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "review.py"), default_timeout=60)
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def test_page_lists_items_with_badges_and_evidence(desk):
    at = page(user="ana")
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    assert list(table["text"]) == ["Lives in York", "Might own a kayak"]  # oldest first, ana only
    assert "contradiction: 1" in at.markdown[0].value and "low confidence: 1" in at.markdown[0].value
    page_text = " ".join(m.value for m in at.markdown)
    assert "Now believed" in page_text and "Lives in Leeds" in page_text  # side by side
    assert "We moved to York in March" in page_text  # source episode
    at.multiselect(key="review_kinds").select("low_confidence").run()
    assert list(at.dataframe[0].value["text"]) == ["Might own a kayak"]
    at.multiselect(key="review_kinds").unselect("low_confidence")
    at.checkbox(key="review_all").check().run()
    assert "Keeps bees" in list(at.dataframe[0].value["text"])


def test_page_decision_needs_operator_then_accepts_and_audits(desk):
    at = page(user="ana")
    at.button(key="review_approve").click().run()
    assert at.error and "operator name" in at.error[0].value  # nothing decided without a name
    svc = desk_runtime().service
    assert svc.get_fact("ana", desk["contra"]).state == FactState.CANDIDATE
    at.session_state["operator_name"] = "rita"
    at.text_input(key="review_comment").input("moved in March").run()
    at.button(key="review_approve").click().run()
    assert not at.exception and not at.error
    assert at.success and "now active" in at.success[0].value
    assert svc.get_fact("ana", desk["old"]).state == FactState.SUPERSEDED
    event = svc.audit("ana", action="review_approve")[0]
    assert event.actor == "operator:rita" and event.comment == "moved in March"
    assert list(at.dataframe[0].value["text"]) == ["Might own a kayak"]


def test_page_reject_without_reason_is_one_clear_error(desk):
    at = page(user="ana", operator_name="rita")
    at.button(key="review_reject").click().run()
    assert len(at.error) == 1 and "reason" in at.error[0].value
    assert desk_runtime().service.get_fact("ana", desk["contra"]).state == FactState.CANDIDATE


def test_inv43_page_shows_conflict_and_fresh_state_for_stale_item(desk):
    at = page(user="ana", operator_name="sam")  # sam loads the item at revision 1
    svc = desk_runtime().service
    item = svc.get_fact("ana", desk["contra"])
    svc.store.apply([UpdateMemory(doc=bump(item, confidence=0.5), expected_rev=item.rev)])
    at.button(key="review_approve").click().run()
    assert at.error and "changed since it was loaded" in at.error[0].value
    fresh = json.loads(at.json[0].value)
    assert fresh["rev"] == 2 and fresh["confidence"] == 0.5
    assert svc.get_fact("ana", desk["contra"]).state == FactState.CANDIDATE
    at.button(key="review_approve").click().run()  # reloaded: now it names revision 2
    assert svc.get_fact("ana", desk["contra"]).state == FactState.ACTIVE


def test_page_bulk_reject_and_history(desk):
    at = page(user="ana", operator_name="rita")
    at.multiselect(key="review_bulk").select(desk["low"]).select(desk["contra"]).run()
    at.text_input(key="review_reason").input("not said").run()
    at.button(key="review_bulk_reject").click().run()
    assert not at.exception and at.success and "reject: 2 done" in at.success[0].value
    svc = desk_runtime().service
    assert svc.get_fact("ana", desk["low"]).state == FactState.REJECTED
    assert at.info and "Nothing waiting" in at.info[0].value
    hist = at.dataframe[-1].value
    assert set(hist["decision"]) == {"reject"} and set(hist["operator"]) == {"rita"}
    decide(svc, "bob", desk["bob"], "approve", operator="x", expected_rev=1)  # other user: unseen
    assert "Keeps bees" not in " ".join(map(str, page(user="ana").dataframe[-1].value.get(
        "text", [])))
