"""The shape of a value about to be written (invariants 360-362): garbled text is repaired only
when the repair is certain, otherwise it is not written. Pure: text in, verdict out."""

from __future__ import annotations

import re

from .phrases import cap

_ARTICLES = ("a", "an", "the")

# Invariant 361: words that cannot close a whole value, said in lower case ("... to", "... and",
# "... the"); a capitalised one is part of a name ("Listens to The The").
_DANGLING = frozenset("""a an the to of with and or but nor in at on for from by as than into onto
about via per so because if when while whereas although though unless until their his her my our
your its that which who whose whom""".split())

# Invariant 362: a pronoun left in a value stands for something the value does not name:
# the user said in the first person ("at my mum"), or a thing or people not named
# ("Mixes them up", "Gave it away"). "their" is the canonical third person for the user
# (phrases.third_person) and stays.
_UNNAMED = frozenset("my me myself mine our ours us ourselves i it them they we".split())

# "They think the CKA is on ..." is the user's hedge ("I think"), already carried as the
# review flag: the value is what follows it (invariant 362).
_HEDGE = re.compile(r"^(?:they|i)\s+(?:think|believe|reckon|guess|suppose)\s+(?:that\s+)?(?P<v>\S.*)$",
                    re.IGNORECASE)

_WORD = re.compile(r"[^\W_][\w'’.-]*")


def shape(text: str) -> tuple[str | None, str]:
    """(value to write, "") when whole or repaired with certainty; (None, what is wrong) when
    it must not be written. Pure."""
    t = " ".join(text.split())
    hedge = _HEDGE.match(t)
    if hedge:
        t = cap(hedge.group("v"))
    # Invariant 360: a doubled article ("a the green one") keeps the one nearer its noun; both
    # written in lower case, so "The The" (a band) is a name, not a slip.
    t = re.sub(r"\b(?:a|an|the)\s+(?=(?:a|an|the)\s)", "", t)
    t = re.sub(r"^(?:A|An|The)\s+(?=(?:a|an|the)\s)", "", t)
    words = _WORD.findall(t)
    if not words:
        return None, "it had no words I could keep"
    if words[-1] in _DANGLING:
        return None, f"it stops short after “{words[-1]}”"
    for w in words:
        if w in _UNNAMED or (w == "I" and len(words) > 1 and not _named_i(t)):
            return None, f"I couldn't tell what “{w}” stands for"
    return cap(t), ""


def _named_i(text: str) -> bool:
    """An upper-case "I" inside a name or a title ("Series I", "World War I", "I Will Survive"
    after "is"): a capitalised neighbour says it is part of a name."""
    for m in re.finditer(r"(?<![\w'’])I(?![\w'’])", text):
        before = text[:m.start()].split()[-1:] or [""]
        after = text[m.end():].split()[:1] or [""]
        if not (before[0][:1].isupper() or after[0][:1].isupper()):
            return False
    return True
