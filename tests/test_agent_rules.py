"""The offline agent's general reading mechanisms end to end: one real turn on a real store per
mechanism (issue 12, invariants 137-141)."""

from __future__ import annotations

from datetime import timedelta

from memory.agent import run_turn
from memory.agents.offline import OfflineAgent
from memory.models import FactState

from .conftest import NOW


def turn(svc, text, user="ana"):
    return run_turn(svc, user, "s1", text, agent=OfflineAgent())


def active(svc, user="ana"):
    return sorted(f.text for f in svc.facts(user, states=["active"]))


def test_inv137_a_texter_without_capitals_or_subject(service):
    old = service.write_fact("ana", "Works at Deloitte", fact_type="identity").fact
    t = turn(service, "left deloitte joined kpmg")
    (w,) = t.writes()
    assert (w.op, w.status, w.old_id, w.text) == ("supersede", "applied", old.id, "Works at Kpmg")
    assert t.reply.startswith("Updated: you work at Kpmg")


def test_inv137_a_non_native_speaker(service):
    old = service.write_fact("ana", "Is vegan", fact_type="constraint").fact
    t = turn(service, "I am not more vegan, I eat again cheese and eggs.")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", old.id) and "cheese" in (w.text or "")
    assert service.get_fact("ana", old.id).state == FactState.SUPERSEDED


def test_inv138_two_clauses_one_change(service):
    old = service.write_fact("ana", "Uses an iPhone 12").fact
    t = turn(service, "Ditched the iPhone, I'm on a Galaxy S24 now.")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Uses a Galaxy S24")
    assert active(service) == ["Uses a Galaxy S24"]


def test_inv139_a_bare_weekday_is_a_date_not_a_word_of_the_value(service):
    old = service.write_fact("ana", "Has a dog called Rex").fact
    t = turn(service, "Our dog Rex is dead since Friday, we are very sad.")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Rex has died")
    assert w.valid_from == (NOW - timedelta(days=2)).date()  # NOW is a Sunday


def test_inv140_a_preference_switch_replaces_the_one_value_of_its_kind(service):
    service.write_fact("ana", "Drinks tea, never coffee", fact_type="preference")
    aisle = service.write_fact("ana", "Always wants an aisle seat", fact_type="preference").fact
    t = turn(service, "I prefer the window now")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", aisle.id, "Prefers the window")


def test_inv140_never_there_it_was_elsewhere(service):
    old = service.write_fact("ana", "Lives in Tōkyō", fact_type="identity").fact
    t = turn(service, "I never lived in Tōkyō, it was Ōsaka 🙏")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("retract", old.id, "Lives in Ōsaka")
    assert service.get_fact("ana", old.id).state == FactState.RETRACTED


def test_inv141_an_ending_with_nothing_on_record_writes_nothing(service):
    service.write_fact("ana", "Lives in Leeds", fact_type="identity")
    for text in ("Binned the SmartThings hub ages ago, mate", "sold the fiesta",
                 "My colleague Dave, who sits next to me, is obsessed with triathlons.",
                 "I wish I had a dog"):
        t = turn(service, text)
        assert t.writes() == [], text
    assert active(service) == ["Lives in Leeds"]


def test_inv140_a_move_away_from_a_thing_they_use_is_a_switch(service):
    old = service.write_fact("ana", "Uses Spotify", fact_type="preference").fact
    home = service.write_fact("ana", "Lives in Leeds", fact_type="identity").fact
    t = turn(service, "I've moved from Spotify to Apple Music")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Uses Apple Music")
    assert service.get_fact("ana", home.id).state == FactState.ACTIVE


def test_inv140_a_new_home_is_not_already_known_from_a_visit(service):
    service.write_fact("ana", "Back in Leeds for Christmas, staying with friends")
    home = service.write_fact("ana", "Lives in Bristol", fact_type="identity").fact
    t = turn(service, "I've moved back to Leeds")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", home.id, "Lives in Leeds")


