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

# "nearest": the tense says nothing either way ("starting 1 November"): the occurrence closest to
# the reference day
Tense = Literal["past", "future", "nearest"]

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
    # "on Sunday": the nearest one the verb's tense points to (past: before today)
    ("on_weekday", rf"\bon\s+{_WEEKDAY}\b(?!\s*(?:mornings?|evenings?|nights?|afternoons?)s?\b)(?!s)"),
    ("word_day", r"\b(?:yesterday|today|tonight|tomorrow|last\s+night|this\s+morning)\b"),
    ("month", rf"\b(?:in|since|from|until|till|by|on|for|during|back\s+in|this|early|late|mid|(?:the\s+)?(?:start|beginning|middle|end)\s+of)\s+(?:early\s+|late\s+|mid-?\s*)?{_MONTH}\b"),
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


def _place_relative(kind: str, p: str, today: date) -> date | None:
    """A season of a year, "last/next summer", "this/last/next week|month|year"."""
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
        if p.endswith("weekend"):  # its Saturday: "last weekend" on a Tuesday is 3 days ago
            day = today + timedelta(weeks=shift)
            return day - timedelta(days=day.weekday()) + timedelta(days=5)
        if unit == "week":
            return today + timedelta(weeks=shift) if shift else today
        if unit == "month":
            return _shift_months(today.replace(day=1), shift)
        return date(today.year + shift, 1, 1)
    return None


def _place(kind: str, phrase: str, now: datetime, tense: Tense) -> date | None:
    if tense == "nearest":
        both = [d for d in (_place(kind, phrase, now, "past"), _place(kind, phrase, now, "future"))
                if d is not None]
        return min(both, key=lambda d: abs((d - now.date()).days)) if both else None
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
    if kind in ("season_year", "rel_season", "rel_unit"):
        return _place_relative(kind, p, today)
    if kind == "ago":
        n, unit = _count(p), re.search(r"(day|week|fortnight|month|year)", p).group(1)  # type: ignore[union-attr]
        if unit == "month":
            return _shift_months(today.replace(day=1), -n).replace(day=min(today.day, 28))
        if unit == "year":
            return today.replace(year=today.year - n, day=min(today.day, 28))
        return _dateparser(phrase, now, "past")
    if kind == "in_n":
        return _dateparser(re.sub(r"'?s?\s+time$", "", p), now, "future")
    if kind == "on_weekday":
        wanted = ("monday tuesday wednesday thursday friday saturday sunday".split()
                  .index(re.search(_WEEKDAY, p).group(0)))  # type: ignore[union-attr]
        ahead = (wanted - today.weekday()) % 7
        return today + timedelta(days=ahead or 7) if tense == "future" else \
            today - timedelta(days=(today.weekday() - wanted) % 7 or 7)
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


# --- spans: the days a time phrase covers (recall's windows, memory/temporal.py) --------------
# A span is [first, end): its first day and the day after its last. The phrases above give the
# day a phrase starts on; a span widens it to what the phrase names (a day, a week, a month, a
# season, a year). The rows below are read only as spans, never by `dates_in`: parts of a month
# or a season (invariants 102, 102), a bare month or season ("the June cancellation", "over the
# summer"), "the previous year". A part narrows the phrase it overlaps ("in early March"); any
# other row gives way to the reader's phrase ("March of last year" is March 2025, not March).
_PART = (r"(?:early|mid-?|late|(?:the\s+)?(?:start|beginning|middle|end)\s+of|"
         r"(?:the\s+)?(?:very\s+)?(?:first|last)\s+(?:day|week)\s+of)")
_SEASON = r"(?:spring|summer|autumn|fall|winter)"
_YEAR_AFTER = r"(?:\s*,?\s*(?:19|20)\d\d\b)?"
# a bare month is a month only when it cannot be a modal or an abbreviation ("may", "mar")
_BARE = "|".join(sorted((m for m in MONTHS if len(m) > 3), key=len, reverse=True))
SPAN_PHRASES: list[tuple[str, re.Pattern[str]]] = [
    (name, re.compile(p, re.IGNORECASE)) for name, p in [
        # "from the 9th till the 20th of Nov", "between the 8th and 10th of September"
        ("day_range", rf"\b(?:from|between)\s+(?:the\s+)?{_ORD}\s+(?:-|–|to|till|until|and)\s+"
                      rf"(?:the\s+)?{_ORD}\s+(?:of\s+)?{_MONTH}\b{_YEAR_AFTER}"),
        # "between August and November 2023", "from June to August"
        ("month_range", rf"\b(?:from|between)\s+{_MONTH}\s+(?:-|–|to|till|until|and)\s+"
                        rf"{_MONTH}\b{_YEAR_AFTER}"),
        ("part_month", rf"\b{_PART}\s*{_MONTH}\b{_YEAR_AFTER}"),
        ("part_season", rf"\b{_PART}\s*(?:the\s+)?{_SEASON}\b"),
        ("season", rf"\b(?:in|over|during)\s+(?:the\s+)?{_SEASON}\b"),
        ("previous", rf"\b(?:past|previous)\s+(?:year|month|week|{_SEASON})\b"),
        ("year_of", r"\b(?:during|of)\s+(?:19|20)\d{2}\b"),
        ("bare_month", rf"\b(?:{_BARE})\b{_YEAR_AFTER}"),
    ]]
