"""Data-subject export and import of one user's memory (issue 14).

`export_user` gathers everything the store holds for one user: facts in every state with their
supersession chains and both clocks, episodes, playbooks, watermarks, the audit log (oldest
first) and tombstones — as hashes: a tombstone's value is the SHA-256 of its text, never the
text (the retracted or rejected fact it came from is in `facts`, with its text, like every other
fact). `render_markdown` is the same export for a person to read. Exporting needs admin and is
itself audited (`export_user`, after the export was taken).

`import_user` loads an export into a store that holds no memory of that user (a fresh store, or
the one the user was erased from) with the same ids, revisions, chains, clocks and audit events
(invariant 124). A tombstone comes back whole when the fact it came from is in the export and
its text hashes to the recorded SHA-256. A tombstone the target already holds under the same id
(erasing a user keeps every tombstone as a keyed hash, invariant 67) stays as it is: it still
refuses the exact value. A forgotten tombstone (text gone, keyed hash only) is restored only in
that case, since its keyed hash means something only to the store that made it; the result
lists any tombstone not restored.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticError

from . import textsafety
from .access import ACTION_ROLES
from .corrections import chains_in_order
from .errors import AccessDenied, ConflictError, NotFoundError, ValidationError
from .models import (
    AuditEvent,
    Episode,
    Fact,
    FactState,
    MemoryKind,
    Playbook,
    Tombstone,
    TombstoneKind,
)
from .sensitive import refusal, secret_in
from .service import MemoryService
from .text import normalise, require_user

FORMAT = "memdesk-export/1"
ALL = 10**9


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class TombstoneRecord(BaseModel):
    """A tombstone without its value: which fact it killed, how, by whom, and a hash."""

    model_config = ConfigDict(extra="forbid")
    id: str
    kind: TombstoneKind
    source_fact_id: str | None = None
    actor: str
    created_at: datetime
    reason: str | None = None
    text_sha256: str | None = Field(None, description="SHA-256 of the value; None: forgotten")
    forgotten: bool = False


class UserExport(BaseModel):
    model_config = ConfigDict(extra="forbid")
    format: Literal["memdesk-export/1"] = "memdesk-export/1"
    user_id: str
    exported_at: datetime
    exported_by: str
    facts: list[Fact]
    chains: list[list[str]] = Field(description="fact ids per supersession chain, oldest first")
    episodes: list[Episode]
    playbooks: list[Playbook]
    tombstones: list[TombstoneRecord]
    watermarks: dict[str, str]
    audit: list[AuditEvent] = Field(description="oldest first")

    def counts(self) -> dict[str, int]:
        return {"facts": len(self.facts), "episodes": len(self.episodes),
                "playbooks": len(self.playbooks), "tombstones": len(self.tombstones),
                "audit_events": len(self.audit)}


class ImportResult(BaseModel):
    user_id: str
    facts: int
    episodes: int
    playbooks: int
    audit_events: int
    watermarks: int
    tombstones_restored: list[str] = Field(default_factory=list)
    tombstones_kept: list[str] = Field(default_factory=list,
                                       description="already in the store under the same id")
    tombstones_not_restored: list[str] = Field(default_factory=list)


def chains(facts: list[Fact]) -> list[list[str]]:
    """Facts grouped by supersession links, each chain oldest first, as ids. Pure."""
    return [[f.id for f in chain] for chain in chains_in_order(facts)]


def _record(t: Tombstone) -> TombstoneRecord:
    return TombstoneRecord(id=t.id, kind=t.kind, source_fact_id=t.source_fact_id, actor=t.actor,
                           created_at=t.created_at, reason=t.reason, forgotten=t.forgotten,
                           text_sha256=None if t.forgotten else sha256(t.text))


def export_user(svc: MemoryService, user_id: str, *, actor: str) -> UserExport:
    """Everything one user owns, for that user (admin only, audited; invariants 121, 123)."""
    user = require_user(user_id)
    svc.require(actor, "export_user", user)
    store = svc.store
    facts = store.list_facts(user)
    facts.sort(key=lambda f: (f.recorded_at, f.id))
    episodes = store.list_episodes(user)
    playbooks = store.list_playbooks(user)
    tombs = store.list_tombstones(user)
    audit = list(reversed(store.audit(user, limit=ALL)))
    if not (facts or episodes or playbooks or tombs or audit):
        raise NotFoundError(f"no user {user}: nothing to export", target_id=user)
    out = UserExport(user_id=user, exported_at=svc.clock(), exported_by=actor, facts=facts,
                     chains=chains(facts), episodes=episodes, playbooks=playbooks,
                     tombstones=[_record(t) for t in tombs], watermarks=store.watermarks(user),
                     audit=audit)
    with svc.batch(actor, user, reason="data-subject export") as b:  # who took whose data
        b.note("export_user", [], after=out.counts())
    return out


def to_json(export: UserExport) -> str:
    return json.dumps(export.model_dump(mode="json"), indent=1, ensure_ascii=False)


def parse(raw: str | bytes) -> UserExport:
    """An export file, validated whole: a malformed or foreign file is one clear error."""
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValidationError(f"not a Memdesk export (JSON): {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValidationError(f"not a Memdesk export: expected \"format\": \"{FORMAT}\"")
    try:
        return UserExport.model_validate(data)
    except PydanticError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "file"
        msg = str(first.get("msg", "invalid")).removeprefix("Value error, ")
        raise ValidationError(f"invalid export at {where}: {msg}") from None


def _check_scope(export: UserExport) -> None:
    """Every record names the export's user: a file cannot write into another scope."""
    user = export.user_id
    records: list[Fact | Episode | Playbook | AuditEvent] = [
        *export.facts, *export.episodes, *export.playbooks, *export.audit]
    for rec in records:
        if rec.user_id != user:
            raise ValidationError(f"export of {user!r} holds a record of {rec.user_id!r} "
                                  f"({rec.id}): refused whole")


