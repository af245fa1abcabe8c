"""Tombstone check per write at scale: one user with 10,000 tombstones (issue 11, invariant 63).

    nice -n 10 .venv/bin/python bench/bench_tombstones.py                  # 10,000 tombstones
    nice -n 10 .venv/bin/python bench/bench_tombstones.py --tombstones 1000 --runs 100

Builds an EmbeddedStore under --dir (reused when complete; --rebuild forces a new one) where one
user has --tombstones retracted values over a dozen slots and free texts (invented names, so
values rarely repeat), written with `store.apply` in batches. The hashing embedder builds it
(vectors only matter to the similarity band's matrix product).

Then times `memory.tombstones.check` -- what every write path calls: the canonical-key and
slot-term lookups, the vector matrix product, the verdict -- for --runs probe texts (a third
restatements of stored values, a third doubtful, a third new values), with the probe's vector
precomputed (the write embeds its text anyway; `--embed` adds the embedding to the timing).
Prints p50/p95 wall-clock milliseconds, the p50 CPU time of this process (the machine is shared),
the cold first check (the per-user matrix is built), the verdict mix, and, for contrast, the
scan the check replaced (every tombstone decoded and compared).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory.clock import utcnow
from memory.embeddings import get_embedder
from memory.models import Tombstone, TombstoneKind
from memory.stores.embedded import EmbeddedStore
from memory.text import normalise
from memory.tombstones import check
from memory.unit_of_work import Batch
from memory.values import judge_pair

USER = "bench-user"
TEMPLATES = ["Lives in {w}", "Works at {W} Ltd", "Owns a {W} Hub v{n}", "Allergic to {w}",
             "Likes {w} music", "Has {n} {w}s", "Her manager is {W}", "Birthday is {d} March",
             "Is learning {W}", "Plays {w} on Sundays", "Drinks {n} cups of {w} a day",
             "Favourite colour is {w}"]
SYLLABLES = ["ka", "lo", "mi", "ra", "to", "ve", "su", "na", "pe", "di", "zo", "bu", "ri", "fa"]


def word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))


def text_of(rng: random.Random) -> str:
    t = rng.choice(TEMPLATES)
    w = word(rng)
    return t.format(w=w, W=w.capitalize(), n=rng.randint(1, 9), d=rng.randint(1, 28))


def build(path: Path, n: int, rebuild: bool) -> tuple[EmbeddedStore, list[str]]:
    if rebuild and path.exists():
        for p in path.parent.glob(path.name + "*"):
            p.unlink()
    store = EmbeddedStore(path, get_embedder("hash"))
    have = [t.text for t in store.list_tombstones(USER)]
    if len(have) >= n:
        return store, have
    rng = random.Random(11)
    texts = [text_of(rng) for _ in range(n)]
    for i in range(0, n, 500):
        b = Batch(store, "cli", USER, now=utcnow())  # history restored as it is: no new events
        for t in texts[i:i + 500]:
            b.restore(Tombstone(user_id=USER, text=t, normalized=normalise(t),
                                kind=TombstoneKind.RETRACTED, actor="cli"))
        b.commit()
    return store, texts


def probes(stored: list[str], runs: int) -> list[str]:
    rng = random.Random(7)
    out = []
    for i in range(runs):
        base = rng.choice(stored)
        if i % 3 == 0:  # restatement: another wording of a stored value
            out.append(base.replace("Lives in", "Based in").replace("Works at", "Employed by")
                       .replace("Owns a", "Has a").upper())
        elif i % 3 == 1:  # doubtful: the stored value with more to it
            out.append(base + ", " + word(rng).capitalize())
        else:  # a new value
            out.append(text_of(rng))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tombstones", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--dir", default="/tmp/memdesk-bench-tombstones")
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--embed", action="store_true", help="include embedding the probe text")
    args = ap.parse_args()
    path = Path(args.dir) / f"tombstones-{args.tombstones}.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    store, stored = build(path, args.tombstones, args.rebuild)
    print(f"store: {path} ({len(stored)} tombstones for one user, built/opened in "
          f"{time.perf_counter() - t0:.1f}s)")
    store.close()
    store = EmbeddedStore(path, get_embedder("hash"))  # a fresh process-like open
    emb = store.embedder
    texts = probes(stored, args.runs)
    vectors = emb.embed(texts)
    t0 = time.perf_counter()
    check(store, emb, USER, texts[0], threshold=0.85, vector=vectors[0])
    cold = (time.perf_counter() - t0) * 1000
    wall: list[float] = []
    cpu: list[float] = []
    verdicts: Counter[str] = Counter()
    for text, vec in zip(texts, vectors, strict=False):
        w0, c0 = time.perf_counter(), time.process_time()
        v = check(store, emb, USER, text, threshold=0.85, vector=None if args.embed else vec)
        cpu.append((time.process_time() - c0) * 1000)
        wall.append((time.perf_counter() - w0) * 1000)
        verdicts[v.decision.value] += 1
    wall.sort()
    p95 = wall[int(0.95 * (len(wall) - 1))]
    print(f"check per write: p50 {statistics.median(wall):.2f} ms, p95 {p95:.2f} ms, "
          f"p50 CPU {statistics.median(cpu):.2f} ms ({len(wall)} writes"
          f"{', embedding included' if args.embed else ''}); cold first check {cold:.1f} ms")
    print(f"verdicts: {dict(verdicts)}")
    # the scan this replaced: decode every tombstone, compare each with the text
    w0 = time.perf_counter()
    scans = 5
    for text in texts[:scans]:
        for t in store.list_tombstones(USER):
            judge_pair(t.text, text, None, 0.85)
    print(f"for contrast, decode-and-compare scan: {(time.perf_counter() - w0) * 1000 / scans:.0f} "
          f"ms per write")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}, load {os.getloadavg()[0]:.2f}")
    store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
