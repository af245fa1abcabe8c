"""Planner: read one user's store, make one extraction call, run the gates, return a Plan.

`make_plan` does the reading (through MemoryService and its store's read verbs) and the single
model call; `decide` is pure: plain values in, a Plan out, so every gate is testable without a
store. Nothing here writes: a failed run (model error, malformed output) leaves the episodes
and the watermark untouched (invariant 37).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import datetime

import numpy as np
from pydantic import BaseModel, ConfigDict

from .. import forgetting, retractions
from ..corrections import bumped as bump
from ..models import (
    Contradiction,
    Episode,
    Fact,
    FactState,
    MemoryKind,
    Playbook,
)
from ..policy import ReviewPolicy
from ..readers import reader_version
from ..service import MemoryService
from ..slots import kind_of, kinds_in, slot_key
from ..stores.base import RecallFilter
from ..text import content_terms as content_tokens
from ..text import normalise, require_user
from ..values import Decision, Verdict, judge_pair
from . import gates
from .extract import (
    EpisodeView,
    ExtractedDenial,
    ExtractedFact,
    ExtractedFeedback,
    ExtractedPlaybook,
    Extraction,
    ExtractionInput,
    Extractor,
    FactView,
    PlaybookView,
    Usage,
)
from .held import held_ops
from .plan import (
    WATERMARK,
    GateDecision,
    OpKind,
    Plan,
    PlanOp,
    parse_watermark,
    stable_id,
)

CONTEXT_EPISODES = 5  # earlier episodes shown as context (not evidence for new facts)
NEIGHBOURS = 5  # nearest existing facts (every state) per extracted fact
SHOWN_PER_EPISODE = 4  # active facts shown to the extractor per new episode
MAX_SHOWN = 150
PROFILE_SLOTS = {"home", "name", "job", "employer", "diet", "contact", "age",
                 "pronouns"}
ALL_STATES = frozenset(FactState)
# A proposed retraction's confidence: the extractor gives a denial none, and consolidation is
# never sure enough to retract (invariant 34); the proposal is a retraction item whatever it is.
DENIAL_CONFIDENCE = 0.5


class PlanInputs(BaseModel):
    """Everything `decide` needs, read before (extraction input) and after (lookups)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    user_id: str
    now: datetime
    watermark_before: str | None
    new_episodes: list[Episode]
    context_episodes: list[Episode]
    assistant_context: list[str]
    shown_facts: list[Fact]
    playbooks: list[Playbook]
    tombstone_ids: list[str]
    # playbook ops declined by an earlier apply, offered again (invariant 456), and which of
    # their evidence episodes still exist
    held: list[PlanOp] = []
    held_evidence: list[str] = []
    # filled after extraction, keyed by normalised fact text / fact id
    neighbours: dict[str, list[tuple[Fact, float]]] = {}
    tombstones: dict[str, Verdict | None] = {}
    owned: dict[str, Fact | None] = {}
    forgotten: dict[str, datetime] = {}  # when a value was forgotten (invariant 177)
    # fact id -> the proposal already waiting to retract it (invariant 590)
    pending_retractions: dict[str, str] = {}

    def request(self) -> ExtractionInput:
        eps = [EpisodeView(id=e.id, text=e.text, timestamp=e.timestamp, session_id=e.session_id,
                           new=False) for e in self.context_episodes]
        eps += [EpisodeView(id=e.id, text=e.text, timestamp=e.timestamp, session_id=e.session_id)
                for e in self.new_episodes]
        return ExtractionInput(
            today=self.now.date(), episodes=eps, assistant_context=self.assistant_context,
            facts=[FactView(id=f.id, text=f.text, fact_type=f.fact_type, state=f.state.value,
                            valid_from=f.valid_from.date() if f.valid_from else None)
                   for f in self.shown_facts],
            playbooks=[PlaybookView(id=p.id, name=p.name, trigger=p.trigger, steps=p.steps)
                       for p in self.playbooks])


