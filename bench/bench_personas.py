"""Persona questions: word overlap with the gold documents, and how each recall leg finds them.

    .venv/bin/python bench/bench_personas.py [--store embedded:PATH] [--presets default,...]
    .venv/bin/python bench/bench_personas.py --seed-only     # seeding time, first and second run

Seeds the personas into the store (a throwaway MiniLM store by default; seeding is idempotent,
so an existing store is reused), then asks every question with Purpose.EVAL (read-only) and
prints Recall@1/5/10 and MRR per preset next to the overlap distribution. A question set that
BM25 alone answers as well as the hybrid would be a string-matching test.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from memory.embeddings import get_embedder
from memory.models import Fact, MemoryKind
from memory.personas.loader import seed
from memory.personas.overlap import gold_texts, load_questions, measure
from memory.search_config import PRESETS, Purpose
from memory.service import MemoryService
from memory.stores import open_store


def recall_figures(service: MemoryService, questions: list[dict], preset: str) -> dict:
    """R@k and MRR on the gold id; `top1_gold_or_source` also accepts, at rank 1, one of a gold
    fact's own source episodes (it says the same thing in the user's words)."""
    config = PRESETS[preset].model_copy(update={"k": 10})
    ranks, top1_equiv = [], 0
    for q in questions:
        ids = [h.id for h in service.recall(q["user_id"], q["question"], config=config,
                                            purpose=Purpose.EVAL).hits]
        ranks.append(ids.index(q["gold_id"]) + 1 if q["gold_id"] in ids else None)
        gold = service.store.get(MemoryKind.SEMANTIC, q["user_id"], q["gold_id"])
        sources = set(gold.source_episode_ids) if isinstance(gold, Fact) else set()
        top1_equiv += bool(ids) and (ids[0] == q["gold_id"] or ids[0] in sources)
    n = len(ranks)
    return {"preset": preset, "questions": n,
            **{f"R@{k}": round(sum(1 for r in ranks if r and r <= k) / n, 3) for k in (1, 5, 10)},
            "MRR@10": round(sum(1 / r for r in ranks if r) / n, 3),
            "top1_gold_or_source": round(top1_equiv / n, 3)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--store", help="embedded:PATH to reuse (default: a temporary store)")
    p.add_argument("--presets", default="default,bm25_only,dense_only")
    p.add_argument("--seed-only", action="store_true", help="time seeding (twice) and stop")
    args = p.parse_args()
    questions = load_questions()
    print(json.dumps({"overlap": measure(questions, gold_texts()).model_dump()}, indent=2))
    with tempfile.TemporaryDirectory() as tmp:
        url = args.store or f"embedded:{Path(tmp) / 'personas.db'}"
        store = open_store(url, get_embedder("minilm"))
        started = time.perf_counter()
        report = seed(store)
        print(f"seeded {report.added} records in {time.perf_counter() - started:.1f} s")
        started = time.perf_counter()
        again = seed(store)
        print(f"seeded again: {again.added} records added in {time.perf_counter() - started:.2f} s")
        if args.seed_only:
            store.close()
            return 0
        service = MemoryService(store)
        for preset in args.presets.split(","):
            print(json.dumps(recall_figures(service, questions, preset)))
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
