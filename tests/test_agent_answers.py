"""Offline answers to questions about the user's belongings (invariant 171)."""

from __future__ import annotations

import pytest

from memory.agents.answers import _belongings_q

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


def test_inv214_a_value_waiting_for_review_is_never_claimed_as_on_record(service):
    turn(service, "I live in Bristol")
    turn(service, "I never lived in Bristol, that was my sister")
    first = turn(service, "I live in Bristol")
    assert [w.status for w in first.writes()] == ["review"]
    again = turn(service, "I moved to Bristol last week")
    assert [w.status for w in again.writes()] == ["duplicate"]
    assert "waiting in the review queue" in again.reply and "already have" not in again.reply
    assert "Bristol" not in turn(service, "where do I live?").reply


def test_home_is_in_a_place_is_where_the_user_lives(service):
    t = turn(service, "my home is in Bristol, BS7")
    assert [w.text for w in t.writes()] == ["Lives in Bristol"]


def test_inv215_switching_back_to_a_value_the_fact_names_beside_a_rival_replaces_it(service):
    service.write_fact("ana", "Main editor is Zed; Neovim only on servers", fact_type="preference")
    t = turn(service, "I switched from Helix back to Neovim this week")
    [w] = t.writes()
    assert w.op == "supersede" and w.text == "Main editor is Neovim" and "back" not in w.text
    assert "Neovim" in turn(service, "what editor do I use?").reply
    # The same value alone is still already known.
    again = turn(service, "I switched to Neovim")
    assert again.writes() == [] and "already have" in again.reply


def test_a_labelled_fact_is_said_as_a_sentence_to_the_user(service):
    service.write_fact("ana", "Coffee order: flat white with oat milk", fact_type="preference")
    service.write_fact("ana", "Banks with Revolut", fact_type="preference")
    assert "your coffee order is flat white" in turn(service, "what's my coffee order?").reply
    assert "you bank with Revolut" in turn(service, "which bank do I bank with?").reply


@pytest.mark.parametrize("said", ["Actually I don't have the Roborock, that was my neighbour's",
                                  "I don't have that Roborock, it belongs to my sister"])
def test_inv230_not_having_something_that_is_someone_elses_retracts_having_it(service, said):
    had = service.write_fact("ana", "Has a Roborock S8 robot vacuum").fact
    rule = service.write_fact("ana", "The Roborock only runs when nobody is home",
                              fact_type="constraint").fact
    [w] = turn(service, said).writes()
    assert w.op == "retract" and w.old_id == had.id
    assert [f.id for f in service.facts("ana", states=["active"])] == [rule.id]


def test_inv230_x_is_not_my_role_it_is_y_retracts_and_writes_the_true_value(service):
    priya = service.write_fact("ana", "Manager is Priya", fact_type="identity").fact
    t = turn(service, "Actually Priya isn't my manager, I misspoke, it's Preeti")
    [w] = t.writes()
    assert w.op == "retract" and w.old_id == priya.id and w.text == "Manager is Preeti"
    assert "Preeti" in turn(service, "who's my manager?").reply


def test_inv230_not_having_something_without_a_cue_is_not_a_denial(service):
    service.write_fact("ana", "Has a Roborock S8 robot vacuum")
    assert turn(service, "I don't have the Roborock with me today").writes() == []


@pytest.mark.parametrize("said, value", [
    ("I got my new passport today, it's valid until 2036", "Passport expires in 2036"),
    ("my passport now expires on 4 may 2036", "Passport expires on 4 May 2036"),
    ("I renewed my passport. It expires in June 2036", "Passport expires in June 2036")])
def test_inv232_a_renewed_document_replaces_the_one_on_record(service, said, value):
    old = service.write_fact("ana", "Her passport expires on March 3, 2027").fact
    service.write_fact("ana", "Passport renewal appointment at the embassy on December 2")
    [w] = turn(service, said).writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, value)
    assert "your passport expires" in turn(service, "when does my passport expire?").reply


@pytest.mark.parametrize("said", ["my passport expires soon", "my visa runs out next year"])
def test_inv232_a_document_with_no_date_to_keep_writes_nothing(service, said):
    service.write_fact("ana", "Her passport expires on March 3, 2027")
    assert turn(service, said).writes() == []


