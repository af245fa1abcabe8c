"""Any OpenAI-compatible server (Ollama, vLLM, llama.cpp's server, LM Studio) through the
official `openai` SDK's chat completions (issue 29, invariant 430).

MEMDESK_LLM=openai with MEMDESK_OPENAI_BASE_URL and MEMDESK_OPENAI_MODEL; OPENAI_API_KEY only
when the server wants one. Retries are the SDK's (retry-after honoured); an httpx event hook
records each HTTP attempt on the call's `CallRecord`, as the Claude adapter's middleware does.

Extraction is held to the `Extraction` schema by a forced function call; a server that refuses
a forced tool_choice gets the JSON-schema response format instead, and `Usage.structured` says
which ran. An invalid reply is sent back once with its error, then the run fails whole
(invariant 436).
"""

from __future__ import annotations

import json
import threading
import time
from typing import TYPE_CHECKING, Any

import openai
from openai.types.chat import ChatCompletion
from openai.types.chat import ChatCompletionMessageFunctionToolCall as FunctionCall
from pydantic import ValidationError as PydanticError

from ..consolidation.extract import Extraction, ExtractionInput, Usage
from ..errors import ModelOutputError, ValidationError
from ..settings import Settings
from . import ModelAuthError, ModelStoppedError, ModelUnavailableError
from .calls import Attempt, CallRecord, Deadline, TurnTimeoutError, retry_after_seconds
from .claude import EXTRACTION_SYSTEM, TOOL_NAME, extraction_schema, malformed, tried
from .judge import JUDGE_SYSTEM, JUDGE_TOOL, JudgeQuestion, JudgeVerdict

if TYPE_CHECKING:  # the SDK's HTTP client
    import httpx2

FORCED_TOOL, JSON_SCHEMA = "forced_tool", "json_schema"
# A local server needs no key, but the SDK sends one: this placeholder says so in its logs.
NO_KEY = "no-key-needed"


