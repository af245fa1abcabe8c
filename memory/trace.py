"""What one agent turn did, as data: the trace the chat page, the CLI and the eval read (issue 12).

Models only, plus pure renderings (a small diff of the writes, a text summary). Nothing here
touches a store.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, Field

from .llm.calls import Attempt
from .tools import HitView, ToolResult, WriteRecord


class CoreItem(BaseModel):
    """A fact put in the system prompt before the turn, and which quota chose it."""

    id: str
    text: str
    fact_type: str
    why: Literal["recent", "used", "age"]


class ToolCall(BaseModel):
    step: int
    call_id: str
    name: str
    pre: bool = Field(False, description="the pre-recall on the verbatim message, made for "
                                         "the model before its first step")
    result: ToolResult
    ms: float = 0.0


class StepRecord(BaseModel):
    step: int
    kind: Literal["episode", "core", "pre_recall", "model", "tools", "consolidation"]
    ms: float
    input_tokens: int = 0
    output_tokens: int = 0
    # issue 29, on model steps: how the call ended, what it cost, and the SDK's retries
    stop_reason: str = ""
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    attempts: list[Attempt] = Field(default_factory=list)
    request_id: str = ""
    note: str = ""


class TokenUsage(BaseModel):
    calls: int = 0
    input_tokens: int = Field(0, description="input tokens outside the cache")
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    retries: int = Field(0, description="HTTP attempts the SDK retried")

    def add(self, other: TokenUsage) -> None:
        for name in type(self).model_fields:
            setattr(self, name, getattr(self, name) + getattr(other, name))


class ConsolidationRun(BaseModel):
    trigger: str = Field(description="the setting that ran it: every_turn or every_N")
    plan_id: str | None = None
    ops: int = 0
    applied: int = 0
    diff: str = ""
    error: str | None = None


class TurnTrace(BaseModel):
    turn_id: str
    user_id: str
    session_id: str
    message: str
    episode_id: str | None = None
    reply: str = ""
    mode: str = ""
    started_at: datetime
    today: date
    core_memory: list[CoreItem] = Field(default_factory=list)
    pre_recall: ToolCall | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    consolidation: ConsolidationRun | None = None
    usage: TokenUsage = Field(default_factory=TokenUsage)
    steps: list[StepRecord] = Field(default_factory=list)
    understood: bool | None = Field(None, description="offline agent: did it read anything")
    episode_forgotten: bool = Field(False, description="this turn asked to forget and its own "
                                    "message was forgotten too (invariant 75)")
    error: str | None = None
    error_code: int | None = None
    stop_reason: str | None = Field(None, description="the model's last stop_reason (or "
                                    "finish_reason) this turn")
    cut_off: bool = Field(False, description="the model's answer was cut off at its token "
                          "limit; no tool call of it ran (invariant 430)")
    fallback: str | None = Field(None, description="MEMDESK_LLM=auto ran the offline reader "
                                 "instead of a model, and why (invariant 438)")

    def calls(self) -> list[ToolCall]:
        return ([self.pre_recall] if self.pre_recall else []) + self.tool_calls

    def writes(self) -> list[WriteRecord]:
        return [w for c in self.calls() for w in c.result.writes]

    def scope_attempts(self) -> list[dict]:
        """Tool calls in which the model tried to choose whose memory to touch (invariant 70)."""
        return [{"call_id": c.call_id, "tool": c.name, "ignored": c.result.stripped}
                for c in self.calls() if c.result.stripped]

    def recalled(self) -> list[HitView]:
        seen, out = set(), []
        for c in self.calls():
            for h in c.result.hits:
                if h.id not in seen:
                    seen.add(h.id)
                    out.append(h)
        return out


def diff_line(w: WriteRecord) -> str:
    """One write as a diff line: + new, ~ old -> new, x retracted, - forgotten, ! review."""
    dates = ""
    if w.valid_from or w.valid_to:
        dates = f"  [valid {w.valid_from or '…'} → {w.valid_to or '…'}]"
    mark = {"review": "⚑ review ", "refused": "✗ refused ", "duplicate": "= already known "}.get(
        w.status, "")
    ident = f" ({w.memory_id})" if w.memory_id else ""
    if w.status == "duplicate":
        return f"= already known {w.text!r}{ident}: nothing written"
    if w.op == "forget":
        also = "".join(f"\n  - and the message it was said in: {e}" for e in w.also_forgotten)
        return (f"- {mark}forgot {w.kind or 'memory'} {w.old_id} (audit keeps its id and a "
                f"hash){also}")
    if w.op == "playbook":
        return f"+ {mark}playbook {w.text!r}{ident}"
    if w.op == "retract" and not w.text and w.status == "review":  # invariant 590
        return (f"? {mark}proposed retracting {w.old_text!r} ({w.old_id}) as item "
                f"{w.memory_id}: still on record until an operator retracts or keeps it")
    if w.op == "retract" and not w.text:
        return f"x {mark}retracted {w.old_text!r} ({w.old_id}): never true; tombstoned"
    if w.op == "retract":
        return (f"x {mark}{w.old_text!r} ({w.old_id}) retracted (never true)\n"
                f"  + {w.text!r}{ident}{dates}")
    if w.op == "supersede":
        return f"~ {mark}{w.old_text!r} ({w.old_id}) superseded\n  → {w.text!r}{ident}{dates}"
    return f"+ {mark}{w.text!r}{ident}{dates}"


def render_text(trace: TurnTrace) -> str:
    """The human summary the CLI prints under the reply."""
    lines = [trace.reply or "(no reply)", ""]
    if trace.error:
        lines.append(f"error: {trace.error}")
    writes = trace.writes()
    u = trace.usage
    lines.append(f"mode {trace.mode} · user {trace.user_id} · session {trace.session_id} · "
                 f"episode {trace.episode_id or '-'} · tokens in/out "
                 f"{u.input_tokens}/{u.output_tokens}"
                 + (f" · cache write/read {u.cache_creation_input_tokens}/"
                    f"{u.cache_read_input_tokens}" if u.cache_creation_input_tokens
                    or u.cache_read_input_tokens else "")
                 + (f" · {u.retries} retried attempt(s)" if u.retries else "")
                 + (f" · stop {trace.stop_reason}" if trace.stop_reason else ""))
    if trace.fallback:
        lines.append(f"fallback: {trace.fallback}")
    if writes:
        lines.append("writes:")
        lines += ["  " + diff_line(w).replace("\n", "\n  ") for w in writes]
    else:
        lines.append("writes: none")
    if trace.episode_forgotten:
        lines.append(f"this message ({trace.episode_id}) was forgotten too: a request to forget "
                     "is not kept")
    for attempt in trace.scope_attempts():
        lines.append(f"ignored scope from the model in {attempt['tool']}: {attempt['ignored']}")
    if trace.consolidation:
        c = trace.consolidation
        lines.append(f"consolidation ({c.trigger}): plan {c.plan_id or '-'}, {c.applied} of "
                     f"{c.ops} ops applied" + (f"; error: {c.error}" if c.error else ""))
    return "\n".join(lines)


# --- rows for the chat page (pure) ----------------------------------------------------------------
def core_rows(trace: TurnTrace) -> list[dict]:
    return [{"chosen by": c.why, "type": c.fact_type, "text": c.text, "id": c.id}
            for c in trace.core_memory]


def hit_rows(hits: list[HitView]) -> list[dict]:
    """Recalled memories with their explain data: leg ranks, multipliers, fused score."""
    return [{"rank": h.rank, "kind": h.kind, "state": h.state or "", "text": h.text,
             "bm25 rank": h.bm25_rank, "dense rank": h.dense_rank, "decay": h.decay,
             "use boost": h.use_boost, "prior": h.prior, "fused": h.fused, "id": h.id}
            for h in hits]


def step_rows(trace: TurnTrace) -> list[dict]:
    return [{"step": s.step, "what": s.kind, "ms": s.ms, "tokens in": s.input_tokens,
             "tokens out": s.output_tokens, "cache write": s.cache_creation_input_tokens,
             "cache read": s.cache_read_input_tokens, "stop": s.stop_reason,
             "retries": max(len(s.attempts) - 1, 0), "note": s.note} for s in trace.steps]


class Link(BaseModel):
    page: Literal["facts", "review"]
    label: str
    memory_id: str


def write_links(trace: TurnTrace) -> list[Link]:
    """Where each write can be inspected: the fact in Facts, the item in the Review queue."""
    out = []
    for w in trace.writes():
        if w.status == "review" and w.memory_id:
            out.append(Link(page="review", label=f"Review item {w.memory_id}", memory_id=w.memory_id))
        elif w.status == "applied" and w.op != "forget":
            fid = w.memory_id or w.old_id
            if fid:
                out.append(Link(page="facts", label=f"Fact {fid}", memory_id=fid))
            if w.old_id and w.old_id != fid:
                out.append(Link(page="facts", label=f"Replaced fact {w.old_id}", memory_id=w.old_id))
    return out
