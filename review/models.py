"""Review queue data: item kinds, decisions, filters, listings and decision results. No I/O."""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from memory.errors import ConflictError
from memory.models import AuditEvent, Episode, Fact, FactType, Tombstone


class ItemKind(StrEnum):
    """Why a candidate waits. One kind per item, by precedence (see queue.classify)."""

    RETRACTION = "retraction"  # proposes retracting a fact on record (invariant 591)
    PREVIOUSLY_REJECTED = "previously_rejected"  # restates a tombstoned value
    CONTRADICTION = "contradiction"  # would supersede an active fact
    LOW_CONFIDENCE = "low_confidence"  # below MEMDESK_REVIEW_CONFIDENCE
    CANDIDATE = "candidate"  # any other proposed fact


class Decision(StrEnum):
    APPROVE = "approve"  # candidate -> active (for a contradiction: accept the supersession)
    REJECT = "reject"  # candidate -> rejected + tombstone; reason required
    EDIT = "edit"  # new text (tombstone-checked), then approve
    MERGE = "merge"  # fold into an existing active fact of the same user
    KEEP_BOTH = "keep-both"  # contradiction only: both stay active, no supersession
    ACCEPT = "accept"  # contradiction only: accept the supersession (same as approve)
    RETRACT = "retract"  # proposed retraction only: retract the fact (same as approve)
    KEEP = "keep"  # proposed retraction only: the fact stays, no tombstone (same as reject)


class QueueFilter(BaseModel):
    """What an operator asks to see. `users` is the explicit scope (invariant 1, 40)."""

    model_config = ConfigDict(extra="forbid")
    users: list[str] = Field(description="one user, or several named explicitly")
    kinds: set[ItemKind] | None = None
    fact_types: set[FactType] | None = None
    min_confidence: float | None = Field(None, ge=0.0, le=1.0)
    max_confidence: float | None = Field(None, ge=0.0, le=1.0)
    min_age: timedelta | None = Field(None, description="waiting at least this long")
    max_age: timedelta | None = Field(None, description="waiting at most this long")
    text: str | None = Field(None, description="issue 34: words in the item's text "
                             "(case-insensitive substring)")
    newest_first: bool = False
    limit: int | None = Field(200, ge=1, description="items per page (None: all); `total` "
                              "and the badge counts always cover every match")
    offset: int = Field(0, ge=0)


class QueueItem(BaseModel):
    """One pending candidate as listed; `rev` is what a decision must name (invariant 42)."""

    id: str
    user_id: str
    kind: ItemKind
    rev: int
    text: str
    fact_type: str
    confidence: float
    recorded_at: datetime
    supersedes: str | None = None
    contradiction: str | None = None
    flags: list[str] = Field(default_factory=list)
    plan_id: str | None = None
    origin: str = "agent"


class QueueListing(BaseModel):
    items: list[QueueItem]
    total: int = Field(description="items matching the filter before `limit`")
    counts: dict[str, dict[str, int]] = Field(
        description="pending items per user and kind over the whole scope (badges)")


class NearFact(BaseModel):
    fact: Fact
    similarity: float


class Evidence(BaseModel):
    """Everything an operator needs to judge an item, all read within its user's scope."""

    episodes: list[Episode]
    missing_episode_ids: list[str] = Field(default_factory=list)
    replaces: Fact | None = Field(None, description="the active fact a contradiction would "
                                  "retire; for a proposed retraction, the fact it would retract")
    reason: str | None = Field(None, description="why it was proposed: the reader's reason")
    stale: str | None = Field(None, description="a proposed retraction whose fact moved on since")
    chain: list[Fact] = Field(default_factory=list, description="the chain it would join")
    nearest: list[NearFact] = Field(default_factory=list)
    plan_id: str | None = None
    plan_events: list[AuditEvent] = Field(default_factory=list)
    tombstones: list[Tombstone] = Field(default_factory=list)
    tombstone_similarity: float | None = None


class ItemDetail(BaseModel):
    item: QueueItem
    fact: Fact
    evidence: Evidence


class DecisionResult(BaseModel):
    decision: Decision
    fact: Fact = Field(description="the decided candidate as stored afterwards")
    touched: list[Fact] = Field(default_factory=list, description="other facts changed")
    tombstone: Tombstone | None = None
    event: AuditEvent


class BulkOutcome(BaseModel):
    fact_id: str
    ok: bool
    error: str | None = None
    exit_code: int | None = Field(None, description="the CLI exit code of the failure")
    result: DecisionResult | None = None


class HistoryEntry(BaseModel):
    at: datetime
    operator: str
    user_id: str
    decision: str
    fact_id: str
    text: str | None = None
    reason: str | None = None
    comment: str | None = None


class StaleItemError(ConflictError):
    """The item changed since the operator loaded it; `fresh` is its state now (None if gone).

    A ConflictError (CLI exit 5), so nothing is ever silently overwritten (invariant 42)."""

    def __init__(self, message: str, *, fresh: Fact | None, target_id: str | None = None):
        super().__init__(message, target_id=target_id)
        self.fresh = fresh
