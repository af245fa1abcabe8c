"""General rules learned from the persona users' misses of blind set 2 (issue 12, agent14):
switches said in other shapes (invariant 248) and more ways to deny (invariant 249). Every
phrasing here is new; none is a blind-set sentence."""

from __future__ import annotations

from memory.models import FactState
from memory.understand.switches import switches

from .agent_support import one_supersede, turn
from .conftest import NOW

# --- invariant 248: a switch said in another shape ----------------------------------------------

def test_inv248_the_shapes_are_rewritten_into_one():
    assert switches("finally binned Todoist for Things 3 on Sunday") == \
        "I switched from Todoist to Things 3 on Sunday"
    assert switches("ok fine. bash → zsh. the plugins won me over") == \
        "ok fine. I switched from bash to zsh. the plugins won me over"
    assert switches("migrated my notes off Evernote onto Obsidian last month") == \
        "I switched my notes from Evernote to Obsidian last month"
    assert switches("Testing Proton Mail instead of Gmail from now on") == \
        "I switched from Gmail to Proton Mail from now on"
    # an ending and its replacement in two clauses, in either order
    assert switches("The Kindle died on holiday. Replaced it with a Kobo Libra") == \
        "I switched from Kindle to Kobo Libra"
    assert switches("we're with Octopus now, Bulb kept failing every month") == \
        "I switched from Bulb to Octopus"
    assert switches("picked Firefox. bye Chrome, you were too hungry") == \
        "I switched from Chrome to Firefox. you were too hungry"


def test_inv248_nothing_to_pair_is_left_alone():
    for text in ["My Kindle died on holiday.",              # an ending, no replacement
                 "I'm on holiday now, back on Monday",     # no ending
                 "Sold the car and the bike.",             # two things, no new one
                 "dropped the kids at school for the trip",  # not a thing switched
                 "it's raining now, the bus kept failing",
                 "swapped the suburbs for the coast, we're in Cornwall now"]:  # a move (inv. 162)
        assert switches(text) == text, text


def test_inv248_ditched_for_replaces_the_fact_naming_the_old(service):
    one_supersede(service, "finally binned Todoist for Things 3 on Sunday",
                  "Keeps her to-do list in Todoist", "Things 3")


def test_inv248_an_arrow_replaces(service):
    one_supersede(service, "ok fine. bash → zsh. the plugins won me over",
                  "Uses the bash shell", "zsh", fact_type="preference")


def test_inv248_off_onto_replaces(service):
    one_supersede(service, "migrated the photo library off iCloud onto Immich",
                  "Photos are backed up to iCloud", "Immich")


def test_inv248_ended_then_replaced_in_another_sentence(service):
    one_supersede(service, "The Kindle died on holiday. Replaced it with a Kobo Libra, so far so good",
                  "Reads on a Kindle Paperwhite", "Kobo")


def test_inv248_now_on_new_while_the_old_kept_failing(service):
    one_supersede(service, "we're with Octopus now, Bulb kept failing every month",
                  "Energy supplier is Bulb", "Octopus")


def test_inv248_a_farewell_names_the_old(service):
    one_supersede(service, "picked Firefox. bye Chrome, you were too hungry",
                  "Browser is Chrome", "Firefox", fact_type="preference")


def test_inv248_sold_the_old_its_the_new_now(service):
    one_supersede(service, "Sold the scooter, it's the tram every day now",
                  "Rides an electric scooter to work", "tram")


def test_inv248_a_switch_never_wins_over_a_change_already_read(service):
    # the older rule reads the old thing itself (invariant 138): the rewrite stays out of it
    old = service.write_fact("ana", "Uses an iPhone 12").fact
    t = turn(service, "Ditched the iPhone, I'm on a Galaxy S24 now.")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Uses a Galaxy S24")


def test_inv248_an_ending_without_a_replacement_writes_nothing_new(service):
    service.write_fact("ana", "Reads on a Kindle Paperwhite")
    t = turn(service, "My Kindle died on holiday, so sad")
    assert all("Kobo" not in (w.text or "") and w.op != "write" for w in t.writes())


def test_inv248_a_letter_before_a_hyphen_is_no_you():
    from memory.understand.canon import canonical
    assert "U-Bahn" in canonical("it's the U-Bahn now")
    assert "you" in canonical("u ok?")


# --- invariant 249: more ways to deny -----------------------------------------------------------

def test_inv249_i_dont_run_it_with_someone_elses(service):
    old = service.write_fact("ana", "Runs a Nextcloud server at home").fact
    t = turn(service, "I don't run a Nextcloud server. That box belonged to Pieter")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("retract", old.id)


