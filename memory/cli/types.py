"""argparse types for CLI options: each bad value is one clear usage error naming the option
(exit 2), checked before any store is opened (invariants 68 and 69)."""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from .. import inputs
from ..errors import ValidationError

if TYPE_CHECKING:
    from ..stores.base import Store


T = TypeVar("T")


def _wrap(check: Callable[[str], T]) -> Callable[[str], T]:
    def parse(raw: str) -> T:
        try:
            return check(raw)
        except ValidationError as exc:  # argparse adds "argument --NAME:" in front
            raise argparse.ArgumentTypeError(str(exc)) from None
    parse.__name__ = getattr(check, "__name__", "value")
    return parse


def count(low: int, high: int, what: str = "value") -> Callable[[str], object]:
    """A whole number within [low, high] (`--k 0`, `--limit -1` and 10**30 are refused)."""
    return _wrap(lambda raw: inputs.bounded_int(raw, what, low=low, high=high))


def number(low: float, high: float, what: str = "value") -> Callable[[str], object]:
    """A finite number within [low, high] (NaN and infinities are refused)."""
    return _wrap(lambda raw: inputs.bounded_float(raw, what, low=low, high=high))


CONFIDENCE = number(0.0, 1.0, "confidence")
DAYS = number(0.0, 36_500.0, "days")  # a hundred years: beyond that a date is out of range


def label(field: str, *, required: bool = False) -> Callable[[str], object]:
    """A one-line label or note with the length limit of `field` (session, reason, comment,
    operator): no control or invisible characters; blank means not given unless required."""
    check = inputs.label if required else inputs.optional_label
    return _wrap(lambda raw: check(raw, field))


def _readable(raw: str) -> str:
    path = Path(raw)
    if not path.exists():
        return raw  # the command's own loader names what is missing and where to get it
    if not path.is_file():
        raise ValidationError(f"{raw}: not a regular file (a directory?)")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValidationError(f"{raw}: cannot be read ({exc.strerror})") from None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValidationError(f"{raw}: not UTF-8 text (byte {exc.start}); expected a JSON file") \
            from None
    return raw


TEXT_FILE = _wrap(_readable)


def _writable_dir(raw: str) -> str:
    path = Path(raw)
    for parent in (path, *path.parents):
        if parent.exists():
            if not parent.is_dir():
                raise ValidationError(f"{raw}: {parent} is a file, not a directory")
            break
    return raw


OUTPUT_DIR = _wrap(_writable_dir)


def known_user(store: Store, user_id: str) -> str:
    """A user the store holds memories for (rule 7: an unknown user is a clear error, never an
    empty answer that looks like "nothing on record", and never a typo that starts a new user)."""
    from ..errors import NotFoundError
    from ..text import require_user

    user_id = require_user(user_id)  # invariant 1: a missing scope is its own error
    users = store.users()
    if user_id in users:
        return user_id
    near = difflib.get_close_matches(user_id, users, n=3, cutoff=0.7)
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    raise NotFoundError(f"unknown user {user_id!r}: no memories are stored under that id{hint} "
                        "(`memdesk users` lists them)")

