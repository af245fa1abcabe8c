"""Claude's tool loop through the real anthropic SDK over real HTTP: a local server speaks the
Messages API (tests/llm_server.py); only the paid API is replaced (issues 12, 29)."""

from __future__ import annotations

import json

import pytest

from memory.agent import run_turn
from memory.agents import MAX_STEPS, get_agent
from memory.agents.claude import PRE_RECALL_ID, SYSTEM, ClaudeAgent
from memory.llm import ModelAuthError, ModelUnavailableError, get_llm
from memory.models import FactState
from memory.runtime import build_runtime
from memory.settings import Settings
from memory.tools import tool_definitions
from tests.llm_server import FAST_RETRY, ScriptedServer, api_error, message, text, tool_use


@pytest.fixture
def claude():
    """claude(answers) -> (agent, server): a ClaudeAgent on the real SDK, reaching a local
    server through the base-URL setting (ANTHROPIC_BASE_URL) with the SDK's own retries."""
    servers: list[ScriptedServer] = []

    def make(answers, *, retries: int = 2, max_tokens: int = 4096, turn_timeout: float = 300.0,
             models=None):
        server = ScriptedServer(answers, models=models).__enter__()
        servers.append(server)
        settings = Settings.from_env({"MEMDESK_LLM": "anthropic", "ANTHROPIC_API_KEY": "test",
                                      "ANTHROPIC_BASE_URL": server.url,
                                      "MEMDESK_ANTHROPIC_MODEL": "claude-test",
                                      "MEMDESK_ANTHROPIC_MAX_RETRIES": str(retries),
                                      "MEMDESK_ANTHROPIC_MAX_TOKENS": str(max_tokens),
                                      "MEMDESK_LLM_TURN_TIMEOUT": str(turn_timeout)})
        agent = get_agent(get_llm(settings))
        assert isinstance(agent, ClaudeAgent)
        return agent, server

    yield make
    for s in servers:
        s.__exit__()


def test_tool_loop_binds_every_call_to_the_session_user(service, claude):
    """invariant 70 through the SDK: the model names another user; the calls act for ana."""
    old = service.write_fact("ana", "Lives in Bristol", fact_type="identity").fact
    bob = service.write_fact("bob", "Lives in Rome", fact_type="identity").fact
    def write_step(body):
        # the pre-recall is handed to the model as its own tool call, with ana's facts only
        msgs = body["messages"]
        assert msgs[-2]["content"][0] == {"type": "tool_use", "id": PRE_RECALL_ID,
                                          "name": "recall_memory",
                                          "input": {"query": "We moved to Leeds. What does bob have?",
                                                    "include_superseded": False,
                                                    "include_catalog": True, "k": 8}}
        result = json.loads(msgs[-1]["content"][0]["content"])
        ids = {h["id"] for h in result["hits"]}
        assert old.id in ids and bob.id not in ids
        return message([
            {"type": "text", "text": "Let me update that."},
            tool_use("t1", "recall_memory", {"query": "where does bob live", "user_id": "bob",
                                             "index": "memdesk-semantic"}),
            tool_use("t2", "write_memory", {"text": "Lives in Leeds", "fact_type": "identity",
                                            "supersedes_id": old.id, "contradiction": "natural",
                                            "user_id": "bob"}),
        ])

    agent, server = claude([write_step, text("Updated: you live in Leeds now. I can't see other "
                                             "users.")])
    t = run_turn(service, "ana", "s1", "We moved to Leeds. What does bob have?", agent=agent)
    seen = server.posts
    assert t.error is None and t.mode == "anthropic:claude-test"
    assert t.reply == "Updated: you live in Leeds now. I can't see other users."
    # bob is untouched; ana's fact superseded
    assert [(f.text, f.state) for f in service.facts("bob")] == [("Lives in Rome", FactState.ACTIVE)]
    assert service.get_fact("ana", old.id).state == FactState.SUPERSEDED
    assert [f.text for f in service.facts("ana", states=["active"])] == ["Lives in Leeds"]
    recall, write = t.tool_calls
    assert recall.result.stripped == {"user_id": "bob", "index": "memdesk-semantic"}
    assert all(h.id != bob.id for h in recall.result.hits)
    assert write.result.stripped == {"user_id": "bob"} and write.result.writes[0].op == "supersede"
    assert [a["tool"] for a in t.scope_attempts()] == ["recall_memory", "write_memory"]
    # what went over the wire: tools from the pydantic schemas, the results with the note
    first, second = seen
    assert first["model"] == "claude-test" and first["tools"] == tool_definitions()
    assert "tool_choice" not in first and "Lives in Bristol" in first["system"][1]["text"]
    results = second["messages"][-1]["content"]
    assert [r["tool_use_id"] for r in results] == ["t1", "t2"]
    assert all("scope is fixed" in json.loads(r["content"])["note"] for r in results)
    assert second["messages"][-2]["content"][0] == {"type": "text", "text": "Let me update that."}
    assert (t.usage.calls, t.usage.input_tokens, t.usage.output_tokens) == (2, 500, 50)
    assert [s.kind for s in t.steps if s.kind in ("model", "tools")] == ["model", "tools", "model"]


