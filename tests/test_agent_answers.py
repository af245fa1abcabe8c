"""Offline answers to questions about the user's belongings (invariant 171)."""

from __future__ import annotations

import pytest

from memory.agents.answers import _belongings_q
from memory.models import FactState

from .test_agent_turn import active, turn


@pytest.fixture
def owner(service):
    service.write_fact("ana", "Has a Roborock S8 robot vacuum")
    service.write_fact("ana", "Has twelve Philips Hue bulbs")
    service.write_fact("ana", "Owns a Eufy indoor camera")
    service.write_fact("ana", "Has a whippet called Juno")
    service.write_fact("ana", "Prefers to buy Matter devices so she is never tied to one app",
                       fact_type="preference")
    service.write_fact("ana", "The smart meter's display device feeds usage into the dashboard")
    service.write_fact("ana", "Her sister Ola got her into gardening", fact_type="identity")
    return service


@pytest.mark.parametrize("q", ["What devices do I have?", "which gadgets have I got?",
                               "list my devices", "what tech do I own?"])
def test_inv171_a_category_question_lists_the_things_had(owner, q):
    reply = turn(owner, q).reply
    assert "Roborock" in reply and "Hue bulbs" in reply and "Eufy" in reply
    # A preference or a sentence that merely says "device" is not a device the user has; a pet
    # is not a gadget; "got" in a relative's fact is not possession.
    assert "Matter" not in reply and "smart meter" not in reply
    assert "whippet" not in reply and "Ola" not in reply


def test_inv171_stuff_includes_pets_and_a_named_kind_keeps_the_best_answer(owner):
    assert "whippet" in turn(owner, "what stuff do I have?").reply
    reply = turn(owner, "What camera do I have?").reply
    assert "Eufy" in reply and "Roborock" not in reply  # invariant 186 still picks the best


def test_inv171_have_i_got_is_the_present_not_history():
    assert _belongings_q("what have I got?") and _belongings_q("show me my smart home gear")
    assert not _belongings_q("where did I work?")


def test_inv76_a_value_waiting_for_review_is_never_claimed_as_on_record(service):
    turn(service, "I live in Bristol")
    turn(service, "I never lived in Bristol, that was my sister")
    first = turn(service, "I live in Bristol")
    assert [w.status for w in first.writes()] == ["review"]
    again = turn(service, "I moved to Bristol last week")
    assert [w.status for w in again.writes()] == ["duplicate"]
    assert "waiting in the review queue" in again.reply and "already have" not in again.reply
    assert "Bristol" not in turn(service, "where do I live?").reply






def test_a_labelled_fact_is_said_as_a_sentence_to_the_user(service):
    service.write_fact("ana", "Coffee order: flat white with oat milk", fact_type="preference")
    service.write_fact("ana", "Banks with Revolut", fact_type="preference")
    assert "your coffee order is flat white" in turn(service, "what's my coffee order?").reply
    assert "you bank with Revolut" in turn(service, "which bank do I bank with?").reply






def test_not_having_something_without_a_cue_is_not_a_denial(service):
    service.write_fact("ana", "Has a Roborock S8 robot vacuum")
    assert turn(service, "I don't have the Roborock with me today").writes() == []




@pytest.mark.parametrize("said", ["my passport expires soon", "my visa runs out next year"])
def test_a_document_with_no_date_to_keep_writes_nothing(service, said):
    service.write_fact("ana", "Her passport expires on March 3, 2027")
    assert turn(service, said).writes() == []






def test_inv171_devices_are_things_held_named_or_used_not_statuses_or_vaccines(service):
    service.write_fact("ana", "Has had the yellow fever vaccine; the certificate is in her folder")
    service.write_fact("ana", "Has Senator status with Miles & More")
    service.write_fact("ana", "Uses an Airalo eSIM outside the EU on a Pixel 8")
    service.write_fact("ana", "Her work laptop is a MacBook Pro M3")
    service.write_fact("ana", "The camera must only record when the flat is empty",
                       fact_type="constraint")
    reply = turn(service, "what devices do I have?").reply
    assert "Pixel 8" in reply and "MacBook" in reply
    assert "vaccine" not in reply and "Senator" not in reply and "record when" not in reply


