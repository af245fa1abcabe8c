"""Pure ranking functions shared by every backend: decay, use-count boost, catalog prior, fusion.

Each retrieval leg's raw score is multiplied by the document's multipliers, the leg is re-ranked
by that adjusted score, and the legs are fused (weighted reciprocal rank fusion, or a weighted sum
of min-max-normalised scores). The Elasticsearch store computes the same per-leg multipliers in
Painless (function_score) and must agree with this file (invariant 17).

After fusion, `adjust` applies what only the question and the candidate set can tell (issue 17):
the user's own earlier questions are not answers, superseded facts are history (wanted when the
question asks about the past), memories dated inside a time the question names are boosted, and a
turn adjacent to a higher-ranked turn of the same session is demoted so the top k is not one
snippet repeated; a turn said by the one person the question names rises below the head
(invariant 142); a question about him or her weighs the catalog less (invariant 193), and one
about the state now weighs episodes less than facts (invariant 193), and so does one in the
simple present (invariant 193); on a question asking when, a memory that says a date or a time
rises (invariant 193); a narrative event question takes no source lifts (invariant 142), and one
asking for an outcome lifts the episode told after the first report (invariant 142); a fact
saying a name weighs less on a question asking for none (invariant 193). It runs on any
backend's fused hits.
"""

from __future__ import annotations

import functools
import heapq
import math
import re
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .clock import as_utc
from .lexical import analyse
from .models import AnyMemory, Episode, Fact, FactState, LegHit, MemoryKind
from .temporal import (
    TimeIntent,
    asks_outcome,
    asks_present,
    asks_simple_present,
    fact_interval,
    narrative_question,
    overlaps,
)

DAY_MS = 86_400_000.0


