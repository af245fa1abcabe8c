"""Endings and resumptions of habits, medicines and conditions (issue 12, invariants 377-384):
something on record that stops or starts again, said in words no other reader knows, replaces
the one fact that names it; with nothing on record an ending writes nothing. Real store, real
agent; every phrasing here is new (none is a statement of a tuning set)."""

from __future__ import annotations

from datetime import date

from memory.understand.endings import names_ended
from memory.understand.statements import understand

from .agent_support import active, one_supersede, turn

TODAY = date(2026, 12, 1)


def _said(text: str) -> list[tuple[str | None, str]]:
    return [(s.text, s.rule) for s in understand(text, TODAY).statements]


# --- invariant 377: a medicine stopped --------------------------------------------------------
def test_inv377_a_medicine_came_off_replaces_the_fact_naming_it(service):
    w = one_supersede(service, "I came off the citalopram in the summer, I feel fine now.",
                      "Takes citalopram 20mg every morning", "citalopram", fact_type="constraint")
    assert w.text.startswith("No longer takes")
    one_supersede(service, "The consultant took me off bisoprolol, my heart rate is steady.",
                  "Takes bisoprolol for palpitations", "bisoprolol", fact_type="constraint")
    one_supersede(service, "I'm no longer on omeprazole.", "Takes omeprazole before breakfast",
                  fact_type="constraint")


def test_inv377_the_day_it_ended_dates_the_new_state(service):
    old = service.write_fact("ana", "Takes fluoxetine 20mg", fact_type="constraint").fact
    (w,) = turn(service, "I weaned off fluoxetine in August, it took a while.").writes()
    assert (w.op, w.old_id) == ("supersede", old.id)
    assert w.valid_from is not None and (w.valid_from.month, w.valid_from.day) == (8, 1)


def test_inv377_nothing_on_record_a_question_a_hypothetical_or_a_relative_write_nothing(service):
    assert turn(service, "I came off amitriptyline last month.").writes() == []
    service.write_fact("bo", "Takes lansoprazole daily", fact_type="constraint")
    assert turn(service, "Should I come off lansoprazole?", user="bo").writes() == []
    assert turn(service, "If the tests are fine I might come off lansoprazole.", user="bo").writes() == []
    assert turn(service, "My dad came off lansoprazole in May.", user="bo").writes() == []
    assert active(service, "bo") == ["Takes lansoprazole daily"]


def test_inv377_came_off_a_bike_is_no_medicine():
    assert _said("I came off my bike on the ice") == [] or all(
        r != "end:medicine" for _, r in _said("I came off my bike on the ice"))


# --- invariant 378: a condition cleared -------------------------------------------------------
def test_inv378_a_condition_cleared_replaces_the_fact_of_having_it(service):
    w = one_supersede(service, "The psoriasis has finally cleared up.", "Has psoriasis on both elbows",
                      "psoriasis", fact_type="constraint")
    assert w.text == "No longer has psoriasis"
    one_supersede(service, "My dermatologist says the acne has completely gone.", "Has acne",
                  fact_type="constraint")
    one_supersede(service, "I'm free of sciatica at last.", "Has sciatica down the left leg",
                  fact_type="constraint")


def test_inv378_an_allergy_gone_replaces_only_the_allergy(service):
    old = service.write_fact("ana", "Is allergic to dogs", fact_type="constraint").fact
    service.write_fact("ana", "Has a dog called Pip")
    (w,) = turn(service, "The dog allergy has gone away after the injections.").writes()
    assert (w.op, w.old_id) == ("supersede", old.id)
    assert "Has a dog called Pip" in active(service)


def test_inv378_normal_blood_pressure_and_a_medicine_stopped_are_one_change(service):
    old = service.write_fact("ana", "Has hypertension and takes losartan", fact_type="constraint").fact
    (w,) = turn(service, "My blood pressure is back to normal, so the doctor stopped the losartan.").writes()
    assert (w.op, w.old_id) == ("supersede", old.id)
    assert "losartan" in w.text and "normal" in w.text


def test_inv378_someone_elses_condition_or_none_on_record_writes_nothing(service):
    service.write_fact("ana", "Has eczema", fact_type="constraint")
    assert turn(service, "My daughter's eczema has cleared up.").writes() == []
    assert turn(service, "Has the eczema cleared up?").writes() == []
    assert turn(service, "The gout has gone.", user="bo").writes() == []


# --- invariant 379: a tool, an app, a shop removed --------------------------------------------
def test_inv379_an_app_or_automation_removed_replaces_the_fact_naming_it(service):
    w = one_supersede(service, "Uninstalled Rectangle, the built-in tiling is enough.",
                      "Uses Rectangle to snap windows on the Mac", fact_type="preference")
    assert w.text == "No longer uses Rectangle"
    one_supersede(service, "The porch light automation is gone, it kept waking the baby.",
                  "An automation turns the porch light on at sunset")
    one_supersede(service, "I've shut down the Shopify jewellery store.",
                  "Sells jewellery on Shopify at weekends")


def test_inv379_a_household_service_stopped(service):
    one_supersede(service, "We've cancelled the Oddbox deliveries.", "Gets an Oddbox veg box every Friday")


