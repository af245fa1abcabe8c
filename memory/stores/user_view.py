"""One user's searchable view in the embedded store: dense matrix, BM25 index, session context.

A view covers exactly what that user's recall may ever see — their own memories (every kind and
state; masks pick per query) plus the owner-less catalog — so its BM25 statistics are that
user's alone (invariant 101). It is built on the first search after a write to the user (or to
the catalog) and kept until the next one; tokens of unchanged documents are reused from the
previous view, so a rebuild re-analyses only what changed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..lexical import BM25Params, LexicalIndex, Vocabulary, analyse, name_of, neighbour_pairs
from ..models import AnyMemory, FactState, MemoryKind


class IndexParams(BaseModel):
    """Index-time choices (a store setting, not a per-query one): how much of a turn's session
    neighbourhood is indexed with it. Chosen on LoCoMo conversations 1-5 and the persona tuning
    questions (docs/benchmarks.md, "Recall quality")."""

    model_config = ConfigDict(frozen=True)
    window: int = Field(2, ge=0, le=10, description="BM25: neighbouring turns on each side")
    context_weight: float = Field(0.5, ge=0.0, le=1.0, description="BM25: weight of a neighbour's word")
    dense_window: int = Field(2, ge=0, le=10, description="dense: neighbouring turns on each side")
    dense_context_weight: float = Field(0.3, ge=0.0, le=1.0,
                                        description="dense: weight of a neighbour's vector")
    # invariant 101: the mean is the user's own view's (measured: "Recall quality, second pass")
    dense_centre: float = Field(0.5, ge=0.0, le=1.0, description="dense: share of the view's "
                                "mean vector subtracted from documents and query")
    # invariant 152: a fact is indexed with the words (and vector) of what the user said
    source_weight: float = Field(0.3, ge=0.0, le=1.0, description="BM25: weight of a word of a "
                                 "fact's source episodes in the fact's document")
    dense_source_weight: float = Field(0.3, ge=0.0, le=1.0, description="dense: weight of a "
                                       "fact's source episodes' vectors in the fact's vector")
    k1: float = 1.2
    b: float = 0.75


_SEMANTIC = list(MemoryKind).index(MemoryKind.SEMANTIC)  # the store's kind and state codes
_ACTIVE = list(FactState).index(FactState.ACTIVE) + 1


class UserView:
    __slots__ = ("catalog", "centre", "dense", "docs", "index_of", "kinds", "lexical", "masks", "matrix", "n",
                 "names", "neighbours", "position", "revs", "rids", "session", "states", "tok_docs",
                 "tok_terms")

    def __init__(self, rows: Sequence[tuple], vectors: np.ndarray, *, vocab: Vocabulary,
                 params: IndexParams, stale: UserView | None = None,
                 sources: tuple[np.ndarray, np.ndarray] | None = None) -> None:
        """rows: (rid, rev, kind code, state code, is_catalog, text, session, time) per document,
        aligned with `vectors` (float32, unit length). sources: (fact row, source episode row)
        pairs, both rows of this view (invariant 152)."""
        n = self.n = len(rows)
        self.rids = np.fromiter((r[0] for r in rows), np.int64, n)
        self.revs = np.fromiter((r[1] for r in rows), np.int64, n)
        self.kinds = np.fromiter((r[2] for r in rows), np.int8, n)
        self.states = np.fromiter((r[3] for r in rows), np.int8, n)
        self.catalog = np.fromiter((bool(r[4]) for r in rows), bool, n)
        self.index_of = {int(r): i for i, r in enumerate(self.rids.tolist())}
        self.docs: dict[int, AnyMemory] = {}  # row -> decoded record, filled by searches
        self.masks: dict[tuple, np.ndarray] = {}  # filter shape -> visible rows
        self.session = [r[6] for r in rows]
        # invariant 153: the user's own names, from their active facts that name them
        self.names = frozenset(
            nm for r in rows if not r[4] and r[2] == _SEMANTIC and r[3] == _ACTIVE
            for nm in [name_of(r[5] or "")] if nm)
        times = [r[7] for r in rows]
        self.matrix = vectors
        # Session order: a turn's position among its session's turns (diversification uses it).
        self.position = np.full(n, -1, np.int64)
        groups: dict[str, list[int]] = {}
        for i, s in enumerate(self.session):
            if s is not None:
                groups.setdefault(s, []).append(i)
        for members in groups.values():
            members.sort(key=lambda i: (times[i], i))
            for p, i in enumerate(members):
                self.position[i] = p
        self.tok_docs, self.tok_terms = self._tokens(rows, vocab, stale)
        self.neighbours = neighbour_pairs(self.session, times, max(params.window, params.dense_window))
        src, dst, dist = self.neighbours
        near = dist <= params.window
        f_row, e_row = sources if sources is not None else (np.zeros(0, np.int64),) * 2
        # Session neighbours and a fact's source episodes share one mechanism: the other
        # document's words count at a weight inside this document (invariants 101, 152).
        lex_ctx = (np.concatenate([src[near], f_row]), np.concatenate([dst[near], e_row]),
                   np.concatenate([dist[near], np.zeros(f_row.size, np.int64)]))
        lex_w = np.concatenate([np.full(int(near.sum()), params.context_weight),
                                np.full(f_row.size, params.source_weight)])
        self.lexical = LexicalIndex(n, self.tok_docs, self.tok_terms,
                                    params=BM25Params(k1=params.k1, b=params.b),
                                    context=lex_ctx, context_weight=lex_w)
        self.dense = self.matrix
        add_ctx = params.dense_window > 0 and params.dense_context_weight > 0 and src.size > 0
        add_src = params.dense_source_weight > 0 and f_row.size > 0
        if add_ctx or add_src:
            ctx = self.matrix.copy()
            if add_ctx:
                keep = dist <= params.dense_window
                np.add.at(ctx, src[keep], params.dense_context_weight * self.matrix[dst[keep]])
            if add_src:
                np.add.at(ctx, f_row, params.dense_source_weight * self.matrix[e_row])
            norms = np.linalg.norm(ctx, axis=1, keepdims=True)
            self.dense = (ctx / np.maximum(norms, 1e-12)).astype(np.float32)
        self.centre = None
        if params.dense_centre > 0 and n > 1:
            self.centre = (params.dense_centre * self.dense.mean(0)).astype(np.float32)
            c = self.dense - self.centre
            self.dense = (c / np.maximum(np.linalg.norm(c, axis=1, keepdims=True), 1e-12)
                          ).astype(np.float32)

    def _tokens(self, rows: Sequence[tuple], vocab: Vocabulary,
                stale: UserView | None) -> tuple[np.ndarray, np.ndarray]:
        reuse: dict[int, tuple[int, int, int]] = {}
        if stale is not None and stale.n:
            starts = np.searchsorted(stale.tok_docs, np.arange(stale.n + 1))
            for j, (rid, rev) in enumerate(zip(stale.rids.tolist(), stale.revs.tolist(), strict=False)):
                reuse[rid] = (rev, int(starts[j]), int(starts[j + 1]))
        docs: list[np.ndarray] = []
        terms: list[np.ndarray] = []
        for i, r in enumerate(rows):
            old = reuse.get(r[0])
            if old is not None and stale is not None and old[0] == r[1]:  # reuse: from stale
                ids = stale.tok_terms[old[1]:old[2]]
            else:
                ids = vocab.encode(analyse(r[5]))
            docs.append(np.full(ids.size, i, np.int64))
            terms.append(ids)
        if not docs:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        return np.concatenate(docs), np.concatenate(terms)

    def release(self) -> None:
        """Drop everything but the tokens (a stale view only lends them to its successor)."""
        # a released view is never searched again: None frees the arrays without Optional types
        self.matrix = self.dense = self.lexical = None  # type: ignore[assignment]
        self.docs = {}

    def top(self, scores: np.ndarray, mask: np.ndarray, limit: int,
            positive: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Indices and scores of the best `limit` documents allowed by `mask`, best first."""
        ok = mask & (scores > 0) if positive else mask
        idx = np.flatnonzero(ok)
        if idx.size == 0 or limit <= 0:
            return idx[:0], scores[:0]
        s = scores[idx]
        if idx.size > limit:
            part = np.argpartition(-s, limit - 1)[:limit]
            idx, s = idx[part], s[part]
        order = np.lexsort((idx, -s))  # ties: the older row first, as the SQL order did
        return idx[order], s[order]

    def bm25(self, query: str, vocab: Vocabulary, mask: np.ndarray, limit: int,
             extra: Mapping[str, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """BM25 of the query's terms, plus `extra` analysed terms at their own weights (the
        lexicon's expansions, invariant 169)."""
        ids = vocab.lookup(analyse(query))
        weights = [1.0] * len(ids)
        for term, w in (extra or {}).items():
            i = vocab.ids.get(term)
            if i is not None and i not in ids and w > 0:
                ids.append(i)
                weights.append(w)
        scores = self.lexical.scores(ids, weights if any(w != 1.0 for w in weights) else None)
        return self.top(scores, mask, limit, positive=True)

    def matched(self, query: str, vocab: Vocabulary, rows: Sequence[int]) -> list[frozenset[str]]:
        """Per row, the query terms its BM25 document holds (context and source words included;
        invariant 154)."""
        terms = [(t, vocab.ids[t]) for t in dict.fromkeys(analyse(query)) if t in vocab.ids]
        return [frozenset(t for t, i in terms if self.lexical.holds(i, int(r))) for r in rows]

    def idf(self, query: str, vocab: Vocabulary) -> dict[str, float]:
        """Each query term's IDF in this user's corpus (invariant 154)."""
        return {t: self.lexical.term_idf(vocab.ids.get(t)) for t in dict.fromkeys(analyse(query))}

    def knn(self, vector: np.ndarray, mask: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
        if self.centre is not None:
            v = vector - self.centre
            vector = v / max(float(np.linalg.norm(v)), 1e-12)
        return self.top(self.dense @ vector, mask, limit)


def parse_time(value: str | None) -> float:
    if not value:
        return 0.0
    try:
        return datetime.fromisoformat(value).timestamp()
    except ValueError:
        return 0.0