class RankingParams(BaseModel):
    model_config = ConfigDict(frozen=True)
    rrf_k: int = Field(30, description="RRF rank constant")
    # Defaults chosen on the tuning sets only (LoCoMo conversations 1-5, persona questions.json +
    # questions_tuning.json); docs/benchmarks.md "Recall quality (issue 17)" has the sweeps.
    fusion: Literal["rrf", "score"] = Field(
        "score", description="rrf: sum of weight/(k + rank); score: sum of weight x min-max score")
    bm25_weight: float = Field(1.0, ge=0.0, description="weight of the BM25 leg in fusion")
    dense_weight: float = Field(0.8, ge=0.0, description="weight of the dense leg in fusion")
    bm25_floor: Literal["min", "zero"] = Field(
        "zero", description="score fusion: BM25 normalised from the leg's worst candidate or from 0")
    # Post-fusion multipliers (issue 17; `adjust`). 1.0 switches each off.
    question_weight: float = Field(0.5, ge=0.0, le=1.0,
                                   description="the user's own earlier questions (episodes)")
    superseded_weight: float = Field(1.0, ge=0.0, description="superseded facts, history questions")
    past_weight: float = Field(1.3, ge=0.0, description="superseded facts, 'before/used to' questions")
    window_boost: float = Field(1.3, ge=1.0, description="memories dated inside a named time")
    adjacent_weight: float = Field(1.0, ge=0.0, le=1.0,
                                   description="a turn next to a higher-ranked turn of its session")
    # Second pass (docs/benchmarks.md "Recall quality, second pass"); 1.0 / 0 switch each off.
    source_lift: float = Field(1.1, ge=1.0, description="a fact whose source episode is also a "
                               "candidate (invariant 142; 1.25 -> 1.1 in the third pass, where "
                               "the fact also holds its source's words)")
    chain_lift: float = Field(1.1, ge=1.0, description="history questions: a fact in the same "
                              "supersession chain as another candidate (invariant 142)")
    sourced_weight: float = Field(0.8, ge=0.0, le=1.0, description="an episode one of whose "
                                  "facts is also a candidate: the fact says it, distilled "
                                  "(invariant 142)")
    tail_from: int = Field(0, ge=0, description="beyond this rank the rest is ordered by RRF of "
                           "the legs, not score fusion (invariant 144); 0 = never")
    tail_rrf_k: int = Field(30, ge=1, description="RRF rank constant of the tail order")
    tail_mix: float = Field(1.0, ge=0.0, le=1.0, description="tail order: share of RRF (each "
                            "of RRF and fused score relative to its best in the tail)")
    # Third pass (invariant 154): a weak lexical match leans on the dense leg. None = off.
    weak_dense_weight: float | None = Field(1.6, ge=0.0, description="dense weight when the "
                                            "best BM25 hit holds none of the query's words "
                                            "(3.0 measured with the lexicon, recall6: persona "
                                            "sets up, LoCoMo R@10 -0.7: not adopted)")
    coverage_full: float = Field(0.75, gt=0.0, le=1.0, description="share of the query's words "
                                 "the best BM25 hit must hold for the plain dense weight")
    coverage_hits: int = Field(1, ge=1, description="the BM25 leg's best n hits whose words "
                               "together make the coverage")
    coverage_idf: bool = Field(False, description="coverage weighs each query word by its IDF "
                               "in the user's corpus, when the store tells (invariant 154)")
    coverage_context: bool = Field(True, description="coverage counts the words a hit holds "
                                   "through its context (when the store tells), not only its own")
    # Seventh pass (invariant 154): a distilled memory (fact, playbook, catalog entry) is a
    # short text where BM25 has little evidence, so its dense leg may weigh more than an
    # episode's. None = the episode's weight (off).
    # Fourteenth pass: 1.2 / 3.0 (from None / 2.5) — a sibling fact sharing one word of the
    # question outranked the fact that means it (docs/benchmarks.md, recall14).
    distilled_dense_weight: float | None = Field(1.2, ge=0.0, description="dense weight of a "
                                                 "distilled memory (fact, playbook, catalog) "
                                                 "when the lexical match is full; None = "
                                                 "dense_weight (fourteenth pass: 1.0-1.6 "
                                                 "measured)")
    distilled_weak_dense_weight: float | None = Field(3.0, ge=0.0, description="dense weight "
                                                      "of a distilled memory when the best BM25 "
                                                      "hit holds none of the query's words; "
                                                      "None = weak_dense_weight (seventh pass: "
                                                      "plateau 2.2-3.0, 2.5; fourteenth pass, "
                                                      "with the full weight 1.2: 3.0)")
    # Eighth pass (invariant 154): an event question's answer is most often an episode.
    event_plain_dense: bool = Field(True, description="on an event question (a past-tense "
                                    "narrative, memory.temporal.event_question) distilled "
                                    "memories take the episode's dense weight: invariant 154 "
                                    "does not apply (eighth pass)")
    tense_superseded_weight: float = Field(1.0, ge=0.0, description="a wh-question in the past "
                                           "tense with no other time cue ('Who was their "
                                           "internet provider in Leeds?') makes superseded "
                                           "versions eligible at this weight, without a chain "
                                           "lift (invariant 158; eighth pass); 0 = off")
    # Ninth pass (invariant 193): a question about him or her asks for that person's memories.
    person_catalog_weight: float = Field(0.4, ge=0.0, le=1.0, description="catalog entries on "
                                         "a question that refers to a person in the third "
                                         "person ('Where do her backups go?', "
                                         "memory.ranking.asks_about_person): the catalog holds "
                                         "no one's memories (invariant 193; ninth pass: plateau "
                                         "0.4-0.8, 0.7; fourteenth pass, with invariant 193 "
                                         "and the distilled dense weight 1.2: 0.4); 1.0 = off")
    present_episode_weight: float = Field(0.8, ge=0.0, le=1.0, description="episodes on a "
                                          "question about the present state ('Which editor "
                                          "does he use now?', memory.ranking.asks_present) "
                                          "with no history cue or named time: the active fact "
                                          "is the state now, an episode what was said once "
                                          "(invariant 193; ninth pass); 1.0 = off")
    # Tenth pass (invariant 193): a "when" question is answered by a memory that says a
    # date or a time; a question in the simple present asks about the state now.
    when_dated_lift: float = Field(1.2, ge=1.0, description="a memory whose text says a date, "
                                   "a clock time or a day of the week, on a question asking "
                                   "when ('When is he flying home?', memory.ranking.asks_when): "
                                   "invariant 193; tenth pass: plateau 1.1-1.3; 1.0 = off")
    simple_present_episode_weight: float = Field(0.8, ge=0.0, le=1.0, description="episodes on "
                                                 "a question in the simple present with no "
                                                 "past word, no 'now' cue and no progressive "
                                                 "('Which editor does he use day to day?', "
                                                 "memory.ranking.asks_simple_present): "
                                                 "invariant 193; tenth pass; 1.0 = off")
    # Twelfth pass (invariant 102): a window of a day or a week ("on the 22nd of June", "the
    # last day of August") holds few memories, each much likelier the answer.
    narrow_window_days: int = Field(7, ge=0, description="a named window of at most this many "
                                    "days is narrow (invariant 102)")
    narrow_window_boost: float = Field(3.0, ge=1.0, description="window_boost for a narrow "
                                       "window (invariant 102)")
    narrow_fact_edge: bool = Field(True, description="in a narrow window a fact counts as "
                                   "inside only when it began or ended there (invariant 102)")
    # Thirteenth pass (invariant 142): event questions, the right episode first.
    narrative_plain_source: bool = Field(True, description="on a narrative event question "
                                         "('How did the dinner go?', 'Why ...', 'When did "
                                         "...', memory.temporal.narrative_question) neither "
                                         "source_lift nor sourced_weight applies: the episode "
                                         "tells what happened, its fact a state (invariant 142)")
    outcome_follow_lift: float = Field(1.3, ge=1.0, description="on an event question asking "
                                       "for an outcome or a cause (memory.temporal.asks_outcome)"
                                       " an episode told within `outcome_follow_days` after a "
                                       "higher-ranked head episode that shares a word with it "
                                       "(invariant 142; thirteenth pass: 1.2-1.5 measured); "
                                       "1.0 = off")
    outcome_follow_days: float = Field(7.0, gt=0.0, description="how long after the report an "
                                       "episode still follows it (invariant 142)")
    outcome_follow_top: int = Field(5, ge=1, description="the best n episodes are the reports "
                                    "a later episode may follow (invariant 142)")
    # Fourteenth pass (invariant 193): the fact that says the user's name is a near neighbour of
    # every short question about them in the dense leg, and answers only one.
    name_fact_weight: float = Field(0.6, ge=0.0, le=1.0, description="a fact saying someone's "
                                    "name ('Her name is Maya') on a question that asks for no "
                                    "name (memory.ranking.name_weights, invariant 193; "
                                    "fourteenth pass: 0.8 and 0.6 measured); 1.0 = off")
    # Fourth pass (invariant 158): a history question asks for one version of a fact's chain.
    chain_resolve: float = Field(1.05, ge=0.0, description="history questions: the chain "
                                 "member the question asks for takes its chain's best fused "
                                 "score times this; 0 = off")
    chain_top: int = Field(20, ge=0, description="chains of the best n fused candidates are "
                           "completed from the store (members the legs missed)")
    # Fifth pass (invariant 142): the speaker a question names; chosen on LoCoMo tune.
    speaker_lift: tuple[tuple[int, float], ...] = Field(
        ((5, 1.2), (10, 1.4)), description="(rank, lift) tiers: a turn said by the one speaker the question names "
        "('Name: ...') and ranked below `rank` is lifted by `lift`, but not above the turn at "
        "`rank` (invariant 142); the largest tier applies; () = off")
    decay_offset_days: float = 180.0
    decay_scale_days: float = 1825.0
    decay_at_scale: float = Field(0.5, description="multiplier at offset + scale")
    use_boost_weight: float = 0.2
    catalog_prior: float = Field(0.95, description="catalog documents (measured: issue 17; 0.9 -> 0.95 "
                                 "with the source lift, second pass)")
    use_decay: bool = True
    use_boost: bool = True


