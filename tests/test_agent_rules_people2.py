"""People and life events in the user's own voice (issue 12, invariants 330-336): managers,
relatives who moved or died, the names a life event brings, forgetting a person. One real turn
on a real store each (tests/agent_support.py); every phrasing is new."""

from __future__ import annotations

from datetime import date

from memory.models import FactState

from .agent_support import active, one_supersede, turn


# --- invariant 330: the manager, in the shapes people say it ---------------------------------
def test_inv330_a_manager_from_a_month_on_is_dated(service):
    w = one_supersede(service, "Starting in March my line manager will be Oluwaseun.",
                      "Manager is Greta", "Oluwaseun", fact_type="identity")
    assert w.valid_from == date(2026, 3, 1)


def test_inv330_a_new_boss_named_first_and_one_reported_to(service):
    w = one_supersede(service, "Bartek is my new boss, he started on Monday.",
                      "Her manager is Pete", "Bartek", fact_type="identity")
    assert w.text == "Manager is Bartek" and w.valid_from is not None
    old = service.write_fact("bo", "His manager is Hamid", fact_type="identity").fact
    t = turn(service, "Long story, but I now report to a woman called Ingrid rather than Hamid.",
             user="bo")
    (w2,) = t.writes()
    assert (w2.op, w2.old_id, w2.text) == ("supersede", old.id, "Manager is Ingrid")


def test_inv330_a_hedged_report_or_a_nationality_writes_no_manager(service):
    service.write_fact("ana", "Her manager is Pete", fact_type="identity")
    assert turn(service, "I might report to someone called Ingrid instead of Pete next year").writes() == []
    assert turn(service, "My manager is Irish, funnily enough.").writes() == []
    assert active(service) == ["Her manager is Pete"]


# --- invariant 331: a relative on record who moved -------------------------------------------
def test_inv331_a_move_from_one_place_to_another_replaces_their_place(service):
    w = one_supersede(service, "Tomasz has moved from Leeds to York for work.",
                      "His brother Tomasz is a plumber in Leeds", "York", fact_type="identity")
    assert w.text == "Brother Tomasz lives in York"


def test_inv331_the_closer_place_said_after_the_move_is_kept(service):
    w = one_supersede(service, "Ines moved to Porto last month. She's renting a flat in Foz do Douro.",
                      "Her cousin Ines lived near her in Braga", "Foz do Douro", "Porto",
                      fact_type="identity")
    assert w.text == "Cousin Ines lives in Foz do Douro, Porto"
    w2 = one_supersede(service, "Kemi has moved back to the US, he's in Denver now.",
                       "Her brother Kemi lives in Lagos", "Denver", fact_type="identity")
    assert w2.text.startswith("Brother Kemi lives in Denver")


def test_inv331_a_move_not_yet_dated_or_of_someone_unknown_writes_nothing(service):
    service.write_fact("ana", "Her cousin Ines lives in Braga", fact_type="identity")
    assert turn(service, "Ines is moving to Porto, apparently.").writes() == []
    assert turn(service, "Marta moved from Oslo to Bergen.").writes() == []
    assert active(service) == ["Her cousin Ines lives in Braga"]


# --- invariant 332: forgetting a person ------------------------------------------------------
def test_inv332_everything_about_the_ex_is_forgotten(service):
    a = service.write_fact("ana", "Her ex-wife is Carla", fact_type="identity").fact
    b = service.write_fact("ana", "Carla has the dog on weekends").fact
    service.write_fact("ana", "Works as a chef in Bath", fact_type="identity")
    t = turn(service, "Could you wipe everything you know about my ex?")
    assert sorted(w.old_id for w in t.writes() if w.op == "forget") == sorted([a.id, b.id])
    assert active(service) == ["Works as a chef in Bath"]


def test_inv332_a_person_named_after_a_lead_in_is_forgotten(service):
    service.write_fact("ana", "Flatmate Rashid plays the cello", fact_type="world")
    service.write_fact("ana", "Likes jazz", fact_type="preference")
    t = turn(service, "please forget anything about Rashid, I'd rather not keep him in here")
    assert [w.op for w in t.writes()] == ["forget"]
    assert active(service) == ["Likes jazz"]
    service.write_fact("bo", "His ex-girlfriend is Noor", fact_type="identity")
    t = turn(service, "sorry this is weird but can you forget my ex, Noor?", user="bo")
    assert [w.op for w in t.writes()] == ["forget"] and active(service, "bo") == []


