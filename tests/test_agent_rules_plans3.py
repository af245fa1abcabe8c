"""Plans, bookings and starts with their dates (invariants 419-426): written with valid_from (and
valid_to for a range or a return), never with a relative time word in the value; a plan moved
replaces only the plan fact naming it; a hypothetical, a question or another person's plan
writes nothing. Real store, real agent; "today" is the day the test runs, so every date is said
as a day of a month and checked against its next occurrence."""

from __future__ import annotations

from datetime import date

from memory.understand.statements import understand

from .agent_support import active, one_supersede, turn

TODAY = date(2026, 12, 1)


def _next(day: int, month: int, today: date | None = None) -> date:
    today = today or date(2025, 6, 1)  # the service's clock in tests/conftest.py
    d = date(today.year, month, day)
    return d if d >= today else date(today.year + 1, month, day)


def _one(text: str, today: date = TODAY):
    u = understand(text, today)
    assert len(u.statements) == 1, (text, u.statements)
    return u.statements[0]


def _none(text: str, today: date = TODAY) -> None:
    u = understand(text, today)
    assert not [s for s in u.statements if s.rule.startswith("plan:")], (text, u.statements)


# --- invariant 419 ---------------------------------------------------------------------------
def test_inv419_a_plan_heading_names_the_trip_and_its_range():
    st = _one("Easter plan: Seville with my cousins from 2 to 6 April.")
    assert st.text == "Easter trip to Seville with my cousins from 2 to 6 April"
    assert (st.valid_from, st.valid_to) == (date(2027, 4, 2), date(2027, 4, 6))
    st = _one("Half-term getaway: Snowdonia, 16 to 20 February")
    assert "Snowdonia" in (st.text or "") and st.valid_from == date(2027, 2, 16)
    st = _one("Work trip: Ghent from 4 to 6 March.")
    assert (st.text, st.valid_to) == ("Work trip to Ghent from 4 to 6 March", date(2027, 3, 6))
    _none("Dream trip: Japan from 3 to 17 April, one day.")
    st = _one("Summer plan: Crete on 14 July, just the two of us")
    assert st.text == "Summer trip to Crete on 14 July" and st.valid_from == date(2027, 7, 14)


def test_inv419_a_booking_named_in_the_clause_after_it():
    st = _one("Booked the safari! Kruger with Wilderness Tours from 8 to 15 May, tented camp.")
    assert st.text == "Safari: Kruger with Wilderness Tours from 8 to 15 May"
    assert (st.valid_from, st.valid_to) == (date(2027, 5, 8), date(2027, 5, 15))


def test_inv419_no_plan_without_a_date_to_come_or_with_a_hedge():
    _none("Easter plan: maybe Seville if flights are cheap, 2 to 6 April?")
    _none("Summer plan: Crete, we'll see")
    _none("Booked the cruise! It was lovely, 4 to 11 June.")
    _none("Is the Easter plan still Seville from 2 to 6 April?")


def test_inv419_the_plan_is_written_with_its_dates(service):
    t = turn(service, "Christmas plan: Vienna with Jo from 22 to 27 December.")
    (w,) = t.writes()
    assert "Vienna" in w.text and w.valid_from is not None and w.valid_to is not None


# --- invariant 420 ---------------------------------------------------------------------------
def test_inv420_flying_with_a_carrier_and_back_on_a_day():
    st = _one("We're flying Qantas to Perth on 9 January for the wedding, back on 30 January.")
    assert st.text == "Trip to Perth on 9 January for the wedding, flying Qantas"
    assert (st.valid_from, st.valid_to) == (date(2027, 1, 9), date(2027, 1, 30))
    st = _one("I'm travelling Eurostar to Brussels on 12 March.")
    assert st.text == "Trip to Brussels on 12 March, flying Eurostar" or "Brussels" in (st.text or "")


def test_inv420_meeting_someone_somewhere_on_a_day():
    st = _one("Good news: Priya and I are meeting in Porto, tickets booked for 21 May.")
    assert st.text == "Meeting Priya in Porto" and st.valid_from == date(2027, 5, 21)
    st = _one("I'm meeting up with Tomek in Kraków on 3 February")
    assert "Kraków" in (st.text or "") and "Tomek" in (st.text or "")


def test_inv420_no_trip_for_a_hedge_a_question_or_someone_else():
    _none("We might be flying Qantas to Perth on 9 January.")
    _none("Are we flying Qantas to Perth on 9 January?")
    _none("My sister is flying Qantas to Perth on 9 January.")
    _none("Priya and Tomek are meeting in Porto on 21 May.")


