"""MEMDESK_LLM=openai: the agent and the extraction on the official openai SDK over real HTTP to
a local server speaking the chat-completions API (issue 29, invariant 430)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import pytest

from memory.agent import run_turn
from memory.agents import get_agent
from memory.agents.openai_agent import MODE_NOTE, OpenAIAgent
from memory.consolidation.extract import EpisodeView, ExtractionInput
from memory.errors import ModelOutputError
from memory.llm import ModelAuthError, ModelUnavailableError, get_llm
from memory.llm.claude import TOOL_NAME
from memory.llm.openai_compat import OpenAICompatLLM
from memory.models import FactState
from memory.settings import Settings
from memory.tools import tool_definitions
from tests.llm_server import FAST_RETRY, ScriptedServer, completion, oai_error


@pytest.fixture
def local():
    """local(answers) -> (llm, server): MEMDESK_LLM=openai pointed at a local server."""
    servers: list[ScriptedServer] = []

    def make(answers, *, models=None, retries: int = 2, max_tokens: int = 4096, key: str = ""):
        server = ScriptedServer(answers, models=models).__enter__()
        servers.append(server)
        env = {"MEMDESK_LLM": "openai", "MEMDESK_OPENAI_BASE_URL": f"{server.url}/v1",
               "MEMDESK_OPENAI_MODEL": "local-model", "MEMDESK_OPENAI_MAX_RETRIES": str(retries),
               "MEMDESK_OPENAI_MAX_TOKENS": str(max_tokens)}
        if key:
            env["OPENAI_API_KEY"] = key
        llm = get_llm(Settings.from_env(env))
        assert isinstance(llm, OpenAICompatLLM)
        return llm, server

    yield make
    for s in servers:
        s.__exit__()


def args(**kw) -> str:
    return json.dumps(kw)


def test_inv430_a_whole_turn_with_parallel_calls_bound_to_the_session_user(service, local):
    old = service.write_fact("ana", "Lives in Bristol", fact_type="identity").fact
    bob = service.write_fact("bob", "Lives in Rome", fact_type="identity").fact
    step = completion(None, [("c1", "write_memory", args(text="Lives in Leeds",
                                                         fact_type="identity",
                                                         supersedes_id=old.id,
                                                         contradiction="natural",
                                                         user_id="bob")),
                             ("c2", "recall_memory", args(query="rome", user_id="bob"))],
                      finish="tool_calls", cached=64)
    llm, server = local([step, completion("Updated: you live in Leeds now.")])
    agent = get_agent(llm)
    assert isinstance(agent, OpenAIAgent)
    t = run_turn(service, "ana", "s1", "We moved to Leeds", agent=agent)
    assert t.error is None and t.reply == "Updated: you live in Leeds now."
    assert t.mode == "openai:local-model"
    assert service.get_fact("ana", old.id).state == FactState.SUPERSEDED
    assert [(f.text, f.state) for f in service.facts("bob")] == [("Lives in Rome",
                                                                  FactState.ACTIVE)]
    write, recall = t.tool_calls
    assert write.result.stripped == {"user_id": "bob"} and recall.result.stripped
    assert all(h.id != bob.id for h in recall.result.hits)
    first, second = server.posts
    assert first["model"] == "local-model" and first["max_tokens"] == 4096
    assert [d["function"]["name"] for d in first["tools"]] == [d["name"] for d in
                                                                tool_definitions()]
    assert first["messages"][0]["role"] == "system" and "Lives in Bristol" in \
        first["messages"][0]["content"]
    assert first["messages"][-2]["tool_calls"][0]["function"]["name"] == "recall_memory"
    tool_msgs = second["messages"][-2:]
    assert [m["tool_call_id"] for m in tool_msgs] == ["c1", "c2"]
    assert "scope is fixed" in json.loads(tool_msgs[0]["content"])["note"]
    model = [s for s in t.steps if s.kind == "model"]
    assert [s.stop_reason for s in model] == ["tool_calls", "stop"]
    assert all(MODE_NOTE in s.note for s in model)  # which mode ran, in the trace
    assert t.usage.cache_read_input_tokens == 64 and t.usage.input_tokens == 300
    # no key configured: the SDK sends the placeholder, never someone else's key
    assert server.requests[-1].headers["authorization"] == "Bearer no-key-needed"


def test_inv430_a_cut_off_call_and_bad_json_never_reach_a_tool(service, local):
    cut = completion(None, [("c1", "write_memory", '{"text": "Lives in')], finish="length")
    llm, server = local([cut], max_tokens=64)
    t = run_turn(service, "ana", "s1", "I live in Berlin", agent=get_agent(llm))
    assert t.cut_off and t.tool_calls == [] and service.facts("ana") == []
    assert "cut off at its limit of 64 tokens" in t.reply and "MEMDESK_OPENAI_MAX_TOKENS" in t.reply
    bad = completion(None, [("c1", "write_memory", "{not json")], finish="tool_calls")
    llm, server = local([bad, completion("Sorry.")])
    t = run_turn(service, "ana", "s2", "I live in Berlin", agent=get_agent(llm))
    (call,) = t.tool_calls
    assert not call.result.ok and "JSON object" in call.result.error
    assert service.facts("ana") == [] and t.reply == "Sorry."


def test_inv430_content_filter_ends_the_turn_with_an_error(service, local):
    llm, _ = local([completion("", finish="content_filter")])
    t = run_turn(service, "ana", "s1", "hello", agent=get_agent(llm))
    assert t.error.startswith("ModelStopped") and t.error_code == 8
    # a model without tool calling (Ollama's words) is told apart, with what to do
    llm, server = local([oai_error(400, "registry.ollama.ai/library/gemma:2b does not support "
                                        "tools")])
    t = run_turn(service, "ana", "s2", "hello", agent=get_agent(llm))
    assert "does not do tool calling" in t.error and "MEMDESK_OPENAI_MODEL" in t.error
    assert len(server.posts) == 1  # a 400 is not retried


def test_inv433_retries_by_the_sdk_are_on_the_trace(service, local):
    llm, server = local([oai_error(429, "slow down", FAST_RETRY), completion("Hi!")])
    t = run_turn(service, "ana", "s1", "hello", agent=get_agent(llm))
    (step,) = [s for s in t.steps if s.kind == "model"]
    assert [(a.n, a.status) for a in step.attempts] == [(1, 429), (2, 200)]
    assert t.usage.retries == 1 and t.reply == "Hi!"


def test_inv433_inv438_auth_and_a_missing_model_fail_before_storing(service, local):
    llm, server = local([], key="sk-wrong")
    server.models_answer = oai_error(401, "invalid api key")
    with pytest.raises(ModelAuthError, match="OPENAI_API_KEY.*not stored"):
        run_turn(service, "ana", "s1", "hello", agent=get_agent(llm))
    assert server.requests[0].headers["authorization"] == "Bearer sk-wrong"
    llm, _ = local([], models=["other-model"])
    with pytest.raises(ModelUnavailableError, match="does not serve model 'local-model'"):
        run_turn(service, "ana", "s1", "hello", agent=get_agent(llm))
    assert service.episodes("ana") == []


REQ = ExtractionInput(today=date(2025, 5, 14), episodes=[
    EpisodeView(id="ep0", text="I have a Lumio Hub v2",
                timestamp=datetime(2025, 5, 14, 10, tzinfo=UTC))])
GOOD = args(facts=[{"text": "Owns a Lumio Hub v2", "fact_type": "world", "confidence": 0.9,
                    "evidence": ["ep0"]}])
BAD = args(facts=[{"text": "x", "fact_type": "world", "confidence": 7, "evidence": ["ep0"]}])


def test_inv436_extraction_by_forced_function_retried_once(local):
    llm, server = local([completion(None, [("x1", TOOL_NAME, BAD)], finish="tool_calls"),
                         completion(None, [("x2", TOOL_NAME, GOOD)], finish="tool_calls")])
    out, usage = llm.extract(REQ)
    assert [f.text for f in out.facts] == ["Owns a Lumio Hub v2"]
    assert usage.structured == "forced_tool" and usage.invalid_replies == 1
    first, second = server.posts
    assert first["tool_choice"] == {"type": "function", "function": {"name": TOOL_NAME}}
    assert second["messages"][-1]["role"] == "tool" and \
        "malformed model output" in second["messages"][-1]["content"]


def test_inv436_a_server_without_forced_tools_gets_json_schema(local):
    llm, server = local([oai_error(400, "tool_choice is not supported"),
                         completion(GOOD)])
    out, usage = llm.extract(REQ)
    assert usage.structured == "json_schema" and out.facts[0].text == "Owns a Lumio Hub v2"
    assert server.posts[1]["response_format"]["type"] == "json_schema"
    assert "tools" not in server.posts[1]
    llm, _ = local([completion("not json"), completion("{}x")])
    with pytest.raises(ModelOutputError, match="twice"):
        llm.extract(REQ)
