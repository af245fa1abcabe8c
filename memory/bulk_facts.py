"""Retract or forget many facts of one user at once (issue 34: bulk on the Facts page).

The role is checked once, before anything is written: a refusal is audited as denied and
nothing changes (invariant 121). Each fact is then its own audited batch, through the same
service call as a single retract or forget, so one that changed or vanished meanwhile is
reported and the others still land.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel

from .errors import MemdeskError, ValidationError
from .service import MemoryService
from .text import require_user

BulkAction = Literal["retract", "forget"]


class BulkFactOutcome(BaseModel):
    fact_id: str
    ok: bool
    error: str | None = None


def bulk_facts(service: MemoryService, user_id: str, fact_ids: Iterable[str],
               action: BulkAction | str, *, actor: str,
               reason: str | None = None) -> list[BulkFactOutcome]:
    """`action` ("retract" or "forget") on each of `fact_ids` of `user_id`, in order."""
    user = require_user(user_id)
    if action not in ("retract", "forget"):
        raise ValidationError(f"unknown bulk action {action!r}; expected retract or forget")
    ids = list(dict.fromkeys(fact_ids))
    if not ids:
        raise ValidationError("choose at least one fact")
    service.require(actor, action, user)  # invariant 121: the role first, once
    out = []
    for fid in ids:
        try:
            if action == "retract":
                service.retract(user, fid, actor=actor, reason=reason)
            else:
                service.forget(user, fid, actor=actor, reason=reason)
            out.append(BulkFactOutcome(fact_id=fid, ok=True))
        except MemdeskError as exc:  # that fact's batch wrote nothing
            out.append(BulkFactOutcome(fact_id=fid, ok=False,
                                       error=f"{type(exc).__name__}: {exc}"))
    return out
