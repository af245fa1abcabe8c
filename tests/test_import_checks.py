"""Issue 30, item 3: import is a write (invariant 178). An export edited to hold a secret, a
10 MB text, a bidi override or a control character, or a forged audit event naming another
actor's authority is refused whole and changes nothing; a good import is one event naming the
operator and the file's SHA-256. Real embedded stores, the real CLI in-process."""

from __future__ import annotations

import hashlib
import json

import pytest

from memory.access import Access, RoleMap
from memory.cli import main
from memory.embeddings import get_embedder
from memory.errors import ValidationError
from memory.export import export_user, import_user, parse, to_json
from memory.models import AuditEvent
from memory.service import MemoryService
from memory.stores import open_store


@pytest.fixture
def exported(tmp_path):
    store = open_store(f"embedded:{tmp_path / 'src.db'}", get_embedder("hash"))
    svc = MemoryService(store)
    ep = svc.write_episode("cy", "I play the cello on Sundays")
    svc.write_fact("cy", "Plays the cello", source_episode_ids=[ep.id])
    data = json.loads(to_json(export_user(svc, "cy", actor="cli")))
    store.close()
    return data


def _target(tmp_path, name="dst.db", roles=None):
    store = open_store(f"embedded:{tmp_path / name}", get_embedder("hash"))
    auth = Access(roles, "login").authorize if roles is not None else None
    return MemoryService(store, authorize=auth)


def _refused(tmp_path, data, match, *, roles=None, actor="cli"):
    svc = _target(tmp_path, roles=roles)
    try:
        with pytest.raises(ValidationError, match=match):
            import_user(svc, parse(json.dumps(data)), actor=actor)
        assert svc.store.users() == [] and svc.store.audit_users() == []  # nothing written
    finally:
        svc.store.close()


def test_inv178_a_secret_in_an_edited_export_is_refused(exported, tmp_path):
    exported["facts"][0]["text"] = "Password is hunter2 and PIN 4921"
    _refused(tmp_path, exported, "never keeps a password")


def test_inv178_an_episode_with_a_secret_is_refused_too(exported, tmp_path):
    exported["episodes"][0]["text"] = "the wifi password is hunter2"
    _refused(tmp_path, exported, "never keeps")


def test_inv178_a_10_mb_text_is_refused_by_the_32_kb_limit(exported, tmp_path):
    exported["episodes"][0]["text"] = "cello " * (10 * 1024 * 1024 // 6)
    _refused(tmp_path, exported, "32 KB")


@pytest.mark.parametrize("bad", ["\u202e", "\u0007", "\u200b"])
def test_inv178_hidden_and_control_characters_are_refused(exported, tmp_path, bad):
    exported["facts"][0]["text"] = f"Plays the {bad}cello"
    _refused(tmp_path, exported, f"U\\+{ord(bad):04X}")


def test_inv178_a_hidden_character_in_an_audit_event_is_refused(exported, tmp_path):
    exported["audit"][0]["reason"] = "moved \u202eecnarf"
    _refused(tmp_path, exported, "U\\+202E")


def _forged(data, *, first: bool) -> dict:
    at = data["audit"][0]["at"] if first else data["exported_at"]
    event = AuditEvent(actor="operator:root@example.com", user_id="cy", action="erase_user",
                       after={"memories": 9, "tombstones": 0}).model_dump(mode="json")
    event["at"] = at
    data["audit"] = [event, *data["audit"]] if first else [*data["audit"], event]
    return data


def test_inv178_a_forged_erase_after_the_history_is_refused(exported, tmp_path):
    _refused(tmp_path, _forged(exported, first=False), "an erase leaves one event")


def test_inv178_an_operator_act_the_roles_do_not_give_is_refused(exported, tmp_path):
    roles = RoleMap(operators={"ada@example.com": "admin", "root@example.com": "reviewer"})
    _refused(tmp_path, _forged(exported, first=True), "authority this store does not give",
             roles=roles, actor="operator:ada@example.com")


def test_inv178_an_event_dated_after_the_export_is_refused(exported, tmp_path):
    exported["audit"][-1]["at"] = "2999-01-01T00:00:00Z"
    _refused(tmp_path, exported, "after the export was taken")


def test_inv178_the_import_is_one_event_naming_the_operator_and_the_files_hash(
        exported, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{tmp_path / 'cli.db'}")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**exported, "facts": [{**exported["facts"][0],
                                                      "text": "PIN is 4921"}]}))
    assert main(["import", str(bad)]) == 2
    assert "never keeps" in capsys.readouterr().err
    good = tmp_path / "cy.json"
    good.write_text(json.dumps(exported))
    assert main(["import", str(good)]) == 0
    capsys.readouterr()
    assert main(["audit", "--user", "cy", "--json", "--limit", "1"]) == 0
    event = json.loads(capsys.readouterr().out)[0]
    assert event["action"] == "import_user" and event["actor"].startswith("cli")
    assert event["after"]["file_sha256"] == hashlib.sha256(good.read_bytes()).hexdigest()
    assert event["after"]["operator"] == event["actor"]


def test_inv178_an_erase_then_import_round_trip_still_loads(tmp_path):
    """A genuine history holding an erase (its one event, first) still imports."""
    from memory.forgetting import erase_user

    svc = _target(tmp_path, "a.db")
    svc.write_fact("cy", "Plays the cello")
    erase_user(svc, "cy", actor="cli")
    svc.write_fact("cy", "Plays the viola")
    exp = export_user(svc, "cy", actor="cli")
    assert exp.audit[0].action == "erase_user"
    other = _target(tmp_path, "b.db")
    assert import_user(other, exp, actor="cli").facts == 1



def test_inv68_inv178_an_import_of_a_look_alike_user_is_refused(exported, tmp_path):
    """The same id rule on the import path: "cy" exists, an export of "сy" (Cyrillic с)
    is refused naming it, and writes nothing."""
    from memory.errors import ScopeError

    svc = _target(tmp_path, "twin.db")
    svc.write_fact("cy", "Plays the viola")
    data = json.loads(json.dumps(exported).replace('"cy"', '"\\u0441y"'))
    before = [e.id for e in svc.store.audit("cy", limit=100)]
    with pytest.raises(ScopeError, match="'cy'"):
        import_user(svc, parse(json.dumps(data)), actor="cli")
    assert svc.store.users() == ["cy"]
    assert [e.id for e in svc.store.audit("cy", limit=100)] == before