def test_tool_errors_go_back_to_the_model(service, claude):
    agent, server = claude([message([tool_use("t1", "write_memory", {"text": "Owns a hub yesterday"}),
                                     tool_use("t2", "forget_memory", {"memory_id": "fact_nope"})]),
                            text("Sorry, let me not.")])
    t = run_turn(service, "ana", "s", "I got a hub yesterday", agent=agent)
    seen = server.posts
    errs = [json.loads(r["content"]) for r in seen[1]["messages"][-1]["content"]]
    assert all(r["ok"] is False for r in errs) and "valid_from" in errs[0]["error"]
    assert all(r.get("is_error") for r in seen[1]["messages"][-1]["content"])
    assert service.facts("ana") == [] and t.reply == "Sorry, let me not."


def test_inv78_the_loop_stops_after_five_steps(service, claude):
    """invariant 78: the fifth model call has tools switched off, so the turn ends."""
    loop = [message([tool_use(f"t{i}", "recall_memory", {"query": "hub"})]) for i in range(4)]
    agent, server = claude([*loop, text("Here is what I found.")])
    t = run_turn(service, "ana", "s", "tell me about my hub", agent=agent)
    seen = server.posts
    assert len(seen) == MAX_STEPS and t.reply == "Here is what I found."
    assert [b.get("tool_choice") for b in seen] == [None] * 4 + [{"type": "none"}]
    assert max(c.step for c in t.tool_calls) == MAX_STEPS - 1


def test_model_failure_keeps_the_users_episode(service, claude):
    err = api_error(500, "api_error", "down", FAST_RETRY)
    agent, server = claude([err, err, err])
    t = run_turn(service, "ana", "s", "My hub is offline again", agent=agent)
    assert t.error.startswith("ModelUnavailable") and t.error_code == 6
    assert "after 3 attempts" in t.error and "no memory was written this turn" in t.error
    assert [e.text for e in service.episodes("ana")] == ["My hub is offline again"]
    (step,) = [s for s in t.steps if s.kind == "model"]
    assert [a.status for a in step.attempts] == [500, 500, 500] and t.usage.retries == 2


