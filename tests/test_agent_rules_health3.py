"""Health facts said in passing (issue 12, invariants 411-418): an operation had, a vaccine
dose, a condition had for years or found by a clinician, a spell sober, what a clinician has the
user take or do, an aid now needed. Written as the user's own, dated, never with the time words
in the value; a relative's, a question, a hypothetical or a plan writes nothing. Real store, real
agent (the service's clock stands on 1 June 2025)."""

from __future__ import annotations

from datetime import date

from memory.understand.statements import understand

from .agent_support import turn

TODAY = date(2025, 6, 1)


def only_write(svc, text):
    writes = turn(svc, text).writes()
    assert len(writes) == 1, (text, writes)
    return writes[0]


def said(text):
    return [(s.text, s.valid_from) for s in understand(text, TODAY).statements]


# --- invariant 411: an operation the user had -----------------------------------------------

def test_inv411_an_operation_had_is_written_with_its_day(service):
    w = only_write(service, "Had meniscus repair surgery on my right knee yesterday, so I'm off my feet")
    assert (w.text, str(w.valid_from)) == ("Had meniscus repair surgery on the right knee", "2025-05-31")


def test_inv411_other_shapes_of_an_operation():
    assert said("I've just had a hip replacement, walking with a frame for now") == [
        ("Had a hip replacement", None)]
    assert said("Had my appendix out last week.") == [("Had their appendix out", date(2025, 5, 25))]
    # a day named without a year, for what was already had, is the day gone by
    assert said("Had a tonsillectomy on 3 September.") == [("Had a tonsillectomy", date(2024, 9, 3))]


def test_inv411_a_relatives_a_question_a_hypothetical_or_a_plan_writes_nothing(service):
    for text in ["My husband had knee surgery on Friday.",
                 "Had surgery?",
                 "If I had surgery would I need crutches for long?",
                 "Got knee surgery on 3 July."]:
        assert turn(service, text).writes() == [], text
    # an operation to come is a plan (invariant 346), never one the user had
    writes = turn(service, "I've got a knee operation booked for 3 July.").writes()
    assert not any((w.text or "").startswith("Had ") for w in writes), writes


def test_inv411_a_health_event_or_a_device_fitted():
    assert said("I had a heart attack in March.") == [("Had a heart attack", date(2025, 3, 1))]
    assert said("Had a pacemaker fitted yesterday, feeling tired.") == [("Has a pacemaker", date(2025, 5, 31))]
    assert said("Got fitted with a cochlear implant last month.") == [("Has a cochlear implant", date(2025, 5, 1))]


def test_inv411_a_relatives_event_or_a_device_to_come_writes_nothing(service):
    for text in ["My dad had a heart attack.", "I've got a stent put in next week.",
                 "Did I have a stroke?"]:
        assert turn(service, text).writes() == [], text


# --- invariant 412: a vaccine dose ------------------------------------------------------------

def test_inv412_a_vaccine_dose_is_written_with_its_day(service):
    w = only_write(service, "Got my third dose of the HPV vaccine on 20 May.")
    assert (w.text, str(w.valid_from)) == ("Had the third dose of the HPV vaccine", "2025-05-20")


def test_inv412_other_shapes_of_a_dose():
    assert said("Had my flu jab yesterday, arm's a bit sore.") == [("Had the flu jab", date(2025, 5, 31))]
    assert said("I got the Covid booster on 12 May.") == [("Had the Covid booster", date(2025, 5, 12))]
    assert said("Just had the tetanus jab.") == [("Had the tetanus jab", None)]


def test_inv412_a_childs_jab_a_plan_a_booster_seat_or_a_question_writes_nothing(service):
    for text in ["My daughter had her MMR jab yesterday.",
                 "I've got my flu jab on Friday.",
                 "Got a booster seat for the car.",
                 "Had a shot of tequila last night.",
                 "Had a dose of paracetamol this morning.",
                 "Should I get the shingles vaccine?"]:
        assert turn(service, text).writes() == [], text


# --- invariant 413: a condition had for years ------------------------------------------------

def test_inv413_a_condition_had_since_childhood(service):
    w = only_write(service, "I've had eczema since I was a baby and use a steroid cream.")
    assert w.text == "Has eczema"


def test_inv413_what_is_used_for_it_is_part_of_it_and_how_long_is_not():
    assert said("I've had asthma since primary school and use a brown inhaler.") == [
        ("Has asthma, uses a brown inhaler", None)]
    assert said("I've suffered from migraines for twenty years.") == [("Has migraines", None)]
    assert said("I've been an epileptic since my teens.") == [("Has epilepsy", None)]
    assert said("I've been a type 2 diabetic for ten years.") == [("Has type 2 diabetes", None)]
    assert said("I've had tendonitis for years.") == [("Has tendonitis", None)]


def test_inv413_a_spell_a_relatives_condition_a_question_or_no_ailment_writes_nothing(service):
    for text in ["I've had a cold for a week.",
                 "I've had enough since Monday.",
                 "My son has had asthma since he was two.",
                 "Have I had asthma since I was a kid?",
                 "I've had a rash for a few days.",
                 "I've had a migraine since lunch.",
                 "I've had migraines since Monday."]:
        assert turn(service, text).writes() == [], text


def test_inv413_hedged_waits_for_review(service):
    w = only_write(service, "I think I've had asthma since I was a kid, never tested though")
    assert (w.status, w.text) == ("review", "Has asthma")


# --- invariant 414: a condition a clinician found ------------------------------------------

