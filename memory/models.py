"""Pydantic models at the boundary: memories, tombstones and audit events. Data only, no I/O."""

from __future__ import annotations

import re
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from .clock import as_utc, new_id, utcnow
from .inputs import first_invisible

CATALOG = "catalog"  # the owner-less scope; never a user id (see text.require_user)
# A candidate's flag: its value restates a tombstoned one (review shows it with its history).
PREVIOUSLY_REJECTED = "previously_rejected"
# A candidate's flag: it proposes to retract the fact in `supersedes` (the user may have said it
# was never true); its text is that fact's, never a value to believe (invariant 591).
PROPOSED_RETRACTION = "proposed_retraction"


class MemoryKind(StrEnum):
    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"
    CATALOG = "catalog"


class FactType(StrEnum):
    PREFERENCE = "preference"
    IDENTITY = "identity"
    CONSTRAINT = "constraint"
    WORLD = "world"


class FactState(StrEnum):
    CANDIDATE = "candidate"  # proposed, waiting for review; never in agent recall
    ACTIVE = "active"  # believed now
    SUPERSEDED = "superseded"  # no longer true; kept as history
    RETRACTED = "retracted"  # never true (the user denied it); tombstoned
    REJECTED = "rejected"  # never true (an operator refused the candidate); tombstoned


class Contradiction(StrEnum):
    NATURAL = "natural"  # it was true and stopped being true
    HARSH = "harsh"  # it was never true


class TombstoneKind(StrEnum):
    RETRACTED = "retracted"
    REJECTED = "rejected"


# Words an extractor may use for a fact type, mapped onto the four we store. Anything else is
# refused: a raw, unknown type never reaches the store (invariant 12).
_FACT_TYPE_SYNONYMS = {
    "preferences": "preference", "like": "preference", "likes": "preference",
    "dislike": "preference", "taste": "preference", "opinion": "preference",
    "identities": "identity", "personal": "identity", "profile": "identity",
    "biography": "identity", "location": "identity", "job": "identity",
    "constraints": "constraint", "allergy": "constraint", "restriction": "constraint",
    "diet": "constraint", "rule": "constraint", "requirement": "constraint",
    "fact": "world", "facts": "world", "possession": "world", "device": "world",
    "event": "world", "situation": "world", "state": "world",
}


def coerce_fact_type(raw: object) -> FactType:
    """Map a model-supplied type onto FactType, or raise ValueError for an unknown one."""
    key = str(raw).strip().lower()
    key = _FACT_TYPE_SYNONYMS.get(key, key)
    try:
        return FactType(key)
    except ValueError:
        allowed = ", ".join(t.value for t in FactType)
        raise ValueError(f"unknown fact type {raw!r}; expected one of: {allowed}") from None


def _utc(value: datetime | None) -> datetime | None:
    return None if value is None else as_utc(value)


UTC = Annotated[datetime, AfterValidator(as_utc)]
OptUTC = Annotated[datetime | None, AfterValidator(_utc)]
Confidence = Annotated[float, Field(ge=0.0, le=1.0)]


class Record(BaseModel):
    """Common shape: an id, an owner (None only for catalog) and a revision for concurrency."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: str
    user_id: str | None
    rev: int = Field(1, ge=1, description="bumped on every update; optimistic concurrency key")

    # Per-kind behaviour lives on the kinds (issue 10): adding a kind touches its model and
    # the stores' schemas, not branches spread through the code.
    KIND: ClassVar[MemoryKind]
    TRACKS_USE: ClassVar[bool] = False  # agent recall bumps use_count / last_used_at
    OWNED: ClassVar[bool] = True  # False: shared, no owner (the catalog)

    @property
    def kind(self) -> MemoryKind:
        return self.KIND

    @property
    def trust(self) -> FactState | None:
        """The trust state, for kinds that have one (facts)."""
        return None

    def search_text(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    def decay_time(self) -> datetime | None:
        """Which clock recall's time decay reads (memory/ranking.py); None: no decay."""
        return None

    def label(self) -> str:
        """A short tag for displays and prompts: the kind, or a fact's type."""
        return self.KIND.value

    def display_text(self) -> str:
        """The memory as one line of text for people and models."""
        return self.search_text()


