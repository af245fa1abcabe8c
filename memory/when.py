"""The one date reader: the time phrases of a message, placed against a reference time.

Relative phrases ("3 weeks ago", "the day before yesterday", "a fortnight ago", "next
Tuesday", "10 April 2027") are placed by `dateparser`; the thin layer here adds only what the
library gets wrong or cannot read (shared/notes/reading.md): a month named without a year takes
its year from the tense ("moved in April" is this April, "flying in April" is next April),
month- and year-sized phrases start on their first day ("last month" = 1 November), "since
2019", "March of last year", seasons, and "the 3rd". A phrase neither part can place is no date,
never a guess (invariant 531). Pure: the reference time is an argument.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import Literal

Tense = Literal["past", "future"]

MONTHS = {m: i for i, names in enumerate([
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
    ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
    ("october", "oct"), ("november", "nov"), ("december", "dec")], 1) for m in names}
SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}
_NUM = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
        "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
        "couple of": 2, "a couple of": 2, "few": 3, "a few": 3}
_MONTH = r"(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_COUNT = r"(?:\d+|a couple of|a few|couple of|few|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_UNIT = r"(?:days?|weeks?|fortnights?|months?|years?)"
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_ORD = r"(?:\d{1,2})(?:st|nd|rd|th)?"

# The phrase shapes this module reads, most specific first. Each row: (name, pattern).
PHRASES: list[tuple[str, re.Pattern[str]]] = [(name, re.compile(p, re.IGNORECASE)) for name, p in [
    ("iso", r"\b\d{4}-\d{2}-\d{2}\b"),
    ("day_month_year", rf"\b(?:on\s+)?(?:the\s+)?{_ORD}\s+(?:of\s+)?{_MONTH}\s*,?\s*\d{{4}}\b"),
    ("month_day_year", rf"\b(?:on\s+)?{_MONTH}\s+{_ORD},?\s+\d{{4}}\b"),
    ("range_day_month", rf"\b{_ORD}\.?\s*(?:-|–|—|to|until|till)\s*{_ORD}\.?\s+(?:of\s+)?{_MONTH}\b"),
    ("day_month", rf"\b(?:on\s+)?(?:the\s+)?{_ORD}\s+(?:of\s+)?{_MONTH}\b"),
    ("month_day", rf"\b(?:on\s+)?{_MONTH}\s+{_ORD}\b(?!\s*(?:years?|kg|km|%))"),
    ("month_rel_year", rf"\b{_MONTH}\s+(?:of\s+)?(?:last|this|next)\s+year\b"),
    ("month_year", rf"\b{_MONTH}\s+(?:of\s+)?\d{{4}}\b"),
    ("rel_month", rf"\b(?:last|this|next|this\s+coming|this\s+past)\s+{_MONTH}\b"),
    ("season_year", r"\b(?:the\s+)?(?:spring|summer|autumn|fall|winter)\s+(?:of\s+)?\d{4}\b"),
    ("rel_season", r"\b(?:last|this|next)\s+(?:spring|summer|autumn|fall|winter)\b"),
    ("day_before_yesterday", r"\b(?:the\s+)?day\s+before\s+yesterday\b"),
    ("day_after_tomorrow", r"\b(?:the\s+)?day\s+after\s+tomorrow\b"),
    ("ago", rf"\b{_COUNT}\s+{_UNIT}\s+ago\b"),
    ("in_n", rf"\b(?:in|within)\s+{_COUNT}\s+{_UNIT}(?:'?s?\s+time)?\b"),
    ("rel_unit", r"\b(?:last|this|next|this\s+past)\s+(?:week|weekend|month|year)\b"),
    ("rel_weekday", rf"\b(?:last|next|this)\s+{_WEEKDAY}\b"),
    ("word_day", r"\b(?:yesterday|today|tonight|tomorrow|last\s+night|this\s+morning)\b"),
    ("month", rf"\b(?:in|since|from|until|till|by|on|for|during|back\s+in|this|early|late|mid|end\s+of)\s+(?:early\s+|late\s+|mid-?\s*)?{_MONTH}\b"),
    ("year", r"\b(?:in|since|from|until|back\s+in|as\s+of)\s+(?:19|20)\d{2}\b"),
    ("the_nth", r"\bon\s+the\s+\d{1,2}(?:st|nd|rd|th)\b"),
]]
# Phrases that name no day of their own: a week-end, a bare weekday, "in the summer".
_VAGUE = {"rel_season"}


@dataclass(frozen=True)
class When:
    """One time phrase of a message and the day it names."""

    phrase: str
    start: int
    day: date
    kind: str
    future: bool  # the phrase names a time after the reference day


def _dateparser(phrase: str, now: datetime, prefer: str) -> date | None:
    import dateparser  # a well-kept library; imported on first use (it loads its language data)

    got = dateparser.parse(phrase, languages=["en"], settings={
        "RELATIVE_BASE": now.replace(tzinfo=None), "PREFER_DATES_FROM": prefer,
        "PREFER_DAY_OF_MONTH": "first", "RETURN_AS_TIMEZONE_AWARE": False})
    return got.date() if got else None


def _count(text: str) -> int:
    m = re.match(r"\d+", text)
    if m:
        return int(m.group(0))
    for words in sorted(_NUM, key=len, reverse=True):
        if text.startswith(words):
            return _NUM[words]
    return 1


def _month_in(text: str) -> int:
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in MONTHS:
            return MONTHS[word]
    raise ValueError(text)


def _shift_months(d: date, n: int) -> date:
    y, m = divmod(d.month - 1 + n, 12)
    return date(d.year + y, m + 1, 1)


def _pick_year(month: int, day: int, today: date, tense: Tense) -> date:
    """A month (and day) said without a year: this year's in the past tense unless still to come
    in a future sentence, next year's when a future sentence names a date already gone."""
    this = date(today.year, month, min(day, 28 if month == 2 else 30 if month in (4, 6, 9, 11) else 31))
    if tense == "future" and this < today:
        return this.replace(year=today.year + 1)
    if tense == "past" and this > today:
        return this.replace(year=today.year - 1)
    return this


