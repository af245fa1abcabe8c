"""Eval runs an operator starts from the desk (issue 14): admin only, checked and audited by
the layer (invariant 121), and reading files only from the project's own data folders, never a
path typed into a browser (invariant 125). Reports go to the report folder the desk reads.

The command line (`memdesk eval ...`) is a local admin and reads whatever path it is given.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ..errors import ValidationError
from ..service import MemoryService
from .recall_eval import QUESTIONS_PATH, RecallReport, load_questions, run_recall_eval
from .recall_eval import render_markdown as recall_markdown
from .reports import write_reports
from .stress import SCENARIOS, StressReport, run_stress
from .stress import render_markdown as stress_markdown

ROOT = Path(__file__).resolve().parents[2]
# The folders the desk may read eval inputs from: the personas' generated data and the
# project's test data. Tests add their own throwaway folder here.
DATA_DIRS: list[Path] = [QUESTIONS_PATH.parent, ROOT / "tests" / "data"]


def project_file(path: str | Path, roots: Iterable[Path] | None = None) -> Path:
    """`path` resolved (symlinks and `..` followed) if it lies inside one of the data
    folders; anything else is refused with the folders named."""
    roots = [Path(r).resolve() for r in (DATA_DIRS if roots is None else roots)]
    p = Path(path).expanduser()
    resolved = p.resolve()
    if not any(resolved.is_relative_to(r) for r in roots):
        allowed = ", ".join(str(r) for r in roots)
        raise ValidationError(f"{p} is outside the project's data folders ({allowed}): the desk "
                              "reads eval files only from there")
    return resolved


def question_files() -> list[Path]:
    """Question sets the desk offers: JSON files named *question* in the data folders."""
    found = {p.resolve() for d in DATA_DIRS if d.is_dir() for p in d.glob("*question*.json")}
    return sorted(found, key=lambda p: (p != QUESTIONS_PATH.resolve(), str(p)))


def run_recall(svc: MemoryService, actor: str, questions: str | Path) -> RecallReport:
    svc.require(actor, "run_eval")
    report = run_recall_eval(svc, load_questions(project_file(questions)))
    write_reports(report, recall_markdown(report), "recall-default")
    return report


def run_stress_scenarios(svc: MemoryService, actor: str, chosen: Iterable[str]) -> StressReport:
    svc.require(actor, "run_eval")
    chosen = list(chosen)
    unknown = [c for c in chosen if c not in SCENARIOS]
    if not chosen or unknown:
        raise ValidationError(f"pick stress scenarios from: {', '.join(SCENARIOS)}"
                              + (f" (unknown: {', '.join(unknown)})" if unknown else ""))
    report = run_stress(svc.embedder, only=chosen)
    write_reports(report, stress_markdown(report), "stress")
    return report
