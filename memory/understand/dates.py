"""Time expressions in a chat statement, resolved against the day the user said it.

Relative words ("yesterday", "last week", "next autumn") go stale the day after, so they are
removed from the clause and become dates (invariant 74). Absolute dates ("on 12 January", "from
5 to 9 January") stay in the text, where they are part of the value, and are also returned as
valid_from / valid_to. Pure functions; no I/O.
"""

from __future__ import annotations

import re
from calendar import monthrange
from dataclasses import dataclass
from datetime import date, timedelta

MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december"]
MON = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
       r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
DAY = r"(?:[012]?\d|3[01])(?:st|nd|rd|th)?"
SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
        "seven": 7, "eight": 8, "nine": 9, "ten": 10, "couple of": 2, "few": 3}

# Verbs that put a statement in the past (the date is when it happened).
_PAST = re.compile(
    r"\b(?:was|were|had|did|moved|left|became|got|bought|sold|switched|started|joined|quit|"
    r"turned|died|went|came|made|took|began|changed|replaced|upgraded|traded|promoted|stole|"
    r"broke|found|lost|met|divorced|retired|graduated|passed|finished|stopped|gave|relocated|"
    r"adopted|ordered|installed|set up|signed|landed|arrived|swapped|dropped|cancell?ed|sat|ran|"
    r"flew|saw|paid|sent|spent|won|drove|rode|wore|ate|drank|told|said|brought|built|fell|"
    r"diagnosed)\b|"
    # any regular past tense right after the subject or opening a subject-less clause (inv. 201)
    r"(?:^|\b(?:i|we)\s+)(?:just\s+|finally\s+|already\s+)?[a-z]{2,}(?<!e)ed\b", re.IGNORECASE)
_FUTURE = re.compile(
    r"\b(?:will|'ll|going to|gonna|next|tomorrow|upcoming|starts?|starting|from now|booked|"
    r"plan(?:ning)? to|flying|fly|travell?ing|off to|heading|leaving for|back on|due|moving|"
    r"relocating|(?:i'?m|we'?re|i\s+am|we\s+are)\s+going|booked|i'?ll|we'?ll|"
    r"getting\s+(?:married|engaged|divorced)|expecting|pregnant)\b",
    re.IGNORECASE)


@dataclass(frozen=True)
class Dates:
    valid_from: date | None
    valid_to: date | None
    text: str  # the clause with relative time words removed
    found: tuple[str, ...] = ()  # the expressions found, for the trace


def month_number(name: str) -> int:
    return next(i + 1 for i, m in enumerate(MONTHS) if m.startswith(name[:3].lower()))


def _day_of(mon: int, day: int, year: int) -> date:
    return date(year, mon, min(day, monthrange(year, mon)[1]))


def _month_start(mon: int, year: int | None, today: date, *, future: bool) -> date:
    if year:
        return date(year, mon, 1)
    y = today.year
    if future and mon < today.month:
        y += 1
    if not future and mon > today.month:
        y -= 1
    return date(y, mon, 1)


def _day_month(day: int, mon: int, year: int | None, today: date, *, past: bool) -> date:
    """A day without a year: this year's, unless that lies well in the past of a statement not
    about the past (then next year's): "on 12 January" said in December is next January."""
    if year:
        return _day_of(mon, day, year)
    this = _day_of(mon, day, today.year)
    if this >= today:
        return this
    if past and (today - this).days <= 180:
        return this
    if (today - this).days <= 14:
        # Invariant 201: a day of the last fortnight with no tense to say otherwise ("on Black
        # Friday (27 Nov)") is that day, not the same day next year.
        return this
    return _day_of(mon, day, today.year + 1)


def weekday_before(name: str, today: date) -> date:
    """The most recent day of that name before today ("on Sunday" said on a Tuesday). Pure."""
    back = (today.weekday() - WEEKDAYS.index(name.lower())) % 7
    return today - timedelta(days=back or 7)


