"""Which fact on record a clause no row reads is news about (invariant 534).

A clause the cue table cannot read may still be plainly about something the user told us
before: "Luna died last night" is about "Has a cat called Luna"; "the marathon is off" is about
"Training for the Valencia marathon". The link is the words they share, each weighted by how
rare it is among the user's facts (a name said in one fact links; "work" said in six does not).
What the clause does to that fact is for an operator to confirm: a link only ever makes a
candidate. Pure.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..text import STOP_WORDS, term_set
from .model import FactRef
from .tables import word_list


@lru_cache(maxsize=1)
def _stop() -> frozenset[str]:
    # the verbs of news ("cancelled", "sold", "moved") say what happened, not to what: a
    # cancelled trip is not news about noise-cancelling headphones
    said = {w for table in ("endings", "changes", "events") for w in word_list(table)
            if " " not in w}
    return STOP_WORDS | frozenset(word_list("link_stop")) | frozenset(said)


def _words(text: str) -> frozenset[str]:
    stop = _stop()
    return term_set(text, stop=stop, min_len=2) | frozenset(
        a.lower() for a in re.findall(r"\b[A-Z][A-Z0-9]{1,5}\b", text))


_SETTING = re.compile(r"\b(?:in|at|on|near|with|during|over|every)\s+(?:the\s+|a\s+|an\s+|my\s+|"
                      r"our\s+|his\s+|her\s+)?(?:[\w'-]+\s+){0,2}?[\w'-]+(?=\s*(?:[,.;!?]|$|"
                      r"\s+(?:and|but|so|because|since|for|from|to|on|in|at)\b))", re.IGNORECASE)


def linked_fact(clause: str, facts: list[FactRef], need: float = 1.0) -> FactRef | None:
    """The one fact the clause shares its rarest words with, or None when no fact stands out
    (two facts tie, or the shared words weigh less than `need`: one word no other fact says
    weighs 1)."""
    if not facts:
        return None
    # what the news is about is its subject and object, not where, when or with whom it
    # happened ("started climbing at a bouldering gym in Alcântara" is not about the bag kept
    # in Alcântara)
    said = _words(_SETTING.sub(" ", clause))
    if not said:
        return None
    have = [_words(f.text) for f in facts]
    df: dict[str, int] = {}
    for ws in have:
        for w in ws:
            df[w] = df.get(w, 0) + 1
    # a word only this fact says counts whole; a word n facts say counts 1/n
    scored = sorted(((sum(1 / df[w] for w in said & ws), i) for i, ws in enumerate(have)),
                    reverse=True)
    best, i = scored[0]
    runner = scored[1][0] if len(scored) > 1 else 0.0
    if best >= need and best == runner:
        # a tie on the rarest words is broken by all the words they share ("four long days a
        # week" against "three long days a week" and "four door sensors")
        tied = [j for score, j in scored if score == best]
        plain = term_set(clause, min_len=2)
        shared = sorted(((len(plain & term_set(facts[j].text, min_len=2)), j) for j in tied),
                        reverse=True)
        if shared[0][0] > shared[1][0]:
            return facts[shared[0][1]]
    return facts[i] if best >= need and best > runner else None


def news_words(clause: str) -> bool:
    """The clause says something changed, ended or happened (from the reader's word lists)."""
    low = " " + " ".join(re.findall(r"[\w-]+", clause.lower())) + " "
    return any(f" {w} " in low for table in ("changes", "endings", "events")
               for w in word_list(table))
