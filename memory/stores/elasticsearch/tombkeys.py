"""Tombstone match keys follow the matcher on Elasticsearch (invariant 63).

Each tombstone document carries `match_key` and `match_terms`, derived from its value by
`memory/values.py` (`index_entry`) when it was written; write checks find a dead value by them.
When the key rules change (`KEY_VERSION`), keys written under the old rules no longer meet the
new probes, and a restatement of a dead value would get past its tombstone. So the state index
holds one document, `tombstone_keys`, recording the version the stored keys were computed
under; opening the store (and `memdesk es reindex`) compares it with `KEY_VERSION` and, when it
differs, recomputes every tombstone's keys from its stored value:

1. a realtime GET of the state document: equal (the usual open) costs nothing more;
2. refresh, then scan the tombstones sorted by id (`seq_no_primary_term`, only the fields
   needed) and send, per page, one bulk of partial updates for the tombstones whose keys differ,
   each conditional on the `_seq_no`/`_primary_term` it was read at;
3. a forgotten tombstone (its value hashed, memory/redaction.py) is skipped: it holds no text to
   derive keys from and is refused by its keyed hash alone (invariant 66); the condition in 2
   keeps a recompute from writing keys of a value onto a tombstone that a concurrent forget
   hashed meanwhile (409: re-read, and the hashed one is then skipped);
4. refresh (lookups are searches), then record the version with a compare-and-set: `create`
   when no state document existed, else `index` conditional on the one read in 1. A 409 means
   another process recorded it first -- it ran the same recompute.

Two processes opening at once both recompute: the keys are a function of the value, so their
updates agree, and a conflict is re-read and re-checked. The version is recorded only after
every tombstone's keys are the current ones, so a failure part-way is made up on the next open.
A store whose recorded version is newer than this code's is left alone (an older process never
rewrites a newer matcher's keys back).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from functools import partial
from typing import Any, TypeVar

from elasticsearch import ConflictError, Elasticsearch
from elasticsearch import NotFoundError as EsNotFound

from ...errors import MemdeskError
from ...values import KEY_VERSION, index_entry
from .indices import IndexNames

log = logging.getLogger(__name__)
STATE_ID = "tombstone_keys"  # state index: the KEY_VERSION the stored keys were computed under
FIELDS = ("id", "text", "forgotten", "match_key", "match_terms")
PAGE = 500  # tombstones per page of the scan, and at most as many updates per bulk
ROUNDS = 3  # re-reads of tombstones that changed under the recompute before giving up

T = TypeVar("T")
Request = Callable[[Callable[[], T], str], T]  # one request and what it does, for messages


def state_doc(version: str = KEY_VERSION) -> dict:
    return {"type": "key_version", "name": STATE_ID, "value": version}


def is_newer(recorded: str, ours: str = KEY_VERSION) -> bool:
    """Whether the recorded version comes from a newer matcher than this code's."""
    return recorded.isdigit() and ours.isdigit() and int(recorded) > int(ours)


def wanted_keys(src: dict) -> dict | None:
    """The partial update a stored tombstone needs under the current rules, or None (right
    already, or forgotten: matched by its keyed hash only, invariant 66)."""
    if src.get("forgotten"):
        return None
    key, terms = index_entry(src.get("text") or "")
    if src.get("match_key") == key and list(src.get("match_terms") or []) == terms:
        return None
    return {"match_key": key, "match_terms": terms}


def update_lines(alias: str, docs: Iterable[tuple[str, int, int, dict]]) -> list[dict]:
    """(id, seq_no, primary_term, fields) as conditional partial updates: no upsert (a
    tombstone never comes back by this path) and no retry on conflict (it is re-read)."""
    lines: list[dict] = []
    for doc_id, seq_no, term, fields in docs:
        lines += [{"update": {"_index": alias, "_id": doc_id, "if_seq_no": seq_no,
                              "if_primary_term": term}}, {"doc": fields}]
    return lines


