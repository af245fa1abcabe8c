"""Tombstone matching as pure functions (invariant 7): restatements are caught, corrections and
different values are not. The wordings here are held out from memory/eval/stress.py's."""

from __future__ import annotations

import pytest

from memory.models import Tombstone, TombstoneKind
from memory.text import normalise
from memory.values import identifiers, negated, restates, stem, value_terms


def tomb(text: str) -> Tombstone:
    return Tombstone(user_id="u", text=text, normalized=normalise(text),
                     kind=TombstoneKind.RETRACTED, actor="cli")


@pytest.mark.parametrize("a, b", [("allergy", "allergic"), ("allergies", "allergy"),
                                  ("lived", "lives"), ("living", "live"), ("seats", "seat")])
def test_stem_joins_inflections(a, b):
    assert stem(a) == stem(b)


def test_terms_identifiers_and_polarity():
    assert value_terms("The user is allergic to peanuts!") == {"allerg", "peanut"}
    assert identifiers("Owns a Lumio Hub v2") == {"lumio", "hub", "v2"}
    assert negated("Doesn't live in Bristol") and negated("Never lived in Bristol")
    assert not negated("Cannot eat shellfish because of an allergy")


@pytest.mark.parametrize("dead, text, cosine", [
    ("Lives in Bristol", "lives in BRISTOL.", None),  # same value
    ("Lives in Bristol", "Bristol is where I live", 0.85),  # same terms
    ("Is vegetarian", "Follows a vegetarian diet", 0.81),  # same terms, two extra
    ("Allergic to shellfish", "Has a shellfish allergy", 0.80),  # inflection
    ("Lives in Bristol", "Resides in Bristol", 0.90),  # similar, names agree
    ("Owns a Lumio Hub v2", "Has a Lumio Hub v2", 0.89),
])
def test_restatements_are_caught(dead, text, cosine):
    assert restates(tomb(dead), text, cosine, 0.85) is not None


@pytest.mark.parametrize("dead, text, cosine", [
    ("Allergic to shellfish", "Not allergic to shellfish", 0.92),  # the correction itself
    ("Lives in Bristol", "Never lived in Bristol", 0.79),
    ("Owns a Lumio Hub v2", "Owns a Lumio Hub v3", 0.95),  # another model: a new value
    ("Lives in Bristol", "Lives in Edinburgh", 0.57),
    ("Lives in Bristol", "Works in Bristol", 0.78),
    ("Prefers window seats", "Hates window seats", 0.84),
    ("Is vegetarian", "Is vegan", 0.76),
])
def test_corrections_and_other_values_are_not(dead, text, cosine):
    assert restates(tomb(dead), text, cosine, 0.85) is None