def _weekend(which: str, today: date) -> date:
    """The Saturday of the weekend meant (invariant 139): "last weekend" is the last one wholly
    before today (said on a Sunday, the one a week before), "this weekend" the coming one or the
    one under way, "next weekend" the one after this one when said on a weekday. Pure."""
    sat = today + timedelta(days=(5 - today.weekday()) % 7)  # this weekend's Saturday
    if today.weekday() == 6:
        sat = today - timedelta(days=1)
    if which == "last":
        return sat - timedelta(days=7)
    if which == "next" and today.weekday() >= 5:
        return sat + timedelta(days=7)
    return sat


def _add_months(d: date, n: int) -> date:
    y, m = divmod(d.year * 12 + d.month - 1 + n, 12)
    return _day_of(m + 1, d.day, y)


def relative(expr: str, today: date) -> date | None:
    """A relative expression ("yesterday", "3 weeks ago", "next month", "next friday")."""
    e = " ".join(expr.lower().split())
    if e in {"today", "this morning", "this afternoon", "this evening", "tonight",
             "earlier today", "just now"}:
        return today
    if e == "yesterday":
        return today - timedelta(days=1)
    if e == "tomorrow":
        return today + timedelta(days=1)
    m = re.fullmatch(r"(last|next|this|coming)\s+(\w+)", e)
    if m:
        which, unit = m.groups()
        step = -1 if which == "last" else 1
        if unit == "weekend":
            return _weekend(which, today)
        if unit == "week":
            return today + timedelta(days=7 * step) if which != "this" else today
        if unit == "month":
            first = today.replace(day=1)
            return first if which == "this" else _add_months(first, step)
        if unit == "year":
            return date(today.year + (0 if which == "this" else step), 1, 1)
        if unit == "night":
            return today - timedelta(days=1) if which == "last" else today
        if unit in WEEKDAYS:
            delta = (WEEKDAYS.index(unit) - today.weekday()) % 7
            if which == "last":
                return today - timedelta(days=(7 - delta) % 7 or 7)
            return today + timedelta(days=delta or 7)
        if unit in SEASONS:
            start = date(today.year, SEASONS[unit], 1)
            if which == "last":
                return start if start < today else date(today.year - 1, SEASONS[unit], 1)
            if which == "next" or start < today.replace(day=1):
                return start if start > today else date(today.year + 1, SEASONS[unit], 1)
            return start
    m = re.fullmatch(r"(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|couple of|few)"
                     r"\s+(day|week|month|year)s?\s+ago", e)
    if m:
        n = _NUM.get(m.group(1)) or int(m.group(1))
        unit = m.group(2)
        if unit == "day":
            return today - timedelta(days=n)
        if unit == "week":
            return today - timedelta(weeks=n)
        if unit == "month":
            return _add_months(today, -n)
        return _day_of(today.month, today.day, today.year - n)
    m = re.fullmatch(r"in\s+(\d+|a|an|one|two|three|four|five|six|couple of|few)\s+"
                     r"(day|week|month|year)s?", e)
    if m:
        n = _NUM.get(m.group(1)) or int(m.group(1))
        unit = m.group(2)
        if unit == "day":
            return today + timedelta(days=n)
        if unit == "week":
            return today + timedelta(weeks=n)
        return _add_months(today, n * (12 if unit == "year" else 1))
    return None


_WD = "|".join(WEEKDAYS)
_SEASON = "spring|summer|autumn|fall|winter"
_REL = (r"(?:yesterday|today|tonight|tomorrow|this\s+(?:morning|afternoon|evening)|earlier\s+today|"
        r"just\s+now|(?:last|next|coming)\s+(?:week|weekend|month|year|night|" + _WD + "|" + _SEASON
        + r")|this\s+(?:week|weekend|month|year|" + _WD + "|" + _SEASON + r")|"
        r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|couple\s+of|few)\s+"
        r"(?:day|week|month|year)s?\s+ago|in\s+(?:\d+|a|an|one|two|three|four|five|six|couple\s+of|"
        r"few)\s+(?:day|week|month|year)s?)")
