"""Desk render times at scale (issue 13): Facts for a user with 5,000 facts and Review with 1,000
pending items, each rendered through app.py's shell with streamlit.testing's AppTest.

    nice -n 10 .venv/bin/python bench/bench_desk.py                  # builds once, then times
    nice -n 10 .venv/bin/python bench/bench_desk.py --runs 10 --embedder minilm

Builds an EmbeddedStore under --dir (reused when complete): user `big` with --facts facts
(active, superseded in chains of three, retracted, candidates; four types), user `queue` with
--pending candidates beside 200 active facts, and --others small users (so a sidebar that
re-counted every user on every rerun would show). All writes go through `store.apply` with
audit events; vectors come from the configured embedder (MiniLM by default, as deployed).

Times, after one warm-up session (imports, the service, the embedder): a new session opening
each page (`AppTest.from_file('app.py')`, switch to the page, run: the sidebar, user picker and
page together), then a rerun of the same session (what every click costs). Prints p50/max wall
milliseconds, the p50 CPU time of this process, and how often the sidebar's per-user counts
were read across the reruns.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from unittest.mock import patch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import review.queue  # noqa: F401 - pin the package before AppTest puts pages/ on sys.path
from memory.embeddings import get_embedder
from memory.models import Contradiction, Fact, FactState, FactType
from memory.stores.embedded import EmbeddedStore
from memory.ui import runtime as desk_runtime
from memory.unit_of_work import Batch

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
TYPES = list(FactType)
TOPICS = ["coffee", "cycling", "Lisbon", "the Lumio hub", "jazz", "allergies", "email",
          "a dog called Rex", "night shifts", "Spanish lessons", "the garden", "chess"]


def _fact_ops(facts: list[Fact]) -> list:
    ops: list = []
    for f in facts:
        b = Batch(None, "seed", f.user_id, now=f.recorded_at)
        b.add(f, on_dead="allow", at=f.recorded_at)
        ops += b.ops
    return ops


def big_user(n: int) -> list[Fact]:
    """n facts: every tenth a chain of three (superseded, superseded, active), some retracted and
    candidates, the rest active."""
    out: list[Fact] = []
    i = 0
    while len(out) < n:
        topic = TOPICS[i % len(TOPICS)]
        when = NOW - timedelta(days=900 - (i % 800))
        if i % 10 == 0 and len(out) + 3 <= n:
            a = Fact(user_id="big", text=f"Fact {i}: likes {topic} (v1)", fact_type=TYPES[i % 4],
                     recorded_at=when, valid_from=when)
            b = Fact(user_id="big", text=f"Fact {i}: likes {topic} a lot (v2)",
                     fact_type=TYPES[i % 4], recorded_at=when + timedelta(days=30),
                     valid_from=when + timedelta(days=30), supersedes=a.id,
                     contradiction=Contradiction.NATURAL)
            c = Fact(user_id="big", text=f"Fact {i}: no longer likes {topic} (v3)",
                     fact_type=TYPES[i % 4], recorded_at=when + timedelta(days=60),
                     valid_from=when + timedelta(days=60), supersedes=b.id,
                     contradiction=Contradiction.NATURAL)
            a = a.model_copy(update={"state": FactState.SUPERSEDED, "superseded_by": b.id,
                                     "superseded_at": b.recorded_at, "valid_to": b.valid_from})
            b = b.model_copy(update={"state": FactState.SUPERSEDED, "superseded_by": c.id,
                                     "superseded_at": c.recorded_at, "valid_to": c.valid_from})
            out += [a, b, c]
        else:
            state = (FactState.RETRACTED if i % 23 == 0 else FactState.CANDIDATE if i % 19 == 0
                     else FactState.ACTIVE)
            out.append(Fact(user_id="big", text=f"Fact {i}: {topic} matters, note {i % 97}",
                            fact_type=TYPES[i % 4], state=state, recorded_at=when,
                            superseded_at=when + timedelta(days=5)
                            if state == FactState.RETRACTED else None))
        i += 1
    return out


def queue_user(pending: int) -> list[Fact]:
    actives = [Fact(user_id="queue", text=f"Believed fact {i} about {TOPICS[i % 12]}",
                    fact_type=TYPES[i % 4], recorded_at=NOW - timedelta(days=300 - i))
               for i in range(200)]
    cands = []
    for i in range(pending):
        extra: dict = {}
        if i % 5 == 1:
            extra = {"supersedes": actives[i % 200].id, "contradiction": Contradiction.NATURAL}
        cands.append(Fact(user_id="queue", text=f"Proposed value {i} about {TOPICS[i % 12]}",
                          fact_type=TYPES[i % 4], state=FactState.CANDIDATE,
                          confidence=round(0.3 + (i % 7) * 0.1, 2), origin="consolidation",
                          recorded_at=NOW - timedelta(days=(i * 37) % 60, minutes=i), **extra))
    return actives + cands


def build(path: Path, facts: int, pending: int, others: int, embedder: str) -> None:
    marker = path.with_suffix(".complete")
    if marker.exists() and path.exists():
        return
    for p in (path, marker):
        p.unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    store = EmbeddedStore(path, get_embedder(embedder))
    t = time.perf_counter()
    big = big_user(facts)
    for start in range(0, len(big), 500):
        store.apply(_fact_ops(big[start:start + 500]))
    store.apply(_fact_ops(queue_user(pending)))
    for u in range(others):
        store.apply(_fact_ops([Fact(user_id=f"user{u:03d}", text=f"User {u} likes {t}",
                                    recorded_at=NOW) for t in TOPICS[:5]]))
    store.close()
    marker.write_text("ok")
    print(f"built {path} in {time.perf_counter() - t:.0f} s", flush=True)


_COMPONENTS = None


def session(page: str, user: str):
    """A new browser session on `page`. The server scans installed packages for components once
    at start; AppTest would rescan for every session (~1.4 s here), so the scan is shared."""
    global _COMPONENTS
    from streamlit.components.v2.component_manager import BidiComponentManager
    from streamlit.testing.v1 import AppTest

    if _COMPONENTS is None:
        _COMPONENTS = BidiComponentManager()
        _COMPONENTS.discover_and_register_components(start_file_watching=False)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at._bidi_component_manager = _COMPONENTS
    at.query_params["user"] = user
    at.session_state["operator_name"] = "bench"
    at.switch_page(page)
    return at


def measure(page: str, user: str, runs: int) -> dict:
    counts = {"n": 0}
    store = desk_runtime().service.store
    real = store.counts

    def counting(user_id: str) -> dict[str, dict[str, int]]:
        counts["n"] += 1
        return real(user_id)

    session(page, user).run()  # warm-up: imports, service, embedder, caches
    fresh, rerun, cpu = [], [], []
    for _ in range(runs):
        at = session(page, user)
        c, t = time.process_time(), time.perf_counter()
        at.run()
        fresh.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
        assert not at.exception, at.exception
        with patch.object(store, "counts", counting):  # the reruns: how often are counts read?
            t = time.perf_counter()
            at.run()
            rerun.append((time.perf_counter() - t) * 1000)
    return {"page": page, "fresh_p50": statistics.median(fresh), "fresh_max": max(fresh),
            "rerun_p50": statistics.median(rerun), "rerun_max": max(rerun),
            "cpu_p50": statistics.median(cpu), "counts_reads": counts["n"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default=str(ROOT / ".memdesk" / "bench-desk"))
    ap.add_argument("--facts", type=int, default=5000)
    ap.add_argument("--pending", type=int, default=1000)
    ap.add_argument("--others", type=int, default=50)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--embedder", default="minilm")
    args = ap.parse_args()
    path = Path(args.dir) / f"desk-{args.embedder}-{args.facts}-{args.pending}-{args.others}.db"
    build(path, args.facts, args.pending, args.others, args.embedder)
    os.environ.update(MEMDESK_STORE=f"embedded:{path}", MEMDESK_EMBEDDER=args.embedder,
                      MEMDESK_LLM="offline")
    desk_runtime.clear()
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}, load {os.getloadavg()[0]:.2f}, embedder {args.embedder}, "
          f"{args.facts} facts, {args.pending} pending, {args.others + 2} users, {args.runs} runs")
    rows = [measure("pages/facts.py", "big", args.runs),
            measure("pages/review.py", "queue", args.runs)]
    print("| page | new session p50 / max (ms) | rerun p50 / max (ms) | CPU p50 (ms) "
          "| per-user counts read in reruns |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['page']} | {r['fresh_p50']:.0f} / {r['fresh_max']:.0f} | "
              f"{r['rerun_p50']:.0f} / {r['rerun_max']:.0f} | {r['cpu_p50']:.0f} | "
              f"{r['counts_reads']} |")
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
