"""Lead's agent-turn rules from live probing (issue 12): one real turn on a real store each."""

from __future__ import annotations

from memory.agent import run_turn
from memory.agents.offline import OfflineAgent

from .agent_support import turn


def test_inv212_an_address_keeps_its_commas(service):
    t = turn(service, "My address is 12 Elm Road, Edinburgh EH6 5AA")
    (w,) = t.writes()
    assert w.text == "Address is 12 Elm Road, Edinburgh EH6 5AA"
    t = turn(service, "our home address is Flat 2, 9 Leith Walk, Leith and we love it", user="bo")
    (w,) = t.writes()
    assert w.text == "Home address is Flat 2, 9 Leith Walk, Leith"


def test_inv212_a_new_clause_still_closes_the_address(service):
    t = turn(service, "My address is 10 Main St, we moved there in May")
    (w,) = t.writes()
    assert w.text == "Address is 10 Main St"


def test_inv218_a_plan_named_by_its_noun_is_said_as_yours():
    from memory.understand.speak import second_person

    assert second_person("Dentist appointment on 9 December") == \
        "your dentist appointment on 9 December"
    assert second_person("Flight to Lisbon on 3 March") == "your flight to Lisbon on 3 March"
    assert second_person("Lives in Bath") == "you live in Bath"  # a verb keeps its own form
    assert second_person("Team offsite in Porto") == "Team offsite in Porto"  # no plan noun


def test_inv218_the_reply_to_a_new_plan_speaks_to_the_user(service):
    t = turn(service, "My dentist appointment moved to 9 December")
    (w,) = t.writes()
    assert w.text == "Dentist appointment on 9 December"
    assert t.reply.startswith("Noted: your dentist appointment on 9 December")


def test_inv219_a_denied_item_of_a_list_stays_dead(service):
    from memory.models import FactState

    turn(service, "I'm allergic to peanuts and shellfish")
    t = turn(service, "I'm not allergic to shellfish, never was")
    (w,) = t.writes()
    assert (w.op, w.status, w.text) == ("supersede", "applied", "Allergic to peanuts")
    assert w.tombstone_id and "won't bring it back" in t.reply
    (tomb,) = service.store.list_tombstones("ana")
    assert tomb.text == "Allergic to shellfish" and tomb.source_fact_id == w.old_id
    events = [e for e in service.store.audit("ana", limit=50) if e.action == "retract"]
    assert events and events[0].after["never_true"] == "Allergic to shellfish"
    # restated later, the dead item waits for an operator; another allergy is written at once
    again = turn(service, "I'm allergic to shellfish")
    (w2,) = again.writes()
    assert w2.status == "review"
    assert [f.text for f in service.facts("ana", states=[FactState.ACTIVE])] == [
        "Allergic to peanuts"]
    (w3,) = turn(service, "I'm allergic to kiwi").writes()
    assert (w3.status, w3.text) == ("applied", "Allergic to kiwi")


def test_inv219_forgetting_the_list_erases_the_dead_items_text(service):
    turn(service, "I have a cat and a dog")
    (w,) = turn(service, "I don't have a cat, that was my sister's").writes()
    assert w.text == "Has a dog" and w.tombstone_id
    service.forget("ana", w.old_id, actor="cli")
    (tomb,) = service.store.list_tombstones("ana")
    assert tomb.forgotten and "cat" not in tomb.text.lower()


def test_inv219_never_true_needs_a_natural_supersession(service):
    import pytest

    from memory.errors import ValidationError

    old = service.write_fact("ana", "Allergic to peanuts and shellfish").fact
    with pytest.raises(ValidationError):
        service.write_fact("ana", "Allergic to peanuts", never_true="Allergic to shellfish")
    with pytest.raises(ValidationError):
        service.write_fact("ana", "Allergic to peanuts", supersedes_id=old.id,
                           contradiction="harsh", never_true="Allergic to shellfish")
    assert service.store.list_tombstones("ana") == []


def test_inv220_a_team_move_replaces_the_team_inside_the_job(service):
    old = service.write_fact("ana", "Senior backend engineer on the platform team at Helio Health",
                             fact_type="identity").fact
    t = turn(service, "I moved to the payments team last week")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == (
        "supersede", old.id, "Senior backend engineer on the payments team at Helio Health")
    assert w.valid_from is not None
    assert t.reply.startswith("Updated: you're a senior backend engineer on the payments team")


