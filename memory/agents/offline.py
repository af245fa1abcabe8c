"""The offline agent: deterministic, no network. Statements are read by the one reader
(`memory/reading/`, the same code consolidation uses, invariant 535) and applied through the
same three tools a model calls; questions are answered from recall (`answers.py`). The reply
says what became active, what waits for review, and when the message was kept but nothing in
it could be read (invariant 76).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from datetime import time as clock_time

from ..answering.speak import second_person
from ..reading import FactRef, MessageReading, Operation, Reading, read_message
from ..reading.clauses import clauses, normalise
from ..reading.read import read_clause
from ..slots import SLOTS
from ..text import stem, term_set
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


def _queries(message: str, now: datetime) -> list[tuple[str, bool]]:
    """Recall queries that find the facts a message may change: the message itself, and per
    clause its slot's words with its value or target; a forget request also looks at the
    versions that were replaced ("forget that I lived in Bristol")."""
    out = [(message[:2000], False)]
    for c in clauses(normalise(message))[:8]:
        r = read_clause(c, now)
        named = " ".join(s.query for s in SLOTS.values() if r.target and set(
            r.target.lower().split()) & set(s.query.split()))
        words = " ".join(w for w in (SLOTS[r.slot].query if r.slot in SLOTS else "", named,
                                     r.value, r.target, r.old_value, r.relation or "") if w)
        if words.strip():
            out.append((words[:2000], r.kind == "forget"))
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
        for q, history in _queries(inp.message, now):
            hits += tools.call("recall_memory", {"query": q, "include_superseded": history,
                                                 "include_catalog": False,
                                                 "k": _RECALL_K}).hits
        tools.record_tools((time.perf_counter() - started) * 1000, "recall for the message")
        reading = read_message(inp.message, now, _facts(hits))
        if reading.other_user:
            return AgentOutput(understood=True, reply=(
                "I can only read and change your own memories, so I haven't looked at or "
                "touched anyone else's. Ask me about yours any time."))
        said: list[str] = []
        changed: set[str] = set()
        if reading.operations:
            said += self._apply(reading, tools, changed)
        said += [_not_on_record(r) for r in reading.unresolved]
        questions = _questions_of(reading)
        if questions:
            # never answer from a fact this turn replaced, retracted or forgot (invariant 76)
            kept = [h for h in inp.pre_recall.hits if h.id not in changed]
            said += self._questions(questions, inp.model_copy(update={
                "pre_recall": inp.pre_recall.model_copy(update={"hits": kept})}), tools)
        if not said:
            return AgentOutput(understood=False, reply=_nothing(reading))
        return AgentOutput(understood=True, reply=" ".join(said))

    def _apply(self, reading: MessageReading, tools: ToolRunner, changed: set[str]) -> list[str]:
        tools.begin_step()
        started = time.perf_counter()
        said = []
        for op in reading.operations:
            res = self._call(op, tools)
            if res is None:
                continue
            changed.update(w.old_id for w in res.writes if w.old_id and w.status == "applied")
            said.append(_said(res, op))
        tools.record_tools((time.perf_counter() - started) * 1000, "writes")
        return said

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
        if op.valid_to:
            args["valid_to"] = op.valid_to.isoformat()
        if op.old_id:
            args["supersedes_id"] = op.old_id
            args["contradiction"] = "harsh" if op.harsh else "natural"
        return tools.call("write_memory", args)


def _said(res: ToolResult, op: Operation) -> str:
    """One sentence per tool call, saying exactly what it did: what became active, what waits
    for review, what was refused (invariant 76)."""
    if not res.ok:  # the refusal's reason, without the error class it came as
        return f"I couldn't record that: {(res.error or '').split(': ', 1)[-1]}."
    return " ".join(_said_write(w, op) for w in res.writes)


def _when(w: WriteRecord) -> str:
    if w.valid_from and str(w.valid_from.year) not in (w.text or ""):
        return f" (from {w.valid_from.isoformat()})"
    return ""


def _said_write(w: WriteRecord, op: Operation) -> str:
    you = second_person(w.text) if w.text else ""
    old = second_person(w.old_text) if w.old_text else "that"
    if w.status == "duplicate":
        if "awaiting_review" in w.flags:
            return (f"\u201c{w.text}\u201d is already waiting in the review queue; it isn't on "
                    "record until an operator approves it.")
        return f"I already have that on record: {you}."
    if w.status == "review" and w.op == "retract" and not w.text:
        # a proposed retraction (invariant 590): the fact stays on record until an operator
        # confirms it was never true
        what = f"that {old}" if old.lower().startswith("you") else \
            f"\u201c{w.old_text}\u201d"  # a fact not about "you" is quoted as it stands
        return (f"I've asked an operator to confirm taking back {what}; until then it "
                "stays on record.")
    if w.status == "review":
        return (f"I've sent \u201c{w.text}\u201d to the review queue; it isn't on record until an "
                "operator approves it.")
    if w.status == "refused":
        return f"I couldn't record \u201c{w.text}\u201d: {w.reason}."
    if w.op == "forget":
        return f"Done: I've forgotten {_yours(op.said) or 'that'}."
    if w.op == "retract" and w.text:
        return f"Understood: {you}{_when(w)}, not that {old}."
    if w.op == "retract":
        return f"Understood: I've taken back that {old}; it was never true."
    if w.op == "supersede":
        return f"Updated: {you}{_when(w)}."
    return f"Noted: {you}{_when(w)}."


def _yours(words: str) -> str:
    return " ".join({"my": "your", "i": "you", "me": "you", "our": "your", "we": "you"}.get(
        w.lower(), w) for w in words.split())


def _not_on_record(r: Reading) -> str:
    target = _yours(r.target) or "that"
    if r.kind == "forget":
        return f"I have nothing to forget about {target}."
    return f"I have nothing on record saying you had {target}, so I haven't changed anything."


_GENERIC = frozenset(stem(w) for w in "usually normally usual routine many much often do "
                     "what how fix".split())


def _questions_of(reading: MessageReading) -> list[str]:
    """The questions of a message as the answerer reads them: with their question mark, and a
    bare "how many?" with the clause before it ("motion sensors — how many?")."""
    out = []
    for i, r in enumerate(reading.readings):
        if r.kind != "question":
            continue
        q = r.clause.rstrip() if r.clause.rstrip().endswith("?") else r.clause.rstrip(" .!") + "?"
        prev = reading.readings[i - 1] if i else None
        bare = len(term_set(q) - _GENERIC) <= 1  # "how many?", "what do I usually do?"
        if bare and prev is not None and prev.kind != "question":
            q = f"{prev.clause.rstrip(' .,;:')} {q}"
        out.append(q)
    return out


def _nothing(reading: MessageReading) -> str:
    reasons = {r.reason for r in reading.readings if r.kind == "nothing" or r.reason}
    if reading.garbled:
        return ("I didn't understand that well enough to remember it: I kept your message, but "
                "nothing from it is on record.")
    if "hypothetical or wish" in reasons:
        return ("That sounds like something you're considering rather than something that "
                "happened, so I haven't recorded anything. Tell me once it's decided.")
    if "about someone else" in reasons:
        return "That's about someone else, so I haven't changed anything about you."
    return ("I didn't understand anything in that to remember or answer, so nothing was recorded "
            "(your message is kept). Saying it plainly helps, e.g. \u201cI live in Leeds\u201d.")