def _refuse(export: UserExport, why: str) -> ValidationError:
    return ValidationError(f"export of {export.user_id!r} is not a consistent history: {why}; "
                           "refused whole, nothing was written")


def _check_history(export: UserExport) -> None:
    """Invariant 124: the file is checked as a history before anything is written. Every id
    once (memories share one id space; audit events and tombstones each their own); each link
    answered by the other end (a successor names what it replaces, and a version replaced by
    a believed successor names it back); no chain loops; no active fact with a successor; and
    the chains the file lists are the chains its facts make. A link to a fact not in the file
    is a forgotten version (invariant 66) and is allowed."""
    for what, ids in (("memory", [d.id for d in (*export.facts, *export.episodes,
                                                  *export.playbooks)]),
                      ("audit event", [e.id for e in export.audit]),
                      ("tombstone", [t.id for t in export.tombstones])):
        seen: set[str] = set()
        for i in ids:
            if i in seen:
                raise _refuse(export, f"{what} id {i} appears twice")
            seen.add(i)
    facts = {f.id: f for f in export.facts}
    believed = (FactState.ACTIVE, FactState.SUPERSEDED)
    for f in export.facts:
        if f.id in (f.supersedes, f.superseded_by):
            raise _refuse(export, f"fact {f.id} supersedes itself")
        if f.state == FactState.ACTIVE and f.superseded_by:
            raise _refuse(export, f"fact {f.id} is active but superseded by {f.superseded_by}")
        nxt = facts.get(f.superseded_by or "")
        if nxt is not None and nxt.supersedes != f.id:
            raise _refuse(export, f"fact {f.id} is superseded by {nxt.id}, which does not "
                                  "say it replaces it")
        prev = facts.get(f.supersedes or "")
        if prev is not None and f.state in believed and prev.superseded_by != f.id:
            raise _refuse(export, f"fact {f.id} replaces {prev.id}, which names "
                                  f"{prev.superseded_by or 'no'} successor")
    for f in export.facts:  # a loop has no oldest version
        walked = {f.id}
        cur = facts.get(f.supersedes or "")
        while cur is not None:
            if cur.id in walked:
                raise _refuse(export, f"the supersession chain through {f.id} loops")
            walked.add(cur.id)
            cur = facts.get(cur.supersedes or "")
    if sorted(map(tuple, export.chains)) != sorted(map(tuple, chains(export.facts))):
        raise _refuse(export, "its chains do not match the links of its facts")


def _tombstone(rec: TombstoneRecord, user: str, facts: dict[str, Fact]) -> Tombstone | None:
    """The whole tombstone, from the fact whose text matches its hash; None if none does."""
    if rec.forgotten or rec.text_sha256 is None:
        return None
    candidates = [facts[rec.source_fact_id]] if rec.source_fact_id in facts else []
    candidates += [f for f in facts.values() if f.id != rec.source_fact_id]
    for f in candidates:
        if sha256(f.text) == rec.text_sha256:
            return Tombstone(id=rec.id, user_id=user, text=f.text, normalized=normalise(f.text),
                             kind=rec.kind, source_fact_id=rec.source_fact_id, reason=rec.reason,
                             actor=rec.actor, created_at=rec.created_at)
    return None


