"""`memdesk es reindex`: move every alias to the current mapping version without losing a write
(invariants 22 and 99).

For each index whose alias still points at an older concrete index:

1. write-block the old index (`PUT /<old>/_block/write`). The add-block API returns once every
   in-flight write has completed (index-modules-blocks.html), and from then on a write fails
   with `cluster_block_exception`, which the application reports as "reindex running" — so no
   write can land in the old index after the copy started, and none is silently lost. Deletes
   need no special care: the copy is of a frozen index;
2. create the new index and copy server-side with `_reindex?wait_for_completion=false`
   (op_type create, conflicts proceed), polling `GET /_tasks/<id>` for progress. The task id is
   recorded in the new index's `_meta`, so an interrupted run (Ctrl-C, lost connection, a
   client timeout) resumes the same task — or, if it ended, fills what is missing;
3. check that both indices hold the same number of documents;
4. move the alias in one atomic `_aliases` call;
5. the old index stays as a write-blocked backup (`--delete-old` deletes it).

If the copy fails, the block is lifted so the application can write again, and the next run
starts that copy over (the old index may have changed meanwhile). A transport timeout never
escapes: it is retried while polling, then reported with how to resume.

Only for mapping changes with the same embedder: vectors of another model (other dims) cannot
be copied and need a fresh store filled with `memdesk migrate`.

Then (issue 17) every session's episode contexts are recomputed from the turns stored now
(`recompute_contexts`): a store reindexed from mapping version 1 has none, and a context whose
write failed after its batch landed is made up. Only turns whose context differs are written.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from elastic_transport import TransportError
from elasticsearch import ApiError, Elasticsearch
from elasticsearch import NotFoundError as EsNotFound
from elasticsearch.exceptions import GeneralAvailabilityWarning
from pydantic import BaseModel

from ...errors import MemdeskError, StoreUnavailableError
from . import context
from .connection import writer
from .indices import ALL_INDICES, IndexNames, index_body, reindex_actions

T = TypeVar("T")

POLL_S = 1.0
MAX_LOST_POLLS = 10  # consecutive polls that got no answer before giving up (the task runs on)
PAGE = 1000  # episodes per page of the context scan
CONTEXT_BULK = 500  # context updates per bulk


class Progress(BaseModel):
    """One line of progress for the CLI's bar."""

    index: str
    step: str  # "blocked", "copying", "copied", "swapped", "resuming", "restarting"
    done: int = 0
    total: int = 0


class Interrupted(StoreUnavailableError):
    """The copy runs on in the cluster; a re-run resumes it."""


def _reason(exc: Exception) -> str:
    if isinstance(exc, ApiError) and isinstance(exc.info, dict):
        err = exc.info.get("error", exc.info)
        return str(err.get("reason") if isinstance(err, dict) else err)
    return str(exc)


