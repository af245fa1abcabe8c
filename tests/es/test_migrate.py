"""`memdesk migrate`: every memory, tombstone, audit event and watermark of a real embedded store
is sent, with the source ids, in order; counts are verified per user and index (invariant 28)."""

from __future__ import annotations

import json

import pytest

from memory.clock import fixed_clock
from memory.errors import MemdeskError, NotFoundError
from memory.migration import count_table, migrate, scopes, user_records
from memory.models import CATALOG, CatalogDoc
from memory.service import MemoryService
from memory.stores.base import SetWatermark
from memory.stores.embedded import EmbeddedStore
from memory.tokens import create_token
from tests.conftest import NOW
from tests.es.conftest import hits_response


@pytest.fixture
def source(tmp_path, hash_embedder):
    store = EmbeddedStore(tmp_path / "src.db", hash_embedder)
    svc = MemoryService(store, clock=fixed_clock(NOW))
    ep = svc.write_episode("ana", "We left Bristol for Edinburgh")
    old = svc.write_fact("ana", "Lives in Bristol", source_episode_ids=[ep.id]).fact
    svc.write_fact("ana", "Lives in Edinburgh", supersedes_id=old.id)
    wrong = svc.write_fact("ana", "Owns a boat").fact
    svc.retract("ana", wrong.id)
    svc.write_playbook("ana", "Reset hub", "hub offline", ["unplug", "replug"])
    svc.add_catalog([CatalogDoc(title="Hub guide", text="Hold the button")])
    store.apply([SetWatermark(user_id="ana", name="consolidation", value=ep.id)])
    create_token(svc, "ana", actor="cli")  # issue 15: a hashed token moves with its user
    with pytest.raises(NotFoundError):  # audited under a user who has no memories at all
        svc.retract("mallory", old.id)
    yield store
    store.close()


def answering(cluster, src, *, audit_off_by: int = 0):
    """The cluster reports what the source holds (optionally one audit event short)."""
    def search(req):
        index, body = req.path.split("/")[1], req.body or {}
        if "kinds" in body.get("aggs", {}):
            user = body["query"]["term"]["user_id"]
            return 200, hits_response([], aggs={"kinds": {"buckets": [
                {"key": k, "doc_count": sum(v.values()),
                 "states": {"buckets": [{"key": s, "doc_count": n} for s, n in v.items()]}}
                for k, v in src.counts(user).items()]}})
        filters = json.dumps(body.get("query"))
        user = next((u for u in scopes(src) if f'"user_id": "{u}"' in filters), None)
        if index == "memdesk-tombstones":
            return 200, hits_response([{"_index": "memdesk-tombstones-v1", "_id": t.id, "_score": None,
                                        "_source": t.model_dump(mode="json"), "sort": [1, t.id]}
                                       for t in src.list_tombstones(user)])
        if index == "memdesk-state" and '"credential"' in filters:  # issue 15: tokens
            return 200, hits_response([{"_index": "memdesk-state-v1", "_id": f"cred_{c.id}",
                                        "_score": None, "sort": [c.id], "_source": {
                                            "type": "credential", "user_id": user, "name": c.id,
                                            "body": c.model_dump(mode="json")}}
                                       for c in src.list_credentials(user)])
        if index == "memdesk-state":
            return 200, hits_response([{"_index": "memdesk-state-v1", "_id": n, "_score": None,
                                        "_source": {"type": "watermark", "user_id": user, "name": n,
                                                    "value": v}, "sort": [n]}
                                       for n, v in src.watermarks(user).items()])
        if index == "memdesk-audit":  # invariant 8: the target's own `migrate` events
            return 200, hits_response([])
        if index == "memdesk-catalog":
            return 200, hits_response([{"_index": "memdesk-catalog-v1", "_id": c.id, "_score": None,
                                        "_source": {**c.model_dump(mode="json"), "kind": "catalog"},
                                        "sort": [1, c.id]} for c in src.list_catalog()])
        return 500, {"error": f"unexpected search on {index}"}

    def count(req):
        user = req.body["query"]["term"]["user_id"]
        n = len(src.audit(user, limit=10**9)) - (audit_off_by if user == "ana" else 0)
        return 200, {"count": n, "_shards": {"total": 1, "successful": 1, "failed": 0}}

    cluster.on("POST", r"/[^_].*/_search", search)
    cluster.on("POST", "/memdesk-audit/_count", count)


