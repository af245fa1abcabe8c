"""Putting a fact up for review: a candidate, never an active fact.

A value that restates (or may restate) one of the user's tombstones is not refused here (unlike
write_fact) but queued flagged `previously_rejected` (plus `possibly_restates:<tombstone id>`
for a doubtful one), so an operator sees it with its history and it can never
become active by itself (invariant 44).
"""

from __future__ import annotations

from collections.abc import Iterable

from memory.errors import ValidationError
from memory.models import (
    Contradiction,
    Fact,
    FactState,
    FactType,
    MemoryKind,
    TombstoneKind,
    check_actor,
)
from memory.service import MemoryService, audit_event
from memory.stores.base import AppendAudit, PutMemory


def propose(service: MemoryService, user_id: str, text: str, *,
            fact_type: str | FactType = FactType.WORLD, confidence: float = 0.8,
            source_episode_ids: Iterable[str] = (), supersedes_id: str | None = None,
            contradiction: Contradiction | str | None = None, plan_id: str | None = None,
            actor: str = "agent", reason: str | None = None) -> Fact:
    """Write one candidate fact (one batch with its audit event)."""
    try:
        actor = check_actor(actor)
    except ValueError as exc:
        raise ValidationError(str(exc)) from None
    fact = service.build_fact(user_id, text, fact_type=fact_type, confidence=confidence,
                              state=FactState.CANDIDATE, source_episode_ids=source_episode_ids,
                              origin=actor, plan_id=plan_id)
    service.check_sources(fact.user_id, fact.source_episode_ids)
    changes: dict = {}
    if supersedes_id:
        # Scope: the replaced fact must be this user's (invariant 3 via service.owned).
        old = service.owned(fact.user_id, MemoryKind.SEMANTIC, supersedes_id, actor=actor,
                            action="propose")
        changes.update(supersedes=old.id,
                       contradiction=Contradiction(contradiction or Contradiction.NATURAL))
    # issue 11: flagged by the three-way verdict (review also names the tombstone); a harsh
    # proposal is matched against the value it would retract too (invariant 62).
    dying = ([service.tombstone_for(old, TombstoneKind.RETRACTED, actor, reason)]
             if supersedes_id and changes["contradiction"] == Contradiction.HARSH else [])
    verdict = service.tombstone_verdict(fact.user_id, fact.text, pending=dying)
    if verdict.flags():
        changes["flags"] = [*fact.flags, *verdict.flags()]
    if changes:
        fact = Fact.model_validate({**fact.model_dump(), **changes})
    service.store.apply([PutMemory(doc=fact), AppendAudit(event=audit_event(
        actor, fact.user_id, "propose_fact", targets=[fact.id], after=fact, reason=reason,
        plan_id=plan_id, at=fact.recorded_at))])
    return fact
