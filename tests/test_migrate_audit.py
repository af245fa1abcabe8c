"""Issue 30, item 1: a migration is one audited act (invariant 8). Real embedded stores on
both sides, real roles."""

from __future__ import annotations

import pytest

from memory.access import Access, RoleMap
from memory.clock import fixed_clock
from memory.errors import AccessDenied
from memory.migration import migrate
from memory.models import CATALOG
from memory.service import MemoryService
from memory.stores import open_store
from tests.conftest import NOW


@pytest.fixture
def stores(tmp_path, hash_embedder):
    src = open_store(f"embedded:{tmp_path / 'src.db'}", hash_embedder)
    dst = open_store(f"embedded:{tmp_path / 'dst.db'}", hash_embedder)
    svc = MemoryService(src, clock=fixed_clock(NOW))
    svc.write_episode("ana", "We left Bristol for Edinburgh")
    svc.write_fact("ana", "Lives in Edinburgh")
    svc.write_fact("bo", "Plays the oboe")
    yield src, dst
    src.close()
    dst.close()


def test_inv8_a_migration_records_one_event_naming_actor_stores_and_counts(stores):
    src, dst = stores
    rows = migrate(src, dst, actor="cli:ops", source_name="embedded:/tmp/src.db",
                   target_name="embedded:/tmp/dst.db")
    assert all(r.ok for r in rows)
    (event,) = dst.audit(CATALOG, limit=10, action="migrate")
    assert (event.actor, event.action, event.outcome) == ("cli:ops", "migrate", "ok")
    after = event.after
    assert after["from"] == {"store": "embedded:/tmp/src.db", "schema": "embedded schema 1"}
    assert after["to"]["store"] == "embedded:/tmp/dst.db"
    assert after["records"]["ana"] == 2 + len(src.audit("ana", limit=99))
    assert after["records"]["bo"] == 1 + len(src.audit("bo", limit=99))
    assert after["total"] == sum(after["records"].values()) and after["scopes"] == 3
    assert src.audit(CATALOG, limit=10, action="migrate") == []  # the source is not written
    # a re-run converges on the copy and records its own event; the counts still verify
    assert all(r.ok for r in migrate(src, dst, actor="cli:ops"))
    assert len(dst.audit(CATALOG, limit=10, action="migrate")) == 2


def test_inv8_a_migration_by_an_operator_without_the_role_copies_nothing(stores):
    src, dst = stores
    access = Access(RoleMap(operators={"rev@example.com": "reviewer"}), "login")
    with pytest.raises(AccessDenied, match="may not migrate"):
        migrate(src, dst, actor="operator:rev@example.com", authorize=access.authorize)
    assert dst.users() == [] and dst.value_key() is None
    (denied,) = dst.audit(CATALOG, limit=10)
    assert (denied.action, denied.outcome, denied.after) == ("denied", "denied",
                                                            {"attempted": "migrate"})
