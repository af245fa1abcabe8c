"""A search across users, for admins (issue 34): one text search over every user's facts, with
the owner named on each hit. Scope is never implied: the caller names ALL_USERS, the search is
checked (admin; operators only, never the agent or an MCP token) and audited with its words
(invariant 541). Everything else on the desk reads one user at a time."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel

from . import inputs
from .errors import ValidationError
from .models import FactState
from .service import MemoryService
from .stores.base import FactQuery

ALL_USERS: Literal["all users"] = "all users"  # the scope, said in words: the only one this search takes
ACTION = "search_all_users"
LIMIT = 200  # hits returned; the total says how many matched


class CrossUserHit(BaseModel):
    user_id: str  # whose fact this is: every hit names its owner
    fact_id: str
    state: str
    fact_type: str
    text: str
    recorded_at: datetime


class CrossUserResult(BaseModel):
    query: str
    users: int  # users searched
    total: int  # facts that matched, over every user
    hits: list[CrossUserHit]  # the newest first, at most LIMIT


def search_all_users(svc: MemoryService, text: str, *, actor: str,
                     scope: Literal["all users"], states: set[str] | None = None,
                     limit: int = LIMIT) -> CrossUserResult:
    """Facts of every user whose text contains `text` (case-insensitive), newest first.

    `scope` must be ALL_USERS: a caller cannot reach this by leaving a user out. The role check
    comes first (a refusal is audited `denied` under the shared scope); a search that ran is
    audited with its words, how many users it covered and how many facts matched."""
    if scope != ALL_USERS:
        raise ValidationError(f"a search across users names its scope: {ALL_USERS!r}")
    needle = inputs.as_text(text, "search text").strip()
    if not needle:
        raise ValidationError("search text is empty")
    if len(needle) > 200:
        raise ValidationError("search text is longer than 200 characters")
    wanted = frozenset(FactState(s) for s in states) if states else None
    svc.require(actor, ACTION)  # invariant 541: admin, and a person
    users = svc.store.users()
    page = svc.store.fact_summaries(FactQuery(user_ids=users, text=needle, states=wanted,
                                              newest_first=True, limit=limit))
    with svc.catalog_batch(actor, reason="search across all users") as b:
        b.note(ACTION, [], after={"query": needle, "users": len(users), "matched": page.total,
                                  "states": sorted(s.value for s in wanted) if wanted else None})
    return CrossUserResult(query=needle, users=len(users), total=page.total, hits=[
        CrossUserHit(user_id=r.user_id, fact_id=r.id, state=r.state, fact_type=r.fact_type,
                     text=r.text, recorded_at=r.recorded_at) for r in page.rows])
