"""The chat page for real (streamlit.testing.v1.AppTest) over a real embedded store: a tool-using
turn per message with its trace under the reply (issue 12)."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memory.agent import run_turn
from memory.agents.offline import OfflineAgent
from memory.embeddings import get_embedder
from memory.errors import MemdeskError
from memory.service import MemoryService
from memory.stores import open_store
from memory.ui import runtime as desk_runtime

# Imported here, as the desk's app.py would: AppTest runs a lone page with pages/ first on
# sys.path, where pages/review.py would shadow the review package memory.agent imports.
from tests.desk_support import desk_on, plain

ROOT = Path(__file__).resolve().parent.parent
T0 = datetime(2025, 3, 5, 9, 0, tzinfo=UTC)


def _close_cached():
    with contextlib.suppress(MemdeskError, OSError):  # the store may never have opened
        desk_runtime().service.store.close()
    desk_runtime.clear()


@pytest.fixture
def desk(tmp_path, monkeypatch):
    db = tmp_path / "desk.db"
    store = open_store(f"embedded:{db}", get_embedder("hash"))
    svc = MemoryService(store, clock=lambda: T0)
    ids = {"bristol": svc.write_fact("ana", "Lives in Bristol", fact_type="identity").fact.id,
           "bob": svc.write_fact("bob", "Likes jazz on vinyl", fact_type="preference").fact.id}
    svc.write_fact("ana", "Is vegetarian", fact_type="constraint")
    store.close()
    desk_on(monkeypatch, db)
    yield ids
    _close_cached()


def chat_page() -> AppTest:
    return AppTest.from_file(str(ROOT / "pages" / "chat.py"), default_timeout=60).run()


def say(at: AppTest, text: str) -> AppTest:
    return at.chat_input(key="chat_input").set_value(text).run()


def svc() -> MemoryService:
    return desk_runtime().service


def test_a_turn_shows_reply_and_trace_with_writes_and_links(desk):
    at = say(chat_page(), "We moved to Edinburgh")
    assert not at.exception and not at.error
    user, reply = at.chat_message
    assert (user.name, reply.name) == ("user", "assistant")
    assert user.text[0].value == "We moved to Edinburgh"
    assert reply.text[0].value.startswith("Updated: you live in Edinburgh")
    labels = [e.label for e in reply.expander]
    assert labels[0] == "Writes (1)" and labels[1] == "Core memory (2)"
    assert labels[2].startswith("Recalled before the model ran") and labels[3].startswith("Tool calls")
    assert labels[4].startswith("Model offline")
    diff = reply.expander[0].code[0].value
    assert "'Lives in Bristol'" in diff and "superseded" in diff and "'Lives in Edinburgh'" in diff
    # outside the desk's navigation the links are named in text (see the next test for them)
    links = " ".join(t.value for t in reply.expander[0].text)
    assert f"Replaced fact {desk['bristol']}: see the facts page" in links
    pre = reply.expander[2].dataframe[0].value
    assert {"bm25 rank", "dense rank", "decay", "use boost", "fused"} <= set(pre.columns)
    calls = " ".join(c.value for c in reply.expander[3].code)
    assert any("write_memory" in t.value for t in reply.expander[3].text)
    assert '"supersedes_id"' in calls
    assert [f.text for f in svc().facts("ana", states=["active"])] == ["Is vegetarian",
                                                                       "Lives in Edinburgh"]
    # the reply is never stored; the user's words are (invariant 9)
    texts = [e.text for e in svc().episodes("ana")]
    assert texts == ["We moved to Edinburgh"] and reply.text[0].value not in texts


def test_inside_the_desk_writes_link_to_facts_and_review(desk):
    """In the desk (app.py's navigation) each write links to its fact in Facts and each review
    item to the Review queue, with the user in the link."""
    moved = run_turn(svc(), "ana", "s1", "We moved to Edinburgh", agent=OfflineAgent())
    hedged = run_turn(svc(), "ana", "s1", "I think I'm allergic to latex", agent=OfflineAgent())
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.session_state["chat_sessions"] = {"ana": {"id": "s1", "messages": [
        {"role": "user", "content": moved.message},
        {"role": "assistant", "content": moved.reply, "trace": moved.model_dump(mode="json")},
        {"role": "user", "content": hedged.message},
        {"role": "assistant", "content": hedged.reply, "trace": hedged.model_dump(mode="json")}]}}
    at.switch_page("pages/chat.py").run()
    assert not at.exception
    links = [(p.proto.label, p.proto.page, p.proto.query_string)
             for m in at.chat_message for p in m.get("page_link")]
    new_id = moved.writes()[0].memory_id
    assert (f"Fact {new_id}", "facts", f"user=ana&fact={new_id}") in [
        (label, page.rsplit("/", 1)[-1].removesuffix(".py"), qs) for label, page, qs in links]
    review_id = hedged.writes()[0].memory_id
    assert any(label == f"Review item {review_id}" and "review" in page and f"item={review_id}" in qs
               for label, page, qs in links)
    assert "⚑ review" in at.chat_message[3].expander[0].code[0].value
    top = [(p.proto.label) for p in at.get("page_link")]
    assert "Facts" in top and "Review queue" in top


def test_stored_text_is_shown_as_text_never_markdown(desk):
    at = say(chat_page(), "I have a **Bold** <b>Hub</b> [link](http://x)")
    assert not at.exception
    assert at.chat_message[0].text[0].value == "I have a **Bold** <b>Hub</b> [link](http://x)"
    assert not at.chat_message[0].markdown  # nothing typed or stored goes through Markdown


def test_new_session_starts_a_new_conversation(desk):
    at = say(chat_page(), "I love hiking")
    first = at.session_state["chat_sessions"]["ana"]["id"]
    at.button(key="chat_new_session").click().run()
    assert len(at.chat_message) == 0
    assert at.session_state["chat_sessions"]["ana"]["id"] != first
    at = say(at, "I prefer email")
    sessions = {e.session_id for e in svc().episodes("ana")}
    assert len(sessions) == 2  # each turn's episode carries its session


def test_history_is_per_persona(desk):
    at = say(chat_page(), "I like hiking")
    at.selectbox(key="user").select("bob").run()
    assert len(at.chat_message) == 0
    at = say(at, "What music do I like?")
    assert "jazz" in at.chat_message[1].text[0].value
    assert "I like hiking" not in [e.text for e in svc().episodes("bob")]
    at.selectbox(key="user").select("ana").run()
    assert at.chat_message[0].text[0].value == "I like hiking"


def test_oversized_message_is_kept_on_screen_and_refused(desk):
    at = say(chat_page(), "y" * 40_000)
    assert "the limit is 32768" in at.chat_message[0].error[0].value
    assert at.chat_message[0].text[0].value == "y" * 40_000
    assert svc().episodes("ana") == []


def test_inv438_a_model_that_cannot_run_keeps_the_message_on_screen_unstored(desk, monkeypatch):
    """invariant 438: reported before storing; the typed text stays on screen to send again."""
    monkeypatch.setenv("MEMDESK_LLM", "anthropic")
    at = say(chat_page(), "My hub is offline again")
    assert not at.exception
    assert "ANTHROPIC_API_KEY" in plain(at.chat_message[0].error[0].value)
    assert [m.name for m in at.chat_message] == ["user"]
    assert at.chat_message[0].text[0].value == "My hub is offline again"
    assert svc().episodes("ana") == []


def test_the_page_alone_still_works_without_the_desk_navigation(desk):
    at = AppTest.from_file(str(ROOT / "pages" / "chat.py"), default_timeout=60).run()
    at = say(at, "I'm allergic to penicillin")
    assert not at.exception
    assert at.chat_message[1].text[0].value == "Noted: you're allergic to penicillin."


# A user's memory begins in Chat (invariant 173) ------------------------------------------------
@pytest.fixture
def empty_desk(tmp_path, monkeypatch):
    desk_on(monkeypatch, tmp_path / "empty.db")
    yield
    _close_cached()


def test_an_empty_store_says_how_to_start_and_chat_starts_a_new_user(empty_desk):
    import memory.ui as desk

    at = chat_page()
    assert not at.exception and not at.error
    assert "Start a new user" in plain(at.info[0].value)  # what to do next, not a dead end
    at.text_input(key="user__new_name").input("Zofia 東京").run()
    assert not at.exception and not at.error
    assert at.selectbox(key="user").value == "Zofia 東京"
    assert "(new)" in at.selectbox(key="user").format_func("Zofia 東京")
    assert any("has no memories yet" in plain(i.value) for i in at.info)
    writes = desk._desk_writes
    say(at, "I moved to Kraków 🎉")
    assert not at.exception and not at.error
    assert "Kraków" in at.chat_message[1].text[0].value
    assert desk._desk_writes > writes  # the sidebar counts and review badge are re-read
    svc = desk_runtime().service
    assert [u.user_id for u in svc.users()] == ["Zofia 東京"]
    assert any("Kraków" in f.text for f in svc.facts("Zofia 東京"))
    at.run()
    assert not any("has no memories yet" in plain(i.value) for i in at.info)  # now it has
    assert at.selectbox(key="user").format_func("Zofia 東京") == "Zofia 東京"


def test_a_link_to_an_unknown_user_starts_them_in_chat_and_bad_ids_are_refused(desk):
    at = AppTest.from_file(str(ROOT / "pages" / "chat.py"), default_timeout=60)
    at.query_params["user"] = "newbie"
    at.run()
    assert not at.exception and not at.error
    assert at.selectbox(key="user").value == "newbie"
    assert set(at.selectbox(key="user").options) == {"ana", "bob", "newbie (new)"}
    at.text_input(key="user__new_name").input("catalog").run()  # the shared catalog's id
    assert at.selectbox(key="user").value == "newbie"
    assert any("reserved" in plain(e.value) for e in at.sidebar.error)
    # Other pages do not invent users: there an unknown name is still an error.
    facts = AppTest.from_file(str(ROOT / "pages" / "facts.py"), default_timeout=60)
    facts.query_params["user"] = "newbie"
    facts.run()
    assert "Unknown user" in plain(facts.error[0].value)


def test_inv438_a_fallback_to_the_offline_reader_is_said_under_the_reply(desk, monkeypatch):
    monkeypatch.setenv("MEMDESK_LLM", "auto")  # and no ANTHROPIC_API_KEY
    desk_runtime.clear()
    at = say(chat_page(), "I live in Leeds")
    assert not at.exception
    model = next(e for e in at.chat_message[1].expander if e.label.startswith("Model offline"))
    assert "(fallback, no model configured)" in model.label
    assert any(t.value.startswith("Fallback: MEMDESK_LLM=auto and ANTHROPIC_API_KEY is not set")
               for t in model.text)
