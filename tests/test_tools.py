"""The memory tools' executor on a real embedded store: scope bound to the session's user,
supersedes_id validated, the same gates as every other write (issue 12)."""

from __future__ import annotations

import pytest

from memory.models import FactState, MemoryKind
from memory.policy import ReviewPolicy
from memory.tools import (
    TOOLS,
    ForgetArgs,
    RecallArgs,
    ToolContext,
    WriteArgs,
    execute,
    split_scope,
    tool_definitions,
)


def ctx(service, user="ana", message=None, **kw) -> ToolContext:
    ep = service.write_episode(user, message or "a message", session_id="s")
    return ToolContext(service=service, user_id=user, session_id="s", episode_id=ep.id,
                       user_message=message, policy=ReviewPolicy(), **kw)


def test_schemas_are_derived_from_the_pydantic_models():
    defs = {d["name"]: d for d in tool_definitions()}
    assert set(defs) == {"recall_memory", "write_memory", "forget_memory"}
    for model, name in ((RecallArgs, "recall_memory"), (WriteArgs, "write_memory"),
                        (ForgetArgs, "forget_memory")):
        schema = defs[name]["input_schema"]
        assert schema["properties"] == model.model_json_schema()["properties"]
        assert schema["type"] == "object" and "user_id" not in schema["properties"]
        assert TOOLS[name].args is model


def test_inv70_scope_keys_from_the_model_are_stripped_and_recorded(service):
    """invariant 70: a user id, index or scope named by the model is ignored."""
    bob_fact = service.write_fact("bob", "Lives in Lisbon", fact_type="identity").fact
    c = ctx(service)
    res = execute(c, "write_memory", {"text": "Lives in Paris", "fact_type": "identity",
                                      "user_id": "bob", "Index": "memdesk-semantic-bob",
                                      "scope": "all"})
    assert res.ok and res.stripped == {"user_id": "bob", "Index": "memdesk-semantic-bob",
                                       "scope": "all"}
    assert [f.text for f in service.facts("ana")] == ["Lives in Paris"]
    assert [f.id for f in service.facts("bob")] == [bob_fact.id]
    assert "ignored" in res.for_model()["note"]
    hits = execute(c, "recall_memory", {"query": "Lisbon", "user": "bob", "tenant_id": "x"})
    assert hits.ok and set(hits.stripped) == {"user", "tenant_id"}
    assert all(h.id != bob_fact.id for h in hits.hits)
    assert split_scope({"onBehalfOf": "bob", "query": "q"}) == ({"query": "q"}, {"onBehalfOf": "bob"})


def test_bad_calls_are_clear_errors_not_exceptions(service):
    c = ctx(service)
    assert "unknown tool" in execute(c, "drop_table", {}).error
    assert "JSON object" in execute(c, "recall_memory", "x").error
    assert "needs `text`" in execute(c, "write_memory", {"kind": "fact"}).error
    res = execute(c, "write_memory", {"text": "x", "surprise": 1})
    assert not res.ok and "surprise" in res.error
    assert service.facts("ana") == []


def test_inv71_supersedes_id_must_be_owned_recalled_and_the_head(service):
    """invariant 71: only a fact of this user, recalled in this turn, head of its chain."""
    old = service.write_fact("ana", "Lives in Bristol", fact_type="identity").fact
    bob = service.write_fact("bob", "Lives in Rome", fact_type="identity").fact
    c = ctx(service, message="we moved to Leeds")
    res = execute(c, "write_memory", {"text": "Lives in Leeds", "supersedes_id": old.id})
    assert not res.ok and "not recalled in this turn" in res.error
    res = execute(c, "write_memory", {"text": "Lives in Leeds", "supersedes_id": bob.id})
    assert not res.ok and res.error.startswith("NotFound")
    denied = service.audit("ana", action="denied")
    assert denied and denied[0].target_ids == [bob.id]  # invariant 3, audited on the caller
    assert service.get_fact("bob", bob.id).state == FactState.ACTIVE
    execute(c, "recall_memory", {"query": "where do I live"})
    assert old.id in c.recalled_ids
    res = execute(c, "write_memory", {"text": "Lives in Leeds", "fact_type": "identity",
                                      "supersedes_id": old.id, "contradiction": "natural",
                                      "valid_from": "2025-05-01"})
    assert res.ok and res.writes[0].op == "supersede" and res.writes[0].status == "applied"
    assert service.get_fact("ana", old.id).state == FactState.SUPERSEDED
    res = execute(c, "write_memory", {"text": "Lives in York", "supersedes_id": old.id})
    assert not res.ok and "not the head" in res.error