class Episode(Record):
    """One message the user wrote. Assistant replies are never evidence (invariant 9)."""

    id: str = Field(default_factory=lambda: new_id("ep"))
    user_id: str
    role: Literal["user"] = "user"
    text: str
    timestamp: UTC = Field(default_factory=utcnow, description="when the user said it")
    session_id: str | None = None
    recorded_at: UTC = Field(default_factory=utcnow)

    KIND: ClassVar[MemoryKind] = MemoryKind.EPISODIC

    def search_text(self) -> str:
        return self.text

    def decay_time(self) -> datetime | None:
        return self.timestamp  # episodes fade from when they were said


class Fact(Record):
    """A semantic fact with a trust state and two clocks (valid time and record time)."""

    id: str = Field(default_factory=lambda: new_id("fact"))
    user_id: str
    text: str
    fact_type: FactType = FactType.WORLD
    confidence: Confidence = 0.8
    state: FactState = FactState.ACTIVE
    source_episode_ids: list[str] = Field(default_factory=list)
    supersedes: str | None = Field(None, description="id of the fact this one replaced")
    superseded_by: str | None = Field(None, description="id of the fact that replaced this one")
    contradiction: Contradiction | None = Field(
        None, description="how this fact replaced `supersedes`: natural or harsh"
    )
    recorded_at: UTC = Field(default_factory=utcnow, description="record time: learned")
    superseded_at: OptUTC = Field(None, description="record time: stopped being believed")
    valid_from: OptUTC = Field(None, description="valid time: only when the user's words date it")
    valid_to: OptUTC = None
    last_used_at: OptUTC = None
    use_count: int = Field(0, ge=0)
    origin: str = Field("agent", description="agent | consolidation | operator:NAME | cli | seed")
    plan_id: str | None = None
    flags: list[str] = Field(default_factory=list, description="e.g. previously_rejected")
    # Issue 32 (invariant 490): which reader proposed it, with its version; written only when
    # set, so every earlier record (seed data, content-derived ids) serialises as before.
    reader: str | None = Field(None, exclude_if=lambda v: v is None,
                               description="e.g. offline-reader@HASH or anthropic:MODEL")

    @field_validator("fact_type", mode="before")
    @classmethod
    def _coerce_type(cls, value: object) -> FactType:
        return value if isinstance(value, FactType) else coerce_fact_type(value)

    @model_validator(mode="after")
    def _interval(self) -> Fact:
        if self.valid_from and self.valid_to and self.valid_to < self.valid_from:
            raise ValueError(
                f"valid_to {self.valid_to.date()} is before valid_from {self.valid_from.date()}"
            )
        return self

    KIND: ClassVar[MemoryKind] = MemoryKind.SEMANTIC
    TRACKS_USE: ClassVar[bool] = True

    @property
    def trust(self) -> FactState | None:
        return self.state

    def search_text(self) -> str:
        return self.text

    def decay_time(self) -> datetime | None:
        return self.last_used_at  # facts fade from their last use

    def label(self) -> str:
        return self.fact_type.value


class Playbook(Record):
    """A procedure that worked (or did not) for this user, with outcome counts."""

    id: str = Field(default_factory=lambda: new_id("pb"))
    user_id: str
    name: str
    trigger: str = Field(description="the situation in which to use it")
    steps: list[str]
    success_count: int = Field(0, ge=0)
    failure_count: int = Field(0, ge=0)
    version: int = Field(1, ge=1, description="content version: bumped when steps change")
    confidence: Confidence = 0.8
    source_episode_ids: list[str] = Field(default_factory=list)
    recorded_at: UTC = Field(default_factory=utcnow)
    updated_at: UTC = Field(default_factory=utcnow)
    last_used_at: OptUTC = None
    use_count: int = Field(0, ge=0)

    KIND: ClassVar[MemoryKind] = MemoryKind.PROCEDURAL
    TRACKS_USE: ClassVar[bool] = True

    def search_text(self) -> str:
        steps = " ".join(self.steps)
        return f"{self.name}. {self.trigger}. {steps}"

    def display_text(self) -> str:
        return f"{self.name}: when {self.trigger}: " + "; ".join(self.steps)