def test_inv249_not_doing_it_never_said_so(service):
    old = service.write_fact("ana", "Is learning the cello").fact
    t = turn(service, "I'm not learning the cello, never said that")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("retract", old.id)


def test_inv249_never_wanted_it_that_was_someone_else(service):
    old = service.write_fact("ana", "Wants a standing desk for the study").fact
    t = turn(service, "I never wanted a standing desk, that was Marek going on about it")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("retract", old.id)


def test_inv249_no_no_i_dont_have_it(service):
    old = service.write_fact("ana", "Has a Dutch BSN number").fact
    t = turn(service, "No no, I don't have a Dutch BSN. Still waiting on the town hall")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("retract", old.id)


def test_inv249_not_doing_it_any_more_is_no_denial(service):
    # a change, not a "never true": nothing is retracted and no tombstone is left
    old = service.write_fact("ana", "Is learning the cello").fact
    t = turn(service, "I'm not learning the cello any more, never said I'd stick with it")
    assert all(w.op != "retract" for w in t.writes())
    assert service.get_fact("ana", old.id).state != FactState.RETRACTED


def test_inv249_without_a_cue_i_dont_use_it_is_no_denial(service):
    old = service.write_fact("ana", "Runs a Nextcloud server at home").fact
    t = turn(service, "I don't run a Nextcloud server at the office")
    assert all(w.op != "retract" for w in t.writes())
    assert service.get_fact("ana", old.id).state == FactState.ACTIVE


# --- invariant 250: diagnoses said without "I", about a pet, or only suspected ------------------

def only_write(svc, text):
    t = turn(svc, text)
    (w,) = t.writes()
    assert w.op == "write", (text, w)
    return w


def test_inv250_a_diagnosis_without_a_subject(service):
    w = only_write(service, "Got diagnosed with a latex allergy last week, gloves are a nightmare")
    assert (w.status, w.text) == ("applied", "Allergic to latex")


def test_inv250_a_condition_diagnosed(service):
    w = only_write(service, "was diagnosed with sleep apnoea in the spring")
    assert (w.status, w.text) == ("applied", "Has sleep apnoea")


def test_inv250_a_pet_named_turns_out_allergic(service):
    w = only_write(service, "Pepper turned out to be allergic to salmon, the vet is sure")
    assert (w.status, w.text) == ("applied", "Pepper is allergic to salmon")


def test_inv250_a_pet_named_diagnosed(service):
    w = only_write(service, "Luna has been diagnosed with hip dysplasia, poor thing")
    assert (w.status, w.text) == ("applied", "Luna has hip dysplasia")


def test_inv250_suspected_by_the_user_waits_for_review(service):
    w = only_write(service, "I might be allergic to ibuprofen? my face swelled up once")
    assert (w.status, w.text) == ("review", "Allergic to ibuprofen")


def test_inv250_suspected_by_a_doctor_waits_for_review(service):
    w = only_write(service, "my GP thinks I might have Lyme disease, bloods next week")
    assert (w.status, w.text) == ("review", "Has Lyme disease")


def test_inv250_an_intolerance_maybe_waits_for_review(service):
    w = only_write(service, "I think I might be fructose intolerant? fruit wrecks me")
    assert (w.status, w.text) == ("review", "Is fructose intolerant")


def test_inv250_a_joke_a_question_or_someone_elses_doubt_writes_nothing(service):
    for text in ["Might be allergic to Mondays lol",
                 "Is Pepper allergic to salmon?",
                 "The doctor thinks my sister might have flu",
                 "Everyone is allergic to my cooking apparently"]:
        assert turn(service, text).writes() == [], text


# --- invariant 251: a range said without "from", a weekday said in the plural -------------------

def test_inv251_a_range_without_from():
    from datetime import date

    from memory.understand.dates import find_dates
    d = find_dates("Crete with the kids, 3 to 10 July", date(2026, 12, 1))
    assert (d.valid_from, d.valid_to) == (date(2027, 7, 3), date(2027, 7, 10))
    d = find_dates("the cabin is ours 27 until 30 December", date(2026, 12, 1))
    assert (d.valid_from, d.valid_to) == (date(2026, 12, 27), date(2026, 12, 30))
    # numbers that are no days stay no range
    assert find_dates("we paid 5 to 10 euros each", date(2026, 12, 1)).valid_from is None