def test_inv139_a_move_planned_for_march_replaces_the_home_from_march(service):
    # invariant 358 (amending 139): said alone, with a home on record, the planned move
    # supersedes the home from its date; the home stays true until then in valid time
    home = service.write_fact("ana", "Lives in Bristol", fact_type="identity").fact
    t = turn(service, "I'm moving to Berlin in March")
    (w,) = t.writes()
    assert (w.op, w.text, w.old_id) == ("supersede", "Lives in Berlin", home.id)
    assert w.valid_from is not None and w.valid_from > NOW.date()
    assert service.get_fact("ana", home.id).valid_to.date() == w.valid_from
    assert t.reply.startswith("Noted: you're moving to Berlin")
    (p,) = turn(service, "I'm moving to Berlin in March", user="bo").writes()  # no home: a plan
    assert (p.op, p.text, p.old_id) == ("write", "Moving to Berlin", None)


def test_inv138_two_clauses_two_dates_one_turn(service):
    t = turn(service, "I moved to Bath in March and started at the RUH in April")
    got = sorted((w.text, w.valid_from.month if w.valid_from else None) for w in t.writes())
    assert got == [("Lives in Bath", 3), ("Works at RUH", 4)]


def test_inv140_you_got_it_wrong_is_a_harsh_replacement(service):
    old = service.write_fact("ana", "Lives in Leeds", fact_type="identity").fact
    t = turn(service, "You've got it wrong, I live in York")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("retract", old.id, "Lives in York")
    assert service.get_fact("ana", old.id).state == FactState.RETRACTED


def test_inv140_our_dog_died_ends_the_one_dog_on_record(service):
    service.write_fact("ana", "Prefers email")
    dog = service.write_fact("ana", "Has a beagle called Biscuit who chews cables").fact
    t = turn(service, "our dog died on Friday 😢")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", dog.id, "Their dog has died")
    assert t.reply.startswith("Updated: your dog has died")


# --- invariants 155-157 ------------------------------------------------------------------------
def test_inv155_a_change_of_car_replaces_the_car_on_record_by_kind(service):
    car = service.write_fact("ana", "Drives a Volkswagen Golf").fact
    phone = service.write_fact("ana", "Has an iPhone 12").fact
    t = turn(service, "I changed my car, now I have a Peugeot")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", car.id, "Owns a Peugeot")
    assert service.get_fact("ana", phone.id).state == FactState.ACTIVE
    t = turn(service, "switched banks, I'm with Starling now")
    (w,) = t.writes()
    assert (w.op, w.text) == ("write", "Bank is Starling")  # no bank on record: a new fact


def test_inv155_sold_x_bought_y_keeps_the_new_thing_even_when_x_is_unknown(service):
    bike = service.write_fact("ana", "Owns a Trek bike").fact
    t = turn(service, "We sold the Tesla and bought an e-bike")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("write", None, "Owns an e-bike")
    assert service.get_fact("ana", bike.id).state == FactState.ACTIVE  # never the other bike


def test_inv155_the_hypothetical_clause_only_and_a_switch_back(service):
    job = service.write_fact("ana", "Works at Initech", fact_type="identity").fact
    editor = service.write_fact("ana", "Main editor is Helix", fact_type="preference").fact
    t = turn(service, "I got a new job at Acme, might move to Leeds later")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", job.id, "Works at Acme")
    t = turn(service, "Actually I don't use Helix anymore, back to Neovim")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", editor.id, "Uses Neovim")
    assert turn(service, "If I get the job at Acme I might move to Leeds").writes() == []


def test_inv156_a_relatives_wedding_is_a_dated_fact_about_them(service):
    t = turn(service, "my brother Jonas got married last month")
    (w,) = t.writes()
    assert (w.op, w.text, w.valid_from) == ("write", "Brother Jonas got married",
                                            NOW.date().replace(month=5, day=1))
    t = turn(service, "My sister Amara lives in Leeds. She just got engaged!")
    assert sorted(w.text for w in t.writes()) == ["Sister Amara got engaged",
                                                  "Sister Amara lives in Leeds"]
    assert turn(service, "my sister's friend got married last weekend").writes() == []


def test_inv157_a_trip_and_a_work_pattern_but_not_one_day(service):
    (w,) = turn(service, "just got back from Porto, loved it").writes()
    assert (w.op, w.text) == ("write", "Visited Porto")
    (w,) = turn(service, "Oh and I'm now working remotely on Fridays").writes()
    assert (w.op, w.text) == ("write", "Works remotely on Fridays")
    assert turn(service, "working from home today, the trains are on strike").writes() == []
    assert turn(service, "Just back from Lidl").writes() == []


