"""Elasticsearch store: requests per operation (offline) and recall latency (live cluster).

    .venv/bin/python bench/bench_es.py --count          # no cluster: requests and refreshes
    MEMDESK_ES_URL=http://elastic:changeme@127.0.0.1:9200 \\
        nice -n 10 .venv/bin/python bench/bench_es.py --users 10 --per-user 500 --queries 200

--count sends each operation through the real client with a recording transport node (the one
tests/es uses; responses are canned) and prints how many HTTP requests it makes and which
refresh each write asks for. The live mode builds the same synthetic corpus as
bench/bench_embedded.py (pool vectors cached under --dir) into indices with prefix
`memdesk-bench`, then times MemoryService.recall (Purpose.EVAL, default config, query
embedding included) on the rrf-retriever path when the licence allows it (without and with
`explain`, which only the recall debugger asks for), and on the client-side path, printing
p50/p95 for each.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import _corpus as corpus
from memory.clock import fixed_clock
from memory.embeddings import get_embedder
from memory.models import CatalogDoc, Episode, Fact
from memory.search_config import DEFAULT, WITH_CATALOG, Purpose
from memory.service import MemoryService
from memory.stores.elasticsearch import ElasticsearchStore
from memory.stores.elasticsearch.results import to_source


def _count_for(licence: str) -> tuple[int, list]:
    from tests.es.conftest import URL, Cluster, make_client, search_answer, source_hit

    emb = get_embedder("hash")
    fact = Fact(id="fact_b", user_id="u", text="Owns a Lumio Hub v2", recorded_at=corpus.NOW)
    fsrc = {k: v for k, v in to_source(fact, emb.embed([fact.text])[0]).items() if k != "vector"}
    cluster = Cluster(licence=licence)
    cluster.on("POST", r"/memdesk-(episodic|semantic).*/_search", lambda req: (200, search_answer(
        req, [source_hit("memdesk-semantic-v1", fsrc, 1.0)])))
    # Issue 17: the session read after an episode lands answers two earlier turns of its
    # session, so the context bulk (only turns whose context changes) is counted too.
    earlier = [Episode(id=f"ep_{i}", user_id="u", text=t, session_id="s1", recorded_at=corpus.NOW,
                       timestamp=corpus.NOW - timedelta(minutes=5 - i))
               for i, t in enumerate(("The hub dropped off the wifi", "I rebooted the router"))]
    turns = [{**e.model_dump(mode="json"), "context": o.text}
             for e, o in zip(earlier, earlier[::-1], strict=True)]
    cluster.on("POST", "/memdesk-episodic/_search", lambda req: (200, search_answer(
        req, [source_hit("memdesk-episodic-v2", t, 1.0) for t in turns])))
    cluster.on("GET", "/memdesk-semantic/_doc/fact_b", (200, {
        "_index": "memdesk-semantic-v1", "_id": "fact_b", "_seq_no": 3, "_primary_term": 1,
        "found": True, "_source": fsrc}))
    cluster.on("POST", "/_mget", lambda req: (200, {"docs": [
        {"_index": d["_index"], "_id": d["_id"], "_seq_no": 3, "_primary_term": 1,
         "found": True, "_source": fsrc} if d["_id"] == "fact_b"
        else {"_index": d["_index"], "_id": d["_id"], "found": False} for d in req.body["docs"]]}))
    store = ElasticsearchStore(URL, emb, client=make_client(cluster))
    opened = len(cluster.requests)
    svc = MemoryService(store, clock=fixed_clock(corpus.NOW))
    operations = [
        ("chat turn: recall (agent, catalog) + write episode",
         lambda: (svc.recall("u", "my hub is offline", config=WITH_CATALOG),
                  svc.write_episode("u", "My hub is offline again", session_id="s1"))),
        ("next chat turn (the previous episode unrefreshed)",
         lambda: (svc.recall("u", "my hub is offline", config=WITH_CATALOG),
                  svc.write_episode("u", "It is back now", session_id="s1"))),
        ("write fact (tombstone check + insert)", lambda: svc.write_fact("u", "Owns a kettle")),
        ("supersede a fact", lambda: svc.write_fact("u", "Owns a Lumio Hub v3",
                                                    supersedes_id="fact_b")),
        ("retract a fact", lambda: svc.retract("u", "fact_b")),
        ("add catalog doc", lambda: svc.add_catalog([CatalogDoc(title="Guide", text="x")])),
    ]
    rows = []
    for label, fn in operations:
        cluster.requests.clear()
        fn()
        kinds = Counter(f"{r.method} {r.path.rsplit('/', 1)[-1] or '/'}" for r in cluster.requests)
        refresh = [r.params.get("refresh", "-") for r in cluster.requests if r.path == "/_bulk"]
        rows.append((licence, label, len(cluster.requests), dict(kinds), refresh))
    store.close()
    return opened, rows


def count_mode() -> None:
    rows = []
    for licence in ("trial", "basic"):
        opened, more = _count_for(licence)
        rows += more
    print(f"start-up: {opened} requests (info, licence, one mapping check or create per index, "
          "the tombstone key version: get, then refresh, scan and create on a new store)")
    print(f"{'licence':<8}{'operation':<55}{'requests':>9}  bulk refresh  breakdown")
    for licence, label, n, kinds, refresh in rows:
        print(f"{licence:<8}{label:<55}{n:>9}  {','.join(refresh) or '-':<12}  {kinds}")


def live_mode(args) -> None:
    from bench.bench_embedded import (
        PrimedEmbedder,
        doc_vector,
        ops_for,
        pct,
        pool_vectors,
        to_model,
    )

    url = os.environ.get("MEMDESK_ES_URL")
    if not url:
        print("MEMDESK_ES_URL is not set: no cluster to measure (README: Running Elasticsearch); "
              "run with --count for the offline request accounting")
        raise SystemExit(2)
    base = get_embedder(args.embedder)
    emb = PrimedEmbedder(base)
    store = ElasticsearchStore(url, emb, prefix="memdesk-bench")
    want = args.users * args.per_user
    have = sum(sum(v.values()) for u in range(args.users) for v in store.counts(f"user{u:03d}").values())
    if have != want or args.rebuild:
        store.drop_indices()
        store = ElasticsearchStore(url, emb, prefix="memdesk-bench")
        pool = corpus.make_pool(args.pool)
        vecs = pool_vectors(pool, base, Path(args.dir))
        t0 = time.perf_counter()
        for u in range(args.users):
            user = f"user{u:03d}"
            specs = corpus.user_docs(pool, u, args.per_user, corpus.NOW)
            for s in range(0, len(specs), 500):
                chunk = specs[s:s + 500]
                docs = [to_model(sp, user) for sp in chunk]
                emb.primed = {d.search_text(): doc_vector(sp, vecs) for d, sp in zip(docs, chunk, strict=False)}
                store.apply(ops_for(docs, user))
        store.refresh()
        print(f"build: {want} documents in {time.perf_counter() - t0:.0f} s")
    svc = MemoryService(store, clock=fixed_clock(corpus.NOW))
    qs = corpus.queries(args.queries, args.users)
    # (rrf path?, explain?) — explain only matters on the rrf path (issue 16, invariant 21)
    paths = [(True, False), (True, True), (False, False)] if store.rrf_enabled else [(False, False)]
    for rrf_on, explain in paths:
        store.rrf_enabled = rrf_on
        for u in range(min(args.users, 10)):  # warm-up
            svc.recall(f"user{u:03d}", "warm up", purpose=Purpose.EVAL)
        lat = []
        for u, q in qs:
            t = time.perf_counter()
            svc.recall(f"user{u:03d}", q, config=DEFAULT, purpose=Purpose.EVAL, explain=explain)
            lat.append((time.perf_counter() - t) * 1000)
        print(f"recall [{store.recall_path}{', explain' if explain else ''}] server "
              f"{store.server_version} licence {store.licence}: {len(lat)} queries p50 "
              f"{pct(lat, 50):.1f} ms, p95 {pct(lat, 95):.1f} ms ({args.users} users x {args.per_user})")
    print(f"machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}")
    store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", action="store_true", help="offline request accounting")
    ap.add_argument("--users", type=int, default=10)
    ap.add_argument("--per-user", type=int, default=500)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--pool", type=int, default=12_000)
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--dir", default="/tmp/memdesk-bench")
    ap.add_argument("--rebuild", action="store_true")
    args = ap.parse_args()
    count_mode() if args.count else live_mode(args)


if __name__ == "__main__":
    main()
