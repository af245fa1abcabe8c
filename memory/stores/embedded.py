"""EmbeddedStore: one SQLite file (WAL, transactions), FTS5 for BM25, exact numpy dense search.

The default backend: no server, one machine. Dense vectors are float32 blobs; each user's matrix
is loaded once and kept until a write touches that user (or another process commits).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import sqlite3
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from operator import attrgetter
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

import numpy as np

from ..credentials import Credential
from ..embeddings import Embedder, _blas_threads
from ..errors import ConflictError, MemdeskError, StoreUnavailableError
from ..lexical import Vocabulary
from ..models import (
    MODEL_BY_KIND,
    PROPOSED_RETRACTION,
    TRACKS_USE,
    AuditEvent,
    CatalogDoc,
    Episode,
    Fact,
    FactState,
    LegHit,
    MemoryKind,
    Playbook,
    Tombstone,
)
from ..ranking import RankedHit, RankingParams
from ..redaction import Erasure, hash_tombstone, redact_event, redact_tombstone
from ..values import KEY_VERSION, TombstoneProbe, claim_json, index_entry, remember
from .base import (
    AnyMemory,
    AppendAudit,
    Capability,
    DeleteMemory,
    FactPage,
    FactQuery,
    FactSummary,
    Op,
    PutCredential,
    PutMemory,
    PutTombstone,
    RecallFilter,
    SetWatermark,
    UpdateMemory,
)
from .user_view import IndexParams, UserView, parse_time

SCHEMA_VERSION = "1"
MAX_PENDING_BUMPS = 10_000  # usage bumps kept while the file is locked (oldest dropped first)
CATALOG_TOKEN = "catalog"
_KIND_CODE = {k: i for i, k in enumerate(MemoryKind)}
_STATE_CODE = {s: i + 1 for i, s in enumerate(FactState)}  # 0 = no state (non-facts)


_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS docs (
  rid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  user_id TEXT,
  state TEXT,
  rev INTEGER NOT NULL,
  body TEXT NOT NULL,
  vec BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS docs_scope ON docs(user_id, kind, state);
CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(utok, body, tokenize='porter unicode61');
CREATE TABLE IF NOT EXISTS tombstones (
  id TEXT PRIMARY KEY, user_id TEXT NOT NULL, normalized TEXT NOT NULL,
  body TEXT NOT NULL, vec BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS tombstones_user ON tombstones(user_id, normalized);
CREATE TABLE IF NOT EXISTS audit (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, user_id TEXT NOT NULL,
  at TEXT NOT NULL, action TEXT NOT NULL, plan_id TEXT, body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_user ON audit(user_id, seq);
CREATE INDEX IF NOT EXISTS audit_plan ON audit(plan_id);
CREATE TABLE IF NOT EXISTS watermarks (
  user_id TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (user_id, name)
);
CREATE TABLE IF NOT EXISTS credentials (
  id TEXT PRIMARY KEY, user_id TEXT NOT NULL, rev INTEGER NOT NULL, body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS credentials_user ON credentials(user_id);
"""


# Fact fields the review queue lists, exposed as virtual columns (column -> JSON path).
_SUMMARY_COLUMNS = {
    "f_recorded": "recorded_at", "f_text": "text", "f_type": "fact_type", "f_conf": "confidence",
    "f_supersedes": "supersedes", "f_contradiction": "contradiction", "f_flags": "flags",
    "f_plan": "plan_id", "f_origin": "origin",
}


def _summary(r: Sequence[Any]) -> FactSummary:
    i, u, rev, st, rec, text, ftype, conf, sup, contra, flags, plan, origin = r
    return FactSummary(i, u, rev, st, text, ftype, float(conf),
                       datetime.fromisoformat(rec), sup, contra,
                       tuple(json.loads(flags)) if flags and flags != "[]" else (), plan, origin)


MATCHED_HITS = 5  # BM25 hits that carry the query terms they hold (invariant 154)


def _source_pairs(rows: Sequence[Sequence[Any]]) -> tuple[np.ndarray, np.ndarray]:
    """(fact row, source episode row) of a view's rows (..., d.vec, d.id, source ids JSON):
    only sources inside the same view count (invariant 152: the user's own episodes)."""
    where = {r[9]: i for i, r in enumerate(rows)}
    pairs = [(i, where[e]) for i, r in enumerate(rows) if r[10]
             for e in json.loads(r[10]) if e in where and where[e] != i]
    if not pairs:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    a = np.asarray(pairs, np.int64)
    return a[:, 0], a[:, 1]


def user_token(user_id: str) -> str:
    """FTS column value for the owner: a hash, so any user id is a safe single token."""
    return "u" + hashlib.sha1(user_id.encode()).hexdigest()[:20]


