"""A search across users for admins (issue 34): explicit scope, the owner named on every hit,
admin only and audited either way, never the agent, consolidation or an MCP token (invariant
541). Real embedded store, real role checks."""

from __future__ import annotations

import pytest

from memory.access import AGENT_ACTIONS, Access, RoleMap
from memory.clock import fixed_clock
from memory.cross_user import ALL_USERS, search_all_users
from memory.embeddings import get_embedder
from memory.errors import AccessDenied, ValidationError
from memory.models import CATALOG
from memory.service import MemoryService
from memory.stores import open_store
from tests.conftest import NOW

ROLES = RoleMap(operators={"vic@example.com": "viewer", "rev@example.com": "reviewer",
                           "ada@example.com": "admin"})


@pytest.fixture
def svc(tmp_path):
    store = open_store(f"embedded:{tmp_path / 'x.db'}", get_embedder("hash"))
    seeder = MemoryService(store, clock=fixed_clock(NOW))
    seeder.write_fact("ana", "Drinks green tea every morning")
    seeder.write_fact("bob", "Hates tea, drinks coffee")
    seeder.write_fact("bob", "Plays the cello")
    seeder.write_fact("cy", "Grows TEA in the garden", state="candidate")
    svc = MemoryService(store, clock=fixed_clock(NOW),
                        authorize=Access(ROLES, mode="login").authorize)
    yield svc
    store.close()


def test_an_admin_finds_every_users_facts_each_hit_names_its_owner_and_it_is_audited(svc):
    res = search_all_users(svc, "tea", actor="operator:ada@example.com", scope=ALL_USERS)
    assert res.users == 3 and res.total == 3
    assert {(h.user_id, h.text) for h in res.hits} == {
        ("ana", "Drinks green tea every morning"), ("bob", "Hates tea, drinks coffee"),
        ("cy", "Grows TEA in the garden")}
    only = search_all_users(svc, "tea", actor="cli:ops", scope=ALL_USERS, states={"active"})
    assert {h.user_id for h in only.hits} == {"ana", "bob"}  # the CLI is an admin too
    event = svc.audit(CATALOG, limit=5, action="search_all_users")[-1]
    assert (event.actor, event.outcome) == ("operator:ada@example.com", "ok")
    assert event.after["query"] == "tea" and event.after["users"] == 3
    assert event.after["matched"] == 3
    # No user's own log claims the search: it spans users, so it is the shared scope's.
    assert not svc.audit("ana", action="search_all_users")


@pytest.mark.parametrize("actor", ["operator:vic@example.com", "operator:rev@example.com",
                                   "operator:stranger@example.com", "agent", "consolidation",
                                   "mcp:tok_1"])
def test_anyone_else_is_denied_and_audited_denied(svc, actor):
    with pytest.raises(AccessDenied):
        search_all_users(svc, "tea", actor=actor, scope=ALL_USERS)
    denied = [e for e in svc.audit(CATALOG, limit=20) if e.outcome == "denied"]
    assert [(e.actor, e.after["attempted"]) for e in denied] == [(actor, "search_all_users")]
    assert not svc.audit(CATALOG, action="search_all_users")  # no search ran


def test_scope_is_named_never_implied(svc):
    for scope in ("", "ana", "all", None):
        with pytest.raises(ValidationError, match="names its scope"):
            search_all_users(svc, "tea", actor="operator:ada@example.com",
                             scope=scope)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="empty"):
        search_all_users(svc, "  ", actor="operator:ada@example.com", scope=ALL_USERS)


def test_the_agent_and_tokens_have_no_way_to_it():
    """Invariant 541: not among what an MCP token may do, and no agent tool or MCP handler
    names it."""
    from pathlib import Path

    assert "search_all_users" not in AGENT_ACTIONS
    root = Path(__file__).resolve().parent.parent / "memory"
    for path in [root / "tools.py", *(root / "mcp_server").rglob("*.py"),
                 *(root / "agents").rglob("*.py")]:
        text = path.read_text(encoding="utf-8")
        assert "cross_user" not in text and "search_all_users" not in text, path
    access = Access(RoleMap(), mode="cli")
    assert not access.allows("agent", "search_all_users")
    assert access.allows("agent", "forget")  # system actors keep everything else


def test_the_users_page_searches_all_users_for_an_admin(tmp_path, monkeypatch):
    """The desk's place for it: an admin (local mode) opens the section, says the words and
    presses "Search all users"; every hit names its owner and links to the fact; the search
    is in the shared audit log under the operator's name."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from tests.test_pages import seeded_desk, store_service

    gen = seeded_desk(tmp_path, monkeypatch)
    ids = next(gen)
    try:
        root = Path(__file__).resolve().parent.parent
        at = AppTest.from_file(str(root / "pages" / "users.py"), default_timeout=60)
        at.session_state["operator_name"] = "ada"
        at.session_state["users_across_open"] = True
        at.run()
        at.text_input(key="users_across_text").input("lives")
        at.button[[b.label for b in at.button].index("Search all users")].click().run()
        assert not at.exception and not at.error
        hits = next(d.value for d in at.dataframe if "open" in d.value.columns)
        assert {(r.user, r.text) for r in hits.itertuples()} == {
            ("ana", "Lives in Edinburgh"), ("ana", "Lives in Bristol"), ("bob", "Lives in Lisbon")}
        assert f"facts?user=bob&fact={ids['lisbon']}" in set(hits["open"])
        event = store_service().audit(CATALOG, action="search_all_users")[0]
        assert (event.actor, event.after["query"]) == ("operator:ada", "lives")
    finally:
        next(gen, None)


def test_the_cli_says_the_scope_and_names_each_owner(tmp_path, monkeypatch, capsys):
    """`memdesk search-all-users TEXT --all-users`: without the flag, refused with what to
    say (exit 2, nothing audited); with it, one line per hit led by its owner, audited under
    the CLI's actor."""
    import json

    from memory.cli import main

    db = tmp_path / "cli.db"
    store = open_store(f"embedded:{db}", get_embedder("hash"))
    seeder = MemoryService(store, clock=fixed_clock(NOW))
    seeder.write_fact("ana", "Drinks green tea")
    seeder.write_fact("bob", "Hates tea")
    store.close()
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{db}")
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    assert main(["search-all-users", "tea"]) == 2
    assert "pass --all-users" in capsys.readouterr().err
    assert main(["search-all-users", "tea", "--all-users"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "2 fact(s) of 2 user(s) contain 'tea'"
    assert sorted(line.split()[0] for line in lines[1:]) == ["ana", "bob"]
    assert main(["search-all-users", "tea", "--all-users", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert {(h["user_id"], h["text"]) for h in hits} == {("ana", "Drinks green tea"),
                                                         ("bob", "Hates tea")}
    store = open_store(f"embedded:{db}", get_embedder("hash"))
    try:
        events = MemoryService(store).audit(CATALOG, action="search_all_users")
        assert len(events) == 2 and all(e.actor.startswith("cli") for e in events)
    finally:
        store.close()
