"""What the understander returns: statements about the user, questions, and what it ignored."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, Field

FactTypeName = Literal["identity", "preference", "constraint", "world"]


class Statement(BaseModel):
    act: Literal["assert", "change", "deny", "forget"]
    text: str | None = Field(None, description="canonical value to write")
    fact_type: FactTypeName = "world"
    previous: str | None = Field(None, description="words naming the value this replaces")
    slot: str | None = Field(None, description="the single-valued attribute it fills")
    target: str | None = Field(None, description="deny/forget: words naming the memory")
    kind: str | None = Field(None, description="kind of thing it replaces (lexicon.KINDS)")
    harsh: bool = Field(False, description="the replaced value was never true")
    valid_from: date | None = None
    valid_to: date | None = None
    confidence: float = 0.85
    clause: str = ""
    rule: str = ""


class Understanding(BaseModel):
    statements: list[Statement] = Field(default_factory=list)
    questions: list[str] = Field(default_factory=list)
    other_user: str | None = Field(None, description="words asking about another user's memory")
    ignored: list[str] = Field(default_factory=list, description="clauses with nothing to keep")

    @property
    def understood(self) -> bool:
        return bool(self.statements or self.questions or self.other_user)
