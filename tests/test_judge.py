"""A second opinion for the doubtful band (issue 29 item 6, invariant 440): the model's verdict
and one-line reason beside a review item's evidence, through the real SDKs over real HTTP; the
decision stays the operator's; offline there is no judge and the item says so."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from memory.clock import fixed_clock
from memory.llm.claude import AnthropicLLM
from memory.llm.judge import JUDGE_SYSTEM, JUDGE_TOOL, question_for, second_opinion
from memory.llm.offline import OfflineLLM
from memory.llm.openai_compat import OpenAICompatLLM
from memory.models import FactState
from memory.service import MemoryService
from memory.stores import open_store
from review.queue import show_item
from tests.conftest import NOW
from tests.llm_server import ScriptedServer, completion, message, tool_use


def restating_item(service):
    dead = service.write_fact("ana", "Lives in Bristol", actor="cli").fact
    tomb = service.retract("ana", dead.id, actor="cli", reason="never lived there")
    res = service.write_fact("ana", "Lives in Bishopston, Bristol", actor="agent")
    assert f"possibly_restates:{tomb.id}" in res.fact.flags
    return res.fact, tomb


def test_inv440_claude_gives_a_verdict_beside_the_evidence_and_decides_nothing(service):
    fact, tomb = restating_item(service)
    verdict = {"verdict": "restates", "reason": "Bishopston is a district of Bristol"}
    with ScriptedServer([message([tool_use("v", JUDGE_TOOL, verdict)])]) as server:
        llm = AnthropicLLM("claude-test", api_key="test", base_url=server.url)
        detail = show_item(service, "ana", fact.id)
        note = second_opinion(llm, detail)
        assert note.text == ("judge: restates 'Lives in Bristol' — Bishopston is a district of "
                             "Bristol")
        assert (note.verdict, note.about_id) == ("restates", tomb.id)
        assert second_opinion(llm, detail) == note  # asked once per item revision
        (body,) = server.posts
    assert body["tool_choice"] == {"type": "tool", "name": JUDGE_TOOL}
    assert body["system"][0] == {"type": "text", "text": JUDGE_SYSTEM,
                                 "cache_control": {"type": "ephemeral"}}
    asked = json.loads(body["messages"][0]["content"])
    assert asked["kind"] == "restates" and asked["candidate"] == "Lives in Bishopston, Bristol"
    assert asked["other"] == "Lives in Bristol"
    # advice only: the item still waits for a person
    assert service.get_fact("ana", fact.id).state == FactState.CANDIDATE


def test_inv440_a_local_model_judges_a_contradiction(service):
    old = service.write_fact("ana", "Works at Acme", fact_type="identity", actor="cli").fact
    from review.propose import propose

    cand = propose(service, "ana", "Works at Globex", fact_type="identity", supersedes_id=old.id)
    detail = show_item(service, "ana", cand.id)
    assert question_for(detail).kind == "contradicts"
    answer = json.dumps({"verdict": "contradicts", "reason": "one job replaces the other"})
    with ScriptedServer([completion(None, [("c", JUDGE_TOOL, answer)], finish="tool_calls")]) as s:
        llm = OpenAICompatLLM(f"{s.url}/v1", "local-model")
        note = second_opinion(llm, detail)
        assert s.posts[0]["tool_choice"] == {"type": "function",
                                             "function": {"name": JUDGE_TOOL}}
    assert note.text == "judge: contradicts 'Works at Acme' — one job replaces the other"


def test_inv440_offline_there_is_no_judge_and_the_item_says_so(service):
    fact, _ = restating_item(service)
    note = second_opinion(OfflineLLM(), show_item(service, "ana", fact.id))
    assert note.text.startswith("judge: none — no model is configured") and note.verdict is None
    plain = service.write_fact("ana", "Likes jazz", confidence=0.5, actor="agent").fact
    assert second_opinion(OfflineLLM(), show_item(service, "ana", plain.id)) is None
    # a model failure is said on the item and never blocks the review
    with ScriptedServer([]) as server:
        server.answers = [(401, {"type": "error", "error": {"type": "authentication_error",
                                                             "message": "bad key"}})]
        llm = AnthropicLLM("claude-test", api_key="k", base_url=server.url, max_retries=0)
        other = service.write_fact("ana", "Lives in Redland, Bristol", actor="agent").fact
        note = second_opinion(llm, show_item(service, "ana", other.id))
    assert note.text.startswith("judge: unavailable — the Anthropic API refused the credentials")


@pytest.mark.process
def test_inv440_review_show_prints_the_judge_line(tmp_path, hash_embedder):
    db = tmp_path / "judge.db"
    store = open_store(f"embedded:{db}", hash_embedder)
    fact, _ = restating_item(MemoryService(store, clock=fixed_clock(NOW)))
    store.close()
    env = {**os.environ, "MEMDESK_EMBEDDER": "hash", "MEMDESK_STORE": f"embedded:{db}",
           "MEMDESK_LLM": "offline"}
    for var in ("MEMDESK_ES_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        env.pop(var, None)

    def show(**extra):
        return subprocess.run([sys.executable, "-m", "memory", "review", "show", fact.id,
                               "--user", "ana"], capture_output=True, text=True,
                              env={**env, **extra}, timeout=120, check=False)

    res = show()
    assert res.returncode == 0, res.stderr
    assert "  judge: none — no model is configured" in res.stdout
    verdict = {"verdict": "restates", "reason": "Bishopston is in Bristol"}
    with ScriptedServer([message([tool_use("v", JUDGE_TOOL, verdict)])]) as server:
        res = show(MEMDESK_LLM="anthropic", ANTHROPIC_API_KEY="k", ANTHROPIC_BASE_URL=server.url,
                   MEMDESK_ANTHROPIC_MODEL="claude-test")
    assert res.returncode == 0, res.stderr
    assert "  judge: restates 'Lives in Bristol' — Bishopston is in Bristol" in res.stdout
