"""Corrections, denials, hedged corrections and job changes said as corrections (issue 12,
invariants 350-357): one real turn on a real store each, in phrasings of their own."""

from __future__ import annotations

from memory.agent import run_turn
from memory.agents.offline import OfflineAgent
from memory.models import FactState

from .agent_support import active, turn


def session(svc, user, *messages):
    """Turns of one session, each with the user's earlier messages as history."""
    said, out = [], []
    for m in messages:
        out.append(run_turn(svc, user, "s-corr2", m, agent=OfflineAgent(),
                            history=[{"role": "user", "content": h} for h in said]))
        said.append(m)
    return out


# --- invariant 350: one date word put right ------------------------------------------------------
def test_inv350_a_hedged_month_swap_supersedes_for_review(service):
    old = service.write_fact("ana", "Her passport is valid until June 3, 2029").fact
    t = turn(service, "I reckon my passport might actually expire in July, not June. Need to check.")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.status) == ("supersede", old.id, "review")
    assert w.text == "Her passport is valid until July 2029"
    assert service.get_fact("ana", old.id).state == FactState.ACTIVE  # waits for an operator


def test_inv350_a_year_swap_keeps_the_rest_of_the_fact(service):
    old = service.write_fact("ana", "Moved to Porto in 2015").fact
    t = turn(service, "I think it was 2016 when I moved to Porto, not 2015.")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text, w.status) == ("supersede", old.id, "Moved to Porto in 2016", "review")


def test_inv350_an_unhedged_weekday_swap_is_a_harsh_correction(service):
    old = service.write_fact("ana", "Goes to choir practice on Wednesdays at the church hall").fact
    t = turn(service, "My choir practice isn't on Wednesdays, it's on Mondays, always has been.")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.status) == ("retract", old.id, "applied")
    assert w.text == "Goes to choir practice on Mondays"
    assert active(service) == ["Goes to choir practice on Mondays"]


def test_inv350_no_fact_saying_the_wrong_word_writes_nothing(service):
    service.write_fact("ana", "Her passport is valid until June 3, 2029")
    assert turn(service, "I think my gym pass runs out in March, not April.").writes() == []
    assert turn(service, "It might rain in May, not June.").writes() == []


# --- invariants 351 and 352: a short correction of the message just said ----------------------------
def test_inv351_a_correction_then_a_remark(service):
    _, fix = session(service, "ana", "I just ordered a Logitech MX Keys for home.",
                     "Correction: it's the MX Mechanical, not the MX Keys. Typo.")
    (w,) = fix.writes()
    assert "MX Mechanical" in (w.text or "") and "Keys" not in (w.text or "")
    _, fix2 = session(service, "bo", "We just bought a Toyota Yaris.",
                      "It's a Corolla actually, I never get the names right.")
    (w2,) = fix2.writes()
    assert "Corolla" in (w2.text or "") and "names" not in (w2.text or "")


def test_inv351_the_x_one_puts_the_word_in_place(service):
    _, fix = session(service, "ana", "My new backpack is a red Osprey Daylite, the old one ripped.",
                     "oops, I meant the blue one, not red")
    (w,) = fix.writes()
    assert "blue Osprey Daylite" in (w.text or "") and "the blue one" not in (w.text or "")
    _, fix2 = session(service, "bo", "I bought a Sony WH-1000 Bravia speaker for the kitchen yesterday.",
                      "Sorry, it was the Bose one, not Sony.")
    (w2,) = fix2.writes()
    assert "Bose" in (w2.text or "") and "Sony" not in (w2.text or "")


def test_inv352_a_slip_never_on_record_is_not_retracted(service):
    hale = service.write_fact("ana", "Her dentist is Dr Hale", fact_type="identity").fact
    # the message with the slip was never written (only said earlier in the session)
    t = run_turn(service, "ana", "s-slip", "Sorry, I mean Dr Ross, not Dr Moss. Phone keyboard.",
                 agent=OfflineAgent(), history=[{"role": "user", "content": "My new dentist is called Dr Moss."}])
    (w,) = t.writes()
    assert (w.op, w.old_id, w.status) == ("supersede", hale.id, "applied") and "Ross" in (w.text or "")
    assert service.store.list_tombstones("ana") == []  # Dr Hale was true until now