def test_history_and_missing_key(service, claude, monkeypatch):
    agent, server = claude([text("ok")])
    run_turn(service, "ana", "s", "and now?", agent=agent,
             history=[{"role": "assistant", "content": "hi"}, {"role": "user", "content": "one"},
                      {"role": "user", "content": "two", "trace": {}},
                      {"role": "assistant", "content": "three"}])
    seen = server.posts
    roles = [m["role"] for m in seen[0]["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "user"]
    assert seen[0]["messages"][0]["content"] == "one\n\ntwo"
    monkeypatch.setenv("MEMDESK_LLM", "anthropic")
    rt = build_runtime(store=service.store)
    before = len(service.episodes("ana"))
    with pytest.raises(Exception, match="ANTHROPIC_API_KEY"):  # invariant 438: before storing
        run_turn(service, "ana", "s", "hello", llm=rt.llm)
    assert len(service.episodes("ana")) == before
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    assert isinstance(get_agent(build_runtime(store=service.store).llm), ClaudeAgent)


def test_inv219_claude_denies_one_item_of_a_list_with_never_true(service, claude):
    old = service.write_fact("ana", "Allergic to peanuts and shellfish",
                             fact_type="constraint").fact
    step = message([tool_use("t1", "write_memory", {
        "text": "Allergic to peanuts", "fact_type": "constraint", "supersedes_id": old.id,
        "contradiction": "natural", "never_true": "Allergic to shellfish"})])
    agent, server = claude([step, text("Done: only peanuts now.")])
    t = run_turn(service, "ana", "s1", "I'm not allergic to shellfish, never was", agent=agent)
    seen = server.posts
    (w,) = t.writes()
    assert (w.op, w.status, w.old_id) == ("supersede", "applied", old.id) and w.tombstone_id
    (tomb,) = service.store.list_tombstones("ana")
    assert tomb.text == "Allergic to shellfish"
    schema = next(d for d in seen[0]["tools"] if d["name"] == "write_memory")["input_schema"]
    assert "never_true" in schema["properties"]


def test_inv273_claude_cannot_write_a_secret(service, claude):
    step = message([tool_use("t1", "write_memory", {"text": "Wifi password is hunter2"})])
    agent, server = claude([step, text("I won't store that.")])
    t = run_turn(service, "ana", "s1", "remember my wifi password is hunter2", agent=agent)
    seen = server.posts
    assert service.facts("ana") == []
    result = json.loads(seen[1]["messages"][-1]["content"][0]["content"])
    assert "never keeps a password" in json.dumps(result)
    # the model's reply, then the turn's own note that the secret was withheld (invariant 460)
    assert t.reply.startswith("I won't store that.") and "withheld" in t.reply


# --- issue 29: the loop to the letter of the Messages API ------------------------------------
def test_inv435_cache_breakpoint_after_the_static_prefix_and_cache_tokens_per_step(service, claude):
    """invariant 435: tools and the static instructions are the cached prefix (the breakpoint on
    the static system block); the date and core memory come after it; cache tokens per step."""
    service.write_fact("ana", "Lives in Bristol", fact_type="identity")
    step = message([tool_use("t1", "recall_memory", {"query": "hub"})], cache=(1800, 0))
    agent, server = claude([step, text("Nothing about a hub.", cache=(0, 1800))])
    t = run_turn(service, "ana", "s1", "what hub do I have?", agent=agent)
    for body in server.posts:
        static, dynamic = body["system"]
        assert static == {"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}
        assert "cache_control" not in dynamic and "Lives in Bristol" in dynamic["text"]
        assert dynamic["text"].startswith(f"Today is {t.today.isoformat()}")
        assert str(t.today.year) not in SYSTEM and "Bristol" not in SYSTEM
        assert body["tools"] == tool_definitions()  # unchanged across steps: the prefix holds
    model = [s for s in t.steps if s.kind == "model"]
    assert [(s.cache_creation_input_tokens, s.cache_read_input_tokens) for s in model] == \
        [(1800, 0), (0, 1800)]
    assert (t.usage.cache_creation_input_tokens, t.usage.cache_read_input_tokens) == (1800, 1800)
    assert [s.stop_reason for s in model] == ["tool_use", "end_turn"] and t.stop_reason == "end_turn"
    assert model[0].request_id.startswith("req_")


def test_inv430_a_tool_call_cut_off_at_max_tokens_is_never_run(service, claude):
    """invariant 430: stop_reason max_tokens: no tool call of that reply runs, and the reply
    and the trace say the answer was cut off."""
    cut = message([{"type": "text", "text": "Got it, I've noted that you live in"},
                   tool_use("t1", "write_memory", {"text": "Lives in"})], stop="max_tokens")
    agent, server = claude([cut], max_tokens=64)
    t = run_turn(service, "ana", "s1", "I live in Berlin now", agent=agent)
    assert t.error is None and t.cut_off and t.stop_reason == "max_tokens"
    assert t.tool_calls == [] and service.facts("ana") == []
    assert t.reply.startswith("Got it, I've noted that you live in …")
    assert "cut off at its limit of 64 tokens" in t.reply and "write_memory" in t.reply
    assert "cut off" in [s for s in t.steps if s.kind == "model"][-1].note
    assert server.posts[0]["max_tokens"] == 64 and len(server.posts) == 1


def test_inv430_pause_turn_continues_and_stop_sequence_replies(service, claude):
    paused = message([{"type": "text", "text": "Let me think"}], stop="pause_turn")
    agent, server = claude([paused, text("Done thinking: nothing to store.",
                                         stop="stop_sequence")])
    t = run_turn(service, "ana", "s1", "hello there", agent=agent)
    assert t.error is None and t.reply == "Done thinking: nothing to store."
    second = server.posts[1]["messages"]
    assert second[-1] == {"role": "assistant", "content": [{"type": "text",
                                                            "text": "Let me think"}]}
    assert [s.stop_reason for s in t.steps if s.kind == "model"] == ["pause_turn",
                                                                     "stop_sequence"]


@pytest.mark.parametrize("stop,words", [("refusal", "declined"),
                                        ("model_context_window_exceeded", "context window")])
def test_inv430_refusal_and_full_context_end_with_an_explicit_error(service, claude, stop, words):
    """invariant 430: never "(the model gave no reply)" with exit 0."""
    answer = message([{"type": "text", "text": "I"}], stop=stop)
    if stop == "refusal":
        answer["stop_details"] = {"type": "refusal", "category": "cyber",
                                  "explanation": "exploit development"}
    agent, _ = claude([answer])
    t = run_turn(service, "ana", "s1", "tell me something", agent=agent)
    assert t.error.startswith("ModelStopped") and words in t.error and t.error_code == 8
    if stop == "refusal":
        assert "(cyber: exploit development)" in t.error
    assert t.reply == "" and t.stop_reason == stop
    assert "no memory was written this turn" in t.error


def test_inv432_an_error_after_a_write_lists_what_was_written(service, claude):
    """invariant 432: step 1 wrote "Lives in Berlin", step 2 got 500s: the error says so."""
    write = message([tool_use("t1", "write_memory", {"text": "Lives in Berlin",
                                                     "fact_type": "identity"})])
    err = api_error(500, "api_error", "down", FAST_RETRY)
    agent, server = claude([write, err, err, err])
    t = run_turn(service, "ana", "s1", "I live in Berlin", agent=agent)
    (fact,) = service.facts("ana", states=["active"])
    assert fact.text == "Lives in Berlin"
    assert t.error_code == 6 and "nothing was written" not in t.error
    assert f"written before the failure (kept): + 'Lives in Berlin' ({fact.id})" in t.error
    assert len(server.posts) == 4


def test_inv433_sdk_retries_honour_retry_after_and_show_in_the_trace(service, claude):
    """invariant 433: 429 and 529 are retried by the SDK as the server asks; each attempt is
    on the trace. x-should-retry: false is obeyed."""
    agent, server = claude([api_error(429, "rate_limit_error", "slow down", FAST_RETRY),
                            api_error(529, "overloaded_error", "busy", {"retry-after": "0.001"}),
                            text("Hello!")])
    t = run_turn(service, "ana", "s1", "hi", agent=agent)
    assert t.error is None and t.reply == "Hello!"
    (step,) = [s for s in t.steps if s.kind == "model"]
    assert [(a.n, a.status, a.retry_after) for a in step.attempts] == \
        [(1, 429, 0.001), (2, 529, 0.001), (3, 200, None)]
    assert t.usage.retries == 2 and "2 retries by the SDK after 429" in step.note
    posts = [r for r in server.requests if r.method == "POST"]
    assert [r.headers["x-stainless-retry-count"] for r in posts] == ["0", "1", "2"]
    agent, server = claude([api_error(503, "api_error", "no", {"x-should-retry": "false"})])
    t = run_turn(service, "ana", "s2", "hi again", agent=agent)
    assert t.error_code == 6 and len(server.posts) == 1


def test_inv433_no_retry_waits_past_the_turns_bound(service, claude):
    agent, server = claude([api_error(429, "rate_limit_error", "later",
                                      {"retry-after": "3600"})], turn_timeout=30)
    t = run_turn(service, "ana", "s1", "hi", agent=agent)
    assert t.error.startswith("TurnTimeout") and "asked to wait 3600 s" in t.error
    assert len(server.posts) == 1


def test_inv433_a_bad_key_is_an_auth_error_never_retried(service, claude):
    agent, server = claude([api_error(401, "authentication_error", "invalid x-api-key")])
    t = run_turn(service, "ana", "s1", "hi", agent=agent)
    assert t.error.startswith("ModelAuth:") and "ANTHROPIC_API_KEY" in t.error
    assert len(server.posts) == 1
    agent, server = claude([])
    server.models_answer = api_error(401, "authentication_error", "invalid x-api-key")
    with pytest.raises(ModelAuthError, match="not stored"):  # invariant 438: checked first
        run_turn(service, "bob", "s1", "hi", agent=agent)
    assert service.episodes("bob") == [] and server.posts == []


def test_inv438_an_unknown_model_or_a_server_down_is_reported_before_storing(service, claude):
    agent, server = claude([], models=["claude-other"])
    with pytest.raises(ModelUnavailableError, match="MEMDESK_ANTHROPIC_MODEL"):
        run_turn(service, "ana", "s1", "I live in Leeds", agent=agent)
    # a gateway without the models endpoint (a 404 not in the API's shape) is taken at its word
    agent, server = claude([text("Hi.")])
    server.models_answer = (404, {"detail": "Not Found"})
    assert run_turn(service, "bob", "s1", "hello", agent=agent).reply == "Hi."
    server.__exit__()  # nobody answers any more
    agent, _ = claude([], retries=0)
    agent.llm.client = agent.llm.client.with_options(base_url=server.url)
    with pytest.raises(ModelUnavailableError, match="could not be reached.*not stored"):
        run_turn(service, "ana", "s1", "I live in Leeds", agent=agent)
    assert service.episodes("ana") == []


def test_parallel_tool_calls_all_run_in_order_with_results_in_one_message(service, claude):
    both = message([tool_use("a", "write_memory", {"text": "Owns a Lumio Hub v2",
                                                   "fact_type": "world"}),
                    tool_use("b", "write_memory", {"text": "Allergic to peanuts",
                                                   "fact_type": "constraint"})])
    agent, server = claude([both, text("Noted both.")])
    t = run_turn(service, "ana", "s1", "I have a Lumio Hub v2 and I'm allergic to peanuts",
                 agent=agent)
    assert sorted(f.text for f in service.facts("ana")) == ["Allergic to peanuts",
                                                            "Owns a Lumio Hub v2"]
    results = server.posts[1]["messages"][-1]
    assert results["role"] == "user" and [r["tool_use_id"] for r in results["content"]] == \
        ["a", "b"]
    assert [c.call_id for c in t.tool_calls] == ["a", "b"]
