"""Held-out style probes through every entry point (Python API, agent tools, review, import,
consolidation): each test here failed before the fix it names. Real embedded stores, the real
offline model; only the paid LLM is ever replaced."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from memory.clock import fixed_clock
from memory.errors import MemdeskError, ScopeError, ValidationError
from memory.models import FactState
from memory.service import MemoryService
from memory.stores import open_store
from memory.tools import ToolContext, execute
from review.decisions import decide
from review.propose import propose
from tests.conftest import NOW

SURROGATE = "\udcff"  # what Python makes of a non-UTF-8 argv byte; also a broken "\ud800" escape


def _rows(store) -> tuple:
    return tuple(len(store.audit(u, limit=10_000)) for u in ("ana", "bob"))


# --- invariant 175: text is valid Unicode text, or one clear error ----------------------------
@pytest.mark.parametrize("bad", [SURROGATE, "a\ud800b", b"Likes tea", 12345, ["Likes tea"]])
def test_inv175_every_text_input_refuses_what_is_not_text(service, bad):
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


def test_inv175_a_user_id_that_is_not_text_is_a_scope_error(service):
    for bad in (SURROGATE, b"ana", 7, ["ana"]):
        with pytest.raises(ScopeError):
            service.recall(bad, "tea")


def test_inv175_tool_arguments_with_a_broken_escape_are_an_error_for_the_model(service):
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


def _clock(start: datetime):
    state = {"now": start}

    def now() -> datetime:
        return state["now"]

    def advance(**kw) -> None:
        state["now"] = state["now"] + timedelta(**kw)
    return now, advance


_ = UTC  # (kept for the probes below that build aware datetimes)
