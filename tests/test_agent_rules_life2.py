"""Health, diet, habits, documents, exams and dated plans said plainly (issue 12, invariants
340-349): each class is pinned by new phrasings, never the tuning sentences, with a case that
must write nothing or must not misfire. The service clock stands at 2025-06-01."""

from __future__ import annotations

from datetime import date

from memory.understand.statements import understand

from .agent_support import active, one_supersede, turn

TODAY = date(2025, 6, 1)


def read(text):
    return [(s.act, s.text) for s in understand(text, TODAY, []).statements]


def written(t):
    return [(w.op, w.text) for w in t.writes()]


# --- invariant 340: "if <someone> ever ..." is a condition ------------------------------------
def test_inv340_if_someone_ever_is_a_condition(service):
    for text in ("If Acme ever posts me to Dubai I'm bringing the cat along.",
                 "if grandma ever visits we're cooking paella every night",
                 "If the bank ever calls I'm telling them to close it."):
        assert turn(service, text).writes() == [], text
    assert active(service) == []


def test_inv340_a_plain_statement_still_writes(service):
    t = turn(service, "I'm allergic to penicillin.")
    assert [w.op for w in t.writes()] == ["write"]


# --- invariant 341: a day or the weekend somewhere, undated, is an outing ---------------------
def test_inv341_the_weekend_away_writes_nothing(service):
    for text in ("Spent the weekend in Ghent, gorgeous place, would go again.",
                 "We had a lovely day in Bruges, great chocolate.",
                 "I spent the afternoon in Whitby"):
        assert turn(service, text).writes() == [], text


def test_inv341_a_longer_or_dated_stay_is_still_a_trip():
    assert read("We spent two weeks in Crete in August.") == [("assert", "Visited Crete")]
    assert read("We spent a long weekend in Ghent in March, lovely") == [("assert", "Visited Ghent")]


# --- invariant 342: giving up alcohol is not drinking it --------------------------------------
def test_inv342_gave_up_alcohol_is_a_constraint(service):
    for text, user in (("I've given up alcohol, feeling great.", "ana"), ("Gave up the booze in March.", "bo")):
        (w,) = turn(service, text, user=user).writes()
        assert (w.op, w.text) == ("write", "Does not drink alcohol"), text
    (w,) = turn(service, "Gave up the booze in March.", user="cy").writes()
    assert w.valid_from is not None and str(w.valid_from).startswith("2025-03")


def test_inv342_giving_up_something_else_with_nothing_on_record_writes_nothing(service):
    assert turn(service, "I gave up the gym in March.").writes() == []


# --- invariant 343: a renewed document, an extension, an EpiPen -------------------------------
def test_inv343_the_new_one_replaces_the_document_on_record(service):
    w = one_supersede(service, "Renewed my ID card, the new one's valid until 2034.",
                      "ID card expires on 3 March 2026", "2034")
    assert w.text == "ID card expires in 2034"


def test_inv343_an_extension_approved_until_a_date(service):
    one_supersede(service, "Great news: my work permit extension was approved until March 2029.",
                  "Work permit expires on 30 June 2025", "2029")


def test_inv343_an_epipen_expiry_is_kept(service):
    (w,) = turn(service, "My EpiPens expire in August 2026, remind me nearer the time.").writes()
    assert (w.op, w.text) == ("write", "EpiPen expires in August 2026")


def test_inv343_an_extension_with_no_date_writes_no_expiry():
    assert not any("expires" in (text or "") for _, text in read("My visa extension was approved, finally."))


# --- invariant 344: the due date said next ----------------------------------------------------
def test_inv344_a_due_date_after_pregnant_is_part_of_it():
    assert read("We're expecting! I'm pregnant!! Due on 12 January.")[-1] == (
        "assert", "Is pregnant, due in January 2026")
    assert read("I'm pregnant. Due in February.") == [("assert", "Is pregnant, due in February 2026")]


def test_inv344_due_to_do_something_is_no_due_date():
    assert read("I'm pregnant. Due to see the midwife on 3 July.") == [("assert", "Is pregnant")]


# --- invariant 345: "I don't drive" -----------------------------------------------------------
def test_inv345_not_driving_is_kept(service):
    for text, user in (("I can't drive, never bothered learning.", "ana"), ("We don't drive.", "bo")):
        (w,) = turn(service, text, user=user).writes()
        assert (w.op, w.text, w.fact_type) == ("write", "Does not drive", "constraint"), text


