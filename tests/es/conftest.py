"""Request-shape fixtures: the real elasticsearch client with a recording node at the transport
layer (as the client's own tests do). Every request is captured exactly as it would go on the
wire; responses are canned in the shape Elasticsearch documents, so the store's parsing runs.

This is not a store: nothing is kept between requests. A test that needs a document back
states the response it expects the cluster to give.
"""

from __future__ import annotations

import gzip
import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import pytest
from elastic_transport import ApiResponseMeta, BaseNode, HttpHeaders
from elastic_transport._node import NodeApiResponse  # not re-exported at top level in 8.19
from elasticsearch import Elasticsearch

from memory.stores.elasticsearch import ElasticsearchStore

URL = "http://127.0.0.1:9200"


@dataclass
class Req:
    method: str
    path: str
    params: dict
    body: Any  # the parsed JSON (a list of lines for NDJSON)
    headers: dict

    @property
    def bulk_pairs(self) -> list[tuple[dict, dict | None]]:
        """NDJSON bulk lines as (action, source) pairs (delete has no source)."""
        out: list[tuple[dict, dict | None]] = []
        lines, i = list(self.body), 0
        while i < len(lines):
            action = lines[i]
            if "delete" in action:
                out.append((action, None))
                i += 1
            else:
                out.append((action, lines[i + 1]))
                i += 2
        return out


def not_found_index(name: str) -> tuple[int, dict]:
    err = {"type": "index_not_found_exception", "reason": f"no such index [{name}]",
           "index": name, "resource.type": "index_or_alias", "resource.id": name}
    return 404, {"error": {"root_cause": [err], **err}, "status": 404}


def hits_response(hits: list[dict], aggs: dict | None = None) -> dict:
    body = {"took": 3, "timed_out": False,
            "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
            "hits": {"max_score": max((h.get("_score") or 0 for h in hits), default=None),
                     "hits": hits}}
    if aggs is not None:
        body["aggregations"] = aggs
    return body


def search_answer(req: Req, hits: list[dict]) -> dict:
    """A search response: the given hits, and empty buckets for any aggregation asked for."""
    aggs = (req.body or {}).get("aggs")
    return hits_response([] if aggs else hits, aggs={
        k: {"doc_count_error_upper_bound": 0, "sum_other_doc_count": 0, "buckets": []}
        for k in aggs} if aggs else None)


@dataclass
class Cluster:
    """Canned answers by (method, path regex); the newest matching route wins."""

    version: str = "8.15.3"
    licence: str = "trial"
    requests: list[Req] = field(default_factory=list)
    routes: list = field(default_factory=list)
    task_response: dict = field(default_factory=lambda: {"deleted": 0, "failures": []})

    def on(self, method: str, pattern: str, answer) -> None:
        self.routes.insert(0, (method, re.compile(pattern + r"$"), answer))

    def find(self, method: str, pattern: str) -> list[Req]:
        rx = re.compile(pattern + r"$")
        return [r for r in self.requests if r.method == method and rx.match(r.path)]

    def answer(self, req: Req) -> tuple[int, dict]:
        for method, rx, ans in self.routes:
            if method == req.method and rx.match(req.path):
                return ans(req) if callable(ans) else ans
        if req.method == "GET" and req.path == "/":
            return 200, {"name": "node-1", "cluster_name": "memdesk", "cluster_uuid": "x",
                         "version": {"number": self.version, "build_flavor": "default",
                                     "lucene_version": "9.11.1",
                                     "minimum_wire_compatibility_version": "7.17.0"},
                         "tagline": "You Know, for Search"}
        if req.method == "GET" and req.path == "/_license":
            return 200, {"license": {"status": "active", "uid": "u", "type": self.licence,
                                     "issued_to": "memdesk", "max_nodes": 1000}}
        if req.method == "GET" and req.path.endswith("/_mapping"):
            return not_found_index(req.path.split("/")[1])
        if req.method in ("POST", "PUT") and req.path == "/_bulk":
            return 200, bulk_ok(req)
        if req.method == "PUT" and req.path.count("/") == 1:
            return 200, {"acknowledged": True, "shards_acknowledged": True, "index": req.path[1:]}
        if req.method in ("POST", "GET") and req.path == "/_mget":
            return 200, {"docs": [{"_index": d["_index"], "_id": d["_id"], "found": False}
                                  for d in req.body["docs"]]}
        if req.method in ("POST", "GET") and req.path.endswith("/_mget"):  # one index, by ids
            index = req.path[1:].split("/")[0]
            return 200, {"docs": [{"_index": index, "_id": i, "found": False}
                                  for i in req.body["ids"]]}
        if req.method in ("POST", "GET") and req.path.endswith("/_search"):
            return 200, search_answer(req, [])
        if req.method == "POST" and req.path.endswith("/_refresh"):
            return 200, {"_shards": {"total": 1, "successful": 1, "failed": 0}}
        if req.method in ("PUT", "POST") and re.match(r"^/[^/_][^/]*/_(create|doc)/[^/]+$",
                                                      req.path):
            index, doc_id = req.path[1:].split("/")[0], req.path.rsplit("/", 1)[1]
            return 201, {"_index": index + "-v2", "_id": doc_id, "_version": 1,
                         "result": "created", "_seq_no": 0, "_primary_term": 1,
                         "_shards": {"total": 1, "successful": 1, "failed": 0}}
        # issue 31: merges and erases run as tasks (wait_for_completion=false), then followed
        if req.method == "POST" and req.path.endswith(("/_forcemerge", "/_delete_by_query")) \
                and req.params.get("wait_for_completion") == "false":
            return 200, {"task": "node-1:" + ("11" if "forcemerge" in req.path else "12")}
        if req.method == "GET" and req.path.startswith("/_tasks/"):
            return 200, {"completed": True, "task": {"node": "node-1", "id": 11},
                         "response": self.task_response}
        if req.method == "GET" and req.path.endswith("/_alias"):  # only the current versions
            index = req.path[1:].split("/")[0]
            return 200, {index.replace("-v*", "-v2"): {"aliases": {index[:-3]: {}}}}
        if req.method == "GET" and "/_stats" in req.path:
            return 200, {"_shards": {"total": 1, "successful": 1, "failed": 0}, "indices": {}}
        if req.method == "GET" and "/_doc/" in req.path:
            index, _, doc_id = req.path[1:].partition("/_doc/")
            return 404, {"_index": index, "_id": doc_id, "found": False}
        return 500, {"error": f"no canned answer for {req.method} {req.path}"}

    def node_class(self) -> type[BaseNode]:
        cluster = self

        class RecordingNode(BaseNode):
            def perform_request(self, method, target, body=None, headers=None,
                                request_timeout=None):
                parts = urlsplit(target)
                raw = gzip.decompress(body) if body and body[:2] == b"\x1f\x8b" else body
                parsed: Any
                if raw and "ndjson" in str((headers or {}).get("content-type", "")):
                    parsed = [json.loads(line) for line in raw.decode().splitlines() if line]
                else:
                    parsed = json.loads(raw) if raw else None
                req = Req(method, unquote(parts.path), dict(parse_qsl(parts.query)), parsed,
                          {k.lower(): v for k, v in (headers or {}).items()})
                cluster.requests.append(req)
                answer = cluster.answer(req)
                if isinstance(answer, BaseException):  # a lost answer: timeout, reset, TLS
                    raise answer
                status, payload = answer
                meta = ApiResponseMeta(status=status, http_version="1.1", duration=0.0,
                                       node=self.config,
                                       headers=HttpHeaders({"X-elastic-product": "Elasticsearch",
                                                            "content-type": "application/json"}))
                return NodeApiResponse(meta, json.dumps(payload).encode())

        return RecordingNode