def test_inv232_a_corrected_expiry_is_a_retraction_not_a_renewal(service):
    esta = service.write_fact("ana", "Her ESTA is valid until May 20, 2027").fact
    [w] = turn(service, "My ESTA is valid until 2028, not 2027, I misread it").writes()
    assert (w.op, w.old_id) == ("retract", esta.id) and "2028" in w.text


@pytest.mark.parametrize("said", ["My ESTA expires in May 2028", "I moved to Leeds in May",
                                  "Started at Acme on 3 May"])
def test_inv231_may_the_month_is_not_may_the_modal(service, said):
    assert turn(service, said).writes(), said
    assert turn(service, "We may get a dog next year").writes() == []


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
def test_inv239_what_do_you_know_about_me_is_answered_from_core_memory(service, q):
    service.write_fact("ana", "Her name is Ana", fact_type="identity")
    service.write_fact("ana", "Lives in Porto", fact_type="identity")
    service.write_fact("ana", "Has a severe peanut allergy", fact_type="constraint")
    reply = turn(service, q).reply
    assert reply.startswith("Here's what I know about you: your name is Ana")
    assert "you live in Porto" in reply and "peanut allergy" in reply


def test_inv239_a_new_user_is_told_nothing_is_on_record_and_a_relative_is_not_me(service):
    assert turn(service, "what do you know about me?").reply == \
        "I don't have anything on record about you yet."
    service.write_fact("ana", "Her sister Ola lives in Gdańsk", fact_type="identity")
    service.write_fact("ana", "Lives in Porto", fact_type="identity")
    reply = turn(service, "What do you know about my sister?").reply
    assert "Gdańsk" in reply and "Porto" not in reply


@pytest.mark.parametrize("said, value", [
    ("I just got a job at Lloyds as a data analyst", "Works as a data analyst at Lloyds"),
    ("I joined Monzo as a backend engineer", "Works as a backend engineer at Monzo"),
    ("I joined Acme as a result of the merger", "Works at Acme")])
def test_inv240_a_new_job_keeps_the_role_said_after_the_employer(service, said, value):
    old = service.write_fact("ana", "Works as a pharmacist at Boots in Leeds", fact_type="identity").fact
    [w] = turn(service, said).writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, value)


def test_inv241_a_kind_asked_is_answered_by_that_kind_held_or_nothing(service):
    service.write_fact("ana", "A Flow turns the kettle plug on when her phone alarm goes off")
    service.write_fact("ana", "Has a Roborock S8 robot vacuum")
    assert turn(service, "what phone have I got?").reply == \
        "I don't have anything on record about that yet."
    assert "Roborock" not in turn(service, "what pets do I have?").reply
    service.write_fact("ana", "Uses an Airalo eSIM on a Pixel 8")
    assert "Pixel 8" in turn(service, "what phone do I have?").reply


def test_inv241_one_common_word_in_a_long_fact_is_not_already_known(service):
    service.write_fact("ana", "Biscuit sleeps in his crate in the hallway, so the hallway light at "
                              "night must be dim")
    t = turn(service, "I'm doing nights again from January")
    assert "already have" not in t.reply and [w.status for w in t.writes()] == ["applied"]


def test_inv230_a_denial_with_a_remark_between_still_writes_the_true_value(service):
    job = service.write_fact("ana", "Works as a staff engineer at Monzo", fact_type="identity").fact
    [w] = turn(service, "Actually I never worked at Monzo, that was a typo, it's Mondo").writes()
    assert (w.op, w.old_id, w.text) == ("retract", job.id, "Works at Mondo")


def test_inv242_a_prescribers_switch_replaces_the_medication(service):
    old = service.write_fact("ana", "Takes metformin twice a day", fact_type="constraint").fact
    [w] = turn(service, "My doctor switched me from metformin to Ozempic").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Takes Ozempic")
    assert "Ozempic" in turn(service, "what medication do I take?").reply


def test_inv242_someone_elses_switch_is_not_the_users_medication(service):
    old = service.write_fact("ana", "Takes metformin twice a day", fact_type="constraint").fact
    writes = turn(service, "My sister switched from metformin to insulin").writes()
    assert all(w.old_id != old.id for w in writes)


