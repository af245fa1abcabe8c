"""One offline agent turn on a real store, and the checks the agent-rule tests share (issue 12):
every `tests/test_agent_rules_*.py` file reads its rules through these."""

from __future__ import annotations

from memory.agent import run_turn
from memory.agents.offline import OfflineAgent
from memory.models import FactState


def turn(svc, text, user="ana"):
    return run_turn(svc, user, "s1", text, agent=OfflineAgent())


def active(svc, user="ana"):
    return sorted(f.text for f in svc.facts(user, states=["active"]))


def one_supersede(svc, text, old_text, *words, fact_type="world"):
    """`text` replaces the one fact `old_text` (natural), its new value holding `words`."""
    old = svc.write_fact("ana", old_text, fact_type=fact_type).fact
    t = turn(svc, text)
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", old.id), (text, w)
    for word in words:
        assert word in (w.text or ""), (text, w.text)
    assert svc.get_fact("ana", old.id).state == FactState.SUPERSEDED
    return w
