"""The Consolidate page's pure parts: a plan as a coloured diff (one class per kind of change),
and the history of applied plans read from the audit log. No Streamlit."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel

from ..consolidation.plan import OpKind, Plan, PlanOp, watermark_words
from ..models import AuditEvent, Fact
from .safe import esc

DiffClass = Literal["diff-add", "diff-supersede", "diff-review", "diff-drop", "diff-playbook"]
SIGN = {"diff-add": "+", "diff-supersede": "~", "diff-review": "?", "diff-drop": "−",
        "diff-playbook": "+"}
LEGEND = {"diff-add": "added", "diff-supersede": "superseded: old → new",
          "diff-review": "sent to review", "diff-drop": "dropped (gate's reason)",
          "diff-playbook": "playbook"}


class DiffLine(BaseModel):
    op_id: str
    cls: DiffClass
    old: str | None = None  # what a supersession retires
    new: str  # what is written (or, for a drop, what was refused)
    meta: str = ""  # state/type/confidence/validity of the new text
    note: str = ""  # the model's reason, the review reason or the gate's reason
    evidence: list[str] = []


def _fact_meta(f: Fact) -> str:
    dates = ""
    if f.valid_from or f.valid_to:
        dates = (f" · valid {f.valid_from.date() if f.valid_from else '…'} → "
                 f"{f.valid_to.date() if f.valid_to else '…'}")
    return f"{f.state.value} · {f.fact_type.value} · {f.confidence:.2f}{dates}"


def _gate_reason(plan: Plan, op: PlanOp) -> str:
    found = next((g for g in plan.gates if g.gate == op.gate and g.subject == op.subject
                  and g.decision == "drop"), None)
    return f"gate {op.gate}: {found.reason if found else op.reason or 'refused'}"


def plan_summary(plan: Plan) -> str:
    """The line under a plan's title: episodes, model, tokens, and how far it reads."""
    after = (f"applying moves it to {watermark_words(plan.watermark_after)}"
             if plan.watermark_after else "applying leaves it there")
    n = len(plan.episode_ids)
    return (f"{n} new episode{'s' if n != 1 else ''} · model {plan.llm_mode} · tokens in/out "
            f"{plan.usage.input_tokens}/{plan.usage.output_tokens} · consolidated so far: "
            f"{watermark_words(plan.watermark_before)}; {after}")


def diff_lines(plan: Plan) -> list[DiffLine]:
    """One line per operation, classed by what it does. Pure."""
    out = []
    for op in plan.ops:
        ev = list(op.evidence)
        if op.kind == OpKind.DROP:
            out.append(DiffLine(op_id=op.id, cls="diff-drop", new=op.subject or "",
                                note=_gate_reason(plan, op), evidence=ev))
        elif op.kind == OpKind.SUPERSEDE and op.fact and op.old:
            out.append(DiffLine(op_id=op.id, cls="diff-supersede", old=op.old.text,
                                new=op.fact.text, meta=_fact_meta(op.fact), note=op.reason,
                                evidence=ev))
        elif op.kind == OpKind.ADD_FACT and op.fact:
            review = bool(op.review)
            note = f"to review: {op.review}" if review else op.reason
            if op.fact.supersedes:
                old = op.old.text if op.old else op.fact.supersedes
                out.append(DiffLine(op_id=op.id, cls="diff-review" if review else "diff-supersede",
                                    old=old, new=op.fact.text, meta=_fact_meta(op.fact),
                                    note=note, evidence=ev))
            else:
                out.append(DiffLine(op_id=op.id, cls="diff-review" if review else "diff-add",
                                    new=op.fact.text, meta=_fact_meta(op.fact), note=note,
                                    evidence=ev))
        elif op.kind in (OpKind.ADD_PLAYBOOK, OpKind.UPDATE_PLAYBOOK) and op.playbook:
            pb = op.playbook
            old = None
            if op.old_playbook is not None:
                a = op.old_playbook
                old = f"{a.name}: success {a.success_count}, failure {a.failure_count}"
            out.append(DiffLine(op_id=op.id, cls="diff-playbook", old=old,
                                new=f"{pb.name} — when {pb.trigger}: " + " → ".join(pb.steps),
                                meta=f"success {pb.success_count}, failure {pb.failure_count}, "
                                     f"confidence {pb.confidence:.2f}", note=op.reason,
                                evidence=ev))
    return out


