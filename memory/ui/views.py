"""Pure shaping for the desk: models in, rows and figures out (testable without Streamlit)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from pydantic import ValidationError as PydanticError

from ..clock import When
from ..corrections import valid_covers
from ..errors import ValidationError
from ..models import AuditEvent, Episode, Fact, FactState, Record
from ..ranking import RankedHit
from ..search_config import PRESETS, RecallConfig
from ..service import FilterCount, MemoryService, UserSummary


def preset_config(name: str, *, k: int | None = None, include_catalog: bool | None = None,
                  include_superseded: bool | None = None) -> RecallConfig:
    """A named preset with the debugger's few overrides; pages never build configs by hand."""
    if name not in PRESETS:
        raise ValidationError(f"unknown recall preset {name!r}; presets: {', '.join(PRESETS)}")
    changes = {key: value for key, value in (("k", k), ("include_catalog", include_catalog),
                                              ("include_superseded", include_superseded))
               if value is not None}
    # model_validate re-checks bounds (k 1..200) that model_copy alone would skip.
    try:
        return RecallConfig.model_validate({**PRESETS[name].model_dump(), **changes})
    except PydanticError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "config"
        raise ValidationError(f"invalid recall setting {where}: {first.get('msg')}") from None


def memory_text(doc: Record) -> str:
    return doc.display_text()


def hit_rows(hits: list[RankedHit]) -> list[dict]:
    """One row per hit: final rank, kind, text, each leg's rank and raw score, multipliers."""
    rows = []
    for h in hits:
        row: dict[str, object] = {"rank": h.rank, "kind": h.doc.kind.value, "id": h.id,
                                  "text": memory_text(h.doc)}
        for leg in ("bm25", "dense"):
            lr = h.legs.get(leg)
            row[f"{leg} rank"] = lr.rank if lr else None
            row[f"{leg} raw"] = round(lr.raw_score, 4) if lr else None
        row.update({"decay": round(h.multipliers.decay, 4),
                    "use boost": round(h.multipliers.use_boost, 4),
                    "prior": round(h.multipliers.prior, 4),
                    "fused": round(h.fused_score, 5)})
        if h.rerank_score is not None:
            row["rerank"] = round(h.rerank_score, 4)
        rows.append(row)
    return rows


def filter_rows(filters: list[FilterCount]) -> list[dict]:
    return [{"filter": f.name, "removed": f.removed, "why": f.detail} for f in filters]


def user_rows(users: Iterable[UserSummary]) -> list[dict]:
    """One row per user: episodes, playbooks and a count per fact state, every row with every
    state any user has (0 where none), in FactState's order."""
    users = list(users)
    seen = {s for u in users for s in u.facts}
    states = [s.value for s in FactState if s.value in seen] + sorted(
        seen - {s.value for s in FactState})
    return [{"user": u.user_id, "episodes": u.episodes, "playbooks": u.playbooks,
             **{s: u.facts.get(s, 0) for s in states}} for u in users]


def scroll_html(inner: str, max_em: int = 22) -> str:
    """`inner` in a box that scrolls past `max_em` lines' height, as a data grid would."""
    return f"<div style='max-height:{max_em}em;overflow:auto'>{inner}</div>"


def episode_rows(episodes: list[Episode]) -> list[dict]:
    return [{"timestamp": e.timestamp, "text": e.text, "id": e.id} for e in episodes]


TRUE_STATES = (FactState.ACTIVE, FactState.SUPERSEDED)
NEVER_TRUE = (FactState.RETRACTED, FactState.REJECTED)


def state_at_record_time(f: Fact, at: datetime) -> str:
    """What the store believed of this version at record time `at` (invariant 14)."""
    if f.state == FactState.CANDIDATE:
        return "candidate (never believed)"
    if f.state == FactState.REJECTED:
        return "rejected (never believed)"
    if f.recorded_at > at:
        return "not yet recorded"
    if f.superseded_at is not None and f.superseded_at <= at:
        return f.state.value  # superseded or retracted by then
    return "active"


def state_at_valid_time(f: Fact, at: datetime) -> str:
    """Whether this version was true at valid time `at` (invariant 13)."""
    if f.state in NEVER_TRUE:
        return "never true"
    if f.state == FactState.CANDIDATE:
        return "not believed (candidate)"
    if valid_covers(f, at):
        return "true"
    start = f.valid_from or f.recorded_at
    return "not yet true" if at < start else "no longer true"


def asof_chain_rows(chain: list[Fact], selected: str, *, valid_at: datetime | None,
                    recorded_at: datetime | None) -> list[dict]:
    """The chain in version order with each version's state as of the chosen moments
    (invariant 83)."""
    rows = []
    for n, f in enumerate(chain):
        row: dict[str, object] = {"": "▶" if f.id == selected else "", "version": n + 1,
                                  "state now": f.state.value}
        if recorded_at is not None:
            row[f"believed at {recorded_at:%Y-%m-%d %H:%M}"] = state_at_record_time(f, recorded_at)
        if valid_at is not None:
            row[f"true at {valid_at:%Y-%m-%d %H:%M}"] = state_at_valid_time(f, valid_at)
        row.update({"text": f.text, "contradiction": f.contradiction.value if f.contradiction
                    else "", "valid_from": f.valid_from, "valid_to": f.valid_to,
                    "recorded_at": f.recorded_at, "superseded_at": f.superseded_at, "id": f.id})
        rows.append(row)
    return rows


