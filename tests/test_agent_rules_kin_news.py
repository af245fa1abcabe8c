"""News about a relative on record and corrections about them (issue 12, invariants 403-410): a
relative's fact is replaced only by news of the same relative, the user's own facts are never
touched, and a relative with nothing on record gets a new fact only when the relation is clear.
Real store, real agent."""

from __future__ import annotations

from datetime import date

from memory.understand.kin_news import read
from memory.understand.statements import understand

from .agent_support import active, one_supersede, turn

TODAY = date(2025, 6, 1)


def _facts(svc, *texts):
    return [svc.write_fact("ana", t, fact_type="identity").fact for t in texts]


# --- invariant 403: a named relative's new employer ----------------------------------------
def test_inv403_a_relatives_new_employer_replaces_where_they_worked(service):
    w = one_supersede(service, "Ifeoma left Zenith Bank and she's with Paystack now, loving it.",
                      "Sister Ifeoma works at Zenith Bank", "Sister Ifeoma", "Paystack", fact_type="identity")
    assert w.text == "Sister Ifeoma works at Paystack"


def test_inv403_now_with_and_now_works_for(service):
    one_supersede(service, "Gareth's with Admiral now", "Husband Gareth works at Aviva", "Admiral",
                  fact_type="identity")
    one_supersede(service, "Priya now works for Monzo", "Wife Priya works at Revolut", "Monzo",
                  fact_type="identity")


def test_inv403_opened_their_own_place_replaces_the_job(service):
    w = one_supersede(service, "Luca opened his own bakery in Bologna in March.",
                      "Brother Luca is a baker at a hotel in Milan", "bakery", fact_type="identity")
    assert w.text == "Brother Luca opened a bakery in Bologna"


def test_inv403_never_the_users_own_job_nor_another_relative(service):
    (mine,) = _facts(service, "Works at Zenith Bank")
    t = turn(service, "Ifeoma left Zenith Bank and she's with Paystack now.")
    assert t.writes() == [] and active(service) == [mine.text]
    _facts(service, "Brother Tayo works at Shell")
    assert turn(service, "Kemi is with Chevron now").writes() == []


def test_inv403_a_question_or_a_hope_is_no_news(service):
    _facts(service, "Wife Priya works at Revolut")
    assert turn(service, "Is Priya with Monzo now?").writes() == []
    assert turn(service, "Priya might be working for Monzo now").writes() == []
    assert active(service) == ["Wife Priya works at Revolut"]


# --- invariant 404: a child moved to another school ----------------------------------------
def test_inv404_a_child_moved_school_replaces_the_school(service):
    w = one_supersede(service, "We've moved Tomás to St Brigid's National School since the fees went up.",
                      "Son Tomás attends Rathgar Junior School", "St Brigid", fact_type="identity")
    assert w.text == "Son Tomás attends St Brigid's National School"


def test_inv404_moving_them_to_a_school_in_a_place(service):
    one_supersede(service, "I'm moving Aisha to the Academy in Croydon after half term.",
                  "Daughter Aisha is in Year 5 at Norbury Primary", "Academy in Croydon", fact_type="identity")
    one_supersede(service, "We switched Kai to Westfield Montessori.", "Son Kai goes to Little Oaks Nursery",
                  "Westfield", fact_type="identity")


def test_inv404_nothing_when_no_school_of_theirs_is_on_record(service):
    _facts(service, "Son Tomás plays hurling")
    assert turn(service, "We've moved Tomás to St Brigid's National School.").writes() == []
    assert read("We might move Tomás to St Brigid's School?", TODAY) is None


# --- invariant 405: a relative graduated, and the job after ----------------------------------
def test_inv405_graduated_replaces_studying_and_the_next_job_is_written(service):
    (old,) = _facts(service, "Daughter Zainab is at the University of Leeds studying medicine")
    t = turn(service, "Zainab graduated in medicine from Leeds in May, and she starts at a hospital in York in August.")
    first, second = t.writes()
    assert (first.op, first.old_id) == ("supersede", old.id)
    assert first.text.startswith("Daughter Zainab graduated in medicine")
    assert second.op == "write" and second.text == "Daughter Zainab starts at a hospital in York"
    assert second.valid_from == date(2025, 8, 1)


def test_inv405_graduated_alone(service):
    one_supersede(service, "Ravi graduated from Imperial.", "Son Ravi is a student at Imperial College",
                  "graduated", fact_type="identity")


def test_inv405_nothing_about_someone_not_on_record_as_studying(service):
    _facts(service, "Son Ravi works at Tesco")
    assert turn(service, "Ravi graduated from Imperial.").writes() == []
    assert read("Will Ravi graduate from Imperial?", TODAY) is None