# --- reading ---------------------------------------------------------------------------------
def gather(svc: MemoryService, user_id: str, *, assistant_context: Iterable[str] = (),
           now: datetime | None = None) -> PlanInputs:
    user = require_user(user_id)
    store = svc.store
    watermark = store.get_watermark(user, WATERMARK) or None
    episodes = svc.episodes(user)
    said, stored = parse_watermark(watermark)
    # New: said after the watermark, or stored after it (a back-dated message still counts).
    new = [e for e in episodes if said is None or e.timestamp > said
           or (stored is not None and e.recorded_at > stored)]
    seen = {e.id for e in new}
    older = [e for e in episodes if e.id not in seen]
    held = held_ops(store, user)
    have = {e.id for e in episodes}
    return PlanInputs(
        user_id=user, now=now or svc.clock(), watermark_before=watermark, new_episodes=new,
        context_episodes=older[-CONTEXT_EPISODES:], assistant_context=list(assistant_context),
        shown_facts=_shown_facts(svc, user, new) if new else [],
        playbooks=svc.playbooks(user) if new else [],
        tombstone_ids=[t.id for t in store.list_tombstones(user)], held=held,
        held_evidence=sorted({e for op in held for e in op.evidence if e in have}))


def _shown_facts(svc: MemoryService, user: str, new: list[Episode]) -> list[Fact]:
    """The active facts the extractor may name in supersedes_id: the current head of each
    profile slot (home city, job, diet, ...) plus, per new episode, the facts sharing its rarest
    words (IDF-weighted overlap over one read of the user's active facts: no query per episode)."""
    active = svc.store.list_facts(user, states={FactState.ACTIVE})
    # every value that holds one at a time (home, job, a phone, an editor) may be replaced
    shown: dict[str, Fact] = {f.id: f for f in active if slot_key(f.text) in PROFILE_SLOTS
                              or (slot_key(f.text) or "").startswith("thing:")}
    said_kinds = set().union(*(kinds_in(ep.text) for ep in new)) if new else set()
    for f in active:  # "never had a dog" names the beagle on record by its kind
        if kind_of(f.text) in said_kinds and len(shown) < MAX_SHOWN:
            shown.setdefault(f.id, f)
    index: dict[str, list[int]] = {}
    for i, f in enumerate(active):
        for tok in content_tokens(f.text):
            index.setdefault(tok, []).append(i)
    n = len(active) or 1
    idf = {tok: math.log(1 + n / len(rows)) for tok, rows in index.items()}
    for ep in new:
        scores: dict[int, float] = {}
        for tok in content_tokens(ep.text):
            for i in index.get(tok, ()):
                scores[i] = scores.get(i, 0.0) + idf[tok]
        for i in sorted(scores, key=lambda i: (-scores[i], i))[:SHOWN_PER_EPISODE]:
            shown.setdefault(active[i].id, active[i])
        if len(shown) >= MAX_SHOWN:
            break
    return list(shown.values())


def lookups(svc: MemoryService, inputs: PlanInputs, extraction: Extraction) -> PlanInputs:
    """Neighbours (every state), tombstone matches and proposed supersedes targets, batched:
    one embedding call for all extracted texts."""
    user, store = inputs.user_id, svc.store
    texts: dict[str, str] = {}
    for f in extraction.facts:
        texts.setdefault(normalise(f.text), f.text)
    keys = list(texts)
    if keys:
        vectors = svc.embedder.embed([texts[k] for k in keys])
    else:
        vectors = np.zeros((0, svc.embedder.dims), np.float32)
    flt = RecallFilter(user_id=user, kinds=frozenset({MemoryKind.SEMANTIC}), fact_states=ALL_STATES)
    neighbours, matches = {}, {}
    gone = forgetting.forgotten_values(store, user) if keys else []
    forgotten = {k: at for k in keys
                 if (at := forgetting.forgotten_since(store, gone, texts[k])) is not None}
    for key, vec in zip(keys, vectors, strict=False):
        hits = store.search_dense(flt, vec, NEIGHBOURS)
        # Scores are (1 + cos) / 2 on every backend; the gates reason in cosine.
        neighbours[key] = [(h.doc, 2.0 * h.score - 1.0) for h in hits]
        # The write path's check (invariants 7, 31, 61, 66), on the batch's vector.
        matches[key] = svc.tombstone_verdict(user, texts[key], vector=vec)
    proposed = sorted({f.supersedes_id for f in extraction.facts if f.supersedes_id}
                      | {d.target_id for d in extraction.denials if d.target_id})
    owned = {i: store.get(MemoryKind.SEMANTIC, user, i) for i in proposed}
    pending = {f.supersedes: f.id for f in store.list_facts(user, states={FactState.CANDIDATE})
               if retractions.is_proposal(f) and f.supersedes} if extraction.denials else {}
    return inputs.model_copy(update={"neighbours": neighbours, "tombstones": matches,
                                     "owned": owned, "forgotten": forgotten,
                                     "pending_retractions": pending})


