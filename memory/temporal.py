"""Time in recall questions: "before", "used to", "when", "in June", "last year" (issue 17).

Pure functions. `time_intent(query, now)` reads what a question says about time:

- `past`: it asks about an earlier state ("before Lisbon", "used to", "previously", "old") —
  superseded facts become eligible and are preferred over the current version;
- `history`: it may be answered by an earlier state ("when", "back in June", "at the time") —
  superseded facts become eligible, without preference;
- `event`: it asks what happened — a past-tense narrative ("what happened when ...", "how did
  the move go", "why was the flight such a letdown", "what broke ...") — so the answer is more
  often an episode, what the user said at the time, than a distilled fact (invariant 154);
- `window`: a calendar span it names ("in June", "last year", "in 2023", "mid-July",
  "on 8 May", "last week", "yesterday") — memories dated inside it (an episode's time, a fact's
  valid-time interval) are boosted, using the product's bitemporal model (invariants 13-14).

Every date and span comes from `memory.when`, the one date module (issue 28): a month or a season
named without a year is the latest begun by `now`. This module keeps what a question asks about
time and the overlap arithmetic.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, time, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict

from .clock import as_utc
from .models import Fact, FactState
from .when import CALENDAR_DAYS, span_of

_PAST = re.compile(
    r"\b(previous(ly)?|used to|formerly|former|earlier|originally|at first|initially|"
    r"no longer|any more|anymore|back then|in the past|once had|had been|"
    r"switch(ed)? (from|away)|replaced|changed from|moved from|"
    r"did\b[^?.!]*\buse to)\b", re.IGNORECASE)  # "what hub did she use to have" (eighth pass)
# Cues that also say "when" or describe a routine: history only in a past-tense question
# (invariant 158): "what did she use before the Homey" is, "what do I make before work" is not.
_PAST_IF_TENSE = re.compile(
    r"\b(before|until|till|prior to|start(ed)? (out )?with|began with|to begin with|back when|"
    r"prior(?=\s*[?.!]*\s*$))\b",
    re.IGNORECASE)
_TENSE = re.compile(r"\b(was|were|did|had|used|went|got|became|'d|came|began|bought|drove|ate|"
                    r"wore|ran|took|gave|wrote|kept|held)\b|\b\w{3,}ed\b", re.IGNORECASE)
# "my old laptop" is history; "how old is Biscuit", "ten years old", "her older brother" are not
_OLD = re.compile(r"\b(?<!how )(?<!years )(?<!year )old(?! (?:is|are|was|were)\b)(?!-)\b(?!\s*[?.!]?$)", re.IGNORECASE)
# "which job had he left" is history; "since she left Leeds" asks about the state after it
_LEFT = re.compile(r"(?<!since )\b(I|you|he|she|we|they|had|have|has)\s+left\b", re.IGNORECASE)
# "the first hub she had", "her original diet": the earliest version (past tense required: "my
# first language is" is a current fact)
_FIRST = re.compile(r"\b(?:the|my|her|his|their|our|your)\s+(?:very\s+)?(?:first|original)\b"
                    r"(?!\s+(?:name|aid|thing|time|floor|class|language)\b)|\b(?:at first|originally|"
                    r"initially|start(?:ed)? (?:out )?with|began with|to begin with)\b|"
                    r"\bfirst(?=\s*[?.!]*\s*$)|"  # "which phone did I have first?" (eighth pass)
                    # invariant 158: "back when we first spoke": the state at the start
                    r"\bwhen\s+(?:we|i|you|he|she|they)\s+first\b",
                    re.IGNORECASE)
_ANCHOR = re.compile(r"\b(?:before|until|till|prior to)\s+(?!(?:that|then|now|this)\b)"
                     r"(.+?)(?:[?.!,;]|$)", re.IGNORECASE)
_BETWEEN = re.compile(r"\bbetween\s+(.+?)\s+and\s+(.+?)(?:[?.!,;]|$)", re.IGNORECASE)
_COUNT = re.compile(r"\bhow (?:many times|often)\b.*\b(chang|switch|mov|replac)\w*", re.IGNORECASE)
# invariant 154: a past-tense narrative question. The past auxiliary or verb comes early ("How
# did the pay negotiation go", "Why was ...", "What happened to ..."), or a wh-subject takes a
# past verb ("What broke his language server", "Which sensor turned out to be dead"; not
# "What breed of pet", "What speed is").
_EVENT_AUX = re.compile(r"^\W*(?:[\w'’-]+\s+){0,4}?(?:did|didn[’']t|was|wasn[’']t|were|"
                        r"weren[’']t|happened|went|couldn[’']t|wouldn[’']t)\b", re.IGNORECASE)
_EVENT_SUBJ = re.compile(r"^\W*(?:what|which|who)(?:\s+[\w-]+)?\s+(?:\w{2,}[^\We]ed|broke|woke|got|"
                         r"went|came|made|took|gave|left|began|brought|caught|told|said|ran|fell|"
                         r"turned out)\b(?!\s+(?:is|are|does|do|of)\b)", re.IGNORECASE)
# invariant 158: a wh-question about a thing or a place in the past tense ("Who was their
# internet provider in Leeds?", "Which laptop did Parcelbird give him?"); not a yes/no question
# ("Did he ever ...?") nor a wh-subject with a past verb ("Which relative introduced ...").
# Invariant 208: "how often / many / much / long ... did" asks for a past quantity the same way.
_SLOT_PAST = re.compile(r"^\W*(?:who|what|which|where|how (?:often|many|much|long))"
                        r"(?:\s+[\w'’-]+){0,3}?\s+(?:was|were|did)\b", re.IGNORECASE)
_CLAUSE = re.compile(r"[.?!;:—–]+")  # each sentence of a question is read from its start
# invariant 158: a wh-question may follow a clause set off by a comma ("Once the team grew, how
# often did ...?"); the slot test reads each comma-separated part from its start too
_SLOT_CLAUSE = re.compile(r"[.?!;:—–,]+")
_HISTORY = re.compile(r"\b(when|while|back in|at the time|during|since|ago|last (year|month|"
                      r"week|summer|winter|spring|autumn|time)|history|timeline)\b",
                      re.IGNORECASE)


class TimeIntent(BaseModel):
    model_config = ConfigDict(frozen=True)
    past: bool = False
    history: bool = False
    window: tuple[datetime, datetime] | None = None
    # invariant 158: which version of a fact's history the question asks for
    anchor: str | None = None  # "before the Homey": the named later value
    between: tuple[str, str] | None = None  # "between SmartThings and Home Assistant"
    order: Literal["first", "all"] | None = None  # "the first/original ...", "how many times changed"
    event: bool = False  # invariant 154: a past-tense narrative question ("how did ... go")
    # invariant 158: a wh-question in the past tense with no other time cue ("Who was their
    # internet provider in Leeds?"); `retrieval.retrieve` makes it a history question when
    # `ranking.tense_superseded_weight` > 0
    tense_only: bool = False

    @property
    def any(self) -> bool:
        return self.past or self.history or self.window is not None


def _window(query: str, now: datetime) -> tuple[tuple[datetime, datetime], int] | None:
    """The span the question names (`memory.when.span_of`, past tense: a month or season named
    without a year is the latest begun by now) and where its words start. A day named by its
    date runs from the day before to the day after (invariants 102, 102)."""
    span = span_of(query, now)
    if span is None:
        return None
    start, end = (datetime.combine(d, time(), UTC) for d in (span.first, span.end))
    if span.kind in CALENDAR_DAYS and end - start == timedelta(days=1):
        start, end = start - timedelta(days=1), end + timedelta(days=1)
    return (start, end), span.start


_BEFORE = re.compile(r"\b(before|until|till|prior to|by)\s+(the\s+)?$", re.IGNORECASE)
_AFTER = re.compile(r"\b(after|from)\s+(the\s+)?$", re.IGNORECASE)
_SINCE = re.compile(r"\bsince\s+(the\s+)?$", re.IGNORECASE)
SIDE = timedelta(days=120)  # "before June": the months leading up to it, not all of history


def event_question(query: str) -> bool:
    """Does the question ask what happened (invariant 154)? A past-tense narrative: a past
    auxiliary or verb among its first words ("How did the pay negotiation go?", "Why was the
    flight back such a letdown?", "What happened to the lights?") or a wh-subject with a past
    verb ("What broke his language server?"). Pure; tense only, no topic words."""
    return any(_EVENT_AUX.search(part) or _EVENT_SUBJ.search(part)
               for part in _CLAUSE.split(query))


# Invariant 216: an event question asking how something went, why, or what happened ("How
# did the dinner go?", "How hot was it ...?", "Why was the flight back a letdown?", "What went
# wrong ...?", "When did he resign?"); not a quantity ("how many / much / often / long") nor a
# how-to ("how do / can / should"), and not a slot question ("Which laptop did ...?").
_NARRATIVE = re.compile(r"^\W*(?:how\s+(?!(?:many|much|often|long|far|old|do|does|can|could|"
                        r"should|would|to|is|are)\b)[\w'’-]+|why\b|what\s+(?:happened|went)\b|"
                        r"when\s+did\b)", re.IGNORECASE)


def narrative_question(query: str) -> bool:
    """Is this an event question (invariant 154) that asks how something went, why, or what
    happened (invariant 142)? Then the answer is the episode that tells it; the fact distilled
    from that episode says a state, not what happened. Pure; question words and tense only."""
    return event_question(query) and any(_NARRATIVE.search(p) for p in _CLAUSE.split(query))


# Invariant 217: an event question asking for an outcome or a cause ("How did the junior's
# first pull request turn out?", "What was really behind the CI hangs?", "How was the disk
# page finally fixed?", "Did they ever figure out ...?", "How did the dinner go?").
_OUTCOME = re.compile(r"\b(?:turn(?:ed|s)?\s+out|behind|root\s+cause|caused?|finally|fix(?:ed)?|"
                      r"resolved?|sorted|ever|end(?:ed)?\s+up|in\s+the\s+end|eventually|go|went|"
                      r"react(?:ed)?|result(?:ed)?|work(?:ed)?\s+out|why|really)\b", re.IGNORECASE)


def asks_outcome(query: str) -> bool:
    """Is this an event question (invariant 154) asking how something ended, what caused it or
    whether it ever happened (invariant 142)? The answer is then told after the first report of
    it: the problem is reported, the fix comes later. Pure; no topic words."""
    return event_question(query) and bool(_OUTCOME.search(query))


# A cue that the question asks about the state now (invariant 193); "now that ..." and "what
# now?" are a clause and a request, not a cue.
_PRESENT = re.compile(r"\b(?:currently|nowadays|these\s+days|at\s+the\s+moment|at\s+present|"
                      r"still|any\s?more|(?<!what\s)now(?!\s+that\b))\b", re.IGNORECASE)


def asks_present(query: str) -> bool:
    """Does the question ask about the state now ("Which editor does he use these days?",
    "Does he still cycle?", "What's her tier now?")? Pure."""
    return bool(_PRESENT.search(query))


# Invariant 196: the simple present ("does he use", "is her hub", "do they keep") with no past
# word and no progressive ("is he using": an activity under way, often just told in an episode).
_SIMPLE_PRESENT = re.compile(r"\b(?:do|does|is|are|has|have|'s|don't|doesn't|isn't|aren't)\b",
                             re.IGNORECASE)
_ANY_PAST = re.compile(r"\b(?:was|were|did|had|used|didn't|wasn't|weren't|ago|before|"
                       r"previously|first|old|originally)\b|\b\w{3,}ed\b", re.IGNORECASE)
_PROGRESSIVE = re.compile(r"\b(?:is|are|am|'s|'re)\s+(?:\w+\s+){0,2}?\w{2,}ing\b", re.IGNORECASE)


def asks_simple_present(query: str) -> bool:
    """Is the question in the simple present with no past word, no progressive and no "now"
    cue of its own (invariant 193 reads those): "Which code editor does he use day to day?",
    "What coin cells do the sensors need?"; not "What library is he using ...?", "What did he
    use before ...?". Pure; tense only, no topic words."""
    return (bool(_SIMPLE_PRESENT.search(query)) and not _ANY_PAST.search(query)
            and not _PROGRESSIVE.search(query) and not asks_present(query))


# Invariant 197: "when" / "while" opening a clause and "old" naming a thing ("the old flat") ask
# for no earlier version in a question that is otherwise in the simple present ("When does she
# have to be out of the old flat?", "What should I do when I relocate?").
_OLD_WORD = re.compile(r"\bold\b", re.IGNORECASE)
_CLAUSE_HISTORY = re.compile(r"\b(?:when|while)\b", re.IGNORECASE)


def present_not_history(query: str) -> bool:
    """Is the question in the simple present once "old" is read as a description (invariant
    196's test), with no history cue but "when" / "while" and no past cue but "old"? Then it
    asks about the state now, not an earlier version (invariant 158). Pure; tense only."""
    plain = _OLD_WORD.sub("", query)
    return (asks_simple_present(plain)
            and not _HISTORY.search(_CLAUSE_HISTORY.sub("", plain))
            and not (_PAST.search(plain) or _LEFT.search(plain)))


def time_intent(query: str, now: datetime) -> TimeIntent:
    now = as_utc(now)
    found = _window(query, now)
    window = None
    if found is not None:
        (start, end), pos = found
        prefix = query[:pos]
        if _BEFORE.search(prefix):
            window = (start - SIDE, start)
        elif _SINCE.search(prefix):
            window = (start, max(end, now))
        elif _AFTER.search(prefix):
            window = (end, max(end, min(end + SIDE, now)))
        else:
            window = (start, end)
    tense = bool(_TENSE.search(query))
    past = bool(_PAST.search(query) or _OLD.search(query) or _LEFT.search(query)
                or (tense and _PAST_IF_TENSE.search(query)))
    order: Literal["first", "all"] | None = None
    if _COUNT.search(query):
        order = "all"
    elif tense and _FIRST.search(query):
        order = "first"  # eligible and resolved to the oldest version, no general preference
    anchor = between = None
    if past:
        m = _ANCHOR.search(query)
        anchor = m.group(1).strip() if m else None
    m = _BETWEEN.search(query) if tense else None
    if m:
        between = (m.group(1).strip(), m.group(2).strip())
    if window is None and order is None and between is None and present_not_history(query):
        past = False  # invariant 158: "when" and "the old flat" in the simple present
        anchor = None
        history = False
    else:
        history = (past or order is not None or between is not None
                   or bool(_HISTORY.search(query)) or (window is not None and window[1] <= now))
    event = event_question(query)
    return TimeIntent(past=past, history=history, window=window, anchor=anchor,
                      between=between, order=order, event=event,
                      tense_only=not history and any(_SLOT_PAST.search(p)
                                                     for p in _SLOT_CLAUSE.split(query)))


def fact_interval(fact: Fact) -> tuple[datetime, datetime | None]:
    """Valid time of a fact as the product models it (as memory.service.valid_covers)."""
    start = fact.valid_from or fact.recorded_at
    end = fact.valid_to or (fact.superseded_at if fact.state == FactState.SUPERSEDED else None)
    return start, end


def overlaps(span: tuple[datetime, datetime | None], window: tuple[datetime, datetime]) -> bool:
    start, end = span
    return start < window[1] and (end is None or end > window[0])
