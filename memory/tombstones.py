"""The tombstone check every write path calls: candidates from the store's index, the verdict
from memory/values.py (invariants 7, 61-63).

`check` looks up the tombstones that may concern a text (canonical key, normalised text, slot
terms, nearest vectors: `Store.tombstone_candidates`), adds the tombstones the same batch is
about to create (`pending`: a harsh correction retracts its target, so its new text is matched
against that value too, invariant 62), and returns one `Verdict`: refuse, review or accept.

A text the canonical reader accepts is then read under its other names (`memory/restatements.py`:
the one slot vocabulary's templates, codes, numerals, exonyms, synonyms as data): when one of
those readings restates a tombstone, the text is held for review with that tombstone, never
accepted active and never refused on an alias alone (issue 30, invariant 461).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from .embeddings import Embedder
from .frames import (
    clipped,
    date_by_name,
    demonym,
    epithet,
    names_in_frame,
    place_in_frame,
    translated_value,
)
from .models import Tombstone
from .restatements import (
    another_given_name,
    derived_word,
    foreign_restatement,
    foreign_sentence,
    in_longer_name,
    initialism,
    light_verb,
    named_within,
    names_apart,
    near_spelling,
    tables,
    unknown_name,
    unresolved_place,
    variants,
)
from .stores.base import Store
from .values import Decision, Judge, Verdict, assess, judge_pair, places_apart, probe

NEAREST = 5  # tombstones taken by vector for the similarity band
DEAD_VARIANTS = 8  # other readings of a candidate tombstone compared with the new text


def check(store: Store, embedder: Embedder, user_id: str, text: str, *, threshold: float,
          vector: np.ndarray | None = None, pending: Iterable[Tombstone] = (),
          judge: Judge | None = None) -> Verdict:
    """The verdict for writing `text` for `user_id` (the caller has checked the scope)."""
    pending = list(pending)
    cache: dict[str, np.ndarray] = {}

    def query_vector() -> np.ndarray:
        # Embedded lazily: a user without tombstones costs no model call (the store asks for it
        # only when it has vectors to compare).
        if "v" not in cache:
            cache["v"] = np.asarray(vector if vector is not None else embedder.embed([text])[0],
                                    np.float32)
        return cache["v"]

    candidates = list(store.tombstone_candidates(user_id, probe(text), query_vector, NEAREST))
    extra: list[tuple[Tombstone, float | None]] = []
    if pending:
        vectors = embedder.embed([t.text for t in pending])
        extra = [(t, float(v @ query_vector())) for t, v in zip(pending, vectors, strict=False)]
    # Invariant 600: another name of the same kind in the same words ("video calls" after
    # "phone calls") is a different value, however close the meaning of the two texts.
    named_apart = {t.id for t, _ in candidates + extra if names_apart(t.text, text)
                   or framed_apart(t.text, text)}
    candidates = [(t, c) for t, c in candidates if t.id not in named_apart]
    extra = [(t, c) for t, c in extra if t.id not in named_apart]
    verdict = assess(text, candidates + extra, threshold, judge=judge)
    if verdict.decision != Decision.ACCEPT:
        return verdict
    # Invariant 461: dead under any name. Each other reading is looked up by the same index
    # (its canonical key and slot terms find a tombstone under any of the value's names).
    # Invariant 600: a place the gazetteer tells apart from a dead one is not made it by a
    # nickname read into its words ("Bristol, Connecticut" read as "Bristle, Connecticut"),
    # nor a name by an alias that is one word of a longer name ("Inter Miami").
    apart: dict[str, bool] = dict.fromkeys(named_apart, True)

    def told_apart(tomb: Tombstone) -> bool:
        if tomb.id not in apart:
            apart[tomb.id] = bool(names_apart(tomb.text, text) or places_apart(tomb.text, text)
                                  or in_longer_name(tomb.text, text)
                                  or framed_apart(tomb.text, text))
        return apart[tomb.id]

    for other in variants(text):
        found = list(store.tombstone_candidates(user_id, probe(other), query_vector, NEAREST))
        got = assess(other, [(t, c) for t, c in found + extra if not told_apart(t)], threshold)
        if got.decision != Decision.ACCEPT and got.tombstone is not None:
            # invariant 461: an alias only ever holds a write for a person, never refuses it
            return Verdict(decision=Decision.REVIEW, tombstone=got.tombstone,
                           similarity=got.similarity,
                           reason=f"may restate it under another name (read as {other!r}): "
                                  f"{got.reason}")
    own_targets = {t.id for t, _ in extra}
    for tomb, cosine in candidates + extra:
        why = None if told_apart(tomb) else _other_name(tomb.text, text, threshold,
                                                        corrected=tomb.id in own_targets)
        if why:
            return Verdict(decision=Decision.REVIEW, tombstone=tomb, similarity=cosine,
                           reason=f"may restate it under another name: {why} (tombstone "
                                  f"{tomb.id}: {tomb.text!r})")
    return verdict


@lru_cache(maxsize=4096)
def _variants(text: str) -> tuple[str, ...]:
    return tuple(variants(text))


def framed_apart(dead: str, text: str) -> bool:
    """Two values of one frame the gazetteer or the name lists tell apart ("Is from Latvia"
    / "Is from Lithuania", "Neighbour is Robert" / "Neighbour is Rupert"; invariant 600)."""
    place = place_in_frame(dead, text)
    if place is not None:
        return place[0] == "apart"
    names = names_in_frame(dead, text)
    return names is not None and bool(another_given_name(*names))


def _in_frame(dead: str, text: str, corrected: bool) -> str | None:
    """Why a value of the dead text's frame may be the dead value (invariant 600): another
    name of its place or a place no gazetteer knows, a pet form of its name or a name no list
    tells apart."""
    place = place_in_frame(dead, text)
    if place is not None:
        return place[1] if place[0] == "held" and not (corrected and "no place" in place[1]) \
            else None
    names = names_in_frame(dead, text)
    if names is None:
        return None
    return named_within(*names) or (None if corrected else unknown_name(*names))


def _demonym(dead: str, text: str) -> str | None:
    found = demonym(dead, text)
    return found[1] if found and found[0] == "held" else None


def _other_name(dead: str, text: str, threshold: float, *, corrected: bool = False
                ) -> str | None:
    """Why `text` may be the dead value under a name the reader's own comparison missed, or
    None (invariants 461, 600). Each rule only ever holds a write. A value no table knows is
    held after a retraction, but not as the correction of the very value it replaces
    (`corrected`: a harsh correction says itself that the two differ)."""
    why = (near_spelling(dead, text)  # a name spelled another way
           or foreign_restatement(dead, text)  # the same sentence in another language
           or foreign_sentence(dead, text)  # a sentence of another language, as long
           or named_within(dead, text)  # another name of the value anywhere in the text
           or initialism(dead, text)  # "GoT" after "Game of Thrones"
           or not corrected and unknown_name(dead, text)  # a name no table knows
           or derived_word(dead, text)  # a word derived from the value ("asthmatic")
           or not corrected and unresolved_place(dead, text)  # a place no gazetteer knows
           or light_verb(dead, text)  # "Has coffee every morning" after "Drinks coffee"
           or _in_frame(dead, text, corrected)  # "Is from Persia" after "Is from Iran"
           or translated_value(dead, text, tables().function_words)  # "La vita è bella"
           or clipped(dead, text)  # "FedEx" after "Federal Express"
           or _demonym(dead, text)  # "Is Bajan" after "Is from Barbados"
           or date_by_name(dead, text)  # "on Christmas Day" after "25 December"
           or epithet(dead, text))  # "the Boss" after "Bruce Springsteen"
    if why:
        return why
    # The dead text under its other names ("Has a dozen hens" read as "has 12 hens") compared
    # with the new text: a rewriting of either side counts, not only of the new one.
    dead_variants = _variants(dead)[:DEAD_VARIANTS]
    for other in dead_variants:
        decision, reason = judge_pair(other, text, None, threshold)
        if decision == Decision.REFUSE:  # the same value, not merely a similar one
            return f"the dead text read as {other!r}: {reason}"
    # both rewritten: "halb neun" and "8:30 pm" both read as 20:30
    both = set(dead_variants) & set(_variants(text))
    return f"both texts read as {sorted(both)[0]!r}" if both else None
