"""Memdesk hybrid recall vs BM25 alone (rank_bm25), dense alone (numpy) and ChromaDB, side by side.

Same corpus (LoCoMo turns as "Speaker: text" + image caption, one index per conversation) and
the same MiniLM vectors for every system (embedded once, then shared). Reports LoCoMo R@10
(fractional evidence recall, all 1,986 questions) and per-query latency p50/p95, each as a ratio
to Memdesk. Query embedding is done up front and excluded from every system's latency.

    nice -n 10 .venv/bin/python bench/bench_compare.py --data ../shared/benchmarks/locomo/locomo10.json

Needs the bench extra: .venv/bin/pip install rank-bm25 chromadb
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory.clock import fixed_clock
from memory.embeddings import get_embedder
from memory.eval.locomo import CachedEmbedder, ingest, load_locomo
from memory.eval.metrics import fractional_recall, mean
from memory.search_config import DEFAULT, SHARP_RRF, Purpose
from memory.service import MemoryService
from memory.stores import open_store
from memory.text import terms

K = 10


def tokens(text: str) -> list[str]:
    # The one tokenizer (memory/text.py): stop words out, porter stems, like the FTS5 leg.
    return terms(text)


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q))


class Result:
    def __init__(self, name: str):
        self.name, self.recalls, self.latencies = name, [], []

    def add(self, turns: list[str], evidence: list[str], seconds: float) -> None:
        self.recalls.append(fractional_recall(turns, evidence, K))
        self.latencies.append(seconds * 1000.0)

    def row(self) -> dict:
        return {"system": self.name, "r10": mean(self.recalls), "p50_ms": pct(self.latencies, 50),
                "p95_ms": pct(self.latencies, 95), "queries": len(self.recalls)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--limit-conversations", type=int)
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--json", help="also write the rows here")
    args = ap.parse_args()

    from chromadb import EphemeralClient
    from chromadb.config import Settings
    from rank_bm25 import BM25Okapi

    convs = load_locomo(args.data, limit_conversations=args.limit_conversations)
    emb = CachedEmbedder(get_embedder(args.embedder))
    t0 = time.perf_counter()
    texts = [t.episode_text() for c in convs for t in c.turns]
    emb.warm(texts + [q.question for c in convs for q in c.qa])
    print(f"embedded {len(emb._memo)} texts in {time.perf_counter() - t0:.1f} s", flush=True)

    results = {n: Result(n) for n in ("memdesk hybrid", "memdesk hybrid (sharp_rrf)",
                                      "BM25 alone (rank_bm25)",
                                      "dense alone (numpy exact)", "ChromaDB (HNSW, cosine)")}
    chroma = EphemeralClient(settings=Settings(anonymized_telemetry=False))
    with tempfile.TemporaryDirectory(prefix="memdesk-bench-") as tmp:
        store = open_store(f"embedded:{Path(tmp) / 'bench.db'}", emb)
        corpus = ingest(store, convs)
        for ci, conv in enumerate(convs):
            svc = MemoryService(store, clock=fixed_clock(conv.last_time + timedelta(days=1)))
            ep_to_turn = corpus.episode_to_turn[conv.user_id]
            ids = [t.dia_id for t in conv.turns]
            docs = [t.episode_text() for t in conv.turns]
            mat = np.stack([emb._memo[d] for d in docs])
            bm25 = BM25Okapi([tokens(d) for d in docs])
            col = chroma.create_collection(f"conv{ci}", embedding_function=None,
                                           metadata={"hnsw:space": "cosine"})
            col.add(ids=ids, embeddings=mat.tolist(), documents=docs)
            cfg = DEFAULT.model_copy(update={"k": K})
            sharp = SHARP_RRF.model_copy(update={"k": K})
            for qa in conv.qa:
                qv = emb._memo[qa.question]
                s = time.perf_counter()
                hits = svc.recall(conv.user_id, qa.question, config=cfg, purpose=Purpose.EVAL).hits
                results["memdesk hybrid"].add([ep_to_turn[h.id] for h in hits], qa.evidence,
                                              time.perf_counter() - s)
                s = time.perf_counter()
                hits = svc.recall(conv.user_id, qa.question, config=sharp, purpose=Purpose.EVAL).hits
                results["memdesk hybrid (sharp_rrf)"].add([ep_to_turn[h.id] for h in hits],
                                                          qa.evidence, time.perf_counter() - s)
                s = time.perf_counter()
                scores = bm25.get_scores(tokens(qa.question))
                top = np.argsort(-scores, kind="stable")[:K]
                results["BM25 alone (rank_bm25)"].add([ids[i] for i in top], qa.evidence,
                                                      time.perf_counter() - s)
                s = time.perf_counter()
                sims = mat @ qv
                top = np.argpartition(-sims, K)[:K]
                top = top[np.argsort(-sims[top])]
                results["dense alone (numpy exact)"].add([ids[i] for i in top], qa.evidence,
                                                         time.perf_counter() - s)
                s = time.perf_counter()
                got = col.query(query_embeddings=[qv.tolist()], n_results=K)["ids"][0]
                results["ChromaDB (HNSW, cosine)"].add(got, qa.evidence, time.perf_counter() - s)
        store.close()

    rows = [r.row() for r in results.values()]
    base = rows[0]
    print(f"\nmachine: {platform.processor() or platform.machine()}, Python {platform.python_version()}; "
          f"{sum(len(c.turns) for c in convs)} turns, {rows[0]['queries']} questions, k={K}\n")
    print("| system | LoCoMo R@10 | p50 ms | p95 ms | R@10 vs memdesk | p50 vs memdesk |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['system']} | {r['r10'] * 100:.1f} | {r['p50_ms']:.2f} | {r['p95_ms']:.2f} | "
              f"{r['r10'] / base['r10']:.2f}× | {r['p50_ms'] / base['p50_ms']:.2f}× |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
