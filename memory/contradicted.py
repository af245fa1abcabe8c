"""Episodes behind a value declared never true (invariant 65).

Retracting "Lives in Bristol" kills the fact, but the episode it came from ("I live in Bristol")
still says it. Such an episode — the source of one of the user's retracted or rejected facts —
is *contradicted*: agent and evaluation recall drop it from the candidates before fusion, as
they drop the fact itself; explain recall (the CLI's --explain, the desk's recall debugger) keeps
it and names it, so an operator can see what is hidden and why. A rejected fact flagged
`merged_into:` is a duplicate, not a false value: its sources stay.

Only the candidates of one recall are looked up (at most two legs' windows), never the user's
whole history: a store may answer with `contradicted_sources(user_id, episode_ids)` (both
stores do, in one indexed query); otherwise the user's dead facts are listed.
"""

from __future__ import annotations

from collections.abc import Iterable

from .models import PROPOSED_RETRACTION, Fact, FactState, MemoryKind
from .ranking import RankedHit
from .search_config import Purpose
from .stores.base import LegHit, Store

DEAD = frozenset({FactState.RETRACTED, FactState.REJECTED})


def kills_its_sources(fact: Fact) -> bool:
    """A retracted or rejected fact whose value was declared false (not merged away, and no
    proposed retraction: its sources are the user's denial, invariant 591)."""
    return fact.state in DEAD and PROPOSED_RETRACTION not in fact.flags \
        and not any(f.startswith("merged_into:") for f in fact.flags)


def contradicted_episodes(store: Store, user_id: str, episode_ids: Iterable[str]) -> set[str]:
    """Which of these episodes of `user_id` are the source of a never-true fact."""
    wanted = set(episode_ids)
    if not wanted:
        return set()
    return set(store.contradicted_sources(user_id, sorted(wanted)))


def _episode_ids(items: Iterable[LegHit | RankedHit]) -> set[str]:
    return {h.doc.id for h in items if h.doc.kind == MemoryKind.EPISODIC}


def screen(store: Store, user_id: str, purpose: Purpose, legs: dict[str, list],
           hits: list[RankedHit] | None) -> tuple[dict[str, list], list[RankedHit] | None, set[str]]:
    """Drop contradicted episodes from a recall's candidates unless it explains (invariant 65).

    `legs` are the legs' LegHits before fusion, or `hits` the store's already-fused hits (one
    hybrid request). Returns the screened (legs, hits) and the contradicted ids found, which an
    explain recall shows marked instead of dropping."""
    found = _episode_ids(hits) if hits is not None else set().union(
        *(_episode_ids(leg) for leg in legs.values()))
    contra = contradicted_episodes(store, user_id, found)
    if not contra or purpose == Purpose.EXPLAIN:
        return legs, hits, contra
    if hits is not None:
        kept = [h for h in hits if h.doc.id not in contra]
        hits = [h.model_copy(update={"rank": n}) for n, h in enumerate(kept, 1)]
        legs = {name: [h for h in hits if name in h.legs] for name in legs}
        return legs, hits, contra
    return {name: [h for h in leg if h.doc.id not in contra] for name, leg in legs.items()}, None, contra


def filter_counts(contra: set[str], purpose: Purpose) -> list[dict]:
    """The explain view's line for this filter (FilterCount fields)."""
    if purpose == Purpose.EXPLAIN:
        return [{"name": "contradicted", "removed": 0,
                 "detail": f"{len(contra)} candidate episodes are the source of a retracted or "
                           "rejected fact: shown here, marked; agent recall drops them"}]
    return [{"name": "contradicted", "removed": len(contra),
             "detail": "episodes that are the source of a retracted or rejected fact"}]