def test_inv243_name_first_roles_and_use_as_read_with_the_role_leading(service):
    old = service.write_fact("ana", "Manager is Oksana", fact_type="identity").fact
    service.write_fact("ana", "Eats fish", fact_type="preference")
    [w] = turn(service, "Oksana left, Tomás is my manager now").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Manager is Tomás")
    t = turn(service, "I use fish as my shell")  # not "already have that: you eat fish"
    assert [w.text for w in t.writes()] == ["Shell is fish"]
    assert "your shell is fish" in turn(service, "what shell do I use?").reply
    assert [w.text for w in turn(service, "I moved to Leeds, Jo is my mentor now").writes()] == \
        ["Lives in Leeds", "Mentor is Jo"]


@pytest.mark.parametrize("said, value", [
    ("I moved to the payments team last week", "Works on the payments team"),
    ("I'm on the data platform team now", "Works on the data platform team")])
def test_inv244_a_team_the_user_moved_to_is_written(service, said, value):
    assert [w.text for w in turn(service, said).writes()] == [value]


@pytest.mark.parametrize("said", ["I moved to a new team", "I joined the pub quiz team",
                                  "our team lunch is on Friday"])
def test_inv244_no_team_named_or_a_hobby_team_is_not_a_work_team(service, said):
    assert all(not (w.text or "").startswith("Works on") for w in turn(service, said).writes())


def test_inv245_denying_one_item_of_a_list_keeps_the_rest_in_force(service):
    both = service.write_fact("ana", "Is allergic to peanuts and shellfish", fact_type="constraint").fact
    t = turn(service, "I'm not allergic to shellfish, the test was a false positive")
    [w] = t.writes()
    assert (w.op, w.status, w.old_id, w.text) == ("supersede", "applied", both.id,
                                                  "Is allergic to peanuts")
    assert active(service) == ["Is allergic to peanuts"]
    assert "peanuts" in turn(service, "what am I allergic to?").reply




def test_inv245_a_write_the_write_path_holds_is_reported_as_waiting(service):
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


def test_inv232_a_value_that_says_its_date_is_not_dated_again_in_the_reply(service):
    service.write_fact("ana", "Her ESTA is valid until May 20, 2027")
    t = turn(service, "My ESTA now runs out on 20 May 2028")
    assert "ESTA expires on 20 May 2028" in t.reply and "(until" not in t.reply


def test_inv245_a_false_alarm_on_one_item_keeps_the_others(service):
    service.write_fact("ana", "Is allergic to peanuts and shellfish", fact_type="constraint")
    t = turn(service, "my shellfish allergy turned out to be a false alarm")
    assert [w.text for w in t.writes()] == ["Is allergic to peanuts"]
    assert "the shellfish allergy off your record" in t.reply


@pytest.mark.parametrize("said, value", [
    ("I got gold status with BA this year", "Has Gold status with BA"),
    ("I made Senator status on Miles & More", "Has Senator status with Miles & More")])
def test_inv246_a_loyalty_status_is_written(service, said, value):
    assert [w.text for w in turn(service, said).writes()] == [value]


def test_inv246_a_status_that_changed_replaces_the_tier_on_record(service):
    old = service.write_fact("ana", "Has Senator status with Miles & More").fact
    [w] = turn(service, "my Miles & More status dropped to Frequent Traveller").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id,
                                        "Has Frequent Traveller status with Miles & More")


@pytest.mark.parametrize("said", ["the Japan trip is off, we postponed it to October",
                                  "we postponed the Japan trip to October"])
def test_inv247_a_postponed_plan_keeps_its_words_with_the_new_date(service, said):
    old = service.write_fact("ana", "Going to Japan from 3 to 17 April").fact
    [w] = turn(service, said).writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Going to Japan in October 2025")
    assert str(w.valid_from) == "2025-10-01"  # the tests' clock: 1 June 2025


def test_inv247_a_plan_moved_without_a_date_or_a_thing_moved_is_no_reschedule(service):
    service.write_fact("ana", "Going to Japan from 3 to 17 April")
    assert turn(service, "I postponed the Japan trip indefinitely").writes() == []
    assert turn(service, "we moved the sofa to the bedroom").writes() == []