def test_inv251_a_weekday_in_the_plural_is_every_week():
    from datetime import date

    from memory.understand.dates import find_dates
    d = find_dates("swimming lessons on Tuesday evenings from 12 January", date(2026, 12, 1))
    assert d.valid_from == date(2027, 1, 12)
    assert find_dates("I'll do the shop on Fridays", date(2026, 12, 1)).valid_from is None
    # one weekday is still a day
    assert find_dates("I'll do the shop on Friday", date(2026, 12, 1)).valid_from == date(2026, 12, 4)


# --- invariant 252: a trip or a course booked, said without "I" or as a name and its dates ------

def test_inv252_booked_a_place_for_an_event(service):
    w = only_write(service, "Booked Porto for the data conference, 3–5 September, TAP both ways")
    assert "Porto" in w.text and w.valid_from.isoformat() == "2025-09-03"  # NOW is 1 June 2025


def test_inv252_a_name_again_with_its_dates(service):
    w = only_write(service, "Lyon again after all: the choir festival, 12 to 14 June")
    assert "Lyon" in w.text and "choir" in w.text and w.valid_from.isoformat() == "2025-06-12"


def test_inv252_the_trip_is_booked(service):
    w = only_write(service, "the Kraków trip is booked for 2 April, can't wait")
    assert w.text == "Trip to Kraków" and w.valid_from.isoformat() == "2026-04-02"


def test_inv252_a_pet_booked_into_a_course(service):
    w = only_write(service, "booked Rex into agility classes, Sunday afternoons starting 7 September")
    assert "Rex" in w.text and "agility" in w.text and w.valid_from.isoformat() == "2025-09-07"


def test_inv252_without_a_date_to_come_nothing_is_planned(service):
    for text in ["Booked Porto for the conference, 3–5 May",
                 "Lyon again, ugh",
                 "booked myself into a yoga class for tonight"]:
        assert [w for w in turn(service, text).writes() if w.text and "Trip" in w.text] == [], text
    assert turn(service, "Lyon again, ugh").writes() == []


# --- invariant 253: promotions said with "made" or a colon; news of people with whole values ----

def test_inv253_an_employer_promoted_me_with_a_colon(service):
    old = service.write_fact("ana", "Works as a sales engineer at Vestas", fact_type="identity").fact
    t = turn(service, "Vestas promoted me: regional lead for the Nordics from 1 September")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", old.id) and "regional lead" in w.text


def test_inv253_made_a_role(service):
    old = service.write_fact("ana", "Works as a junior designer at Figma", fact_type="identity").fact
    t = turn(service, "Made senior designer yesterday!! same squad though")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", old.id) and "senior designer" in w.text


def test_inv253_made_something_else_is_no_job(service):
    service.write_fact("ana", "Works as a junior designer at Figma", fact_type="identity")
    for text in ["Made a birthday cake for my manager", "made friends with the head of design",
                 "made the team lead laugh today"]:
        assert turn(service, text).writes() == [], text


def test_inv253_a_move_from_one_place_to_another_keeps_the_new_place(service):
    old = service.write_fact("ana", "Her mum lives in Cork", fact_type="identity").fact
    t = turn(service, "My mum moved from Cork to Galway to be by the sea")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", old.id) and "Galway" in w.text


def test_inv253_someone_took_a_job_at_an_employer_said_with_an_article(service):
    old = service.write_fact("ana", "Her brother Piotr works at a bakery in Gdańsk", fact_type="identity").fact
    t = turn(service, "Piotr took a job at an architecture studio in Warsaw, he starts in March")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", old.id) and "architecture studio" in w.text
    assert (w.valid_from.month, w.valid_from > NOW.date()) == (3, True)


# --- invariant 254: a weekly thing moved to another day; a plan's new date said later; a role's
# next holder said in the future ------------------------------------------------------------------

def test_inv254_a_weekly_thing_moved_to_another_day_keeps_its_words(service):
    old = service.write_fact("ana", "Takes cello lessons on Tuesdays with Marta").fact
    t = turn(service, "Marta moved my cello lessons to Wednesdays, same studio")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Takes cello lessons on Wednesdays with Marta")


def test_inv254_the_new_date_said_in_a_later_clause(service):
    old = service.write_fact("ana", "Car MOT is on 20 June").fact
    t = turn(service, "MOT got moved, the garage phoned: it's 2 July now")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", old.id) and "July" in w.text
    assert w.valid_from.isoformat() == "2025-07-02"


def test_inv254_a_role_said_in_the_future(service):
    old = service.write_fact("ana", "Her team lead is Jonas", fact_type="identity").fact
    t = turn(service, "Jonas is off to Zurich in spring, and my new team lead will be Priya from payments")
    writes = [w for w in t.writes() if w.old_id == old.id]
    assert len(writes) == 1 and "Priya" in writes[0].text