def test_inv74_relative_time_words_never_reach_a_value(service):
    """invariant 74: 'yesterday' in a stored value goes stale; the date goes in valid_from."""
    c = ctx(service)
    for text in ("Owns a Zigbee2MQTT stick yesterday", "Moved to Leeds last week",
                 "Started running 3 weeks ago"):
        res = execute(c, "write_memory", {"text": text})
        assert not res.ok and "valid_from" in res.error
    assert service.facts("ana") == []
    res = execute(c, "write_memory", {"text": "Owns a Zigbee2MQTT stick", "valid_from": "2025-05-31"})
    assert res.ok and service.facts("ana")[0].valid_from.date().isoformat() == "2025-05-31"


def test_inv73_low_confidence_and_dead_values_wait_for_review(service):
    """invariant 73: the same gates as any write: hedged facts and restated tombstoned values
    become candidates; a duplicate is not written twice."""
    c = ctx(service)
    res = execute(c, "write_memory", {"text": "Allergic to latex", "fact_type": "constraint",
                                      "confidence": 0.5})
    assert res.writes[0].status == "review"
    cand = service.get_fact("ana", res.writes[0].memory_id)
    assert cand.state == FactState.CANDIDATE and cand.source_episode_ids == [c.episode_id]
    dead = service.write_fact("ana", "Has a cat called Pepper").fact
    service.retract("ana", dead.id, reason="never had a cat")
    res = execute(c, "write_memory", {"text": "Has a cat called Pepper"})
    assert res.writes[0].status == "review" and "previously_rejected" in res.writes[0].flags
    assert [f.text for f in service.facts("ana", states=["active"])] == []
    res = execute(c, "write_memory", {"text": "Allergic to latex", "fact_type": "constraint"})
    assert res.writes[0].status == "duplicate"  # already waiting in review
    service.retract("ana", service.write_fact("ana", "Owns a Vespa").fact.id)
    dropping = ToolContext(service=service, user_id="ana", episode_id=c.episode_id,
                           policy=ReviewPolicy(previously_rejected="drop"))
    res = execute(dropping, "write_memory", {"text": "Owns a Vespa"})
    assert not res.ok and res.error.startswith("Tombstone")
    assert service.audit("ana", action="write_refused")


def test_harsh_contradiction_in_turn_retracts_and_tombstones(service):
    """A first-hand denial in the turn retracts (invariant 34 keeps this for the turn): the old
    value is retracted and tombstoned, and a replacement, if any, is written."""
    old = service.write_fact("ana", "Owns a Tesla Model 3").fact
    other = service.write_fact("ana", "Lives in Lyon", fact_type="identity").fact
    c = ctx(service, message="the Tesla was my sister's; I live in Grenoble, never lived in Lyon")
    execute(c, "recall_memory", {"query": "Tesla Lyon"})
    res = execute(c, "write_memory", {"kind": "retraction", "supersedes_id": old.id})
    assert res.ok and res.writes[0].op == "retract" and res.writes[0].tombstone_id
    assert service.get_fact("ana", old.id).state == FactState.RETRACTED
    res = execute(c, "write_memory", {"text": "Lives in Grenoble", "fact_type": "identity",
                                      "supersedes_id": other.id, "contradiction": "harsh"})
    w = res.writes[0]
    assert (w.op, w.status, w.old_id) == ("retract", "applied", other.id) and w.tombstone_id
    assert service.get_fact("ana", other.id).state == FactState.RETRACTED
    # a hedged retraction is not applied: it waits for an operator (invariant 590,
    # tests/test_retraction_review.py)
    keep = service.write_fact("ana", "Has a dog called Max").fact
    execute(c, "recall_memory", {"query": "dog Max"})
    res = execute(c, "write_memory", {"kind": "retraction", "supersedes_id": keep.id,
                                      "confidence": 0.4})
    assert res.ok and (res.writes[0].op, res.writes[0].status) == ("retract", "review")
    assert service.get_fact("ana", keep.id).state == FactState.ACTIVE


