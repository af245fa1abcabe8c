"""A proposed retraction (issue 28): the user may have said a fact on record was never true, and
nobody is sure enough to retract it. Pure: what the proposal record is, how it is recognised,
and when it no longer applies. Written by review.propose (the agent's tool) and by
consolidation's apply; decided by review.decisions (invariants 590-593).

The proposal is a candidate fact, so it is a review item like any other (scope, revision,
leases, audit), told apart by its flag: `supersedes` names the fact it would retract, its text
is that fact's text, `contradiction` is harsh, its sources are the user's words. It never
becomes active: deciding it retracts the target (or keeps it) and closes the proposal as
rejected, with no tombstone of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Protocol

from .models import PROPOSED_RETRACTION, Contradiction, Fact, FactState

# The target's state when proposed, as a flag: a target that moved on since makes it stale.
TARGET_STATE = "target_state:"
APPLIED = "retraction_applied"  # closed: the operator retracted the target
DECLINED = "retraction_declined"  # closed: the operator kept the target as it is
MOVED_ON = "target_moved_on"  # closed by keep after the target changed (no label, inv. 591)
BELIEVED = (FactState.ACTIVE, FactState.SUPERSEDED)
# A forget event's note on a proposal forgotten with its fact (it holds the fact's text).
RETRACTION_OF = "retraction_of"  # what a user can deny having said


class Flagged(Protocol):
    """A fact or its listing summary: enough to tell a proposed retraction."""

    @property
    def flags(self) -> Sequence[str]: ...
    @property
    def supersedes(self) -> str | None: ...
    @property
    def state(self) -> str: ...


def is_proposal(fact: Flagged) -> bool:
    return PROPOSED_RETRACTION in fact.flags


def proposal(target: Fact, *, now: datetime, confidence: float, origin: str,
             source_episode_ids: Iterable[str] = (), plan_id: str | None = None,
             reader: str | None = None, fact_id: str | None = None) -> Fact:
    """The candidate that proposes retracting `target` (invariant 591)."""
    extra = {"id": fact_id} if fact_id else {}
    return Fact(**extra, user_id=target.user_id, text=target.text, fact_type=target.fact_type,
                confidence=confidence, state=FactState.CANDIDATE,
                source_episode_ids=list(dict.fromkeys(source_episode_ids)),
                supersedes=target.id, contradiction=Contradiction.HARSH, recorded_at=now,
                origin=origin, plan_id=plan_id, reader=reader,
                flags=[PROPOSED_RETRACTION, f"{TARGET_STATE}{target.state.value}"])


def pending_for(facts: Iterable[Flagged], target_id: str) -> Flagged | None:
    """The proposal already waiting to retract `target_id`, if any: one per target (inv. 590)."""
    return next((f for f in facts if str(f.state) == FactState.CANDIDATE.value
                 and is_proposal(f) and f.supersedes == target_id), None)


def stale_reason(item: Fact, target: Fact | None) -> str | None:
    """Why a proposal no longer applies (its target was forgotten, or retracted, superseded or
    rejected since it was proposed), or None (invariant 591)."""
    if target is None:
        return f"the fact it would retract ({item.supersedes}) no longer exists"
    was = next((f.removeprefix(TARGET_STATE) for f in item.flags if f.startswith(TARGET_STATE)),
               FactState.ACTIVE.value)
    if target.state.value != was or target.state not in BELIEVED:
        return (f"the fact it would retract, “{target.text}”, is {target.state.value} now "
                f"(it was {was} when proposed)")
    return None
