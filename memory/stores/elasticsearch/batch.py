"""Sending a planned batch so that it is all-or-nothing under concurrency (issue 16).

Elasticsearch has no multi-document transaction, and the items of one bulk succeed or fail one
by one (docs-bulk.html: "The success or failure of an individual operation does not affect
other operations in the request"). So a batch goes out in phases (invariant 90):

1. conditional writes — updates and deletes with if_seq_no/if_primary_term, watermark moves —
   the only ops that can lose a race;
2. inserts (`create` with the record's own id), only when every conditional write landed;
3. audit events, last, so the log only ever records what happened.

When an item of a phase fails, everything this call already wrote is undone and nothing more is
sent (invariant 91): an update is restored to the version read before it with if_seq_no = the
seq_no the update got (a writer who came after us is never clobbered), an insert is deleted at
its own seq_no, a delete is re-created. A 409 caused only by a usage bump (recall changes
`_seq_no` without changing the record) is re-read and re-sent, not reported as a conflict.
A phase whose answer was lost (timeout) is sent once more: every op in it converges — a create
that meets an identical record, or a conditional write whose target already holds what was
sent, counts as done (invariant 92).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from elasticsearch import ApiError

from ...errors import ConflictError, MemdeskError, StoreUnavailableError
from . import writes
from .writes import CONDITIONAL, PHASE_NAMES, Step, keep_context, merge_usage, without_usage

log = logging.getLogger(__name__)
USAGE_ROUNDS = 3  # re-sends of a conditional write whose target only had its usage bumped

Bulk = Callable[[list[dict], str], dict]
Read = Callable[[list[tuple[str, str]]], dict]


class PartiallyAppliedError(MemdeskError):
    """A failed batch could not be undone whole: another writer changed what it wrote."""


class AnswerLost(StoreUnavailableError):
    """A request was sent but no answer came back (timeout, reset): it may have landed."""


class BatchWriter:
    """Runs one planned batch. `bulk(lines, refresh)` sends one bulk without transport retries;
    `read(keys)` returns {(alias, id): {"src", "seq_no", "term"} or None}; `restore(step, src)`
    returns a stored source ready to be written back (vectors are not read back, so it adds
    them again)."""

    def __init__(self, bulk: Bulk, read: Read, restore: Callable[[Step, dict], dict]):
        self.bulk, self.read, self.restore = bulk, read, restore
        self.lazy_touched: set[str] = set()  # aliases written without a refresh

    def run(self, steps: list[Step]) -> None:
        planned = writes.phases(steps)
        modes = writes.refresh_modes(planned)
        applied: list[Step] = []
        try:
            for phase_steps, mode in zip(planned, modes, strict=False):
                self._phase(phase_steps, mode, applied)
        except BaseException as exc:
            self._undo(applied, exc)
            raise

    # one phase ------------------------------------------------------------------------------
    def _send(self, steps: list[Step], mode: str) -> dict:
        try:
            resp = self.bulk(writes.bulk_lines(steps), mode)
        except ApiError as exc:  # the whole request refused (too large, malformed): none landed
            raise MemdeskError(f"Elasticsearch refused the batch ({exc.meta.status}: "
                               f"{_reason(exc.info)}): nothing of it was kept") from exc
        self.lazy_touched |= {s.index for s in steps if s.lazy}
        return resp

    def _phase(self, steps: list[Step], mode: str, applied: list[Step]) -> None:
        pending, lost, rounds = list(steps), 0, 0
        while pending:
            try:
                resp = self._send(pending, mode)
            except AnswerLost:
                if lost:
                    raise
                lost += 1  # the answer was lost, not necessarily the writes: send them again
                continue
            check, failures = [], []
            for step, item in zip(pending, resp["items"], strict=False):
                result = next(iter(item.values()))
                status = result.get("status", 500)
                if status < 300:
                    step.seq_no, step.term = result.get("_seq_no"), result.get("_primary_term")
                    applied.append(step)
                elif status == 404 and step.op == "delete":
                    if lost:  # most likely our own lost first send: undo re-creates it
                        applied.append(step)
                    continue  # else someone else deleted it: never re-created by an undo
                elif status == 409:
                    check.append(step)
                else:
                    failures.append((step, result))
            if failures:
                raise _failure(failures, steps[0].phase)
            pending = self._recheck(check, applied, after_lost=bool(lost))
            rounds += 1
            if pending and rounds > USAGE_ROUNDS:
                raise ConflictError(f"{pending[0].id} kept changing while this batch was written: "
                                    "nothing of it was kept; retry", target_id=pending[0].id)

    def _recheck(self, check: list[Step], applied: list[Step], *,
                 after_lost: bool = False) -> list[Step]:
        """Read back what answered 409: already there (converged), only usage bumped (send
        again at the new seq_no), or a real conflict (raise). A delete found gone counts as
        ours only right after a lost answer (our first send); otherwise someone else deleted
        it, and an undo must never bring it back."""
        if not check:
            return []
        stored = self.read([s.key for s in check])
        again, conflicts = [], []
        for s in check:
            have = stored.get(s.key)
            if s.op == "delete" and have is None:
                if after_lost:
                    applied.append(s)
                continue
            if (s.op != "delete" and have is not None and s.src is not None  # only deletes lack one
                    and without_usage(have["src"]) == without_usage(s.src)):
                s.seq_no, s.term = have["seq_no"], have["term"]  # an identical record: ours
                applied.append(s)
            elif (s.phase == CONDITIONAL and have is not None and s.before is not None
                  and without_usage(have["src"]) == without_usage(s.before["src"])):
                s.before, s.if_seq_no, s.if_term = have, have["seq_no"], have["term"]
                if s.src is not None:
                    merge_usage(s.src, have["src"])
                    keep_context(s.src, have["src"])
                again.append(s)
            else:
                conflicts.append(s)
        if conflicts:
            ids = ", ".join(f"{s.what.removeprefix('memory:')} {s.id}" for s in conflicts)
            exists = all(s.op == "create" and s.phase != CONDITIONAL for s in conflicts)
            raise ConflictError(
                f"{ids} already exists with other content: nothing of the batch was kept" if exists
                else f"{ids} changed while this batch was written (a concurrent writer won): "
                "nothing of the batch was kept; reload and decide again",
                target_id=conflicts[0].id)
        return again

    # undo -------------------------------------------------------------------------------------
    def _inverse(self, s: Step) -> Step:
        undo = Step(s.phase, "delete", s.index, s.id, None, s.what,
                    if_seq_no=s.seq_no, if_term=s.term, extra={"undoing": s.src})
        if s.op == "create":
            return undo
        assert s.before is not None  # an index or delete step replaced a stored document
        before = self.restore(s, dict(s.before["src"]))
        if s.op == "index":
            undo.op, undo.src = "index", before
            return undo
        return Step(s.phase, "create", s.index, s.id, before, s.what, extra={"undoing": None})

    def _undo(self, applied: list[Step], cause: BaseException) -> None:
        todo = [self._inverse(s) for s in reversed(applied)]
        rounds = 0
        while todo:
            mode = "wait_for" if any(not s.lazy for s in todo) else "false"
            try:
                resp = self.bulk(writes.bulk_lines(todo), mode)
            except (ApiError, StoreUnavailableError) as exc:
                raise self._partial(todo, cause, f"the undo got no answer or was refused ({exc})") \
                    from cause
            check: list[Step] = []
            stuck: list[Step] = []
            for step, item in zip(todo, resp["items"], strict=False):
                status = next(iter(item.values())).get("status", 500)
                if status < 300 or (status == 404 and step.op == "delete"):
                    continue
                (check if status == 409 else stuck).append(step)
            again = []
            stored = self.read([s.key for s in check]) if check else {}
            for s in check:
                have = stored.get(s.key)
                written = s.extra.get("undoing")
                if (s.op == "create" and have is not None and s.src is not None
                        and without_usage(have["src"]) == without_usage(s.src)):
                    continue  # already restored
                if (have is not None and written is not None
                        and without_usage(have["src"]) == without_usage(written)):
                    s.if_seq_no, s.if_term = have["seq_no"], have["term"]  # only usage moved on
                    if s.src is not None:
                        merge_usage(s.src, have["src"])
                        keep_context(s.src, have["src"])
                    again.append(s)
                else:
                    stuck.append(s)
            rounds += 1
            if stuck or (again and rounds > USAGE_ROUNDS):
                raise self._partial(stuck or again, cause, "another writer changed them since") \
                    from cause
            todo = again

    def _partial(self, steps: list[Step], cause: BaseException, why: str) -> PartiallyAppliedError:
        ids = ", ".join(f"{s.index}/{s.id}" for s in steps)
        log.error("batch failed (%s) and could not be undone for %s: %s", cause, ids, why)
        return PartiallyAppliedError(
            f"the batch failed ({cause}) and could not be fully undone: {ids} ({why}); check "
            "them (memdesk facts / audit) before retrying")


def _reason(info) -> str:
    if isinstance(info, dict):
        err = info.get("error", info)
        if isinstance(err, dict):
            return str(err.get("reason") or err.get("type") or err)
        return str(err)
    return str(info)


def _failure(failures: list[tuple[Step, dict]], phase: int) -> MemdeskError:
    step, result = failures[0]
    err = result.get("error") or {}
    kind = err.get("type", "") if isinstance(err, dict) else ""
    detail = f"{step.op} {step.index}/{step.id}: {result.get('status')} {_reason(result)}"
    if kind == "cluster_block_exception":  # a write block: `memdesk es reindex` is copying it
        return StoreUnavailableError(
            f"{step.index} is write-blocked ({_reason(result)}): a `memdesk es reindex` is copying "
            "it, or one was interrupted — re-run it to finish. Nothing of this batch was kept")
    return MemdeskError(f"Elasticsearch rejected {len(failures)} of the {PHASE_NAMES[phase]} of "
                        f"this batch ({detail}): nothing of the batch was kept")
