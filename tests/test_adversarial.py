"""Held-out style probes through every entry point (Python API, agent tools, review, import,
consolidation): each test here failed before the fix it names. Real embedded stores, the real
offline model; only the paid LLM is ever replaced."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from memory.clock import fixed_clock
from memory.errors import MemdeskError, ScopeError, ValidationError
from memory.models import FactState
from memory.service import MemoryService
from memory.stores import open_store
from memory.tools import ToolContext, execute
from review.decisions import decide
from review.propose import propose
from tests.conftest import NOW, advancing_clock

SURROGATE = "\udcff"  # what Python makes of a non-UTF-8 argv byte; also a broken "\ud800" escape


def _rows(store) -> tuple:
    return tuple(len(store.audit(u, limit=10_000)) for u in ("ana", "bob"))


# --- invariant 11: text is valid Unicode text, or one clear error ----------------------------
@pytest.mark.parametrize("bad", [SURROGATE, "a\ud800b", b"Likes tea", 12345, ["Likes tea"]])
def test_inv11_every_text_input_refuses_what_is_not_text(service, bad):
    """A lone surrogate used to crash at the store (UnicodeEncodeError, the CLI's "internal
    error"); bytes, numbers and lists used to be stored as their repr ("b'Likes tea'")."""
    ep = service.write_episode("ana", "hello there")
    cand = propose(service, "ana", "Plays chess", actor="cli")
    before = _rows(service.store)
    calls = [
        lambda: service.write_episode("ana", bad),
        lambda: service.write_episode("ana", "hi", session_id=bad),
        lambda: service.write_episode(bad, "hi"),
        lambda: service.write_fact("ana", bad),
        lambda: service.write_fact("ana", "Likes tea", reason=bad),
        lambda: service.write_fact("ana", "Likes tea", supersedes_id=bad),
        lambda: service.write_fact("ana", "Likes tea", source_episode_ids=[bad]),
        lambda: service.write_fact("ana", "Likes tea", actor=bad),
        lambda: service.recall("ana", bad),
        lambda: service.recall(bad, "tea"),
        lambda: service.write_playbook("ana", bad, "t", ["s"]),
        lambda: service.write_playbook("ana", "n", "t", [bad]),
        lambda: service.forget("ana", bad),
        lambda: service.forget("ana", ep.id, reason=bad),
        lambda: service.retract("ana", bad),
        lambda: service.audit("ana", action=bad),
        lambda: decide(service, "ana", cand.id, "edit", operator="rita", expected_rev=None,
                       text=bad),
        lambda: decide(service, "ana", cand.id, "reject", operator="rita", expected_rev=None,
                       reason=bad),
        lambda: decide(service, "ana", cand.id, "approve", operator=bad, expected_rev=None),
    ]
    for call in calls:
        with pytest.raises(ValidationError):  # ScopeError is one too (user ids)
            call()
    assert _rows(service.store) == before  # nothing written, not even a denial
    assert service.get_fact("ana", cand.id).state == FactState.CANDIDATE


def test_inv11_a_user_id_that_is_not_text_is_a_scope_error(service):
    for bad in (SURROGATE, b"ana", 7, ["ana"]):
        with pytest.raises(ScopeError):
            service.recall(bad, "tea")


def test_inv11_tool_arguments_with_a_broken_escape_are_an_error_for_the_model(service):
    """JSON from a model (or an MCP client) can hold "\\ud800": a tool call answers with an
    error instead of raising out of `execute` (it used to crash on supersedes_id)."""
    fact = service.write_fact("ana", "Lives in Rome").fact
    ctx = ToolContext(service=service, user_id="ana", user_message="please forget it")
    ctx.recalled_ids.add(fact.id)
    for name, args in [("write_memory", {"text": "Lives in Oslo", "supersedes_id": "\ud800"}),
                       ("write_memory", {"kind": "retraction", "supersedes_id": "\ud800"}),
                       ("forget_memory", {"memory_id": "\ud800"}),
                       ("recall_memory", {"query": "\ud800"})]:
        result = execute(ctx, name, args)
        assert not result.ok and result.error, (name, args)
    assert service.get_fact("ana", fact.id).state == FactState.ACTIVE


# --- invariant 11: a playbook is held to the same size as any text ------------------------------
def test_inv11_a_playbook_of_many_small_steps_is_refused_whole(service):
    with pytest.raises(ValidationError, match="32 KB"):
        service.write_playbook("ana", "n", "t", ["step " + "x" * 2000] * 20)
    with pytest.raises(ValidationError, match="steps"):
        service.write_playbook("ana", "n", "t", ["s"] * 1000)
    ctx = ToolContext(service=service, user_id="ana")
    res = execute(ctx, "write_memory", {"kind": "playbook", "name": "n", "trigger": "t",
                                        "steps": ["s"] * 1000, "confidence": 0.9})
    assert not res.ok and "steps" in (res.error or "")
    assert service.playbooks("ana") == []


# --- invariant 11/69: dates ------------------------------------------------------------------------
def test_inv69_an_aware_datetime_before_year_1_utc_is_a_clear_error(service):
    """datetime(1, 1, 1, tzinfo=+05:00) used to raise OverflowError from the Python API."""
    early = datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5)))
    late = datetime(9999, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-5)))
    for when in (early, late):
        with pytest.raises(ValidationError, match="out of range"):
            service.write_episode("ana", "hi", timestamp=when)
        with pytest.raises(ValidationError, match="out of range"):
            service.write_fact("ana", "Likes tea", valid_from=when)
        with pytest.raises(ValidationError, match="out of range"):
            service.facts("ana", as_of_valid=when)
    with pytest.raises(ValidationError, match="day is out of range for month"):
        service.write_fact("ana", "Likes tea", valid_from="2026-02-30")
    with pytest.raises(ValidationError, match="expected an ISO date"):
        service.write_fact("ana", "Likes tea", valid_from=20250101)
    assert service.facts("ana") == []


