"""Several operators on one queue (issue 34): each operator's Focus view holds a short lease on
the item on screen, so two people reviewing together are handed different items.

A user's leases live in one per-user watermark (`review_leases`), a JSON map of item id to
(operator, until). Every change is compare-and-set against the value read (invariant 510), so
two operators who reach for the same item at once cannot both hold it; the loser is handed the
next free item. A lease is renewed while its item is on screen and released on a decision, a
skip or leaving; a lease nobody renews simply ends (`LEASE_SECONDS`) and the item is free again.

What is pure (`parse`, `live`, `assign`, `count_today`) is kept apart from what reads or writes
the store (`leases`, `claim`, `release`, `take`, `decided_today`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from pydantic import BaseModel
from pydantic import ValidationError as PydanticError

from memory.errors import ConflictError
from memory.service import MemoryService
from memory.text import require_user

from .decisions import operator_actor
from .models import HistoryEntry, QueueItem
from .queue import history, scope

WATERMARK = "review_leases"
LEASE_SECONDS = 90  # short: a closed tab frees its item within this
RENEW_SECONDS = 30  # the Focus view renews this often while the item is on screen
CLAIM_ACTION = "review_claim"
_TRIES = 8  # compare-and-set retries when another operator wrote the map meanwhile


class Lease(BaseModel):
    operator: str
    until: datetime


# pure -----------------------------------------------------------------------------------------
def parse(value: str | None) -> dict[str, Lease]:
    """The stored map; an unreadable value holds no leases (it is rewritten on the next claim)."""
    if not value:
        return {}
    try:
        raw = json.loads(value)
        return {str(k): Lease.model_validate(v) for k, v in raw.items()}
    except (ValueError, AttributeError, PydanticError):
        return {}


def dump(leases: dict[str, Lease]) -> str:
    return json.dumps({k: v.model_dump(mode="json") for k, v in sorted(leases.items())},
                      separators=(",", ":"))


def live(leases: dict[str, Lease], now: datetime) -> dict[str, Lease]:
    """The leases that have not ended at `now`."""
    return {k: v for k, v in leases.items() if v.until > now}


def holders(leases: dict[str, Lease], operator: str, now: datetime) -> dict[str, str]:
    """Item id -> the other operator holding it now (the operator's own leases are no block)."""
    return {k: v.operator for k, v in live(leases, now).items() if v.operator != operator}


@dataclass(frozen=True)
class Assignment:
    """What the Focus view shows: the item (None: nothing free), where previous and next go,
    and who else holds the shown item when the operator asked for it by name."""

    item: QueueItem | None
    index: int
    prev_id: str | None
    next_id: str | None
    held_by: str | None  # another operator's live lease on the shown item (asked for)
    busy: dict[str, str]  # every item others hold now: id -> operator


def assign(items: Sequence[QueueItem], leases: dict[str, Lease], operator: str, now: datetime,
           *, cursor: str | None, skipped: Sequence[str], asked: str | None = None) -> Assignment:
    """Which item this operator sees (invariant 510). An item another operator holds is never
    handed out; it is shown only when asked for by id (`asked`: a link, previous/next). The
    operator's own item (`cursor`) stays while it waits and nobody else took it; otherwise the
    first free item not skipped, else the first free one. Previous and next step over free
    items in queue order (next also over skipped ones, like Skip), wrapping round."""
    busy = holders(leases, operator, now)
    ids = [i.id for i in items]
    free = [n for n, i in enumerate(ids) if i not in busy]
    skip = set(skipped)
    at: int | None = None
    if asked in ids:
        at = ids.index(asked)
    elif cursor in ids and cursor not in busy:
        at = ids.index(cursor)
    elif free:
        at = next((n for n in free if ids[n] not in skip), free[0])
    if at is None:
        return Assignment(None, -1, None, None, None, busy)
    ring = [*range(at + 1, len(ids)), *range(at)]
    after = [n for n in ring if n in free and ids[n] not in skip] or [n for n in ring if n in free]
    before = [n for n in reversed(ring) if n in free]
    return Assignment(items[at], at, ids[before[0]] if before else None,
                      ids[after[0]] if after else None, busy.get(ids[at]), busy)


def count_today(entries: Iterable[HistoryEntry], now: datetime) -> dict[str, int]:
    """Decisions per operator on `now`'s (UTC) day, most first."""
    day = now.date()
    out: dict[str, int] = {}
    for e in entries:
        if e.at.date() == day:
            out[e.operator] = out.get(e.operator, 0) + 1
    return dict(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))


