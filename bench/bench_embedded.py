"""Embedded store at scale: recall latency, ingest overhead, file size and peak memory.

    nice -n 10 .venv/bin/python bench/bench_embedded.py                  # 100 users x 2,000
    nice -n 10 .venv/bin/python bench/bench_embedded.py --users 10 --per-user 500 --queries 50

Phases (each prints its figures):
1. build: users x per-user memories (episodes, facts in every state, playbooks) written through
   `store.apply` batches with their audit events, into an EmbeddedStore under --dir (reused when
   it is already complete; --rebuild forces a new one). Shortcut, documented in
   docs/benchmarks.md: only a pool of --pool unique sentences is embedded by the model (vectors
   cached in a .npy under --dir); every document is one or two pool sentences and its vector is
   the normalised mean of theirs. Recall queries are never in the pool: they are embedded live.
2. recall (a fresh subprocess, so peak memory is the recall process's own): MemoryService.recall
   with Purpose.EVAL, the default config (k 10, 80 candidates per leg, no rerank), the query
   embedding included; one untimed warm-up query per user, then --queries timed queries.
3. ingest: --ingest-docs fresh documents into a new store; per batch, the model's own time to
   embed the batch's texts is measured beside the time to ingest the same batch (which embeds
   them again), so both see the same load on the shared cores.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import _corpus as corpus
from memory.clock import fixed_clock
from memory.embeddings import get_embedder
from memory.models import Episode, Fact, Playbook
from memory.ranking import fuse
from memory.retrieval import retrieve
from memory.search_config import DEFAULT, Purpose
from memory.service import MemoryService
from memory.stores.base import RecallFilter
from memory.stores.embedded import EmbeddedStore
from memory.unit_of_work import Batch

BATCH = 500


class PrimedEmbedder:
    """Answers from vectors primed by the benchmark; anything else goes to the real model.

    It carries the real model's name and dims, so the store it builds opens with the real model.
    """

    def __init__(self, base):
        self.base, self.name, self.dims = base, base.name, base.dims
        self.primed: dict[str, np.ndarray] = {}
        self.misses = 0

    def embed(self, texts):
        out = np.zeros((len(texts), self.dims), np.float32)
        missing = [i for i, t in enumerate(texts) if t not in self.primed]
        for i, t in enumerate(texts):
            if t in self.primed:
                out[i] = self.primed[t]
        if missing:
            self.misses += len(missing)
            out[missing] = self.base.embed([texts[i] for i in missing])
        return out


def pool_vectors(pool: corpus.Pool, embedder, cache_dir: Path) -> dict[str, np.ndarray]:
    texts = pool.all()
    key = hashlib.sha1(("\n".join(texts) + embedder.name).encode()).hexdigest()[:12]
    path = cache_dir / f"pool-{embedder.name}-{len(texts)}-{key}.npy"
    if path.exists():
        mat = np.load(path)
    else:
        # Chunks are checkpointed, so an interrupted run resumes instead of re-embedding.
        t0 = time.perf_counter()
        chunks = []
        for s in range(0, len(texts), 1024):
            part = path.with_suffix(f".part{s // 1024:03d}.npy")
            if part.exists():
                chunks.append(np.load(part))
                continue
            chunks.append(embedder.embed(texts[s:s + 1024]))
            np.save(part, chunks[-1])
            print(f"  pool: embedded {min(s + 1024, len(texts))}/{len(texts)}", flush=True)
        mat = np.concatenate(chunks)
        dt = time.perf_counter() - t0
        print(f"  pool: {len(texts)} sentences in {dt:.0f} s ({len(texts) / dt:.0f}/s), cached {path}")
        np.save(path, mat)
        for part in path.parent.glob(path.stem + ".part*.npy"):
            part.unlink()
    return dict(zip(texts, mat, strict=False))


def doc_vector(spec: corpus.DocSpec, vecs: dict[str, np.ndarray]) -> np.ndarray:
    v = np.mean([vecs[p] for p in spec.parts], axis=0)
    return (v / max(float(np.linalg.norm(v)), 1e-12)).astype(np.float32)


def to_model(spec: corpus.DocSpec, user_id: str):
    if spec.kind == "episodic":
        return Episode(user_id=user_id, **spec.fields)
    if spec.kind == "semantic":
        return Fact(user_id=user_id, origin="seed", **spec.fields)
    return Playbook(user_id=user_id, recorded_at=corpus.NOW, updated_at=corpus.NOW, **spec.fields)


def ops_for(docs, user_id: str) -> list:
    b = Batch(None, "seed", user_id, now=corpus.NOW)  # the unit of work, store-less: its ops
    for doc in docs:
        b.add(doc, on_dead="allow")
    return b.ops


def db_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


# phase 1 ------------------------------------------------------------------------------------
def build(args, path: Path) -> None:
    want = args.users * args.per_user
    if path.exists() and not args.rebuild:
        store = EmbeddedStore(path, get_embedder(args.embedder))
        have = store._conn().execute("SELECT COUNT(*) FROM docs").fetchone()[0]
        store.close()
        if have == want:
            print(f"build: reusing {path} ({have} documents)")
            return
    for p in path.parent.glob(path.name + "*"):
        p.unlink()
    base = get_embedder(args.embedder)
    pool = corpus.make_pool(args.pool)
    vecs = pool_vectors(pool, base, path.parent)
    emb = PrimedEmbedder(base)
    store = EmbeddedStore(path, emb)
    t0 = time.perf_counter()
    for u in range(args.users):
        user = f"user{u:03d}"
        specs = corpus.user_docs(pool, u, args.per_user, corpus.NOW)
        for s in range(0, len(specs), BATCH):
            chunk = specs[s:s + BATCH]
            docs = [to_model(sp, user) for sp in chunk]
            emb.primed = {d.search_text(): doc_vector(sp, vecs) for d, sp in zip(docs, chunk, strict=False)}
            store.apply(ops_for(docs, user))
        if (u + 1) % 10 == 0:
            print(f"  build: {u + 1}/{args.users} users, {time.perf_counter() - t0:.0f} s", flush=True)
    store.close()
    dt = time.perf_counter() - t0
    print(f"build: {want} documents in {dt:.0f} s ({want / dt:.0f}/s with primed vectors), "
          f"model calls for {emb.misses} texts; file {db_size(path) / 2**20:.0f} MiB; "
          f"peak RSS {peak_mib():.0f} MiB")


# phase 2 ------------------------------------------------------------------------------------
def recall_phase(args, path: Path) -> dict:
    t0 = time.perf_counter()
    store = EmbeddedStore(path, get_embedder(args.embedder))
    svc = MemoryService(store, clock=fixed_clock(corpus.NOW))
    open_s = time.perf_counter() - t0
    qs = corpus.queries(args.queries, args.users)
    t0 = time.perf_counter()
    cold = []
    for u in range(args.users):  # warm-up: one query per user loads its dense matrix
        t = time.perf_counter()
        svc.recall(f"user{u:03d}", "warm up the caches for this user", purpose=Purpose.EVAL)
        cold.append((time.perf_counter() - t) * 1000)
    warm_s = time.perf_counter() - t0
    lat, cpu, emb_lat, n_hits = [], [], [], 0
    load_before = os.getloadavg()[0]
    for u, q in qs:
        t, c = time.perf_counter(), time.thread_time()
        res = svc.recall(f"user{u:03d}", q, config=DEFAULT, purpose=Purpose.EVAL)
        lat.append((time.perf_counter() - t) * 1000)
        # CPU time of this thread: what the query costs when the shared cores are busy elsewhere.
        cpu.append((time.thread_time() - c) * 1000)
        n_hits += len(res.hits)
    for _, q in qs[:50]:  # the query embedding alone, for the breakdown
        t = time.perf_counter()
        svc.embedder.embed([q])
        emb_lat.append((time.perf_counter() - t) * 1000)
    # Where a recall's CPU time goes: the same steps MemoryService.recall takes, one by one.
    parts: dict[str, list[float]] = {"embed": [], "bm25": [], "dense": [], "fuse": [],
                                     "legs_fusion_adjust": []}
    for u, q in qs[:150]:
        flt = RecallFilter(user_id=f"user{u:03d}", kinds=DEFAULT.kinds,
                           fact_states=DEFAULT.fact_states(), include_catalog=DEFAULT.include_catalog)
        c = time.thread_time()
        vec = svc.embedder.embed([q])[0]
        c, parts["embed"] = time.thread_time(), parts["embed"] + [(time.thread_time() - c) * 1000]
        bm25 = store.search_bm25(flt, q, DEFAULT.candidates)
        c, parts["bm25"] = time.thread_time(), parts["bm25"] + [(time.thread_time() - c) * 1000]
        dense = store.search_dense(flt, vec, DEFAULT.candidates)
        c, parts["dense"] = time.thread_time(), parts["dense"] + [(time.thread_time() - c) * 1000]
        fuse({"bm25": bm25, "dense": dense}, corpus.NOW, DEFAULT.ranking, limit=DEFAULT.k)
        parts["fuse"].append((time.thread_time() - c) * 1000)
        # Issue 17 target: the whole pipeline without the query embedding (time intent, both
        # legs, fusion, adjust), given the vector already computed.
        c = time.thread_time()
        retrieve(store, _Fixed(vec), f"user{u:03d}", q, DEFAULT, corpus.NOW)
        parts["legs_fusion_adjust"].append((time.thread_time() - c) * 1000)
    store.close()
    out = {"queries": len(lat), "p50_ms": pct(lat, 50), "p95_ms": pct(lat, 95),
           "p99_ms": pct(lat, 99), "mean_hits": n_hits / len(lat),
           "cpu_p50_ms": pct(cpu, 50), "cpu_p95_ms": pct(cpu, 95),
           "load_avg": (load_before + os.getloadavg()[0]) / 2,
           "embed_p50_ms": pct(emb_lat, 50), "cold_first_query_p50_ms": pct(cold, 50),
           "open_s": open_s, "warmup_s": warm_s, "peak_rss_mib": peak_mib(),
           "cpu_breakdown_p50_ms": {k: round(pct(v, 50), 2) for k, v in parts.items()}}
    return out


class _Fixed:
    """An embedder that returns one precomputed vector (to time recall without the model)."""

    def __init__(self, vec):
        self.vec, self.name, self.dims = vec, "fixed", vec.shape[0]

    def embed(self, texts):
        return self.vec[None, :]


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q))


# phase 3 ------------------------------------------------------------------------------------
def ingest_phase(args, workdir: Path) -> dict:
    path = workdir / "ingest.db"
    for p in workdir.glob("ingest.db*"):
        p.unlink()
    model = get_embedder(args.embedder)
    store = EmbeddedStore(path, model)
    svc = MemoryService(store, clock=fixed_clock(corpus.NOW))
    pool = corpus.make_pool(max(args.ingest_docs, 2000), seed=99)  # fresh text, never cached
    specs = corpus.user_docs(pool, 0, args.ingest_docs, corpus.NOW, seed=5)
    model.embed(["warm up the model once"])
    t_model = t_ingest = c_model = c_ingest = 0.0
    n = 0
    for s in range(0, len(specs), args.ingest_batch):
        chunk = specs[s:s + args.ingest_batch]
        user = f"ingest{(s // args.ingest_batch) % 10}"
        eps = [sp for sp in chunk if sp.kind == "episodic"]
        rest = [to_model(sp, user) for sp in chunk if sp.kind != "episodic"]
        t, c = time.perf_counter(), time.process_time()
        # The model's own time for exactly the calls the ingest below makes (two per batch).
        model.embed([sp.fields["text"] for sp in eps])
        model.embed([d.search_text() for d in rest])
        t_model += time.perf_counter() - t
        c_model += time.process_time() - c
        t, c = time.perf_counter(), time.process_time()
        # Episodes through the service's batch write; facts and playbooks as one apply batch
        # with their audit events (what consolidation and seeding do).
        svc.write_episodes(user, [(sp.fields["text"], sp.fields["timestamp"], None) for sp in eps],
                           actor="seed")
        store.apply(ops_for(rest, user))
        t_ingest += time.perf_counter() - t
        c_ingest += time.process_time() - c
        n += len(chunk)
    store.close()
    return {"docs": n, "batch": args.ingest_batch, "model_per_s": n / t_model,
            "ingest_per_s": n / t_ingest, "ratio": t_model / t_ingest,
            "overhead_pct": (t_ingest / t_model - 1) * 100, "cpu_ratio": c_model / c_ingest,
            "cpu_overhead_pct": (c_ingest / c_model - 1) * 100, "load_avg": os.getloadavg()[0]}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=100)
    ap.add_argument("--per-user", type=int, default=2000)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--pool", type=int, default=12_000, help="unique sentences embedded for the build")
    ap.add_argument("--ingest-docs", type=int, default=2000)
    ap.add_argument("--ingest-batch", type=int, default=250)
    ap.add_argument("--dir", default="/tmp/memdesk-bench")
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--skip", default="", help="comma list of phases to skip: build,recall,ingest")
    ap.add_argument("--recall-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    workdir = Path(args.dir)
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / f"embedded-{args.embedder}-{args.users}x{args.per_user}.db"
    if args.recall_only:
        print(json.dumps(recall_phase(args, path)))
        return
    skip = set(filter(None, args.skip.split(",")))
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, numpy {np.__version__}, OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}, load average {os.getloadavg()[0]:.1f}")
    if "build" not in skip:
        build(args, path)
    if "recall" not in skip:
        cmd = [sys.executable, __file__, "--recall-only", "--users", str(args.users),
               "--per-user", str(args.per_user), "--queries", str(args.queries),
               "--embedder", args.embedder, "--dir", args.dir]
        r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        print(f"recall: {r['queries']} queries over {args.users} users x {args.per_user}: "
              f"p50 {r['p50_ms']:.1f} ms, p95 {r['p95_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms "
              f"(targets 25 / 60); CPU time per query p50 {r['cpu_p50_ms']:.1f} ms, p95 "
              f"{r['cpu_p95_ms']:.1f} ms; load average {r['load_avg']:.1f}; "
              f"query embedding alone p50 {r['embed_p50_ms']:.1f} ms; "
              f"first query per user (cold matrix) p50 {r['cold_first_query_p50_ms']:.1f} ms; "
              f"open {r['open_s']:.2f} s; peak RSS {r['peak_rss_mib']:.0f} MiB")
        print("recall CPU breakdown p50 (ms): " + ", ".join(
            f"{k} {v}" for k, v in r["cpu_breakdown_p50_ms"].items()))
        print(f"file: {db_size(path) / 2**20:.0f} MiB for {args.users * args.per_user} documents")
    if "ingest" not in skip:
        r = ingest_phase(args, workdir)
        print(f"ingest: {r['docs']} fresh docs in batches of {r['batch']}: model alone "
              f"{r['model_per_s']:.0f}/s, ingest {r['ingest_per_s']:.0f}/s = {r['ratio'] * 100:.0f}% "
              f"of the model (store overhead {r['overhead_pct']:.0f}%; target <= 20%); by CPU time "
              f"{r['cpu_ratio'] * 100:.0f}% (overhead {r['cpu_overhead_pct']:.0f}%); "
              f"load average {r['load_avg']:.1f}")


if __name__ == "__main__":
    main()