CSS = """<style>
.mdiff{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.86em;
  border:1px solid #ddd;border-radius:6px;overflow:hidden}
.mdiff .row{display:flex;gap:.6em;padding:.35em .7em;border-top:1px solid #eee;
  white-space:pre-wrap;overflow-wrap:anywhere}
.mdiff .sig{font-weight:700;width:1em;flex:none}
.mdiff .body{flex:1;min-width:0}
.mdiff .old{text-decoration:line-through;color:#8a1c1c}
.mdiff .meta,.mdiff .note{color:#555;font-size:.9em}
.mdiff .id{color:#888;font-size:.8em}
.diff-add{background:#e8f5e9}.diff-add .sig{color:#2e7d32}
.diff-supersede{background:#fff8e1}.diff-supersede .sig{color:#ef6c00}
.diff-review{background:#e3f2fd}.diff-review .sig{color:#1565c0}
.diff-drop{background:#f5f5f5;color:#616161}.diff-drop .sig{color:#9e9e9e}
.diff-playbook{background:#f3e5f5}.diff-playbook .sig{color:#6a1b9a}
.mdiff .legend{padding:.35em .7em;font-family:sans-serif;font-size:.85em}
.mdiff .legend span{padding:.05em .5em;margin-right:.5em;border-radius:4px}
</style>"""


def diff_html(lines: list[DiffLine]) -> str:
    """The diff as escaped HTML with one class per kind of change; long lines wrap."""
    legend = "".join(f"<span class='{c}'>{SIGN[c]} {esc(t)}</span>" for c, t in LEGEND.items())
    rows = []
    for line in lines:
        old = (f"<div class='old'>{esc(line.old)}</div><div>→ {esc(line.new)}</div>"
               if line.old else f"<div>{esc(line.new)}</div>")
        rows.append(
            f"<div class='row {line.cls}' data-op='{esc(line.op_id)}'>"
            f"<span class='sig'>{SIGN[line.cls]}</span><div class='body'>{old}"
            + (f"<div class='meta'>{esc(line.meta)}</div>" if line.meta else "")
            + (f"<div class='note'>{esc(line.note)}</div>" if line.note else "")
            + f"<div class='id'>{esc(line.op_id)}</div></div></div>")
    if not rows:
        rows.append("<div class='row'><div class='body'>nothing to do</div></div>")
    return CSS + f"<div class='mdiff'><div class='legend'>{legend}</div>{''.join(rows)}</div>"


class AppliedPlan(BaseModel):
    plan_id: str
    applied_at: datetime
    actor: str
    operations: int
    undone: bool
    undone_at: datetime | None = None


def plan_history(applies: list[AuditEvent], undos: list[AuditEvent]) -> list[AppliedPlan]:
    """Applied plans, newest first, each marked undone when its last apply was undone after.
    `undos` are consolidate_undo events; the plan-level one says `undo plan ID`. Pure."""
    last_undo: dict[str, datetime] = {}
    for e in undos:
        if e.plan_id and (e.reason or "").startswith("undo plan"):
            last_undo[e.plan_id] = max(e.at, last_undo.get(e.plan_id, e.at))
    latest: dict[str, AuditEvent] = {}
    for e in applies:
        if e.plan_id and (e.plan_id not in latest or e.at > latest[e.plan_id].at):
            latest[e.plan_id] = e
    out = []
    for plan_id, e in latest.items():
        undone_at = last_undo.get(plan_id)
        undone = undone_at is not None and undone_at >= e.at
        out.append(AppliedPlan(plan_id=plan_id, applied_at=e.at, actor=e.actor,
                               operations=len((e.after or {}).get("op_ids", [])), undone=undone,
                               undone_at=undone_at if undone else None))
    out.sort(key=lambda p: p.applied_at, reverse=True)
    return out