def _place(kind: str, phrase: str, now: datetime, tense: Tense) -> date | None:
    today = now.date()
    p = phrase.lower()
    if kind == "iso":
        try:
            return date.fromisoformat(phrase)
        except ValueError:
            return None
    if kind in ("day_month_year", "month_day_year", "month_year"):
        return _dateparser(re.sub(r"^(?:on\s+)?(?:the\s+)?", "", phrase, flags=re.I), now,
                           "past")
    if kind == "range_day_month":  # "7-14 February": the range starts on the 7th
        p = re.sub(r"^(\d{1,2}).*?(?=\b" + _MONTH + r")", r"\1 ", p, flags=re.IGNORECASE)
        kind = "day_month"
    if kind in ("day_month", "month_day"):
        day = int(re.search(r"\d{1,2}", p).group(0))  # type: ignore[union-attr]
        if not 1 <= day <= 31:
            return None
        try:
            return _pick_year(_month_in(p), day, today, tense)
        except ValueError:
            return None
    if kind == "month_rel_year":
        shift = {"last": -1, "this": 0, "next": 1}[re.search(r"(last|this|next)\s+year", p).group(1)]  # type: ignore[union-attr]
        return date(today.year + shift, _month_in(p), 1)
    if kind == "rel_month":
        month = _month_in(p)
        if p.startswith("last") or "past" in p:
            year = today.year if month < today.month else today.year - 1
        elif p.startswith("next") or "coming" in p:
            year = today.year if month > today.month else today.year + 1
        else:
            return _pick_year(month, 1, today, tense)
        return date(year, month, 1)
    if kind == "season_year":
        year = int(re.search(r"\d{4}", p).group(0))  # type: ignore[union-attr]
        return date(year, SEASONS[re.search(r"spring|summer|autumn|fall|winter", p).group(0)], 1)  # type: ignore[union-attr]
    if kind == "rel_season":
        month = SEASONS[re.search(r"spring|summer|autumn|fall|winter", p).group(0)]  # type: ignore[union-attr]
        start = date(today.year, month, 1)
        if p.startswith("last") and start > today:
            start = start.replace(year=today.year - 1)
        if p.startswith("next") and start <= today:
            start = start.replace(year=today.year + 1)
        return start
    if kind == "rel_unit":
        unit = re.search(r"(week|month|year)", p).group(1)  # type: ignore[union-attr]
        shift = -1 if p.startswith("last") or "past" in p else 1 if p.startswith("next") else 0
        if unit == "week":
            return today + timedelta(weeks=shift) if shift else today
        if unit == "month":
            return _shift_months(today.replace(day=1), shift)
        return date(today.year + shift, 1, 1)
    if kind == "ago":
        n, unit = _count(p), re.search(r"(day|week|fortnight|month|year)", p).group(1)  # type: ignore[union-attr]
        if unit == "month":
            return _shift_months(today.replace(day=1), -n).replace(day=min(today.day, 28))
        if unit == "year":
            return today.replace(year=today.year - n, day=min(today.day, 28))
        return _dateparser(phrase, now, "past")
    if kind == "in_n":
        return _dateparser(re.sub(r"'?s?\s+time$", "", p), now, "future")
    if kind in ("day_before_yesterday", "day_after_tomorrow", "rel_weekday"):
        return _dateparser(phrase, now, "future" if "next" in p or "after" in p else "past")
    if kind == "word_day":
        if "yesterday" in p or p.startswith("last"):
            return today - timedelta(days=1)
        return today + timedelta(days=1) if "tomorrow" in p else today
    if kind == "month":
        return _pick_year(_month_in(p), 1, today, tense)
    if kind == "year":
        return date(int(re.search(r"\d{4}", p).group(0)), 1, 1)  # type: ignore[union-attr]
    if kind == "the_nth":
        day = int(re.search(r"\d{1,2}", p).group(0))  # type: ignore[union-attr]
        if not 1 <= day <= 28:
            return None
        this = today.replace(day=day)
        if tense == "future" and this < today:
            return _shift_months(today.replace(day=1), 1).replace(day=day)
        if tense == "past" and this > today:
            return _shift_months(today.replace(day=1), -1).replace(day=day)
        return this
    return None


