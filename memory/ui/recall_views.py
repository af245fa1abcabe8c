"""The recall debugger's pure parts: toggles over a preset, the shareable URL, hit rows with
state, and the two pictures of a ranking (score contributions, rank shifts). No Streamlit."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

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
    """`#rank text`, cut to `width`: plain text, escaped by whoever draws it."""
    text = memory_text(h.doc)
    text = text if len(text) <= width else text[: width - 1] + "…"
    return f"#{h.rank} {text}"


MULTIPLIERS = (("decay", lambda m: m.decay), ("use boost", lambda m: m.use_boost),
               ("catalog prior", lambda m: m.prior),
               ("question / time / adjacency / lift", lambda m: m.post))


class ContributionRow(BaseModel):
    """One hit in the contribution picture: each leg's (rank, share) and each multiplier."""

    label: str
    shares: dict[str, tuple[int | None, float]]
    multipliers: dict[str, float]


def contribution_rows(hits: list[RankedHit]) -> list[ContributionRow]:
    """Each hit's fused score as the sum of its legs' shares — weight/(k + leg rank) under RRF,
    weight x normalised score under score fusion — scaled by the post-fusion multipliers
    (question, time, adjacency, lift), so the shares sum to the fused score; a hit beyond
    `tail_from` keeps its fused score though the tail is ordered by RRF (invariant 144); and
    its multipliers."""
    return [ContributionRow(
        label=_label(h),
        shares={leg: (h.legs[leg].rank, h.legs[leg].contribution * h.multipliers.post)
                if leg in h.legs else (None, 0.0) for leg in LEG_COLOURS},
        multipliers={name: get(h.multipliers) for name, get in MULTIPLIERS}) for h in hits]


def _swatch(colour: str, name: str, dot: bool = False) -> str:
    shape = "border-radius:50%" if dot else "border-radius:2px"
    return (f"<span class='rc-key'><i style='background:{colour};{shape}'></i>{esc(name)}"
            "</span>")


PICTURE_CSS = (
    "<style>.rc-pic{font-size:.82em;margin:.3em 0 1.2em}.rc-pic .rc-h{font-weight:600;"
    "margin:.2em 0}.rc-key{margin-right:1em;white-space:nowrap}.rc-key i{display:inline-block;"
    "width:.8em;height:.8em;margin-right:.3em;vertical-align:-.05em}.rc-grid{display:grid;"
    "grid-template-columns:minmax(12em,2fr) 3fr 2fr;gap:.15em .6em;align-items:center}"
    ".rc-lab{overflow:hidden;text-overflow:ellipsis;white-space:nowrap}.rc-bar{display:flex;"
    "height:1.1em;background:#f3f3f3}.rc-bar span{height:100%}.rc-mul{position:relative;"
    "height:1.1em;background:linear-gradient(#9e9e9e,#9e9e9e) no-repeat var(--one) 0/1px 100%}"
    ".rc-mul i{position:absolute;top:.2em;width:.7em;height:.7em;border-radius:50%;"
    "margin-left:-.35em}.rc-ax{color:#777}.rc-shift{position:relative;max-width:100%;"
    "overflow:hidden}.rc-shift>*{position:absolute}.rc-shift i{height:2px;"
    "transform-origin:0 50%}.rc-shift b{width:8px;height:8px;border-radius:50%}"
    ".rc-st{top:0;width:100px;text-align:center;color:#555}.rc-sl{white-space:nowrap}</style>")