def bulk_ok(req: Req) -> dict:
    return bulk_answer(req)[1]


def make_client(cluster: Cluster, url: str = URL, **kwargs) -> Elasticsearch:
    kwargs.setdefault("max_retries", 0)
    return Elasticsearch(url, node_class=cluster.node_class(), meta_header=False, **kwargs)


def bulk_answer(req: Req, statuses: list[int] | None = None, seq_no: int = 0, term: int = 1,
                errors: dict[int, dict] | None = None) -> tuple[int, dict]:
    """A bulk response with one item per action, as docs-bulk.html shows it: each item carries
    its own status; successful ones their `_seq_no`/`_primary_term`, failed ones an `error`."""
    items = []
    for i, (action, _src) in enumerate(req.bulk_pairs):
        op, meta = next(iter(action.items()))
        status = statuses[i] if statuses else (201 if op in ("create",) else 200)
        item = {"_index": meta["_index"] + "-v1", "_id": meta["_id"], "status": status}
        if status < 300:
            item.update(_version=1, result="created" if status == 201 else
                        ("deleted" if op == "delete" else "updated"),
                        _seq_no=seq_no + i, _primary_term=term)
        else:
            item["error"] = (errors or {}).get(i) or (
                {"type": "version_conflict_engine_exception",
                 "reason": f"[{meta['_id']}]: version conflict"} if status == 409 else
                {"type": "es_rejected_execution_exception", "reason": "rejected execution"})
        items.append({op: item})
    return 200, {"took": 1, "errors": any(it[next(iter(it))]["status"] >= 300 for it in items),
                 "items": items}


def doc_answer(index: str, src: dict | None, doc_id: str, seq_no: int = 7, term: int = 2) -> dict:
    """One entry of an mget answer (or a get body)."""
    if src is None:
        return {"_index": index, "_id": doc_id, "found": False}
    return {"_index": index + "-v1", "_id": doc_id, "_version": 1, "_seq_no": seq_no,
            "_primary_term": term, "found": True, "_source": src}


@pytest.fixture
def cluster() -> Cluster:
    return Cluster()


@pytest.fixture
def es_store(cluster, hash_embedder):
    store = ElasticsearchStore(URL, hash_embedder, client=make_client(cluster))
    cluster.requests.clear()  # start-up requests are checked in test_indices.py
    yield store
    store.close()


def source_hit(index: str, src: dict, score: float = 1.0, **extra) -> dict:
    return {"_index": index, "_id": src["id"], "_score": score, "_source": src, **extra}
