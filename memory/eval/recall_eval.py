"""Persona recall eval: Recall@1/5/10 and MRR matched on document id, an isolation sweep, gates.

Questions live in memory/personas/data/questions.json (a list of {id, user_id, question, gold_id,
gold_kind, variant}). Every recall here runs with Purpose.EVAL, so the run never bumps usage and
repeats exactly (invariant 55).
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic import ValidationError as PydanticError

from ..clock import Clock, utcnow
from ..errors import ValidationError
from ..rerank import RERANKERS
from ..search_config import DEFAULT, PRESETS, Purpose, RecallConfig
from ..service import MemoryService
from .metrics import RankSummary, count_leaks, rank_of, summarise_ranks
from .reports import REPORTS_DIR, write_reports  # noqa: F401  (re-exported for callers)

QUESTIONS_PATH = Path(__file__).resolve().parent.parent / "personas" / "data" / "questions.json"
# Issue 17: written before any ranking was run and never edited (invariant 100).
FROZEN_PATH = QUESTIONS_PATH.with_name("questions_frozen.json")
TUNING_PATH = QUESTIONS_PATH.with_name("questions_tuning.json")  # issue 17: tuning additions
# Issue 17: a second frozen set, written by someone who had seen no ranking (invariant 100).
FROZEN2_PATH = QUESTIONS_PATH.with_name("questions_frozen2.json")
# Issue 17 (recall6, invariant 100): paraphrase questions written before any ranking was run on them;
# pinned (tests/test_recall_question_sets.py), then used for tuning.
TUNING2_PATH = QUESTIONS_PATH.with_name("questions_tuning2.json")
# Issue 17: a third frozen set, written by someone who had seen no ranking (invariant 100).
FROZEN3_PATH = QUESTIONS_PATH.with_name("questions_frozen3.json")
QUESTION_SETS = {"tuning": QUESTIONS_PATH, "tuning-extra": TUNING_PATH, "frozen": FROZEN_PATH,
                 "frozen2": FROZEN2_PATH, "tuning2": TUNING2_PATH, "frozen3": FROZEN3_PATH}
GATE_R10 = 0.90
GATE_R5 = 0.80
SWEEP_K = 200  # the sweep inspects every fused candidate of both legs, not just a top 10


class Question(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str
    user_id: str
    question: str
    gold_id: str
    gold_kind: Literal["episodic", "semantic", "procedural", "catalog"]
    variant: int = 1
    # Issue 17 (questions_frozen.json, questions_tuning.json): other documents that also answer
    # (a fact's source episodes); scored separately as "any gold", never in the headline figures.
    also_ids: list[str] = Field(default_factory=list)
    tag: str | None = None


class QuestionResult(BaseModel):
    id: str
    user_id: str
    gold_id: str
    gold_kind: str
    question: str
    rank: int | None
    any_rank: int | None = Field(None, description="best rank of the gold or an also-answering id")
    tag: str | None = None
    top: list[str] = Field(description="ids of the top 10 hits")


class LeakExample(BaseModel):
    asked_as: str
    question_id: str
    hit_id: str
    hit_owner: str


class SweepResult(BaseModel):
    recalls: int = Field(description="recalls run as someone other than the question's owner")
    hits_inspected: int
    leaks: int
    examples: list[LeakExample] = Field(default_factory=list)


class Gate(BaseModel):
    name: str
    value: float
    threshold: str
    passed: bool


class AblationRow(BaseModel):
    label: str
    overall: RankSummary


class RecallReport(BaseModel):
    kind: Literal["recall"] = "recall"
    label: str
    created_at: datetime
    store: str
    embedder: str
    config: dict
    overall: RankSummary
    per_persona: dict[str, RankSummary]
    per_kind: dict[str, RankSummary]
    per_tag: dict[str, RankSummary] = Field(default_factory=dict)
    any_gold: RankSummary | None = Field(None, description="a hit on any also-answering id counts")
    questions: str = ""
    now: datetime | None = None
    sweep: SweepResult
    gates: list[Gate]
    passed: bool
    ablations: list[AblationRow] = Field(default_factory=list)
    misses: list[QuestionResult] = Field(default_factory=list, description="gold not in top 10")


def load_questions(path: str | Path = QUESTIONS_PATH) -> list[Question]:
    """Read the persona questions (a path, or a set name: tuning, tuning-extra, tuning2, frozen,
    frozen2, frozen3); a missing or malformed file is one clear error."""
    path = QUESTION_SETS.get(str(path), Path(path))
    if not path.exists():
        raise ValidationError(f"no questions at {path}: run the personas generator "
                              "(memory/personas) or pass --questions PATH")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValidationError(f"malformed questions file {path}: {str(exc).splitlines()[0]}") from None
    if not isinstance(raw, list):
        raise ValidationError(f"malformed questions file {path}: not a JSON list of questions")
    questions = []
    for n, q in enumerate(raw, 1):  # invariant 458: the first bad record, by number
        try:
            questions.append(Question.model_validate(q))
        except PydanticError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first.get("loc", ())) or "record"
            raise ValidationError(f"malformed questions file {path}: record {n}: {where}: "
                                  f"{first.get('msg', 'invalid')}") from None
    if not questions:
        raise ValidationError(f"questions file {path} is empty: an empty eval cannot pass a gate")
    return questions


def rerank_name() -> str:
    """The registered model-based reranker, or a clear refusal when none exists."""
    if not RERANKERS:
        raise ValidationError(
            "--rerank: no model-based reranker is available offline. The only weights this build "
            "ships are the MiniLM bi-encoder (already the dense leg); a cross-encoder needs weights "
            "that no installed package provides, and a word-overlap 'reranker' would be a toy.")
    return next(iter(RERANKERS))


def eval_config(*, preset: str = "default", no_bm25: bool = False, no_dense: bool = False,
                no_decay: bool = False, rerank: bool = False) -> tuple[str, RecallConfig]:
    """A named preset plus the ablation flags, as a (label, config) pair."""
    if preset not in PRESETS:
        raise ValidationError(f"unknown preset {preset!r}; choose one of: {', '.join(PRESETS)}")
    if no_bm25 and no_dense:
        raise ValidationError("--no-bm25 and --no-dense together leave no retrieval leg")
    config = PRESETS[preset]
    parts = [] if preset == "default" else [preset]
    if no_bm25:
        config, parts = config.model_copy(update={"use_bm25": False}), [*parts, "no_bm25"]
    if no_dense:
        config, parts = config.model_copy(update={"use_dense": False}), [*parts, "no_dense"]
    if no_decay:
        ranking = config.ranking.model_copy(update={"use_decay": False})
        config, parts = config.model_copy(update={"ranking": ranking}), [*parts, "no_decay"]
    if rerank:
        config, parts = config.model_copy(update={"rerank": rerank_name()}), [*parts, "rerank"]
    return ("+".join(parts) or "default"), config


def ask_all(service: MemoryService, questions: list[Question], config: RecallConfig) -> list[QuestionResult]:
    config = config.model_copy(update={"k": max(config.k, 10)})
    out = []
    for q in questions:
        hits = service.recall(q.user_id, q.question, config=config, purpose=Purpose.EVAL).hits
        ids = [h.id for h in hits]
        ranks = [r for r in (rank_of(ids, g) for g in [q.gold_id, *q.also_ids]) if r is not None]
        out.append(QuestionResult(id=q.id, user_id=q.user_id, gold_id=q.gold_id,
                                  gold_kind=q.gold_kind, question=q.question, tag=q.tag,
                                  rank=rank_of(ids, q.gold_id), any_rank=min(ranks, default=None),
                                  top=ids[:10]))
    return out


def isolation_sweep(service: MemoryService, questions: list[Question], config: RecallConfig,
                    max_examples: int = 20) -> SweepResult:
    """Ask every owner's questions, of every memory type, as every other persona. Any hit owned by
    someone else is a leak (invariant 56). Catalog is included: its OR-branch is where a widened
    filter would most likely slip."""
    sweep_cfg = config.model_copy(update={"k": SWEEP_K, "include_catalog": True})
    # Askers: every persona with questions and every other user the store holds.
    personas = sorted({q.user_id for q in questions} | set(service.store.users()))
    result = SweepResult(recalls=0, hits_inspected=0, leaks=0)
    for q in questions:
        for asker in personas:
            if asker == q.user_id:
                continue
            hits = service.recall(asker, q.question, config=sweep_cfg, purpose=Purpose.EVAL).hits
            result.recalls += 1
            result.hits_inspected += len(hits)
            n = count_leaks(asker, [h.doc.user_id for h in hits])
            result.leaks += n
            for h in hits:
                if n and h.doc.user_id not in (None, asker) and len(result.examples) < max_examples:
                    result.examples.append(LeakExample(asked_as=asker, question_id=q.id,
                                                       hit_id=h.id, hit_owner=h.doc.user_id))
    return result


def gates(overall: RankSummary, sweep: SweepResult) -> list[Gate]:
    """Leaks = 0 alone would pass an empty retriever; the recall gates in the same run stop that."""
    return [
        # With a single user there is nobody to leak to: a sweep that asked nothing proves nothing.
        Gate(name="sweep recalls", value=sweep.recalls, threshold="> 0", passed=sweep.recalls > 0),
        Gate(name="leaks", value=sweep.leaks, threshold="= 0", passed=sweep.leaks == 0),
        Gate(name="R@10", value=overall.r10, threshold=f">= {GATE_R10}", passed=overall.r10 >= GATE_R10),
        Gate(name="R@5", value=overall.r5, threshold=f">= {GATE_R5}", passed=overall.r5 >= GATE_R5),
    ]


def _grouped(results: list[QuestionResult], key: str) -> dict[str, RankSummary]:
    groups: dict[str, list[int | None]] = defaultdict(list)
    for r in results:
        groups[getattr(r, key)].append(r.rank)
    return {k: summarise_ranks(v) for k, v in sorted(groups.items())}


def data_clock(service: MemoryService, questions: list[Question]) -> Clock:
    """Evaluation time = the day after the newest episode of the asked users (as LoCoMo): "in
    June" and decay then mean the same thing whenever the eval runs (issue 17)."""
    from datetime import timedelta

    from ..clock import fixed_clock

    times = [e.timestamp for u in sorted({q.user_id for q in questions})
             for e in service.store.list_episodes(u)[-1:]]
    return fixed_clock(max(times) + timedelta(days=1)) if times else service.clock


