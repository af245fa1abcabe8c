"""`memdesk eval agent [--data F] [--split tune|heldout|blind|all] [--agent offline|anthropic|openai]
[--misses] [--ids a,b] [--workdir D]`. `all` is the tuning splits (tune and held out) of the file, or its blind split when
it holds nothing else; a blind split is never pooled with them (invariant 100)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..cli import CommandParser, Subcommands, emit

if TYPE_CHECKING:
    from ..agents.base import Agent


def register(esub: Subcommands, common: CommandParser) -> None:
    p = esub.add_parser("agent", parents=[common],
                        help="the chat agent's precision and recall on labelled statements")
    p.add_argument("--data", default=None,
                   help="statements JSONL (default: tests/data/statements.jsonl, or "
                        "tests/data/statements_blind.jsonl with --split blind)")
    p.add_argument("--split", choices=["tune", "heldout", "blind", "all"], default="all",
                   help="blind: tests/data/statements_blind.jsonl, frozen, reported apart")
    p.add_argument("--agent", choices=["offline", "anthropic", "openai"], default="offline",
                   help="anthropic needs ANTHROPIC_API_KEY (costs money; never in CI); openai "
                        "needs MEMDESK_OPENAI_BASE_URL and MEMDESK_OPENAI_MODEL")
    p.add_argument("--embedder", help="override MEMDESK_EMBEDDER for this run (default minilm)")
    p.add_argument("--misses", action="store_true", help="list the statements scored wrong")
    p.add_argument("--ids", default=None,
                   help="comma-separated statement ids: score only these (fast iteration)")
    p.add_argument("--workdir", default=None,
                   help="keep seeded persona templates here and reuse them across runs")
    p.add_argument("--out", default="reports", help="directory for the JSON and Markdown reports")
    p.set_defaults(func=cmd_agent)


def agent_factory(args: argparse.Namespace) -> Callable[[], Agent]:
    """The agent the eval runs each turn with (`--agent`: offline or claude)."""
    def factory() -> Agent:
        from ..agents import get_agent
        from ..llm import get_llm

        return get_agent(get_llm(args.runtime.settings, args.agent))
    return factory


def progress_line(args: argparse.Namespace) -> Callable[[str], None] | None:
    """A case id on stderr as each turn runs; nothing with --json."""
    if getattr(args, "json", False):
        return None
    return lambda cid: print(f"  {cid}", end="\r", file=sys.stderr)


def cmd_agent(args: argparse.Namespace) -> int:
    from ..embeddings import get_embedder
    from ..errors import ValidationError
    from .agent_eval import (
        BLIND,
        BLIND_PATH,
        DATA_PATH,
        choose_splits,
        load_cases,
        render_markdown,
        run_agent_eval,
    )
    from .cli import GateFailed
    from .reports import write_reports

    data = args.data or (BLIND_PATH if args.split == BLIND else DATA_PATH)
    cases = load_cases(data)
    if args.ids:
        wanted = {i.strip() for i in args.ids.split(",") if i.strip()}
        cases = [c for c in cases if c.id in wanted]
    present = {c.split for c in cases}
    splits = choose_splits(present, args.split)  # blind is never pooled (invariant 100)
    if not splits:
        raise ValidationError(f"no statements of split {args.split!r} in {data} "
                              f"(it has {sorted(present)})")
    embedder = get_embedder(args.embedder or args.runtime.settings.embedder)

    report = run_agent_eval(cases, embedder, agent_factory(args), splits=splits,
                            data=str(data), workdir=args.workdir, progress=progress_line(args))
    md = render_markdown(report, misses=args.misses)
    paths = write_reports(report, render_markdown(report, misses=True), "agent", args.out)
    emit(args, {**report.model_dump(mode="json"), "paths": [str(p) for p in paths]},
         lambda _: md + f"\nreports: {paths[0]} {paths[1]}")
    if not report.passed:
        missed = ", ".join(f"{name}: precision {s.precision:.3f}, recall {s.recall:.3f}"
                           for name, s in report.splits.items() if not s.passed)
        raise GateFailed(f"agent eval gates missed ({missed})")
    return 0
