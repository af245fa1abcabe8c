"""Consolidation speed (issue 5): plan for one user with 200 new episodes and 2,000 facts with
the OfflineLLM (target p50 <= 2 s), and apply of a 50-operation plan (target <= 1 s), on the
embedded store with the default MiniLM embedder.

    nice -n 10 .venv/bin/python bench/bench_consolidation.py [--embedder minilm] [--runs 5]

Planning is read-only, so it is timed repeatedly on one store. Apply is timed on a 50-op plan,
then undone (from the audit log) and applied again: same plan, same ids, same work each run.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory.consolidation.apply import apply_plan, undo_plan
from memory.consolidation.planner import make_plan
from memory.embeddings import get_embedder
from memory.llm.offline import OfflineLLM
from memory.policy import ReviewPolicy
from memory.service import MemoryService
from memory.stores import open_store

T0 = datetime(2025, 1, 1, tzinfo=UTC)
CITIES = ["Bristol", "Leeds", "Porto", "Lisbon", "Berlin", "Oslo", "Dublin", "Austin", "Kyoto", "Accra", "Galway", "Krakow"]
THINGS = ["router", "e-bike", "kettle", "camera", "printer", "drone", "tablet", "guitar", "thermostat", "headphones"]
FOODS = ["peanuts", "shellfish", "gluten", "dairy", "sesame", "mango", "kiwi", "soy", "celery", "mustard"]
HOBBIES = ["chess", "pottery", "climbing", "rowing", "sketching", "surfing", "yoga", "baking", "tennis", "origami"]

EPISODES = [
    "We left {c1}, in {c2} now", "I upgraded to a Lumio {t} v{n}", "I'm allergic to {f}",
    "I love {h}", "I prefer email over phone", "since March 2024 I work at Firm{n}",
    "my {t} keeps dropping", "that worked, thanks", "still broken after the reset",
    "Can you remind me about the {t} warranty?",
    ("what fixed it was unplugging the {t}, then holding reset for 10 seconds"), "I never lived in {c1}", "I have a {t} from 20{n}",
    "I don't like {f} any more", "My name is Sam {c2}", "the weather in {c2} is awful today",
]
FACTS = ["Visited {c} in 20{n}", "Owns a {t} model {n}", "Likes {h} on weekends",
         "Mentioned {f} recipe {n}", "Has a friend in {c} called P{n}", "Bought {t} accessory {n}"]


def seed(svc: MemoryService, user: str, n_facts: int, n_eps: int, rng: random.Random) -> None:
    with svc.batch("seed", user) as b:
        for i in range(n_facts):
            text = rng.choice(FACTS).format(c=rng.choice(CITIES), t=rng.choice(THINGS), n=i,
                                            h=rng.choice(HOBBIES), f=rng.choice(FOODS))
            b.add(svc.build_fact(user, text, origin="seed"), on_dead="allow")
        b.add(svc.build_fact(user, "Lives in Bristol", fact_type="identity"), on_dead="allow")
    svc.write_playbook(user, "Reset the router", "router keeps dropping", ["Unplug", "Re-pair"],
                       actor="seed")
    items = []
    for i in range(n_eps):
        text = rng.choice(EPISODES).format(c1=rng.choice(CITIES), c2=rng.choice(CITIES),
                                           t=rng.choice(THINGS), n=i % 90 + 10,
                                           f=rng.choice(FOODS), h=rng.choice(HOBBIES))
        items.append((text, T0 + timedelta(minutes=i), f"s{i // 4}"))
    svc.write_episodes(user, items, actor="seed")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--facts", type=int, default=2000)
    ap.add_argument("--episodes", type=int, default=200)
    args = ap.parse_args()
    rng = random.Random(7)
    llm = OfflineLLM()
    tmp = Path(tempfile.mkdtemp(prefix="bench-consolidation-"))
    embedder = get_embedder(args.embedder)
    svc = MemoryService(open_store(f"embedded:{tmp / 'plan.db'}", embedder))
    t = time.perf_counter()
    seed(svc, "bench", args.facts, args.episodes, rng)
    print(f"seeded {args.facts} facts + {args.episodes} episodes in {time.perf_counter() - t:.1f} s "
          f"({embedder.name})")
    policy = ReviewPolicy(max_retire_per_run=50)
    times: list[float] = []
    cpu: list[float] = []
    for _ in range(max(1, args.runs)):
        t, c = time.perf_counter(), time.process_time()
        plan = make_plan(svc, "bench", llm, policy=policy)
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    kinds: dict[str, int] = {}
    for op in plan.ops:
        kinds[op.kind.value] = kinds.get(op.kind.value, 0) + 1
    print(f"plan: {len(plan.episode_ids)} new episodes, {args.facts} facts -> {len(plan.ops)} ops "
          f"{kinds}, {len(plan.gates)} gate decisions")
    print(f"plan time over {args.runs} runs: p50 {statistics.median(times):.3f} s, "
          f"min {min(times):.3f} s, max {max(times):.3f} s (CPU p50 {statistics.median(cpu):.3f} s)")

    # apply: a plan of exactly 50 actionable ops (new facts, some superseding) on a fresh user
    svc2 = MemoryService(open_store(f"embedded:{tmp / 'apply.db'}", embedder))
    olds = [svc2.write_fact("ap", f"Owns a Lumio {t} v1", actor="seed").fact for t in THINGS]
    texts = [f"I upgraded to a Lumio {t} v2" for t in THINGS]
    texts += [f"I love playing {h} in {c}" for h in HOBBIES for c in CITIES[:4]]
    svc2.write_episodes("ap", [(x, T0 + timedelta(minutes=i), None) for i, x in enumerate(texts)])
    atimes, cpu = [], []
    for _ in range(args.runs):
        # re-plan each time: an undo restores the retired facts at a new revision
        plan = make_plan(svc2, "ap", llm, policy=policy)
        n_ops = len(plan.actionable())
        t, c = time.perf_counter(), time.process_time()
        apply_plan(svc2, plan)
        atimes.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        undo_plan(svc2, "ap", plan.id, actor="cli")
    print(f"apply of a {n_ops}-op plan ({len(olds)} supersessions) over {args.runs} runs: "
          f"p50 {statistics.median(atimes):.3f} s, min {min(atimes):.3f} s, max {max(atimes):.3f} s "
          f"(CPU p50 {statistics.median(cpu):.3f} s)")
    print("load average (1/5/15 min) at the end: " + " ".join(f"{x:.1f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
