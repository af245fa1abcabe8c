"""The shape of a value about to be written (invariants 360-362): garbled text is repaired only
when the repair is certain, otherwise it is not written. Pure: text in, verdict out."""

from __future__ import annotations

import re

from .phrases import cap

_ARTICLES = ("a", "an", "the")

# Invariant 361: words that cannot close a whole value, said in lower case ("... to", "... and",
# "... the"); a capitalised one is part of a name ("Listens to The The").
_DANGLING = frozenset("""a an the to of with and or but nor in at on for from by as than into onto
about via per so because if when while whereas although though unless until their my our your
its whose""".split())  # "his", "her", "that" may close a value as pronouns ("must suit that")

# Invariant 362: a pronoun left in a value stands for something the value does not name:
# the user said in the first person ("at my mum"), or a thing or people not named
# ("Mixes them up", "Gave it away"). "their" is the canonical third person for the user
# (phrases.third_person) and stays.
_UNNAMED = frozenset("it them they".split())
# The user's own first-person words are certain: they become the canonical third person
# ("Uses Obsidian for all my notes" -> "... all their notes"), never a refusal.

# "They think the CKA is on ..." is the user's hedge ("I think"), already carried as the
# review flag: the value is what follows it (invariant 362).
_HEDGE = re.compile(r"^(?:they|i)\s+(?:think|believe|reckon|guess|suppose)\s+(?:that\s+)?(?P<v>\S.*)$",
                    re.IGNORECASE)

_WORD = re.compile(r"[^\W_][\w'’.-]*")


def shape(text: str, said: str | None = None, _top: bool = False) -> tuple[str | None, str]:
    """(value to write, "") when whole or repaired with certainty; (None, what is wrong) when
    it must not be written. `said` is the user's clause: a "them" or "they" it does not hold
    is the canonical third person for "me" or "I" (`phrases.third_person`), the user. Pure."""
    t = " ".join(text.split())
    hedge = _HEDGE.match(t)
    if hedge:
        t = cap(hedge.group("v"))
    # Invariant 360: a doubled article ("a the green one") keeps the one nearer its noun; both
    # written in lower case, so "The The" (a band) is a name, not a slip.
    t = re.sub(r"\b(?:a|an|the)\s+(?=(?:a|an|the)\s)", "", t)
    t = re.sub(r"^(?:A|An|The)\s+(?=(?:a|an|the)\s)", "", t)
    # Invariant 367: a stop said with an intensifier ("Has given up eating meat completely")
    # is the stop itself; the adverb is how it was said, not part of what stopped.
    t = re.sub(r"^((?:Has\s+given\s+up|Does\s+not|No\s+longer|Has\s+stopped)\s+\S.*?)\s*,?\s+"
               r"(?:completely|entirely|altogether|totally|for\s+good|fully)$", r"\1", t)
    words = _WORD.findall(t)
    if not words:
        return None, "it had no words I could keep"
    if words[-1] in _DANGLING:
        return None, f"it stops short after “{words[-1]}”"
    for w in words:
        if w in _UNNAMED and (said is None or re.search(r"(?<![\w'’])" + w + r"(?![\w'’])", said, re.I)):
            aside = re.search(r",\s+[^,]*\b" + re.escape(w) + r"\b", t)
            if aside and aside.start() > 0 and not _top and shape_whole(t[:aside.start()], said):
                # the pronoun sits in a clause of its own after a comma ("CKA exam on 5 February,
                # the test centre cancelled my slot"): the value is what came before it
                return shape(t[:aside.start()], said, _top=True)
            return None, f"I couldn't tell what “{w}” stands for"
    return cap(_third(t)), ""


def _third(text: str) -> str:
    """The user's own lower-case first-person words as the canonical third person
    (`phrases.third_person`); a capitalised "I" or "My" may open a name and stays. Pure."""
    t = re.sub(r"\bmy\b|\bour\b", "their", text)
    t = re.sub(r"\bmine\b|\bours\b", "theirs", t)
    return re.sub(r"\bmyself\b|\bourselves\b|\bme\b|\bus\b", "them", t)


def shape_whole(text: str, said: str | None = None) -> bool:
    """True when `shape` writes `text` (as it stands or repaired). Pure."""
    return shape(text, said, _top=True)[0] is not None

