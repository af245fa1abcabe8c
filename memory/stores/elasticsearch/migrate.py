"""Moving up: copy an embedded store into Elasticsearch, then verify counts per user and index.

Every memory (all kinds and fact states, revisions kept), tombstone, audit event (oldest first,
so the order survives) and watermark goes through the target's ordinary `apply`, so ids are the
source's ids: re-running converges (identical re-puts and re-appends are no-ops) (invariant 28).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from pydantic import BaseModel

from ...errors import MemdeskError
from ...models import CATALOG
from ..base import AppendAudit, Op, PutMemory, PutTombstone, SetWatermark

BATCH = 200
ALL = 10**9


class CountRow(BaseModel):
    scope: str
    index: str
    source: int
    target: int

    @property
    def ok(self) -> bool:
        return self.source == self.target


def scopes(src) -> list[str]:
    """Every user with memories, audit events or watermarks, plus the catalog scope."""
    users = set(src.users()) | set(getattr(src, "audit_users", list)())
    users |= set(getattr(src, "watermark_users", list)())
    users.discard(CATALOG)
    return sorted(users) + [CATALOG]


def user_ops(src, user: str) -> Iterator[Op]:
    if user == CATALOG:
        for doc in src.list_catalog():
            yield PutMemory(doc=doc)
    else:
        for doc in src.list_episodes(user):
            yield PutMemory(doc=doc)
        for doc in src.list_facts(user):
            yield PutMemory(doc=doc)
        for doc in src.list_playbooks(user):
            yield PutMemory(doc=doc)
        for tomb in src.list_tombstones(user):
            yield PutTombstone(tombstone=tomb)
        for name, value in getattr(src, "watermarks", lambda u: {})(user).items():
            yield SetWatermark(user_id=user, name=name, value=value)
    for event in reversed(src.audit(user, limit=ALL)):  # oldest first: order survives
        yield AppendAudit(event=event)


def batches(ops: Iterator[Op], size: int = BATCH) -> Iterator[list[Op]]:
    batch: list[Op] = []
    for op in ops:
        batch.append(op)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _audit_count(store, user: str) -> int:
    counter = getattr(store, "audit_count", None)
    return counter(user) if counter is not None else len(store.audit(user, limit=ALL))


def count_table(store, user: str) -> dict[str, int]:
    """Documents per index (and fact state) for one scope: what the verification compares."""
    if user == CATALOG:
        return {"catalog": len(store.list_catalog()), "audit": _audit_count(store, user)}
    out: dict[str, int] = {}
    for kind, states in store.counts(user).items():
        for state, n in states.items():
            out[kind if state == "all" else f"{kind}:{state}"] = n
    out["tombstones"] = len(store.list_tombstones(user))
    out["audit"] = _audit_count(store, user)
    out["watermarks"] = len(getattr(store, "watermarks", lambda u: {})(user))
    return out


def compare(users: list[str], src_counts: Callable[[str], dict[str, int]],
            dst_counts: Callable[[str], dict[str, int]]) -> list[CountRow]:
    rows = []
    for user in users:
        a, b = src_counts(user), dst_counts(user)
        for index in sorted(set(a) | set(b)):
            rows.append(CountRow(scope=user, index=index, source=a.get(index, 0),
                                 target=b.get(index, 0)))
    return rows


def carry_value_key(src, dst) -> None:
    """Issue 11 (invariant 66): forgotten tombstones keep a keyed hash; the copy must check
    values with the same secret, or the forgotten value would come back."""
    key = src.value_key() if hasattr(src, "value_key") else None
    if key is None:
        return
    have = dst.value_key()
    if have is None:
        dst.adopt_value_key(key)
    elif have != key:
        raise MemdeskError("the target already has another value key (it has forgotten values "
                           "of its own): migrate into a fresh prefix (MEMDESK_ES_PREFIX)")


def migrate(src, dst, *, progress: Callable[[str], None] = lambda s: None) -> list[CountRow]:
    """Copy everything, refresh, verify. Raises MemdeskError listing any count that differs."""
    carry_value_key(src, dst)
    users = scopes(src)
    for user in users:
        n = 0
        for batch in batches(user_ops(src, user)):
            dst.apply(batch)
            n += len(batch)
        progress(f"{user}: {n} records")
    dst.refresh()
    rows = compare(users, lambda u: count_table(src, u), lambda u: count_table(dst, u))
    bad = [r for r in rows if not r.ok]
    if bad:
        detail = "; ".join(f"{r.scope}/{r.index}: {r.source} in source, {r.target} in target"
                           for r in bad[:10])
        raise MemdeskError(f"migration copied records but {len(bad)} count(s) differ: {detail}. "
                           "Re-running the same migrate command is safe")
    return rows