# Phrases naming a day by its date (not by "yesterday"): recall reads them with a day's slack.
CALENDAR_DAYS = frozenset({"iso", "day_month_year", "month_day_year", "day_month", "month_day",
                           "the_nth", "part_day", "range_day_month", "day_range"})
_DAYS = frozenset({"day_before_yesterday", "day_after_tomorrow", "rel_weekday", "word_day",
                   "on_weekday"})
_MONTHS_SIZED = frozenset({"month_year", "month_rel_year", "rel_month", "month"})
_UNIT_DAYS = {"day": 1, "week": 7, "fortnight": 14, "month": 30, "year": 365}
_DAY_NEAR = re.compile(r"\d(?:st|nd|rd|th)?\s+(?:of\s+)?\||\|\s+\d")
_LEAD = re.compile(r"^(?:back\s+in|as\s+of|in|on|since|from|until|till|by|for|during|over|of)\s+",
                   re.IGNORECASE)


@dataclass(frozen=True)
class Span:
    """The days one time phrase covers: [first, end)."""

    phrase: str
    start: int  # where its words begin in the text, after a leading preposition
    first: date
    end: date  # the day after the last
    kind: str


def _season(d: date) -> tuple[date, date]:
    return d, _shift_months(d, 3)


def _season_start(name: str, today: date, tense: Tense) -> date:
    """A season named without a year: the latest begun by today in the past tense, the first
    not yet over in the future tense."""
    month = SEASONS[name.lower()]
    starts = [date(today.year + k, month, 1) for k in (-1, 0, 1)]
    if tense == "past":
        return max(s for s in starts if s <= today)
    return min(s for s in starts if _shift_months(s, 3) > today)


def _part(span: tuple[date, date], part: str, season: bool) -> tuple[tuple[date, date], bool]:
    """A part of a month or a season, and whether it is one day. "The last day of" / "the first
    week of" (invariant 102); of a month "early" its first 11 days, "mid" days 10-21, "late" its
    last 11; of a season its first, second or last month (invariant 102)."""
    first, end = span
    p = " ".join(part.lower().split())
    edge = re.search(r"(first|last) (day|week)", p)
    if edge:
        days = 7 if edge.group(2) == "week" else 1
        start = first if edge.group(1) == "first" else end - timedelta(days=days)
        return (start, start + timedelta(days=days)), days == 1
    third = 0 if re.search(r"early|start|beginning", p) else 1 if "mid" in p else 2
    if season:
        month = _shift_months(first, third)
        return (month, _shift_months(month, 1)), False
    return [(first, first + timedelta(days=11)), (first + timedelta(days=9),
            first + timedelta(days=21)), (end - timedelta(days=11), end)][third], False


def _span_row(kind: str, phrase: str, now: datetime, tense: Tense) -> tuple[date, date, str] | None:
    today, p = now.date(), phrase.lower()
    year = re.search(r"(?:19|20)\d\d", p)
    if kind in ("day_range", "month_range"):  # the last day or month said sets the year
        last = re.search(rf"\b{_MONTH}\s*,?\s*(?:(?:19|20)\d\d)?$", p)
        m = _month_in(last.group(0))  # type: ignore[union-attr]
        if kind == "day_range":
            a, b = (int(n) for n in re.findall(r"\b(\d{1,2})(?:st|nd|rd|th)?\b", p)[:2])
            end = (date(int(year.group(0)), m, b) if year else _pick_year(m, b, today, tense))
            if b != end.day or not 1 <= a <= b:
                return None  # "the 31st of September" is no day
            return end.replace(day=a), end + timedelta(days=1), kind
        end = date(int(year.group(0)), m, 1) if year else _pick_year(m, 1, today, tense)
        first = date(end.year - (_month_in(p) > m), _month_in(p), 1)
        return first, _shift_months(end, 1), kind
    if kind in ("part_month", "bare_month"):
        m = _month_in(p)
        d = date(int(year.group(0)), m, 1) if year else _pick_year(m, 1, today, tense)
        span = (d, _shift_months(d, 1))
        if kind == "bare_month":
            return *span, kind
        (first, end), one_day = _part(span, p[:re.search(rf"\b{_MONTH}", p).start()], False)  # type: ignore[union-attr]
        return first, end, "part_day" if one_day else kind
    if kind in ("part_season", "season"):
        name = re.search(_SEASON, p).group(0)  # type: ignore[union-attr]
        span = _season(_season_start(name, today, tense))
        if kind == "season":
            return *span, kind
        (first, end), one_day = _part(span, p[:p.index(name)], True)
        return first, end, "part_day" if one_day else kind
    if kind == "previous":  # "the previous year" is last year
        said = re.sub(r"past|previous", "last", p)
        unit = "rel_season" if re.search(_SEASON, said) else "rel_unit"
        day = _place(unit, said, now, tense)
        got = None if day is None else _widen(When(said, 0, day, unit, False))
        return None if got is None else (*got, kind)
    if kind == "year_of" and year:
        return date(int(year.group(0)), 1, 1), date(int(year.group(0)) + 1, 1, 1), kind
    return None


