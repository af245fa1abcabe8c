"""`memdesk eval agent [--split tune|heldout|all] [--agent offline|anthropic] [--misses]`."""

from __future__ import annotations

import sys

from ..cli import emit


def register(esub, common) -> None:
    p = esub.add_parser("agent", parents=[common],
                        help="the chat agent's precision and recall on labelled statements")
    p.add_argument("--data", default=None, help="statements JSONL (default: tests/data/statements.jsonl)")
    p.add_argument("--split", choices=["tune", "heldout", "all"], default="all")
    p.add_argument("--agent", choices=["offline", "anthropic"], default="offline",
                   help="anthropic needs ANTHROPIC_API_KEY (costs money; never in CI)")
    p.add_argument("--embedder", help="override MEMDESK_EMBEDDER for this run (default minilm)")
    p.add_argument("--misses", action="store_true", help="list the statements scored wrong")
    p.add_argument("--out", default="reports", help="directory for the JSON and Markdown reports")
    p.set_defaults(func=cmd_agent)


def cmd_agent(args) -> int:
    from ..embeddings import get_embedder
    from .agent_eval import DATA_PATH, load_cases, render_markdown, run_agent_eval
    from .cli import GateFailed
    from .reports import write_reports

    cases = load_cases(args.data or DATA_PATH)
    embedder = get_embedder(args.embedder or args.runtime.settings.embedder)

    def factory():
        from ..agents import get_agent
        from ..llm import get_llm

        return get_agent(get_llm(args.runtime.settings, args.agent))

    splits = ("tune", "heldout") if args.split == "all" else (args.split,)
    report = run_agent_eval(cases, embedder, factory, splits=splits,
                            data=str(args.data or DATA_PATH),
                            progress=None if getattr(args, "json", False) else
                            (lambda cid: print(f"  {cid}", end="\r", file=sys.stderr)))
    md = render_markdown(report, misses=args.misses)
    paths = write_reports(report, render_markdown(report, misses=True), "agent", args.out)
    emit(args, {**report.model_dump(mode="json"), "paths": [str(p) for p in paths]},
         lambda _: md + f"\nreports: {paths[0]} {paths[1]}")
    if not report.passed:
        missed = ", ".join(f"{name}: precision {s.precision:.3f}, recall {s.recall:.3f}"
                           for name, s in report.splits.items() if not s.passed)
        raise GateFailed(f"agent eval gates missed ({missed})")
    return 0
