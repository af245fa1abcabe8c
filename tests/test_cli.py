"""The `memdesk` CLI through a real subprocess: output, --json, and exit codes 0/2/3/4."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from memory.access import cli_actor


@pytest.fixture
def cli(tmp_path):
    env = {**os.environ, "MEMDESK_EMBEDDER": "hash", "MEMDESK_STORE": f"embedded:{tmp_path / 'cli.db'}"}
    env.pop("MEMDESK_ES_URL", None)

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "memory", *args], check=False, capture_output=True,
                              text=True, env=env, timeout=120)

    return run


def test_write_recall_chain_facts_audit_roundtrip(cli):
    ep = json.loads(cli("write-episode", "--user", "ana", "We moved to Edinburgh",
                        "--json").stdout)
    old = json.loads(cli("write-fact", "--user", "ana", "Lives in Bristol", "--fact-type",
                         "identity", "--valid-from", "2019-01-01", "--json").stdout)["fact"]
    res = cli("write-fact", "--user", "ana", "Lives in Edinburgh", "--fact-type", "identity",
              "--supersedes", old["id"], "--valid-from", "2025-03-01", "--source", ep["id"], "--json")
    assert res.returncode == 0, res.stderr
    new = json.loads(res.stdout)
    assert new["replaced"]["state"] == "superseded"
    hits = json.loads(cli("recall", "--user", "ana", "Edinburgh", "--json").stdout)["hits"]
    assert new["fact"]["id"] in [h["id"] for h in hits] and old["id"] not in [h["id"] for h in hits]
    explained = json.loads(cli("recall", "--user", "ana", "Edinburgh", "--explain", "--json").stdout)
    assert explained["explain"]["filters"] and "legs" in explained["hits"][0]
    chain = json.loads(cli("chain", "--user", "ana", new["fact"]["id"], "--json").stdout)
    assert [f["id"] for f in chain] == [old["id"], new["fact"]["id"]]
    past = json.loads(cli("facts", "--user", "ana", "--as-of-valid", "2020-06-01", "--json").stdout)
    assert [f["text"] for f in past] == ["Lives in Bristol"]
    users = json.loads(cli("users", "--json").stdout)
    assert users[0]["user_id"] == "ana" and users[0]["facts"]["superseded"] == 1
    audit = json.loads(cli("audit", "--user", "ana", "--json").stdout)
    # Issue 14: the CLI acts as the OS user who ran it (cli:<os user>), a local admin.
    assert {e["actor"] for e in audit} == {cli_actor()} and len(audit) == 4
    assert cli_actor().startswith("cli:") or cli_actor() == "cli"
    human = cli("recall", "--user", "ana", "Edinburgh", "--explain")
    assert "legs:" in human.stdout and "filters removed" in human.stdout


@pytest.mark.parametrize("args, code, message", [
    (("recall", "--user", "", "x"), 2, "a user is required"),
    (("recall", "x"), 2, "--user"),
    (("write-fact", "--user", "ana", "x", "--valid-from", "2025-13-01"), 2, "invalid valid_from"),
    (("write-fact", "--user", "ana", "x", "--valid-from", "2025-03-01", "--valid-to", "2025-01-01"),
     2, "before valid_from"),
    (("chain", "--user", "ana", "fact_nope"), 3, "no fact fact_nope"),
    (("forget", "--user", "ana", "fact_nope"), 3, "no memory"),
    (("recall", "--user", "ana", "x", "--store", "bogus:thing"), 2, "invalid store"),
])
def test_errors_are_one_line_with_documented_exit_codes(cli, args, code, message):
    res = cli(*args)
    assert res.returncode == code, (res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and lines[0].startswith("memdesk")


def test_tombstone_refusal_exits_4_and_other_users_id_exits_3(cli):
    fact = json.loads(cli("write-fact", "--user", "ana", "Lived in Bristol", "--json").stdout)["fact"]
    assert cli("retract", "--user", "ana", fact["id"], "--reason", "never").returncode == 0
    refused = cli("write-fact", "--user", "ana", "lived in Bristol!")
    assert refused.returncode == 4 and "retracted" in refused.stderr
    denied = cli("write-fact", "--user", "eve", "x", "--supersedes", fact["id"])
    assert denied.returncode == 3


def test_unknown_setting_fails_at_startup(cli, monkeypatch):
    monkeypatch.setenv("MEMDESK_TOMBSTONE_SIMILARTY", "0.5")  # typo on purpose
    res = subprocess.run([sys.executable, "-m", "memory", "users"], check=False, capture_output=True,
                         text=True,
                         env={**os.environ}, timeout=60)
    assert res.returncode == 2 and "unknown setting MEMDESK_TOMBSTONE_SIMILARTY" in res.stderr
