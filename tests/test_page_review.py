"""The Review page runs for real (AppTest) over a real embedded store: the focus flow, the list
with row selection and bulk-by-filter, undo, and two operators on one queue (invariants 44, 81, 83)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import review.queue  # noqa: F401 - pins the review package before AppTest puts pages/ on sys.path
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
from tests.desk_support import decide_button, plain

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def desk(tmp_path, monkeypatch):
    db = tmp_path / "desk.db"
    store = open_store(f"embedded:{db}", get_embedder("hash"))
    svc = MemoryService(store, clock=fixed_clock(NOW))
    later = MemoryService(store, clock=fixed_clock(NOW + timedelta(hours=1)))
    latest = MemoryService(store, clock=fixed_clock(NOW + timedelta(hours=2)))
    ep = svc.write_episode("ana", "We moved to York in March")
    old = svc.write_fact("ana", "Lives in Leeds", fact_type="identity").fact
    ids = {"old": old.id,
           "contra": propose(svc, "ana", "Lives in York", fact_type="identity",
                             supersedes_id=old.id, source_episode_ids=[ep.id]).id,
           "low": propose(later, "ana", "Might own a kayak", confidence=0.3).id,
           "tea": propose(latest, "ana", "Drinks green tea", confidence=0.4).id,
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


def shown(at: AppTest) -> str:
    """The text of the item in the focus card."""
    cards = [h.proto.body for h in at.get("html") if "rv-card" in h.proto.body]
    return cards[0].split("<div class='rv-x'>")[1].split("</div>")[0]


def states(*ids) -> list[str]:
    svc = desk_runtime().service
    return [svc.get_fact(u, i).state.value for u, i in ids]


def test_focus_shows_one_item_with_progress_and_evidence(desk):
    at = page(user="ana")
    assert not at.exception and not at.error
    assert shown(at) == "Lives in York"  # oldest first, ana's only
    assert at.get("progress")[0].proto.text == "Item 1 of 3"
    badges = next(h.proto.body for h in at.get("html") if "rv-badges" in h.proto.body)
    assert "contradiction: 1" in badges and "low confidence: 2" in badges
    bodies = " ".join(h.proto.body for h in at.get("html"))
    # invariant 512: what it would replace, above the buttons
    assert "Would replace — now believed (active)" in bodies and "Lives in Leeds" in bodies
    sources = next(h.proto.body for h in at.get("html") if "rv-sources" in h.proto.body)
    assert "We moved to York in March" in sources  # source episode (a plain table, issue 34)
    assert decide_button(at, "approve").label == "Accept"  # a contradiction
    assert decide_button(at, "keep-both") is not None
    at.session_state["review_filters_open"] = True  # issue 34: drawn when opened
    at.run().multiselect(key="review_kinds").select("low_confidence").run()
    assert shown(at) == "Might own a kayak"
    assert at.get("progress")[0].proto.text == "Item 1 of 2"
    at.session_state["review_filters_open"] = False  # closed, the filter stays in force
    at.run()
    assert at.get("progress")[0].proto.text == "Item 1 of 2"
    assert any("1 filter in force" in c.value for c in at.caption)
    assert not [w for w in at.multiselect if w.key == "review_kinds"]
    at.session_state["review_filters_open"] = True  # reopened: the widget shows the kept value
    assert at.run().multiselect(key="review_kinds").value == ["low_confidence"]


def test_decision_needs_operator_then_accepts_audits_and_advances(desk):
    at = page(user="ana")
    decide_button(at, "approve").click().run()
    assert at.error and "operator name" in plain(at.error[0].value)  # nothing decided without a name
    assert states(("ana", desk["contra"])) == ["candidate"]
    assert shown(at) == "Lives in York"  # still on screen
    at.session_state["operator_name"] = "rita"
    at.text_input(key=f"rv_comment__{desk['contra']}").input("moved in March").run()
    decide_button(at, "approve").click().run()
    assert not at.exception and not at.error
    assert "now active" in plain(at.toast[0].value)
    assert states(("ana", desk["contra"]), ("ana", desk["old"])) == ["active", "superseded"]
    event = desk_runtime().service.audit("ana", action="review_approve")[0]
    assert event.actor == "operator:rita" and event.comment == "moved in March"
    assert event.target_ids[0] == desk["contra"]
    assert shown(at) == "Might own a kayak"  # auto-advanced
    assert at.get("progress")[0].proto.text == "Item 1 of 2"


def test_reason_belongs_to_one_item_and_does_not_carry_over(desk):
    at = page(user="ana", operator_name="rita")
    at.text_input(key=f"rv_reason__{desk['contra']}").input("not what she said").run()
    decide_button(at, "skip").click().run()
    assert shown(at) == "Might own a kayak"
    assert at.text_input(key=f"rv_reason__{desk['low']}").value == ""  # a fresh field
    decide_button(at, "approve").click().run()
    event = desk_runtime().service.audit("ana", action="review_approve")[0]
    assert event.target_ids == [desk["low"]] and event.reason is None and event.comment is None
    # The skipped item comes round again; what was typed for it cleared when it left the screen.
    assert shown(at) == "Drinks green tea"
    decide_button(at, "skip").click().run()
    assert shown(at) == "Lives in York"
    assert at.text_input(key=f"rv_reason__{desk['contra']}").value == ""
    at.text_input(key=f"rv_reason__{desk['contra']}").input("not what she said").run()
    decide_button(at, "reject").click().run()
    event = desk_runtime().service.audit("ana", action="review_reject")[0]
    assert event.target_ids == [desk["contra"]] and event.reason == "not what she said"


def test_reject_without_reason_is_one_clear_error(desk):
    at = page(user="ana", operator_name="rita")
    decide_button(at, "reject").click().run()
    assert len(at.error) == 1 and "reason" in plain(at.error[0].value)
    assert states(("ana", desk["contra"])) == ["candidate"]
    assert shown(at) == "Lives in York"


def test_two_operators_on_one_item_the_second_is_told_and_nothing_else_changes(desk):
    """The bug in the issue: the second operator's click must never land on another item.
    Issue 34 (invariant 510): sam is handed another item; he sees rita's only by asking."""
    rita, sam = page(user="ana", operator_name="rita"), page(user="ana", operator_name="sam")
    assert shown(rita) == "Lives in York" and shown(sam) == "Might own a kayak"
    assert "1 being reviewed by others" in sam.get("progress")[0].proto.text
    sam.session_state["review_asked"] = desk["contra"]
    sam.run()
    assert shown(sam) == "Lives in York"
    assert "Being reviewed by rita" in plain(sam.warning[0].value)
    svc = desk_runtime().service
    before = {f.id: (f.state, f.rev) for u in ("ana", "bob") for f in svc.facts(u)}
    events_before = len(svc.audit("ana", limit=1000))
    decide_button(rita, "approve").click().run()
    assert states(("ana", desk["contra"])) == ["active"]
    sam.text_input(key=f"rv_reason__{desk['contra']}").input("wrong city")
    decide_button(sam, "reject").click().run()  # sam still sees York: his click is stale
    warning = plain(sam.warning[0].value)
    assert "decided meanwhile by rita" in warning and "approve" in warning
    assert "not applied" in warning
    after = {f.id: (f.state, f.rev) for u in ("ana", "bob") for f in svc.facts(u)}
    changed = {i for i in after if after[i] != before[i]}
    assert changed == {desk["contra"], desk["old"]}  # rita's decision only
    events = svc.audit("ana", limit=1000)
    new = [e for e in events[: len(events) - events_before] if e.action != "review_claim"]
    assert {e.action for e in new} == {"review_approve", "supersede"}  # rita's batch, no more
    assert {e.actor for e in new} == {"operator:rita"}
    # sam moves on to what still waits and nobody holds: rita went on to the kayak
    assert shown(rita) == "Might own a kayak" and shown(sam) == "Drinks green tea"


