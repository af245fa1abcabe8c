"""Wrong and malformed values (issue 12, invariants 360-363): a garbled value is repaired only
when the repair is certain, otherwise not written, and a home held as a rented or owned place
is where the user lives. Real store, real agent."""

from __future__ import annotations

from memory.understand.matching import slots_of
from memory.understand.value_shape import shape

from .agent_support import active, one_supersede, turn


def test_inv360_a_doubled_article_keeps_the_one_by_its_noun():
    assert shape("Bike is a the red Brompton") == ("Bike is the red Brompton", "")
    assert shape("Owns the a vintage Leica") == ("Owns a vintage Leica", "")
    # a capitalised article is part of a name, never a slip
    assert shape("Listens to The The") == ("Listens to The The", "")
    assert shape("Favourite film is The A-Team") == ("Favourite film is The A-Team", "")


def test_inv361_a_value_that_stops_on_a_function_word_is_not_written():
    for cut in ("Commutes by bike to", "Volunteers at the food bank and", "Is learning the",
                "Plays five-a-side because"):
        assert shape(cut)[0] is None, cut
    # the same words inside a whole value, or closing a name, are fine
    for whole in ("Works at Marks and Spencer", "Shops at Fortnum and Mason",
                  "Favourite band is The The", "Supports Brighton and Hove Albion"):
        assert shape(whole) == (whole, ""), whole


def test_inv361_a_name_ending_on_a_capitalised_article_is_written(service):
    t = turn(service, "My favourite band is The The")
    assert [w.text for w in t.writes()] == ["Favourite band is The The"]


def test_inv362_a_pronoun_naming_nothing_is_not_written():
    assert shape("Keeps muddling them up")[0] is None
    assert shape("Gave it to a neighbour")[0] is None
    # "their" is the canonical third person for the user and stays; "its" is a possessive
    assert shape("Renewed their passport") == ("Renewed their passport", "")
    assert shape("Drives a Mini and loves its colour") == ("Drives a Mini and loves its colour", "")
    # a pronoun in an aside after a comma leaves the whole value before it
    assert shape("Has a tortoise, it is forty years old") == ("Has a tortoise", "")


def test_inv362_the_users_own_words_become_the_canonical_third_person():
    assert shape("Cooks for my dad on Sundays") == ("Cooks for their dad on Sundays", "")
    assert shape("Keeps all our receipts in Dropbox") == ("Keeps all their receipts in Dropbox", "")
    # a capitalised word opening a name or a title is not the user
    assert shape("Drives a BMW Series I") == ("Drives a BMW Series I", "")
    assert shape("Listens to My Bloody Valentine") == ("Listens to My Bloody Valentine", "")


def test_inv362_a_hedge_leftover_is_dropped_from_the_value():
    assert shape("They think the gym closes at 10pm") == ("The gym closes at 10pm", "")
    assert shape("They reckon that the lease ends in June") == ("The lease ends in June", "")


def test_inv362_the_reply_says_what_was_not_recorded(service):
    # "them" names no one: nothing is written, and the reply names the value and the word it
    # could not resolve, never "Noted"
    t = turn(service, "I always muddle them up")
    assert t.writes() == [] and active(service) == []
    assert t.reply.startswith("I haven't noted") and "“them”" in t.reply
    # a value with the user's own "my" is written, in the canonical third person
    (w,) = turn(service, "I volunteer at the food bank with my neighbour").writes()
    assert w.text == "Volunteers at the food bank with their neighbour"


def test_inv363_a_rented_or_owned_home_is_where_the_user_lives():
    assert "home" in slots_of("Rents a flat in Stockbridge", "identity")
    assert "home" in slots_of("Rents a room in Hackney", "identity")
    assert "home" in slots_of("Owns a terraced house in Frome", "identity")
    # a holiday home, a car or a place without a name is not where they live
    assert "home" not in slots_of("Owns a holiday cottage in Pembrokeshire", "identity")
    assert "home" not in slots_of("Rents a van in Dover", "identity")
    assert "home" not in slots_of("Rents a flat in town", "identity")


def test_inv363_a_move_supersedes_a_rented_flat(service):
    w = one_supersede(service, "We've just moved to Falmouth", "Rents a flat in Truro", "Falmouth",
                      fact_type="identity")
    assert w.text == "Lives in Falmouth"
    assert active(service) == ["Lives in Falmouth"]


def test_inv363_a_move_supersedes_an_owned_house(service):
    one_supersede(service, "I moved to Harrogate last month", "Owns a house in Ripon", "Harrogate",
                  fact_type="identity")


def test_inv364_a_pets_name_said_later_in_the_clause_stays_with_it(service):
    (w,) = turn(service, "Rescued a kitten from the RSPCA on Sunday, his name is Biscotti.").writes()
    assert w.text == "Has a kitten called Biscotti"
    (w,) = turn(service, "I got a puppy last month, she's called Nutmeg", user="bo").writes()
    assert w.text == "Has a puppy called Nutmeg"


def test_inv364_pets_counted_keep_their_names(service):
    (w,) = turn(service, "We adopted three rabbits from a farm, Fudge, Toffee and Mallow.").writes()
    assert w.text == "Has three rabbits, Fudge, Toffee and Mallow"


def test_inv364_a_place_after_a_comma_is_not_a_pets_name(service):
    (w,) = turn(service, "I adopted a dog from a shelter in Carlisle, Cumbria.").writes()
    assert "called" not in w.text and "Cumbria" not in w.text


def test_inv365_one_of_a_habit_is_singular(service):
    service.write_fact("ana", "Has four cans of cola a day", fact_type="preference")
    t = turn(service, "I'm down to one cola a day")
    assert [w.text for w in t.writes()] == ["Has one cola a day"]
    (w,) = turn(service, "I'm up to 3 lattes a day", user="bo").writes()
    assert w.text == "Has 3 lattes a day"


def test_inv366_caring_for_a_relative_is_no_employer(service):
    (w,) = turn(service, "I'm a carer for my dad two days a week").writes()
    assert w.text == "Is a carer for their dad two days a week"
    (w,) = turn(service, "I'm a full-time carer for my son", user="bo").writes()
    assert w.text == "Is a full-time carer for their son" and "Works" not in w.text
    # an employer after "for" stays an employer
    (w,) = turn(service, "I'm a porter for the NHS", user="cy").writes()
    assert w.text == "Works as a porter at the NHS"


def test_inv367_a_stop_said_with_an_intensifier_is_the_stop_itself(service):
    assert shape("Has given up eating sugar entirely") == ("Has given up eating sugar", "")
    assert shape("No longer vapes, for good") == ("No longer vapes", "")
    # an adverb that is part of what holds stays
    assert shape("Is fully qualified") == ("Is fully qualified", "")
    t = turn(service, "I've stopped eating red meat completely")
    assert [w.text for w in t.writes()] == ["Does not eat red meat"]


def test_inv368_a_verb_said_only_as_an_occasion_is_not_a_fact(service):
    t = turn(service, "I sneeze whenever I visit my aunt")
    assert t.writes() == [] and "haven't noted" in t.reply
    t = turn(service, "My knee aches each time I cycle to the office", user="bo")
    assert t.writes() == []
    # the same verb said on its own is kept
    (w,) = turn(service, "I visit my aunt every Sunday", user="cy").writes()
    assert "aunt" in w.text
