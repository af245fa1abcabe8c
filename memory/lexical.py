"""BM25 over one user's documents, in numpy: analysis, context windows, scoring (issue 17).

Why not FTS5's bm25(): its statistics (IDF, average length) come from the whole table, so one
user's scores depend on every other user's data, and a name that is common inside one user's
memories but rare across the table gets a large weight. Here each user's visible corpus (their
memories plus the shared catalog) is its own collection: statistics never cross users
(invariant 101), and the index is kept beside the user's dense matrix.

Context windows: an episode is indexed as its own words plus its neighbouring turns of the same
session at a lower weight, so a turn that answers "what did she do after the vet visit?" is found
through its neighbours' words; the hit is still the turn itself.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from .text import STOPWORDS, stem

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


def analyse(text: str) -> list[str]:
    """Lower-cased, NFKC-folded Unicode words, stop words dropped, stemmed by the one stemmer
    of memory/text.py (Porter, as FTS5's porter tokenizer; Snowball for Cyrillic, Greek, Arabic).

    Not ASCII-only: "Görlitzer", "Alcântara" and "東京" are words too."""
    out = []
    for w in _WORD.findall(unicodedata.normalize("NFKC", text).casefold()):
        w = w.replace("’", "'")
        w = w.removesuffix("'s")
        w = w.replace("'", "")
        if not w or w in STOPWORDS:
            continue
        out.append(stem(w))
    return out


@dataclass(frozen=True)
class BM25Params:
    k1: float = 1.2
    b: float = 0.75


def neighbour_pairs(groups: Sequence[str | None], order: Sequence[float], window: int,
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(doc, neighbour, distance) for every pair of documents in the same group (session) at most
    `window` places apart when sorted by `order` (time). Documents without a group have none."""
    if window <= 0:
        empty = np.zeros(0, np.int64)
        return empty, empty, empty
    by_group: dict[str, list[int]] = {}
    for i, g in enumerate(groups):
        if g is not None:
            by_group.setdefault(g, []).append(i)
    src, dst, dist = [], [], []
    for members in by_group.values():
        if len(members) < 2:
            continue
        members.sort(key=lambda i: (order[i], i))
        n = len(members)
        for p, i in enumerate(members):
            for d in range(1, window + 1):
                for q in (p - d, p + d):
                    if 0 <= q < n:
                        src.append(i)
                        dst.append(members[q])
                        dist.append(d)
    return (np.asarray(src, np.int64), np.asarray(dst, np.int64), np.asarray(dist, np.int64))


def session_contexts(turns: Sequence[tuple[str, str, datetime]], window: int) -> dict[str, str]:
    """Each turn's context, as an index stores it beside the turn (issue 17, invariant 101): the
    texts of its neighbours at most `window` places before and after it, in time order, joined by
    newlines, the turn itself excluded. `turns` are one session's (id, text, timestamp), each id
    once; time ties are ordered by id. A session of one turn, or window 0, gives "" to every
    turn."""
    ordered = sorted(turns, key=lambda t: (t[2], t[0]))
    out: dict[str, str] = {}
    for p, (turn_id, _text, _at) in enumerate(ordered):
        near = ordered[max(0, p - window):p] + ordered[p + 1:p + 1 + window] if window > 0 else []
        out[turn_id] = "\n".join(t[1] for t in near if t[1])
    return out


class Vocabulary:
    """Term -> integer id, shared by every index of one store (ids are never reused)."""

    __slots__ = ("ids",)

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}

    def encode(self, terms: Sequence[str]) -> np.ndarray:
        ids = self.ids
        return np.fromiter((ids.get(t) if t in ids else ids.setdefault(t, len(ids)) for t in terms),
                           np.int64, len(terms))

    def lookup(self, terms: Sequence[str]) -> list[int]:
        """Ids of known terms, each once, in query order (unknown terms match nothing)."""
        out: list[int] = []
        for t in terms:
            i = self.ids.get(t)
            if i is not None and i not in out:
                out.append(i)
        return out


