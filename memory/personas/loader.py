"""Load the committed persona and catalog data into a store, idempotently.

Each data file is applied as one atomic batch (a persona loads whole or not at all). Records
keep their fixed ids; a record already in the store is left alone (identical ones are counted
`unchanged`, ones an operator has since changed, e.g. a reviewed candidate, are `kept`), and
audit events have content-derived ids, so seeding twice adds nothing (invariant 51).
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, TypeAdapter

from ..clock import utcnow
from ..consolidation.plan import WATERMARK
from ..errors import ValidationError
from ..models import AnyMemory, AuditEvent, Episode, MemoryKind, Tombstone
from ..stores.base import AppendAudit, Op, PutMemory, PutTombstone, Store
from ..unit_of_work import Batch
from .build import DATA_DIR

_OP = TypeAdapter(Op)


class FileReport(BaseModel):
    name: str
    scope: str
    records: int  # memories and tombstones in the file
    added: int
    unchanged: int
    kept: int  # present but changed since seeding (left as the operator made it)
    audit_events: int


class SeedReport(BaseModel):
    files: list[FileReport]
    skipped_reason: str | None = None

    @property
    def added(self) -> int:
        return sum(f.added for f in self.files)


def data_files(data_dir: Path = DATA_DIR) -> list[Path]:
    """The catalog first (personas' recall mixes it in), then one file per persona."""
    files = sorted(data_dir.glob("*.jsonl"))
    if not files:
        raise ValidationError(f"no persona data in {data_dir}: run python -m memory.personas.build")
    return sorted(files, key=lambda p: (p.name != "catalog.jsonl", p.name))


def read_ops(path: Path) -> list[Op]:
    ops = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                ops.append(_OP.validate_python(json.loads(line)))
            except ValueError as exc:
                raise ValidationError(f"{path.name} line {n}: {str(exc).splitlines()[0]}") from None
    return ops


def _content(doc: BaseModel) -> dict:
    """A record without its usage stats: recall bumping a seeded fact does not change it."""
    return doc.model_dump(mode="json", exclude={"use_count", "last_used_at"})


def _record(op: Op) -> AnyMemory | Tombstone | AuditEvent:
    if isinstance(op, PutMemory):
        return op.doc
    if isinstance(op, PutTombstone):
        return op.tombstone
    if isinstance(op, AppendAudit):
        return op.event
    raise ValidationError(f"unexpected operation {op.op!r} in seed data")


def is_empty(store: Store) -> bool:
    return not store.users() and not store.list_catalog()


def _plan(store: Store, path: Path) -> tuple[list[Op], dict[str, str], FileReport]:
    """The operations still missing from the store, and what the file holds."""
    ops = read_ops(path)
    scope = path.stem
    tombs: dict[str, set[str]] = {}
    todo: list[Op] = []
    added = unchanged = kept = records = audits = 0
    for op in ops:
        if isinstance(op, PutMemory):
            records += 1
            doc = op.doc
            have = store.get(doc.kind, doc.user_id, doc.id)
            if have is None:
                if doc.kind != MemoryKind.CATALOG and store.owner_of(doc.kind, doc.id) is not None:
                    raise ValidationError(f"{path.name}: id {doc.id} already belongs to another user")
                todo.append(op)
                added += 1
            elif _content(have) == _content(doc):
                unchanged += 1
            else:
                kept += 1
        elif isinstance(op, PutTombstone):
            records += 1
            t = op.tombstone
            if t.user_id not in tombs:
                tombs[t.user_id] = {x.id for x in store.list_tombstones(t.user_id)}
            if t.id in tombs[t.user_id]:
                unchanged += 1
            else:
                todo.append(op)
                added += 1
        elif isinstance(op, AppendAudit):
            audits += 1
            todo.append(op)  # fixed ids: the store ignores an event it already holds
        else:
            raise ValidationError(f"{path.name}: unexpected operation {op.op!r} in seed data")
    return todo, _consolidated_watermarks(store, ops), FileReport(name=path.name, scope=scope, records=records, added=added,
                            unchanged=unchanged, kept=kept, audit_events=audits)


def _consolidated_watermarks(store: Store, ops: list[Op]) -> dict[str, str]:
    """Seeded history is already consolidated (its facts and playbooks are in the file), so the
    consolidation watermark starts after the last seeded episode; otherwise the first run would
    re-read months of history and count playbook feedback twice."""
    from ..consolidation.planner import next_watermark

    by_user: dict[str, list[Episode]] = {}
    for op in ops:
        if isinstance(op, PutMemory) and isinstance(op.doc, Episode):
            by_user.setdefault(op.doc.user_id, []).append(op.doc)
    # next_watermark is None only for no episodes, and every list here has one
    return {user: wm for user, episodes in by_user.items()
            if store.get_watermark(user, WATERMARK) is None
            and (wm := next_watermark(None, episodes)) is not None}


def seed(store: Store, *, if_empty: bool = False, data_dir: Path = DATA_DIR,
         only: list[str] | None = None) -> SeedReport:
    """Load the catalog and every persona (or `only` those scopes) into `store`."""
    if if_empty and not is_empty(store):
        return SeedReport(files=[], skipped_reason="the store already holds data")
    paths = data_files(data_dir)
    unknown = sorted(set(only or ()) - {p.stem for p in paths})
    if unknown:
        known = ", ".join(p.stem for p in paths)
        raise ValidationError(f"no seed data for {', '.join(unknown)}; known: {known}")
    reports = []
    for path in paths:
        if only and path.stem not in only:
            continue
        todo, marks, report = _plan(store, path)
        if report.added or marks:
            # One atomic batch per file (invariant 51), through the unit of work: the file is
            # its own history, so its records and audit events are restored as they are.
            b = Batch(store, "seed", path.stem, now=utcnow())
            for op in todo:
                b.restore(_record(op))
            for user, value in marks.items():
                b.restore_watermark(user, WATERMARK, value)
            b.commit()
        reports.append(report)
    return SeedReport(files=reports)
