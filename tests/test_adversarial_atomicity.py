"""Adversarial probes of atomicity, bitemporal "as of", export/import and review races: each
probe attacks one angle through the public entry points on real embedded stores; only the paid
LLM is replaced. A probe that failed before its fix names the invariant it now proves."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from memory.clock import fixed_clock
from memory.consolidation.apply import apply_plan, undo_plan
from memory.consolidation.extract import ExtractedFact, Extraction, Usage
from memory.consolidation.planner import make_plan
from memory.errors import (
    ChainError,
    ConflictError,
    MemdeskError,
    TombstoneError,
    ValidationError,
)
from memory.export import export_user, import_user, parse, to_json
from memory.forgetting import erase_user
from memory.llm import get_llm
from memory.models import FactState
from memory.service import MemoryService
from memory.settings import Settings
from memory.stores import open_store
from review.decisions import decide, decide_many
from review.models import StaleItemError
from review.propose import propose
from tests.conftest import NOW, advancing_clock

ROOT = Path(__file__).resolve().parent.parent




def dump(db: Path) -> dict:
    """Every row the store holds, straight from the file: the 'exactly as before' comparison."""
    con = sqlite3.connect(db)
    try:
        return {t: sorted(map(tuple, con.execute(f"SELECT * FROM {t}").fetchall()), key=repr)
                for t in ("docs", "audit", "tombstones", "watermarks")}
    finally:
        con.close()


@pytest.fixture
def env(tmp_path, hash_embedder):
    db = tmp_path / "s.db"
    store = open_store(f"embedded:{db}", hash_embedder)
    now, advance = advancing_clock(NOW)
    svc = MemoryService(store, clock=now)
    yield svc, db, advance
    store.close()


def offline():
    return get_llm(Settings(), "offline")


class ScriptedLLM:
    """Stands in for the paid model: returns a fixed extraction (or raises)."""

    mode = "scripted"

    def __init__(self, make):
        self.make = make

    def extract(self, request):
        return self.make(request), Usage(mode=self.mode, calls=1)

    def reply(self, system, messages):  # pragma: no cover - not used by consolidation
        return ""


def _seed(svc, advance):
    svc.write_fact("ana", "Lives in Bristol", fact_type="identity")
    advance(minutes=1)
    svc.write_episode("ana", "I moved to Leeds last month", timestamp="2025-05-30")
    svc.write_episode("ana", "I love green tea", timestamp="2025-05-31")
    advance(minutes=1)


# === 1. atomicity and "nothing lost" ==========================================================
def test_inv37_a_model_that_raises_leaves_everything_as_it_was(env):
    svc, db, advance = env
    _seed(svc, advance)
    before = dump(db)

    def boom(request):
        raise RuntimeError("model fell over")
    with pytest.raises(RuntimeError):
        make_plan(svc, "ana", ScriptedLLM(boom))
    assert dump(db) == before


@pytest.mark.parametrize("bad", [
    {"text": "Lives in Leeds", "fact_type": "identity", "confidence": 0.9, "evidence": ["ep_nope"]},
    {"text": "Lives in Leeds", "fact_type": "identity", "confidence": 0.9, "evidence": ["EP"],
     "supersedes_id": "fact_someone_elses"},
    {"text": "Lives in Leeds", "fact_type": "identity", "confidence": 0.9, "evidence": ["EP"],
     "valid_from": "2025-05-01", "valid_to": "2025-01-01"},
])
def test_inv37_malformed_model_output_writes_nothing_it_should_not(env, bad):
    """Evidence the user never said, a supersedes id that is not shown, an inverted interval:
    planning gates the op; applying writes no fact from it. An interval running backwards used
    to crash planning with a raw pydantic error (now the `dates` gate drops it)."""
    svc, db, advance = env
    _seed(svc, advance)
    bob = svc.write_fact("bob", "Lives in Paris").fact
    eps = [e.id for e in svc.episodes("ana")]
    raw = json.loads(json.dumps(bad).replace('"EP"', json.dumps(eps[0])))
    if raw.get("supersedes_id") == "fact_someone_elses":
        raw["supersedes_id"] = bob.id
    llm = ScriptedLLM(lambda req: Extraction(facts=[ExtractedFact.model_validate(raw)]))
    before = dump(db)
    try:
        plan = make_plan(svc, "ana", llm)
    except MemdeskError:
        assert dump(db) == before
        return
    apply_plan(svc, plan)
    assert svc.get_fact("bob", bob.id).state == FactState.ACTIVE
    leeds = [f for f in svc.facts("ana", states=[FactState.ACTIVE]) if "Leeds" in f.text]
    for f in leeds:
        assert f.supersedes != bob.id and not set(f.source_episode_ids) - set(eps)
        assert f.valid_to is None or f.valid_from is None or f.valid_to >= f.valid_from


@pytest.mark.parametrize("nth", [1, 2, 3])
def test_inv37_a_store_error_on_the_nth_write_of_an_apply_keeps_everything(env, monkeypatch,
                                                                          nth):
    svc, db, advance = env
    _seed(svc, advance)
    plan = make_plan(svc, "ana", offline())
    assert len(plan.actionable()) >= 2
    before = dump(db)
    store = svc.store
    real = {"put": store._put, "update": store._update}
    calls = {"n": 0}

    def counting(name):
        def wrapped(*a, **kw):
            calls["n"] += 1
            if calls["n"] == nth:
                raise sqlite3.OperationalError("disk I/O error (injected)")
            return real[name](*a, **kw)
        return wrapped
    monkeypatch.setattr(store, "_put", counting("put"))
    monkeypatch.setattr(store, "_update", counting("update"))
    with pytest.raises(Exception):  # noqa: B017 - whatever the store raises
        apply_plan(svc, plan)
    assert dump(db) == before
    monkeypatch.undo()
    apply_plan(svc, plan)  # and the same plan still applies cleanly afterwards
    assert dump(db) != before


def test_inv37_a_gate_raising_during_apply_keeps_everything(env, monkeypatch):
    svc, db, advance = env
    _seed(svc, advance)
    plan = make_plan(svc, "ana", offline())
    before = dump(db)

    def broken(*a, **kw):
        raise RuntimeError("tombstone index unavailable")
    monkeypatch.setattr(svc, "tombstone_verdict", broken)
    with pytest.raises(RuntimeError):
        apply_plan(svc, plan)
    assert dump(db) == before


def test_inv39_undo_after_a_later_write_touched_the_plans_fact_is_refused_whole(env):
    svc, db, advance = env
    _seed(svc, advance)
    plan = make_plan(svc, "ana", offline())
    apply_plan(svc, plan)
    leeds = next(f for f in svc.facts("ana", states=[FactState.ACTIVE]) if "Leeds" in f.text)
    advance(minutes=1)
    svc.write_fact("ana", "Lives in York", supersedes_id=leeds.id)
    before = dump(db)
    with pytest.raises(ConflictError, match="changed since it was applied"):
        undo_plan(svc, "ana", plan.id)
    assert dump(db) == before


def test_inv39_undo_after_an_unrelated_later_write_undoes_exactly(env):
    svc, db, advance = env
    _seed(svc, advance)
    start = {f.id: f for f in svc.facts("ana")}
    plan = make_plan(svc, "ana", offline())
    apply_plan(svc, plan)
    advance(minutes=1)
    other = svc.write_fact("ana", "Plays chess").fact
    undo_plan(svc, "ana", plan.id)
    now = {f.id: f for f in svc.facts("ana")}
    assert set(now) == set(start) | {other.id}
    for fid, f in start.items():
        assert now[fid].model_dump(exclude={"rev"}) == f.model_dump(exclude={"rev"})
    assert svc.store.get_watermark("ana", "consolidation") in (None, "")


def test_inv38_two_services_on_one_file_apply_two_plans_of_the_same_episodes_once(
        tmp_path, hash_embedder):
    """Two processes (two connections) plan the same new episodes with models that word the
    fact differently, then both apply: the second plan must be refused as stale, not add a
    second copy of the same memory."""
    db = tmp_path / "s.db"
    s1 = open_store(f"embedded:{db}", hash_embedder)
    s2 = open_store(f"embedded:{db}", hash_embedder)
    try:
        a = MemoryService(s1, clock=fixed_clock(NOW))
        b = MemoryService(s2, clock=fixed_clock(NOW + timedelta(seconds=1)))
        ep = a.write_episode("ana", "I play the cello every weekend", timestamp="2025-05-30")

        def word(text):
            return ScriptedLLM(lambda req: Extraction(facts=[ExtractedFact(
                text=text, fact_type="preference", confidence=0.9, evidence=[ep.id])]))
        p1 = make_plan(a, "ana", word("Plays the cello"))
        p2 = make_plan(b, "ana", word("Plays cello on weekends"))
        assert p1.id != p2.id and p1.watermark_before == p2.watermark_before
        apply_plan(a, p1)
        with pytest.raises(ConflictError, match="stale"):
            apply_plan(b, p2)
        assert [f.text for f in a.facts("ana")] == ["Plays the cello"]
        assert len(a.audit("ana", action="consolidate")) == 1
    finally:
        s1.close()
        s2.close()


def test_inv38_a_plan_applied_between_anothers_read_and_write_is_refused(env, monkeypatch):
    """The race itself: plan B read the watermark before plan A committed and commits after.
    The store's watermark move is compare-and-set, so B's whole batch is refused."""
    svc, db, advance = env
    ep = svc.write_episode("ana", "I play the cello every weekend", timestamp="2025-05-30")

    def word(text):
        return ScriptedLLM(lambda req: Extraction(facts=[ExtractedFact(
            text=text, fact_type="preference", confidence=0.9, evidence=[ep.id])]))
    p1 = make_plan(svc, "ana", word("Plays the cello"))
    p2 = make_plan(svc, "ana", word("Plays cello on weekends"))
    store = svc.store
    real_apply = store.apply

    def racing(ops):
        store.apply = real_apply
        apply_plan(svc, p1)  # lands between p2's read of the watermark and its write
        return real_apply(ops)
    monkeypatch.setattr(store, "apply", racing)
    with pytest.raises(ConflictError, match="watermark"):
        apply_plan(svc, p2)
    assert [f.text for f in svc.facts("ana")] == ["Plays the cello"]
    assert len(svc.audit("ana", action="consolidate")) == 1


_WRITER = """
import sys
from memory.embeddings import get_embedder
from memory.service import MemoryService
from memory.stores import open_store
store = open_store("embedded:" + sys.argv[1], get_embedder("hash"))
svc = MemoryService(store)
for i in range(int(sys.argv[3])):
    svc.write_fact("ana", f"Owns item number {sys.argv[2]}-{i}")
