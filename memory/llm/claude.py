"""AnthropicLLM: Claude through the official SDK, to the letter of the Messages API (issues 5, 29).

Retries are the SDK's own (connection errors, 408, 409, 429, 5xx; `retry-after-ms`,
`retry-after` and `x-should-retry` honoured, with jitter), bounded by MEMDESK_ANTHROPIC_* and,
in a turn, by a `Deadline`. A middleware records every HTTP attempt on the call's `CallRecord`
so each retry shows in the trace (invariant 433); it also stops a retry that would start past
the deadline. A 401/403 is a `ModelAuthError`, never retried (invariant 433).

Prompt caching (invariant 435): the tools and the static instructions are the cached prefix;
the one breakpoint (`cache_control`) is on the static system block, and whatever changes per
call (the date, core memory) goes in a later block.

Extraction is a forced tool whose input schema is `Extraction`'s JSON schema; a reply that fails
validation is sent back once with the error, then the run fails whole (invariant 436).
"""

from __future__ import annotations

import json
import time
from typing import Any

import anthropic
from pydantic import ValidationError as PydanticError

from ..consolidation.extract import Extraction, ExtractionInput, Usage
from ..errors import ModelOutputError
from . import ModelAuthError, ModelStoppedError, ModelUnavailableError
from .calls import Attempt, CallRecord, Deadline, TurnTimeoutError, retry_after_seconds
from .judge import JUDGE_SYSTEM, JUDGE_TOOL, JudgeQuestion, JudgeVerdict

TOOL_NAME = "record_extraction"
CACHE = {"type": "ephemeral"}
STOPPED = {"refusal": "the model declined to answer (stop_reason refusal)",
           "model_context_window_exceeded": "the conversation no longer fits the model's "
           "context window (stop_reason model_context_window_exceeded); start a new session"}

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


def stopped(msg: anthropic.types.Message) -> str:
    """Why the model stopped without an answer, with the refusal's category and explanation
    when the API gives them (`stop_details`)."""
    why = STOPPED[msg.stop_reason or ""]
    details = getattr(msg, "stop_details", None)
    if details is not None and (details.category or details.explanation):
        why += " (" + ": ".join(x for x in (details.category, details.explanation) if x) + ")"
    return why


def extraction_schema() -> dict[str, Any]:
    return Extraction.model_json_schema()


def cached_system(static: str, dynamic: str = "") -> list[dict[str, Any]]:
    """The system prompt as blocks: the static one ends the cached prefix (tools + it); the
    per-call part comes after the breakpoint, so it never spoils the cache (invariant 435)."""
    blocks: list[dict[str, Any]] = [{"type": "text", "text": static, "cache_control": CACHE}]
    if dynamic:
        blocks.append({"type": "text", "text": dynamic})
    return blocks


class _AttemptRecorder:
    """SDK middleware: runs once per HTTP attempt, inside the SDK's retry loop."""

    def __init__(self, record: CallRecord, deadline: Deadline | None) -> None:
        self.record, self.deadline = record, deadline

    def __call__(self, request: anthropic.APIRequest,
                 call_next: anthropic.CallNext) -> anthropic.APIResponse[Any]:
        n = request.retries_taken + 1
        if self.deadline is not None and n > 1:
            self.deadline.check(f"retry {n - 1} of a model call")  # invariant 433
        try:
            response = call_next(request)
        except anthropic.APIConnectionError as exc:
            self.record.attempts.append(Attempt(n=n, error=type(exc).__name__))
            raise
        headers = response.headers
        wait = retry_after_seconds(headers)
        self.record.attempts.append(Attempt(n=n, status=response.status_code,
                                            request_id=headers.get("request-id", ""),
                                            retry_after=wait))
        if (self.deadline is not None and wait is not None and response.status_code >= 400
                and wait >= self.deadline.remaining()):
            raise TurnTimeoutError(f"the Anthropic API asked to wait {wait:g} s "
                                   f"(HTTP {response.status_code}), past the turn's bound "
                                   f"(MEMDESK_LLM_TURN_TIMEOUT={self.deadline.seconds:g} s)")
        return response


def tried(record: CallRecord) -> str:
    n = len(record.attempts)
    return f"after {n} attempt{'s' if n != 1 else ''}"


