"""Levels, statuses, grades and qualifications (invariants 385-392): a level that changes
supersedes the one fact holding a level of its kind; one said never so is retracted. Real store,
real agent."""

from __future__ import annotations

from datetime import date

from memory.models import FactState
from memory.understand.levels import read
from memory.understand.statements import understand

from .agent_support import active, one_supersede, turn

TODAY = date(2026, 12, 1)


def _rules(text: str) -> list[str]:
    return [st.rule for st in understand(text, TODAY).statements]


# --- invariant 385: a language level ------------------------------------------------------------
def test_inv385_a_language_level_passed_supersedes_that_languages_level(service):
    w = one_supersede(service, "Finally passed my Spanish C1 exam yesterday!",
                      "Speaks Spanish at B2", "C1", fact_type="identity")
    assert "Spanish" in (w.text or "")


def test_inv385_a_level_said_as_level_now_is_that_languages_level(service):
    one_supersede(service, "The Greek exam went fine, I'm C1 level now.", "Speaks Greek at B2", "C1",
                  fact_type="identity")


def test_inv385_a_level_reached_is_that_languages_level_now(service):
    w = one_supersede(service, "I'm at B1 in Italian now.",
                      "Speaks Italian at A2 and goes to a Thursday class", "B1", fact_type="identity")
    assert w.text == "Speaks Italian at B1"
    w = one_supersede(service, "Passed the Czech A2 test on Friday!", "Speaks Czech at A1", fact_type="identity")
    assert w.text == "Speaks Czech at A2 (passed the A2 exam)"


def test_inv385_a_level_replaces_only_the_level_of_its_language(service):
    service.write_fact("ana", "Speaks French at C1", fact_type="identity")
    dutch = service.write_fact("ana", "Speaks Dutch at A2", fact_type="identity").fact
    t = turn(service, "Got my Dutch B1 certificate last week.")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", dutch.id)
    assert "Speaks French at C1" in active(service)


def test_inv385_not_a_level_change_when_asked_hoped_failed_or_someone_elses():
    for said in ("Did I pass B2 German?", "I'm hoping to pass the French B2 exam in March.",
                 "If I pass C1 Spanish I'll apply for the job.", "Failed the German B2 exam again.",
                 "My sister passed her Italian B2 exam.", "I got an A1 in maths at school."):
        assert not any(r.startswith("level:") for r in _rules(said)), said
        assert read(said, TODAY) is None, said


def test_inv385_nothing_on_record_and_no_language_named_writes_nothing(service):
    t = turn(service, "Passed B2 yesterday!")
    assert t.writes() == []


# --- invariant 386: a programme's status ------------------------------------------------------------
def test_inv386_a_status_lost_is_the_lower_status_never_a_death(service):
    w = one_supersede(service, "Lost Gold with Flying Blue this year, they've dropped me to Silver.",
                      "Has Gold status with Flying Blue", "Silver", "Flying Blue")
    assert "died" not in (w.text or "")
    u = understand("I lost Platinum in March, back down to Gold.", TODAY)
    assert all("died" not in (st.text or "") for st in u.statements)


def test_inv386_a_status_reached_supersedes_the_status_of_that_programme(service):
    service.write_fact("ana", "Has Silver status with Marriott Bonvoy")
    ba = service.write_fact("ana", "Has Bronze status with BA").fact
    t = turn(service, "I've been upgraded to Silver with BA.")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", ba.id)
    assert "Silver" in (w.text or "")


def test_inv386_a_medal_or_a_relatives_status_is_no_status(service):
    service.write_fact("ana", "Has Silver status with BA")
    for said in ("I got gold in the 400m at the club champs.", "My husband made Gold with BA.",
                 "Will I keep Silver next year?"):
        assert not any(r == "level:tier" for r in _rules(said)), said
    assert "Has Silver status with BA" in active(service)


def test_inv386_a_status_said_with_im_now_and_a_golden_thing_lost(service):
    one_supersede(service, "I'm now Platinum with Hilton!", "Has Gold status with Hilton Honors", "Platinum")
    old = service.write_fact("ana", "Has Gold status with BA").fact
    assert not any(r == "level:tier" for r in _rules("I lost my gold ring at the beach."))
    turn(service, "I lost my gold ring at the beach.")
    assert service.get_fact("ana", old.id).state == FactState.ACTIVE


def test_inv386_a_pet_lost_is_still_a_death():
    u = understand("We lost Pepper last week.", TODAY)
    assert [st.text for st in u.statements] == ["Pepper has died"]


# --- invariant 387: a level or status that was never so ------------------------------------------
def test_inv387_a_lower_level_still_held_retracts_and_writes_it(service):
    old = service.write_fact("ana", "Speaks Polish at B2", fact_type="identity").fact
    t = turn(service, "I don't speak Polish at B2, I'm still B1.")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.status) == ("retract", old.id, "applied")
    assert "B1" in (w.text or "")
    assert service.get_fact("ana", old.id).state != FactState.ACTIVE