class EmbeddedStore:
    """SQLite-backed store. Safe to share between threads (one connection behind a lock)."""

    capabilities = frozenset({Capability.TRANSACTIONS, Capability.WEIGHTED_TERMS,
                              Capability.SCANS_ERASED})
    recall_path = "embedded: FTS5 + exact numpy"

    def __init__(self, path: str | Path, embedder: Embedder, *, busy_timeout: float = 5.0) -> None:
        self.path = Path(path)
        self.busy_timeout = float(busy_timeout)  # MEMDESK_BUSY_TIMEOUT via the runtime (inv. 69)
        self._pending_usage: list[tuple[str, list[str], str]] = []  # bumps deferred while busy
        self.url = f"embedded:{self.path}"
        self.embedder = embedder
        self._lock = threading.RLock()
        self._tomb_matrices: dict[str, tuple[list[str], dict[str, int], np.ndarray]] = {}
        # Issue 17: one searchable view per user (dense matrix + per-user BM25 + session
        # context), built on first search, dropped on a write to that user or to the catalog.
        self._views: dict[str, UserView] = {}
        self._stale: dict[str, UserView] = {}  # the dropped view: its tokens are reused
        self._vocab = Vocabulary()
        self.index_params = IndexParams()
        self._closed = False
        for parent in self.path.parents:  # a parent that is a file: say so (invariant 69)
            if parent.exists():
                if not parent.is_dir():
                    raise StoreUnavailableError(f"cannot open embedded store at {self.path}: "
                                                f"{parent} is a file, not a directory")
                break
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(
                str(self.path), check_same_thread=False, isolation_level=None,
                timeout=self.busy_timeout,
            )
            # A writer waits this long for another writer, then fails with exit 6 naming the
            # lock (invariant 69).
            self._db.execute(f"PRAGMA busy_timeout={int(self.busy_timeout * 1000)}")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            # Deleted and overwritten content is zeroed, not left in free pages: forgotten text
            # leaves the file (invariant 66).
            self._db.execute("PRAGMA secure_delete=ON")
            # Reads through a memory map instead of read() into SQLite's 2 MB page cache: ~1 ms
            # (10%) off the two recall legs at 200k documents (docs/benchmarks.md, "Embedded
            # store"). Writes still go through the WAL; the map only reserves address space.
            self._db.execute("PRAGMA mmap_size=1073741824")
            self._db.executescript(_SCHEMA)
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise StoreUnavailableError(self._locked(exc)) from None
            raise StoreUnavailableError(f"cannot open embedded store at {self.path}: {exc}") from exc
        except sqlite3.Error as exc:
            raise StoreUnavailableError(f"cannot open embedded store at {self.path}: {exc}") from exc
        except OSError as exc:  # e.g. a parent of the path is a regular file
            raise StoreUnavailableError(
                f"cannot open embedded store at {self.path}: {exc.strerror}"
                + (f" ({exc.filename})" if exc.filename else "")) from None
        self._check_meta()
        self._ensure_summary_columns()
        self._ensure_tombstone_keys()
        self._data_version = self._pragma_data_version()

    # lifecycle ------------------------------------------------------------------------------
    def _check_meta(self) -> None:
        meta = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
        want = {"schema": SCHEMA_VERSION, "embedder": self.embedder.name,
                "dims": str(self.embedder.dims)}
        if not meta:
            with self._tx():
                self._db.executemany("INSERT INTO meta VALUES (?, ?)", list(want.items()))
            return
        # invariant 16: never mix vector spaces in one store
        if meta.get("embedder") != want["embedder"] or meta.get("dims") != want["dims"]:
            raise MemdeskError(
                f"store {self.path} was built with embedder {meta.get('embedder')} "
                f"({meta.get('dims')} dims) but {want['embedder']} ({want['dims']} dims) is "
                "configured: set MEMDESK_EMBEDDER to match, or use a new store path"
            )

    def _ensure_summary_columns(self) -> None:
        """Additive (issue 6): virtual columns over the fact body plus a partial covering index
        on candidates, so the review queue lists 10k pending facts without parsing JSON bodies.
        Virtual columns cost no storage; older files gain them on first open."""
        have = {r[1] for r in self._db.execute("PRAGMA table_xinfo(docs)")}
        index = self._db.execute("SELECT 1 FROM sqlite_master WHERE name = 'docs_candidates'")
        if set(_SUMMARY_COLUMNS) <= have and index.fetchone():
            return  # already there: no write lock on an ordinary open
        with self._tx() as db:
            have = {r[1] for r in db.execute("PRAGMA table_xinfo(docs)")}
            for col, path in _SUMMARY_COLUMNS.items():
                if col not in have:
                    db.execute(f"ALTER TABLE docs ADD COLUMN {col} GENERATED ALWAYS AS "
                               f"(json_extract(body, '$.{path}')) VIRTUAL")
            db.execute(f"CREATE INDEX IF NOT EXISTS docs_candidates ON docs(user_id, "
                       f"{', '.join(_SUMMARY_COLUMNS)}, id, rev) "
                       "WHERE kind = 'semantic' AND state = 'candidate'")

    def refresh(self) -> None:
        """Writes are visible as soon as their transaction commits: nothing to do."""

    def hybrid_search(self, flt: RecallFilter, query: str, vector: np.ndarray, limit: int,
                      now: datetime, ranking: RankingParams, *, explain: bool = False,
                      extra: Mapping[str, float] | None = None) -> list[RankedHit] | None:
        raise NotImplementedError("the embedded store fuses in memory/ranking.py: no "
                                  "Capability.HYBRID_SEARCH")

    def _ensure_tombstone_keys(self) -> None:
        """Issue 11: each tombstone's canonical key (memory/values.py) and slot terms, indexed,
        so a write is matched by lookups, not a scan (invariant 63). Older files gain the
        columns and table on first open; keys are recomputed when KEY_VERSION changes, so
        stored keys always follow the matcher (invariant 63)."""
        have = {r[1] for r in self._db.execute("PRAGMA table_info(tombstones)")}
        meta = self._db.execute("SELECT value FROM meta WHERE key = 'tombstone_keys'").fetchone()
        if "mclaim" in have and meta is not None and meta[0] == KEY_VERSION:
            return
        with self._tx() as db:
            if "mkey" not in have:
                db.execute("ALTER TABLE tombstones ADD COLUMN mkey TEXT")
            if "mclaim" not in have:
                db.execute("ALTER TABLE tombstones ADD COLUMN mclaim TEXT")
            db.execute("CREATE INDEX IF NOT EXISTS tombstones_key ON tombstones(user_id, mkey)")
            db.execute("CREATE TABLE IF NOT EXISTS tombstone_terms (user_id TEXT NOT NULL, "
                       "term TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (user_id, term, id))"
                       " WITHOUT ROWID")
            db.execute("DELETE FROM tombstone_terms")
            for tid, user, body in db.execute("SELECT id, user_id, body FROM tombstones").fetchall():
                tomb = Tombstone.model_validate_json(body)
                if not tomb.forgotten:  # a forgotten value is matched by its keyed hash only
                    self._index_tombstone(db, tid, user, tomb.text)
            db.execute("INSERT OR REPLACE INTO meta VALUES ('tombstone_keys', ?)", (KEY_VERSION,))

    @staticmethod
    def _index_tombstone(db: sqlite3.Connection, tid: str, user: str, text: str) -> None:
        key, terms = index_entry(text)
        db.execute("UPDATE tombstones SET mkey = ?, mclaim = ? WHERE id = ?",
                   (key, claim_json(text), tid))
        db.executemany("INSERT OR IGNORE INTO tombstone_terms VALUES (?, ?, ?)",
                       [(user, term, tid) for term in terms])

    def close(self) -> None:
        with self._lock:
            if self._pending_usage and not self._closed:  # one last try, still never waiting
                self.bump_usage("", [], datetime.now())
            if not self._closed:
                self._closed = True
                self._db.close()

    def _conn(self) -> sqlite3.Connection:
        if self._closed:
            raise MemdeskError("the store is closed")
        return self._db

    def _pragma_data_version(self) -> int:
        return self._db.execute("PRAGMA data_version").fetchone()[0]

    def data_version(self) -> int:
        """Changes when another connection (e.g. the CLI) commits; the desk keys its short-lived
        caches on it (issue 13). Writes through this connection do not change it."""
        with self._lock:
            return self._pragma_data_version()

    def _sync_external(self) -> None:
        # Another process (the CLI beside the desk) may have committed: drop cached matrices.
        version = self._pragma_data_version()
        if version != self._data_version:
            self._data_version = version
            self._tomb_matrices.clear()
            self._drop_views(None)

    def _locked(self, exc: Exception) -> str:
        return (f"the embedded store {self.path} is locked by another writer: waited "
                f"{self.busy_timeout:g} s ({exc}); retry when it finishes, or raise "
                "MEMDESK_BUSY_TIMEOUT (seconds)")

    class _Tx:
        def __init__(self, db: sqlite3.Connection, store: EmbeddedStore) -> None:
            self.db, self.store = db, store

        def __enter__(self) -> sqlite3.Connection:
            try:
                self.db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:  # busy past the timeout (invariant 69)
                if "locked" in str(exc) or "busy" in str(exc):
                    raise StoreUnavailableError(self.store._locked(exc)) from None
                raise
            return self.db

        def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                     tb: TracebackType | None) -> Literal[False]:
            self.db.execute("ROLLBACK" if exc_type else "COMMIT")
            return False

    def _tx(self) -> _Tx:
        return self._Tx(self._conn(), self)

    # decoding -------------------------------------------------------------------------------
    @staticmethod
    def _decode(kind: str, body: str) -> AnyMemory:
        # the class of the kind: which union member it is, mypy cannot tell from a dict lookup
        return MODEL_BY_KIND[MemoryKind(kind)].model_validate_json(body)  # type: ignore[return-value]

    # reads ------------------------------------------------------------------------------------
    def get(self, kind: MemoryKind, user_id: str | None, memory_id: str) -> AnyMemory | None:
        with self._lock:
            row = self._conn().execute(
                "SELECT kind, body FROM docs WHERE id = ? AND kind = ? AND user_id IS ?",
                (memory_id, MemoryKind(kind).value, user_id),
            ).fetchone()
        return None if row is None else self._decode(*row)

    def owner_of(self, kind: MemoryKind, memory_id: str) -> str | None:
        with self._lock:
            row = self._conn().execute(
                "SELECT user_id FROM docs WHERE id = ? AND kind = ?", (memory_id, MemoryKind(kind).value)
            ).fetchone()
        return None if row is None else row[0]

    def list_facts(self, user_id: str, *, states: set[FactState] | None = None,
                   ids: list[str] | None = None) -> list[Fact]:
        sql = "SELECT kind, body FROM docs WHERE user_id = ? AND kind = 'semantic'"
        args: list = [user_id]
        if states:
            sql += f" AND state IN ({','.join('?' * len(states))})"
            args += [FactState(s).value for s in states]
        if ids is not None:
            if not ids:
                return []
            sql += f" AND id IN ({','.join('?' * len(ids))})"
            args += list(ids)
        with self._lock:
            rows = self._conn().execute(sql + " ORDER BY rid", args).fetchall()
        facts = [Fact.model_validate_json(body) for _kind, body in rows]  # kind is 'semantic'
        return sorted(facts, key=lambda f: (f.recorded_at, f.id))

    def list_episodes(self, user_id: str, *, after: datetime | None = None,
                      limit: int | None = None) -> list[Episode]:
        with self._lock:
            rows = self._conn().execute(
                "SELECT kind, body FROM docs WHERE user_id = ? AND kind = 'episodic'", (user_id,)
            ).fetchall()
        eps = [Episode.model_validate_json(body) for _kind, body in rows]  # kind: 'episodic'
        eps.sort(key=lambda e: (e.timestamp, e.recorded_at, e.id))
        if after is not None:
            eps = [e for e in eps if e.timestamp > after]
        return eps[:limit] if limit else eps

    def list_playbooks(self, user_id: str) -> list[Playbook]:
        with self._lock:
            rows = self._conn().execute(
                "SELECT kind, body FROM docs WHERE user_id = ? AND kind = 'procedural' ORDER BY rid",
                (user_id,),
            ).fetchall()
        return [Playbook.model_validate_json(body) for _kind, body in rows]

    def list_catalog(self) -> list[CatalogDoc]:
        with self._lock:
            rows = self._conn().execute(
                "SELECT kind, body FROM docs WHERE kind = 'catalog' ORDER BY rid"
            ).fetchall()
        return [CatalogDoc.model_validate_json(body) for _kind, body in rows]

    def list_tombstones(self, user_id: str) -> list[Tombstone]:
        with self._lock:
            rows = self._conn().execute(
                "SELECT body FROM tombstones WHERE user_id = ? ORDER BY rowid", (user_id,)
            ).fetchall()
        return [Tombstone.model_validate_json(r[0]) for r in rows]

    def nearest_tombstones(self, user_id: str, vector: np.ndarray,
                           k: int = 3) -> list[tuple[Tombstone, float]]:
        with self._lock:
            rows = self._conn().execute(
                "SELECT body, vec FROM tombstones WHERE user_id = ?", (user_id,)
            ).fetchall()
        if not rows:
            return []
        mat = np.stack([np.frombuffer(r[1], np.float32) for r in rows])
        sims = mat @ np.asarray(vector, np.float32)
        order = np.argsort(-sims)[:k]
        return [(Tombstone.model_validate_json(rows[i][0]), float(sims[i])) for i in order]

    def _tomb_matrix(self, user_id: str) -> tuple[list[str], dict[str, int], np.ndarray]:
        """The user's tombstone vectors as one matrix, cached until a tombstone is written."""
        cached = self._tomb_matrices.get(user_id)
        if cached is None:
            rows = self._conn().execute(
                "SELECT id, vec FROM tombstones WHERE user_id = ? ORDER BY rowid", (user_id,)
            ).fetchall()
            ids = [r[0] for r in rows]
            mat = (np.frombuffer(b"".join(r[1] for r in rows), np.float32).reshape(len(rows), -1)
                   if rows else np.zeros((0, self.embedder.dims), np.float32))
            cached = (ids, {i: n for n, i in enumerate(ids)}, mat)
            self._tomb_matrices[user_id] = cached
        return cached

    def tombstone_candidates(self, user_id: str, probe: TombstoneProbe,
                             vector: np.ndarray | Callable[[], np.ndarray],
                             k: int = 5, *, limit: int = 20
                             ) -> list[tuple[Tombstone, float | None]]:
        """Tombstones that may concern a text (invariant 63): an equal canonical key or
        normalised text, a shared slot term (index lookups), and the k nearest by vector
        (one matrix product). Each with its cosine to `vector`."""
        with self._lock:
            self._sync_external()
            db = self._conn()
            ids: dict[str, None] = {}
            # Each lookup is one index search (an OR across two columns would scan the user).
            for key in dict.fromkeys(probe.keys):
                for (tid,) in db.execute("SELECT id FROM tombstones WHERE user_id = ? AND mkey = ?",
                                         (user_id, key)):
                    ids[tid] = None
            for (tid,) in db.execute("SELECT id FROM tombstones WHERE user_id = ? AND "
                                     "normalized = ?", (user_id, probe.normalized)):
                ids[tid] = None
            # The tombstones sharing most value words with the text, each word's postings cut
            # at `limit`: a word in every value of the slot ("music") cannot flood the check.
            shared: dict[str, int] = {}
            for term in probe.terms:
                for (tid,) in db.execute("SELECT id FROM tombstone_terms WHERE user_id = ? AND "
                                         "term = ? LIMIT ?", (user_id, term, limit)):
                    shared[tid] = shared.get(tid, 0) + 1
            for tid in sorted(shared, key=lambda t: (-shared[t], t))[:limit]:
                ids[tid] = None
            all_ids, row_of, mat = self._tomb_matrix(user_id)
            if not all_ids:
                return []
            # One thread: a matrix-vector product this size gains nothing from BLAS threads and,
            # on a busy machine, loses several times over to their spinning (bench_tombstones).
            query = vector() if callable(vector) else vector
            with _blas_threads(1):
                sims = mat @ np.asarray(query, np.float32)
            top = min(k, sims.size)
            for n in np.argpartition(-sims, top - 1)[:top]:
                ids[all_ids[int(n)]] = None
            chosen = list(ids)
            rows = db.execute(f"SELECT id, body, mclaim FROM tombstones WHERE id IN "
                              f"({','.join('?' * len(chosen))})", chosen).fetchall()
        out: list[tuple[Tombstone, float | None]] = []
        for tid, body, claim in rows:
            if tid in row_of:
                tomb = Tombstone.model_validate_json(body)
                if claim:  # the stored reading: matching does not parse the text again
                    remember(tomb.text, claim)
                out.append((tomb, float(sims[row_of[tid]])))
        out.sort(key=lambda p: -float(sims[row_of[p[0].id]]))  # every one has its cosine
        return out

    def audit(self, user_id: str, *, limit: int = 100, action: str | None = None,
              plan_id: str | None = None) -> list[AuditEvent]:
        sql = "SELECT body FROM audit WHERE user_id = ?"
        args: list[str | int] = [user_id]
        if action:
            sql += " AND action = ?"
            args.append(action)
        if plan_id:
            sql += " AND plan_id = ?"
            args.append(plan_id)
        sql += " ORDER BY seq DESC LIMIT ?"
        args.append(limit)
        with self._lock:
            rows = self._conn().execute(sql, args).fetchall()
        return [AuditEvent.model_validate_json(r[0]) for r in rows]

    def users(self) -> list[str]:
        with self._lock:
            rows = self._conn().execute(
                "SELECT DISTINCT user_id FROM docs WHERE user_id IS NOT NULL ORDER BY user_id"
            ).fetchall()
        return [r[0] for r in rows]

    def counts(self, user_id: str) -> dict[str, dict[str, int]]:
        with self._lock:
            rows = self._conn().execute(
                "SELECT kind, COALESCE(state, 'all'), COUNT(*) FROM docs WHERE user_id = ? "
                "GROUP BY kind, state", (user_id,)
            ).fetchall()
        out: dict[str, dict[str, int]] = {}
        for kind, state, n in rows:
            out.setdefault(kind, {})[state] = n
        return out

    def get_watermark(self, user_id: str, name: str) -> str | None:
        with self._lock:
            row = self._conn().execute(
                "SELECT value FROM watermarks WHERE user_id = ? AND name = ?", (user_id, name)
            ).fetchone()
        return None if row is None else row[0]

    # Issue 3 (migrate): every scope with audit events, and a user's watermarks, so a copy to
    # another backend misses nothing (denied attempts are audited under users with no memories).
    def audit_users(self) -> list[str]:
        with self._lock:
            rows = self._conn().execute("SELECT DISTINCT user_id FROM audit ORDER BY user_id").fetchall()
        return [r[0] for r in rows]

    def audit_count(self, user_id: str) -> int:
        with self._lock:
            return self._conn().execute("SELECT COUNT(*) FROM audit WHERE user_id = ?",
                                        (user_id,)).fetchone()[0]

    def watermarks(self, user_id: str) -> dict[str, str]:
        with self._lock:
            rows = self._conn().execute(
                "SELECT name, value FROM watermarks WHERE user_id = ? ORDER BY name", (user_id,)
            ).fetchall()
        return dict(rows)

    def watermark_users(self) -> list[str]:
        with self._lock:
            rows = self._conn().execute(
                "SELECT DISTINCT user_id FROM watermarks ORDER BY user_id").fetchall()
        return [r[0] for r in rows]

    # issue 15: bearer credentials, hashed (memory/credentials.py) ------------------------------
    def get_credential(self, credential_id: str) -> Credential | None:
        with self._lock:
            row = self._conn().execute("SELECT body FROM credentials WHERE id = ?",
                                       (credential_id,)).fetchone()
        return None if row is None else Credential.model_validate_json(row[0])

    def list_credentials(self, user_id: str | None = None) -> list[Credential]:
        where, args = ("", []) if user_id is None else (" WHERE user_id = ?", [user_id])
        with self._lock:
            rows = self._conn().execute("SELECT body FROM credentials" + where, args).fetchall()
        return sorted((Credential.model_validate_json(r[0]) for r in rows),
                      key=attrgetter("created_at", "id"))

    def _credential(self, db: sqlite3.Connection, op: PutCredential) -> None:
        cred, body = op.credential, op.credential.model_dump_json()
        row = db.execute("SELECT rev, body FROM credentials WHERE id = ?", (cred.id,)).fetchone()
        if row is not None and row[1] == body:
            return  # this very record: a retried batch converges
        if op.expected_rev is None:
            if row is not None:
                raise ConflictError(f"credential {cred.id} already exists", target_id=cred.id)
            db.execute("INSERT INTO credentials (id, user_id, rev, body) VALUES (?, ?, ?, ?)",
                       (cred.id, cred.user_id, cred.rev, body))
            return
        if row is None or row[0] != op.expected_rev or cred.rev != op.expected_rev + 1 \
                or Credential.model_validate_json(row[1]).user_id != cred.user_id:
            raise ConflictError(f"credential {cred.id} changed since it was read: reload and "
                                "try again", target_id=cred.id)
        db.execute("UPDATE credentials SET rev = ?, body = ? WHERE id = ?",
                   (cred.rev, body, cred.id))

    def fact_summaries(self, query: FactQuery) -> FactPage:
        """Filtered, counted and paged in SQLite; for candidates (the review queue) over a
        covering partial index, so no row or JSON body is read (bench/bench_review.py)."""
        if not query.user_ids:
            return FactPage([], 0, {})
        users = sorted(set(query.user_ids))
        states = sorted(s.value for s in query.states) if query.states else None
        only_candidates = states == [FactState.CANDIDATE.value]
        scope = (f"FROM docs {'INDEXED BY docs_candidates ' if only_candidates else ''}"
                 f"WHERE kind = 'semantic' AND user_id IN ({','.join('?' * len(users))})")
        args: list[str] = list(users)
        if only_candidates:  # a literal: the partial index's condition must be provable
            scope += " AND state = 'candidate'"
        elif states:
            scope += f" AND state IN ({','.join('?' * len(states))})"
            args += states
        where = ""
        wargs: list[str | float] = []
        if query.fact_types:
            where += f" AND f_type IN ({','.join('?' * len(query.fact_types))})"
            wargs += sorted(query.fact_types)
        for cond, value in (("f_conf >= ?", query.min_confidence),
                            ("f_conf <= ?", query.max_confidence),
                            ("julianday(f_recorded) >= julianday(?)", query.recorded_after),
                            ("julianday(f_recorded) <= julianday(?)", query.recorded_before)):
            if value is not None:
                where += f" AND {cond}"
                wargs.append(value.isoformat() if isinstance(value, datetime) else value)
        if query.text:
            where += " AND instr(lower(f_text), ?) > 0"
            wargs.append(query.text.lower())
        # Generic traits (base.trait_code), computed from the index's columns.
        code = ("((instr(COALESCE(f_flags, ''), ?) > 0) * 8 + (instr(COALESCE(f_flags, ''), ?) > 0) * 4"
                " + (f_supersedes IS NOT NULL) * 2 + (f_conf < ?))")
        cargs: list[str | float] = [json.dumps(query.trait_lead or "\x00"),
                                    json.dumps(query.trait_flag or "\x00"),
                                    query.trait_below if query.trait_below is not None else -1.0]
        if query.traits is not None:
            where += f" AND {code} IN ({','.join('?' * len(query.traits)) or 'NULL'})"
            wargs += [*cargs, *sorted(query.traits)]
        # `state` is a literal for candidates: reading the column would visit the row.
        cols = f"id, user_id, rev, {repr(FactState.CANDIDATE.value) if only_candidates else 'state'}, " \
               f"{', '.join(_SUMMARY_COLUMNS)}"
        order = "DESC" if query.newest_first else "ASC"
        page = (f"SELECT {cols} {scope}{where} ORDER BY f_recorded {order}, id {order} "
                f"LIMIT ? OFFSET ?")
        with self._lock:
            db = self._conn()
            grouped = db.execute(
                f"SELECT user_id, {'state' if not only_candidates else repr(FactState.CANDIDATE.value)}, "
                f"{code}, COUNT(*), SUM(CASE WHEN 1{where} THEN 1 ELSE 0 END) {scope} "
                "GROUP BY 1, 2, 3", [*cargs, *wargs, *args]).fetchall()
            rows = db.execute(page, [*args, *wargs, -1 if query.limit is None else query.limit,
                                     query.offset]).fetchall()
        counts: dict[str, dict[str, int]] = {}
        traits: dict[str, dict[int, int]] = {}
        for user, state, trait, n, _ in grouped:
            by_state = counts.setdefault(user, {})
            by_state[state] = by_state.get(state, 0) + n
            traits.setdefault(user, {})[int(trait)] = traits.get(user, {}).get(int(trait), 0) + n
        out = [_summary(r) for r in rows]
        # SQL orders by ISO text; the exact order (offsets differ) is by parsed time.
        out.sort(key=attrgetter("recorded_at", "id"), reverse=query.newest_first)
        return FactPage(out, sum(m for *_, m in grouped), counts, traits)

    def contradicted_sources(self, user_id: str, episode_ids: list[str]) -> set[str]:
        """Which of these episodes are the source of a retracted or rejected fact that was not
        merged away and was no proposed retraction (invariants 65, 591). One query over the
        user's dead facts (docs_scope index)."""
        if not episode_ids:
            return set()
        sql = ("SELECT DISTINCT s.value FROM docs d, json_each(d.body, '$.source_episode_ids') s "
               "WHERE d.user_id = ? AND d.kind = 'semantic' AND d.state IN ('retracted', "
               f"'rejected') AND s.value IN ({','.join('?' * len(episode_ids))}) AND NOT EXISTS "
               "(SELECT 1 FROM json_each(d.body, '$.flags') g WHERE substr(g.value, 1, 12) = "
               "'merged_into:' OR g.value = ?)")
        with self._lock:
            rows = self._conn().execute(sql, [user_id, *episode_ids,
                                              PROPOSED_RETRACTION]).fetchall()
        return {r[0] for r in rows}

    # search -----------------------------------------------------------------------------------
    def search_bm25(self, flt: RecallFilter, query: str, limit: int, *,
                    extra: Mapping[str, float] | None = None) -> list[LegHit]:
        """BM25 with this user's own statistics (invariant 101), episodes indexed with their
        session neighbours (memory.stores.user_view). Scores are comparable within one call.
        `extra`: analysed terms scored at their own weight (the lexicon, invariant 169)."""
        with self._lock:
            self._sync_external()
            view = self._view(flt.user_id)
            idx, scores = view.bm25(query, self._vocab, self._mask(view, flt), limit, extra)
            hits = self._hits(view, idx, scores)
            # invariant 154: what the best few hits hold of the query, context words included
            for h, m in zip(hits, view.matched(query, self._vocab, idx[:MATCHED_HITS].tolist()),
                            strict=False):
                h.matched = m
            if hits:  # invariant 154: how rare each query word is in this user's corpus
                hits[0].term_idf = view.idf(query, self._vocab)
            return hits

    def user_names(self, user_id: str) -> frozenset[str]:
        """The user's own names, from their active facts that name them (invariant 153); kept in
        the user's view, so free on every recall after the first."""
        with self._lock:
            self._sync_external()
            return self._view(user_id).names

    def search_dense(self, flt: RecallFilter, vector: np.ndarray, limit: int) -> list[LegHit]:
        vector = np.asarray(vector, np.float32)
        with self._lock:
            self._sync_external()
            view = self._view(flt.user_id)
            idx, sims = view.knn(vector, self._mask(view, flt), limit)
            # Score like Elasticsearch's cosine similarity: (1 + cos) / 2, always positive; the
            # cosine itself rides along (invariant 19).
            return self._hits(view, idx, (1.0 + sims) / 2.0, cosines=sims)

    @staticmethod
    def _mask(view: UserView, flt: RecallFilter) -> np.ndarray:
        """Which of the view's documents this filter may see (invariant 2: the view holds only
        this user's documents and the catalog; the mask narrows kinds, states and catalog).
        Kept per filter shape in the view (a view never outlives a write to its user)."""
        key = (flt.kinds, flt.fact_states, flt.include_catalog)
        mask = view.masks.get(key)
        if mask is None:
            mask = view.masks[key] = EmbeddedStore._build_mask(view, flt)
        return mask

    @staticmethod
    def _build_mask(view: UserView, flt: RecallFilter) -> np.ndarray:
        kind_codes = [_KIND_CODE[k] for k in flt.kinds if k != MemoryKind.CATALOG]
        state_codes = [_STATE_CODE[s] for s in flt.fact_states]
        mask = ~view.catalog & np.isin(view.kinds, kind_codes) & (
            (view.kinds != _KIND_CODE[MemoryKind.SEMANTIC]) | np.isin(view.states, state_codes))
        if flt.include_catalog:
            mask |= view.catalog
        return mask

    def _hits(self, view: UserView, idx: np.ndarray, scores: np.ndarray,
              cosines: np.ndarray | None = None) -> list[LegHit]:
        """Leg hits for view rows. Decoded records are kept in the view (dropped with it on any
        write to the user, and per record on a usage bump): fetching and decoding bodies was
        most of a leg's time (issue 17). Records are shared between recalls: read-only."""
        if idx.size == 0:
            return []
        docs = view.docs
        missing = [int(view.rids[i]) for i in idx.tolist() if i not in docs]
        if missing:
            rows = self._conn().execute(
                f"SELECT rid, kind, body FROM docs WHERE rid IN ({','.join('?' * len(missing))})",
                missing).fetchall()
            where = view.index_of
            for rid, kind, body in rows:
                docs[where[rid]] = self._decode(kind, body)
        out = []
        cos = cosines.tolist() if cosines is not None else [None] * len(idx)
        for i, sc, c in zip(idx.tolist(), scores.tolist(), cos, strict=True):
            doc = docs.get(i)
            if doc is not None:
                pos = int(view.position[i])
                # model_construct: the record was validated when it was decoded
                out.append(LegHit.model_construct(
                    doc=doc, score=float(sc), cosine=None if c is None else float(c),
                    session_pos=(view.session[i], pos) if pos >= 0 else None))
        return out

    def _view(self, user_id: str) -> UserView:
        view = self._views.get(user_id)
        if view is None:
            db = self._conn()
            cols = ("SELECT d.rid, d.rev, d.kind, d.state, d.user_id IS NULL, f.body, "
                    "json_extract(d.body, '$.session_id'), json_extract(d.body, '$.timestamp'), "
                    "d.vec, d.id, json_extract(d.body, '$.source_episode_ids') "
                    "FROM docs d JOIN docs_fts f ON f.rowid = d.rid ")
            rows = (db.execute(cols + "WHERE d.user_id = ? ORDER BY d.rid", (user_id,)).fetchall()
                    + db.execute(cols + "WHERE d.user_id IS NULL AND d.kind = 'catalog' "
                                 "ORDER BY d.rid").fetchall())
            dims = self.embedder.dims
            vectors = (np.frombuffer(b"".join(r[8] for r in rows), np.float32).reshape(-1, dims)
                       if rows else np.zeros((0, dims), np.float32))
            meta = [(r[0], r[1], _KIND_CODE[MemoryKind(r[2])], _STATE_CODE.get(r[3], 0) if r[3] else 0,
                     r[4], r[5], r[6], parse_time(r[7])) for r in rows]
            view = UserView(meta, vectors, vocab=self._vocab, params=self.index_params,
                            stale=self._stale.pop(user_id, None), sources=_source_pairs(rows))
            self._views[user_id] = view
        return view

    def _drop_views(self, user_id: str | None) -> None:
        """A write to a user drops their view; a catalog write (user None) drops every view."""
        users = list(self._views) if user_id is None else [user_id]
        for u in users:
            view = self._views.pop(u, None)
            if view is not None:
                view.release()  # keep only its tokens, for reuse by the next build
                self._stale[u] = view

    def set_index_params(self, params: IndexParams) -> None:
        """Change the context-window choices (evaluation sweeps); every view is rebuilt."""
        with self._lock:
            self.index_params = params
            self._views.clear()

    # writes -----------------------------------------------------------------------------------
    def _vectors_for(self, ops: list[Op]) -> dict[str, np.ndarray]:
        texts: dict[str, str] = {}
        for op in ops:
            if isinstance(op, (PutMemory, UpdateMemory)):
                texts[op.doc.id] = op.doc.search_text()
            elif isinstance(op, PutTombstone):
                texts[op.tombstone.id] = op.tombstone.text
        if not texts:
            return {}
        vectors: dict[str, np.ndarray] = {}
        # An update that keeps the text (a supersession, a review decision, a count) keeps its
        # stored vector: no model call. The transaction re-checks the revision anyway.
        updated = [op.doc.id for op in ops if isinstance(op, UpdateMemory)]
        if updated:
            with self._lock:
                rows = self._conn().execute(
                    "SELECT d.id, f.body, d.vec FROM docs d JOIN docs_fts f ON f.rowid = d.rid "
                    f"WHERE d.id IN ({','.join('?' * len(updated))})", updated).fetchall()
            for doc_id, body, vec in rows:
                if texts.get(doc_id) == body:
                    vectors[doc_id] = np.frombuffer(vec, np.float32)
        keys = [k for k in texts if k not in vectors]
        if keys:
            vectors.update(zip(keys, self.embedder.embed([texts[k] for k in keys]), strict=False))
        return vectors

    def apply(self, ops: list[Op]) -> None:
        vectors = self._vectors_for(ops)  # embed before the transaction: keep it short
        touched: set[str | None] = set()
        with self._lock, self._tx() as db:
            for op in ops:
                if isinstance(op, PutMemory):
                    self._put(db, op.doc, vectors[op.doc.id])
                    touched.add(op.doc.user_id)
                elif isinstance(op, UpdateMemory):
                    self._update(db, op, vectors[op.doc.id])
                    touched.add(op.doc.user_id)
                elif isinstance(op, DeleteMemory):
                    self._delete(db, op)
                    touched.add(op.user_id)
                elif isinstance(op, PutTombstone):
                    t = op.tombstone
                    self._not_anothers(db, "tombstones", "tombstone", t.id, t.user_id)
                    cur = db.execute(
                        "INSERT OR IGNORE INTO tombstones (id, user_id, normalized, body, vec) "
                        "VALUES (?, ?, ?, ?, ?)",
                        (t.id, t.user_id, t.normalized, t.model_dump_json(),
                         vectors[t.id].astype(np.float32).tobytes()),
                    )
                    if cur.rowcount:
                        self._index_tombstone(db, t.id, t.user_id, t.text)
                    self._tomb_matrices.pop(t.user_id, None)
                elif isinstance(op, AppendAudit):
                    e = op.event
                    self._not_anothers(db, "audit", "audit event", e.id, e.user_id)
                    db.execute(
                        "INSERT OR IGNORE INTO audit (id, user_id, at, action, plan_id, body) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        (e.id, e.user_id, e.at.isoformat(), e.action, e.plan_id, e.model_dump_json()),
                    )
                elif isinstance(op, SetWatermark):
                    self._watermark(db, op)
                elif isinstance(op, PutCredential):
                    self._credential(db, op)
                else:  # pragma: no cover - the Op union is closed
                    raise TypeError(f"unknown op {op!r}")
            self._data_version = self._pragma_data_version()
        with self._lock:
            for user in touched:
                self._drop_views(user)

    @staticmethod
    def _not_anothers(db: sqlite3.Connection, table: str, what: str, rid: str,
                      user_id: str | None) -> None:
        """An append-only id met again is the same record (a retry) only for the same user: an
        id another user holds is a conflict, never silently dropped (invariant 124)."""
        row = db.execute(f"SELECT user_id FROM {table} WHERE id = ?", (rid,)).fetchone()
        if row is not None and row[0] != user_id:
            raise ConflictError(f"{what} {rid} already belongs to another user: refused whole",
                                target_id=rid)

    def _put(self, db: sqlite3.Connection, doc: AnyMemory, vec: np.ndarray) -> None:
        body = doc.model_dump_json()
        row = db.execute("SELECT body FROM docs WHERE id = ?", (doc.id,)).fetchone()
        if row is not None:
            if json.loads(row[0]) == json.loads(body):
                return  # identical re-put: a retried apply converges
            raise ConflictError(f"{doc.kind.value} {doc.id} already exists", target_id=doc.id)
        state = doc.trust
        cur = db.execute(
            "INSERT INTO docs (id, kind, user_id, state, rev, body, vec) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (doc.id, doc.kind.value, doc.user_id, state.value if state else None, doc.rev, body,
             vec.astype(np.float32).tobytes()),
        )
        utok = user_token(doc.user_id) if doc.user_id is not None else CATALOG_TOKEN
        db.execute("INSERT INTO docs_fts (rowid, utok, body) VALUES (?, ?, ?)",
                   (cur.lastrowid, utok, doc.search_text()))

    def _update(self, db: sqlite3.Connection, op: UpdateMemory, vec: np.ndarray) -> None:
        doc = op.doc
        row = db.execute(
            "SELECT rid, rev, body FROM docs WHERE id = ? AND kind = ? AND user_id IS ?",
            (doc.id, doc.kind.value, doc.user_id),
        ).fetchone()
        if row is None:
            raise ConflictError(f"{doc.kind.value} {doc.id} no longer exists", target_id=doc.id)
        rid, rev, old_body = row
        if rev != op.expected_rev or doc.rev != op.expected_rev + 1:
            raise ConflictError(
                f"{doc.kind.value} {doc.id} changed since it was read (revision {rev}, expected "
                f"{op.expected_rev}): reload and decide again", target_id=doc.id)
        # Usage stats belong to the store (bumped atomically by recall), not to the caller's copy.
        old = json.loads(old_body)
        if doc.TRACKS_USE and "use_count" in old:
            # TRACKS_USE marks the kinds with usage fields; mypy cannot narrow on a ClassVar
            stats = {"use_count": max(old["use_count"], doc.use_count)}  # type: ignore[union-attr]
            if old.get("last_used_at") and (doc.last_used_at is None  # type: ignore[union-attr]
                                             or old["last_used_at"] > doc.last_used_at.isoformat()):  # type: ignore[union-attr]
                stats["last_used_at"] = old["last_used_at"]
            doc = doc.model_validate({**doc.model_dump(), **stats})
        state = doc.trust
        db.execute("UPDATE docs SET state = ?, rev = ?, body = ?, vec = ? WHERE rid = ?",
                   (state.value if state else None, doc.rev, doc.model_dump_json(),
                    vec.astype(np.float32).tobytes(), rid))
        db.execute("DELETE FROM docs_fts WHERE rowid = ?", (rid,))
        utok = user_token(doc.user_id) if doc.user_id is not None else CATALOG_TOKEN
        db.execute("INSERT INTO docs_fts (rowid, utok, body) VALUES (?, ?, ?)",
                   (rid, utok, doc.search_text()))

    def _delete(self, db: sqlite3.Connection, op: DeleteMemory) -> None:
        row = db.execute("SELECT rid, rev FROM docs WHERE id = ? AND kind = ? AND user_id IS ?",
                         (op.id, op.kind.value, op.user_id)).fetchone()
        if row is None:
            return  # already gone: a retried delete converges
        if op.expected_rev is not None and row[1] != op.expected_rev:
            raise ConflictError(f"{op.kind.value} {op.id} changed since it was read", target_id=op.id)
        db.execute("DELETE FROM docs WHERE rid = ?", (row[0],))
        db.execute("DELETE FROM docs_fts WHERE rowid = ?", (row[0],))

    # forgetting (issue 11, invariants 66 and 67) ----------------------------------------------
    def value_key(self, *, create: bool = False) -> bytes | None:
        """The store's secret for keyed hashes of forgotten tombstone values (meta table)."""
        with self._lock:
            row = self._conn().execute(
                "SELECT value FROM meta WHERE key = 'value_hmac_key'").fetchone()
            if row is None and create:
                with self._tx() as db:
                    db.execute("INSERT OR IGNORE INTO meta VALUES ('value_hmac_key', ?)",
                               (secrets.token_hex(32),))
                return self.value_key()
        return None if row is None else bytes.fromhex(row[0])

    def adopt_value_key(self, key: bytes) -> None:
        with self._lock, self._tx() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES ('value_hmac_key', ?)", (key.hex(),))

    def _hash_tombstones(self, db: sqlite3.Connection, user_id: str, erasure: Erasure | None,
                         key: bytes) -> set[str]:
        """Tombstones of forgotten values (all of the user's when `erasure` is None) keep a
        keyed hash instead of their text, and a zero vector."""
        done = set()
        zero = np.zeros(self.embedder.dims, np.float32).tobytes()
        for tid, body in db.execute("SELECT id, body FROM tombstones WHERE user_id = ?",
                                    (user_id,)).fetchall():
            tomb = json.loads(body)
            if erasure is None:  # a whole user: every value, its reason too
                new = None if tomb.get("forgotten") else {**hash_tombstone(tomb, key), "reason": None}
            else:
                new = redact_tombstone(tomb, erasure, key)
            if new is not None:
                # The match index is derived from the text: it goes too (the keyed hash in
                # `normalized` still refuses the exact value, invariant 66).
                db.execute("UPDATE tombstones SET normalized = ?, body = ?, vec = ?, mkey = NULL, "
                           "mclaim = NULL WHERE id = ?",
                           (new["normalized"], json.dumps(new, ensure_ascii=False), zero, tid))
                db.execute("DELETE FROM tombstone_terms WHERE user_id = ? AND id = ?",
                           (user_id, tid))
                done.add(tid)
        return done

    def redact(self, user_id: str, erasure: Erasure) -> dict[str, int]:
        """Remove forgotten text from this user's tombstones and audit snapshots, in one
        transaction; the events stay (memory/redaction.py). Idempotent."""
        key = self.value_key(create=True)
        assert key is not None
        with self._lock, self._tx() as db:
            tombs = self._hash_tombstones(db, user_id, erasure, key)
            events = 0
            for seq, body in db.execute("SELECT seq, body FROM audit WHERE user_id = ?",
                                        (user_id,)).fetchall():
                new = redact_event(json.loads(body), erasure, frozenset(tombs))
                if new is not None:
                    db.execute("UPDATE audit SET body = ? WHERE seq = ?",
                               (json.dumps(new, ensure_ascii=False), seq))
                    events += 1
            self._data_version = self._pragma_data_version()
        return {"events": events, "tombstones": len(tombs)}

    def erase_user(self, user_id: str, event: AuditEvent) -> dict[str, int]:
        """Everything the user owns, in one transaction: memories (and their FTS rows and
        vectors) and watermarks deleted, tombstones reduced to keyed hashes, audit events
        replaced by `event` (invariant 67)."""
        key = self.value_key(create=True)
        assert key is not None
        with self._lock, self._tx() as db:
            db.execute("DELETE FROM docs_fts WHERE rowid IN (SELECT rid FROM docs WHERE "
                       "user_id = ?)", (user_id,))
            memories = db.execute("DELETE FROM docs WHERE user_id = ?", (user_id,)).rowcount
            tombs = self._hash_tombstones(db, user_id, None, key)
            events = db.execute("DELETE FROM audit WHERE user_id = ?", (user_id,)).rowcount
            db.execute("DELETE FROM watermarks WHERE user_id = ?", (user_id,))
            db.execute("DELETE FROM credentials WHERE user_id = ?", (user_id,))  # invariant 131
            db.execute("INSERT INTO audit (id, user_id, at, action, plan_id, body) VALUES "
                       "(?, ?, ?, ?, ?, ?)", (event.id, event.user_id, event.at.isoformat(),
                                              event.action, event.plan_id, event.model_dump_json()))
            self._data_version = self._pragma_data_version()
        self._drop_views(user_id)
        return {"memories": memories, "tombstones": len(tombs), "events": events}

    def compact(self, texts: Sequence[str] = ()) -> list[str]:
        """After a forget: merge the FTS5 index so deleted terms leave its segments, then move
        the WAL into the file and truncate it (with secure_delete on, freed pages are zeros).
        The checkpoint waits for readers up to the busy timeout. Returns where erased text may
        still be (invariant 459): nothing only when the checkpoint completed and a scan of the
        file and its WAL finds none of `texts`; else the file and what holds it open."""
        residue = []
        with self._lock:
            with self._tx() as db:
                db.execute("INSERT INTO docs_fts(docs_fts) VALUES ('optimize')")
            busy, _, _ = self._conn().execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            self._data_version = self._pragma_data_version()
        found = left_in(self.path, texts)
        if busy or found:
            where = ", ".join(found) or f"{self.path.name}-wal"
            holders = holders_of(self.path)
            residue.append(
                f"erased text is still on disk in {where}: "
                + ("a reader kept the write-ahead log from being checkpointed" if busy
                   else "it was not yet overwritten")
                + (f"; held open by {', '.join(holders)}" if holders else "")
                + " — run the command again when that reader is done (e.g. the desk closed)")
        return residue

    def _watermark(self, db: sqlite3.Connection, op: SetWatermark) -> None:
        row = db.execute("SELECT value FROM watermarks WHERE user_id = ? AND name = ?",
                         (op.user_id, op.name)).fetchone()
        current = None if row is None else row[0]
        # A strict move is compare-and-set (invariant 38); a copied history converges.
        if op.expected != current and (op.strict or current != op.value):
            raise ConflictError(
                f"watermark {op.name} for {op.user_id} moved to {current} (expected {op.expected})")
        db.execute("INSERT OR REPLACE INTO watermarks VALUES (?, ?, ?)",
                   (op.user_id, op.name, op.value))

    def bump_usage(self, user_id: str, used: list[tuple[MemoryKind, str]], at: datetime) -> None:
        """Invariant 15, and 69: the bump never waits for another writer. When the file is
        locked the bump is kept in memory and applied with the next one that gets through, so
        the agent's reply is never held up by a usage count."""
        ids = [i for kind, i in used if kind in TRACKS_USE]
        stamp = at.isoformat().replace("+00:00", "Z")
        with self._lock:
            pending = self._pending_usage + ([(user_id, ids, stamp)] if ids else [])
            if not pending:
                return
            db = self._conn()
            db.execute("PRAGMA busy_timeout=0")
            try:
                try:
                    db.execute("BEGIN IMMEDIATE")
                except sqlite3.OperationalError as exc:
                    if "locked" not in str(exc) and "busy" not in str(exc):
                        raise
                    self._pending_usage = pending[-MAX_PENDING_BUMPS:]
                    return
                try:
                    for user, bump_ids, when in pending:
                        # One UPDATE per bump: the increment happens inside SQLite, never
                        # read-modify-write.
                        db.execute(
                            "UPDATE docs SET body = json_set(body, '$.last_used_at', ?, "
                            "'$.use_count', COALESCE(json_extract(body, '$.use_count'), 0) + 1) "
                            "WHERE user_id = ? AND kind IN ('semantic', 'procedural') AND id IN "
                            f"({','.join('?' * len(bump_ids))})", [when, user, *bump_ids])
                    db.execute("COMMIT")
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                self._pending_usage = []
                self._data_version = self._pragma_data_version()
                for user, bump_ids, _ in pending:  # bodies changed (use_count): decode again
                    view = self._views.get(user)
                    if view is not None:
                        gone = set(bump_ids)
                        for i in [i for i, d in view.docs.items() if d.id in gone]:
                            del view.docs[i]
            finally:
                db.execute(f"PRAGMA busy_timeout={int(self.busy_timeout * 1000)}")