def make_plan(svc: MemoryService, user_id: str, llm: Extractor, *, policy: ReviewPolicy | None = None,
              assistant_context: Iterable[str] = (), now: datetime | None = None) -> Plan:
    """One run: read, one extraction call, gates. Raises (and writes nothing) on model errors."""
    policy = policy or svc.policy
    inputs = gather(svc, user_id, assistant_context=assistant_context, now=now)
    if not inputs.new_episodes:
        if inputs.held:  # only declined playbooks to offer again: no model call (inv. 456)
            inputs = inputs.model_copy(update={"playbooks": svc.playbooks(inputs.user_id)})
        return decide(inputs, Extraction(), Usage(mode=llm.mode), policy)
    extraction, usage = llm.extract(inputs.request())  # the one model call
    return decide(lookups(svc, inputs, extraction), extraction, usage, policy)


def next_watermark(before: str | None, new: list[Episode]) -> str | None:
    if not new:
        return None
    said, stored = parse_watermark(before)
    top_said = max([e.timestamp for e in new] + ([said] if said else []))
    top_stored = max([e.recorded_at for e in new] + ([stored] if stored else []))
    return f"{top_said.isoformat()}|{top_stored.isoformat()}"


# --- deciding (pure) -------------------------------------------------------------------------
def decide(inputs: PlanInputs, extraction: Extraction, usage: Usage,
           policy: ReviewPolicy) -> Plan:
    user = inputs.user_id
    new_ids = [e.id for e in inputs.new_episodes]
    wm_after = next_watermark(inputs.watermark_before, inputs.new_episodes)
    plan_id = stable_id("plan", user, inputs.watermark_before, ",".join(new_ids),
                        extraction.model_dump_json(), policy.model_dump_json(),
                        *[op.id for op in inputs.held], n=16)
    b = _Builder(plan_id, inputs, policy, reader_version(usage.mode))
    by_time = {e.id: e.timestamp for e in [*inputs.context_episodes, *inputs.new_episodes]}
    facts = sorted(extraction.facts,
                   key=lambda f: max((by_time.get(e, inputs.now) for e in f.evidence),
                                     default=inputs.now))
    # The user's latest statement about a single-valued slot wins within one run, even when it
    # restates the stored value: earlier in-run values are history, not the current state.
    # Only a fact whose evidence the run knows can be the newer value: one the evidence gate
    # drops never makes an earlier, real statement history.
    known = {e.id for e in [*inputs.context_episodes, *inputs.new_episodes]}
    last_in_slot: dict[str, int] = {}
    for i, f in enumerate(facts):
        slot = slot_key(f.text)
        if slot and all(e in known for e in f.evidence):
            last_in_slot[slot] = i
    for i, f in enumerate(facts):
        slot = slot_key(f.text)
        b.fact(f, later_in_slot=slot is not None and last_in_slot.get(slot, i) > i)
    for d in extraction.denials:
        b.denial(d)
    for p in extraction.playbooks:
        b.playbook(p)
    for op in inputs.held:  # before feedback, so this run's counts fold into a held update
        b.held(op)
    b.feedback(extraction.feedback)
    return Plan(id=plan_id, user_id=user, created_at=inputs.now, llm_mode=usage.mode,
                usage=usage, policy=policy.model_dump(), policy_text=policy.describe(),
                watermark_before=inputs.watermark_before, watermark_after=wm_after,
                episode_ids=new_ids, tombstone_ids=inputs.tombstone_ids, ops=b.ops,
                gates=b.gates)