def test_inv220_no_job_with_a_team_means_a_team_fact_of_its_own(service):
    service.write_fact("ana", "Plays on the pub quiz team", fact_type="preference")
    (w,) = turn(service, "I'm on the data team now").writes()
    assert (w.op, w.text) == ("write", "Works on the data team")


def test_inv220_reteamed_is_pure_and_careful():
    from memory.agents.offline import _reteamed

    said = "Works on the payments team"
    assert _reteamed("Works at Parcelbird, on the routing team", said) == \
        "Works at Parcelbird, on the payments team"
    assert _reteamed("His lead at Parcelbird was Priya, who runs the routing team", said) is None
    assert _reteamed("Works on the payments team at Helio", said) is None  # already there


def test_inv220_a_role_is_said_as_what_you_are():
    from memory.understand.speak import second_person

    assert second_person("Charge nurse at the BRI") == "you're a charge nurse at the BRI"
    assert second_person("SRE at Monzo") == "you're an SRE at Monzo"
    assert second_person("Sister Amara is a teacher") == "your sister Amara is a teacher"


def test_inv221_leaving_what_is_not_on_record_ends_nothing_else(service):
    home = service.write_fact("ana", "Lives in Brighton", fact_type="identity").fact
    t = turn(service, "I left Google in August")
    assert t.writes() == []
    assert service.get_fact("ana", home.id).state.value == "active"
    # a fact that names it is ended
    job = service.write_fact("ana", "Works at Monzo", fact_type="identity").fact
    (w,) = turn(service, "I left Monzo last month").writes()
    assert (w.op, w.old_id) == ("supersede", job.id)


def test_inv221_a_promotion_keeps_the_employer(service):
    old = service.write_fact("ana", "Works as a data engineer at Spotify",
                             fact_type="identity").fact
    (w,) = turn(service, "I got promoted to team lead in October").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Works as a team lead at Spotify")
    # a new employer said with the role is kept as said
    (w2,) = turn(service, "Helio promoted me to staff engineer", user="bo").writes()
    assert w2.text == "Works as a staff engineer at Helio"


def test_inv222_giving_up_eating_or_drinking_is_a_constraint(service):
    (w,) = turn(service, "I've stopped eating meat").writes()
    assert (w.op, w.text) == ("write", "Does not eat meat")
    t = turn(service, "I gave up smoking in June", user="bo")
    (w2,) = t.writes()
    assert w2.text == "Does not smoke" and w2.valid_from is not None
    assert t.reply.startswith("Noted: you don't smoke")
    assert [w.text for w in turn(service, "I stopped eating out", user="cy").writes()] != [
        "Does not eat out"]
    # with the habit on record, giving it up replaces it
    old = service.write_fact("dee", "Drinks coffee every morning", fact_type="preference").fact
    (w3,) = turn(service, "I've given up drinking coffee", user="dee").writes()
    assert (w3.op, w3.old_id) == ("supersede", old.id)


def test_inv236_a_thing_that_is_not_mine_is_retracted(service):
    ring = service.write_fact("ana", "Owns a Ring doorbell").fact
    t = turn(service, "The Ring doorbell isn't mine, it's my landlord's")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("retract", ring.id)
    bike = service.write_fact("bo", "Owns a Trek bike").fact
    (w2,) = turn(service, "the trek doesn't belong to us", user="bo").writes()
    assert (w2.op, w2.old_id) == ("retract", bike.id)


def test_inv236_not_mine_any_more_or_not_mine_to_decide_is_no_denial(service):
    service.write_fact("ana", "Owns a Brompton")
    assert all(w.op != "retract" for w in turn(service, "The Brompton isn't mine any more, "
                                                          "I sold it").writes())
    assert turn(service, "That isn't mine to decide").writes() == []


def test_inv236_a_counted_list_keeps_its_names_and_loses_one(service):
    (w,) = turn(service, "I have two bikes, a Brompton and a Trek").writes()
    assert w.text == "Owns two bikes, a Brompton and a Trek"
    (w2,) = turn(service, "the Trek doesn't belong to me").writes()
    assert (w2.op, w2.text) == ("supersede", "Owns a Brompton")
    (tomb,) = service.store.list_tombstones("ana")
    assert tomb.text == "Owns a Trek"


