"""The consolidation gates: pure functions from plain values to a recorded decision.

Each returns a GateDecision (gate, subject, decision, reason) that the planner puts on the plan,
so an operator can read why every extracted item was kept, dropped, stripped or sent to review.
"""

from __future__ import annotations

from datetime import date, datetime

from ..models import Fact, FactState
from ..policy import ReviewPolicy
from ..sensitive import secret_in
from ..slots import slot_key
from ..text import content_terms as content_tokens
from ..text import normalise, stem
from ..values import Decision, Verdict
from .plan import GateDecision

# Words of the canonical templates ("Lives in", "Owns a", "Prefers", ...). They carry no
# information about where a value came from, so grounding ignores them.
TEMPLATE_WORDS = frozenset(stem(w) for w in
    ["live", "lives", "lived", "living", "resides", "based", "moved", "away", "owns", "own", "owned", "has", "uses", "use", "prefer", "prefers", "likes", "like", "dislikes", "loves", "enjoys", "hates", "longer", "allergic", "works", "work", "name", "called", "goes", "year", "old", "eat", "eats", "does", "cannot", "contact", "pronoun", "pronouns", "fix", "user", "customer"])

NEAR_IDENTICAL = 0.9  # cosine at or above which two texts *may* be one fact (see is_duplicate)


def distinctive(text: str) -> frozenset[str]:
    return content_tokens(text) - TEMPLATE_WORDS


def vocabulary(texts: list[str]) -> set[str]:
    out: set[str] = set()
    for t in texts:
        out |= content_tokens(t)
    return out


def grounding(subject: str, user_texts: list[str] | set[str],
              assistant_texts: list[str] | set[str]) -> GateDecision:
    """Drop an item whose distinctive tokens appear only in the assistant's prose (invariant 30):
    the assistant's replies are context, never evidence. Texts or precomputed vocabularies."""
    user = user_texts if isinstance(user_texts, set) else vocabulary(user_texts)
    said = assistant_texts if isinstance(assistant_texts, set) else vocabulary(assistant_texts)
    only = sorted(t for t in distinctive(subject) if t in said and t not in user)
    if only:
        return GateDecision(gate="grounding", subject=subject, decision="drop",
                            reason=f"only the assistant said {', '.join(only)}")
    return GateDecision(gate="grounding", subject=subject, decision="pass",
                        reason="every distinctive word is in the user's own messages")


def evidence(subject: str, cited: list[str], known: set[str]) -> GateDecision:
    """Evidence must be this user's episodes shown to the extractor (scope, invariant 1)."""
    unknown = [e for e in cited if e not in known]
    if unknown or not cited:
        return GateDecision(gate="evidence", subject=subject, decision="drop",
                            reason=f"cites episodes not shown for this user: {', '.join(unknown) or 'none'}")
    return GateDecision(gate="evidence", subject=subject, decision="pass",
                        reason=f"cites {', '.join(cited)}")


def secret(subject: str) -> GateDecision:
    """A password, PIN, card number or key never becomes a memory (invariant 273): dropped with
    its reason, so the rest of the run applies; the write door would refuse it anyway."""
    kind = secret_in(subject)
    if kind:
        return GateDecision(gate="secret", subject=subject, decision="drop",
                            reason=f"holds {kind}; memory never keeps one")
    return GateDecision(gate="secret", subject=subject, decision="pass", reason="no secret")


def dates(subject: str, valid_from: date | datetime | None,
          valid_to: date | datetime | None) -> GateDecision:
    """A model's interval must run forwards: `valid_to` before `valid_from` is malformed output,
    dropped with its reason instead of failing the whole run (invariant 37)."""
    if valid_from is not None and valid_to is not None and valid_to < valid_from:
        return GateDecision(gate="dates", subject=subject, decision="drop",
                            reason=f"valid_to {valid_to} is before valid_from {valid_from}")
    return GateDecision(gate="dates", subject=subject, decision="pass", reason="dates in order")


def tombstone(subject: str, verdict: Verdict | None, policy: ReviewPolicy) -> GateDecision:
    """A restated rejected/retracted value is never planned active (invariants 7, 31, 61): a
    confident restatement is dropped or reviewed (policy); a doubtful one always reviewed."""
    if verdict is None or verdict.decision == Decision.ACCEPT or verdict.tombstone is None:
        return GateDecision(gate="tombstone", subject=subject, decision="pass",
                            reason="matches no tombstone of this user")
    tomb = verdict.tombstone
    sim = f"similarity {verdict.similarity:.2f}, " if verdict.similarity is not None else ""
    if verdict.decision == Decision.REVIEW:
        return GateDecision(gate="tombstone", subject=subject, decision="review",
                            reason=f"may restate {tomb.kind.value} value {tomb.text!r} "
                                   f"({sim}tombstone {tomb.id}): {verdict.reason}")
    decision = "drop" if policy.previously_rejected == "drop" else "review"
    return GateDecision(gate="tombstone", subject=subject, decision=decision,
                        reason=f"restates {tomb.kind.value} value {tomb.text!r} "
                               f"({sim}tombstone {tomb.id})")


def is_duplicate(text: str, other: str, similarity: float) -> bool:
    """Near-identical: same normalised text, or one value containing the other in the same slot
    or with similar vectors ("Lives in Edinburgh" / "Lives in Edinburgh, Scotland"). A changed
    value in the same slot ("Hub v2" / "Hub v3") is never a duplicate however close the vectors."""
    if normalise(text) == normalise(other):
        return True
    a, b = distinctive(text), distinctive(other)
    if not (a and b and (a <= b or b <= a)):
        return False
    # One value contains the other: the same fact when it fills the same slot ("Lives in
    # Bristol" / "Lives in Bishopston, Bristol"), or when the vectors agree it is.
    slot = slot_key(text)
    return (slot is not None and slot == slot_key(other)) or similarity >= NEAR_IDENTICAL