def test_inv345_not_driving_somewhere_is_no_constraint():
    assert ("assert", "Does not drive") not in read("I don't drive to work on Fridays.")
    assert ("assert", "Does not drive") not in read("I don't drive on motorways at night")


# --- invariant 346: a plan said with its dates ------------------------------------------------
def test_inv346_spending_an_occasion_somewhere(service):
    (w,) = turn(service, "We're spending Easter in Seville, 3 to 6 April next year.").writes()
    assert w.op == "write" and "Seville" in w.text and str(w.valid_from).startswith("2026-04-03")


def test_inv346_a_trip_said_as_a_noun(service):
    (w,) = turn(service, "Team trip to Ghent from 4 to 6 March for the offsite.").writes()
    assert w.text == "Team trip to Ghent from 4 to 6 March for the offsite"
    assert str(w.valid_from).startswith("2026-03-04")


def test_inv346_an_appointment_with_its_date(service):
    (w,) = turn(service, "I've got an eye test appointment on 9 June at 10am.").writes()
    assert w.text == "Eye test appointment on 9 June at 10am" and str(w.valid_from).startswith("2025-06-09")


def test_inv346_a_relative_year_stays_out_of_a_booked_trip(service):
    (w,) = turn(service, "Finally booked Annecy for next year, 20 to 24 October.").writes()
    assert w.text == "Trip to Annecy" and w.valid_from is not None


def test_inv346_past_undated_or_news_of_a_plan_is_no_new_plan():
    assert read("I had a dentist appointment on 3 May.") == []
    assert read("Business trip to Ghent, so tiring.") == []
    assert all(text != "Trip to Canada" and "moved" not in (text or "")
               for _, text in read("Our trip to Canada moved to 3 August because of the fires."))


# --- invariant 347: a level passed; the feeling before the news -------------------------------
def test_inv347_a_language_exam_passed_replaces_the_level(service):
    w = one_supersede(service, "Passed my C1 Spanish exam last week!", "Speaks Spanish at B2 and has a tutor",
                      "C1", fact_type="identity")
    assert w.text == "Speaks Spanish at C1 (passed the C1 exam)"


def test_inv347_the_feeling_before_the_news_is_no_part_of_it(service):
    (w,) = turn(service, "Over the moon, passed my theory test yesterday, first time!").writes()
    assert (w.op, w.text) == ("write", "Passed their theory test")
    assert str(w.valid_from).startswith("2025-05-31")


def test_inv347_for_the_first_time_stays_and_a_feeling_alone_writes_nothing(service):
    assert turn(service, "Thrilled, honestly.").writes() == []
    assert not any("first" in (text or "") for _, text in read("Passed my driving test, first go!"))


# --- invariant 348: what is carried for an allergy --------------------------------------------
def test_inv348_an_epipen_carried_joins_the_allergy(service):
    (w,) = turn(service, "I'm allergic to wasp stings, I carry an EpiPen").writes()
    assert (w.op, w.text) == ("write", "Allergic to wasp stings, carries an EpiPen")
    (w,) = turn(service, "allergic to peanuts btw, i carry an inhaler", user="bo").writes()
    assert w.text.startswith("Allergic to peanuts") and w.text.endswith("carries an inhaler")


def test_inv348_a_pen_said_alone_is_left_as_read():
    assert ("assert", "Allergic to nothing") not in read("I carry an EpiPen for my son.")
    assert not any((text or "").startswith("Allergic") for _, text in read("I carry an EpiPen for my son."))


# --- invariant 343 (widened): a document that came -------------------------------------------
def test_inv343_a_document_that_came_replaces_the_application(service):
    w = one_supersede(service, "My Canadian passport arrived on Friday!", "Has applied for a Canadian passport",
                      "Canadian passport")
    assert w.text == "Has a Canadian passport" and str(w.valid_from) == "2025-05-30"


def test_inv343_a_visa_got_approved_is_kept(service):
    (w,) = turn(service, "Got my US student visa approved this morning, so relieved.").writes()
    assert (w.op, w.text) == ("write", "Has a US student visa") and str(w.valid_from) == "2025-06-01"


def test_inv343_a_renewed_one_that_came_keeps_its_expiry_and_day(service):
    w = one_supersede(service, "My renewed ID card arrived yesterday, valid until 2035.",
                      "ID card expires in August 2025", "2035")
    assert str(w.valid_from) == "2025-05-31"