def test_inv237_a_plan_called_off_replaces_the_plan(service):
    plan = service.write_fact("ana", "Going to Japan in April 2027").fact
    t = turn(service, "We cancelled the Japan trip")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", plan.id, "Trip to Japan cancelled")
    assert t.reply.startswith("Noted: your trip to Japan is cancelled")
    appt = service.write_fact("bo", "Dentist appointment on 9 December").fact
    (w2,) = turn(service, "the dentist appointment got called off", user="bo").writes()
    assert (w2.op, w2.old_id) == ("supersede", appt.id)


def test_inv237_nothing_on_record_or_no_plan_cancels_nothing(service):
    service.write_fact("ana", "Lives in Leeds", fact_type="identity")
    assert turn(service, "The party is off").writes() == []
    assert turn(service, "we had to call off the wedding").writes() == []
    assert turn(service, "Should I cancel the trip?").writes() == []
    assert turn(service, "We might cancel the wedding").writes() == []


def test_inv238_on_a_named_service_now_is_what_you_use(service):
    old = service.write_fact("ana", "Uses Spotify for music", fact_type="preference").fact
    (w,) = turn(service, "I don't use Spotify anymore, I'm on Apple Music now").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Uses Apple Music")
    (w2,) = turn(service, "we're with Octopus for energy", user="bo").writes()
    assert w2.text == "Uses Octopus for energy"


def test_inv238_holidays_days_and_people_are_no_service(service):
    for said in ("I'm on holiday", "I'm on Monday shifts now", "I'm with Tom now",
                 "I'm on Discord"):
        assert turn(service, said).writes() == [], said


def test_inv272_a_corrected_value_of_the_same_noun_is_retracted(service):
    old = service.write_fact("ana", "Birthday is 4 March", fact_type="identity").fact
    t = turn(service, "Actually my birthday is 3 March, not 4 March")
    ops = {(w.op, w.old_id) for w in t.writes()}
    assert ("retract", old.id) in ops or ("supersede", old.id) in ops
    assert [f.text for f in service.facts("ana", states=["active"])] == ["Birthday is 3 March"]


def test_inv272_boss_and_manager_are_one_role(service):
    old = service.write_fact("ana", "Manager is Dan", fact_type="identity").fact
    (w,) = turn(service, "My boss is now Priya Shah").writes()
    assert (w.op, w.old_id) == ("supersede", old.id)


def test_inv272_a_relatives_move_never_replaces_who_they_are(service):
    sister = service.write_fact("ana", "Sister is called Jess", fact_type="identity").fact
    t = turn(service, "Jess moved to Glasgow last month")
    (w,) = t.writes()
    assert (w.op, w.text) == ("write", "Sister Jess lives in Glasgow") and w.valid_from
    assert service.get_fact("ana", sister.id).state.value == "active"
    (w2,) = turn(service, "Jess moved to Leeds").writes()
    assert (w2.op, w2.old_id, w2.text) == ("supersede", w.memory_id, "Sister Jess lives in Leeds")
    assert turn(service, "Bob moved to Paris").writes() == []


def test_inv272_a_break_up_ends_the_partner_not_the_status(service):
    status = service.write_fact("ana", "Is divorced", fact_type="identity").fact
    mate = service.write_fact("ana", "Partner is Alex", fact_type="identity").fact
    (w,) = turn(service, "We broke up in September").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", mate.id, "Separated from Alex")
    assert service.get_fact("ana", status.id).state.value == "active"


def test_inv272_a_relatives_baby_keeps_its_name(service):
    (w,) = turn(service, "My sister Jess just had a baby boy called Leo").writes()
    assert w.text == "Sister Jess had a baby boy called Leo"


def test_inv237_not_going_after_all_calls_the_trip_off(service):
    plan = service.write_fact("ana", "Going to Berlin in March 2027").fact
    (w,) = turn(service, "I'm not going to Berlin after all").writes()
    assert (w.op, w.old_id) == ("supersede", plan.id)
    assert turn(service, "I'm not going to Berlin", user="bo").writes() == []


def test_inv238_a_provider_said_as_my_noun(service):
    (w,) = turn(service, "Our broadband is now with BT").writes()
    assert w.text == "Broadband is with BT"
    assert turn(service, "my car is with the mechanic", user="bo").writes() == []


def test_inv237_not_going_again_is_about_a_past_trip(service):
    service.write_fact("ana", "Went bouldering in Fontainebleau in October")
    assert turn(service, "I'm not going to Fontainebleau again this year, too cold").writes() == []


