"""Following a cluster task (issue 31, invariant 481): force merges and erase's delete-by-query
run with `wait_for_completion=false` and are followed through the tasks API, so a long merge or
a lost connection is reported as "still running" — never as a failure after the work was done,
and never answered by sending the (not idempotent) request again.

Each poll is `GET _tasks/<id>?wait_for_completion=true&timeout=…`: the cluster waits, not the
client, so nothing here sleeps. A poll whose wait ran out (408) or whose answer was lost is
just followed by the next one, up to `polls`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass

from elasticsearch import ApiError
from elasticsearch.exceptions import GeneralAvailabilityWarning

from .batch import AnswerLost

POLL_TIMEOUT = "30s"
POLLS = 10  # 5 minutes of server-side waiting, then the task is reported as still running


@dataclass
class Outcome:
    task: str
    completed: bool
    response: dict
    error: object | None = None

    @property
    def failures(self) -> list:
        return list(self.response.get("failures") or [])


def follow(get: Callable[..., object], task: str, polls: int = POLLS) -> Outcome:
    """Poll `task` until it completes; `Outcome.completed` False: still running after `polls`
    server-side waits (or the answers kept getting lost)."""
    for _ in range(polls):
        try:
            with warnings.catch_warnings():  # the client marks the tasks API technical preview
                warnings.simplefilter("ignore", GeneralAvailabilityWarning)
                resp = dict(get(task_id=task, wait_for_completion=True,  # type: ignore[call-overload]
                                timeout=POLL_TIMEOUT))
        except AnswerLost:
            continue
        except ApiError as exc:
            if exc.meta.status == 408:  # the server-side wait ran out: the task still runs
                continue
            raise
        if resp.get("completed"):
            return Outcome(task, True, dict(resp.get("response") or {}), resp.get("error"))
    return Outcome(task, False, {})