# --- invariant 421 ---------------------------------------------------------------------------
def test_inv421_a_start_to_come_is_a_plan_from_its_day():
    st = _one("I'm starting pottery classes on 14 January.")
    assert st.text == "Starting pottery classes on 14 January" and st.valid_from == date(2027, 1, 14)
    st = _one("Our boys, Kit and Sol, start swimming club on 6 September.")
    assert st.text == "Kit and Sol start swimming club on 6 September" and st.valid_from == date(2027, 9, 6)
    st = _one("My state pension kicks in from April.")
    assert "pension" in (st.text or "") and st.valid_from == date(2027, 4, 1)
    assert "from" not in (st.text or "")


def test_inv421_no_start_for_a_hedge_a_question_or_a_past_one():
    _none("I might start pottery classes on 14 January.")
    _none("Should I start pottery classes on 14 January?")
    _none("I'm starting to think pottery is not for me.")
    _none("I started pottery classes on 14 November.")


def test_inv421_a_start_is_written_from_its_day(service):
    t = turn(service, "I'm starting Spanish lessons on 12 January.")
    (w,) = t.writes()
    assert "Spanish" in w.text and w.valid_from == _next(12, 1)


# --- invariant 422 ---------------------------------------------------------------------------
def test_inv422_a_pet_booked_in_is_a_plan_on_its_day():
    st = _one("Biscuit's booked in at the groomers on 19 December.")
    assert st.text == "Biscuit booked in at the groomers on 19 December"
    assert st.valid_from == date(2026, 12, 19)
    st = _one("Pip's booked in for his jabs on 7 January.")
    assert st.text == "Pip booked in for the jabs on 7 January"
    st = _one("Tilly's booked into the cattery from 20 to 27 December.")
    assert st.text == "Tilly booked in at the cattery from 20 to 27 December"
    assert (st.valid_from, st.valid_to) == (date(2026, 12, 20), date(2026, 12, 27))


def test_inv422_no_booking_for_a_hedge_or_a_question():
    _none("Biscuit might be booked in at the groomers on 19 December.")
    _none("Is Biscuit booked in at the groomers on 19 December?")


# --- invariant 423 ---------------------------------------------------------------------------
def test_inv423_someone_coming_to_stay_on_dates_to_come():
    st = _one("Kofi's coming to stay 27–30 December, sofa bed again")
    assert st.text == "Kofi coming to stay 27–30 December"
    assert (st.valid_from, st.valid_to) == (date(2026, 12, 27), date(2026, 12, 30))
    st = _one("My cousin Lila is coming to visit us from 2 to 9 January.")
    assert st.text == "Cousin Lila coming to visit them from 2 to 9 January"
    assert st.valid_from == date(2027, 1, 2)


def test_inv423_no_stay_for_a_hedge_or_a_question():
    _none("Kofi might be coming to stay 27–30 December.")
    _none("Is Kofi coming to stay 27–30 December?")


# --- invariant 424 ---------------------------------------------------------------------------
def test_inv424_a_trip_moved_with_its_new_days_names_the_old_one():
    st = _one("Goa trip changed: I now fly out on 3 February and come back on 17 February.")
    assert st.act == "change" and st.previous == "Goa trip"
    assert st.text == "Goa trip: fly out on 3 February, back on 17 February"
    assert (st.valid_from, st.valid_to) == (date(2027, 2, 3), date(2027, 2, 17))


def test_inv424_the_moved_trip_replaces_only_that_plan(service):
    service.write_fact("ana", "Trip to Oslo from 10 to 14 January")
    one_supersede(service, "Goa trip moved: we now fly out on 3 February.",
                  "Goa trip from 20 to 30 January", "Goa")
    assert "Trip to Oslo from 10 to 14 January" in active(service)


def test_inv424_no_change_for_a_hedge():
    _none("Goa trip moved: maybe we fly out on 3 February instead?")
    _none("Goa trip might be moved: we could fly out on 3 February.")


# --- invariant 425 ---------------------------------------------------------------------------
def test_inv425_rebooked_it_names_the_plan_the_sentence_before_moved():
    u = understand("The driving test got postponed. I've rebooked it for 9 March.", TODAY)
    (st,) = [s for s in u.statements if s.rule.startswith("plan:")]
    assert (st.act, st.previous, st.text) == ("change", "driving test", "Driving test on 9 March")
    assert st.valid_from == date(2027, 3, 9)


def test_inv425_rebooked_replaces_the_plan_on_record(service):
    one_supersede(service, "My dentist appointment was moved. We've rebooked it for 4 February.",
                  "Dentist appointment on 20 January", "4 February")


def test_inv425_no_change_without_one_plan_named():
    _none("I've rebooked it for 9 March.")
    _none("The exam got postponed and the trip got moved. I've rebooked it for 9 March.")


