"""The audit log as people read it (issue 34): each event with the text of the memory it names
(or "forgotten"), a link to it, and filters by date range, actor, action and outcome. The
filters and rows are pure; `target_texts` is the one read (invariant 515)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from urllib.parse import urlencode

from pydantic import BaseModel, Field

from ..models import CATALOG, AuditEvent, MemoryKind
from ..service import MemoryService

FORGOTTEN = "forgotten"
# The kind a memory id names, by its prefix (memory/models.py new_id).
KINDS = {"fact": MemoryKind.SEMANTIC, "ep": MemoryKind.EPISODIC, "pb": MemoryKind.PROCEDURAL,
         "cat": MemoryKind.CATALOG}


class AuditFilter(BaseModel):
    since: date | None = None  # inclusive, UTC days
    until: date | None = None  # inclusive
    actors: set[str] = Field(default_factory=set)  # empty: anyone
    actions: set[str] = Field(default_factory=set)
    outcomes: set[str] = Field(default_factory=set)


def keep(e: AuditEvent, flt: AuditFilter) -> bool:
    """Whether an event passes the filter. Pure."""
    day = e.at.date()
    return ((flt.since is None or day >= flt.since) and (flt.until is None or day <= flt.until)
            and (not flt.actors or e.actor in flt.actors)
            and (not flt.actions or e.action in flt.actions)
            and (not flt.outcomes or e.outcome in flt.outcomes))


def kind_of(memory_id: str) -> MemoryKind | None:
    return KINDS.get(memory_id.split("_", 1)[0]) if "_" in memory_id else None


def target_texts(svc: MemoryService, scope: str, events: Iterable[AuditEvent]) -> dict[str, str]:
    """The current text of each memory the events name first, read in the events' own scope;
    a memory id that no longer exists reads "forgotten". Ids that name no memory (a tombstone,
    a token) are left out."""
    out: dict[str, str] = {}
    owner = None if scope == CATALOG else scope
    for e in events:
        for target in e.target_ids[:1]:
            kind = kind_of(target)
            if kind is None or target in out:
                continue
            doc = svc.store.get(kind, None if kind == MemoryKind.CATALOG else owner, target)
            out[target] = doc.display_text() if doc is not None else FORGOTTEN
    return out


def link(scope: str, memory_id: str) -> str | None:
    """A desk link to the memory (facts open in Facts); None where no page shows it alone."""
    if scope == CATALOG or kind_of(memory_id) != MemoryKind.SEMANTIC:
        return None
    return "facts?" + urlencode({"user": scope, "fact": memory_id})


def audit_rows(events: Iterable[AuditEvent], texts: dict[str, str], scope: str) -> list[dict]:
    """One row per event, the memory named by its text and linked. Pure."""
    rows = []
    for e in events:
        target = e.target_ids[0] if e.target_ids else ""
        text = texts.get(target, "")
        rows.append({
            "at": e.at, "who": e.actor, "action": e.action, "outcome": e.outcome,
            "memory": text, "open": link(scope, target) if text and text != FORGOTTEN else None,
            "attempted": (e.after or {}).get("attempted", "") if e.outcome == "denied" else "",
            "targets": ", ".join(e.target_ids), "reason": e.reason or "",
            "comment": e.comment or "", "plan": e.plan_id or ""})
    return rows


OPTIONAL = ("open", "attempted", "targets", "reason", "comment", "plan")  # left out when empty


def audit_table_html(rows: list[dict]) -> str:
    """Audit rows (audit_rows) as one escaped HTML table, not a data grid (issue 34: the grid's
    scripts cost the browser more than the rest of the page): the memory's text wraps, a fact
    links to the Facts page, and a column empty on every row is left out. Pure."""
    from .views import plain_table_html

    empty = tuple(c for c in OPTIONAL if not any(r.get(c) for r in rows))
    return plain_table_html(rows, "audit-list", when="%Y-%m-%d %H:%M", hide=empty, digits=None,
                            wrap="memory", links=("open",))
