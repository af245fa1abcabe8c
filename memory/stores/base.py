"""The store protocol: a small set of verbs every backend implements (embedded, Elasticsearch).

Semantics (supersession, tombstones, audit) live in memory.service; stores persist and search.
Mutations arrive as a list of operations applied all-or-nothing (invariant 10).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Literal, NamedTuple, Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..credentials import Credential
from ..embeddings import Embedder
from ..models import (
    AnyMemory,
    AuditEvent,
    CatalogDoc,
    Episode,
    Fact,
    FactState,
    LegHit,
    MemoryKind,
    Playbook,
    Tombstone,
)
from ..values import TombstoneProbe

if TYPE_CHECKING:
    from ..ranking import RankedHit
    from ..redaction import Erasure
    from ..search_config import RankingParams



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
    """Advance a per-user watermark (e.g. consolidation). `expected` guards against a race.
    A copied history (migration, import) converges on a value already there; a `strict` move
    (a consolidation run, its undo) is compare-and-set: the value it read, or a conflict, even
    when another run already moved it to the same value (invariant 38)."""

    model_config = ConfigDict(extra="forbid")
    op: Literal["watermark"] = "watermark"
    user_id: str
    name: str
    value: str
    expected: str | None = None
    strict: bool = False


class PutCredential(BaseModel):
    """Issue 15: store a bearer credential (hashed; memory/credentials.py). `expected_rev` None
    inserts a new one (an identical re-put converges); otherwise it replaces the stored record
    at that revision (revocation), like UpdateMemory."""

    model_config = ConfigDict(extra="forbid")
    op: Literal["credential"] = "credential"
    credential: Credential
    expected_rev: int | None = None


Op = Annotated[
    PutMemory | UpdateMemory | DeleteMemory | PutTombstone | AppendAudit | SetWatermark
    | PutCredential,
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


class FactQuery(BaseModel):
    """A page of fact summaries of named users (an empty list is empty, never "everyone"),
    filtered in the store. Ordered by record time, then id."""

    model_config = ConfigDict(extra="forbid")
    user_ids: list[str]
    states: frozenset[FactState] | None = None
    fact_types: frozenset[str] | None = None
    min_confidence: float | None = None
    max_confidence: float | None = None
    recorded_after: datetime | None = None
    recorded_before: datetime | None = None
    text: str | None = Field(None, description="case-insensitive substring of the fact text")
    newest_first: bool = False
    limit: int | None = Field(None, ge=0)
    offset: int = Field(0, ge=0)
    # Generic traits (`trait_code`): a caller that sorts facts into its own categories (the
    # review queue's kinds) asks for counts per trait code and a page of some codes only, so the
    # store filters and counts in place without knowing the categories.
    trait_lead: str | None = Field(None, description="trait 8: this flag is present")
    trait_flag: str | None = Field(None, description="trait 4: this flag is present")
    trait_below: float | None = Field(None, description="trait 1: confidence below this")
    traits: frozenset[int] | None = Field(None, description="only rows with these trait codes")


def trait_code(s: FactSummary, flag: str | None, below: float | None,
               lead: str | None = None) -> int:
    """8 if `lead` is among the flags, + 4 if `flag` is, + 2 if the fact proposes to supersede
    another, + 1 if its confidence is below `below`. Pure; the embedded store computes the same
    in SQL."""
    return ((8 if lead is not None and lead in s.flags else 0)
            + (4 if flag is not None and flag in s.flags else 0) + (2 if s.supersedes else 0)
            + (1 if below is not None and s.confidence < below else 0))


class FactPage(NamedTuple):
    rows: list[FactSummary]  # the page, in the asked order
    total: int  # rows matching before limit/offset
    counts: dict[str, dict[str, int]]  # user -> state -> facts in the users/states scope,
    #                                    ignoring the other filters (badges)
    trait_counts: dict[str, dict[int, int]] = {}  # user -> trait code -> facts, likewise


class Capability(StrEnum):
    """Optional abilities of a backend, declared rather than probed (invariant 19)."""

    HYBRID_SEARCH = "hybrid_search"  # one-request hybrid ranking on the server (`hybrid_search`)
    TRANSACTIONS = "transactions"  # `apply` is one multi-document transaction (rollback)
    PER_USER_KEYS = "per_user_keys"  # reads can run under a per-user credential (DLS)
    WEIGHTED_TERMS = "weighted_terms"  # `search_bm25(extra=...)` scores analysed terms (inv. 169)
    SCANS_ERASED = "scans_erased"  # `compact(texts)` scans its own files for them (inv. 459)


@runtime_checkable
class Store(Protocol):
    """What every backend offers. Every method that reads memories takes a user (invariant 1)."""

    url: str
    embedder: Embedder

    # read-only: a class attribute on one backend, a property (licence-dependent) on another
    @property
    def capabilities(self) -> frozenset[Capability]: ...
    @property
    def recall_path(self) -> str:
        """How recall runs on this backend, for explain."""
        ...

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
    def tombstone_candidates(
        self, user_id: str, probe: TombstoneProbe,
        vector: np.ndarray | Callable[[], np.ndarray], k: int = 5, *, limit: int = 20,
    ) -> list[tuple[Tombstone, float | None]]:
        """Issue 11 (invariant 63): the tombstones that may concern one text, found by index
        (canonical key, normalised text, slot terms) plus the k nearest by vector; each with
        its cosine where known. Never a scan of the user's tombstones. `vector` may be a
        function, called only when there are vectors to compare."""
        ...
    def audit(
        self, user_id: str, *, limit: int = 100, action: str | None = None,
        plan_id: str | None = None,
    ) -> list[AuditEvent]: ...
    def users(self) -> list[str]: ...
    def counts(self, user_id: str) -> dict[str, dict[str, int]]:
        """{kind: {state or "all": n}} for one user; the explain view's filter breakdown."""
        ...
    def get_watermark(self, user_id: str, name: str) -> str | None: ...
    def watermarks(self, user_id: str) -> dict[str, str]: ...
    def fact_summaries(self, query: FactQuery) -> FactPage:
        """Listing fields of facts, filtered, counted and paged in the store (the review queue
        and the facts table list thousands of these; classification is review's, not ours)."""
        ...
    # every scope with audit events or watermarks (migration, export: nothing is missed)
    def audit_users(self) -> list[str]: ...
    def watermark_users(self) -> list[str]: ...
    def audit_count(self, user_id: str) -> int: ...
    # issue 15: bearer credentials (hashed). Not memories: looked up by token id when a token
    # is presented, listed for one user or (user_id None, the admins' list) for all.
    def get_credential(self, credential_id: str) -> Credential | None: ...
    def list_credentials(self, user_id: str | None = None) -> list[Credential]: ...

    # search ----------------------------------------------------------------------------
    def search_bm25(self, flt: RecallFilter, query: str, limit: int, *,
                    extra: Mapping[str, float] | None = None) -> list[LegHit]:
        """BM25 over the user's visible corpus; `extra` maps analysed terms (the lexicon's
        expansions of the query, invariant 169) to the weight each scores at. A store that uses
        it declares `Capability.WEIGHTED_TERMS`, and only then does recall send any (both do:
        Elasticsearch as plain words, `lexicon.words_of`)."""
        ...
    def user_names(self, user_id: str) -> frozenset[str]:
        """The user's own names, from their active facts that name them ("Her name is Maya"),
        dropped from recall queries as references (invariant 153); empty where not kept."""
        ...
    def search_dense(self, flt: RecallFilter, vector: np.ndarray, limit: int) -> list[LegHit]:
        """Dense hits; `LegHit.score` is (1 + cosine) / 2 and `LegHit.cosine` the cosine."""
        ...
    def hybrid_search(self, flt: RecallFilter, query: str, vector: np.ndarray, limit: int,
                      now: datetime, ranking: RankingParams, *, explain: bool = False,
                      extra: Mapping[str, float] | None = None) -> list[RankedHit] | None:
        """Only with Capability.HYBRID_SEARCH: both legs and the fusion in one request, ranked
        like memory/ranking.py (invariant 21). None when the server refuses it (licence).
        `extra`: the lexicon's weighted expansions, as `search_bm25` takes them (invariant 169)."""
        ...

    # writes ----------------------------------------------------------------------------
    def apply(self, ops: list[Op]) -> None:
        """Apply all operations or none; raises ConflictError on a revision mismatch."""
        ...
    def bump_usage(self, user_id: str, used: list[tuple[MemoryKind, str]], at: datetime) -> None:
        """Atomically set last_used_at and increment use_count of the (kind, id) pairs, facts and
        playbooks only (not read-modify-write; invariant 15)."""
        ...
    def contradicted_sources(self, user_id: str, episode_ids: list[str]) -> set[str]:
        """Which of these episodes are a source of a retracted or rejected fact of the user
        (not one merged away): hidden from agent recall (invariant 65, kills_its_sources)."""
        ...

    # erasure (issue 11, invariants 66-67) ------------------------------------------------------
    def value_key(self, *, create: bool = False) -> bytes | None:
        """The store's secret for keyed hashes of forgotten tombstone values."""
        ...
    def adopt_value_key(self, key: bytes) -> None:
        """Take another store's secret (migration: forgotten values stay refused)."""
        ...
    def redact(self, user_id: str, erasure: Erasure) -> dict[str, int]:
        """Replace the erased texts in audit snapshots and tombstones of the user; counts."""
        ...
    def erase_user(self, user_id: str, event: AuditEvent) -> dict[str, int]:
        """Delete everything the user owns and its history (and its credentials, issue 15),
        leaving `event`; counts."""
        ...
    def compact(self, texts: Sequence[str] = ()) -> list[str]:
        """Make deleted text unrecoverable from the storage files; where some may linger (the
        embedded store scans its files for `texts`, invariant 459)."""
        ...
    def data_version(self) -> int | None:
        """A number that changes whenever any process commits a write (caches key on it), or
        None where the backend has none (caches then expire by time)."""
        ...
    def refresh(self) -> None:
        """Make every write visible to searches (a no-op where writes are visible at once)."""
        ...
    def close(self) -> None: ...