def dedup(subject: str, neighbours: list[tuple[Fact, float]]) -> tuple[GateDecision, Fact | None]:
    """Against the nearest existing facts in EVERY state (invariant 32): history hidden from
    recall is not hidden from the writer."""
    for fact, sim in neighbours:
        if is_duplicate(subject, fact.text, sim):
            where = {FactState.CANDIDATE: "already waiting in review",
                     FactState.SUPERSEDED: "a superseded (historical) fact",
                     FactState.RETRACTED: "a retracted fact",
                     FactState.REJECTED: "a rejected fact"}.get(fact.state, "an active fact")
            return GateDecision(gate="dedup", subject=subject, decision="drop",
                                reason=f"near-identical to {where}: {fact.text!r} ({fact.id}, "
                                       f"similarity {sim:.2f})"), fact
    best = f"nearest {neighbours[0][0].text!r} {neighbours[0][1]:.2f}" if neighbours else "no neighbours"
    return GateDecision(gate="dedup", subject=subject, decision="pass", reason=best), None


def supersedes_id(subject: str, proposed: str, shown: set[str], owned: Fact | None,
                  user_id: str) -> GateDecision:
    """An extractor's supersedes_id is accepted only if it was shown to the extractor and is an
    active fact of this user (invariant 33)."""
    if proposed not in shown:
        reason = f"{proposed} was not among the facts shown to the extractor"
    elif owned is None or owned.user_id != user_id:
        reason = f"{proposed} is not a fact of {user_id}"
    elif owned.state != FactState.ACTIVE or owned.superseded_by:
        reason = f"{proposed} is {owned.state.value}, not the head of its chain"
    else:
        return GateDecision(gate="supersedes_id", subject=subject, decision="pass",
                            reason=f"replaces shown active fact {owned.text!r}")
    return GateDecision(gate="supersedes_id", subject=subject, decision="strip", reason=reason)


def denial_target(subject: str, target_id: str | None, shown: set[str], owned: Fact | None,
                  user_id: str) -> GateDecision:
    """A denial becomes a proposed retraction only of a fact shown to the extractor that this
    user believes (active, or a version superseded since); anything else is a drop: nothing on
    record to retract (invariants 33, 590)."""
    if not target_id:
        reason = "the user denied something with no fact on record named: nothing to retract"
    elif target_id not in shown:
        reason = f"{target_id} was not among the facts shown to the extractor"
    elif owned is None or owned.user_id != user_id:
        reason = f"{target_id} is not a fact of {user_id}"
    elif owned.state not in (FactState.ACTIVE, FactState.SUPERSEDED):
        reason = f"{target_id} is {owned.state.value}: not believed, nothing to retract"
    else:
        return GateDecision(gate="never_retract", subject=subject, decision="pass",
                            reason=f"denies the fact on record {owned.text!r}")
    return GateDecision(gate="never_retract", subject=subject, decision="drop", reason=reason)


def attach(subject: str, neighbours: list[tuple[Fact, float]]) -> tuple[GateDecision | None, Fact | None]:
    """A supersession the extractor missed is attached only to a retrieved active neighbour
    filling the same single-valued slot (invariant 33)."""
    slot = slot_key(subject)
    if slot is None:
        return None, None
    for fact, sim in neighbours:
        if (fact.state == FactState.ACTIVE and not fact.superseded_by
                and slot_key(fact.text) == slot and normalise(fact.text) != normalise(subject)):
            return GateDecision(gate="attach", subject=subject, decision="attach",
                                reason=f"retrieved neighbour {fact.text!r} ({fact.id}, similarity "
                                       f"{sim:.2f}) fills the same slot {slot!r}"), fact
    return None, None


def confidence(subject: str, value: float, policy: ReviewPolicy) -> GateDecision:
    if value < policy.min_confidence:
        return GateDecision(gate="confidence", subject=subject, decision="review",
                            reason=f"confidence {value:.2f} < {policy.min_confidence:.2f}")
    return GateDecision(gate="confidence", subject=subject, decision="pass",
                        reason=f"confidence {value:.2f}")


def retire_cap(subject: str, retired_so_far: int, policy: ReviewPolicy) -> GateDecision:
    """At most max_retire_per_run facts retired per run; the rest wait in review (inv. 34)."""
    if policy.natural_supersessions == "review":
        return GateDecision(gate="retire_cap", subject=subject, decision="review",
                            reason="policy sends every supersession to review")
    if retired_so_far >= policy.max_retire_per_run:
        return GateDecision(gate="retire_cap", subject=subject, decision="review",
                            reason=f"this run already retires {retired_so_far} facts "
                                   f"(max {policy.max_retire_per_run})")
    return GateDecision(gate="retire_cap", subject=subject, decision="pass",
                        reason=f"retirement {retired_so_far + 1} of at most {policy.max_retire_per_run}")


def playbook_confidence(subject: str, value: float, policy: ReviewPolicy) -> GateDecision:
    """New playbooks need confidence ≥ 0.8 (invariant 36)."""
    if value < policy.min_playbook_confidence:
        return GateDecision(gate="playbook_confidence", subject=subject, decision="drop",
                            reason=f"confidence {value:.2f} < {policy.min_playbook_confidence:.2f}")
    return GateDecision(gate="playbook_confidence", subject=subject, decision="pass",
                        reason=f"confidence {value:.2f}")
