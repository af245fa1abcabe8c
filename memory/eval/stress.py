"""Scripted stress scenarios for the correction model, isolation, concurrency and crash safety.

Each scenario runs on its own throwaway embedded store and returns pass/fail with a reason; the
run fails (non-zero exit from the CLI) when any scenario fails (invariant 58).
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, Field

from review.decisions import decide
from review.propose import propose

from ..clock import utcnow
from ..embeddings import Embedder
from ..errors import ChainError, ConflictError, NotFoundError, TombstoneError
from ..models import Episode, FactState, MemoryKind
from ..search_config import DEFAULT, Purpose
from ..service import MemoryService
from ..stores import open_store
from ..unit_of_work import Batch

# Ten restatements of a retracted value: surface variants and genuine paraphrases.
RESTATEMENTS = (
    "allergic to peanuts!",
    "ALLERGIC TO PEANUTS.",
    "Is allergic to peanuts",
    "Allergic to peanuts (confirmed)",
    "Allergic to peanut",
    "Has an allergy to peanuts",
    "The user is allergic to peanuts",
    "Peanut allergy",
    "Has a peanut allergy",
    "Cannot eat peanuts because of an allergy",
)


class ScenarioResult(BaseModel):
    name: str
    passed: bool
    reason: str
    details: dict = Field(default_factory=dict)
    seconds: float = 0.0


class StressReport(BaseModel):
    kind: str = "stress"
    created_at: datetime
    embedder: str
    scenarios: list[ScenarioResult]
    passed: bool


class Outcome(Exception):
    """Raised inside a scenario to stop with a failure and its reason."""


def check(condition: bool, reason: str) -> None:
    if not condition:
        raise Outcome(reason)


def _ids(service: MemoryService, user: str, query: str, k: int = 10) -> list[str]:
    cfg = DEFAULT.model_copy(update={"k": k})
    return [h.id for h in service.recall(user, query, config=cfg, purpose=Purpose.EVAL).hits]


# scenarios ---------------------------------------------------------------------------------
def supersede_then_recall(svc: MemoryService) -> tuple[str, dict]:
    old = svc.write_fact("stress-ana", "Lives in Bristol", fact_type="identity", actor="cli").fact
    new = svc.write_fact("stress-ana", "Lives in Edinburgh", fact_type="identity",
                         supersedes_id=old.id, actor="cli").fact
    ids = _ids(svc, "stress-ana", "Where does she live?")
    check(old.id not in ids, f"superseded {old.id} still recalled: {ids}")
    check(new.id in ids, f"new {new.id} missing from the same recall: {ids}")
    return f"one recall has {new.id} and not {old.id}", {"recalled": ids}


def chain_of_three(svc: MemoryService) -> tuple[str, dict]:
    u = "stress-ben"
    a = svc.write_fact(u, "Works at Acme", fact_type="identity", actor="cli").fact
    b = svc.write_fact(u, "Works at Globex", fact_type="identity", supersedes_id=a.id, actor="cli").fact
    c = svc.write_fact(u, "Works at Initech", fact_type="identity", supersedes_id=b.id, actor="cli").fact
    ids = _ids(svc, u, "where does he work")
    check(c.id in ids and a.id not in ids and b.id not in ids, f"recall should hold only the head: {ids}")
    for start in (a, b, c):
        walk = [f.id for f in svc.chain(u, start.id)]
        check(walk == [a.id, b.id, c.id], f"chain from {start.id} is {walk}")
    try:
        svc.write_fact(u, "Works at Hooli", supersedes_id=a.id, actor="cli")
        raise Outcome("superseding a non-head fact was accepted")
    except ChainError:
        pass
    return "a→b→c walks both ways; only c is recalled; a non-head refuses supersession", {}


def retraction_restatements(svc: MemoryService, restatements: Sequence[str] = RESTATEMENTS) -> tuple[str, dict]:
    u = "stress-cy"
    fact = svc.write_fact(u, "Allergic to peanuts", fact_type="constraint", actor="cli").fact
    svc.retract(u, fact.id, actor="cli", reason="user: I never said that")
    resurrected = []
    held = 0
    for text in restatements:
        try:
            res = svc.write_fact(u, text, fact_type="constraint", actor="agent")
        except TombstoneError:
            continue
        if res.held is not None:  # issue 11: a doubtful restatement waits in review, inactive
            held += 1
        else:
            resurrected.append((text, res.fact.id))
    active = [f.text for f in svc.facts(u, states=[FactState.ACTIVE])]
    details = {"refused": len(restatements) - len(resurrected) - held, "held_for_review": held,
               "resurrected": [t for t, _ in resurrected]}
    check(not resurrected, f"{len(resurrected)} of {len(restatements)} restatements resurrected the "
                           f"retracted value: {[t for t, _ in resurrected]}")
    check(not active, f"active facts after retraction: {active}")
    return (f"none of {len(restatements)} restatements active: {details['refused']} refused, "
            f"{held} held for review"), details


def tombstone_gauntlet(svc: MemoryService) -> tuple[str, dict]:
    """tests/data/tombstones.jsonl through write_fact (issue 11): counts per class."""
    from .gauntlet import load_cases, render_table, run_gauntlet

    report = run_gauntlet(svc, load_cases())
    details = report.model_dump(mode="json", exclude={"misses"})
    details["misses"] = [f"{m.case.expected.value}->{m.got.value}: {m.case.dead!r} / {m.case.new!r}"
                         for m in report.misses]
    details["markdown"] = render_table(report)
    check(report.passed, f"{report.restatements_accepted} restatements accepted, "
                         f"{report.different_refused}/{report.different_total} different values refused")
    return (f"{report.cases} cases: 0 restatements accepted, {report.different_refused}/"
            f"{report.different_total} different values refused"), details


def _propose(svc: MemoryService, user: str, text: str) -> str:
    return propose(svc, user, text, fact_type="preference", actor="consolidation").id


def _reject(svc: MemoryService, user: str, fact_id: str) -> None:
    decide(svc, user, fact_id, "reject", operator="stress", expected_rev=None,
           reason="stress: operator rejected")


def rejection_then_reextraction(svc: MemoryService) -> tuple[str, dict]:
    """Re-extraction may queue the value again (flagged previously_rejected), never revive it."""
    u = "stress-dee"
    first = _propose(svc, u, "Prefers window seats")
    _reject(svc, u, first)
    texts = ("Prefers window seats", "prefers window seats.", "Prefers Window Seats")
    requeued = []
    for text in texts:
        try:
            requeued.append(_propose(svc, u, text))  # what consolidation does on re-extraction
        except TombstoneError:
            pass
        try:
            svc.write_fact(u, text, fact_type="preference", actor="consolidation")
        except TombstoneError:
            pass
    for fid in requeued:  # an operator approving the flagged item is refused too
        try:
            decide(svc, u, fid, "approve", operator="stress", expected_rev=None)
        except TombstoneError:
            pass
    facts = svc.facts(u)
    active = [f.id for f in facts if f.state == FactState.ACTIVE]
    unflagged = [f.id for f in facts if f.state == FactState.CANDIDATE
                 and "previously_rejected" not in f.flags]
    check(not active, f"rejected value is active again: {active}")
    check(not unflagged, f"re-extracted candidates lost the previously_rejected flag: {unflagged}")
    ids = _ids(svc, u, "which seat does she prefer")
    check(first not in ids and not set(requeued) & set(ids), f"rejected value in recall: {ids}")
    via = "review.decisions"
    return (f"rejected via {via}; {len(texts)} re-extractions: {len(requeued)} re-queued flagged, "
            "0 active, none in recall"), {"requeued": len(requeued)}


def isolation(svc: MemoryService) -> tuple[str, dict]:
    owner, other, empty = "stress-eve", "stress-fay", "stress-gil"
    fact = svc.write_fact(owner, "Keeps bees in the garden", actor="cli").fact
    svc.write_episode(owner, "My bees swarmed last week, had to call the beekeeper", actor="cli")
    svc.write_playbook(owner, "Calm bees", "when the bees swarm", ["smoke the hive", "wait"], actor="cli")
    svc.write_fact(other, "Plays the cello", actor="cli")
    q = "bees hive swarm garden"
    mine = svc.recall(owner, q, config=DEFAULT, purpose=Purpose.EVAL).hits
    check(len(mine) >= 3 and all(h.doc.user_id == owner for h in mine), f"owner recall: {len(mine)} hits")
    theirs = svc.recall(other, q, config=DEFAULT.model_copy(update={"k": 200}), purpose=Purpose.EVAL).hits
    check(all(h.doc.user_id == other for h in theirs), "another user's recall holds the owner's hits")
    nobody = svc.recall(empty, q, config=DEFAULT, purpose=Purpose.EVAL).hits
    check(not nobody, f"a user with no memories got {len(nobody)} hits")
    try:
        svc.forget(other, fact.id, actor="cli")
        raise Outcome("another user could forget the owner's fact")
    except NotFoundError:
        pass
    denied = svc.audit(other, action="denied")
    check(len(denied) == 1, f"the denied attempt was audited {len(denied)} times")
    return f"owner {len(mine)} hits; other user 0 of the owner's; empty user 0; forget denied", {}


def concurrent_writers_and_readers(svc: MemoryService, threads: int = 8,
                                   operations: int = 1000) -> tuple[str, dict]:
    """8 threads, 1,000 operations: writes, supersessions and bumping (agent) recalls at once."""
    users = [f"stress-conc-{i}" for i in range(4)]
    errors: list[str] = []
    lock = threading.Lock()
    written: dict[str, list[tuple[MemoryKind, str]]] = {u: [] for u in users}
    audits: dict[str, int] = dict.fromkeys(users, 0)
    returned: dict[str, int] = {}

    def worker(n: int) -> None:
        rng = random.Random(n)
        user, head = users[n % len(users)], None
        for i in range(operations // threads + (1 if n < operations % threads else 0)):
            try:
                roll = rng.random()
                if roll < 0.35:
                    ep = svc.write_episode(user, f"thread {n} note {i}: bought {rng.choice(['tea', 'rope', 'maps'])}")
                    new, events = [(MemoryKind.EPISODIC, ep.id)], 1
                elif roll < 0.6 or head is None:
                    head = svc.write_fact(user, f"thread {n} fact {i} about {rng.choice(['boats', 'jazz'])}").fact.id
                    new, events = [(MemoryKind.SEMANTIC, head)], 1
                elif roll < 0.75:
                    head = svc.write_fact(user, f"thread {n} fact {i} revised", supersedes_id=head).fact.id
                    new, events = [(MemoryKind.SEMANTIC, head)], 2
                else:
                    hits = svc.recall(user, rng.choice(["boats", "jazz", "tea"]),
                                      config=DEFAULT.model_copy(update={"k": 5}), purpose=Purpose.AGENT).hits
                    with lock:
                        for h in hits:
                            if h.doc.kind == MemoryKind.SEMANTIC:
                                returned[h.id] = returned.get(h.id, 0) + 1
                    continue
                with lock:
                    written[user] += new
                    audits[user] += events
            except Exception as exc:  # noqa: BLE001 - any error at all fails the scenario
                with lock:
                    errors.append(f"thread {n} op {i}: {type(exc).__name__}: {exc}")

    pool = [threading.Thread(target=worker, args=(n,)) for n in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    check(not errors, f"{len(errors)} errors, first: {errors[:1]}")
    lost = [(u, i) for u in users for k, i in written[u] if svc.store.get(k, u, i) is None]
    check(not lost, f"{len(lost)} lost writes, e.g. {lost[:2]}")
    for u in users:
        n_audit = len(svc.store.audit(u, limit=1_000_000))
        check(n_audit == audits[u], f"{u}: {n_audit} audit events for {audits[u]} mutations")
    uses = {f.id: f.use_count for u in users for f in svc.store.list_facts(u)}
    lost_bumps = {i: (n, uses.get(i)) for i, n in returned.items() if uses.get(i) != n}
    check(not lost_bumps, f"usage bumps lost or doubled: {list(lost_bumps.items())[:3]}")
    mutations = sum(audits.values())
    return (f"{operations} ops on {threads} threads: 0 errors, {sum(len(w) for w in written.values())} "
            f"writes all present, {mutations} audit events = mutations, {sum(returned.values())} "
            "usage bumps all counted"), {"audit_events": mutations}


_CHILD = """
import os, sys
from memory.embeddings import get_embedder
from memory.stores import open_store
from memory.stores.embedded import EmbeddedStore
from memory.eval.stress import crash_batch
path, embedder, crash_after = sys.argv[1], sys.argv[2], int(sys.argv[3])
original, count = EmbeddedStore._put, [0]
def dying_put(self, db, doc, vec):
    count[0] += 1
    if count[0] > crash_after:
        os._exit(9)  # the process dies inside the open transaction
    original(self, db, doc, vec)