# Actions an audit log records without a role check of their own (a refusal, a denial).
RECORDED_ONLY = frozenset({"denied", "write_refused", "review_refused"})
ERASE_COUNTS = frozenset({"memories", "tombstones"})


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in (*_strings(k), *_strings(v))]
    if isinstance(value, list | tuple):
        return [t for v in value for t in _strings(v)]
    return []


def _check_audit(svc: MemoryService, export: UserExport) -> None:
    """Invariant 178: the file's audit log is kept as the user's history, but each event is
    checked like a write: text safety and secrets in every string it holds, a known action,
    no date after the export was taken, an `erase_user` only as the oldest event holding counts
    only (an erase leaves exactly that), and an operator's act only where this store's roles
    give that operator the role (a forged `operator:root@…` admin act is refused)."""
    for i, e in enumerate(export.audit):
        where = f"audit event {e.id} ({e.action} by {e.actor})"
        if e.at > export.exported_at:
            raise _refuse(export, f"{where} is dated after the export was taken")
        for text in _strings([e.action, e.target_ids, e.before, e.after, e.reason, e.plan_id,
                              e.comment]):
            bad = textsafety.first_unsafe(text)
            if bad is not None:
                raise _refuse(export, f"{where} holds {textsafety.describe(bad)}")
            kind = secret_in(text)
            if kind:
                raise _refuse(export, f"{where}: {refusal(kind)}")
        if e.action not in ACTION_ROLES and e.action not in RECORDED_ONLY:
            raise _refuse(export, f"{where}: no such action")
        if e.action == "erase_user" and (i != 0 or set(e.after or {}) - ERASE_COUNTS
                                         or e.before is not None):
            raise _refuse(export, f"{where}: an erase leaves one event, the oldest, holding "
                                  "counts only")
        if e.actor.startswith("operator:") and e.outcome == "ok" and svc.authorize is not None:
            try:
                svc.authorize(e.actor, e.action, export.user_id)
            except AccessDenied as exc:
                raise _refuse(export, f"{where} names an authority this store does not give "
                                      f"({exc})") from None


def import_user(svc: MemoryService, export: UserExport, *, actor: str,
                file_sha256: str | None = None) -> ImportResult:
    """Load an export into a store holding no memory of its user, in one audited batch with
    the same ids (admin only; invariant 124). Every record meets the checks of a write (its
    scope, size, text, secrets and the tombstones; invariant 178); the import is one event
    naming the operator and the file's SHA-256."""
    user = require_user(export.user_id)
    svc.require(actor, "import_user", user)
    _check_scope(export)
    _check_history(export)
    _check_audit(svc, export)
    store = svc.store
    have = sum(n for states in store.counts(user).values() for n in states.values())
    if have:
        raise ConflictError(f"user {user} already has {have} memories in this store: an export "
                            "loads only where the user has none (erase first, or use another "
                            "store)", target_id=user)
    kinds: list[tuple[MemoryKind, list[Fact] | list[Episode] | list[Playbook]]] = [
        (MemoryKind.SEMANTIC, export.facts), (MemoryKind.EPISODIC, export.episodes),
        (MemoryKind.PROCEDURAL, export.playbooks)]
    for kind, docs in kinds:
        for d in docs:
            owner = store.owner_of(kind, d.id)
            if owner is not None:
                raise ConflictError(f"{kind.value} id {d.id} already belongs to another user "
                                    "in this store: refused whole", target_id=d.id)
    existing = {t.id for t in store.list_tombstones(user)}
    facts = {f.id: f for f in export.facts}
    result = ImportResult(user_id=user, facts=len(export.facts), episodes=len(export.episodes),
                          playbooks=len(export.playbooks), audit_events=len(export.audit),
                          watermarks=len(export.watermarks))
    taken = f"{export.exported_at:%Y-%m-%d %H:%M}"
    with svc.batch(actor, user, reason=f"import of an export taken {taken} by "
                                       f"{export.exported_by}") as b:
        for _, docs in kinds:
            for d in docs:
                # Invariant 178: a file cannot bring back a value this store keeps dead (the
                # keyed hashes an erase left, or any tombstone of the user).
                b.restore(d, on_dead="decide")
        for rec in export.tombstones:
            if rec.id in existing:
                result.tombstones_kept.append(rec.id)
                continue
            tomb = _tombstone(rec, user, facts)
            if tomb is None:
                result.tombstones_not_restored.append(rec.id)
                continue
            b.restore(tomb)
            result.tombstones_restored.append(rec.id)
        for event in export.audit:  # oldest first: the order survives
            b.restore(event)
        for name, value in export.watermarks.items():
            b.restore_watermark(user, name, value, expected=store.get_watermark(user, name))
        b.note("import_user", [], after=result.model_dump(
            include={"facts", "episodes", "playbooks", "audit_events", "watermarks"})
            | {"tombstones": len(export.tombstones), "exported_at": export.exported_at.isoformat(),
               "exported_by": export.exported_by, "operator": b.actor,
               "file_sha256": file_sha256})
    return result


