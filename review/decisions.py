"""Operator decisions on queue items. Each decision is one atomic `store.apply` batch carrying
an audit event by `operator:NAME` with before/after, reason and comment (invariant 42).

Decisions name the revision the operator loaded; a changed or already-decided item raises
StaleItemError with the fresh state and writes nothing (invariant 43).
"""

from __future__ import annotations

from collections.abc import Iterable

from memory.errors import (
    ChainError,
    ConflictError,
    MemdeskError,
    TombstoneError,
    ValidationError,
)
from memory.models import (
    Contradiction,
    Fact,
    FactState,
    MemoryKind,
    TombstoneKind,
    check_actor,
)
from memory.service import MemoryService, audit_event, bump
from memory.stores.base import AppendAudit, Op, PutTombstone, UpdateMemory
from memory.text import clean_text, require_user
from memory.values import Decision as Decision3  # issue 11: refuse/review/accept

from .models import BulkOutcome, Decision, DecisionResult, StaleItemError

BULK_DECISIONS = (Decision.APPROVE, Decision.REJECT)


def operator_actor(operator: str | None) -> str:
    """`operator:NAME`; a decision always names who made it (invariant 42)."""
    name = (operator or "").strip()
    if not name:
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
    """The loaded item plus who is deciding: what every decision path needs."""

    def __init__(self, service: MemoryService, fact: Fact, actor: str, reason: str | None,
                 comment: str | None):
        self.service, self.fact, self.actor = service, fact, actor
        self.reason, self.comment = reason, comment
        self.now = service.clock()

    def event(self, action: str, *, targets: Iterable[str], before, after):
        e = audit_event(self.actor, self.fact.user_id, action, targets=targets, before=before,
                        after=after, reason=self.reason, plan_id=self.fact.plan_id, at=self.now)
        return e.model_copy(update={"comment": self.comment})


def _refuse_dead_value(ctx: _Ctx, text: str, *, retracts: Fact | None = None) -> None:
    """Approval never resurrects a tombstoned value (invariant 44): refused and audited.
    Issue 11: only a confident restatement is refused (a doubtful one is what this person is
    reviewing), also of the value a harsh contradiction retracts (invariant 62)."""
    dying = ([ctx.service.tombstone_for(retracts, TombstoneKind.RETRACTED, ctx.actor, ctx.reason)]
             if retracts is not None else [])
    verdict = ctx.service.tombstone_verdict(ctx.fact.user_id, text, pending=dying)
    if verdict.decision != Decision3.REFUSE or verdict.tombstone is None:
        return
    tomb = verdict.tombstone
    sim = verdict.similarity if verdict.similarity is not None else 1.0
    ctx.service.store.apply([AppendAudit(event=audit_event(
        ctx.actor, ctx.fact.user_id, "review_refused", targets=[ctx.fact.id, tomb.id],
        outcome="refused", after={"text": text, "similarity": round(sim, 4)},
        reason=f"restates a {tomb.kind.value} value: {tomb.text!r}", at=ctx.now))])
    raise TombstoneError(
        f"refused: {text!r} restates a value this user's history marks {tomb.kind.value} "
        f"({tomb.text!r}, similarity {sim:.2f}, tombstone {tomb.id}); reject it or edit the text",
        tombstone_id=tomb.id, target_id=ctx.fact.id)


