"""Putting a fact up for review: a candidate, never an active fact.

A value that restates one of the user's tombstones is not refused here (unlike write_fact) but
queued flagged `previously_rejected`, so an operator sees it with its history and it can never
become active by itself (invariant 44).
"""

from __future__ import annotations

from collections.abc import Iterable

from memory.corrections import tombstone_of
from memory.models import Contradiction, Fact, FactState, FactType, TombstoneKind
from memory.service import MemoryService


def propose(service: MemoryService, user_id: str, text: str, *,
            fact_type: str | FactType = FactType.WORLD, confidence: float = 0.8,
            source_episode_ids: Iterable[str] = (), supersedes_id: str | None = None,
            contradiction: Contradiction | str | None = None, plan_id: str | None = None,
            actor: str = "agent", reason: str | None = None, reader: str | None = None) -> Fact:
    """Write one candidate fact (one batch with its audit event). `reader` names the reader
    and version that proposed it, so the operator's decision is counted for it (invariant 490)."""
    with service.batch(actor, user_id, reason=reason, plan_id=plan_id) as b:
        fact = service.build_fact(b.user_id, text, fact_type=fact_type, confidence=confidence,
                                  state=FactState.CANDIDATE, source_episode_ids=source_episode_ids,
                                  origin=b.actor, plan_id=plan_id, reader=reader)
        service.check_sources(fact.user_id, fact.source_episode_ids)
        if supersedes_id:
            # Scope: the replaced fact must be this user's (invariant 3).
            old = b.owned_fact(supersedes_id, action="propose")
            fact = fact.model_copy(update={
                "supersedes": old.id,
                "contradiction": Contradiction(contradiction or Contradiction.NATURAL)})
        # Flagged by the three-way verdict (review also names the tombstone); a harsh proposal
        # is matched against the value it would retract too (invariant 62).
        dying = ([tombstone_of(old, TombstoneKind.RETRACTED, b.actor, reason, b.now)]
                 if supersedes_id and fact.contradiction == Contradiction.HARSH else [])
        return b.add(fact, on_dead="flag", action="propose_fact", dying=dying)