def test_inv69_extreme_but_valid_dates_run_through_recall_and_consolidation(tmp_path,
                                                                           hash_embedder):
    from memory.consolidation.apply import apply_plan
    from memory.consolidation.planner import make_plan
    from memory.llm import get_llm
    from memory.settings import Settings

    for when in ("9999-12-31T23:59:59Z", "0001-01-01"):
        store = open_store(f"embedded:{tmp_path / (when[:4] + '.db')}", hash_embedder)
        svc = MemoryService(store, clock=fixed_clock(NOW))
        try:
            svc.write_episode("ana", "I live in Leeds now", timestamp=when)
            svc.write_fact("ana", "Likes tea", valid_from=when)
            svc.recall("ana", "where did I live in June?")
            apply_plan(svc, make_plan(svc, "ana", get_llm(Settings(), "offline")))
        except MemdeskError as exc:  # a clear error would do; a crash would not
            pytest.fail(f"{when}: {exc}")
        finally:
            store.close()





# --- invariant 176: a forgotten dead value stays dead in other words -----------------------------
PARAPHRASES = [("Lives in Bristol", ["Lives in Bristol", "lives in BRISTOL!", "Lives in Bristól",
                                     "Lives in Bri\u200bstol", "Lives in Bri\u00adstol",
                                     "I live in Bristol", "Based in Bristol"], ["Lives in Leeds"]),
               ("Allergic to peanuts", ["Peanut allergy", "Allergic to peanut"],
                ["Allergic to shellfish", "Not allergic to peanuts"])]


