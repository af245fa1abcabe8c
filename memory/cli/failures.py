"""Failures that are not MemdeskErrors, translated once for the CLI into the product's errors
(exit codes in memory/errors.py), so bad input is one clear line and never a traceback
(invariant 69). The callers fix their own inputs first; this is the net under them."""

from __future__ import annotations

import sqlite3

from pydantic import ValidationError as PydanticError

from ..errors import MemdeskError, StoreUnavailableError, ValidationError


def locked_message(what: str, detail: str) -> str:
    return (f"{what} is locked by another writer and stayed locked ({detail}); retry when it "
            "finishes, or raise MEMDESK_BUSY_TIMEOUT (seconds)")


def translate(exc: BaseException) -> MemdeskError | None:
    """The product error for a foreign exception, or None when it is a bug (not bad input)."""
    if isinstance(exc, sqlite3.OperationalError) and any(
            w in str(exc).lower() for w in ("locked", "busy")):
        return StoreUnavailableError(locked_message("the embedded store", str(exc)))
    if isinstance(exc, sqlite3.DatabaseError):
        return StoreUnavailableError(f"the embedded store cannot be used: {exc}")
    if isinstance(exc, UnicodeDecodeError):
        return ValidationError(f"input is not UTF-8 text ({exc.reason} at byte {exc.start})")
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return ValidationError(f"{where}{exc.strerror or exc}")
    if isinstance(exc, PydanticError):
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first.get("loc", ())) or "input"
        msg = str(first.get("msg", "invalid")).removeprefix("Value error, ")
        return ValidationError(f"invalid {loc}: {msg}")
    if isinstance(exc, (OverflowError, RecursionError)):
        return ValidationError(f"a value is out of range: {exc}")
    return None