def test_inv332_a_target_sharing_one_word_forgets_nothing(service):
    service.write_fact("ana", "Has a Spanish NIE tax number")
    t = turn(service, "Please forget my library card number.")
    assert t.writes() == [] and active(service) == ["Has a Spanish NIE tax number"]


# --- invariant 333: the names a life event brings --------------------------------------------
def test_inv333_a_baby_and_the_partner_are_named(service):
    t = turn(service, "My husband Kofi and I had our second baby, a girl named Efua, on 2 May!")
    texts = sorted(w.text for w in t.writes())
    assert texts == ["Had a baby called Efua", "Husband is called Kofi"]
    (w,) = turn(service, "My son was born on 3 May: Rory James, 3.5 kg.", user="bo").writes()
    assert w.text == "Son Rory James was born" and w.valid_from == date(2025, 5, 3)
    (w2,) = turn(service, "Our baby girl Maeve arrived on 12 May!", user="cy").writes()
    assert w2.text == "Baby girl Maeve was born"


def test_inv333_pets_and_weddings_keep_their_names_and_place(service):
    (w,) = turn(service, "Got a rabbit from a rescue last week, his name is Biscuit.").writes()
    assert w.text == "Has a rabbit called Biscuit"
    (w2,) = turn(service, "We adopted two dogs from a farm, Bonnie and Clyde.", user="bo").writes()
    assert "Bonnie and Clyde" in w2.text
    (w3,) = turn(service, "My fiancé Tariq and I are getting married on 9 August in Lahore!",
                 user="cy").writes()
    assert w3.text == "Is getting married to Tariq in Lahore"
    (w4,) = turn(service, "My sister is getting married in Bruges on 2 October.", user="di").writes()
    assert "Bruges" in w4.text


def test_inv333_someone_elses_name_is_not_the_babys(service):
    t = turn(service, "We had a baby boy last week and the midwife's name is Joan.")
    (w,) = t.writes()
    assert "Joan" not in w.text


# --- invariant 334: a relationship named; a partner's diet ------------------------------------
def test_inv334_seeing_someone_named_replaces_single(service):
    w = one_supersede(service, "I've been dating someone since the summer. His name is Idris.",
                      "Is single", "Idris", fact_type="identity")
    assert w.text == "Is in a relationship with Idris"
    (w2,) = turn(service, "My husband Rui is vegetarian, so no meat at home.", user="bo").writes()
    assert w2.text == "Husband Rui is vegetarian"


def test_inv334_a_hedged_or_nameless_relationship_writes_nothing(service):
    service.write_fact("ana", "Is single", fact_type="identity")
    assert turn(service, "I might start seeing someone, her name is Lou.").writes() == []
    assert turn(service, "I've started seeing someone, early days though.").writes() == []
    assert active(service) == ["Is single"]


# --- invariant 335: a relative or a pet who died ---------------------------------------------
def test_inv335_a_death_supersedes_the_fact_about_them(service):
    one_supersede(service, "My grandpa passed away on Friday.", "His grandfather lives in Sligo",
                  fact_type="identity")
    old = service.write_fact("bo", "Has a tabby cat called Whiskers").fact
    (w,) = turn(service, "We had to put Whiskers down last week.", user="bo").writes()
    assert (w.op, w.old_id) == ("supersede", old.id)
    assert service.get_fact("bo", old.id).state == FactState.SUPERSEDED


def test_inv335_two_facts_about_them_are_left_alone(service):
    service.write_fact("ana", "Her grandmother lives in Cork", fact_type="identity")
    service.write_fact("ana", "Her grandmother is 90", fact_type="identity")
    for w in turn(service, "My nan died in the spring.").writes():
        assert w.op == "write"
    assert "Her grandmother lives in Cork" in active(service)


# --- invariant 336: an emphatic "do" -------------------------------------------------------
def test_inv336_do_have_is_have(service):
    (w,) = turn(service, "We got it sorted, so we really do have a tortoise called Fred now.").writes()
    assert w.text == "Has a tortoise called Fred"


def test_inv336_a_question_or_a_denial_keeps_its_reading(service):
    service.write_fact("ana", "Has a car")
    assert turn(service, "Do I have a car on record?").writes() == []
    assert [w.op for w in turn(service, "I don't have a tortoise, never did.").writes()] in ([], ["retract"])
    assert active(service) == ["Has a car"]


def test_inv335_one_of_a_pair_died_and_the_other_stays(service):
    w = one_supersede(service, "Ginger died at the weekend, so it's only Fudge now.",
                      "Has two hamsters, Ginger and Fudge", "Fudge")
    assert w.text == "Has a hamster called Fudge"


