"""Is this text the same value as a tombstoned one? Pure functions behind invariant 7.

Three tests, in order: the normalised text is equal; the tombstone's content terms (stemmed) all
reappear with at most a couple of extra terms ("Has a peanut allergy" for "Allergic to peanuts");
or the embeddings are close (cosine ≥ threshold) while every identifier of the dead value (a
name, a number, a model like "v2") reappears and at least half its terms do ("Resides in
Bristol" for "Lives in Bristol"). A restatement must also keep the tombstone's polarity: "Not
allergic to peanuts" is the correction, not the dead value, even though MiniLM scores the pair
0.92. Identifiers keep "Owns a Lumio Hub v3" (cosine 0.95 to a dead "... v2") alive.
"""

from __future__ import annotations

from .models import Tombstone
from .text import STOPWORDS, normalise, words

# Words that say who holds a value or hedge it, not what the value is.
_FILLER = frozenset(["user", "users", "person", "customer", "has", "have", "having", "is", "am", "are", "was", "were", "be", "been", "confirmed", "really", "actually", "definitely", "also", "still", "currently", "now", "today", "said", "says", "told", "an", "a", "the", "i", "me", "my", "mine", "our", "we"])
_NEGATIONS = frozenset({"not", "no", "never", "none", "without", "nothing", "neither", "nor",
                        "isn't", "doesn't", "don't", "didn't", "wasn't", "aren't", "hasn't",
                        "haven't", "won't", "nt"})


def stem(word: str) -> str:
    """A deliberately small suffix stripper: allergy/allergic/allergies → allerg, lived → liv."""
    w = word.replace("'", "").replace("’", "")
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    for suffix in ("ing", "ed", "es", "s"):
        if len(w) > len(suffix) + 2 and w.endswith(suffix):
            w = w[: -len(suffix)]
            break
    for suffix in ("ic", "y", "e"):
        if len(w) > len(suffix) + 2 and w.endswith(suffix):
            w = w[: -len(suffix)]
            break
    return w


def value_terms(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in words(text)
                     if w not in STOPWORDS and w not in _FILLER and w not in _NEGATIONS)


def identifiers(text: str) -> frozenset[str]:
    """Stemmed names and numbers: words with a digit, or capitalised past the first word."""
    out = set()
    for i, raw in enumerate(text.split()):
        token = raw.strip(".,;:!?()[]\"'")
        if token and (any(c.isdigit() for c in token) or (i > 0 and token[0].isupper())):
            out.update(stem(w) for w in words(token))
    return frozenset(out)


def negated(text: str) -> bool:
    return any(w in _NEGATIONS or w.endswith("n't") for w in words(text))


def restates(tomb: Tombstone, text: str, cosine: float | None, threshold: float) -> str | None:
    """Why `text` restates the tombstoned value, or None when it does not."""
    if normalise(text) == tomb.normalized:
        return "same value"
    if negated(text) != negated(tomb.text):
        return None
    dead, new = value_terms(tomb.text), value_terms(text)
    if dead and dead <= new and len(new - dead) <= max(2, len(dead)):
        return "same terms"
    if (cosine is not None and cosine >= threshold and identifiers(tomb.text) <= new
            and 2 * len(dead & new) >= len(dead)):
        return f"similar meaning (cosine {cosine:.2f}, same names and numbers)"
    return None


def match_tombstone(text: str, tombstones: list[Tombstone],
                    near: list[tuple[Tombstone, float]], threshold: float
                    ) -> tuple[Tombstone, float, str] | None:
    """The tombstone `text` restates (with its cosine and the reason), or None (invariant 7).

    `near` holds (tombstone, cosine) for the nearest tombstones by embedding."""
    cos = {t.id: c for t, c in near}
    best = None
    for tomb in tombstones:
        reason = restates(tomb, text, cos.get(tomb.id), threshold)
        if reason is not None:
            score = cos.get(tomb.id, 1.0 if reason == "same value" else 0.0)
            if best is None or score > best[1]:
                best = (tomb, score, reason)
    return best
