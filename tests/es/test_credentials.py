"""Bearer credentials on Elasticsearch (issue 15): documents of the state index, written through
the phased batch like watermarks (a create, or an index at the seq_no read), read with the
store's own client, never holding the secret (invariants 23, 131, 132)."""

from __future__ import annotations

import json

import pytest

from memory.credentials import parse_token
from memory.errors import ConflictError
from memory.service import MemoryService
from memory.stores.base import PutCredential
from memory.tokens import AuthError, authenticate, create_token, list_tokens, revoke_token
from tests.es.conftest import doc_answer, hits_response


def _state_doc(cred, seq_no: int = 7, term: int = 2) -> dict:
    src = {"type": "credential", "user_id": cred.user_id, "name": cred.id,
           "body": cred.model_dump(mode="json")}
    return doc_answer("memdesk-state", src, f"cred_{cred.id}", seq_no, term)


def test_inv131_minting_creates_one_state_document_then_its_audit_event(cluster, es_store):
    svc = MemoryService(es_store)
    issued = create_token(svc, "alice", actor="cli", read_only=True)
    token_id, secret = parse_token(issued.token)
    (mget,) = cluster.find("POST", "/_mget")  # checked first: the id must be new
    assert mget.body == {"docs": [{"_index": "memdesk-state", "_id": f"cred_{token_id}"}]}
    cred_bulk, audit_bulk = cluster.find("PUT", "/_bulk")
    ((action, src),) = cred_bulk.bulk_pairs
    assert action == {"create": {"_index": "memdesk-state", "_id": f"cred_{token_id}"}}
    assert cred_bulk.params == {"refresh": "wait_for", "require_alias": "true"}  # the next request must find it
    assert src["type"] == "credential" and src["user_id"] == "alice" and src["name"] == token_id
    assert src["body"]["read_only"] is True and len(src["body"]["secret_sha256"]) == 64
    ((_, event),) = audit_bulk.bulk_pairs
    assert event["action"] == "token_create" and event["target_ids"] == [token_id]
    wire = json.dumps([r.body for r in cluster.requests], default=str)
    assert secret not in wire and issued.token not in wire  # the secret never leaves
    assert src["body"]["secret_sha256"] not in json.dumps(event)


def test_inv132_a_token_is_read_by_id_with_the_stores_own_client(cluster, es_store):
    svc = MemoryService(es_store)
    issued = create_token(svc, "alice", actor="cli")
    cred = issued.credential
    cluster.requests.clear()
    cluster.on("GET", f"/memdesk-state/_doc/cred_{cred.id}", (200, _state_doc(cred)))
    assert authenticate(svc, issued.token).user_id == "alice"
    (get,) = cluster.requests
    assert get.method == "GET" and get.path == f"/memdesk-state/_doc/cred_{cred.id}"
    assert "authorization" not in get.headers or "ApiKey" not in get.headers["authorization"]
    cluster.on("GET", f"/memdesk-state/_doc/cred_{cred.id}", (404, {"found": False}))
    with pytest.raises(AuthError):
        authenticate(svc, issued.token)
    # a state document of another type under that id is not a credential
    wm = doc_answer("memdesk-state", {"type": "watermark", "user_id": "alice", "name": "x",
                                      "value": "y"}, f"cred_{cred.id}")
    cluster.on("GET", f"/memdesk-state/_doc/cred_{cred.id}", (200, wm))
    assert es_store.get_credential(cred.id) is None


def test_listing_filters_the_state_index_by_type_and_user(cluster, es_store):
    svc = MemoryService(es_store)
    cred = create_token(svc, "alice", actor="cli").credential
    hit = _state_doc(cred)
    cluster.on("POST", "/memdesk-state/_search", (200, hits_response([
        {"_index": hit["_index"], "_id": hit["_id"], "_score": None, "_source": hit["_source"],
         "sort": [cred.id]}])))
    cluster.requests.clear()
    assert list_tokens(svc, "alice") == [cred]
    (search,) = cluster.find("POST", "/memdesk-state/_search")
    assert search.body["query"] == {"bool": {"filter": [{"term": {"type": "credential"}},
                                                        {"term": {"user_id": "alice"}}]}}
    assert search.body["sort"] == [{"name": "asc"}]
    cluster.requests.clear()
    list_tokens(svc)  # every user's: the admins' list
    (search,) = cluster.find("POST", "/memdesk-state/_search")
    assert search.body["query"] == {"bool": {"filter": [{"term": {"type": "credential"}}]}}


def test_inv23_revoking_replaces_the_document_at_the_seq_no_read(cluster, es_store):
    svc = MemoryService(es_store)
    cred = create_token(svc, "alice", actor="cli").credential
    cluster.on("GET", f"/memdesk-state/_doc/cred_{cred.id}", (200, _state_doc(cred)))
    cluster.on("POST", "/_mget", (200, {"docs": [_state_doc(cred, seq_no=11, term=3)]}))
    cluster.requests.clear()
    revoked = revoke_token(svc, cred.id, actor="cli", reason="rotated")
    cred_bulk, audit_bulk = cluster.find("PUT", "/_bulk")
    ((action, src),) = cred_bulk.bulk_pairs
    assert action == {"index": {"_index": "memdesk-state", "_id": f"cred_{cred.id}",
                                "if_seq_no": 11, "if_primary_term": 3}}
    assert src["body"]["revoked_at"] and src["body"]["rev"] == 2 == revoked.rev
    ((_, event),) = audit_bulk.bulk_pairs
    assert event["action"] == "token_revoke" and event["reason"] == "rotated"


def test_inv23_a_stale_revocation_sends_nothing(cluster, es_store):
    svc = MemoryService(es_store)
    cred = create_token(svc, "alice", actor="cli").credential
    moved = cred.model_copy(update={"rev": 2, "label": "changed elsewhere"})
    cluster.on("POST", "/_mget", (200, {"docs": [_state_doc(moved)]}))
    cluster.requests.clear()
    stale = cred.model_copy(update={"rev": 2, "revoked_by": "cli"})
    with pytest.raises(ConflictError):
        es_store.apply([PutCredential(credential=stale, expected_rev=1)])
    assert not cluster.find("PUT", "/_bulk")
