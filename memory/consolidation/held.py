"""Declined playbook operations, kept for the next plan (invariant 456).

A playbook has no candidate state, so a declined playbook op cannot wait in the review queue as
a declined fact does (invariant 456). Instead the `consolidate` event of the apply that declined
it keeps the whole op (`after["held_playbooks"]`: the playbook with its evidence), and the next
plan offers it again: re-planning can always reach it, though the watermark moved past its
episodes. The newest apply of a plan not undone since holds the complete set: each plan offers
the ops held before it again, so an op is held until an apply takes it.
"""

from __future__ import annotations

from ..models import AuditEvent
from ..stores.base import Store
from .plan import OpKind, PlanOp

HELD = "held_playbooks"
PLAYBOOK_OPS = (OpKind.ADD_PLAYBOOK, OpKind.UPDATE_PLAYBOOK)
LOOK_BACK = 200  # consolidate events read to find the newest apply not undone


def is_playbook_op(op: PlanOp) -> bool:
    return op.kind in PLAYBOOK_OPS and op.playbook is not None


def _undone(store: Store, user: str, event: AuditEvent) -> bool:
    """Was this apply's plan undone since? Its newest apply-or-undo event says (invariant 38)."""
    history = store.audit(user, limit=100_000, plan_id=event.plan_id)
    last = next((e for e in history if e.action in ("consolidate", "consolidate_undo")), None)
    return last is not None and last.action == "consolidate_undo"


def held_ops(store: Store, user: str) -> list[PlanOp]:
    """The playbook ops the newest standing apply declined, as they were planned."""
    checked: set[str | None] = set()
    for event in store.audit(user, limit=LOOK_BACK, action="consolidate"):
        if event.plan_id in checked:
            continue  # an older apply of a plan already found undone
        checked.add(event.plan_id)
        if _undone(store, user, event):
            continue
        return [PlanOp.model_validate(op) for op in (event.after or {}).get(HELD, [])]
    return []