def _activate(ctx: _Ctx, action: str, **changes) -> tuple[list[Op], Fact, list[Fact], object]:
    """Promote the candidate (with `changes`); a proposed supersession goes through the
    correction model (invariant 47). Record time starts now: it was not believed before."""
    fact, service = ctx.fact, ctx.service
    text = changes.get("text", fact.text)
    retracts = (service.store.get(MemoryKind.SEMANTIC, fact.user_id, fact.supersedes)
                if fact.supersedes and changes.get("supersedes", fact.supersedes)
                and fact.contradiction == Contradiction.HARSH else None)  # issue 11
    _refuse_dead_value(ctx, text, retracts=retracts)  # type: ignore[arg-type]
    touched: list[Fact] = []
    tomb = None
    more: list[Op] = []
    if fact.supersedes and changes.get("supersedes", fact.supersedes):
        old = service.store.get(MemoryKind.SEMANTIC, fact.user_id, fact.supersedes)
        if old is None:
            raise ChainError(f"the fact {fact.supersedes} this item would replace no longer "
                             "exists: keep both or reject", target_id=fact.id)
        contradiction = Contradiction(fact.contradiction or Contradiction.NATURAL)
        if contradiction == Contradiction.HARSH:  # the penalty lands when the retraction does
            changes["confidence"] = max(0.0, fact.confidence - service.harsh_confidence_penalty)
        new = bump(fact, state=FactState.ACTIVE, recorded_at=ctx.now, **changes)
        more, replaced, tomb = service.supersession_ops(
            old, new, contradiction, actor=ctx.actor, reason=ctx.reason or f"review: {action}",
            plan_id=fact.plan_id)
        touched.append(replaced)
    else:
        new = bump(fact, state=FactState.ACTIVE, recorded_at=ctx.now, **changes)
    ops: list[Op] = [UpdateMemory(doc=new, expected_rev=fact.rev), *more]
    return ops, new, touched, tomb  # type: ignore[return-value]


def _approve(ctx: _Ctx, decision: Decision, **_) -> tuple:
    if decision == Decision.ACCEPT and not ctx.fact.supersedes:
        raise ValidationError(f"{ctx.fact.id} proposes no supersession: approve it instead")
    return _activate(ctx, decision.value)


def _edit(ctx: _Ctx, decision: Decision, text: str | None = None, **_) -> tuple:
    if text is None or not str(text).strip():
        raise ValidationError("edit needs the new text (--text)")
    return _activate(ctx, decision.value, text=clean_text(text))


def _reject(ctx: _Ctx, decision: Decision, **_) -> tuple:
    if not ctx.reason:
        raise ValidationError("a reason is required to reject (--reason)")
    fact = ctx.fact
    new = bump(fact, state=FactState.REJECTED)
    tomb = ctx.service.tombstone_for(fact, TombstoneKind.REJECTED, ctx.actor, ctx.reason)
    return [UpdateMemory(doc=new, expected_rev=fact.rev), PutTombstone(tombstone=tomb)], new, [], tomb


def _keep_both(ctx: _Ctx, decision: Decision, **_) -> tuple:
    fact = ctx.fact
    if not fact.supersedes:
        raise ValidationError(f"{fact.id} is not a contradiction: keep-both does not apply")
    # Both stay believed: the candidate no longer claims to replace the old fact (invariant 46).
    return _activate(ctx, decision.value, supersedes=None, contradiction=None,
                     flags=[*fact.flags, f"kept_both:{fact.supersedes}"])


def _merge(ctx: _Ctx, decision: Decision, into: str | None = None, **_) -> tuple:
    fact, service = ctx.fact, ctx.service
    if not into:
        raise ValidationError("merge needs the fact to merge into (--into FACT_ID)")
    if into == fact.id:
        raise ValidationError("an item cannot be merged into itself")
    # Same user only: another user's id is exactly a missing id, audited as denied (inv. 40).
    target: Fact = service.owned(fact.user_id, MemoryKind.SEMANTIC, into, actor=ctx.actor,
                                 action="review_merge")  # type: ignore[assignment]
    if target.state != FactState.ACTIVE:
        raise ValidationError(f"merge target {into} is {target.state.value}; merge into an active fact")
    # The value lives on in the target with the candidate's evidence; the candidate is closed
    # as rejected without a tombstone (it was not refused as false) (invariant 45).
    sources = list(dict.fromkeys([*target.source_episode_ids, *fact.source_episode_ids]))
    new_target = bump(target, source_episode_ids=sources)
    new = bump(fact, state=FactState.REJECTED, flags=[*fact.flags, f"merged_into:{target.id}"])
    ops: list[Op] = [UpdateMemory(doc=new, expected_rev=fact.rev),
                     UpdateMemory(doc=new_target, expected_rev=target.rev),
                     AppendAudit(event=ctx.event("merge_sources", targets=[target.id, fact.id],
                                                 before=target, after=new_target))]
    return ops, new, [new_target], None


