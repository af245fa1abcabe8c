"""Embedded-store specifics: embedder pinning, FTS query safety, cross-process freshness, atomic
usage bumps under threads."""

from __future__ import annotations

import threading

import pytest

from memory.clock import fixed_clock
from memory.embeddings import HashEmbedder
from memory.errors import MemdeskError
from memory.search_config import Purpose
from memory.service import MemoryService
from memory.stores.embedded import EmbeddedStore
from tests.conftest import NOW


def test_inv16_store_refuses_a_different_embedder(tmp_path, hash_embedder):
    EmbeddedStore(tmp_path / "s.db", hash_embedder).close()
    with pytest.raises(MemdeskError, match="built with embedder hash"):
        EmbeddedStore(tmp_path / "s.db", HashEmbedder(dims=128))


@pytest.mark.parametrize("query", ['"unbalanced', "NEAR(a b)", "a AND OR NOT b", "col:value*",
                                   "l'hôtel — 50% off?", "***"])
def test_user_text_is_never_fts_syntax(service, query):
    service.write_episode("u", "a note about the hotel discount value")
    service.recall("u", query, purpose=Purpose.EVAL)  # must not raise an FTS5 syntax error


def test_a_second_connection_sees_writes_immediately(tmp_path, hash_embedder):
    path = tmp_path / "shared.db"
    desk = MemoryService(EmbeddedStore(path, hash_embedder), clock=fixed_clock(NOW))
    cli = MemoryService(EmbeddedStore(path, hash_embedder), clock=fixed_clock(NOW))
    desk.write_fact("u", "Owns a red bicycle")
    assert desk.recall("u", "red bicycle", purpose=Purpose.EVAL).hits  # warms desk's dense cache
    fact = cli.write_fact("u", "Owns a blue kayak").fact  # another connection commits
    hits = desk.recall("u", "blue kayak", config=desk_config(), purpose=Purpose.EVAL).hits
    assert fact.id in [h.id for h in hits]


def desk_config():
    from memory.search_config import DENSE_ONLY

    return DENSE_ONLY


def test_usage_bumps_are_atomic_under_threads(service):
    fact = service.write_fact("u", "Prefers green tea in the morning").fact

    def worker():
        for _ in range(25):
            service.store.bump_usage("u", [(fact.kind, fact.id)], NOW)

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert service.get_fact("u", fact.id).use_count == 200


def test_update_keeps_store_owned_usage_stats(service):
    from memory.corrections import bumped as bump
    from memory.stores.base import UpdateMemory

    fact = service.write_fact("u", "Drinks oat milk").fact
    service.store.bump_usage("u", [(fact.kind, fact.id)], NOW)
    service.store.apply([UpdateMemory(doc=bump(fact, confidence=0.9), expected_rev=fact.rev)])
    got = service.get_fact("u", fact.id)
    assert got.confidence == 0.9 and got.use_count == 1 and got.last_used_at == NOW


def test_close_twice_is_safe_and_use_after_close_is_clear(tmp_path, hash_embedder):
    store = EmbeddedStore(tmp_path / "c.db", hash_embedder)
    store.close()
    store.close()
    with pytest.raises(MemdeskError, match="closed"):
        store.users()


def test_updates_that_keep_the_text_keep_the_vector(tmp_path, hash_embedder):
    class Counting:
        name, dims, texts = hash_embedder.name, hash_embedder.dims, []

        def embed(self, texts):
            self.texts += list(texts)
            return hash_embedder.embed(texts)

    emb = Counting()
    svc = MemoryService(EmbeddedStore(tmp_path / "v.db", emb), clock=fixed_clock(NOW))
    old = svc.write_fact("u", "Lives in Leeds").fact
    emb.texts.clear()
    svc.write_fact("u", "Lives in York", supersedes_id=old.id)
    # the new fact and the tombstone check are embedded; the superseded fact is not re-embedded
    assert "Lives in Leeds" not in emb.texts and "Lives in York" in emb.texts
    hits = svc.recall("u", "Leeds", config=desk_config().model_copy(update={"include_superseded": True}),
                      purpose=Purpose.EVAL).hits
    assert old.id in [h.id for h in hits]  # its kept vector still finds it