def function_tools(definitions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Anthropic-shaped tool definitions (memory/tools.py) as chat-completions functions."""
    return [{"type": "function", "function": {"name": d["name"], "description": d["description"],
                                              "parameters": d["input_schema"]}}
            for d in definitions]


def _describe(exc: openai.APIStatusError) -> str:
    body = exc.body if isinstance(exc.body, dict) else {}
    err = body.get("error", body)
    msg = (err.get("message") if isinstance(err, dict) else err) or exc.message
    return f"HTTP {exc.status_code}: {msg}"


class OpenAICompatLLM:
    def __init__(self, base_url: str, model: str, *, api_key: str | None = None,
                 max_retries: int = 2, timeout: float = 120.0, max_tokens: int = 4096,
                 turn_timeout: float = 300.0) -> None:
        self.base_url, self.model = base_url, model
        self.mode = f"openai:{model}"
        self.max_tokens, self.timeout, self.turn_timeout = max_tokens, timeout, turn_timeout
        self._local = threading.local()  # the call in flight on this thread, for the hooks
        self._checked = False
        http = openai.DefaultHttpx2Client(event_hooks={"request": [self._on_request],
                                                       "response": [self._on_response]})
        self.client = openai.OpenAI(api_key=api_key or NO_KEY, base_url=base_url,
                                    timeout=timeout, max_retries=max_retries, http_client=http)

    # --- each HTTP attempt on the call's record (invariant 433) --------------------------------
    def _on_request(self, request: httpx2.Request) -> None:
        record: CallRecord | None = getattr(self._local, "record", None)
        if record is None:
            return
        n = int(request.headers.get("x-stainless-retry-count", "0") or 0) + 1
        deadline: Deadline | None = self._local.deadline
        if deadline is not None and n > 1:
            deadline.check(f"retry {n - 1} of a model call")
        record.attempts.append(Attempt(n=n, error="no response"))

    def _on_response(self, response: httpx2.Response) -> None:
        record: CallRecord | None = getattr(self._local, "record", None)
        if record is None or not record.attempts:
            return
        wait = retry_after_seconds(response.headers)
        last = record.attempts[-1]
        last.status, last.error, last.retry_after = response.status_code, "", wait
        last.request_id = response.headers.get("x-request-id", "")
        deadline: Deadline | None = self._local.deadline
        if (deadline is not None and wait is not None and response.status_code >= 400
                and wait >= deadline.remaining()):
            raise TurnTimeoutError(f"the server asked to wait {wait:g} s (HTTP "
                                   f"{response.status_code}), past the turn's bound "
                                   f"(MEMDESK_LLM_TURN_TIMEOUT={deadline.seconds:g} s)")

    def _translate(self, exc: openai.APIError, tries: str, *, after: str = "") -> Exception:
        if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
            return ModelAuthError(f"the server at {self.base_url} refused the credentials "
                                  f"({_describe(exc)}); check OPENAI_API_KEY{after}")
        if isinstance(exc, openai.NotFoundError):
            return ModelUnavailableError(
                f"the server at {self.base_url} does not serve model {self.model!r} "
                f"({_describe(exc)}); check MEMDESK_OPENAI_MODEL (Ollama: ollama pull "
                f"{self.model}){after}")
        if isinstance(exc, openai.BadRequestError) and "context" in _describe(exc).lower():
            return ModelStoppedError(f"the conversation no longer fits the model's context "
                                     f"window ({_describe(exc)}); start a new session",
                                     stop_reason="model_context_window_exceeded")
        if (isinstance(exc, openai.BadRequestError | openai.UnprocessableEntityError)
                and "tool" in _describe(exc).lower()):  # e.g. Ollama: "... does not support tools"
            return ModelUnavailableError(
                f"model {self.model!r} on {self.base_url} does not do tool calling "
                f"({_describe(exc)}); the agent needs it: pick a model with tool support (Qwen 3, "
                f"Llama 3.1+, Mistral Small) in MEMDESK_OPENAI_MODEL{after}")
        if isinstance(exc, openai.APIStatusError):
            return ModelUnavailableError(f"the server at {self.base_url} failed {tries}: "
                                         f"{_describe(exc)}{after}")
        return ModelUnavailableError(f"the server at {self.base_url} could not be reached "
                                     f"{tries} ({type(exc).__name__}); is it running? "
                                     f"(MEMDESK_OPENAI_BASE_URL){after}")

    def check(self) -> None:
        """Before a turn stores anything (invariant 438): the server answers and serves the
        model. A server without a models list is taken at its word."""
        if self._checked:
            return
        try:
            served = [m.id for m in self.client.models.list(timeout=min(self.timeout, 30.0))]
        except openai.NotFoundError:
            served = []
        except openai.APIError as exc:
            raise self._translate(exc, "", after="; your message was not stored") from exc
        if served and self.model not in served:
            raise ModelUnavailableError(
                f"the server at {self.base_url} does not serve model {self.model!r} (it serves "
                f"{', '.join(served[:10])}); set MEMDESK_OPENAI_MODEL or load the model "
                "(Ollama: ollama pull NAME); your message was not stored")
        self._checked = True

    def call(self, *, messages: list[dict[str, Any]], deadline: Deadline | None = None,
             record: CallRecord | None = None, **kwargs: Any) -> tuple[ChatCompletion, CallRecord]:
        """One chat completion with the SDK's retries; returns (completion, CallRecord)."""
        record = record if record is not None else CallRecord()
        timeout = self.timeout if deadline is None else min(self.timeout,
                                                            deadline.check("a model call"))
        self._local.record, self._local.deadline = record, deadline
        started = time.perf_counter()
        try:
            out = self.client.chat.completions.create(
                model=self.model, messages=messages, max_tokens=self.max_tokens,  # type: ignore[arg-type]
                timeout=timeout, **kwargs)
        except openai.APIError as exc:
            raise self._translate(exc, tried(record)) from exc
        finally:
            self._local.record = self._local.deadline = None
            record.ms = round((time.perf_counter() - started) * 1000, 2)
        if not out.choices:
            raise ModelUnavailableError(f"the server at {self.base_url} returned no choices")
        record.stop_reason = out.choices[0].finish_reason or ""
        if out.usage is not None:
            record.input_tokens = out.usage.prompt_tokens or 0
            record.output_tokens = out.usage.completion_tokens or 0
            details = out.usage.prompt_tokens_details
            record.cache_read_input_tokens = (details.cached_tokens or 0) if details else 0
        record.request_id = getattr(out, "_request_id", None) or ""
        return out, record

    def _counted(self, usage: Usage, **kwargs: Any) -> ChatCompletion:
        out, record = self.call(**kwargs)
        usage.count(record)
        return out

    def _ask(self, usage: Usage, messages: list[dict[str, Any]]) -> ChatCompletion:
        """One extraction call in the mode this server takes: a forced function first; a
        server that refuses it (400/422) gets the JSON-schema response format from then on."""
        if usage.structured != JSON_SCHEMA:
            try:
                usage.structured = FORCED_TOOL
                return self._counted(
                    usage, messages=messages,
                    tools=[{"type": "function", "function": {
                        "name": TOOL_NAME, "description": "Record the extracted memory changes.",
                        "parameters": extraction_schema()}}],
                    tool_choice={"type": "function", "function": {"name": TOOL_NAME}})
            except ModelUnavailableError as exc:
                cause = exc.__cause__
                if not isinstance(cause, openai.BadRequestError | openai.UnprocessableEntityError):
                    raise
                usage.structured = JSON_SCHEMA
        return self._counted(usage, messages=messages, response_format={
            "type": "json_schema",
            "json_schema": {"name": "extraction", "schema": extraction_schema()}})

    def extract(self, request: ExtractionInput) -> tuple[Extraction, Usage]:
        usage = Usage(mode=self.mode)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": EXTRACTION_SYSTEM},
            {"role": "user", "content": json.dumps(request.model_dump(mode="json"),
                                                   ensure_ascii=False)}]
        problem = ""
        for attempt in (1, 2):
            out = self._ask(usage, messages)
            choice = out.choices[0]
            if choice.finish_reason == "length":
                raise ModelOutputError(f"the extraction was cut off at {self.max_tokens} tokens "
                                       "(raise MEMDESK_OPENAI_MAX_TOKENS); nothing was planned")
            call = next((c for c in choice.message.tool_calls or []
                         if isinstance(c, FunctionCall) and c.function.name == TOOL_NAME), None)
            raw = call.function.arguments if call is not None else choice.message.content
            try:
                return Extraction.model_validate_json(raw or ""), usage
            except PydanticError as exc:
                problem = (malformed(exc) if raw else
                           f"the model returned no {TOOL_NAME} call and no JSON")
            if attempt == 2:
                break
            usage.invalid_replies += 1
            fix = f"{problem}. Answer again with input that fits the schema."
            if call is not None:
                messages.append({"role": "assistant", "content": choice.message.content,
                                 "tool_calls": [call.model_dump(exclude_none=True)]})
                messages.append({"role": "tool", "tool_call_id": call.id, "content": fix})
            else:
                messages.append({"role": "assistant", "content": choice.message.content or ""})
                messages.append({"role": "user", "content": fix})
        raise ModelOutputError(f"{problem}, twice ({usage.structured}); nothing was planned")

    def judge(self, question: JudgeQuestion) -> JudgeVerdict:
        """A second opinion on a doubtful review item (invariant 440), by a forced function."""
        out = self._counted(Usage(mode=self.mode), messages=[
            {"role": "system", "content": JUDGE_SYSTEM},
            {"role": "user", "content": question.model_dump_json()}],
            tools=[{"type": "function", "function": {
                "name": JUDGE_TOOL, "description": "Record the verdict and its reason.",
                "parameters": JudgeVerdict.model_json_schema()}}],
            tool_choice={"type": "function", "function": {"name": JUDGE_TOOL}})
        msg = out.choices[0].message
        call = next(iter(msg.tool_calls or []), None)
        raw = call.function.arguments if isinstance(call, FunctionCall) else msg.content
        try:
            return JudgeVerdict.model_validate_json(raw or "")
        except PydanticError as exc:
            raise ModelOutputError(malformed(exc)) from None

    def reply(self, system: str, messages: list[dict[str, str]]) -> str:
        out = self._counted(Usage(mode=self.mode), messages=[
            {"role": "system", "content": system},
            *({"role": m["role"], "content": m["content"]} for m in messages)])
        return (out.choices[0].message.content or "").strip()


def openai_llm(settings: Settings) -> OpenAICompatLLM:
    """MEMDESK_LLM=openai from the settings; a missing server or model is a clear error."""
    if not settings.openai_base_url or not settings.openai_model:
        raise ValidationError("MEMDESK_LLM=openai needs MEMDESK_OPENAI_BASE_URL (e.g. "
                              "http://localhost:11434/v1 for Ollama) and MEMDESK_OPENAI_MODEL")
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
    return OpenAICompatLLM(settings.openai_base_url, settings.openai_model, api_key=key,
                           max_retries=settings.openai_max_retries,
                           timeout=settings.openai_timeout,
                           max_tokens=settings.openai_max_tokens,
                           turn_timeout=settings.llm_turn_timeout)
