"""The agent on any OpenAI-compatible server: chat-completions tool calling over the same three
memory tools, with the same prompt, pre-recall and step limit as the Claude agent (issue 29).

Every finish_reason is handled (invariant 430): `tool_calls` runs every call (some servers say
`stop` with calls; those run too), `stop` replies, `length` runs no call of the cut-off reply and
says so, `content_filter` ends the turn with an explicit error. Arguments that are not a JSON
object never reach a tool: the model gets the error back. The tools act for the session's user
whatever the arguments name (invariant 70).
"""

from __future__ import annotations

import json
import time
from typing import Any

from openai.types.chat import ChatCompletionMessage
from openai.types.chat import ChatCompletionMessageFunctionToolCall as FunctionCall

from ..llm import ModelStoppedError
from ..llm.calls import Deadline
from ..llm.openai_compat import OpenAICompatLLM, function_tools
from ..tools import tool_definitions
from .base import AgentInput, AgentOutput, ToolRunner
from .claude import PRE_RECALL_ID, system_prompt

MODE_NOTE = "chat-completions tool calling"


def _messages(inp: AgentInput) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": system_prompt(inp)}]
    out += [{"role": m["role"], "content": m["content"]} for m in inp.history]
    out.append({"role": "user", "content": inp.message})
    out.append({"role": "assistant", "content": None, "tool_calls": [{
        "id": PRE_RECALL_ID, "type": "function",
        "function": {"name": "recall_memory", "arguments": json.dumps(inp.pre_recall.args)}}]})
    out.append({"role": "tool", "tool_call_id": PRE_RECALL_ID,
                "content": json.dumps(inp.pre_recall.for_model(), default=str,
                                      ensure_ascii=False)})
    return out


def _arguments(raw: str | None) -> object:
    """The call's arguments, or the reason they are not a JSON object (never run)."""
    try:
        value = json.loads(raw or "{}")
    except json.JSONDecodeError as exc:
        return f"not valid JSON ({exc.msg})"
    return value


class OpenAIAgent:
    def __init__(self, llm: OpenAICompatLLM) -> None:
        self.llm, self.mode = llm, llm.mode

    def run(self, inp: AgentInput, tools: ToolRunner) -> AgentOutput:
        messages, definitions = _messages(inp), function_tools(tool_definitions())
        deadline = Deadline(self.llm.turn_timeout)
        while True:
            out = tools.model_step(self.llm.call, deadline, "none", MODE_NOTE,
                                   messages=messages, tools=definitions)
            choice = out.choices[0]
            finish, msg = choice.finish_reason, choice.message
            text = (msg.content or "").strip()
            calls = [c for c in msg.tool_calls or [] if isinstance(c, FunctionCall)]
            if finish == "content_filter":
                raise ModelStoppedError("the server's content filter stopped the answer "
                                        "(finish_reason content_filter); the turn ended without "
                                        "an answer", stop_reason=finish)
            if finish == "length":  # a cut-off call is never run (invariant 430)
                note = tools.cut_off(self.llm.max_tokens, "MEMDESK_OPENAI_MAX_TOKENS",
                                     [c.function.name for c in calls])
                return AgentOutput(reply=(text + " …\n\n" if text else "") + note)
            if calls and not tools.last_step:
                messages += self._run_tools(msg, calls, tools)
                continue
            return AgentOutput(reply=text or "(the model gave no reply)")

    @staticmethod
    def _run_tools(msg: ChatCompletionMessage, calls: list[FunctionCall],
                   tools: ToolRunner) -> list[dict[str, Any]]:
        started = time.perf_counter()
        out: list[dict[str, Any]] = [{"role": "assistant", "content": msg.content,
                                      "tool_calls": [c.model_dump(exclude_none=True)
                                                     for c in calls]}]
        for c in calls:
            res = tools.call(c.function.name, _arguments(c.function.arguments), call_id=c.id)
            out.append({"role": "tool", "tool_call_id": c.id,
                        "content": json.dumps(res.for_model(), default=str, ensure_ascii=False)})
        tools.record_tools((time.perf_counter() - started) * 1000, f"{len(calls)} tool call(s)")
        return out