def _widen(w: When) -> tuple[date, date] | None:
    """The days a phrase the reader placed covers, from the day it starts on."""
    d, p = w.day, w.phrase.lower()
    if w.kind == "range_day_month":  # "7-14 February": the 7th to the 14th
        last = int(re.findall(r"\d{1,2}", p)[1])
        return (d, d.replace(day=last) + timedelta(days=1)) if last >= d.day else None
    if w.kind in ("day_month", "month_day") and int(re.findall(r"\d{1,2}", p)[0]) != d.day:
        return None  # "the 31st of September" is no day, not the 30th
    if w.kind in CALENDAR_DAYS or w.kind in _DAYS:
        return d, d + timedelta(days=1)
    if w.kind in _MONTHS_SIZED:
        return d.replace(day=1), _shift_months(d, 1)
    if w.kind in ("season_year", "rel_season"):
        return _season(d)
    if w.kind == "year":
        return d, d.replace(year=d.year + 1)
    if w.kind == "rel_unit":
        if p.endswith("year"):
            return d, d.replace(year=d.year + 1)
        if p.endswith("month"):
            return d, _shift_months(d, 1)
        monday = d - timedelta(days=d.weekday())
        if p.endswith("weekend"):
            return monday + timedelta(days=5), monday + timedelta(days=7)
        return monday, monday + timedelta(days=7)
    if w.kind == "in_n" and re.match(r"\w+\s+(?:a|an|one)\s", p) and not p.endswith("time"):
        return None  # "how much does he drink in a day": a rate as often as a date
    if w.kind in ("ago", "in_n"):  # "3 weeks ago": about then, half a unit either side
        unit = re.search(r"day|fortnight|week|month|year", p).group(0)  # type: ignore[union-attr]
        half = timedelta(days=max(1, _UNIT_DAYS[unit] // 2))
        return d - half, d + half + timedelta(days=1)
    return None


def _lead(phrase: str, start: int) -> tuple[str, int]:
    m = _LEAD.match(phrase)
    return (phrase[m.end():], start + m.end()) if m else (phrase, start)


@lru_cache(maxsize=4096)
def _spans(text: str, now: datetime, tense: Tense) -> tuple[Span, ...]:
    found: list[tuple[int, int, Span]] = []  # (start, end of the words matched, span)
    for w in dates_in(text, now, tense):
        got = _widen(w)
        if got is not None:
            phrase, start = _lead(w.phrase, w.start)
            found.append((w.start, w.start + len(w.phrase), Span(phrase, start, *got, w.kind)))
    for kind, pattern in SPAN_PHRASES:
        for m in pattern.finditer(text):
            try:
                row = _span_row(kind, m.group(0), now, tense)
            except (ValueError, AttributeError, OverflowError):
                row = None  # no date, never a guess (invariant 531)
            if row is None or (kind == "bare_month" and _DAY_NEAR.search(
                    text[max(0, m.start() - 12):m.start()] + "|" + text[m.end():m.end() + 4])):
                continue  # "the 45th of March": a day the reader could not place is no date
            at = (m.group(0), m.start()) if "range" in kind else _lead(m.group(0), m.start())
            # of overlapping phrases the longer is read, and a part narrows what it overlaps
            rivals = [f for f in found if f[0] < m.end() and m.start() < f[1]]
            if all(row[2].startswith("part") or m.end() - m.start() > e - s for s, e, _ in rivals):
                found = [f for f in found if f not in rivals]
                found.append((m.start(), m.end(), Span(at[0], at[1], *row)))
    return tuple(sorted((f[2] for f in found), key=lambda s: s.start))


def span_of(text: str, now: datetime, tense: Tense = "past") -> Span | None:
    """The time a text names: its narrowest span; of equal ones, a day named by its date before
    one named by "yesterday" or "last Friday", then the first said. Pure."""
    return min(_spans(text, now, tense), default=None,
               key=lambda s: (_grain((s.end - s.first).days), s.kind not in CALENDAR_DAYS, s.start))


def _grain(days: int) -> int:
    """How fine a span is: a day, a week, part of a month, a month, a season, more."""
    return next((n for n, most in enumerate((1, 7, 14, 31, 92)) if days <= most), 5)
