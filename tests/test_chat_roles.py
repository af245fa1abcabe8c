"""Issue 30, item 4: roles everywhere (invariant 455). Driven by an operator, the agent acts
with the operator's role: a reviewer cannot forget through chat (the refusal audited `denied`,
the reply saying why), an admin can, and chat writes are audited as `operator:NAME`. Real
store, the real offline agent, the real CLI."""

from __future__ import annotations

import json

from memory.access import Access, RoleMap
from memory.agent import run_turn
from memory.agents.offline import OfflineAgent
from memory.cli import main
from memory.clock import fixed_clock
from memory.embeddings import get_embedder
from memory.service import MemoryService
from memory.stores import open_store
from tests.conftest import NOW

ROLES = RoleMap(operators={"rev@example.com": "reviewer", "ada@example.com": "admin"})
ASK = "Please forget that I have a dog named Rex"


def _svc(tmp_path):
    store = open_store(f"embedded:{tmp_path / 'chat.db'}", get_embedder("hash"))
    MemoryService(store, clock=fixed_clock(NOW)).write_fact("ana", "Has a dog named Rex")
    return MemoryService(store, clock=fixed_clock(NOW), authorize=Access(ROLES, "login").authorize)


def test_inv455_a_reviewer_cannot_forget_through_chat_and_is_told_why(tmp_path):
    svc = _svc(tmp_path)
    trace = run_turn(svc, "ana", "s1", ASK, agent=OfflineAgent(),
                     operator="operator:rev@example.com")
    assert [f.text for f in svc.facts("ana")] == ["Has a dog named Rex"]  # still there
    assert not any(w.op == "forget" for w in trace.writes())
    assert "could not forget" in trace.reply and "needs admin" in trace.reply
    denied = svc.audit("ana", action="denied")
    assert denied and all(e.actor == "operator:rev@example.com" for e in denied)
    assert denied[0].after == {"attempted": "forget"}
    episode = svc.audit("ana", action="write_episode")[0]
    assert episode.actor == "operator:rev@example.com"


def test_inv455_an_admin_forgets_through_chat_audited_as_themselves(tmp_path):
    svc = _svc(tmp_path)
    trace = run_turn(svc, "ana", "s1", ASK, agent=OfflineAgent(),
                     operator="operator:ada@example.com")
    assert any(w.op == "forget" and w.status == "applied" for w in trace.writes())
    assert svc.facts("ana") == []
    assert {e.actor for e in svc.audit("ana", action="forget")} == {"operator:ada@example.com"}


def test_inv455_cli_chat_with_an_operator_writes_as_the_operator(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{tmp_path / 'cli.db'}")
    assert main(["chat", "--user", "ana", "--new-user", "--operator", "rita",
                 "I moved to Leeds last month"]) == 0
    capsys.readouterr()
    assert main(["audit", "--user", "ana", "--json", "--limit", "50"]) == 0
    events = json.loads(capsys.readouterr().out)
    writes = [e for e in events if e["action"].startswith("write_")]
    assert writes and {e["actor"] for e in writes} == {"operator:rita"}


def test_inv455_the_desk_chat_of_a_local_reviewer_cannot_forget(tmp_path, monkeypatch):
    """The desk without login, its roles file giving every operator `reviewer`: the chat page's
    turn acts as operator:rita, so the forget is denied and said, the writes are hers."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from memory.ui import runtime as desk_runtime

    db = tmp_path / "desk.db"
    store = open_store(f"embedded:{db}", get_embedder("hash"))
    MemoryService(store, clock=fixed_clock(NOW)).write_fact("ana", "Has a dog named Rex")
    store.close()
    roles = tmp_path / "roles.toml"
    roles.write_text('local = "reviewer"\n')
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{db}")
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_LLM", "offline")
    monkeypatch.setenv("MEMDESK_ROLES_FILE", str(roles))
    desk_runtime.clear()
    try:
        root = Path(__file__).resolve().parent.parent
        at = AppTest.from_file(str(root / "pages" / "chat.py"), default_timeout=60)
        at.session_state["operator_name"] = "rita"
        at.query_params["user"] = "ana"
        at.run()
        at.chat_input(key="chat_input").set_value(ASK).run()
        assert not at.exception
        svc = desk_runtime().service
        assert [f.text for f in svc.facts("ana")] == ["Has a dog named Rex"]
        reply = at.chat_message[1]
        assert "could not forget" in reply.text[0].value and "needs admin" in reply.text[0].value
        assert svc.audit("ana", action="denied")[0].actor == "operator:rita"
        assert svc.audit("ana", action="write_episode")[0].actor == "operator:rita"
    finally:
        desk_runtime().service.store.close()
        desk_runtime.clear()