class _Builder:
    def __init__(self, plan_id: str, inputs: PlanInputs, policy: ReviewPolicy,
                 reader: str | None = None) -> None:
        self.plan_id, self.inputs, self.policy = plan_id, inputs, policy
        self.reader = reader  # stamped on every fact it plans (invariant 490)
        self.ops: list[PlanOp] = []
        self.gates: list[GateDecision] = []
        self.seen: dict[str, PlanOp] = {}
        self.claimed: set[str] = set()
        self.retired = 0
        self.user_vocab = gates.vocabulary([e.text for e in [*inputs.context_episodes,
                                                             *inputs.new_episodes]])
        self.said_vocab = gates.vocabulary(inputs.assistant_context)
        self.known = {e.id for e in inputs.new_episodes} | {e.id for e in inputs.context_episodes}
        self.shown = {f.id for f in inputs.shown_facts}
        self.stored = {e.id: e.recorded_at for e in [*inputs.context_episodes,
                                                     *inputs.new_episodes]}

    def _op_id(self, *parts: object) -> str:
        return stable_id("op", self.plan_id, len(self.ops), *parts, n=12)

    def record(self, decision: GateDecision) -> GateDecision:
        self.gates.append(decision)
        return decision

    def drop(self, subject: str, gate: str, evidence: list[str], why: str, reason: str = "") -> None:
        self.ops.append(PlanOp(id=self._op_id("drop", subject, gate), kind=OpKind.DROP,
                               evidence=evidence, subject=subject, gate=gate,
                               reason=f"{why}" + (f" (model: {reason})" if reason else "")))

    def fact(self, f: ExtractedFact, *, later_in_slot: bool) -> None:
        text, ev = f.text, list(f.evidence)
        for g in (gates.evidence(text, ev, self.known),
                  gates.grounding(text, self.user_vocab, self.said_vocab),
                  gates.dates(text, f.valid_from, f.valid_to), gates.secret(text)):
            if self.record(g).decision == "drop":
                return self.drop(text, g.gate, ev, g.reason, f.reason)
        key = normalise(text)
        if key in self.seen:  # restated within this run: one op, all the evidence
            op = self.seen[key]
            op.evidence = sorted(set(op.evidence) | set(ev))
            self.record(GateDecision(gate="dedup", subject=text, decision="merge",
                                     reason=f"same as {op.id} in this run"))
            return None
        if later_in_slot:
            g = self.record(GateDecision(gate="dedup", subject=text, decision="drop",
                                         reason="a later message in this run states a newer value"))
            return self.drop(text, g.gate, ev, g.reason, f.reason)
        gone = self.inputs.forgotten.get(key)
        if gone is not None and all(self.stored.get(e, gone) <= gone for e in ev):
            # Invariant 177: a forgotten value is not planned again from words the user said
            # before forgetting it; only a message stored after the forget brings it back.
            g = self.record(GateDecision(
                gate="forgotten", subject=text, decision="drop",
                reason=f"the user had this forgotten on {gone:%Y-%m-%d %H:%M}; every message "
                       "it comes from was stored before that"))
            return self.drop(text, g.gate, ev, g.reason, f.reason)
        flags: list[str] = []
        state = FactState.ACTIVE
        review = None
        verdict = self.inputs.tombstones.get(key)
        g = self.record(gates.tombstone(text, verdict, self.policy))
        if g.decision == "drop":
            return self.drop(text, g.gate, ev, g.reason, f.reason)
        if g.decision == "review" and verdict is not None:  # never active (invariants 31, 61)
            flags, state, review = verdict.flags(), FactState.CANDIDATE, g.reason
        neighbours = self.inputs.neighbours.get(key, [])
        if flags:  # the tombstone gate has spoken for the dead value; dedup the live ones
            neighbours = [(n, s) for n, s in neighbours
                          if n.state not in (FactState.RETRACTED, FactState.REJECTED)]
        g, _dup = gates.dedup(text, neighbours)
        if self.record(g).decision == "drop":
            return self.drop(text, g.gate, ev, g.reason, f.reason)
        old: Fact | None = None
        contradiction = f.contradiction or Contradiction.NATURAL
        if f.supersedes_id and not flags:
            g = self.record(gates.supersedes_id(text, f.supersedes_id, self.shown,
                                                self.inputs.owned.get(f.supersedes_id), self.inputs.user_id))
            if g.decision == "pass":
                old = self.inputs.owned[f.supersedes_id]
        if old is None and not flags:
            attached, old = gates.attach(text, neighbours)
            if attached:
                self.record(attached)
                contradiction = f.contradiction or Contradiction.NATURAL
        if old is not None and old.id in self.claimed:
            state, review = FactState.CANDIDATE, f"{old.id} is already replaced by another op in this run"
        if state == FactState.ACTIVE:
            g = self.record(gates.confidence(text, f.confidence, self.policy))
            if g.decision == "review":
                state, review = FactState.CANDIDATE, g.reason
        if old is not None and contradiction == Contradiction.HARSH and judge_pair(
                old.text, text, None, 1.0)[0] == Decision.REFUSE:
            # A harsh correction that restates the value it retracts (invariant 62).
            g = self.record(GateDecision(gate="tombstone", subject=text, decision="drop",
                                         reason=f"restates {old.text!r}, the value it retracts"))
            return self.drop(text, g.gate, ev, g.reason, f.reason)
        if old is not None and state == FactState.ACTIVE and contradiction == Contradiction.HARSH:
            # Harsh contradictions are first-hand and in-turn only (invariant 34).
            state, review = FactState.CANDIDATE, "harsh contradiction: consolidation never retracts"
            self.record(GateDecision(gate="never_retract", subject=text, decision="review",
                                     reason=review))
        if old is not None and state == FactState.ACTIVE:
            g = self.record(gates.retire_cap(text, self.retired, self.policy))
            if g.decision == "review":
                state, review = FactState.CANDIDATE, g.reason
        kind = OpKind.SUPERSEDE if (old is not None and state == FactState.ACTIVE) else OpKind.ADD_FACT
        op_id = self._op_id(kind.value, text)
        fact = Fact(id=stable_id("fact", self.plan_id, op_id), user_id=self.inputs.user_id,
                    text=text, fact_type=f.fact_type, confidence=f.confidence, state=state,
                    source_episode_ids=ev, supersedes=old.id if old else None,
                    contradiction=contradiction if old else None, recorded_at=self.inputs.now,
                    valid_from=f.valid_from, valid_to=f.valid_to, origin="consolidation",
                    plan_id=self.plan_id, flags=flags, reader=self.reader)
        if kind == OpKind.SUPERSEDE:
            self.retired += 1
        if old is not None:
            self.claimed.add(old.id)
        op = PlanOp(id=op_id, kind=kind, evidence=ev, reason=f.reason, review=review, fact=fact,
                    old=old)
        self.ops.append(op)
        self.seen[key] = op
        return None

    def denial(self, d: ExtractedDenial) -> None:
        """Invariants 34 and 590: consolidation never retracts. A denial of a believed fact of
        this user shown to the extractor becomes a proposed retraction, for an operator to
        retract or keep; a denial naming no such fact is a drop; one fact is proposed once."""
        g = self.record(gates.evidence(d.text, d.evidence, self.known))
        if g.decision == "drop":
            return self.drop(d.text, g.gate, d.evidence, g.reason, d.reason)
        g = self.record(gates.denial_target(d.text, d.target_id, self.shown,
                                            self.inputs.owned.get(d.target_id or ""),
                                            self.inputs.user_id))
        if g.decision == "drop":
            return self.drop(d.text, g.gate, d.evidence, g.reason, d.reason)
        target = self.inputs.owned[d.target_id or ""]
        assert target is not None  # the gate passed: a believed fact of this user
        mine = next((o for o in self.ops if o.kind == OpKind.PROPOSE_RETRACTION
                     and o.old is not None and o.old.id == target.id), None)
        if mine is not None and mine.fact is not None:  # denied twice in this run: one op
            mine.evidence = sorted(set(mine.evidence) | set(d.evidence))
            mine.fact = mine.fact.model_copy(update={"source_episode_ids": mine.evidence})
            self.record(GateDecision(gate="dedup", subject=d.text, decision="merge",
                                     reason=f"same as {mine.id} in this run"))
            return None
        why = gate = None
        if target.id in self.inputs.pending_retractions:
            gate, why = "dedup", (f"a proposal to retract {target.id} already waits for review "
                                  f"({self.inputs.pending_retractions[target.id]})")
        elif target.id in self.claimed:  # e.g. a harsh correction of it waits for review
            gate, why = "never_retract", (f"another op of this run already proposes replacing "
                                          f"{target.id}")
        if gate is not None and why is not None:
            g = self.record(GateDecision(gate=gate, subject=d.text, decision="drop", reason=why))
            return self.drop(d.text, g.gate, d.evidence, g.reason, d.reason)
        review = (f"the user may have said “{target.text}” was never true: consolidation "
                  "never retracts; an operator retracts or keeps it")
        self.record(GateDecision(gate="never_retract", subject=d.text, decision="review",
                                 reason=review))
        op_id = self._op_id(OpKind.PROPOSE_RETRACTION.value, target.id)
        fact = retractions.proposal(
            target, now=self.inputs.now, confidence=DENIAL_CONFIDENCE, origin="consolidation",
            source_episode_ids=d.evidence, plan_id=self.plan_id, reader=self.reader,
            fact_id=stable_id("fact", self.plan_id, op_id))
        self.claimed.add(target.id)
        self.ops.append(PlanOp(id=op_id, kind=OpKind.PROPOSE_RETRACTION, evidence=list(d.evidence),
                               reason=d.reason or f"the user denied: {d.text}", review=review,
                               fact=fact, old=target))
        return None

    def playbook(self, p: ExtractedPlaybook, *, held: bool = False) -> None:
        subject = p.name
        # A held op (invariant 456) was grounded when first planned: its episodes are older
        # than this run's, so it is checked against the evidence that still exists instead.
        known = self.known | set(self.inputs.held_evidence) if held else self.known
        for g in (gates.evidence(subject, p.evidence, known),
                  None if held else gates.grounding(" ".join([p.trigger, *p.steps]),
                                                    self.user_vocab, self.said_vocab),
                  gates.playbook_confidence(subject, p.confidence, self.policy),
                  gates.secret(" ".join([p.name, p.trigger, *p.steps]))):
            if g is None:
                continue
            if self.record(g).decision == "drop":
                return self.drop(subject, g.gate, p.evidence, g.reason, p.reason)
        for existing in self.inputs.playbooks:
            if normalise(existing.name) == normalise(p.name) or normalise(existing.trigger) == normalise(p.trigger):
                if [normalise(s) for s in existing.steps] == [normalise(s) for s in p.steps]:
                    g = self.record(GateDecision(gate="dedup", subject=subject, decision="drop",
                                                 reason=f"same steps as playbook {existing.id}"))
                    return self.drop(subject, g.gate, p.evidence, g.reason, p.reason)
                new = bump(existing, steps=p.steps, version=existing.version + 1,
                           updated_at=self.inputs.now,
                           source_episode_ids=sorted(set(existing.source_episode_ids) | set(p.evidence)))
                self.record(GateDecision(gate="dedup", subject=subject, decision="merge",
                                         reason=f"new steps for playbook {existing.id}"))
                self.ops.append(PlanOp(id=self._op_id("pb-steps", existing.id), kind=OpKind.UPDATE_PLAYBOOK,
                                       evidence=p.evidence, reason=p.reason, playbook=new,
                                       old_playbook=existing))
                return None
        op_id = self._op_id("pb", subject)
        pb = Playbook(id=stable_id("pb", self.plan_id, op_id), user_id=self.inputs.user_id,
                      name=p.name, trigger=p.trigger, steps=p.steps, confidence=p.confidence,
                      source_episode_ids=p.evidence, recorded_at=self.inputs.now,
                      updated_at=self.inputs.now)
        self.ops.append(PlanOp(id=op_id, kind=OpKind.ADD_PLAYBOOK, evidence=p.evidence,
                               reason=p.reason, playbook=pb))
        return None

    def held(self, op: PlanOp) -> None:
        """Invariant 456: a playbook op an earlier apply declined, offered again. A new
        playbook goes through the playbook gates once more (dedup against what exists now);
        an update is re-based on the playbook as it is now: its count changes and steps."""
        pb = op.playbook
        assert pb is not None  # held ops are playbook ops (memory/consolidation/held.py)
        reason = f"declined before, offered again: {op.reason}"[:1000]
        if op.kind == OpKind.ADD_PLAYBOOK:
            if any(o.kind == OpKind.ADD_PLAYBOOK and o.playbook
                   and normalise(o.playbook.name) == normalise(pb.name) for o in self.ops):
                g = self.record(GateDecision(gate="dedup", subject=pb.name, decision="drop",
                                             reason="this run plans the same playbook"))
                return self.drop(pb.name, g.gate, op.evidence, g.reason)
            return self.playbook(ExtractedPlaybook(
                name=pb.name, trigger=pb.trigger, steps=pb.steps, confidence=pb.confidence,
                evidence=op.evidence, reason=reason), held=True)
        g = self.record(gates.evidence(pb.name, op.evidence,
                                       self.known | set(self.inputs.held_evidence)))
        if g.decision == "drop":
            return self.drop(pb.name, g.gate, op.evidence, g.reason)
        old = op.old_playbook
        cur = next((p for p in self.inputs.playbooks if p.id == pb.id), None)
        if old is None or cur is None:
            g = self.record(GateDecision(gate="held", subject=pb.name, decision="drop",
                                         reason=f"playbook {pb.id} no longer exists"))
            return self.drop(pb.name, g.gate, op.evidence, g.reason)
        ok, bad = pb.success_count - old.success_count, pb.failure_count - old.failure_count
        steps = pb.steps if pb.steps != old.steps else None
        mine = next((o for o in self.ops if o.kind == OpKind.UPDATE_PLAYBOOK and o.playbook
                     and o.playbook.id == pb.id), None)
        base = mine.playbook if mine is not None and mine.playbook is not None else cur
        update: dict[str, object] = {"success_count": base.success_count + ok,
                        "failure_count": base.failure_count + bad, "updated_at": self.inputs.now}
        if steps is not None and base.steps != steps:
            update |= {"steps": steps, "version": base.version + 1}
        self.record(GateDecision(gate="held", subject=pb.name, decision="pass", reason=reason))
        if mine is not None:
            mine.playbook = base.model_copy(update=update)
            mine.evidence = sorted(set(mine.evidence) | set(op.evidence))
            return None
        self.ops.append(PlanOp(id=self._op_id("pb-held", op.id), kind=OpKind.UPDATE_PLAYBOOK,
                               evidence=op.evidence, reason=reason,
                               playbook=bump(cur, **update), old_playbook=cur))
        return None

    def feedback(self, items: list[ExtractedFeedback]) -> None:
        """Outcome counts from the user's feedback on advice (invariant 36)."""
        mine = {p.id: p for p in self.inputs.playbooks}
        totals: dict[str, list] = {}
        for fb in items:
            g = gates.evidence(fb.playbook_id, fb.evidence, self.known)
            if self.record(g).decision == "drop":
                self.drop(fb.playbook_id, g.gate, fb.evidence, g.reason, fb.reason)
                continue
            if fb.playbook_id not in mine:
                g = self.record(GateDecision(gate="feedback", subject=fb.playbook_id, decision="drop",
                                             reason="not a playbook of this user shown to the extractor"))
                self.drop(fb.playbook_id, g.gate, fb.evidence, g.reason, fb.reason)
                continue
            t = totals.setdefault(fb.playbook_id, [0, 0, [], []])
            t[0 if fb.outcome == "success" else 1] += 1
            t[2] += fb.evidence
            t[3].append(fb.reason)
            self.record(GateDecision(gate="feedback", subject=fb.playbook_id, decision="pass",
                                     reason=f"{fb.outcome}: {fb.reason}"))
        for pb_id, (ok, bad, ev, reasons) in totals.items():
            old = next((op.playbook for op in self.ops if op.kind == OpKind.UPDATE_PLAYBOOK
                        and op.playbook and op.playbook.id == pb_id), None)
            base = mine[pb_id]
            if old is not None:  # steps changed in this run too: fold the counts into that op
                op = next(o for o in self.ops if o.playbook is old)
                op.playbook = old.model_copy(update={"success_count": old.success_count + ok,
                                                     "failure_count": old.failure_count + bad})
                op.evidence = sorted(set(op.evidence) | set(ev))
                continue
            new = bump(base, success_count=base.success_count + ok,
                       failure_count=base.failure_count + bad, updated_at=self.inputs.now)
            self.ops.append(PlanOp(id=self._op_id("pb-outcome", pb_id), kind=OpKind.UPDATE_PLAYBOOK,
                                   evidence=sorted(set(ev)), reason="; ".join(reasons),
                                   playbook=new, old_playbook=base))
