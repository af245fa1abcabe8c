"""The store's side of intent-first batches (issue 31, invariants 92, 470): writing batch
documents, telling readers which records belong to a batch not committed yet, and the sweeper
that finishes or undoes abandoned batches. A mixin of ElasticsearchStore: it uses the store's
client calls (`_call`, `_read_docs`, `_scan`, `_bulk`, `_restore`); the decisions themselves
are in intents.py and batch.py.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from elasticsearch import ApiError, Elasticsearch

from ...errors import MemdeskError
from . import intents
from .batch import AnswerLost, BatchWriter
from .indices import IndexNames
from .writes import Step

log = logging.getLogger("memory.stores.elasticsearch.store")


class BatchRecords:
    """Mixed into ElasticsearchStore, which provides the attributes and calls declared here."""

    names: IndexNames
    es: Elasticsearch
    _writer: Elasticsearch
    _lock: threading.RLock
    _wall: Callable[[], float]
    _where: str
    _finished: set[str]
    _unsettled: set[str]
    _call: Callable
    _read_docs: Callable[[list[tuple[str, str]]], dict]
    _scan: Callable[..., list[dict]]
    _bulk: Callable[[list[dict], str], dict]
    _restore: Callable[[Step, dict], dict]

    # intent-first batches (issue 31, invariants 92, 470) --------------------------------------
    def _batch_writer(self) -> BatchWriter:
        return BatchWriter(self._bulk, self._read_docs, self._restore,
                           state=self.names.alias("state"), put=self._put_state,
                           finished=self._batches_finished, now=self._wall)

    def _put_state(self, doc_id: str, src: dict, if_seq_no: int | None,
                   if_term: int | None) -> tuple[int, int]:
        """Write one state document: `create` when no seq_no is given (op_type=create: a second
        create of the same id answers 409), else a compare-and-set `index`. No refresh: batch
        documents are read by id (realtime) and the sweeper refreshes before it searches."""
        alias = self.names.alias("state")
        if if_seq_no is None:
            resp = self._call(self._writer.create, index=alias, id=doc_id, document=src,
                              refresh="false", require_alias=True)
        else:
            resp = self._call(self._writer.index, index=alias, id=doc_id, document=src,
                              if_seq_no=if_seq_no, if_primary_term=if_term, refresh="false",
                              require_alias=True)
        return int(resp["_seq_no"]), int(resp["_primary_term"])

    def _open_batches(self, bids: set[str]) -> dict[str, dict]:
        """{batch id: its document} of the batches among `bids` not committed yet; the others
        are remembered as committed (the document says so, or is gone: a batch document is
        deleted only after its decision, by the sweeper). One mget for unknown batches."""
        todo = sorted(bids - self._finished)
        if not todo:
            return {}
        alias = self.names.alias("state")
        found = self._read_docs([(alias, b) for b in todo])
        out: dict[str, dict] = {}
        with self._lock:
            if len(self._finished) > 100_000:
                self._finished.clear()
            for b in todo:
                have = found.get((alias, b))
                if have is None or have["src"].get("state") == intents.COMMITTED:
                    self._finished.add(b)
                else:
                    out[b] = have["src"]
        return out

    def _batches_finished(self, bids: set[str]) -> set[str]:
        return bids - set(self._open_batches(bids))

    def _visible(self, srcs: list[dict], *, before_images: bool = True) -> list[dict | None]:
        """Invariant 470: a record stamped with a batch that is not committed is not the user's
        belief yet. With `before_images` it reads as the document the batch replaced (None when
        the batch created it); recall drops it. Costs one mget the first time a batch is seen."""
        bids = {str(b) for b in (s.get(intents.STAMP) for s in srcs) if b}
        open_ = {b: intents.befores(doc) for b, doc in self._open_batches(bids).items()}
        if not open_:
            return list(srcs)
        out: list[dict | None] = []
        for s in srcs:
            b = s.get(intents.STAMP)
            if b in open_:
                out.append(open_[b].get(str(s.get("id"))) if before_images else None)
            else:
                out.append(s)
        return out

    def _visible_hits(self, hits: list[dict], *, before_images: bool = True) -> list[dict]:
        srcs = self._visible([h["_source"] for h in hits], before_images=before_images)
        return [{**h, "_source": s} for h, s in zip(hits, srcs, strict=True) if s is not None]

    def sweep(self, *, own: bool = False) -> dict[str, int]:
        """Invariant 470: finish or undo abandoned batches from their documents. At open (and
        before a forget) every batch document is listed; a pending one older than the lease
        (intents.LEASE_S: its writer is gone) is claimed with a compare-and-set, then rolled
        forward when every step landed or still applies, else rolled back. `own`: only this
        process's batches whose outcome it could not learn (no lease: their writer is us).
        Decided markers older than the lease are deleted. Returns what was done."""
        alias = self.names.alias("state")
        out = {"committed": 0, "rolled_back": 0, "left": 0}
        if own:
            with self._lock:
                bids = sorted(self._unsettled)
            found = self._read_docs([(alias, b) for b in bids])
            docs = [(b, found.get((alias, b))) for b in bids]
        else:
            self._call(self.es.indices.refresh, index=alias)
            hits = self._scan(None, alias, {"bool": {"filter": [{"term": {"type": "batch"}}]}},
                              [{"name": "asc"}], seq_no_primary_term=True)
            docs = [(h["_id"], {"src": h["_source"], "seq_no": h.get("_seq_no"),
                                "term": h.get("_primary_term")}) for h in hits]
        now = self._wall()
        for bid, have in docs:
            state = None if have is None else have["src"].get("state")
            if have is None or state in intents.FINISHED:
                with self._lock:
                    self._unsettled.discard(bid)
                if have is not None and intents.age_s(have["src"], now) > intents.LEASE_S:
                    self._drop_marker(bid, have)
                continue
            if not own and intents.age_s(have["src"], now) < intents.LEASE_S:
                out["left"] += 1  # its writer may still be at work
                continue
            result = self._resolve(bid, have, now)
            out[result or "left"] += 1
        if any(out.values()):
            log.info("batch sweep at %s: %d rolled forward, %d rolled back, %d left pending",
                     self._where, out["committed"], out["rolled_back"], out["left"])
        return out

    def _resolve(self, bid: str, have: dict, now: float) -> str | None:
        try:  # claim it: one compare-and-set, so two sweepers never both decide
            seq, term = self._put_state(bid, intents.claimed(have["src"], now),
                                        have["seq_no"], have["term"])
        except ApiError as exc:
            if exc.meta.status == 409:
                return None  # another sweeper (or the writer) got there first
            raise
        except AnswerLost:
            return None
        try:
            state = self._batch_writer().resume(bid, have["src"], seq, term)
        except (MemdeskError, ApiError) as exc:
            log.warning("batch %s could not be finished or undone yet (%s): left pending", bid,
                        exc)
            return None
        with self._lock:
            self._unsettled.discard(bid)
            if state == intents.COMMITTED:
                self._finished.add(bid)
        log.info("batch %s %s by the sweeper", bid, state.replace("_", " "))
        return state

    def _drop_marker(self, bid: str, have: dict) -> None:
        try:
            self._call(self._writer.delete, index=self.names.alias("state"), id=bid,
                       if_seq_no=have["seq_no"], if_primary_term=have["term"], refresh="false")
        except (ApiError, MemdeskError) as exc:  # a marker left is harmless: tried next time
            log.debug("batch marker %s not deleted (%s)", bid, exc)
