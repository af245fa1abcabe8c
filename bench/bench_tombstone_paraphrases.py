"""Dead under any name, measured (issue 30, item 2; invariant 461).

    python bench/bench_tombstone_paraphrases.py                    # held-out table, MiniLM
    python bench/bench_tombstone_paraphrases.py --embedder hash --table tests/data/tombstone_paraphrases_dev.jsonl

For every pair of the table, through the real write path on a real embedded store: a fresh user
writes the dead fact, retracts it (`svc.retract`, a tombstone), then writes the new text
(`svc.write_fact`). The outcome is `refused` (TombstoneError), `held` (a candidate flagged
`possibly_restates:<tombstone>`) or `active`. Prints, for restatements: how many became active
(target 0); for different values: the share refused (target <= 5%) and held (target <= 20%);
and lists every miss.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory.embeddings import get_embedder
from memory.errors import TombstoneError
from memory.models import FactState
from memory.service import MemoryService
from memory.stores import open_store

ROOT = Path(__file__).resolve().parents[1]


def outcome(svc: MemoryService, user: str, dead: str, new: str) -> tuple[str, str]:
    fact = svc.write_fact(user, dead, actor="cli").fact
    svc.retract(user, fact.id, actor="cli")
    try:
        res = svc.write_fact(user, new, actor="cli")
    except TombstoneError as exc:
        return "refused", str(exc)
    if res.fact.state == FactState.ACTIVE:
        return "active", ""
    return "held", res.held.reason if res.held else ",".join(res.fact.flags)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", default=str(ROOT / "tests/data/tombstone_paraphrases_heldout.jsonl"))
    ap.add_argument("--embedder", default="minilm", choices=["minilm", "static", "hash"])
    ap.add_argument("--quiet", action="store_true", help="figures only, no list of misses")
    args = ap.parse_args()
    rows = [json.loads(line) for line in Path(args.table).read_text(encoding="utf-8").splitlines()
            if line.strip()]
    counts: dict[str, Counter] = {"restates": Counter(), "different": Counter()}
    misses: list[str] = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(f"embedded:{Path(tmp) / 'bench.db'}", get_embedder(args.embedder))
        svc = MemoryService(store)
        for n, row in enumerate(rows):
            got, why = outcome(svc, f"u{n}", row["dead"], row["new"])
            counts[row["expected"]][got] += 1
            bad = (got == "active") if row["expected"] == "restates" else (got != "active")
            if bad:
                misses.append(f"  [{row['expected']:9} -> {got:7}] {row['dead']!r} / "
                              f"{row['new']!r}  {why[:110]}")
        store.close()
    r, d = counts["restates"], counts["different"]
    nr, nd = sum(r.values()), sum(d.values())
    print(f"table: {Path(args.table).name} ({len(rows)} pairs: {nr} restatements, "
          f"{nd} different), embedder {args.embedder}, {time.perf_counter() - t0:.1f}s")
    print(f"restatements: active {r['active']}/{nr} (target 0), held {r['held']}, "
          f"refused {r['refused']}")
    print(f"different:    refused {d['refused']}/{nd} = {d['refused'] / max(nd, 1):.1%} "
          f"(target <= 5%), held {d['held']}/{nd} = {d['held'] / max(nd, 1):.1%} "
          f"(target <= 20%), active {d['active']}")
    if misses and not args.quiet:
        print("misses:")
        print("\n".join(misses))


if __name__ == "__main__":
    main()
