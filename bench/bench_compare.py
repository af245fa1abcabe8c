"""Memdesk recall vs BM25 alone (rank_bm25), dense alone (numpy), ChromaDB and LanceDB hybrid.

Same corpus (LoCoMo turns as "Speaker: text" + image caption, one index per conversation) and
the same MiniLM vectors for every system (embedded once, cached on disk, then shared). Reports
LoCoMo fractional evidence recall at 5/10/25/50 (all 1,986 questions) and per-query latency
p50/p95 of a top-50 retrieval, each as a ratio to Memdesk. Query embedding is done up front and
excluded from every system's latency. LanceDB hybrid is its own FTS index plus its vector search
fused by its RRF reranker (issue 17). A system whose package is missing is skipped, with a note.

    nice -n 10 .venv/bin/python bench/bench_compare.py --data ../shared/benchmarks/locomo/locomo10.json

Needs the bench extra: .venv/bin/pip install -e '.[bench]' (rank-bm25, chromadb, lancedb)
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
from memory.eval.embed_cache import DiskCachedEmbedder
from memory.eval.locomo import CachedEmbedder, ingest, load_locomo
from memory.eval.metrics import fractional_recall, mean
from memory.search_config import DEFAULT, LEGACY_RRF, Purpose
from memory.service import MemoryService
from memory.stores import open_store
from memory.text import terms

K = 10
KS = (5, 10, 25, 50)


def tokens(text: str) -> list[str]:
    # The one tokenizer (memory/text.py): stop words out, porter stems, like the FTS5 leg.
    return terms(text)


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q))


class Result:
    def __init__(self, name: str):
        self.name = name
        self.latencies: list[float] = []
        self.recalls: dict[int, list[float]] = {k: [] for k in KS}

    def add(self, turns: list[str], evidence: list[str], seconds: float) -> None:
        for k in KS:
            self.recalls[k].append(fractional_recall(turns, evidence, k))
        self.latencies.append(seconds * 1000.0)

    def row(self) -> dict:
        return {"system": self.name, **{f"r{k}": mean(v) for k, v in self.recalls.items()},
                "p50_ms": pct(self.latencies, 50), "p95_ms": pct(self.latencies, 95),
                "queries": len(self.latencies)}


def _optional(name: str):
    try:
        return __import__(name)
    except ImportError:
        print(f"skipping {name}: not installed (pip install -e '.[bench]')", flush=True)
        return None


def lance_table(db, name: str, ids: list[str], docs: list[str], mat: np.ndarray):
    tbl = db.create_table(name, data=[{"id": i, "text": d, "vector": v.tolist()}
                                      for i, d, v in zip(ids, docs, mat, strict=False)])
    try:
        from lancedb.index import FTS
        tbl.create_index("text", config=FTS())
    except (ImportError, TypeError):  # older lancedb
        tbl.create_fts_index("text")
    return tbl


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--limit-conversations", type=int)
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--json", help="also write the rows here")
    args = ap.parse_args()

    rank_bm25, chromadb, lancedb = (_optional(n) for n in ("rank_bm25", "chromadb", "lancedb"))
    convs = load_locomo(args.data, limit_conversations=args.limit_conversations)
    emb = CachedEmbedder(DiskCachedEmbedder(get_embedder(args.embedder)))
    t0 = time.perf_counter()
    texts = [t.episode_text() for c in convs for t in c.turns]
    emb.warm(texts + [q.question for c in convs for q in c.qa])
    print(f"embedded {len(emb._memo)} texts in {time.perf_counter() - t0:.1f} s", flush=True)

    names = ["memdesk (default)", "memdesk (legacy_rrf: issue 7 default)", "dense alone (numpy exact)"]
    names += ["BM25 alone (rank_bm25)"] * bool(rank_bm25) + ["ChromaDB (HNSW, cosine)"] * bool(chromadb)
    names += ["LanceDB hybrid (FTS + vector, RRF)"] * bool(lancedb)
    results = {n: Result(n) for n in names}
    chroma = None
    if chromadb:
        from chromadb.config import Settings
        chroma = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    kmax = max(KS)
    with tempfile.TemporaryDirectory(prefix="memdesk-bench-") as tmp:
        store = open_store(f"embedded:{Path(tmp) / 'bench.db'}", emb)
        corpus = ingest(store, convs)
        ldb = lancedb.connect(str(Path(tmp) / "lance")) if lancedb else None
        for ci, conv in enumerate(convs):
            svc = MemoryService(store, clock=fixed_clock(conv.last_time + timedelta(days=1)))
            ep_to_turn = corpus.episode_to_turn[conv.user_id]
            ids = [t.dia_id for t in conv.turns]
            docs = [t.episode_text() for t in conv.turns]
            mat = np.stack([emb._memo[d] for d in docs])
            bm25 = rank_bm25.BM25Okapi([tokens(d) for d in docs]) if rank_bm25 else None
            col = None
            if chroma is not None:
                col = chroma.create_collection(f"conv{ci}", embedding_function=None,
                                               metadata={"hnsw:space": "cosine"})
                col.add(ids=ids, embeddings=mat.tolist(), documents=docs)
            tbl = lance_table(ldb, f"conv{ci}", ids, docs, mat) if ldb is not None else None
            configs = {"memdesk (default)": DEFAULT.model_copy(update={"k": kmax}),
                       "memdesk (legacy_rrf: issue 7 default)": LEGACY_RRF.model_copy(update={"k": kmax})}
            for qa in conv.qa:
                qv = emb._memo[qa.question]
                for name, cfg in configs.items():
                    s = time.perf_counter()
                    hits = svc.recall(conv.user_id, qa.question, config=cfg, purpose=Purpose.EVAL).hits
                    results[name].add([ep_to_turn[h.id] for h in hits], qa.evidence,
                                      time.perf_counter() - s)
                s = time.perf_counter()
                sims = mat @ qv
                top = np.argsort(-sims, kind="stable")[:kmax]
                results["dense alone (numpy exact)"].add([ids[i] for i in top], qa.evidence,
                                                         time.perf_counter() - s)
                if bm25 is not None:
                    s = time.perf_counter()
                    scores = bm25.get_scores(tokens(qa.question))
                    top = np.argsort(-scores, kind="stable")[:kmax]
                    results["BM25 alone (rank_bm25)"].add([ids[i] for i in top], qa.evidence,
                                                          time.perf_counter() - s)
                if col is not None:
                    s = time.perf_counter()
                    got = col.query(query_embeddings=[qv.tolist()], n_results=kmax)["ids"][0]
                    results["ChromaDB (HNSW, cosine)"].add(got, qa.evidence, time.perf_counter() - s)
                if tbl is not None:
                    s = time.perf_counter()
                    got = [r["id"] for r in tbl.search(query_type="hybrid").vector(qv.tolist())
                           .text(qa.question).limit(kmax).to_arrow().to_pylist()]
                    results["LanceDB hybrid (FTS + vector, RRF)"].add(got, qa.evidence,
                                                                      time.perf_counter() - s)
        store.close()

    rows = [r.row() for r in results.values()]
    base = rows[0]
    print(f"\nmachine: {platform.processor() or platform.machine()}, Python {platform.python_version()}; "
          f"{sum(len(c.turns) for c in convs)} turns, {rows[0]['queries']} questions, top {kmax}\n")
    print("| system | R@5 | R@10 | R@25 | R@50 | p50 ms | p95 ms | R@10 vs memdesk | p50 vs memdesk |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['system']} | " + " | ".join(f"{r[f'r{k}'] * 100:.1f}" for k in KS)
              + f" | {r['p50_ms']:.2f} | {r['p95_ms']:.2f} | {r['r10'] / base['r10']:.2f}× | "
              f"{r['p50_ms'] / base['p50_ms']:.2f}× |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
