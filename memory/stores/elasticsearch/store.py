"""ElasticsearchStore: the Store protocol on Elasticsearch 8.15+ (and 9.x) with the 8.x client.

Same behaviour as the embedded store, proven by the shared contract suite when MEMDESK_ES_URL
is set and by the request-shape tests in tests/es always. Bodies are built in queries.py,
mappings live in mappings/*.json, the ranking script in painless.py.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import numpy as np
from elastic_transport import ConnectionError as TransportConnectionError
from elastic_transport import TlsError, TransportError
from elasticsearch import ApiError, Elasticsearch
from elasticsearch import NotFoundError as EsNotFound

from ...credentials import Credential
from ...embeddings import Embedder
from ...errors import MemdeskError, StoreUnavailableError
from ...lexicon import words_of
from ...models import (
    PROPOSED_RETRACTION,
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
from ...redaction import Erasure, hash_tombstone, redact_event, redact_tombstone
from ...values import TombstoneProbe
from ..base import (
    AnyMemory,
    AppendAudit,
    Capability,
    DeleteMemory,
    FactPage,
    FactQuery,
    FactSummary,
    LegHit,
    Op,
    PutMemory,
    PutTombstone,
    RecallFilter,
    UpdateMemory,
    page_summaries,
)
from ..user_view import IndexParams
from . import context, intents, queries, security, tasks, tombkeys, usage, writes
from .batch import AnswerLost, PartiallyAppliedError, Unresolved
from .batchstate import BatchRecords
from .connection import TLS_HINT, ConnectionSettings, new_client, writer
from .indices import ALL_INDICES, MAPPING_VERSION, IndexNames, index_body, mapping_differences
from .results import from_source, has_direction, ranked_hits, source_as
from .userkeys import UserKeys, expiration
from .writes import Step, watermark_id

T = TypeVar("T")

log = logging.getLogger(__name__)
D = TypeVar("D", bound=AnyMemory)
PAGE = 1000
USER_ALIASES = ("episodic", "semantic", "procedural")
SUMMARY_FIELDS = ("id", "user_id", "rev", "state", "text", "fact_type", "confidence",
                  "recorded_at", "supersedes", "contradiction", "flags", "plan_id", "origin",
                  "batch")
START_HINT = ("start one with `docker compose up -d elasticsearch` in the project root "
              "(README: Running Elasticsearch), or point --store / MEMDESK_STORE elsewhere")
LICENCE_RETRY_S = 60.0  # a licence read that failed for a passing reason is tried again after
RRF_PATH, CLIENT_PATH = "elasticsearch: rrf retriever", "elasticsearch: client-side RRF"


class CredentialsRejected(StoreUnavailableError):
    """401: the credentials (or a per-user key) were refused."""


def redact(url: str) -> str:
    """The URL without credentials, for messages and logs."""
    parts = urlsplit(url)
    if parts.username or parts.password:
        host = parts.hostname or ""
        netloc = f"***@{host}" + (f":{parts.port}" if parts.port else "")
        return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    return url


VALUE_KEY_ID = "secret_value_key"  # state index: the key of forgotten tombstones' hashes


def api_key_doc_id(user_id: str) -> str:
    """The state document that marks a user for per-user keys (no secret in it: issue 16)."""
    return "key_" + hashlib.sha1(user_id.encode()).hexdigest()


class ElasticsearchStore(BatchRecords):
    """Store on Elasticsearch. Thread-safe: the client is; local caches sit behind a lock."""

    licence = "basic"  # until GET /_license says otherwise (messages during start-up use it)

    def __init__(self, url: str, embedder: Embedder, prefix: str = "memdesk", *,
                 client: Elasticsearch | None = None, request_timeout: float = 10.0,
                 connection: ConnectionSettings | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 wall: Callable[[], float] = time.time,
                 num_candidates: float = queries.CANDIDATES_PER_K) -> None:
        self.es_url = url
        self.url = f"elasticsearch:{url}"
        self.embedder = embedder
        try:
            self.names = IndexNames(prefix)
        except ValueError as exc:
            raise MemdeskError(str(exc)) from None
        # TLS and credentials from MEMDESK_ES_* (issue 16, invariant 29)
        self.conn = connection or ConnectionSettings(url=url, request_timeout=request_timeout)
        self._timeout = request_timeout
        self._where = redact(url)
        self._clock = clock
        self._wall = wall  # dates batch documents: the sweeper's lease (intents.LEASE_S)
        # invariant 97: knn num_candidates as a multiple of k (MEMDESK_ES_NUM_CANDIDATES)
        self.candidates_per_k = queries.checked_per_k(num_candidates)
        self._finished: set[str] = set()  # batches known committed (committed is final)
        self._unsettled: set[str] = set()  # this process's batches whose outcome is unknown
        self.key_failures: list[str] = []  # API keys whose invalidation failed (es status)
        self.licence_note: str | None = None  # why the licence read fell back to Basic
        self._lock = threading.RLock()
        self._closed = False
        self._dirty: set[str] = set()  # aliases written without a refresh (episodes)
        self._usage_left: set[tuple[str, str]] = set()  # usage docs a delete failed (inv. 24)
        # Issue 17: the session window indexed with each episode (its `context` field) and the
        # weight recall gives it, as the embedded store holds its own.
        self.index_params = IndexParams()
        self._context_lock = threading.Lock()  # one session-context follow-up at a time
        self._value_key: bytes | None = None
        self._path = threading.local()  # the hybrid path this thread's last recall took
        self._seq = 0
        self._rrf_refused = False
        self._licence_due: float | None = None
        self.es = client if client is not None else self._new_client()
        self._writer = writer(self.es)  # no transport retries for what is not idempotent
        self._user_keys = UserKeys(self._mint_user_key, self._invalidate_keys, self._user_marked,
                                   clock=clock)
        info = self._call(self.es.info)
        self.server_version = security.check_version(dict(info), self._where)
        self.tombstone_matching = security.tombstone_matching(self.server_version)
        self._read_licence()
        self._ensure_indices()
        # Invariant 63: keys written under older key rules are recomputed before any check.
        tombkeys.ensure_tombstone_keys(self.es, self._writer, self.names,
                                       lambda fn, what: self._call(fn))
        self.swept = self.sweep()  # invariant 470: abandoned batches finished before any read
        log.info("elasticsearch %s at %s, licence %s: recall uses %s; tombstones matched by %s "
                 "(invariant 98)", self.server_version, self._where, self.licence,
                 self.recall_path, self.tombstone_matching)

    # connection and errors ------------------------------------------------------------------
    def _new_client(self) -> Elasticsearch:
        return new_client(self.conn)

    @property
    def capabilities(self) -> frozenset[Capability]:
        # Always offered: hybrid_search answers None while the licence lacks the rrf retriever
        # (and the licence is re-read, so an upgrade takes effect without a restart).
        caps = {Capability.HYBRID_SEARCH, Capability.WEIGHTED_TERMS}  # weighted: invariant 169
        if self.dls_available:
            caps.add(Capability.PER_USER_KEYS)
        return frozenset(caps)

    @property
    def recall_path(self) -> str:
        """Which hybrid path recall took; MemoryService reports it in explain. Invariant 21:
        the path this thread's last recall actually took (the rrf retriever only runs for a
        plain-rrf ranking, so a licence that allows it is not enough); before any recall, the
        path a plain-rrf recall would take."""
        taken = getattr(self._path, "taken", None)
        if taken is not None:
            return taken
        return RRF_PATH if self.rrf_enabled else CLIENT_PATH

    def _call(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run one client call, turning transport failures into product errors."""
        if self._closed:
            raise MemdeskError("the store is closed")
        try:
            return fn(*args, **kwargs)
        except TlsError as exc:  # invariant 29: a secured cluster needs its CA
            raise StoreUnavailableError(
                f"cannot verify the TLS certificate of Elasticsearch at {self._where} ({exc}): "
                f"{TLS_HINT}") from exc
        except TransportConnectionError as exc:  # invariant 29
            raise AnswerLost(  # sent or not, no answer: a write may have landed (invariant 92)
                f"cannot reach Elasticsearch at {self._where} ({type(exc).__name__}): "
                f"{START_HINT}") from exc
        except ApiError as exc:
            if exc.meta.status == 403 and "license" in _reason(exc).lower():
                raise security.LicenceError(
                    f"the licence of the cluster at {self._where} ({self.licence}) does not "
                    f"allow this request: {_reason(exc)}") from exc
            if exc.meta.status in (401, 403) and "security_exception" in str(exc):
                kind = CredentialsRejected if exc.meta.status == 401 else StoreUnavailableError
                raise kind(
                    f"Elasticsearch at {self._where} refused the request "
                    f"({exc.meta.status}: {_reason(exc)}): check MEMDESK_ES_API_KEY or the "
                    "credentials in the URL, and the user's privileges") from exc
            raise
        except TransportError as exc:  # timeouts: the cluster is not usable right now
            raise AnswerLost(
                f"Elasticsearch at {self._where} did not answer: {exc}. {START_HINT}") from exc

    def _read_licence(self) -> None:
        """GET /_license. A 403 (no privilege to read it) means Basic for good; a 404 (no
        licence in the cluster state yet: RestGetLicenseAction answers NOT_FOUND), a 5xx or a
        timeout means Basic for now, and the licence is read again LICENCE_RETRY_S later
        (invariant 25), so a passing failure never switches the process to Basic for good."""
        try:
            kind = security.licence_type(dict(self.es.license.get()))
            due = None
        except ApiError as exc:
            kind, due = "basic", None if exc.meta.status == 403 else self._clock() + LICENCE_RETRY_S
            if due is None:  # invariant 25: say which privilege is missing and what is lost
                self.licence_note = (
                    "GET /_license answered 403: the store's credentials lack the `monitor` "
                    "cluster privilege, so the licence is taken as Basic: the rrf retriever "
                    "(one-request hybrid recall) and per-user document-level-security keys are "
                    "off. Grant `monitor` to get them back")
                log.warning("%s (%s)", self.licence_note, self._where)
            else:
                log.warning("GET /_license answered %s at %s: assuming Basic, checking again in "
                            "%.0f s", exc.meta.status, self._where, LICENCE_RETRY_S)
        except TransportError as exc:
            kind, due = "basic", self._clock() + LICENCE_RETRY_S
            log.warning("GET /_license failed at %s (%s): assuming Basic for now", self._where, exc)
        with self._lock:
            self.licence, self._licence_due = kind, due
            self.rrf_enabled = security.allows_rrf(kind) and not self._rrf_refused
            # Keys with privileges cannot be minted from an API-key login (security.py).
            self.dls_available = security.allows_dls(kind) and not self.conn.api_key

    def _licence_fresh(self) -> None:
        due = self._licence_due
        if due is not None and self._clock() >= due:
            self._read_licence()

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
                if diffs:  # invariant 22
                    raise MemdeskError(
                        f"index {concrete} has a mapping that differs from "
                        f"memory/stores/elasticsearch/mappings/{name}.json: {'; '.join(diffs)}. "
                        "Use another prefix (MEMDESK_ES_PREFIX), or reindex into a new version")

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
        self._user_keys.close()  # invalidate this process's per-user keys (invariant 95)
        with self._lock:
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

    def data_version(self) -> int | None:
        return None  # no cheap cluster-wide write counter: desk caches expire by time

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
    def _reader(self, user_id: str | None) -> tuple[Elasticsearch, bool]:
        """The client a user's reads go through, and whether it carries a per-user key: the
        user's own short-lived DLS key when `memdesk es bootstrap-users` enabled them, else the
        store's client. The user filter stays on in every query either way (invariant 20)."""
        if user_id is None:
            return self.es, False
        self._licence_fresh()
        if not self.dls_available:
            return self.es, False
        try:
            key = self._user_keys.key_for(user_id)
        except (ApiError, StoreUnavailableError) as exc:
            raise StoreUnavailableError(
                f"cannot mint the per-user read key for {user_id!r} at {self._where} ({exc}): "
                "the store's credentials need the manage_own_api_key privilege "
                "(README: Running Elasticsearch)") from exc
        return (self.es.options(api_key=key), True) if key else (self.es, False)

    def _as_user(self, user_id: str | None, method: str, **kwargs: Any) -> Any:
        """One read as this user; a refused per-user key (invalidated by a re-bootstrap in
        another process) is replaced once."""
        es, keyed = self._reader(user_id)
        try:
            return self._call(getattr(es, method), **kwargs)
        except CredentialsRejected:
            if not keyed or user_id is None:  # keyed reads are a user's
                raise
            self._user_keys.forget(user_id)
            es, _ = self._reader(user_id)
            return self._call(getattr(es, method), **kwargs)

    def _user_marked(self, user_id: str) -> bool:
        try:
            src = self._call(self.es.get, index=self.names.alias("state"),
                             id=api_key_doc_id(user_id))["_source"]
        except EsNotFound:
            return False
        if src.get("encoded"):  # written by an earlier version: never used, but still there
            log.warning("the state index holds a plain-text API key for %r from an earlier "
                        "version: run `memdesk es bootstrap-users --user %s` to invalidate it "
                        "and drop the secret", user_id, user_id)
        return True

    def _mint_user_key(self, user_id: str) -> dict:
        body = security.api_key_body(self.names, user_id, expiration=expiration())
        return dict(self._call(self._writer.security.create_api_key, **body))

    def _invalidate_keys(self, ids: list[str]) -> None:
        """`owner: true`: with manage_own_api_key (the privilege the README names) an
        invalidation must say so, or it answers 403 (security-api-invalidate-api-key). A failure
        is kept for `memdesk es status` (invariant 95); the key still expires by itself."""
        try:
            self._call(self._writer.security.invalidate_api_key, ids=ids, owner=True)
        except (ApiError, MemdeskError) as exc:
            with self._lock:
                self.key_failures.append(f"{', '.join(ids)}: {exc}")
            self._record_key_failure(ids, exc)
            raise

    def _record_key_failure(self, ids: list[str], exc: Exception) -> None:
        """Keep a failed invalidation in the state index, so `memdesk es status` in any process
        shows it (invariant 95): one document per key, no secret in it."""
        for key_id in ids:
            try:
                self._call(self._writer.index, index=self.names.alias("state"),
                           id=f"keyfail_{key_id}", require_alias=True, refresh="false",
                           document={"type": "key_failure", "name": key_id,
                                     "value": str(exc)[:500],
                                     "updated_at": intents.iso(self._wall())})
            except (ApiError, MemdeskError) as why:
                log.warning("failed invalidation of API key %s not recorded (%s)", key_id, why)

    def status(self) -> dict:
        """What `memdesk es status` shows: server, licence (and why it fell back), recall path,
        tombstone matching, batches the sweeper left, API keys whose invalidation failed."""
        self._call(self.es.indices.refresh, index=self.names.alias("state"))
        hits = self._scan(None, self.names.alias("state"), {"bool": {"filter": [
            {"term": {"type": "key_failure"}}]}}, [{"name": "asc"}])
        return {"server_version": self.server_version, "licence": self.licence,
                "licence_note": self.licence_note, "recall_path": self.recall_path,
                "tombstone_matching": self.tombstone_matching,
                "batches": dict(self.swept),
                "key_invalidation_failures": [
                    {"key_id": h["_source"].get("name"), "error": h["_source"].get("value"),
                     "at": h["_source"].get("updated_at")} for h in hits]}

    def bootstrap_user(self, user_id: str) -> dict:
        """Enable per-user keys for this user: invalidate every key minted for them before
        (including plain-text ones an earlier version stored), mark them in the state index
        (no secret), and mint this process's first key to prove the privileges work."""
        self._licence_fresh()
        security.require_dls(self.licence, self._where)
        security.require_mintable(bool(self.conn.api_key), self._where)
        resp = self._call(self._writer.security.invalidate_api_key,
                          name=security.key_name(self.names, user_id), owner=True)
        self._call(self._writer.index, index=self.names.alias("state"), id=api_key_doc_id(user_id),
                   document={"type": "dls_user", "user_id": user_id}, refresh="wait_for",
                   require_alias=True)
        key = self._user_keys.mint(user_id)
        return {"user_id": user_id, "api_key_id": key.id,
                "invalidated": len(resp.get("invalidated_api_keys") or [])}

    # reads --------------------------------------------------------------------------------------
    def _get_source(self, user_id: str | None, name: str, doc_id: str) -> dict | None:
        """One document as this user (None: with the store's own client)."""
        try:
            src = dict(self._as_user(user_id, "get", index=self.names.alias(name), id=doc_id,
                                     source_excludes=queries.SOURCE_EXCLUDES)["_source"])
        except EsNotFound:
            return None
        return self._visible([src])[0]  # invariant 470: a pending batch's record is not read

    def get(self, kind: MemoryKind, user_id: str | None, memory_id: str) -> AnyMemory | None:
        kind = MemoryKind(kind)
        src = self._get_source(user_id, kind.value, memory_id)
        if src is None or src.get("user_id") != user_id:  # another user's id is a missing id
            return None
        return self._with_usage(user_id, [from_source(src)])[0]

    def _with_usage(self, user_id: str | None, docs: list[D]) -> list[D]:
        """Facts and playbooks with their uses from the usage index added (invariant 24): one
        realtime multi-get (docs-multi-get.html: realtime by default, so a bump is seen at
        once), as this user (the per-user key reads the usage index filtered by user_id)."""
        ids = usage.ids_of(docs)
        if not ids or user_id is None:
            return docs
        resp = self._as_user(user_id, "mget", index=self.names.alias("usage"), ids=ids)
        found = {d["_id"]: d["_source"] for d in resp.get("docs", []) if d.get("found")}
        return usage.with_counts(docs, found) if found else docs

    def owner_of(self, kind: MemoryKind, memory_id: str) -> str | None:
        src = self._get_source(None, MemoryKind(kind).value, memory_id)
        return None if src is None else src.get("user_id")

    def _scan(self, user_id: str | None, index: str, query: dict, sort: list[dict],
              includes: tuple[str, ...] | None = None, *,
              seq_no_primary_term: bool = False) -> list[dict]:
        """Every hit, paged with search_after on a sort that ends in the unique id."""
        out: list[dict] = []
        after = None
        while True:
            extra: dict = {"search_after": after} if after is not None else {}
            if includes:
                extra["source_includes"] = list(includes)
            if seq_no_primary_term:
                extra["seq_no_primary_term"] = True
            resp = self._as_user(user_id, "search", index=index, query=query, sort=sort, size=PAGE,
                              source_excludes=queries.SOURCE_EXCLUDES, track_total_hits=False,
                              **extra)
            hits = resp["hits"]["hits"]
            out.extend(hits)
            if len(hits) < PAGE:
                return out
            after = hits[-1]["sort"]

    def list_facts(self, user_id: str, *, states: set[FactState] | None = None,
                   ids: list[str] | None = None) -> list[Fact]:
        if ids is not None and not ids:
            return []
        flt: list[dict] = [{"term": {"user_id": user_id}}]
        if states:
            flt.append({"terms": {"state": sorted(FactState(s).value for s in states)}})
        if ids is not None:
            flt.append({"ids": {"values": list(ids)}})
        self._fresh("semantic")
        hits = self._visible_hits(self._scan(user_id, self.names.alias("semantic"),
                                             {"bool": {"filter": flt}},
                                             [{"recorded_at": "asc"}, {"id": "asc"}]))
        if states:  # a before-image read in place of a pending record may be in another state
            facts = [source_as(Fact, h["_source"]) for h in hits
                     if h["_source"].get("state") in {FactState(x).value for x in states}]
        else:
            facts = [source_as(Fact, h["_source"]) for h in hits]
        return sorted(self._with_usage(user_id, facts), key=lambda f: (f.recorded_at, f.id))

    def list_episodes(self, user_id: str, *, after: datetime | None = None,
                      limit: int | None = None) -> list[Episode]:
        flt: list[dict] = [{"term": {"user_id": user_id}}]
        if after is not None:
            # `timestamp` is a millisecond `date`: ask from the millisecond `after` falls in and
            # compare the microseconds here, so no episode in that millisecond is lost (inv. 98).
            flt.append({"range": {"timestamp": {"gte": queries.ms_floor(after)}}})
        self._fresh("episodic")
        hits = self._visible_hits(self._scan(
            user_id, self.names.alias("episodic"), {"bool": {"filter": flt}},
            [{"timestamp": "asc"}, {"recorded_at": "asc"}, {"id": "asc"}]))
        eps = [source_as(Episode, h["_source"]) for h in hits]
        eps.sort(key=lambda e: (e.timestamp, e.recorded_at, e.id))
        if after is not None:
            eps = [e for e in eps if e.timestamp > after]
        return eps[:limit] if limit else eps

    def list_playbooks(self, user_id: str) -> list[Playbook]:
        self._fresh("procedural")
        hits = self._visible_hits(self._scan(
            user_id, self.names.alias("procedural"),
            {"bool": {"filter": [{"term": {"user_id": user_id}}]}},
            [{"recorded_at": "asc"}, {"id": "asc"}]))
        return self._with_usage(user_id, [source_as(Playbook, h["_source"]) for h in hits])

    def list_catalog(self) -> list[CatalogDoc]:
        hits = self._scan(None, self.names.alias("catalog"), {"match_all": {}},
                          [{"recorded_at": "asc"}, {"id": "asc"}])
        return [source_as(CatalogDoc, h["_source"]) for h in hits]

    def list_tombstones(self, user_id: str) -> list[Tombstone]:
        hits = self._scan(user_id, self.names.alias("tombstones"),
                          {"bool": {"filter": [{"term": {"user_id": user_id}}]}},
                          [{"seq": "asc"}, {"id": "asc"}])
        return [Tombstone.model_validate(_strip(h["_source"])) for h in hits]

    def nearest_tombstones(self, user_id: str, vector: np.ndarray,
                           k: int = 3) -> list[tuple[Tombstone, float]]:
        if not has_direction(vector):
            return []
        if self.tombstone_matching == "script_score":  # 9.2+: no vector in `_source`
            body = queries.tombstone_script(self.names, user_id, vector, k)
            resp = self._as_user(user_id, "search", **body)
            exact = [(Tombstone.model_validate(_strip(h["_source"])), float(h["_score"]) - 1.0)
                     for h in resp["hits"]["hits"] if h["_source"].get("user_id") == user_id]
            exact.sort(key=lambda pair: -pair[1])
            return exact[:k]
        body = queries.tombstone_knn(self.names, user_id, vector, k)
        resp = self._as_user(user_id, "search", **body)
        # Exact cosine from the stored float vectors, the embedded store's arithmetic (float32
        # dot of unit vectors), not the int8-quantised `_score` (invariant 98).
        query = np.asarray(vector, np.float32)
        scored: list[tuple[Tombstone, float]] = []
        hits = resp["hits"]["hits"]
        if hits and not any(h["_source"].get("vector") for h in hits):
            # invariant 98: never silently off — vectors left out of `_source` on this server
            log.warning("tombstone candidates came back without vectors from %s (version %s): "
                        "matching by script_score from now on", self._where, self.server_version)
            self.tombstone_matching = "script_score"
            return self.nearest_tombstones(user_id, vector, k)
        for h in hits:
            src = h["_source"]
            if src.get("user_id") != user_id or not src.get("vector"):
                continue
            sim = float(np.asarray(src["vector"], np.float32) @ query)
            scored.append((Tombstone.model_validate(_strip(src)), sim))
        scored.sort(key=lambda pair: -pair[1])
        return scored[:k]

    def tombstone_candidates(self, user_id: str, probe: TombstoneProbe,
                             vector: np.ndarray | Callable[[], np.ndarray],
                             k: int = 5, *, limit: int = 20
                             ) -> list[tuple[Tombstone, float | None]]:
        """Key and slot-term lookups plus the k nearest by vector (invariant 63); a key hit
        outside the nearest carries no cosine (vectors never travel back)."""
        query = vector() if callable(vector) else vector
        out: dict[str, tuple[Tombstone, float | None]] = {
            t.id: (t, c) for t, c in self.nearest_tombstones(user_id, query, k)}
        body = queries.tombstone_keys(self.names, user_id, list(probe.keys), probe.normalized,
                                      list(probe.terms), limit)
        resp = self._as_user(user_id, "search", **body)
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
        resp = self._as_user(user_id, "search", index=self.names.alias("audit"),
                          query={"bool": {"filter": flt}}, sort=[{"seq": "desc"}, {"id": "desc"}],
                          size=min(limit, 10_000), track_total_hits=False)
        # invariant 470: the log is the committed batches' events
        hits = self._visible_hits(resp["hits"]["hits"], before_images=False)
        return [AuditEvent.model_validate(_strip(h["_source"])) for h in hits]

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
        resp = self._as_user(user_id, "search",
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
        hits = self._scan(None, self.names.alias("state"), {"bool": {"filter": [
            {"term": {"type": "watermark"}}, {"term": {"user_id": user_id}}]}},
            [{"name": "asc"}])  # one watermark per (user, name): name is unique here
        return {h["_source"]["name"]: h["_source"]["value"] for h in hits}

    def get_watermark(self, user_id: str, name: str) -> str | None:
        src = self._get_source(None, "state", watermark_id(user_id, name))
        return None if src is None else src.get("value")

    # issue 15: bearer credentials in the state index (never granted to per-user keys) --------
    def get_credential(self, credential_id: str) -> Credential | None:
        src = self._get_source(None, "state", writes.credential_id(credential_id))
        if src is None or src.get("type") != "credential":
            return None
        return Credential.model_validate(src["body"])

    def list_credentials(self, user_id: str | None = None) -> list[Credential]:
        flt: list[dict] = [{"term": {"type": "credential"}}]
        if user_id is not None:
            flt.append({"term": {"user_id": user_id}})
        hits = self._scan(None, self.names.alias("state"), {"bool": {"filter": flt}},
                          [{"name": "asc"}])  # name is the token id: unique
        creds = [Credential.model_validate(h["_source"]["body"]) for h in hits]
        return sorted(creds, key=lambda c: (c.created_at, c.id))

    def fact_summaries(self, query: FactQuery) -> FactPage:
        """Listing fields only (`_source` filtering) of the users' facts in the asked states;
        the other filters, counts and paging are applied here, over that scope."""
        if not query.user_ids:
            return FactPage([], 0, {})
        flt: list[dict] = [{"terms": {"user_id": sorted(set(query.user_ids))}}]
        if query.states:
            flt.append({"terms": {"state": sorted(FactState(s).value for s in query.states)}})
        self._fresh("semantic")
        hits = self._visible_hits(self._scan(
            None, self.names.alias("semantic"), {"bool": {"filter": flt}},
            [{"recorded_at": "asc"}, {"id": "asc"}], includes=SUMMARY_FIELDS))
        scope = []
        for h in hits:
            s = h["_source"]
            if query.states and s.get("state") not in {FactState(x).value for x in query.states}:
                continue  # a before-image in another state than the one asked
            scope.append(FactSummary(
                s["id"], s["user_id"], int(s["rev"]), s["state"], s["text"], s["fact_type"],
                float(s["confidence"]), datetime.fromisoformat(s["recorded_at"]), s.get("supersedes"),
                s.get("contradiction"), tuple(s.get("flags") or ()), s.get("plan_id"),
                s.get("origin", "agent")))
        return page_summaries(scope, query)

    def contradicted_sources(self, user_id: str, episode_ids: list[str]) -> set[str]:
        """Which of these episodes are the source of a retracted or rejected fact that was not
        merged away (invariant 65). One filtered search; retractions and rejections are written
        with refresh=wait_for, so no refresh here (recall never forces one, invariant 24)."""
        if not episode_ids:
            return set()
        body = queries.contradicted_sources(self.names, user_id, episode_ids)
        resp = self._as_user(user_id, "search", **body)
        wanted, out = set(episode_ids), set()
        for h in resp["hits"]["hits"]:
            src = h["_source"]
            # a proposed retraction's sources are the user's denial, never a false value
            # (invariant 591)
            if src.get("user_id") != user_id or any(
                    str(f).startswith("merged_into:") or f == PROPOSED_RETRACTION
                    for f in src.get("flags") or ()):
                continue
            out.update(wanted.intersection(src.get("source_episode_ids") or ()))
        return out

    # search -------------------------------------------------------------------------------------
    def _leg_hits(self, flt: RecallFilter, resp: Mapping[str, Any]) -> list[LegHit]:
        out = []
        # invariant 470: a record of a batch not yet committed is not recalled
        for h in self._visible_hits(resp["hits"]["hits"], before_images=False):
            doc = from_source(h["_source"])
            # Belt and braces behind the pre-filter: never hand back another user's memory.
            if doc.user_id not in (flt.user_id, None):
                continue
            out.append(LegHit(doc=doc, score=float(h["_score"])))
        # invariant 24: the use boost (memory.ranking) reads the counts of the usage index
        docs = self._with_usage(flt.user_id, [h.doc for h in out])
        return [h.model_copy(update={"doc": d}) for h, d in zip(out, docs, strict=True)]

    def _context_boost(self) -> float:
        """The weight of an episode's session context in the BM25 leg (issue 17): the embedded
        store's neighbour-word weight, or 0 (no clause) when no window is indexed."""
        p = self.index_params
        return p.context_weight if p.window > 0 else 0.0

    def search_bm25(self, flt: RecallFilter, query: str, limit: int, *,
                    extra: Mapping[str, float] | None = None) -> list[LegHit]:
        # `extra` (the lexicon's weighted expansions, invariant 169) arrives as analysed stems;
        # Elasticsearch analyses text itself, so it gets the groups' plain words instead.
        if not queries.leg_indices(self.names, flt):  # no kind asked: nothing, not every index
            return []
        self._path.taken = CLIENT_PATH  # the legs are fused in the client (invariant 21)
        body = queries.bm25_search(self.names, flt, query, limit,
                                   context_boost=self._context_boost(),
                                   extra_words=words_of(dict(extra or {})))
        return self._leg_hits(flt, self._as_user(flt.user_id, "search", **body))

    def user_names(self, user_id: str) -> frozenset[str]:
        """Not kept here (invariant 153 is embedded-store only): finding them would cost a
        request per recall. Queries reach Elasticsearch with the user's name in them."""
        return frozenset()

    def search_dense(self, flt: RecallFilter, vector: np.ndarray, limit: int) -> list[LegHit]:
        if not has_direction(vector):  # a query with no tokens has no direction to compare
            return []
        if not queries.leg_indices(self.names, flt):
            return []
        body = queries.dense_search(self.names, flt, vector, limit, self.candidates_per_k)
        hits = self._leg_hits(flt, self._as_user(flt.user_id, "search", **body))
        # knn's cosine score is (1 + cosine) / 2: the documented scale, cosine given as is.
        return [h.model_copy(update={"cosine": 2.0 * h.score - 1.0}) for h in hits]

    def hybrid_search(self, flt: RecallFilter, query: str, vector: np.ndarray, limit: int,
                      now: datetime, params: RankingParams, *, explain: bool = False,
                      extra: Mapping[str, float] | None = None) -> list[RankedHit] | None:
        """One rrf-retriever request (multipliers in Painless). None when the licence does not
        allow it: the caller then runs the two legs and fuses them itself (invariant 21).

        `explain` (issue 16, keyword, default off) asks Elasticsearch for the per-leg ranks the
        recall debugger shows; without it the hits keep Elasticsearch's rrf order and carry no
        leg detail (invariant 21)."""
        self._licence_fresh()
        if not self.rrf_enabled or not has_direction(vector):
            return None
        if not queries.leg_indices(self.names, flt):
            return []
        # invariant 169: the lexicon's expansions ride on this path too
        body = queries.rrf_search(self.names, flt, query, vector, limit, now, params,
                                  explain=explain, per_k=self.candidates_per_k, context_boost=self._context_boost(),
                                  extra_words=words_of(dict(extra or {})))
        try:
            resp = self._as_user(flt.user_id, "search", **body)
        except security.LicenceError as exc:  # e.g. Basic: detected once, then remembered
            self._rrf_refused, self.rrf_enabled = True, False
            log.warning("rrf retriever refused (%s): using %s", exc, self.recall_path)
            return None
        hits = [h for h in self._visible_hits(resp["hits"]["hits"], before_images=False)
                if h["_source"].get("user_id") in (flt.user_id, None)]
        self._path.taken = RRF_PATH
        ranked = ranked_hits(hits, now, params)
        docs = self._with_usage(flt.user_id, [h.doc for h in ranked])  # invariant 24
        return [h.model_copy(update={"doc": d}) for h, d in zip(ranked, docs, strict=True)]

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
        return dict(zip(keys, self.embedder.embed([texts[k] for k in keys]), strict=False))

    def apply(self, ops: list[Op]) -> None:
        """Validate every op against what is stored, then write the batch intent-first.

        Elasticsearch has no multi-document transaction (invariants 23, 92, 470): a batch
        with an update, delete or watermark move is checked whole first (one mget), so a stale
        batch writes nothing; then the batch document is created, the steps go out stamped with
        its id (conditional writes, inserts, audit events: batch.py), and one compare-and-set
        flip commits it. A failure undoes what this call wrote; an unknown outcome leaves the
        batch to the sweeper. Ids are the records' own, so re-applying converges."""
        ops = list(ops)
        if not ops:
            return
        if self._closed:
            raise MemdeskError("the store is closed")
        if self._unsettled:  # this process's batches left unknown: settle them first
            try:
                self.sweep(own=True)
            except (MemdeskError, ApiError) as exc:  # still unreachable: the next open sweeps
                log.warning("earlier batch(es) %s not settled yet (%s)",
                            ", ".join(sorted(self._unsettled)), exc)
        vectors = self._vectors_for(ops)
        wanted = writes.documents_read(ops) if writes.needs_read(ops) else []
        current = self._read_docs([(self.names.alias(n), i) for n, i in wanted])
        current = {(n, i): current[(self.names.alias(n), i)] for n, i in wanted}
        sessions = context.touched_sessions(ops, current)  # before planning: it moves `current`
        steps = writes.Planner(self.names, current, vectors, self._next_seq).plan(ops)
        batch = self._batch_writer()
        if steps:
            try:
                batch.run(steps, writes.users_of(steps))
            except (Unresolved, PartiallyAppliedError):
                self._mark_dirty(batch.lazy_touched)
                if batch.bid is not None:
                    with self._lock:
                        self._unsettled.add(batch.bid)
                raise
            except BaseException:
                self._mark_dirty(batch.lazy_touched)
                raise
            with self._lock:
                self._finished.add(batch.bid or "")
        # The batch landed. Its sessions' contexts follow (a converged retry recomputes them
        # too, so a follow-up lost earlier is made up); the alias the batch wrote without a
        # refresh is marked after, so the session read refreshes only for earlier writes.
        if sessions:
            self._follow_contexts(sessions, ops)
        self._mark_dirty(batch.lazy_touched)
        self._drop_usage([(op.kind, op.id) for op in ops if isinstance(op, DeleteMemory)])

    def _drop_usage(self, gone: list[tuple[MemoryKind, str]]) -> None:
        """Invariant 24: a forgotten (or undone) fact or playbook takes its usage document
        with it, once its own delete landed. The usage document holds no text (ids, a count, a
        time); one left by a failure is kept to retry and reported by `compact` as residue."""
        pairs = usage.tracked(gone)
        with self._lock:
            pairs = sorted(set(pairs) | self._usage_left)
        if not pairs:
            return
        try:
            resp = self._call(self._writer.bulk, refresh="false", require_alias=True,
                              operations=usage.delete_lines(self.names.alias("usage"), pairs))
            bad = {(k, i) for (k, i), item in zip(pairs, resp.get("items", []), strict=False)
                   if next(iter(item.values())).get("status", 200) not in (200, 404)}
        except (MemdeskError, ApiError) as exc:
            log.warning("usage documents of %d deleted memories not deleted yet (%s): retried "
                        "by the next write or forget", len(pairs), exc)
            bad = set(pairs)
        with self._lock:
            self._usage_left = bad

    def _mark_dirty(self, aliases: set[str]) -> None:
        if aliases:
            with self._lock:
                self._dirty |= aliases

    # session context (issue 17, invariants 101 and 104) ---------------------------------------
    def _follow_contexts(self, sessions: set[context.Session], ops: list[Op]) -> None:
        """Recompute the contexts of the sessions a landed batch touched. Context is derived
        index data (like the vector): a failure here leaves the batch applied and is logged,
        never raised; the next write to the session, or `memdesk es reindex`, makes it up."""
        final = context.final_episodes(ops)
        by_user: dict[str, set[str]] = {}
        for user_id, session_id in sorted(sessions):
            by_user.setdefault(user_id, set()).add(session_id)
        for user_id, session_ids in by_user.items():
            try:
                self._write_contexts(user_id, session_ids, final, refresh="false")
            except (MemdeskError, ApiError) as exc:  # the batch stands; only context is late
                log.warning("session context of user %r, session(s) %s not updated (%s): the "
                            "batch is applied; the next write to the session or `memdesk es "
                            "reindex` recomputes it", user_id, ", ".join(sorted(session_ids)), exc)

    def _write_contexts(self, user_id: str, session_ids: set[str],
                        final: dict[str, Episode | None], *, refresh: str) -> int:
        """Read these sessions' turns (one paged search, sorted by time then id), merge in
        `final` (the batch's own episodes; None: a turn leaving), and send one bulk of partial
        updates for the turns whose stored context differs. Returns how many were sent."""
        window = self.index_params.window
        alias = self.names.alias("episodic")
        with self._context_lock:
            self._fresh("episodic")  # earlier writes of this process (recall never refreshes)
            hits = self._scan(None, alias, context.session_query(user_id, session_ids),
                              context.SESSION_SORT, includes=context.SESSION_FIELDS)
            changed = context.changed_contexts(user_id, session_ids, [h["_source"] for h in hits],
                                               final, window)
            if not changed:
                return 0
            resp = self._call(self._writer.bulk, operations=context.update_lines(alias, changed),
                              refresh=refresh, require_alias=True)
            if refresh == "false":
                self._mark_dirty({alias})
        bad = context.failed_items(resp)
        if bad:
            raise MemdeskError(f"context update of episode {bad[0].get('_id')} failed: "
                               f"{bad[0].get('error')}")
        return len(changed)

    def _bulk(self, lines: list[dict], refresh: str) -> dict:
        # require_alias (invariant 22): a lost alias is an error, never a new concrete index
        # mapped by guesswork (docs-bulk: `require_alias`)
        return dict(self._call(self._writer.bulk, operations=lines, refresh=refresh,
                               require_alias=True))

    def _read_docs(self, keys: list[tuple[str, str]]) -> dict:
        """{(alias, id): {"src", "seq_no", "term"} or None}, one mget."""
        if not keys:
            return {}
        resp = self._call(self.es.mget, docs=[{"_index": a, "_id": i} for a, i in keys],
                          source_excludes=queries.SOURCE_EXCLUDES)
        return {key: writes.found(d) for key, d in zip(keys, resp["docs"], strict=False)}

    def _restore(self, step: Step, src: dict) -> dict:
        """A stored source to write back in an undo: vectors are never read back, so a memory
        gets its vector again from its search text (the embedder is deterministic)."""
        text = (src.get("search_text") if step.what.startswith("memory:")
                else src.get("text") if step.what == "tombstone" else None)
        if text is not None and "vector" not in src:  # a tombstone's vector is its text's
            vec = self.embedder.embed([text])[0]
            if has_direction(vec):
                src["vector"] = [float(x) for x in np.asarray(vec, np.float32)]
        return src

    # forgetting (issue 11, invariants 66 and 67) ----------------------------------------------
    def value_key(self, *, create: bool = False) -> bytes | None:
        """The store's secret for keyed hashes of forgotten tombstone values: one document of
        the state index, field `encoded` (neither indexed nor aggregatable)."""
        with self._lock:
            if self._value_key is not None:
                return self._value_key
        src = self._get_source(None, "state", VALUE_KEY_ID)
        if src is None and create:
            try:
                self._call(self.es.create, index=self.names.alias("state"), id=VALUE_KEY_ID,
                           document={"type": "secret", "name": "value_key",
                                     "encoded": secrets.token_hex(32)}, refresh="wait_for",
                           require_alias=True)
            except ApiError as exc:
                if exc.meta.status != 409:  # 409: another process created it first
                    raise
            src = self._get_source(None, "state", VALUE_KEY_ID)
        if src is None:
            return None
        with self._lock:
            self._value_key = bytes.fromhex(src["encoded"])
            return self._value_key

    def adopt_value_key(self, key: bytes) -> None:
        """Take over another store's secret (`memdesk migrate`), unless one exists already."""
        try:
            self._call(self.es.create, index=self.names.alias("state"), id=VALUE_KEY_ID,
                       document={"type": "secret", "name": "value_key", "encoded": key.hex()},
                       refresh="wait_for", require_alias=True)
        except ApiError as exc:
            if exc.meta.status != 409:
                raise
        with self._lock:
            self._value_key = None  # read back what is stored
        if self.value_key() != key:
            raise MemdeskError("the target already holds another value key")

    def _rewrite(self, name: str, docs: list[dict]) -> None:
        """Overwrite whole documents (redaction): one bulk of index actions, then visible."""
        if not docs:
            return
        lines: list[dict] = []
        for src in docs:
            lines += [{"index": {"_index": self.names.alias(name), "_id": src["id"]}}, src]
        resp = self._call(self._writer.bulk, operations=lines, refresh="wait_for",
                          require_alias=True)
        bad = [r for item in resp.get("items", []) for r in item.values()
               if r.get("status", 200) >= 300]
        if bad:
            raise MemdeskError(f"redaction of {name} failed for {bad[0].get('_id')}: "
                               f"{bad[0].get('error')}")

    def _user_docs(self, name: str, user_id: str) -> list[dict]:
        self._fresh(name)
        hits = self._scan(None, self.names.alias(name),
                          {"bool": {"filter": [{"term": {"user_id": user_id}}]}},
                          [{"seq": "asc"}, {"id": "asc"}])
        return [h["_source"] for h in hits]

    def _hashed_tombstones(self, user_id: str, erasure: Erasure | None, key: bytes) -> list[dict]:
        out = []
        for src in self._user_docs("tombstones", user_id):
            body = _strip(src)
            if erasure is None:
                new = None if body.get("forgotten") else {**hash_tombstone(body, key), "reason": None}
            else:
                new = redact_tombstone(body, erasure, key)
            if new is not None:  # no vector: a forgotten value is matched by its hash only
                out.append({**new, "seq": src["seq"]})
        return out

    def redact(self, user_id: str, erasure: Erasure) -> dict[str, int]:
        """Forgotten text out of this user's tombstones and audit snapshots (memory/redaction.py)
        and, for forgotten episodes, out of their neighbours' session contexts (invariant 104);
        the documents stay, overwritten in place. Idempotent."""
        self._drop_from_contexts(user_id, erasure.ids)
        key = self.value_key(create=True)
        assert key is not None
        tombs = self._hashed_tombstones(user_id, erasure, key)
        also = frozenset(t["id"] for t in tombs)
        events = []
        for src in self._user_docs("audit", user_id):
            new = redact_event(_strip(src), erasure, also)
            if new is not None:
                events.append({**new, "seq": src["seq"]})
        self._rewrite("tombstones", tombs)
        self._rewrite("audit", events)
        return {"events": len(events), "tombstones": len(tombs)}

    def _drop_from_contexts(self, user_id: str, ids: frozenset[str]) -> int:
        """Invariant 104: before forgotten episodes are deleted, their sessions' contexts are
        recomputed without them and made visible (refresh=wait_for, like the rest of
        redaction), so their text is left in no neighbour; the compaction after the forget
        expunges the old versions. A failure raises: the forget stops before deleting anything
        and a re-run converges. Which ids are episodes, and of which session: one realtime mget
        (it sees episodes written without a refresh)."""
        alias = self.names.alias("episodic")
        found = self._read_docs([(alias, i) for i in sorted(ids)])
        sessions = {have["src"]["session_id"] for have in found.values()
                    if have and have["src"].get("user_id") == user_id
                    and have["src"].get("session_id")}
        if not sessions:
            return 0
        return self._write_contexts(user_id, sessions, dict.fromkeys(ids), refresh="wait_for")

    def erase_user(self, user_id: str, event: AuditEvent) -> dict[str, int]:
        """Everything the user owns (invariant 67): memories, audit events and watermarks
        deleted by query, tombstones reduced to keyed hashes, then one `erase_user` event."""
        key = self.value_key(create=True)
        assert key is not None
        self._rewrite("tombstones", self._hashed_tombstones(user_id, None, key))
        mine = {"term": {"user_id": user_id}}
        gone = self._delete_task(",".join(self.names.alias(n) for n in USER_ALIASES), mine,
                                 "memories")
        self._delete_task(self.names.alias("usage"), mine, "use counts")  # invariant 24
        events = self._delete_task(self.names.alias("audit"), mine, "audit events")
        # invariant 131; batch documents (issue 31) hold the user's text while they live
        self._delete_task(self.names.alias("state"), {"bool": {"filter": [
            mine, {"terms": {"type": ["watermark", "credential", "batch"]}}]}}, "state")
        self.apply([AppendAudit(event=event)])
        self.refresh(("audit",))
        return {"memories": gone, "events": events}

    def _task(self, task: str) -> tasks.Outcome:
        return tasks.follow(lambda **kw: self._call(self.es.tasks.get, **kw), task)

    def _delete_task(self, index: str, query: dict, what: str) -> int:
        """Invariant 481: delete_by_query as a task (wait_for_completion=false), followed to its
        end. Sent once (no transport retry): a lost answer means it may be running, and the
        error says a re-run is safe (deleting what is already gone deletes nothing more)."""
        try:
            resp = self._call(self._writer.delete_by_query, index=index, query=query,
                              conflicts="proceed", refresh=True, wait_for_completion=False)
        except AnswerLost as exc:
            raise StoreUnavailableError(
                f"erasing {what}: the delete-by-query got no answer, so it may be running in "
                f"the cluster; re-run the erase (it is safe to repeat) — {exc}") from exc
        out = self._task(str(resp["task"]))
        if not out.completed:
            raise StoreUnavailableError(
                f"erasing {what}: task {out.task} is still running in the cluster; re-run the "
                f"erase once it ends (GET _tasks/{out.task}); nothing was recorded as erased yet")
        if out.error or out.failures:
            raise MemdeskError(f"erasing {what}: task {out.task} failed: "
                               f"{out.error or out.failures[0]}; re-run the erase")
        return int(out.response.get("deleted", 0))

    def _old_versions(self, name: str) -> list[str]:
        """Reindex backups of `name`: concrete indices no longer behind the alias and older than
        the one that is. An index behind the alias (a reindex not swapped yet) or newer than it
        (a copy in progress) is never one."""
        alias = self.names.alias(name)
        try:
            found = dict(self._call(self.es.indices.get_alias, index=f"{alias}-v*",
                                    expand_wildcards="all"))
        except EsNotFound:
            return []
        live = [_version(c) for c, spec in found.items() if alias in (spec.get("aliases") or {})]
        if not live:
            return []
        return sorted(c for c, spec in found.items()
                      if alias not in (spec.get("aliases") or {}) and _version(c) < min(live))

    def compact(self, texts: Sequence[str] = ()) -> list[str]:
        """Invariant 481: what a forget guarantees on a cluster, said honestly. A deleted or
        overwritten document is invisible at once; its bytes leave the Lucene segments when they
        are merged. So: reindex backups (they hold every forgotten text) are deleted; then an
        expunge-deletes force merge runs as a task and is followed; what it could not expunge
        (only segments over `index.merge.policy.expunge_deletes_allowed`, 10% by default, are
        merged) and a merge still running are reported as residue, never as done. The cluster's
        files are not this process's to scan, so `texts` is not looked for."""
        names = (*USER_ALIASES, "audit", "tombstones", "state")
        residue: list[str] = []
        # The forget itself has landed by now: nothing here may make it look failed, so every
        # step that cannot run is reported as residue instead of raised.
        try:
            left = self.sweep()["left"]  # abandoned batch documents hold text until decided
        except (MemdeskError, ApiError) as exc:
            left, residue = 0, [f"batch documents not checked ({exc}): a pending one may hold "
                                "the forgotten text until the next open of the store"]
        self._drop_usage([])  # invariant 24: usage documents a delete left, retried
        with self._lock:
            stuck = sorted(self._usage_left)
        if stuck:
            residue.append(f"{len(stuck)} usage document(s) of deleted memories not deleted yet "
                           f"(e.g. {stuck[0][0]}:{stuck[0][1]}; ids and counts, no text)")
        if left:
            residue.append(f"{left} batch document(s) still pending (a writer at work, or one "
                           "that stopped less than 5 minutes ago) may hold the forgotten text "
                           "until they are committed or rolled back")
        try:
            backups = [i for n in names for i in self._old_versions(n)]
            if backups:
                self._call(self._writer.indices.delete, index=",".join(backups))
                log.warning("deleted reindex backup(s) %s: they held forgotten text",
                            ", ".join(backups))
        except (MemdeskError, ApiError) as exc:
            residue.append(f"reindex backups not checked or not deleted ({exc}): an index left by "
                           "`memdesk es reindex` may still hold the forgotten text")
        return residue + self._merge(",".join(self.names.alias(n) for n in names))

    def _merge(self, index: str) -> list[str]:
        """The expunge-deletes force merge as a followed task; what it leaves, as residue."""
        try:
            resp = self._call(self._writer.indices.forcemerge, index=index,
                              only_expunge_deletes=True, wait_for_completion=False)
        except AnswerLost:
            return ["merge pending: the force merge got no answer and may be running in the "
                    "cluster; deleted text stays in Lucene segments until it is merged"]
        except (MemdeskError, ApiError) as exc:
            return [f"merge not run ({exc}): deleted text stays in Lucene segments until "
                    "Lucene merges them"]
        try:
            out = self._task(str(resp["task"]))
        except (MemdeskError, ApiError) as exc:
            return [f"merge pending: task {resp.get('task')} could not be followed ({exc}); "
                    "deleted text stays in Lucene segments until it ends"]
        if not out.completed:
            return [f"merge pending: task {out.task} is still running (GET _tasks/{out.task}); "
                    "deleted text stays in Lucene segments until it ends"]
        try:
            stats = self._call(self.es.indices.stats, index=index, metric="docs")
        except (MemdeskError, ApiError) as exc:
            return [f"merge done, but the deleted-document count could not be read ({exc})"]
        residue = []
        for concrete, st in sorted(dict(stats.get("indices") or {}).items()):
            deleted = int(((st.get("primaries") or {}).get("docs") or {}).get("deleted") or 0)
            if deleted:
                residue.append(
                    f"{concrete}: {deleted} deleted document version(s) still in Lucene segments "
                    "(an expunge-deletes merge skips segments under 10% deletes; Lucene merges "
                    "them later)")
        return residue

    def bump_usage(self, user_id: str, used: list[tuple[MemoryKind, str]], at: datetime) -> None:
        """Invariant 24: one scripted upsert per fact or playbook used, into the usage index;
        the memories themselves (and their vectors) are not rewritten."""
        pairs = usage.tracked(used)
        if not pairs:
            return
        stamp = at.isoformat().replace("+00:00", "Z")
        lines = usage.bump_lines(self.names.alias("usage"), user_id, pairs, stamp)
        # No transport retry (invariant 92): a bump whose answer was lost may have landed, and
        # sending it again would count the use twice. require_alias: a lost alias is an
        # error, never a new concretely mapped index (docs-bulk.html, require_alias).
        resp = self._call(self._writer.bulk, operations=lines, refresh="false",
                          require_alias=True)
        bad = [r for item in resp.get("items", []) for r in item.values()
               if r.get("status", 200) >= 300 and r.get("status") != 404]
        blocked = [r for r in bad if _error_type(r) == "cluster_block_exception"]
        if blocked:  # invariant 24: a reindex's write block must not break recall
            log.warning("usage of %d memories not counted: %s is write-blocked (a `memdesk es "
                        "reindex` is copying it); recall goes on", len(blocked),
                        blocked[0].get("_index"))
            bad = [r for r in bad if r not in blocked]
        if bad:
            raise MemdeskError(f"usage bump failed for {bad[0].get('_id')}: {bad[0].get('error')}")


def _reason(exc: ApiError) -> str:
    info = exc.info if isinstance(exc.info, dict) else {}
    err = info.get("error", {})
    return str(err.get("reason") if isinstance(err, dict) else err or exc.message)


def _version(concrete: str) -> int:
    tail = concrete.rsplit("-v", 1)[-1]
    return int(tail) if tail.isdigit() else 10**9  # not ours: never taken for a backup


def _error_type(item: dict) -> str:
    err = item.get("error")
    return str(err.get("type", "")) if isinstance(err, dict) else ""


def _strip(src: dict) -> dict:
    return {k: v for k, v in src.items()
            if k not in ("seq", "vector", "match_key", "match_terms", "batch")}