def test_inv379_nothing_naming_it_on_record_writes_nothing(service):
    service.write_fact("ana", "Uses Raycast as a launcher")
    assert turn(service, "Uninstalled Alfred.").writes() == []
    assert turn(service, "Should I uninstall Raycast?").writes() == []
    assert active(service) == ["Uses Raycast as a launcher"]


# --- invariant 380: a habit taken up again ----------------------------------------------------
def test_inv380_started_again_replaces_the_fact_that_it_stopped(service):
    w = one_supersede(service, "I've started smoking again, only a couple at weekends.",
                      "Doesn't smoke", "weekend", fact_type="constraint")
    assert "smoking" in w.text
    one_supersede(service, "I started running again, just 5k on Sundays.", "Gave up running after a knee injury",
                  "5k", fact_type="preference")


def test_inv380_again_with_nothing_stopped_on_record_is_written_as_said(service):
    (w,) = turn(service, "I started swimming again, just lengths on Tuesdays.").writes()
    assert w.op == "write" and "swimming" in w.text
    # a fact that only shares the verb and never stopped is not replaced
    service.write_fact("bo", "Drinks oat flat whites", fact_type="preference")
    ws = turn(service, "I started drinking again, just a beer at the weekend.", user="bo").writes()
    assert all(w.op == "write" for w in ws)
    assert "Drinks oat flat whites" in active(service, "bo")


def test_inv380_a_question_or_a_hope_is_no_habit(service):
    service.write_fact("ana", "Doesn't drink alcohol", fact_type="constraint")
    assert turn(service, "Should I start drinking again?").writes() == []
    assert turn(service, "I might start drinking again at Christmas.").writes() == []
    assert active(service) == ["Doesn't drink alcohol"]


# --- invariant 381: a commute taken up again --------------------------------------------------
def test_inv381_a_commute_again_replaces_the_one_for_that_season(service):
    service.write_fact("ana", "Walks to the office along the river", fact_type="preference")
    old = service.write_fact("ana", "Takes the tram in summer because the path floods", fact_type="preference").fact
    (w,) = turn(service, "I'm walking to the office again this summer, the tram is too hot.").writes()
    assert (w.op, w.old_id) == ("supersede", old.id)
    assert "Walks" in w.text and "summer" in w.text


def test_inv381_a_commute_again_replaces_the_commute_on_record(service):
    w = one_supersede(service, "I'm cycling to work again now.", "Takes the bus to work", "Cycles",
                      fact_type="preference")
    assert "work" in w.text
    assert _said("I'm cycling to work today") == [] or all(
        r != "act:commute-again" for _, r in _said("I'm cycling to work today"))


# --- invariant 382: only the one fact naming it -----------------------------------------------
def test_inv382_names_ended_wants_the_name_and_never_a_stop():
    assert names_ended("AeroSpace", "Uses AeroSpace as a tiling window manager")
    assert names_ended("Etsy candle shop", "Sells candles on Etsy as a side business")
    assert not names_ended("ramipril", "No longer takes ramipril")
    assert not names_ended("cat allergy", "Has a cat called Miso")
    assert not names_ended("sertraline", "Takes vitamin D")


def test_inv382_two_facts_naming_it_end_neither(service):
    service.write_fact("ana", "Uses the Notion app for recipes")
    service.write_fact("ana", "Uses the Notion app for work notes")
    assert turn(service, "Deleted the Notion app.").writes() == []
    assert len(active(service)) == 2


# --- invariant 383: what ended named without why, an account by its name ---------------------
def test_inv383_why_it_ended_is_no_part_of_it(service):
    w = one_supersede(service, "I quit rugby after my shoulder operation.", "Plays rugby on Saturdays")
    assert w.text == "Has given up rugby"
    one_supersede(service, "I gave up the choir because of my new shifts.", "Sings in a choir on Wednesdays")


def test_inv383_an_account_closed_is_matched_by_its_name(service):
    w = one_supersede(service, "I closed my Avios account last week.",
                      "Collects Avios on BA flights")
    assert "Avios" in w.text
    # the name alone in two facts: neither is ended
    service.write_fact("bo", "Collects Avios on BA flights")
    service.write_fact("bo", "Pays with an Avios credit card")
    assert all(w.op != "supersede" for w in turn(service, "I closed my Avios account.", user="bo").writes())


# --- invariant 384: a medicine taken again ----------------------------------------------------
def test_inv384_back_on_a_medicine_replaces_the_stop(service):
    w = one_supersede(service, "I'm back on sertraline, the winter is hard.", "No longer takes sertraline",
                      "sertraline", fact_type="constraint")
    assert w.text.startswith("Takes")
    one_supersede(service, "My GP put me back on propranolol.", "Stopped propranolol in the spring",
                  "propranolol", fact_type="constraint")


def test_inv384_back_on_with_nothing_stopped_is_a_medicine_taken(service):
    (w,) = turn(service, "I'm back on metformin.").writes()
    assert w.op == "write" and "metformin" in w.text
    assert turn(service, "Should I go back on metformin?", user="bo").writes() == []
    assert turn(service, "My mum is back on metformin.", user="cy").writes() == []


