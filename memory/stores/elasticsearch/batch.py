"""Sending a planned batch so that it is all-or-nothing, across crashes too (issues 16, 31).

Elasticsearch has no multi-document transaction, and the items of one bulk succeed or fail one
by one (docs-bulk.html: "The success or failure of an individual operation does not affect
other operations in the request"). So a batch is intent-first (intents.py, invariant 470):

0. the batch document is created (`op_type=create`), state `pending`: steps, before-images and
   audit events, so the batch can be finished or undone by anyone who reads it;
1. conditional writes — updates and deletes with if_seq_no/if_primary_term, watermark moves —
   the only ops that can lose a race (invariant 23);
2. inserts (`create` with the record's own id), only when every conditional write landed;
3. audit events; every write of 1-3 carries the batch id in `batch`;
4. one compare-and-set flip of the batch document to `committed`: the commit.

When an item fails, everything this call already wrote is undone and nothing more is sent
(invariant 23), and the batch document is marked rolled back. A 409 or a lost answer is never
answered by sending again blindly (invariant 92): the phase's keys are read back (one mget) and
each step is classified (intents.classify): landed (stamped with this batch), still to send (the
document is still what the plan saw, usage bumps aside), or a conflict. When even the read-back
gets no answer, the outcome is unknown: nothing more is sent, nothing is undone, and the batch
document stays pending for the sweeper (`resume`), which rolls it forward or back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from elasticsearch import ApiError

from ...errors import ConflictError, MemdeskError, StoreUnavailableError
from . import intents, writes
from .writes import CONDITIONAL, PHASE_NAMES, Step, keep_context, merge_usage, without_usage

log = logging.getLogger(__name__)
USAGE_ROUNDS = 3  # re-sends of a conditional write whose target only had its usage bumped
LOST_ROUNDS = 1  # lost answers in one phase that are read back and sent again, at most

Bulk = Callable[[list[dict], str], dict]
Read = Callable[[list[tuple[str, str]]], dict]
# put(doc_id, source, if_seq_no, if_primary_term) -> (seq_no, term); create when if_seq_no is None
Put = Callable[[str, dict, int | None, int | None], tuple[int, int]]


class PartiallyAppliedError(MemdeskError):
    """A failed batch could not be undone whole: another writer changed what it wrote."""


class AnswerLost(StoreUnavailableError):
    """A request was sent but no answer came back (timeout, reset): it may have landed."""


class Unresolved(AnswerLost):
    """Whether a batch landed is unknown (a lost answer could not be read back): its document
    stays pending, and the sweeper finishes or undoes it (invariant 470)."""


class BatchWriter:
    """Runs one planned batch. `bulk(lines, refresh)` sends one bulk without transport retries;
    `read(keys)` returns {(alias, id): {"src", "seq_no", "term"} or None}; `restore(step, src)`
    returns a stored source ready to be written (vectors are not read back, so it adds them
    again); `put` writes the batch document (state index alias `state`); `finished(ids)` says
    which of these batches are committed (absent or committed), for a converging re-apply; `now`
    is the wall clock the batch document is dated by (the sweeper's lease)."""

    def __init__(self, bulk: Bulk, read: Read, restore: Callable[[Step, dict], dict], *,
                 state: str, put: Put, finished: Callable[[set[str]], set[str]],
                 now: Callable[[], float]) -> None:
        self.bulk, self.read, self.restore = bulk, read, restore
        self.state, self.put, self.finished, self.now = state, put, finished, now
        self.lazy_touched: set[str] = set()  # aliases written without a refresh
        self.bid: str | None = None
        self.user: str | None = None

    # the batch document ---------------------------------------------------------------------
    def _doc(self) -> dict | None:
        assert self.bid is not None
        try:
            return self.read([(self.state, self.bid)]).get((self.state, self.bid))
        except AnswerLost as exc:
            raise Unresolved(f"{exc}. Batch {self.bid} may be recorded pending: if so, it is "
                             "finished or undone when the store is next opened (check before "
                             "retrying)") from exc

    def _open(self, doc: dict) -> tuple[int, int]:
        """Create the batch document (op_type=create). A lost answer is read back: there, the
        batch goes on; absent, nothing was written and the caller may retry."""
        assert self.bid is not None
        try:
            return self.put(self.bid, doc, None, None)
        except ApiError as exc:
            raise MemdeskError(f"Elasticsearch refused the batch record ({exc.meta.status}: "
                               f"{_reason(exc.info)}): nothing of the batch was written") from exc
        except AnswerLost:
            have = self._doc()
            if have is None:
                raise
            return have["seq_no"], have["term"]

    def _decide(self, state: str, seq: int, term: int) -> None:
        """The commit (or the mark of a rollback): one compare-and-set on the batch document, at
        the seq_no this writer got. A 409 means a sweeper took the batch over."""
        assert self.bid is not None
        body = intents.marker({"user_id": self.user, "id": self.bid}, state, self.now())
        for attempt in range(2):
            try:
                self.put(self.bid, body, seq, term)
                return
            except AnswerLost:
                have = self._doc()  # read back before deciding (invariant 92)
                if have is not None and have["src"].get("state") == state:
                    return
                if have is None or have["seq_no"] != seq or attempt:
                    raise Unresolved(f"the {state} flip of batch {self.bid} got no answer; the "
                                     "sweeper decides it when the store is next opened") from None
            except ApiError as exc:
                if exc.meta.status != 409:
                    raise
                have = self._doc()
                if have is not None and have["src"].get("state") == state:
                    return
                raise ConflictError(f"batch {self.bid} was taken over by the recovery sweeper "
                                    "(it outlived its lease): reload and check before retrying") \
                    from exc

    # running ----------------------------------------------------------------------------------
    def run(self, steps: list[Step], users: list[str]) -> None:
        self.bid, self.user = intents.new_id(), (users[0] if users else None)
        intents.stamp(steps, self.bid)
        seq, term = self._open(intents.document(self.bid, steps, users, self.now()))
        self._drive(steps, seq, term, resume=False)

    def resume(self, bid: str, doc: dict, seq: int, term: int) -> str:
        """Finish an abandoned batch from its document (the sweeper, after claiming it): every
        phase starts by reading its keys back; if every step landed or can still be sent, the
        batch is rolled forward and committed, else what landed is undone. Returns the state."""
        self.bid, self.user = bid, doc.get("user_id")
        steps = intents.steps_of(doc)
        for s in steps:
            if s.src is not None:
                s.src = self.restore(s, s.src)
        try:
            self._drive(steps, seq, term, resume=True)
        except (ConflictError, MemdeskError) as exc:
            if isinstance(exc, (Unresolved, PartiallyAppliedError)):
                raise
            return intents.ROLLED_BACK
        return intents.COMMITTED

    def _drive(self, steps: list[Step], seq: int, term: int, *, resume: bool) -> None:
        planned = writes.phases(steps)
        modes = writes.refresh_modes(planned)
        applied: list[Step] = []
        try:
            for phase_steps, mode in zip(planned, modes, strict=False):
                self._phase(phase_steps, mode, applied, resume=resume)
        except Unresolved:
            raise  # unknown outcome: nothing undone, the document stays pending
        except BaseException as exc:
            self._undo(applied, exc)  # a PartiallyAppliedError leaves the document pending
            try:
                self._decide(intents.ROLLED_BACK, seq, term)
            except (MemdeskError, ApiError) as why:  # the data is restored; only the mark is late
                log.warning("batch %s undone, but its record was not marked (%s): the sweeper "
                            "marks it", self.bid, why)
            raise
        self._decide(intents.COMMITTED, seq, term)

    # one phase ------------------------------------------------------------------------------
    def _send(self, steps: list[Step], mode: str) -> dict:
        try:
            resp = self.bulk(writes.bulk_lines(steps), mode)
        except ApiError as exc:  # the whole request refused (too large, malformed): none landed
            raise MemdeskError(f"Elasticsearch refused the batch ({exc.meta.status}: "
                               f"{_reason(exc.info)}): nothing of it was kept") from exc
        self.lazy_touched |= {s.index for s in steps if s.lazy}
        return resp

    def _read_back(self, steps: list[Step]) -> dict:
        try:
            return self.read([s.key for s in steps])
        except AnswerLost as exc:
            raise Unresolved(f"{exc}. Batch {self.bid} is recorded pending: it is finished or "
                             "undone when the store is next opened (check before retrying)") \
                from exc

    def _phase(self, steps: list[Step], mode: str, applied: list[Step], *,
               resume: bool = False) -> None:
        pending, lost, rounds = list(steps), int(resume), 0
        if resume:
            pending = self._classify(pending, self._read_back(pending), applied, after_lost=True)
        while pending:
            try:
                resp = self._send(pending, mode)
            except AnswerLost as exc:
                lost += 1
                # Read the phase's keys back before deciding (invariant 92): never resend blind.
                pending = self._classify(pending, self._read_back(pending), applied,
                                         after_lost=True)
                if pending and lost > LOST_ROUNDS:
                    raise Unresolved(f"{exc}. Batch {self.bid} is recorded pending: it is "
                                     "finished or undone when the store is next opened") from exc
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
            pending = (self._classify(check, self._read_back(check), applied,
                                      after_lost=bool(lost)) if check else [])
            rounds += 1
            if pending and rounds > USAGE_ROUNDS:
                raise ConflictError(f"{pending[0].id} kept changing while this batch was written: "
                                    "nothing of it was kept; retry", target_id=pending[0].id)

    def _classify(self, check: list[Step], stored: dict, applied: list[Step], *,
                  after_lost: bool) -> list[Step]:
        """Decide each step from what is stored (intents.classify): landed ones join `applied`
        (an undo must take them back), ones still to send are returned at the seq_no read
        (keeping the usage a recall bumped meanwhile), and a conflict raises."""
        again, conflicts, same = [], [], []
        assert self.bid is not None
        for s in check:
            have = stored.get(s.key)
            verdict = intents.classify(s, have, self.bid, after_lost=after_lost)
            if verdict == intents.LANDED:
                s.seq_no, s.term = (have["seq_no"], have["term"]) if have else (None, None)
                applied.append(s)
            elif verdict == intents.SEND:
                if have is not None:
                    s.before, s.if_seq_no, s.if_term = have, have["seq_no"], have["term"]
                    if s.src is not None:
                        merge_usage(s.src, have["src"])
                        keep_context(s.src, have["src"])
                again.append(s)
            elif verdict == intents.SAME:
                same.append(s)
            elif verdict == intents.CONFLICT:
                conflicts.append(s)
        if same:  # an equal record of another batch: converged only if that batch committed
            others = {intents.other_batch(stored.get(s.key)) for s in same} - {None}
            done = self.finished({o for o in others if o}) if others else set()
            conflicts += [s for s in same
                          if intents.other_batch(stored.get(s.key)) not in done | {None}]
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
    def _inverse(self, s: Step) -> Step | None:
        undo = Step(s.phase, "delete", s.index, s.id, None, s.what,
                    if_seq_no=s.seq_no, if_term=s.term, extra={"undoing": s.src})
        if s.op == "create":
            return undo
        assert s.before is not None  # an index or delete step replaced a stored document
        if "src" not in s.before:  # from a batch document: a deleted text is not kept there
            return None
        before = self.restore(s, dict(s.before["src"]))
        if s.op == "index":
            undo.op, undo.src = "index", before
            return undo
        return Step(s.phase, "create", s.index, s.id, before, s.what, extra={"undoing": None})

    def _undo(self, applied: list[Step], cause: BaseException) -> None:
        todo = [u for u in (self._inverse(s) for s in reversed(applied)) if u is not None]
        kept = [s for s in applied if s.op == "delete" and s.before and "src" not in s.before]
        if kept:  # invariant 470: a forget stands even when the rest of its batch is undone
            log.warning("batch %s undone except its delete(s) of %s (the batch document keeps "
                        "no deleted text)", self.bid, ", ".join(s.id for s in kept))
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


def _reason(info: object) -> str:
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
