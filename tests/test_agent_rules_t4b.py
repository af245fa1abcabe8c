"""Tuning set 4b's classes of miss (issue 12, invariants 295-304): each class is pinned by new
phrasings, never the tuning sentences, with one that must write nothing."""

from __future__ import annotations

from datetime import date

from memory.sensitive import secret_in
from memory.understand.statements import understand

from .agent_support import active, turn


def read(text):
    return [(s.act, s.text) for s in understand(text, date(2026, 12, 1), []).statements]


# --- invariant 295: a forget request taken back with the reason it stays ----------------------
def test_inv295_taken_back_with_a_reason_forgets_nothing(service):
    service.write_fact("ana", "Swims at the lido on Thursdays")
    for text in ("Forget my swimming. Oh no, leave it, it's fine.",
                 "Delete the lido thing. Hmm, keep it, that's still correct.",
                 "remove my swim days. no wait, keep that, it is accurate"):
        assert turn(service, text).writes() == [], text
    assert active(service) == ["Swims at the lido on Thursdays"]


def test_inv295_a_forget_request_with_an_ordinary_tail_still_forgets(service):
    service.write_fact("ana", "Swims at the lido on Thursdays")
    t = turn(service, "Forget my swimming at the lido, it's fine now")
    assert [w.op for w in t.writes()] == ["forget"]


# --- invariant 296: government identity numbers are secrets ----------------------------------
def test_inv296_identity_numbers_are_secrets():
    assert secret_in("SSN is 123-45-6789") == "an identity number"
    assert secret_in("National insurance number: QQ 12 34 56 C") == "an identity number"
    assert secret_in("My Aadhaar is 2345 6789 0123") == "an identity number"
    # no number, or a word that only looks like one: nothing secret
    assert secret_in("Sin is a strong word for it") is None
    assert secret_in("Applied for my PPS number") is None


def test_inv296_an_identity_number_is_never_written(service):
    for text in ("My social insurance number is 130 692 544, keep it handy",
                 "ssn: 078-05-1120"):
        assert turn(service, text).writes() == [], text
    assert active(service) == []


# --- invariant 297: what is given up named with words of its own ------------------------------
def test_inv297_the_fact_holding_half_the_named_words_is_replaced(service):
    service.write_fact("ana", "Studies law at Queen's University Belfast")
    t = turn(service, "I dropped out of law at Queen's and I'm doing a plumbing course instead.")
    (w,) = t.writes()
    assert w.op == "supersede" and "plumbing" in w.text


def test_inv297_a_thing_sold_on_a_marketplace_is_replaced(service):
    service.write_fact("bo", "Has a Samsung Odyssey monitor on the desk", fact_type="world")
    t = turn(service, "Sold the Samsung monitor on eBay and got a BenQ instead.", user="bo")
    (w,) = t.writes()
    assert w.op == "supersede" and "BenQ" in w.text


def test_inv297_one_shared_word_of_a_long_name_replaces_nothing(service):
    service.write_fact("cy", "Studies French at Trinity College Dublin")
    t = turn(service, "I quit salsa at the community hall and I'm doing boxing instead.", user="cy")
    assert all(w.op != "supersede" for w in t.writes())
    assert "Studies French at Trinity College Dublin" in active(service, "cy")


# --- invariant 298: one item of a list on record stopped --------------------------------------
def test_inv298_the_rest_of_the_list_holds(service):
    service.write_fact("ana", "Subscribes to Spotify and Audible", fact_type="world")
    t = turn(service, "Cancelled Audible, I never listen to it. Spotify stays.")
    (w,) = t.writes()
    assert (w.op, w.text) == ("supersede", "Subscribes to Spotify")


def test_inv298_a_list_of_three_loses_one(service):
    service.write_fact("bo", "Plays tennis, squash and padel")
    t = turn(service, "I've stopped squash, my knees can't take it.", user="bo")
    (w,) = t.writes()
    assert w.op == "supersede" and "squash" not in w.text and "padel" in w.text


