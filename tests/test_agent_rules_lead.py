"""Lead's agent-turn rules from live probing (issue 12): one real turn on a real store each."""

from __future__ import annotations

from memory.agent import run_turn
from memory.agents.offline import OfflineAgent


def turn(svc, text, user="ana"):
    return run_turn(svc, user, "s1", text, agent=OfflineAgent())


def test_inv212_an_address_keeps_its_commas(service):
    t = turn(service, "My address is 12 Elm Road, Edinburgh EH6 5AA")
    (w,) = t.writes()
    assert w.text == "Address is 12 Elm Road, Edinburgh EH6 5AA"
    t = turn(service, "our home address is Flat 2, 9 Leith Walk, Leith and we love it", user="bo")
    (w,) = t.writes()
    assert w.text == "Home address is Flat 2, 9 Leith Walk, Leith"


def test_inv212_a_new_clause_still_closes_the_address(service):
    t = turn(service, "My address is 10 Main St, we moved there in May")
    (w,) = t.writes()
    assert w.text == "Address is 10 Main St"


def test_inv218_a_plan_named_by_its_noun_is_said_as_yours():
    from memory.understand.speak import second_person

    assert second_person("Dentist appointment on 9 December") == \
        "your dentist appointment on 9 December"
    assert second_person("Flight to Lisbon on 3 March") == "your flight to Lisbon on 3 March"
    assert second_person("Lives in Bath") == "you live in Bath"  # a verb keeps its own form
    assert second_person("Team offsite in Porto") == "Team offsite in Porto"  # no plan noun


def test_inv218_the_reply_to_a_new_plan_speaks_to_the_user(service):
    t = turn(service, "My dentist appointment moved to 9 December")
    (w,) = t.writes()
    assert w.text == "Dentist appointment on 9 December"
    assert t.reply.startswith("Noted: your dentist appointment on 9 December")
