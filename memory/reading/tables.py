"""The reader's knowledge, loaded from the data files beside it (`tables/`).

`cues.jsonl` holds one row per phrasing of a slot: the cue words (matched on stems, so "live
in" reads "lives in", "living in", "lived in"), the act it signals (state / change), the value
shape that follows it, an optional canonical template, and the example sentence with the
fact it must produce (`tests/test_reading_tables.py` runs every row). `words.json` holds the word
lists (subjects, relations, hedges, denials, endings, stop words). A new phrasing is a new row.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from ..text import stem

HERE = Path(__file__).resolve().parent / "tables"


@dataclass(frozen=True)
class Cue:
    slot: str
    act: str
    stems: tuple[str, ...]
    shape: str
    before: bool  # the value comes before the cue ("a sesame allergy")
    template: str | None
    example: str
    want: str


def word_stem(word: str) -> str:
    """The stem a cue is matched on. A pronoun or function word is kept whole and marked, so
    "us" never matches the stem of "use", nor "his" the greeting "hi"."""
    low = word.lower().replace("'", "")
    if low in _closed():
        return low + "#"
    # an -ly word is its own word: "lovely" is no "love", "likely" no "like", "lively" no "live"
    return low if low.endswith("ly") and len(low) > 4 else stem(low)


@lru_cache(maxsize=1)
def _closed() -> frozenset[str]:
    data = json.loads((HERE / "words.json").read_text(encoding="utf-8"))
    return frozenset(data["pronouns"]) | frozenset(data["function_words"]) - {"have", "has",
                                                                              "do", "does"}


def stems_of(phrase: str) -> tuple[str, ...]:
    return tuple(word_stem(w) for w in phrase.lower().split())


@lru_cache(maxsize=1)
def cues() -> tuple[Cue, ...]:
    rows = []
    for line in (HERE / "cues.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        phrase = r.get("cue") or r["before"]
        rows.append(Cue(slot=r["slot"], act=r["act"], stems=stems_of(phrase), shape=r["shape"],
                        before="before" in r, template=r.get("template"), example=r["ex"],
                        want=r["want"]))
    # Longer cues first: "start learn" before "learn", "have got" before "have".
    return tuple(sorted(rows, key=lambda c: -len(c.stems)))


@lru_cache(maxsize=1)
def words() -> dict[str, object]:
    data = json.loads((HERE / "words.json").read_text(encoding="utf-8"))
    data.pop("_doc", None)
    return data


def word_list(name: str) -> tuple[str, ...]:
    value = words()[name]
    assert isinstance(value, list)
    return tuple(value)


@cache
def phrase_set(name: str) -> frozenset[tuple[str, ...]]:
    """A word list as stemmed phrases, for matching anywhere in a clause."""
    return frozenset(stems_of(p) for p in word_list(name))


@lru_cache(maxsize=1)
def _irregular() -> tuple[re.Pattern[str], dict[str, str]]:
    forms = words()["irregular_past"]
    assert isinstance(forms, dict)
    return re.compile(r"\b(?:" + "|".join(sorted(forms, key=len, reverse=True)) + r")\b",
                      re.IGNORECASE), forms


def base_forms(text: str) -> str:
    """Irregular past verbs in their base form, so "grew up in Dublin" names the fact "Grew up
    in Dublin" said as "I didn't grow up in Dublin" (the stemmer leaves "grew" as it is)."""
    pattern, forms = _irregular()
    return pattern.sub(lambda m: forms[m.group(0).lower()], text)
