"""Offline answers to questions a user asks in their own words (issue 12):
question shapes (invariant 186), what stopped being true (224), dates (225), past scope (226),
the thing asked on record at all (227), relatives and pets (228)."""

from __future__ import annotations

from datetime import date

import pytest

from memory.agents.answers import _asks, _correct, _defines, _english, _near

from .test_agent_turn import turn

TODAY = date(2025, 6, 1)








def test_inv186_a_routine_question_is_answered_by_the_routine(service):
    service.write_playbook("ana", "Bleed the radiators", "when the boiler loses pressure",
                           ["Top the pressure up to 1.5 bar at the filling loop",
                            "Bleed the radiators upstairs first"])
    service.write_fact("ana", "Has a Worcester combi boiler in the kitchen")
    reply = turn(service, "The boiler lost pressure again, what do I usually do?").reply
    assert "filling loop" in reply and "1.5 bar" in reply
    # a job question is not a routine question
    service.write_fact("ana", "Works as a florist at Petal & Stem", fact_type="identity")
    assert "florist" in turn(service, "what do I do for a living?").reply


def test_inv186_a_routine_is_said_to_the_user():
    from memory.answering.speak import to_you
    assert to_you("when a courier misses one of her parcels") == \
        "when a courier misses one of your parcels"


def test_inv186_a_misspelt_word_reads_as_the_word_the_memories_spell():
    class H:
        def __init__(self, text):
            self.text = text
    hits = [H("Types on a Keychron mechanical keyboard"), H("Uses a Logitech trackball")]
    assert _correct("what keybaord do I use?", hits) == "what keyboard do I use?"
    assert _correct("which trakball have I got", hits) == "which trackball have I got"
    # a word the memories spell, a short word, or two candidates: left alone
    assert _correct("what keyboard do I use?", hits) == "what keyboard do I use?"
    assert _correct("my mose?", hits) == "my mose?"
    assert _near("asistant", "assistant") and _near("keybaord", "keyboard")
    assert not _near("keyboard", "keyboard") and not _near("lamp", "lamps1x")


def test_inv186_a_misspelt_question_is_answered(service):
    service.write_fact("ana", "Types on a Keychron mechanical keyboard")
    assert "Keychron" in turn(service, "what keybaord do I type on").reply


def test_inv186_two_asks_in_one_question_are_two_questions(service):
    assert _asks("which phone and which tablet do I use?") == [
        "which phone do I use?", "which tablet do I use?"]
    assert _asks("so remind me what bank and what broadband I have?") == [
        "so remind me what bank I have?", "what broadband I have?"]
    assert _asks("what do I eat and drink?") == ["what do I eat and drink?"]
    service.write_fact("ana", "Uses the zsh shell", fact_type="preference")
    service.write_fact("ana", "Main editor is Helix", fact_type="preference")
    reply = turn(service, "new laptop, remind me which editor and which shell I use?").reply
    assert "Helix" in reply and "zsh" in reply


def test_inv186_a_question_in_another_language_reads_through_the_glossary(service):
    assert _english("wo wohne ich jetzt?") == "where live I now?"
    assert _english("quando expira o meu passaporte?") == "when expires my passport?"
    assert _english("¿dónde trabajo ahora?") == "where work now?"
    assert _english("what is my coffee order?") == "what is my coffee order?"  # English
    assert _english("wo ist das Wochenendhaus am See mit dem Boot?") == \
        "wo ist das Wochenendhaus am See mit dem Boot?"  # mostly unknown words: left alone
    service.write_fact("ana", "Lives in Gracia, Barcelona", fact_type="identity")
    assert "Barcelona" in turn(service, "où j'habite maintenant?").reply


def test_inv186_a_value_is_the_asked_things_when_its_subject_ends_on_it():
    assert _defines("Main editor is Zed", {"editor"})
    assert not _defines("Her 2027 travel budget is capped at 80 flights", {"travel"})
    assert _defines("Her 2027 travel budget is capped at 80 flights", {"budget"})


# --- invariant 189: what stopped being true --------------------------------------------------
@pytest.fixture
def changed(service):
    old = service.write_fact("ana", "Works late shifts, 2pm to 11pm", fact_type="constraint").fact
    service.write_fact("ana", "Works early shifts only, 6am to 2pm", fact_type="constraint",
                       supersedes_id=old.id)
    service.write_fact("ana", "The cat is never fed late at night")
    car = service.write_fact("ana", "Her car is a Renault Zoe").fact
    service.write_fact("ana", "Her car is a Kia Niro", supersedes_id=car.id)
    return service


