"""The correction model as pure functions: what a fact becomes when it is superseded, retracted
or rejected, given `now`. No I/O; the unit of work (memory/unit_of_work.py) turns the results
into store operations and audit events. Invariants 4, 5 and 6 are decided here, once.
"""

from __future__ import annotations

from datetime import datetime
from typing import TypeVar

from pydantic import BaseModel

from .errors import ChainError
from .models import Contradiction, Fact, FactState, Tombstone, TombstoneKind
from .text import normalise

R = TypeVar("R", bound=BaseModel)

HARSH_REASON = "harsh contradiction"


def bumped(doc: R, **changes: object) -> R:
    """A validated copy with `changes` applied and the revision advanced by one."""
    # R is a memory record (every one has `rev`); the callers' TypeVar is bound to BaseModel
    return doc.model_validate({**doc.model_dump(), **changes, "rev": doc.rev + 1})  # type: ignore[attr-defined]


def require_head(old: Fact) -> None:
    """Only the current head of a chain can be superseded or replaced (invariant 5)."""
    if old.state != FactState.ACTIVE or old.superseded_by:
        head = f"; its successor is {old.superseded_by}" if old.superseded_by else ""
        raise ChainError(f"fact {old.id} is {old.state.value}, not the head of its chain{head}: "
                         "only the current head can be superseded", target_id=old.id)


def closed_valid_to(old: Fact, new: Fact) -> datetime | None:
    """Where a naturally superseded fact's valid time ends: where the new fact starts, or its
    own end if that comes first (two versions of one chain are never true at once, invariant
    184); never before its own start (invariant 4)."""
    ends = [t for t in (old.valid_to, new.valid_from) if t is not None]
    valid_to = min(ends) if ends else None
    if valid_to and old.valid_from and valid_to < old.valid_from:
        valid_to = old.valid_from
    return valid_to


def retire(old: Fact, new: Fact, contradiction: Contradiction, now: datetime) -> Fact:
    """`old` after `new` replaced it. Natural: no longer true, kept as history with its valid
    time closed (invariant 4). Harsh: never true, retracted (invariant 6); the caller adds the
    tombstone (`tombstone_of`)."""
    require_head(old)
    if contradiction == Contradiction.HARSH:
        return bumped(old, state=FactState.RETRACTED, superseded_by=new.id, superseded_at=now)
    return bumped(old, state=FactState.SUPERSEDED, superseded_by=new.id, superseded_at=now,
                  valid_to=closed_valid_to(old, new))


def linked(new: Fact, old: Fact, contradiction: Contradiction, harsh_penalty: float) -> Fact:
    """`new` as the successor of `old`: the link, and the confidence penalty a harsh
    contradiction carries (the new value contradicts something once believed)."""
    penalty = harsh_penalty if contradiction == Contradiction.HARSH else 0.0
    return new.model_validate({**new.model_dump(), "supersedes": old.id,
                               "contradiction": contradiction,
                               "confidence": max(0.0, new.confidence - penalty)})


def retracted(fact: Fact, now: datetime, kind: TombstoneKind = TombstoneKind.RETRACTED) -> Fact:
    """A fact declared never true: retracted by the user, or rejected by an operator."""
    if fact.state in (FactState.RETRACTED, FactState.REJECTED):
        raise ChainError(f"fact {fact.id} is already {fact.state.value}", target_id=fact.id)
    if kind == TombstoneKind.REJECTED:
        return bumped(fact, state=FactState.REJECTED)
    return bumped(fact, state=FactState.RETRACTED, superseded_at=now)


def tombstone_of(fact: Fact, kind: TombstoneKind, actor: str, reason: str | None,
                 now: datetime, tombstone_id: str | None = None) -> Tombstone:
    """The value-level record the write path consults so a dead value stays dead (inv. 7)."""
    return Tombstone(**({"id": tombstone_id} if tombstone_id else {}), user_id=fact.user_id,
                     text=fact.text, normalized=normalise(fact.text), kind=kind,
                     source_fact_id=fact.id, reason=reason, actor=actor, created_at=now)


def valid_covers(fact: Fact, at: datetime) -> bool:
    """Valid-time "as of": was this version true on that day? (invariant 13)

    Retracted, rejected and candidate facts were never believed true. An undated start is taken
    from record time; an undated end of a superseded fact is when it was superseded. The
    interval is half-open, [start, end) (invariant 184)."""
    if fact.state not in (FactState.ACTIVE, FactState.SUPERSEDED):
        return False
    start = fact.valid_from or fact.recorded_at
    end = fact.valid_to or (fact.superseded_at if fact.state == FactState.SUPERSEDED else None)
    return start <= at and (end is None or at < end)


def believed_at(fact: Fact, at: datetime) -> bool:
    """Record-time "as of": did the store believe it then? (invariant 14) Half-open,
    [recorded_at, superseded_at) (invariant 184)."""
    if fact.state in (FactState.CANDIDATE, FactState.REJECTED):
        return False
    return fact.recorded_at <= at and (fact.superseded_at is None or fact.superseded_at > at)


def as_believed(fact: Fact, at: datetime, *, valid_to_before: dict[str, datetime | None],
                successor: Fact | None = None) -> Fact:
    """The version as the store held it at record time `at` (invariant 184): one superseded or
    retracted only after `at` was then the believed head, without the successor link and with
    the valid time it had before the supersession closed it: `valid_to_before[fact.id]` (read
    from the audited snapshot), else, when unknown, a `valid_to` equal to where `successor`
    starts is taken as that closure (`closed_valid_to`). Pure."""
    if fact.superseded_at is None or fact.superseded_at <= at or \
            fact.state in (FactState.CANDIDATE, FactState.REJECTED):
        return fact
    valid_to = fact.valid_to
    if fact.state == FactState.SUPERSEDED:
        if fact.id in valid_to_before:
            valid_to = valid_to_before[fact.id]
        elif successor is not None and valid_to is not None and valid_to == closed_valid_to(
                fact.model_copy(update={"valid_to": None}), successor):
            valid_to = None
    return fact.model_copy(update={"state": FactState.ACTIVE, "superseded_by": None,
                                   "superseded_at": None, "valid_to": valid_to})


def chains_in_order(facts: list[Fact]) -> list[list[Fact]]:
    """Group facts into supersession chains (links among these facts), each oldest version
    first; chains in the order their first member appears. A chain ends where a link leaves
    the given facts (a forgotten version). Pure."""
    by_id = {f.id: f for f in facts}
    seen: set[str] = set()
    out: list[list[Fact]] = []
    for f in facts:
        if f.id in seen:
            continue
        head = f
        while head.supersedes in by_id and head.supersedes not in seen and head.supersedes != f.id:
            head = by_id[head.supersedes]
        chain: list[Fact] = []
        cur: Fact | None = head
        while cur is not None and cur.id not in seen:
            chain.append(cur)
            seen.add(cur.id)
            cur = by_id.get(cur.superseded_by) if cur.superseded_by else None
        out.append(chain)
    return out