def test_inv254_moved_without_a_day_or_a_date_is_nothing(service):
    service.write_fact("ana", "Takes cello lessons on Tuesdays with Marta")
    for text in ["I moved the cello to the spare room",
                 "my flight got moved, now I'm sad",
                 "my new flat will be Great"]:
        assert turn(service, text).writes() == [], text


# --- invariant 255: "instead" joins a habit to the one given up; "a new one"; "since the start of"

def test_inv255_instead_makes_a_new_habit_replace_the_one_given_up(service):
    old = service.write_fact("ana", "Plays squash twice a week").fact
    t = turn(service, "Quit squash because of my back, I row on the canal on Sundays instead")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", old.id) and "Rows" in w.text


def test_inv255_without_instead_a_new_habit_is_its_own_fact():
    from memory.understand.statements import understand
    st = understand("quit squash, I cycle every day now", NOW.date()).statements
    assert [s.previous for s in st] == ["squash", None]


def test_inv255_a_new_one_names_the_thing_swapped(service):
    old = service.write_fact("ana", "Has a Polish ID card").fact
    t = turn(service, "swapped my Polish ID card for a Dutch one at the gemeente")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", old.id) and "Dutch" in w.text and "card" in w.text
    assert "gemeente" not in w.text


def test_inv255_since_the_start_of_a_month_is_its_first_day():
    from datetime import date

    from memory.understand.dates import find_dates
    assert find_dates("pescatarian since the start of October", date(2026, 12, 1)).valid_from == \
        date(2026, 10, 1)
    assert find_dates("vegan since March", date(2026, 12, 1)).valid_from == date(2026, 3, 1)
    # "since" never looks ahead, even beside a word of the future
    assert find_dates("moving house, on the waiting list since the beginning of May",
                      date(2026, 12, 1)).valid_from == date(2026, 5, 1)


# --- invariant 256: where someone close lives, never true -------------------------------------

def test_inv256_a_relative_was_never_there_keeps_the_rest_of_the_record(service):
    old = service.write_fact("ana", "Her brother Olek is a vet in Poznań", fact_type="identity").fact
    t = turn(service, "my brother isn't in Poznań, he's in Wrocław, always has been")
    (w,) = t.writes()
    assert w.old_id == old.id and w.text == "Her brother Olek is a vet in Wrocław"
    # a harsh correction that nearly restates what it retracts waits for review (invariant 62)
    assert w.status == "review"


def test_inv256_with_a_mistake_said(service):
    old = service.write_fact("ana", "Her mum lives in Porto", fact_type="identity").fact
    t = turn(service, "my mum wasn't in Porto, that's wrong, she's in Braga")
    (w,) = t.writes()
    assert w.old_id == old.id and "Braga" in w.text


def test_inv256_not_there_any_more_or_this_week_is_no_denial(service):
    old = service.write_fact("ana", "Her brother Olek is a vet in Poznań", fact_type="identity").fact
    for text in ["my brother isn't in Poznań this week", "my brother isn't in Poznań any more, he's in Wrocław"]:
        assert all(w.op != "retract" for w in turn(service, text).writes()), text
    assert service.get_fact("ana", old.id).state != FactState.RETRACTED


def test_inv256_a_thing_swapped_never_replaces_a_fact_that_does_not_name_it(service):
    commute = service.write_fact("ana", "Takes the 40 bus to the office, about half an hour").fact
    t = turn(service, "Swapped my Spanish driving licence for a Dutch one last week")
    assert all(w.old_id != commute.id for w in t.writes())
    assert service.get_fact("ana", commute.id).state == FactState.ACTIVE


# --- invariant 257: the thing switched from, found by a word the lexicon gives for it ---------

def test_inv257_a_thing_named_finds_the_habit_said_in_other_words(service):
    old = service.write_fact("ana", "Cycles to work along the river, 25 minutes").fact
    t = turn(service, "Sold my bicycle, it's the S-Bahn every day now")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", old.id) and "S-Bahn" in w.text


def test_inv257_two_facts_in_those_words_pick_none(service):
    a = service.write_fact("ana", "Cycles to work along the river").fact
    b = service.write_fact("ana", "Goes cycling with the club on Sundays").fact
    t = turn(service, "Sold my bicycle, it's the S-Bahn every day now")
    assert all(w.old_id not in (a.id, b.id) for w in t.writes())