def test_inv414_a_condition_a_clinician_confirmed(service):
    w = only_write(service, "The rheumatologist confirmed psoriatic arthritis last week.")
    assert (w.text, str(w.valid_from)) == ("Has psoriatic arthritis", "2025-05-25")


def test_inv414_other_shapes_of_a_finding():
    assert said("My GP diagnosed me with gout, so no more red wine") == [("Has gout", None)]
    assert said("The nurse picked up high cholesterol at my health check.") == [("Has high cholesterol", None)]


def test_inv414_a_clinician_says_the_user_has_it():
    assert said("The doctor says I'm prediabetic, so less cake.") == [("Has prediabetes", None)]
    assert said("The consultant confirmed I'm anaemic.") == [("Has anaemia", None)]
    # a diagnosis said with its day or the age it came at keeps neither in the value
    assert said("I was diagnosed with glaucoma on 3 May.") == [("Has glaucoma", date(2025, 5, 3))]
    assert said("I was diagnosed with dyspraxia at 30.") == [("Has dyspraxia", None)]


def test_inv414_a_clinicians_guess_waits_for_review(service):
    w = only_write(service, "The doctor suspects coeliac disease, so I'm having bloods done")
    assert (w.status, w.text) == ("review", "Has coeliac disease")


def test_inv414_no_ailment_a_relative_a_question_or_a_condition_writes_nothing(service):
    for text in ["The doctor confirmed my appointment for Tuesday.",
                 "My mum's GP confirmed angina.",
                 "The doctor found high cholesterol in my dad.",
                 "Did the cardiologist confirm atrial fibrillation?",
                 "The allergist says I'm desensitised to wasp stings now.",
                 "If the doctor confirms diabetes I'll cut out sugar."]:
        assert turn(service, text).writes() == [], text


# --- invariant 415: a spell sober ------------------------------------------------------------

def test_inv415_sober_since_that_long_ago(service):
    w = only_write(service, "I'm six months sober as of today!")
    assert (w.text, str(w.valid_from)) == ("Is sober", "2024-12-01")


def test_inv415_other_shapes_of_a_spell():
    assert said("Two years smoke-free now.") == [("Does not smoke", date(2023, 6, 1))]
    assert said("I'm a year clean.") == [("Is sober", date(2024, 6, 1))]
    assert said("I'm 18 months cancer-free.") == [("Is cancer-free", date(2023, 12, 1))]


def test_inv415_someone_elses_spell_or_a_question_writes_nothing(service):
    for text in ["My brother is three years sober.", "Am I four months sober?",
                 "She's a year clean, so proud of her."]:
        assert turn(service, text).writes() == [], text


# --- invariant 416: what a clinician has the user take or do --------------------------------

def test_inv416_a_medicine_a_clinician_added_is_named(service):
    w = only_write(service, "The cardiologist added a beta blocker last week, bisoprolol 2.5mg.")
    assert (w.text, str(w.valid_from)) == ("Takes bisoprolol 2.5mg", "2025-05-25")


def test_inv416_other_shapes_of_a_regimen():
    assert said("My GP prescribed a statin yesterday.") == [("Takes a statin", date(2025, 5, 31))]
    assert said("I've been prescribed propranolol 40mg for the palpitations.") == [("Takes propranolol 40mg", None)]
    assert said("The nurse told me to take folic acid, 400 mcg a day, so I've started.") == [
        ("Takes folic acid, 400 mcg a day", None)]
    assert said("The osteopath has me doing yoga three times a week for my back, started in May.") == [
        ("Does yoga three times a week for their back", date(2025, 5, 1))]


def test_inv416_advice_not_taken_a_relatives_or_a_question_writes_nothing(service):
    for text in ["My GP told me to take iron tablets but I keep forgetting.",
                 "My dad's doctor added a statin, simvastatin 40mg.",
                 "Should the doctor add a statin?",
                 "The physio has me on the waiting list.",
                 "The nurse has me on a drip.",
                 "The GP prescribed some antibiotics, amoxicillin 500mg."]:
        assert turn(service, text).writes() == [], text


# --- invariant 417: an aid the user now needs -----------------------------------------------

def test_inv417_an_aid_needed_now(service):
    w = only_write(service, "Saw the optician and I need varifocals now. Getting old!")
    assert w.text == "Needs varifocals"


def test_inv417_other_shapes_of_an_aid():
    assert said("I wear hearing aids now.") == [("Wears hearing aids", None)]
    assert said("I need glasses for driving now.") == [("Needs glasses for driving", None)]


def test_inv417_a_purchase_a_question_a_relative_or_a_maybe_writes_nothing(service):
    for text in ["I need new glasses.", "Do I need reading glasses now?",
                 "My husband needs reading glasses now.", "I might need glasses now."]:
        assert turn(service, text).writes() == [], text


# --- invariant 418: said with no subject after someone else -------------------------------

def test_inv418_no_subject_after_a_relative_is_theirs(service):
    assert turn(service, "My dad fell last week. Had hip surgery on Monday.").writes() == []
    assert turn(service, "Grandma's in hospital. Had a pacemaker fitted yesterday.").writes() == []


def test_inv418_said_with_i_or_my_it_is_the_users():
    assert said("My sister drove me in. Had my flu jab this morning.") == [("Had the flu jab", date(2025, 6, 1))]
    assert said("My dad fell last week. I had hip surgery on Monday.") == [("Had hip surgery", date(2025, 5, 26))]
    assert said("Long week. Had hip surgery on Monday.") == [("Had hip surgery", date(2025, 5, 26))]
