"""Apply a Plan (all of it or an approved subset) in one atomic batch, and undo it from the log.

Every write goes through the unit of work (memory/unit_of_work.py); this module only orders the
operations, checks the plan is not stale, and makes every id deterministic so a retried apply
converges (invariants 37-39).
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, Field

from .. import retractions
from ..errors import ChainError, ConflictError, NotFoundError, ValidationError
from ..models import AuditEvent, Contradiction, Fact, FactState, MemoryKind, Playbook
from ..redaction import is_stub
from ..service import MemoryService
from ..text import require_user
from ..unit_of_work import Batch, EventIds
from .held import HELD, held_ops, is_playbook_op
from .plan import WATERMARK, OpKind, Plan, PlanOp, stable_id

ACTOR = "consolidation"


class ApplyResult(BaseModel):
    plan_id: str
    user_id: str
    applied: list[str] = Field(default_factory=list, description="op ids written now")
    already: list[str] = Field(default_factory=list, description="op ids found applied before")
    declined: list[str] = Field(default_factory=list, description="actionable ops not chosen")
    for_review: list[str] = Field(default_factory=list, description=(
        "declined ops whose fact waits in the review queue as a candidate (invariant 456)"))
    held: list[str] = Field(default_factory=list, description=(
        "declined playbook ops the next plan offers again (invariant 456)"))
    watermark: str | None = None


class UndoResult(BaseModel):
    plan_id: str
    user_id: str
    reverted: list[str] = Field(default_factory=list, description="memory ids restored/removed")
    watermark: str | None = None


def _stale(plan: Plan, what: str) -> ConflictError:
    return ConflictError(f"plan {plan.id} is stale: {what}. Nothing was written; re-plan with "
                         f"`memdesk consolidate --user {plan.user_id} --dry-run`")


def _event_ids(plan: Plan, generation: int) -> EventIds:
    """Deterministic audit ids: re-applying after a partial failure appends nothing twice. The
    generation (undos of this plan so far) keeps a re-apply after an undo on the record."""
    def ids(event: AuditEvent, key: str | None) -> str:
        return stable_id("aud", plan.id, generation, key or "", event.action)
    return ids


def _generation(svc: MemoryService, plan: Plan) -> int:
    return len(svc.store.audit(plan.user_id, limit=100_000, action="consolidate_undo",
                               plan_id=plan.id))


def _moved_by(svc: MemoryService, plan: Plan) -> bool:
    """Did this plan move the watermark where it is now? Its newest apply or undo says so: an
    apply not undone since (invariant 38)."""
    events = svc.store.audit(plan.user_id, limit=100_000, plan_id=plan.id)
    last = next((e for e in events if e.action in ("consolidate", "consolidate_undo")), None)
    return last is not None and last.action == "consolidate"


def _is_applied(svc: MemoryService, user: str, op: PlanOp) -> bool:
    if op.kind == OpKind.PROPOSE_RETRACTION and op.fact:
        return svc.store.get(MemoryKind.SEMANTIC, user, op.fact.id) is not None
    if op.kind in (OpKind.ADD_FACT, OpKind.SUPERSEDE) and op.fact:
        if svc.store.get(MemoryKind.SEMANTIC, user, op.fact.id) is None:
            return False
        if op.kind == OpKind.SUPERSEDE and op.old is not None:
            # On a store without transactions the put may have landed without the retirement:
            # only both together count as applied, so a retry finishes the job (invariant 38).
            old = svc.store.get(MemoryKind.SEMANTIC, user, op.old.id)
            return isinstance(old, Fact) and old.superseded_by == op.fact.id
        return True
    if op.kind == OpKind.ADD_PLAYBOOK and op.playbook:
        return svc.store.get(MemoryKind.PROCEDURAL, user, op.playbook.id) is not None
    if op.kind == OpKind.UPDATE_PLAYBOOK and op.playbook and op.old_playbook:
        cur = svc.store.get(MemoryKind.PROCEDURAL, user, op.playbook.id)
        return isinstance(cur, Playbook) and cur.rev == op.playbook.rev and \
            cur.success_count == op.playbook.success_count and \
            cur.failure_count == op.playbook.failure_count
    return False


def _waiting(svc: MemoryService, user: str, plan: Plan) -> dict[str, str]:
    """Fact id -> the proposal waiting to retract it, when the plan proposes any (inv. 590)."""
    if not any(op.kind == OpKind.PROPOSE_RETRACTION for op in plan.ops):
        return {}
    return {f.supersedes: f.id for f in svc.store.list_facts(user, states={FactState.CANDIDATE})
            if retractions.is_proposal(f) and f.supersedes}


def _propose_retraction(b: Batch, plan: Plan, op: PlanOp, waiting: dict[str, str], *,
                        key: str, reason: str) -> bool:
    """Invariants 34 and 590: a denial on the plan goes into the review queue as a proposed
    retraction, never retracting by itself. Its fact must still be as planned (else the plan
    is stale); a proposal already waiting for that fact (another turn, another plan) stands
    alone: nothing is written (False)."""
    assert op.fact is not None and op.old is not None  # planned with both (planner.denial)
    cur = b.get(MemoryKind.SEMANTIC, op.old.id)
    if not isinstance(cur, Fact):  # a semantic id: a Fact, or gone
        raise _stale(plan, f"fact {op.old.id} ({op.old.text!r}) no longer exists")
    if cur.state != op.old.state:
        raise _stale(plan, f"fact {op.old.id} ({op.old.text!r}) is {cur.state.value} now")
    if waiting.get(cur.id, op.fact.id) != op.fact.id:
        return False
    # Its text is the fact's own, believed now: nothing for the tombstone gate (invariant 591).
    b.add(op.fact.model_copy(update={"recorded_at": b.now}), key=key, reason=reason,
          on_dead="allow", action="propose_retraction")
    waiting[cur.id] = op.fact.id
    return True


def _write_op(b: Batch, plan: Plan, op: PlanOp) -> None:
    """One plan operation into the batch. The plan's gates ran at planning time; the batch
    checks again (tombstones, chain head, revisions) at apply time (invariants 31, 33)."""
    if op.kind in (OpKind.ADD_FACT, OpKind.SUPERSEDE) and op.fact:
        landed = b.get(MemoryKind.SEMANTIC, op.fact.id)
        new = landed if isinstance(landed, Fact) else b.add(
            op.fact.model_copy(update={"recorded_at": b.now}), key=op.id, reason=op.reason,
            on_dead="refuse")
        if op.old is not None:
            cur = b.get(MemoryKind.SEMANTIC, op.old.id)
            if not isinstance(cur, Fact):  # a semantic id: a Fact, or gone
                raise _stale(plan, f"fact {op.old.id} ({op.old.text!r}) no longer exists")
            if op.kind == OpKind.SUPERSEDE:
                if cur.rev != op.old.rev or cur.state != FactState.ACTIVE:
                    raise _stale(plan, f"fact {op.old.id} ({op.old.text!r}) moved on since planning "
                                       f"(revision {op.old.rev} → {cur.rev}, now {cur.state.value})")
                try:
                    b.supersede(cur, new, Contradiction.NATURAL, key=op.id,
                                reason=op.reason)
                except ChainError as exc:
                    raise _stale(plan, str(exc)) from None
        return
    if op.kind == OpKind.ADD_PLAYBOOK and op.playbook:
        b.add(op.playbook.model_copy(update={"recorded_at": b.now, "updated_at": b.now}),
              key=op.id, reason=op.reason)
        return
    if op.kind == OpKind.UPDATE_PLAYBOOK and op.playbook and op.old_playbook:
        cur = b.get(MemoryKind.PROCEDURAL, op.old_playbook.id)
        if cur is None or cur.rev != op.old_playbook.rev:
            raise _stale(plan, f"playbook {op.old_playbook.id} changed since planning")
        b.replace(cur, op.playbook, action="update_playbook", key=op.id, reason=op.reason)
        return
    raise ValidationError(f"op {op.id} ({op.kind.value}) cannot be applied")


def declined_id(plan: Plan, op: PlanOp) -> str:
    """The id of the candidate a declined op leaves for review: deterministic, so declining
    the same op again converges."""
    return stable_id("fact", plan.id, op.id, "declined")


def _declined_candidate(b: Batch, plan: Plan, op: PlanOp) -> Fact | None:
    if op.kind not in (OpKind.ADD_FACT, OpKind.SUPERSEDE) or op.fact is None:
        return None
    found = b.get(MemoryKind.SEMANTIC, declined_id(plan, op))
    return found if isinstance(found, Fact) else None


def _decline(b: Batch, plan: Plan, op: PlanOp, waiting: dict[str, str]) -> bool:
    """Invariant 456: a declined fact is not lost when the watermark moves past its episodes:
    it waits in the review queue as a candidate with its evidence (and, for a supersession,
    the fact it would replace). Playbook ops have no candidate state and are only declined.
    A declined proposed retraction goes to the review queue as it is (invariant 590): it is
    a review item already, and declining it on the plan would lose the user's denial."""
    if op.kind == OpKind.PROPOSE_RETRACTION and op.fact is not None:
        if isinstance(b.get(MemoryKind.SEMANTIC, op.fact.id), Fact):
            return True
        try:
            return _propose_retraction(
                b, plan, op, waiting, key="decline:" + op.id,
                reason=f"declined when plan {plan.id} was applied: kept for review "
                       f"({op.reason})"[:1000])
        except ConflictError:  # its fact moved on: nothing left to propose
            return False
    if op.kind not in (OpKind.ADD_FACT, OpKind.SUPERSEDE) or op.fact is None:
        return False
    if _declined_candidate(b, plan, op) is not None:
        return True  # declined before: already waiting
    if op.fact.state != FactState.ACTIVE:
        return False  # a candidate op is for review by itself when applied
    update: dict = {"id": declined_id(plan, op), "state": FactState.CANDIDATE,
                    "recorded_at": b.now}
    if op.kind == OpKind.SUPERSEDE and op.old is not None:
        update |= {"supersedes": op.old.id, "contradiction": Contradiction.NATURAL}
    b.add(op.fact.model_copy(update=update), on_dead="flag", action="propose_fact",
          key="decline:" + op.id,
          reason=f"declined when plan {plan.id} was applied: kept for review ({op.reason})"[:1000])
    return True


