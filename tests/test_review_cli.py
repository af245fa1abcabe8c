"""`memdesk review ...`: list/show/decide/bulk/history and exit codes, through the real CLI
entry point (in-process for speed; one real subprocess checks the wiring)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta

import pytest

from memory.cli import main
from memory.clock import fixed_clock
from memory.embeddings import get_embedder
from memory.service import MemoryService
from memory.stores import open_store
from review import propose
from tests.conftest import NOW


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    url = f"embedded:{tmp_path / 'cli.db'}"
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_STORE", url)
    monkeypatch.delenv("MEMDESK_ES_URL", raising=False)
    store = open_store(url, get_embedder("hash"))
    svc = MemoryService(store, clock=fixed_clock(NOW))

    def run(*args: str) -> subprocess.CompletedProcess:
        capsys.readouterr()
        code = main(["review", *args])
        out = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, out.out, out.err)

    run.service = svc  # the same store file, for seeding candidates
    run.url = url
    yield run
    store.close()


def test_review_cli_roundtrip_and_exit_codes(cli):
    svc = cli.service
    old = svc.write_fact("ana", "Lives in Leeds").fact
    contra = propose(svc, "ana", "Lives in York", supersedes_id=old.id)
    later = MemoryService(svc.store, clock=fixed_clock(NOW + timedelta(hours=1)))
    low = propose(later, "ana", "Maybe owns a kayak", confidence=0.3)
    bob = propose(svc, "bob", "Keeps bees")

    assert cli("list").returncode == 2  # invariant 40: no scope, no listing
    assert "--user" in cli("list").stderr
    listing = json.loads(cli("list", "--user", "ana", "--json").stdout)
    assert [i["id"] for i in listing["items"]] == [contra.id, low.id]
    assert listing["counts"]["ana"]["contradiction"] == 1
    only = json.loads(cli("list", "--all-users", "--kind", "low_confidence", "--json").stdout)
    assert [i["id"] for i in only["items"]] == [low.id] and set(only["counts"]) == {"ana", "bob"}

    shown = json.loads(cli("show", contra.id, "--user", "ana", "--json").stdout)
    assert shown["evidence"]["replaces"]["id"] == old.id
    assert cli("show", bob.id, "--user", "ana").returncode == 3  # another user's item

    res = cli("decide", contra.id, "accept", "--user", "ana", "--operator", "rita", "--rev", "1",
              "--comment", "moved", "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["fact"]["state"] == "active"
    stale = cli("decide", contra.id, "reject", "--user", "ana", "--operator", "sam", "--rev", "1",
                "--reason", "no")
    assert stale.returncode == 5 and stale.stderr.startswith("memdesk: error:")
    no_reason = cli("decide", low.id, "reject", "--user", "ana", "--operator", "sam")
    assert no_reason.returncode == 2 and "reason" in no_reason.stderr

    bulk = cli("bulk", "reject", low.id, contra.id, "--user", "ana", "--operator", "sam",
               "--reason", "unsupported", "--json")
    rows = json.loads(bulk.stdout)
    assert [r["ok"] for r in rows] == [True, False] and bulk.returncode == 5

    hist = json.loads(cli("history", "--user", "ana", "--json").stdout)
    assert {(h["operator"], h["decision"]) for h in hist} == {("rita", "accept"), ("sam", "reject")}
    text = cli("history", "--user", "ana").stdout
    assert "rita" in text and "(moved)" in text


@pytest.mark.process
def test_review_cli_runs_as_a_real_process(cli):
    propose(cli.service, "ana", "Plays chess")
    env = {**os.environ, "MEMDESK_EMBEDDER": "hash", "MEMDESK_STORE": cli.url}
    env.pop("MEMDESK_ES_URL", None)
    res = subprocess.run([sys.executable, "-m", "memory", "review", "list", "--user", "ana"],
                         check=False, capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 0 and "Plays chess" in res.stdout and "candidate=1" in res.stdout
