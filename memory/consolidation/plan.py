"""The Plan: a consolidation run as a value — ordered operations, gate decisions, diff, JSON.

Nothing here does I/O. A plan is made by `planner.make_plan` and applied by `apply.apply_plan`.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from ..clock import parse_when
from ..errors import MemdeskError
from ..models import Fact, Playbook
from .extract import Usage

WATERMARK = "consolidation"


def stable_id(prefix: str, *parts: object, n: int = 20) -> str:
    """A deterministic id: the same plan yields the same ids, so a retried apply converges."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()
    return f"{prefix}_{digest[:n]}"


class OpKind(StrEnum):
    ADD_FACT = "add_fact"  # a new fact, active or candidate (review)
    SUPERSEDE = "supersede"  # a new active fact retires `old` (natural: kept as history)
    ADD_PLAYBOOK = "add_playbook"
    UPDATE_PLAYBOOK = "update_playbook"  # outcome counts or new steps
    DROP = "drop"  # something the extractor proposed that a gate refused
    # a denial of a fact on record, for an operator to retract or keep (invariants 34, 590)
    PROPOSE_RETRACTION = "propose_retraction"


class GateDecision(BaseModel):
    """One gate's verdict on one extracted item, with its reason (issue 5: every gate records)."""

    gate: str
    subject: str
    decision: str = Field(description="pass | drop | review | strip | attach | merge")
    reason: str


class PlanOp(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    kind: OpKind
    evidence: list[str] = Field(default_factory=list)
    reason: str = Field("", description="the model's stated reason")
    review: str | None = Field(None, description="why the policy sends it to review")
    fact: Fact | None = Field(None, description="the fact as it will be written")
    old: Fact | None = Field(None, description="the fact it retires, as read when planning")
    playbook: Playbook | None = Field(None, description="the playbook as it will be written")
    old_playbook: Playbook | None = None
    subject: str | None = Field(None, description="for a drop: what was dropped")
    gate: str | None = Field(None, description="for a drop: the gate that refused it")

    @property
    def actionable(self) -> bool:
        return self.kind != OpKind.DROP

    @property
    def written(self) -> str:
        """What the operation writes, as the desk names it: the fact's text or the playbook's
        name (a drop writes nothing: what was dropped)."""
        if self.fact is not None:
            return self.fact.text
        if self.playbook is not None:
            return self.playbook.name
        return self.subject or ""


class Plan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    user_id: str
    created_at: datetime
    llm_mode: str
    usage: Usage
    policy: dict
    policy_text: str
    watermark_before: str | None
    watermark_after: str | None
    episode_ids: list[str] = Field(default_factory=list, description="new episodes considered")
    tombstone_ids: list[str] = Field(default_factory=list,
                                     description="the user's tombstones when planned (staleness)")
    ops: list[PlanOp] = Field(default_factory=list)
    gates: list[GateDecision] = Field(default_factory=list)

    def actionable(self) -> list[PlanOp]:
        return [op for op in self.ops if op.actionable]

    def op(self, op_id: str) -> PlanOp:
        for op in self.ops:
            if op.id == op_id:
                return op
        raise KeyError(op_id)

    def to_json(self) -> str:
        return json.dumps(self.model_dump(mode="json"), indent=2, ensure_ascii=False)

    def render_diff(self) -> str:
        """Before → after for every touched fact and playbook, then drops with their gate."""
        head = (f"plan {self.id} for {self.user_id} · model {self.llm_mode} · "
                f"{len(self.episode_ids)} new episodes · tokens in/out "
                f"{self.usage.input_tokens}/{self.usage.output_tokens}")
        lines = [head, f"policy: {self.policy_text}",
                 f"consolidated so far: {watermark_words(self.watermark_before)}; applying "
                 + (f"moves it to {watermark_words(self.watermark_after)}"
                    if self.watermark_after else "leaves it there")]
        if not self.ops:
            lines.append("nothing to do")
        for op in self.ops:
            lines += render_op(op)
        return "\n".join(lines)


def _fact_line(f: Fact) -> str:
    dates = ""
    if f.valid_from or f.valid_to:
        dates = (f" valid {f.valid_from.date() if f.valid_from else '…'}→"
                 f"{f.valid_to.date() if f.valid_to else '…'}")
    flags = f" flags={','.join(f.flags)}" if f.flags else ""
    return f"{f.text!r} [{f.state.value}/{f.fact_type.value} {f.confidence:.2f}]{dates}{flags}"


def render_op(op: PlanOp) -> list[str]:
    ev = f"  evidence {', '.join(op.evidence)}" if op.evidence else ""
    why = f"  — {op.reason}" if op.reason else ""
    review = f"  ⚑ review: {op.review}" if op.review else ""
    if op.kind == OpKind.ADD_FACT and op.fact:
        sup = ""
        if op.fact.supersedes:
            target = op.old.text if op.old else op.fact.supersedes
            sup = f" (would replace {target!r}, {op.fact.contradiction.value if op.fact.contradiction else 'natural'})"
        return [f"+ [{op.id}] add {_fact_line(op.fact)}{sup}{ev}{why}{review}"]
    if op.kind == OpKind.PROPOSE_RETRACTION and op.fact:
        return [f"? [{op.id}] propose retracting {op.fact.text!r} ({op.fact.supersedes}): the "
                f"user may have said it was never true{ev}{why}{review}"]
    if op.kind == OpKind.SUPERSEDE and op.fact and op.old:
        return [f"~ [{op.id}] {_fact_line(op.old)}", f"    → {_fact_line(op.fact)}{ev}{why}"]
    if op.kind == OpKind.ADD_PLAYBOOK and op.playbook:
        pb = op.playbook
        return [f"+ [{op.id}] playbook {pb.name!r} when {pb.trigger!r}: "
                + " → ".join(pb.steps) + f" (confidence {pb.confidence:.2f}){ev}{why}"]
    if op.kind == OpKind.UPDATE_PLAYBOOK and op.playbook and op.old_playbook:
        a, b = op.old_playbook, op.playbook
        return [(f"~ [{op.id}] playbook {a.name!r}: success {a.success_count}→{b.success_count}, "
                f"failure {a.failure_count}→{b.failure_count}, version {a.version}→{b.version}{ev}{why}")]
    return [f"- [{op.id}] drop {op.subject!r} (gate {op.gate}){why}{ev}"]


def parse_watermark(value: str | None) -> tuple[datetime | None, datetime | None]:
    """"SAID|STORED": the latest episode timestamp and record time consolidated so far."""
    if not value:
        return None, None
    said, _, stored = value.partition("|")
    return (parse_when(said, field="watermark"),
            parse_when(stored, field="watermark") if stored else None)


def watermark_words(value: str | None) -> str:
    """A consolidation watermark ("SAID|STORED") as an operator reads it: up to which episode
    time consolidation has read. Never the raw pair of timestamps (desk and CLI alike)."""
    if not value:
        return "nothing yet"
    try:
        said, _stored = parse_watermark(value)
    except MemdeskError:
        return value
    return f"episodes up to {said:%Y-%m-%d %H:%M} UTC" if said else "nothing yet"