class Reindexer:
    def __init__(self, es: Elasticsearch, names: IndexNames, embedder_name: str, dims: int, *,
                 progress: Callable[[Progress], None] = lambda p: None,
                 sleep: Callable[[float], None] = time.sleep, poll_s: float | None = None,
                 delete_old: bool = False, where: str = "the cluster") -> None:
        self.es, self.w = es, writer(es)  # reads may retry at the transport; changes never do
        self.names, self.embedder_name, self.dims = names, embedder_name, dims
        self.progress, self.sleep = progress, sleep
        self.poll_s = POLL_S if poll_s is None else poll_s
        self.delete_old, self.where = delete_old, where

    def run(self) -> list[str]:
        moved = []
        for name in ALL_INDICES:
            alias, want = self.names.alias(name), self.names.concrete(name)
            live = self._read(partial(self._aliases, alias), f"reading alias {alias}")
            for old in sorted(c for c in live if c != want):
                self._move(name, alias, old, want)
                moved.append(f"{old} -> {want}")
        return moved

    # one index ----------------------------------------------------------------------------------
    def _move(self, name: str, alias: str, old: str, new: str) -> None:
        blocked = self._is_blocked(old)
        exists = self._read(lambda: bool(self.es.indices.exists(index=new)), f"checking {new}")
        if exists and not blocked:
            # A copy from an earlier run whose block was lifted: the old index may have changed
            # since (updates, deletes), so that copy cannot be trusted. Start over.
            self.progress(Progress(index=name, step="restarting"))
            self._change(lambda: self.w.indices.delete(index=new), f"deleting stale {new}")
            exists = False
        if not blocked:
            self._change(lambda: self.w.indices.add_block(index=old, block="write"),
                         f"write-blocking {old}")
        self.progress(Progress(index=name, step="blocked"))
        body = index_body(name, self.embedder_name, self.dims)
        if not exists:
            self._change(lambda: self.w.indices.create(index=new, **body), f"creating {new}")
        try:
            task = self._task_of(new)
            status = self._read(partial(self._task_status, task), f"reading task {task}") \
                if task else None
            if task is None or status is None or status.get("failed"):
                task = self._start_copy(old, new, body)
            else:
                self.progress(Progress(index=name, step="resuming"))
            self._wait(name, task)
            self._verify(old, new)
            self._change(lambda: self.w.indices.update_aliases(
                actions=reindex_actions(self.names, name, old, new)["actions"]),
                f"moving alias {alias}")
        except Interrupted:
            raise  # the block stays: the task runs on, and a re-run resumes it
        except (MemdeskError, ApiError) as exc:
            self._unblock(old)
            raise MemdeskError(f"reindex of {old} -> {new} failed ({_reason(exc)}); {old} is "
                               "writable again and nothing moved. Fix the cause and re-run "
                               "`memdesk es reindex`: it starts this copy over") from exc
        self._change(lambda: self.w.indices.put_mapping(index=new, meta=body["mappings"]["_meta"]),
                     f"clearing the reindex note on {new}")
        self.progress(Progress(index=name, step="swapped"))
        if self.delete_old:
            self._change(lambda: self.w.indices.delete(index=old), f"deleting {old}")

    def _start_copy(self, old: str, new: str, body: dict) -> str:
        resp = self._change(lambda: self.w.reindex(
            source={"index": old}, dest={"index": new, "op_type": "create"},
            conflicts="proceed", wait_for_completion=False), f"starting the copy {old} -> {new}")
        task = str(resp["task"])
        meta = {**body["mappings"]["_meta"], "reindex": {"from": old, "task": task}}
        self._change(lambda: self.w.indices.put_mapping(index=new, meta=meta),
                     f"recording task {task} on {new}")
        return task

    def _task_of(self, new: str) -> str | None:
        mapping = self._read(lambda: dict(self.es.indices.get_mapping(index=new)), f"reading {new}")
        meta = (mapping.get(new, {}).get("mappings", {}).get("_meta") or {}).get("reindex") or {}
        return meta.get("task")

    def _task_status(self, task: str) -> dict | None:
        """{"completed", "failed", "done", "total"}; None when the cluster no longer knows it."""
        try:
            with warnings.catch_warnings():  # the client flags the tasks API "technical preview";
                warnings.simplefilter("ignore", GeneralAvailabilityWarning)  # it is how reindex
                resp = dict(self.es.tasks.get(task_id=task))  # tasks are polled (docs-reindex)
        except EsNotFound:
            return None
        status = (resp.get("task") or {}).get("status") or {}
        result = resp.get("response") or {}
        failed = bool(resp.get("error") or result.get("failures"))
        done = sum(int(status.get(k) or 0) for k in ("created", "updated", "version_conflicts"))
        return {"completed": bool(resp.get("completed")), "failed": failed, "done": done,
                "total": int(status.get("total") or 0), "detail": resp.get("error")
                or (result.get("failures") or [None])[0]}

    def _wait(self, name: str, task: str) -> None:
        lost = 0
        while True:
            try:
                status = self._task_status(task)
            except (TransportError, StoreUnavailableError) as exc:
                lost += 1
                if lost >= MAX_LOST_POLLS:
                    raise Interrupted(
                        f"lost contact with Elasticsearch at {self.where} while task {task} "
                        f"copies {name} ({exc}). The copy runs on in the cluster and the old "
                        "index stays write-blocked: re-run `memdesk es reindex` to resume") from exc
                self.sleep(self.poll_s)
                continue
            except KeyboardInterrupt:
                raise Interrupted(f"interrupted while task {task} copies {name}: the copy runs on "
                                  "and the old index stays write-blocked; re-run `memdesk es "
                                  "reindex` to resume") from None
            lost = 0
            if status is None:
                raise MemdeskError(f"the cluster no longer knows task {task}")
            self.progress(Progress(index=name, step="copying", done=status["done"],
                                   total=status["total"]))
            if status["failed"]:
                raise MemdeskError(f"task {task} failed: {status['detail']}")
            if status["completed"]:
                self.progress(Progress(index=name, step="copied", done=status["done"],
                                       total=status["total"]))
                return
            try:
                self.sleep(self.poll_s)
            except KeyboardInterrupt:
                raise Interrupted(f"interrupted while task {task} copies {name}: the copy runs on "
                                  "and the old index stays write-blocked; re-run `memdesk es "
                                  "reindex` to resume") from None

    def _verify(self, old: str, new: str) -> None:
        self._change(lambda: self.w.indices.refresh(index=new), f"refreshing {new}")
        n_old = self._read(lambda: int(self.es.count(index=old)["count"]), f"counting {old}")
        n_new = self._read(lambda: int(self.es.count(index=new)["count"]), f"counting {new}")
        if n_old != n_new:
            raise MemdeskError(f"{old} holds {n_old} documents but {new} {n_new} after the copy")

    # helpers ------------------------------------------------------------------------------------
    def _aliases(self, alias: str) -> dict[str, Any]:
        """The concrete indices behind `alias`; none when it does not exist yet (an index new
        to this version, e.g. usage (invariant 24): the store creates it when it opens)."""
        try:
            return dict(self.es.indices.get_alias(name=alias))
        except EsNotFound:
            return {}

    def _is_blocked(self, index: str) -> bool:
        resp = self._read(lambda: dict(self.es.indices.get_settings(
            index=index, name="index.blocks.write")), f"reading the blocks of {index}")
        value = (resp.get(index, {}).get("settings", {}).get("index", {}).get("blocks", {})
                 .get("write"))
        return str(value).lower() == "true"

    def _unblock(self, index: str) -> None:
        try:
            self.w.indices.put_settings(index=index, settings={"index.blocks.write": False})
        except (ApiError, TransportError) as exc:
            raise StoreUnavailableError(
                f"could not lift the write block on {index} ({_reason(exc)}): lift it with "
                f"PUT /{index}/_settings {{\"index.blocks.write\": false}}") from exc

    def _read(self, fn: Callable[[], T], what: str) -> T:
        return self._change(fn, what)

    def _change(self, fn: Callable[[], T], what: str) -> T:
        return request(fn, what, self.where)


