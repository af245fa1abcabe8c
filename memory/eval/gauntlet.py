"""The tombstone gauntlet: labelled (dead value, new text) pairs run through the real write path
(invariant 61). Each case retracts its dead value for a user of its own, writes the new text
with `write_fact` and records what happened: refused (exit 4), held for review (a candidate
flagged `possibly_restates`), or accepted as an active fact.

Targets (issue 11): no restatement (expected `refuse`) accepted as active; at most 5% of the
different values (expected `accept`) refused; the rest may wait in review. Cases labelled
`review` are doubtful by design: any of refuse/review is right for them, and an accept is
counted and listed (`doubtful_accepted`).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from pydantic import BaseModel, Field

from ..errors import TombstoneError
from ..models import FactState
from ..service import MemoryService
from ..values import Decision

GAUNTLET_FILE = Path(__file__).resolve().parents[2] / "tests" / "data" / "tombstones.jsonl"
MAX_DIFFERENT_REFUSED = 0.05


class GauntletCase(BaseModel):
    dead: str
    new: str
    expected: Decision
    category: str
    split: str = "tuning"


class GauntletMiss(BaseModel):
    case: GauntletCase
    got: Decision
    reason: str


class GauntletReport(BaseModel):
    cases: int
    # split -> expected -> got -> count
    table: dict[str, dict[str, dict[str, int]]]
    by_category: dict[str, dict[str, int]]  # category -> {"cases", "as_expected"}
    restatements_accepted: int
    doubtful_accepted: int
    different_refused: int
    different_total: int
    misses: list[GauntletMiss] = Field(default_factory=list)
    passed: bool


def load_cases(path: Path = GAUNTLET_FILE) -> list[GauntletCase]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [GauntletCase.model_validate(json.loads(line)) for line in lines if line.strip()]


def run_case(svc: MemoryService, user: str, case: GauntletCase) -> tuple[Decision, str]:
    dead = svc.write_fact(user, case.dead, actor="cli").fact
    svc.retract(user, dead.id, actor="cli", reason="gauntlet: never true")
    try:
        res = svc.write_fact(user, case.new, actor="agent")
    except TombstoneError as exc:
        return Decision.REFUSE, str(exc)
    if res.held is not None:
        assert res.fact.state == FactState.CANDIDATE
        return Decision.REVIEW, res.held.reason
    return Decision.ACCEPT, f"written as {res.fact.state.value}"


def run_gauntlet(svc: MemoryService, cases: list[GauntletCase], *,
                 user_prefix: str = "gauntlet") -> GauntletReport:
    table: dict[str, dict[str, dict[str, int]]] = {}
    cats: dict[str, Counter] = {}
    misses: list[GauntletMiss] = []
    for i, case in enumerate(cases):
        got, reason = run_case(svc, f"{user_prefix}-{i}", case)
        row = table.setdefault(case.split, {e.value: {d.value: 0 for d in Decision}
                                            for e in Decision})
        row[case.expected.value][got.value] += 1
        c = cats.setdefault(case.category, Counter())
        c["cases"] += 1
        c["as_expected"] += got == case.expected
        if got != case.expected:
            misses.append(GauntletMiss(case=case, got=got, reason=reason))
    total = {e.value: {d.value: sum(t[e.value][d.value] for t in table.values()) for d in Decision}
             for e in Decision}
    restated = total["refuse"]["accept"]
    refused = total["accept"]["refuse"]
    different = sum(total["accept"].values())
    return GauntletReport(
        cases=len(cases), table=table, by_category={k: dict(v) for k, v in cats.items()},
        restatements_accepted=restated, doubtful_accepted=total["review"]["accept"],
        different_refused=refused, different_total=different, misses=misses,
        passed=restated == 0 and refused <= MAX_DIFFERENT_REFUSED * different)


def render_table(report: GauntletReport) -> str:
    lines = ["| split | expected | refused | review | accepted |", "|---|---|---|---|---|"]
    for split, rows in sorted(report.table.items(), reverse=True):
        for expected, got in rows.items():
            lines.append(f"| {split} | {expected} | {got['refuse']} | {got['review']} | "
                         f"{got['accept']} |")
    lines.append("")
    lines.append(f"restatements accepted: {report.restatements_accepted}; doubtful accepted: "
                 f"{report.doubtful_accepted}; different values refused: "
                 f"{report.different_refused}/{report.different_total}")
    return "\n".join(lines)
