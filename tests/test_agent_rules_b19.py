"""Recall classes of blind sets 1 and 2 (agent19, issue 12): general rules pinned with new
phrasings, never the blind sentences (invariants 307-308)."""

from __future__ import annotations

from datetime import date

from memory.understand.statements import split_clauses, understand

from .agent_support import turn

TODAY = date(2026, 12, 1)


def said(message: str) -> list[tuple[str, str | None]]:
    return [(st.act, st.text) for st in understand(message, TODAY, []).statements]


# --- invariant 307: a short lead-in before a colon is a label ----------------------------------

def test_inv307_a_label_before_a_colon_is_cut_from_the_sentence():
    assert split_clauses("Quick fix: my shoe size is 43, not 42") == ["Quick fix.", "my shoe size is 43, not 42"]
    (st,) = understand("Tiny correction: my shoe size is 43, not 42", TODAY, []).statements
    assert st.act == "change" and st.text == "Shoe size is 43" and st.harsh


def test_inv307_the_statement_after_the_label_is_read_as_said():
    assert said("Heads-up from the dentist: my dentist is now Dr Okafor") == [
        ("change", "Dentist is Dr Okafor")]


def test_inv307_a_head_that_names_the_value_or_the_user_keeps_its_colon():
    assert split_clauses("new tablet: a Galaxy Tab S9") == ["new tablet: a Galaxy Tab S9"]
    assert split_clauses("Lidl made me: shift supervisor") == ["Lidl made me: shift supervisor"]
    assert split_clauses("alarm at 6:45 please") == ["alarm at 6:45 please"]


def test_inv307_a_label_before_nothing_known_writes_nothing(service):
    assert turn(service, "Quick update: rain, rain and more rain").writes() == []
    # a head that is no label keeps its colon: "Lyon again after all: ..." (invariant 252)
    assert split_clauses("Lyon again: the choir festival") == ["Lyon again: the choir festival"]


# --- invariant 308: one's own noun said without "my" -------------------------------------------

def test_inv308_the_new_holder_of_a_role_is_a_change():
    assert said("The flat changed hands, the new landlord is Harbour Lettings") == [
        ("change", "Landlord is Harbour Lettings")]


def test_inv308_a_bare_noun_with_now_is_a_change_of_it():
    assert said("rota is four nights a fortnight now") == [("change", "Rota is four nights a fortnight")]
    assert said("two people joined, on-call is one week in 12 now") == [
        ("change", "On-call is one week in 12")]


def test_inv308_replaces_the_record_it_names(service):
    old = service.write_fact("ana", "Landlord is Mr Doyle").fact
    t = turn(service, "The house was sold, the new landlord is Keystone Homes")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", old.id) and "Keystone" in w.text


def test_inv308_without_now_a_name_or_a_determiner_nothing_is_read():
    assert said("the team is brilliant now") == []
    assert said("Rota is four nights a fortnight") == []
    assert said("Ana's landlord is Keystone Homes now") == []
    assert said("the new car is amazing") == []


def test_inv308_of_two_facts_holding_the_noun_the_one_sharing_words_is_replaced():
    from types import SimpleNamespace

    from memory.understand.matching import pick_old
    spell = SimpleNamespace(id="a", kind="semantic", state="active", fact_type="world", rank=1,
                            text="Rota from 6 March to 12 March")
    standing = SimpleNamespace(id="b", kind="semantic", state="active", fact_type="world", rank=2,
                               text="Rota at the depot is four nights a fortnight")
    (st,) = understand("rota is 6 nights a fortnight now", TODAY, []).statements
    # the better-ranked spell shares only a number, which is what changed
    assert pick_old(st, [spell, standing]).id == "b"
    (st,) = understand("rota is early shifts now", TODAY, []).statements
    assert pick_old(st, [spell, standing]).id == "a"  # no word shared: the better rank


def test_inv308_a_hyphenated_noun_is_found_in_the_fact():
    from memory.understand.matching import slots_of
    assert "noun:on-call" in slots_of("Primary on-call at Parcelbird one week in six")
    assert "noun:on-call" not in slots_of("Calls on Sundays")


# --- invariant 309: a verb of change with two letters swapped is still read ----------------