# store ----------------------------------------------------------------------------------------
def leases(service: MemoryService, users: Iterable[str] | str) -> dict[str, Lease]:
    """Every live lease in the scope, by item id (ids are unique across users)."""
    now = service.clock()
    out: dict[str, Lease] = {}
    for user in scope(users):
        out.update(live(parse(service.store.get_watermark(user, WATERMARK)), now))
    return out


@dataclass(frozen=True)
class Claim:
    ok: bool
    holder: str | None  # who holds the item when `ok` is False


# Edits the lease map read at `now` in place: the claim, and the item id to audit (None: none).
Change = Callable[[dict[str, "Lease"], datetime], tuple[Claim, str | None]]


def _write(service: MemoryService, user_id: str, operator: str, change: Change) -> Claim:
    """Read the map, let `change(map, now)` edit it (returning a Claim), write it back by
    compare-and-set; retried when another operator wrote meanwhile (invariant 510)."""
    user_id = require_user(user_id)
    actor = operator_actor(operator)
    for _ in range(_TRIES):
        now = service.clock()
        read = service.store.get_watermark(user_id, WATERMARK)
        current = live(parse(read), now)
        result, audit = change(current, now)
        if not result.ok and not audit:
            return result
        b = service.batch(actor, user_id)
        if audit:  # a claim is who took which item: audited; renewal and release only move time
            b.note(CLAIM_ACTION, [audit], after={"until": current[audit].until.isoformat()})
        else:
            b.require(CLAIM_ACTION)
        b.set_watermark(WATERMARK, dump(current), expected=read)
        try:
            b.commit()
        except ConflictError:
            continue
        return result
    raise ConflictError(f"the review leases of {user_id} kept changing; try again")


def claim(service: MemoryService, user_id: str, fact_id: str, *, operator: str,
          seconds: int = LEASE_SECONDS, force: bool = False) -> Claim:
    """Hold `fact_id` for `seconds` (a renewal when the operator holds it already). Another
    operator's live lease wins unless `force` (the operator asked for this very item and
    chose to take it over). The operator's other leases in this user end: one item on screen."""
    name = operator_actor(operator).removeprefix("operator:")

    def change(current: dict[str, Lease], now: datetime) -> tuple[Claim, str | None]:
        held = current.get(fact_id)
        if held is not None and held.operator != name and not force:
            return Claim(False, held.operator), None
        fresh = held is None or held.operator != name
        for k in [k for k, v in current.items() if v.operator == name and k != fact_id]:
            del current[k]
        current[fact_id] = Lease(operator=name, until=now + timedelta(seconds=seconds))
        return Claim(True, None), fact_id if fresh else None

    return _write(service, user_id, name, change)


def release(service: MemoryService, user_id: str, fact_id: str | None = None, *,
            operator: str) -> None:
    """End the operator's lease on `fact_id` (None: every lease of theirs in this user)."""
    name = operator_actor(operator).removeprefix("operator:")
    mine = [k for k, v in leases(service, user_id).items() if v.operator == name
            and (fact_id is None or k == fact_id)]
    if not mine:
        return

    def change(current: dict[str, Lease], now: datetime) -> tuple[Claim, str | None]:
        for k in mine:
            if k in current and current[k].operator == name:
                del current[k]
        return Claim(True, None), None

    _write(service, user_id, name, change)


def take(service: MemoryService, items: Sequence[QueueItem], *, operator: str,
         cursor: str | None, skipped: Sequence[str], asked: str | None = None) -> Assignment:
    """Assign (see `assign`) and hold the item shown. When another operator claimed it between
    our read and our write, the next free item is assigned instead (invariant 510). An item
    asked for that someone else holds is shown without taking their lease."""
    name = operator_actor(operator).removeprefix("operator:")
    users = sorted({i.user_id for i in items})
    for _ in range(len(items) + 1):
        held = leases(service, users) if users else {}
        got = assign(items, held, name, service.clock(), cursor=cursor, skipped=skipped,
                     asked=asked)
        if got.item is None or got.held_by is not None:
            return got
        if claim(service, got.item.user_id, got.item.id, operator=name).ok:
            return got
        asked = None  # lost the race for it: take the next free one
    return assign(items, leases(service, users), name, service.clock(), cursor=None,
                  skipped=skipped)


def decided_today(service: MemoryService, users: Iterable[str] | str,
                  limit: int = 2000) -> dict[str, int]:
    """Per-operator decision counts today (UTC), read from the audit log."""
    return count_today(history(service, users, limit=limit), service.clock())