def test_inv352_a_slip_on_record_is_still_retracted(service):
    _, fix = session(service, "ana", "My new dentist is called Dr Moss.",
                     "Sorry, I mean Dr Ross, not Dr Moss. Phone keyboard.")
    (w,) = fix.writes()
    assert w.op == "retract" and "Ross" in (w.text or "")


def test_inv351_no_correction_without_a_previous_message(service):
    assert session(service, "ana", "Sorry, it was the Bose one, not Sony. Too pricey.")[0].writes() == []
    _, t = session(service, "bo", "We just bought a Toyota Yaris.", "It's raining actually, I got soaked.")
    assert all("raining" not in (w.text or "") for w in t.writes())


# --- invariant 353: a denial with the value true all along ---------------------------------------------
def test_inv353_never_lived_there_always_lived_here(service):
    old = service.write_fact("ana", "Lives in Austin, Texas", fact_type="identity").fact
    (w,) = turn(service, "I never lived in Austin. I've always lived in Dallas.").writes()
    assert (w.op, w.old_id, w.text) == ("retract", old.id, "Lives in Dallas")


def test_inv353_never_had_it_its_another(service):
    old = service.write_fact("ana", "Owns a Vespa Primavera").fact
    (w,) = turn(service, "I've never had a Vespa, it's a Lambretta V200.").writes()
    assert (w.op, w.old_id, w.text) == ("retract", old.id, "Owns a Lambretta V200")


def test_inv353_a_diagnosis_put_right(service):
    old = service.write_fact("ana", "Is gluten intolerant", fact_type="identity").fact
    (w,) = turn(service, "The gluten intolerance thing was a mistake, my consultant says it's reflux.").writes()
    assert (w.op, w.old_id, w.text) == ("retract", old.id, "Has reflux")


def test_inv353_didnt_grow_up_there(service):
    old = service.write_fact("ana", "Grew up in Cardiff", fact_type="identity").fact
    (w,) = turn(service, "I didn't grow up in Cardiff, it was Swansea.").writes()
    assert (w.op, w.old_id, w.text) == ("retract", old.id, "Grew up in Swansea")


def test_inv353_a_denial_without_a_true_value_only_retracts(service):
    old = service.write_fact("ana", "Lives in Austin, Texas", fact_type="identity").fact
    (w,) = turn(service, "I never lived in Austin. Not sure where you got that.").writes()
    assert (w.op, w.old_id, w.text) == ("retract", old.id, None)
    service.write_fact("bo", "Is gluten intolerant", fact_type="identity")
    (w2,) = turn(service, "The gluten intolerance thing was wrong, my consultant says it's fine.",
                 user="bo").writes()
    assert w2.op == "retract" and w2.text is None


# --- invariant 354: "I'm not an X, I'm a Y" --------------------------------------------------------
def test_inv354_not_x_im_y_is_a_harsh_correction(service):
    old = service.write_fact("ana", "Is a paramedic with the London Ambulance Service", fact_type="identity").fact
    (w,) = turn(service, "I'm not a paramedic, I'm a firefighter! People mix that up.").writes()
    assert (w.op, w.old_id, w.text) == ("retract", old.id, "Is a firefighter")
    old2 = service.write_fact("bo", "Drives a Vauxhall Corsa").fact
    (w2,) = turn(service, "It's not a Corsa, it's a Fiesta.", user="bo").writes()
    assert (w2.op, w2.old_id) == ("retract", old2.id) and "Fiesta" in (w2.text or "")
    assert "Corsa" not in (w2.text or "")


def test_inv354_not_x_any_more_is_no_denial(service):
    service.write_fact("ana", "Is a paramedic", fact_type="identity")
    t = turn(service, "I'm not a paramedic any more, I'm a firefighter now.")
    assert all(w.op != "retract" for w in t.writes())
    assert service.store.list_tombstones("ana") == []