def test_inv189_still_asks_whether_it_stopped_and_a_replaced_value_is_a_no(changed):
    reply = turn(changed, "do I still work late shifts?").reply
    assert reply.startswith("No:") and "early shifts" in reply and "you worked late" in reply
    reply = turn(changed, "is the Zoe still my car?").reply
    assert reply.startswith("No:") and "Kia Niro" in reply


def test_inv189_still_holding_is_a_yes(changed):
    assert turn(changed, "do I still work early shifts?").reply.startswith("Yes")
    assert turn(changed, "is my car still the Kia?").reply.startswith("Yes")


def test_inv189_a_word_said_another_way_is_held_but_never_a_rival_value(service):
    service.write_fact("ana", "Has had the tetanus vaccine; the card is in her wallet")
    service.write_fact("ana", "Is pescatarian", fact_type="constraint")
    assert turn(service, "have I had the tetanus jab?").reply.startswith("Yes")
    assert not turn(service, "am I vegetarian?").reply.startswith("Yes")


# --- invariant 188: dates -------------------------------------------------------------------
def test_inv188_the_asked_days():
    from memory.agents.answers import _window
    tue = date(2025, 6, 3)  # a Tuesday
    assert _window("anything on tomorrow?", tue) == (date(2025, 6, 4), date(2025, 6, 4))
    assert _window("what have I got planned this weekend?", tue) == (date(2025, 6, 7),
                                                                     date(2025, 6, 8))
    assert _window("anything next month?", tue) == (date(2025, 7, 1), date(2025, 7, 31))
    assert _window("list my trips this year", tue) == (date(2025, 1, 1), date(2025, 12, 31))
    assert _window("any trips coming up?", tue) == (tue, date.max)
    assert _window("how many flights can I take next year?", tue) is None
    assert _window("where do I live?", tue) is None


@pytest.fixture
def diary(service):
    # the service's clock says 2025-06-01
    service.write_fact("ana", "Dentist appointment in Leith on June 2",
                       valid_from=date(2025, 6, 2))
    service.write_fact("ana", "Walking holiday in the Lake District from August 4 to August 9",
                       valid_from=date(2025, 8, 4), valid_to=date(2025, 8, 9))
    service.write_fact("ana", "Conference trip to Porto from March 3 to March 6",
                       valid_from=date(2025, 3, 3), valid_to=date(2025, 3, 6))
    service.write_fact("ana", "Lives in Leith, Edinburgh", fact_type="identity",
                       valid_from=date(2025, 5, 1))
    return service


def test_inv188_what_is_on_is_the_dated_facts_meeting_those_days(diary):
    reply = turn(diary, "anything on tomorrow?").reply
    assert "dentist appointment" in reply and "Lake District" not in reply
    reply = turn(diary, "any trips coming up?").reply
    assert "Lake District" in reply and "Porto" not in reply  # Porto is over
    reply = turn(diary, "list my trips this year").reply
    assert "Porto" in reply and "Lake District" in reply
    assert reply.index("Porto") < reply.index("Lake District")  # by date
    assert "Lives" not in reply and "you live" not in reply  # a home that started is no event


def test_inv188_when_did_it_end_is_the_replaced_versions_end(service):
    old = service.write_fact("ana", "Works night shifts at the bakery", fact_type="constraint",
                             valid_to=date(2025, 3, 1)).fact
    service.write_fact("ana", "Works day shifts at the bakery", fact_type="constraint",
                       supersedes_id=old.id, valid_from=date(2025, 3, 1))
    reply = turn(service, "When did my night shifts end?").reply
    assert "2025-03-01" in reply and "night shifts" in reply


# --- invariant 188: a question set in the past ----------------------------------------------
@pytest.fixture
def career(service):
    job = service.write_fact("ana", "Works at Brightwater, a water utility, in the billing team",
                             fact_type="identity").fact
    service.write_fact("ana", "Works as an analyst at Fernleaf Bank", fact_type="identity",
                       supersedes_id=job.id)
    phone = service.write_fact("ana", "Work phone is a Nokia 6310").fact
    mid = service.write_fact("ana", "Work phone is a Pixel 7", supersedes_id=phone.id).fact
    service.write_fact("ana", "Work phone is an iPhone 15", supersedes_id=mid.id)
    rota = service.write_fact("ana", "Weekend rota at Brightwater one weekend in three",
                              fact_type="constraint").fact
    service.write_fact("ana", "Weekend rota at Fernleaf one weekend in ten",
                       fact_type="constraint", supersedes_id=rota.id)
    return service


