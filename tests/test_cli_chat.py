"""`memdesk chat` through a real subprocess: the reply, the whole trace with --json, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


@pytest.fixture
def cli(tmp_path):
    env = {**os.environ, "MEMDESK_EMBEDDER": "hash", "MEMDESK_LLM": "offline",
           "MEMDESK_STORE": f"embedded:{tmp_path / 'cli.db'}"}
    env.pop("MEMDESK_ES_URL", None)
    env.pop("ANTHROPIC_API_KEY", None)

    def run(*args: str, **extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "memory", *args], check=False,
                              capture_output=True, text=True, env={**env, **extra}, timeout=120)

    return run


def test_chat_prints_the_reply_and_the_trace(cli):
    # Rule 7: an unknown user is an error (a typo never starts a user); --new-user starts one.
    res = cli("chat", "--user", "ana", "--session", "s1", "I live in Lisbon")
    assert res.returncode == 3 and "unknown user 'ana'" in res.stderr and "--new-user" not in res.stdout
    res = cli("chat", "--user", "ana", "--new-user", "--session", "s1", "I live in Lisbon")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("Noted: you live in Lisbon.")
    assert "+ 'Lives in Lisbon'" in res.stdout and "session s1" in res.stdout
    res = cli("chat", "--user", "ana", "--session", "s1", "We moved to Porto last week", "--json")
    trace = json.loads(res.stdout)
    assert trace["session_id"] == "s1" and trace["mode"] == "offline"
    (write,) = [w for c in trace["tool_calls"] for w in c["result"]["writes"]]
    assert write["op"] == "supersede" and write["text"] == "Lives in Porto" and write["valid_from"]
    assert trace["pre_recall"]["pre"] and trace["core_memory"][0]["text"] == "Lives in Lisbon"
    facts = json.loads(cli("facts", "--user", "ana", "--json").stdout)
    assert {(f["text"], f["state"]) for f in facts} == {("Lives in Lisbon", "superseded"),
                                                       ("Lives in Porto", "active")}


def test_chat_errors_have_exit_codes(cli):
    res = cli("chat", "I live in Lisbon")
    assert res.returncode == 2 and "user is required" in res.stderr
    # invariant 438: a model that cannot run is reported before the message is stored
    res = cli("chat", "--user", "ana", "--new-user", "hello", MEMDESK_LLM="anthropic")
    assert res.returncode == 2 and "ANTHROPIC_API_KEY" in res.stderr
    assert json.loads(cli("audit", "--user", "ana", "--json").stdout) == []
    assert cli("chat", "--user", "ana", "--new-user", "hello").returncode == 0
    res = cli("chat", "--user", "ana", "x" * 40_000)  # ana exists now
    assert res.returncode == 2 and "32768" in res.stderr
    res = cli("chat", "--user", "anna", "hi")
    assert res.returncode == 3 and "did you mean ana?" in res.stderr
    res = cli("recall", "--user", "anna", "Lisbon")
    assert res.returncode == 3 and "unknown user 'anna'" in res.stderr


def test_inv430_a_refusal_exits_non_zero_through_the_cli(cli):
    """The CLI reaches a local Messages API server through ANTHROPIC_BASE_URL: a refusal is an
    explicit error and exit 8; a fallback to the offline reader is said in the footer."""
    from tests.llm_server import ScriptedServer, message

    with ScriptedServer([message([{"type": "text", "text": "I"}], stop="refusal")]) as server:
        res = cli("chat", "--user", "ana", "--new-user", "tell me", MEMDESK_LLM="anthropic",
                  ANTHROPIC_API_KEY="test", ANTHROPIC_BASE_URL=server.url,
                  MEMDESK_ANTHROPIC_MODEL="claude-test")
    assert res.returncode == 8, res.stderr
    assert "declined" in res.stderr and "your message was kept" in res.stderr
    assert "stop refusal" in res.stdout
    res = cli("chat", "--user", "ana", "I live in Lisbon", MEMDESK_LLM="auto")
    assert res.returncode == 0 and "fallback: MEMDESK_LLM=auto and ANTHROPIC_API_KEY is not set" \
        in res.stdout