class LexicalIndex:
    """BM25 term weights of one corpus, precomputed per (term, document) like bm25s does.

    Input is flat: `docs[i]` is the document of the i-th token, `terms[i]` its vocabulary id.
    Query time is a binary search per query term and one `np.bincount`: well under a millisecond
    for a few thousand documents. Build time is linear in the number of tokens."""

    __slots__ = ("doc_ids", "idf", "indptr", "n_docs", "terms", "weights")

    def __init__(self, n_docs: int, docs: np.ndarray, terms: np.ndarray, *,
                 params: BM25Params = BM25Params(),
                 context: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
                 context_weight: float | np.ndarray = 0.0) -> None:
        n = self.n_docs = n_docs
        docs = np.asarray(docs, np.int64)
        terms = np.asarray(terms, np.int64)
        wts = np.ones(docs.size, np.float64)
        pair_w = np.broadcast_to(np.asarray(context_weight, np.float64),
                                 context[0].shape if context is not None else (0,))
        if context is not None and context[0].size and docs.size and (pair_w > 0).any():
            # A neighbour's tokens count `context_weight` each in the turn's own document (one
            # weight, or one per pair: a fact's source episodes have their own, invariant 152).
            keep = pair_w > 0
            src, dst = context[0][keep], context[1][keep]
            pair_w = pair_w[keep]
            order = np.argsort(docs, kind="stable")
            docs, terms = docs[order], terms[order]
            starts = np.zeros(n + 1, np.int64)
            np.cumsum(np.bincount(docs, minlength=n), out=starts[1:])
            lens = starts[dst + 1] - starts[dst]
            total = int(lens.sum())
            offs = np.arange(total) - np.repeat(np.cumsum(lens) - lens, lens)
            pos = np.repeat(starts[dst], lens) + offs
            docs = np.concatenate([docs, np.repeat(src, lens)])
            terms = np.concatenate([terms, terms[pos]])
            wts = np.concatenate([wts, np.repeat(pair_w, lens)])
        width = max(1, n)
        uniq, inv = np.unique(terms * width + docs, return_inverse=True)
        tf = np.bincount(inv, weights=wts)
        u_term, u_doc = uniq // width, uniq % width
        dl = np.bincount(docs, weights=wts, minlength=n)
        avgdl = float(dl.mean()) if n and dl.sum() > 0 else 1.0
        self.terms, first = np.unique(u_term, return_index=True)
        df = np.diff(np.append(first, u_term.size)).astype(np.float64)
        idf = np.log1p((n - df + 0.5) / (df + 0.5))  # Lucene's BM25 IDF: never negative
        self.idf = idf.astype(np.float32)  # per term of self.terms (invariant 154)
        idf_tok = np.repeat(idf, np.diff(np.append(first, u_term.size)))
        k1, b = params.k1, params.b
        norm = k1 * (1.0 - b + b * dl[u_doc] / avgdl)
        self.weights = (idf_tok * tf * (k1 + 1.0) / (tf + norm)).astype(np.float32)
        self.doc_ids = u_doc.astype(np.int32)  # sorted by term, then document
        self.indptr = np.append(first, u_term.size).astype(np.int64)

    def term_idf(self, term_id: int | None) -> float:
        """The term's BM25 IDF in this corpus; a term no document holds gets the rarest
        possible (document frequency 0)."""
        if term_id is not None:
            j = int(np.searchsorted(self.terms, term_id))
            if j < self.terms.size and self.terms[j] == term_id:
                return float(self.idf[j])
        return float(np.log1p((self.n_docs + 0.5) / 0.5))

    def holds(self, term_id: int, doc: int) -> bool:
        """Does the document's indexed text (its context included) hold this term?"""
        j = int(np.searchsorted(self.terms, term_id))
        if j >= self.terms.size or self.terms[j] != term_id:
            return False
        lo, hi = int(self.indptr[j]), int(self.indptr[j + 1])
        k = lo + int(np.searchsorted(self.doc_ids[lo:hi], doc))
        return k < hi and int(self.doc_ids[k]) == doc

    def scores(self, term_ids: Sequence[int],
               term_weights: Sequence[float] | None = None) -> np.ndarray:
        """BM25 score of every document for the (distinct) query terms; 0 where none matches.
        With `term_weights` (one per term id) each term's contribution is scaled by its weight
        (the lexicon's expansions, invariant 169)."""
        out_idx, out_w = [], []
        for n, t in enumerate(term_ids):
            j = int(np.searchsorted(self.terms, t))
            if j < self.terms.size and self.terms[j] == t:
                out_idx.append(self.doc_ids[self.indptr[j]:self.indptr[j + 1]])
                w = self.weights[self.indptr[j]:self.indptr[j + 1]]
                if term_weights is not None and term_weights[n] != 1.0:
                    w = w * np.float32(term_weights[n])
                out_w.append(w)
        if not out_idx:
            return np.zeros(self.n_docs, np.float32)
        return np.bincount(np.concatenate(out_idx), weights=np.concatenate(out_w),
                           minlength=self.n_docs).astype(np.float32)


# The user's own name (issue 17, third pass, invariant 153). A person says "I", so their name is
# rare in their own memories: high IDF, and in a short identity fact ("Her name is Maya") a top
# BM25 hit for any question that names them. In a question the name is a reference to the user,
# not evidence of what is asked, so it is dropped from the query when anything else is left.
_NAME_FACT = re.compile(r"^(?:her|his|my|their)\s+(?:full\s+)?name\s+is\s+([^\W\d_][^\W_]*"
                        r"(?:[-'’][^\W\d_]+)*)", re.IGNORECASE)


def name_of(fact_text: str) -> str | None:
    """The name an identity fact gives the user ("Her name is Lena and ..." -> "Lena"), else
    None. Only a fact that opens with "<possessive> name is" names the user: "Her dog's name is
    Biscuit" does not."""
    m = _NAME_FACT.match(fact_text.strip())
    return m.group(1) if m else None


def without_names(query: str, names: frozenset[str] | set[str]) -> str:
    """The query with the user's own names (and their possessives) taken out, when at least one
    other content word (an `analyse` term) remains; otherwise the query as it was ("What's my
    name?", "Who is Maya?"). Matching is by the analysed term, so case, NFKC and "Maya's" fold."""
    if not names:
        return query
    drop = {t for n in names for t in analyse(n)}
    if not drop:
        return query
    kept, removed = [], False
    for m in _TOKEN.finditer(query):
        piece = m.group(0)
        if _WORD.fullmatch(piece) and set(analyse(piece)) & drop:
            removed = True
            continue
        kept.append(piece)
    if not removed:
        return query
    out = re.sub(r"\s+", " ", "".join(kept)).strip()
    return out if analyse(out) else query


_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*|[\W_]+")


# Invariant 153: facts are written in the third person ("His sister Anjali is ...", "Her name is
# Lena and she is ..."), so a question's "he" / "her" pulls the dense leg towards whichever short
# fact holds most pronouns, the identity fact first. The pronoun names no content.
_PRONOUN = re.compile(r"\b(?:he|his|him|himself|she|her|hers|herself)\b", re.IGNORECASE)


def without_pronouns(query: str) -> str:
    """The query with third-person singular pronouns taken out, when at least one content word
    (an `analyse` term) remains; otherwise the query as it was. Pure."""
    out = re.sub(r"\s+", " ", _PRONOUN.sub("", query)).strip()
    return out if out != query.strip() and analyse(out) else query