def apply_plan(svc: MemoryService, plan: Plan, *, op_ids: Iterable[str] | None = None,
               actor: str = ACTOR) -> ApplyResult:
    """Apply the plan (or the approved `op_ids`) in ONE store batch, watermark last (inv. 37);
    episodes another plan already consolidated make it stale (invariant 38)."""
    user = require_user(plan.user_id)
    actionable = plan.actionable()
    if op_ids is None:
        chosen = actionable
    else:
        wanted = list(dict.fromkeys(op_ids))
        known = {op.id for op in actionable}
        unknown = [i for i in wanted if i not in known]
        if unknown:
            raise ValidationError(f"plan {plan.id} has no applicable op {', '.join(unknown)}")
        chosen = [op for op in actionable if op.id in set(wanted)]
    result = ApplyResult(plan_id=plan.id, user_id=user,
                         declined=[op.id for op in actionable if op not in chosen])
    raw = svc.store.get_watermark(user, WATERMARK)
    current = raw or None  # "" is the watermark an undo of a first plan leaves
    if plan.watermark_after is None and not actionable:  # nothing new was planned
        return result.model_copy(update={"watermark": current})
    if plan.watermark_after is None and current != plan.watermark_before:
        raise _stale(plan, f"the consolidation watermark moved to {current}")
    if current not in (plan.watermark_before, plan.watermark_after):
        raise _stale(plan, f"the consolidation watermark moved to {current} "
                           f"(planned from {plan.watermark_before or 'the start'})")
    if current == plan.watermark_after != plan.watermark_before and not _moved_by(svc, plan):
        # Invariant 38: another plan of the same episodes (another process, another model's
        # wording) already consolidated them; applying this one too would store them twice.
        raise _stale(plan, f"another plan already consolidated these episodes (the watermark "
                           f"is at {current})")
    tombs = [t.id for t in svc.store.list_tombstones(user)]
    if set(tombs) - set(plan.tombstone_ids):
        raise _stale(plan, "a value of this user was rejected or retracted since planning")
    b = svc.batch(actor, user, plan_id=plan.id, event_ids=_event_ids(plan, _generation(svc, plan)))
    waiting = _waiting(svc, user, plan)
    for op in chosen:
        if _is_applied(svc, user, op):  # same plan twice changes nothing (invariant 38)
            result.already.append(op.id)
            continue
        if op.kind == OpKind.PROPOSE_RETRACTION:
            if _propose_retraction(b, plan, op, waiting, key=op.id,
                                   reason=f"{op.review}; {op.reason}"[:1000]):
                result.applied.append(op.id)
            else:  # the same fact's proposal already waits (invariant 590)
                result.already.append(op.id)
            continue
        held = _declined_candidate(b, plan, op)
        if held is not None and held.state != FactState.CANDIDATE:
            result.already.append(op.id)  # decided in review since it was declined
            continue
        if held is not None:  # applied after all: its stand-in leaves the review queue
            b.remove(held, action="consolidate", reason=f"op {op.id} of plan {plan.id} applied",
                     key="undecline:" + op.id)
        _write_op(b, plan, op)
        result.applied.append(op.id)
    for op in actionable:
        if op not in chosen and _decline(b, plan, op, waiting):
            result.for_review.append(op.id)
    # Invariant 456: a declined playbook op is kept whole on this apply's event; the next plan
    # offers it again (memory/consolidation/held.py).
    held_pbs = [op for op in actionable if op not in chosen and is_playbook_op(op)
                and not _is_applied(svc, user, op)]
    result.held = [op.id for op in held_pbs]
    if not b.ops and current == plan.watermark_after \
            and result.held == [op.id for op in held_ops(svc.store, user)]:
        return result.model_copy(update={"watermark": current})
    b.note("consolidate", [t for op in chosen if op.id in result.applied for t in _targets(op)],
           after={"op_ids": result.applied, "declined": result.declined,
                  "for_review": result.for_review,
                  HELD: [op.model_dump(mode="json") for op in held_pbs],
                  "watermark_before": plan.watermark_before,
                  "watermark_after": plan.watermark_after, "llm_mode": plan.llm_mode,
                  "usage": plan.usage.model_dump(), "policy": plan.policy_text},
           reason=f"consolidation plan {plan.id}", key="apply:" + ",".join(result.applied))
    # The watermark advances last, in the same batch: a crash anywhere before it leaves the
    # episodes to be planned again (invariant 37).
    if plan.watermark_after is not None:  # a plan of held ops only leaves it where it is
        b.set_watermark(WATERMARK, plan.watermark_after, expected=raw)
    b.commit()
    return result.model_copy(update={"watermark": plan.watermark_after or current})


