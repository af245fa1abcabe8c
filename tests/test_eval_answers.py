"""`memdesk eval answers`: the judging of a reply (pure) and the question file (issue 12)."""

from __future__ import annotations

from memory.eval.answers_eval import AnswerCase, holds, judge, load_answer_cases


def test_an_entry_matches_whole_words_ignoring_case_with_alternatives():
    assert holds("No: you're pescatarian.", "no")
    assert not holds("I don't know", "no")  # "know" holds no word "no"
    assert holds("You live in Alcântara, Lisbon.", "alcântara")
    assert holds("since 2026-09-12", "September 12|2026-09-12")
    assert holds("your coffee order: flat white", "Flat White")
    assert not holds("Yesterday", "yes")


def test_a_reply_passes_with_every_must_and_no_must_not():
    case = AnswerCase(id="x", user="u", question="Do I have a cat?",
                      must=["on record|no"], must_not=["yes", "Pepper"])
    assert judge(case, "I have nothing on record that says so.").passed
    bad = judge(case, "Yes: you have a cat called Pepper.")
    assert not bad.passed and bad.missing == ["on record|no"] and bad.forbidden == ["yes", "Pepper"]


def test_the_question_file_covers_the_three_personas():
    cases = load_answer_cases()
    assert len(cases) >= 150 and len({c.id for c in cases}) == len(cases)
    for user in ("maya-smart-home", "lena-travels", "dev-ravi"):
        assert sum(c.user == user for c in cases) >= 30
