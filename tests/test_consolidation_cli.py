"""`memdesk consolidate` through a real subprocess: dry run, apply, --json, undo, exit codes."""

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
        return subprocess.run([sys.executable, "-m", "memory", *args], capture_output=True,
                              text=True, env={**env, **extra}, timeout=120, check=False)

    return run


def test_consolidate_dry_run_apply_and_undo(cli):
    old = json.loads(cli("write-fact", "--user", "ana", "Lives in Bristol", "--fact-type",
                         "identity", "--json").stdout)["fact"]
    cli("write-episode", "--user", "ana", "We moved to Edinburgh",
        "--timestamp", "2025-05-01")
    dry = cli("consolidate", "--user", "ana", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "LLM: offline" in dry.stdout and "dry run: nothing written" in dry.stdout
    assert "→ 'Lives in Edinburgh'" in dry.stdout
    # the watermark in words, never the raw "SAID|STORED" pair
    assert "consolidated so far: nothing yet; applying moves it to episodes up to 2025-05-01" \
        in dry.stdout and "|" not in dry.stdout.split("consolidated so far:")[1].splitlines()[0]
    res = cli("consolidate", "--user", "ana", "--json")
    payload = json.loads(res.stdout)
    plan_id = payload["plan"]["id"]
    assert payload["mode"] == "offline" and len(payload["applied"]["applied"]) == 1
    facts = json.loads(cli("facts", "--user", "ana", "--json").stdout)
    assert {f["text"]: f["state"] for f in facts} == {"Lives in Bristol": "superseded",
                                                        "Lives in Edinburgh": "active"}
    again = json.loads(cli("consolidate", "--user", "ana", "--json").stdout)
    assert again["plan"]["ops"] == [] and again["applied"]["applied"] == []
    undo = cli("consolidate", "undo", plan_id, "--user", "ana")
    assert undo.returncode == 0, undo.stderr
    assert f"plan {plan_id} undone" in undo.stdout
    facts = json.loads(cli("facts", "--user", "ana", "--json").stdout)
    assert [(f["id"], f["state"]) for f in facts] == [(old["id"], "active")]
    twice = cli("consolidate", "undo", plan_id, "--user", "ana")
    assert twice.returncode == 2 and "already undone" in twice.stderr


def test_consolidate_errors_have_exit_codes(cli):
    res = cli("consolidate")
    assert res.returncode == 2 and res.stderr.startswith("memdesk: error: a user is required")
    res = cli("consolidate", "undo", "plan_x")
    assert res.returncode == 2 and "user is required" in res.stderr
    res = cli("consolidate", "undo", "plan_x", "--user", "ana")
    assert res.returncode == 3 and "no applied plan plan_x" in res.stderr
    cli("write-episode", "--user", "ana", "I'm allergic to peanuts")
    res = cli("consolidate", "--user", "ana", "--only", "op_nope")
    assert res.returncode == 2 and "no applicable op op_nope" in res.stderr


def test_inv436_consolidate_with_openai_says_how_the_schema_held(cli):
    """`memdesk consolidate` with MEMDESK_LLM=openai against a local chat-completions server:
    a server refusing forced tools gets the JSON schema; an invalid reply twice writes nothing."""
    from tests.llm_server import ScriptedServer, completion, oai_error

    ep = json.loads(cli("write-episode", "--user", "ana", "I have a Lumio Hub v2",
                        "--timestamp", "2025-05-01", "--json").stdout)
    good = json.dumps({"facts": [{"text": "Owns a Lumio Hub v2", "fact_type": "world",
                                  "confidence": 0.9, "evidence": [ep["id"]]}]})
    model = {"MEMDESK_LLM": "openai", "MEMDESK_OPENAI_MODEL": "local-model"}
    with ScriptedServer([oai_error(400, "tool_choice not supported"), completion(good)]) as s:
        res = cli("consolidate", "--user", "ana", "--dry-run",
                  MEMDESK_OPENAI_BASE_URL=f"{s.url}/v1", **model)
    assert res.returncode == 0, res.stderr
    assert "LLM: openai:local-model · held to the schema by json_schema" in res.stdout
    assert "+ " in res.stdout and "Owns a Lumio Hub v2" in res.stdout
    bad = completion('{"facts": "lots"}')
    with ScriptedServer([bad, bad]) as s:
        res = cli("consolidate", "--user", "ana", MEMDESK_OPENAI_BASE_URL=f"{s.url}/v1", **model)
    assert res.returncode == 7 and "twice" in res.stderr
    assert json.loads(cli("facts", "--user", "ana", "--json").stdout) == []
