"""Embeddings kept on disk between evaluation runs (issue 17: the machine is small and shared).

The same text through the same embedder gives the same vector, so an evaluation that re-ingests
LoCoMo or the personas asks the model only for texts it has never seen. The cache is one SQLite
file per embedder name under `.cache/memdesk-eval/` (gitignored); it is a cache, never a source of
truth: deleting it only costs time.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..embeddings import Embedder

DEFAULT_DIR = Path(".cache") / "memdesk-eval"


def _key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class DiskCachedEmbedder:
    """Wraps an embedder: same name, dims and vectors; misses go to the model in one batch."""

    def __init__(self, inner: Embedder, cache_dir: str | Path = DEFAULT_DIR) -> None:
        self.inner, self.name, self.dims = inner, inner.name, inner.dims
        path = Path(cache_dir)
        path.mkdir(parents=True, exist_ok=True)
        self.path = path / f"embeddings-{inner.name}-{inner.dims}.sqlite"
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS vec (key TEXT PRIMARY KEY, v BLOB NOT NULL)")
        self._lock = threading.Lock()
        self.misses = 0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [_key(t) for t in texts]
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for i in range(0, len(keys), 500):
                chunk = list(dict.fromkeys(keys[i:i + 500]))
                rows = self._db.execute(
                    f"SELECT key, v FROM vec WHERE key IN ({','.join('?' * len(chunk))})", chunk)
                found.update((k, np.frombuffer(v, np.float32)) for k, v in rows)
        todo = {k: t for k, t in zip(keys, texts, strict=False) if k not in found}
        if todo:
            self.misses += len(todo)
            vecs = np.asarray(self.inner.embed(list(todo.values())), np.float32)
            with self._lock:
                self._db.execute("BEGIN")
                self._db.executemany("INSERT OR REPLACE INTO vec VALUES (?, ?)",
                                     [(k, v.tobytes()) for k, v in zip(todo, vecs, strict=False)])
                self._db.execute("COMMIT")
            found.update(zip(todo, vecs, strict=False))
        if not texts:
            return np.zeros((0, self.dims), np.float32)
        return np.stack([found[k] for k in keys])

    def close(self) -> None:
        self._db.close()
