"""Labels read back from the store for an explicit set of users (issue 32): each user's audit
log, read whole and newest first, turned into labels by the pure `review.labels`."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from pydantic import BaseModel

from memory.service import MemoryService

from .labels import GROUPS, Label, MeasureRow, labels_from_events, measure
from .queue import scope

# A label may rest on any event of the log: read it whole (Elasticsearch answers at most the
# newest 10,000 events of a user; decisions older than those are not counted there).
_ALL = 10**9


def collect_labels(service: MemoryService, users: Iterable[str] | str, *,
                   since: date | None = None) -> list[Label]:
    """Every label of the named users (invariant 40: an explicit scope), oldest first,
    decided on or after `since` when given."""
    out: list[Label] = []
    for user in scope(users):
        out += labels_from_events(service.audit(user, limit=_ALL))
    out.sort(key=lambda lb: lb.at)
    return [lb for lb in out if since is None or lb.day >= since]


def erased(service: MemoryService, user: str) -> bool:
    """Whether this user id was ever erased (its `erase_user` event outlives the erasure)."""
    return bool(service.audit(user, action="erase_user", limit=1))


class LabelTables(BaseModel):
    """The measure as the Evals page and `memdesk eval labels` show it."""

    users: list[str]
    by_reader: list[MeasureRow]
    by_reader_kind_day: list[MeasureRow]
    labels: list[Label]


def label_tables(service: MemoryService, users: Iterable[str] | str) -> LabelTables:
    """Per reader version, then per version, kind and day; with the labels behind them."""
    names = scope(users)
    labels = collect_labels(service, names)
    return LabelTables(users=names, by_reader=measure(labels, by=("reader",)),
                       by_reader_kind_day=measure(labels, by=GROUPS), labels=labels)