store.close()
"""


@pytest.mark.process
def test_inv8_inv10_two_processes_writing_one_user_lose_nothing(tmp_path, hash_embedder):
    db = tmp_path / "s.db"
    open_store(f"embedded:{db}", hash_embedder).close()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    n = 15
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(db), tag, str(n)], env=env,
                              cwd=ROOT, stderr=subprocess.PIPE, text=True) for tag in "AB"]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    store = open_store(f"embedded:{db}", hash_embedder)
    try:
        svc = MemoryService(store)
        texts = sorted(f.text for f in svc.facts("ana"))
        assert texts == sorted(f"Owns item number {t}-{i}" for t in "AB" for i in range(n))
        writes = svc.audit("ana", limit=1000, action="write_fact")
        assert len(writes) == 2 * n and len({e.id for e in writes}) == 2 * n
    finally:
        store.close()


def test_inv42_approve_and_reject_racing_on_one_revision_one_wins(tmp_path, hash_embedder):
    db = tmp_path / "s.db"
    s1 = open_store(f"embedded:{db}", hash_embedder)
    s2 = open_store(f"embedded:{db}", hash_embedder)
    try:
        a = MemoryService(s1, clock=fixed_clock(NOW))
        b = MemoryService(s2, clock=fixed_clock(NOW))
        cand = propose(a, "ana", "Plays chess", actor="cli")
        loaded = b.get_fact("ana", cand.id)  # both operators loaded revision 1
        decide(a, "ana", cand.id, "approve", operator="rita", expected_rev=cand.rev)
        with pytest.raises(StaleItemError, match="already active"):
            decide(b, "ana", cand.id, "reject", operator="sam", expected_rev=loaded.rev,
                   reason="wrong")
        assert b.get_fact("ana", cand.id).state == FactState.ACTIVE
        assert b.store.list_tombstones("ana") == []
        decisions = [e for e in b.audit("ana") if e.action.startswith("review_")]
        assert [e.action for e in decisions] == ["review_approve"]
    finally:
        s1.close()
        s2.close()


def test_inv42_a_decision_whose_batch_went_stale_after_its_read_writes_nothing(env,
                                                                               monkeypatch):
    """The other operator commits between this decision's read and its write (the store sees
    a revision mismatch): a StaleItemError, nothing of this decision lands."""
    svc, db, advance = env
    cand = propose(svc, "ana", "Plays chess", actor="cli")
    store = svc.store
    real_apply = store.apply
    other = MemoryService(store, clock=svc.clock)

    def racing(ops):
        store.apply = real_apply
        decide(other, "ana", cand.id, "reject", operator="sam", expected_rev=cand.rev,
               reason="not so")
        return real_apply(ops)
    monkeypatch.setattr(store, "apply", racing)
    with pytest.raises(StaleItemError):
        decide(svc, "ana", cand.id, "approve", operator="rita", expected_rev=cand.rev)
    assert svc.get_fact("ana", cand.id).state == FactState.REJECTED
    assert [e.action for e in svc.audit("ana") if e.action.startswith("review_")] == \
        ["review_reject"]


# === 2. bitemporal correctness ================================================================
def test_inv13_inv184_valid_interval_is_half_open(env):
    """Invariant 13: covered from valid_from (inclusive) to valid_to (exclusive)."""
    svc, _, _ = env
    f = svc.write_fact("ana", "Works at Acme", valid_from="2024-01-01",
                       valid_to="2025-01-01").fact
    ids = lambda d: [x.id for x in svc.facts("ana", as_of_valid=d)]  # noqa: E731
    assert ids("2024-01-01") == [f.id]
    assert ids("2023-12-31T23:59:59.999999Z") == []
    assert ids("2024-12-31T23:59:59Z") == [f.id]
    assert ids("2025-01-01") == []


def test_inv14_inv184_record_interval_is_half_open_at_supersession(env):
    """Invariant 14: believed from recorded_at (inclusive) until superseded_at (exclusive)."""
    svc, _, advance = env
    old = svc.write_fact("ana", "Lives in Bristol").fact
    advance(days=10)
    new = svc.write_fact("ana", "Lives in Leeds", supersedes_id=old.id).fact
    at = lambda d: sorted(x.text for x in svc.facts("ana", as_of_recorded=d))  # noqa: E731
    assert at(old.recorded_at) == ["Lives in Bristol"]
    assert at(old.recorded_at - timedelta(microseconds=1)) == []
    assert at(new.recorded_at - timedelta(microseconds=1)) == ["Lives in Bristol"]
    assert at(new.recorded_at) == ["Lives in Leeds"]


def test_inv184_naive_and_aware_inputs_mean_the_same_instant(env):
    svc, _, _ = env
    f = svc.write_fact("ana", "Works at Acme", valid_from="2024-03-31T01:30:00+01:00").fact
    assert f.valid_from == datetime(2024, 3, 31, 0, 30, tzinfo=UTC)
    for same in ("2024-03-31T00:30:00", "2024-03-31T00:30:00Z", "2024-03-31T02:30:00+02:00",
                 datetime(2024, 3, 31, 0, 30), datetime(2024, 3, 31, 0, 30, tzinfo=UTC)):
        assert [x.id for x in svc.facts("ana", as_of_valid=same)] == [f.id], same
    before = datetime(2024, 3, 31, 1, 29, tzinfo=timezone(timedelta(hours=1)))
    assert svc.facts("ana", as_of_valid=before) == []


def test_inv184_a_retracted_fact_was_believed_but_never_true(env):
    """Invariants 6, 13, 14: record time before the retraction shows it; valid time never."""
    svc, _, advance = env
    f = svc.write_fact("ana", "Allergic to peanuts", valid_from="2020-01-01").fact
    advance(days=3)
    svc.retract("ana", f.id, reason="never was")
    assert [x.id for x in svc.facts("ana", as_of_recorded=NOW + timedelta(days=1))] == [f.id]
    assert svc.facts("ana", as_of_recorded=NOW + timedelta(days=3)) == []
    for d in ("2020-06-01", NOW + timedelta(days=1), NOW + timedelta(days=30)):
        assert svc.facts("ana", as_of_valid=d) == []


def test_inv6_inv13_a_harsh_replacement_is_never_true_for_the_old_value(env):
    svc, _, advance = env
    old = svc.write_fact("ana", "Born in Paris", valid_from="1990-01-01").fact
    advance(days=1)
    new = svc.write_fact("ana", "Born in Lyon", supersedes_id=old.id,
                         contradiction="harsh").fact
    assert [x.id for x in svc.facts("ana", as_of_valid="2000-01-01")] == []  # Lyon: recorded now
    assert [x.id for x in svc.facts("ana", as_of_recorded=NOW)] == [old.id]
    assert [x.id for x in svc.facts("ana", as_of_recorded=NOW + timedelta(days=1))] == [new.id]


def test_inv4_inv184_a_backdated_correction_closes_the_old_interval_at_its_start(env):
    """'Lives in Leeds since March', recorded in November: valid time says Leeds from March,
    record time says Bristol was believed until November."""
    now, advance = advancing_clock(datetime(2025, 1, 15, tzinfo=UTC))
    svc = MemoryService(env[0].store, clock=now)
    old = svc.write_fact("ana", "Lives in Bristol", valid_from="2024-06-01").fact
    advance(days=300)  # November
    new = svc.write_fact("ana", "Lives in Leeds", valid_from="2025-03-01",
                         supersedes_id=old.id).fact
    valid = lambda d: [x.text for x in svc.facts("ana", as_of_valid=d)]  # noqa: E731
    rec = lambda d: [x.text for x in svc.facts("ana", as_of_recorded=d)]  # noqa: E731
    assert valid("2025-02-28") == ["Lives in Bristol"]
    assert valid("2025-03-01") == ["Lives in Leeds"]
    assert valid("2025-04-01") == ["Lives in Leeds"]
    assert rec("2025-04-01") == ["Lives in Bristol"]
    assert rec(new.recorded_at) == ["Lives in Leeds"]
    # A correction back-dated before the old fact began: the old one was never valid; no crash.
    advance(days=1)
    newest = svc.write_fact("ana", "Lives in York", valid_from="2024-01-01",
                            supersedes_id=new.id).fact
    assert valid("2025-04-01") == ["Lives in York"]
    assert svc.get_fact("ana", new.id).valid_to == new.valid_from
    assert newest.valid_from == datetime(2024, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize("when", ["1901-05-03", "0200-01-01", "1969-12-31T23:59:59Z",
                                  "2999-12-31", "9999-12-30"])
def test_inv184_dates_before_1970_and_far_future_are_stored_and_compared(env, when):
    svc, db, _ = env
    f = svc.write_fact("ana", "Grandfather was born in Turin", valid_from=when).fact
    at = f.valid_from
    assert [x.id for x in svc.facts("ana", as_of_valid=at)] == [f.id]
    assert svc.facts("ana", as_of_valid=at - timedelta(seconds=1)) == []
    assert [x.id for x in svc.facts("ana", as_of_valid="9999-12-31")] == [f.id]
    g = svc.get_fact("ana", f.id)
    assert g.valid_from == at
    exported = parse(to_json(export_user(svc, "ana", actor="cli")))
    assert exported.facts[0].valid_from == at


@pytest.mark.process
def test_inv184_cli_as_of_flags_agree_with_the_service(tmp_path):
    env_ = {**os.environ, "PYTHONPATH": str(ROOT), "MEMDESK_EMBEDDER": "hash"}
    store = f"embedded:{tmp_path / 's.db'}"

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "memory", *args, "--store", store],
                              capture_output=True, text=True, env=env_, cwd=tmp_path,
                              timeout=300, check=False)
    w = cli("write-fact", "--user", "ana", "Works at Acme", "--valid-from",
            "2024-01-01", "--valid-to", "2025-01-01")
    assert w.returncode == 0, w.stderr
    inside = cli("facts", "--user", "ana", "--as-of-valid", "2024-06-01T00:00:00+02:00")
    edge = cli("facts", "--user", "ana", "--as-of-valid", "2025-01-01")
    bad = cli("facts", "--user", "ana", "--as-of-valid", "2025-13-01")
    assert inside.returncode == 0 and "Works at Acme" in inside.stdout
    assert edge.returncode == 0 and "Works at Acme" not in edge.stdout
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


# === 3. export / import =======================================================================
def _rich(svc, advance):
    a = svc.write_fact("ana", "Lives in Bristol", valid_from="2024-01-01").fact
    advance(minutes=1)
    b = svc.write_fact("ana", "Lives in Leeds", valid_from="2025-03-01", supersedes_id=a.id).fact
    advance(minutes=1)
    c = svc.write_fact("ana", "Allergic to peanuts").fact
    svc.retract("ana", c.id, reason="never")
    svc.write_episode("ana", "I like tea")
    cand = propose(svc, "ana", "Plays chess", actor="cli")
    advance(minutes=1)
    return a, b, c, cand


def test_inv124_export_erase_import_gives_back_the_same_memory(env):
    svc, db, advance = env
    _rich(svc, advance)
    svc.write_episode("ana", "I moved to York", timestamp="2025-05-30")
    apply_plan(svc, make_plan(svc, "ana", offline()))
    exported = export_user(svc, "ana", actor="cli")
    facts = sorted((f.model_dump() for f in svc.facts("ana")), key=lambda d: d["id"])
    marks = svc.store.watermarks("ana")
    erase_user(svc, "ana", actor="cli")
    import_user(svc, parse(to_json(exported)), actor="cli")
    assert sorted((f.model_dump() for f in svc.facts("ana")), key=lambda d: d["id"]) == facts
    assert svc.store.watermarks("ana") == marks
    again = export_user(svc, "ana", actor="cli")
    assert again.chains == exported.chains
    assert valid_texts(svc, "2025-04-01") == valid_texts_of(exported, "2025-04-01")
    with pytest.raises(TombstoneError):
        svc.write_fact("ana", "Allergic to peanuts")
    # The next consolidation finds nothing new (the watermark came back with the facts).
    assert make_plan(svc, "ana", offline()).watermark_after is None


def valid_texts(svc, d):
    return sorted(f.text for f in svc.facts("ana", as_of_valid=d))


def valid_texts_of(export, d):
    from memory.clock import parse_when
    from memory.corrections import valid_covers
    at = parse_when(d)
    return sorted(f.text for f in export.facts if valid_covers(f, at))


def test_inv124_import_into_a_store_that_has_the_user_is_refused_and_writes_nothing(env):
    svc, db, advance = env
    _rich(svc, advance)
    raw = to_json(export_user(svc, "ana", actor="cli"))
    before = dump(db)
    with pytest.raises(ConflictError, match="already has"):
        import_user(svc, parse(raw), actor="cli")
    assert dump(db) == before


def _tampered(svc, advance):
    a, b, c, cand = _rich(svc, advance)
    data = json.loads(to_json(export_user(svc, "ana", actor="cli")))
    erase_user(svc, "ana", actor="cli")
    return data, (a, b, c, cand)


def _mutations():
    def user_changed(d, ids):
        d["user_id"] = "bob"

    def other_owner(d, ids):
        d["facts"][0]["user_id"] = "bob"

    def dup_fact(d, ids):
        twin = dict(d["facts"][0], text="Lives in Paris")
        d["facts"].append(twin)

    def dup_identical(d, ids):
        d["facts"].append(dict(d["facts"][0]))

    def dup_across_kinds(d, ids):
        d["episodes"][0]["id"] = d["facts"][0]["id"]

    def cycle(d, ids):
        a, b = ids[0].id, ids[1].id
        for f in d["facts"]:
            if f["id"] == a:
                f.update(supersedes=b)
            if f["id"] == b:
                f.update(superseded_by=a)

    def self_loop(d, ids):
        f = next(f for f in d["facts"] if f["id"] == ids[1].id)
        f.update(supersedes=f["id"])

    def half_link(d, ids):
        f = next(f for f in d["facts"] if f["id"] == ids[0].id)
        f.update(superseded_by=None)  # b still claims to supersede a, a is 'superseded' by none

    def two_heads(d, ids):
        a = next(f for f in d["facts"] if f["id"] == ids[0].id)
        a.update(state="active", superseded_by=None, superseded_at=None, valid_to=None)

    def dup_audit(d, ids):
        d["audit"].append(dict(d["audit"][0], action="write_fact"))

    def chains_lie(d, ids):
        d["chains"] = [[ids[1].id, ids[0].id]]

    def dup_tombstone(d, ids):
        d["tombstones"].append(dict(d["tombstones"][0]))

    def active_with_successor(d, ids):
        f = next(f for f in d["facts"] if f["id"] == ids[0].id)
        f.update(state="active")

    return [user_changed, other_owner, dup_fact, dup_identical, dup_across_kinds, cycle,
            self_loop, half_link, two_heads, dup_audit, chains_lie, dup_tombstone,
            active_with_successor]


@pytest.mark.parametrize("mutate", _mutations(), ids=lambda m: m.__name__)
def test_inv124_import_of_a_tampered_export_is_refused_whole_with_a_clear_message(env, mutate):
    """Duplicate ids used to fail deep in the store ("already exists") or load silently (an
    identical twin); a loop, a one-sided link, two heads or a chains list that lies loaded as
    written. Each is now one ValidationError naming the fault, and nothing is written."""
    svc, db, advance = env
    data, ids = _tampered(svc, advance)
    mutate(data, ids)
    before = dump(db)
    with pytest.raises(ValidationError) as err:
        import_user(svc, parse(json.dumps(data)), actor="cli")
    assert "refused" in str(err.value) or "invalid export" in str(err.value), str(err.value)
    assert dump(db) == before


def test_inv124_import_cannot_take_over_another_users_tombstone_or_audit_ids(env):
    """A file whose tombstone or audit ids are another user's: refused, and that user's rows
    are untouched (the store ignored a second insert of an id, so the import reported the
    tombstone restored and the event kept while neither was written)."""
    svc, db, advance = env
    bobfact = svc.write_fact("bob", "Likes jazz").fact
    svc.retract("bob", bobfact.id)
    (btomb,) = svc.store.list_tombstones("bob")
    bob_event = svc.audit("bob")[0]
    data, _ = _tampered(svc, advance)
    for field, other in (("tombstones", btomb.id), ("audit", bob_event.id)):
        bad = json.loads(json.dumps(data))
        bad[field][0]["id"] = other
        before = dump(db)
        with pytest.raises(ConflictError, match="another user"):
            import_user(svc, parse(json.dumps(bad)), actor="cli")
        assert dump(db) == before
    res = import_user(svc, parse(json.dumps(data)), actor="cli")  # the genuine file loads
    assert res.tombstones_kept and svc.store.list_tombstones("bob") == [btomb]


def test_inv124_a_link_to_a_forgotten_version_is_not_tampering(env):
    """Forgetting one version of a chain leaves its neighbours pointing at it: that export
    still imports (the check refuses only what no history can produce)."""
    svc, db, advance = env
    a, b, c, cand = _rich(svc, advance)
    svc.forget("ana", a.id, actor="cli")
    data = to_json(export_user(svc, "ana", actor="cli"))
    assert json.loads(data)["facts"][0]["supersedes"] == a.id
    erase_user(svc, "ana", actor="cli")
    import_user(svc, parse(data), actor="cli")
    assert svc.get_fact("ana", b.id).supersedes == a.id


# === 4. review queue ==========================================================================
def _contradiction(svc):
    old = svc.write_fact("ana", "Lives in Bristol").fact
    cand = propose(svc, "ana", "Lives in Leeds", supersedes_id=old.id, actor="cli")
    return old, cand


@pytest.mark.parametrize("change", ["superseded", "forgotten", "retracted"])
@pytest.mark.parametrize("decision", ["accept", "approve", "edit"])
def test_inv47_an_item_whose_old_fact_moved_on_neither_resurrects_nor_double_applies(
        env, change, decision):
    svc, db, advance = env
    old, cand = _contradiction(svc)
    advance(minutes=1)
    if change == "superseded":
        svc.write_fact("ana", "Lives in York", supersedes_id=old.id)
    elif change == "forgotten":
        svc.forget("ana", old.id, actor="cli")
    else:
        svc.retract("ana", old.id, reason="never")
    before = dump(db)
    with pytest.raises((ChainError, StaleItemError)):
        decide(svc, "ana", cand.id, decision, operator="rita", expected_rev=cand.rev,
               text="Lives in Leeds city")
    assert dump(db) == before
    # Keep-both still works: the candidate stands alone, the old fact stays as it is.
    res = decide(svc, "ana", cand.id, "keep-both", operator="rita", expected_rev=cand.rev)
    assert res.fact.state == FactState.ACTIVE and res.fact.supersedes is None
    after = {f.id: f.state for f in svc.facts("ana")}
    want = {"superseded": FactState.SUPERSEDED, "retracted": FactState.RETRACTED}
    assert after.get(old.id) == want.get(change)
    assert [f.text for f in svc.facts("ana", states=[FactState.ACTIVE])].count("Lives in York") \
        == (1 if change == "superseded" else 0)


def test_inv44_a_rejected_item_whose_old_fact_was_forgotten_still_rejects(env):
    svc, db, advance = env
    old, cand = _contradiction(svc)
    svc.forget("ana", old.id, actor="cli")
    res = decide(svc, "ana", cand.id, "reject", operator="rita", expected_rev=cand.rev,
                 reason="no")
    assert res.fact.state == FactState.REJECTED
    assert svc.store.get(res.fact.kind, "ana", old.id) is None


def test_inv42_bulk_is_per_item_and_says_which_failed(env):
    """decide_many is documented per item: the stale one fails with its reason, the rest land,
    each in its own batch; a second run changes nothing."""
    svc, db, advance = env
    old, contra = _contradiction(svc)
    ok1 = propose(svc, "ana", "Plays chess", actor="cli")
    ok2 = propose(svc, "ana", "Likes jazz", actor="cli")
    svc.write_fact("ana", "Lives in York", supersedes_id=old.id)
    sel = [("ana", ok1.id, ok1.rev), ("ana", contra.id, contra.rev), ("ana", ok2.id, ok1.rev),
           ("bob", ok2.id, ok2.rev)]
    out = decide_many(svc, sel, "approve", operator="rita", contradictions=True)
    assert [o.ok for o in out] == [True, False, True, False]
    assert "ChainError" in out[1].error and out[3].exit_code == 3
    assert svc.get_fact("ana", contra.id).state == FactState.CANDIDATE
    again = decide_many(svc, sel, "approve", operator="rita", contradictions=True)
    assert [o.ok for o in again] == [False, False, False, False]
    assert len([e for e in svc.audit("ana") if e.action == "review_approve"]) == 2


def test_inv44_review_undo_after_a_later_write_on_the_same_fact_is_refused(env):
    from review.undo import undo_last
    svc, db, advance = env
    old, cand = _contradiction(svc)
    decide(svc, "ana", cand.id, "accept", operator="rita", expected_rev=cand.rev)
    advance(minutes=1)
    svc.write_fact("ana", "Lives in York", supersedes_id=cand.id)
    before = dump(db)
    with pytest.raises((ConflictError, ChainError)):
        undo_last(svc, "ana", operator="rita")
    assert dump(db) == before


def test_inv124_every_history_the_desk_can_make_still_round_trips(env):
    """The history check must not refuse what the product itself writes: a pending
    contradiction (the candidate names the old fact, the old one names no successor yet), a
    rejected one, keep-both, a harsh accept, an undone decision and an undone plan."""
    from review.undo import undo_last
    svc, db, advance = env
    pending = svc.write_fact("ana", "Lives in Bristol").fact
    propose(svc, "ana", "Lives in Leeds", supersedes_id=pending.id, actor="cli")
    tea = svc.write_fact("ana", "Likes green tea").fact
    rej = propose(svc, "ana", "Likes black tea", supersedes_id=tea.id, actor="cli")
    decide(svc, "ana", rej.id, "reject", operator="rita", expected_rev=rej.rev, reason="no")
    job = svc.write_fact("ana", "Works at Acme").fact
    both = propose(svc, "ana", "Works at Globex", supersedes_id=job.id, actor="cli")
    decide(svc, "ana", both.id, "keep-both", operator="rita", expected_rev=both.rev)
    born = svc.write_fact("ana", "Born in Paris").fact
    harsh = propose(svc, "ana", "Born in Lyon", supersedes_id=born.id, contradiction="harsh",
                    actor="cli")
    decide(svc, "ana", harsh.id, "accept", operator="sam", expected_rev=harsh.rev)
    car = svc.write_fact("ana", "Drives a Fiesta").fact
    undone = propose(svc, "ana", "Drives a Golf", supersedes_id=car.id, actor="cli")
    decide(svc, "ana", undone.id, "accept", operator="rita", expected_rev=undone.rev)
    undo_last(svc, "ana", operator="rita")
    advance(minutes=1)
    svc.write_episode("ana", "I moved to York last month", timestamp="2025-05-30")
    plan = make_plan(svc, "ana", offline())
    apply_plan(svc, plan)
    undo_plan(svc, "ana", plan.id)
    facts = sorted((f.model_dump() for f in svc.facts("ana")), key=lambda d: d["id"])
    raw = to_json(export_user(svc, "ana", actor="cli"))
    erase_user(svc, "ana", actor="cli")
    import_user(svc, parse(raw), actor="cli")
    assert sorted((f.model_dump() for f in svc.facts("ana")), key=lambda d: d["id"]) == facts


def test_inv5_inv10_two_writers_superseding_one_head_never_fork_the_chain(tmp_path,
                                                                       hash_embedder):
    """Invariants 5 and 10 across two connections: both read the same head, the second write
    lands after the first; it is a conflict, and the chain keeps one successor."""
    db = tmp_path / "s.db"
    s1 = open_store(f"embedded:{db}", hash_embedder)
    s2 = open_store(f"embedded:{db}", hash_embedder)
    try:
        a = MemoryService(s1, clock=fixed_clock(NOW))
        b = MemoryService(s2, clock=fixed_clock(NOW))
        old = a.write_fact("ana", "Lives in Bristol").fact
        real = s2.apply

        def racing(ops):
            s2.apply = real
            a.write_fact("ana", "Lives in Leeds", supersedes_id=old.id)
            return real(ops)
        s2.apply = racing
        with pytest.raises((ConflictError, ChainError)):
            b.write_fact("ana", "Lives in York", supersedes_id=old.id)
        chain = a.chain("ana", old.id) if hasattr(a, "chain") else None
        heads = [f.text for f in a.facts("ana", states=[FactState.ACTIVE])]
        assert heads == ["Lives in Leeds"], chain
        assert len([e for e in a.audit("ana") if e.action == "supersede"]) == 1
    finally:
        s1.close()
        s2.close()


def test_inv5_inv47_two_contradictions_of_one_fact_only_the_first_accept_lands(env):
    svc, db, advance = env
    old = svc.write_fact("ana", "Lives in Bristol").fact
    c1 = propose(svc, "ana", "Lives in Leeds", supersedes_id=old.id, actor="cli")
    c2 = propose(svc, "ana", "Lives in York", supersedes_id=old.id, actor="cli")
    decide(svc, "ana", c1.id, "accept", operator="rita", expected_rev=c1.rev)
    before = dump(db)
    with pytest.raises(ChainError, match="not the head"):
        decide(svc, "ana", c2.id, "accept", operator="sam", expected_rev=c2.rev)
    assert dump(db) == before
    assert svc.get_fact("ana", old.id).superseded_by == c1.id


def test_inv184_both_clocks_answer_with_the_version_as_believed_then(env):
    """'What did we believe in March about August?' used to answer nothing: the valid-time
    check read Bristol's interval as closed by the June correction, which March knew nothing
    of; and a fact retracted later was 'never true' even as believed before its retraction."""
    from memory.ui.views import listing_rows
    now, advance = advancing_clock(datetime(2025, 1, 10, tzinfo=UTC))
    svc = MemoryService(env[0].store, clock=now)
    home = svc.write_fact("ana", "Lives in Bristol").fact
    dated = svc.write_fact("ana", "Works at Acme", valid_from="2024-01-01",
                           valid_to="2025-12-31").fact
    advance(days=151)  # 10 June
    svc.write_fact("ana", "Lives in Leeds", valid_from="2025-06-01", supersedes_id=home.id)
    svc.write_fact("ana", "Works at Globex", valid_from="2025-06-01", supersedes_id=dated.id)
    nuts = svc.write_fact("ana", "Allergic to nuts").fact
    advance(days=30)
    svc.retract("ana", nuts.id)

    def both(rec, val):
        return sorted(f.text for f in svc.facts("ana", as_of_recorded=rec, as_of_valid=val))
    # March's belief about August: Bristol (open-ended then); Acme's own end date stays.
    assert both("2025-03-01", "2025-08-01") == ["Lives in Bristol", "Works at Acme"]
    assert both("2025-03-01", "2026-01-01") == ["Lives in Bristol"]
    # Today's belief about August: the corrections.
    assert both(NOW + timedelta(days=400), "2025-08-01") == ["Lives in Leeds", "Works at Globex"]
    # Believed on 20 June, before the retraction: the nut allergy held on 15 June.
    assert "Allergic to nuts" in both("2025-06-20", "2025-06-15")
    assert "Allergic to nuts" not in both("2025-07-20", "2025-06-15")
    # Each clock alone is unchanged (invariants 13, 14).
    assert sorted(f.text for f in svc.facts("ana", as_of_valid="2025-08-01")) == \
        ["Lives in Leeds", "Works at Globex"]
    # The desk's listing asks the same question the same way.
    rows = listing_rows(svc, "ana", states=None, fact_type=None,
                        valid_at=datetime(2025, 8, 1, tzinfo=UTC),
                        recorded_at=datetime(2025, 3, 1, tzinfo=UTC))
    assert sorted(r["text"] for r in rows) == ["Lives in Bristol", "Works at Acme"]


def test_inv4_inv184_a_successor_starting_before_the_old_end_cuts_it(env):
    """'Works at Acme until end of 2025', then 'Works at Globex since June': both used to be
    true in August (the old end was kept); the old version now ends where the new starts."""
    svc, _, advance = env
    acme = svc.write_fact("ana", "Works at Acme", valid_from="2024-01-01",
                          valid_to="2025-12-31").fact
    advance(minutes=1)
    svc.write_fact("ana", "Works at Globex", valid_from="2025-06-01", supersedes_id=acme.id)
    assert [f.text for f in svc.facts("ana", as_of_valid="2025-08-01")] == ["Works at Globex"]
    assert [f.text for f in svc.facts("ana", as_of_valid="2025-05-31")] == ["Works at Acme"]
    assert svc.get_fact("ana", acme.id).valid_to == datetime(2025, 6, 1, tzinfo=UTC)
    # An old end before the new start is kept (a gap, not an overlap).
    gym = svc.write_fact("ana", "Member of Gym A", valid_from="2024-01-01",
                         valid_to="2024-06-01").fact
    svc.write_fact("ana", "Member of Gym B", valid_from="2025-01-01", supersedes_id=gym.id)
    assert svc.get_fact("ana", gym.id).valid_to == datetime(2024, 6, 1, tzinfo=UTC)
