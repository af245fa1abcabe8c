"""Data-subject export → erase → import for each demo persona on the embedded store (issue 14).

    python bench/bench_export.py [--embedder minilm|static|hash] [--repeat 3]

Seeds the three personas and the catalog into a throwaway store, then per persona: export
(JSON and Markdown; sizes), erase, import (which re-embeds every memory with the store's
embedder), and checks the facts came back identical. Prints a Markdown table (median of
--repeat runs per step); the figures in docs/benchmarks.md come from this script.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory.embeddings import get_embedder
from memory.export import export_user, import_user, render_markdown, to_json
from memory.forgetting import erase_user
from memory.personas.loader import seed
from memory.service import MemoryService
from memory.stores import open_store

PERSONAS = ["maya-smart-home", "dev-ravi", "lena-travels"]


def run(embedder_name: str, repeat: int) -> list[dict]:
    embedder = get_embedder(embedder_name)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(f"embedded:{Path(tmp) / 'bench.db'}", embedder)
        seed(store)
        svc = MemoryService(store)
        for user in PERSONAS:
            times: dict[str, list[float]] = {"export": [], "markdown": [], "erase": [],
                                             "import": []}
            for _ in range(repeat):
                before = sorted(f.model_dump_json() for f in store.list_facts(user))
                t = time.perf_counter()
                exp = export_user(svc, user, actor="cli")
                raw = to_json(exp)
                times["export"].append(time.perf_counter() - t)
                t = time.perf_counter()
                md = render_markdown(exp)
                times["markdown"].append(time.perf_counter() - t)
                t = time.perf_counter()
                erase_user(svc, user, actor="cli")
                times["erase"].append(time.perf_counter() - t)
                t = time.perf_counter()
                import_user(svc, exp, actor="cli")
                times["import"].append(time.perf_counter() - t)
                assert sorted(f.model_dump_json() for f in store.list_facts(user)) == before
            c = exp.counts()
            rows.append({"user": user, "records": c["facts"] + c["episodes"] + c["playbooks"],
                         "audit": c["audit_events"], "json_kb": len(raw.encode()) / 1024,
                         "md_kb": len(md.encode()) / 1024,
                         **{k: statistics.median(v) * 1000 for k, v in times.items()}})
        store.close()
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--embedder", default="minilm", choices=["minilm", "static", "hash"])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rows = run(args.embedder, args.repeat)
    print(f"embedder {args.embedder}, median of {args.repeat}\n")
    print("| persona | memories | audit events | JSON KiB | Markdown KiB | export ms | "
          "Markdown ms | erase ms | import ms |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['user']} | {r['records']} | {r['audit']} | {r['json_kb']:.0f} | "
              f"{r['md_kb']:.0f} | {r['export']:.0f} | {r['markdown']:.0f} | {r['erase']:.0f} | "
              f"{r['import']:.0f} |")


if __name__ == "__main__":
    main()