def test_inv387_a_higher_status_claimed_in_a_correction_waits_for_review(service):
    old = service.write_fact("ana", "Has Silver status with Qantas").fact
    t = turn(service, "No, I don't have Silver with Qantas, I have Platinum with Qantas.")
    ops = [(w.op, w.status) for w in t.writes()]
    assert ops == [("retract", "applied"), ("write", "review")]
    assert service.get_fact("ana", old.id).state != FactState.ACTIVE


def test_inv387_a_correction_with_nothing_on_record_writes_nothing(service):
    t = turn(service, "I'm not Gold, I'm Silver.")
    assert t.writes() == []


# --- invariant 388: a belt or a grade ------------------------------------------------------------
def test_inv388_a_belt_supersedes_the_belt_of_that_sport(service):
    service.write_fact("ana", "Has a blue belt in karate", fact_type="identity")
    judo = service.write_fact("ana", "Has an orange belt in judo", fact_type="identity").fact
    t = turn(service, "Got my green belt in judo on Saturday!")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", judo.id)
    assert "Has a blue belt in karate" in active(service)


def test_inv388_a_grade_with_nothing_on_record_is_written(service):
    t = turn(service, "I passed grade 5 in piano this week.")
    (w,) = t.writes()
    assert w.op == "write" and "grade 5" in (w.text or "")


def test_inv388_a_childs_belt_or_a_planned_grade_is_not_the_users():
    for said in ("Tom got his black belt in taekwondo.", "I'm going to take grade 6 in violin next term.",
                 "Did I pass grade 4?"):
        assert not any(r == "level:grade" for r in _rules(said)), said


def test_inv388_an_exam_passed_replaces_the_plan_to_sit_it(service):
    w = one_supersede(service, "Passed the CFA Level I early! Sat it on 12 November.",
                      "Sits the CFA Level I exam in February", "CFA")
    assert w.valid_from is not None and (w.valid_from.month, w.valid_from.day) == (11, 12)


def test_inv388_an_exam_with_nothing_on_record_is_written_and_a_test_is_left_to_milestones(service):
    t = turn(service, "Just passed the ACCA exam today!")
    (w,) = t.writes()
    assert w.op == "write" and "ACCA" in (w.text or "")
    assert "level:exam" not in _rules("I passed my driving test!")
    assert "level:exam" not in _rules("My brother passed the CKA.")


# --- invariant 389: permanent residence replaces the permit ------------------------------------
def test_inv389_permanent_residence_supersedes_the_permit(service):
    w = one_supersede(service, "I was granted settled status last month, so the spouse visa is done with.",
                      "Holds a spouse visa valid until 2027", "settled status", fact_type="constraint")
    assert w.valid_from is not None


def test_inv389_residence_not_yet_granted_is_nothing(service):
    service.write_fact("ana", "Holds a work permit valid until June 2027", fact_type="constraint")
    for said in ("I'm hoping to get permanent residence next year.", "Will I get permanent residency?",
                 "My brother got permanent residence in Canada."):
        assert not any(r == "level:residence" for r in _rules(said)), said


# --- invariant 390: a citizenship or a trusted-traveller status is written -----------------------
def test_inv390_a_citizenship_gained_is_written_with_its_day(service):
    t = turn(service, "Got my Italian passport on Monday, so I'm a dual citizen now!")
    (w,) = t.writes()
    assert w.op == "write" and "Italian" in (w.text or "") and w.valid_from is not None


def test_inv390_a_passport_alone_or_someone_elses_citizenship_is_no_citizenship():
    for said in ("Got my Irish passport back from the embassy.", "My wife got her Spanish citizenship.",
                 "Could I get a Portuguese passport?"):
        assert not any(r == "level:citizen" for r in _rules(said)), said


def test_inv390_a_trusted_traveller_status_is_written(service):
    t = turn(service, "I've got NEXUS now, the interview was yesterday.")
    (w,) = t.writes()
    assert w.op == "write" and "NEXUS" in (w.text or "")
    assert not any(r == "level:citizen" for r in _rules("Should I get Global Entry?"))


# --- invariant 391: one fact of the kind, or nothing ----------------------------------------------
def test_inv391_two_facts_of_the_kind_change_nothing(service):
    service.write_fact("ana", "Speaks German at B1 and has a Tuesday class", fact_type="identity")
    service.write_fact("ana", "Speaks German at A2 according to the old test", fact_type="identity")
    t = turn(service, "Passed the German B2 exam!")
    assert t.writes() == []


# --- invariant 392: a role after "promoted to" or "made up to" ------------------------------------
def test_inv392_made_up_to_a_role_keeps_the_employer(service):
    one_supersede(service, "Got made up to shift manager at the depot this week.",
                  "Works as a delivery driver at DPD", "shift manager", "DPD", fact_type="identity")


def test_inv392_promoted_to_a_role_on_a_ward(service):
    one_supersede(service, "I've been promoted to charge nurse on the stroke unit.",
                  "Works as a staff nurse at St Mary's", "charge nurse", fact_type="identity")


def test_inv392_someone_elses_promotion_is_not_the_users(service):
    service.write_fact("ana", "Works as a staff nurse at St Mary's", fact_type="identity")
    turn(service, "Would I get made up to team lead if I stayed?")
    assert "Works as a staff nurse at St Mary's" in active(service)