def test_inv381_a_commute_instead_of_another_replaces_the_one_naming_it(service):
    service.write_fact("ana", "Drives to the gym on Saturdays", fact_type="preference")
    old = service.write_fact("ana", "Takes the number 12 bus to work", fact_type="preference").fact
    (w,) = turn(service, "Ever since the new path opened I've been walking to work along the canal "
                         "instead of getting the bus.").writes()
    assert (w.op, w.old_id) == ("supersede", old.id)
    assert w.text == "Walks to work along the canal"


def test_inv379_what_does_the_job_now_stays_with_the_ending(service):
    w = one_supersede(service, "We stopped the Dropbox syncing, Syncthing copies the photos to the NAS now.",
                      "Photos sync to Dropbox every night", "Syncthing")
    assert w.text.startswith("Has stopped the Dropbox")
    # "I'm ... now" beside it is the user's own news, not what does the job
    old = service.write_fact("bo", "Gets a Riverford veg box every week").fact
    ws = [w for w in turn(service, "We've cancelled the Riverford boxes, I'm shopping at the market now.",
                          user="bo").writes() if w.op == "supersede"]
    assert [(w.old_id, "market" in (w.text or "")) for w in ws] == [(old.id, False)]


def test_inv378_a_diet_or_a_treatment_over_replaces_the_fact_of_it(service):
    one_supersede(service, "Paleo's over, I'm eating normally again.", "Follows a paleo diet",
                  fact_type="constraint")
    one_supersede(service, "The chemo is finally finished!", "Has chemo every three weeks at the Royal Marsden",
                  fact_type="constraint")
    assert turn(service, "Dinner's done.", user="bo").writes() == []
    assert turn(service, "The keto diet is over.", user="cy").writes() == []  # nothing on record


def test_inv380_a_dislike_ended_replaces_the_dislike_naming_it(service):
    w = one_supersede(service, "I've come round to olives, my partner's tapenade did it.", "Dislikes olives",
                      "olives", fact_type="preference")
    assert w.text == "Likes olives"
    one_supersede(service, "Coriander has grown on me.", "Can't stand coriander", "coriander",
                  fact_type="preference")
    # a fact naming it that is no dislike is never replaced
    service.write_fact("bo", "Grows olives on the allotment")
    assert all(w.op != "supersede" for w in turn(service, "I've come round to olives.", user="bo").writes())
    assert "Grows olives on the allotment" in active(service, "bo")
    assert turn(service, "Have you come round to olives?", user="cy").writes() == []


def test_inv377_stopped_taking_and_a_class_of_medicine(service):
    one_supersede(service, "Stopped taking my levothyroxine in the spring.", "Takes levothyroxine 75mcg",
                  "levothyroxine", fact_type="constraint")
    one_supersede(service, "I'm off the steroids now, finally.", "Takes steroids for the flare-up",
                  fact_type="constraint")
    # a class word never ends a named medicine it does not name
    service.write_fact("bo", "Takes atorvastatin 20mg", fact_type="constraint")
    assert turn(service, "I'm off the statins now.", user="bo").writes() == []


def test_inv383_no_more_for_me_gives_up_the_one_named(service):
    w = one_supersede(service, "No more squash for me, my knees have had it.", "Plays squash on Tuesdays")
    assert w.text == "Has given up squash"
    assert turn(service, "No more excuses for me.", user="bo").writes() == []
    assert turn(service, "No more yoga for me?", user="cy").writes() == []


def test_inv379_a_person_or_a_pause_is_no_tool_removed(service):
    service.write_fact("ana", "Partner is Tom")
    service.write_fact("ana", "Uses Alexa for the shopping list")
    assert turn(service, "Deleted Tom from my contacts after the row.").writes() == []
    assert turn(service, "Turned off Alexa for the night.").writes() == []
    assert turn(service, "No more Tom for me.").writes() == []
    assert active(service) == ["Partner is Tom", "Uses Alexa for the shopping list"]


def test_inv380_coming_round_to_an_idea_is_no_liking(service):
    service.write_fact("ana", "Dislikes the idea of a smart meter", fact_type="preference")
    assert turn(service, "I've come round to the idea.").writes() == []
    assert turn(service, "I've come round to Tom's way of thinking.").writes() == []


def test_inv378_a_condition_gone_and_its_medicine_stopped_are_one_change(service):
    old = service.write_fact("ana", "Has hay fever every June", fact_type="constraint").fact
    (w,) = turn(service, "The hay fever has gone since the move, so the GP took me off the antihistamines.").writes()
    assert (w.op, w.old_id) == ("supersede", old.id)
    assert "hay fever" in w.text and "antihistamines" in w.text
    # the condition and the medicine in two facts: neither is guessed
    service.write_fact("bo", "Has hay fever", fact_type="constraint")
    service.write_fact("bo", "Takes antihistamines in summer", fact_type="constraint")
    assert turn(service, "The hay fever has gone, and the GP took me off the antihistamines.",
                user="bo").writes() == []
