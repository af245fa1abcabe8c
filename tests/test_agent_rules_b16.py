"""Long tail of blind sets 1 and 2 (agent16, issue 12): general rules pinned with new phrasings,
never the blind sentences (invariants 275-277)."""

from __future__ import annotations

from datetime import date

from memory.understand.phrases import with_list
from memory.understand.statements import understand

from .agent_support import turn

TODAY = date(2026, 12, 1)


def said(message: str) -> list[tuple[str, str | None, str | None]]:
    return [(st.act, st.text, st.previous) for st in understand(message, TODAY, []).statements]


# --- invariant 275: what ended is read apart from the clause after its comma -------------------

def test_inv275_what_replaced_an_ending_is_the_value():
    assert said("quit Duolingo, doing Babbel on the train now") == [
        ("change", "Is doing Babbel on the train", "Duolingo")]
    assert said("I stopped the rowing club, learning the violin now") == [
        ("change", "Is learning the violin", "the rowing club")]


def test_inv275_ones_own_noun_said_after_an_ending_replaces_it():
    (st,) = understand("Cancelled the Amex card, so my phone insurance is a separate Zurich plan now",
                       TODAY, []).statements
    assert (st.act, st.text, st.previous) == (
        "change", "Phone insurance is a separate Zurich plan", "the Amex card")


def test_inv275_a_remark_after_the_comma_is_no_clause():
    assert said("quit smoking, feels great") == [("change", "Has given up smoking", "smoking")]
    assert said("stopped the yoga classes, it was too pricey") == [
        ("change", "Has given up the yoga classes", "the yoga classes")]


def test_inv275_nothing_ended_nothing_split():
    # "dropped it", "dropped off": no ending of a named thing, so no clause is made of the rest
    assert said("I dropped it off at the tip, what a relief") == []


def test_inv275_a_turn_replaces_the_fact_that_named_what_ended(service):
    old = service.write_fact("ana", "Phone insurance comes with her Amex card").fact
    (w,) = turn(service, "Cancelled the Amex card, so my phone insurance is a separate Zurich plan now").writes()
    assert (w.op, w.old_id, w.text) == ("supersede", old.id, "Phone insurance is a separate Zurich plan")


# --- invariant 276: a list keeps its items ------------------------------------------------------

def test_inv276_a_list_after_a_comma_is_kept_whole():
    assert said("I'm learning Welsh, Gaelic and Breton") == [
        ("assert", "Is learning Welsh, Gaelic and Breton", None)]
    assert said("I'm studying law, history or politics") == [
        ("assert", "Is studying law, history or politics", None)]


def test_inv276_a_second_clause_is_no_list_item():
    assert said("I'm learning Welsh, it's hard and slow") == [("assert", "Is learning Welsh", None)]
    assert with_list("Welsh", ", and I love it") == "Welsh"
    assert with_list("Welsh", ", Gaelic and Breton, mostly online") == "Welsh"  # the list must end the clause


# --- invariant 277: a value says what it is about -----------------------------------------------

def test_inv277_there_is_the_place_just_moved_to():
    assert said("Priya moved to Cardiff!! she got a job at a bakery there") == [
        ("change", "Priya lives in Cardiff", "Priya lives"),
        ("change", "Priya works at a bakery in Cardiff", "Priya works")]


def test_inv277_a_value_leaning_on_she_or_he_is_not_kept():
    assert said("my sister was diagnosed with coeliac disease, so I cook gluten-free when she stays") == [
        ("assert", "Sister has coeliac disease", None)]


def test_inv277_a_second_clause_about_the_person_ends_the_value():
    assert said("My wife Carla is a vet, she does weekends at the clinic in Leith") == [
        ("assert", "Wife Carla is a vet", None)]


def test_inv277_pronouns_as_a_value_and_the_users_own_them_stay():
    assert said("My pronouns are she/her") == [("assert", "Pronouns are she/her", None)]
    assert said("I cook when there is time") == [] or all(
        "there" not in (t or "") for _, t, _ in said("I cook when there is time"))