_VAGUE = (r"(?:the\s+other\s+day|recently|lately|at\s+some\s+point|a\s+while\s+(?:ago|back)|"
          r"some\s+time\s+ago|(?:years|ages|months|weeks|decades|donkey'?s\s+years)\s+(?:ago|back)|"
          r"long\s+ago|for\s+(?:years|ages|donkey'?s\s+years)|in\s+the\s+end)")
_YEAR = r"(?:19|20)\d\d"


def _cut(text: str, m: re.Match) -> str:
    out = text[:m.start()] + " " + text[m.end():]
    out = re.sub(r"\s+([,.;!?])", r"\1", out)
    return " ".join(out.split()).strip(" ,")


def find_dates(clause: str, today: date) -> Dates:
    """valid_from / valid_to stated in a clause, and the clause without relative time words."""
    text = clause
    found: list[str] = []
    start = end = None
    past = bool(_PAST.search(clause))
    future = bool(_FUTURE.search(clause)) and not past
    # "on Black Friday", "on Boxing Day": when, never part of the value (invariant 201)
    if (hol := _ON_HOLIDAY.search(text)):
        found.append(hol.group(0))
        text = _cut(text, hol)

    # "this September", "last March", "next April": a month named by its place from today
    # (invariant 318); "last September" is never this year's if September is still to come.
    rel = re.search(r"\b(?P<w>this|last|next|coming)\s+(?P<m>" + MON + r")\b(?!\s+\d)", text, re.IGNORECASE)
    if rel and rel.group("m") == "may":
        rel = None  # "this may work": the verb, not the month
    if rel:
        mon, which = month_number(rel.group("m")), rel.group("w").lower()
        if which == "last":
            start = date(today.year - (1 if mon >= today.month else 0), mon, 1)
        elif which in ("next", "coming"):
            start = date(today.year + (1 if mon <= today.month else 0), mon, 1)
        else:
            start = _month_start(mon, None, today, future=future or not past and mon >= today.month)
        found.append(rel.group(0))
        return Dates(start, None, _cut(text, rel), tuple(found))

    # Ranges: "from 5 to 9 January", "from 3 March to 17 April", "between May 2 and May 9".
    m = (re.search(r"\b(?:from|between)\s+(?P<d1>" + DAY + r")(?:\s+(?P<m1>" + MON + r"))?\s+"
                   r"(?:to|until|till|and|-|–)\s+(?P<d2>" + DAY + r")\s+(?P<m2>" + MON + r")"
                   r"(?:\s+(?P<y>" + _YEAR + r"))?\b", text, re.IGNORECASE)
         # "12-16 Feb", "3–7 March": a dash between two days is a range without "from"
         # (invariant 164)
         or re.search(r"\b(?P<d1>" + DAY + r")(?:\s+(?P<m1>" + MON + r"))?\s*[-–]\s*(?P<d2>" + DAY
                      + r")\s+(?P<m2>" + MON + r")(?:\s+(?P<y>" + _YEAR + r"))?\b", text, re.IGNORECASE)
         # "8 to 15 February", "24 until 26 April": a range said without "from" (invariant 251)
         or re.search(r"\b(?P<d1>" + DAY + r")(?:\s+(?P<m1>" + MON + r"))?\s+(?:to|until|till)\s+(?P<d2>"
                      + DAY + r")\s+(?P<m2>" + MON + r")(?:\s+(?P<y>" + _YEAR + r"))?\b", text, re.IGNORECASE))
    if m:
        mon2 = month_number(m.group("m2"))
        mon1 = month_number(m.group("m1")) if m.group("m1") else mon2
        year = int(m.group("y")) if m.group("y") else None
        start = _day_month(int(re.sub(r"\D", "", m.group("d1"))), mon1, year, today, past=past)
        end = _day_month(int(re.sub(r"\D", "", m.group("d2"))), mon2, year or start.year, today,
                         past=past)
        if end < start:
            end = _day_of(mon2, end.day, end.year + 1)
        found.append(m.group(0))
        return Dates(start, end, text, tuple(found))
    m = (re.search(r"\b(?:from|between)\s+(?P<m1>" + MON + r")\s+(?P<d1>" + DAY + r")\s+"
                   r"(?:to|until|till|and|-|–)\s+(?:(?P<m2>" + MON + r")\s+)?(?P<d2>" + DAY + r")"
                   r"(?:,?\s+(?P<y>" + _YEAR + r"))?\b", text, re.IGNORECASE)
         or re.search(r"\b(?P<m1>" + MON + r")\s+(?P<d1>" + DAY + r")\s*[-–]\s*(?:(?P<m2>" + MON
                      + r")\s+)?(?P<d2>" + DAY + r")\b(?:,?\s+(?P<y>" + _YEAR + r"))?", text, re.IGNORECASE))
    if m:
        mon1 = month_number(m.group("m1"))
        mon2 = month_number(m.group("m2")) if m.group("m2") else mon1
        year = int(m.group("y")) if m.group("y") else None
        start = _day_month(int(re.sub(r"\D", "", m.group("d1"))), mon1, year, today, past=past)
        end = _day_month(int(re.sub(r"\D", "", m.group("d2"))), mon2, year or start.year, today,
                         past=past)
        found.append(m.group(0))
        return Dates(start, end, text, tuple(found))

    # "until/till X": the end of validity; kept in the text when the value *is* the date.
    m = re.search(r"\b(?:until|till|til|through)\s+(?:(?P<d>" + DAY + r")\s+(?P<m>" + MON +
                  r")|(?P<m2>" + MON + r")(?:\s+(?P<d2>" + DAY + r"))?)?(?:,?\s+(?P<y>" + _YEAR +
                  r"))?\b", text, re.IGNORECASE)
    if m and (m.group("m") or m.group("m2") or m.group("y")):
        year = int(m.group("y")) if m.group("y") else None
        if m.group("m"):
            end = _day_month(int(re.sub(r"\D", "", m.group("d"))), month_number(m.group("m")),
                             year, today, past=False)
        elif m.group("m2"):
            mon = month_number(m.group("m2"))
            end = (_day_month(int(re.sub(r"\D", "", m.group("d2"))), mon, year, today, past=False)
                   if m.group("d2") else _month_start(mon, year, today, future=True))
        else:
            end = date(year or today.year, 1, 1)
        found.append(m.group(0))
        if not re.search(r"\b(?:valid|good|expires?|lasts?|runs?|open|available)\b", text,
                         re.IGNORECASE):
            text = _cut(text, m)

    # "since X": the start of validity, always removed from the value.
    m = re.search(r"\bsince\s+(?:(?P<wd>" + _WD + r")\b(?:\s+(?:night|morning|evening|afternoon))?|"
                  r"(?P<rel>" + _REL + r")|(?P<d>" + DAY + r")\s+(?P<m>" + MON +
                  r")|(?P<m2>" + MON + r")(?:\s+(?P<y2>" + _YEAR + r"))?|(?P<y>" + _YEAR + r"))\b",
                  text, re.IGNORECASE)
    if m:
        if m.group("wd"):
            start = weekday_before(m.group("wd"), today)
        elif m.group("rel"):
            start = relative(m.group("rel"), today)
        elif m.group("m"):
            start = _day_month(int(re.sub(r"\D", "", m.group("d"))), month_number(m.group("m")),
                               None, today, past=True)
            if start > today:
                start = _day_of(start.month, start.day, start.year - 1)
        elif m.group("m2"):
            y = int(m.group("y2")) if m.group("y2") else None
            start = _month_start(month_number(m.group("m2")), y, today, future=False)
        else:
            start = date(int(m.group("y")), 1, 1)
        found.append(m.group(0))
        return Dates(start, end, _cut(text, m), tuple(found))

    # A relative expression anywhere: the date it names, and it leaves the value.
    m = re.search(r"\b(?:from\s+|on\s+|as\s+of\s+)?(?P<rel>" + _REL + r")\b", text, re.IGNORECASE)
    if m:
        start = relative(m.group("rel"), today)
        if start and past and start > today and m.group("rel").lower().startswith("this"):
            start = _day_of(start.month, start.day, start.year - 1)  # "got it this spring"
        found.append(m.group(0))
        text = _cut(text, m)
        # A second one ("left last week, back next week") is only removed.
        while (m2 := re.search(r"\b(?:from\s+|on\s+)?" + _REL + r"\b", text, re.IGNORECASE)):
            found.append(m2.group(0))
            text = _cut(text, m2)
        return Dates(start, end, _strip_vague(text), tuple(found))

    # "on the 3rd": a day of this month, or of the next (a plan) or the last (a past event).
    m = re.search(r"\b(?:on\s+)?the\s+(?P<d>[012]?\d|3[01])(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?" + MON + r")",
                  text, re.IGNORECASE)
    if m:
        day = int(m.group("d"))
        this = _day_of(today.month, day, today.year) if day >= 1 else today
        if past and this >= today:
            this = _day_of((today.month - 2) % 12 + 1, day, today.year - (today.month == 1))
        elif not past and this < today:
            this = _day_of(today.month % 12 + 1, day, today.year + (today.month == 12))
        found.append(m.group(0))
        return Dates(this, end, _strip_vague(_cut(text, m)), tuple(found))

    # A bare weekday ("on Sunday", "Friday night"): the last one for a past event, the next one
    # for a plan; a habit ("usually Tuesday", "on Mondays") names no date (invariant 139).
    m = re.search(r"\b(?:on\s+|last\s+)?(?P<wd>" + _WD + r")\b(?:\s+(?:night|morning|evening|"
                  r"afternoon))?", text, re.IGNORECASE)
    if m and _WEEKDAY_NOUN.search(text[max(0, m.start() - 12):m.end() + 40]):
        m = None  # "the Monday German classes": a weekday naming a habit, not a date (inv. 199)
    if m and re.match(r"(?:s|\s+(?:night|morning|evening|afternoon)s)\b", text[m.end("wd"):], re.IGNORECASE):
        m = None  # "Saturday mornings", "Fridays": every week, no date (invariant 251)
    if m and (past or future) and not re.search(r"\b(?:every|usually|each|always|often|normally|"
                                                r"most)\b", clause, re.IGNORECASE):
        start = (weekday_before(m.group("wd"), today) if past
                 else today + timedelta(days=(WEEKDAYS.index(m.group("wd").lower())
                                              - today.weekday()) % 7 or 7))
        found.append(m.group(0))
        return Dates(start, end, _strip_vague(_cut(text, m)), tuple(found))

    # ISO, "12 January", "January 12th": a day, kept in the text.
    m = re.search(r"\b(?P<iso>\d{4}-\d{2}-\d{2})\b", text)
    if m:
        try:
            start = date.fromisoformat(m.group("iso"))
        except ValueError:
            start = None
        found.append(m.group(0))
        return Dates(start, end, _strip_vague(text), tuple(found))
    m = (re.search(r"\b(?P<d>" + DAY + r")\s+(?:of\s+)?(?P<m>" + MON + r")(?:,?\s+(?P<y>" + _YEAR
                   + r"))?\b", text, re.IGNORECASE)
         or re.search(r"\b(?P<m>" + MON + r")\s+(?P<d>" + DAY + r")\b(?:,?\s+(?P<y>" + _YEAR
                      + r"))?", text, re.IGNORECASE))
    if m:
        year = int(m.group("y")) if m.group("y") else None
        start = _day_month(int(re.sub(r"\D", "", m.group("d"))), month_number(m.group("m")),
                           year, today, past=past)
        found.append(m.group(0))
        return Dates(start, end, _strip_vague(text), tuple(found))

    # A month or year alone: "in March", "from January", "in 2019" -- removed from the value.
    # "since the start of November", "from the beginning of March": the month's first day (inv. 255)
    m = re.search(r"\b(?:in|from|back\s+in|since|as\s+of|starting|for|at)\s+(?:the\s+)?(?:(?:very\s+)?(?:start|"
                  r"beginning)\s+of\s+)?(?P<m>" + MON +
                  r")(?:\s+(?P<y>" + _YEAR + r"))?\b", text, re.IGNORECASE)
    if m and (not re.fullmatch(r"may", m.group("m"), re.IGNORECASE) or m.group("m") == "May"
              or m.group("y")):  # "in May" (a capital or a year), never the verb "may"
        y = int(m.group("y")) if m.group("y") else None
        # "took a job in London, she moves in January": a present verb right before the month
        # speaks of what is to come, whatever the sentence said before (invariant 253)
        ahead = bool(re.search(r"\b(?:moves?|starts?|begins?|leaves?|arrives?|finishes|ends|(?:is|are|'s|'re)\s+"
                               r"\w+ing|will\s+\w+|due)\s+$", text[:m.start()], re.IGNORECASE))
        since = m.group(0).lower().startswith(("since", "back"))  # "since November" is behind us
        start = _month_start(month_number(m.group("m")), y, today, future=not since and (future or ahead or (
            m.group(0).lower().startswith(("from", "starting")) and not past)))
        found.append(m.group(0))
        return Dates(start, end, _strip_vague(_cut(text, m)), tuple(found))
    m = re.search(r"\b(?:in|from|back\s+in|over|during)\s+(?:the\s+)?(?P<s>" + _SEASON + r")\b", text,
                  re.IGNORECASE)
    if m:
        mon = SEASONS[m.group("s").lower()]
        start = _month_start(mon, None, today, future=future)
        found.append(m.group(0))
        return Dates(start, end, _strip_vague(_cut(text, m)), tuple(found))
    m = re.search(r"\b(?:in|from|back\s+in)\s+(?P<y>" + _YEAR + r")\b", text, re.IGNORECASE)
    if m:
        start = date(int(m.group("y")), 1, 1)
        found.append(m.group(0))
        return Dates(start, end, _strip_vague(_cut(text, m)), tuple(found))
    return Dates(start, end, _strip_vague(text), tuple(found))


