"""Putting a fact up for review: a candidate, never an active fact.

A value that restates one of the user's tombstones is not refused here (unlike write_fact) but
queued flagged `previously_rejected`, so an operator sees it with its history and it can never
become active by itself (invariant 44).
"""

from __future__ import annotations

from collections.abc import Iterable

from memory import retractions
from memory.corrections import tombstone_of
from memory.errors import ValidationError
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


def propose_retraction(service: MemoryService, user_id: str, target_id: str, *,
                       confidence: float, source_episode_ids: Iterable[str] = (),
                       actor: str = "agent", reason: str | None = None,
                       reader: str | None = None) -> tuple[Fact, bool]:
    """Put retracting one believed fact of the user up for review (invariant 590): the
    proposal and whether it is new. A proposal already waiting for the same fact is returned
    as it is: one per fact, its evidence unchanged (nothing written, nothing audited)."""
    with service.batch(actor, user_id, reason=reason) as b:
        target = b.owned_fact(target_id, action="propose_retraction")  # scope (invariant 3)
        if target.state not in retractions.BELIEVED:
            raise ValidationError(f"{target.id} is {target.state.value}: only a believed fact "
                                  "(active or superseded) can be proposed for retraction")
        waiting = retractions.pending_for(
            service.store.list_facts(b.user_id, states={FactState.CANDIDATE}), target.id)
        if isinstance(waiting, Fact):
            return waiting, False
        fact = retractions.proposal(target, now=b.now, confidence=confidence, origin=b.actor,
                                    source_episode_ids=source_episode_ids, reader=reader)
        service.check_sources(fact.user_id, fact.source_episode_ids)
        # Its text is the target's, believed now: it restates no dead value and proposes
        # none, so the tombstone gate has nothing to say about it (invariant 591).
        return b.add(fact, on_dead="allow", action="propose_retraction"), True
