"""Every review decision is a label (issue 32): what a reader proposed and what the operator made
of it, derived from the audit log on every read and measured per reader version. Pure: no I/O.

A label is never stored apart from the decision it comes from (invariant 491): it is read back
from the decision's audit event, so an undo (a later `review_undo` of the item) removes it, and
forgetting the memory (its snapshots become stubs, a `forget` event names it) or erasing its user
(the events are deleted) takes it along with every text it held.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, datetime
from enum import StrEnum

from pydantic import BaseModel, Field

from memory.models import AuditEvent
from memory.redaction import is_stub
from memory.retractions import MOVED_ON

from .queue import DECISION_ACTIONS

UNDO = "review_undo"
CORRECTIONS = ("retract", "supersede")  # an operator's own change of an active fact
READER_ORIGINS = ("agent", "consolidation")  # memories a reader wrote (mcp:ID too)


class Outcome(StrEnum):
    ACCEPTED = "accepted"  # approved, accepted or kept both: the value as proposed
    EDITED = "edited"  # approved with new text
    MERGED = "merged"  # folded into a fact that already held the value
    REJECTED = "rejected"  # refused, with a reason
    RETRACTED = "retracted"  # an active write an operator later declared never true
    CORRECTED = "corrected"  # an active write an operator later replaced

    @property
    def right(self) -> bool:
        """Whether the proposed value stood as proposed (invariant 491)."""
        return self in (Outcome.ACCEPTED, Outcome.MERGED)


# A proposed retraction the operator retracts stood as proposed; one they keep was the
# reader's mistake (invariant 591).
_OUTCOME = {"review_approve": Outcome.ACCEPTED, "review_accept": Outcome.ACCEPTED,
            "review_keep_both": Outcome.ACCEPTED, "review_edit": Outcome.EDITED,
            "review_merge": Outcome.MERGED, "review_reject": Outcome.REJECTED,
            "review_retract": Outcome.ACCEPTED, "review_keep": Outcome.REJECTED}


class Label(BaseModel):
    """One decided proposal: its source messages, what was proposed and by which reader, and
    what the operator made of it."""

    user_id: str
    fact_id: str
    reader: str = Field(description="the fact's reader@version, else its origin (agent, seed…)")
    kind: str = Field(description="the fact's slot when recorded, else its fact type")
    decision: str = Field(description="approve | accept | keep-both | edit | merge | reject | "
                                      "retract | keep | supersede")
    outcome: Outcome
    at: datetime
    operator: str
    proposed: str
    final: str | None = Field(None, description="the operator's text (edit, correction)")
    edit_distance: int | None = None
    reason: str | None = None
    source_episode_ids: list[str] = Field(default_factory=list)
    supersedes: str | None = None
    contradiction: str | None = None
    into: str | None = Field(None, description="merge: the fact it was folded into")
    event_id: str

    @property
    def day(self) -> date:
        return self.at.date()


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance in characters (insert, delete, substitute). Pure."""
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def human(actor: str) -> bool:
    """An operator at the desk or a person at the command line (not a reader, not seeding)."""
    return actor.startswith("operator:") or actor == "cli" or actor.startswith("cli:")


def reader_made(snapshot: dict) -> bool:
    origin = str(snapshot.get("origin") or "")
    return bool(snapshot.get("reader")) or origin in READER_ORIGINS or origin.startswith("mcp:")


def _reader(snapshot: dict) -> str:
    return str(snapshot.get("reader") or snapshot.get("origin") or "unknown")


def _label(e: AuditEvent, outcome: Outcome, before: dict, final: str | None,
           decision: str, into: str | None = None) -> Label:
    proposed = str(before.get("text", ""))
    return Label(
        user_id=e.user_id, fact_id=str(before.get("id") or e.target_ids[0]),
        reader=_reader(before), kind=str(before.get("slot") or before.get("fact_type") or "?"),
        decision=decision, outcome=outcome, at=e.at,
        operator=e.actor.removeprefix("operator:"), proposed=proposed, final=final,
        edit_distance=edit_distance(proposed, final) if final is not None else None,
        reason=e.reason, source_episode_ids=list(before.get("source_episode_ids") or []),
        supersedes=before.get("supersedes"), contradiction=before.get("contradiction"),
        into=into, event_id=e.id)


