"""Pure shaping for the desk: models in, rows and figures out (testable without Streamlit)."""

from __future__ import annotations

from datetime import datetime, timedelta

import plotly.graph_objects as go
from pydantic import ValidationError as PydanticError

from ..corrections import chains_in_order, valid_covers
from ..errors import ValidationError
from ..models import Episode, Fact, FactState
from ..ranking import RankedHit
from ..search_config import PRESETS, RecallConfig
from ..service import FilterCount
from .safe import esc

STATE_COLOURS = {
    FactState.ACTIVE: "#2e7d32", FactState.SUPERSEDED: "#9e9e9e",
    FactState.CANDIDATE: "#f9a825", FactState.RETRACTED: "#c62828",
    FactState.REJECTED: "#6a1b9a",
}


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


def memory_text(doc) -> str:
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


def episode_rows(episodes: list[Episode]) -> list[dict]:
    return [{"timestamp": e.timestamp, "text": e.text, "id": e.id} for e in episodes]


def valid_interval(fact: Fact, now: datetime) -> tuple[datetime, datetime]:
    """The bar drawn for a true version: the same start/end rules as valid-time as-of (inv. 13)."""
    start = fact.valid_from or fact.recorded_at
    end = fact.valid_to or fact.superseded_at or now
    return start, max(end, start)


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


def _short(text: str, width: int = 42) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


MIN_TIMELINE_SPAN = timedelta(days=1)  # the narrowest time axis a timeline draws


def timeline_figure(facts: list[Fact], now: datetime, *, versions: bool = True,
                    valid_at: datetime | None = None,
                    recorded_at: datetime | None = None) -> go.Figure:
    """Bitemporal timeline, one row per version, versions in order within each chain.

    A valid-time bar only for values that were true (active, superseded). A retracted or
    rejected value was never true: a red cross where it was recorded, and a dotted line over the
    time the store wrongly believed it. A candidate was never believed: a hollow diamond.
    Record time: a dot when recorded, a bar end mark when no longer believed. The as-of
    moments are vertical lines. Labels are escaped: stored text never becomes markup."""
    chains = [facts] if versions else chains_in_order(facts)
    ordered = [f for chain in chains for f in chain]
    version = {f.id: n + 1 for chain in chains for n, f in enumerate(chain)}
    labels, used = [], set()
    for f in ordered:
        label = esc(f"v{version[f.id]} · {_short(f.text)}")
        if label in used:
            label = esc(f"v{version[f.id]} · {_short(f.text, 34)} ·{f.id[-4:]}")
        used.add(label)
        labels.append(label)
    rows = list(zip(labels, ordered, strict=False))
    fig = go.Figure()
    for state in TRUE_STATES:
        mine = [(lab, f) for lab, f in rows if f.state == state]
        if mine:
            spans = [valid_interval(f, now) for _, f in mine]
            fig.add_bar(orientation="h", y=[lab for lab, _ in mine], base=[s for s, _ in spans],
                        x=[(e - s).total_seconds() * 1000 for s, e in spans],
                        name=f"{state.value} (valid time)", marker_color=STATE_COLOURS[state],
                        opacity=0.75, hovertext=[esc(f.text) for _, f in mine],
                        hoverinfo="text+name")
    never = [(lab, f) for lab, f in rows if f.state in NEVER_TRUE]
    for lab, f in never:
        if f.superseded_at:
            fig.add_scatter(x=[f.recorded_at, f.superseded_at], y=[lab, lab], mode="lines",
                            line={"dash": "dot", "color": STATE_COLOURS[f.state]},
                            showlegend=False, hoverinfo="skip")
    if never:
        fig.add_scatter(x=[f.recorded_at for _, f in never], y=[lab for lab, _ in never],
                        mode="markers", name="retracted/rejected (never true)",
                        marker={"symbol": "x", "size": 13,
                                "color": [STATE_COLOURS[f.state] for _, f in never]},
                        hovertext=[esc(f"{f.state.value}: {f.text}") for _, f in never],
                        hoverinfo="text")
    cands = [(lab, f) for lab, f in rows if f.state == FactState.CANDIDATE]
    if cands:
        fig.add_scatter(x=[f.recorded_at for _, f in cands], y=[lab for lab, _ in cands],
                        mode="markers", name="candidate (not yet believed)",
                        marker={"symbol": "diamond-open", "size": 13,
                                "color": STATE_COLOURS[FactState.CANDIDATE],
                                "line": {"width": 2}},
                        hovertext=[esc(f.text) for _, f in cands], hoverinfo="text")
    believed = [(lab, f) for lab, f in rows if f.state in TRUE_STATES]
    if believed:
        fig.add_scatter(x=[f.recorded_at for _, f in believed], y=[lab for lab, _ in believed],
                        mode="markers", name="recorded (record time)",
                        marker={"symbol": "circle", "size": 10, "color": "#1565c0"})
    ended = [(lab, f) for lab, f in believed if f.superseded_at]
    if ended:
        fig.add_scatter(x=[f.superseded_at for _, f in ended], y=[lab for lab, _ in ended],
                        mode="markers", name="no longer believed (record time)",
                        marker={"symbol": "line-ns-open", "size": 14, "color": "#000",
                                "line": {"width": 2}})
    for at, dash, name in ((valid_at, "solid", "as of valid time"),
                           (recorded_at, "dash", "as of record time")):
        if at is not None:
            fig.add_shape(type="line", x0=at, x1=at, y0=0, y1=1, yref="paper", name=name,
                          line={"color": "#d81b60", "dash": dash, "width": 2})
            fig.add_annotation(x=at, y=1, yref="paper", text=name, showarrow=False,
                               yanchor="bottom", font={"color": "#d81b60", "size": 11})
    # A chain that lives within seconds (a fact just said in Chat) would get an axis of
    # milliseconds with overlapping tick labels: show at least a day around it.
    moments = [t for f in ordered for t in (f.recorded_at, f.superseded_at, f.valid_from,
                                            f.valid_to) if t is not None]
    moments += [t for f in ordered if f.state in TRUE_STATES for t in valid_interval(f, now)]
    moments += [t for t in (valid_at, recorded_at) if t is not None]
    if moments and max(moments) - min(moments) < MIN_TIMELINE_SPAN:
        pad = (MIN_TIMELINE_SPAN - (max(moments) - min(moments))) / 2
        fig.update_xaxes(range=[min(moments) - pad, max(moments) + pad])
    fig.update_layout(barmode="overlay", height=140 + 40 * len(ordered), xaxis_type="date",
                      yaxis={"autorange": "reversed", "type": "category",
                             "categoryorder": "array", "categoryarray": labels},
                      margin={"l": 10, "r": 10, "t": 30, "b": 10},
                      legend={"orientation": "h", "y": -0.15},
                      title="valid time (bars) · record time (markers)")
    return fig