# --- invariant 355: someone else's, or a language never spoken -------------------------------------
def test_inv355_thats_my_relatives(service):
    old = service.write_fact("ana", "Is allergic to penicillin", fact_type="constraint").fact
    (w,) = turn(service, "I don't have a penicillin allergy, that's my dad.").writes()
    assert (w.op, w.old_id) == ("retract", old.id)
    old2 = service.write_fact("bo", "Has a Canadian work permit valid until 2027").fact
    (w2,) = turn(service, "I don't have a Canadian work permit, that was my wife's application.",
                 user="bo").writes()
    assert (w2.op, w2.old_id) == ("retract", old2.id)


def test_inv355_no_word_of_a_language(service):
    old = service.write_fact("ana", "Speaks fluent Italian", fact_type="identity").fact
    (w,) = turn(service, "Fluent Italian? If only. I don't speak a word of it.").writes()
    assert (w.op, w.old_id) == ("retract", old.id)


def test_inv355_a_plain_dont_have_or_dont_speak_is_no_denial(service):
    service.write_fact("ana", "Is allergic to penicillin", fact_type="constraint")
    service.write_fact("ana", "Speaks fluent Italian", fact_type="identity")
    assert turn(service, "I don't have my penicillin tablets with me today.").writes() == []
    assert turn(service, "I don't speak Italian with my kids, only English.").writes() == []
    assert sorted(active(service)) == ["Is allergic to penicillin", "Speaks fluent Italian"]


# --- invariant 356: a doubted allergy is asked about, never removed -------------------------------------
def test_inv356_maybe_not_allergic_after_all_removes_nothing(service):
    service.write_fact("ana", "Is allergic to aspirin", fact_type="constraint")
    t = turn(service, "I had some aspirin yesterday and was fine, so perhaps I'm not allergic to aspirin after all?")
    assert t.writes() == [] and "confirm" in t.reply
    t2 = turn(service, "Not sure about the aspirin thing. Maybe I'm not allergic after all? I'll ask.")
    assert t2.writes() == [] and "confirm" in t2.reply
    assert active(service) == ["Is allergic to aspirin"]


def test_inv356_read_as_a_denial_at_low_confidence():
    from datetime import date

    from memory.understand.statements import understand

    u = understand("Not sure about the aspirin thing. Maybe I'm not allergic after all?", date(2026, 12, 1))
    (st,) = u.statements
    assert (st.act, st.target, st.confidence) == ("deny", "allergic to aspirin", 0.55)
    assert understand("Maybe I'm not hungry after all?", date(2026, 12, 1)).statements == []


# --- invariant 357: job changes said in one breath --------------------------------------------------
def test_inv357_a_team_move_names_the_new_team(service):
    old = service.write_fact("ana", "Works on the billing team at Wise", fact_type="identity").fact
    (w,) = turn(service, "I've moved from billing to the identity team, same employer.").writes()
    assert (w.op, w.old_id) == ("supersede", old.id)
    assert "identity team" in (w.text or "") and "billing" not in (w.text or "").lower()


def test_inv357_left_moved_and_starting_at_replaces_the_employer(service):
    home = service.write_fact("ana", "Lives in Bristol", fact_type="identity").fact
    job = service.write_fact("ana", "Works at Dyson", fact_type="identity").fact
    t = turn(service, "I've left Dyson and moved to Cardiff, starting at Admiral next week.")
    by_old = {w.old_id: w for w in t.writes()}
    assert set(by_old) == {home.id, job.id}
    assert by_old[job.id].text == "Works at Admiral" and by_old[job.id].op == "supersede"
    assert by_old[home.id].text == "Lives in Cardiff"


def test_inv357_a_sports_team_is_no_job(service):
    service.write_fact("ana", "Works on the billing team at Wise", fact_type="identity")
    t = turn(service, "I've moved from the Tuesday league to the football team at the club.")
    assert all("football" not in (w.text or "") for w in t.writes())


# --- invariant 358: a dated move said alone replaces the home on record -------------------------
def test_inv358_a_dated_move_alone_supersedes_the_home_from_that_date(service):
    from datetime import date

    home = service.write_fact("ana", "Lives in Bergen", fact_type="identity").fact
    t = turn(service, "We're moving to Trondheim in September, can't wait.")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", home.id, "Lives in Trondheim")
    assert w.valid_from == date(2025, 9, 1)  # the test clock says 1 June 2025


