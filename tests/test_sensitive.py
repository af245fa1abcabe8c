"""Secrets a memory never keeps (invariant 273): passwords, PINs, card numbers, keys."""

from __future__ import annotations

import pytest

from memory.agent import run_turn
from memory.agents.offline import OfflineAgent
from memory.consolidation import gates
from memory.errors import ValidationError
from memory.sensitive import secret_in


@pytest.mark.parametrize("text, kind", [
    ("Wifi password is hunter2", "a password"),
    ("Password for Netflix is Blue-Horse-42", "a password"),
    ("PIN is 4821", "a PIN"),
    ("The alarm code is 9876", "a security code"),
    ("API key: sk-proj-abcdefghijklmnop1234", "a key or recovery phrase"),
    ("Deploys with ghp_abcdefghijklmnopqrstuvwxyz123456", "a key or token"),
    ("Card number 4111 1111 1111 1111", "a card number"),
    ("Paid with 5500-0000-0000-0004", "a card number"),
])
def test_inv273_secrets_are_named(text, kind):
    assert secret_in(text) == kind


@pytest.mark.parametrize("text", [
    "Password manager is Bitwarden", "My wifi password is in 1Password", "Changed the bank PIN",
    "Phone number is 07700 900123", "Passport number is 123456789", "Account number 12345678",
    "Uses 1Password", "Allergic to peanuts", "Card 4111 1111 1111 1112 is not Luhn-valid",
    "Ordered 1234 5678 9012 3456 widgets",
])
def test_inv273_ordinary_facts_hold_none(text):
    assert secret_in(text) is None


def test_inv273_the_write_door_refuses_a_secret_whole(service):
    with pytest.raises(ValidationError, match="never keeps a password"):
        service.write_fact("ana", "Wifi password is hunter2")
    with pytest.raises(ValidationError, match="never keeps a PIN"):
        service.write_playbook("ana", name="Bank app", trigger="app locked",
                               steps=["open the app", "type PIN is 4821"])
    assert service.facts("ana") == [] and service.store.list_tombstones("ana") == []
    assert [e for e in service.store.audit("ana", limit=10) if e.action == "write_fact"] == []


def test_inv273_an_edit_cannot_bring_a_secret_in(service):
    fact = service.write_fact("ana", "Wifi network is Home-5G").fact
    with pytest.raises(ValidationError):
        service.write_fact("ana", "Wifi network is Home-5G, password is hunter2",
                           supersedes_id=fact.id)
    assert service.get_fact("ana", fact.id).state.value == "active"


def test_inv273_the_agent_says_it_will_not_keep_it(service):
    t = run_turn(service, "ana", "s1", "Please remember my wifi password is hunter2",
                 agent=OfflineAgent())
    assert t.writes() == [] or all(w.status != "applied" for w in t.writes())
    assert t.reply.startswith("I couldn't record that: ")
    assert "memory never keeps a password" in t.reply and "hunter2" not in t.reply
    assert service.facts("ana") == []
    # the user's own words stay as their episode, the secret withheld from them
    assert [e.text for e in service.episodes("ana")] == [
        "Please remember my wifi password is [withheld]"]


def test_inv273_a_secret_said_in_passing_is_withheld_from_the_episode(service):
    from memory.sensitive import masked

    ep = service.write_episode("ana", "my PIN is 4821 and I live in Leeds; card 4111 1111 1111 1111")
    assert ep.text == "my PIN is [withheld] and I live in Leeds; card [withheld]"
    assert masked("my password manager is Bitwarden") == "my password manager is Bitwarden"
    assert "4821" not in str([e.model_dump() for e in service.store.audit("ana", limit=5)])


def test_inv273_consolidation_drops_a_secret_and_keeps_the_rest():
    assert gates.secret("Wifi password is hunter2").decision == "drop"
    assert gates.secret("Lives in Leeds").decision == "pass"


def test_inv273_an_identity_number_is_withheld_from_the_episode(service):
    ep = service.write_episode("ana", "my SSN is 123-45-6789 and I live in Leeds")
    assert ep.text == "my SSN is [withheld] and I live in Leeds"