def test_inv343_a_new_one_that_came_with_no_expiry_replaces_nothing(service):
    service.write_fact("ana", "Passport expires in August 2025", fact_type="world")
    assert turn(service, "My new passport arrived yesterday.").writes() == []
    assert active(service) == ["Passport expires in August 2025"]


# --- invariant 346 (widened): a holiday's plan ------------------------------------------------
def test_inv346_a_holiday_plan_replaces_the_one_for_that_holiday(service):
    service.write_fact("ana", "Bought fairy lights for the Christmas tree", fact_type="world")
    w = one_supersede(service, "We're staying at home in Cardiff for Christmas this year.",
                      "Going to Galway for Christmas, 22 to 27 December", "Cardiff")
    assert w.text == "Spending Christmas in Cardiff"
    assert "Bought fairy lights for the Christmas tree" in active(service)


def test_inv346_a_holiday_plan_with_nothing_on_record_is_written(service):
    service.write_fact("ana", "Bought fairy lights for the Christmas tree", fact_type="world")
    (w,) = turn(service, "Okay, decided: we're spending Easter in Kraków.").writes()
    assert (w.op, w.text) == ("write", "Spending Easter in Kraków")


def test_inv346_staying_somewhere_with_no_holiday_is_no_plan(service):
    assert turn(service, "We're staying in Cardiff.").writes() == []


# --- invariant 349: a work pattern changed ----------------------------------------------------
def test_inv349_an_office_mandate_replaces_working_from_home(service):
    w = one_supersede(service, "My employer is making everyone go back into the office two days a week from July.",
                      "Works remotely, full time", "office", fact_type="constraint")
    assert w.text == "Works in the office two days a week" and str(w.valid_from) == "2025-07-01"


def test_inv349_fewer_days_replace_the_hours_on_record(service):
    w = one_supersede(service, "From September I'm cutting down to three days a week, with Mondays off.",
                      "Works 8 to 4, Monday to Friday", "three", fact_type="constraint")
    assert w.text == "Works three days a week, with Mondays off"


def test_inv349_back_on_nights_replaces_the_day_shifts(service):
    service.write_fact("ana", "Has a night light in the hall", fact_type="world")
    w = one_supersede(service, "Rota's changed again, I'm going back on night shifts, three a week.",
                      "Works day shifts at the hospital", "night", fact_type="constraint")
    assert w.text == "Works night shifts, three a week"


def test_inv349_days_a_week_of_something_else_is_no_work_pattern(service):
    service.write_fact("ana", "Works remotely, full time", fact_type="constraint")
    for text in ("The gym is making us book classes three days a week ahead.",
                 "I'm going to the pool three days a week."):
        assert all(w.text is None or not w.text.startswith("Works") for w in turn(service, text).writes()), text
    assert "Works remotely, full time" in active(service)


def test_inv343_an_epipen_expiry_never_replaces_the_allergy(service):
    service.write_fact("ana", "Allergic to hazelnuts, carries two EpiPens", fact_type="constraint")
    (w,) = turn(service, "My new EpiPens expire in March 2027.").writes()
    assert (w.op, w.text) == ("write", "EpiPen expires in March 2027")


def test_inv343_an_epipen_expiry_replaces_the_one_on_record(service):
    one_supersede(service, "My new EpiPens expire in May 2027.", "EpiPens expire in January 2026", "May 2027")


# --- invariant 342 (widened): a habit taken up again ------------------------------------------
def test_inv342_taken_up_again_replaces_what_stopped_it(service):
    w = one_supersede(service, "The achilles has mended at last and I'm running again.",
                      "Cannot run until the achilles heals", "running", fact_type="constraint")
    assert w.text == "Is running again"


def test_inv342_taken_up_again_never_replaces_a_fact_sharing_only_the_verb(service):
    service.write_fact("ana", "Runs the book club at the library on Mondays")
    t = turn(service, "I'm running again.")
    assert all(w.op == "write" for w in t.writes())
    assert "Runs the book club at the library on Mondays" in active(service)


def test_inv342_back_to_a_diet_fully_keeps_its_date(service):
    w = one_supersede(service, "I've gone back to being strictly vegan, no dairy since last month.",
                      "Is vegetarian, eats cheese and eggs", "vegan", fact_type="constraint")
    assert str(w.valid_from) == "2025-05-01"