class Multipliers(BaseModel):
    decay: float = 1.0
    use_boost: float = 1.0
    prior: float = 1.0
    # issue 17, applied after fusion by `adjust` (1.0 when not applied)
    question: float = 1.0
    time: float = 1.0
    adjacency: float = 1.0
    lift: float = Field(1.0, description="source and history-chain lifts (invariant 142)")

    @property
    def total(self) -> float:
        """The per-leg multipliers (what Elasticsearch's script computes, invariant 17)."""
        return self.decay * self.use_boost * self.prior

    @property
    def post(self) -> float:
        return self.question * self.time * self.adjacency * self.lift


def gauss_decay(age_days: float, params: RankingParams) -> float:
    """Elasticsearch's gauss decay: 1 inside the offset, `decay_at_scale` at offset + scale."""
    distance = max(0.0, abs(age_days) - params.decay_offset_days)
    return math.exp(math.log(params.decay_at_scale) * (distance / params.decay_scale_days) ** 2)


def use_boost(use_count: int, params: RankingParams) -> float:
    return 1.0 + math.log10(1.0 + max(0, use_count)) * params.use_boost_weight


def _multiplier_values(doc: AnyMemory, now_s: float, params: RankingParams) -> tuple[float, float, float]:
    """(decay, use_boost, prior) as plain floats: the hot path of every recall."""
    decay = boost = prior = 1.0
    kind = doc.kind
    if params.use_decay:
        t = doc.decay_time()
        if t is not None:
            decay = gauss_decay((now_s - t.timestamp()) * 1000.0 / DAY_MS, params)
    if params.use_boost and isinstance(doc, Fact):  # facts only (semantic)
        boost = use_boost(doc.use_count, params)
    if kind == MemoryKind.CATALOG:
        prior = params.catalog_prior
    return decay, boost, prior


multiplier_values = _multiplier_values  # public name for the retrieval pipeline


def multipliers(doc: AnyMemory, now: datetime, params: RankingParams) -> Multipliers:
    """Missing fields give 1.0, exactly as the Painless script does."""
    decay, boost, prior = _multiplier_values(doc, as_utc(now).timestamp(), params)
    return Multipliers(decay=decay, use_boost=boost, prior=prior)


class LegRank(BaseModel):
    rank: int
    raw_score: float
    score: float = Field(description="raw score times the multipliers")
    contribution: float = Field(0.0, description="this leg's part of the fused score (before "
                                                  "the post-fusion multipliers): weight/(k + rank) "
                                                  "under RRF, weight x normalised score under "
                                                  "score fusion")


