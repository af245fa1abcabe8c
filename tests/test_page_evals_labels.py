"""The Evals page's labels section runs for real (AppTest) over the demo personas after a scripted
review session (issue 32): the same table as `memdesk eval labels`, and the decisions behind a
figure, linked to the Review page's Decided tab filtered to them."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memory.cli import main
from memory.errors import MemdeskError
from memory.ui import runtime as desk_runtime
from tests.label_support import EXPECTED, LENA, MAYA, RAVI, run_session, seed_demo

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def desk(tmp_path, monkeypatch):
    url = f"embedded:{tmp_path / 'desk.db'}"
    monkeypatch.setenv("MEMDESK_STORE", url)
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_LLM", "offline")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)  # reports/ is relative to where the desk runs
    seed_demo(url)
    run_session(url)
    desk_runtime.clear()
    yield url
    with contextlib.suppress(MemdeskError, OSError):
        desk_runtime().service.store.close()
    desk_runtime.clear()


def evals() -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / "evals.py"), default_timeout=60).run()


def test_inv491_the_page_shows_the_cli_table_and_the_decisions_behind_a_figure(desk, capsys):
    at = evals()
    assert not at.exception and not at.error
    assert any(s.value == "Review decisions as labels" for s in at.subheader)
    total, detail = at.dataframe[0].value, at.dataframe[1].value
    assert list(total["decided"]) == [10] and list(total["precision"]) == [0.5]
    assert list(total["rejected by reason"]) == ["not what he said ×2; wrong day ×1"]
    got = {(r["reader"], r["kind"], r["day"]): (r["decided"], r["accepted"], r["edited"],
                                                r["merged"], r["rejected"], r["precision"])
           for r in detail.to_dict("records")}
    assert got == EXPECTED
    capsys.readouterr()
    assert main(["eval", "labels", "--json"]) == 0  # the CLI prints the same rows
    printed = json.loads(capsys.readouterr().out)["by_reader_kind_day"]
    assert [(r["reader"], r["kind"], r["day"], r["decided"], r["precision"]) for r in printed] \
        == [(r["reader"], r["kind"], r["day"], r["decided"], r["precision"])
            for r in detail.to_dict("records")]

    # Click-through: the preference row of day one, its "rejected" figure.
    rows = list(detail.to_dict("records"))
    n = next(i for i, r in enumerate(rows) if (r["kind"], r["day"]) == ("preference",
                                                                       "2026-12-01"))
    assert len(at.dataframe) == 2  # issue 34: the decisions behind a figure, when opened
    at.session_state["evals_behind_open"] = True
    at.selectbox(key="evals_labels_row").set_value(n).run()
    at.selectbox(key="evals_labels_figure").set_value("rejected").run()
    assert not at.exception
    behind = at.dataframe[2].value
    assert sorted(behind["fact"]) == ["fact_lena_c_tasca", "fact_ravi_c_coffee_cut"]
    assert set(behind["outcome"]) == {"rejected"}
    assert any("2 decision(s) behind" in c.value for c in at.caption)
    # One link per user to Review → Decided, filtered to these items (outside app.py's
    # navigation a page link is shown as where to go).
    links = [c.value for c in at.caption if "Review → Decided" in c.value]
    assert len(links) == 2
    at.selectbox(key="evals_labels_figure").set_value("decided").run()
    assert len(at.dataframe[2].value) == 4


def test_inv491_only_the_sidebar_user(desk):
    at = evals()
    at.selectbox(key="evals_labels_row").set_value(4).run()  # the last of five rows
    at.selectbox(key="user").set_value(MAYA).run()
    at.toggle(key="evals_labels_mine").set_value(True).run()
    assert not at.exception
    assert list(at.dataframe[0].value["decided"]) == [3]
    assert list(at.dataframe[0].value["merged"]) == [1]
    assert len(at.dataframe[1].value) == 2  # Maya's two rows; the picked row fell back to one
    assert at.selectbox(key="evals_labels_row").value == 0


def test_inv491_nothing_decided_yet_says_where_decisions_are_made(tmp_path, monkeypatch):
    url = f"embedded:{tmp_path / 'fresh.db'}"
    monkeypatch.setenv("MEMDESK_STORE", url)
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.chdir(tmp_path)
    seed_demo(url)  # 36 candidates waiting, none decided: pending items are no labels
    desk_runtime.clear()
    try:
        at = evals()
        assert not at.exception and not at.error
        assert any("No decided proposals yet" in i.value for i in at.info)
        assert not at.dataframe
    finally:
        with contextlib.suppress(MemdeskError, OSError):
            desk_runtime().service.store.close()
        desk_runtime.clear()


def test_inv491_review_decided_tab_filtered_to_the_linked_items(desk):
    at = AppTest.from_file(str(ROOT / "pages" / "review.py"), default_timeout=60)
    at.session_state["operator_name"] = "ann"
    at.query_params["user"] = RAVI
    at.query_params["decided"] = "fact_ravi_c_coffee_cut,fact_ravi_c_mentor"
    at.run()
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    assert sorted(table["fact_id"]) == ["fact_ravi_c_coffee_cut", "fact_ravi_c_mentor"]
    assert any("linked from Evals" in c.value for c in at.caption)
    at.button(key="review_decided_all").click().run()
    assert len(at.dataframe[0].value) == 3  # every decision of this user again
    assert LENA not in set(at.dataframe[0].value["user_id"])
