"""AnthropicLLM: structured extraction through forced tool use with the official SDK (issue 5).

The SDK's own retries are off (max_retries=0) so that retry and backoff are ours: bounded,
injectable for tests (`sleep`), and counted on the plan's usage. Transient failures (connection,
timeout, 429, 5xx) are retried; anything else, or exhaustion, is a ModelUnavailableError.
Output that does not validate against `Extraction` is a ModelOutputError: the run fails whole.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import anthropic
from pydantic import ValidationError as PydanticError

from ..consolidation.extract import Extraction, ExtractionInput, Usage
from ..errors import ModelOutputError
from . import ModelUnavailableError

TOOL_NAME = "record_extraction"
_RETRYABLE = (anthropic.APIConnectionError, anthropic.RateLimitError,
              anthropic.InternalServerError)

EXTRACTION_SYSTEM = """You turn a user's own messages into durable memory for a support agent.
Return everything through the record_extraction tool. Rules:
- Evidence is ONLY the user's episodes, cited by id. The assistant's replies are context: never
  record something only the assistant said.
- Write each fact as a short canonical third-person statement without the subject, e.g.
  "Lives in Edinburgh", "Owns a Lumio Hub v2", "Prefers email", "Allergic to peanuts",
  "Works as a nurse". The same value must always get the same wording.
- Only facts stated in episodes marked new=true. Earlier episodes are context.
- If a new fact replaces a shown fact (it stopped being true), set supersedes_id to that fact's
  id (only ids shown to you) and contradiction "natural"; if the user says the old fact was
  never true, contradiction "harsh". Denials without a replacement go in `denials`.
- Set valid_from / valid_to only when the user's words date the fact.
- A playbook is a fix the user confirms worked, as steps. Feedback on a shown playbook
  ("that worked", "still broken") goes in `feedback` with its id.
- Confidence below 0.7 when the user hedges."""


def _schema() -> dict[str, Any]:
    return Extraction.model_json_schema()


class AnthropicLLM:
    def __init__(self, model: str, *, api_key: str | None = None,
                 client: anthropic.Anthropic | None = None, timeout: float = 60.0,
                 retries: int = 3, backoff: float = 1.0, max_tokens: int = 4096,
                 sleep: Callable[[float], None] = time.sleep):
        self.model = model
        self.mode = f"anthropic:{model}"
        self.client = client or anthropic.Anthropic(api_key=api_key, timeout=timeout,
                                                    max_retries=0)
        self.retries, self.backoff, self.max_tokens, self.sleep = retries, backoff, max_tokens, sleep

    def _call(self, usage: Usage, **kwargs):
        attempt = 0
        while True:
            attempt += 1
            usage.attempts += 1
            try:
                msg = self.client.messages.create(model=self.model, max_tokens=self.max_tokens,
                                                  **kwargs)
            except _RETRYABLE as exc:
                if attempt > self.retries:
                    raise ModelUnavailableError(
                        f"the Anthropic API failed after {attempt} attempts: "
                        f"{type(exc).__name__}: {exc}; nothing was written") from exc
                self.sleep(self.backoff * 2 ** (attempt - 1))  # exponential backoff
                continue
            except anthropic.APIError as exc:  # auth, bad request: retrying cannot help
                raise ModelUnavailableError(
                    f"the Anthropic API refused the request: {type(exc).__name__}: {exc}") from exc
            usage.calls += 1
            usage.input_tokens += getattr(msg.usage, "input_tokens", 0) or 0
            usage.output_tokens += getattr(msg.usage, "output_tokens", 0) or 0
            return msg

    def extract(self, request: ExtractionInput) -> tuple[Extraction, Usage]:
        usage = Usage(mode=self.mode)
        payload = request.model_dump(mode="json")
        msg = self._call(
            usage, system=EXTRACTION_SYSTEM,
            messages=[{"role": "user", "content": json.dumps(payload, ensure_ascii=False)}],
            tools=[{"name": TOOL_NAME, "description": "Record the extracted memory changes.",
                    "input_schema": _schema()}],
            tool_choice={"type": "tool", "name": TOOL_NAME})
        block = next((b for b in msg.content if getattr(b, "type", None) == "tool_use"
                      and getattr(b, "name", None) == TOOL_NAME), None)
        if block is None:
            raise ModelOutputError(f"the model did not call {TOOL_NAME} (stop_reason "
                                   f"{msg.stop_reason}); nothing was planned")
        try:
            return Extraction.model_validate(block.input), usage
        except PydanticError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ())) or "output"
            raise ModelOutputError(f"malformed model output at {where}: {first.get('msg')}; "
                                   "nothing was planned") from None

    def reply(self, system: str, messages: list[dict[str, str]]) -> str:
        usage = Usage(mode=self.mode)
        msg = self._call(usage, system=system,
                         messages=[{"role": m["role"], "content": m["content"]} for m in messages])
        return "".join(getattr(b, "text", "") for b in msg.content
                       if getattr(b, "type", None) == "text").strip()
