"""Memdesk recall vs BM25 alone (rank_bm25), dense alone (numpy), ChromaDB and LanceDB hybrid.

Same corpus (LoCoMo turns as "Speaker: text" + image caption, one index per conversation) and
the same MiniLM vectors for every system (embedded once, cached on disk, then shared). Reports
LoCoMo fractional evidence recall at 5/10/25/50 and per-query latency p50/p95 of a top-50
retrieval, with the ratio of each system's p50 to Memdesk's, separately for the tuned
conversations (1-5, which the ranking was tuned on) and the held-out ones (6-10).

Fair in both directions (issue 33):
- every query vector is computed before the timed calls: the question's for the other systems,
  and for Memdesk also the text its dense leg embeds after rewriting the question (the user's
  name and pronouns dropped: memory.retrieval.query_texts). A timed call that had to embed
  counts as a cold embed; the run prints that count, which is 0 when the setup is fair;
- LanceDB returns ids only (select(["id"])), ChromaDB ids and distances: no stored vector or
  text is brought into Python per hit;
- the systems take turns question by question, so a change in load falls on all of them.
LanceDB keeps its default thread pools (one thread per core): on two cores shared with other
work they wait on each other, so its latency grows with the machine's load more than Memdesk's
single-threaded recall does; the run prints the load at its start and end. (Smaller pools,
LANCE_CPU_THREADS / LANCE_IO_THREADS of 1 or 2, halved its median once and hung in other runs
with lancedb 0.40, so they are not used.)
LanceDB hybrid is its own FTS index plus its vector search fused by its RRF reranker (issue 17).
A system whose package is missing is skipped, with a note.

    OPENBLAS_NUM_THREADS=1 nice -n 10 .venv/bin/python bench/bench_compare.py \\
        --data ../shared/benchmarks/locomo/locomo10.json [--questions-per-conversation 100]

Needs the bench extra: .venv/bin/pip install -e '.[bench]' (rank-bm25, chromadb, lancedb)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import timedelta
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
# lancedb 0.40 logs a deprecation warning to stderr on every hybrid query that selects columns;
# written inside the timed call it would count against LanceDB (read when lancedb is imported).
os.environ.setdefault("LANCEDB_LOG", "error")
sys.path.insert(0, str(ROOT))

from memory.clock import fixed_clock
from memory.embeddings import get_embedder
from memory.eval.embed_cache import DiskCachedEmbedder
from memory.eval.locomo import SPLITS, CachedEmbedder, Conversation, ingest, load_locomo
from memory.eval.metrics import fractional_recall, mean
from memory.retrieval import query_texts
from memory.search_config import DEFAULT, LEGACY_RRF, Purpose, RecallConfig
from memory.service import MemoryService
from memory.stores import open_store
from memory.text import clean_text, terms

KS = (5, 10, 25, 50)
SPLIT_TITLES = {"tune": "tuned: LoCoMo conversations 1-5", "test": "held out: conversations 6-10"}
MEMDESK = "memdesk (default)"


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q))


class PrecomputedEmbedder(CachedEmbedder):
    """The memoised vectors, counting every text it had to embed on the spot: once the timed
    calls start, that count is the number of query vectors a system computed inside its timing."""

    def __init__(self, inner: DiskCachedEmbedder):
        super().__init__(inner)
        self.cold = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if len(texts) != 1 or texts[0] not in self._memo:
            self.cold += len(texts)
        return super().embed(texts)


class Result:
    def __init__(self, name: str):
        self.name = name
        self.latencies: dict[str, list[float]] = {s: [] for s in SPLITS}
        self.recalls: dict[str, dict[int, list[float]]] = {s: {k: [] for k in KS} for s in SPLITS}

    def add(self, split: str, turns: list[str], evidence: list[str], seconds: float) -> None:
        for k in KS:
            self.recalls[split][k].append(fractional_recall(turns, evidence, k))
        self.latencies[split].append(seconds * 1000.0)

    def row(self, split: str) -> dict[str, Any]:
        lat = self.latencies[split]
        return {"system": self.name, "split": split,
                **{f"r{k}": mean(v) for k, v in self.recalls[split].items()},
                "p50_ms": pct(lat, 50), "p95_ms": pct(lat, 95), "queries": len(lat)}


def _optional(name: str) -> ModuleType | None:
    try:
        return __import__(name)
    except ImportError:
        print(f"skipping {name}: not installed (pip install -e '.[bench]')", flush=True)
        return None


class Query(NamedTuple):
    """One question with everything a system is given for it, computed before any timing."""

    text: str
    vector: np.ndarray
    vector_list: list[float]
    terms: list[str]


Search = Callable[[Query], list[str]]  # one system's top ids for a query, best first


def top_ids(ids: list[str], scores: np.ndarray) -> list[str]:
    return [ids[i] for i in np.argsort(-scores, kind="stable")[:max(KS)]]


def dense_search(ids: list[str], mat: np.ndarray) -> Search:
    """Exact cosine over every turn (the vectors are unit length)."""
    return lambda q: top_ids(ids, mat @ q.vector)


def bm25_search(ids: list[str], bm25: Any) -> Search:
    return lambda q: top_ids(ids, bm25.get_scores(q.terms))


def chroma_search(col: Any) -> Search:
    """Ids and distances only: ChromaDB returns the stored documents too unless told not to."""
    k = max(KS)
    return lambda q: col.query(query_embeddings=[q.vector_list], n_results=k,
                               include=["distances"])["ids"][0]


def lance_search(tbl: Any) -> Search:
    """Ids only: no stored vector or text comes into Python per hit."""
    k = max(KS)
    return lambda q: (tbl.search(query_type="hybrid").vector(q.vector_list).text(q.text)
                      .select(["id"]).limit(k).to_arrow().column("id").to_pylist())


def memdesk_search(svc: MemoryService, user_id: str, config: RecallConfig) -> Search:
    """The full service.recall (the query vector comes from the precomputed memo)."""
    return lambda q: [h.id for h in svc.recall(user_id, q.text, config=config,
                                               purpose=Purpose.EVAL).hits]


def lance_table(db: Any, name: str, ids: list[str], docs: list[str], mat: np.ndarray) -> Any:
    tbl = db.create_table(name, data=[{"id": i, "text": d, "vector": v.tolist()}
                                      for i, d, v in zip(ids, docs, mat, strict=True)])
    try:
        from lancedb.index import FTS
        tbl.create_index("text", config=FTS())
    except (ImportError, TypeError):  # older lancedb
        tbl.create_fts_index("text")
    return tbl


def dense_texts(svc: MemoryService, conv: Conversation, configs: Sequence[RecallConfig]) -> list[str]:
    """What Memdesk's dense leg embeds for each question under each config, computed the way
    recall computes it (service.recall cleans the text, retrieve rewrites it)."""
    return [query_texts(svc.store, conv.user_id, clean_text(qa.question, field="query"), cfg)[1]
            for qa in conv.qa for cfg in configs]


def print_split(rows: list[dict[str, Any]], split: str) -> None:
    base = rows[0]
    print(f"\n### {SPLIT_TITLES[split]} ({base['queries']} questions)\n")
    print("| system | R@5 | R@10 | R@25 | R@50 | p50 ms | p95 ms | R@10 vs memdesk | p50 vs memdesk |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['system']} | " + " | ".join(f"{r[f'r{k}'] * 100:.1f}" for k in KS)
              + f" | {r['p50_ms']:.2f} | {r['p95_ms']:.2f} | {r['r10'] / base['r10']:.2f}× | "
              f"{r['p50_ms'] / base['p50_ms']:.2f}× |")


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--limit-conversations", type=int)
    ap.add_argument("--questions-per-conversation", type=int,
                    help="ask only the first N questions of each conversation (a shorter run)")
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--json", help="also write the rows here")
    args = ap.parse_args()

    rank_bm25, chromadb, lancedb = (_optional(n) for n in ("rank_bm25", "chromadb", "lancedb"))
    convs = load_locomo(args.data, limit_conversations=args.limit_conversations)
    if args.questions_per_conversation is not None:
        convs = [c.model_copy(update={"qa": c.qa[:args.questions_per_conversation]}) for c in convs]
    emb = PrecomputedEmbedder(DiskCachedEmbedder(get_embedder(args.embedder)))
    kmax = max(KS)
    configs = {MEMDESK: DEFAULT.model_copy(update={"k": kmax}),
               "memdesk (legacy_rrf: issue 7 default)": LEGACY_RRF.model_copy(update={"k": kmax})}
    names = [*configs, "dense alone (numpy exact)"]
    names += ["BM25 alone (rank_bm25)"] * bool(rank_bm25) + ["ChromaDB (HNSW, cosine)"] * bool(chromadb)
    names += ["LanceDB hybrid (FTS + vector, RRF)"] * bool(lancedb)
    results = {n: Result(n) for n in names}
    chroma = None
    if chromadb:
        from chromadb.config import Settings
        chroma = chromadb.EphemeralClient(settings=Settings(anonymized_telemetry=False))
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="memdesk-bench-") as tmp:
        t0 = time.perf_counter()
        emb.warm([t.episode_text() for c in convs for t in c.turns]
                 + [q.question for c in convs for q in c.qa])
        store = open_store(f"embedded:{Path(tmp) / 'bench.db'}", emb)
        corpus = ingest(store, convs)
        services = {c.user_id: MemoryService(store, clock=fixed_clock(c.last_time + timedelta(days=1)))
                    for c in convs}
        emb.warm([d for c in convs for d in dense_texts(services[c.user_id], c, [*configs.values()])])
        asked = sum(len(c.qa) for c in convs)
        rewritten = sum(qa.question != d for c in convs for qa, d in zip(
            c.qa, dense_texts(services[c.user_id], c, [configs[MEMDESK]]), strict=True))
        print(f"embedded {len(emb._memo)} texts in {time.perf_counter() - t0:.1f} s; Memdesk's "
              f"default rewrites {rewritten} of {asked} questions before embedding", flush=True)
        ldb = lancedb.connect(str(Path(tmp) / "lance")) if lancedb else None
        emb.cold = 0  # from here on, a text embedded on the spot was embedded inside a timing
        for ci, conv in enumerate(convs):
            ep_to_turn = corpus.episode_to_turn[conv.user_id]
            ids = [t.dia_id for t in conv.turns]
            docs = [t.episode_text() for t in conv.turns]
            mat = np.stack([emb._memo[d] for d in docs])
            run: dict[str, Search] = {
                name: memdesk_search(services[conv.user_id], conv.user_id, cfg)
                for name, cfg in configs.items()}
            run["dense alone (numpy exact)"] = dense_search(ids, mat)
            if rank_bm25:
                run["BM25 alone (rank_bm25)"] = bm25_search(
                    ids, rank_bm25.BM25Okapi([terms(d) for d in docs]))
            if chroma is not None:
                col = chroma.create_collection(f"conv{ci}", embedding_function=None,
                                               metadata={"hnsw:space": "cosine"})
                col.add(ids=ids, embeddings=mat.tolist(), documents=docs)
                run["ChromaDB (HNSW, cosine)"] = chroma_search(col)
            if ldb is not None:
                run["LanceDB hybrid (FTS + vector, RRF)"] = lance_search(
                    lance_table(ldb, f"conv{ci}", ids, docs, mat))
            queries = [Query(qa.question, emb._memo[qa.question], emb._memo[qa.question].tolist(),
                             terms(qa.question)) for qa in conv.qa]
            for search in run.values():  # untimed: each index's first query opens its files
                search(queries[0])
            for qa, q in zip(conv.qa, queries, strict=True):
                for name, search in run.items():
                    s = time.perf_counter()
                    got = search(q)
                    seconds = time.perf_counter() - s
                    results[name].add(conv.split, [ep_to_turn.get(i, i) for i in got], qa.evidence,
                                      seconds)
        store.close()

    print(f"\nmachine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}; load {load_start:.2f} at the start, "
          f"{os.getloadavg()[0]:.2f} at the end; {sum(len(c.turns) for c in convs)} turns, "
          f"{asked} questions, top {kmax}; query texts embedded inside a timed call: {emb.cold}")
    rows = []
    for split in SPLITS:
        split_rows = [r.row(split) for r in results.values() if r.latencies[split]]
        if split_rows:
            print_split(split_rows, split)
            rows += split_rows
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