@pytest.mark.parametrize(("dead", "same", "different"), PARAPHRASES)
def test_inv176_a_forgotten_retracted_value_refuses_its_paraphrases(service, dead, same,
                                                                   different):
    """Forgetting a retracted fact used to leave only a hash of the exact normalised value:
    "I live in Bristol" or "Peanut allergy" then came back as active facts."""
    from memory.errors import TombstoneError

    fact = service.write_fact("ana", dead).fact
    service.retract("ana", fact.id, reason="never true")
    service.forget("ana", fact.id, actor="cli")
    (tomb,) = service.store.list_tombstones("ana")
    assert tomb.forgotten and tomb.text == "" and tomb.claim_key.startswith("hmac-sha256:")
    for text in same:
        with pytest.raises(TombstoneError, match="a forgotten value"):
            service.write_fact("ana", text)
        cand = propose(service, "ana", text, actor="cli")  # review holds it, flagged
        assert cand.state == FactState.CANDIDATE and "previously_rejected" in cand.flags
        with pytest.raises(TombstoneError):
            decide(service, "ana", cand.id, "approve", operator="rita", expected_rev=cand.rev)
    for text in different:  # a different value is never refused
        assert service.write_fact("ana", text).fact.state == FactState.ACTIVE
    assert not [f for f in service.facts("ana", states=[FactState.ACTIVE]) if f.text in same]


def test_inv176_an_erased_users_values_stay_dead_in_other_words(service):
    from memory.errors import TombstoneError
    from memory.forgetting import erase_user

    fact = service.write_fact("ana", "Works at Acme").fact
    service.retract("ana", fact.id)
    erase_user(service, "ana", actor="cli")
    with pytest.raises(TombstoneError):
        service.write_fact("ana", "Employed by Acme")
    assert service.write_fact("ana", "Works at Globex").fact.state == FactState.ACTIVE


# --- invariant 177: a forgotten value is not planned again from what was said before ------------
def test_inv177_consolidation_does_not_bring_back_a_value_the_agent_forgot(tmp_path, hash_embedder):
    """Agent turn "I live in Bristol", then "Please forget that I live in Bristol": the fact was
    forgotten, and the next consolidation used to plan "Lives in Bristol" active again from the
    first message. Only a message stored after the forget brings the value back."""
    from memory.agent import run_turn
    from memory.consolidation.apply import apply_plan
    from memory.consolidation.planner import make_plan
    from memory.llm import get_llm
    from memory.settings import Settings

    now, advance = advancing_clock(NOW)
    store = open_store(f"embedded:{tmp_path / 's.db'}", hash_embedder)
    svc = MemoryService(store, clock=now)
    llm = get_llm(Settings(), "offline")
    try:
        first = run_turn(svc, "ana", "s1", "I live in Bristol", llm=llm)
        assert [w.text for w in first.writes()] == ["Lives in Bristol"]
        advance(minutes=5)
        forget = run_turn(svc, "ana", "s1", "Please forget that I live in Bristol", llm=llm)
        assert [w.op for w in forget.writes()] == ["forget"] and svc.facts("ana") == []
        event = next(e for e in svc.audit("ana", action="forget")
                     if e.target_ids == [first.writes()[0].memory_id])
        assert event.after["value_keys"] and "Bristol" not in str(event.after)
        # Invariant 75: both messages went with it, so nothing is left to re-extract ...
        assert svc.episodes("ana") == []
        # ... and a message that stayed (a forget outside chat keeps its sources) is gated.
        advance(minutes=5)
        ep = svc.write_episode("ana", "I live in Bristol", session_id="s0")
        kept = svc.write_fact("ana", "Lives in Bristol", fact_type="identity",
                              source_episode_ids=[ep.id]).fact
        advance(minutes=5)
        svc.forget("ana", kept.id)
        advance(minutes=5)
        plan = make_plan(svc, "ana", llm)
        assert [o for o in plan.ops if o.gate == "forgotten"]
        apply_plan(svc, plan)
        assert [f.text for f in svc.facts("ana")] == []  # not resurrected
        advance(days=1)
        svc.write_episode("ana", "I live in Bristol", session_id="s2")  # said again
        advance(minutes=1)
        apply_plan(svc, make_plan(svc, "ana", llm))
        assert [f.text for f in svc.facts("ana", states=[FactState.ACTIVE])] == ["Lives in Bristol"]
    finally:
        store.close()