def _error(exc: anthropic.APIStatusError) -> dict[str, Any]:
    body = exc.body if isinstance(exc.body, dict) else {}
    err = body.get("error")
    return err if isinstance(err, dict) else {}


def _error_type(exc: anthropic.APIStatusError) -> str:
    return str(_error(exc).get("type", ""))


def _describe(exc: anthropic.APIStatusError) -> str:
    kind, msg = _error_type(exc), _error(exc).get("message", "") or str(exc)
    return f"HTTP {exc.status_code}" + (f" {kind}" if kind else "") + f": {msg}"


class AnthropicLLM:
    def __init__(self, model: str, *, api_key: str | None = None, base_url: str | None = None,
                 max_retries: int = 3, timeout: float = 60.0, max_tokens: int = 4096,
                 turn_timeout: float = 300.0, client: anthropic.Anthropic | None = None) -> None:
        self.model = model
        self.mode = f"anthropic:{model}"
        self.max_tokens, self.timeout, self.turn_timeout = max_tokens, timeout, turn_timeout
        self._checked = False
        self.client = client or anthropic.Anthropic(api_key=api_key, base_url=base_url or None,
                                                    timeout=timeout, max_retries=max_retries)

    def call(self, *, deadline: Deadline | None = None, record: CallRecord | None = None,
             **kwargs: Any) -> tuple[anthropic.types.Message, CallRecord]:
        """One Messages API call with the SDK's retries; returns (message, CallRecord). Every
        failure is a MemdeskError naming what to do; the attempts are on `record` either way."""
        record = record if record is not None else CallRecord()
        timeout = self.timeout
        if deadline is not None:
            timeout = min(timeout, deadline.check("a model call"))
        client = self.client.with_options(
            middleware=[*self.client.middleware, _AttemptRecorder(record, deadline)])
        started = time.perf_counter()
        try:
            msg = client.messages.create(model=self.model, max_tokens=self.max_tokens,
                                         timeout=timeout, **kwargs)
        except anthropic.APIError as exc:
            raise self._translate(exc, tried(record)) from exc
        finally:
            record.ms = round((time.perf_counter() - started) * 1000, 2)
        u = msg.usage
        record.stop_reason = msg.stop_reason or ""
        record.input_tokens, record.output_tokens = u.input_tokens or 0, u.output_tokens or 0
        record.cache_creation_input_tokens = u.cache_creation_input_tokens or 0
        record.cache_read_input_tokens = u.cache_read_input_tokens or 0
        record.request_id = getattr(msg, "_request_id", None) or ""
        return msg, record

    def _translate(self, exc: anthropic.APIError, tries: str, *, after: str = "") -> Exception:
        """An SDK error as one clear MemdeskError saying what to do; 401/403 is an auth error,
        never "unavailable" (invariant 433)."""
        if isinstance(exc, anthropic.AuthenticationError | anthropic.PermissionDeniedError):
            return ModelAuthError(f"the Anthropic API refused the credentials ({_describe(exc)}); "
                                  f"check ANTHROPIC_API_KEY{after}")
        if isinstance(exc, anthropic.NotFoundError):
            return ModelUnavailableError(f"the Anthropic API does not know model {self.model!r} "
                                         f"({_describe(exc)}); check MEMDESK_ANTHROPIC_MODEL"
                                         f"{after}")
        if isinstance(exc, anthropic.APIStatusError):
            return ModelUnavailableError(f"the Anthropic API failed {tries}: {_describe(exc)}"
                                         f"{after}")
        return ModelUnavailableError(f"the Anthropic API at {self.client.base_url} could not be "
                                     f"reached {tries}: {type(exc).__name__}: {exc}{after}")

    def check(self) -> None:
        """Before a turn stores anything (invariant 438): the key, the model and the server,
        through the free models endpoint; once per process when it succeeds."""
        if self._checked:
            return
        record = CallRecord()
        client = self.client.with_options(
            middleware=[*self.client.middleware, _AttemptRecorder(record, None)])
        try:
            client.models.retrieve(self.model, timeout=min(self.timeout, 30.0))
        except anthropic.NotFoundError as exc:
            if _error_type(exc) == "not_found_error":  # the API's own answer: no such model
                raise self._translate(exc, tried(record),
                                      after="; your message was not stored") from exc
            # a gateway without the models endpoint: taken at its word, as the turn will tell
        except anthropic.APIError as exc:
            raise self._translate(exc, tried(record),
                                  after="; your message was not stored") from exc
        self._checked = True

    def _counted(self, usage: Usage, **kwargs: Any) -> anthropic.types.Message:
        msg, record = self.call(**kwargs)
        usage.count(record)
        return msg

    def extract(self, request: ExtractionInput) -> tuple[Extraction, Usage]:
        """Forced tool use; an invalid reply goes back once with its error (invariant 436)."""
        usage = Usage(mode=self.mode, structured="forced_tool")
        tools = [{"name": TOOL_NAME, "description": "Record the extracted memory changes.",
                  "input_schema": extraction_schema()}]
        messages: list[dict[str, Any]] = [{"role": "user", "content": json.dumps(
            request.model_dump(mode="json"), ensure_ascii=False)}]
        for attempt in (1, 2):
            msg = self._counted(usage, system=cached_system(EXTRACTION_SYSTEM), messages=messages,
                                tools=tools, tool_choice={"type": "tool", "name": TOOL_NAME})
            if msg.stop_reason in STOPPED:
                raise ModelStoppedError(f"{stopped(msg)}; nothing was planned",
                                        stop_reason=msg.stop_reason or "")
            if msg.stop_reason == "max_tokens":
                raise ModelOutputError(f"the extraction was cut off at {self.max_tokens} tokens "
                                       "(raise MEMDESK_ANTHROPIC_MAX_TOKENS); nothing was planned")
            block = next((b for b in msg.content if b.type == "tool_use"
                          and b.name == TOOL_NAME), None)
            if block is None:
                problem = f"the model did not call {TOOL_NAME} (stop_reason {msg.stop_reason})"
            else:
                try:
                    return Extraction.model_validate(block.input), usage
                except PydanticError as exc:
                    problem = malformed(exc)
            if attempt == 2:
                break
            usage.invalid_replies += 1
            messages.append({"role": "assistant",
                             "content": [b.model_dump(exclude_none=True) for b in msg.content]})
            fix = f"{problem}. Call {TOOL_NAME} again with input that fits its schema."
            messages.append({"role": "user", "content": (
                [{"type": "tool_result", "tool_use_id": block.id, "is_error": True, "content": fix}]
                if block is not None else fix)})
        raise ModelOutputError(f"{problem}, twice; nothing was planned")

    def judge(self, question: JudgeQuestion) -> JudgeVerdict:
        """A second opinion on a doubtful review item (invariant 440): a forced tool whose
        schema is JudgeVerdict's; advice only, nothing is written."""
        msg = self._counted(
            Usage(mode=self.mode), system=cached_system(JUDGE_SYSTEM),
            messages=[{"role": "user", "content": question.model_dump_json()}],
            tools=[{"name": JUDGE_TOOL, "description": "Record the verdict and its reason.",
                    "input_schema": JudgeVerdict.model_json_schema()}],
            tool_choice={"type": "tool", "name": JUDGE_TOOL})
        if msg.stop_reason in STOPPED:
            raise ModelStoppedError(stopped(msg), stop_reason=msg.stop_reason or "")
        block = next((b for b in msg.content if b.type == "tool_use"), None)
        try:
            return JudgeVerdict.model_validate(block.input if block is not None else None)
        except PydanticError as exc:
            raise ModelOutputError(malformed(exc)) from None

    def reply(self, system: str, messages: list[dict[str, str]]) -> str:
        msg = self._counted(Usage(mode=self.mode), system=cached_system(system),
                            messages=[{"role": m["role"], "content": m["content"]}
                                      for m in messages])
        if msg.stop_reason in STOPPED:
            raise ModelStoppedError(stopped(msg), stop_reason=msg.stop_reason or "")
        return "".join(b.text for b in msg.content if b.type == "text").strip()


def malformed(exc: PydanticError) -> str:
    """The first validation error, as one line the model (and an operator) can act on."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "output"
    return f"malformed model output at {where}: {first.get('msg')}"
