"""User ids, labels and free-text options: what the product accepts, and how it shows text on a
terminal (invariant 68). Pure functions; no I/O.

A user id is a scope key that reaches file paths, index filters, audit rows and terminals, so it
must look the same everywhere: NFKC-normalised, trimmed, at most 128 characters, and free of
anything a reader cannot see (control, format — zero-width and bidi overrides —, line and
paragraph separators, private-use and unassigned code points). `catalog` is the owner-less
scope, never a user.
"""

from __future__ import annotations

import math
import re
import unicodedata

from .errors import ScopeError, ValidationError
from .textsafety import normal_user_id

MAX_USER_ID_CHARS = 128
RESERVED_USER_IDS = frozenset({"catalog"})
# Unicode categories nobody can see or that change how the rest of a line is shown:
# Cc control, Cf format (zero-width, bidi overrides, BOM), Zl/Zp separators, Co private use,
# Cn unassigned, Cs lone surrogates (not text at all: invariant 11).
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cn", "Cs"})
# A lone surrogate (U+D800-U+DFFF) is no character: it cannot be written as UTF-8, so it reaches
# Python only from a broken JSON escape ("\ud800") or an argv byte that is not UTF-8 (which
# Python decodes with surrogateescape). Refused as bad input, never a crash at the store.
_SURROGATE = re.compile("[\ud800-\udfff]")

# Length limits of one-line labels and notes (characters, after trimming).
LIMITS = {"session": 128, "operator": 64, "reason": 1000, "comment": 2000}


def first_invisible(value: str) -> str | None:
    """The first character of `value` nobody can see (see INVISIBLE_CATEGORIES), or None."""
    for ch in value:
        if unicodedata.category(ch) in INVISIBLE_CATEGORIES:
            return ch
    return None


def as_text(value: object, field: str, *, error: type[ValidationError] | type[ScopeError]
            = ValidationError) -> str:
    """`value` as a str that is valid Unicode text (invariant 11): anything else — bytes, a
    number, a list, a lone surrogate from a broken escape or a non-UTF-8 argv byte — is one
    clear error of `error`'s kind, never stored as its repr and never a crash at the store."""
    if not isinstance(value, str):
        raise error(f"{field} must be text, got {type(value).__name__}")
    bad = _SURROGATE.search(value)
    if bad is not None:
        raise error(f"{field} is not valid Unicode text (a lone surrogate U+{ord(bad.group()):04X}"
                    " at position " f"{bad.start()}: a broken escape or bytes that are not "
                    "UTF-8); re-encode it as UTF-8 and retry")
    return value


def memory_id(value: object, field: str = "id") -> str:
    """A memory, item or plan id given by a caller: text, one line, nothing invisible, at most
    200 characters (invariant 11). Whether it exists is the store's answer (NotFoundError)."""
    text = as_text(value, field).strip()
    if not text:
        raise ValidationError(f"{field} is empty")
    if len(text) > 200:
        raise ValidationError(f"{field} is {len(text)} characters; ids are at most 200")
    bad = first_invisible(text)
    if bad is not None:
        raise ValidationError(f"{field} {_show(text)} contains an invisible or control character "
                              f"(U+{ord(bad):04X}); ids are plain text")
    return text


def _show(value: str, n: int = 40) -> str:
    """A short rendering of refused input for an error message: repr() shows control and
    invisible characters as escapes."""
    return repr(value[:n] + ("…" if len(value) > n else ""))


def require_user(user_id: object) -> str:
    """The one definition of a valid user id (invariants 1 and 68)."""
    if user_id is None or (isinstance(user_id, str) and not user_id.strip()):
        raise ScopeError("a user is required: pass --user (or user_id); an empty scope never widens")
    # Invariant 11: a user id is text; bytes, numbers and lone surrogates are refused.
    # Invariant 68: NFKC, so full-width and compatibility forms are the plain id.
    user = normal_user_id(as_text(user_id, "user id", error=ScopeError)).strip()
    if len(user) > MAX_USER_ID_CHARS:
        raise ScopeError(f"invalid user id {_show(user)}: at most {MAX_USER_ID_CHARS} characters "
                         f"(got {len(user)})")
    bad = first_invisible(user)
    if bad is not None:
        raise ScopeError(f"invalid user id {_show(user)}: it contains an invisible or control "
                         f"character (U+{ord(bad):04X}, {unicodedata.category(bad)}); user ids "
                         "must read the same on every screen")
    if unicodedata.normalize("NFKC", user).casefold() in RESERVED_USER_IDS:
        raise ScopeError(f"{user!r} is reserved for the shared catalog and is no user's id")
    return user


def label(value: object, field: str, *, limit: int | None = None) -> str:
    """A one-line label or note (session id, operator name, reason, comment): NFC, trimmed,
    not empty, at most `limit` characters, no control or invisible characters (invariant 68)."""
    limit = limit or LIMITS[field]
    text = unicodedata.normalize("NFC", as_text(value, field)).strip()  # invariant 11
    if not text:
        raise ValidationError(f"{field} is empty")
    if len(text) > limit:
        raise ValidationError(f"{field} is {len(text)} characters; the limit is {limit}")
    bad = first_invisible(text)
    if bad is not None:
        raise ValidationError(f"{field} contains a control or invisible character "
                              f"(U+{ord(bad):04X}); remove it and retry")
    return text


def optional_label(value: object, field: str, *, limit: int | None = None) -> str | None:
    """`label`, with None (or blank) meaning "not given"."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return label(value, field, limit=limit)


def bounded_int(value: object, field: str, *, low: int, high: int) -> int:
    """An integer option within [low, high]: one clear error for 0, -1 or 10**30."""
    try:
        number = int(str(value).strip())
    except ValueError:
        raise ValidationError(f"{field} must be a whole number, got {_show(str(value))}") from None
    if not low <= number <= high:
        raise ValidationError(f"{field} must be between {low} and {high}, got {number}")
    return number


def bounded_float(value: object, field: str, *, low: float, high: float) -> float:
    """A finite number within [low, high]: NaN and infinities are refused, not compared."""
    try:
        number = float(str(value).strip())
    except ValueError:
        raise ValidationError(f"{field} must be a number, got {_show(str(value))}") from None
    if not math.isfinite(number) or not low <= number <= high:
        raise ValidationError(f"{field} must be a finite number between {low:g} and {high:g}, "
                              f"got {str(value).strip()[:40]}")
    return number


# Terminal output --------------------------------------------------------------------------------
# What could move the cursor, clear the screen, rewrite a line or reorder what follows: C0 and C1
# controls (ESC starts ANSI sequences, CSI is U+009B), DEL, line/paragraph separators and the
# bidi embedding/override/isolate marks. Newline and tab are layout, kept. Zero-width joiners
# and variation selectors stay: emoji need them and they move nothing.
_CURSOR = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u061c"
                     "\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match) -> str:
    if match.group() == "\r":
        return "\\r"
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """Text as it may be written to a terminal: anything that would move the cursor or
    reorder the line is shown as a visible escape (`\\x1b`, `\\r`, `\\u202e`)."""
    return _CURSOR.sub(_escape, text)


_JSON_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]")


def json_safe(text: str) -> str:
    """JSON text (already escaping C0 controls) with the rest of the cursor-moving characters
    written as \\u escapes: the same document to a parser, harmless on a terminal."""
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