def test_inv177_a_paraphrase_from_an_old_message_stays_forgotten_too(tmp_path, hash_embedder):
    from memory.consolidation.apply import apply_plan
    from memory.consolidation.planner import make_plan
    from memory.llm import get_llm
    from memory.settings import Settings

    now, advance = advancing_clock(NOW)
    store = open_store(f"embedded:{tmp_path / 's.db'}", hash_embedder)
    svc = MemoryService(store, clock=now)
    try:
        ep = svc.write_episode("ana", "I live in Bristol now", timestamp="2025-05-01")
        fact = svc.write_fact("ana", "Based in Bristol", source_episode_ids=[ep.id]).fact
        advance(hours=1)
        svc.forget("ana", fact.id, actor="cli")
        advance(hours=1)
        apply_plan(svc, make_plan(svc, "ana", get_llm(Settings(), "offline")))
        assert svc.facts("ana") == []
    finally:
        store.close()


# --- invariant 178: an import file cannot bring back a dead value --------------------------------
def test_inv178_an_edited_export_cannot_resurrect_an_erased_users_dead_value(service):
    """Export, erase, edit the file (the retracted fact made active, or a paraphrase added),
    import: the edited file used to load "Lives in Bristol" as an active fact past the keyed
    hash the erase kept. It is refused whole and audited; the genuine file still loads."""
    import json

    from memory.errors import TombstoneError
    from memory.export import export_user, import_user, parse, to_json
    from memory.forgetting import erase_user

    keep = service.write_fact("ana", "Likes green tea").fact
    dead = service.write_fact("ana", "Lives in Bristol").fact
    service.retract("ana", dead.id, reason="never lived there")
    genuine = to_json(export_user(service, "ana", actor="cli"))
    erase_user(service, "ana", actor="cli")
    for text in ("Lives in Bristol", "Based in Bristol"):
        data = json.loads(genuine)
        for f in data["facts"]:
            if f["id"] == dead.id:
                f.update(state="active", text=text)
        data["tombstones"] = []
        with pytest.raises(TombstoneError):
            import_user(service, parse(json.dumps(data)), actor="cli")
        assert service.facts("ana") == []  # refused whole
    refused = service.audit("ana", action="write_refused")
    assert len(refused) == 2 and all("Bristol" not in str(e.after) for e in refused)
    import_user(service, parse(genuine), actor="cli")
    got = {f.id: f.state for f in service.facts("ana")}
    assert got == {keep.id: FactState.ACTIVE, dead.id: FactState.RETRACTED}


# --- invariant 66: a note about a forgotten memory loses the forgotten words ---------------------
def test_inv66_reasons_and_comments_about_a_forgotten_fact_lose_its_words(tmp_path,
                                                                          hash_embedder):
    """A rejection's reason "no cat Qzxmarker" and comment "re QZXMARKER" quote a word of the
    forgotten fact, not its whole text: they used to survive the forget in the audit log and
    the tombstone (and so in exports and the file). Other words of the note stay."""
    import sqlite3

    from memory.export import export_user, to_json

    db = tmp_path / "s.db"
    store = open_store(f"embedded:{db}", hash_embedder)
    svc = MemoryService(store, clock=fixed_clock(NOW))
    marker = "Qzxmarker"
    cand = propose(svc, "ana", f"Has a cat named {marker}", actor="cli")
    decide(svc, "ana", cand.id, "reject", operator="rita", expected_rev=cand.rev,
           reason=f"no cat {marker}, checked", comment=f"re {marker.upper()}")
    keep = svc.write_fact("ana", "Likes green tea", reason=f"unrelated {marker} note").fact
    svc.forget("ana", cand.id, actor="cli")
    exported = to_json(export_user(svc, "ana", actor="cli"))
    store.close()
    con = sqlite3.connect(db)
    rows = [r for t in ("audit", "tombstones") for r in con.execute(f"SELECT body FROM {t}")]
    con.close()
    (reject,) = [json.loads(r[0]) for r in rows if '"review_reject"' in r[0]]
    assert reject["reason"] == "no [forgotten] [forgotten], checked" and reject["comment"] == "re [forgotten]"
    # An event about another memory keeps its own words (it is not about the forgotten one).
    assert any(f"unrelated {marker} note" in r[0] and keep.id in r[0] for r in rows)
    assert marker.lower() not in exported.replace(f"unrelated {marker} note", "").lower()
    assert not [r for r in rows if marker.lower() in r[0].lower() and keep.id not in r[0]]


