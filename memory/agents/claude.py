"""The Claude agent: the official SDK's tool use over the three memory tools (issues 12, 29).

The pre-recall on the user's verbatim message is handed to the model as if it had called
recall_memory itself (an assistant tool_use block and its tool_result). Each model call is one
step; on the last allowed step tools are switched off (tool_choice none) so the turn always ends
with a reply (invariant 78). Every stop_reason is handled as the Messages API documents it
(invariant 430): `tool_use` runs the (complete) tool calls, `end_turn` and
`stop_sequence` reply, `pause_turn` sends the paused turn back to continue, `max_tokens` runs
no tool call of the cut-off reply and says it was cut off, `refusal` and a full context window
end the turn with an explicit error. Retries are the SDK's (AnthropicLLM), bounded per call
and per turn (a `Deadline`), and every attempt is on the trace.
"""

from __future__ import annotations

import json
import time

from anthropic.types import ContentBlock, Message, ToolUseBlock

from ..llm import ModelStoppedError
from ..llm.calls import Deadline
from ..llm.claude import STOPPED, AnthropicLLM, cached_system, stopped
from ..tools import tool_definitions
from .base import AgentInput, AgentOutput, ToolRunner

PRE_RECALL_ID = "toolu_pre_recall"

SYSTEM = """You are a support assistant with a memory of the one user you are talking to.
Speak to them directly, in the second person. Keep replies short and concrete.

Memory tools (they always act on this user; you cannot choose another user, index or scope):
- recall_memory: search their facts, their earlier messages, playbooks and help documents.
  Results for their latest message are already below; recall again only for something else.
- write_memory: when they tell you something durable about themselves, write ONE short canonical
  third-person statement without the subject: "Lives in Edinburgh", "Owns a Zigbee2MQTT stick",
  "Works as a staff engineer at Helio", "Main editor is Helix", "Allergic to peanuts".
  * Never put relative time words (yesterday, last week, next month) in the text: give the date
    in valid_from / valid_to (ISO), computed from today's date.
  * If it replaces a fact you recalled in this turn, pass that fact's id as supersedes_id:
    contradiction "natural" when it changed (a move, a switch, a promotion), "harsh" when the
    old fact was never true (a misdiagnosis, "that was my sister's").
  * If they deny a recalled fact without giving a replacement, use kind "retraction".
  * If they deny only one item of a recalled list ("not allergic to shellfish" over "Allergic
    to peanuts and shellfish"), replace it by the rest (contradiction "natural") and pass the
    denied item as its own fact in never_true ("Allergic to shellfish"), so it stays dead.
  * If they correct what they said a moment ago ("sorry, I meant Bath"), the value just
    written was never true: replace it with contradiction "harsh".
  * Never write a password, PIN, card number, key or code: memory refuses them; tell the
    user to keep it in a password manager.
  * Only replace a fact about the same thing: replacing a Hue bridge does not touch the bulbs.
  * Set confidence below 0.7 when they hedge ("I think", "maybe"); it then waits for review.
  * Do not write questions, plans they are only considering, or things about other people
    unless they are about the user's life.
- forget_memory: only when they explicitly ask you to forget or delete something.
Cite memories as plain statements ("you live in Edinburgh"), never paste documents; mention a
help document only when it answers their question. Never invent facts about the user."""


def turn_context(inp: AgentInput) -> str:
    """What changes per turn: after the cache breakpoint, so the static prefix stays cached."""
    lines = [f"Today is {inp.today.isoformat()}.", "",
             "Core memory (believed facts about this user):"]
    lines += [f"- [{c.fact_type}] {c.text} (id {c.id})" for c in inp.core_memory] or ["- (none)"]
    return "\n".join(lines)


def system_prompt(inp: AgentInput) -> str:
    """The whole system prompt as one text (the OpenAI-compatible agent sends it so)."""
    return SYSTEM + "\n\n" + turn_context(inp)


