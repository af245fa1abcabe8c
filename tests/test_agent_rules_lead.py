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