# --- invariant 348 (widened): a diagnosis of someone the user has ----------------------------
def test_inv348_a_pets_diagnosis_is_kept_beside_the_pet(service):
    service.write_fact("ana", "Has a tabby cat called Pickle", fact_type="world")
    (w,) = turn(service, "Pickle's been diagnosed with diabetes, she's on insulin now.").writes()
    assert (w.op, w.text) == ("write", "Pickle has diabetes")
    (w,) = turn(service, "The vets confirmed this morning that Pickle has an egg allergy, so she's on new food.").writes()
    assert (w.op, w.text) == ("write", "Pickle has an egg allergy") and str(w.valid_from) == "2025-06-01"
    (w,) = turn(service, "the vet found on Monday that Pickle has a thyroid condition.").writes()
    assert w.text == "Pickle has a thyroid condition"


def test_inv348_a_diagnosis_of_someone_unknown_or_no_diagnosis_writes_nothing(service):
    service.write_fact("ana", "Has a tabby cat called Pickle", fact_type="world")
    assert turn(service, "Bramble's been diagnosed with a grass allergy, poor thing.").writes() == []
    assert turn(service, "The vet says Pickle has a gorgeous coat.").writes() == []
    assert active(service) == ["Has a tabby cat called Pickle"]


def test_inv346_a_trip_on_other_dates_is_not_already_known(service):
    service.write_fact("ana", "Climbing trip to Annecy from April 2 to April 5", fact_type="world",
                       valid_from=date(2025, 4, 2))
    (w,) = turn(service, "Booked Annecy again for 20 to 24 October.").writes()
    assert w.op == "write" and "Annecy" in w.text and str(w.valid_from) == "2025-10-20"
    assert turn(service, "Booked Annecy again for 20 to 24 October.").writes() == []


def test_inv346_relatives_coming_for_a_holiday_is_its_plan(service):
    (w,) = turn(service, "My in-laws are coming to Dundee for Hogmanay.").writes()
    assert (w.op, w.text) == ("write", "In-laws are coming to Dundee for Hogmanay")
    (w,) = turn(service, "Our daughter Isla is coming over for Easter this year.", user="bo").writes()
    assert w.text == "Daughter Isla is coming for Easter"


def test_inv346_relatives_coming_with_no_holiday_is_no_plan(service):
    assert turn(service, "My parents are coming to Dundee next spring, maybe.").writes() == []
    assert turn(service, "My brother is coming round for dinner.").writes() == []


# --- invariants 346-348 (widened): pulled out, "actually", an allergy cleared -----------------
def test_inv346_pulled_out_of_a_named_event_replaces_it(service):
    service.write_fact("ana", "Lives in Bristol", fact_type="identity")
    w = one_supersede(service, "We've withdrawn from the Bristol 10k, my hamstring's gone.",
                      "Running the Bristol 10k on 14 September")
    assert w.text == "Pulled out of the Bristol 10k"
    assert "Lives in Bristol" in active(service)


def test_inv346_pulled_out_with_no_event_on_record_writes_nothing(service):
    service.write_fact("ana", "Lives in Bristol", fact_type="identity")
    assert turn(service, "I've pulled out of Bristol.").writes() == []
    assert "Lives in Bristol" in active(service)


def test_inv347_actually_after_the_subject_adds_nothing(service):
    w = one_supersede(service, "I've actually started drinking green tea in the evenings now.",
                      "Drinks coffee, never green tea", "green tea", fact_type="preference")
    assert w.text == "Drinks green tea in the evenings"


def test_inv348_an_allergy_cleared_replaces_the_avoidance(service):
    w = one_supersede(service, "My immunologist says pistachios are fine for me now.",
                      "Avoids pistachios after a reaction in 2019", "pistachios", fact_type="constraint")
    assert w.text == "No longer avoids pistachios"
    one_supersede(service, "I don't need to avoid sesame any more.", "Avoids sesame because of a mild allergy",
                  "sesame", fact_type="constraint")


def test_inv348_an_allergy_cleared_with_nothing_on_record_writes_nothing(service):
    assert turn(service, "The allergist says almonds are fine for me.").writes() == []
    assert turn(service, "I can eat almonds again.").writes() == []
    one_supersede(service, "I can eat prawns again!", "Allergic to prawns since 2020", "prawns again",
                  fact_type="constraint")