def labels_from_events(events: Sequence[AuditEvent]) -> list[Label]:
    """The labels one user's audit log holds now, oldest first. `events` is the log as the store
    returns it, newest first. Pure.

    A decision's label stands until a later `review_undo` of its item (invariant 491). A
    proposed retraction retracted is a right label, one kept a wrong one (invariant 591). A
    `retract` or `supersede` by a person of an active fact a reader wrote, outside any review
    decision, is a label against that reader (invariant 491). Nothing of a forgotten memory is
    labelled (invariant 491)."""
    log = list(reversed(events))
    forgotten = {i for e in log if e.action == "forget" for i in e.target_ids}
    decided = {e.target_ids[0] for e in log if e.action in DECISION_ACTIONS and e.target_ids}
    written = {e.target_ids[0]: e.after for e in log
               if e.target_ids and isinstance(e.after, dict) and e.after.get("id") == e.target_ids[0]
               and e.before is None}
    current: dict[str, Label] = {}
    for e in log:
        if e.outcome != "ok" or not e.target_ids:
            continue
        item = e.target_ids[0]
        before, after = e.before, e.after
        if e.action == UNDO:
            current.pop(item, None)
            continue
        if not isinstance(before, dict) or not isinstance(after, dict) \
                or is_stub(before) or is_stub(after):
            continue
        if e.action in _OUTCOME:
            if e.action == "review_keep" and MOVED_ON in (after.get("flags") or ()):
                current.pop(item, None)  # its fact moved on: nothing the operator judged
                continue
            outcome = _OUTCOME[e.action]
            final = str(after.get("text", "")) if outcome == Outcome.EDITED else None
            into = e.target_ids[1] if outcome == Outcome.MERGED and len(e.target_ids) > 1 \
                else None
            current[item] = _label(e, outcome, before, final,
                                   e.action.removeprefix("review_").replace("_", "-"), into)
        elif e.action in CORRECTIONS and human(e.actor) and before.get("state") == "active" \
                and reader_made(before) and not decided.intersection(e.target_ids):
            new = written.get(e.target_ids[1]) if len(e.target_ids) > 1 else None
            final = None
            if e.action == "supersede":
                final = str(new.get("text")) if isinstance(new, dict) and not is_stub(new) \
                    and new.get("text") else None
            outcome = Outcome.CORRECTED if e.action == "supersede" else Outcome.RETRACTED
            current[item] = _label(e, outcome, before, final, e.action)
    return sorted((lb for lb in current.values() if lb.fact_id not in forgotten),
                  key=lambda lb: lb.at)


# the measure ------------------------------------------------------------------------------------
GROUPS = ("reader", "kind", "day")


class MeasureRow(BaseModel):
    """Counts over the labels of one group; `precision` is right / decided over `decided`
    labels (None when there are none)."""

    reader: str
    kind: str = "all"
    day: date | None = None
    decided: int = 0
    accepted: int = 0
    edited: int = 0
    mean_edit_distance: float | None = None
    merged: int = 0
    rejected: int = 0
    rejected_by_reason: dict[str, int] = Field(default_factory=dict)
    retracted: int = 0
    corrected: int = 0
    precision: float | None = None
    labels: list[tuple[str, str]] = Field(default_factory=list,
                                          description="(user, fact id) of every label counted")


def reason_key(reason: str | None) -> str:
    return " ".join((reason or "").split()).lower() or "(no reason)"


def measure(labels: Iterable[Label], by: Sequence[str] = GROUPS) -> list[MeasureRow]:
    """Labels counted per group of `by` (a subset of reader, kind, day), sorted by group. Pure.
    Only decided proposals are labels: a pending one is never counted (invariant 491)."""
    unknown = set(by) - set(GROUPS)
    if unknown or "reader" not in by:
        raise ValueError(f"group by reader and any of kind, day (got {list(by)})")
    rows: dict[tuple, MeasureRow] = {}
    distances: dict[tuple, list[int]] = {}
    by_key: dict[tuple, list[Label]] = {}
    for lb in labels:
        key = (lb.reader, lb.kind if "kind" in by else "all", lb.day if "day" in by else None)
        row = rows.setdefault(key, MeasureRow(reader=key[0], kind=key[1], day=key[2]))
        row.decided += 1
        row.labels.append((lb.user_id, lb.fact_id))
        by_key.setdefault(key, []).append(lb)
        if lb.outcome == Outcome.ACCEPTED:
            row.accepted += 1
        elif lb.outcome == Outcome.EDITED:
            row.edited += 1
            distances.setdefault(key, []).append(lb.edit_distance or 0)
        elif lb.outcome == Outcome.MERGED:
            row.merged += 1
        elif lb.outcome == Outcome.REJECTED:
            row.rejected += 1
            r = reason_key(lb.reason)
            row.rejected_by_reason[r] = row.rejected_by_reason.get(r, 0) + 1
        elif lb.outcome == Outcome.RETRACTED:
            row.retracted += 1
        else:
            row.corrected += 1
    for key, row in rows.items():
        right = sum(1 for lb in by_key[key] if lb.outcome.right)  # accepted + merged
        row.precision = round(right / row.decided, 4) if row.decided else None
        if key in distances:
            row.mean_edit_distance = round(sum(distances[key]) / len(distances[key]), 2)
        row.rejected_by_reason = dict(sorted(row.rejected_by_reason.items(),
                                             key=lambda kv: (-kv[1], kv[0])))
    return [rows[k] for k in sorted(rows, key=lambda k: (k[0], k[1], k[2] or date.min))]