TABLE_CSS = ("<style>.ptab{width:100%;border-collapse:collapse;font-size:.85em}"
             ".ptab th,.ptab td{border-bottom:1px solid #e6e6e6;padding:.25em .45em;"
             "text-align:left;vertical-align:top;white-space:nowrap}"
             ".ptab td.t{white-space:pre-wrap;overflow-wrap:anywhere;width:99%}"
             ".ptab th{font-weight:600;color:#555}.ptab tr.on td{background:#e3f2fd}</style>")


def plain_table_html(rows: list[dict], cls: str, *, when: str = "%Y-%m-%d",
                     hide: tuple[str, ...] = ("id",), digits: int | None = 3,
                     titles: dict[str, str] | None = None, mark: str | None = None,
                     wrap: str = "text", links: tuple[str, ...] = ()) -> str:
    """A few rows as a plain HTML table: a handful of rows need no data grid, whose mount cost
    the browser more than the whole table (issue 34); every column fits, the `wrap` column
    wraps. Every cell is escaped (invariant 80); moments are formatted with `when`, empty when
    unset, numbers that are not whole with `digits` decimals (None: as they are); `titles` are
    the headers' tooltips; the row whose id is `mark` is highlighted (class `on`). A cell of a
    `links` column holds a desk link the desk made (memory.ui.audit_views.link), drawn as a link
    named "open" (its address escaped too); stored text never goes there."""
    from .safe import esc

    cols = [c for c in (rows[0] if rows else {}) if c not in hide]

    def shown(v: object) -> str:
        if v is None:
            return ""
        if isinstance(v, datetime):
            return f"{v:{when}}"
        if digits is not None and isinstance(v, float) and not v.is_integer():
            return f"{v:.{digits}f}"
        return str(v)

    def cell(c: str, v: object) -> str:
        if c in links:
            return f"<td><a href='{esc(str(v))}' target='_self'>open</a></td>" if v else "<td></td>"
        return f"<td class='t'>{esc(shown(v))}</td>" if c == wrap else f"<td>{esc(shown(v))}</td>"

    tips = titles or {}
    head = "".join((f"<th title='{esc(tips[c])}'>" if c in tips else "<th>")
                   + f"{esc(c.replace('_', ' '))}</th>" for c in cols)
    body = "".join(("<tr class='on'>" if mark is not None and r.get("id") == mark else "<tr>")
                   + "".join(cell(c, r[c]) for c in cols) + "</tr>" for r in rows)
    return f"<table class='ptab {cls}'><tr>{head}</tr>{body}</table>{TABLE_CSS}"


def chain_table_html(rows: list[dict]) -> str:
    """The chain rows (asof_chain_rows) as a plain table; moments are UTC days."""
    return plain_table_html(rows, "chain")


def listing_rows(svc: MemoryService, user_id: str, *, states: Iterable[FactState | str] | None,
                 fact_type: str | None, valid_at: When, recorded_at: When,
                 needle: str = "") -> list[dict[str, Any]]:
    """The Facts page's table, oldest first. Without an as-of moment it reads the store's
    listing fields (`fact_summaries`: no full record decoded, ~5x faster for 5,000 facts);
    as-of answers need whole facts (both clocks). Search is casefolded."""
    rows: list[dict[str, Any]]
    if valid_at is None and recorded_at is None:
        rows = [{"id": s.id, "state": s.state, "type": s.fact_type, "text": s.text,
                 "confidence": s.confidence, "recorded_at": s.recorded_at, "origin": s.origin,
                 "linked": bool(s.supersedes)}
                for s in svc.fact_summaries(user_id, states=states, fact_type=fact_type).rows]
    else:
        facts = svc.facts(user_id, states=None if (valid_at or recorded_at) else states,
                          fact_type=fact_type, as_of_valid=valid_at, as_of_recorded=recorded_at)
        rows = [{"id": f.id, "state": f.state.value, "type": f.fact_type.value, "text": f.text,
                 "confidence": f.confidence, "recorded_at": f.recorded_at, "origin": f.origin,
                 "linked": bool(f.supersedes or f.superseded_by)} for f in facts]
    return search_rows(rows, needle)


def search_rows(rows: list[dict[str, Any]], needle: str) -> list[dict[str, Any]]:
    """Listing rows whose text holds `needle` (casefolded: any script) or whose id it is."""
    folded = needle.strip().casefold()
    if not folded:
        return rows
    return [r for r in rows if folded in r["text"].casefold() or r["id"] == needle.strip()]


def facts_by_id(svc: MemoryService, user_id: str, ids: list[str]) -> list[Fact]:
    """Whole facts of one user, in the order of `ids` (the timeline of listed facts)."""
    found = {f.id: f for f in svc.store.list_facts(user_id, ids=list(ids))}
    return [found[i] for i in ids if i in found]


def episodes_by_id(svc: MemoryService, user_id: str, ids: list[str]) -> list[tuple[str, Episode | None]]:
    """A fact's source episodes by id (None: forgotten), read within the user's scope."""
    from ..models import MemoryKind

    found = [(i, svc.store.get(MemoryKind.EPISODIC, user_id, i)) for i in ids]
    return [(i, doc if isinstance(doc, Episode) else None) for i, doc in found]


REVIEW_ACTIONS = ("review_approve", "review_accept", "review_reject", "review_edit",
                  "review_merge", "review_keep_both", "review_undo", "merge_sources")


def review_events(svc: MemoryService, user_id: str, fact_id: str, limit: int = 500) -> list[AuditEvent]:
    """Review decisions (and undos) naming a fact, newest first, read by action."""
    found = [e for a in REVIEW_ACTIONS for e in svc.audit(user_id, action=a, limit=limit)
             if fact_id in e.target_ids]
    return sorted(found, key=lambda e: e.at, reverse=True)
