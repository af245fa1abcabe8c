"""The review page's focus flow as plain functions: which item is on screen, what comes next,
what a stale decision tells the operator, and the per-item widget keys (issue 13)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from review.models import QueueFilter, QueueItem
from review.queue import history

from ..service import MemoryService


@dataclass(frozen=True)
class Focus:
    index: int  # position of the shown item in the listing (0-based)
    item: QueueItem
    next_id: str | None  # where a decision or a skip moves to (None: nothing else waits)


def focus(items: Sequence[QueueItem], cursor: str | None, skipped: Sequence[str]) -> Focus | None:
    """The item on screen: the cursor's item while it still waits, else the first item not
    skipped (all skipped: the first). Next is the following unskipped item, wrapping round."""
    if not items:
        return None
    ids = [i.id for i in items]
    skip = set(skipped)
    if cursor in ids:
        at = ids.index(cursor)
    else:
        at = next((n for n, i in enumerate(ids) if i not in skip), 0)
    after = [n for n in [*range(at + 1, len(ids)), *range(at)] if ids[n] not in skip]
    nxt = ids[after[0]] if after else (ids[(at + 1) % len(ids)] if len(ids) > 1 else None)
    return Focus(index=at, item=items[at], next_id=nxt)


@dataclass(frozen=True)
class ItemKeys:
    """Widget keys that belong to one item, so a reason, comment or edit never carries over
    to another item (invariant 81)."""

    reason: str
    comment: str
    text: str
    into: str

    def all(self) -> tuple[str, ...]:
        return (self.reason, self.comment, self.text, self.into)


def item_keys(item_id: str) -> ItemKeys:
    return ItemKeys(reason=f"rv_reason__{item_id}", comment=f"rv_comment__{item_id}",
                    text=f"rv_text__{item_id}", into=f"rv_into__{item_id}")


def button_key(action: str, item_id: str, rev: int) -> str:
    """The key of a focus-view button that acts on one item (approve, reject, skip…). It names
    the item and the revision the button was drawn with (invariant 81): a second click or key
    press sent before the next item is drawn (a double click) reaches a button that no longer
    exists, so Streamlit drops it, instead of the next item's same button deciding an item the
    operator has not seen."""
    return f"review_{action}__{item_id}__r{rev}"


def decided_meanwhile(svc: MemoryService, user_id: str, fact_id: str, fresh_state: str | None,
                      rev: int, operator: str | None = None) -> str:
    """What the operator reads when the item on screen was decided or changed by someone else
    (invariant 81): who, what and when, and that nothing was written. When `operator` decided
    it themselves (the second click of a double click, invariant 81), it says so plainly
    instead of suggesting that their decision was lost."""
    who = next((h for h in history(svc, user_id, limit=100) if h.fact_id == fact_id), None)
    if who is not None and operator is not None and who.operator == operator \
            and fresh_state not in (None, "candidate"):
        what = f"“{who.text[:60]}”" if who.text else f"item {fact_id}"
        return (f"You already decided {what}: {who.decision} at {who.at:%H:%M:%S} UTC (now "
                f"{fresh_state}). The repeated click was ignored; nothing else changed.")
    if fresh_state is None:
        what = "it no longer exists"
    elif fresh_state == "candidate":
        what = f"it changed since you loaded it (now revision {rev}); look again and decide"
    elif who is not None:
        what = (f"decided meanwhile by {who.operator}: {who.decision} at {who.at:%H:%M:%S} UTC "
                f"(now {fresh_state})")
    else:
        what = f"it is now {fresh_state}"
    return f"Item {fact_id}: {what}. Your decision was not applied; nothing else changed."


def describe_filter(flt: QueueFilter) -> str:
    """The filter in words, for the bulk confirmation dialog."""
    parts = [f"users {', '.join(flt.users)}"]
    if flt.text and flt.text.strip():
        parts.append(f"text contains “{flt.text.strip()}”")
    if flt.kinds:
        parts.append("kind " + " or ".join(sorted(k.value for k in flt.kinds)))
    if flt.fact_types:
        parts.append("type " + " or ".join(sorted(t.value for t in flt.fact_types)))
    lo, hi = flt.min_confidence, flt.max_confidence
    if (lo or 0.0) > 0.0 or (hi if hi is not None else 1.0) < 1.0:
        parts.append(f"confidence {lo or 0.0:.2f}–{hi if hi is not None else 1.0:.2f}")
    if flt.min_age:
        parts.append(f"waiting ≥ {flt.min_age.total_seconds() / 86400:g} days")
    return "; ".join(parts)
