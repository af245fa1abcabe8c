"""One chat turn of the agent: store the user's words, recall, prompt, reply (the chat page)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from .llm import LLM
from .models import Episode
from .ranking import RankedHit
from .search_config import WITH_CATALOG, Purpose, RecallConfig
from .service import MemoryService
from .text import clean_text, require_user

INSTRUCTIONS = ("You are a helpful support assistant for this user. Use the recalled memories "
                "when they help; never invent facts about the user; if a memory seems out of "
                "date, ask.")


class ChatTurn(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    episode: Episode
    reply: str
    hits: list[RankedHit]
    mode: str


def memory_line(hit: RankedHit) -> str:
    """One recalled memory as the model sees it: kind first, so it can weigh evidence tiers."""
    return f"[{hit.doc.label()}] {hit.doc.display_text()}"


def system_prompt(hits: list[RankedHit]) -> str:
    from .llm import memory_prompt

    return memory_prompt([memory_line(h) for h in hits], instructions=INSTRUCTIONS)


def chat_turn(svc: MemoryService, user_id: str, message: str,
              history: list[dict[str, str]] | None = None, *, llm: LLM,
              config: RecallConfig = WITH_CATALOG) -> ChatTurn:
    """Validate, recall, store the user's message as an episode, then ask the model.

    Recall runs before the write so the message does not come back as its own memory. The
    episode is written before the model is called, so a model failure loses nothing the user
    said. The reply is returned, never stored as an episode (invariant 9)."""
    user_id = require_user(user_id)
    text = clean_text(message, field="message")
    hits = svc.recall(user_id, text, config=config, purpose=Purpose.AGENT).hits
    episode = svc.write_episode(user_id, text, actor="agent")
    # Only role and content go to the model; pages keep extra keys (hits) beside them.
    messages = [{"role": m["role"], "content": m["content"]} for m in history or []]
    messages.append({"role": "user", "content": text})
    reply = llm.reply(system_prompt(hits), messages)
    return ChatTurn(episode=episode, reply=reply, hits=hits, mode=llm.mode)
