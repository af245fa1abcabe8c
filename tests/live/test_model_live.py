"""Live model tests (`make test-llm`): the same turn and extraction against a real endpoint.

They run only with `--live-llm` and a configured endpoint, read from the environment before any
test hides it: ANTHROPIC_API_KEY (Claude; costs money) or MEMDESK_OPENAI_BASE_URL with
MEMDESK_OPENAI_MODEL (any OpenAI-compatible server). Otherwise each is skipped with the reason.
`make test` never passes --live-llm, so a key in the environment never spends money there.
"""

from __future__ import annotations

import os
from datetime import timedelta

import pytest

from memory.agent import run_turn
from memory.agents import get_agent
from memory.consolidation.planner import make_plan
from memory.llm import get_llm
from memory.settings import Settings
from tests.conftest import NOW

# Read at collection, before the autouse fixture removes the key from each test's environment.
ENDPOINTS = {
    "anthropic": {k: v for k in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
                                 "MEMDESK_ANTHROPIC_MODEL") if (v := os.environ.get(k))},
    "openai": {k: v for k in ("MEMDESK_OPENAI_BASE_URL", "MEMDESK_OPENAI_MODEL",
                              "OPENAI_API_KEY") if (v := os.environ.get(k))},
}
NEEDS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "MEMDESK_OPENAI_BASE_URL"}


@pytest.fixture(params=["anthropic", "openai"])
def live_llm(request):
    if not request.config.getoption("--live-llm"):
        pytest.skip("live model tests run with `make test-llm` (pytest --live-llm)")
    which = request.param
    if NEEDS[which] not in ENDPOINTS[which]:
        pytest.skip(f"{NEEDS[which]} is not set: no {which} endpoint to test against")
    return get_llm(Settings.from_env({"MEMDESK_LLM": which, **ENDPOINTS[which]}))


def test_a_live_turn_writes_the_fact_and_reports_usage(service, live_llm):
    t = run_turn(service, "ana", "s1", "Hi! I just moved to Lisbon, so that's home now.",
                 agent=get_agent(live_llm))
    assert t.error is None, t.error
    assert t.stop_reason in ("end_turn", "stop") and t.reply
    assert any("Lisbon" in (w.text or "") for w in t.writes())
    assert t.usage.calls >= 1 and t.usage.input_tokens + t.usage.cache_read_input_tokens > 0
    print(f"\n{t.mode}: {t.usage.model_dump()}")  # the figures a run costs


def test_a_live_extraction_fits_the_schema(service, live_llm):
    service.write_episodes("ana", [("I'm allergic to peanuts", NOW - timedelta(hours=1), "s1")])
    plan = make_plan(service, "ana", live_llm)
    assert any("peanut" in op.fact.text.lower() for op in plan.ops if op.fact is not None)
    assert plan.usage.structured in ("forced_tool", "json_schema")
    print(f"\n{plan.usage.model_dump()}")