# Invariant 459: is erased text still in the store's files, and who holds them open ------------
MAX_SCANNED = 500  # texts scanned for at most (the longest first): one pass over each file


def _needles(texts: Sequence[str]) -> list[bytes]:
    """Each text as the file may hold it: UTF-8 as is, and as a JSON string body (a record or
    audit snapshot); texts shorter than 8 bytes are too common to prove anything."""
    out: set[bytes] = set()
    for t in sorted(set(texts), key=len, reverse=True)[:MAX_SCANNED]:
        for form in (t, json.dumps(t, ensure_ascii=False)[1:-1]):
            raw = form.encode("utf-8", "surrogatepass")
            if len(raw) >= 8:
                out.add(raw)
    return sorted(out, key=len, reverse=True)


def left_in(path: Path, texts: Sequence[str]) -> list[str]:
    """The store's files (database, WAL) that still hold any of `texts`, by name."""
    needles = _needles(texts)
    if not needles:
        return []
    pattern = re.compile(b"|".join(re.escape(n) for n in needles))
    found = []
    for f in (path, path.with_name(path.name + "-wal")):
        try:
            data = f.read_bytes()
        except OSError:
            continue
        if pattern.search(data):
            found.append(f.name)
    return found


def _link(fd: Path) -> str:
    try:
        return os.readlink(fd)
    except OSError:  # closed meanwhile (the listing's own descriptor)
        return ""


def holders_of(path: Path) -> list[str]:
    """Processes with the store's files open (Linux /proc; elsewhere none are named): this
    process's own other connections included, named as such."""
    wanted = {str(path.resolve()), str(path.resolve()) + "-wal"}
    out = []
    proc = Path("/proc")
    for entry in proc.iterdir() if proc.is_dir() else []:
        if not entry.name.isdigit():
            continue
        try:
            fds = list((entry / "fd").iterdir())
        except OSError:
            continue  # not ours to look into, or gone
        links = [_link(fd) for fd in fds]
        if not wanted & set(links):
            continue
        pid = int(entry.name)
        if pid == os.getpid():  # the store's own connection is one of them
            others = links.count(str(path.resolve())) - 1
            if others > 0:
                out.append(f"this process (pid {pid}, {others} other connection(s))")
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(
                "utf-8", "replace").strip()
        except OSError:
            cmd = "?"
        out.append(f"process {pid} ({cmd[:80]})")
    return out
