"""A recording transport that keeps documents (issue 31): enough of Elasticsearch's document
APIs, with their documented semantics, to cut a process at any request and open the store
again on what landed.

Semantics followed (each from the reference, 8.15):
- `op_type=create` (`_create`, bulk `create`) answers 409 when the id exists
  (https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-index_.html#docs-index-api-op_type);
- `if_seq_no`/`if_primary_term` on index and delete answer 409 unless they match the document's
  (https://www.elastic.co/guide/en/elasticsearch/reference/8.15/optimistic-concurrency-control.html);
- each bulk item succeeds or fails on its own
  (https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-bulk.html);
- `_mget` and GET are realtime: they see every acknowledged write, refreshed or not
  (https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-multi-get.html).
Searches evaluate the filters the store sends (term, terms, ids, bool) over every document
(refresh is not modelled: a search sees what landed, which only makes the readers' job harder).

Faults, by the ordinal of a request counted from `arm()`: "crash" — the process dies before the
request leaves (nothing lands, every later request dies too); "after" — it lands, then the
process dies before reading the answer; "lost" — it lands and the answer is lost (a timeout),
the process goes on.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

from elastic_transport import ConnectionTimeout

from tests.es.conftest import Cluster, Req, search_answer


class Crash(BaseException):  # noqa: N818 - the process died: nothing may catch it
    """The process died here."""


def _alias(index: str) -> str:
    return re.sub(r"-v\d+$", "", index)


@dataclass
class DocCluster(Cluster):
    docs: dict[str, dict[str, dict]] = field(default_factory=dict)  # alias -> id -> record
    seq: int = 0
    faults: dict[int, str] = field(default_factory=dict)
    count: int = 0
    dead: bool = False
    anchor: tuple | None = None

    def arm(self, faults: dict[int, str]) -> None:
        self.faults, self.count, self.dead = dict(faults), 0, False

    def arm_at(self, path: str, faults: list[str]) -> None:
        """Faults from the first request whose path matches `path` on: that one gets
        faults[0], the next faults[1], and so on."""
        self.arm({})
        self.anchor = (re.compile(path + "$"), list(faults))

    def revive(self) -> None:
        self.faults, self.dead = {}, False

    # the document store ---------------------------------------------------------------------
    def _write(self, op: str, index: str, doc_id: str, src: dict | None, params: dict) -> dict:
        alias = _alias(index)
        table = self.docs.setdefault(alias, {})
        have = table.get(doc_id)
        item = {"_index": alias + "-v2", "_id": doc_id}
        if op == "create" and have is not None:
            return {**item, "status": 409, "error": {
                "type": "version_conflict_engine_exception",
                "reason": f"[{doc_id}]: version conflict, document already exists"}}
        if "if_seq_no" in params and (have is None or have["seq_no"] != int(params["if_seq_no"])
                                      or have["term"] != int(params["if_primary_term"])):
            return {**item, "status": 409, "error": {
                "type": "version_conflict_engine_exception",
                "reason": f"[{doc_id}]: version conflict, required seqNo [{params['if_seq_no']}]"}}
        if op == "delete":
            if have is None:
                return {**item, "status": 404, "result": "not_found"}
            del table[doc_id]
            self.seq += 1
            return {**item, "status": 200, "result": "deleted", "_seq_no": self.seq,
                    "_primary_term": 1}
        if op == "update":
            return {**item, "status": 404, "error": {"type": "document_missing_exception"}} \
                if have is None else self._bump(table, doc_id, src or {})
        self.seq += 1
        table[doc_id] = {"src": copy.deepcopy(src), "seq_no": self.seq, "term": 1}
        return {**item, "status": 201 if have is None else 200,
                "result": "created" if have is None else "updated", "_seq_no": self.seq,
                "_primary_term": 1}

    def _bump(self, table: dict, doc_id: str, body: dict) -> dict:
        src = table[doc_id]["src"]
        params = body.get("script", {}).get("params", {})
        if src.get("user_id") != params.get("user_id"):
            return {"_id": doc_id, "status": 200, "result": "noop"}
        src["use_count"] = (src.get("use_count") or 0) + 1
        src["last_used_at"] = params.get("at")
        self.seq += 1
        table[doc_id].update(seq_no=self.seq)
        return {"_id": doc_id, "status": 200, "result": "updated", "_seq_no": self.seq,
                "_primary_term": 1}

    def _get(self, index: str, doc_id: str) -> dict:
        have = self.docs.get(_alias(index), {}).get(doc_id)
        if have is None:
            return {"_index": index, "_id": doc_id, "found": False}
        src = {k: v for k, v in have["src"].items() if k != "vector"}
        return {"_index": _alias(index) + "-v2", "_id": doc_id, "_version": 1, "found": True,
                "_seq_no": have["seq_no"], "_primary_term": have["term"], "_source": src}

    def _matches(self, src: dict, doc_id: str, q: dict | None) -> bool:
        if not q or "match_all" in q:
            return True
        if "term" in q:
            (f, v), = q["term"].items()
            v = v.get("value") if isinstance(v, dict) else v
            have = src.get(f)
            return v in have if isinstance(have, list) else have == v
        if "terms" in q:
            (f, vs), = q["terms"].items()
            have = src.get(f)
            return any(x in vs for x in have) if isinstance(have, list) else have in vs
        if "ids" in q:
            return doc_id in q["ids"]["values"]
        if "exists" in q:
            return src.get(q["exists"]["field"]) is not None
        if "bool" in q:
            b = q["bool"]
            ok = all(self._matches(src, doc_id, c) for c in b.get("filter", []) + b.get("must", []))
            ok = ok and not any(self._matches(src, doc_id, c) for c in b.get("must_not", []))
            should = b.get("should", [])
            if should and (b.get("minimum_should_match") or not (b.get("filter") or b.get("must"))):
                ok = ok and any(self._matches(src, doc_id, c) for c in should)
            return ok
        return False  # match/knn/script queries: not modelled, nothing matches

    def _search(self, req: Req) -> tuple[int, dict]:
        body = req.body or {}
        if "search_after" in body or "knn" in body or "retriever" in body:
            return 200, search_answer(req, [])
        indices = req.path.split("/")[1].split(",")
        hits = []
        for index in indices:
            for doc_id, have in sorted(self.docs.get(_alias(index), {}).items()):
                if self._matches(have["src"], doc_id, body.get("query")):
                    src = {k: v for k, v in have["src"].items() if k != "vector"}
                    hit = {"_index": _alias(index) + "-v2", "_id": doc_id, "_score": 1.0,
                           "_source": src, "sort": [doc_id]}
                    if body.get("seq_no_primary_term"):
                        hit.update(_seq_no=have["seq_no"], _primary_term=have["term"])
                    hits.append(hit)
        return 200, search_answer(req, hits[: int(body.get("size", 10))])

    def _route(self, req: Req) -> tuple[int, dict] | None:
        m, p = req.method, req.path
        if m in ("PUT", "POST") and p == "/_bulk":
            items, pairs = [], req.bulk_pairs
            for action, src in pairs:
                (op, meta), = action.items()
                params = {k: meta[k] for k in ("if_seq_no", "if_primary_term") if k in meta}
                res = self._write(op, meta["_index"], meta["_id"], src, params)
                items.append({op: res})
            return 200, {"took": 1, "errors": any(next(iter(i.values()))["status"] >= 300
                                                  for i in items), "items": items}
        if m in ("POST", "GET") and p == "/_mget":
            return 200, {"docs": [self._get(d["_index"], d["_id"]) for d in req.body["docs"]]}
        w = re.match(r"^/([^/_][^/]*)/_(create|doc)/([^/]+)$", p)
        if w and m in ("PUT", "POST"):
            op = "create" if w.group(2) == "create" or req.params.get("op_type") == "create" \
                else "index"
            res = self._write(op, w.group(1), w.group(3), req.body, req.params)
            return res["status"], {**res, "_version": 1}
        if w and m == "DELETE":
            res = self._write("delete", w.group(1), w.group(3), None, req.params)
            return res["status"], res
        if w and m == "GET":
            got = self._get(w.group(1), w.group(3))
            return (200 if got["found"] else 404), got
        if m in ("POST", "GET") and p.endswith("/_search"):
            return self._search(req)
        if m in ("POST", "GET") and p.endswith("/_count"):
            _s, body = self._search(req)
            return 200, {"count": len(body["hits"]["hits"])}
        return None

    def answer(self, req: Req):
        if self.dead:
            raise Crash(f"{req.method} {req.path}")
        self.count += 1
        if self.anchor is not None and self.anchor[0].match(req.path):
            rx, kinds = self.anchor
            self.faults.update({self.count + i: k for i, k in enumerate(kinds)})
            self.anchor = None
        fault = self.faults.get(self.count)
        if fault == "crash":
            self.dead = True
            raise Crash(f"{req.method} {req.path}")
        for method, rx, ans in self.routes:  # a test's own route first
            if method == req.method and rx.match(req.path):
                out = ans(req) if callable(ans) else ans
                break
        else:
            out = self._route(req) or super().answer(req)
        if fault == "after":
            self.dead = True
            raise Crash(f"after {req.method} {req.path}")
        if fault == "lost":
            return ConnectionTimeout(f"answer to {req.method} {req.path} lost")
        return out