def test_inv358_no_home_on_record_or_another_change_keeps_a_plan(service):
    (w,) = turn(service, "We're moving to Trondheim in September, can't wait.").writes()
    assert (w.op, w.text) == ("write", "Moving to Trondheim")
    service.write_fact("bo", "Lives in Bergen", fact_type="identity")
    service.write_fact("bo", "Works at Equinor", fact_type="identity")
    t = turn(service, "Left Equinor yesterday and we're moving to Trondheim in September", user="bo")
    assert "Lives in Trondheim" not in [w.text for w in t.writes()]
    assert "Lives in Bergen" in active(service, "bo")


# --- invariant 359: a time word typed in a hurry ----------------------------------------------------
def test_inv359_a_misspelt_time_word_still_dates_the_fact(service):
    from datetime import date

    home = service.write_fact("ana", "Lives in Leeds", fact_type="identity").fact
    (w,) = turn(service, "moved to York last wek, the flat is small but fine").writes()
    assert (w.old_id, w.text, w.valid_from) == (home.id, "Lives in York", date(2025, 5, 25))


def test_inv359_only_a_time_word_is_respelt():
    from memory.understand.changes import time_typos

    assert time_typos("got it yesturday, moving next mnth") == "got it yesterday, moving next month"
    assert time_typos("a weak week, the wek of") == "a weak week, the wek of"


# --- invariants 353 and 356 widened: the words a denial leans on ------------------------------------
def test_inv353_never_owned_one_is_the_thing_named_before(service):
    bike = service.write_fact("ana", "Owns a Brompton folding bike").fact
    service.write_fact("ana", "Prefers trains to planes so she is never tied to one airline")
    t = turn(service, "No idea where the Brompton came from. We've never owned one.")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("retract", bike.id)


def test_inv353_never_owned_one_with_nothing_named_retracts_nothing(service):
    service.write_fact("ana", "Prefers trains to planes so she is never tied to one airline")
    assert turn(service, "No idea where that came from. We've never owned one.").writes() == []
    assert len(active(service)) == 1


def test_inv353_the_allergen_said_as_what_i_react_to(service):
    old = service.write_fact("ana", "Has a severe walnut allergy", fact_type="constraint").fact
    t = turn(service, "The walnut allergy was a misdiagnosis, it's actually sesame I react to.")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("retract", old.id, "Allergic to sesame")


def test_inv356_never_allergic_names_the_allergy_said_before(service):
    old = service.write_fact("ana", "Is allergic to penicillin", fact_type="constraint").fact
    t = turn(service, "The penicillin allergy test came back clear, I was never allergic.")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("retract", old.id)
    service.write_fact("bo", "Is allergic to penicillin", fact_type="constraint")
    assert turn(service, "The penicillin allergy test is next week, I'm not allergic I hope.",
                user="bo").writes() == []


def test_inv357_retraining_replaces_the_job_and_the_last_day_is_no_fact(service):
    old = service.write_fact("ana", "Is an accountant at Brightwell & Co", fact_type="identity").fact
    t = turn(service, "I've resigned from Brightwell. My last day is 9 January, then I'm retraining as a paramedic.")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Is retraining as a paramedic")


def test_inv357_training_for_a_race_is_no_job(service):
    service.write_fact("ana", "Is an accountant at Brightwell & Co", fact_type="identity")
    t = turn(service, "I'm training for a marathon in April.")
    assert all("retraining" not in (w.text or "").lower() for w in t.writes())
    assert "Is an accountant at Brightwell & Co" in active(service)


def test_inv358_moved_up_to_a_region_with_the(service):
    home = service.write_fact("ana", "Lives in Manchester", fact_type="identity").fact
    (w,) = turn(service, "Moved up to the Lake District in the spring, no more commuting.").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", home.id, "Lives in Lake District")
    from memory.understand.changes import moved_up

    assert moved_up("I moved up to the senior team") == "I moved up to the senior team"


