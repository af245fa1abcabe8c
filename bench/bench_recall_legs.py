"""CPU time of a recall without the query embedding (time intent, both legs, fusion, adjust),
before and after the second and third recall-quality passes and recall6's lexicon: one store,
the same queries, thread CPU time.

    OPENBLAS_NUM_THREADS=1 nice -n 10 .venv/bin/python bench/bench_recall_legs.py

Synthetic data (hash embedder vectors, LoCoMo-like sessions): 10 users x 2,000 episodes plus
300 facts each citing a source episode, so the lifts have work to do. Not a quality figure.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory.embeddings import get_embedder
from memory.models import Fact
from memory.ranking import RankingParams
from memory.retrieval import retrieve
from memory.search_config import DEFAULT
from memory.service import MemoryService
from memory.stores.embedded import EmbeddedStore
from memory.stores.user_view import IndexParams

WORDS = ("hub sensor lights vacuum router flat move job shift nurse camera doorbell dog beagle "
         "cables backup drive zigbee battery kitchen bin lid garden tea coffee trip flight "
         "passport allergy tutor language brother sister birthday hospital bristol leeds").split()
NOW = datetime(2026, 11, 21, 12, tzinfo=UTC)
BEFORE = (DEFAULT.model_copy(update={"ranking": RankingParams(
    dense_weight=0.7, catalog_prior=0.9, source_lift=1.0, chain_lift=1.0, sourced_weight=1.0,
    weak_dense_weight=None), "drop_names": "off"}),
    IndexParams(dense_centre=0.0, source_weight=0.0, dense_source_weight=0.0))
SECOND = (DEFAULT.model_copy(update={"drop_names": "off", "ranking": RankingParams(
    source_lift=1.25, weak_dense_weight=None)}), IndexParams(source_weight=0.0,
                                                              dense_source_weight=0.0))
THIRD = (DEFAULT.model_copy(update={"lexicon_weight": 0.0}), IndexParams())  # before recall6
AFTER = (DEFAULT, IndexParams())  # recall6: the lexicon's expansions (invariant 169)


class _Fixed:
    def __init__(self, vec):
        self.vec, self.name, self.dims = vec, "fixed", vec.shape[0]

    def embed(self, texts):
        return self.vec[None, :]


def main() -> None:
    rng = random.Random(7)
    emb = get_embedder("hash")
    store = EmbeddedStore(Path(tempfile.mkdtemp()) / "legs.db", emb)
    svc = MemoryService(store)
    t0 = NOW - timedelta(days=200)
    for u in range(10):
        user = f"user{u}"
        eps = svc.write_episodes(user, [(" ".join(rng.choices(WORDS, k=12)),
                                         t0 + timedelta(minutes=i), f"s{u}-{i // 20}")
                                        for i in range(2000)], actor="migrate")
        with svc.batch("migrate", user) as b:
            for e in rng.sample(eps, 300):
                b.add(Fact(user_id=user, text=e.text[:60], source_episode_ids=[e.id]))
            b.add(Fact(user_id=user, text=f"Her name is Name{u}"))  # invariant 153 has work
    queries = [(f"user{u}", f"What {f'did Name{u} ' if rng.random() < 0.3 else ''}"
                + " ".join(rng.choices(WORDS, k=5)) + "?")
               for u in (rng.randrange(10) for _ in range(300))]
    vecs = {q: emb.embed([q])[0] for _, q in queries}
    for label, (cfg, ip) in (("before (issue 17)", BEFORE), ("second pass", SECOND),
                             ("third pass (no lexicon)", THIRD),
                             ("after (recall6: lexicon 0.5)", AFTER)):
        store.set_index_params(ip)
        for uid, q in queries[:20]:  # build every view first
            retrieve(store, _Fixed(vecs[q]), uid, q, cfg, NOW)
        cpu: list[float] = []
        for uid, q in queries:
            c = time.thread_time()
            retrieve(store, _Fixed(vecs[q]), uid, q, cfg, NOW)
            cpu.append((time.thread_time() - c) * 1000)
        cpu.sort()
        print(f"{label}: legs + fusion + adjust CPU p50 {statistics.median(cpu):.2f} ms, "
              f"p95 {cpu[int(0.95 * len(cpu))]:.2f} ms ({len(cpu)} queries, "
              f"load {os.getloadavg()[0]:.2f})", flush=True)
    store.close()


if __name__ == "__main__":
    main()
