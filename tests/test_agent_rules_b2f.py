"""Blind set 2 retired to tuning, its new users (issue 12, invariants 260-271): each class of
miss is pinned by new phrasings, never the blind sentences, with one that must write nothing."""

from __future__ import annotations

from memory.agent import run_turn
from memory.agents.offline import OfflineAgent
from memory.models import FactState

from .agent_support import active, turn


# --- invariant 260: a request or statement taken back in the same message -------------------
def test_inv260_a_forget_request_taken_back_forgets_nothing(service):
    service.write_fact("ana", "Has a Kobo Clara e-reader")
    for text in ("forget my kobo. wait, never mind", "please delete the kobo thing. no, keep it",
                 "forget about my e-reader? actually leave it"):
        t = turn(service, text)
        assert t.writes() == [], text
    assert active(service) == ["Has a Kobo Clara e-reader"]


def test_inv260_a_statement_taken_back_writes_nothing(service):
    for text in ("I sold the van. Scratch that.", "moved to Hull. ignore that"):
        assert turn(service, text).writes() == [], text
    assert active(service) == []


def test_inv260_never_mind_inside_a_statement_is_no_cancel(service):
    t = turn(service, "I never mind the rain, I cycle to work every day")
    assert [w.text for w in t.writes()] == ["Cycles to work"]


# --- invariant 261: someone else's promotion; "I report to X" names the manager --------------
def test_inv261_a_named_colleagues_promotion_is_not_the_users(service):
    service.write_fact("ana", "Works as a nurse", fact_type="identity")
    for text in ("Marta got promoted to head of department", "Joe just got promoted to partner"):
        assert turn(service, text).writes() == [], text
    assert active(service) == ["Works as a nurse"]


def test_inv261_i_report_to_names_the_new_manager(service):
    old = service.write_fact("ana", "Her manager is Olu", fact_type="identity").fact
    t = turn(service, "Olu moved to the Dubai office and I report to Beatriz now")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Manager is Beatriz")


def test_inv261_reporting_to_no_name_writes_nothing(service):
    service.write_fact("ana", "Her manager is Olu", fact_type="identity")
    assert turn(service, "these days I report to the board").writes() == []


def test_inv261_own_promotion_with_the_subject_left_out_is_still_read(service):
    t = turn(service, "got promoted to ward sister last week")
    assert [w.text for w in t.writes()] == ["Works as a ward sister"]


# --- invariant 262: a reason is neither a correction nor part of the value --------------------
def test_inv262_a_reason_denied_is_no_old_value(service):
    service.write_fact("ana", "Avoids dairy", fact_type="constraint")
    t = turn(service, "I avoid dairy for my skin, not because I'm vegan")
    assert [w.op for w in t.writes()] in ([], ["write"])
    assert not [w for w in t.writes() if w.op in ("retract", "supersede")]
    assert service.facts("ana", states=["retracted"]) == []


def test_inv262_a_reason_after_because_of_is_cut_and_a_restatement_is_known(service):
    service.write_fact("ana", "Cycles to work", fact_type="world")
    t = turn(service, "I cycle to work because of the parking costs, not because I'm sporty")
    assert t.writes() == []
    t = turn(service, "I swim at the lido because of my back")
    assert [w.text for w in t.writes()] == ["Swims at the lido"]


# --- invariant 263: denials said other ways ----------------------------------------------------
def test_inv263_a_denial_stops_at_a_colon_or_a_dash(service):
    old = service.write_fact("ana", "Is allergic to latex", fact_type="constraint").fact
    t = turn(service, "Turns out I'm not allergic to latex: the patch test was clear")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("retract", old.id)
    assert service.get_fact("ana", old.id).state == FactState.RETRACTED


# --- invariant 265: a password manager is a kind of thing one uses one of ---------------------
def test_inv265_a_move_to_another_password_manager_replaces_the_one_on_record(service):
    old = service.write_fact("ana", "Uses LastPass", fact_type="preference").fact
    t = turn(service, "moved everything over to 1Password last month")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", old.id) and "1Password" in (w.text or "")


def test_inv265_a_password_manager_replaces_nothing_of_another_kind(service):
    service.write_fact("ana", "Uses Obsidian for notes", fact_type="preference")
    t = turn(service, "I switched to Dashlane")
    assert [(w.op, w.old_id) for w in t.writes()] == [("write", None)]


def test_inv263_not_x_but_y_swaps_the_true_value_into_the_fact(service):
    car = service.write_fact("ana", "Drives a Skoda Octavia Estate").fact
    t = turn(service, "Not a Skoda, a Hyundai Ioniq. Everyone assumes that")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("retract", car.id, "Drives a Hyundai Ioniq")
    job = service.write_fact("ana", "Is a paramedic at Leeds General", fact_type="identity").fact
    t = turn(service, "I'm not a paramedic, a physio.")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("retract", job.id, "Is a physio")


def test_inv263_not_x_but_y_with_nothing_on_record_writes_nothing(service):
    service.write_fact("ana", "Lives in York", fact_type="identity")
    for text in ("Not a chance, a joke really", "not a Renault, a Dacia."):
        assert turn(service, text).writes() == [], text
    assert active(service) == ["Lives in York"]