class RankedHit(BaseModel):
    """One fused result with everything needed to explain its position."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    doc: AnyMemory
    rank: int
    fused_score: float
    legs: dict[str, LegRank]
    multipliers: Multipliers
    rerank_score: float | None = None
    session_pos: tuple[str, int] | None = Field(None, description="(session, turn position)")

    @property
    def id(self) -> str:
        return self.doc.id


def term_coverage(query_terms: list[str], doc_terms: list[str],
                  weights: dict[str, float] | None = None) -> float:
    """Share of the query's distinct terms that the document holds (0 for an empty query);
    with `weights` (a term's IDF, invariant 154) each term counts by its weight, so holding only
    the common words of a question is a weak match. A term without a weight counts 1."""
    q = set(query_terms)
    if not q:
        return 0.0
    held = q & set(doc_terms)
    if weights is None:
        return len(held) / len(q)
    total = sum(weights.get(t, 1.0) for t in q)
    return sum(weights.get(t, 1.0) for t in held) / total if total > 0 else 0.0


def adaptive_dense_weight(coverage: float, params: RankingParams) -> float:
    """Dense weight for one query (invariant 154): `weak_dense_weight` when the best lexical
    hit holds none of the query's words, the plain `dense_weight` from `coverage_full` up,
    linear between. A paraphrased question matches the stored words weakly, and then the BM25
    leg's best hit is luck, not evidence; with the feature off (None), always `dense_weight`."""
    weak = params.weak_dense_weight
    if weak is None:
        return params.dense_weight
    share = min(1.0, max(0.0, coverage) / params.coverage_full)
    return weak + (params.dense_weight - weak) * share


DISTILLED = frozenset({MemoryKind.SEMANTIC, MemoryKind.PROCEDURAL, MemoryKind.CATALOG})


def kind_dense_weights(coverage: float, params: RankingParams,
                       event: bool = False) -> RankingParams:
    """This query's dense weights (invariant 154), as params for `fuse_candidates`:
    `dense_weight` (episodes) and `distilled_dense_weight` (facts, playbooks, catalog), each
    between its weak and its full weight by the coverage (`adaptive_dense_weight`). A distilled
    memory is a few words where BM25 has little to hold on to, and a paraphrase misses it
    altogether; an episode is what was said, in the conversation's own words. Without the
    kind-aware fields set, both kinds get the episode weight, as before. On an event question
    (`event`, invariant 154) with `event_plain_dense`, so do distilled memories: what happened
    is told in an episode, and the fact distilled from it must not take its place by meaning
    alone."""
    if params.weak_dense_weight is None:
        return params
    episode = adaptive_dense_weight(coverage, params)
    full_d, weak_d = params.distilled_dense_weight, params.distilled_weak_dense_weight
    if event and params.event_plain_dense:
        return params.model_copy(update={"dense_weight": episode,
                                         "distilled_dense_weight": None,
                                         "distilled_weak_dense_weight": None})
    if full_d is None and weak_d is None:
        return params.model_copy(update={"dense_weight": episode})
    distilled = adaptive_dense_weight(coverage, params.model_copy(update={
        "dense_weight": params.dense_weight if full_d is None else full_d,
        "weak_dense_weight": params.weak_dense_weight if weak_d is None else weak_d}))
    return params.model_copy(update={"dense_weight": episode, "distilled_dense_weight": distilled})


def rrf(ranks: list[int], k: int) -> float:
    return sum(1.0 / (k + r) for r in ranks)


class Candidate:
    """A fused candidate as plain values (a recall fuses ~160 to keep 10): explain objects are
    built only for the hits returned (`Candidate.hit`)."""

    __slots__ = ("best", "doc", "fused", "legs", "mults", "ranked", "session_pos")

    def __init__(self, doc: AnyMemory, fused: float, legs: dict,
                 mults: tuple[float, float, float], session_pos: tuple[str, int] | None, ranked: RankedHit | None = None, best: int = 0) -> None:
        self.doc, self.fused, self.legs, self.mults = doc, fused, legs, mults
        self.session_pos, self.ranked, self.best = session_pos, ranked, best

    @classmethod
    def of(cls, hit: RankedHit) -> Candidate:
        m = hit.multipliers
        return cls(hit.doc, hit.fused_score, hit.legs, (m.decay, m.use_boost, m.prior),
                   getattr(hit, "session_pos", None), ranked=hit,
                   best=min((v.rank for v in hit.legs.values()), default=0))

    def leg_ranks(self) -> dict[str, int]:
        return {name: v.rank if isinstance(v, LegRank) else v[0] for name, v in self.legs.items()}

    def hit(self, rank: int, fused: float | None = None,
            post: tuple[float, ...] = (1.0, 1.0, 1.0, 1.0)) -> RankedHit:
        d, b, p = self.mults
        legs = {name: v if isinstance(v, LegRank) else
                LegRank.model_construct(rank=v[0], raw_score=v[1], score=v[2],
                                        contribution=v[3] if len(v) > 3 else 0.0)
                for name, v in self.legs.items()}
        return RankedHit.model_construct(
            doc=self.doc, rank=rank, fused_score=self.fused if fused is None else fused,
            rerank_score=self.ranked.rerank_score if self.ranked is not None else None,
            session_pos=self.session_pos, legs=legs,
            multipliers=Multipliers.model_construct(decay=d, use_boost=b, prior=p,
                                                    question=post[0], time=post[1],
                                                    adjacency=post[2],
                                                    lift=post[3] if len(post) > 3 else 1.0))


def fuse_candidates(legs: dict[str, list[LegHit]], now: datetime,
                    params: RankingParams) -> list[Candidate]:
    """Adjust each leg by the multipliers, re-rank it, and fuse the legs (RRF or score), best
    first. Plain floats throughout."""
    now_s = as_utc(now).timestamp()
    docs: dict[str, AnyMemory] = {}
    mults: dict[str, tuple[float, float, float]] = {}
    ranks: dict[str, dict[str, tuple[int, float, float]]] = {}
    where: dict[str, tuple[str, int] | None] = {}
    for name, hits in legs.items():
        scored = []
        for order, hit in enumerate(hits):
            i = hit.doc.id
            m = mults.get(i)
            if m is None:
                m = mults[i] = _multiplier_values(hit.doc, now_s, params)
                docs[i] = hit.doc
                where[i] = getattr(hit, "session_pos", None)
            scored.append((-(hit.score * m[0] * m[1] * m[2]), order, hit.score, i))
        # Higher adjusted score first; ties keep the leg's own order.
        scored.sort()
        for rank, (neg, _, raw, i) in enumerate(scored, 1):
            ranks.setdefault(i, {})[name] = (rank, raw, -neg)
    # invariant 154: a distilled memory's dense leg may weigh `distilled_dense_weight`
    dw = (params.dense_weight if params.distilled_dense_weight is None
          else params.distilled_dense_weight)
    by_kind = dw != params.dense_weight
    weights = {"bm25": params.bm25_weight, "dense": 1.0 if by_kind else params.dense_weight}
    if params.fusion == "score":
        parts = _score_fusion(ranks, weights, zero_floor={"bm25"} if params.bm25_floor == "zero"
                              else set())
        if by_kind:
            for i, p in parts.items():
                if "dense" in p:
                    p["dense"] *= dw if docs[i].kind in DISTILLED else params.dense_weight
    else:
        k = params.rrf_k
        parts = {i: {name: weights.get(name, 1.0) / (k + r[0]) for name, r in leg.items()}
                 for i, leg in ranks.items()}
        if by_kind:
            for i, p in parts.items():
                if "dense" in p:
                    w = dw if docs[i].kind in DISTILLED else params.dense_weight
                    p["dense"] = w / (k + ranks[i]["dense"][0])
    fused = {i: sum(p.values()) for i, p in parts.items()}
    for i, leg in ranks.items():  # each leg's share rides along for explain (the debugger)
        for name, r in leg.items():
            leg[name] = (*r, parts[i][name])  # type: ignore[assignment]  # + the leg's share
    out = [Candidate(docs[i], f, ranks[i], mults[i], where[i],
                     best=min(r[0] for r in ranks[i].values())) for i, f in fused.items()]
    # Ties (common with RRF) break on the best single-leg rank, then id, so order is stable.
    out.sort(key=lambda c: (-c.fused, c.best, c.doc.id))
    return out


def fuse(legs: dict[str, list[LegHit]], now: datetime, params: RankingParams,
         limit: int | None = None) -> list[RankedHit]:
    """`fuse_candidates`, as explain objects for the top `limit` (all when None)."""
    cands = fuse_candidates(legs, now, params)
    return [c.hit(n) for n, c in enumerate(cands[:limit] if limit is not None else cands, 1)]


def _score_fusion(ranks: dict[str, dict[str, tuple[int, float, float]]],
                  weights: dict[str, float],
                  zero_floor: frozenset[str] | set[str] = frozenset()
                  ) -> dict[str, dict[str, float]]:
    """Weighted sum of each leg's adjusted score, min-max normalised over that leg's candidates
    (1 = the leg's best, 0 = its worst or absent): a leg's strong single hit keeps its weight
    instead of being outvoted by documents that are mediocre in both legs."""
    span: dict[str, tuple[float, float]] = {}
    for leg in ranks.values():
        for name, (_, _, adj) in leg.items():
            lo, hi = span.get(name, (adj, adj))
            span[name] = (min(lo, adj), max(hi, adj))
    for name in zero_floor & set(span):
        span[name] = (0.0, span[name][1])
    out: dict[str, dict[str, float]] = {}
    for i, leg in ranks.items():
        out[i] = {}
        for name, (_, _, adj) in leg.items():
            lo, hi = span[name]
            out[i][name] = weights.get(name, 1.0) * ((adj - lo) / (hi - lo) if hi > lo else 1.0)
    return out


_QUESTION_START = re.compile(
    r"^(how|what|what's|whats|why|when|where|which|who|whom|whose|is|are|can|could|should|shall|"
    r"do|does|did|any|will|would)\b", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")


@functools.lru_cache(maxsize=65_536)  # pure; recall asks it of the same episodes again and again
def is_question(text: str) -> bool:
    """Is this message mainly a question (the user asking, not telling; invariant 103)? First or last
    sentence ends with a question mark, or it is one sentence that opens like a question."""
    sentences = [s.strip() for s in _SENTENCE.findall(text.strip()) if s.strip()]
    if not sentences:
        return False
    if sentences[0].endswith("?") or sentences[-1].endswith("?"):
        # "Had a great day. Any tips?" is a question; a long story with a trailing "right?" is not
        asked = sum(len(s) for s in sentences if s.endswith("?"))
        return asked * 3 >= sum(len(s) for s in sentences)
    return len(sentences) == 1 and bool(_QUESTION_START.match(sentences[0]))


# Third-person personal pronouns: the question is about a person (the user, asked about by an
# operator or an agent), not about how things work in general (invariant 193). "we" / "our" ask
# about the household's own things ("What breed is our puppy?") the same way (invariant 193);
# not "us", which is also the United States ("my US travel authorisation").
_PERSON = re.compile(r"\b(?:she|he|her|hers|herself|him|his|himself|we|our)\b", re.IGNORECASE)


# A question asking how to do something wants a procedure whoever it is about ("How should she
# reset her bulbs?"); "how did", "how often / many / long" ask about what happened or how much.
# invariant 193: "How does she get to work?" asks what she does (her habit, a fact), not how to
# do it; "How should she ...?", "How do I / we ...?" still ask for a procedure.
_HOW_TO = re.compile(r"^\W*(?:how\s+(?:(?:do|does)(?!\s+(?:she|he|they)\b)|can|could|should|would|"
                     r"to)\b|what\s+should\b|"
                     r"what'?s\s+the\s+(?:best\s+)?way\b|is\s+there\s+a\s+way\b|"
                     r"why\s+(?:does|do|is|won'?t|doesn'?t|isn'?t|can'?t)\b)", re.IGNORECASE)


def asks_about_person(query: str) -> bool:
    """Does the question refer to a person in the third person ("Where do her backups go?",
    "Which editor does he use?") or to the household ("What breed is our puppy?", invariant
    193) without asking how to do something? Pure; "How do I ...?", "What is ...?", "How should
    she reset her bulbs?" and "How do we recover the lights?" do not."""
    return bool(_PERSON.search(query)) and not _HOW_TO.search(query)


def person_weights(cands: list[Candidate], query: str, params: RankingParams,
                   names_user: bool = False) -> list[float]:
    """Invariant 193: on a question about him or her, a catalog entry (general knowledge, no
    one's memory) is multiplied by `person_catalog_weight`; every other candidate by 1. Pure.
    `names_user`: the question names the user ("Was there ever a cat living with Maya?"), which
    refers to a person as "she" does (invariant 193)."""
    w = params.person_catalog_weight
    if w == 1.0 or not query or not (asks_about_person(query) or
                                     (names_user and not _HOW_TO.search(query))):
        return [1.0] * len(cands)
    return [w if c.doc.kind == MemoryKind.CATALOG else 1.0 for c in cands]


# asks_present (invariant 193) and asks_simple_present (invariant 193) live in memory.temporal,
# which also reads them (invariant 158); imported above.


def present_weights(cands: list[Candidate], query: str, intent: TimeIntent,
                    params: RankingParams) -> list[float]:
    """Invariant 193: on a question about the present state that names no time and asks for no
    history, an episode (what was said at one time, maybe since changed) is multiplied by
    `present_episode_weight`; facts, playbooks and catalog by 1. Invariant 193: a question in
    the simple present that is no event question (invariant 154) likewise, by
    `simple_present_episode_weight`. Pure."""
    if not query or intent.history or intent.window is not None:
        return [1.0] * len(cands)
    if asks_present(query):
        w = params.present_episode_weight
    elif not intent.event and asks_simple_present(query):
        w = params.simple_present_episode_weight
    else:
        return [1.0] * len(cands)
    if w == 1.0:
        return [1.0] * len(cands)
    return [w if c.doc.kind == MemoryKind.EPISODIC else 1.0 for c in cands]


# Invariant 193: a question asking when; a memory whose text says a date or a time.
_WHEN = re.compile(r"(?:^|[.?!;]\s*)\W*(?:when|what\s+(?:time|date|day)|how\s+long|until\s+when)\b",
                   re.IGNORECASE)
_MON = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
        r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
# invariant 193: a month with its year ("until February 2028") is a date as much as a day is
_DATED = re.compile(rf"\b(?:{_MON}\s+\d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?"
                    rf"{_MON}|{_MON}\s+\d{{4}})\b|\b\d{{1,2}}(?::\d\d)?\s?(?:am|pm)\b|\b\d{{1,2}}:\d\d\b|"
                    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekends?|"
                    r"weekdays?)s?\b", re.IGNORECASE)


def asks_when(query: str) -> bool:
    """Does one of the question's sentences open by asking when ("When is he flying home?",
    "What time do the blinds open?", "How long is her status valid?")? Pure."""
    return bool(_WHEN.search(query))


@functools.lru_cache(maxsize=65_536)
def says_date(text: str) -> bool:
    """Does the text say a date ("December 18", "19th of August"), a clock time ("6:45",
    "3pm") or a day of the week? Pure. A bare year is not enough (measured: worse)."""
    return bool(_DATED.search(text))


def when_weights(cands: list[Candidate], query: str, params: RankingParams) -> list[float]:
    """Invariant 193: on a question asking when, each candidate whose text says a date, a clock
    time or a day of the week is multiplied by `when_dated_lift` (≥ 1); every other by 1.
    Any kind, any store; nothing added or dropped. Pure."""
    w = params.when_dated_lift
    if w == 1.0 or not query or not asks_when(query):
        return [1.0] * len(cands)
    return [w if says_date(c.doc.search_text()) else 1.0 for c in cands]


# Invariant 193: a fact saying a name, and a question asking for one.
_NAME_FACT = re.compile(r"\bname\s+is\b", re.IGNORECASE)
_ASKS_NAME = re.compile(r"\b(?:names?|named|call|called|who\s+is\s+(?:she|he|this|that))\b",
                        re.IGNORECASE)


def asks_name(query: str) -> bool:
    """Does the question ask what someone or something is called ("What's her name?", "What is
    this user called?", "Who is she?")? Pure."""
    return bool(_ASKS_NAME.search(query))


def name_weights(cands: list[Candidate], query: str, params: RankingParams) -> list[float]:
    """Invariant 193: on a question that asks for no name, a fact saying a name ("Her name is
    Maya", "His name is Ravi and he is a developer") is multiplied by `name_fact_weight`; every
    other candidate by 1. The identity fact is short and about the person, so the dense leg puts
    it near every question about them ("Does Maya have any siblings?"), though it answers only
    what they are called. Pure; nothing added or dropped."""
    w = params.name_fact_weight
    if w == 1.0 or not query or asks_name(query):
        return [1.0] * len(cands)
    return [w if isinstance(c.doc, Fact) and _NAME_FACT.search(c.doc.text) else 1.0
            for c in cands]


def _time_multiplier(doc: AnyMemory, intent: TimeIntent, params: RankingParams) -> float:
    m = 1.0
    if isinstance(doc, Fact) and doc.state == FactState.SUPERSEDED:
        m *= (params.past_weight if intent.past else params.tense_superseded_weight
              if intent.tense_only else params.superseded_weight)
    if intent.window is not None and params.window_boost != 1.0:
        start, end = intent.window
        # invariant 102: a named day or week is a sharper cue than a month or a season
        narrow = (end - start).days <= params.narrow_window_days
        if isinstance(doc, Episode):
            t = doc.timestamp
            inside = start <= t < end
        elif isinstance(doc, Fact):
            span = fact_interval(doc)
            inside = overlaps(span, intent.window)
            if inside and narrow and params.narrow_fact_edge:
                # a fact that merely holds across the day says nothing happened then
                inside = start <= span[0] < end or (span[1] is not None and start <= span[1] < end)
        else:
            inside = False
        if inside:
            m *= params.narrow_window_boost if narrow else params.window_boost
    return m


def lifts(cands: list[Candidate], intent: TimeIntent, params: RankingParams,
          query: str = "") -> list[float]:
    """Per-candidate lift from the rest of the candidate set (pure):

    - source (invariant 142): a fact whose source episode is also a candidate is corroborated by
      what the user said, so it is lifted by `source_lift`;
    - sourced (invariant 142): an episode that is the source of a fact among the candidates is
      multiplied by `sourced_weight` (< 1): the fact is its distilled form, and the place it
      frees in the top k goes to other evidence;
    - chain (invariant 142): on a history question, a fact whose predecessor or successor in its
      supersession chain is also a candidate is lifted by `chain_lift` (the question is about the
      chain, and the current value's match pulls its earlier versions up).

    On a narrative event question (`query`, invariant 142) neither source nor sourced applies:
    what happened is told in the episode, and the fact distilled from it says a state."""
    # invariant 158: a question made history by its tense alone names no chain to lift
    src = params.source_lift
    chain = params.chain_lift if intent.history and not intent.tense_only else 1.0
    sw = params.sourced_weight
    if params.narrative_plain_source and intent.event and query and narrative_question(query):
        src = sw = 1.0  # invariant 142
    if src == 1.0 and chain == 1.0 and sw == 1.0:
        return [1.0] * len(cands)
    ids = {c.doc.id for c in cands}
    sourced = {e for c in cands if isinstance(c.doc, Fact) for e in c.doc.source_episode_ids} \
        if sw != 1.0 else set()
    out = []
    for c in cands:
        m = 1.0
        doc = c.doc
        if doc.id in sourced:
            m *= sw
        if isinstance(doc, Fact):
            if src != 1.0 and any(e in ids for e in doc.source_episode_ids):
                m *= src
            if chain != 1.0 and ((doc.supersedes is not None and doc.supersedes in ids)
                                 or (doc.superseded_by is not None and doc.superseded_by in ids)):
                m *= chain
        out.append(m)
    return out


def _matches(terms: list[str], doc: Fact) -> float:
    """Share of a named value's words (an anchor: "the Homey") the fact's text holds."""
    return term_coverage(terms, analyse(doc.text)) if terms else 0.0


def _named(chain: list[Fact], text: str) -> int | None:
    """The chain member a phrase names (most of its words in the fact's text; ties: earliest,
    where the named value began), or None."""
    terms = analyse(text)
    scores = [_matches(terms, f) for f in chain]
    best = max(scores, default=0.0)
    return scores.index(best) if best >= 0.5 else None


def chain_order(facts: list[Fact]) -> list[list[Fact]]:
    """Group facts into supersession chains (linked by `supersedes` / `superseded_by` among
    them), each oldest first; chains of one are left out."""
    by_id = {f.id: f for f in facts}
    seen: set[str] = set()
    out = []
    for f in facts:
        if f.id in seen:
            continue
        head = f
        guard = 0
        while head.supersedes in by_id and guard < len(by_id):
            head, guard = by_id[head.supersedes], guard + 1
        chain = [head]
        seen.add(head.id)
        while chain[-1].superseded_by in by_id and chain[-1].superseded_by not in seen:
            nxt = by_id[chain[-1].superseded_by]
            chain.append(nxt)
            seen.add(nxt.id)
        if len(chain) > 1:
            out.append(chain)
    return out


def chain_targets(chain: list[Fact], intent: TimeIntent) -> list[int]:
    """Which members of one chain (oldest first) a history question asks for (invariant 158):

    - "how many times ... changed": all of them;
    - "before X" / "until X" naming a member: the member before it;
    - "between A and B": the member after A;
    - "the first / original ...", "at first", "started with": the oldest;
    - a named time: the member valid at its end for "before June", else the one overlapping it
      most;
    - another past cue ("before she moved", "her old ..."): the member before the newest;
    - otherwise (only "when", "back in"): none, the ranking decides."""
    if intent.order == "all":
        return list(range(len(chain)))
    if intent.anchor:
        i = _named(chain, intent.anchor)
        if i is not None:
            return [i - 1] if i > 0 else []
    if intent.between:
        i = _named(chain, intent.between[0])
        if i is not None and i + 1 < len(chain):
            return [i + 1]
    if intent.order == "first":
        return [0]
    if intent.window is not None:
        start, end = intent.window
        spans = [fact_interval(f) for f in chain]
        if intent.anchor:  # "before August": the state just before the named time
            at = [n for n, (s, e) in enumerate(spans) if s < end and (e is None or e >= end)]
            if at:
                return at[-1:]
        cover = [(min(end, e or end) - max(start, s)).total_seconds() for s, e in spans]
        best = max(cover)
        if best > 0:
            return [cover.index(best)]
    if intent.past:
        return [len(chain) - 2]
    return []


def chain_floor(cands: list[Candidate], scores: list[float], intent: TimeIntent,
                params: RankingParams) -> list[float]:
    """Per candidate, the score its chain lends it (0 = none; invariant 158, pure): on a history
    question the member the question asks for takes the best score (`scores`: fused, times the
    lifts) of its chain times `chain_resolve`, and keeps its own question and time multipliers. The question's words match whichever version says them ("hub", "Homey"),
    and the version asked for is often another one."""
    if not intent.history or params.chain_resolve <= 0:
        return [0.0] * len(cands)
    facts = [c.doc for c in cands if isinstance(c.doc, Fact)
             and (c.doc.supersedes is not None or c.doc.superseded_by is not None)]
    floor = [0.0] * len(cands)
    if len(facts) < 2:
        return floor
    at = {c.doc.id: n for n, c in enumerate(cands)}
    for chain in chain_order(facts):
        best = max(scores[at[f.id]] for f in chain)
        for t in chain_targets(chain, intent):
            floor[at[chain[t].id]] = best * params.chain_resolve
    return floor


_SPEAKER = re.compile(r"^\s*([^\W\d_][\w'’.-]*(?: [^\W\d_][\w'’.-]*){0,2})\s*:\s", re.UNICODE)


@functools.lru_cache(maxsize=65_536)  # pure; asked of the same episodes again and again
def speaker_of(text: str) -> str | None:
    """The speaker of a "Name: what was said" turn (up to three words before the colon, each
    written as a name: opening with a letter, not a lower-case one), lower-cased; None for text
    without that prefix ("I said: come home" has none)."""
    m = _SPEAKER.match(text)
    if m is None or any(w[0].islower() for w in m.group(1).split()):
        return None
    return m.group(1).casefold()


_WORD = re.compile(r"[^\W_][\w'’.-]*")


def named_speakers(query: str) -> frozenset[str]:
    """The runs of up to three words of the question that could name someone, lower-cased: each
    word written as a name is (not opening lower-case: "Caroline", "Jon's"; a caseless script
    counts), so "what was the update" does not name the "Update: ..." turns."""
    words = [w.rstrip(".'’-") for w in _WORD.findall(query)]
    words = [w[:-2] if w.endswith(("'s", "’s")) else w for w in words if w]
    out: set[str] = set()
    for i in range(len(words)):
        for n in (1, 2, 3):
            run = words[i:i + n]
            if len(run) < n or any(w[0].islower() for w in run):
                break
            out.add(" ".join(run).casefold())
    return frozenset(out)


def speaker_lifts(cands: list[Candidate], query: str, params: RankingParams,
                  scores: list[float]) -> list[float]:
    """Invariant 142 (pure): a turn whose speaker the question names ("What did Caroline paint?")
    is lifted — the answer is in what that person said, while the other person's turns name
    them too ("Caroline, that's lovely"). Only when the question names exactly one of the
    candidates' speakers: naming both, or none, says nothing about who said it. Each tier
    (rank, lift) lifts the turns ranked below `rank` (by `scores`) by up to `lift`, never past
    the turn at `rank`: the head is decided by what was said, and a question that names the
    wrong person (LoCoMo's adversarial questions) keeps its best matches; deeper, where the
    words match weakly, who said it is good evidence."""
    if not params.speaker_lift or not query:
        return [1.0] * len(cands)
    who = [speaker_of(c.doc.text) if isinstance(c.doc, Episode) else None for c in cands]
    asked = named_speakers(query) & {w for w in who if w}
    if len(asked) != 1:
        return [1.0] * len(cands)
    out = [1.0] * len(cands)
    order = sorted(range(len(cands)), key=lambda n: -scores[n])
    place = {n: r for r, n in enumerate(order, 1)}
    for head, lift in params.speaker_lift:
        cap = scores[order[head - 1]] if 0 < head <= len(order) else math.inf
        for n, w in enumerate(who):
            if w in asked and place[n] > head and scores[n] > 0:
                out[n] = max(out[n], min(lift, cap * (1 - 1e-9) / scores[n]))
    return out


def follow_lifts(cands: list[Candidate], query: str, intent: TimeIntent, params: RankingParams,
                 scores: list[float]) -> list[float]:
    """Invariant 142 (pure): on an event question asking for an outcome or a cause
    (`memory.temporal.asks_outcome`), an episode told after one of the best
    `outcome_follow_top` episodes (by `scores`), within `outcome_follow_days`, ranked below it
    and sharing an analysed word with it, is multiplied by `outcome_follow_lift`. The first
    report of a problem or a plan matches the question best ("CI timing out again ... still
    broken"), and what came of it is told after ("Turned out it was a deadlock"). Nothing is
    demoted, added or dropped; facts, playbooks and catalog are never lifted."""
    w = params.outcome_follow_lift
    if w == 1.0 or not query or not intent.event or not asks_outcome(query):
        return [1.0] * len(cands)
    episode = {n: c.doc for n, c in enumerate(cands) if isinstance(c.doc, Episode)}
    eps = sorted(episode, key=lambda n: -scores[n])
    head = eps[:params.outcome_follow_top]
    if not head:
        return [1.0] * len(cands)
    span = params.outcome_follow_days * 86_400.0
    words = {n: set(analyse(episode[n].text)) for n in head}
    out = [1.0] * len(cands)
    for n in eps:
        t = episode[n].timestamp
        mine: set[str] | None = None
        for h in head:
            ht = episode[h].timestamp
            if h == n or scores[h] <= scores[n] or not ht < t \
                    or (t - ht).total_seconds() > span:
                continue
            if mine is None:
                mine = set(analyse(episode[n].text))
            if mine & words[h]:
                out[n] = w
                break
    return out


def tail_rrf(c: Candidate, params: RankingParams) -> float:
    """The tail's order (invariant 144): weighted RRF of the candidate's leg ranks."""
    w = {"bm25": params.bm25_weight, "dense": params.dense_weight}
    k = params.tail_rrf_k
    return sum(w.get(name, 1.0) / (k + r) for name, r in c.leg_ranks().items())


def adjust(hits: list[RankedHit] | list[Candidate], intent: TimeIntent, params: RankingParams,
           limit: int | None = None, query: str = "", names_user: bool = False) -> list[RankedHit]:
    """Post-fusion multipliers, lifts and session diversification (see the module doc), re-ranked.

    Greedy: the best remaining hit is taken next; a hit whose session neighbour (one position
    away) is already taken has its score multiplied by `adjacent_weight` when it comes up.
    Beyond `tail_from` the rest is ordered by RRF of the legs times the same multipliers
    (invariant 144): deep in the list a score gap says little, agreement of the legs more."""
    cands = [h if isinstance(h, Candidate) else Candidate.of(h) for h in hits]
    heap: list[tuple[float, int, float, float, float]] = []
    qw = params.question_weight
    lift = lifts(cands, intent, params, query)
    if params.person_catalog_weight != 1.0 and query:  # invariant 193
        lift = [a * b for a, b in zip(lift, person_weights(cands, query, params, names_user),
                                      strict=True)]
    if query:  # invariant 193
        lift = [a * b for a, b in zip(lift, present_weights(cands, query, intent, params),
                                      strict=True)]
    if params.when_dated_lift != 1.0 and query:  # invariant 193
        lift = [a * b for a, b in zip(lift, when_weights(cands, query, params), strict=True)]
    if params.name_fact_weight != 1.0 and query:  # invariant 193
        lift = [a * b for a, b in zip(lift, name_weights(cands, query, params), strict=True)]
    qs = [qw if (qw != 1.0 and isinstance(c.doc, Episode) and is_question(c.doc.text))
          else 1.0 for c in cands]
    ts = [_time_multiplier(c.doc, intent, params) if intent.any else 1.0 for c in cands]
    if params.outcome_follow_lift != 1.0 and query and intent.event:  # invariant 142
        fl = follow_lifts(cands, query, intent, params,
                          [c.fused * q * t * lf for c, q, t, lf in zip(cands, qs, ts, lift, strict=True)])
        lift = [a * b for a, b in zip(lift, fl, strict=True)]
    if params.speaker_lift and query:  # invariant 142, over the scores with every other multiplier
        sl = speaker_lifts(cands, query, params,
                           [c.fused * q * t * lf for c, q, t, lf in zip(cands, qs, ts, lift, strict=True)])
        lift = [a * b for a, b in zip(lift, sl, strict=True)]
    for n, c in enumerate(cands):
        heap.append((-(c.fused * qs[n] * ts[n] * lift[n]), n, qs[n], ts[n], lift[n]))
    floor = chain_floor(cands, [c.fused * lf for c, lf in zip(cands, lift, strict=True)],
                        intent, params)
    for n, lend in enumerate(floor):
        neg, _, q, t, lf = heap[n]
        if lend * q * t > -neg:  # invariant 158: the member asked for; the rise counts as a lift
            heap[n] = (-(lend * q * t), n, q, t,
                       lend / cands[n].fused if cands[n].fused > 0 else lf)
    heapq.heapify(heap)
    taken: set[tuple[str, int]] = set()
    out: list[RankedHit] = []
    want = len(cands) if limit is None else min(limit, len(cands))
    head = want if params.tail_from <= 0 else min(want, params.tail_from)
    demoted: set[int] = set()
    used: set[int] = set()
    adjacent = params.adjacent_weight
    while heap and len(out) < head:
        neg, n, q, t, lf = heapq.heappop(heap)
        sp = cands[n].session_pos
        if (adjacent != 1.0 and sp is not None and n not in demoted
                and ((sp[0], sp[1] - 1) in taken or (sp[0], sp[1] + 1) in taken)):
            demoted.add(n)
            heapq.heappush(heap, (neg * adjacent, n, q, t, lf))
            continue
        if sp is not None:
            taken.add(sp)
        used.add(n)
        out.append(cands[n].hit(len(out) + 1, -neg, (q, t, adjacent if n in demoted else 1.0, lf)))
    if len(out) < want:
        left = [(neg, n, q, t, lf) for neg, n, q, t, lf in heap if n not in used]
        r = [tail_rrf(cands[n], params) * q * t * lf for _, n, q, t, lf in left]
        f = [-neg for neg, *_ in left]
        rt, ft, mix = max(r, default=0.0) or 1.0, max(f, default=0.0) or 1.0, params.tail_mix
        rest = sorted((-(mix * r[j] / rt + (1.0 - mix) * f[j] / ft), cands[n].best,
                       cands[n].doc.id, n, q, t, lf, neg)
                      for j, (neg, n, q, t, lf) in enumerate(left))
        for _, _, _, n, q, t, lf, neg in rest[:want - len(out)]:
            out.append(cands[n].hit(len(out) + 1, -neg, (q, t, 1.0, lf)))
    return out
