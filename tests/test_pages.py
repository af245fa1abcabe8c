"""The desk's pages run for real (streamlit.testing.v1.AppTest) over a real embedded store."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memory.embeddings import get_embedder
from memory.errors import MemdeskError, ValidationError
from memory.models import CatalogDoc, FactState
from memory.search_config import PRESETS, Purpose
from memory.service import MemoryService
from memory.stores import open_store
from memory.ui import runtime as desk_runtime
from memory.ui.views import hit_rows, preset_config
from tests.desk_support import html_table

ROOT = Path(__file__).resolve().parent.parent
T0 = datetime(2024, 1, 10, 9, 0, tzinfo=UTC)


class StepClock:
    """A clock the seed moves by hand, so record times differ like real history."""

    def __init__(self, at: datetime):
        self.at = at

    def __call__(self) -> datetime:
        return self.at


def seed(path: Path) -> dict[str, str]:
    """Two users with history: a natural supersession, a candidate, a playbook, a catalog doc."""
    clock = StepClock(T0)
    store = open_store(f"embedded:{path}", get_embedder("hash"))
    svc = MemoryService(store, clock=clock)
    ids: dict[str, str] = {}
    ep = svc.write_episode("ana", "I live in Bristol with my partner", timestamp=T0)
    ids["bristol"] = svc.write_fact("ana", "Lives in Bristol", fact_type="identity",
                                    source_episode_ids=[ep.id], valid_from="2020-01-01").fact.id
    ids["email"] = svc.write_fact("ana", "Prefers email over phone calls",
                                  fact_type="preference").fact.id
    clock.at = datetime(2025, 3, 5, 9, 0, tzinfo=UTC)
    svc.write_episode("ana", "We moved to Edinburgh", timestamp=clock.at)
    ids["edinburgh"] = svc.write_fact("ana", "Lives in Edinburgh", fact_type="identity",
                                      supersedes_id=ids["bristol"], contradiction="natural",
                                      valid_from="2025-03-01").fact.id
    ids["cat"] = svc.write_fact("ana", "Owns a cat called Miso", state="candidate").fact.id
    svc.write_playbook("ana", "Reset the Lumio hub", "hub drops wifi",
                       ["Hold reset for 10 s", "Re-pair in the app"])
    svc.add_catalog([CatalogDoc(title="Lumio Hub v2 manual",
                                text="Wifi troubleshooting for the Lumio Hub v2 router")])
    ids["lisbon"] = svc.write_fact("bob", "Lives in Lisbon", fact_type="identity").fact.id
    svc.write_episode("bob", "I like jazz on vinyl", timestamp=clock.at)
    store.close()
    return ids


def _close_cached():
    # The store may never have opened (the unavailable-store tests): nothing to close then.
    with contextlib.suppress(MemdeskError, OSError):
        desk_runtime().service.store.close()
    desk_runtime.clear()


@pytest.fixture
def desk(tmp_path, monkeypatch):
    yield from seeded_desk(tmp_path, monkeypatch)


def seeded_desk(tmp_path, monkeypatch):
    """A seeded store the desk opens through MEMDESK_STORE, as `streamlit run` would."""
    db = tmp_path / "desk.db"
    ids = seed(db)
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{db}")
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_LLM", "offline")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    desk_runtime.clear()
    yield ids
    _close_cached()


def page(name: str, **state) -> AppTest:
    at = AppTest.from_file(str(ROOT / name), default_timeout=60)
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def store_service() -> MemoryService:
    return desk_runtime().service


# users ------------------------------------------------------------------------------------------
def test_users_page_lists_users_with_counts(desk):
    at = page("pages/users.py")
    assert not at.exception and not at.error
    table = html_table(at, "users-list")  # issue 34: plain tables, no data grid
    assert list(table["user"]) == ["ana", "bob"]
    ana = table.set_index("user").loc["ana"]
    assert (ana["episodes"], ana["active"], ana["superseded"], ana["candidate"]) == (2, 2, 1, 1)
    assert table.set_index("user").loc["bob", "candidate"] == 0  # every row has every state
    at.selectbox(key="user").select("bob").run()
    texts = " ".join(map(str, html_table(at, "users-episodes")["text"]))
    assert "jazz" in texts and "Bristol" not in texts
    assert html_table(at, "users-audit") is None  # issue 34: the closed tab is not drawn
    assert not at.dataframe
    at.session_state["users_tabs"] = "Audit log"
    at.run()
    assert "write_fact" in set(html_table(at, "users-audit")["action"])


def test_users_page_on_empty_store_says_how_to_seed(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{tmp_path / 'empty.db'}")
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    desk_runtime.clear()
    try:
        at = page("pages/users.py")
        assert "memdesk seed" in at.info[0].value
    finally:
        _close_cached()


@pytest.mark.parametrize("name", ["pages/users.py", "pages/facts.py", "pages/recall.py",
                                  "pages/chat.py"])
def test_store_unavailable_is_one_clear_error(name, tmp_path, monkeypatch):
    # A directory where the database file should be: SQLite cannot open it.
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{tmp_path}")
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    desk_runtime.clear()
    try:
        at = page(name)
        assert not at.exception
        assert [e.value for e in at.error] and "Cannot open the store" in at.error[0].value
    finally:
        _close_cached()


# facts: tests/test_page_facts.py ------------------------------------------------------------
# recall: tests/test_page_recall.py ----------------------------------------------------------
def test_preset_config_is_a_named_preset_with_overrides():
    cfg = preset_config("no_decay", k=5, include_catalog=True)
    assert cfg.k == 5 and cfg.include_catalog and not cfg.ranking.use_decay
    assert preset_config("history") == PRESETS["history"]
    with pytest.raises(ValidationError, match="unknown recall preset"):
        preset_config("fastest")
    with pytest.raises(ValidationError, match="k"):
        preset_config("default", k=0)


# chat -------------------------------------------------------------------------------------------
def test_app_sidebar_shows_store_embedder_and_llm_mode(desk):
    at = page("app.py")
    assert not at.exception
    side = " ".join(c.value for c in at.sidebar.caption)
    assert "desk.db" in side and "hash" in side and "offline" in side
    assert at.sidebar.text_input(key="operator_name") is not None
    assert list(html_table(at, "users-list")["user"]) == ["ana", "bob"]  # default page: users


def test_timeline_has_a_bar_per_version_and_record_markers():
    from memory.models import Fact
    from memory.ui.timeline import timeline

    old = Fact(user_id="u", text="Lives in Bristol", state=FactState.SUPERSEDED,
               recorded_at=T0, superseded_at=T0 + timedelta(days=400),
               valid_from=datetime(2020, 1, 1, tzinfo=UTC), valid_to=T0 + timedelta(days=390))
    new = Fact(user_id="u", text="Lives in Edinburgh", recorded_at=T0 + timedelta(days=400),
               valid_from=T0 + timedelta(days=390))
    now = T0 + timedelta(days=500)
    rows = timeline([old, new], now=now).rows
    bars = [(r.state, m.start, m.end) for r in rows for m in r.marks if m.kind == "valid"]
    assert bars == [(FactState.SUPERSEDED, old.valid_from, old.valid_to),
                    (FactState.ACTIVE, new.valid_from, now)]  # open end: drawn to now
    markers = [m.kind for r in rows for m in r.marks if m.end is None]
    assert markers == ["recorded", "ended", "recorded"]


def test_hit_rows_empty_legs_are_none(desk):
    hits = store_service().recall("ana", "Bristol", config=PRESETS["bm25_only"],
                                  purpose=Purpose.EXPLAIN).hits
    rows = hit_rows(hits)
    assert rows and rows[0]["dense rank"] is None and rows[0]["bm25 rank"] == 1