def _targets(op: PlanOp) -> list[str]:
    out = []
    if op.fact:
        out.append(op.fact.id)
    if op.old:
        out.append(op.old.id)
    if op.playbook:
        out.append(op.playbook.id)
    return out


def undo_plan(svc: MemoryService, user_id: str, plan_id: str, *, actor: str = "cli") -> UndoResult:
    """Revert everything an applied plan wrote, from its audit events (invariant 39): added facts
    and playbooks are removed, retired facts restored, counts reset, the watermark moved back.
    Refused if anything it wrote has changed since, or a later consolidation ran on top."""
    user = require_user(user_id)
    b = svc.batch(actor, user, plan_id=plan_id)
    # Invariant 450: the role first, so an unlisted operator's undo of an old plan is `denied`
    # (audited), never a conflict that tells them about the plan.
    b.require("consolidate_undo", [plan_id])
    history = svc.store.audit(user, limit=100_000, plan_id=plan_id)
    if not history:
        raise NotFoundError(f"no applied plan {plan_id} for user {user}", target_id=plan_id)
    # Newest first: only what was applied since the last undo of this plan is undone now.
    cut = next((i for i, e in enumerate(history) if e.action == "consolidate_undo"), len(history))
    events = history[:cut]
    if not events:
        raise ChainError(f"plan {plan_id} was already undone", target_id=plan_id)
    applies = [e for e in events if e.action == "consolidate"]
    if not applies:
        raise NotFoundError(f"plan {plan_id} was never applied for user {user}", target_id=plan_id)
    first = min(applies, key=lambda e: e.at)
    assert first.after is not None  # a consolidate event records both watermarks
    wm_before, wm_after = first.after["watermark_before"], first.after["watermark_after"]
    raw = svc.store.get_watermark(user, WATERMARK)
    current = raw or None
    if wm_after is not None and current != wm_after:  # None: a plan of held ops (inv. 456)
        raise ConflictError(f"cannot undo plan {plan_id}: a later consolidation moved the "
                            f"watermark to {current}; undo that plan first")
    reverted: list[str] = []

    def changed(kind: MemoryKind, snap: dict) -> Fact | Playbook:
        cur = b.get(kind, snap["id"])
        if not isinstance(cur, Fact | Playbook):  # the plan's kinds: a record, or gone
            raise ConflictError(f"cannot undo plan {plan_id}: {snap['id']} no longer exists")
        if cur.rev != snap["rev"]:
            raise ConflictError(f"cannot undo plan {plan_id}: {snap['id']} changed since it was "
                                f"applied (revision {snap['rev']} → {cur.rev}); undo would lose that")
        return cur

    for e in events:  # newest first: reverse order of application
        # a declined op's candidate (propose_fact, invariant 456) goes with its plan
        if e.action in ("write_fact", "write_playbook", "propose_fact",
                        "propose_retraction") and e.after:
            kind = MemoryKind.PROCEDURAL if e.action == "write_playbook" else MemoryKind.SEMANTIC
            cur = changed(kind, e.after)
            b.remove(cur, action="consolidate_undo", reason=f"undo {e.action}")
            reverted.append(cur.id)
        elif e.action in ("supersede", "update_playbook") and e.before and e.after:
            kind = MemoryKind.SEMANTIC if e.action == "supersede" else MemoryKind.PROCEDURAL
            if is_stub(e.before) or is_stub(e.after):
                # Invariant 66: the text to restore was forgotten since; undo cannot bring it
                # back, so it refuses (and writes nothing) instead of failing half-way.
                raise ConflictError(f"cannot undo plan {plan_id}: what it would restore of "
                                    f"{e.before.get('id') or e.after.get('id')} was forgotten "
                                    "since; nothing was undone")
            cur = changed(kind, e.after)
            restored = cur.model_validate({**e.before, "rev": cur.rev + 1,
                                           "use_count": cur.use_count,
                                           "last_used_at": cur.last_used_at})
            b.replace(cur, restored, action="consolidate_undo", reason=f"undo {e.action}")
            reverted.append(cur.id)
    b.note("consolidate_undo", reverted, reason=f"undo plan {plan_id}",
           before={"watermark": wm_after}, after={"watermark": wm_before})
    if wm_after is not None:
        b.set_watermark(WATERMARK, wm_before or "", expected=raw)
    b.commit()
    return UndoResult(plan_id=plan_id, user_id=user, reverted=reverted, watermark=wm_before)