def page_summaries(scope: list[FactSummary], query: FactQuery) -> FactPage:
    """Filter, count and page summaries already limited to the query's users and states: for
    a backend that cannot do it in place. Pure; the embedded store's SQL must agree with it."""
    counts: dict[str, dict[str, int]] = {}
    traits: dict[str, dict[int, int]] = {}
    text = query.text.lower() if query.text else None
    rows = []
    for s in scope:
        counts.setdefault(s.user_id, {}).setdefault(s.state, 0)
        counts[s.user_id][s.state] += 1
        code = trait_code(s, query.trait_flag, query.trait_below, query.trait_lead)
        traits.setdefault(s.user_id, {}).setdefault(code, 0)
        traits[s.user_id][code] += 1
        if (query.traits is not None and code not in query.traits) \
                or (query.fact_types and s.fact_type not in query.fact_types) \
                or (query.min_confidence is not None and s.confidence < query.min_confidence) \
                or (query.max_confidence is not None and s.confidence > query.max_confidence) \
                or (query.recorded_after and s.recorded_at < query.recorded_after) \
                or (query.recorded_before and s.recorded_at > query.recorded_before) \
                or (text and text not in s.text.lower()):
            continue
        rows.append(s)
    rows.sort(key=lambda f: (f.recorded_at, f.id), reverse=query.newest_first)
    end = None if query.limit is None else query.offset + query.limit
    return FactPage(rows[query.offset:end], len(rows), counts, traits)
