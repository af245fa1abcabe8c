"""What an agent gets (AgentInput), what it returns (AgentOutput), and the ToolRunner through
which it calls the memory tools: every call is executed for the session's user and recorded on
the turn's trace, and a turn has at most MAX_STEPS steps (invariant 78)."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import date
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from ..errors import MemdeskError
from ..llm import LLM
from ..llm.calls import CallRecord, Deadline
from ..tools import ToolContext, ToolResult, execute
from ..trace import CoreItem, StepRecord, TokenUsage, ToolCall, TurnTrace

MAX_STEPS = 5
Reply = TypeVar("Reply")  # a model API's answer (an Anthropic Message, an OpenAI ChatCompletion)


class StepLimitError(MemdeskError):
    """The agent asked for more steps than a turn allows."""

    exit_code = 2


class AgentInput(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    message: str
    history: list[dict[str, str]] = Field(default_factory=list,
                                          description="earlier messages of this session")
    core_memory: list[CoreItem] = Field(default_factory=list)
    pre_recall: ToolResult
    today: date


class AgentOutput(BaseModel):
    reply: str
    understood: bool | None = None


class ToolRunner:
    """Runs tool calls for one turn and writes them to its trace."""

    def __init__(self, ctx: ToolContext, trace: TurnTrace, *, max_steps: int = MAX_STEPS) -> None:
        self.ctx, self.trace, self.max_steps = ctx, trace, max_steps
        self.step = 0
        self._n = 0

    def begin_step(self) -> int:
        if self.step >= self.max_steps:
            raise StepLimitError(f"a turn has at most {self.max_steps} steps")
        self.step += 1
        return self.step

    @property
    def last_step(self) -> bool:
        return self.step >= self.max_steps

    def model_step(self, call: Callable[..., tuple[Reply, CallRecord]], deadline: Deadline,
                   no_tools: object, note: str = "", **kwargs: Any) -> Reply:
        """One model call as the next step of the turn, the same for every model API: on the
        last allowed step tools are switched off (`no_tools`: the API's tool_choice for that,
        invariant 78), and the call's attempts go on the trace whether it answers or raises."""
        self.begin_step()
        if self.last_step:
            kwargs["tool_choice"] = no_tools
        record = CallRecord()
        try:
            reply, _ = call(deadline=deadline, record=record, **kwargs)
        except MemdeskError as exc:
            self.record_failed_call(record, f"{type(exc).__name__}: {exc}")
            raise
        self.record_model(record, note)
        return reply

    def cut_off(self, max_tokens: int, setting: str, skipped: list[str]) -> str:
        """A reply cut off at the model's token limit (invariant 430): none of its tool
        calls runs, the trace says so, and so does the note returned for the reply, so a
        cut-off answer never reads as a whole one."""
        note = (f"[the model's answer was cut off at its limit of {max_tokens} tokens; raise "
                f"{setting}")
        if skipped:
            note += f"; its unfinished tool call(s) were not run: {', '.join(skipped)}"
        note += "]"
        self.trace.cut_off = True
        last = self.trace.steps[-1]
        last.note = "; ".join(n for n in (last.note, note) if n)
        return note

    def call(self, name: str, args: object, *, call_id: str | None = None) -> ToolResult:
        self._n += 1
        started = time.perf_counter()
        result = execute(self.ctx, name, args)
        ms = (time.perf_counter() - started) * 1000
        self.trace.tool_calls.append(ToolCall(step=self.step, call_id=call_id or f"call_{self._n}",
                                              name=name, result=result, ms=round(ms, 2)))
        return result

    def record_model(self, call: CallRecord, note: str = "") -> None:
        """One model call on the trace: its stop reason, tokens (cache apart) and each HTTP
        attempt, so the SDK's retries are visible (invariants 433, 435)."""
        t = self.trace
        t.usage.add(TokenUsage(calls=1, input_tokens=call.input_tokens,
                               output_tokens=call.output_tokens,
                               cache_creation_input_tokens=call.cache_creation_input_tokens,
                               cache_read_input_tokens=call.cache_read_input_tokens,
                               retries=len(call.retries)))
        t.stop_reason = call.stop_reason or t.stop_reason
        t.steps.append(StepRecord(
            step=self.step, kind="model", ms=call.ms, input_tokens=call.input_tokens,
            output_tokens=call.output_tokens, stop_reason=call.stop_reason,
            cache_creation_input_tokens=call.cache_creation_input_tokens,
            cache_read_input_tokens=call.cache_read_input_tokens, attempts=call.attempts,
            request_id=call.request_id,
            note="; ".join(n for n in (note, call.retry_note()) if n)))

    def record_failed_call(self, call: CallRecord, error: str) -> None:
        """A call that raised: its attempts still go on the trace (which retries were made)."""
        self.trace.usage.retries += len(call.retries)
        self.trace.steps.append(StepRecord(step=self.step, kind="model", ms=call.ms,
                                           attempts=call.attempts, note=error))

    def record_tools(self, ms: float, note: str = "") -> None:
        self.trace.steps.append(StepRecord(step=self.step, kind="tools", ms=round(ms, 2), note=note))


class Agent(Protocol):
    mode: str

    @property
    def llm(self) -> LLM:
        """Its model: consolidation after a turn uses the same one."""
        ...

    def run(self, inp: AgentInput, tools: ToolRunner) -> AgentOutput: ...