def test_inv28_migrate_sends_everything_with_source_ids_and_verifies(cluster, es_store, source):
    answering(cluster, source)
    assert scopes(source) == ["ana", "mallory", CATALOG]
    rows = migrate(source, es_store)
    sent = [(a, s) for r in cluster.find("PUT", "/_bulk") for a, s in r.bulk_pairs]
    by_index: dict[str, list[str]] = {}
    for action, _src in sent:
        meta = next(iter(action.values()))
        by_index.setdefault(meta["_index"], []).append(meta["_id"])
    assert sorted(by_index["memdesk-semantic"]) == sorted(f.id for f in source.list_facts("ana"))
    assert by_index["memdesk-episodic"] == [e.id for e in source.list_episodes("ana")]
    assert by_index["memdesk-procedural"] == [p.id for p in source.list_playbooks("ana")]
    assert by_index["memdesk-catalog"] == [c.id for c in source.list_catalog()]
    assert by_index["memdesk-tombstones"] == [t.id for t in source.list_tombstones("ana")]
    want_audit = [e.id for u in ("ana", "mallory", CATALOG) for e in reversed(source.audit(u, limit=999))]
    *copied, moved = by_index["memdesk-audit"]
    assert copied == want_audit  # every event, oldest first per scope
    # invariant 8: then the move itself, one event in the target's catalog scope
    ((_, event),) = [(a, s) for a, s in sent if s and s.get("id") == moved]
    assert (event["action"], event["actor"], event["user_id"]) == ("migrate", "migrate", CATALOG)
    assert event["after"]["records"] == {u: len(list(user_records(source, u)))
                                         for u in ("ana", "mallory", CATALOG)}
    assert event["after"]["to"]["schema"].startswith("elasticsearch mapping version")
    assert all(next(iter(a)) == "create" for a, _ in sent if "memdesk-audit" in str(a))
    facts = {s["id"]: s for a, s in sent if s and s.get("kind") == "semantic"}
    assert {f["state"] for f in facts.values()} == {"superseded", "active", "retracted"}
    assert any(next(iter(a.values()))["_id"].startswith("wm_") for a, _ in sent)
    # invariant 131: the token goes too, as its hash, under its own id
    ((cred_action, cred_src),) = [(a, s) for a, s in sent
                                  if next(iter(a.values()))["_id"].startswith("cred_")]
    (token,) = source.list_credentials("ana")
    assert cred_action == {"create": {"_index": "memdesk-state", "_id": f"cred_{token.id}"}}
    assert cred_src["body"] == token.model_dump(mode="json")
    assert cluster.find("POST", r"/.*/_refresh")  # verification reads what was just written
    assert rows and all(r.ok for r in rows)
    assert {(r.scope, r.index) for r in rows} >= {("ana", "semantic:retracted"), ("ana", "audit"),
                                                  ("mallory", "audit"), (CATALOG, "catalog")}


def test_inv28_a_count_that_differs_is_reported(cluster, es_store, source):
    answering(cluster, source, audit_off_by=1)
    with pytest.raises(MemdeskError, match=r"1 count\(s\) differ: ana/audit: (\d+) in source, \d+ in target"):
        migrate(source, es_store)


def test_count_table_reads_the_embedded_store(source):
    table = count_table(source, "ana")
    assert table["semantic:superseded"] == 1 and table["semantic:retracted"] == 1
    assert table["tombstones"] == 1 and table["watermarks"] == 1 and table["episodic"] == 1
