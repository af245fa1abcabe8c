"""The Claude agent: the official SDK's tool use over the three memory tools (issue 12).

The pre-recall on the user's verbatim message is handed to the model as if it had called
recall_memory itself (an assistant tool_use block and its tool_result). Each model call is one
step; on the last allowed step tools are switched off (tool_choice none) so the turn always ends
with a reply (invariant 78). Retries and backoff are AnthropicLLM's; a failed call is a
ModelUnavailableError, reported on the trace with the user's episode kept.
"""

from __future__ import annotations

import json
import time

from ..consolidation.extract import Usage
from ..llm.claude import AnthropicLLM
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


def system_prompt(inp: AgentInput) -> str:
    lines = [SYSTEM, "", f"Today is {inp.today.isoformat()}.", "",
             "Core memory (believed facts about this user):"]
    lines += [f"- [{c.fact_type}] {c.text} (id {c.id})" for c in inp.core_memory] or ["- (none)"]
    return "\n".join(lines)


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


def _block(b) -> dict:
    if b.type == "tool_use":
        return {"type": "tool_use", "id": b.id, "name": b.name, "input": b.input}
    if b.type == "text":
        return {"type": "text", "text": b.text}
    return b.model_dump(exclude_none=True)


class ClaudeAgent:
    def __init__(self, llm: AnthropicLLM):
        self.llm, self.mode = llm, llm.mode

    def run(self, inp: AgentInput, tools: ToolRunner) -> AgentOutput:
        system, messages = system_prompt(inp), _messages(inp)
        definitions = tool_definitions()
        while True:
            tools.begin_step()
            kwargs: dict = {"system": system, "messages": messages, "tools": definitions}
            if tools.last_step:
                kwargs["tool_choice"] = {"type": "none"}
            usage = Usage(mode=self.mode)
            started = time.perf_counter()
            msg = self.llm._call(usage, **kwargs)  # bounded retries, clear errors (issue 5)
            tools.record_model((time.perf_counter() - started) * 1000, usage.input_tokens,
                               usage.output_tokens)
            calls = [b for b in msg.content if getattr(b, "type", None) == "tool_use"]
            if not calls or tools.last_step:
                text = "".join(getattr(b, "text", "") for b in msg.content
                               if getattr(b, "type", None) == "text").strip()
                return AgentOutput(reply=text or "(the model gave no reply)")
            started = time.perf_counter()
            results = []
            for b in calls:
                res = tools.call(b.name, b.input, call_id=b.id)
                results.append({"type": "tool_result", "tool_use_id": b.id,
                                "content": json.dumps(res.for_model(), default=str,
                                                      ensure_ascii=False),
                                **({"is_error": True} if not res.ok else {})})
            tools.record_tools((time.perf_counter() - started) * 1000,
                               f"{len(calls)} tool call(s)")
            messages.append({"role": "assistant", "content": [_block(b) for b in msg.content]})
            messages.append({"role": "user", "content": results})
