"""Pure shaping for the desk: models in, rows and figures out (testable without Streamlit)."""

from __future__ import annotations

from datetime import datetime

import plotly.graph_objects as go
from pydantic import ValidationError as PydanticError

from ..errors import ValidationError
from ..models import Episode, Fact, FactState
from ..ranking import RankedHit
from ..search_config import PRESETS, RecallConfig
from ..service import FilterCount

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
        row = {"rank": h.rank, "kind": h.doc.kind.value, "id": h.id, "text": memory_text(h.doc)}
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


def fact_rows(facts: list[Fact]) -> list[dict]:
    return [{"id": f.id, "state": f.state.value, "type": f.fact_type.value, "text": f.text,
             "confidence": f.confidence, "valid_from": f.valid_from, "valid_to": f.valid_to,
             "recorded_at": f.recorded_at, "superseded_at": f.superseded_at,
             "use_count": f.use_count, "origin": f.origin} for f in facts]


def chain_rows(chain: list[Fact], selected: str) -> list[dict]:
    return [{"": "▶" if f.id == selected else "", "version": n + 1, "state": f.state.value,
             "text": f.text, "contradiction": f.contradiction.value if f.contradiction else "",
             "valid_from": f.valid_from, "valid_to": f.valid_to, "recorded_at": f.recorded_at,
             "superseded_at": f.superseded_at, "id": f.id} for n, f in enumerate(chain)]


def episode_rows(episodes: list[Episode]) -> list[dict]:
    return [{"timestamp": e.timestamp, "text": e.text, "id": e.id} for e in episodes]


def valid_interval(fact: Fact, now: datetime) -> tuple[datetime, datetime]:
    """The bar drawn for a version: the same start/end rules as valid-time as-of (inv. 13)."""
    start = fact.valid_from or fact.recorded_at
    end = fact.valid_to or fact.superseded_at or now
    return start, max(end, start)


def timeline_figure(facts: list[Fact], now: datetime, *, versions: bool = True) -> go.Figure:
    """Bitemporal timeline: a valid-time bar per version, record-time markers on it.

    `versions` labels rows v1, v2… (one chain); otherwise by text plus an id tail, so two facts
    with the same text keep their own rows."""
    fig = go.Figure()
    labels = [f"v{n + 1} {f.text[:40]}" if versions else f"{f.text[:40]} ·{f.id[-4:]}"
              for n, f in enumerate(facts)]
    for state in FactState:
        mine = [(lab, f) for lab, f in zip(labels, facts) if f.state == state]
        if not mine:
            continue
        spans = [valid_interval(f, now) for _, f in mine]
        fig.add_bar(orientation="h", y=[lab for lab, _ in mine], base=[s for s, _ in spans],
                    x=[(e - s).total_seconds() * 1000 for s, e in spans], name=state.value,
                    marker_color=STATE_COLOURS[state], opacity=0.75,
                    hovertext=[f.text for _, f in mine], hoverinfo="text+name")
    fig.add_scatter(x=[f.recorded_at for f in facts], y=labels, mode="markers",
                    name="recorded_at", marker={"symbol": "circle", "size": 11, "color": "#1565c0"})
    ended = [(lab, f) for lab, f in zip(labels, facts) if f.superseded_at]
    if ended:
        fig.add_scatter(x=[f.superseded_at for _, f in ended], y=[lab for lab, _ in ended],
                        mode="markers", name="superseded_at",
                        marker={"symbol": "x", "size": 12, "color": "#000"})
    fig.update_layout(barmode="overlay", height=120 + 45 * len(facts), xaxis_type="date",
                      yaxis={"autorange": "reversed"}, margin={"l": 10, "r": 10, "t": 30, "b": 10},
                      title="valid time (bars) · record time (markers)")
    return fig
