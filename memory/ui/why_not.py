""""Why not?" for the recall debugger: where one memory of the user stands for a query and a
config — which filter removed it, or its rank in each leg and after fusion, and its multipliers
(invariant 85). The verdict is a pure function of recalls the service ran (Purpose.EXPLAIN:
read-only, invariant 15)."""

from __future__ import annotations

from pydantic import BaseModel

from ..errors import NotFoundError
from ..models import Fact, FactState, Memory, MemoryKind
from ..ranking import Multipliers, RankedHit
from ..search_config import Purpose, RecallConfig
from ..service import MemoryService
from .recall_views import hit_state
from .views import memory_text

WIDE = 200  # the most hits one recall returns (RecallConfig.k's bound)


class LegStanding(BaseModel):
    leg: str
    rank: int | None  # in the leg's candidate window, after the multipliers (as fused)
    raw_score: float | None = None
    note: str


class WhyNot(BaseModel):
    memory_id: str
    text: str
    kind: str
    state: str
    removed_by: str | None = None  # the filter that removed it before ranking
    legs: list[LegStanding] = []
    multipliers: Multipliers | None = None
    final_rank: int | None = None
    k: int
    verdict: str


def removed_by(doc: Memory, config: RecallConfig) -> tuple[str, str] | None:
    """The recall filter that removes this memory before any leg sees it, with why. Pure."""
    if doc.kind not in config.kinds:
        return "kind", f"{doc.kind.value} memories are not asked for by this recall"
    if isinstance(doc, Fact) and doc.state not in config.fact_states():
        why = {FactState.CANDIDATE: "candidates wait in review and never reach recall",
               FactState.SUPERSEDED: "superseded facts reach recall only with "
                                     "“include superseded” on",
               FactState.RETRACTED: "retracted facts were never true and never reach recall",
               FactState.REJECTED: "rejected facts were never true and never reach recall"}
        return f"state:{doc.state.value}", why[doc.state]
    return None


def verdict(doc: Memory, config: RecallConfig, legs: dict[str, tuple[list[RankedHit], list[RankedHit]]],
            final: list[RankedHit]) -> WhyNot:
    """Assemble the answer from the recalls: per leg (its exact candidate window, a wide window
    for a position outside it), then the whole recall widened to 200. Pure."""
    base = {"memory_id": doc.id, "text": memory_text(doc), "kind": doc.kind.value,
            "state": hit_state(doc), "k": config.k}
    cut = removed_by(doc, config)
    if cut is not None:
        name, why = cut
        return WhyNot(**base, removed_by=name, verdict=f"Removed before ranking by the {name} "
                                                       f"filter: {why}.")
    standings, mults = [], None
    for leg, (window, wide) in legs.items():
        mine = next((h for h in window if h.id == doc.id), None)
        if mine is not None:
            lr = mine.legs[leg]
            mults = mine.multipliers
            standings.append(LegStanding(leg=leg, rank=lr.rank, raw_score=lr.raw_score,
                                         note=f"rank {lr.rank} of {len(window)} candidates"))
            continue
        far = next((h for h in wide if h.id == doc.id), None)
        if far is not None:
            mults = far.multipliers
            note = (f"outside the {config.candidates}-candidate window (about rank "
                    f"{far.legs[leg].rank} when the window is widened)")
        elif len(wide) < WIDE and leg == "bm25":
            note = "no query term matches it"
        else:
            note = f"outside the {config.candidates}-candidate window (beyond rank {len(wide)})"
        standings.append(LegStanding(leg=leg, rank=None, note=note))
    mine = next((h for h in final if h.id == doc.id), None)
    if mine is not None:
        mults = mine.multipliers
    rank = mine.rank if mine else None
    if rank is not None and rank <= config.k:
        text = f"It is in the results at rank {rank} of {config.k}."
    elif rank is not None:
        text = (f"Ranked {rank} after fusion, below the cut at k = {config.k}: raise k or "
                "look at what outranks it.")
    elif not standings:
        text = "No retrieval leg is switched on."
    else:
        text = "Not among any leg's candidates, so never fused: " + "; ".join(
            f"{s.leg}: {s.note}" for s in standings) + "."
    return WhyNot(**base, legs=standings, multipliers=mults, final_rank=rank, verdict=text)


def find_memory(svc: MemoryService, user_id: str, memory_id: str) -> Memory:
    """One of this user's memories in any state (facts, episodes, playbooks), by id."""
    for kind in (MemoryKind.SEMANTIC, MemoryKind.EPISODIC, MemoryKind.PROCEDURAL):
        doc = svc.store.get(kind, user_id, memory_id)
        if doc is not None:
            return doc
    raise NotFoundError(f"no memory {memory_id} for user {user_id}", target_id=memory_id)


def why_not(svc: MemoryService, user_id: str, memory_id: str, query: str,
            config: RecallConfig) -> WhyNot:
    """Run the recalls the verdict needs, all read-only, and return it."""
    doc = find_memory(svc, user_id, memory_id)
    legs: dict[str, tuple[list[RankedHit], list[RankedHit]]] = {}
    if removed_by(doc, config) is None:
        for leg in ("bm25", "dense"):
            if not getattr(config, f"use_{leg}"):
                continue
            one = {"use_bm25": leg == "bm25", "use_dense": leg == "dense", "rerank": "none"}
            window = svc.recall(user_id, query, purpose=Purpose.EXPLAIN, config=config.model_copy(
                update={**one, "k": min(WIDE, config.candidates)})).hits
            wide = svc.recall(user_id, query, purpose=Purpose.EXPLAIN, config=config.model_copy(
                update={**one, "k": WIDE, "candidates": max(WIDE, config.candidates)})).hits
            legs[leg] = (window, wide)
    final = svc.recall(user_id, query, purpose=Purpose.EXPLAIN,
                       config=config.model_copy(update={"k": WIDE})).hits if legs else []
    return verdict(doc, config, legs, final)


def memory_choices(svc: MemoryService, user_id: str, needle: str, limit: int = 50) -> dict[str, str]:
    """This user's memories (facts in every state, episodes, playbooks) whose id is the needle or
    whose text contains it, casefolded: {id: "[state] text"} for the why-not picker."""
    needle = needle.strip().casefold()
    if not needle:
        return {}
    out: dict[str, str] = {}
    docs = [*svc.facts(user_id), *svc.playbooks(user_id), *svc.episodes(user_id)]
    for doc in docs:
        text = memory_text(doc)
        if doc.id.casefold() == needle or needle in text.casefold():
            out[doc.id] = f"[{hit_state(doc)}] {text}"
            if len(out) >= limit:
                break
    return out
