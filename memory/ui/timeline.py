"""The Facts page's bitemporal timeline as plain HTML (issue 34): no chart library to load, so
the page draws in the browser as fast as its tables. One row per version, versions in order
within each chain; positions are percentages of the time axis. Stored text is escaped.

Valid time: a bar for values that were true (active, superseded). A bar whose valid start is
unknown is hatched and starts where the store assumed it (when it was recorded), so known and
assumed valid time never look alike (invariant 83). A retracted or rejected value was never
true: a cross where it was recorded, a dotted line over the time it was wrongly believed. A
candidate was never believed: a hollow diamond. Record time: a dot when recorded, a tick when
no longer believed. The as-of moments are vertical lines."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from pydantic import BaseModel

from ..corrections import chains_in_order
from ..models import Fact, FactState
from .safe import esc

MIN_SPAN = timedelta(days=1)  # the narrowest time axis drawn (a fact said seconds ago)
TRUE_STATES = (FactState.ACTIVE, FactState.SUPERSEDED)
NEVER_TRUE = (FactState.RETRACTED, FactState.REJECTED)
COLOURS = {FactState.ACTIVE: "#2e7d32", FactState.SUPERSEDED: "#9e9e9e",
           FactState.CANDIDATE: "#f9a825", FactState.RETRACTED: "#c62828",
           FactState.REJECTED: "#6a1b9a"}
MarkKind = Literal["valid", "assumed", "wrongly_believed", "never_true", "candidate",
                   "recorded", "ended"]
LEGEND: dict[MarkKind, str] = {
    "valid": "valid time (bar)",
    "assumed": "valid from unknown: drawn from when recorded",
    "wrongly_believed": "believed, never true (dotted)",
    "never_true": "retracted/rejected (never true)",
    "candidate": "candidate (not yet believed)",
    "recorded": "recorded (record time)",
    "ended": "no longer believed (record time)",
}


class Mark(BaseModel):
    kind: MarkKind
    start: datetime
    end: datetime | None = None  # spans only
    colour: str = "#1565c0"


class Row(BaseModel):
    label: str  # plain text (escaped when drawn)
    text: str
    state: FactState
    marks: list[Mark]


class Timeline(BaseModel):
    rows: list[Row]
    lo: datetime
    hi: datetime
    valid_at: datetime | None = None
    recorded_at: datetime | None = None


def _short(text: str, width: int = 42) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def marks_of(f: Fact, now: datetime) -> list[Mark]:
    """What one version draws. Pure."""
    colour = COLOURS[f.state]
    out: list[Mark] = []
    if f.state in TRUE_STATES:
        start = f.valid_from or f.recorded_at  # the same rule as valid-time as-of (inv. 13)
        end = max(f.valid_to or f.superseded_at or now, start)
        out.append(Mark(kind="valid" if f.valid_from else "assumed", start=start, end=end,
                        colour=colour))
        out.append(Mark(kind="recorded", start=f.recorded_at))
        if f.superseded_at:
            out.append(Mark(kind="ended", start=f.superseded_at, colour="#000"))
    elif f.state in NEVER_TRUE:
        if f.superseded_at:
            out.append(Mark(kind="wrongly_believed", start=f.recorded_at, end=f.superseded_at,
                            colour=colour))
        out.append(Mark(kind="never_true", start=f.recorded_at, colour=colour))
    else:
        out.append(Mark(kind="candidate", start=f.recorded_at, colour=colour))
    return out


def timeline(facts: list[Fact], now: datetime, *, versions: bool = True,
             valid_at: datetime | None = None, recorded_at: datetime | None = None) -> Timeline:
    """The rows and the axis. `versions`: `facts` is one chain in order; else they are grouped
    into chains. Pure."""
    chains = [facts] if versions else chains_in_order(facts)
    rows = [Row(label=f"v{n + 1} · {_short(f.text)}", text=f.text, state=f.state,
                marks=marks_of(f, now))
            for chain in chains for n, f in enumerate(chain)]
    moments = [t for r in rows for m in r.marks for t in (m.start, m.end) if t is not None]
    moments += [t for t in (valid_at, recorded_at) if t is not None]
    lo, hi = (min(moments), max(moments)) if moments else (now - MIN_SPAN, now)
    if hi - lo < MIN_SPAN:
        pad = (MIN_SPAN - (hi - lo)) / 2
        lo, hi = lo - pad, hi + pad
    margin = (hi - lo) * 0.03
    return Timeline(rows=rows, lo=lo - margin, hi=hi + margin, valid_at=valid_at,
                    recorded_at=recorded_at)


def ticks(lo: datetime, hi: datetime, n: int = 6) -> list[tuple[datetime, str]]:
    """About `n` evenly spaced axis labels, as precise as the span needs. Pure."""
    span = hi - lo
    fmt = ("%Y" if span > timedelta(days=5 * 365) else "%Y-%m" if span > timedelta(days=120)
           else "%Y-%m-%d" if span > timedelta(days=3) else "%m-%d %H:%M")
    return [(t, t.strftime(fmt)) for t in (lo + span * (k + 0.5) / n for k in range(n))]


CSS = """<style>
.tl{font:13px/1.3 sans-serif;border:1px solid #e0e0e0;border-radius:6px;padding:.5em .6em}
.tl .r{display:flex;align-items:center;height:26px}
.tl .l{flex:0 0 34%;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;padding-right:.6em}
.tl .t{position:relative;flex:1;height:100%;border-left:1px solid #eee}
.tl .m{position:absolute;top:50%;transform:translate(-50%,-50%)}
.tl .b{position:absolute;top:6px;height:14px;border-radius:3px;opacity:.8;min-width:2px}
.tl .b.assumed{opacity:1;background-image:repeating-linear-gradient(135deg,#fff 0 3px,
  transparent 3px 7px)!important;border:1px dashed #555;box-sizing:border-box}
.tl .w{position:absolute;top:12px;border-top:2px dotted}
.tl .asof{position:absolute;top:0;bottom:0;border-left:2px solid #d81b60}
.tl .asof.rec{border-left-style:dashed}
.tl .ax{display:flex;font-size:11px;color:#666}
.tl .ax .t{height:16px;border:none}
.tl .ax span{position:absolute;transform:translateX(-50%);white-space:nowrap}
.tl .lg{margin-top:.4em;font-size:12px;color:#333;display:flex;flex-wrap:wrap;gap:.3em 1em}
.tl .lg i{display:inline-block;width:18px;height:10px;margin-right:.3em;vertical-align:middle;
  border-radius:2px}
</style>"""
_SYMBOL = {"recorded": "●", "ended": "┃", "never_true": "✕", "candidate": "◇"}


def _pct(tl: Timeline, t: datetime) -> float:
    return round(100 * (t - tl.lo) / (tl.hi - tl.lo), 3)


def _mark_html(tl: Timeline, m: Mark, title: str) -> str:
    left = _pct(tl, m.start)
    if m.kind in ("valid", "assumed") and m.end is not None:
        width = max(_pct(tl, m.end) - left, 0.3)
        return (f"<div class='b {m.kind}' data-kind='{m.kind}' title='{title}' style='left:"
                f"{left}%;width:{width}%;background:{m.colour}'></div>")
    if m.kind == "wrongly_believed" and m.end is not None:
        return (f"<div class='w' data-kind='{m.kind}' style='left:{left}%;width:"
                f"{max(_pct(tl, m.end) - left, 0.3)}%;border-color:{m.colour}'></div>")
    size = "15px" if m.kind in ("never_true", "candidate") else "11px"
    return (f"<span class='m' data-kind='{m.kind}' title='{title}' style='left:{left}%;"
            f"color:{m.colour};font-size:{size}'>{_SYMBOL[m.kind]}</span>")


def timeline_html(tl: Timeline) -> str:
    """The timeline as escaped HTML with a legend of what it draws."""
    asof = "".join(f"<div class='asof{cls}' style='left:{_pct(tl, t)}%' title='{name}'></div>"
                   for t, cls, name in ((tl.valid_at, "", "as of valid time"),
                                        (tl.recorded_at, " rec", "as of record time"))
                   if t is not None)
    rows = []
    for r in tl.rows:
        title = esc(f"{r.state.value}: {r.text}")
        marks = "".join(_mark_html(tl, m, title) for m in r.marks)
        rows.append(f"<div class='r' data-state='{r.state.value}'><div class='l' title='{title}'>"
                    f"{esc(r.label)}</div><div class='t'>{marks}{asof}</div></div>")
    axis = "".join(f"<span style='left:{_pct(tl, t)}%'>{esc(label)}</span>"
                   for t, label in ticks(tl.lo, tl.hi))
    used = {m.kind for r in tl.rows for m in r.marks}
    swatch = {"valid": "background:#2e7d32;opacity:.8",
              "assumed": "border:1px dashed #555;background:repeating-linear-gradient(135deg,"
                         "#fff 0 3px,#9e9e9e 3px 7px)",
              "wrongly_believed": "border-top:2px dotted #c62828;height:0"}
    legend = "".join(
        f"<span><i style='{swatch[k]}'></i>{esc(v)}</span>" if k in swatch
        else f"<span>{_SYMBOL[k]} {esc(v)}</span>" for k, v in LEGEND.items() if k in used)
    if tl.valid_at or tl.recorded_at:
        legend += "<span>│ as of valid time (solid) / record time (dashed)</span>"
    return (CSS + "<div class='tl'>" + "".join(rows)
            + f"<div class='ax'><div class='l'></div><div class='t'>{axis}</div></div>"
            + f"<div class='lg'>{legend}</div></div>")