def test_inv309_a_swapped_pair_of_letters_in_a_verb_of_change_is_put_right():
    from memory.understand.canon import respell
    assert respell("I swtiched to Firefox") == "I switched to Firefox"
    assert respell("Satrted at Lidl") == "Started at Lidl"


def test_inv309_the_statement_is_read_as_if_spelt_right():
    assert said("we cahnged from Vodafone to Three last week") == said("we changed from Vodafone to Three last week")
    assert said("we cahnged from Vodafone to Three last week") != []


def test_inv309_other_slips_and_other_words_are_left_as_written():
    from memory.understand.canon import respell
    # a letter dropped is another word ("stared"), and short or unknown words are never guessed
    assert respell("she stared at me, we mvoed, teh cat") == "she stared at me, we mvoed, teh cat"
    assert said("she stared at the new Kindle for ages") == []


# --- invariant 310: "me and <name>" is "we"; "both" after the verb says nothing more ----------

def test_inv310_me_and_a_named_person_is_we():
    assert said("Me and Ines are flying to Oslo on 3 March") == said("We are flying to Oslo on 3 March")
    assert said("Me and Ines moved to Bergen") == [("change", "Lives in Bergen")]


def test_inv310_both_or_all_after_the_verb_is_dropped():
    assert said("My husband Karl and I are both pescatarian") == [("assert", "Is pescatarian")]
    assert said("we're all teetotal these days") == said("we're teetotal these days") != []


def test_inv310_a_remark_about_the_two_of_them_writes_nothing(service):
    t = turn(service, "Me and Ines are exhausted")
    assert t.writes() == []


# --- invariant 311: a team moved from and to ------------------------------------------------

def test_inv311_the_team_moved_to_is_the_value_not_the_one_left():
    assert said("I transferred from the billing team to the search team") == [
        ("change", "Works on the search team")]


def test_inv311_replaces_the_team_inside_the_job(service):
    old = service.write_fact("ana", "Data engineer on the billing team at Korva", fact_type="identity").fact
    t = turn(service, "I switched from the billing team to the growth team last week")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", old.id)
    assert w.text == "Data engineer on the growth team at Korva"


def test_inv311_a_team_only_left_or_a_sports_team_is_no_move():
    assert said("I moved from the billing team") == []
    # no move; at most a substitution, written only into a fact that names the hockey team
    # (invariant 375, tests/test_agent_rules_substitution.py)
    assert [st.rule for st in understand("I moved from the hockey team to the netball team", TODAY,
                                         []).statements] in ([], ["swap:value"])


# --- invariant 312: "out doing X" is doing X ---------------------------------------------------

def test_inv312_out_doing_is_doing():
    assert said("I'm out doing landscape painting most weekends now") == [
        ("assert", "Is doing landscape painting most weekends")]
    assert said("and we're off doing parkrun every Saturday") == said("and we're doing parkrun every Saturday")


def test_inv312_out_or_away_for_now_writes_nothing(service):
    assert turn(service, "I'm out shopping").writes() == []
    assert turn(service, "I'm away doing a course until March").writes() == []


# --- invariant 313: "that was a joke" --------------------------------------------------------

def test_inv313_a_joke_cue_after_a_negation_denies_the_record(service):
    old = service.write_fact("ana", "Owns a racehorse called Biscuit").fact
    t = turn(service, "lol I don't own a racehorse, that was just a joke")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("retract", old.id)


def test_inv313_after_a_statement_it_takes_the_statement_back(service):
    assert said("I'm moving to Reykjavik, that was a joke") == []
    assert turn(service, "I bought a castle, it was only banter").writes() == []


def test_inv313_a_joke_said_as_part_of_a_value_is_no_cue():
    assert said("I got a new car, it was a joke present from my dad") != []
    assert said("I don't own a racehorse") == []


def test_inv308_a_noun_changed_to_a_value_is_what_it_is_now(service):
    old = service.write_fact("ana", "Energy tariff is Octopus Flexible").fact
    t = turn(service, "Our energy tariff got switched to Octopus Agile yesterday")
    (w,) = t.writes()
    assert (w.op, w.old_id) == ("supersede", old.id) and "Agile" in w.text


def test_inv308_a_thing_moved_somewhere_is_no_value():
    assert said("my car got moved to the visitors' car park") == []
    assert said("the meeting got changed to Friday") == []