_ON_HOLIDAY = re.compile(r"\bon\s+(?:black\s+friday|cyber\s+monday|boxing\s+day|christmas\s+(?:day|eve)|"
                         r"new\s+year'?s\s+(?:day|eve)|easter\s+(?:sunday|monday)|good\s+friday|"
                         r"valentine'?s(?:\s+day)?|thanksgiving|halloween|bonfire\s+night)\b", re.IGNORECASE)
# A weekday used as an adjective: after a determiner ("the Monday classes", "my Tuesday
# lessons") or before a noun of a routine ("Monday German classes", "tuesday portuguese lessons").
_WEEKDAY_NOUN = re.compile(r"\b(?:(?:the|my|our|his|her|their|these|those|no\s+more)\s+(?:" + _WD
                           + r")\b(?!\s+(?:night|morning|evening|afternoon)\b)|(?:" + _WD
                           + r")\s+(?:[\w'-]+\s+)?(?:class|lesson|shift|session|meeting|practice|"
                           r"club|rota|training|routine|run|swim|call|standup|stand-up|appointment)s?"
                           r"(?:es)?\b)", re.IGNORECASE)


def _strip_vague(text: str) -> str:
    while (m := re.search(r"\b" + _VAGUE + r"\b", text, re.IGNORECASE)):
        text = _cut(text, m)
    return text
