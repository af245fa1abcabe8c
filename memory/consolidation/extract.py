"""What the extractor sees and what it must return: pydantic models at the LLM boundary.

The planner builds an `ExtractionInput`; any model (Anthropic or offline) returns an `Extraction`,
validated here. Malformed output fails the whole run before anything is planned (issue 5).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..models import Contradiction, FactType, coerce_fact_type


class EpisodeView(BaseModel):
    """One of the user's own messages. `new` ones are past the watermark; others are context."""

    id: str
    text: str
    timestamp: datetime
    session_id: str | None = None
    new: bool = True


class FactView(BaseModel):
    """An existing fact shown to the extractor; only these ids may be named in supersedes_id."""

    id: str
    text: str
    fact_type: FactType
    state: str
    valid_from: date | None = None


class PlaybookView(BaseModel):
    id: str
    name: str
    trigger: str
    steps: list[str]


class ExtractionInput(BaseModel):
    """Everything one extraction call sees. The user id is deliberately absent: the model never
    chooses the scope (preamble rule); the planner attaches it."""

    today: date
    episodes: list[EpisodeView]
    assistant_context: list[str] = Field(
        default_factory=list,
        description="the assistant's replies: transient context, never evidence, never stored")
    facts: list[FactView] = Field(default_factory=list)
    playbooks: list[PlaybookView] = Field(default_factory=list)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExtractedFact(_Strict):
    text: str = Field(min_length=1, max_length=500,
                      description="canonical third-person statement, e.g. 'Lives in Edinburgh'")
    fact_type: FactType
    slot: str | None = Field(None, description="the attribute it fills, e.g. 'home_city'")
    confidence: float = Field(ge=0.0, le=1.0)
    evidence: list[str] = Field(min_length=1, description="ids of the user's episodes")
    supersedes_id: str | None = Field(None, description="id of a shown fact this replaces")
    contradiction: Contradiction | None = Field(
        None, description="natural: it stopped being true; harsh: it was never true")
    valid_from: date | None = None
    valid_to: date | None = None
    reason: str = ""

    @field_validator("fact_type", mode="before")
    @classmethod
    def _coerce(cls, value: object) -> FactType:
        # Extractor synonyms land on the four stored types (invariant 12).
        return value if isinstance(value, FactType) else coerce_fact_type(value)


class ExtractedDenial(_Strict):
    """The user said something was never true. Consolidation never retracts (invariant 34):
    a denial of a believed fact shown to the extractor becomes a proposed retraction for an
    operator to retract or keep (invariant 590); one naming no such fact is a drop."""

    text: str = Field(min_length=1, description="what the user denied")
    target_id: str | None = Field(None, description="the shown fact it denies, if any")
    evidence: list[str] = Field(min_length=1)
    reason: str = ""


class ExtractedPlaybook(_Strict):
    name: str = Field(min_length=1, max_length=200)
    trigger: str = Field(min_length=1, max_length=500)
    steps: list[str] = Field(min_length=1)
    confidence: float = Field(ge=0.0, le=1.0)
    evidence: list[str] = Field(min_length=1)
    reason: str = ""


class ExtractedFeedback(_Strict):
    playbook_id: str
    outcome: Literal["success", "failure"]
    evidence: list[str] = Field(min_length=1)
    reason: str = ""


class Extraction(_Strict):
    facts: list[ExtractedFact] = Field(default_factory=list)
    denials: list[ExtractedDenial] = Field(default_factory=list)
    playbooks: list[ExtractedPlaybook] = Field(default_factory=list)
    feedback: list[ExtractedFeedback] = Field(default_factory=list)


class Usage(BaseModel):
    """Token usage of one run, recorded on the plan (zero for the offline model)."""

    mode: str
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    attempts: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    structured: str = Field("", description="how the model was held to the schema: "
                                            "forced_tool or json_schema (issue 29)")
    invalid_replies: int = Field(0, description="replies that failed the schema and were "
                                                "asked again (at most one)")

    def count(self, record: Any) -> None:
        """Add one model call's record (`memory.llm.calls.CallRecord`): attempts and tokens."""
        self.calls += 1
        self.attempts += len(record.attempts)
        self.input_tokens += record.input_tokens
        self.output_tokens += record.output_tokens
        self.cache_creation_input_tokens += record.cache_creation_input_tokens
        self.cache_read_input_tokens += record.cache_read_input_tokens


class Extractor(Protocol):
    """What consolidation asks of a model (memory.llm.LLM is one): the one extraction call."""

    mode: str

    def extract(self, request: ExtractionInput) -> tuple[Extraction, Usage]: ...
