"""What one model call did, as data, and the bound on a whole turn's model time (issue 29).

Both adapters (Claude, OpenAI-compatible) return a `CallRecord` with every call: the stop
reason, the tokens (cache writes and reads apart), and each HTTP attempt the SDK made, so a
retry is visible in the trace instead of only in its latency. Pure models; no SDK here.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from pydantic import BaseModel, Field

from ..errors import MemdeskError


class Attempt(BaseModel):
    """One HTTP attempt of a call; the SDK retried every attempt but the last."""

    n: int = Field(description="1 for the first attempt, 2 for the first retry, ...")
    status: int | None = Field(None, description="HTTP status; None when no response came")
    request_id: str = ""
    retry_after: float | None = Field(None, description="seconds the server asked to wait")
    error: str = ""

    def describe(self) -> str:
        what = str(self.status) if self.status is not None else (self.error or "no response")
        wait = f" (retry-after {self.retry_after:g} s)" if self.retry_after is not None else ""
        return what + wait


class CallRecord(BaseModel):
    """One model call: how it stopped, what it cost, and how many attempts it took."""

    stop_reason: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    attempts: list[Attempt] = Field(default_factory=list)
    ms: float = 0.0
    request_id: str = ""

    @property
    def retries(self) -> list[Attempt]:
        """The attempts that failed and were retried (all but the last)."""
        return self.attempts[:-1]

    def retry_note(self) -> str:
        if not self.retries:
            return ""
        return (f"{len(self.retries)} retr{'y' if len(self.retries) == 1 else 'ies'} by the "
                f"SDK after {', '.join(a.describe() for a in self.retries)}")


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """The wait a response asks for: retry-after-ms first (more precise), then retry-after in
    seconds, as the SDKs read them. A date form is left to the SDK (None here)."""
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            return float(raw) / scale
        except ValueError:
            continue
    return None


class TurnTimeoutError(MemdeskError):
    """A turn's model calls ran past MEMDESK_LLM_TURN_TIMEOUT; no call or retry starts after."""

    exit_code = 6


class Deadline:
    """The time a turn's model calls may still take (MEMDESK_LLM_TURN_TIMEOUT)."""

    def __init__(self, seconds: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds, self.clock = seconds, clock
        self.ends = clock() + seconds

    def remaining(self) -> float:
        return self.ends - self.clock()

    def check(self, what: str) -> float:
        """The seconds left, or a TurnTimeoutError naming what would have started."""
        left = self.remaining()
        if left <= 0:
            raise TurnTimeoutError(f"the turn's model time ran out (MEMDESK_LLM_TURN_TIMEOUT="
                                   f"{self.seconds:g} s) before {what}")
        return left