def run_recall_eval(service: MemoryService, questions: list[Question], *, label: str = "default",
                    config: RecallConfig = DEFAULT, ablations: dict[str, RecallConfig] | None = None,
                    questions_name: str = "") -> RecallReport:
    results = ask_all(service, questions, config)
    overall = summarise_ranks([r.rank for r in results])
    sweep = isolation_sweep(service, questions, config)
    gate_list = gates(overall, sweep)
    rows = [AblationRow(label=name, overall=summarise_ranks([r.rank for r in ask_all(service, questions, cfg)]))
            for name, cfg in (ablations or {}).items()]
    return RecallReport(
        label=label, created_at=utcnow(), store=service.store.url, embedder=service.embedder.name,
        config=config.model_dump(mode="json"), overall=overall, questions=questions_name,
        now=service.clock(), any_gold=summarise_ranks([r.any_rank for r in results]),
        per_tag=_grouped([r for r in results if r.tag], "tag"),
        per_persona=_grouped(results, "user_id"), per_kind=_grouped(results, "gold_kind"),
        sweep=sweep, gates=gate_list, passed=all(g.passed for g in gate_list), ablations=rows,
        misses=[r for r in results if r.rank is None or r.rank > 10])


def standard_ablations(preset: str = "default") -> dict[str, RecallConfig]:
    """Every ablation that can honestly run here (rerank only when a real reranker exists),
    plus the other ranking presets worth comparing."""
    out = dict(eval_config(preset=preset, **{f: True}) for f in ("no_bm25", "no_dense", "no_decay"))
    if RERANKERS:
        out.update([eval_config(preset=preset, rerank=True)])
    for other in ("default", "sharp_rrf"):
        if other != preset:
            out.update([eval_config(preset=other)])
    return out