def test_inv66_undo_over_a_forgotten_snapshot_is_a_clear_conflict(tmp_path, hash_embedder):
    """Forgetting a memory whose text equals a snapshot an undo would restore (an episode
    "Lives in Bristol" beside the superseded fact) stubs that snapshot; undoing the plan or the
    review decision used to crash with a pydantic error. It is a conflict; nothing changes."""
    from memory.consolidation.apply import apply_plan, undo_plan
    from memory.consolidation.planner import make_plan
    from memory.errors import ConflictError
    from memory.llm import get_llm
    from memory.settings import Settings
    from review.undo import undo_last

    now, advance = advancing_clock(NOW)
    store = open_store(f"embedded:{tmp_path / 's.db'}", hash_embedder)
    svc = MemoryService(store, clock=now)
    try:
        svc.write_fact("ana", "Lives in Bristol")
        advance(minutes=1)
        svc.write_episode("ana", "I moved to Leeds last month", timestamp="2025-05-30")
        advance(minutes=1)
        plan = make_plan(svc, "ana", get_llm(Settings(), "offline"))
        assert [o.kind.value for o in plan.ops] == ["supersede"]
        apply_plan(svc, plan)
        tea = svc.write_fact("ana", "Likes green tea").fact
        cand = propose(svc, "ana", "Likes black tea", supersedes_id=tea.id, actor="cli")
        decide(svc, "ana", cand.id, "accept", operator="rita", expected_rev=cand.rev)
        for text in ("Lives in Bristol", "Likes black tea"):
            svc.forget("ana", svc.write_episode("ana", text).id, actor="cli")
        before = {f.id: (f.state, f.rev) for f in svc.facts("ana")}
        with pytest.raises(ConflictError, match="forgotten"):
            undo_plan(svc, "ana", plan.id)
        with pytest.raises(ConflictError, match="forgotten"):
            undo_last(svc, "ana", operator="rita")
        assert {f.id: (f.state, f.rev) for f in svc.facts("ana")} == before
    finally:
        store.close()


# --- invariant 29: an unreachable MEMDESK_ES_URL --------------------------------------------------
@pytest.mark.process
def test_inv29_an_unreachable_es_url_stops_the_test_run_with_one_clear_line(tmp_path):
    """Every live Elasticsearch test used to error with a urllib3 traceback; the run now stops
    at once, exit 6 like the CLI, naming the URL without its password."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "MEMDESK_ES_URL": "http://elastic:hunter2@127.0.0.1:1",
           "PYTHONPATH": str(root)}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          str(root / "tests" / "test_inputs.py")], capture_output=True,
                         text=True, env=env, cwd=root, timeout=300, check=False)
    out = run.stdout + run.stderr
    assert run.returncode == 6, out
    assert "cannot reach Elasticsearch" in out and "***@127.0.0.1:1" in out
    assert "hunter2" not in out and "Traceback" not in out
    # The CLI says the same in one line, exit 6 (memory/cli, invariant 29).
    cli = subprocess.run([sys.executable, "-m", "memory", "users", "--store",
                          "elasticsearch:http://elastic:hunter2@127.0.0.1:1"],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
                         check=False)
    assert cli.returncode == 6 and cli.stdout == "" and cli.stderr.count("\n") == 1, cli.stderr
    assert "cannot reach Elasticsearch" in cli.stderr and "hunter2" not in cli.stderr
