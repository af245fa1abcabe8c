"""The LLM seam: one interface, two implementations (issue 5).

`get_llm()` returns an object with `.mode`, `.extract(ExtractionInput) -> (Extraction, Usage)`
for consolidation, and `.reply(system, messages) -> str` for the chat page. Anthropic is used
when configured (MEMDESK_LLM=auto and ANTHROPIC_API_KEY set, or MEMDESK_LLM=anthropic), any
OpenAI-compatible server with MEMDESK_LLM=openai (issue 29); otherwise the deterministic offline
model, so the desk, the CLI and the tests work with no network.
"""

from __future__ import annotations

from typing import Protocol

from ..consolidation.extract import Extraction, ExtractionInput, Usage
from ..errors import MemdeskError, ValidationError
from ..settings import Settings

MEMORY_HEADER = "Recalled memories about this user (most relevant first):"


class ModelUnavailableError(MemdeskError):
    """The model API failed after the SDK's retries (network, timeout, 5xx, rate limit)."""

    exit_code = 6


class ModelAuthError(ModelUnavailableError):
    """The model API refused the credentials (401/403): retrying cannot help (issue 29)."""


class ModelStoppedError(MemdeskError):
    """The model ended its turn without an answer: a refusal, or a full context window."""

    exit_code = 8

    def __init__(self, message: str, *, stop_reason: str) -> None:
        super().__init__(message)
        self.stop_reason = stop_reason


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

    def __init__(self, error: MemdeskError) -> None:
        self.error = error
        self.mode = f"unavailable ({error})"

    def extract(self, request: ExtractionInput) -> tuple[Extraction, Usage]:
        raise self.error

    def reply(self, system: str, messages: list[dict[str, str]]) -> str:
        raise self.error


class FallbackLLM:
    """MEMDESK_LLM=auto with no model configured: the offline model, saying why (invariant 438:
    the trace and the reply footer show it, so a fallback is never mistaken for a model)."""

    def __init__(self, inner: LLM, why: str) -> None:
        self.inner, self.fallback, self.mode = inner, why, inner.mode

    def extract(self, request: ExtractionInput) -> tuple[Extraction, Usage]:
        return self.inner.extract(request)

    def reply(self, system: str, messages: list[dict[str, str]]) -> str:
        return self.inner.reply(system, messages)


def get_llm(settings: Settings, mode: str | None = None) -> LLM:
    """Pick the model from settings: MEMDESK_LLM auto|anthropic|openai|offline."""
    choice = (mode or settings.llm).strip().lower()
    key = settings.anthropic_api_key.get_secret_value() if settings.anthropic_api_key else ""
    if choice not in {"auto", "anthropic", "openai", "offline"}:
        raise ValidationError(f"MEMDESK_LLM={choice!r}: expected auto, anthropic, openai or "
                              "offline")
    if choice == "openai":
        from .openai_compat import openai_llm

        return openai_llm(settings)
    if choice == "offline" or (choice == "auto" and not key):
        from .offline import OfflineLLM

        if choice == "auto":
            return FallbackLLM(OfflineLLM(), "MEMDESK_LLM=auto and ANTHROPIC_API_KEY is not set: "
                               "the offline reader ran, not a model")
        return OfflineLLM()
    if not key:
        raise ValidationError("MEMDESK_LLM=anthropic needs ANTHROPIC_API_KEY in the environment")
    from .claude import AnthropicLLM

    return AnthropicLLM(model=settings.anthropic_model, api_key=key,
                        base_url=settings.anthropic_base_url,
                        max_retries=settings.anthropic_max_retries,
                        timeout=settings.anthropic_timeout,
                        max_tokens=settings.anthropic_max_tokens,
                        turn_timeout=settings.llm_turn_timeout)


__all__ = ["LLM", "FallbackLLM", "MEMORY_HEADER", "ModelAuthError", "ModelStoppedError", "ModelUnavailableError",
           "UnavailableLLM", "get_llm", "memory_prompt"]
