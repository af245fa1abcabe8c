"""Claude's tool loop through the real anthropic SDK; only the HTTP transport is a mock."""

from __future__ import annotations

import json

import anthropic
import httpx2

from memory.agent import run_turn
from memory.agents import MAX_STEPS, get_agent
from memory.agents.claude import PRE_RECALL_ID, ClaudeAgent
from memory.llm.claude import AnthropicLLM
from memory.models import FactState
from memory.runtime import build_runtime
from memory.tools import tool_definitions


def message(content, stop="tool_use", usage=(200, 30)):
    return {"id": "msg", "type": "message", "role": "assistant", "model": "claude-test",
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": usage[0], "output_tokens": usage[1]}}


def tool_use(id_, name, args):
    return {"type": "tool_use", "id": id_, "name": name, "input": args}


def text(t):
    return message([{"type": "text", "text": t}], stop="end_turn", usage=(300, 20))


def claude(responses, seen):
    queue = list(responses)

    def handler(request):
        body = json.loads(request.content)
        seen.append(body)
        item = queue.pop(0) if queue else None
        if callable(item):
            item = item(body)
        status, payload = item if isinstance(item, tuple) else (200, item)
        return httpx2.Response(status, json=payload)

    client = anthropic.Anthropic(api_key="test", max_retries=0,
                                 http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
    return ClaudeAgent(AnthropicLLM("claude-test", client=client, retries=1, sleep=lambda s: None))


def test_tool_loop_binds_every_call_to_the_session_user(service):
    """invariant 70 through the SDK: the model names another user; the calls act for ana."""
    old = service.write_fact("ana", "Lives in Bristol", fact_type="identity").fact
    bob = service.write_fact("bob", "Lives in Rome", fact_type="identity").fact
    seen: list = []

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

    agent = claude([write_step, text("Updated: you live in Leeds now. I can't see other users.")],
                   seen)
    t = run_turn(service, "ana", "s1", "We moved to Leeds. What does bob have?", agent=agent)
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
    assert "tool_choice" not in first and "Lives in Bristol" in first["system"]
    results = second["messages"][-1]["content"]
    assert [r["tool_use_id"] for r in results] == ["t1", "t2"]
    assert all("scope is fixed" in json.loads(r["content"])["note"] for r in results)
    assert second["messages"][-2]["content"][0] == {"type": "text", "text": "Let me update that."}
    assert (t.usage.calls, t.usage.input_tokens, t.usage.output_tokens) == (2, 500, 50)
    assert [s.kind for s in t.steps if s.kind in ("model", "tools")] == ["model", "tools", "model"]


def test_tool_errors_go_back_to_the_model(service):
    seen: list = []
    agent = claude([message([tool_use("t1", "write_memory", {"text": "Owns a hub yesterday"}),
                             tool_use("t2", "forget_memory", {"memory_id": "fact_nope"})]),
                    text("Sorry, let me not.")], seen)
    t = run_turn(service, "ana", "s", "I got a hub yesterday", agent=agent)
    errs = [json.loads(r["content"]) for r in seen[1]["messages"][-1]["content"]]
    assert all(r["ok"] is False for r in errs) and "valid_from" in errs[0]["error"]
    assert all(r.get("is_error") for r in seen[1]["messages"][-1]["content"])
    assert service.facts("ana") == [] and t.reply == "Sorry, let me not."


def test_inv78_the_loop_stops_after_five_steps(service):
    """invariant 78: the fifth model call has tools switched off, so the turn ends."""
    seen: list = []
    loop = [message([tool_use(f"t{i}", "recall_memory", {"query": "hub"})]) for i in range(4)]
    agent = claude([*loop, text("Here is what I found.")], seen)
    t = run_turn(service, "ana", "s", "tell me about my hub", agent=agent)
    assert len(seen) == MAX_STEPS and t.reply == "Here is what I found."
    assert [b.get("tool_choice") for b in seen] == [None] * 4 + [{"type": "none"}]
    assert max(c.step for c in t.tool_calls) == MAX_STEPS - 1


def test_model_failure_keeps_the_users_episode(service):
    err = {"type": "error", "error": {"type": "api_error", "message": "down"}}
    agent = claude([(500, err), (500, err)], [])
    t = run_turn(service, "ana", "s", "My hub is offline again", agent=agent)
    assert t.error.startswith("ModelUnavailable") and t.error_code == 6
    assert [e.text for e in service.episodes("ana")] == ["My hub is offline again"]


def test_history_and_missing_key(service, monkeypatch):
    seen: list = []
    agent = claude([text("ok")], seen)
    run_turn(service, "ana", "s", "and now?", agent=agent,
             history=[{"role": "assistant", "content": "hi"}, {"role": "user", "content": "one"},
                      {"role": "user", "content": "two", "trace": {}},
                      {"role": "assistant", "content": "three"}])
    roles = [m["role"] for m in seen[0]["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "user"]
    assert seen[0]["messages"][0]["content"] == "one\n\ntwo"
    monkeypatch.setenv("MEMDESK_LLM", "anthropic")
    rt = build_runtime(store=service.store)
    t = run_turn(service, "ana", "s", "hello", llm=rt.llm)  # no key: a clear error, episode kept
    assert "ANTHROPIC_API_KEY" in t.error and t.episode_id
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    assert isinstance(get_agent(build_runtime(store=service.store).llm), ClaudeAgent)


def test_inv219_claude_denies_one_item_of_a_list_with_never_true(service):
    old = service.write_fact("ana", "Allergic to peanuts and shellfish",
                             fact_type="constraint").fact
    seen: list = []
    step = message([tool_use("t1", "write_memory", {
        "text": "Allergic to peanuts", "fact_type": "constraint", "supersedes_id": old.id,
        "contradiction": "natural", "never_true": "Allergic to shellfish"})])
    agent = claude([step, text("Done: only peanuts now.")], seen)
    t = run_turn(service, "ana", "s1", "I'm not allergic to shellfish, never was", agent=agent)
    (w,) = t.writes()
    assert (w.op, w.status, w.old_id) == ("supersede", "applied", old.id) and w.tombstone_id
    (tomb,) = service.store.list_tombstones("ana")
    assert tomb.text == "Allergic to shellfish"
    schema = next(d for d in seen[0]["tools"] if d["name"] == "write_memory")["input_schema"]
    assert "never_true" in schema["properties"]


def test_inv273_claude_cannot_write_a_secret(service):
    seen: list = []
    step = message([tool_use("t1", "write_memory", {"text": "Wifi password is hunter2"})])
    agent = claude([step, text("I won't store that.")], seen)
    t = run_turn(service, "ana", "s1", "remember my wifi password is hunter2", agent=agent)
    assert service.facts("ana") == []
    result = json.loads(seen[1]["messages"][-1]["content"][0]["content"])
    assert "never keeps a password" in json.dumps(result)
    assert t.reply == "I won't store that."
