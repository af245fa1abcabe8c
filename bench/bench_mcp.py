"""Recall over MCP (streamable HTTP, loopback) against the same recall in-process (issue 15).

    nice -n 10 .venv/bin/python bench/bench_mcp.py                       # MiniLM, 200 queries
    nice -n 10 .venv/bin/python bench/bench_mcp.py --embedder static --queries 300

1. build (reused when complete): --users users x --per-user memories (episodes, facts in every
   state, playbooks; bench/_corpus.py) loaded into an embedded store under --dir through the
   unit of work's `restore`, each document embedded by the configured model.
2. serve: `memdesk mcp serve --transport http --port 0` as a subprocess on 127.0.0.1 with the
   same store, and a token for the first user (`memory.tokens.create_token`).
3. measure, one query at a time (concurrency 1), after --warmup untimed queries of each kind:
   for each query, the in-process recall (`memory.tools.execute(ctx, "recall_memory", ...)`,
   the very code the MCP handler runs, and `MemoryService.recall` alone) and the same call over
   MCP with the SDK client (legacy session mode and the 2026 stateless mode), in alternating
   order so both see the same load. Bounded: --queries per kind.

The target (issue 15): MCP p50 <= 2x in-process p50.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import _corpus as corpus
from memory.embeddings import get_embedder
from memory.models import Episode, Fact, Playbook
from memory.search_config import Purpose, RecallConfig
from memory.service import MemoryService
from memory.stores.embedded import EmbeddedStore
from memory.tokens import create_token
from memory.tools import ToolContext, execute
from memory.unit_of_work import Batch

ROOT = Path(__file__).resolve().parents[1]
MODELS = {"episodic": Episode, "semantic": Fact, "procedural": Playbook}


def build(path: Path, embedder, users: int, per_user: int) -> None:
    marker = path.with_suffix(".complete")
    if marker.exists():
        return
    for p in path.parent.glob(path.name + "*"):
        p.unlink()
    store = EmbeddedStore(path, embedder)
    pool = corpus.make_pool(size=max(2_000, users * per_user), seed=7)
    t0 = time.perf_counter()
    for u in range(users):
        user = f"user{u:02d}"
        docs = corpus.user_docs(pool, u, per_user, corpus.NOW)
        for start in range(0, len(docs), 200):
            with Batch(store, "seed", user, now=corpus.NOW) as b:
                for spec in docs[start:start + 200]:
                    b.restore(MODELS[spec.kind](user_id=user, **spec.fields))
        print(f"  built {user}: {per_user} memories ({time.perf_counter() - t0:.0f} s)",
              flush=True)
    store.close()
    marker.write_text("ok")


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def summary(name: str, xs: list[float]) -> str:
    return (f"| {name} | {len(xs)} | {statistics.median(xs):.2f} | {pct(xs, 0.95):.2f} | "
            f"{pct(xs, 0.99):.2f} |")


async def measure(url: str, token: str, svc: MemoryService, user: str, queries: list[str],
                  warmup: int, mode: str) -> tuple[list[float], list[float], list[float]]:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    ctx = ToolContext(service=svc, user_id=user, actor="mcp:bench")
    config = RecallConfig(k=8, include_catalog=True)
    tool_ms, raw_ms, mcp_ms = [], [], []
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http, \
            Client(streamable_http_client(url, http_client=http), mode=mode) as client:
        for i, q in enumerate(queries[:warmup] + queries):
            args = {"query": q, "k": 8}

            def local(args=args, q=q):
                t = time.perf_counter()
                res = execute(ctx, "recall_memory", args)
                tool = (time.perf_counter() - t) * 1000
                assert res.ok, res.error
                t = time.perf_counter()
                svc.recall(user, q, config=config, purpose=Purpose.AGENT)
                return tool, (time.perf_counter() - t) * 1000

            async def remote(args=args):
                t = time.perf_counter()
                res = await client.call_tool("recall_memory", args)
                assert not res.is_error, res.content
                return (time.perf_counter() - t) * 1000

            if i % 2:
                tool, raw = local()
                over = await remote()
            else:
                over = await remote()
                tool, raw = local()
            if i >= warmup:
                tool_ms.append(tool)
                raw_ms.append(raw)
                mcp_ms.append(over)
    return tool_ms, raw_ms, mcp_ms


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default="/tmp/memdesk-bench")
    ap.add_argument("--embedder", default="minilm", choices=["minilm", "static", "hash"])
    ap.add_argument("--users", type=int, default=3)
    ap.add_argument("--per-user", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--modes", default="legacy,auto")
    args = ap.parse_args()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    path = Path(args.dir) / f"mcp-{args.embedder}-{args.users}x{args.per_user}.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    embedder = get_embedder(args.embedder)
    print(f"build {path}", flush=True)
    build(path, embedder, args.users, args.per_user)

    store = EmbeddedStore(path, embedder)
    svc = MemoryService(store)
    user = "user00"
    token = create_token(svc, user, actor="cli", label="bench").token
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("MEMDESK_")},
           "MEMDESK_STORE": f"embedded:{path}", "MEMDESK_EMBEDDER": args.embedder,
           "MEMDESK_LLM": "offline", "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen([sys.executable, "-m", "memory", "mcp", "serve", "--transport",
                               "http", "--port", "0"], env=env, cwd=ROOT,
                              stderr=subprocess.PIPE, text=True)
    try:
        line = server.stderr.readline()  # type: ignore[union-attr]
        m = re.search(r"(http://127\.0\.0\.1:\d+/mcp)", line)
        if not m:
            raise SystemExit(f"server did not start: {line}")
        url = m.group(1)
        queries = [q for _, q in corpus.queries(args.queries, 1, seed=5)]
        load = os.getloadavg()
        print(f"\nmachine: {platform.processor() or platform.machine()}, "
              f"{os.cpu_count()} cores, Python {platform.python_version()}, load "
              f"{load[0]:.1f}/{load[1]:.1f}; embedder {args.embedder}; "
              f"{args.users} users x {args.per_user} memories; k 8\n")
        print("| path | queries | p50 ms | p95 ms | p99 ms |\n|---|---|---|---|---|")
        for mode in args.modes.split(","):
            tool, raw, over = asyncio.run(measure(url, token, svc, user, queries,
                                                  args.warmup, mode))
            print(summary("in-process `MemoryService.recall`", raw))
            print(summary("in-process `tools.execute` (what the handler runs)", tool))
            print(summary(f"MCP over HTTP, SDK client, mode {mode}", over))
            ratio = statistics.median(over) / statistics.median(tool)
            print(f"| **ratio MCP / in-process p50 ({mode})** | | **{ratio:.2f}x** "
                  f"(target <= 2x) | | |", flush=True)
        print(f"\nload after: {os.getloadavg()[0]:.1f}")
    finally:
        server.terminate()
        server.wait(10)
        store.close()


if __name__ == "__main__":
    main()
