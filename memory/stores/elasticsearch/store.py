"""ElasticsearchStore: the Store protocol on Elasticsearch 8.15+ (and 9.x) with the 8.x client.

Same behaviour as the embedded store, proven by the shared contract suite when MEMDESK_ES_URL
is set and by the request-shape tests in tests/es always. Bodies are built in queries.py,
mappings live in mappings/*.json, the ranking script in painless.py.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from datetime import datetime
from urllib.parse import urlsplit, urlunsplit

import numpy as np
from elastic_transport import ConnectionError as TransportConnectionError
from elastic_transport import TransportError
from elasticsearch import ApiError, Elasticsearch
from elasticsearch import NotFoundError as EsNotFound

from ...embeddings import Embedder
from ...errors import ConflictError, MemdeskError, StoreUnavailableError
from ...models import (
    AuditEvent,
    CatalogDoc,
    Episode,
    Fact,
    FactState,
    MemoryKind,
    Playbook,
    Tombstone,
)
from ...ranking import RankedHit, RankingParams
from ...values import TombstoneProbe
from ..base import (
    AnyMemory,
    FactSummary,
    LegHit,
    Op,
    PutMemory,
    PutTombstone,
    RecallFilter,
    UpdateMemory,
)
from . import queries, security, writes
from .indices import ALL_INDICES, MAPPING_VERSION, IndexNames, index_body, mapping_differences
from .results import from_source, has_direction, ranked_hits
from .writes import watermark_id

log = logging.getLogger(__name__)
PAGE = 1000
USER_ALIASES = ("episodic", "semantic", "procedural")
SUMMARY_FIELDS = ("id", "user_id", "rev", "state", "text", "fact_type", "confidence",
                  "recorded_at", "supersedes", "contradiction", "flags", "plan_id", "origin")
START_HINT = ("start one with `docker compose up -d elasticsearch` in the project root "
              "(README: Running Elasticsearch), or point --store / MEMDESK_STORE elsewhere")


def redact(url: str) -> str:
    """The URL without credentials, for messages and logs."""
    parts = urlsplit(url)
    if parts.username or parts.password:
        host = parts.hostname or ""
        netloc = f"***@{host}" + (f":{parts.port}" if parts.port else "")
        return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    return url


def api_key_doc_id(user_id: str) -> str:
    return "key_" + hashlib.sha1(user_id.encode()).hexdigest()


class ElasticsearchStore:
    """Store on Elasticsearch. Thread-safe: the client is; local caches sit behind a lock."""

    licence = "basic"  # until GET /_license says otherwise (messages during start-up use it)

    def __init__(self, url: str, embedder: Embedder, prefix: str | None = None, *,
                 client: Elasticsearch | None = None, request_timeout: float = 10.0):
        if prefix is None:  # MEMDESK_ES_PREFIX, default "memdesk"
            from ...settings import load_settings

            prefix = load_settings()["es_prefix"]
        self.es_url = url
        self.url = f"elasticsearch:{url}"
        self.embedder = embedder
        try:
            self.names = IndexNames(prefix)
        except ValueError as exc:
            raise MemdeskError(str(exc)) from None
        self._timeout = request_timeout
        self._where = redact(url)
        self._lock = threading.RLock()
        self._closed = False
        self._dirty: set[str] = set()  # aliases written without a refresh (episodes, usage)
        self._keys: dict[str, str | None] = {}
        self._seq = 0
        self.es = client if client is not None else self._new_client()
        info = self._call(self.es.info)
        self.server_version = security.check_version(dict(info), self._where)
        self.licence = "serverless" if security.is_serverless(dict(info)) else self._licence()
        self.rrf_enabled = security.allows_rrf(self.licence)
        self.dls_available = security.allows_dls(self.licence)
        self._ensure_indices()
        log.info("elasticsearch %s at %s, licence %s: recall uses %s", self.server_version,
                 self._where, self.licence, self.recall_path)

    # connection and errors ------------------------------------------------------------------
    def _new_client(self) -> Elasticsearch:
        return Elasticsearch(self.es_url, request_timeout=self._timeout, max_retries=2,
                             retry_on_timeout=True)

    @property
    def recall_path(self) -> str:
        """Which hybrid path recall takes; MemoryService reports it in explain."""
        return ("elasticsearch: rrf retriever" if self.rrf_enabled
                else "elasticsearch: client-side RRF")

    def _call(self, fn, *args, **kwargs):
        """Run one client call, turning transport failures into product errors."""
        if self._closed:
            raise MemdeskError("the store is closed")
        try:
            return fn(*args, **kwargs)
        except TransportConnectionError as exc:  # invariant 29
            raise StoreUnavailableError(
                f"cannot reach Elasticsearch at {self._where} ({type(exc).__name__}): "
                f"{START_HINT}") from exc
        except ApiError as exc:
            if exc.meta.status == 403 and "license" in _reason(exc).lower():
                raise security.LicenceError(
                    f"the licence of the cluster at {self._where} ({self.licence}) does not "
                    f"allow this request: {_reason(exc)}") from exc
            if exc.meta.status in (401, 403) and "security_exception" in str(exc):
                raise StoreUnavailableError(
                    f"Elasticsearch at {self._where} refused the request "
                    f"({exc.meta.status}: {_reason(exc)}): check the credentials in the URL "
                    "and the user's privileges") from exc
            raise
        except TransportError as exc:  # timeouts, TLS: the cluster is not usable right now
            raise StoreUnavailableError(
                f"Elasticsearch at {self._where} did not answer: {exc}. {START_HINT}") from exc

    def _licence(self) -> str:
        try:
            return security.licence_type(dict(self._call(self.es.license.get)))
        except ApiError:  # no licence endpoint (or no privilege to read it): assume the least
            return "basic"

    def _ensure_indices(self) -> None:
        """Create missing indices (concrete + alias); refuse one whose mapping differs."""
        for name in ALL_INDICES:
            want = index_body(name, self.embedder.name, self.embedder.dims)
            alias = self.names.alias(name)
            try:
                live = dict(self._call(self.es.indices.get_mapping, index=alias))
            except EsNotFound:
                body = {**want, "aliases": {alias: {"is_write_index": True}}}
                try:
                    self._call(self.es.indices.create, index=self.names.concrete(name), **body)
                except ApiError as exc:
                    if "resource_already_exists_exception" not in str(exc):  # lost a race: fine
                        raise
                continue
            for concrete, spec in live.items():
                if concrete != self.names.concrete(name):
                    raise MemdeskError(
                        f"index {concrete} behind alias {alias} is not mapping version "
                        f"{MAPPING_VERSION} ({self.names.concrete(name)}): run "
                        f"`memdesk es reindex --store {self.url}` to copy it to the current mapping")
                diffs = mapping_differences(name, want, spec.get("mappings", {}))
                if diffs:  # invariant 26
                    raise MemdeskError(
                        f"index {concrete} has a mapping that differs from "
                        f"memory/stores/elasticsearch/mappings/{name}.json: {'; '.join(diffs)}. "
                        "Use another prefix (MEMDESK_ES_PREFIX), or reindex into a new version")

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self.es.close()

    def drop_indices(self) -> None:
        """Delete this prefix's indices (test teardown). Works after close()."""
        es = self._new_client() if self._closed else self.es
        try:
            es.indices.delete(index=",".join(self.names.concrete(n) for n in ALL_INDICES),
                              ignore_unavailable=True)
        finally:
            if es is not self.es:
                es.close()

    def refresh(self, names: tuple[str, ...] = ALL_INDICES) -> None:
        self._call(self.es.indices.refresh, index=",".join(self.names.alias(n) for n in names))
        with self._lock:
            self._dirty -= {self.names.alias(n) for n in names}

    def _fresh(self, *names: str) -> None:
        """Read-your-writes for listing reads: refresh only indices this process wrote without
        a refresh (episodes, audit of episodes, usage bumps). Recall never does (invariant 24)."""
        with self._lock:
            wanted = {self.names.alias(n) for n in names} & self._dirty
        if wanted:
            self._call(self.es.indices.refresh, index=",".join(sorted(wanted)))
            with self._lock:
                self._dirty -= wanted

    # document-level security ------------------------------------------------------------------
    def _reader(self, user_id: str | None) -> Elasticsearch:
        """The client a user's reads go through: their DLS API key when one was minted
        (`memdesk es bootstrap-users`), else the store's. The user filter stays on in every
        query either way (invariant 27)."""
        if user_id is None or not self.dls_available:
            return self.es
        with self._lock:
            known = user_id in self._keys
            key = self._keys.get(user_id)
        if not known:
            try:
                src = self._call(self.es.get, index=self.names.alias("state"),
                                 id=api_key_doc_id(user_id))["_source"]
                key = src.get("encoded")
            except EsNotFound:
                key = None
            with self._lock:
                self._keys[user_id] = key
        return self.es.options(api_key=key) if key else self.es

    def bootstrap_user(self, user_id: str) -> str:
        """Mint (or re-mint) this user's read-only DLS key and keep it in the state index."""
        security.require_dls(self.licence, self._where)
        resp = self._call(self.es.security.create_api_key, **security.api_key_body(self.names, user_id))
        self._call(self.es.index, index=self.names.alias("state"), id=api_key_doc_id(user_id),
                   document={"type": "api_key", "user_id": user_id, "key_id": resp["id"],
                             "encoded": resp["encoded"]}, refresh="wait_for")
        with self._lock:
            self._keys[user_id] = resp["encoded"]
        return str(resp["id"])

    # reads --------------------------------------------------------------------------------------
    def _get_source(self, es: Elasticsearch, name: str, doc_id: str) -> dict | None:
        try:
            return dict(self._call(es.get, index=self.names.alias(name), id=doc_id,
                                   source_excludes=queries.SOURCE_EXCLUDES)["_source"])
        except EsNotFound:
            return None

    def get(self, kind: MemoryKind, user_id: str | None, memory_id: str) -> AnyMemory | None:
        kind = MemoryKind(kind)
        src = self._get_source(self._reader(user_id), kind.value, memory_id)
        if src is None or src.get("user_id") != user_id:  # another user's id is a missing id
            return None
        return from_source(src)

    def owner_of(self, kind: MemoryKind, memory_id: str) -> str | None:
        src = self._get_source(self.es, MemoryKind(kind).value, memory_id)
        return None if src is None else src.get("user_id")

    def _scan(self, es: Elasticsearch, index: str, query: dict, sort: list[dict],
              includes: tuple[str, ...] | None = None) -> list[dict]:
        """Every hit, paged with search_after on a sort that ends in the unique id."""
        out: list[dict] = []
        after = None
        while True:
            extra: dict = {"search_after": after} if after is not None else {}
            if includes:
                extra["source_includes"] = list(includes)
            resp = self._call(es.search, index=index, query=query, sort=sort, size=PAGE,
                              source_excludes=queries.SOURCE_EXCLUDES, track_total_hits=False,
                              **extra)
            hits = resp["hits"]["hits"]
            out.extend(hits)
            if len(hits) < PAGE:
                return out
            after = hits[-1]["sort"]

    def list_facts(self, user_id: str, *, states=None, ids=None) -> list[Fact]:
        if ids is not None and not ids:
            return []
        flt: list[dict] = [{"term": {"user_id": user_id}}]
        if states:
            flt.append({"terms": {"state": sorted(FactState(s).value for s in states)}})
        if ids is not None:
            flt.append({"ids": {"values": list(ids)}})
        self._fresh("semantic")
        hits = self._scan(self._reader(user_id), self.names.alias("semantic"),
                          {"bool": {"filter": flt}}, [{"recorded_at": "asc"}, {"id": "asc"}])
        facts = [from_source(h["_source"]) for h in hits]
        return sorted(facts, key=lambda f: (f.recorded_at, f.id))  # type: ignore[attr-defined,return-value]

    def list_episodes(self, user_id: str, *, after: datetime | None = None,
                      limit: int | None = None) -> list[Episode]:
        flt: list[dict] = [{"term": {"user_id": user_id}}]
        if after is not None:
            flt.append({"range": {"timestamp": {"gt": after.isoformat()}}})
        self._fresh("episodic")
        hits = self._scan(self._reader(user_id), self.names.alias("episodic"),
                          {"bool": {"filter": flt}},
                          [{"timestamp": "asc"}, {"recorded_at": "asc"}, {"id": "asc"}])
        eps: list[Episode] = [from_source(h["_source"]) for h in hits]  # type: ignore[misc]
        eps.sort(key=lambda e: (e.timestamp, e.recorded_at, e.id))
        if after is not None:
            eps = [e for e in eps if e.timestamp > after]
        return eps[:limit] if limit else eps

    def list_playbooks(self, user_id: str) -> list[Playbook]:
        self._fresh("procedural")
        hits = self._scan(self._reader(user_id), self.names.alias("procedural"),
                          {"bool": {"filter": [{"term": {"user_id": user_id}}]}},
                          [{"recorded_at": "asc"}, {"id": "asc"}])
        return [from_source(h["_source"]) for h in hits]  # type: ignore[misc]

    def list_catalog(self) -> list[CatalogDoc]:
        hits = self._scan(self.es, self.names.alias("catalog"), {"match_all": {}},
                          [{"recorded_at": "asc"}, {"id": "asc"}])
        return [from_source(h["_source"]) for h in hits]  # type: ignore[misc]

    def list_tombstones(self, user_id: str) -> list[Tombstone]:
        hits = self._scan(self._reader(user_id), self.names.alias("tombstones"),
                          {"bool": {"filter": [{"term": {"user_id": user_id}}]}},
                          [{"seq": "asc"}, {"id": "asc"}])
        return [Tombstone.model_validate(_strip(h["_source"])) for h in hits]

    def nearest_tombstones(self, user_id: str, vector: np.ndarray, k: int = 3):
        if not has_direction(vector):
            return []
        body = queries.tombstone_knn(self.names, user_id, vector, k)
        resp = self._call(self._reader(user_id).search, **body)
        # cosine _score is (1 + cos) / 2; callers compare the cosine itself.
        return [(Tombstone.model_validate(_strip(h["_source"])), 2.0 * float(h["_score"]) - 1.0)
                for h in resp["hits"]["hits"] if h["_source"].get("user_id") == user_id]

    def tombstone_candidates(self, user_id: str, probe: TombstoneProbe, vector,
                             k: int = 5, *, limit: int = 20) -> list[tuple[Tombstone, float | None]]:
        """Key and slot-term lookups plus the k nearest by vector (invariant 63); a key hit
        outside the nearest carries no cosine (vectors never travel back)."""
        query = vector() if callable(vector) else vector
        out = {t.id: (t, c) for t, c in self.nearest_tombstones(user_id, query, k)}
        body = queries.tombstone_keys(self.names, user_id, list(probe.keys), probe.normalized,
                                      list(probe.terms), limit)
        resp = self._call(self._reader(user_id).search, **body)
        for h in resp["hits"]["hits"]:
            if h["_source"].get("user_id") == user_id and h["_id"] not in out:
                out[h["_id"]] = (Tombstone.model_validate(_strip(h["_source"])), None)
        return list(out.values())

    def audit(self, user_id: str, *, limit: int = 100, action: str | None = None,
              plan_id: str | None = None) -> list[AuditEvent]:
        flt: list[dict] = [{"term": {"user_id": user_id}}]
        if action:
            flt.append({"term": {"action": action}})
        if plan_id:
            flt.append({"term": {"plan_id": plan_id}})
        self._fresh("audit")
        resp = self._call(self._reader(user_id).search, index=self.names.alias("audit"),
                          query={"bool": {"filter": flt}}, sort=[{"seq": "desc"}, {"id": "desc"}],
                          size=min(limit, 10_000), track_total_hits=False)
        return [AuditEvent.model_validate(_strip(h["_source"])) for h in resp["hits"]["hits"]]

    def audit_count(self, user_id: str) -> int:
        self._fresh("audit")
        return int(self._call(self.es.count, index=self.names.alias("audit"),
                              query={"term": {"user_id": user_id}})["count"])

    def users(self) -> list[str]:
        self._fresh(*USER_ALIASES)
        resp = self._call(self.es.search, index=",".join(self.names.alias(n) for n in USER_ALIASES),
                          size=0, aggs={"users": {"terms": {"field": "user_id", "size": 10_000,
                                                            "order": {"_key": "asc"}}}})
        return [b["key"] for b in resp["aggregations"]["users"]["buckets"]]

    def counts(self, user_id: str) -> dict[str, dict[str, int]]:
        self._fresh(*USER_ALIASES)
        resp = self._call(self._reader(user_id).search,
                          index=",".join(self.names.alias(n) for n in USER_ALIASES), size=0,
                          query={"term": {"user_id": user_id}}, aggs=queries.counts_aggs())
        out: dict[str, dict[str, int]] = {}
        for kb in resp["aggregations"]["kinds"]["buckets"]:
            out[kb["key"]] = {sb["key"]: sb["doc_count"] for sb in kb["states"]["buckets"]}
        return out

    def _terms(self, name: str, field: str, query: dict | None = None) -> list[str]:
        resp = self._call(self.es.search, index=self.names.alias(name), size=0,
                          query=query or {"match_all": {}},
                          aggs={"keys": {"terms": {"field": field, "size": 10_000,
                                                   "order": {"_key": "asc"}}}})
        return [b["key"] for b in resp["aggregations"]["keys"]["buckets"]]

    def audit_users(self) -> list[str]:
        self._fresh("audit")
        return self._terms("audit", "user_id")

    def watermark_users(self) -> list[str]:
        return self._terms("state", "user_id", {"term": {"type": "watermark"}})

    def watermarks(self, user_id: str) -> dict[str, str]:
        hits = self._scan(self.es, self.names.alias("state"), {"bool": {"filter": [
            {"term": {"type": "watermark"}}, {"term": {"user_id": user_id}}]}},
            [{"name": "asc"}])  # one watermark per (user, name): name is unique here
        return {h["_source"]["name"]: h["_source"]["value"] for h in hits}

    def get_watermark(self, user_id: str, name: str) -> str | None:
        src = self._get_source(self.es, "state", watermark_id(user_id, name))
        return None if src is None else src.get("value")

    def fact_summaries(self, user_ids: list[str], *, states=None) -> list[FactSummary]:
        """Listing fields only (`_source` filtering), for the review queue (issue 6)."""
        if not user_ids:
            return []
        flt: list[dict] = [{"terms": {"user_id": sorted(set(user_ids))}}]
        if states:
            flt.append({"terms": {"state": sorted(FactState(s).value for s in states)}})
        self._fresh("semantic")
        hits = self._scan(self.es, self.names.alias("semantic"), {"bool": {"filter": flt}},
                          [{"recorded_at": "asc"}, {"id": "asc"}], includes=SUMMARY_FIELDS)
        out = []
        for h in hits:
            s = h["_source"]
            out.append(FactSummary(
                s["id"], s["user_id"], int(s["rev"]), s["state"], s["text"], s["fact_type"],
                float(s["confidence"]), datetime.fromisoformat(s["recorded_at"]), s.get("supersedes"),
                s.get("contradiction"), tuple(s.get("flags") or ()), s.get("plan_id"),
                s.get("origin", "agent")))
        out.sort(key=lambda f: (f.recorded_at, f.id))
        return out

    # search -------------------------------------------------------------------------------------
    def _leg_hits(self, flt: RecallFilter, resp) -> list[LegHit]:
        out = []
        for h in resp["hits"]["hits"]:
            doc = from_source(h["_source"])
            # Belt and braces behind the pre-filter: never hand back another user's memory.
            if doc.user_id not in (flt.user_id, None):
                continue
            out.append(LegHit(doc=doc, score=float(h["_score"])))
        return out

    def search_bm25(self, flt: RecallFilter, query: str, limit: int) -> list[LegHit]:
        body = queries.bm25_search(self.names, flt, query, limit)
        return self._leg_hits(flt, self._call(self._reader(flt.user_id).search, **body))

    def search_dense(self, flt: RecallFilter, vector: np.ndarray, limit: int) -> list[LegHit]:
        if not has_direction(vector):  # a query with no tokens has no direction to compare
            return []
        body = queries.dense_search(self.names, flt, vector, limit)
        return self._leg_hits(flt, self._call(self._reader(flt.user_id).search, **body))

    def hybrid_search(self, flt: RecallFilter, query: str, vector: np.ndarray, limit: int,
                      now: datetime, params: RankingParams) -> list[RankedHit] | None:
        """One rrf-retriever request (multipliers in Painless). None when the licence does not
        allow it: the caller then runs the two legs and fuses them itself (invariant 21)."""
        if not self.rrf_enabled or not has_direction(vector):
            return None
        body = queries.rrf_search(self.names, flt, query, vector, limit, now, params)
        try:
            resp = self._call(self._reader(flt.user_id).search, **body)
        except security.LicenceError as exc:  # e.g. Basic: detected once, then remembered
            self.rrf_enabled = False
            log.warning("rrf retriever refused (%s): using %s", exc, self.recall_path)
            return None
        hits = [h for h in resp["hits"]["hits"]
                if h["_source"].get("user_id") in (flt.user_id, None)]
        return ranked_hits(hits, now, params)

    # writes -------------------------------------------------------------------------------------
    def _next_seq(self) -> int:
        """A per-process monotonic sequence (wall-clock nanoseconds) that orders audit events
        and tombstones appended in one batch, like the embedded store's autoincrement."""
        with self._lock:
            self._seq = max(self._seq + 1, time.time_ns())
            return self._seq

    def _vectors_for(self, ops: list[Op]) -> dict[str, np.ndarray]:
        texts: dict[str, str] = {}
        for op in ops:
            if isinstance(op, (PutMemory, UpdateMemory)):
                texts[op.doc.id] = op.doc.search_text()
            elif isinstance(op, PutTombstone):
                texts[op.tombstone.id] = op.tombstone.text
        if not texts:
            return {}
        keys = list(texts)
        return dict(zip(keys, self.embedder.embed([texts[k] for k in keys])))

    def apply(self, ops: list[Op]) -> None:
        """Validate every op against what is stored, then send one bulk in op order.

        Elasticsearch has no multi-document transaction (invariant 23): a batch with an update,
        delete or watermark move is checked whole first (one mget), so a stale revision writes
        nothing; those ops carry if_seq_no/if_primary_term so a writer that slips in between
        still loses with a ConflictError; ids are the records' own, so re-applying converges."""
        ops = list(ops)
        if not ops:
            return
        if self._closed:
            raise MemdeskError("the store is closed")
        vectors = self._vectors_for(ops)
        wanted = writes.documents_read(ops) if writes.needs_read(ops) else []
        current: dict = {}
        if wanted:
            resp = self._call(self.es.mget, docs=[{"_index": self.names.alias(n), "_id": i}
                                                  for n, i in wanted],
                              source_excludes=queries.SOURCE_EXCLUDES)
            current = writes.current_from_mget(wanted, resp["docs"])
        actions = writes.Planner(self.names, current, vectors, self._next_seq).plan(ops)
        if not actions:
            return
        refresh, unrefreshed = writes.refresh_policy(actions)
        resp = self._call(self.es.bulk, operations=writes.bulk_lines(actions), refresh=refresh)
        if unrefreshed:
            with self._lock:
                self._dirty |= unrefreshed
        for index, doc_id, sent in writes.check_bulk(resp, actions):
            # An insert met a document with its id: the same record (a retried batch) is fine.
            stored = self._get_source(self.es, index.removeprefix(self.names.prefix + "-"), doc_id)
            if stored is None or not writes.same_record(stored, sent):
                raise ConflictError(f"{sent.get('kind')} {doc_id} already exists", target_id=doc_id)

    def bump_usage(self, user_id: str, used: list[tuple[MemoryKind, str]], at: datetime) -> None:
        pairs = [(MemoryKind(k).value, i) for k, i in used
                 if k in (MemoryKind.SEMANTIC, MemoryKind.PROCEDURAL)]
        if not pairs:
            return
        stamp = at.isoformat().replace("+00:00", "Z")
        body = queries.usage_bump(stamp, user_id)
        lines: list[dict] = []
        for name, doc_id in pairs:  # each id to its own index: one update per hit
            lines += [{"update": {"_index": self.names.alias(name), "_id": doc_id,
                                  "retry_on_conflict": 3}}, body]
        resp = self._call(self.es.bulk, operations=lines, refresh="false")
        with self._lock:
            self._dirty |= {self.names.alias(name) for name, _ in pairs}
        bad = [r for item in resp.get("items", []) for r in item.values()
               if r.get("status", 200) >= 300 and r.get("status") != 404]
        if bad:
            raise MemdeskError(f"usage bump failed for {bad[0].get('_id')}: {bad[0].get('error')}")


def _reason(exc: ApiError) -> str:
    info = exc.info if isinstance(exc.info, dict) else {}
    err = info.get("error", {})
    return str(err.get("reason") if isinstance(err, dict) else err or exc.message)


def _strip(src: dict) -> dict:
    return {k: v for k, v in src.items()
            if k not in ("seq", "vector", "match_key", "match_terms")}
