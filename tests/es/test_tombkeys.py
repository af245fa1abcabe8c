"""Invariant 63: a key rule change (`KEY_VERSION`) never leaves an Elasticsearch tombstone with
keys the new probes miss, and never gives a forgotten value keys again.

Request shapes through the recording transport (tests/es/conftest.py); the live variant is in
tests/es/test_live.py. Answers follow the documented shapes: a realtime GET carries
`_seq_no`/`_primary_term` (docs-get.html), so does a search hit with `seq_no_primary_term`
(search-search.html), and a bulk `update` with `if_seq_no` answers 409 per item when the
document changed (optimistic-concurrency-control.html)."""

from __future__ import annotations

import functools

import pytest

from memory.cli import main
from memory.errors import MemdeskError
from memory.stores.elasticsearch import ElasticsearchStore, connection, tombkeys
from memory.stores.elasticsearch import reindex as reindex_module
from memory.stores.elasticsearch.indices import MAPPING_VERSION
from memory.values import KEY_VERSION, index_entry, probe
from tests.es.conftest import URL, Cluster, Req, bulk_answer, doc_answer, make_client, search_answer

TOMBS, STATE = "memdesk-tombstones", "memdesk-state"
STATE_DOC = f"/{STATE}/_doc/tombstone_keys"
OLD_VERSION = str(int(KEY_VERSION) - 1)


def tomb(tid: str, text: str, **fields) -> dict:
    return {"id": tid, "text": text, **fields}


# What an older matcher wrote beside "Works at Acme Corp": the restatement's probe misses it.
STALE = tomb("tomb_a", "Works at Acme Corp", match_key="employer=acme corp",
             match_terms=["employer:acme", "employer:corp"])
CURRENT = tomb("tomb_b", "Allergic to peanuts", match_key="allergy=peanut",
               match_terms=["allergy:peanut"])
FORGOTTEN = tomb("tomb_c", "", forgotten=True)  # hashed by a forget: no text, no keys
BEFORE_KEYS = tomb("tomb_d", "Живёт в Москве")  # written before keys existed (issue 11)


def hit(src: dict, seq_no: int, term: int = 1) -> dict:
    return {"_index": TOMBS + "-v2", "_id": src["id"], "_score": None, "_source": src,
            "_seq_no": seq_no, "_primary_term": term, "sort": [src["id"]]}


def key_cluster(recorded: str | None, tombs: list[dict]) -> Cluster:
    """A cluster whose state index records `recorded` (None: no document) and whose
    tombstones index holds `tombs` (seq_no 10, 11, ...)."""
    c = Cluster()
    if recorded is not None:
        c.on("GET", STATE_DOC, (200, doc_answer(STATE, tombkeys.state_doc(recorded),
                                                "tombstone_keys", seq_no=3, term=1)))
    c.on("POST", f"/{TOMBS}/_search", lambda req: (200, search_answer(
        req, [hit(t, 10 + i) for i, t in enumerate(tombs)])))
    c.on("PUT", STATE_DOC, (200, {"_index": STATE + "-v2", "_id": "tombstone_keys",
                                  "result": "updated", "_seq_no": 4, "_primary_term": 1}))
    return c


def key_requests(c: Cluster) -> list[Req]:
    """The start-up requests of the key check, in order (after the index checks)."""
    return [r for r in c.requests if r.path in (STATE_DOC, f"/{STATE}/_create/tombstone_keys",
                                                f"/{TOMBS}/_search", f"/{TOMBS}/_refresh",
                                                "/_bulk", f"/{TOMBS}/_mget")]


def open_on(c: Cluster, hash_embedder) -> ElasticsearchStore:
    return ElasticsearchStore(URL, hash_embedder, client=make_client(c))


