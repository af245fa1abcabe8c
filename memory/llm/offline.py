"""OfflineLLM: deterministic, rule-based; no network, no key (issue 5).

Extraction is `memory.llm.rules`; replies summarise the recalled memories the chat page puts in
the system prompt (see `memory.llm.memory_prompt`), most relevant to the last message first.
"""

from __future__ import annotations

import re

from ..consolidation.extract import Extraction, ExtractionInput, Usage
from ..text import words
from . import MEMORY_HEADER
from .rules import STOP, extract

_MAX_CITED = 3


def _stem(w: str) -> str:
    return w[:-1] if len(w) > 3 and w.endswith("s") else w


def _content(text: str) -> set[str]:
    return {_stem(w) for w in words(text) if w not in STOP and len(w) > 1}


def recalled_memories(system: str) -> list[str]:
    """Bullet lines under the memory header (or, failing that, every bullet line)."""
    lines = system.splitlines()
    start = next((i + 1 for i, line in enumerate(lines) if line.strip() == MEMORY_HEADER), None)
    body = lines[start:] if start is not None else lines
    out = []
    for line in body:
        s = line.strip()
        if s.startswith(("- ", "* ", "• ")):
            # The chat page labels lines "[identity] ..."; the label helps a model, not a reader.
            item = re.sub(r"^\[[^\]]{1,20}\]\s*", "", s[2:].strip())
            if item and item != "(none)":
                out.append(item)
        elif start is not None and s and out:
            break  # the memory block ended
    return out


class OfflineLLM:
    mode = "offline"

    def extract(self, request: ExtractionInput) -> tuple[Extraction, Usage]:
        return extract(request), Usage(mode=self.mode, calls=1, attempts=1)

    def reply(self, system: str, messages: list[dict[str, str]]) -> str:
        """A deterministic, useful answer: the recalled memories that bear on the last user
        message (by shared content words), else the top recalled ones."""
        last = next((m.get("content", "") for m in reversed(messages)
                     if m.get("role") == "user"), "")
        memories = recalled_memories(system)
        query = _content(last)
        scored = sorted(((len(query & _content(m)), -i, m) for i, m in enumerate(memories)),
                        reverse=True)
        relevant = [m for s, _, m in scored if s > 0][:_MAX_CITED]
        asking = last.strip().endswith("?") or (words(last)[:1] or [""])[0] in {
            "what", "where", "which", "who", "when", "how", "do", "does", "did", "can",
            "could", "is", "are", "should", "would", "will", "tell", "remind"}
        if asking:
            if relevant:
                return "From what I have on record: " + "; ".join(relevant) + "."
            if memories:
                return ("I have nothing on record that answers that directly. What I do have: "
                        + "; ".join(memories[:_MAX_CITED]) + ".")
            return "I have nothing on record about that yet. Could you tell me more?"
        ack = "Thanks, noted."
        if relevant:
            ack += " Related, I have on record: " + "; ".join(relevant) + "."
        return ack
