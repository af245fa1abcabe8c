"""Stress scenarios on real throwaway stores: each can pass, and each can fail with a reason."""

from __future__ import annotations

import json

import pytest

from memory.cli import main
from memory.eval import stress
from memory.eval.stress import SCENARIOS, run_scenario, run_stress

PASSING = ["supersede_then_recall", "chain_of_three", "rejection_then_reextraction", "isolation",
           "concurrent_writers_and_readers", "crash_mid_batch"]


@pytest.mark.parametrize("name", PASSING)
def test_inv58_scenario_passes_with_a_reason(name, hash_embedder):
    """Invariant 58: every scenario reports pass/fail with a reason."""
    result = run_scenario(name, hash_embedder)
    assert result.passed, result.reason
    assert result.reason


def test_retraction_scenario_passes_when_every_restatement_is_refused(service):
    surface = ("allergic to peanuts!", "ALLERGIC TO PEANUTS.", "Allergic  to  peanuts")
    reason, details = stress.retraction_restatements(service, surface)
    assert details["refused"] == 3 and "refused" in reason


def test_retraction_scenario_names_each_resurrection(service):
    """A restatement the tombstone gate misses is a resurrection, and the scenario says which."""
    with pytest.raises(stress.Outcome, match="1 of 2 restatements resurrected.*Peanuts make her ill"):
        stress.retraction_restatements(service, ("ALLERGIC TO PEANUTS.", "Peanuts make her ill"))


def test_inv58_crash_mid_batch_leaves_nothing(hash_embedder):
    """Invariant 58: a process killed inside store.apply leaves no part of the batch."""
    result = run_scenario("crash_mid_batch", hash_embedder)
    assert result.passed, result.reason


def test_an_unexpected_error_fails_the_scenario(hash_embedder, monkeypatch):
    def broken(svc):
        raise RuntimeError("boom")

    monkeypatch.setitem(SCENARIOS, "broken", broken)
    result = run_scenario("broken", hash_embedder)
    assert not result.passed and "RuntimeError: boom" in result.reason
    assert not run_stress(hash_embedder, only=["isolation", "broken"]).passed


def test_inv58_cli_exit_code_follows_the_scenarios(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    out = tmp_path / "reports"
    assert main(["eval", "stress", "--scenario", "isolation", "--scenario", "chain_of_three",
                 "--out", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["passed"] is True
    rc = main(["eval", "stress", "--scenario", "retraction_restatements", "--out", str(out), "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert rc == (0 if payload["passed"] else 1)
    assert main(["eval", "stress", "--scenario", "nope"]) == 2
