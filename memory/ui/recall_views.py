"""The recall debugger's pure parts: toggles over a preset, the shareable URL, hit rows with
state, and the two pictures of a ranking (score contributions, rank shifts). No Streamlit."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import plotly.graph_objects as go
from plotly.subplots import make_subplots
from pydantic import BaseModel, Field
from pydantic import ValidationError as PydanticError

from ..errors import ValidationError
from ..models import Record
from ..ranking import RankedHit
from ..search_config import PRESETS, RecallConfig
from .safe import esc
from .views import memory_text, plain_table_html

# Toggle names as they appear in the URL (`off=` lists switched-off parts, `on=` extras).
LEGS_AND_MULTIPLIERS = ("bm25", "dense", "decay", "boost", "prior")
EXTRAS = ("superseded", "catalog")
LEG_COLOURS = {"bm25": "#1565c0", "dense": "#ef6c00"}
# The multipliers' marks: no colour a leg's bar already uses (one colour, one meaning, one legend).
MULTIPLIER_COLOURS = {"decay": "#757575", "use boost": "#2e7d32", "catalog prior": "#8e24aa",
                      "question / time / adjacency / lift": "#c2185b"}
# What each column of the hits table means: the header's tooltip.
HIT_COLUMNS_HELP = {
    "rank": "final rank (1 = top), after fusion, multipliers and any reranker",
    "state": "a fact's trust state, else the kind of memory (episodic, catalog, playbook)",
    "bm25": "rank in the BM25 (lexical) leg; empty: not among that leg's candidates",
    "dense": "rank in the dense (embedding) leg; empty: not among that leg's candidates",
    "fused": "the fused score both legs give it, after every multiplier: what the rank sorts on",
    "× mult": "per-leg multipliers: decay × use boost × catalog prior (1 = no effect)",
    "× after fusion": "multipliers applied after fusion: question × time × adjacency × lift",
    "rerank": "the reranker's score (final order when a reranker ran)",
    "id": "the memory's id (paste it into Why not?, or open a fact in Facts)",
}


class RecallToggles(BaseModel):
    """What the debugger lets an operator switch beside a preset."""

    bm25: bool = True
    dense: bool = True
    decay: bool = True
    boost: bool = True
    prior: bool = True
    rerank: str = "none"
    superseded: bool = False
    catalog: bool = False
    k: int = Field(10, ge=1, le=200)


def toggles_of(preset: str) -> RecallToggles:
    """The toggles a preset stands for: the starting point when a preset is picked."""
    cfg = preset_named(preset)
    return RecallToggles(bm25=cfg.use_bm25, dense=cfg.use_dense, decay=cfg.ranking.use_decay,
                         boost=cfg.ranking.use_boost, prior=cfg.ranking.catalog_prior != 1.0,
                         rerank=cfg.rerank, superseded=cfg.include_superseded,
                         catalog=cfg.include_catalog, k=cfg.k)


def preset_named(name: str) -> RecallConfig:
    if name not in PRESETS:
        raise ValidationError(f"unknown recall preset {name!r}; presets: {', '.join(PRESETS)}")
    return PRESETS[name]


def build_config(preset: str, t: RecallToggles) -> RecallConfig:
    """The preset with the toggles applied; a recall with no leg at all is refused."""
    if not (t.bm25 or t.dense):
        raise ValidationError("switch on at least one leg (BM25 or dense)")
    base = preset_named(preset)
    ranking = base.ranking.model_copy(update={
        "use_decay": t.decay, "use_boost": t.boost,
        "catalog_prior": base.ranking.catalog_prior if t.prior else 1.0})
    try:
        return RecallConfig.model_validate({
            **base.model_dump(), "use_bm25": t.bm25, "use_dense": t.dense, "ranking": ranking,
            "rerank": t.rerank, "include_superseded": t.superseded, "include_catalog": t.catalog,
            "k": t.k})
    except PydanticError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "config"
        raise ValidationError(f"invalid recall setting {where}: {first.get('msg')}") from None


def to_query_params(query: str, preset: str, t: RecallToggles) -> dict[str, str]:
    """A recall as URL parameters: query, preset, and how the toggles differ from the preset."""
    out = {"q": query, "preset": preset, "k": str(t.k)}
    base = toggles_of(preset) if preset in PRESETS else RecallToggles()
    names = LEGS_AND_MULTIPLIERS + EXTRAS
    off = [n for n in names if getattr(base, n) and not getattr(t, n)]
    on = [n for n in names if getattr(t, n) and not getattr(base, n)]
    if off:
        out["off"] = ",".join(off)
    if on:
        out["on"] = ",".join(on)
    if t.rerank != "none":
        out["rerank"] = t.rerank
    return out


def from_query_params(params: Mapping[str, str]) -> tuple[str, str, RecallToggles] | None:
    """Read a shared recall back (None when the URL names no query). Toggles start from the
    preset, so a link with only a question (the Evals page's misses) reproduces the recall the
    preset runs, catalog included. Unknown parts are ignored; an unknown preset falls back to
    default rather than failing the page."""
    query = (params.get("q") or "").strip()
    if not query:
        return None
    preset = params.get("preset") or "default"
    if preset not in PRESETS:
        preset = "default"
    off = set((params.get("off") or "").split(","))
    on = set((params.get("on") or "").split(","))
    base = toggles_of(preset)
    try:
        k = min(200, max(1, int(params.get("k") or base.k)))
    except ValueError:
        k = base.k
    toggles = base.model_copy(update={
        **{n: (getattr(base, n) or n in on) and n not in off for n in LEGS_AND_MULTIPLIERS + EXTRAS},
        "rerank": params.get("rerank") or "none", "k": k})
    return query, preset, toggles


def hit_state(doc: Record, contradicted: frozenset[str] = frozenset()) -> str:
    """A fact's trust state; other kinds name themselves (an episode has no state). An episode
    that is the source of a never-true fact is marked: agent recall hides it (invariant 65)."""
    if doc.trust is not None:
        return doc.trust.value
    if doc.id in contradicted:
        return f"{doc.kind.value} (contradicted)"
    return doc.kind.value


def debugger_rows(hits: list[RankedHit], rrf_k: int,
                  contradicted: Iterable[str] = ()) -> list[dict]:
    """One narrow row per hit: rank, state, text, each leg's rank, the fused score, and the
    total multiplier; the pictures carry the rest."""
    rows = []
    dead = frozenset(contradicted)
    for h in hits:
        legs = {n: h.legs.get(n) for n in ("bm25", "dense")}
        rows.append({
            "rank": h.rank, "state": hit_state(h.doc, dead), "text": memory_text(h.doc),
            "bm25": legs["bm25"].rank if legs["bm25"] else None,
            "dense": legs["dense"].rank if legs["dense"] else None,
            "fused": round(h.fused_score, 5),
            "× mult": round(h.multipliers.total, 3),
            "× after fusion": round(h.multipliers.post, 3),
            **({"rerank": round(h.rerank_score, 4)} if h.rerank_score is not None else {}),
            "id": h.id})
    return rows


def hits_table_html(rows: list[dict]) -> str:
    """The hits (debugger_rows) as one escaped HTML table, each header's meaning its tooltip:
    read-only rows need no data grid, whose mount was most of the page's time in the browser
    (issue 34). Scores stay as rounded, ids are shown (Why not? takes them)."""
    return plain_table_html(rows, "rc-hits", hide=(), digits=None, titles=HIT_COLUMNS_HELP)


def _label(h: RankedHit, width: int = 48) -> str:
    text = memory_text(h.doc)
    text = text if len(text) <= width else text[: width - 1] + "…"
    return esc(f"#{h.rank} {text}")  # Plotly reads <a>, <b>…: stored text stays text


def contribution_figure(hits: list[RankedHit], rrf_k: int) -> go.Figure:
    """Left: each hit's fused score as the sum of its legs' shares — weight/(k + leg rank) under
    RRF, weight x normalised score under score fusion — scaled by the post-fusion multipliers
    (question, time, adjacency, lift), so the bars sum to the fused score; a hit beyond
    `tail_from` keeps its fused score though the tail is ordered by RRF (invariant 144). Right: the multipliers."""
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, column_widths=[0.62, 0.38],
                        horizontal_spacing=0.03,
                        subplot_titles=("share by leg (sums to the fused score)",
                                        "multipliers (1 = no effect)"))
    labels = [_label(h) for h in hits]
    for leg in ("bm25", "dense"):
        share = [h.legs[leg].contribution * h.multipliers.post if leg in h.legs else 0.0
                 for h in hits]
        fig.add_bar(orientation="h", y=labels, x=share, name=f"{leg} share",
                    marker_color=LEG_COLOURS[leg], row=1, col=1,
                    customdata=[h.legs[leg].rank if leg in h.legs else None for h in hits],
                    hovertemplate=f"{leg} rank %{{customdata}}<br>share %{{x:.5f}}<extra></extra>")
    for name, get in (("decay", lambda m: m.decay), ("use boost", lambda m: m.use_boost),
                      ("catalog prior", lambda m: m.prior),
                      ("question / time / adjacency / lift", lambda m: m.post)):
        colour = MULTIPLIER_COLOURS[name]
        fig.add_scatter(y=labels, x=[get(h.multipliers) for h in hits], mode="markers",
                        name=name, marker={"color": colour, "size": 10}, row=1, col=2,
                        hovertemplate=f"{name} ×%{{x:.3f}}<extra></extra>")
    fig.add_vline(x=1.0, line_dash="dot", line_color="#9e9e9e", row=1, col=2)
    fig.update_layout(barmode="stack", height=140 + 32 * len(hits),
                      yaxis={"autorange": "reversed"}, legend={"orientation": "h", "y": -0.08},
                      margin={"l": 10, "r": 10, "t": 40, "b": 10})
    return fig


def rank_shift_figure(hits: list[RankedHit]) -> go.Figure:
    """Each hit's rank at each stage: in the BM25 leg, in the dense leg, after fusion, and
    final (after a reranker, when one ran). A missing point: the hit was not in that leg."""
    fused_order = sorted(hits, key=lambda h: -h.fused_score)
    fused_rank = {h.id: n for n, h in enumerate(fused_order, 1)}
    stages = ["BM25 rank", "dense rank", "fused", "final"]
    fig = go.Figure()
    for h in hits:
        ys = [h.legs["bm25"].rank if "bm25" in h.legs else None,
              h.legs["dense"].rank if "dense" in h.legs else None, fused_rank[h.id], h.rank]
        fig.add_scatter(x=stages, y=ys, mode="lines+markers", name=_label(h, 36),
                        connectgaps=True, hovertemplate="%{x}: %{y}<extra>%{fullData.name}</extra>")
    fig.update_layout(height=160 + 24 * len(hits), yaxis={"autorange": "reversed",
                                                           "title": "rank (1 = top)"},
                      margin={"l": 10, "r": 10, "t": 30, "b": 10}, title="rank shift by stage",
                      legend={"font": {"size": 11}})
    return fig
