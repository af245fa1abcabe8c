"""num_candidates for Elasticsearch's approximate kNN, measured offline (issue 31, invariant 97).

A PROXY, not the cluster: no Elasticsearch runs here. An HNSW graph with Lucene's (and so
Elasticsearch's) defaults — m = 16 neighbours, ef_construction = 100 (dense-vector.html,
index_options) — is built with hnswlib over the LoCoMo tune conversations' turns, embedded by
the product's embedder; each question searches it with ef = num_candidates and keeps k (the
dense leg's window, 80), and is scored against the exact top k (brute-force cosine). What the
proxy leaves out: int8 quantisation of `int8_hnsw` (8.x's default for float vectors), Lucene's
per-segment graphs and its switch to exact search under a restrictive filter.

Two layouts: one graph per conversation (a user alone in the index) and one shared graph
searched with the user filter (many users in one index, as the store keeps them).

    python bench/bench_knn_candidates.py [--data locomo10.json] [--embedder minilm] [--k 80]

Prints recall@k of the approximate search against the exact one per num_candidates / k."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import hnswlib  # noqa: E402  (bench extra: pip install memdesk[bench])

from memory.embeddings import get_embedder  # noqa: E402
from memory.eval.locomo import load_locomo  # noqa: E402

LOCOMO = "/work/shared/benchmarks/locomo/locomo10.json"
M, EF_CONSTRUCTION = 16, 100  # Lucene's HNSW defaults, Elasticsearch's index_options defaults
FACTORS = (1.0, 1.5, 2.0, 3.0, 4.0)


def unit(mat: np.ndarray) -> np.ndarray:
    return mat / np.maximum(np.linalg.norm(mat, axis=1, keepdims=True), 1e-12)


def graph(vectors: np.ndarray, ids: np.ndarray, seed: int = 7) -> hnswlib.Index:
    index = hnswlib.Index(space="cosine", dim=vectors.shape[1])
    index.init_index(max_elements=len(vectors), M=M, ef_construction=EF_CONSTRUCTION,
                     random_seed=seed)
    index.set_num_threads(1)
    index.add_items(vectors, ids)
    return index


def recall(found: np.ndarray, exact: np.ndarray) -> float:
    return len(set(found.tolist()) & set(exact.tolist())) / len(exact)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=LOCOMO)
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--k", type=int, default=80, help="hits a dense leg keeps (the window)")
    args = ap.parse_args()
    convs = [c for c in load_locomo(args.data) if c.split == "tune"]
    emb = get_embedder(args.embedder)
    t0 = time.perf_counter()
    docs, owner, queries = [], [], []
    for n, conv in enumerate(convs):
        docs += [t.episode_text() for t in conv.turns]
        owner += [n] * len(conv.turns)
        queries += [(n, qa.question) for qa in conv.qa]
    dvec = unit(np.concatenate([emb.embed(docs[s:s + 256]) for s in range(0, len(docs), 256)]))
    qvec = unit(np.concatenate([emb.embed([q for _, q in queries[s:s + 256]])
                                for s in range(0, len(queries), 256)]))
    owner_arr = np.array(owner)
    print(f"LoCoMo tune: {len(convs)} conversations, {len(docs)} turns, {len(queries)} "
          f"questions; embedder {emb.name} ({emb.dims} dims), embedded in "
          f"{time.perf_counter() - t0:.0f} s; k = {args.k}; HNSW m={M}, "
          f"ef_construction={EF_CONSTRUCTION} (hnswlib)")
    ids = np.arange(len(docs))
    shared = graph(dvec, ids)
    own = {n: graph(dvec[owner_arr == n], ids[owner_arr == n]) for n in range(len(convs))}
    exact = {}
    for qi, (n, _) in enumerate(queries):
        mine = ids[owner_arr == n]
        sims = dvec[mine] @ qvec[qi]
        k = min(args.k, len(mine))
        exact[qi] = mine[np.argsort(-sims, kind="stable")[:k]]
    print(f"{'num_candidates':>16} {'per-user graph':>16} {'shared, filtered':>18}")
    for factor in FACTORS:
        rows: dict[str, list[float]] = {"own": [], "shared": []}
        for qi, (n, _) in enumerate(queries):
            k = len(exact[qi])
            ef = max(k, int(np.ceil(factor * args.k)))
            own[n].set_ef(ef)
            labels, _ = own[n].knn_query(qvec[qi], k=k)
            rows["own"].append(recall(labels[0], exact[qi]))
            shared.set_ef(ef)
            labels, _ = shared.knn_query(qvec[qi], k=k,
                                         filter=lambda i, n=n: owner_arr[i] == n)
            rows["shared"].append(recall(labels[0], exact[qi]))
        print(f"{f'{factor:g} x k = {int(np.ceil(factor * args.k))}':>16} "
              f"{np.mean(rows['own']):>16.4f} {np.mean(rows['shared']):>18.4f}")


if __name__ == "__main__":
    main()
