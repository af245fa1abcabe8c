"""Operator decisions on queue items. Each decision is one atomic `store.apply` batch carrying
an audit event by `operator:NAME` with before/after, reason and comment (invariant 42).

Decisions name the revision the operator loaded; a changed or already-decided item raises
StaleItemError with the fresh state and writes nothing (invariant 42).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from memory import inputs, retractions
from memory.corrections import tombstone_of
from memory.errors import ChainError, ConflictError, MemdeskError, NotFoundError, ValidationError
from memory.models import (
    Contradiction,
    Fact,
    FactState,
    MemoryKind,
    Tombstone,
    TombstoneKind,
    check_actor,
)
from memory.service import MemoryService
from memory.text import clean_text, require_user
from memory.unit_of_work import Batch

from .models import BulkOutcome, Decision, DecisionResult, StaleItemError

BULK_DECISIONS = (Decision.APPROVE, Decision.REJECT)


def operator_actor(operator: str | None) -> str:
    """`operator:NAME`; a decision always names who made it (invariant 42)."""
    name = inputs.as_text(operator, "operator").strip() if operator is not None else ""
    if not name:  # invariant 11: a name is text
        raise ValidationError("an operator name is required: pass --operator NAME")
    try:
        return check_actor(f"operator:{name}")
    except ValueError as exc:
        raise ValidationError(str(exc)) from None


def _optional(text: str | None, field: str) -> str | None:
    return None if text is None or not str(text).strip() else clean_text(text, field=field)


def _decision(value: Decision | str) -> Decision:
    try:
        return Decision(value)
    except ValueError:
        allowed = ", ".join(d.value for d in Decision)
        raise ValidationError(f"unknown decision {value!r}; expected one of: {allowed}") from None


class _Ctx:
    """The loaded item, the batch that will decide it, and the operator's words."""

    def __init__(self, service: MemoryService, b: Batch, fact: Fact):
        self.service, self.b, self.fact = service, b, fact


# What a decision path returns: the fact it leaves, the facts it retired, the tombstone it wrote.
Outcome = tuple[Fact, list[Fact], Tombstone | None]


def _activate(ctx: _Ctx, action: str, **changes: Any) -> Outcome:
    """Promote the candidate (with `changes`); a proposed supersession goes through the
    correction model (invariant 47). Record time starts now: it was not believed before.
    Approval never resurrects a tombstoned value (invariant 44): a confident restatement is
    refused and audited, also of the value this very decision retracts; a doubtful one is what
    the operator is here to decide (invariant 61)."""
    fact, b = ctx.fact, ctx.b
    touched: list[Fact] = []
    tomb = None
    old: Fact | None = None
    if fact.supersedes and changes.get("supersedes", fact.supersedes):
        got = b.get(MemoryKind.SEMANTIC, fact.supersedes)
        if not isinstance(got, Fact):  # a semantic id: a Fact, or gone
            raise ChainError(f"the fact {fact.supersedes} this item would replace no longer "
                             "exists: keep both or reject", target_id=fact.id)
        old = got
        if fact.contradiction == Contradiction.HARSH:  # the penalty lands with the retraction
            changes["confidence"] = max(0.0, fact.confidence - ctx.service.harsh_confidence_penalty)
    # A harsh contradiction is matched against the value it retracts, too (invariant 62).
    dying = ([tombstone_of(old, TombstoneKind.RETRACTED, b.actor, b.reason, b.now)]
             if old is not None and fact.contradiction == Contradiction.HARSH else [])
    new = b.change(fact, action=f"review_{action.replace('-', '_')}", on_dead="decide",
                   dying=dying, targets=[old.id] if old is not None else [],
                   state=FactState.ACTIVE, recorded_at=b.now, **changes)
    if old is not None:
        replaced, tomb = b.supersede(old, new,
                                     Contradiction(fact.contradiction or Contradiction.NATURAL),
                                     reason=b.reason or f"review: {action}")
        touched.append(replaced)
    return new, touched, tomb