def test_inv298_stopping_something_unlisted_writes_nothing(service):
    service.write_fact("cy", "Subscribes to Spotify and Audible", fact_type="world")
    assert turn(service, "Cancelled the gym membership, never went.", user="cy").writes() == []


# --- invariant 299: a switch to a rival value; "switch me to X" -------------------------------
def test_inv299_switch_me_to_a_unit_replaces_the_other_unit(service):
    service.write_fact("ana", "Prefers temperatures in Fahrenheit", fact_type="preference")
    t = turn(service, "Please switch me to Celsius.")
    (w,) = t.writes()
    assert (w.op, w.text) == ("supersede", "Prefers Celsius")


def test_inv299_switching_habit_replaces_its_rival_of_another_type(service):
    service.write_fact("bo", "Smokes a pack a week", fact_type="constraint")
    t = turn(service, "I've switched to vaping fully.", user="bo")
    (w,) = t.writes()
    assert w.op == "supersede" and w.text == "Uses vaping"


def test_inv299_instead_of_driving_replaces_the_car_commute(service):
    service.write_fact("cy", "Commutes by car to the depot", fact_type="world")
    t = turn(service, "I've started taking the bus instead of driving in.", user="cy")
    (w,) = t.writes()
    assert w.op == "supersede" and "bus" in w.text


def test_inv299_switch_me_to_a_person_is_no_preference(service):
    assert turn(service, "Can you switch me to a human?", user="dee").writes() == []
    assert read("Switch me to another agent please") == []


# --- invariant 300: a promotion named by its role; "X made me <role>" -------------------------
def test_inv300_a_promotion_named_by_its_role():
    assert read("Got the principal engineer promotion at Acme.") == [
        ("change", "Works as a principal engineer at Acme")]
    assert read("Finally landed a senior nurse promotion!") == [("change", "Works as a senior nurse")]
    assert read("After the reshuffle, Globex made me head of sales for Scotland.") == [
        ("change", "Works as a head of sales for Scotland at Globex")]


def test_inv300_made_me_without_a_role_is_no_job():
    assert read("My gran made me a cake.") == []
    assert read("Acme made me redundant.") == [] or all(
        not t.startswith("Works as") for _, t in read("Acme made me redundant."))


def test_inv300_a_promotion_replaces_the_job_on_record(service):
    service.write_fact("ana", "Works as a software engineer at Acme")
    t = turn(service, "Got the staff engineer promotion at Acme last week.")
    (w,) = t.writes()
    assert w.op == "supersede" and "staff engineer" in w.text


# --- invariant 301: "switched the <service> to X" ---------------------------------------------
def test_inv301_the_service_switched_names_its_provider():
    assert read("We've switched the electricity to EDF.") == [("change", "Electricity is EDF")]
    assert read("moved the mortgage to Nationwide") == [("change", "Mortgage is Nationwide")]
    assert read("switched the kids' sims to Tesco Mobile") == [("change", "Kids' sim is Tesco Mobile")]


def test_inv301_moving_a_thing_is_no_switch():
    assert read("We moved the piano to the back room.") == []


def test_inv301_the_switch_replaces_the_provider_on_record(service):
    service.write_fact("ana", "Broadband is BT Fibre 2", fact_type="world")
    t = turn(service, "We've switched the broadband to Community Fibre.")
    (w,) = t.writes()
    assert w.op == "supersede" and "Community Fibre" in w.text


# --- invariant 302: what a clinician started the user on ---------------------------------------
def test_inv302_a_clinician_started_me_on_a_medicine():
    assert read("The GP started me on vitamin D tablets.") == [("assert", "Takes vitamin D tablets")]
    assert read("My consultant put me on sertraline 50mg.") == [("assert", "Takes sertraline 50mg")]
    assert read("The practice nurse prescribed me a steroid cream, Betnovate, twice a day.") == [
        ("assert", "Takes a steroid cream called Betnovate")]