# Markdown -------------------------------------------------------------------------------------
# Stored text is text (invariant 80): every Markdown/HTML punctuation mark is escaped, so a
# memory reading "[x](http://…)" or "<img …>" shows as those characters in any viewer.
_MD = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&=\"'^@/])")


def _t(value: Any) -> str:
    return _MD.sub(r"\\\1", str(value)).replace("\r", " ").replace("\n", "<br>")


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else "—"


def render_markdown(export: UserExport) -> str:
    """The export as a document a person reads: each chain with both clocks, then episodes,
    playbooks, tombstones (hashes) and the audit log."""
    facts = {f.id: f for f in export.facts}
    c = export.counts()
    lines = [f"# Memory held about {_t(export.user_id)}", "",
             (f"Exported {_when(export.exported_at)} UTC by {_t(export.exported_by)} · "
             f"{c['facts']} facts · {c['episodes']} episodes · {c['playbooks']} playbooks · "
             f"{c['tombstones']} tombstones · {c['audit_events']} audit events"), "",
             ("Valid time is when a fact was true in the world; record time is when it was "
             "believed here. Tombstones are values declared never true, given as SHA-256 hashes."),
             "", "## Facts", ""]
    if not export.chains:
        lines.append("None.")
    for n, chain in enumerate(export.chains, 1):
        head = facts[chain[-1]]
        lines += [f"### {n}. {_t(head.text)} ({head.state.value}, {head.fact_type.value})", "",
                  ("| version | text | state | valid from | valid to | recorded | no longer "
                  "believed | confidence | id |"), "|---|---|---|---|---|---|---|---|---|"]
        for v, fid in enumerate(chain, 1):
            f = facts[fid]
            lines.append(f"| {v} | {_t(f.text)} | {f.state.value} | {_when(f.valid_from)} | "
                         f"{_when(f.valid_to)} | {_when(f.recorded_at)} | "
                         f"{_when(f.superseded_at)} | {f.confidence:.2f} | {_t(f.id)} |")
        lines.append("")
    lines += ["## Episodes (your own words)", ""]
    lines += ([f"- {_when(e.timestamp)}: {_t(e.text)}" for e in export.episodes] or ["None."])
    lines += ["", "## Playbooks", ""]
    for p in export.playbooks:
        lines.append(f"- **{_t(p.name)}** — when {_t(p.trigger)}: "
                     + "; ".join(_t(s) for s in p.steps)
                     + f" (worked {p.success_count}, failed {p.failure_count})")
    if not export.playbooks:
        lines.append("None.")
    lines += ["", "## Tombstones", ""]
    for t in export.tombstones:
        value = "forgotten" if t.forgotten else f"SHA-256 {t.text_sha256}"
        lines.append(f"- {t.kind.value} {_when(t.created_at)} by {_t(t.actor)}: {value}"
                     + (f" (fact {_t(t.source_fact_id)})" if t.source_fact_id else "")
                     + (f" — {_t(t.reason)}" if t.reason else ""))
    if not export.tombstones:
        lines.append("None.")
    lines += ["", "## Audit log (oldest first)", "",
              "| at | who | action | outcome | targets | reason |", "|---|---|---|---|---|---|"]
    for e in export.audit:
        lines.append(f"| {_when(e.at)} | {_t(e.actor)} | {_t(e.action)} | {e.outcome} | "
                     f"{_t(', '.join(e.target_ids))} | {_t(e.reason or '')} |")
    if export.watermarks:
        lines += ["", "## Watermarks", ""]
        lines += [f"- {_t(k)}: {_t(v)}" for k, v in export.watermarks.items()]
    return "\n".join(lines) + "\n"