def test_inv274_what_stopped_about_someone_changes_the_fact_that_says_it(service):
    cabin = service.write_fact("ana", "Mochi flies with her in the cabin").fact
    passport = service.write_fact("ana", "Mochi has an EU pet passport").fact
    (w,) = turn(service, "Mochi doesn't fly with me anymore, she stays with Jan").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", cabin.id, "Mochi no longer flies with them")
    assert service.get_fact("ana", passport.id).state.value == "active"
    service.write_fact("bo", "Partner Tom works from home", fact_type="identity")
    assert turn(service, "Tom isn't vegan anymore", user="bo").writes() == []


def test_inv274_a_role_changes_inside_the_fact_that_holds_it(service):
    old = service.write_fact("ana", "Her name is Lena and she is a field service manager at "
                                    "Nordwind Turbines", fact_type="identity").fact
    (w,) = turn(service, "I'm now a senior field service manager").writes()
    assert (w.op, w.old_id, w.text) == (
        "supersede", old.id,
        "Her name is Lena and she is a senior field service manager at Nordwind Turbines")


def test_inv274_values_lose_instead_and_statuses_drop(service):
    old = service.write_fact("ana", "Runs 5k most mornings", fact_type="preference").fact
    (w,) = turn(service, "I don't run in the mornings anymore, I swim instead").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Swims")
    tier = service.write_fact("bo", "Has Senator status with Miles & More").fact
    (w2,) = turn(service, "I dropped to Frequent Traveller status", user="bo").writes()
    assert (w2.old_id, w2.text) == (tier.id, "Has Frequent Traveller status")
    assert turn(service, "I dropped to 60 kilos", user="cy").writes() == []


def test_inv274_a_name_with_an_inner_capital_keeps_it():
    from memory.understand.phrases import cap

    assert cap("eSIM provider is Holafly") == "eSIM provider is Holafly"
    assert cap("iPhone 15") == "iPhone 15" and cap("lives in Leeds") == "Lives in Leeds"


def test_inv305_a_job_question_is_answered_by_the_employer(service):
    service.write_fact("ana", "Works at Monzo", fact_type="identity")
    for q in ("what's my job?", "what do you remember about my job?"):
        t = turn(service, q)
        assert t.writes() == [] and "you work at Monzo" in t.reply, q


def session(svc, user, *messages):
    """Turns of one session, each with the user's earlier messages as history (as the desk and
    `memdesk chat --session` pass them)."""
    said, out = [], []
    for m in messages:
        out.append(run_turn(svc, user, "s-follow", m, agent=OfflineAgent(),
                            history=[{"role": "user", "content": h} for h in said]))
        said.append(m)
    return out


def test_inv306_i_meant_x_not_y_corrects_the_value_just_said(service):
    leeds = service.write_fact("ana", "Lives in Leeds", fact_type="identity").fact
    first, fix = session(service, "ana", "I just moved to Bristol", "sorry, I meant Bath, not Bristol")
    (moved,) = first.writes()
    (w,) = fix.writes()
    assert (w.op, w.old_id, w.text) == ("retract", moved.memory_id, "Lives in Bath")
    assert service.tombstone_match("ana", "Lives in Bristol") is not None
    assert service.get_fact("ana", leeds.id).state.value == "superseded"  # the move stands


def test_inv306_a_refinement_and_a_new_date(service):
    _, fix = session(service, "ana", "My new phone is a Pixel 9", "oops, it's a Pixel 9 Pro actually")
    (w,) = fix.writes()
    assert (w.op, w.text) == ("supersede", "Phone is a Pixel 9 Pro")  # refined: no tombstone
    assert service.store.list_tombstones("ana") == []
    _, fix2 = session(service, "bo", "My dentist appointment is on 9 December",
                      "make that 10 December")
    (w2,) = fix2.writes()
    assert w2.op == "retract" and "10 December" in (w2.text or "")


def test_inv306_no_correction_without_a_cue_or_a_previous_message(service):
    assert session(service, "ana", "it's raining here")[0].writes() == []
    _, t = session(service, "bo", "My new phone is a Pixel 9", "It is what it is")
    assert t.writes() == []
    assert session(service, "cy", "sorry, I meant Bath, not Bristol")[0].writes() == []


