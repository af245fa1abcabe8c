"""Recall's time windows come from the one date module (issue 28): `memory.temporal.time_intent`
reads every date and span through `memory.when.span_of`; a phrase it cannot place names no
window, never a guess (invariant 531). One table, rows as data: question, now, expected window
(first and end, ISO, end exclusive) or None. A day named by its date runs from the day before to
the day after (invariants 102, 102); "before / since / after" widen as `temporal` says."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.temporal import time_intent
from memory.when import span_of

SAT = "2026-11-21T12:00"  # a Saturday in late autumn
JUL = "2026-07-10T09:00"  # a Friday in mid-summer

WINDOWS: list[tuple[str, str, str | None, str | None]] = [
    # months and days, the year chosen by the past tense: the latest begun by now
    ("What happened in March?", SAT, "2026-03-01", "2026-04-01"),
    ("What happened in December?", SAT, "2025-12-01", "2026-01-01"),
    ("Where was she living in September?", JUL, "2025-09-01", "2025-10-01"),
    ("Which bug was behind the July hangs?", SAT, "2026-07-01", "2026-08-01"),
    ("What did he do on the 3rd of March?", SAT, "2026-03-02", "2026-03-05"),
    ("What did Melanie do on 8 May, 2023?", SAT, "2023-05-07", "2023-05-10"),
    ("What did the teammates give him on Aug 15th?", SAT, "2026-08-14", "2026-08-17"),
    ("What did she do in March of last year?", SAT, "2025-03-01", "2025-04-01"),
    # parts of a month (invariant 102) and of a season (invariant 102)
    ("Where was he in mid-July?", SAT, "2026-07-10", "2026-07-22"),
    ("What happened at the end of June?", SAT, "2026-06-20", "2026-07-01"),
    ("What was on in early March?", SAT, "2026-03-01", "2026-03-12"),
    ("Who visited during the first week of June?", SAT, "2026-06-01", "2026-06-08"),
    ("What did we do on the last day of August?", SAT, "2026-08-30", "2026-09-02"),
    ("What happened on the very last day of December 2025?", SAT, "2025-12-30", "2026-01-02"),
    ("What did she do at the start of the summer?", JUL, "2026-06-01", "2026-07-01"),
    ("Where was she in mid-winter?", SAT, "2026-01-01", "2026-02-01"),
    ("Was the flat cold in late autumn?", SAT, "2026-11-01", "2026-12-01"),
    # seasons: the latest begun by now; "last <season>" is read as the reader reads it
    ("What did he do over the summer?", SAT, "2026-06-01", "2026-09-01"),
    ("What did he do over the summer?", JUL, "2026-06-01", "2026-09-01"),
    ("Which update broke the syntax colouring last summer?", JUL, "2026-06-01", "2026-09-01"),
    ("What did I do last autumn?", SAT, "2026-09-01", "2026-12-01"),
    ("What state did Joanna visit in summer 2021?", SAT, "2021-06-01", "2021-09-01"),
    ("Which airport did she fly from in the summer?", SAT, "2026-06-01", "2026-09-01"),
    # ranges
    ("where am I off to from the 9th till the 20th of Nov?", SAT, "2026-11-09", "2026-11-21"),
    ("what was on between the 8th and 10th of September?", SAT, "2026-09-08", "2026-09-11"),
    ("what did I do 7-14 February?", SAT, "2026-02-07", "2026-02-15"),
    ("Where was she from June to August?", SAT, "2026-06-01", "2026-09-01"),
    ("Did they meet in Boston between August and November 2023?", SAT, "2023-08-01",
     "2023-12-01"),
    # relative to now
    ("What did I do yesterday?", SAT, "2026-11-20", "2026-11-21"),
    ("anything on tomorrow?", SAT, "2026-11-22", "2026-11-23"),
    ("What did I do last week?", SAT, "2026-11-09", "2026-11-16"),
    ("What did I do last weekend?", SAT, "2026-11-14", "2026-11-16"),
    ("What did I do last month?", SAT, "2026-10-01", "2026-11-01"),
    ("What happened last year?", SAT, "2025-01-01", "2026-01-01"),
    ("What happened in the previous year?", SAT, "2025-01-01", "2026-01-01"),
    ("How many flights is she allowed next year?", SAT, "2027-01-01", "2028-01-01"),
    ("What did I do three weeks ago?", SAT, "2026-10-28", "2026-11-04"),
    ("Where did she move 4 years ago?", "2023-10-23T21:55", "2019-04-24", "2020-04-23"),
    # years
    ("How many trips is she allowed in 2027?", SAT, "2027-01-01", "2028-01-01"),
    ("What did she build during 2023?", SAT, "2023-01-01", "2024-01-01"),
    # before / since / after: the months leading up to it, or from it to now
    ("What did she eat before August?", SAT, "2026-04-03", "2026-08-01"),
    ("Who has he worked for since October?", SAT, "2026-10-01", "2026-11-21T12:00"),
    # the day unread, the month said: the month
    ("what happened on the twelfth of Sept?", SAT, "2026-09-01", "2026-10-01"),
    # no date: nothing placed is a window
    ("May I ask which hub she has?", SAT, None, None),
    ("When may the automatic hoover clean?", SAT, None, None),
    ("How much coffee does he drink in a day?", SAT, None, None),  # a rate, not a date
    ("What happened on the 45th of March?", SAT, None, None),
    ("What happened on the 31st of September?", SAT, None, None),
    ("What happened between the 30th and 31st of September?", SAT, None, None),
    ("Before she went days-only, what did her summer roster look like?", SAT, None, None),
    ("Which hub runs the lights?", SAT, None, None),
]


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(("question", "now", "first", "end"), WINDOWS)
def test_the_window_a_question_names(question, now, first, end):
    window = time_intent(question, _at(now)).window
    assert window == (None if first is None else (_at(first), _at(end)))
    # invariant 531: no span from the date module, no window
    assert (span_of(question, _at(now)) is None) == (window is None)