def test_inv140_leaving_an_employer_on_record_is_not_leaving_a_home(service):
    job = service.write_fact("ana", "Works at Acme", fact_type="identity").fact
    (w,) = turn(service, "I left Acme").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", job.id, "No longer works at Acme")


def test_inv155_instead_of_names_the_old_value(service):
    old = service.write_fact("ana", "Uses Notion for notes", fact_type="preference").fact
    (w,) = turn(service, "I started using Obsidian instead of Notion").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Uses Obsidian")


def test_inv156_a_relatives_new_job_replaces_their_job_on_record(service):
    old = service.write_fact("ana", "Partner Zoë works at Acme", fact_type="identity").fact
    (w,) = turn(service, "My partner Zoë got a job at Ørsted").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Partner Zoë works at Ørsted")


def test_inv162_someone_elses_words_and_moves_write_nothing(service):
    service.write_fact("ana", "Lives in London", fact_type="identity")
    service.write_fact("ana", "Eats meat", fact_type="preference")
    for text in ('She told me "I\'m vegan now" and I nearly choked', "my boss moved to Berlin",
                 "Tom sold his car and bought a bike", "sis moved to leeds"):
        t = turn(service, text)
        assert [w for w in t.writes() if not (w.text or "").startswith("Sister")] == [], text
    assert active(service) == ["Eats meat", "Lives in London", "Sister lives in Leeds"]


def test_inv163_a_bare_place_replaces_only_a_home_on_record(service):
    assert turn(service, "Leeds now").writes() == []  # no home on record: nothing to replace
    old = service.write_fact("ana", "Lives in York", fact_type="identity").fact
    service.write_fact("ana", "Uses Spotify", fact_type="preference")
    assert turn(service, "Spotify now").writes() == []
    (w,) = turn(service, "Lisbon now 🇵🇹").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Lives in Lisbon")


def test_inv163_a_switch_to_the_value_named_as_the_rival_replaces_it(service):
    old = service.write_fact("ana", "Uses ZHA rather than Zigbee2MQTT", fact_type="preference").fact
    (w,) = turn(service, "switched to Zigbee2MQTT").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Uses Zigbee2MQTT")


def test_inv163_work_in_an_employer_and_a_new_job_replace_the_employer(service):
    old = service.write_fact("ana", "Works at Bosch", fact_type="identity").fact
    (w,) = turn(service, "I work in Siemens").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Works at Siemens")
    (w,) = turn(service, "new job: data analyst at Monzo").writes()
    assert (w.op, w.text) == ("supersede", "Works as a data analyst at Monzo")
    assert active(service) == ["Works as a data analyst at Monzo"]


def test_inv163_sold_the_car_alone_ends_the_one_car_on_record(service):
    assert turn(service, "Sold the car.").writes() == []  # no car on record (invariant 141)
    old = service.write_fact("ana", "Drives a Ford Fiesta", fact_type="world").fact
    (w,) = turn(service, "Sold the car. Bought a bike.").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Owns a bike")


def test_inv163_now_at_after_leaving_is_a_new_employer_only(service):
    old = service.write_fact("ana", "Works at Acme", fact_type="identity").fact
    (w,) = turn(service, "Left Acme last month. Now at Globex.").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Works at Globex")
    service.write_fact("ana", "Lives in London", fact_type="identity")
    assert turn(service, "Left London. Now at Bristol Uni.").writes() == []


def test_inv164_irony_and_a_question_tail_in_a_turn(service):
    assert turn(service, "oh sure, I LOVE sitting in traffic").writes() == []
    home = service.write_fact("ana", "Lives in York", fact_type="identity").fact
    t = turn(service, "moved to Hull last month, any good cafés?")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.text) == ("supersede", home.id, "Lives in Hull")


def test_inv165_a_named_persons_move_changes_only_their_fact_on_record(service):
    assert turn(service, "priya's moved to cardiff").writes() == []  # nobody called Priya on record
    sis = service.write_fact("ana", "Her sister Priya lives in Swansea", fact_type="identity").fact
    service.write_fact("ana", "Lives in Bath", fact_type="identity")
    (w,) = turn(service, "priya's moved to cardiff").writes()
    # the relation on record stays with the new value (invariant 272)
    assert (w.op, w.old_id, w.text) == ("supersede", sis.id, "Sister Priya lives in Cardiff")
    assert "Lives in Bath" in active(service)