EmbeddedStore._put = dying_put
store = open_store("embedded:" + path, get_embedder(embedder))
store.apply(crash_batch())
"""


def crash_batch(n: int = 20) -> list:
    """A plan-sized batch: n episodes, each with its audit event, for user stress-crash."""
    b = Batch(None, "cli", "stress-crash", now=utcnow())
    for i in range(n):
        b.add(Episode(user_id="stress-crash", text=f"crash test message {i}"))
    return b.ops


def crash_mid_batch(svc: MemoryService) -> tuple[str, dict]:
    """An error mid-batch and a killed process mid-batch both leave nothing of the batch."""
    u = "stress-crash"
    base = svc.write_fact(u, "Drives a blue van", actor="cli").fact
    svc.write_fact(u, "Drives a red van", supersedes_id=base.id, actor="cli")
    before = len(svc.store.audit(u, limit=10_000))
    stale = Batch(None, "cli", u, now=utcnow())
    stale.change(base, action="edit", text="stale write")
    ops = crash_batch(5) + stale.ops
    try:
        svc.store.apply(ops)
        raise Outcome("a batch with a stale revision was applied")
    except ConflictError:
        pass
    check(not svc.episodes(u), "episodes from the failed batch were written")
    check(len(svc.store.audit(u, limit=10_000)) == before, "audit events from the failed batch")
    path = svc.store.url.removeprefix("embedded:")
    svc.store.close()
    proc = subprocess.run([sys.executable, "-c", _CHILD, path, svc.embedder.name, "7"],
                          capture_output=True, text=True, timeout=300, check=False)
    check(proc.returncode == 9, f"the child did not die mid-batch (exit {proc.returncode}): "
                                f"{proc.stderr.strip()[-300:]}")
    store = open_store(f"embedded:{path}", svc.embedder)
    try:
        eps = store.list_episodes(u)
        after = len(store.audit(u, limit=10_000))
        check(not eps, f"{len(eps)} episodes of the killed batch survived")
        check(after == before, f"audit grew from {before} to {after} after the killed batch")
        check(store.get(MemoryKind.SEMANTIC, u, base.id) is not None, "earlier data lost")
    finally:
        store.close()
    return "conflict mid-batch and a process killed mid-batch both left nothing partial", {}


SCENARIOS: dict[str, Callable[[MemoryService], tuple[str, dict]]] = {
    "supersede_then_recall": supersede_then_recall,
    "chain_of_three": chain_of_three,
    "retraction_restatements": retraction_restatements,
    "tombstone_gauntlet": tombstone_gauntlet,
    "rejection_then_reextraction": rejection_then_reextraction,
    "isolation": isolation,
    "concurrent_writers_and_readers": concurrent_writers_and_readers,
    "crash_mid_batch": crash_mid_batch,
}


def run_scenario(name: str, embedder: Embedder) -> ScenarioResult:
    """One scenario on a fresh throwaway store; any exception is a failure with its reason."""
    fn = SCENARIOS[name]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="memdesk-stress-") as tmp:
        store = open_store(f"embedded:{Path(tmp) / 'stress.db'}", embedder)
        svc = MemoryService(store, clock=utcnow)
        try:
            reason, details = fn(svc)
            passed = True
        except Outcome as exc:
            reason, details, passed = str(exc), {}, False
        except Exception as exc:  # noqa: BLE001 - an unexpected error is a failed scenario
            reason, details, passed = f"unexpected {type(exc).__name__}: {exc}", {}, False
        finally:
            store.close()
    return ScenarioResult(name=name, passed=passed, reason=reason, details=details,
                          seconds=round(time.perf_counter() - started, 2))


def run_stress(embedder: Embedder, only: list[str] | None = None) -> StressReport:
    from ..errors import ValidationError

    names = only or list(SCENARIOS)
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        raise ValidationError(f"unknown scenario {unknown[0]!r}; choose from: {', '.join(SCENARIOS)}")
    results = [run_scenario(n, embedder) for n in names]
    return StressReport(created_at=utcnow(), embedder=embedder.name, scenarios=results,
                        passed=all(r.passed for r in results))


def render_markdown(report: StressReport) -> str:
    lines = [f"# Stress scenarios ({report.created_at:%Y-%m-%d %H:%M} UTC)", "",
             f"embedder `{report.embedder}` · **{'PASSED' if report.passed else 'FAILED'}**", "",
             "| scenario | result | seconds | reason |", "|---|---|---|---|"]
    lines += [f"| {s.name} | {'pass' if s.passed else 'FAIL'} | {s.seconds:.1f} | {s.reason} |"
              for s in report.scenarios]
    for s in report.scenarios:
        if "markdown" in s.details:  # the tombstone gauntlet's table (issue 11)
            lines += ["", f"## {s.name}", "", s.details["markdown"]]
    return "\n".join(lines) + "\n"