def test_inv335_a_pet_named_only_in_other_facts_is_news_of_its_own(service):
    service.write_fact("ana", "Luna has a microchip and a rabies jab")
    service.write_fact("ana", "Her dog Luna stays with her mum when she travels")
    (w,) = turn(service, "Luna passed away on Tuesday, she was fifteen.").writes()
    assert (w.op, w.text) == ("write", "Luna has died")
    assert len(active(service)) == 3


def test_inv335_a_new_pet_said_of_an_old_one_changes_nothing_about_it(service):
    service.write_fact("ana", "Has a collie called Skye")
    t = turn(service, "Skye has a baby brother now, we adopted a kitten called Miso on Sunday.")
    (w,) = t.writes()
    assert (w.op, w.text) == ("write", "Has a kitten called Miso")


# --- invariant 337: a relative who moved in; a birthday's new age -----------------------------
def test_inv337_a_relative_moving_in_replaces_where_they_lived(service):
    w = one_supersede(service, "Dad moved in with us in Dundee in March.", "His father lives in Perth",
                      "Dundee", fact_type="identity")
    assert w.valid_from == date(2025, 3, 1)
    (w2,) = turn(service, "My mother-in-law is moving in with us in August.", user="bo").writes()
    assert w2.text == "Mother-in-law lives with them" and w2.valid_from == date(2025, 8, 1)


def test_inv337_moving_in_with_no_when_writes_nothing(service):
    assert turn(service, "My mum's moving in with us, she can't manage the stairs.").writes() == []


def test_inv337_a_birthday_changes_the_age_inside_the_fact(service):
    w = one_supersede(service, "Ravi turned seven yesterday!", "Has two sons, Ravi (6) and Dev (3)",
                      "Ravi (7)", "Dev (3)", fact_type="identity")
    assert w.text == "Has two sons, Ravi (7) and Dev (3)"


def test_inv337_a_birthday_with_no_age_on_record_writes_nothing(service):
    service.write_fact("ana", "Has a son called Ravi", fact_type="identity")
    assert turn(service, "Ravi turned seven yesterday!").writes() == []


# --- invariant 338: where someone on record works changed ------------------------------------
def test_inv338_their_work_place_replaces_working_from_home(service):
    w = one_supersede(service, "Sam's gone back to the office full time since the start of May.",
                      "Her husband Sam works from home most days", "office", fact_type="identity")
    assert w.text == "Husband Sam works in the office full time" and w.valid_from == date(2025, 5, 1)
    old = service.write_fact("bo", "His wife Ana works remotely for a bank", fact_type="identity").fact
    (w2,) = turn(service, "Ana got a new job in Leeds, so she's on the train a lot.", user="bo").writes()
    assert (w2.old_id, w2.text) == (old.id, "Wife Ana works in Leeds")


def test_inv338_no_work_fact_about_them_writes_nothing(service):
    service.write_fact("ana", "Her husband Sam plays the drums", fact_type="identity")
    assert turn(service, "Sam's gone back to the office full time.").writes() == []
    assert turn(service, "Priya got a new job in Leeds.").writes() == []


def test_inv333_a_birth_ends_the_pregnancy_and_a_name_with_the_weight_is_kept(service):
    w = one_supersede(service, "Baby Rosa arrived on 20 May, 3 kg, all well.", "Is pregnant, due in July",
                      "Rosa", fact_type="identity")
    assert w.text == "Baby Rosa was born"
    (w2,) = turn(service, "We had a baby girl on Monday! Aoife, 7 lb, and we're all tired.", user="bo").writes()
    assert w2.text == "Had a baby girl called Aoife"


# --- invariant 339: "forget anything about her" after naming her -----------------------------
def test_inv339_a_pronoun_to_forget_is_the_person_named_before(service):
    old = service.write_fact("ana", "Boyfriend is called Marco", fact_type="identity").fact
    t = turn(service, "Marco and I split up last month. Please forget anything about him.")
    assert [(w.op, w.old_id) for w in t.writes()] == [("forget", old.id)]
    assert active(service) == []


def test_inv339_two_people_named_leave_the_pronoun_unresolved(service):
    service.write_fact("ana", "Boyfriend is called Marco", fact_type="identity")
    service.write_fact("ana", "Sister Lucia lives in Rome", fact_type="identity")
    t = turn(service, "Marco and Lucia fell out. Please forget anything about him.")
    assert [w.op for w in t.writes() if w.op == "forget"] == []
    assert len(active(service)) == 2


