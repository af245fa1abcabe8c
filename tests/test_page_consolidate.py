"""The Consolidate page runs for real (AppTest) over a real embedded store and the offline model."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import review.queue  # noqa: F401 - AppTest puts pages/ first on sys.path, where pages/review.py

# would shadow the review package; importing it here first pins the package in sys.modules.
from memory.embeddings import get_embedder
from memory.models import FactState
from memory.service import MemoryService
from memory.stores import open_store
from memory.ui import OPERATOR_KEY
from memory.ui import runtime as desk_runtime
from tests.desk_support import desk_on, html_bodies, plain

ROOT = Path(__file__).resolve().parent.parent
T0 = datetime(2025, 3, 5, 9, 0, tzinfo=UTC)


@pytest.fixture
def desk(tmp_path, monkeypatch):
    db = tmp_path / "desk.db"
    store = open_store(f"embedded:{db}", get_embedder("hash"))
    svc = MemoryService(store)
    old = svc.write_fact("ana", "Lives in Bristol", fact_type="identity", actor="seed").fact
    svc.write_episode("ana", "We moved to Edinburgh", timestamp=T0)
    svc.write_episode("ana", "I'm allergic to peanuts", timestamp=T0.replace(hour=10))
    svc.write_episode("bob", "I moved to Porto last week", timestamp=T0)
    store.close()
    desk_on(monkeypatch, db)
    yield old.id
    desk_runtime().service.store.close()
    desk_runtime.clear()


def page(**state) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "consolidate.py"), default_timeout=60)
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def texts(state: FactState) -> list[str]:
    return sorted(f.text for f in desk_runtime().service.facts("ana", states=[state]))


def diff(at: AppTest) -> str:
    return next(b for b in html_bodies(at, "mdiff"))


def test_dry_run_shows_the_coloured_diff_and_writes_nothing(desk):
    at = page(user="ana")
    assert not at.exception and "Nothing is written" in plain(at.info[0].value)
    assert "LLM: offline" in plain(at.caption[0].value)
    at.button(key="consolidate_plan_btn").click().run()
    body = diff(at)
    # The supersession: its own class, the old value struck through, then the new one.
    row = body.split("class='row diff-supersede'")[1].split("class='row ")[0]
    assert "<div class='old'>Lives in Bristol</div>" in row and "→ Lives in Edinburgh" in row
    add = body.split("class='row diff-add'")[1].split("class='row ")[0]
    assert "Allergic to peanuts" in add
    assert "white-space:pre-wrap" in body and "overflow-wrap:anywhere" in body  # long lines wrap
    assert len(at.multiselect(key="consolidate_ops__ana").value) == 2
    assert texts(FactState.ACTIVE) == ["Lives in Bristol"]


def test_selection_survives_switching_users(desk):
    at = page(user="ana")
    at.button(key="consolidate_plan_btn").click().run()
    ops = at.multiselect(key="consolidate_ops__ana")
    keep = [ops.options[0]]
    first = ops.value[0]
    ops.set_value([first]).run()
    at.selectbox(key="user").select("bob").run()
    assert "Nothing is written" in plain(at.info[0].value)  # bob has no plan yet
    at.selectbox(key="user").select("ana").run()
    assert at.multiselect(key="consolidate_ops__ana").value == [first]
    assert keep and "mdiff" in diff(at)  # ana's plan is still there


def test_partial_apply_then_undo_from_history(desk):
    at = page(**{OPERATOR_KEY: "kim", "user": "ana"})
    at.button(key="consolidate_plan_btn").click().run()
    plan = at.session_state["consolidate_plans"]["ana"]
    allergy_id = next(op.id for op in plan.actionable() if op.fact.text == "Allergic to peanuts")
    at.multiselect(key="consolidate_ops__ana").set_value([allergy_id]).run()
    at.button(key="consolidate_apply_btn").click().run()
    assert not at.error, at.error
    assert "Applied 1 operations" in at.success[0].value
    assert texts(FactState.ACTIVE) == ["Allergic to peanuts", "Lives in Bristol"]
    events = desk_runtime().service.audit("ana", plan_id=plan.id)
    assert {e.actor for e in events} == {"operator:kim"}
    history = at.dataframe[-1].value
    assert list(history["plan_id"]) == [plan.id] and list(history["undone"]) == [False]
    at.button(key=f"consolidate_undo_{plan.id}").click().run()
    dialog = plain(" ".join(m.value for m in at.markdown)).replace("**", "")
    assert f"Undo plan {plan.id} for ana?" in dialog
    assert texts(FactState.ACTIVE) == ["Allergic to peanuts", "Lives in Bristol"]  # not yet
    at.button(key="consolidate_undo_ok").click().run()
    assert not at.error, at.error
    assert "undone" in plain(at.toast[0].value)
    assert texts(FactState.ACTIVE) == ["Lives in Bristol"]
    assert list(at.dataframe[-1].value["undone"]) == [True]
    assert not any(b.key == f"consolidate_undo_{plan.id}" for b in at.button)


def test_apply_needs_an_operator_name_and_reports_stale_plans(desk):
    at = page(user="ana")
    at.button(key="consolidate_plan_btn").click().run()
    at.button(key="consolidate_apply_btn").click().run()
    assert "operator name" in plain(at.error[0].value)
    svc = desk_runtime().service
    svc.write_fact("ana", "Lives in Glasgow", fact_type="identity", supersedes_id=desk, actor="cli")
    at.session_state[OPERATOR_KEY] = "kim"
    at.button(key="consolidate_apply_btn").click().run()
    assert "re-plan" in plain(at.error[0].value)
    assert texts(FactState.ACTIVE) == ["Lives in Glasgow"]


def test_the_plan_says_how_far_consolidation_has_read_in_words(desk):
    """The watermark is an internal "SAID|STORED" pair of timestamps: the page says instead up to
    which episode time consolidation has read, and where applying moves it."""
    at = page(user="ana")
    at.button(key="consolidate_plan_btn").click().run()
    line = plain(next(c.value for c in at.caption if "new episodes" in plain(c.value)))
    assert "2 new episodes" in line and "|" not in line
    assert "consolidated so far: nothing yet" in line
    assert "applying moves it to episodes up to 2025-03-05 10:00 UTC" in line


def test_inv513_evidence_inline_and_each_operation_marked_after_applying(desk):
    at = page(**{OPERATOR_KEY: "kim", "user": "ana"})
    at.button(key="consolidate_plan_btn").click().run()
    body = diff(at)
    row = body.split("class='row diff-supersede'")[1].split("class='row ")[0]
    # the words of the episode that justify the change, highlighted, beside the change
    assert "said: “We moved to <mark>Edinburgh</mark>”" in row
    add = body.split("class='row diff-add'")[1].split("class='row ")[0]
    assert "<mark>allergic</mark> to <mark>peanuts</mark>" in add
    plan = at.session_state["consolidate_plans"]["ana"]
    allergy_id = next(op.id for op in plan.actionable() if op.fact.text == "Allergic to peanuts")
    at.multiselect(key="consolidate_ops__ana").set_value([allergy_id]).run()
    at.button(key="consolidate_apply_btn").click().run()
    assert not at.error, at.error
    assert "Applied 1 operations" in at.success[0].value
    body = diff(at)
    add = body.split("class='row diff-add'")[1].split("class='row ")[0]
    row = body.split("class='row diff-supersede'")[1].split("class='row ")[0]
    assert "out-applied'>applied<" in add and "out-declined'>declined<" in row


def test_inv513_only_what_the_policy_applies_on_its_own_is_preselected():
    from memory.consolidation.plan import OpKind, Plan, PlanOp, Usage
    from memory.models import Fact
    from memory.ui.consolidate_views import default_selection, highlight, outcomes

    def op(i, review=None):
        return PlanOp(id=i, kind=OpKind.ADD_FACT, review=review,
                      fact=Fact(user_id="ana", text=f"fact {i}"))
    plan = Plan(id="p", user_id="ana", created_at=T0, llm_mode="offline", usage=Usage(mode="offline"),
                policy={}, policy_text="", watermark_before=None, watermark_after=None,
                ops=[op("a"), op("b", review="harsh contradiction"),
                     PlanOp(id="c", kind=OpKind.DROP, subject="x", gate="tombstone")])
    assert default_selection(plan) == ["a"]
    assert outcomes(plan, applied=["a", "b"], already=[], declined=[]) == {
        "a": "applied", "b": "sent to review"}
    assert outcomes(plan, applied=[], already=["a"], declined=["b"]) == {
        "a": "already applied", "b": "declined"}
    runs = highlight("My sister's moving to Leeds, I stay in York", "Lives in York")
    assert "".join(t for t, _ in runs) == "My sister's moving to Leeds, I stay in York"
    assert [t for t, hit in runs if hit] == ["York"]
