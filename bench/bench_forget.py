"""Forget and the contradicted-episode screen at scale on the embedded store (issue 11).

    nice -n 10 .venv/bin/python bench/bench_forget.py                    # 20 users x 2,500
    nice -n 10 .venv/bin/python bench/bench_forget.py --users 4 --per-user 500 --forgets 3

1. build: users x per-user episodes (each with its audit event) through MemoryService in batches,
   plus per user --facts facts citing episodes, half of them retracted (tombstoned). The
   deterministic hash embedder stands in for the model: forget and the screen never embed.
2. forget: --forgets times, one episode of the first user with --cascade (its derived fact goes
   too); the wall time of each phase: redaction (the user's audit events and tombstones), the
   delete batch, and compaction (FTS5 'optimize' over the whole store, WAL truncate).
3. screen: `contradicted_sources` for 160 candidate episode ids (two legs' windows), the lookup
   every agent recall adds; median of --lookups calls.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory.clock import utcnow
from memory.embeddings import get_embedder
from memory.redaction import Erasure, texts_of
from memory.service import MemoryService
from memory.stores.embedded import EmbeddedStore
from memory.unit_of_work import Batch


def build(svc: MemoryService, users: int, per_user: int, facts: int) -> None:
    for u in range(users):
        user = f"user{u:03d}"
        eps = []
        for start in range(0, per_user, 500):
            eps += svc.write_episodes(user, [((f"{user} note {i}: the harbour, the ferry and "
                                              f"the market on day {i}"), None, None)
                                             for i in range(start, min(per_user, start + 500))],
                                      actor="cli")
        for i in range(facts):
            fact = svc.write_fact(user, f"Fact {i} of {user} about ferries", actor="cli",
                                  source_episode_ids=[eps[i].id]).fact
            if i % 2:
                svc.retract(user, fact.id, actor="cli")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=20)
    ap.add_argument("--per-user", type=int, default=2500)
    ap.add_argument("--facts", type=int, default=100)
    ap.add_argument("--forgets", type=int, default=5)
    ap.add_argument("--lookups", type=int, default=200)
    args = ap.parse_args()
    print(f"python {platform.python_version()} on {os.cpu_count()} cpus")
    with tempfile.TemporaryDirectory() as tmp:
        store = EmbeddedStore(Path(tmp) / "s.db", get_embedder("hash"))
        svc = MemoryService(store)
        t0 = time.perf_counter()
        build(svc, args.users, args.per_user, args.facts)
        size = (Path(tmp) / "s.db").stat().st_size
        print(f"build: {args.users} users x {args.per_user} episodes (+{args.facts} facts each) "
              f"in {time.perf_counter() - t0:.1f} s; file {size / 2**20:.1f} MiB")
        user = "user000"
        phases: dict[str, list[float]] = {"redact": [], "delete": [], "compact": [], "total": []}
        episodes = svc.episodes(user)
        for n in range(args.forgets):
            ep = episodes[-1 - n]
            t = time.perf_counter()
            erasure = Erasure(user_id=user, ids=frozenset({ep.id}), texts=tuple(texts_of(ep)))
            store.redact(user, erasure)
            t1 = time.perf_counter()
            with Batch(store, "cli", user, now=utcnow()) as b:  # the unit of work's forget
                b.forget(ep)
            t2 = time.perf_counter()
            store.compact()
            t3 = time.perf_counter()
            for name, value in zip(phases, (t1 - t, t2 - t1, t3 - t2, t3 - t), strict=False):
                phases[name].append(value * 1000)
        source = svc.facts(user)[0].source_episode_ids[0]  # an episode with a derived fact
        t = time.perf_counter()
        res = svc.forget(user, source, cascade=True, actor="cli")
        whole = (time.perf_counter() - t) * 1000
        print("forget, median ms: " + ", ".join(f"{k} {statistics.median(v):.0f}"
                                                for k, v in phases.items()))
        print(f"forget --cascade through the service: {whole:.0f} ms ({len(res.forgotten)} "
              f"memories, {res.redacted_events} events redacted)")
        ids = [e.id for e in svc.episodes("user001")[:160]]
        times = []
        for _ in range(args.lookups):
            t = time.perf_counter()
            found = store.contradicted_sources("user001", ids)
            times.append((time.perf_counter() - t) * 1000)
        print(f"screen: contradicted_sources over 160 candidates, {len(found)} contradicted: "
              f"median {statistics.median(times):.2f} ms, p95 "
              f"{sorted(times)[int(0.95 * len(times))]:.2f} ms")
        store.close()


if __name__ == "__main__":
    main()
