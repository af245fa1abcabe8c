"""The offline agent: deterministic, no network. Statements are read by the one reader
(`memory/reading/`, the same code consolidation uses, invariant 535) and applied through the
same three tools a model calls; questions are answered from recall (`answers.py`). The reply
says what became active, what waits for review, and when the message was kept but nothing in
it could be read (invariants 76 and 536).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from datetime import time as clock_time

from ..reading import FactRef, MessageReading, Operation, read_message
from ..reading.clauses import clauses, normalise
from ..reading.read import read_clause
from ..slots import SLOTS
from ..tools import HitView, ToolResult, WriteRecord
from .answers import Answering
from .base import AgentInput, AgentOutput, ToolRunner

_RECALL_K = 20


def _now(inp: AgentInput) -> datetime:
    return datetime.combine(inp.today, clock_time(10, 0), tzinfo=UTC)


def _facts(hits: list[HitView]) -> list[FactRef]:
    seen: dict[str, FactRef] = {}
    for h in hits:
        if h.kind == "semantic" and h.id not in seen:
            seen[h.id] = FactRef(id=h.id, text=h.text, state=h.state or "active",
                                 fact_type=h.fact_type or "world")
    return list(seen.values())


def _queries(message: str, now: datetime) -> list[str]:
    """Recall queries that find the facts a message may change: the message itself, and per
    clause its slot's words with its value or target."""
    out = [message[:2000]]
    for c in clauses(normalise(message))[:8]:
        r = read_clause(c, now)
        words = " ".join(w for w in (SLOTS[r.slot].query if r.slot in SLOTS else "",
                                     r.value, r.target, r.old_value, r.relation or "") if w)
        if words.strip():
            out.append(words[:2000])
    return out


class OfflineAgent(Answering):
    mode = "offline"

    def __init__(self) -> None:
        from ..llm.offline import OfflineLLM

        self.llm = OfflineLLM()  # consolidation after a turn uses the same reader

    def run(self, inp: AgentInput, tools: ToolRunner) -> AgentOutput:
        now = _now(inp)
        tools.begin_step()
        started = time.perf_counter()
        hits = list(inp.pre_recall.hits)
        for q in _queries(inp.message, now):
            hits += tools.call("recall_memory", {"query": q, "include_superseded": False,
                                                 "include_catalog": False,
                                                 "k": _RECALL_K}).hits
        tools.record_tools((time.perf_counter() - started) * 1000, "recall for the message")
        reading = read_message(inp.message, now, _facts(hits))
        said: list[str] = []
        if reading.operations:
            said += self._apply(reading, tools)
        questions = [r.clause for r in reading.questions]
        if questions:
            said += self._questions(questions, inp, tools)
        if not said:
            return AgentOutput(understood=False, reply=_nothing(reading))
        return AgentOutput(understood=True, reply=" ".join(said))

    def _apply(self, reading: MessageReading, tools: ToolRunner) -> list[str]:
        tools.begin_step()
        started = time.perf_counter()
        results = [self._call(op, tools) for op in reading.operations]
        tools.record_tools((time.perf_counter() - started) * 1000, "writes")
        return [_said(res) for res in results if res is not None]

    @staticmethod
    def _call(op: Operation, tools: ToolRunner) -> ToolResult | None:
        if op.op == "forget":
            return tools.call("forget_memory", {"memory_id": op.old_id, "reason": op.reason})
        if op.op == "retract":
            return tools.call("write_memory", {"kind": "retraction", "supersedes_id": op.old_id,
                                               "confidence": op.confidence,
                                               "reason": op.reason[:500]})
        args: dict[str, object] = {"kind": "fact", "text": op.text, "fact_type": op.fact_type,
                                   "confidence": op.confidence, "reason": op.reason[:500]}
        if op.valid_from:
            args["valid_from"] = op.valid_from.isoformat()
        if op.old_id:
            args["supersedes_id"] = op.old_id
            args["contradiction"] = "harsh" if op.harsh else "natural"
        return tools.call("write_memory", args)


def _said(res: ToolResult) -> str:
    """One sentence per tool call, saying exactly what it did (invariant 536)."""
    if not res.ok:
        return f"I couldn't record that: {res.error}."
    parts = []
    for w in res.writes:
        parts.append(_said_write(w))
    return " ".join(p for p in parts if p)


def _said_write(w: WriteRecord) -> str:
    text = f"\u201c{w.text}\u201d" if w.text else ""
    old = f"\u201c{w.old_text}\u201d" if w.old_text else "that"
    if w.status == "duplicate":
        if "awaiting_review" in w.flags:
            return f"{text} is already waiting for an operator's review."
        return f"I already have {text} on record."
    if w.status == "review":
        return f"I've sent {text or old} to the review queue; it isn't on record until approved."
    if w.status == "refused":
        return f"I couldn't record {text}: {w.reason}."
    if w.op == "forget":
        return "Done: I've forgotten that."
    if w.op == "retract":
        return f"Understood: {old} was never true, so I've taken it back."
    if w.op == "supersede":
        return f"Updated: {text} replaces {old}."
    return f"Noted: {text}."


def _nothing(reading: MessageReading) -> str:
    reasons = {r.reason for r in reading.readings if r.kind == "nothing" or r.reason}
    if reading.garbled:
        return ("I kept your message, but I couldn't turn it into a fact I'd be sure of, so I "
                "haven't remembered anything from it.")
    if "hypothetical or wish" in reasons:
        return ("That sounds like something you're considering rather than something that "
                "happened, so I haven't recorded anything. Tell me once it's decided.")
    if "about someone else" in reasons:
        return "That's about someone else, so I haven't changed anything about you."
    return ("I kept your message, but I couldn't tell what to remember from it, so nothing was "
            "recorded. Saying it plainly helps, e.g. \u201cI live in Leeds\u201d.")