def test_inv357_separating_ends_the_marriage_on_record(service):
    wed = service.write_fact("ana", "Is married to Priyanka", fact_type="identity").fact
    t = turn(service, "Priyanka and I are splitting up. I've moved into a flat in Hove.")
    by_op = {w.op: w for w in t.writes()}
    assert by_op["supersede"].old_id == wed.id and by_op["supersede"].text == "Is separated"
    assert by_op["write"].text == "Lives in Hove"


def test_inv357_someone_elses_divorce_ends_nothing(service):
    service.write_fact("ana", "Is married to Priyanka", fact_type="identity")
    t = turn(service, "My neighbours are getting divorced, poor kids.")
    assert all(w.text != "Is separated" for w in t.writes())
    assert "Is married to Priyanka" in active(service)


def test_inv357_i_start_at_a_name_with_a_date_is_the_new_employer(service):
    old = service.write_fact("ana", "Works at Aviva", fact_type="identity").fact
    t = turn(service, "Handed my notice in at Aviva. I start at Monzo in March as a product manager.")
    (w,) = [w for w in t.writes() if "Monzo" in (w.text or "")]
    assert w.old_id == old.id and w.valid_from is not None and w.valid_from.month == 3


def test_inv357_we_start_at_a_place_is_no_job(service):
    service.write_fact("ana", "Works at Aviva", fact_type="identity")
    for m in ("We start at Heathrow on Monday.", "I start at Heathrow then fly to Doha."):
        assert all("Heathrow" not in (w.text or "") for w in turn(service, m).writes()), m
    assert active(service) == ["Works at Aviva"]


def test_inv355_those_were_someone_elses_and_mine_is_the_true_value(service):
    old = service.write_fact("ana", "Has Bose QuietComfort headphones").fact
    t = turn(service, "I don't have Bose headphones, those were my ex's. Mine are Sennheiser Momentum.")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("retract", old.id, "Has Sennheiser Momentum")
    old2 = service.write_fact("bo", "Owns a Trek road bike").fact
    (w2,) = turn(service, "We don't own a Trek road bike, that was our neighbour's.", user="bo").writes()
    assert (w2.op, w2.old_id, w2.text) == ("retract", old2.id, None)


def test_inv355_not_having_something_today_is_no_denial(service):
    service.write_fact("ana", "Has Bose QuietComfort headphones")
    t = turn(service, "I don't have Bose headphones with me, those are at my mum's house.")
    assert all(w.op != "retract" for w in t.writes())


def test_inv358_a_move_naming_its_place_elsewhere_stays_a_plan(service):
    home = service.write_fact("ana", "Lives in Bergen", fact_type="identity").fact
    (w,) = turn(service, "Bought a cabin in Tromsø, moving in September").writes()
    assert (w.op, w.old_id) == ("write", None)
    assert service.get_fact("ana", home.id).state == FactState.ACTIVE


def test_inv354_the_x_wasnt_a_name_it_was_another(service):
    old = service.write_fact("ana", "Skye walking trip from May 3 to May 9, staying in Portree").fact
    t = turn(service, "That spring trip wasn't Skye, it was Mull, I always get them confused.")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("retract", old.id, "Mull walking trip from May 3 to May 9")
    old2 = service.write_fact("bo", "Has guitar lessons with Marco on Fridays").fact
    (w2,) = turn(service, "My guitar teacher isn't Marco, it's Matteo.", user="bo").writes()
    assert (w2.op, w2.old_id) == ("retract", old2.id) and "Matteo" in (w2.text or "")


def test_inv354_a_name_that_changed_is_no_denial(service):
    service.write_fact("ana", "Has guitar lessons with Marco on Fridays")
    t = turn(service, "My guitar teacher isn't Marco any more, it's Matteo now.")
    assert all(w.op != "retract" for w in t.writes())
    assert service.store.list_tombstones("ana") == []


def test_inv350_a_condition_or_a_question_swaps_nothing(service):
    service.write_fact("ana", "Her passport is valid until June 3, 2029")
    for m in ("If my passport ran out in July, not June, I'd be stuck.",
              "Does my passport expire in July, not June?"):
        assert turn(service, m).writes() == [], m
