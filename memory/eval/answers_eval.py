"""`memdesk eval answers`: does the chat agent answer the user's questions right (issue 12)?

Each question in tests/data/answers.jsonl runs as one real turn (run_turn, real embedded store,
real recall) against a fresh copy of its persona's seeded history, said on the same day as the
agent eval. A reply passes when it holds every `must` entry (an entry may list alternatives
separated by "|") and none of the `must_not` entries; entries match whole words, ignoring case.
The questions were written from the persona data before the agent first answered them.
tests/data/answers_blind.jsonl is a second set written blind (tests/data/README-answers-blind.md):
each case carries a split (tune or heldout, fixed by its id's sha256), and the rate of each split
is reported apart.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from ..clock import fixed_clock
from ..embeddings import Embedder
from ..errors import ValidationError
from ..service import MemoryService
from ..stores import open_store
from .agent_eval import EVAL_NOW, _copy_db, seeded_templates

if TYPE_CHECKING:
    from ..agents.base import Agent

DATA_PATH = Path(__file__).resolve().parents[2] / "tests" / "data" / "answers.jsonl"
BLIND_PATH = DATA_PATH.with_name("answers_blind.jsonl")
SPLITS = ("tune", "heldout")


class AnswerCase(BaseModel):
    id: str
    user: str
    question: str
    must: list[str] = Field(default_factory=list)
    must_not: list[str] = Field(default_factory=list)
    # answers.jsonl has no splits: every case is "tune" there.
    split: Literal["tune", "heldout"] = "tune"


class AnswerResult(BaseModel):
    id: str
    user: str
    question: str
    reply: str
    missing: list[str]
    forbidden: list[str]
    error: str | None = None
    split: Literal["tune", "heldout"] = "tune"

    @property
    def passed(self) -> bool:
        return not (self.missing or self.forbidden or self.error)


class AnswersReport(BaseModel):
    mode: str
    embedder: str
    data: str
    split: str = "all"  # the split asked for: tune, heldout or all
    seconds: float
    questions: int
    passed: int
    rate: float
    by_user: dict[str, float]
    # pass rate of each split present; the held-out rate is read apart from the tuned one
    by_split: dict[str, float] = Field(default_factory=dict)
    cases: list[AnswerResult]


def load_answer_cases(path: str | Path = DATA_PATH) -> list[AnswerCase]:
    p = Path(path)
    if not p.exists():
        raise ValidationError(f"no questions file at {p}")
    out = []
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ValidationError(f"{p.name} is not UTF-8 text: {exc}") from None
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                out.append(AnswerCase.model_validate_json(line))
            except ValueError as exc:
                raise ValidationError(f"{p.name} line {n}: {str(exc).splitlines()[0]}") from None
    return out


def holds(reply: str, entry: str) -> bool:
    """The reply holds one of the entry's "|"-separated alternatives as whole words. Pure."""
    text = reply.casefold().replace("’", "'")
    return any(re.search(r"(?<!\w)" + re.escape(alt.strip().casefold()) + r"(?!\w)", text)
               for alt in entry.split("|") if alt.strip())


def judge(case: AnswerCase, reply: str, error: str | None = None) -> AnswerResult:
    return AnswerResult(id=case.id, user=case.user, question=case.question, reply=reply,
                        missing=[m for m in case.must if not holds(reply, m)],
                        forbidden=[m for m in case.must_not if holds(reply, m)], error=error,
                        split=case.split)


def run_answers_eval(cases: list[AnswerCase], embedder: Embedder,
                     agent_factory: Callable[[], Agent], *, data: str = str(DATA_PATH),
                     workdir: str | Path | None = None, split: str = "all",
                     progress: Callable[[str], None] | None = None) -> AnswersReport:
    """Ask every question as one real turn on a fresh copy of the persona's store."""
    from ..agent import run_turn

    started = time.perf_counter()
    tmp = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="memdesk-answers-eval-"))
    tmp.mkdir(parents=True, exist_ok=True)
    clock = fixed_clock(EVAL_NOW)
    templates = seeded_templates(tmp, {c.user for c in cases}, embedder)
    agent = agent_factory()
    results = []
    try:
        for case in cases:
            if progress:
                progress(case.id)
            db = tmp / f"case-{case.id}.db"
            _copy_db(templates[case.user], db)
            store = open_store(f"embedded:{db}", embedder)
            try:
                svc = MemoryService(store, clock=clock)
                trace = run_turn(svc, case.user, f"answers-{case.id}", case.question,
                                 agent=agent, consolidation="manual")
                results.append(judge(case, trace.reply or "", trace.error))
            finally:
                store.close()
                db.unlink(missing_ok=True)
    finally:
        if workdir is None:
            shutil.rmtree(tmp, ignore_errors=True)
    passed = sum(1 for r in results if r.passed)
    by_user = pass_rates(results, lambda r: r.user)
    by_split = pass_rates(results, lambda r: r.split)
    return AnswersReport(mode=getattr(agent, "mode", "?"), embedder=embedder.name, data=data,
                         split=split,
                         seconds=round(time.perf_counter() - started, 1), questions=len(results),
                         passed=passed, rate=round(passed / max(1, len(results)), 4),
                         by_user=by_user, by_split=by_split, cases=results)


def pass_rates(results: list[AnswerResult],
               key: Callable[[AnswerResult], str]) -> dict[str, float]:
    """Pass rate per group, groups sorted by name. Pure."""
    return {g: round(sum(1 for r in results if key(r) == g and r.passed)
                     / max(1, sum(1 for r in results if key(r) == g)), 4)
            for g in sorted({key(r) for r in results})}


def select_split(cases: list[AnswerCase], split: str) -> list[AnswerCase]:
    """The cases of one split, or every case for "all". Pure."""
    if split == "all":
        return list(cases)
    if split not in SPLITS:
        raise ValidationError(f"unknown split {split!r}: tune, heldout or all")
    return [c for c in cases if c.split == split]


def render_markdown(report: AnswersReport, *, misses: bool = False) -> str:
    lines = [f"# Answers eval ({report.mode}, embedder {report.embedder})", "",
             f"{report.passed}/{report.questions} questions answered right "
             f"(pass rate {report.rate:.3f}); {report.seconds} s"
             + (f"; split {report.split} only" if report.split != "all" else ""), "",
             "| user | pass rate |", "|---|---|"]
    lines += [f"| {u} | {r:.3f} |" for u, r in report.by_user.items()]
    if len(report.by_split) > 1:
        counts = {s: sum(1 for r in report.cases if r.split == s) for s in report.by_split}
        lines += ["", "| split | questions | pass rate |", "|---|---|---|"]
        lines += [f"| {s} | {counts[s]} | {r:.3f} |" for s, r in report.by_split.items()]
    if misses:
        lines += ["", "## Misses", ""]
        for r in report.cases:
            if not r.passed:
                why = "; ".join(filter(None, [
                    f"missing {r.missing}" if r.missing else "",
                    f"must not say {r.forbidden}" if r.forbidden else "",
                    f"error {r.error}" if r.error else ""]))
                lines.append(f"- `{r.id}` {r.question!r} → {r.reply!r} ({why})")
    return "\n".join(lines) + "\n"
