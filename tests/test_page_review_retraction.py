"""A proposed retraction on the desk (invariant 591), through the real pages (AppTest) over a real
embedded store: the Review page's Focus and List views, and the Consolidate page's diff."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import review.queue  # noqa: F401 - pins the review package before AppTest puts pages/ on sys.path
from memory.clock import fixed_clock
from memory.embeddings import get_embedder
from memory.models import FactState
from memory.service import MemoryService
from memory.stores import open_store
from memory.ui import runtime as desk_runtime
from review.propose import propose_retraction
from tests.conftest import NOW
from tests.desk_support import TAG, decide_button, desk_on, html_bodies, plain, unsafe_output

ROOT = Path(__file__).resolve().parent.parent
SAID = f"hmm I don't think I ever said I had a UPS {TAG}"
NEVER = "The user may have said this was never true: "


@pytest.fixture
def desk(tmp_path, monkeypatch):
    db = tmp_path / "desk.db"
    store = open_store(f"embedded:{db}", get_embedder("hash"))
    svc = MemoryService(store, clock=fixed_clock(NOW))
    target = svc.write_fact("ana", f"Has a UPS {TAG}", actor="seed").fact
    ep = svc.write_episode("ana", SAID)
    item, _ = propose_retraction(svc, "ana", target.id, confidence=0.6,
                                 source_episode_ids=[ep.id], reason="hedged denial")
    store.close()
    desk_on(monkeypatch, db)
    yield {"target": target.id, "item": item.id}
    desk_runtime().service.store.close()
    desk_runtime.clear()


def review_page(**state) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "review.py"), default_timeout=60)
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def cards(at: AppTest) -> list[str]:
    return html_bodies(at, "rv-card")


def test_inv591_focus_says_what_the_user_may_have_denied_and_what_each_button_does(desk):
    at = review_page(user="ana", operator_name="rita")
    assert not at.exception and not at.error
    first = cards(at)[0]
    assert "retraction · ana" in first
    assert f"{NEVER}Has a UPS &lt;img src=x onerror=alert(1)&gt;" in first  # text stays text
    bodies = " ".join(cards(at))
    assert "Would retract — on record now (active)" in bodies
    assert "The user said" in bodies and "hmm I don&#x27;t think I ever said I had a UPS" in bodies
    assert "Why proposed: hedged denial" in plain(" ".join(c.value for c in at.caption))
    assert unsafe_output(at) == []
    # two outcomes, named for what they do; nothing else applies
    assert decide_button(at, "retract").label == "Retract"
    assert decide_button(at, "keep").label == "Keep"
    assert "tombstoned" in decide_button(at, "retract").help
    assert "nothing is tombstoned" in decide_button(at, "keep").help
    keys = {(b.key or "").split("__")[0] for b in at.button}
    assert not keys & {"review_approve", "review_reject", "review_edit", "review_merge",
                       "review_keep-both"}
    decide_button(at, "retract").click().run()
    assert not at.exception and not at.error
    assert "Retracted" in plain(at.toast[0].value)
    svc = desk_runtime().service
    assert svc.get_fact("ana", desk["target"]).state == FactState.RETRACTED
    assert svc.audit("ana", action="review_retract")[0].actor == "operator:rita"


def test_inv591_keep_leaves_the_fact_and_a_stale_retract_says_why(desk):
    svc = desk_runtime().service
    at = review_page(user="ana", operator_name="rita")
    svc.write_fact("ana", "Has a Lumio UPS 2", supersedes_id=desk["target"])  # meanwhile
    decide_button(at, "retract").click().run()
    assert not at.exception
    warning = plain(at.warning[0].value)
    assert "no longer applies" in warning and "superseded now" in warning
    assert svc.store.list_tombstones("ana") == []
    assert "Keep closes it" in plain(" ".join(w.value for w in at.warning))
    decide_button(at, "keep").click().run()
    assert "Kept" in plain(at.toast[0].value)
    assert svc.get_fact("ana", desk["item"]).state == FactState.REJECTED
    assert svc.store.list_tombstones("ana") == []


def test_inv591_the_list_shows_the_denial_and_never_approves_it_in_bulk(desk):
    at = review_page(user="ana", operator_name="rita", review_view="List")
    assert not at.exception
    frame = at.dataframe[0].value
    (row,) = frame.to_dict("records")
    assert row["kind"] == "retraction" and row["would replace"] == ""
    assert row["text"] == f"{NEVER}Has a UPS {TAG}"
    at.checkbox(key="review_select_all").check().run()
    assert at.button(key="review_bulk_approve").disabled  # a retraction is decided alone
    assert at.button(key="review_bulk_reject").label == "Reject selected (1)"


def test_inv591_the_consolidate_diff_shows_a_proposed_retraction(tmp_path, monkeypatch):
    db = tmp_path / "cons.db"
    store = open_store(f"embedded:{db}", get_embedder("hash"))
    svc = MemoryService(store)
    target = svc.write_fact("ana", "Has a UPS", actor="seed").fact
    svc.write_episode("ana", "hmm I don't think I ever said I had a UPS",
                      timestamp=datetime(2025, 3, 5, 9, 0, tzinfo=UTC))
    store.close()
    desk_on(monkeypatch, db)
    try:
        at = AppTest.from_file(str(ROOT / "pages" / "consolidate.py"), default_timeout=60)
        at.session_state["user"] = "ana"
        at.session_state["operator_name"] = "rita"
        at.run()
        at.button(key="consolidate_plan_btn").click().run()
        body = html_bodies(at, "mdiff")[0]
        row = body.split("class='row diff-review'")[1].split("class='row ")[0]
        assert f"{NEVER}Has a UPS" in row and f"proposed retraction of {target.id}" in row
        assert "an operator retracts or keeps it" in row
        assert "hmm I don" in row  # the user's words beside it
        at.button(key="consolidate_apply_btn").click().run()
        assert not at.exception, [e.value for e in at.exception]
        assert not at.error, [e.value for e in at.error]
        svc = desk_runtime().service
        assert svc.get_fact("ana", target.id).state == FactState.ACTIVE  # never retracts
        waiting = svc.facts("ana", states=[FactState.CANDIDATE])
        assert [f.supersedes for f in waiting] == [target.id]
    finally:
        desk_runtime().service.store.close()
        desk_runtime.clear()