def _approve(ctx: _Ctx, decision: Decision, **_: object) -> Outcome:
    if decision == Decision.ACCEPT and not ctx.fact.supersedes:
        raise ValidationError(f"{ctx.fact.id} proposes no supersession: approve it instead")
    return _activate(ctx, decision.value)


def _edit(ctx: _Ctx, decision: Decision, text: str | None = None, **_: object) -> Outcome:
    if text is None or not str(text).strip():
        raise ValidationError("edit needs the new text (--text)")
    return _activate(ctx, decision.value, text=clean_text(text))


def _reject(ctx: _Ctx, decision: Decision, **_: object) -> Outcome:
    if not ctx.b.reason:
        raise ValidationError("a reason is required to reject (--reason)")
    tomb = ctx.b.retract(ctx.fact, kind=TombstoneKind.REJECTED, action="review_reject")
    rejected = ctx.b.get(MemoryKind.SEMANTIC, ctx.fact.id)
    assert isinstance(rejected, Fact)  # a semantic id reads as a Fact
    return rejected, [], tomb


def _keep_both(ctx: _Ctx, decision: Decision, **_: object) -> Outcome:
    fact = ctx.fact
    if not fact.supersedes:
        raise ValidationError(f"{fact.id} is not a contradiction: keep-both does not apply")
    # Both stay believed: the candidate no longer claims to replace the old fact (invariant 46).
    return _activate(ctx, decision.value, supersedes=None, contradiction=None,
                     flags=[*fact.flags, f"kept_both:{fact.supersedes}"])


def _merge(ctx: _Ctx, decision: Decision, into: str | None = None, **_: object) -> Outcome:
    fact, b = ctx.fact, ctx.b
    if not into:
        raise ValidationError("merge needs the fact to merge into (--into FACT_ID)")
    if into == fact.id:
        raise ValidationError("an item cannot be merged into itself")
    # Same user only: another user's id is exactly a missing id, audited as denied (inv. 40).
    target = b.owned_fact(into, action="review_merge")
    if target.state != FactState.ACTIVE:
        raise ValidationError(f"merge target {into} is {target.state.value}; merge into an active fact")
    # The value lives on in the target with the candidate's evidence; the candidate is closed
    # as rejected without a tombstone (it was not refused as false) (invariant 45).
    sources = list(dict.fromkeys([*target.source_episode_ids, *fact.source_episode_ids]))
    new = b.change(fact, action="review_merge", targets=[target.id], state=FactState.REJECTED,
                   flags=[*fact.flags, f"merged_into:{target.id}"])
    new_target = b.change(target, action="merge_sources", targets=[fact.id],
                          source_episode_ids=sources)
    return new, [new_target], None


def _target(ctx: _Ctx) -> tuple[Fact | None, str | None]:
    """A proposed retraction's fact as this batch reads it, and why the proposal no longer
    applies (None: it does)."""
    got = ctx.b.get(MemoryKind.SEMANTIC, ctx.fact.supersedes or "")
    target = got if isinstance(got, Fact) else None  # a semantic id: a Fact, or gone
    return target, retractions.stale_reason(ctx.fact, target)


def _retract_target(ctx: _Ctx, decision: Decision, **_: object) -> Outcome:
    """Invariant 591: the operator confirms the user's denial. The fact is retracted through
    the one retract path (tombstone, audit, owner, role, its revision as read here), in the
    decision's batch; the proposal closes as rejected, with no tombstone of its own (its text
    is the fact's: the one tombstone is the fact's). A fact that moved on is refused as stale."""
    fact, b = ctx.fact, ctx.b
    target, stale = _target(ctx)
    if stale is not None or target is None:
        raise StaleItemError(f"proposed retraction {fact.id} no longer applies: {stale}. "
                             "Nothing was retracted; Keep closes the proposal", fresh=fact,
                             target_id=fact.id)
    new = b.change(fact, action="review_retract", targets=[target.id], state=FactState.REJECTED,
                   flags=[*fact.flags, retractions.APPLIED])
    tomb = b.retract(target, reason=b.reason or "the user said it was never true; an operator "
                     "confirmed it", targets=[fact.id])
    done = b.get(MemoryKind.SEMANTIC, target.id)
    assert isinstance(done, Fact)  # a semantic id reads as a Fact
    return new, [done], tomb


