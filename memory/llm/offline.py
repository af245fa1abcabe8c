"""OfflineLLM: deterministic; no network, no key (issue 5).

Extraction is the one reader (`memory/reading/`, invariant 535): the same readings and the same
resolution as the chat agent, turned into the extractor's types. Replies summarise the recalled memories the chat page puts in
the system prompt (see `memory.llm.memory_prompt`), most relevant to the last message first.
"""

from __future__ import annotations

import re

from ..consolidation.extract import (
    EpisodeView,
    ExtractedDenial,
    ExtractedFact,
    ExtractedFeedback,
    ExtractedPlaybook,
    Extraction,
    ExtractionInput,
    Usage,
)
from ..reading import FactRef, read_message
from ..reading.clauses import clauses, normalise
from ..reading.procedures import content, fix_in, outcome_in
from ..text import STOP_WORDS, term_set, words
from . import MEMORY_HEADER

STOP = STOP_WORDS | {"new"}

_MAX_CITED = 3


def _content(text: str) -> set[str]:
    return set(term_set(text, stop=STOP, min_len=2))


def recalled_memories(system: str) -> list[tuple[str, str]]:
    """(label, text) of the bullet lines under the memory header (or, failing that, of every
    bullet line). The chat page labels lines "[identity] ...", "[episodic] ...": a label tells
    a fact from the user's own words, which the reply quotes as theirs."""
    lines = system.splitlines()
    start = next((i + 1 for i, line in enumerate(lines) if line.strip() == MEMORY_HEADER), None)
    body = lines[start:] if start is not None else lines
    out = []
    for line in body:
        s = line.strip()
        if s.startswith(("- ", "* ", "• ")):
            m = re.match(r"^\[([^\]]{1,20})\]\s*(.*)$", s[2:].strip())
            label, item = (m.group(1), m.group(2)) if m else ("", s[2:].strip())
            if item and item != "(none)":
                out.append((label, item))
        elif start is not None and s and out:
            break  # the memory block ended
    return out


def _say(label: str, text: str) -> str:
    """How a reply cites one memory: facts as statements, the user's words as quotes."""
    if label == "episodic":
        return f"you told me \u201c{text.rstrip('.')}\u201d"
    if label == "playbook":
        return f"what worked before: {text}"
    if label == "catalog":
        return f"the help docs say: {text}"
    return text


class OfflineLLM:
    mode = "offline"

    def extract(self, request: ExtractionInput) -> tuple[Extraction, Usage]:
        return extract(request), Usage(mode=self.mode, calls=1, attempts=1)

    def reply(self, system: str, messages: list[dict[str, str]]) -> str:
        """A deterministic, useful answer: the recalled memories that bear on the last user
        message (by shared content words), else the top recalled ones."""
        last = next((m.get("content", "") for m in reversed(messages)
                     if m.get("role") == "user"), "")
        # A question the user asked earlier asserts nothing: it is not cited as what they said.
        memories = [(label, m) for label, m in recalled_memories(system)
                    if not (label == "episodic" and m.rstrip().endswith("?"))]
        query = _content(last)
        # Most shared words first; on a tie a believed fact before the words it came from.
        scored = sorted(((len(query & _content(m)), label != "episodic", -i, label, m)
                         for i, (label, m) in enumerate(memories)), reverse=True)
        relevant = [_say(label, m) for s, _, _, label, m in scored if s > 0][:_MAX_CITED]
        lines = [_say(label, m) for label, m in memories]
        asking = last.strip().endswith("?") or (words(last)[:1] or [""])[0] in {
            "what", "where", "which", "who", "when", "how", "do", "does", "did", "can",
            "could", "is", "are", "should", "would", "will", "tell", "remind"}
        if asking:
            if relevant:
                return "From what I have on record: " + "; ".join(relevant) + "."
            if lines:
                return ("I have nothing on record that answers that directly. What I do have: "
                        + "; ".join(lines[:_MAX_CITED]) + ".")
            return "I have nothing on record about that yet. Could you tell me more?"
        ack = "Thanks, noted."
        if relevant:
            ack += " Related, I have on record: " + "; ".join(relevant) + "."
        return ack


def _topic(ep: EpisodeView, history: list[EpisodeView]) -> str:
    """The problem a fix refers to: the user's previous message in the session, if any."""
    prior = [e for e in history if e.timestamp <= ep.timestamp and e.id != ep.id
             and (ep.session_id is None or e.session_id == ep.session_id)]
    return prior[-1].text if prior else ep.text


def extract(req: ExtractionInput) -> Extraction:
    """The reader's operations for every new episode, as an Extraction. Pure."""
    out = Extraction()
    facts = [FactRef(id=f.id, text=f.text, state=f.state, fact_type=f.fact_type.value)
             for f in req.facts]
    history = sorted(req.episodes, key=lambda e: (e.timestamp, e.id))
    for ep in history:
        if not ep.new:
            continue
        rest: list[str] = []
        fixed = False
        for s in clauses(normalise(ep.text)):
            _feedback(s, ep, history, req, out)
            fix = fix_in(s, _topic(ep, history))
            if fix is None:
                rest.append(s)
                continue
            fixed = True
            out.playbooks.append(ExtractedPlaybook(
                name=fix.name, trigger=fix.trigger, steps=fix.steps, confidence=fix.confidence,
                evidence=[ep.id], reason="the user says these steps fixed it"))
        # the message as said, unless a fix was taken out of it (then its other clauses)
        said = ". ".join(rest) if fixed else ep.text
        for op in read_message(said, ep.timestamp, facts).operations:
            if op.op == "retract":
                out.denials.append(ExtractedDenial(text=op.evidence or op.old_text or "",
                                                   target_id=op.old_id, evidence=[ep.id],
                                                   reason=op.reason))
            elif op.op in ("write", "supersede") and op.text:
                out.facts.append(ExtractedFact(
                    text=op.text, fact_type=op.fact_type, slot=op.slot,
                    confidence=op.confidence, evidence=[ep.id], supersedes_id=op.old_id,
                    contradiction=("harsh" if op.harsh else "natural") if op.old_id else None,
                    valid_from=op.valid_from, valid_to=op.valid_to,
                    reason=op.reason))
    return out


def _feedback(s: str, ep: EpisodeView, history: list[EpisodeView], req: ExtractionInput,
              out: Extraction) -> None:
    outcome = outcome_in(s)
    if outcome is None or not req.playbooks:
        return
    want = content(" ".join([s, _topic(ep, history), *req.assistant_context[-1:]]))
    scored = [(len(want & content(" ".join([pb.name, pb.trigger, *pb.steps]))), pb)
              for pb in req.playbooks]
    score, best = max(scored, key=lambda x: x[0])
    if score == 0 or any(fb.playbook_id == best.id and ep.id in fb.evidence
                         for fb in out.feedback):
        return
    out.feedback.append(ExtractedFeedback(
        playbook_id=best.id, outcome=outcome, evidence=[ep.id],
        reason=f"user reports the advice {'failed' if outcome == 'failure' else 'worked'}: {s!r}"))
