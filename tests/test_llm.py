"""The LLM seam: the offline model's rules and replies, and AnthropicLLM through the real SDK
with an httpx2 MockTransport (only the paid API is replaced)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import anthropic
import httpx2
import pytest

from memory.consolidation.extract import EpisodeView, ExtractionInput, FactView, PlaybookView
from memory.errors import ModelOutputError, ValidationError
from memory.llm import ModelUnavailableError, get_llm, memory_prompt
from memory.llm.claude import TOOL_NAME, AnthropicLLM
from memory.llm.offline import OfflineLLM
from memory.settings import Settings

TS = datetime(2025, 5, 14, 10, 0, tzinfo=UTC)
SHOWN = [
    FactView(id="f_city", text="Lives in Bristol", fact_type="identity", state="active"),
    FactView(id="f_hub", text="Owns a Lumio Hub v2", fact_type="world", state="active"),
    FactView(id="f_contact", text="Prefers phone", fact_type="preference", state="active"),
    FactView(id="f_tea", text="Likes green tea", fact_type="preference", state="active"),
]
PLAYBOOKS = [PlaybookView(id="pb_reset", name="Reset the Lumio hub",
                          trigger="Lumio hub offline or dropping wifi",
                          steps=["Unplug the hub", "Hold reset for 10 seconds", "Re-pair"])]


def run(*texts: str, facts=SHOWN, playbooks=PLAYBOOKS, session: str | None = None):
    eps = [EpisodeView(id=f"ep{i}", text=t, timestamp=TS.replace(minute=i), session_id=session)
           for i, t in enumerate(texts)]
    req = ExtractionInput(today=TS.date(), episodes=eps, facts=facts, playbooks=playbooks)
    return OfflineLLM().extract(req)[0]


# (message, canonical text, supersedes, contradiction, valid_from, valid_to)
CASES = [
    ("I have a Kindle", "Has a Kindle", None, None, None, None),
    ("We moved to Edinburgh", "Lives in Edinburgh", "f_city", "natural", None, None),
    ("we moved to Leeds last week", "Lives in Leeds", "f_city", "natural", date(2025, 5, 7), None),
    ("I've been living in Glasgow since March 2024", "Lives in Glasgow", "f_city", "natural",
     date(2024, 3, 1), None),
    ("I upgraded to a Lumio Hub v3", "Has a Lumio Hub v3", "f_hub", "natural", None, None),
    ("I prefer email instead of phone", "Prefers email", "f_contact", "natural", None, None),
    ("I don't like green tea any more", "No longer likes green tea", "f_tea", "natural", None, None),
    ("I love hiking", "Likes hiking", None, None, None, None),
    ("My name is Ana Costa", "Name is Ana Costa", None, None, None, None),
    ("I work as a nurse", "Works as a nurse", None, None, None, None),
    ("I'm allergic to peanuts", "Allergic to peanuts", None, None, None, None),
    ("I'm vegetarian until June", "Is vegetarian", None, None, None, date(2025, 6, 1)),
    ("I can't eat gluten", "Does not eat gluten", None, None, None, None),
    ("No, that's wrong, I live in Cardiff", "Lives in Cardiff", "f_city", "harsh", None, None),
]


@pytest.mark.parametrize("text,canonical,supersedes,contradiction,start,end", CASES)
def test_offline_extracts_canonical_facts(text, canonical, supersedes, contradiction, start, end):
    out = run(text)
    assert [f.text for f in out.facts] == [canonical]
    f = out.facts[0]
    assert f.supersedes_id == supersedes
    assert (f.contradiction.value if f.contradiction else None) == contradiction
    assert f.valid_from == start and f.valid_to == end
    assert f.evidence == ["ep0"]


@pytest.mark.parametrize("text", [
    "I live in Bristol", "I'm living in Bristol", "We're based in Bristol these days",
    "My home is Bristol", "Bristol is where I live", "we relocated to Bristol",
    "I reside in Bristol", "We live in Bristol now", "moved back to Bristol",
    "We moved to Bristol last month"])
def test_inv31_ten_wordings_canonicalise_to_one_text(text):
    """invariant 31: canonical text makes the tombstone gate independent of wording."""
    assert [f.text for f in run(text, facts=[]).facts] == ["Lives in Bristol"]


def test_denial_is_reported_not_a_fact():
    out = run("I never lived in Bristol")
    assert out.facts == []
    assert [(d.target_id, d.evidence) for d in out.denials] == [("f_city", ["ep0"])]


def test_feedback_and_fix_become_playbook_updates():
    out = run("my lumio hub keeps dropping wifi", "that worked, thanks", session="s1")
    assert [(f.playbook_id, f.outcome) for f in out.feedback] == [("pb_reset", "success")]
    out = run("the hub is still broken", session="s1")
    assert [(f.playbook_id, f.outcome) for f in out.feedback] == [("pb_reset", "failure")]
    out = run("my router drops every night",
              "what fixed it was rebooting the router, then changing the channel to 6", session="s")
    pb = out.playbooks[0]
    assert pb.steps == ["Rebooting the router", "Changing the channel to 6"]
    assert pb.confidence >= 0.8 and pb.evidence == ["ep1"] and "router" in pb.trigger


def test_hedged_statements_get_low_confidence():
    assert run("I think I might be allergic to shellfish").facts[0].confidence < 0.7




def test_offline_reply_summarises_recalled_memories_deterministically():
    llm = get_llm(Settings(), "offline")
    assert llm.mode == "offline"
    system = memory_prompt(["[world] Owns a Lumio Hub v2", "[identity] Lives in Edinburgh",
                            "Allergic to peanuts"])
    msgs = [{"role": "user", "content": "Where do I live these days?"}]
    first = llm.reply(system, msgs)
    assert first == llm.reply(system, msgs)
    assert first == "From what I have on record: Lives in Edinburgh."
    assert "nothing on record" in llm.reply(memory_prompt([]), msgs)
    assert llm.reply(system, [{"role": "user", "content": "I got a new hub"}]).startswith("Thanks")


def _settings(env: dict[str, str]) -> Settings:
    return Settings.from_env(env)


def test_get_llm_picks_by_setting_and_key():
    assert get_llm(_settings({})).mode == "offline"
    assert get_llm(_settings({"MEMDESK_LLM": "offline", "ANTHROPIC_API_KEY": "k"})).mode == "offline"
    llm = get_llm(_settings({"ANTHROPIC_API_KEY": "k", "MEMDESK_ANTHROPIC_MODEL": "claude-x"}))
    assert llm.mode == "anthropic:claude-x"
    with pytest.raises(ValidationError, match="ANTHROPIC_API_KEY"):
        get_llm(_settings({"MEMDESK_LLM": "anthropic"}))
    with pytest.raises(ValidationError, match="MEMDESK_LLM"):
        _settings({"MEMDESK_LLM": "gpt"})


# --- AnthropicLLM through the real SDK -----------------------------------------------------------
def _message(content, usage=(120, 40), stop="tool_use"):
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
            "content": content, "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": usage[0], "output_tokens": usage[1]}}


def _llm(responses, seen, sleeps=None):
    queue = list(responses)

    def handler(request):
        seen.append(json.loads(request.content))
        status, body = queue.pop(0)
        return httpx2.Response(status, json=body)

    client = anthropic.Anthropic(api_key="test", max_retries=0,
                                 http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
    return AnthropicLLM("claude-test", client=client, retries=2, backoff=0.5,
                        sleep=(sleeps.append if sleeps is not None else lambda s: None))


REQ = ExtractionInput(today=TS.date(), episodes=[EpisodeView(id="ep0", text="I have a Lumio Hub v2",
                                                             timestamp=TS)])
GOOD = {"facts": [{"text": "Owns a Lumio Hub v2", "fact_type": "device", "confidence": 0.9,
                   "evidence": ["ep0"], "reason": "user says so"}]}


def test_anthropic_extract_uses_forced_tool_and_records_usage():
    seen: list = []
    llm = _llm([(200, _message([{"type": "tool_use", "id": "t1", "name": TOOL_NAME,
                                 "input": GOOD}]))], seen)
    out, usage = llm.extract(REQ)
    assert out.facts[0].text == "Owns a Lumio Hub v2" and out.facts[0].fact_type.value == "world"
    assert (usage.input_tokens, usage.output_tokens, usage.calls) == (120, 40, 1)
    body = seen[0]
    assert body["model"] == "claude-test"
    assert body["tool_choice"] == {"type": "tool", "name": TOOL_NAME}
    assert body["tools"][0]["input_schema"]["properties"]["facts"]
    assert json.loads(body["messages"][0]["content"])["episodes"][0]["id"] == "ep0"


def test_anthropic_retries_with_backoff_then_succeeds():
    seen, sleeps = [], []
    err = {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}
    llm = _llm([(529, err), (500, err),
                (200, _message([{"type": "tool_use", "id": "t", "name": TOOL_NAME, "input": GOOD}]))],
               seen, sleeps)
    _, usage = llm.extract(REQ)
    assert len(seen) == 3 and sleeps == [0.5, 1.0] and usage.attempts == 3


def test_anthropic_gives_up_after_retries():
    err = {"type": "error", "error": {"type": "api_error", "message": "down"}}
    llm = _llm([(500, err)] * 3, [])
    with pytest.raises(ModelUnavailableError, match="after 3 attempts"):
        llm.extract(REQ)


def test_anthropic_auth_error_is_not_retried():
    seen: list = []
    llm = _llm([(401, {"type": "error", "error": {"type": "authentication_error",
                                                   "message": "bad key"}})], seen)
    with pytest.raises(ModelUnavailableError, match="refused"):
        llm.extract(REQ)
    assert len(seen) == 1


@pytest.mark.parametrize("content", [
    [{"type": "tool_use", "id": "t", "name": TOOL_NAME,
      "input": {"facts": [{"text": "x", "fact_type": "spaceship", "confidence": 0.9,
                           "evidence": ["ep0"]}]}}],
    [{"type": "tool_use", "id": "t", "name": TOOL_NAME,
      "input": {"facts": [{"text": "x", "fact_type": "world", "confidence": 3,
                           "evidence": ["ep0"]}]}}],
    [{"type": "tool_use", "id": "t", "name": TOOL_NAME, "input": {"facts": "lots"}}],
    [{"type": "text", "text": "I'd rather chat"}],
])
def test_anthropic_malformed_output_is_a_model_output_error(content):
    llm = _llm([(200, _message(content))], [])
    with pytest.raises(ModelOutputError):
        llm.extract(REQ)


def test_anthropic_reply_returns_text():
    seen: list = []
    llm = _llm([(200, _message([{"type": "text", "text": "You live in Edinburgh."}],
                               stop="end_turn"))], seen)
    system = memory_prompt(["Lives in Edinburgh"])
    assert llm.reply(system, [{"role": "user", "content": "where do I live?"}]) == \
        "You live in Edinburgh."
    assert seen[0]["system"] == system and "tools" not in seen[0]


def test_offline_reply_quotes_the_users_words_and_skips_their_old_questions():
    llm = get_llm(Settings(), "offline")
    system = memory_prompt(["[episodic] Which hub should I buy?",
                            "[episodic] The Lumio hub keeps dropping off the wifi.",
                            "[world] Owns a Lumio Hub v2",
                            "[playbook] Reset the hub: when it drops off: unplug; wait; replug"])
    reply = llm.reply(system, [{"role": "user", "content": "What do you know about my hub?"}])
    assert "Which hub should I buy" not in reply  # a question asserts nothing
    assert "you told me \u201cThe Lumio hub keeps dropping off the wifi\u201d" in reply
    assert reply.index("Owns a Lumio Hub v2") < reply.index("you told me")  # facts first on ties
