"""OfflineLLM: deterministic, rule-based; no network, no key (issue 5).

Extraction is `memory.llm.rules`; replies summarise the recalled memories the chat page puts in
the system prompt (see `memory.llm.memory_prompt`), most relevant to the last message first.
"""

from __future__ import annotations

import re

from ..consolidation.extract import Extraction, ExtractionInput, Usage
from ..text import term_set, words
from . import MEMORY_HEADER
from .rules import STOP, extract

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
