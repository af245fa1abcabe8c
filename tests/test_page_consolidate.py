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

ROOT = Path(__file__).resolve().parent.parent
T0 = datetime(2025, 3, 5, 9, 0, tzinfo=UTC)


@pytest.fixture
def desk(tmp_path, monkeypatch):
    db = tmp_path / "desk.db"
    store = open_store(f"embedded:{db}", get_embedder("hash"))
    svc = MemoryService(store)
    old = svc.write_fact("ana", "Lives in Bristol", fact_type="identity", actor="seed").fact
    svc.write_episode("ana", "We left Bristol, in Edinburgh now", timestamp=T0)
    svc.write_episode("ana", "I'm allergic to peanuts", timestamp=T0.replace(hour=10))
    store.close()
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{db}")
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_LLM", "offline")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    desk_runtime.clear()
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


def test_dry_run_shows_the_diff_and_writes_nothing(desk):
    at = page()
    assert not at.exception and "Nothing is written" in at.info[0].value
    assert "LLM: `offline`" in at.caption[0].value
    at.button(key="consolidate_plan_btn").click().run()
    diff = at.code[0].value
    assert "'Lives in Bristol' [active/identity" in diff and "→ 'Lives in Edinburgh'" in diff
    assert len(at.multiselect(key="consolidate_ops").value) == 2
    assert texts(FactState.ACTIVE) == ["Lives in Bristol"]


def test_partial_apply_then_undo(desk):
    at = page(**{OPERATOR_KEY: "kim"})
    at.button(key="consolidate_plan_btn").click().run()
    ops = at.multiselect(key="consolidate_ops")
    allergy = next(o for o in ops.options if "peanuts" in o)
    plan = at.session_state["consolidate_plan"]
    allergy_id = next(op.id for op in plan.actionable() if op.fact.text == "Allergic to peanuts")
    ops.set_value([allergy_id]).run()
    assert allergy
    at.button(key="consolidate_apply_btn").click().run()
    assert not at.error, at.error
    assert "Applied 1 operations" in at.success[0].value
    assert texts(FactState.ACTIVE) == ["Allergic to peanuts", "Lives in Bristol"]
    events = desk_runtime().service.audit("ana", plan_id=plan.id)
    assert {e.actor for e in events} == {"operator:kim"}
    at.text_input(key="consolidate_undo_id").input(plan.id).run()
    at.button(key="consolidate_undo_btn").click().run()
    assert not at.error, at.error
    assert "undone" in at.success[0].value
    assert texts(FactState.ACTIVE) == ["Lives in Bristol"]


def test_apply_needs_an_operator_name_and_reports_stale_plans(desk):
    at = page()
    at.button(key="consolidate_plan_btn").click().run()
    at.button(key="consolidate_apply_btn").click().run()
    assert "operator name" in at.error[0].value
    svc = desk_runtime().service
    svc.write_fact("ana", "Lives in Glasgow", fact_type="identity", supersedes_id=desk, actor="cli")
    at.session_state[OPERATOR_KEY] = "kim"
    at.button(key="consolidate_apply_btn").click().run()
    assert "re-plan" in at.error[0].value
    assert texts(FactState.ACTIVE) == ["Lives in Glasgow"]