def test_inv263_i_have_no_x_with_a_cue_that_it_was_wrong(service):
    kids = service.write_fact("ana", "Has two children", fact_type="identity").fact
    t = turn(service, "I have no kids at all, no idea where that came from")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("retract", kids.id)
    assert service.get_fact("ana", kids.id).state == FactState.RETRACTED


def test_inv263_i_have_no_x_without_a_cue_is_no_denial(service):
    service.write_fact("ana", "Owns a garden shed")
    assert turn(service, "I have no garden shed these days").writes() == []
    assert active(service) == ["Owns a garden shed"]


def test_inv263_it_was_theirs_all_along_retracts_having_it(service):
    drone = service.write_fact("ana", "Has a DJI Mini drone").fact
    t = turn(service, "The drone went back with my brother, it was his all along")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("retract", drone.id)
    service.write_fact("ana", "Has a rowing machine")
    assert turn(service, "My sister moved out, it was hers all along").writes() == []


# --- invariant 264: a thing lost, stolen, written off or no longer needed ---------------------
def test_inv264_stolen_said_other_ways_ends_the_thing_on_record(service):
    bike = service.write_fact("ana", "Rides a Cannondale to work").fact
    t = turn(service, "some idiot pinched my Cannondale from the station on Friday, walking now")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", bike.id)
    car = service.write_fact("ana", "Drives a Vauxhall Corsa").fact
    t = turn(service, "The insurers have written off my Corsa")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", car.id)


def test_inv264_it_is_the_kind_said_in_the_message_before(service):
    car = service.write_fact("ana", "Drives a Ford Focus").fact
    said = "the car hit a deer on the A38"
    t = run_turn(service, "ana", "s1", "they wrote it off this morning, gutted", agent=OfflineAgent(),
                 history=[{"role": "user", "content": said}])
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", car.id)


def test_inv264_we_lost_a_pet_by_name_is_its_death(service):
    cat = service.write_fact("ana", "Has a tabby cat called Pudding").fact
    t = turn(service, "We sadly lost Pudding on Tuesday, she was 19")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", cat.id, "Pudding has died")


def test_inv264_lost_a_match_or_keys_ends_nothing(service):
    service.write_fact("ana", "Has a season ticket for Bristol Rovers")
    for text in ("we lost the match on Saturday", "I lost my keys again", "someone nicked my parking spot"):
        assert turn(service, text).writes() == [], text
    assert active(service) == ["Has a season ticket for Bristol Rovers"]


def test_inv264_no_longer_needing_to_do_it_and_a_hope_for_later(service):
    pen = service.write_fact("ana", "Carries an inhaler for asthma", fact_type="constraint").fact
    t = turn(service, "my lungs have recovered and I don't have to carry the inhaler any more")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", pen.id)
    choir = service.write_fact("ana", "Sings in the Bristol Community Choir").fact
    t = turn(service, "I'm not doing the choir anymore, too busy. Maybe next year")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.valid_from, w.status) == ("supersede", choir.id, None, "applied")


# --- invariant 266: medicines the user is on, started, or takes at a new dose -----------------
def test_inv266_on_a_medicine_or_started_one_is_taking_it(service):
    t = turn(service, "I'm on 20mg citalopram each night since March, in case it matters")
    (w,) = t.writes()
    assert "citalopram" in (w.text or "") and w.valid_from is not None
    t = turn(service, "started on Mounjaro 2.5 mg on 2 May, feeling queasy")
    (w,) = t.writes()
    assert (w.text, str(w.valid_from)) == ("Takes Mounjaro 2.5 mg", "2025-05-02")


def test_inv266_a_new_dose_keeps_the_medicine_on_record(service):
    old = service.write_fact("ana", "Takes 5mg ramipril every morning", fact_type="constraint").fact
    t = turn(service, "my consultant increased my ramipril to 10mg")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Takes 10mg ramipril every morning")
    old = service.write_fact("ana", "Takes 25mcg levothyroxine", fact_type="constraint").fact
    t = turn(service, "GP bumped up my thyroxine to 50mcg")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Takes 50mcg levothyroxine")


def test_inv266_on_a_train_or_someone_elses_dose_is_no_medicine(service):
    service.write_fact("ana", "Takes 5mg ramipril every morning", fact_type="constraint")
    for text in ("I'm on a train to Leeds", "I'm on holiday till Monday",
                 "my dad's GP upped his ramipril to 10mg"):
        assert turn(service, text).writes() == [], text
    assert active(service) == ["Takes 5mg ramipril every morning"]


# --- invariant 267: a model named in brackets after a thing is part of the value ----------------
def test_inv267_the_model_in_brackets_names_the_thing(service):
    t = turn(service, "just bought a robot mower (Husqvarna 405X) for the garden")
    assert [w.text for w in t.writes()] == ["Owns a Husqvarna 405X robot mower"]
    t = turn(service, "got an e-reader (Kobo Libra 2) for the commute")
    assert [w.text for w in t.writes()] == ["Owns a Kobo Libra 2 e-reader"]


