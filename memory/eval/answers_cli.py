"""`memdesk eval answers [--data F] [--split tune|heldout|all] [--agent offline|anthropic]
[--misses] [--ids a,b] [--workdir D]`: the agent's answers to demo questions, as a pass rate
(issue 12), with the rate of each split apart (tests/data/answers_blind.jsonl has two)."""

from __future__ import annotations

import argparse

from ..cli import CommandParser, Subcommands, emit
from .agent_cli import agent_factory, progress_line


def register(esub: Subcommands, common: CommandParser) -> None:
    p = esub.add_parser("answers", parents=[common],
                        help="the chat agent's answers to the user's questions (pass rate)")
    p.add_argument("--data", default=None,
                   help="questions JSONL (default: tests/data/answers.jsonl; the blind set is "
                        "tests/data/answers_blind.jsonl)")
    p.add_argument("--split", choices=["tune", "heldout", "all"], default="all",
                   help="ask only this split's questions (default all; each split's rate is "
                        "printed apart)")
    p.add_argument("--agent", choices=["offline", "anthropic", "openai"], default="offline",
                   help="anthropic needs ANTHROPIC_API_KEY (costs money; never in CI); openai "
                        "needs MEMDESK_OPENAI_BASE_URL and MEMDESK_OPENAI_MODEL")
    p.add_argument("--embedder", help="override MEMDESK_EMBEDDER for this run (default minilm)")
    p.add_argument("--misses", action="store_true", help="list the questions answered wrong")
    p.add_argument("--ids", default=None, help="comma-separated question ids: ask only these")
    p.add_argument("--workdir", default=None,
                   help="keep seeded persona templates here and reuse them across runs")
    p.add_argument("--out", default="reports", help="directory for the JSON and Markdown reports")
    p.set_defaults(func=cmd_answers)


def cmd_answers(args: argparse.Namespace) -> int:
    from ..embeddings import get_embedder
    from ..errors import ValidationError
    from .answers_eval import (
        DATA_PATH,
        load_answer_cases,
        render_markdown,
        run_answers_eval,
        select_split,
    )
    from .reports import write_reports

    data = args.data or DATA_PATH
    cases = select_split(load_answer_cases(data), args.split)
    if args.ids:
        wanted = {i.strip() for i in args.ids.split(",") if i.strip()}
        cases = [c for c in cases if c.id in wanted]
    if not cases:
        raise ValidationError(f"no questions to ask in {data}"
                              + (f" (split {args.split})" if args.split != "all" else ""))
    embedder = get_embedder(args.embedder or args.runtime.settings.embedder)

    report = run_answers_eval(cases, embedder, agent_factory(args), data=str(data),
                              workdir=args.workdir, split=args.split, progress=progress_line(args))
    md = render_markdown(report, misses=args.misses)
    paths = write_reports(report, render_markdown(report, misses=True), "answers", args.out)
    emit(args, {**report.model_dump(mode="json"), "paths": [str(p) for p in paths]},
         lambda _: md + f"\nreports: {paths[0]} {paths[1]}")
    return 0
