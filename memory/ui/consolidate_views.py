"""The Consolidate page's pure parts: a plan as a coloured diff (one class per kind of change),
and the history of applied plans read from the audit log. No Streamlit."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Literal

from pydantic import BaseModel

from ..consolidation.plan import OpKind, Plan, PlanOp, watermark_words
from ..models import AuditEvent, Episode, Fact
from .safe import esc

DiffClass = Literal["diff-add", "diff-supersede", "diff-review", "diff-drop", "diff-playbook"]
SIGN = {"diff-add": "+", "diff-supersede": "~", "diff-review": "?", "diff-drop": "−",
        "diff-playbook": "+"}
LEGEND = {"diff-add": "added", "diff-supersede": "superseded: old → new",
          "diff-review": "sent to review", "diff-drop": "dropped (gate's reason)",
          "diff-playbook": "playbook"}


NEVER_TRUE = "The user may have said this was never true: "
Outcome = Literal["applied", "already applied", "sent to review", "declined"]
# Words that justify nothing on their own: never highlighted in the evidence.
_STOP = frozenset("""a an and are as at be been but by did do does for from had has have he her
his i i'm im in is it it's its me my now of on or our she so that the their them then there
they this to too us was we were what when which who will with you your""".split())
_WORD = re.compile(r"[\w'’]+")


class Quote(BaseModel):
    """One source episode of an operation, split into runs; `True` runs are the words that
    the operation's text shares with what was said (the words that justify it)."""

    episode_id: str
    runs: list[tuple[str, bool]]


class DiffLine(BaseModel):
    op_id: str
    cls: DiffClass
    old: str | None = None  # what a supersession retires
    new: str  # what is written (or, for a drop, what was refused)
    meta: str = ""  # state/type/confidence/validity of the new text
    note: str = ""  # the model's reason, the review reason or the gate's reason
    evidence: list[str] = []
    quotes: list[Quote] = []  # the evidence inline (issue 34)
    outcome: Outcome | None = None  # after applying: what became of it


def _stem(word: str) -> str:
    w = word.lower().replace("’", "'").removesuffix("'s")
    return w[:5] if len(w) > 5 else w


def highlight(said: str, claim: str) -> list[tuple[str, bool]]:
    """`said` as runs, the words it shares with `claim` (by a 5-letter stem, ignoring words
    that justify nothing) marked True. Joining the runs gives `said` back unchanged. Pure."""
    wanted = {_stem(w) for w in _WORD.findall(claim) if w.lower() not in _STOP and len(w) > 2}
    runs: list[tuple[str, bool]] = []
    at = 0
    for m in _WORD.finditer(said):
        hit = m.group().lower() not in _STOP and len(m.group()) > 2 and _stem(m.group()) in wanted
        if not hit:
            continue
        if m.start() > at:
            runs.append((said[at:m.start()], False))
        runs.append((m.group(), True))
        at = m.end()
    if at < len(said):
        runs.append((said[at:], False))
    return runs


def quotes(line: DiffLine, episodes: Mapping[str, Episode]) -> list[Quote]:
    """The source episodes of a diff line, the justifying words marked; a missing episode
    (forgotten since) is said to be missing. Pure."""
    return [Quote(episode_id=i, runs=highlight(episodes[i].text, line.new) if i in episodes
                  else [("(episode not found: forgotten since?)", False)])
            for i in line.evidence]


def default_selection(plan: Plan) -> list[str]:
    """What is pre-selected: only what the policy would apply on its own. An operation the
    policy sends to review waits unticked until the operator chooses it (invariant 513). A
    proposed retraction is ticked: applying it only puts it in the review queue, where an
    operator retracts or keeps (invariant 591)."""
    return [op.id for op in plan.actionable()
            if not op.review or op.kind == OpKind.PROPOSE_RETRACTION]


def outcomes(plan: Plan, applied: list[str], already: list[str],
             declined: list[str]) -> dict[str, Outcome]:
    """After applying: each actionable operation applied, sent to review (applied as a
    candidate), already applied before, or declined (not chosen). Pure."""
    out: dict[str, Outcome] = {}
    for op in plan.actionable():
        if op.id in applied:
            out[op.id] = "sent to review" if op.review else "applied"
        elif op.id in already:
            out[op.id] = "already applied"
        elif op.id in declined:
            out[op.id] = "declined"
    return out


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
        elif op.kind == OpKind.PROPOSE_RETRACTION and op.fact:
            # Invariant 591: a denial shown as what it is; applying it only queues it.
            out.append(DiffLine(op_id=op.id, cls="diff-review",
                                new=f"{NEVER_TRUE}{op.fact.text}",
                                meta=f"proposed retraction of {op.fact.supersedes} · "
                                     f"{op.fact.fact_type.value}",
                                note=f"to review: an operator retracts or keeps it ({op.reason})",
                                evidence=ev))
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
.mdiff .ev{font-family:sans-serif;font-size:.92em;color:#333;margin-top:.2em}
.mdiff .ev mark{background:#fff176;padding:0 .1em}
.mdiff .out{font-family:sans-serif;font-size:.8em;font-weight:600;padding:.05em .5em;
  border-radius:4px;margin-left:.5em;background:#eceff1}
.mdiff .out-applied{background:#c8e6c9}.mdiff .out-declined{background:#ffcdd2}
.mdiff .out-sent-to-review{background:#bbdefb}
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
        said = "".join(
            "<div class='ev'>said: “" + "".join(f"<mark>{esc(t)}</mark>" if hit else esc(t)
                                              for t, hit in q.runs) + "”</div>"
            for q in line.quotes)
        out = (f"<span class='out out-{line.outcome.replace(' ', '-')}'>{esc(line.outcome)}"
               "</span>" if line.outcome else "")
        rows.append(
            f"<div class='row {line.cls}' data-op='{esc(line.op_id)}'>"
            f"<span class='sig'>{SIGN[line.cls]}</span><div class='body'>{old}"
            + (f"<div class='meta'>{esc(line.meta)}</div>" if line.meta else "")
            + (f"<div class='note'>{esc(line.note)}</div>" if line.note else "")
            + said + f"<div class='id'>{esc(line.op_id)}{out}</div></div></div>")
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