def test_inv267_a_remark_in_brackets_stays_out(service):
    t = turn(service, "I bought a kayak (finally) last weekend")
    assert [w.text for w in t.writes()] == ["Owns a kayak"]
    assert turn(service, "my mate bought a boat (a Fairline 33)").writes() == []


# --- invariant 268: how long a state has lasted dates its start -------------------------------
def test_inv268_a_state_held_for_a_while_starts_that_long_ago(service):
    t = turn(service, "I've been teetotal three years as of today")
    (w,) = t.writes()
    assert (w.text, str(w.valid_from)) == ("Is teetotal", "2022-06-01")
    t = turn(service, "we've been married for 12 years")
    (w,) = t.writes()
    assert str(w.valid_from) == "2013-06-01"


def test_inv268_a_place_been_to_for_a_while_is_no_state(service):
    for text in ("I've been to Rome for two weeks", "I've been away for a month"):
        assert turn(service, text).writes() == [], text


# --- invariant 269: a child's school, said with "at" or by the child's name -------------------
def test_inv269_a_childs_school_named_after_at(service):
    t = turn(service, "our twins start at the Montessori nursery on Elm Road on 7 September")
    (w,) = t.writes()
    assert (w.text, str(w.valid_from)) == ("Twins start at the Montessori nursery on Elm Road", "2025-09-07")
    t = turn(service, "my stepson started at Hollyfield Academy this term")
    assert [w.text for w in t.writes()] == ["Stepson started at Hollyfield Academy"]


def test_inv269_a_named_childs_school_only_when_they_are_the_users(service):
    service.write_fact("ana", "Has a daughter, Maya, and a son, Kofi", fact_type="identity")
    t = turn(service, "Kofi started secondary school in Leeds in September")
    assert [w.text for w in t.writes()] == ["Kofi started secondary school in Leeds"]
    # someone never mentioned as one of theirs: nothing
    assert turn(service, "Priya started university in Glasgow in September").writes() == []


def test_inv269_a_partner_starting_at_a_workplace_is_no_school(service):
    assert turn(service, "my wife starts at the Royal Marsden in May").writes() == []


# --- invariant 270: other languages beside English, and a choice said without a verb -----------
def test_inv270_a_gloss_in_brackets_is_read(service):
    old = service.write_fact("ana", "Lives in Porto", fact_type="identity").fact
    t = turn(service, "Mudei-me para Braga! (moved to Braga last month, sorry for the portuguese)")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Lives in Braga")


def test_inv270_he_or_she_after_a_name_said_in_another_language(service):
    old = service.write_fact("ana", "Her cousin Inés lives in Sevilla", fact_type="identity").fact
    t = turn(service, "Inés se fue — she moved to Bilbao for work")
    (w,) = t.writes()
    # the relation on record stays with the new value (invariant 272)
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Cousin Inés lives in Bilbao")
    # a name with nothing on record about where they live: nothing
    assert turn(service, "Kasia jest super. She moved to Gdańsk").writes() == []


def test_inv270_a_choice_from_now_on_with_a_remark_after_it(service):
    old = service.write_fact("ana", "Prefers window seats on trains", fact_type="preference").fact
    t = turn(service, "aisle seats from now on, my knees can't take it")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", old.id) and "aisle" in (w.text or "")
    assert turn(service, "window seats from now on, can you book them?").writes()[0].op == "supersede"
    assert turn(service, "from now on, my knees can't take it").writes() == []


# --- invariant 271: other words for a new job and for a switch ---------------------------------
def test_inv271_starting_as_a_role_at_an_employer_is_the_new_job(service):
    old = service.write_fact("ana", "Works as a waiter at Bella Italia", fact_type="identity").fact
    t = turn(service, "handed in my apron! starting as a trainee surveyor at Savills in January")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Works as a trainee surveyor at Savills")


def test_inv271_crossed_over_is_a_switch(service):
    old = service.write_fact("ana", "Uses an iPhone 13").fact
    t = turn(service, "finally jumped over to the other side: Pixel 9 Pro")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", old.id) and "Pixel 9 Pro" in (w.text or "")


def test_inv271_starting_as_no_role_at_a_place_is_no_job(service):
    service.write_fact("ana", "Works as a waiter at Bella Italia", fact_type="identity")
    for text in ("my sister is starting as a nurse at Guy's", "the match is starting at Wembley at 3"):
        assert turn(service, text).writes() == [], text
    assert active(service) == ["Works as a waiter at Bella Italia"]


def test_inv263_a_person_mixed_up_with_someone_else_is_retracted(service):
    old = service.write_fact("ana", "Her son Tomás plays for Rovers Under-10s", fact_type="identity").fact
    t = turn(service, "Tomás isn't with Rovers, that's his best friend Jake")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("retract", old.id)


def test_inv263_not_at_a_place_for_a_day_is_no_mix_up(service):
    service.write_fact("ana", "Her son Tomás works at Greggs", fact_type="identity")
    assert turn(service, "Tomás isn't at Greggs, that's his day off").writes() == []
    assert active(service) == ["Her son Tomás works at Greggs"]