def test_inv63_an_older_key_version_recomputes_the_keys_then_records_the_new_one(hash_embedder):
    c = key_cluster(OLD_VERSION, [STALE, CURRENT, FORGOTTEN, BEFORE_KEYS])
    open_on(c, hash_embedder).close()
    get, refresh, scan, bulk, refresh_after, record = key_requests(c)
    assert (get.method, get.path) == ("GET", STATE_DOC)
    assert (refresh.method, refresh.path) == ("POST", f"/{TOMBS}/_refresh")
    assert scan.body == {"query": {"match_all": {}}, "sort": [{"id": "asc"}], "size": 500,
                         "seq_no_primary_term": True, "track_total_hits": False}
    assert scan.params == {"_source_includes": "id,text,forgotten,match_key,match_terms"}
    # only the tombstones whose keys differ, each conditional on the version it was read at;
    # the forgotten one is left alone (invariant 66)
    assert bulk.params == {"refresh": "false", "require_alias": "true"}
    moscow_key, moscow_terms = index_entry("Живёт в Москве")
    assert bulk.body == [
        {"update": {"_index": TOMBS, "_id": "tomb_a", "if_seq_no": 10, "if_primary_term": 1}},
        {"doc": {"match_key": "employer=acm", "match_terms": ["employer:acm"]}},
        {"update": {"_index": TOMBS, "_id": "tomb_d", "if_seq_no": 13, "if_primary_term": 1}},
        {"doc": {"match_key": moscow_key, "match_terms": moscow_terms}}]
    # the restatement's probe now meets the dead value's key
    assert bulk.body[1]["doc"]["match_key"] in probe("Employed by ACME Inc.").keys
    assert (refresh_after.method, refresh_after.path) == ("POST", f"/{TOMBS}/_refresh")
    # recorded last, compare-and-set on the document read first
    assert (record.method, record.path) == ("PUT", STATE_DOC)
    assert record.params == {"if_seq_no": "3", "if_primary_term": "1", "require_alias": "true"}
    assert record.body == {"type": "key_version", "name": "tombstone_keys", "value": KEY_VERSION}


def test_inv63_current_keys_cost_one_get(hash_embedder):
    c = key_cluster(KEY_VERSION, [STALE])
    open_on(c, hash_embedder).close()
    assert [(r.method, r.path) for r in key_requests(c)] == [("GET", STATE_DOC)]


def test_inv63_a_store_without_a_record_is_recomputed_and_recorded_with_create(hash_embedder):
    """A store written before invariant 63 (or a new one): its keys may be any version's."""
    c = key_cluster(None, [STALE])
    open_on(c, hash_embedder).close()
    reqs = key_requests(c)
    assert [(r.method, r.path) for r in reqs] == [
        ("GET", STATE_DOC), ("POST", f"/{TOMBS}/_refresh"), ("POST", f"/{TOMBS}/_search"),
        ("PUT", "/_bulk"), ("POST", f"/{TOMBS}/_refresh"),
        ("PUT", f"/{STATE}/_create/tombstone_keys")]
    assert reqs[-1].body == tombkeys.state_doc() and reqs[-1].params == {"require_alias": "true"}


def test_inv63_pages_follow_the_id_sort(hash_embedder, monkeypatch):
    monkeypatch.setattr(tombkeys, "PAGE", 2)
    c = key_cluster(OLD_VERSION, [])
    pages = [[STALE, CURRENT], [BEFORE_KEYS]]
    c.on("POST", f"/{TOMBS}/_search", lambda req: (200, search_answer(
        req, [hit(t, 10) for t in pages.pop(0)])))
    open_on(c, hash_embedder).close()
    first, second = c.find("POST", f"/{TOMBS}/_search")
    assert "search_after" not in first.body and first.body["size"] == 2
    assert second.body["search_after"] == ["tomb_b"]
    assert [[a["update"]["_id"] for a, _ in b.bulk_pairs] for b in c.find("PUT", "/_bulk")] == [
        ["tomb_a"], ["tomb_d"]]


def test_inv63_a_tombstone_forgotten_meanwhile_gets_no_keys(hash_embedder):
    """The forget hashed tomb_a between the scan and the update: the update answers 409, the
    re-read sees it forgotten, and nothing more is sent for it (its keys would name the value)."""
    c = key_cluster(OLD_VERSION, [STALE])
    c.on("PUT", "/_bulk", lambda req: bulk_answer(req, statuses=[409]))
    c.on("POST", f"/{TOMBS}/_mget", (200, {"docs": [doc_answer(
        TOMBS, tomb("tomb_a", "", forgotten=True, normalized="hash"), "tomb_a", seq_no=11)]}))
    open_on(c, hash_embedder).close()
    (reread,) = c.find("POST", f"/{TOMBS}/_mget")
    assert reread.body == {"ids": ["tomb_a"]}
    assert reread.params == {"_source_includes": "id,text,forgotten,match_key,match_terms"}
    assert len(c.find("PUT", "/_bulk")) == 1
    assert c.find("PUT", STATE_DOC)  # every live tombstone is keyed: the version is recorded


