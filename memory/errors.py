"""The product's exception hierarchy; the CLI and the pages translate it once each."""

from __future__ import annotations


class MemdeskError(Exception):
    """Base error. `exit_code` is what the CLI returns for it."""

    exit_code = 1

    def __init__(self, message: str, *, target_id: str | None = None) -> None:
        super().__init__(message)
        self.target_id = target_id


class ValidationError(MemdeskError):
    """Bad input: oversized text, control characters, bad dates, unknown enum values."""

    exit_code = 2


class ScopeError(ValidationError):
    """A read or mutation named no user (invariant 1)."""


class NotFoundError(MemdeskError):
    """No such memory for this user. Another user's id raises this too (invariant 3)."""

    exit_code = 3


class AccessDenied(MemdeskError):
    """The actor's role does not allow the action (issue 14, invariant 121). Exit 3, as for a
    missing id: "not found or denied". The attempt is audited as `denied`."""

    exit_code = 3


class TombstoneError(MemdeskError):
    """A write matched a rejected or retracted value of this user (invariant 7)."""

    exit_code = 4

    def __init__(self, message: str, *, tombstone_id: str, target_id: str | None = None) -> None:
        super().__init__(message, target_id=target_id)
        self.tombstone_id = tombstone_id


class ChainError(MemdeskError):
    """Only the head of a supersession chain can be superseded (invariant 5)."""

    exit_code = 2


class ConflictError(MemdeskError):
    """The record changed since it was read (optimistic concurrency); re-read and retry."""

    exit_code = 5


class StoreUnavailableError(MemdeskError):
    """The backing store cannot be reached or opened."""

    exit_code = 6


class ModelOutputError(MemdeskError):
    """The language model returned output that failed validation; nothing was written."""

    exit_code = 7