def _row(label: str, s: RankSummary) -> str:
    return f"| {label} | {s.n} | {s.r1:.3f} | {s.r5:.3f} | {s.r10:.3f} | {s.mrr:.3f} |"


def render_markdown(report: RecallReport) -> str:
    head = "| group | n | R@1 | R@5 | R@10 | MRR |\n|---|---|---|---|---|---|"
    lines = [f"# Recall eval: {report.label}", "",
             (f"{report.created_at:%Y-%m-%d %H:%M} UTC · store `{report.store}` · embedder "
              f"`{report.embedder}` · questions `{report.questions or 'default'}` · "
              f"**{'PASSED' if report.passed else 'FAILED'}**"), "",
             "## Gates", "", "| gate | value | threshold | result |", "|---|---|---|---|"]
    lines += [f"| {g.name} | {g.value:g} | {g.threshold} | {'pass' if g.passed else 'FAIL'} |"
              for g in report.gates]
    lines += ["", "## Recall", "", head, _row("overall", report.overall)]
    lines += [_row(f"persona {k}", s) for k, s in report.per_persona.items()]
    lines += [_row(f"type {k}", s) for k, s in report.per_kind.items()]
    lines += [_row(f"tag {k}", s) for k, s in report.per_tag.items()]
    if report.any_gold is not None:
        lines.append(_row("any answering id", report.any_gold))
    if report.ablations:
        lines += ["", "## Ablations", "", head.replace("group", "variant"),
                  _row(report.label, report.overall)]
        lines += [_row(a.label, a.overall) for a in report.ablations]
    sw = report.sweep
    lines += ["", "## Isolation sweep", "",
              (f"{sw.recalls} recalls as another persona, {sw.hits_inspected} hits inspected, "
               f"**{sw.leaks} leaks**.")]
    lines += [f"- asked as `{e.asked_as}` ({e.question_id}): hit `{e.hit_id}` owned by "
              f"`{e.hit_owner}`" for e in sw.examples]
    if report.misses:
        lines += ["", f"## Misses (gold not in top 10): {len(report.misses)}", ""]
        lines += [f"- `{m.id}` ({m.user_id}, {m.gold_kind}, rank {m.rank or '-'}): {m.question}"
                  for m in report.misses[:50]]
    return "\n".join(lines) + "\n"
