"""The LLM seam: one interface, two implementations (issue 5).

`get_llm()` returns an object with `.mode`, `.extract(ExtractionInput) -> (Extraction, Usage)`
for consolidation, and `.reply(system, messages) -> str` for the chat page. Anthropic is used
when configured (MEMDESK_LLM=auto and ANTHROPIC_API_KEY set, or MEMDESK_LLM=anthropic); otherwise
the deterministic offline model, so the desk, the CLI and the tests work with no network.
"""

from __future__ import annotations

from typing import Protocol

from ..consolidation.extract import Extraction, ExtractionInput, Usage
from ..errors import MemdeskError, ValidationError
from ..settings import Settings

MEMORY_HEADER = "Recalled memories about this user (most relevant first):"


class ModelUnavailableError(MemdeskError):
    """The model API failed after retries (network, timeout, 5xx, rate limit); nothing written."""

    exit_code = 6


class LLM(Protocol):
    mode: str

    def extract(self, request: ExtractionInput) -> tuple[Extraction, Usage]: ...

    def reply(self, system: str, messages: list[dict[str, str]]) -> str: ...


def memory_prompt(memories: list[str], *, instructions: str | None = None) -> str:
    """A system prompt carrying recalled memories in the shape both models understand: the
    offline model answers from exactly these bullet lines."""
    head = instructions or ("You are a helpful support assistant. Use the user's remembered "
                            "facts when they help; never invent facts about the user.")
    lines = [head, "", MEMORY_HEADER]
    lines += [f"- {' '.join(m.split())}" for m in memories] or ["- (none)"]
    return "\n".join(lines)


class UnavailableLLM:
    """A configured model that cannot be used: every call raises the configuration error."""

    def __init__(self, error: MemdeskError):
        self.error = error
        self.mode = f"unavailable ({error})"

    def extract(self, request: ExtractionInput) -> tuple[Extraction, Usage]:
        raise self.error

    def reply(self, system: str, messages: list[dict[str, str]]) -> str:
        raise self.error


def get_llm(settings: Settings, mode: str | None = None) -> LLM:
    """Pick the model from settings: MEMDESK_LLM auto|anthropic|offline."""
    choice = (mode or settings.llm).strip().lower()
    key = settings.anthropic_api_key.get_secret_value() if settings.anthropic_api_key else ""
    if choice not in {"auto", "anthropic", "offline"}:
        raise ValidationError(f"MEMDESK_LLM={choice!r}: expected auto, anthropic or offline")
    if choice == "offline" or (choice == "auto" and not key):
        from .offline import OfflineLLM

        return OfflineLLM()
    if not key:
        raise ValidationError("MEMDESK_LLM=anthropic needs ANTHROPIC_API_KEY in the environment")
    from .claude import AnthropicLLM

    return AnthropicLLM(model=settings.anthropic_model, api_key=key)


__all__ = ["LLM", "MEMORY_HEADER", "ModelUnavailableError", "UnavailableLLM", "get_llm",
           "memory_prompt"]