def test_inv188_a_past_place_picks_the_versions_of_that_time(career):
    reply = turn(career, "how often was I on the weekend rota at Brightwater?").reply
    assert "one weekend in three" in reply and "ten" not in reply
    assert "you were weekend rota at Brightwater" in reply  # said in the past, to the user


def test_inv188_the_first_one_is_the_oldest_version(career):
    reply = turn(career, "what was my very first work phone?").reply
    assert "Nokia" in reply and "iPhone" not in reply and "Pixel" not in reply
    assert "was a Nokia" in reply  # said in the past


def test_inv188_a_past_yes_no_keeps_the_history_rule(career):
    assert turn(career, "did I use to work at Brightwater?").reply.startswith("Yes")


# --- invariant 186: the asked thing on record at all ----------------------------------------
def test_inv186_a_home_or_work_compound_needs_its_own_thing(service):
    from memory.agents.answers import _head_noun
    service.write_fact("ana", "The heating only comes on when someone is home")
    service.write_fact("ana", "Work laptop is a Dell XPS 13")
    reply = turn(service, "what's my home gym?").reply
    assert "heating" not in reply and "don't have anything on record" in reply
    assert "Dell" in turn(service, "what's my work laptop?").reply
    assert _head_noun("what's my home gym?") == "gym"
    assert _head_noun("what smart home hub do I have?") is None
    assert _head_noun("how do I get to work?") is None


# --- invariant 180: relatives and pets ------------------------------------------------------
def test_inv180_the_relative_now_not_a_past_one(service):
    service.write_fact("ana", "Her manager at Corvid Labs was Hugo", fact_type="identity")
    service.write_fact("ana", "Her manager at Tessel is Dana, formerly a product lead",
                       fact_type="identity")
    reply = turn(service, "who's my boss?").reply
    assert "Dana" in reply and "Hugo" not in reply


def test_inv180_a_pets_name_in_lower_case_still_names_it(service):
    service.write_fact("ana", "Her dog Pip stays with her neighbour Rosa when she travels")
    service.write_fact("ana", "Pip is scared of thunder")
    assert "Rosa" in turn(service, "who minds pip when I'm away?").reply
    # an ordinary word that a memory happens to capitalise is no name
    service.write_fact("ana", "Backs up her photos to Google Drive")
    assert "Google" not in turn(service, "what do I drive?").reply


def test_inv188_nothing_on_then_is_said_so(diary):
    # the clock says Sunday 2025-06-01: the dentist on Monday is next week, nothing next month
    assert "dentist" in turn(diary, "anything on next week?").reply
    assert turn(diary, "anything on next month?").reply == "I have nothing on record for then."


def test_inv189_a_name_is_held_as_itself(service):
    old = service.write_fact("ana", "Her router is a Fritzbox 7590").fact
    service.write_fact("ana", "Her router is a Fritz-free Eero 6", supersedes_id=old.id)
    hub = service.write_fact("ana", "Her hub is a SmartThings v3").fact
    service.write_fact("ana", "Her hub is a Smart Life bridge", supersedes_id=hub.id)
    reply = turn(service, "do I still have the SmartThings hub?").reply
    assert reply.startswith("No:") and "Smart Life" in reply


def test_inv180_a_named_persons_question_is_not_the_users_attribute(service):
    service.write_fact("ana", "Lives in Leith, Edinburgh", fact_type="identity")
    service.write_fact("ana", "Her partner Sam works from home most days", fact_type="identity")
    reply = turn(service, "is Sam still working from home?").reply
    assert reply.startswith("Yes") and "Sam" in reply and "Leith" not in reply


def test_inv171_a_category_question_recalls_the_everyday_kinds_of_thing(service):
    for i in range(25):  # more memories saying "gear" than one search returns
        service.write_fact("ana", f"Wrote gear note {i} for the shed shelves")
    service.write_fact("ana", "Has Bose QC45 noise-cancelling headphones")
    assert "Bose" in turn(service, "what gear do I have?").reply