# --- invariant 406: "that's his cousin" ----------------------------------------------------
def test_inv406_what_was_someone_elses_is_retracted_and_the_truth_written(service):
    (old,) = _facts(service, "Daughter plays netball on Tuesdays")
    t = turn(service, "My daughter doesn't play netball, that's her cousin. She does gymnastics.")
    (w,) = t.writes()
    assert (w.op, w.old_id, w.contradiction) == ("retract", old.id, "harsh")
    assert w.text == "Daughter does gymnastics"


def test_inv406_a_named_child_at_another_school(service):
    (old,) = _facts(service, "His son Mateo is in Year 2 at Greenfield Primary")
    (w,) = turn(service, "Mateo isn't at Greenfield, that's his friend Hugo. He's at Parkside Primary").writes()
    assert (w.op, w.old_id) == ("retract", old.id) and w.text == "His son Mateo is at Parkside Primary"


def test_inv406_never_the_users_own_fact_nor_another_relatives(service):
    _facts(service, "Plays netball on Tuesdays")
    assert turn(service, "My daughter doesn't play netball, that's her cousin. She does gymnastics.").writes() == []
    _facts(service, "Son plays chess")
    assert turn(service, "My daughter doesn't play chess, that's her cousin. She does judo.").writes() == []


# --- invariant 407: a relative's name spelled wrong -----------------------------------------
def test_inv407_the_wrong_spelling_is_retracted_and_the_new_one_reviewed(service):
    (old,) = _facts(service, "Son's name is Eoghan")
    retract, write = turn(service, "His name is Eóghan, not Eoghan! Please fix it.").writes()
    assert (retract.op, retract.old_id) == ("retract", old.id)
    assert (write.op, write.status, write.text) == ("write", "review", "Son's name is Eóghan")


def test_inv407_only_a_name_of_a_relative_on_record(service):
    _facts(service, "Name is Siobhan")  # the user's own name is not a relative's
    assert turn(service, "Her name is Siobhán, not Siobhan").writes() == [] or \
        "Name is Siobhan" in active(service)
    assert read("Is her name Siobhán, not Siobhan?", TODAY) is None


# --- invariant 408: a relative's new job said beside other news ----------------------------
def test_inv408_my_partners_new_job_is_written():
    for said, text in (("My wife got a job in Utrecht so we're moving there in May", "wife got a job in Utrecht"),
                       ("My brother has landed a new job at the BBC, so proud", "brother got a job at the BBC")):
        sts = understand(said, TODAY).statements
        assert any(s.rule == "kin:got-job" and (s.target + " " + (s.text or "")) == text for s in sts), sts


def test_inv408_a_named_relatives_move_and_job(service):
    _facts(service, "Sister Nia lives in Cardiff")
    t = turn(service, "Nia's moved to Bristol, she got a job at the Met Office")
    assert "Sister Nia got a job at the Met Office" in [w.text for w in t.writes()]


def test_inv408_no_job_for_a_relative_not_said_or_hedged():
    assert not any(s.rule == "kin:got-job" for s in understand(
        "My husband might get a job at Arup if the interview goes well", TODAY).statements)
    assert not any(s.rule == "kin:got-job" for s in understand("I got a job at Arup", TODAY).statements)


# --- invariant 409: what the user denied is a relative's ------------------------------------
def test_inv409_the_allergy_is_my_sons(service):
    (old,) = _facts(service, "Has a sesame allergy")
    t = turn(service, "The sesame allergy is my daughter's, not mine.")
    ops = [(w.op, w.text, w.old_id) for w in t.writes()]
    assert ("write", "Daughter has a sesame allergy", None) in ops and ("retract", None, old.id) in ops


def test_inv409_thats_my_son_named_and_my_husband_is(service):
    _facts(service, "Has a gluten intolerance")
    t = turn(service, "I never had a gluten intolerance, that's my son Felix. I eat bread all the time.")
    assert "Son Felix has a gluten intolerance" in [w.text for w in t.writes()]
    _facts(service, "Is coeliac")
    t = turn(service, "Who told you I'm coeliac? I'm not. My wife is.")
    assert [w.op for w in t.writes()] == ["write", "retract"] and t.writes()[0].text == "Wife is coeliac"


def test_inv409_nothing_for_the_relative_without_the_users_fact(service):
    t = turn(service, "The sesame allergy is my daughter's, not mine.")
    assert [w for w in t.writes() if w.op == "write"] == []
    assert read("Where did you get that I'm diabetic?", TODAY) is None


