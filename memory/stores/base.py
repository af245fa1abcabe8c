"""The store protocol: a small set of verbs every backend implements (embedded, Elasticsearch).

Semantics (supersession, tombstones, audit) live in memory.service; stores persist and search.
Mutations arrive as a list of operations applied all-or-nothing (invariant 10).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal, NamedTuple, Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..embeddings import Embedder
from ..models import (
    AuditEvent,
    CatalogDoc,
    Episode,
    Fact,
    FactState,
    MemoryKind,
    Playbook,
    Tombstone,
)

AnyMemory = Annotated[Episode | Fact | Playbook | CatalogDoc, Field(union_mode="left_to_right")]


class PutMemory(BaseModel):
    """Insert a memory. Re-putting an identical record is a no-op (retries converge)."""

    model_config = ConfigDict(extra="forbid")
    op: Literal["put"] = "put"
    doc: AnyMemory


class UpdateMemory(BaseModel):
    """Replace a memory whose stored revision is `expected_rev` (doc.rev must be one more)."""

    model_config = ConfigDict(extra="forbid")
    op: Literal["update"] = "update"
    doc: AnyMemory
    expected_rev: int


class DeleteMemory(BaseModel):
    model_config = ConfigDict(extra="forbid")
    op: Literal["delete"] = "delete"
    kind: MemoryKind
    user_id: str | None
    id: str
    expected_rev: int | None = None


class PutTombstone(BaseModel):
    model_config = ConfigDict(extra="forbid")
    op: Literal["tombstone"] = "tombstone"
    tombstone: Tombstone


class AppendAudit(BaseModel):
    model_config = ConfigDict(extra="forbid")
    op: Literal["audit"] = "audit"
    event: AuditEvent


class SetWatermark(BaseModel):
    """Advance a per-user watermark (e.g. consolidation). `expected` guards against a race."""

    model_config = ConfigDict(extra="forbid")
    op: Literal["watermark"] = "watermark"
    user_id: str
    name: str
    value: str
    expected: str | None = None


Op = Annotated[
    PutMemory | UpdateMemory | DeleteMemory | PutTombstone | AppendAudit | SetWatermark,
    Field(discriminator="op"),
]


class RecallFilter(BaseModel):
    """What a recall leg may see: one user's memories of some kinds and states, plus catalog."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    user_id: str
    kinds: frozenset[MemoryKind] = frozenset(
        {MemoryKind.EPISODIC, MemoryKind.SEMANTIC, MemoryKind.PROCEDURAL}
    )
    fact_states: frozenset[FactState] = frozenset({FactState.ACTIVE})
    include_catalog: bool = False


class LegHit(BaseModel):
    """One candidate from one retrieval leg, with the raw score that leg gave it."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    doc: AnyMemory
    score: float
    # Issue 17 (optional, additive): (session, position of the turn in it) when the store knows
    # it, so fusion can tell adjacent turns of one conversation apart from separate evidence.
    session_pos: tuple[str, int] | None = None


class FactSummary(NamedTuple):
    """A fact's listing fields without its full record: the review queue lists thousands of
    these, and decoding every full Fact would cost several times more (bench/bench_review.py)."""

    id: str
    user_id: str
    rev: int
    state: str
    text: str
    fact_type: str
    confidence: float
    recorded_at: datetime
    supersedes: str | None
    contradiction: str | None
    flags: tuple[str, ...]
    plan_id: str | None
    origin: str


class CandidateQuery(BaseModel):
    """One page of the review queue, for a store that can filter and count it in place
    (optional capability `candidate_queue`, issue 6). Item kinds follow review.queue.classify:
    flagged `previously_rejected`, else `contradiction` (supersedes set), else
    `low_confidence` (confidence below `threshold`), else `candidate`."""

    model_config = ConfigDict(extra="forbid")
    user_ids: list[str]
    threshold: float
    kinds: list[str] | None = None
    fact_types: list[str] | None = None
    min_confidence: float | None = None
    max_confidence: float | None = None
    recorded_after: datetime | None = None
    recorded_before: datetime | None = None
    newest_first: bool = False
    limit: int | None = None
    offset: int = 0


class CandidatePage(NamedTuple):
    rows: list[tuple[str, FactSummary]]  # (kind, summary), in the asked order
    total: int  # rows matching before limit/offset
    counts: dict[str, dict[str, int]]  # user -> kind -> pending, ignoring the filters


@runtime_checkable
class Store(Protocol):
    """What every backend offers. Every method that reads memories takes a user (invariant 1)."""

    url: str
    embedder: Embedder

    # reads -----------------------------------------------------------------------------
    def get(self, kind: MemoryKind, user_id: str | None, memory_id: str) -> AnyMemory | None: ...
    def owner_of(self, kind: MemoryKind, memory_id: str) -> str | None:
        """Who owns an id, for auditing denied attempts only; never returned to a caller."""
        ...
    def list_facts(
        self, user_id: str, *, states: set[FactState] | None = None, ids: list[str] | None = None
    ) -> list[Fact]: ...
    def list_episodes(
        self, user_id: str, *, after: datetime | None = None, limit: int | None = None
    ) -> list[Episode]: ...
    def list_playbooks(self, user_id: str) -> list[Playbook]: ...
    def list_catalog(self) -> list[CatalogDoc]: ...
    def list_tombstones(self, user_id: str) -> list[Tombstone]: ...
    def nearest_tombstones(
        self, user_id: str, vector: np.ndarray, k: int = 3
    ) -> list[tuple[Tombstone, float]]: ...
    def audit(
        self, user_id: str, *, limit: int = 100, action: str | None = None,
        plan_id: str | None = None,
    ) -> list[AuditEvent]: ...
    def users(self) -> list[str]: ...
    def counts(self, user_id: str) -> dict[str, dict[str, int]]:
        """{kind: {state or "all": n}} for one user; the explain view's filter breakdown."""
        ...
    def get_watermark(self, user_id: str, name: str) -> str | None: ...
    def fact_summaries(
        self, user_ids: list[str], *, states: set[FactState] | None = None
    ) -> list[FactSummary]:
        """Listing fields of the facts of the given users (each named; an empty list is empty),
        oldest first. Issue 6: the review queue's fast path."""
        ...

    # search ----------------------------------------------------------------------------
    def search_bm25(self, flt: RecallFilter, query: str, limit: int) -> list[LegHit]: ...
    def search_dense(self, flt: RecallFilter, vector: np.ndarray, limit: int) -> list[LegHit]: ...

    # writes ----------------------------------------------------------------------------
    def apply(self, ops: list[Op]) -> None:
        """Apply all operations or none; raises ConflictError on a revision mismatch."""
        ...
    def bump_usage(self, user_id: str, used: list[tuple[MemoryKind, str]], at: datetime) -> None:
        """Atomically set last_used_at and increment use_count of the (kind, id) pairs, facts and
        playbooks only (not read-modify-write; invariant 15)."""
        ...
    def close(self) -> None: ...