def test_inv75_forget_needs_an_explicit_request_and_a_recalled_id(service):
    """invariant 75: forget only on the user's explicit request, only what was recalled."""
    fact = service.write_fact("ana", "Lives at 12 Rose Street, Leeds", fact_type="identity").fact
    c = ctx(service, message="my address changed")
    execute(c, "recall_memory", {"query": "address street"})
    res = execute(c, "forget_memory", {"memory_id": fact.id})
    assert not res.ok and "explicit request" in res.error
    c = ctx(service, message="please forget my address")
    res = execute(c, "forget_memory", {"memory_id": fact.id})
    assert not res.ok and "not recalled" in res.error
    execute(c, "recall_memory", {"query": "address street"})
    res = execute(c, "forget_memory", {"memory_id": fact.id, "reason": "asked"})
    assert res.ok and res.writes[0].op == "forget" and res.writes[0].text is None
    assert service.store.get(MemoryKind.SEMANTIC, "ana", fact.id) is None
    event = service.audit("ana", action="forget")[0]
    assert "Rose" not in event.model_dump_json() and event.before["text_sha256"]


def test_playbooks_need_confirmed_steps(service):
    c = ctx(service)
    args = {"kind": "playbook", "name": "Re-pair a dropped sensor", "trigger": "sensor offline",
            "steps": ["Pull the battery", "Hold reset", "Pair next to the hub"]}
    assert not execute(c, "write_memory", {**args, "confidence": 0.6}).ok
    res = execute(c, "write_memory", {**args, "confidence": 0.9})
    assert res.ok and res.writes[0].op == "playbook"
    assert [p.name for p in service.playbooks("ana")] == ["Re-pair a dropped sensor"]


@pytest.mark.parametrize("name,args", [("recall_memory", {"query": ""}),
                                       ("recall_memory", {"query": "x", "k": 500}),
                                       ("write_memory", {"text": "x", "contradiction": "harsh"}),
                                       ("write_memory", {"kind": "retraction"}),
                                       ("forget_memory", {})])
def test_argument_validation(service, name, args):
    res = execute(ctx(service), name, args)
    assert not res.ok and res.error.startswith("invalid")


def test_inv6_recall_with_history_completes_the_chains_it_found_with_once_true_versions(service):
    """include_superseded: the other versions of a found fact's chain come along, even when the
    search alone would miss them; a retracted version never does (invariant 6); another user's
    chain never does (invariant 3)."""
    first = service.write_fact("ana", "Works at Parcelbird", fact_type="identity").fact
    mid = service.write_fact("ana", "Backend engineer at Helio", fact_type="identity",
                             supersedes_id=first.id).fact
    head = service.write_fact("ana", "Staff engineer at Helio", fact_type="identity",
                              supersedes_id=mid.id).fact
    wrong = service.write_fact("ana", "Works at Globex", fact_type="identity").fact
    service.retract("ana", wrong.id, reason="never true")
    service.write_fact("bob", "Works at Parcelbird", fact_type="identity")
    c = ctx(service)
    res = execute(c, "recall_memory", {"query": "Staff engineer at Helio", "k": 1,
                                       "include_superseded": True})
    ids = [h.id for h in res.hits]
    assert ids[0] == head.id and set(ids) == {head.id, mid.id, first.id}
    assert {h.state for h in res.hits[1:]} == {"superseded"} and c.recalled_ids >= set(ids)
    plain = execute(c, "recall_memory", {"query": "Staff engineer at Helio", "k": 1})
    assert [h.id for h in plain.hits] == [head.id]  # no history asked, no versions added
