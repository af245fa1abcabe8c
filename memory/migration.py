"""Moving up: copy an embedded store into Elasticsearch, then verify counts per user and index.

Every memory (all kinds and fact states, revisions kept), tombstone, audit event (oldest first,
so the order survives), watermark and credential (issue 15: hashed tokens) goes through the target's ordinary `apply`, so ids are the
source's ids: re-running converges (identical re-puts and re-appends are no-ops) (invariant 28).

The move itself is one audited act (invariant 8): the role is checked before anything is
written, and once the counts match the target records one `migrate` event in the catalog scope
naming the actor, the source and target, their schema versions and the records copied per scope.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from pydantic import BaseModel

from .clock import utcnow
from .credentials import Credential
from .errors import MemdeskError, ValidationError
from .models import CATALOG, AuditEvent, Tombstone
from .stores.base import AnyMemory, Store
from .unit_of_work import Authorize, Batch

BATCH = 200
ALL = 10**9
MIGRATE = "migrate"  # the action of the one event a migration records (invariant 8)


class CountRow(BaseModel):
    scope: str
    index: str
    source: int
    target: int

    @property
    def ok(self) -> bool:
        return self.source == self.target


def scopes(src: Store) -> list[str]:
    """Every user with memories, audit events or watermarks, plus the catalog scope."""
    users = set(src.users()) | set(src.audit_users()) | set(src.watermark_users())
    users.discard(CATALOG)
    return sorted(users) + [CATALOG]


def user_records(src: Store, user: str) -> Iterator[AnyMemory | Tombstone | AuditEvent | Credential
                                                   | tuple[str, str]]:
    """Everything one scope holds: memories, tombstones, watermarks (name, value) and audit
    events, oldest event first so the order survives."""
    if user == CATALOG:
        yield from src.list_catalog()
    else:
        yield from src.list_episodes(user)
        yield from src.list_facts(user)
        yield from src.list_playbooks(user)
        yield from src.list_tombstones(user)
        yield from src.watermarks(user).items()
        yield from src.list_credentials(user)  # invariant 131: tokens keep working after a move
    yield from reversed(src.audit(user, limit=ALL))


def batches(dst: Store, user: str, size: int = BATCH) -> Callable[[], Batch]:
    """A factory of unit-of-work batches that restore a history as it is (no new events)."""
    return lambda: Batch(dst, "migrate", user, now=utcnow())


def _audit_count(store: Store, user: str) -> int:
    """Audit events of a scope, less the `migrate` events of the catalog scope: each run records
    one in its target, so a re-run still compares the history that was copied (invariant 8)."""
    n = store.audit_count(user)
    if user == CATALOG:
        n -= len(store.audit(CATALOG, limit=ALL, action=MIGRATE))
    return n


def count_table(store: Store, user: str) -> dict[str, int]:
    """Documents per index (and fact state) for one scope: what the verification compares."""
    if user == CATALOG:
        return {"catalog": len(store.list_catalog()), "audit": _audit_count(store, user)}
    out: dict[str, int] = {}
    for kind, states in store.counts(user).items():
        for state, n in states.items():
            out[kind if state == "all" else f"{kind}:{state}"] = n
    out["tombstones"] = len(store.list_tombstones(user))
    out["audit"] = _audit_count(store, user)
    out["watermarks"] = len(store.watermarks(user))
    out["credentials"] = len(store.list_credentials(user))
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


def carry_value_key(src: Store, dst: Store) -> None:
    """Issue 11 (invariant 66): forgotten tombstones keep a keyed hash; the copy must check
    values with the same secret, or the forgotten value would come back."""
    try:
        Batch(dst, "migrate", CATALOG, now=utcnow()).adopt_value_key(src)
    except ValidationError as exc:
        raise MemdeskError(str(exc)) from None


def migrate(src: Store, dst: Store, *, progress: Callable[[str], None] = lambda s: None,
            actor: str = MIGRATE,
            authorize: Authorize | None = None, source_name: str = "",
            target_name: str = "") -> list[CountRow]:
    """Copy everything, refresh, verify, then record the move as one `migrate` event in the
    target (invariant 8). The actor's role is checked before anything is written: a refusal
    is audited `denied` in the target and copies nothing. Raises MemdeskError listing any count
    that differs (then no `migrate` event: nothing was verified)."""
    door = Batch(dst, actor, CATALOG, now=utcnow(), authorize=authorize)
    door.require(MIGRATE)
    carry_value_key(src, dst)
    users = scopes(src)
    copied: dict[str, int] = {}
    for user in users:
        n = 0
        new_batch = batches(dst, user)
        b = new_batch()
        for item in user_records(src, user):
            if isinstance(item, tuple):
                b.restore_watermark(user, item[0], item[1])
            else:
                b.restore(item)
            n += 1
            if len(b.ops) >= BATCH:
                b.commit()
                b = new_batch()
        b.commit()
        copied[user] = n
        progress(f"{user}: {n} records")
    dst.refresh()
    rows = compare(users, lambda u: count_table(src, u), lambda u: count_table(dst, u))
    bad = [r for r in rows if not r.ok]
    if bad:
        detail = "; ".join(f"{r.scope}/{r.index}: {r.source} in source, {r.target} in target"
                           for r in bad[:10])
        raise MemdeskError(f"migration copied records but {len(bad)} count(s) differ: {detail}. "
                           "Re-running the same migrate command is safe")
    door.note(MIGRATE, [], after={
        "from": {"store": source_name or type(src).__name__, "schema": schema_of(src)},
        "to": {"store": target_name or type(dst).__name__, "schema": schema_of(dst)},
        "records": copied, "total": sum(copied.values()), "scopes": len(users)},
        reason=f"copied {sum(copied.values())} records of {len(users)} scopes, counts verified")
    door.commit()
    return rows


def schema_of(store: Store) -> str:
    """The storage version a store writes: the embedded schema or the ES mapping version."""
    from .stores.elasticsearch.indices import MAPPING_VERSION
    from .stores.embedded import SCHEMA_VERSION, EmbeddedStore
    if isinstance(store, EmbeddedStore):
        return f"embedded schema {SCHEMA_VERSION}"
    return f"elasticsearch mapping version {MAPPING_VERSION}"