def test_inv302_a_new_medicine_replaces_nothing_else_taken(service):
    service.write_fact("ana", "Takes the 8:10 train to Leeds", fact_type="world")
    t = turn(service, "The GP started me on folic acid tablets.")
    (w,) = t.writes()
    assert (w.op, w.text) == ("write", "Takes folic acid tablets")
    assert "Takes the 8:10 train to Leeds" in active(service)


def test_inv302_a_clinician_putting_me_on_a_list_is_no_medicine():
    assert read("The hospital put me on the waiting list.") == []
    assert read("The doctor started me on a couch-to-5k plan.") == []


# --- invariant 299 (cont.): how the user asks to be spoken to is a preference ------------------
def test_inv299_a_standing_request_is_a_preference():
    assert read("Please show me distances in kilometres, I think in metric.") == [
        ("assert", "Prefers distances in kilometres")]
    assert read("Always email me rather than phoning, I'm on the ward all day.")[0] == (
        "change", "Prefers emails")
    assert read("I always ask for an aisle seat on long flights.")[0][1] == \
        "Prefers an aisle seat on long flights"


def test_inv299_a_one_off_request_is_no_preference(service):
    for text in ("Give me a second to think.", "Please give me the summary in bullet points"):
        assert turn(service, text, user="eve").writes() == [], text


# --- invariant 304: money held with a provider; an injury --------------------------------------
def test_inv304_accounts_and_subscriptions():
    assert read("We've opened a joint account with Starling.") == [
        ("assert", "Has a joint account with Starling")]
    assert read("Took out home insurance with Admiral last week.")[0][1] == "Has home insurance with Admiral"
    assert read("I've signed up for Apple Music.") == [("assert", "Subscribes to Apple Music")]
    assert read("My brother opened a current account.") == []
    assert read("I pay for the coffees on Mondays.") == []


def test_inv304_an_injury_is_kept(service):
    assert read("I sprained my left ankle at netball.") == [("assert", "Has a sprained left ankle")]
    assert read("Tore my hamstring sprinting for the bus.") == [("assert", "Has a torn hamstring")]
    assert read("You really hurt my feelings there.") == []
    assert read("I broke my arm as a kid.") == []
    assert read("Missed the wedding, I sprained my ankle the day before.") == []
    t = turn(service, "I fractured my wrist skiing.", user="fay")
    assert [w.text for w in t.writes()] == ["Has a fractured wrist"]


# --- invariant 303: denials said other ways ----------------------------------------------------
def test_inv303_a_negative_then_never_have_retracts(service):
    service.write_fact("ana", "Drinks green tea after lunch", fact_type="preference")
    t = turn(service, "I don't drink green tea. Never have.")
    (w,) = t.writes()
    assert (w.op, w.old_id is not None) == ("retract", True)
    assert active(service) == []


def test_inv303_never_without_a_subject_and_not_born_in(service):
    service.write_fact("bo", "Supports Leeds United", fact_type="preference")
    t = turn(service, "Never supported Leeds United in my life.", user="bo")
    assert [w.op for w in t.writes()] == ["retract"]
    service.write_fact("cy", "Was born in Cork")
    t = turn(service, "I wasn't born in Cork.", user="cy")
    assert [w.op for w in t.writes()] == ["retract"]


def test_inv303_a_plain_negative_is_no_denial(service):
    service.write_fact("dee", "Drinks green tea after lunch", fact_type="preference")
    t = turn(service, "I don't drink green tea these days.", user="dee")
    assert all(w.op != "retract" for w in t.writes())
    assert turn(service, "Never been to Spain, sadly.", user="eve").writes() == []


def test_inv304_registered_with_a_provider_is_no_job():
    assert read("We're registered with the surgery, Dr Okoye at Elm Lane.") == [
        ("assert", "Surgery is Dr Okoye at Elm Lane")]
    assert read("I'm registered with a vet now.") == []
    assert read("I'm a registered midwife at the Rotunda.") == [
        ("assert", "Works as a registered midwife at the Rotunda")]