# --- invariant 410: a relative gave up one activity for another ------------------------------
def test_inv410_quit_one_does_another_now(service):
    w = one_supersede(service, "Maya quit ballet, she does karate now, Saturdays", "Daughter Maya does ballet on Mondays",
                      "karate", fact_type="identity")
    assert w.text == "Daughter Maya does karate"
    one_supersede(service, "My son gave up tennis and he plays cricket now", "Son plays tennis at the club",
                  "cricket", fact_type="identity")


def test_inv410_never_another_persons_activity(service):
    _facts(service, "Plays tennis at the club")
    assert turn(service, "My son gave up tennis and he plays cricket now").writes() == []
    _facts(service, "Son Ben does ballet")
    assert turn(service, "Maya quit ballet, she does karate now").writes() == []


def test_inv406_always_been_somewhere_else_you_mixed_them_up(service):
    (old,) = _facts(service, "Her sister Maren lived around the corner from her in Bremen")
    (w,) = turn(service, "Maren never lived round the corner in Bremen. She's always been in Kassel; "
                         "you've mixed her up with my aunt.").writes()
    assert (w.op, w.old_id) == ("retract", old.id) and w.text == "Her sister Maren lives in Kassel"
    # without saying who it was mixed up with, it is not read as this correction
    assert read("Maren never lived in Bremen. She's always been in Kassel.", TODAY) is None


def test_inv407_a_relatives_date_put_right_is_retracted_and_reviewed(service):
    (old,) = _facts(service, "Husband's birthday is 3 March")
    retract, write = turn(service, "It's the 13th of March, not the 3rd! My husband's birthday.").writes()
    assert (retract.op, retract.old_id) == ("retract", old.id)
    assert (write.op, write.status, write.text) == ("write", "review", "Husband's birthday is 13 March")
    (old2,) = _facts(service, "Mum's birthday is 9 July")
    retract, write = turn(service, "It's the 19th, not the 9th. My mum's birthday").writes()
    assert retract.old_id == old2.id and write.text == "Mum's birthday is 19 July"


def test_inv407_no_date_of_another_relative_nor_a_question(service):
    _facts(service, "Sister's birthday is 3 March")
    assert turn(service, "It's the 13th of March, not the 3rd! My husband's birthday.").writes() == []
    assert read("Is it the 13th of March, not the 3rd? My husband's birthday?", TODAY) is None


def test_inv408_a_named_relatives_pregnancy_is_written_about_them(service):
    _facts(service, "Sister Hana lives in Osaka")
    (w,) = turn(service, "Hana is pregnant!! due in march").writes()
    assert (w.op, w.text) == ("write", "Sister Hana is pregnant")
    _facts(service, "Brother Ode lives in Abuja")
    assert "Brother Ode is engaged" in [w.text for w in turn(service, "Ode's engaged!").writes()]


def test_inv408_no_pregnancy_for_someone_of_no_relation_or_a_question(service):
    assert [w for w in turn(service, "Zoe is pregnant!").writes() if "Zoe" in (w.text or "")] == []
    assert not any(s.rule.startswith("kin:") for s in understand("Is Hana pregnant?", TODAY).statements)


def test_inv409_said_in_the_past_nothing_is_written_about_them(service):
    (old,) = _facts(service, "Has a kiwi allergy")
    t = turn(service, "The kiwi allergy was my brother's, I eat kiwis every day.")
    assert [(w.op, w.old_id) for w in t.writes()] == [("retract", old.id)]


def test_inv409_a_bare_thats_my_mum_is_the_denial_only(service):
    (old,) = _facts(service, "Has a latex allergy")
    t = turn(service, "I don't have a latex allergy, that's my mum. You've got us muddled.")
    assert [(w.op, w.old_id) for w in t.writes()] == [("retract", old.id)]


def test_inv404_a_place_at_a_school_is_written_for_a_clear_relative(service):
    (w,) = turn(service, "Our son got his place at Hollins Grammar! He moves to Bury in September.").writes()
    assert (w.op, w.text, w.valid_from) == ("write", "Son has a place at Hollins Grammar", date(2025, 9, 1))
    _facts(service, "Daughter Esme is 10")
    (w,) = turn(service, "Esme finally got her place at Queensbury Academy!").writes()
    assert w.text == "Daughter Esme has a place at Queensbury Academy"


def test_inv404_no_place_for_someone_of_no_known_relation(service):
    assert turn(service, "Esme finally got her place at Queensbury Academy!").writes() == []
    assert not any(s.rule == "kin:place" for s in understand("Has our son got a place at Hollins Grammar?",
                                                               TODAY).statements)