def contribution_html(hits: list[RankedHit]) -> str:
    """The contribution picture as escaped HTML (issue 34: no chart library to load): per hit,
    its legs' shares as one stacked bar (full width: the largest fused score) and its
    multipliers as dots on a scale with 1 (no effect) marked; every number in a tooltip."""
    rows = contribution_rows(hits)
    top = max((sum(v for _, v in r.shares.values()) for r in rows), default=0.0) or 1.0
    values = [v for r in rows for v in r.multipliers.values()] or [1.0]
    lo, hi = min(0.9, min(values)), max(1.1, max(values))

    def at(v: float) -> float:
        return 100 * (v - lo) / (hi - lo)

    out = ["<div class='rc-pic rc-contrib'><div class='rc-h'>Share by leg (sums to the fused "
           "score) · multipliers (1 = no effect)</div><div>"
           + "".join(_swatch(c, f"{leg} share") for leg, c in LEG_COLOURS.items())
           + "".join(_swatch(MULTIPLIER_COLOURS[n], n, dot=True) for n, _ in MULTIPLIERS)
           + f"</div><div class='rc-grid' style='--one:{at(1.0):.1f}%'><span></span>"
           f"<span class='rc-ax'>0 … {top:.5f}</span><span class='rc-ax'>×{lo:.2f} … "
           f"×{hi:.2f}</span>"]
    for r in rows:
        bar = "".join(
            f"<span style='width:{100 * share / top:.2f}%;background:{LEG_COLOURS[leg]}' "
            f"title='{esc(f'{leg} rank {rank} · share {share:.5f}')}'></span>"
            for leg, (rank, share) in r.shares.items() if share > 0)
        dots = "".join(
            f"<i style='left:{at(v):.1f}%;background:{MULTIPLIER_COLOURS[n]}' "
            f"title='{esc(f'{n} ×{v:.3f}')}'></i>" for n, v in r.multipliers.items())
        out.append(f"<span class='rc-lab' title='{esc(r.label)}'>{esc(r.label)}</span>"
                   f"<div class='rc-bar'>{bar}</div><div class='rc-mul'>{dots}</div>")
    return "".join(out) + "</div></div>" + PICTURE_CSS


STAGES = ("BM25 rank", "dense rank", "fused", "final")
SHIFT_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                 "#7f7f7f", "#bcbd22", "#17becf")


def rank_shift_rows(hits: list[RankedHit]) -> list[tuple[str, list[int | None]]]:
    """Each hit's rank at each of STAGES: in the BM25 leg, in the dense leg, after fusion, and
    final (after a reranker, when one ran). None: the hit was not in that leg."""
    fused_order = sorted(hits, key=lambda h: -h.fused_score)
    fused_rank = {h.id: n for n, h in enumerate(fused_order, 1)}
    return [(_label(h, 36), [h.legs["bm25"].rank if "bm25" in h.legs else None,
                             h.legs["dense"].rank if "dense" in h.legs else None,
                             fused_rank[h.id], h.rank]) for h in hits]


def rank_shift_html(hits: list[RankedHit]) -> str:
    """The rank shift picture as escaped HTML (issue 34: no chart library; st.html keeps no
    SVG): a line per hit through its rank at each stage (a missing stage is stepped over), its
    label at the final rank; each point's tooltip names the hit, the stage and the rank."""
    rows = rank_shift_rows(hits)
    worst = max((r for _, ranks in rows for r in ranks if r is not None), default=1)
    width, top, step, deep = 600, 26, 22, 4
    xs = [60 + i * (width - 120) / (len(STAGES) - 1) for i in range(len(STAGES))]
    last = max(len(rows), 1)  # a leg's ranks below the last hit's are drawn closer together

    def y(rank: int) -> float:
        return top + step * (min(rank, last) - 1) + deep * max(rank - last, 0)

    parts = [f"<div class='rc-shift' style='height:{y(worst) + 16:.0f}px'>"]
    parts += [f"<span class='rc-st' style='left:{x - 50:.0f}px'>{esc(s)}</span>"
              for x, s in zip(xs, STAGES, strict=True)]
    for n, (label, ranks) in enumerate(rows):
        colour = SHIFT_COLOURS[n % len(SHIFT_COLOURS)]
        pts = [(x, y(r), stage, r) for x, stage, r in zip(xs, STAGES, ranks, strict=True)
               if r is not None]
        for (x1, y1, _, _), (x2, y2, _, _) in zip(pts, pts[1:], strict=False):
            length, angle = math.hypot(x2 - x1, y2 - y1), math.degrees(math.atan2(y2 - y1, x2 - x1))
            parts.append(f"<i style='left:{x1:.0f}px;top:{y1 - 1:.0f}px;width:{length:.0f}px;"
                         f"transform:rotate({angle:.1f}deg);background:{colour}'></i>")
        parts += [f"<b style='left:{px - 4:.0f}px;top:{py - 4:.0f}px;background:{colour}' "
                  f"title='{esc(f'{label} · {stage}: {r}')}'></b>" for px, py, stage, r in pts]
        parts.append(f"<span class='rc-sl' style='left:{xs[-1] + 12:.0f}px;"
                     f"top:{y(ranks[-1] or 1) - 8:.0f}px;color:{colour}'>{esc(label)}</span>")
    return ("<div class='rc-pic'><div class='rc-h'>Rank shift by stage (1 = top; a leg's "
            f"ranks below {last} drawn closer together)</div>"
            + "".join(parts) + "</div></div>" + PICTURE_CSS)