def test_inv165_a_named_persons_new_job_is_never_the_users(service):
    mine = service.write_fact("ana", "Works at Acme", fact_type="identity").fact
    partner = service.write_fact("ana", "Her partner Sam works from home", fact_type="identity").fact
    (w,) = turn(service, "sam got a new job at the library").writes()
    assert (w.op, w.old_id) == ("supersede", partner.id) and "Sam" in (w.text or "")
    assert service.get_fact("ana", mine.id).state == FactState.ACTIVE


def test_inv165_relatives_facts_are_about_them(service):
    t = turn(service, "my son's got a peanut allergy")
    (w,) = t.writes()
    assert (w.op, w.text) == ("write", "Son is allergic to peanut")
    assert turn(service, "my partner's working from home today").writes() == []


def test_inv166_pastime_commute_and_a_plan_in_passing(service):
    texts = [w.text for text in ("took up pottery", "i cycle to work")
             for w in turn(service, text).writes()]
    assert texts == ["Does pottery", "Cycles to work"]
    home = service.write_fact("ana", "Lives in York", fact_type="identity").fact
    (w,) = turn(service, "Found a flat in Leeds, moving in March").writes()
    assert (w.op, w.text, w.old_id) == ("write", "Moving to Leeds", None)
    assert service.get_fact("ana", home.id).state == FactState.ACTIVE


def test_inv166_notice_and_a_new_employer_is_one_supersession(service):
    old = service.write_fact("ana", "Works at Initech", fact_type="identity").fact
    (w,) = turn(service, "handed in my notice at initech, starting at Hooli in January").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Works at Hooli")
    assert w.valid_from is not None and w.valid_from.month == 1


def test_inv167_a_hedged_lead_goes_to_review(service):
    (w,) = turn(service, "pretty sure my blood type is O negative").writes()
    assert (w.op, w.status, w.text) == ("write", "review", "Blood type is O negative")


def test_inv202_a_hedged_correction_waits_for_review_and_retracts_nothing(service):
    # (a locker number: a gate code is a secret memory never keeps, invariant 273)
    old = service.write_fact("ana", "Locker number is 4521").fact
    (w,) = turn(service, "I think the locker number is 4512, not 4521? not 100% sure").writes()
    assert (w.op, w.status, w.old_id) == ("supersede", "review", old.id)
    assert "4512" in (w.text or "")
    # nothing is marked never true: the old value stays on record until an operator decides
    assert service.get_fact("ana", old.id).state == FactState.ACTIVE
    assert service.tombstone_match("ana", "Locker number is 4521") is None
    # said plainly, the same correction retracts at once (invariant 73)
    old = service.write_fact("bo", "The smoke alarms take CR1632 batteries").fact
    (w,) = turn(service, "The smoke alarms take CR2032 batteries, not CR1632", user="bo").writes()
    assert (w.op, w.status, w.old_id) == ("retract", "applied", old.id)


def test_inv204_a_value_cut_short_is_never_written(service):
    from memory.agents.offline import _incomplete

    assert _incomplete("Bruno is") and _incomplete("Owns a") and _incomplete("Works at")
    assert not _incomplete("Runs") and not _incomplete("Lives in Porto")
    old = service.write_fact("ana", "Her dog Bruno stays with her sister Rita when she travels").fact
    t = turn(service, "My dog Bruno is now living with me in Porto, not anymore with Rita.")
    assert t.writes() == []
    assert service.get_fact("ana", old.id).state == FactState.ACTIVE
    assert "haven't noted" in t.reply


def test_inv149_forget_my_commute_names_how_the_user_gets_to_work(service):
    job = service.write_fact("ana", "Works at Acme as a data analyst", fact_type="identity").fact
    ride = service.write_fact("ana", "Takes the 8:05 bus to the office").fact
    (w,) = turn(service, "Forget my commute info, I'd rather you didn't keep it").writes()
    assert (w.op, w.memory_id) == ("forget", ride.id)
    assert service.get_fact("ana", job.id).state == FactState.ACTIVE