def request(fn: Callable[[], T], what: str, where: str) -> T:
    """One request; a lost answer is `Interrupted` (resume by re-running), a refusal a
    MemdeskError naming the step."""
    try:
        return fn()
    except ApiError as exc:
        raise MemdeskError(f"Elasticsearch at {where} refused {what} "
                           f"({exc.meta.status}: {_reason(exc)})") from exc
    except TransportError as exc:
        raise Interrupted(f"no answer from Elasticsearch at {where} while {what} "
                          f"({exc}): re-run `memdesk es reindex` to resume") from exc


def reindex(es: Elasticsearch, names: IndexNames, embedder_name: str, dims: int,
            **kwargs: Any) -> list[str]:
    """Bring every alias to the current mapping version; returns what moved (old -> new)."""
    return Reindexer(es, names, embedder_name, dims, **kwargs).run()


def recompute_contexts(es: Elasticsearch, names: IndexNames, window: int, *,
                       progress: Callable[[Progress], None] = lambda p: None,
                       where: str = "the cluster") -> int:
    """Recompute every session's episode contexts (issue 17; `memdesk es reindex` runs it after
    the aliases moved). One scan of the episodes that have a session, sorted by user, session,
    time and id, so a session is complete when the next one starts; partial updates of only the
    turns whose context differs, in bulks of CONTEXT_BULK. Returns how many were written.

    Runs beside a live application: a turn written during the scan is handled by its own
    batch's follow-up; the last writer of a context wins, and every later write to that
    session recomputes it again."""
    alias, w = names.alias("episodic"), writer(es)
    request(lambda: es.indices.refresh(index=alias), f"refreshing {alias}", where)
    fields = ["user_id", *context.SESSION_FIELDS]
    pending: list[dict] = []
    seen = written = 0
    current: tuple[str, str] | None = None
    group: list[dict] = []

    def flush(force: bool = False) -> None:
        nonlocal pending, written
        if pending and (force or len(pending) >= 2 * CONTEXT_BULK):
            lines = pending
            resp = request(lambda: dict(w.bulk(operations=lines, refresh="false")),
                            f"updating the contexts of {alias}", where)
            bad = context.failed_items(resp)
            if bad:
                raise MemdeskError(f"context update of episode {bad[0].get('_id')} failed at "
                                   f"{where}: {bad[0].get('error')}")
            written += len(lines) // 2
            pending = []

    def close_group() -> None:
        if current is not None and group:
            changed = context.changed_contexts(current[0], [current[1]], group, {}, window)
            pending.extend(context.update_lines(alias, changed))
            flush()

    after = None
    while True:
        extra: dict = {"search_after": after} if after is not None else {}
        resp = request(partial(
            es.search, index=alias, query=context.all_sessions_query(), sort=context.ALL_SORT,
            size=PAGE, source_includes=fields, track_total_hits=False, **extra),
            f"reading the sessions of {alias}", where)
        hits = resp["hits"]["hits"]
        for h in hits:
            src = h["_source"]
            key = (src.get("user_id"), src.get("session_id"))
            if key != current:
                close_group()
                current, group = key, []
            group.append(src)
            seen += 1
        if len(hits) < PAGE:
            break
        after = hits[-1]["sort"]
    close_group()
    flush(force=True)
    if written:
        request(lambda: es.indices.refresh(index=alias), f"refreshing {alias}", where)
    progress(Progress(index="episodic", step="contexts", done=written, total=seen))
    return written