def test_inv171_nothing_had_is_no_answer_not_the_nearest_fact(service):
    service.write_fact("ana", "Prefers to buy Matter devices so she is never tied to one app",
                       fact_type="preference")
    assert "Matter" not in turn(service, "what gadgets do I own?").reply


@pytest.mark.parametrize("q", ["What do you know about me?", "tell me about myself", "who am I?",
                               "what have I told you so far?"])
def test_inv186_what_do_you_know_about_me_is_answered_from_core_memory(service, q):
    service.write_fact("ana", "Her name is Ana", fact_type="identity")
    service.write_fact("ana", "Lives in Porto", fact_type="identity")
    service.write_fact("ana", "Has a severe peanut allergy", fact_type="constraint")
    reply = turn(service, q).reply
    assert reply.startswith("Here's what I know about you: your name is Ana")
    assert "you live in Porto" in reply and "peanut allergy" in reply


def test_inv186_a_new_user_is_told_nothing_is_on_record_and_a_relative_is_not_me(service):
    assert turn(service, "what do you know about me?").reply == \
        "I don't have anything on record about you yet."
    service.write_fact("ana", "Her sister Ola lives in Gdańsk", fact_type="identity")
    service.write_fact("ana", "Lives in Porto", fact_type="identity")
    reply = turn(service, "What do you know about my sister?").reply
    assert "Gdańsk" in reply and "Porto" not in reply




def test_inv171_a_kind_asked_is_answered_by_that_kind_held_or_nothing(service):
    service.write_fact("ana", "A Flow turns the kettle plug on when her phone alarm goes off")
    service.write_fact("ana", "Has a Roborock S8 robot vacuum")
    assert turn(service, "what phone have I got?").reply == \
        "I don't have anything on record about that yet."
    assert "Roborock" not in turn(service, "what pets do I have?").reply
    service.write_fact("ana", "Uses an Airalo eSIM on a Pixel 8")
    assert "Pixel 8" in turn(service, "what phone do I have?").reply






def test_a_prescribers_switch_replaces_the_medication(service):
    old = service.write_fact("ana", "Takes metformin twice a day", fact_type="constraint").fact
    [w] = turn(service, "My doctor switched me from metformin to Ozempic").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Takes Ozempic")
    assert "Ozempic" in turn(service, "what medication do I take?").reply








@pytest.mark.parametrize("said", ["I moved to a new team", "I joined the pub quiz team",
                                  "our team lunch is on Friday"])
def test_no_team_named_or_a_hobby_team_is_not_a_work_team(service, said):
    assert all(not (w.text or "").startswith("Works on") for w in turn(service, said).writes())






def test_inv219_a_write_the_write_path_holds_is_reported_as_waiting(service):
    from datetime import UTC, datetime

    from memory.agents import ToolRunner
    from memory.tools import ToolContext
    from memory.trace import TurnTrace

    now = datetime(2026, 12, 1, tzinfo=UTC)
    ep = service.write_episode("ana", "x")
    old = service.write_fact("ana", "Is allergic to peanuts and shellfish", fact_type="constraint").fact
    runner = ToolRunner(ToolContext(service=service, user_id="ana", episode_id=ep.id),
                        TurnTrace(turn_id="t", user_id="ana", session_id="s", message="x",
                                  started_at=now, today=now.date()))
    runner.begin_step()
    runner.call("recall_memory", {"query": "allergic peanuts shellfish"})
    # A harsh correction that nearly restates the value it retracts is held (invariant 62):
    res = runner.call("write_memory", {"kind": "fact", "text": "Is allergic to peanuts",
                                       "fact_type": "constraint", "supersedes_id": old.id,
                                       "contradiction": "harsh"})
    assert [w.status for w in res.writes] == ["review"]
    assert active(service) == ["Is allergic to peanuts and shellfish"]












def test_inv534_a_plan_moved_without_a_date_or_a_thing_moved_is_never_believed(service):
    # (was invariant 247, retired) an operator may see them as candidates; nothing is active
    trip = service.write_fact("ana", "Going to Japan from 3 to 17 April").fact
    for said in ("I postponed the Japan trip indefinitely", "we moved the sofa to the bedroom"):
        assert all(w.status == "review" for w in turn(service, said).writes())
    assert [f.id for f in service.facts("ana") if f.state == FactState.ACTIVE] == [trip.id]