_PATHS = {Decision.APPROVE: _approve, Decision.ACCEPT: _approve, Decision.EDIT: _edit,
          Decision.REJECT: _reject, Decision.KEEP_BOTH: _keep_both, Decision.MERGE: _merge}


def _stale(service: MemoryService, user_id: str, fact_id: str, why: str) -> StaleItemError:
    fresh = service.store.get(MemoryKind.SEMANTIC, user_id, fact_id)
    state = f"now {fresh.state.value}, revision {fresh.rev}" if fresh else "now gone"  # type: ignore[union-attr]
    return StaleItemError(f"review item {fact_id} changed since it was loaded ({why}; {state}): "
                          "reload it and decide again", fresh=fresh, target_id=fact_id)  # type: ignore[arg-type]


def decide(service: MemoryService, user_id: str, fact_id: str, decision: Decision | str, *,
           operator: str, expected_rev: int | None, text: str | None = None,
           into: str | None = None, reason: str | None = None,
           comment: str | None = None) -> DecisionResult:
    """Decide one item of one user. `expected_rev` is the revision the operator loaded (None
    only where the caller just read it, e.g. a CLI call without --rev)."""
    user_id, actor = require_user(user_id), operator_actor(operator)
    decision = _decision(decision)
    reason, comment = _optional(reason, "reason"), _optional(comment, "comment")
    fact: Fact = service.owned(user_id, MemoryKind.SEMANTIC, fact_id, actor=actor,
                               action=f"review_{decision.value}")  # type: ignore[assignment]
    if fact.state != FactState.CANDIDATE:  # invariant 43: already decided by someone
        raise _stale(service, user_id, fact_id, f"it is already {fact.state.value}")
    if expected_rev is not None and fact.rev != expected_rev:
        raise _stale(service, user_id, fact_id, f"loaded at revision {expected_rev}")
    ctx = _Ctx(service, fact, actor, reason, comment)
    ops, new, touched, tomb = _PATHS[decision](ctx, decision, text=text, into=into)
    action = f"review_{decision.value.replace('-', '_')}"
    event = ctx.event(action, targets=[fact.id, *(t.id for t in touched)], before=fact, after=new)
    try:
        service.store.apply([*ops, AppendAudit(event=event)])  # one batch (invariant 42)
    except ConflictError as exc:  # someone decided between our read and our write
        if service.store.get(MemoryKind.SEMANTIC, user_id, fact_id) == fact:
            raise  # the item itself is unchanged: the conflict is about another fact
        raise _stale(service, user_id, fact_id, str(exc)) from exc
    return DecisionResult(decision=decision, fact=new, touched=touched, tombstone=tomb,
                          event=event)


def decide_many(service: MemoryService, selection: Iterable[tuple[str, str, int | None]],
                decision: Decision | str, *, operator: str, reason: str | None = None,
                comment: str | None = None) -> list[BulkOutcome]:
    """Bulk approve or reject of (user, fact id, loaded revision) triples. Each item is its own
    atomic decision; one stale or refused item does not block the others."""
    decision = _decision(decision)
    if decision not in BULK_DECISIONS:
        raise ValidationError("bulk decisions are approve or reject")
    operator_actor(operator)
    if decision == Decision.REJECT and not _optional(reason, "reason"):
        raise ValidationError("a reason is required to reject (--reason)")
    out = []
    for user_id, fact_id, rev in selection:
        try:
            res = decide(service, user_id, fact_id, decision, operator=operator,
                         expected_rev=rev, reason=reason, comment=comment)
            out.append(BulkOutcome(fact_id=fact_id, ok=True, result=res))
        except MemdeskError as exc:  # reported per item; the batch for that item wrote nothing
            out.append(BulkOutcome(fact_id=fact_id, ok=False, error=f"{type(exc).__name__}: {exc}",
                                   exit_code=exc.exit_code))
    return out
