"""The LLM seam: the offline model's rules and replies, and AnthropicLLM through the real SDK
over real HTTP to a local server speaking the Messages API (only the paid API is replaced)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import pytest

from memory.consolidation.extract import (
    EpisodeView,
    Extraction,
    ExtractionInput,
    FactView,
    PlaybookView,
)
from memory.consolidation.plan import WATERMARK
from memory.consolidation.planner import make_plan
from memory.errors import ModelOutputError, ValidationError
from memory.llm import (
    FallbackLLM,
    ModelAuthError,
    ModelStoppedError,
    ModelUnavailableError,
    get_llm,
    memory_prompt,
)
from memory.llm.claude import EXTRACTION_SYSTEM, TOOL_NAME, AnthropicLLM
from memory.llm.offline import OfflineLLM
from memory.llm.openai_compat import OpenAICompatLLM
from memory.settings import Settings
from tests.llm_server import FAST_RETRY, ScriptedServer, api_error, message, tool_use

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
    # invariant 438: auto without a key falls back, and says so
    fallback = get_llm(_settings({}))
    assert isinstance(fallback, FallbackLLM) and "ANTHROPIC_API_KEY is not set" in fallback.fallback
    assert not hasattr(get_llm(_settings({"MEMDESK_LLM": "offline"})), "fallback")
    llm = get_llm(_settings({"MEMDESK_LLM": "openai", "MEMDESK_OPENAI_BASE_URL":
                             "http://127.0.0.1:9/v1", "MEMDESK_OPENAI_MODEL": "qwen3:8b",
                             "MEMDESK_OPENAI_MAX_TOKENS": "512"}))
    assert isinstance(llm, OpenAICompatLLM) and llm.mode == "openai:qwen3:8b"
    assert llm.max_tokens == 512 and llm.client.api_key == "no-key-needed"
    with pytest.raises(ValidationError, match="MEMDESK_OPENAI_BASE_URL"):
        get_llm(_settings({"MEMDESK_LLM": "openai"}))
    claude = get_llm(_settings({"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://x:1",
                                "MEMDESK_ANTHROPIC_MAX_RETRIES": "5",
                                "MEMDESK_ANTHROPIC_TIMEOUT": "7.5",
                                "MEMDESK_ANTHROPIC_MAX_TOKENS": "1000"}))
    assert isinstance(claude, AnthropicLLM) and claude.client.max_retries == 5
    assert (claude.timeout, claude.max_tokens) == (7.5, 1000)
    assert str(claude.client.base_url).startswith("http://x:1")
    with pytest.raises(ValidationError, match="MEMDESK_ANTHROPIC_MAX_RETRIES"):
        _settings({"MEMDESK_ANTHROPIC_MAX_RETRIES": "-1"})
    assert get_llm(_settings({"MEMDESK_LLM": "offline", "ANTHROPIC_API_KEY": "k"})).mode == "offline"
    llm = get_llm(_settings({"ANTHROPIC_API_KEY": "k", "MEMDESK_ANTHROPIC_MODEL": "claude-x"}))
    assert llm.mode == "anthropic:claude-x"
    with pytest.raises(ValidationError, match="ANTHROPIC_API_KEY"):
        get_llm(_settings({"MEMDESK_LLM": "anthropic"}))
    with pytest.raises(ValidationError, match="MEMDESK_LLM"):
        _settings({"MEMDESK_LLM": "gpt"})


# --- AnthropicLLM through the real SDK over real HTTP (tests/llm_server.py) -------------------
@pytest.fixture
def anthropic_llm():
    servers: list[ScriptedServer] = []

    def make(answers, *, retries: int = 2):
        server = ScriptedServer(answers).__enter__()
        servers.append(server)
        return AnthropicLLM("claude-test", api_key="test", base_url=server.url,
                            max_retries=retries, timeout=10), server

    yield make
    for s in servers:
        s.__exit__()


REQ = ExtractionInput(today=TS.date(), episodes=[EpisodeView(id="ep0", text="I have a Lumio Hub v2",
                                                             timestamp=TS)])
GOOD = {"facts": [{"text": "Owns a Lumio Hub v2", "fact_type": "device", "confidence": 0.9,
                   "evidence": ["ep0"], "reason": "user says so"}]}
BAD = {"facts": [{"text": "x", "fact_type": "world", "confidence": 3, "evidence": ["ep0"]}]}


def _extraction(args, id_="t1"):
    return message([tool_use(id_, TOOL_NAME, args)], usage=(120, 40))


def test_anthropic_extract_uses_forced_tool_and_records_usage(anthropic_llm):
    llm, server = anthropic_llm([_extraction(GOOD)])
    out, usage = llm.extract(REQ)
    assert out.facts[0].text == "Owns a Lumio Hub v2" and out.facts[0].fact_type.value == "world"
    assert (usage.input_tokens, usage.output_tokens, usage.calls) == (120, 40, 1)
    assert usage.structured == "forced_tool" and usage.invalid_replies == 0
    (body,) = server.posts
    assert body["model"] == "claude-test"
    assert body["tool_choice"] == {"type": "tool", "name": TOOL_NAME}
    assert body["tools"][0]["input_schema"] == Extraction.model_json_schema()
    # invariant 435: the static extraction instructions carry the cache breakpoint
    assert body["system"] == [{"type": "text", "text": EXTRACTION_SYSTEM,
                               "cache_control": {"type": "ephemeral"}}]
    assert json.loads(body["messages"][0]["content"])["episodes"][0]["id"] == "ep0"


def test_anthropic_retries_are_the_sdks_and_honour_retry_after(anthropic_llm):
    llm, server = anthropic_llm([api_error(529, "overloaded_error", "busy", FAST_RETRY),
                                 api_error(500, "api_error", "oops", FAST_RETRY),
                                 _extraction(GOOD)])
    _, usage = llm.extract(REQ)
    assert len(server.posts) == 3 and usage.attempts == 3 and usage.calls == 1


def test_anthropic_gives_up_after_retries(anthropic_llm):
    err = api_error(500, "api_error", "down", FAST_RETRY)
    llm, _ = anthropic_llm([err] * 3)
    with pytest.raises(ModelUnavailableError, match="after 3 attempts: HTTP 500 api_error: down"):
        llm.extract(REQ)


def test_inv433_anthropic_auth_error_is_not_retried(anthropic_llm):
    llm, server = anthropic_llm([api_error(401, "authentication_error", "bad key")])
    with pytest.raises(ModelAuthError, match="refused the credentials.*ANTHROPIC_API_KEY"):
        llm.extract(REQ)
    assert len(server.posts) == 1


@pytest.mark.parametrize("content", [
    [tool_use("t", TOOL_NAME, {"facts": [{"text": "x", "fact_type": "spaceship",
                                          "confidence": 0.9, "evidence": ["ep0"]}]})],
    [tool_use("t", TOOL_NAME, BAD)],
    [tool_use("t", TOOL_NAME, {"facts": "lots"})],
    [{"type": "text", "text": "I'd rather chat"}],
])
def test_inv436_malformed_output_is_retried_once_then_fails(anthropic_llm, content):
    """invariant 436: an invalid reply goes back once with its error; twice is a failure."""
    llm, server = anthropic_llm([message(content), message(content)])
    with pytest.raises(ModelOutputError, match="twice; nothing was planned"):
        llm.extract(REQ)
    first, second = server.posts
    assert second["tool_choice"] == {"type": "tool", "name": TOOL_NAME}
    assert second["messages"][1]["role"] == "assistant"
    fix = second["messages"][2]["content"]
    if content[0]["type"] == "tool_use":
        assert fix[0]["is_error"] and fix[0]["tool_use_id"] == "t"
        assert "malformed model output" in fix[0]["content"]
    else:
        assert f"did not call {TOOL_NAME}" in fix


def test_inv436_an_invalid_reply_then_a_valid_one_is_used(anthropic_llm):
    llm, server = anthropic_llm([_extraction(BAD), _extraction(GOOD, "t2")])
    out, usage = llm.extract(REQ)
    assert [f.text for f in out.facts] == ["Owns a Lumio Hub v2"]
    assert usage.invalid_replies == 1 and usage.calls == 2


def test_inv436_a_failed_extraction_leaves_episodes_unconsolidated(service, anthropic_llm):
    """The planner writes nothing when the model fails: no fact, the watermark unmoved."""
    service.write_episode("ana", "I have a Lumio Hub v2", session_id="s")
    llm, _ = anthropic_llm([_extraction(BAD), _extraction(BAD)])
    with pytest.raises(ModelOutputError):
        make_plan(service, "ana", llm)
    assert service.facts("ana") == [] and not service.store.get_watermark("ana", WATERMARK)
    llm, _ = anthropic_llm([message([], stop="max_tokens")])
    with pytest.raises(ModelOutputError, match="cut off.*MEMDESK_ANTHROPIC_MAX_TOKENS"):
        make_plan(service, "ana", llm)
    llm, _ = anthropic_llm([message([], stop="refusal")])
    with pytest.raises(ModelStoppedError, match="declined"):
        make_plan(service, "ana", llm)
    assert service.facts("ana") == [] and not service.store.get_watermark("ana", WATERMARK)


def test_anthropic_reply_returns_text(anthropic_llm):
    llm, server = anthropic_llm([message([{"type": "text", "text": "You live in Edinburgh."}],
                                         stop="end_turn")])
    system = memory_prompt(["Lives in Edinburgh"])
    assert llm.reply(system, [{"role": "user", "content": "where do I live?"}]) == \
        "You live in Edinburgh."
    assert server.posts[0]["system"][0]["text"] == system and "tools" not in server.posts[0]


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
