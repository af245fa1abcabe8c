"""Undo of an operator's own last review decision, read back from the audit log (issue 13).

The decided item returns to the queue as the candidate it was, and whatever the decision
retired or merged into is restored, in one audited batch (invariant 44). A decision that wrote a
tombstone (reject, accepting a harsh contradiction, retracting a fact a proposal named) is not
undone: the value stays dead (invariant 44). Nothing is undone over a later change: every record must still be at the
revision the decision left it at.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, Field

from memory.errors import ChainError, ConflictError, NotFoundError
from memory.models import AuditEvent, Fact, MemoryKind
from memory.redaction import is_stub
from memory.service import MemoryService

from .decisions import operator_actor
from .queue import DECISION_ACTIONS, scope

UNDO_ACTION = "review_undo"
# Events the decision's own batch wrote besides the decision (review/decisions.py).
_COMPANIONS = ("supersede", "retract", "merge_sources")
_SCAN = 500  # audit events read per user when looking for the operator's last decision


class UndoResult(BaseModel):
    decision: AuditEvent = Field(description="the decision that was undone")
    restored: list[Fact] = Field(description="the item (a candidate again) and facts restored")


def _events(service: MemoryService, user: str) -> list[AuditEvent]:
    return service.audit(user, limit=_SCAN)


def last_decision(service: MemoryService, users: Iterable[str] | str, *,
                  operator: str) -> AuditEvent | None:
    """The operator's newest decision in the scope that has not been undone since."""
    actor = operator_actor(operator)
    best: AuditEvent | None = None
    for user in scope(users):
        events = _events(service, user)  # newest first
        for n, e in enumerate(events):
            if e.action not in DECISION_ACTIONS or e.actor != actor or e.outcome != "ok":
                continue
            item = e.target_ids[0] if e.target_ids else None
            if any(u.action == UNDO_ACTION and item in u.target_ids for u in events[:n]):
                continue  # undone already: the one before it is next
            if best is None or e.at > best.at:
                best = e
            break
    return best


def _companions(events: list[AuditEvent], decision: AuditEvent) -> list[AuditEvent]:
    """The supersede/retract/merge event the decision's batch wrote: same operator, naming the
    item and a fact the decision touched, stamped within moments of the decision (the batch
    reads the clock more than once)."""
    item, touched = decision.target_ids[0], set(decision.target_ids[1:])
    out = []
    for e in events:  # newest first
        gap = (e.at - decision.at).total_seconds()
        if gap < -5:
            break
        if gap > 5 or e.actor != decision.actor or e.action not in _COMPANIONS \
                or item not in e.target_ids or not touched & set(e.target_ids):
            continue
        touched -= set(e.target_ids)
        out.append(e)
    return out


def _restore(service: MemoryService, user: str, snap_before: dict, snap_after: dict,
             what: str) -> tuple[Fact, Fact]:
    if is_stub(snap_before) or is_stub(snap_after) or "id" not in snap_after:
        # Invariant 66: the text to restore was forgotten since; undo never brings it back.
        raise ConflictError(f"cannot undo: the {what} it would restore was forgotten since; "
                            "nothing was undone")
    cur = service.store.get(MemoryKind.SEMANTIC, user, snap_after["id"])
    if not isinstance(cur, Fact):  # a semantic id: a Fact, or gone
        raise ConflictError(f"cannot undo: {what} {snap_after['id']} no longer exists")
    if cur.rev != snap_after["rev"]:
        raise ConflictError(f"cannot undo: {what} {cur.id} changed since the decision "
                            f"(revision {snap_after['rev']} → {cur.rev}); nothing was undone")
    restored = Fact.model_validate({**snap_before, "rev": cur.rev + 1,
                                    "use_count": cur.use_count,  # usage is not the decision's
                                    "last_used_at": cur.last_used_at})
    return cur, restored


def undo_last(service: MemoryService, users: Iterable[str] | str, *,
              operator: str) -> UndoResult:
    """Undo the operator's own last decision in the scope (see the module docstring)."""
    actor = operator_actor(operator)
    for user in scope(users):  # issue 14 (invariant 121): the role before the search
        service.require(actor, UNDO_ACTION, user)
    decision = last_decision(service, users, operator=operator)
    if decision is None:
        raise NotFoundError(f"no decision by {actor} to undo for "
                            f"{', '.join(scope(users))}")
    user = decision.user_id
    if decision.action == "review_retract":  # invariant 591: the fact's value is dead
        raise ChainError("retracting a fact tombstoned its value and cannot be undone: the "
                         "value stays dead (invariant 44)", target_id=decision.target_ids[0])
    if decision.action == "review_reject":
        raise ChainError("a rejection tombstones its value and cannot be undone: the value stays "
                         "dead (invariant 44); propose it again if it was right",
                         target_id=decision.target_ids[0])
    batch = _companions(_events(service, user), decision)
    if any(e.action == "retract" for e in batch):
        raise ChainError("accepting a harsh contradiction retracted the old fact and tombstoned "
                         "its value: it cannot be undone (invariant 44)",
                         target_id=decision.target_ids[0])
    pairs = [_restore(service, user, decision.before or {}, decision.after or {}, "item")]
    pairs += [_restore(service, user, e.before or {}, e.after or {}, "fact") for e in batch]
    reason = f"undo {decision.action} of {decision.at:%Y-%m-%d %H:%M:%S}"
    with service.batch(actor, user, reason=reason) as b:  # one batch (invariant 44)
        for cur, restored in pairs:
            item = restored.id == decision.target_ids[0]
            b.replace(cur, restored, action=UNDO_ACTION,
                      targets=decision.target_ids[1:] if item else [])
    return UndoResult(decision=decision, restored=[r for _, r in pairs])