class CatalogDoc(Record):
    """A shared product or help document. It has no owner and every user may recall it."""

    id: str = Field(default_factory=lambda: new_id("cat"))
    user_id: None = None
    title: str
    text: str
    tags: list[str] = Field(default_factory=list)
    recorded_at: UTC = Field(default_factory=utcnow)

    KIND: ClassVar[MemoryKind] = MemoryKind.CATALOG
    OWNED: ClassVar[bool] = False

    def search_text(self) -> str:
        return f"{self.title}. {self.text}"

    def display_text(self) -> str:
        return f"{self.title}: {self.text}"


Memory = Episode | Fact | Playbook | CatalogDoc
# The same union for validation: tried in order, so a record keeps its own type.
AnyMemory = Annotated[Episode | Fact | Playbook | CatalogDoc, Field(union_mode="left_to_right")]
MODEL_BY_KIND: dict[MemoryKind, type[Record]] = {
    m.KIND: m for m in (Episode, Fact, Playbook, CatalogDoc)}
TRACKS_USE = frozenset(k for k, m in MODEL_BY_KIND.items() if m.TRACKS_USE)


class Tombstone(BaseModel):
    """A value the user or an operator declared never true; the write path consults it."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(default_factory=lambda: new_id("tomb"))
    user_id: str
    text: str
    normalized: str
    kind: TombstoneKind
    source_fact_id: str | None = None
    reason: str | None = None
    actor: str
    created_at: UTC = Field(default_factory=utcnow)
    forgotten: bool = Field(False, description="text erased; `normalized` holds a keyed hash "
                            "that still refuses the exact value (memory/redaction.py)")
    claim_key: str | None = Field(None, description="forgotten only: a keyed hash of the "
                                  "value's canonical claim, refusing its paraphrases (inv. 176)")

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Issue 11: the flag is written only when set, so every earlier record (seed data,
        # migrations, content-derived ids) serialises exactly as before.
        out = handler(self)
        if not self.forgotten:
            out.pop("forgotten", None)
        if self.claim_key is None:
            out.pop("claim_key", None)
        return out


# Who acts: a system component, a local CLI user (cli:NAME), a desk operator (operator:NAME or
# operator:EMAIL when login is on) or an MCP token (mcp:TOKEN_ID).
_ACTOR = re.compile(r"^(agent|consolidation|cli|seed|migrate|cli:[^\s:][^:]{0,63}|"
                    r"operator:[^\s:][^:]{0,127}|mcp:[A-Za-z0-9_-]{1,64})$")


def check_actor(actor: str) -> str:
    # Issue 11 (invariant 68): an operator name is shown in audit views; nothing invisible.
    if not isinstance(actor, str) or not _ACTOR.match(actor) or first_invisible(actor):
        raise ValueError(
            f"invalid actor {actor!r}: expected agent | consolidation | cli[:NAME] | seed | "
            "migrate | operator:NAME | mcp:TOKEN_ID"
        )
    return actor


class AuditEvent(BaseModel):
    """One appended line of the mutation log. There is no delete path (invariant 8)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(default_factory=lambda: new_id("aud"))
    at: UTC = Field(default_factory=utcnow)
    actor: Annotated[str, AfterValidator(check_actor)]
    user_id: str
    action: str = Field(description="e.g. write_fact, supersede, retract, forget, denied")
    target_ids: list[str] = Field(default_factory=list)
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    reason: str | None = None
    plan_id: str | None = None
    outcome: Literal["ok", "denied", "refused"] = "ok"
    comment: str | None = Field(None, description="an operator's free-text note (review decisions)")


class LegHit(BaseModel):
    """One candidate from one retrieval leg, with the raw score that leg gave it. BM25 scores
    are the engine's (higher is better); a dense hit's score is (1 + cosine) / 2, in [0, 1],
    and its cosine is also given as is."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    doc: AnyMemory
    score: float
    cosine: float | None = None
    # Issue 17: (session, position of the turn in it) when the store knows it, so fusion can tell
    # adjacent turns of one conversation apart from separate evidence.
    session_pos: tuple[str, int] | None = None
    # Third pass (invariant 154): the query terms this document's BM25 text holds, its session
    # context and source words included, when the store can tell (the best few hits only).
    matched: frozenset[str] | None = None
    # Fourth pass (invariant 154): each query term's IDF in the user's corpus, on the first hit.
    term_idf: dict[str, float] | None = None


def snapshot(record: BaseModel | None) -> dict[str, Any] | None:
    """JSON-safe dump for audit before/after."""
    return None if record is None else record.model_dump(mode="json")
