"""Issue 30, item 2: text reads as it is stored (invariants 11, 68). Bidi controls and
zero-width characters are removed from values on every write path and refused at the door; user
ids are NFKC and a new id that looks like an existing one is refused naming it. Real embedded
store, the real CLI, the agent's tools and the MCP server's tool layer."""

from __future__ import annotations

import pytest

from memory.cli import main
from memory.errors import ScopeError, TombstoneError, ValidationError
from memory.models import CatalogDoc, Fact
from memory.textsafety import clean, first_unsafe, skeleton

HOSTILE = ["Lives in \u202enotsoB\u202c", "Lives in Bos\u200bton", "Lives in \u2066Boston\u2069",
           "Lives in Bos\ufeffton", "Lives in \u200fBoston", "Lives in Bos\u00adton",
           "Lives in Bos\u2060ton", "Lives in \u061cBoston"]


def test_inv11_the_pure_rule_removes_every_format_character_but_an_emoji_joiner():
    assert [clean(t) for t in HOSTILE] == ["Lives in notsoB"] + ["Lives in Boston"] * 7
    assert clean("Pair-programs \U0001f469\u200d\U0001f4bb daily") == \
        "Pair-programs \U0001f469\u200d\U0001f4bb daily"
    assert clean("Bos\u200dton") == "Boston"  # a joiner between letters joins nothing
    assert all(first_unsafe(t) for t in HOSTILE) and first_unsafe("a\u0007b") == "\u0007"
    assert first_unsafe("tab\tand\nnewline") is None


def test_inv11_a_retracted_value_cannot_come_back_through_hidden_characters(service):
    old = service.write_fact("ana", "Lives in Boston").fact
    service.retract("ana", old.id, reason="never lived there")
    for text in HOSTILE[1:]:
        try:
            got = service.write_fact("ana", text)
        except TombstoneError:
            continue  # refused: the dead value, whatever hides in it
        assert got.fact.state.value != "active", text  # else held for review
    reversed_ = service.write_fact("ana", HOSTILE[0]).fact
    assert reversed_.text == "Lives in notsoB"  # shown as stored: no override left in it


def test_inv11_episodes_agent_tools_and_playbooks_are_cleaned(service):
    from memory.tools import ToolContext, execute

    ep = service.write_episode("ana", "I moved to Bos\u200bton \u202eyesterday\u202c")
    assert ep.text == "I moved to Boston yesterday"
    pb = service.write_playbook("ana", "Re\u200bset", "wifi \u202edrops", ["Hold\u2066 reset"])
    assert first_unsafe(pb.search_text()) is None
    ctx = ToolContext(service=service, user_id="ana", session_id="s1")
    assert execute(ctx, "write_memory", {"text": "Drinks te\u200ba"}).ok
    assert "Drinks tea" in [f.text for f in service.facts("ana")]


def test_inv11_the_door_refuses_a_hidden_character_from_any_path(service):
    with pytest.raises(ValidationError, match="U\\+202E"):
        with service.batch("cli", "ana") as b:
            b.add(Fact(user_id="ana", text="Lives in \u202enotsoB"))
    with pytest.raises(ValidationError, match="U\\+200B"):
        service.add_catalog([CatalogDoc(title="Hub", text="Re\u200bset")], actor="cli")
    assert service.facts("ana") == [] and service.store.list_catalog() == []


def test_inv68_user_ids_are_nfkc_and_a_look_alike_new_id_is_refused(service):
    service.write_fact("ana", "Drinks tea")
    assert service.write_fact("\uff41\uff4e\uff41", "Likes rain").fact.user_id == "ana"
    with pytest.raises(ScopeError, match="'ana'") as err:
        service.write_fact("\u0430na", "Drinks coffee")  # Cyrillic а
    assert "looks the same" in str(err.value)
    assert {u.user_id for u in service.users()} == {"ana"}
    service.write_fact("anna", "Drinks coffee")  # a different id that reads differently
    assert skeleton("p\u0430yp\u0430l") == skeleton("paypal")


def test_inv68_the_cli_refuses_a_look_alike_user_with_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{tmp_path / 's.db'}")
    assert main(["write-fact", "--user", "ana", "Drinks tea"]) == 0
    capsys.readouterr()
    assert main(["write-fact", "--user", "\u0430na", "Drinks coffee"]) == 2
    err = capsys.readouterr().err
    assert "'ana'" in err and "Traceback" not in err