def test_inv330_the_new_holder_said_after_the_old_one_left(service):
    w = one_supersede(service, "Kasia moved teams, so she isn't my boss any more. It's Femi now.",
                      "Manager is Kasia", "Femi", fact_type="identity")
    assert w.text == "Manager is Femi"
    assert turn(service, "It's Femi now, he's great.", user="bo").writes() == []


def test_inv335_the_later_of_two_status_changes_holds(service):
    w = one_supersede(service, "We separated in the spring and the divorce came through last week.",
                      "Is married to Owen", "divorced", fact_type="identity")
    assert w.text == "Is divorced"


def test_inv331_moving_to_an_office_is_no_home(service):
    service.write_fact("ana", "Her cousin Ola lives in Kraków", fact_type="identity")
    assert turn(service, "Ola moved to the Warsaw office last month.").writes() == []


def test_inv336_a_single_parent_with_children_named_and_aged(service):
    (w,) = turn(service, "I'm a single mum with three girls, Zoe who's 12, Amy who's 9 and Liv who's 4.").writes()
    assert w.text == "Has three girls, Zoe (12), Amy (9) and Liv (4)"


def test_inv333_a_baby_on_the_way_is_kept_with_when_it_is_due(service):
    (w,) = turn(service, "We're expecting our third in March, a boy this time!").writes()
    assert w.text == "Is expecting a baby, due in March 2026"


def test_inv333_a_relatives_divorce_in_the_making_is_not_kept(service):
    assert turn(service, "My brother's getting divorced and it's all very sad.").writes() == []


def test_inv333_a_pet_named_in_the_next_message(service):
    from memory.agent import run_turn
    from memory.agents.offline import OfflineAgent

    said = [{"role": "user", "content": "We rescued a cat on Saturday."}]
    t = run_turn(service, "ana", "s1", "His name is Tofu, he's a ginger tabby cat.", agent=OfflineAgent(),
                 history=said)
    (w,) = t.writes()
    assert w.text == "Has a ginger tabby cat called Tofu"
    other = [{"role": "user", "content": "My neighbour came round for tea."}]
    t2 = run_turn(service, "bo", "s2", "Her name is Tofu.", agent=OfflineAgent(), history=other)
    assert t2.writes() == []


def test_inv337_a_dated_stay_is_kept_and_an_undated_one_is_not(service):
    (w,) = turn(service, "My in-laws are coming from Cork to stay with us in Leeds from 20 June.").writes()
    assert w.text == "In-laws are staying with them in Leeds" and w.valid_from == date(2025, 6, 20)
    assert turn(service, "My sister is staying with us at the moment.", user="bo").writes() == []


def test_inv337_a_visit_coming_in_a_month_is_the_next_one(service):
    (w2,) = turn(service, "My parents are coming to visit me in Oslo in February.", user="bo").writes()
    assert w2.text == "Parents are visiting them in Oslo" and w2.valid_from == date(2026, 2, 1)
    assert turn(service, "My parents came to visit me in Oslo in February.", user="cy").writes() == []


def test_inv338_a_promotion_changes_the_role_inside_their_fact(service):
    w = one_supersede(service, "Chidi has been promoted to senior pharmacist!",
                      "His brother Chidi is a pharmacist at Boots in Leeds", "senior pharmacist",
                      fact_type="identity")
    assert w.text == "His brother Chidi is a senior pharmacist at Boots in Leeds"
    assert turn(service, "Dara has been promoted to head chef.", user="bo").writes() == []
    assert turn(service, "Chidi has been promoted to the first team.").writes() == []


def test_inv334_seeing_a_doctor_or_a_curious_diet_is_no_relationship(service):
    service.write_fact("ana", "Is single", fact_type="identity")
    assert turn(service, "I've been seeing someone called Dr Okoro about my knee.").writes() == []
    assert turn(service, "My partner Jules is vegan-curious these days.", user="bo").writes() == []
    assert active(service) == ["Is single"]


def test_inv330_a_new_manager_after_the_old_one_leaves_in_one_breath(service):
    one_supersede(service, "Leon is off to another company next month 🙁 my new boss will be Ada from the platform team",
                  "His manager at Acme is Leon", "Ada", fact_type="identity")


def test_inv334_a_while_of_seeing_someone_is_no_doctor(service):
    one_supersede(service, "I've been seeing someone for a couple of months now. Her name is Wren.",
                  "Is single", "Wren", fact_type="identity")


def test_inv338_a_manager_promoted_away_is_the_managers_change(service):
    w = one_supersede(service, "Ines got promoted to area director, so she's not my boss any more. It's Tariq now.",
                      "Manager is Ines", "Tariq", fact_type="identity")
    assert w.text == "Manager is Tariq"
