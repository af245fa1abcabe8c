"""Canonical fact texts: content tokens and the attribute ("slot") a canonical text fills.

Shared by the offline extractor (memory.llm.rules) and the planner's gates, so both read a
fact the same way: the planner attaches a supersession only to a retrieved neighbour filling
the same single-valued slot (invariant 33).
"""

from __future__ import annotations

import re

from ..text import STOP_WORDS, normalise, term_set

# The one stop list (memory/text.py) plus "new", which canonical texts use as a hedge
# ("a new car") rather than as content.
STOP = STOP_WORDS | {"new"}

_ARTICLE = re.compile(r"^(?:a|an|the|my|our|some|two|new)\s+", re.IGNORECASE)
_VERSION = re.compile(r"^(?:v?\d+(?:\.\d+)*|mk\s*\d+|gen\s*\d+|pro|mini|max|plus|lite|\d+(?:st|nd|rd|th))$", re.IGNORECASE)


def _clean(value: str) -> str:
    value = value.strip(" '’\".,;:!?")
    while _ARTICLE.match(value):
        value = _ARTICLE.sub("", value, count=1)
    return value


def content_tokens(text: str) -> set[str]:
    """Stemmed content words (memory/text.py: one tokenizer, one stemmer, one stop list)."""
    return set(term_set(text, stop=STOP, min_len=2))


# --- slots: which attribute a canonical text fills --------------------------------------------
_SLOT_RULES: list[tuple[re.Pattern, str]] = [
    (re.compile(r"^(?:\w+\s+)?(?:lives|living|resides|based|moved away from|lived)\s+(?:in|from)\b", re.IGNORECASE), "home_city"),
    (re.compile(r"^moved away from\b", re.IGNORECASE), "home_city"),
    (re.compile(r"^name is\b|^is called\b|^goes by\b", re.IGNORECASE), "name"),
    (re.compile(r"^works as\b|^is an? (?!\w+ years)", re.IGNORECASE), "job"),
    (re.compile(r"^works (?:at|for)\b", re.IGNORECASE), "employer"),
    (re.compile(r"^is \d+ years old", re.IGNORECASE), "age"),
    (re.compile(r"^(?:is (?:no longer )?(?:vegetarian|vegan|pescatarian|gluten-free|coeliac|celiac|lactose intolerant|halal|kosher))", re.IGNORECASE), "diet"),
    (re.compile(r"^uses .* pronouns", re.IGNORECASE), "pronouns"),
    (re.compile(r"^prefers (?:to be contacted by |contact by )?(?:email|e-mail|phone|phone calls|calls|text|texts|sms|chat|live chat|whatsapp)\b", re.IGNORECASE), "contact_channel"),
]


def _owned_base(obj: str) -> str:
    toks = [t for t in _clean(obj).lower().split() if not _VERSION.match(t)]
    return " ".join(toks[:3])


def slot_of(text: str) -> str | None:
    """The attribute a canonical fact text fills, or None when it is not single-valued."""
    t = text.strip()
    for pattern, slot in _SLOT_RULES:
        if pattern.search(t):
            return slot
    m = re.match(r"^(?:owns|has|uses|no longer owns)\s+(?P<o>.+)$", t, re.IGNORECASE)
    if m:
        return "owns:" + _owned_base(m.group("o"))
    m = re.match(r"^(?:prefers|likes|loves|dislikes|no longer likes|enjoys|hates)\s+(?P<o>.+)$", t, re.IGNORECASE)
    if m:
        return "pref:" + normalise(_clean(m.group("o")))
    m = re.match(r"^(?:allergic to|is allergic to|no longer allergic to)\s+(?P<o>.+)$", t, re.IGNORECASE)
    if m:
        return "allergy:" + normalise(m.group("o"))
    return None