def test_inv424_moved_a_week_later_names_the_plan_and_its_new_days():
    st = _one("We've pushed the Lisbon trip back a few days, now 12 to 15 March.")
    assert (st.act, st.previous, st.text) == ("change", "Lisbon", "Trip to Lisbon from 12 to 15 March")
    assert (st.valid_from, st.valid_to) == (date(2027, 3, 12), date(2027, 3, 15))
    st = _one("I've moved the osteopath a week later, 20 January.")
    assert (st.previous, st.text, st.valid_from) == ("osteopath", "Osteopath on 20 January", date(2027, 1, 20))


def test_inv424_no_shift_without_a_day_or_for_a_thing_moved():
    _none("We've moved the Crete holiday a week later.")
    _none("We've moved the sofa back to the lounge.")


def test_inv425_its_on_a_new_day_names_the_plan_someone_moved():
    u = understand("The surgery moved my blood test. It's on 8 January now instead of tomorrow.", TODAY)
    (st,) = [s for s in u.statements if s.rule.startswith("plan:")]
    assert (st.act, st.previous, st.text, st.valid_from) == (
        "change", "blood test", "Blood test on 8 January", date(2027, 1, 8))


def test_inv425_no_change_for_another_persons_plan_or_nothing_named():
    _none("My brother moved his wedding. It's on 3 May now.")
    _none("It's on 8 January now.")


def test_inv425_its_on_a_new_day_replaces_the_plan_on_record(service):
    one_supersede(service, "The garage moved my MOT. It's on 14 January now.", "MOT on 6 January", "14 January")


def test_inv423_someone_staying_with_the_user_on_dates_to_come():
    st = _one("Heads up: Jo's dad is staying in the spare room from 4 to 8 January, and the boiler is fixed.")
    assert st.text == "Jo's dad staying in the spare room from 4 to 8 January"
    assert (st.valid_from, st.valid_to) == (date(2027, 1, 4), date(2027, 1, 8))
    st = _one("Nadia is staying at ours 20–23 December.")
    assert st.text == "Nadia staying at ours 20–23 December" and st.valid_from == date(2026, 12, 20)


def test_inv423_no_stay_elsewhere_or_for_a_hedge():
    _none("Jo's dad is staying in a hotel from 4 to 8 January.")
    _none("Jo's dad might be staying with us from 4 to 8 January.")


def test_inv426_a_plans_day_without_a_year_is_its_next_occurrence():
    later = date(2026, 3, 10)
    st = _one("Goa trip moved: we now fly out on 3 February.", later)
    assert st.valid_from == date(2027, 2, 3)
    st = _one("The dentist got pushed back. I've rebooked it for 1 March.", later)
    assert st.valid_from == date(2027, 3, 1)
    # a year said is kept, and a past start is no plan at all
    _none("Goa trip moved: we flew out on 3 February 2026.", later)
    _none("I started pottery classes on 3 February.", later)


def test_inv419_booked_heading_names_the_trip():
    st = _one("All booked: Valencia, 3 to 6 July.")
    assert (st.text, st.valid_from, st.valid_to) == ("Trip to Valencia 3 to 6 July", date(2027, 7, 3), date(2027, 7, 6))
    _none("Booked: nothing yet for 3 to 6 July.")


def test_inv419_someone_elses_booking_names_nothing():
    _none("My friend's booked the cruise! Norwegian fjords with P&O from 4 to 11 June.")
    st = _one("We've booked the cruise! Norwegian fjords with P&O from 4 to 11 June.")
    assert st.text == "Cruise: Norwegian fjords with P&O from 4 to 11 June"


def test_inv422_a_person_booked_in_is_no_pet_plan():
    _none("Sarah's booked in at the dentist on 3 January.")


def test_inv421_he_starts_after_a_place_got_names_the_child_and_the_school():
    u = understand("After a long wait we finally got Noor a place at Hillside Primary. She starts on 7 January.", TODAY)
    (st,) = [s for s in u.statements if s.rule.startswith("plan:")]
    assert (st.text, st.valid_from) == ("Noor starts at Hillside Primary on 7 January", date(2027, 1, 7))
    u = understand("Our son got a place at Kingsway College! He starts in September.", TODAY)
    (st,) = [s for s in u.statements if s.rule.startswith("plan:")]
    assert (st.text, st.valid_from) == ("Son starts at Kingsway College", date(2027, 9, 1))


def test_inv421_no_child_start_for_a_hedge_two_places_or_no_place():
    _none("Noor got a place at Hillside Primary. She might start on 7 January.")
    _none("Noor got a place at Hillside Primary and Sami got a place at Kingsway College. He starts on 7 January.")
    _none("She starts on 7 January.")


def test_inv421_starting_a_business_or_a_job_is_no_plan_here():
    _none("I'm starting my own design business in Leeds from January.")
    _none("I'm starting a new role at Monzo on 5 January.")
