"""A correction of one date word on record (invariant 350): "I think my ESTA runs out in April,
not May", "the Blue Card is valid until 2027, not 2028", "my lessons aren't on Tuesdays, they're
on Thursdays". The user names the wrong word and the right one, both of one kind (a year, a
month, a weekday); the fact on record that says the wrong word about the same subject takes the
right one in its place. Which fact that is, only the agent knows (`swap_into`). Pure: no I/O.
"""

from __future__ import annotations

import re

from .model import Statement
from .phrases import HARSH_RE, HEDGE_RE, I, tidy

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december")
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_YEAR = r"(?:19|20)\d\d"
_MONTH = r"(?:" + "|".join(_MONTHS) + r")"
_DAY = r"(?:" + "|".join(_DAYS) + r")s?"
_TOKEN = r"(?P<{}>" + _YEAR + "|" + _MONTH + "|" + _DAY + r")"
# "..., not May", "... not 2019, but don't quote me": the wrong word closes its clause
_NOT_Y = re.compile(r"^(?P<value>.+?),?\s+(?:and\s+)?not\s+(?:in\s+|on\s+|until\s+)?" + _TOKEN.format("y")
                    + r"(?=\s*(?:[,;.!?]|$))(?P<tail>.*)$", I)
# "my lessons aren't on Tuesdays, they're on Thursdays (and always have been)"
_ISNT_X = re.compile(r"^(?P<subj>(?:my|our|the)\s+[\w'’ -]{1,40}?)\s+(?:isn'?t|aren'?t|wasn'?t|weren'?t|"
                     r"is\s+not|are\s+not|was\s+not|were\s+not)\s+(?:on|in|until|till|from)\s+"
                     + _TOKEN.format("y") + r"\s*,\s*(?:(?:it|they|she|he)(?:'s|'re|\s+is|\s+are|\s+was|"
                     r"\s+were)|but)\s+(?:actually\s+|always\s+)?(?:on|in|until|till|from)\s+" + _TOKEN.format("x")
                     + r"\b(?P<tail>.*)$", I)
_CHANGED = re.compile(r"\b(?:now|these\s+days|nowadays|any\s*more|anymore|from\s+now\s+on|moved|"
                      r"changed|switched|rescheduled|pushed|brought\s+forward|no\s+longer)\b", I)
_FILLER = frozenset("""i i'm im think it it's was is are be been might may actually really just
that when the a an my our in on until till from not and but so of to by valid
when quote don't dont me""".split())


def kind_of(word: str) -> str | None:
    w = word.lower()
    if re.fullmatch(_YEAR, w):
        return "year"
    if w in _MONTHS:
        return "month"
    if w.rstrip("s") in _DAYS:
        return "day"
    return None


def swapped_value(c: str, message: str, hedged: bool) -> Statement | None:
    """The correction of one date word in clause `c`, or None. Its `text` is the right word, its
    `previous` the wrong one and its `target` the words naming what they are about; a hedged one
    is natural (it may have been right, invariant 202), an unhedged one harsh unless it says
    the value changed. Pure."""
    if re.match(r"^\W*(?:if|unless|suppose|supposing|what\s+if|imagine|when|whether)\b", c.strip(), I) or \
            re.search(r"\b(?:would|wouldn'?t|i'?d|we'?d)\b", c, I) or c.strip().endswith("?"):
        return None  # a condition or a question is no correction ("if it ran out in April, not May, …")
    m = _ISNT_X.match(c.strip())
    if m:
        x, y, about = m.group("x"), m.group("y"), m.group("subj")
    else:
        m = _NOT_Y.match(c.strip())
        if m is None:
            return None
        y = m.group("y")
        same = [t for t in re.findall(r"\b(?:" + _YEAR + "|" + _MONTH + "|" + _DAY + r")\b", m.group("value"), I)
                if kind_of(t) == kind_of(y)]
        if len(same) != 1:
            return None
        x = same[0]
        about = m.group("value")
    if kind_of(x) != kind_of(y) or x.lower() == y.lower():
        return None
    words = [w for w in re.findall(r"[^\W\d_][\w'’-]*", about) if w.lower() not in _FILLER
             and kind_of(w) is None]
    if not words:
        return None
    hedged = hedged or bool(HEDGE_RE.search(message))
    harsh = not hedged and (bool(HARSH_RE.search(message)) or not _CHANGED.search(c))
    return Statement(act="change", text=x, previous=y, target=tidy(" ".join(words)), harsh=harsh,
                     confidence=0.55 if hedged else 0.85, clause=c, rule="swap:date")


def swap_into(old: str, wrong: str, right: str, *, cut: bool = False) -> str | None:
    """The fact on record with its one wrong date word put right ("Her ESTA is valid until May
    20, 2027", "May", "April" -> "Her ESTA is valid until April 2027": the day went with the
    month); None when the fact does not say the wrong word exactly once. `cut` drops what
    followed the word (a harsh correction must not nearly restate what it retracts, invariant
    62): "Takes lessons on Tuesdays with a tutor" -> "Takes lessons on Thursdays". Pure."""
    kind = kind_of(wrong)
    if kind == "month":
        pat = (r"\b(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?)?" + re.escape(wrong)
               + r"(?:\s+\d{1,2}(?:st|nd|rd|th)?\b,?)?")
    elif kind == "day":
        pat = r"\b" + re.escape(wrong.rstrip("sS")) + r"s?\b"
    else:
        pat = r"\b" + re.escape(wrong) + r"\b"
    found = list(re.finditer(pat, old, I))
    if len(found) != 1:
        return None
    new = right
    if kind == "day":  # "on Tuesdays" stays plural, "on Tuesday" singular
        plural = found[0].group(0).lower().endswith("s")
        new = right.rstrip("sS") + ("s" if plural else "")
    new = new[:1].upper() + new[1:] if kind != "year" else new
    if cut:
        year = re.match(r"\s*,?\s*" + _YEAR + r"\b", old[found[0].end():]) if kind == "month" else None
        return old[:found[0].start()] + new + (year.group(0) if year else "")
    return old[:found[0].start()] + new + old[found[0].end():]