def test_inv63_a_tombstone_changed_meanwhile_is_updated_at_its_new_version(hash_embedder):
    c = key_cluster(OLD_VERSION, [STALE])
    answers = [[409], [200]]
    c.on("PUT", "/_bulk", lambda req: bulk_answer(req, statuses=answers.pop(0)))
    c.on("POST", f"/{TOMBS}/_mget", (200, {"docs": [doc_answer(TOMBS, STALE, "tomb_a",
                                                                seq_no=12, term=2)]}))
    open_on(c, hash_embedder).close()
    first, second = c.find("PUT", "/_bulk")
    assert second.body[0] == {"update": {"_index": TOMBS, "_id": "tomb_a", "if_seq_no": 12,
                                         "if_primary_term": 2}}
    assert c.find("PUT", STATE_DOC)


def test_inv63_keys_that_keep_changing_record_nothing(hash_embedder):
    c = key_cluster(OLD_VERSION, [STALE])
    c.on("PUT", "/_bulk", lambda req: bulk_answer(req, statuses=[409]))
    c.on("POST", f"/{TOMBS}/_mget", (200, {"docs": [doc_answer(TOMBS, STALE, "tomb_a")]}))
    with pytest.raises(MemdeskError, match="tomb_a.*kept changing"):
        open_on(c, hash_embedder)
    assert len(c.find("PUT", "/_bulk")) == 1 + tombkeys.ROUNDS
    assert not c.find("PUT", STATE_DOC)


def test_inv63_a_failed_update_records_nothing(hash_embedder):
    """The version is recorded only once every tombstone is keyed: the next open tries again."""
    c = key_cluster(OLD_VERSION, [STALE, BEFORE_KEYS])
    c.on("PUT", "/_bulk", lambda req: bulk_answer(req, statuses=[200, 429]))
    with pytest.raises(MemdeskError, match="match key update of tombstone tomb_d failed"):
        open_on(c, hash_embedder)
    assert not c.find("PUT", STATE_DOC)


def test_inv63_another_process_recording_first_is_no_error(hash_embedder):
    c = key_cluster(OLD_VERSION, [STALE])
    c.on("PUT", STATE_DOC, (409, {"error": {
        "type": "version_conflict_engine_exception",
        "reason": "[tombstone_keys]: version conflict, required seqNo [3], primary term [1]. "
                  "current document has seqNo [4] and primary term [1]"}, "status": 409}))
    open_on(c, hash_embedder).close()
    assert len(c.find("PUT", STATE_DOC)) == 1


def test_inv63_a_newer_matchers_keys_are_left_alone(hash_embedder):
    c = key_cluster(str(int(KEY_VERSION) + 1), [STALE])
    open_on(c, hash_embedder).close()
    assert [(r.method, r.path) for r in key_requests(c)] == [("GET", STATE_DOC)]


@pytest.mark.parametrize(("src", "want"), [
    (STALE, {"match_key": "employer=acm", "match_terms": ["employer:acm"]}),
    (CURRENT, None),
    (FORGOTTEN, None),
    ({**FORGOTTEN, "match_key": "*=", "match_terms": []}, None),
])
def test_inv63_wanted_keys(src, want):
    assert tombkeys.wanted_keys(src) == want


def test_inv63_es_reindex_recomputes_the_keys(monkeypatch, capsys, hash_embedder):
    c = key_cluster(OLD_VERSION, [STALE, CURRENT])
    for name in ("episodic", "semantic", "procedural", "catalog", "audit", "tombstones", "state",
                 "usage"):
        c.on("GET", f"/_alias/memdesk-{name}", (200, {
            f"memdesk-{name}-v{MAPPING_VERSION}": {"aliases": {f"memdesk-{name}": {
                "is_write_index": True}}}}))
    monkeypatch.setattr(connection, "Elasticsearch", functools.partial(
        connection.Elasticsearch, node_class=c.node_class(), meta_header=False))
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setattr(reindex_module, "POLL_S", 0.0)
    assert main(["es", "reindex", "--store", f"elasticsearch:{URL}"]) == 0
    assert "tombstones  match keys: 1 of 2 tombstones rewritten" in capsys.readouterr().err
    # then the reindex records its own audit event (invariant 8) through the store it opens
    # (this canned cluster keeps no state, so that open finds the old key version again)
    bulk = next(b for b in c.find("PUT", "/_bulk") if "update" in b.bulk_pairs[0][0])
    assert [a["update"]["_id"] for a, _ in bulk.bulk_pairs] == ["tomb_a"]
    record = c.find("PUT", STATE_DOC)[0]
    assert record.body["value"] == KEY_VERSION