@lru_cache(maxsize=4096)
def _find(text: str, now: datetime, tense: Tense) -> tuple[When, ...]:
    taken: list[tuple[int, int]] = []
    out: list[When] = []
    for kind, pattern in PHRASES:
        for m in pattern.finditer(text):
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            try:
                day = _place(kind, m.group(0), now, tense)
            except (ValueError, AttributeError, OverflowError):
                day = None
            if day is None:
                continue  # no date, never a guess (invariant 531)
            taken.append((m.start(), m.end()))
            out.append(When(m.group(0), m.start(), day, kind, day > now.date()))
    return tuple(sorted(out, key=lambda w: w.start))


def dates_in(text: str, now: datetime, tense: Tense = "past") -> list[When]:
    """Every time phrase of `text` this module can place, in order. Pure."""
    return list(_find(text, now, tense))


def first_date(text: str, now: datetime, tense: Tense = "past") -> date | None:
    """The day the first placeable time phrase names, if any (vague phrases excluded)."""
    return next((w.day for w in dates_in(text, now, tense) if w.kind not in _VAGUE), None)


def strip_dates(text: str, now: datetime) -> str:
    """The text without its time phrases (a stored value never carries them, invariant 74)."""
    out = text
    for w in sorted(dates_in(text, now), key=lambda w: -w.start):
        # the preposition that introduced it goes too: "runs out in April 2027" -> "runs out"
        head = re.sub(r"\b(?:in|on|at|by|from|since|until|till|for|of|the)\s+$", "",
                      out[:w.start], flags=re.IGNORECASE)
        out = head + out[w.start + len(w.phrase):]
    return re.sub(r"\s+([,.;!?])", r"\1", " ".join(out.split()))