class TombstoneKeys:
    """One check (and, when due, recompute) of a store's tombstone keys."""

    def __init__(self, es: Elasticsearch, w: Elasticsearch, names: IndexNames, request: Request,
                 version: str = KEY_VERSION) -> None:
        self.es, self.w, self.names, self.request = es, w, names, request
        self.alias, self.state = names.alias("tombstones"), names.alias("state")
        self.version = version
        self.previous: str | None = None  # the version recorded before (None: none was)
        self.recomputed = False
        self.seen = self.written = 0

    def ensure(self) -> TombstoneKeys:
        """Recompute when the recorded version differs (`recomputed`, `seen`, `written`)."""
        recorded = self._recorded()
        self.previous = None if recorded is None else str(recorded[0].get("value"))
        have = self.previous
        if have == self.version:
            return self
        if have is not None and is_newer(have, self.version):
            log.warning("the tombstone keys at %s were computed by a newer matcher (version %s, "
                        "this one %s): left as they are", self.alias, have, self.version)
            return self
        self._recompute()
        self._record(recorded)
        self.recomputed = True
        log.info("tombstone keys of %s recomputed for key version %s (was %s): %d of %d "
                 "rewritten", self.alias, self.version, have or "none", self.written, self.seen)
        return self

    def _recorded(self) -> tuple[dict, int, int] | None:
        def get() -> Any:
            try:
                return self.es.get(index=self.state, id=STATE_ID)
            except EsNotFound:
                return None
        resp = self.request(get, "reading the tombstone key version")
        if resp is None:
            return None
        return dict(resp["_source"]), int(resp["_seq_no"]), int(resp["_primary_term"])

    def _recompute(self) -> None:
        self.request(lambda: self.es.indices.refresh(index=self.alias),
                     f"refreshing {self.alias}")
        retry: list[str] = []
        after = None
        while True:
            resp = self.request(partial(self._page, after),
                                f"reading the tombstones of {self.alias}")
            hits = resp["hits"]["hits"]
            self.seen += len(hits)
            retry += self._update([(h["_id"], h["_seq_no"], h["_primary_term"], h["_source"])
                                   for h in hits])
            if len(hits) < PAGE:
                break
            after = hits[-1]["sort"]
        for _ in range(ROUNDS):
            if not retry:
                break
            retry = self._update(self._reread(retry))
        if retry:
            raise MemdeskError(f"tombstones {', '.join(retry[:5])} of {self.alias} kept changing "
                               "while their match keys were recomputed: open the store again "
                               "(or re-run `memdesk es reindex`)")
        if self.written:
            self.request(lambda: self.es.indices.refresh(index=self.alias),
                         f"refreshing {self.alias}")

    def _page(self, after: list | None) -> Any:
        extra: dict = {"search_after": after} if after is not None else {}
        return self.es.search(index=self.alias, query={"match_all": {}}, sort=[{"id": "asc"}],
                              size=PAGE, source_includes=list(FIELDS), seq_no_primary_term=True,
                              track_total_hits=False, **extra)

    def _reread(self, ids: list[str]) -> list[tuple[str, int, int, dict]]:
        resp = self.request(lambda: self.es.mget(
            index=self.alias, ids=ids, source_includes=list(FIELDS)),
            f"re-reading tombstones of {self.alias}")
        return [(d["_id"], d["_seq_no"], d["_primary_term"], d["_source"])
                for d in resp["docs"] if d.get("found")]

    def _update(self, docs: list[tuple[str, int, int, dict]]) -> list[str]:
        """Send the updates these tombstones need; returns the ids that changed meanwhile."""
        due = [(i, seq, term, fields) for i, seq, term, src in docs
               if (fields := wanted_keys(src)) is not None]
        if not due:
            return []
        lines = update_lines(self.alias, due)
        resp = self.request(lambda: self.w.bulk(operations=lines, refresh="false",
                                                require_alias=True),  # invariant 22
                            f"updating the match keys of {self.alias}")
        conflicts: list[str] = []
        for item in resp.get("items", []):
            r = item.get("update", {})
            status = int(r.get("status", 200))
            if status == 409:  # changed since it was read (a forget, another process): re-read
                conflicts.append(str(r.get("_id")))
            elif status == 404:  # gone: nothing to key
                continue
            elif status >= 300:
                raise MemdeskError(f"match key update of tombstone {r.get('_id')} failed: "
                                   f"{r.get('error')}")
            else:
                self.written += 1
        return conflicts

    def _record(self, recorded: tuple[dict, int, int] | None) -> None:
        def put() -> Any:
            try:
                if recorded is None:
                    return self.w.create(index=self.state, id=STATE_ID, document=state_doc(
                        self.version), require_alias=True)
                return self.w.index(index=self.state, id=STATE_ID, document=state_doc(
                    self.version), if_seq_no=recorded[1], if_primary_term=recorded[2],
                    require_alias=True)
            except ConflictError:  # another process recorded it after the same recompute
                return None
        self.request(put, "recording the tombstone key version")


def ensure_tombstone_keys(es: Elasticsearch, w: Elasticsearch, names: IndexNames,
                          request: Request) -> TombstoneKeys:
    """Check the recorded key version and recompute the tombstone keys when it differs; the
    answer says whether it did, and how many tombstones it read and rewrote."""
    return TombstoneKeys(es, w, names, request).ensure()