def test_a_double_click_decides_only_the_item_that_was_on_screen(desk):
    """Invariant 81: the browser sends a second click (or key press) on the button the operator
    still sees; by then the page has drawn the next item. That click must not land on it."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    at = page(user="ana", operator_name="rita")
    assert shown(at) == "Lives in York"
    approve = decide_button(at, "approve")
    stale_id = approve.id  # the button on screen, as the browser knows it
    approve.click().run()
    assert states(("ana", desk["contra"])) == ["active"]
    assert shown(at) == "Might own a kayak"  # drawn, but not yet seen by the operator
    svc = desk_runtime().service
    events_before = len(svc.audit("ana", limit=1000))
    # The second click of the double click: a trigger for the button that was clicked.
    widgets = at._tree.get_widget_states()
    widgets.widgets.append(WidgetState(id=stale_id, trigger_value=True))
    at._run(widgets)
    assert not at.exception
    assert states(("ana", desk["low"]), ("ana", desk["tea"])) == ["candidate", "candidate"]
    assert len(svc.audit("ana", limit=1000)) == events_before  # nothing written, nothing denied
    assert shown(at) == "Might own a kayak"  # still waiting for a decision of its own


def test_a_repeated_click_on_a_decided_item_says_it_was_yours(desk):
    """Invariant 81: when the second click of a double click reaches the decided item's own
    button (the page had not finished drawing the next one), the operator reads that they
    already decided it, not that someone else did and their decision was lost."""
    from memory.ui.review_flow import decided_meanwhile

    rita = page(user="ana", operator_name="rita")
    decide_button(rita, "approve").click().run()
    svc = desk_runtime().service
    own = decided_meanwhile(svc, "ana", desk["contra"], "active", 2, operator="rita")
    assert own.startswith("You already decided “Lives in York”: approve") and "ignored" in own
    other = decided_meanwhile(svc, "ana", desk["contra"], "active", 2, operator="sam")
    assert "decided meanwhile by rita" in other and "not applied" in other


def test_changed_item_is_refused_and_shown_at_its_new_revision(desk):
    at = page(user="ana", operator_name="sam")  # sam loads the item at revision 1
    svc = desk_runtime().service
    item = svc.get_fact("ana", desk["contra"])
    svc.store.apply([UpdateMemory(doc=bump(item, confidence=0.5), expected_rev=item.rev)])
    decide_button(at, "approve").click().run()
    assert "changed since you loaded it (now revision 2)" in plain(at.warning[0].value)
    assert svc.get_fact("ana", desk["contra"]).state == FactState.CANDIDATE
    card = next(h.proto.body for h in at.get("html") if "rv-card" in h.proto.body)
    assert "revision 2" in card and "confidence 0.50" in card
    decide_button(at, "approve").click().run()  # now it names revision 2
    assert svc.get_fact("ana", desk["contra"]).state == FactState.ACTIVE


def test_undo_own_last_decision_restores_item_and_chain(desk):
    at = page(user="ana", operator_name="rita")
    decide_button(at, "approve").click().run()
    assert states(("ana", desk["contra"]), ("ana", desk["old"])) == ["active", "superseded"]
    other = page(user="ana", operator_name="sam")
    other.button(key="review_undo").click().run()  # sam has decided nothing
    assert "no decision by operator:sam" in plain(other.error[0].value)
    at.button(key="review_undo").click().run()
    assert not at.error, at.error
    assert states(("ana", desk["contra"]), ("ana", desk["old"])) == ["candidate", "active"]
    svc = desk_runtime().service
    assert svc.get_fact("ana", desk["old"]).superseded_by is None
    assert shown(at) == "Lives in York"  # back on screen
    assert [e.actor for e in svc.audit("ana", action="review_undo")] == ["operator:rita"] * 2
    # A rejection tombstoned its value: not undone, said why.
    at.text_input(key=f"rv_reason__{desk['contra']}").input("no").run()
    decide_button(at, "reject").click().run()
    at.button(key="review_undo").click().run()
    assert "cannot be undone" in plain(at.error[0].value)
    assert states(("ana", desk["contra"])) == ["rejected"]


def test_list_selection_and_bulk_reject(desk):
    at = page(user="ana", operator_name="rita", review_view="List")
    table = at.dataframe[0]
    assert list(table.value["text"]) == ["Lives in York", "Might own a kayak", "Drinks green tea"]
    at.session_state[_table_key(at)] = {
        "selection": {"rows": [1, 2], "columns": [], "cells": []}}
    at.run()
    assert at.button(key="review_bulk_reject").label == "Reject selected (2)"
    at.text_input(key="review_bulk_reason").input("not said").run()
    at.button(key="review_bulk_reject").click().run()
    assert not at.exception and "reject: 2 of 2 decided" in plain(at.toast[0].value)
    assert states(("ana", desk["low"]), ("ana", desk["tea"]), ("ana", desk["contra"])) == [
        "rejected", "rejected", "candidate"]
    assert list(at.dataframe[0].value["text"]) == ["Lives in York"]
    assert at.text_input(key="review_bulk_reason").value == ""  # the reason went with them
    at.checkbox(key="review_select_all").check().run()
    # invariant 512: the one left is a contradiction; bulk approve holds it back until ticked
    assert list(at.dataframe[0].value["would replace"]) == ["Lives in Leeds"]
    assert at.button(key="review_bulk_approve").label == "Approve selected (0)"
    assert at.button(key="review_bulk_approve").disabled
    at.checkbox(key="review_bulk_contra").check().run()
    assert at.button(key="review_bulk_approve").label == "Approve selected (1)"
    at.button(key="review_bulk_approve").click().run()
    assert states(("ana", desk["contra"]), ("ana", desk["old"])) == ["active", "superseded"]


def test_inv512_approve_all_matching_holds_contradictions_back_unless_ticked(desk):
    at = page(user="ana", operator_name="rita", review_view="List")
    assert at.button(key="review_all_approve").label == "Approve all 3 matching…"
    at.button(key="review_all_approve").click().run()
    dialog = plain(" ".join(m.value for m in at.markdown))
    assert "Approve 2 items" in dialog
    assert "1 contradiction held back" in plain(" ".join(c.value for c in at.caption))
    at.button(key="review_confirm_ok").click().run()
    assert states(("ana", desk["low"]), ("ana", desk["tea"]), ("ana", desk["contra"])) == [
        "active", "active", "candidate"]
    at.button(key="review_all_approve").click().run()
    at.checkbox(key="review_confirm_contra").check().run()
    assert "Approve 1 item" in plain(" ".join(m.value for m in at.markdown))
    at.button(key="review_confirm_ok").click().run()
    assert states(("ana", desk["contra"]), ("ana", desk["old"])) == ["active", "superseded"]


def _table_key(at: AppTest) -> str:
    return next(k for k in at.session_state if k.startswith("review_table_"))


def test_bulk_by_filter_confirms_the_count_and_reports_stale_items(desk):
    at = page(user="ana", operator_name="rita", review_view="List", review_filters_open=True)
    at.multiselect(key="review_kinds").select("low_confidence").run()
    assert at.button(key="review_all_approve").label == "Approve all 2 matching…"
    at.button(key="review_all_approve").click().run()
    dialog = plain(" ".join(m.value for m in at.markdown))
    assert "Approve 2 items" in dialog and "kind low_confidence" in dialog
    assert states(("ana", desk["low"])) == ["candidate"]  # nothing yet
    svc = desk_runtime().service
    decide(svc, "ana", desk["tea"], "approve", operator="sam", expected_rev=1)  # meanwhile
    at.button(key="review_confirm_ok").click().run()
    assert not at.exception
    assert "approve: 1 of 2 decided" in plain(at.toast[0].value)
    assert "1 not decided" in plain(at.warning[0].value) and desk["tea"] in plain(at.warning[0].value)
    assert states(("ana", desk["low"]), ("ana", desk["contra"]), ("bob", desk["bob"])) == [
        "active", "candidate", "candidate"]
    assert not _has(at, "review_confirm_ok")  # the dialog closed


def _has(at: AppTest, key: str) -> bool:
    return any(b.key == key for b in at.button)


def test_bulk_reject_by_filter_needs_a_reason_in_the_dialog(desk):
    at = page(user="ana", operator_name="rita", review_view="List")
    at.button(key="review_all_reject").click().run()
    at.button(key="review_confirm_ok").click().run()
    assert "reason" in plain(at.error[0].value)
    assert states(("ana", desk["low"])) == ["candidate"]
    at.text_input(key="review_confirm_reason").input("bulk cleanup").run()
    at.button(key="review_confirm_ok").click().run()
    assert "reject: 3 of 3 decided" in plain(at.toast[0].value)
    assert not _has(at, "review_confirm_ok")  # the dialog closed


def test_scope_all_users_and_decided_history(desk):
    at = page(user="ana", operator_name="rita")
    at.checkbox(key="review_all").check().run()
    at.radio(key="review_view").set_value("List").run()
    assert "Keeps bees" in list(at.dataframe[0].value["text"])
    at.radio(key="review_view").set_value("Focus").run()
    decide_button(at, "approve").click().run()
    at.radio(key="review_view").set_value("Decided").run()
    hist = at.dataframe[0].value
    assert set(hist["operator"]) == {"rita"} and len(hist) == 1


def test_inv440_the_judge_note_sits_beside_the_evidence(desk, monkeypatch):
    """Offline the item says there is no judge; with a model (a local Messages API server via
    ANTHROPIC_BASE_URL) its verdict and reason are shown; the item still waits for a person."""
    from memory.llm.judge import JUDGE_TOOL
    from tests.llm_server import ScriptedServer, message, tool_use

    at = page(user="ana")
    assert any(plain(i.value).startswith("judge: none — no model is configured") for i in at.info)
    verdict = {"verdict": "contradicts", "reason": "a move: York replaces Leeds"}
    with ScriptedServer([message([tool_use("v", JUDGE_TOOL, verdict)])]) as server:
        for k, v in {"MEMDESK_LLM": "anthropic", "ANTHROPIC_API_KEY": "k",
                     "ANTHROPIC_BASE_URL": server.url}.items():
            monkeypatch.setenv(k, v)
        desk_runtime().service.store.close()
        desk_runtime.clear()
        at = page(user="ana")
    assert not at.exception
    assert [plain(i.value) for i in at.info if "judge:" in plain(i.value)] == \
        ["judge: contradicts 'Lives in Leeds' — a move: York replaces Leeds"]
    assert states(("ana", desk["contra"])) == ["candidate"]
