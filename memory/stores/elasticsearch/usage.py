"""Recall's use counts in their own index (issue 31, invariant 24). Pure: request lines and
how a read record takes its counts; the store sends them.

A bump is a scripted upsert of a small document `{kind}:{id}` in the usage index — never an
update of the memory, whose document holds its vector — so counting a use rewrites no
memory. A record read for recall, listing, export or a write's check carries its own stored
counts (those from before this index, or a migrated history's) plus the usage document's; a
write keeps the record's stored fields as they are (writes.merge_usage), so the sum is never
written back. Forget deletes the usage document with the memory, erase every one of the user's.
"""

from __future__ import annotations

from typing import TypeVar, cast

from ...clock import parse_when
from ...models import MemoryKind
from ..base import AnyMemory
from .queries import usage_bump, usage_id

TRACKED = (MemoryKind.SEMANTIC, MemoryKind.PROCEDURAL)  # facts and playbooks count their uses
D = TypeVar("D", bound=AnyMemory)


def tracked(pairs: list[tuple[MemoryKind, str]]) -> list[tuple[str, str]]:
    return [(MemoryKind(k).value, i) for k, i in pairs if MemoryKind(k) in TRACKED]


def bump_lines(alias: str, user_id: str, pairs: list[tuple[str, str]], stamp: str) -> list[dict]:
    """One scripted upsert per memory used (docs-bulk.html: an `update` action, then its body;
    retry_on_conflict re-runs the script when two recalls bump the same document at once)."""
    lines: list[dict] = []
    for kind, memory_id in pairs:
        lines += [{"update": {"_index": alias, "_id": usage_id(kind, memory_id),
                              "retry_on_conflict": 3}},
                  usage_bump(stamp, user_id, kind, memory_id)]
    return lines


def delete_lines(alias: str, pairs: list[tuple[str, str]]) -> list[dict]:
    return [{"delete": {"_index": alias, "_id": usage_id(k, i)}} for k, i in pairs]


def ids_of(docs: list[D]) -> list[str]:
    return [usage_id(d.kind.value, d.id) for d in docs if d.kind in TRACKED]


def with_counts(docs: list[D], found: dict[str, dict]) -> list[D]:
    """Each fact and playbook with its usage document's uses added (another user's usage
    document, were one ever written under this id, is not theirs to add)."""
    out = []
    for doc in docs:
        src = found.get(usage_id(doc.kind.value, doc.id)) if doc.kind in TRACKED else None
        if src is None or src.get("user_id") != doc.user_id:
            out.append(doc)
            continue
        have_count = int(getattr(doc, "use_count", 0) or 0)
        update: dict = {"use_count": have_count + int(src.get("use_count") or 0)}
        when = parse_when(src.get("last_used_at"), field="last_used_at")
        have = getattr(doc, "last_used_at", None)
        if when is not None:
            update["last_used_at"] = when if have is None or when > have else have
        out.append(cast(D, doc.model_copy(update=update)))  # the same record class
    return out