def _keep(ctx: _Ctx, decision: Decision, **_: object) -> Outcome:
    """Invariant 591: the operator keeps the fact. It is not touched and no tombstone is
    written for its value (the operator just said it is true); the proposal closes as
    rejected. A proposal whose fact moved on since can only be closed this way: it is marked
    so, and is no label of the reader (invariant 591)."""
    fact = ctx.fact
    target, stale = _target(ctx)
    flags = [*fact.flags, retractions.DECLINED, *([retractions.MOVED_ON] if stale else [])]
    new = ctx.b.change(fact, action="review_keep", targets=[target.id] if target else [],
                       state=FactState.REJECTED, flags=flags)
    return new, [], None


def _not_for_retraction(ctx: _Ctx, decision: Decision, **_: object) -> Outcome:
    raise ValidationError(f"{ctx.fact.id} is a proposed retraction: decide it with retract "
                          f"(approve) or keep (reject); {decision.value} does not apply")


def _retraction_only(ctx: _Ctx, decision: Decision, **_: object) -> Outcome:
    raise ValidationError(f"{ctx.fact.id} proposes no retraction: {decision.value} applies to "
                          "a proposed retraction only")


_PATHS: dict[Decision, Callable[..., Outcome]] = {Decision.APPROVE: _approve, Decision.ACCEPT: _approve, Decision.EDIT: _edit,
          Decision.REJECT: _reject, Decision.KEEP_BOTH: _keep_both, Decision.MERGE: _merge,
          Decision.RETRACT: _retraction_only, Decision.KEEP: _retraction_only}
# A proposed retraction has two outcomes (invariant 591); every other decision is refused.
_RETRACTION_PATHS: dict[Decision, Callable[..., Outcome]] = {
    Decision.APPROVE: _retract_target, Decision.RETRACT: _retract_target,
    Decision.REJECT: _keep, Decision.KEEP: _keep}


def _stale(service: MemoryService, user_id: str, fact_id: str, why: str) -> StaleItemError:
    got = service.store.get(MemoryKind.SEMANTIC, user_id, fact_id)
    fresh = got if isinstance(got, Fact) else None  # a semantic id: a Fact, or gone
    state = f"now {fresh.state.value}, revision {fresh.rev}" if fresh else "now gone"
    return StaleItemError(f"review item {fact_id} changed since it was loaded ({why}; {state}): "
                          "reload it and decide again", fresh=fresh, target_id=fact_id)


def _forgotten_proposal(service: MemoryService, user_id: str, fact_id: str) -> bool:
    """Whether `fact_id` was a proposed retraction forgotten with the fact it named."""
    return any(fact_id in e.target_ids and isinstance(e.after, dict)
               and retractions.RETRACTION_OF in e.after
               for e in service.audit(user_id, action="forget", limit=1000))


