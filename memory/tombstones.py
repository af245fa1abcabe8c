"""The tombstone check every write path calls: candidates from the store's index, the verdict
from memory/values.py (invariants 7, 61-63).

`check` looks up the tombstones that may concern a text (canonical key, normalised text, slot
terms, nearest vectors: `Store.tombstone_candidates`), adds the tombstones the same batch is
about to create (`pending`: a harsh correction retracts its target, so its new text is matched
against that value too, invariant 62), and returns one `Verdict`: refuse, review or accept.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .embeddings import Embedder
from .models import Tombstone
from .stores.base import Store
from .values import Judge, Verdict, assess, probe

NEAREST = 5  # tombstones taken by vector for the similarity band


def check(store: Store, embedder: Embedder, user_id: str, text: str, *, threshold: float,
          vector: np.ndarray | None = None, pending: Iterable[Tombstone] = (),
          judge: Judge | None = None) -> Verdict:
    """The verdict for writing `text` for `user_id` (the caller has checked the scope)."""
    pending = list(pending)
    cache: dict[str, np.ndarray] = {}

    def query_vector() -> np.ndarray:
        # Embedded lazily: a user without tombstones costs no model call (the store asks for it
        # only when it has vectors to compare).
        if "v" not in cache:
            cache["v"] = np.asarray(vector if vector is not None else embedder.embed([text])[0],
                                    np.float32)
        return cache["v"]

    candidates = list(store.tombstone_candidates(user_id, probe(text), query_vector, NEAREST))
    if pending:
        vectors = embedder.embed([t.text for t in pending])
        candidates += [(t, float(v @ query_vector())) for t, v in zip(pending, vectors, strict=False)]
    return assess(text, candidates, threshold, judge=judge)
