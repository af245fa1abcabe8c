"""Which writes go to review instead of straight to active (issue 5). A value held by the
runtime and the service (`service.policy`), used by consolidation, the agent and the review queue
alike; it lives in `memory` so no lower layer imports `review`.

A value, shown on every plan. Defaults: harsh contradictions always wait (consolidation never
retracts, invariant 34), facts below MEMDESK_REVIEW_CONFIDENCE wait, restatements of a
tombstoned value wait flagged "previously_rejected" (or are dropped), and a run retires at most
MEMDESK_MAX_RETIRE_PER_RUN facts; supersessions beyond that wait.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .settings import Settings


class ReviewPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    min_confidence: float = Field(0.7, ge=0.0, le=1.0,
                                  description="facts below this confidence go to review")
    natural_supersessions: Literal["apply", "review"] = Field(
        "apply", description="a dated change of an active fact: apply directly or review")
    previously_rejected: Literal["review", "drop"] = Field(
        "review", description="a restated tombstoned value: candidate flagged, or dropped")
    max_retire_per_run: int = Field(3, ge=0, description="supersessions applied per run")
    min_playbook_confidence: float = Field(0.8, ge=0.0, le=1.0,
                                           description="new playbooks need at least this")

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: object) -> ReviewPolicy:
        return cls.model_validate({"min_confidence": settings.review_confidence,
                                   "max_retire_per_run": settings.max_retire_per_run,
                                   **overrides})

    def describe(self) -> str:
        return (f"review if confidence < {self.min_confidence:.2f}; harsh contradictions → review "
                f"(always); natural supersessions → {self.natural_supersessions}, at most "
                f"{self.max_retire_per_run} per run; previously rejected → "
                f"{self.previously_rejected}; new playbooks need confidence ≥ "
                f"{self.min_playbook_confidence:.2f}")