def _messages(inp: AgentInput) -> list[dict]:
    """Earlier turns as plain text (same roles merged), then this message and the pre-recall."""
    out: list[dict] = []
    for m in inp.history:
        if out and out[-1]["role"] == m["role"]:
            out[-1]["content"] += "\n\n" + m["content"]
        else:
            out.append({"role": m["role"], "content": m["content"]})
    while out and out[0]["role"] != "user":
        out.pop(0)
    if out and out[-1]["role"] == "user":
        out.append({"role": "assistant", "content": "(no reply)"})
    out.append({"role": "user", "content": inp.message})
    out.append({"role": "assistant", "content": [{
        "type": "tool_use", "id": PRE_RECALL_ID, "name": "recall_memory",
        "input": inp.pre_recall.args}]})
    out.append({"role": "user", "content": [{
        "type": "tool_result", "tool_use_id": PRE_RECALL_ID,
        "content": json.dumps(inp.pre_recall.for_model(), default=str, ensure_ascii=False)}]})
    return out


def _block(b: ContentBlock) -> dict:
    if b.type == "tool_use":
        return {"type": "tool_use", "id": b.id, "name": b.name, "input": b.input}
    if b.type == "text":
        return {"type": "text", "text": b.text}
    return b.model_dump(exclude_none=True)


def _text(msg: Message) -> str:
    return "".join(b.text for b in msg.content if b.type == "text").strip()


class ClaudeAgent:
    def __init__(self, llm: AnthropicLLM) -> None:
        self.llm, self.mode = llm, llm.mode

    def run(self, inp: AgentInput, tools: ToolRunner) -> AgentOutput:
        # tools, then the static system block with the breakpoint: the cached prefix (inv. 435)
        system, messages = cached_system(SYSTEM, turn_context(inp)), _messages(inp)
        definitions = tool_definitions()
        deadline = Deadline(self.llm.turn_timeout)
        while True:
            msg = tools.model_step(self.llm.call, deadline, {"type": "none"}, system=system,
                                   messages=messages, tools=definitions)
            stop = msg.stop_reason or ""
            if stop in STOPPED:  # invariant 430: explicit, never "(no reply)"
                raise ModelStoppedError(stopped(msg) + "; the turn ended without an answer",
                                        stop_reason=stop)
            if stop == "pause_turn":  # the API paused a long turn: send it back to continue
                messages.append({"role": "assistant",
                                 "content": [_block(b) for b in msg.content]})
                continue
            calls = [b for b in msg.content if b.type == "tool_use"]
            if stop == "max_tokens":  # invariant 430: a cut-off tool call is never run
                note = tools.cut_off(self.llm.max_tokens, "MEMDESK_ANTHROPIC_MAX_TOKENS",
                                     [b.name for b in calls])
                return AgentOutput(reply=(_text(msg) + " …\n\n" if _text(msg) else "") + note)
            if stop == "tool_use" and calls and not tools.last_step:
                messages += self._run_tools(msg, calls, tools)
                continue
            if stop in ("end_turn", "stop_sequence", "tool_use"):
                return AgentOutput(reply=_text(msg) or "(the model gave no reply)")
            raise ModelStoppedError(f"the model stopped with an unknown stop_reason {stop!r}",
                                    stop_reason=stop)

    @staticmethod
    def _run_tools(msg: Message, calls: list[ToolUseBlock], tools: ToolRunner) -> list[dict]:
        """Every complete tool call of the reply, in order; failures go back as is_error."""
        started = time.perf_counter()
        results = []
        for b in calls:
            res = tools.call(b.name, b.input, call_id=b.id)
            results.append({"type": "tool_result", "tool_use_id": b.id,
                            "content": json.dumps(res.for_model(), default=str,
                                                  ensure_ascii=False),
                            **({"is_error": True} if not res.ok else {})})
        tools.record_tools((time.perf_counter() - started) * 1000, f"{len(calls)} tool call(s)")
        return [{"role": "assistant", "content": [_block(b) for b in msg.content]},
                {"role": "user", "content": results}]
