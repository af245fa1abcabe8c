"""Review queue listing at scale: 10,000 pending items across 100 users, with filters.

    nice -n 10 .venv/bin/python bench/bench_review.py                 # 100 users x 100 pending
    nice -n 10 .venv/bin/python bench/bench_review.py --users 10 --pending 50 --runs 20

Builds an EmbeddedStore under --dir (reused when complete; --rebuild forces a new one) holding,
per user, --pending candidate facts (a mix of plain, low-confidence, contradiction and
previously-rejected items over four fact types, proposed over the last 60 days) beside
--background active facts, all written through `store.apply` with audit events. The hashing
embedder is used because listing never embeds; vectors only affect the build time.

Then times `review.queue.list_queue` (the same call the CLI and the desk make) for several
filters, --runs times each after one warm-up, and prints p50/p95 wall-clock milliseconds and
the p50 CPU time of this process (the machine is shared: CPU time shows the cost without the
neighbours' load), plus the load average. For contrast it times the two fallbacks: the pure
store's paged summary query alone, and decoding every full Fact instead of listing fields.
Since issue 10 the queue's classification is review's (`review.queue.select`, pure) over the
store's generic fact-summary query: the listing is that query plus `select`.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory.clock import fixed_clock
from memory.embeddings import get_embedder
from memory.models import Contradiction, Fact, FactState, FactType
from memory.service import MemoryService
from memory.stores.base import FactPage, FactQuery, FactSummary
from memory.stores.embedded import EmbeddedStore
from memory.unit_of_work import Batch
from review.models import ItemKind, QueueFilter, QueueListing
from review.queue import list_queue, select

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
TYPES = list(FactType)
THRESHOLD = 0.7


def build(path: Path, users: int, pending: int, background: int) -> EmbeddedStore:
    store = EmbeddedStore(path, get_embedder("hash"))
    for u in range(users):
        user = f"user{u:03d}"
        b = Batch(store, "seed", user, now=NOW)
        actives = []
        for i in range(background):
            f = Fact(user_id=user, text=f"{user} background fact {i} about topic {i % 17}",
                     fact_type=TYPES[i % 4], recorded_at=NOW - timedelta(days=200 - i % 100))
            actives.append(f)
            b.add(f, on_dead="allow", at=f.recorded_at)
        for i in range(pending):
            extra: dict = {}
            if i % 5 == 1 and actives:
                extra = {"supersedes": actives[i % len(actives)].id,
                         "contradiction": Contradiction.NATURAL}
            if i % 11 == 3:
                extra["flags"] = ["previously_rejected"]
            f = Fact(user_id=user, text=f"{user} proposes value {i} for topic {i % 23}",
                     fact_type=TYPES[i % 4], state=FactState.CANDIDATE,
                     confidence=round(0.3 + (i % 7) * 0.1, 2), origin="consolidation",
                     plan_id=f"plan_{user}_{i // 10}",
                     recorded_at=NOW - timedelta(days=(i * 37) % 60, minutes=i), **extra)
            b.add(f, on_dead="allow", action="propose_fact", at=f.recorded_at)
        b.commit()
    return store


T = TypeVar("T")


def timed(fn: Callable[[], T], runs: int) -> tuple[float, float, float, T]:
    out = fn()  # warm-up (page cache, statement cache)
    samples: list[float] = []
    cpu: list[float] = []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        samples.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    samples.sort()
    p95 = samples[max(0, int(len(samples) * 0.95) - 1)]
    return statistics.median(samples), p95, statistics.median(cpu), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=100)
    ap.add_argument("--pending", type=int, default=100, help="pending items per user")
    ap.add_argument("--background", type=int, default=100, help="active facts per user")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--dir", default="/tmp/memdesk-bench-review")
    ap.add_argument("--rebuild", action="store_true")
    args = ap.parse_args()

    path = Path(args.dir) / f"review-{args.users}x{args.pending}x{args.background}.db"
    users = [f"user{u:03d}" for u in range(args.users)]
    if args.rebuild and path.exists():
        for p in path.parent.glob(path.name + "*"):
            p.unlink()
    t0 = time.perf_counter()
    if path.exists():
        store = EmbeddedStore(path, get_embedder("hash"))
        built = "reused"
    else:
        store = build(path, args.users, args.pending, args.background)
        built = f"built in {time.perf_counter() - t0:.1f} s"
    service = MemoryService(store, clock=fixed_clock(NOW))
    print(f"store {path} ({built}); {args.users} users x {args.pending} pending "
          f"+ {args.background} active; python {platform.python_version()}")

    ten = users[:10]
    cases = {
        "all users, no filter (first page of 200)": QueueFilter(users=users),
        "all users, no filter, all items materialised": QueueFilter(users=users, limit=None),
        "all users, kind=contradiction": QueueFilter(users=users, kinds={ItemKind.CONTRADICTION}),
        "all users, preference, conf 0.5-0.9, <=30 days": QueueFilter(
            users=users, fact_types={FactType.PREFERENCE}, min_confidence=0.5,
            max_confidence=0.9, max_age=timedelta(days=30)),
        "all users, newest first, limit 50": QueueFilter(users=users, newest_first=True, limit=50),
        "10 users, low_confidence": QueueFilter(users=ten, kinds={ItemKind.LOW_CONFIDENCE}),
        "1 user, no filter": QueueFilter(users=users[:1]),
    }
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'case':<50}{'items':>7}{'p50 ms':>9}{'p95 ms':>9}{'cpu p50':>9}")
    for name, flt in cases.items():
        p50, p95, cpu, listing = timed(partial(list_queue, service, flt, threshold=THRESHOLD),
                                       args.runs)
        print(f"{name:<50}{listing.total:>7}{p50:>9.1f}{p95:>9.1f}{cpu:>9.1f}")
    slow = max(3, args.runs // 5)
    everyone = cases["all users, no filter (first page of 200)"]
    def decoded(users: list[str]) -> list[FactSummary]:
        out = [FactSummary(f.id, f.user_id, f.rev, f.state.value, f.text, f.fact_type.value,
                           f.confidence, f.recorded_at, f.supersedes,
                           f.contradiction.value if f.contradiction else None, tuple(f.flags),
                           f.plan_id, f.origin)
               for u in users for f in store.list_facts(u, states={FactState.CANDIDATE})]
        return sorted(out, key=lambda f: (f.recorded_at, f.id))

    fallbacks: dict[str, Callable[[], FactPage | QueueListing]] = {
        "(contrast) one user's candidates in SQL, paged 50": lambda: store.fact_summaries(
            FactQuery(user_ids=users[:1], states=frozenset({FactState.CANDIDATE}), limit=50)),
        "(contrast) decode every Fact + select, all users": lambda: select(
            decoded(users), everyone, NOW, THRESHOLD),
    }
    for name, fn in fallbacks.items():
        p50, p95, cpu, found = timed(fn, slow)
        print(f"{name:<50}{found.total:>7}{p50:>9.1f}{p95:>9.1f}{cpu:>9.1f}")
    print(f"load average {os.getloadavg()[0]:.1f}")
    store.close()


if __name__ == "__main__":
    main()