def decide(service: MemoryService, user_id: str, fact_id: str, decision: Decision | str, *,
           operator: str, expected_rev: int | None, text: str | None = None,
           into: str | None = None, reason: str | None = None,
           comment: str | None = None) -> DecisionResult:
    """Decide one item of one user. `expected_rev` is the revision the operator loaded (None
    only where the caller just read it, e.g. a CLI call without --rev)."""
    user_id, actor = require_user(user_id), operator_actor(operator)
    decision = _decision(decision)
    reason, comment = _optional(reason, "reason"), _optional(comment, "comment")
    b = service.batch(actor, user_id, reason=reason, comment=comment)
    # Issue 14 (invariant 121): the role first, so a viewer's attempt is denied and audited
    # whatever state the item is in.
    b.require(f"review_{decision.value.replace('-', '_')}", [fact_id])
    try:
        fact = b.owned_fact(fact_id, action=f"review_{decision.value}")
    except NotFoundError:
        if _forgotten_proposal(service, user_id, fact_id):  # invariant 591: stale, not unknown
            raise StaleItemError(f"proposed retraction {fact_id} no longer applies: the fact "
                                 "it would retract was forgotten, and the proposal with it "
                                 "(it held its text); nothing was retracted", fresh=None,
                                 target_id=fact_id) from None
        raise
    if fact.state != FactState.CANDIDATE:  # invariant 42: already decided by someone
        raise _stale(service, user_id, fact_id, f"it is already {fact.state.value}")
    if expected_rev is not None and fact.rev != expected_rev:
        raise _stale(service, user_id, fact_id, f"loaded at revision {expected_rev}")
    b.plan_id = fact.plan_id
    paths = _RETRACTION_PATHS if retractions.is_proposal(fact) else _PATHS
    path = paths.get(decision, _not_for_retraction)
    new, touched, tomb = path(_Ctx(service, b, fact), decision, text=text, into=into)
    event = next(e for e in b.events if fact.id in e.target_ids[:1] and e.action.startswith("review_"))
    try:
        b.commit()  # one batch (invariant 42)
    except ConflictError as exc:  # someone decided between our read and our write
        if service.store.get(MemoryKind.SEMANTIC, user_id, fact_id) == fact:
            raise  # the item itself is unchanged: the conflict is about another fact
        raise _stale(service, user_id, fact_id, str(exc)) from exc
    return DecisionResult(decision=decision, fact=new, touched=touched, tombstone=tomb,
                          event=event)


def _would_replace(service: MemoryService, user_id: str, fact_id: str) -> tuple[str | None, bool]:
    """The text of the fact a waiting contradiction would replace (None: no contradiction),
    and whether the item proposes retracting it instead."""
    got = service.store.get(MemoryKind.SEMANTIC, require_user(user_id), fact_id)
    if not isinstance(got, Fact) or got.state != FactState.CANDIDATE or not got.supersedes:
        return None, False
    old = service.store.get(MemoryKind.SEMANTIC, got.user_id, got.supersedes)
    return (old.text if isinstance(old, Fact) else got.supersedes), retractions.is_proposal(got)


def decide_many(service: MemoryService, selection: Iterable[tuple[str, str, int | None]],
                decision: Decision | str, *, operator: str, reason: str | None = None,
                comment: str | None = None, contradictions: bool = False) -> list[BulkOutcome]:
    """Bulk approve or reject of (user, fact id, loaded revision) triples. Each item is its own
    atomic decision; one stale or refused item does not block the others. A bulk approve holds
    back every contradiction (it would replace a believed fact) unless `contradictions` says
    the operator chose, separately, to accept them too (invariant 512); it never retracts: a
    proposed retraction is retracted one at a time (invariant 591)."""
    decision = _decision(decision)
    if decision not in BULK_DECISIONS:
        raise ValidationError("bulk decisions are approve or reject")
    operator_actor(operator)
    if decision == Decision.REJECT and not _optional(reason, "reason"):
        raise ValidationError("a reason is required to reject (--reason)")
    out = []
    for user_id, fact_id, rev in selection:
        old, retraction = (_would_replace(service, user_id, fact_id)
                           if decision == Decision.APPROVE else (None, False))
        if retraction:
            out.append(BulkOutcome(fact_id=fact_id, ok=False, exit_code=ValidationError.exit_code,
                                   error=f"held back: a proposed retraction of “{old}”; retract "
                                         "it on its own"))
            continue
        if old is not None and not contradictions:
            out.append(BulkOutcome(fact_id=fact_id, ok=False, exit_code=ValidationError.exit_code,
                                   error=f"held back: a contradiction replacing “{old}”; accept "
                                         "it on its own or include contradictions"))
            continue
        try:
            res = decide(service, user_id, fact_id, decision, operator=operator,
                         expected_rev=rev, reason=reason, comment=comment)
            out.append(BulkOutcome(fact_id=fact_id, ok=True, result=res))
        except MemdeskError as exc:  # reported per item; the batch for that item wrote nothing
            out.append(BulkOutcome(fact_id=fact_id, ok=False, error=f"{type(exc).__name__}: {exc}",
                                   exit_code=exc.exit_code))
    return out