def listing_rows(svc, user_id: str, *, states, fact_type: str | None, valid_at, recorded_at,
                 needle: str = "") -> list[dict]:
    """The Facts page's table, oldest first. Without an as-of moment it reads the store's
    listing fields (`fact_summaries`: no full record decoded, ~5x faster for 5,000 facts);
    as-of answers need whole facts (both clocks). Search is casefolded."""
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
    folded = needle.strip().casefold()
    if folded:
        rows = [r for r in rows if folded in r["text"].casefold() or r["id"] == needle.strip()]
    return rows


def facts_by_id(svc, user_id: str, ids: list[str]) -> list[Fact]:
    """Whole facts of one user, in the order of `ids` (the timeline of listed facts)."""
    found = {f.id: f for f in svc.store.list_facts(user_id, ids=list(ids))}
    return [found[i] for i in ids if i in found]


def episodes_by_id(svc, user_id: str, ids: list[str]) -> list[tuple[str, Episode | None]]:
    """A fact's source episodes by id (None: forgotten), read within the user's scope."""
    from ..models import MemoryKind

    return [(i, svc.store.get(MemoryKind.EPISODIC, user_id, i)) for i in ids]


REVIEW_ACTIONS = ("review_approve", "review_accept", "review_reject", "review_edit",
                  "review_merge", "review_keep_both", "review_undo", "merge_sources")


def review_events(svc, user_id: str, fact_id: str, limit: int = 500) -> list:
    """Review decisions (and undos) naming a fact, newest first, read by action."""
    found = [e for a in REVIEW_ACTIONS for e in svc.audit(user_id, action=a, limit=limit)
             if fact_id in e.target_ids]
    return sorted(found, key=lambda e: e.at, reverse=True)