def test_inv306_the_cli_brings_the_sessions_earlier_messages(tmp_path, capsys):
    from memory.cli import main

    db = f"embedded:{tmp_path / 'm.db'}"
    args = ["--store", db, "chat", "--user", "ana", "--session", "s1"]
    assert main([*args, "--new-user", "I just moved to Bristol"]) == 0
    assert main([*args, "sorry, I meant Bath, not Bristol"]) == 0
    assert "Corrected: you live in Bath" in capsys.readouterr().out


def test_inv306_scratch_that_takes_one_item_back(service):
    _, fix = session(service, "ana", "I'm allergic to penicillin and also to latex",
                     "Scratch that, not latex, it's just penicillin")
    (w,) = fix.writes()
    assert (w.op, w.text) == ("supersede", "Allergic to penicillin") and w.tombstone_id
    (tomb,) = service.store.list_tombstones("ana")
    assert tomb.text == "Allergic to latex"


def test_inv317_a_place_and_i_is_no_we(service):
    t = turn(service, "I live in Leeds and I drink coffee")
    assert sorted(w.text for w in t.writes()) == ["Drinks coffee", "Lives in Leeds"]
    (w,) = turn(service, "My wife and I moved to York", user="bo").writes()
    assert w.text == "Lives in York"


def test_inv317_make_believe_writes_nothing(service):
    for said in ("Pretend I live in Tokyo", "In my novel the hero lives in Oslo",
                 "let's say I work at Google", "I sold my car, just kidding"):
        assert turn(service, said).writes() == [], said


def test_inv317_someone_named_is_not_yours():
    from memory.understand.speak import second_person

    assert second_person("Tom is allergic to nuts") == "Tom is allergic to nuts"
    assert second_person("Jess is a teacher") == "Jess is a teacher"
    assert second_person("Mochi is a cat") == "Mochi is a cat"
    assert second_person("Phone is a Pixel 9") == "your phone is a Pixel 9"
    assert second_person("Birthday is 4 March") == "your birthday is 4 March"


def test_inv317_a_birthday_month_and_a_corrected_one(service):
    (w,) = turn(service, "my birthday is in June").writes()
    assert w.text == "Birthday is in June" and w.valid_from is None
    old = service.write_fact("bo", "Birthday is in May", fact_type="identity").fact
    (w2,) = turn(service, "You've got it wrong, my birthday is in June not May", user="bo").writes()
    assert (w2.op, w2.old_id, w2.text) == ("retract", old.id, "Birthday is in June")


def test_inv317_a_forget_reply_says_you_are():
    from memory.agents.offline import _yours

    assert _yours("that I'm vegetarian") == "that you're vegetarian"
    assert _yours("said I was vegetarian") == "you said you were vegetarian"


def test_inv225_nothing_coming_up_is_said_so(service):
    service.write_fact("ana", "Lives in Leeds", fact_type="identity")
    assert turn(service, "what trips do I have planned?").reply == \
        "I have nothing on record coming up."


def test_inv318_this_last_and_next_month_date_a_fact():
    from datetime import date

    from memory.understand.dates import find_dates

    today = date(2026, 12, 1)
    assert find_dates("my son started at Oakfield Primary this September", today).valid_from == \
        date(2026, 9, 1)
    assert find_dates("flying next January", today).valid_from == date(2027, 1, 1)
    assert find_dates("I started last September", today).valid_from == date(2026, 9, 1)
    assert find_dates("this may work", today).valid_from is None  # the verb


def test_inv318_a_name_asked_for_and_working_from_home(service):
    old = service.write_fact("ana", "Name is Samantha", fact_type="identity").fact
    (w,) = turn(service, "please call me Sam from now on").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Name is Sam")
    (w2,) = turn(service, "I prefer to be called Jo", user="bo").writes()
    assert w2.text == "Name is Jo"
    (w3,) = turn(service, "I've started working from home full time", user="cy").writes()
    assert w3.text == "Works from home full time"
    assert [w.text for w in turn(service, "call me instead of texting", user="dee").writes()] == [
        "Prefers phone calls"]


def test_inv318_a_new_name_changes_only_the_name_in_a_compound_fact(service):
    old = service.write_fact("ana", "His name is Ravi and he is a backend developer",
                             fact_type="identity").fact
    (w,) = turn(service, "I prefer to be called Rav from now on").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id,
                                        "His name is Rav and he is a backend developer")
