"""`memdesk eval recall | locomo | stress`: reproducible numbers, non-zero exit on a missed gate."""

from __future__ import annotations

import argparse

from ..cli import CommandParser, Subcommands, emit
from ..cli import types as t
from ..embeddings import EMBEDDERS, Embedder
from ..errors import MemdeskError

GATE_EXIT = 1  # a missed gate or a failed scenario: the run worked, the product did not pass


class GateFailed(MemdeskError):
    exit_code = GATE_EXIT


def _ablation_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--preset", default="default", help="recall preset (memory.search_config)")
    p.add_argument("--no-bm25", action="store_true", help="ablation: dense leg alone")
    p.add_argument("--no-dense", action="store_true", help="ablation: BM25 leg alone")
    p.add_argument("--no-decay", action="store_true", help="ablation: no time decay")
    p.add_argument("--rerank", action="store_true", help="ablation: add the model reranker")
    p.add_argument("--ablations", action="store_true",
                   help="also run every ablation and add a comparison table")
    p.add_argument("--out", default="reports", type=t.OUTPUT_DIR,
                   help="directory for the JSON and Markdown reports")


def register(sub: Subcommands, common: CommandParser) -> None:
    ev = sub.add_parser("eval", help="recall eval, LoCoMo benchmark, stress scenarios")
    # Nested subcommands inherit the one-line-error parser class from `ev`.
    esub = ev.add_subparsers(dest="eval_command", required=True)

    p = esub.add_parser("recall", parents=[common], help="persona recall eval + isolation sweep")
    p.add_argument("--questions", default=None, type=t.TEXT_FILE,
                   help="questions JSON, or a set: tuning (default), tuning-extra, tuning2, frozen, frozen2, frozen3")
    p.add_argument("--real-clock", action="store_true",
                   help="ask at the real time (default: the day after the newest episode)")
    _ablation_flags(p)
    p.set_defaults(func=cmd_recall)

    p = esub.add_parser("locomo", parents=[common], help="LoCoMo evidence recall at k")
    p.add_argument("--data", required=True, type=t.TEXT_FILE, help="path to locomo10.json (read in place)")
    p.add_argument("--store-path", help="keep the ingested store here (default: a throwaway one)")
    p.add_argument("--no-captions", action="store_true", help="leave image captions out of turns")
    p.add_argument("--limit-conversations", type=t.count(1, 10_000, "limit"))
    p.add_argument("--limit-questions", type=t.count(1, 10**6, "limit"), help="per conversation")
    p.add_argument("--embedder", choices=EMBEDDERS, help="override MEMDESK_EMBEDDER for this run")
    p.add_argument("--split", default="all", choices=["all", "tune", "test"],
                   help="conversations 1-5 (tune), 6-10 (test) or all; reports show both")
    p.add_argument("--no-embed-cache", action="store_true",
                   help="embed every turn again instead of reusing .cache/memdesk-eval")
    _ablation_flags(p)
    p.set_defaults(func=cmd_locomo)

    p = esub.add_parser("stress", parents=[common], help="correction and concurrency scenarios")
    p.add_argument("--scenario", action="append", help="run only these (repeatable)")
    p.add_argument("--embedder", choices=EMBEDDERS, help="override MEMDESK_EMBEDDER for this run")
    p.add_argument("--out", default="reports", type=t.OUTPUT_DIR, help="directory for the JSON and Markdown reports")
    p.set_defaults(func=cmd_stress)

    from .agent_cli import register as register_agent  # issue 12: `memdesk eval agent`

    register_agent(esub, common)

    from .answers_cli import register as register_answers  # issue 12: `memdesk eval answers`

    register_answers(esub, common)

    from .labels_cli import register as register_labels  # issue 32: decisions as labels

    register_labels(esub, common)


def _variants(args: argparse.Namespace) -> tuple[str, dict]:
    from .recall_eval import eval_config, standard_ablations

    label, config = eval_config(preset=args.preset, no_bm25=args.no_bm25, no_dense=args.no_dense,
                                no_decay=args.no_decay, rerank=args.rerank)
    extra = ({k: v for k, v in standard_ablations(args.preset).items() if k != label}
             if args.ablations else {})
    return label, {label: config, **extra}


def cmd_recall(args: argparse.Namespace) -> int:
    from .recall_eval import (
        QUESTION_SETS,
        QUESTIONS_PATH,
        data_clock,
        load_questions,
        render_markdown,
        run_recall_eval,
    )
    from .reports import write_reports

    questions = load_questions(args.questions or QUESTIONS_PATH)
    label, variants = _variants(args)
    config = variants.pop(label)
    service = args.runtime.service
    if not args.real_clock:
        service.clock = data_clock(service, questions)
    report = run_recall_eval(service, questions, label=label, config=config, ablations=variants,
                             questions_name=args.questions or "tuning")
    md = render_markdown(report)
    # A named set other than the default keeps its own report (frozen2, frozen3: invariant 100).
    named = args.questions in set(QUESTION_SETS) - {"tuning"}
    name = f"recall-{args.questions}-{label}" if named else f"recall-{label}"
    paths = write_reports(report, md, name, args.out)
    emit(args, {**report.model_dump(mode="json"), "paths": [str(p) for p in paths]},
         lambda _: md + f"\nreports: {paths[0]} {paths[1]}")
    if not report.passed:
        missed = ", ".join(f"{g.name} {g.value:.3f} (needs {g.threshold})"
                           for g in report.gates if not g.passed)
        raise GateFailed(f"recall eval gates missed: {missed}")
    return 0


def _embedder(args: argparse.Namespace) -> Embedder:
    from ..embeddings import get_embedder

    return get_embedder(args.embedder or args.runtime.settings.embedder)


def cmd_locomo(args: argparse.Namespace) -> int:
    from .embed_cache import DiskCachedEmbedder
    from .locomo import render_markdown, run_locomo
    from .reports import write_reports

    label, variants = _variants(args)
    embedder = _embedder(args)
    if not args.no_embed_cache:
        embedder = DiskCachedEmbedder(embedder)
    report = run_locomo(args.data, embedder, variants, store_path=args.store_path, split=args.split,
                        with_captions=not args.no_captions,
                        limit_conversations=args.limit_conversations,
                        limit_questions=args.limit_questions)
    md = render_markdown(report)
    paths = write_reports(report, md, f"locomo-{label}", args.out)
    emit(args, {**report.model_dump(mode="json"), "paths": [str(p) for p in paths]},
         lambda _: md + f"\nreports: {paths[0]} {paths[1]}")
    return 0


def cmd_stress(args: argparse.Namespace) -> int:
    from .reports import write_reports
    from .stress import render_markdown, run_stress

    report = run_stress(_embedder(args), only=args.scenario)
    md = render_markdown(report)
    paths = write_reports(report, md, "stress", args.out)
    emit(args, {**report.model_dump(mode="json"), "paths": [str(p) for p in paths]},
         lambda _: md + f"\nreports: {paths[0]} {paths[1]}")
    if not report.passed:
        failed = ", ".join(s.name for s in report.scenarios if not s.passed)
        raise GateFailed(f"stress scenarios failed: {failed}")
    return 0
