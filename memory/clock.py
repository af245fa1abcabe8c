"""Time and ids from one place, so tests can pin "now" for as-of queries and decay."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime, time

from .errors import ValidationError

Clock = Callable[[], datetime]
# A moment as callers give it (an ISO string, a date, a datetime, or none); parse_when reads it.
When = str | datetime | date | None
# ValueError texts that name what is wrong with a well-shaped date ("day is out of range for
# month", "month must be in 1..12"); anything else is just "not ISO".
_REAL_DATE_ERROR = re.compile(r"out of range|must be in")


def utcnow() -> datetime:
    return datetime.now(UTC)


def fixed_clock(at: datetime) -> Clock:
    at = as_utc(at)
    return lambda: at


def new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:20]}"


def as_utc(value: datetime) -> datetime:
    """Naive datetimes are taken as UTC; aware ones are converted."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def parse_when(value: When, *, field: str = "date") -> datetime | None:
    """Parse an ISO date or datetime from user input into an aware UTC datetime: a date is its
    UTC midnight, a naive datetime is UTC, an aware one is converted (invariant 184)."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        try:
            return as_utc(value)
        except OverflowError:  # datetime(1, 1, 1, tzinfo=+05:00) is before the first UTC one
            raise ValidationError(f"invalid {field} {value.isoformat()!r}: out of range once "
                                  "converted to UTC (years 1 to 9999)") from None
    if isinstance(value, date):
        return datetime.combine(value, time.min, tzinfo=UTC)
    if not isinstance(value, str) or isinstance(value, bool):
        raise ValidationError(f"invalid {field}: expected an ISO date or datetime as text, got "
                              f"{type(value).__name__}")
    text = value.strip()
    try:
        if len(text) == 10:
            return datetime.combine(date.fromisoformat(text), time.min, tzinfo=UTC)
        return as_utc(datetime.fromisoformat(text))  # 3.11 reads a trailing Z
    except OverflowError:  # e.g. 9999-12-31T23:00-05:00 is past the last UTC datetime
        raise ValidationError(
            f"invalid {field} {text!r}: out of range once converted to UTC (years 1 to 9999)"
        ) from None
    except (ValueError, UnicodeError) as exc:
        # "2026-02-30" is ISO in shape: say what is wrong with it (day out of range, ...).
        why = str(exc) if _REAL_DATE_ERROR.search(str(exc)) else ""
        raise ValidationError(
            f"invalid {field} {text[:40]!r}: " + (f"{why}; " if why else "")
            + "use ISO format, e.g. 2025-03-01 or 2025-03-01T09:30:00Z"
        ) from None
