"""Invariant 69: every bad input is one clear error. Each row of tests/data/bad_inputs.jsonl runs
one CLI command (in-process, on a real embedded store) and must exit with its documented code
(memory/errors.py) with exactly one line on stderr that says what was wrong — never a traceback,
never the catch-all "internal error" — and, unless the attempt is audited (denied or refused),
without writing anything. A handful run again as real subprocesses, with a locked database,
a busy usage bump and a reader that closes the pipe early."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest

from memory.cli import main
from memory.clock import fixed_clock
from memory.embeddings import get_embedder
from memory.errors import StoreUnavailableError
from memory.search_config import Purpose
from memory.service import MemoryService
from memory.stores.embedded import EmbeddedStore
from tests.conftest import NOW

CASES = [json.loads(line) for line in
         (Path(__file__).parent / "data" / "bad_inputs.jsonl").read_text("utf-8").splitlines()
         if line.strip()]
ROOT = Path(__file__).resolve().parent.parent
REPEAT = re.compile(r"\{(\w)\*(\d+)\}")


@pytest.fixture(scope="module")
def world(tmp_path_factory, hash_embedder):
    """One store with two users, a live fact, a candidate, a retracted fact and odd files."""
    root = tmp_path_factory.mktemp("bad")
    store = EmbeddedStore(root / "store.db", hash_embedder)
    svc = MemoryService(store, clock=fixed_clock(NOW))
    ep = svc.write_episode("ana", "I live in Atlantis")
    fact = svc.write_fact("ana", "Likes green tea", source_episode_ids=[ep.id]).fact
    cand = svc.write_fact("ana", "Plays the cello", state="candidate").fact
    dead = svc.write_fact("ana", "Lives in Atlantis", source_episode_ids=[ep.id]).fact
    svc.retract("ana", dead.id, reason="a myth")
    bob = svc.write_fact("bob", "Bob likes jazz").fact
    store.close()
    (root / "binary.json").write_bytes(bytes(range(256)) * 8)
    (root / "adir").mkdir()
    (root / "text.json").write_text("this is not JSON", "utf-8")
    (root / "empty.json").write_text("[]", "utf-8")
    return {"TMP": str(root), "STORE": str(root / "store.db"), "EP": ep.id, "FACT": fact.id,
            "CAND": cand.id, "DEAD": dead.id, "BOB_FACT": bob.id, "BIN": str(root / "binary.json"),
            "DIR": str(root / "adir"), "FILE": str(root / "text.json"),
            "EMPTY": str(root / "empty.json")}


def expand(arg: str, world: dict) -> str:
    arg = REPEAT.sub(lambda m: m.group(1) * int(m.group(2)), arg)
    for key, value in world.items():
        arg = arg.replace("{" + key + "}", value)
    return arg


def counts(db: str) -> tuple:
    con = sqlite3.connect(db)
    try:
        return tuple(con.execute(f"SELECT count(*), coalesce(sum(length(body)), 0) FROM {t}")
                     .fetchone() for t in ("docs", "audit", "tombstones"))
    finally:
        con.close()


def test_inv69_the_table_covers_every_command():
    from memory.cli import build_parser

    def leaves(parser, prefix=()):
        subs = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
        if not subs:
            yield " ".join(prefix)
        for action in subs:
            for name, child in action.choices.items():
                yield from leaves(child, (*prefix, name))

    commands = set(leaves(build_parser())) - {""}
    covered = {" ".join(a for a in c["argv"][:2] if not a.startswith("-") and "{" not in a)
               for c in CASES}
    covered |= {c["argv"][0] for c in CASES if c["argv"]}
    # issue 15: three-level commands (mcp token create|list|revoke)
    covered |= {" ".join(a for a in c["argv"][:3] if not a.startswith("-") and "{" not in a)
                for c in CASES}
    missing = {cmd for cmd in commands if cmd not in covered}
    assert not missing, f"no bad-input case for: {sorted(missing)}"
    codes = Counter(c["code"] for c in CASES)
    assert len(CASES) >= 125 and {0, 2, 3, 4, 5, 6} <= set(codes), codes


@pytest.mark.parametrize("case", CASES, ids=[c["why"] for c in CASES])
def test_inv69_bad_input_is_one_clear_error(case, world, monkeypatch, capsys):
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{world['STORE']}")
    for key, value in case.get("env", {}).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(world["TMP"])  # reports of any eval that got this far land here
    argv = [expand(a, world) for a in case["argv"]]
    before = counts(world["STORE"])
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert code == case["code"], (case["why"], err)
    if case["code"] == 0:
        assert err == ""
        return
    assert err.startswith("memdesk: error: ") and err.endswith("\n"), err
    assert err.count("\n") == 1, f"more than one line: {err!r}"
    assert case["says"] in err, (case["says"], err)
    assert "\x1b" not in err and "\u202e" not in err  # the refused input is shown escaped
    if not case.get("audits"):
        assert counts(world["STORE"]) == before, "a refused input wrote something"


SUBPROCESS = ["recall --user ana x --k 0", "write-episode --user ana hi --timestamp 0000-01-01",
              "eval recall --questions {DIR}", "users --store elasticsearch:http://[::1",
              "users --store embedded:{FILE}/sub/s.db", "write-fact --user ana x --confidence nan"]


def _env(world, **extra) -> dict:
    env = {**os.environ, "MEMDESK_EMBEDDER": "hash", "MEMDESK_STORE": f"embedded:{world['STORE']}",
           "PYTHONPATH": str(ROOT), **extra}  # this checkout's code, whatever the cwd
    env.pop("MEMDESK_ES_URL", None)
    return env


@pytest.mark.parametrize("line", SUBPROCESS)
def test_inv69_a_real_process_prints_one_line_and_no_traceback(line, world):
    argv = [expand(a, world) for a in line.split()]
    run = subprocess.run([sys.executable, "-m", "memory", *argv], capture_output=True, text=True,
                         env=_env(world), timeout=120, check=False, cwd=world["TMP"])
    assert run.returncode in (2, 6) and run.stdout == ""
    assert run.stderr.startswith("memdesk: error: ") and run.stderr.count("\n") == 1
    assert "Traceback" not in run.stderr


def _hold_write_lock(path: str) -> sqlite3.Connection:
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another writer, mid-transaction
    return other


def test_inv69_locked_store_waits_its_timeout_then_exits_6_naming_the_lock(world):
    other = _hold_write_lock(world["STORE"])
    try:
        run = subprocess.run(
            [sys.executable, "-m", "memory", "write-episode", "--user", "ana", "hello"],
            capture_output=True, text=True, env=_env(world, MEMDESK_BUSY_TIMEOUT="0.2"),
            timeout=120, check=False, cwd=world["TMP"])
        # Reads are not blocked by a writer (WAL).
        read = subprocess.run([sys.executable, "-m", "memory", "facts", "--user", "ana"],
                              capture_output=True, text=True, timeout=120, check=False,
                              env=_env(world, MEMDESK_BUSY_TIMEOUT="0.2"), cwd=world["TMP"])
    finally:
        other.rollback()
        other.close()
    assert run.returncode == 6, run.stderr
    assert "locked by another writer" in run.stderr and "waited 0.2 s" in run.stderr
    assert "MEMDESK_BUSY_TIMEOUT" in run.stderr and run.stderr.count("\n") == 1
    assert read.returncode == 0 and "Likes green tea" in read.stdout


def test_inv69_agent_recall_never_waits_for_a_locked_store(tmp_path, hash_embedder):
    """The usage bump is deferred while another writer holds the file, and lands with the next
    bump that gets through; the reply is never held up (the store would wait 10 minutes)."""
    store = EmbeddedStore(tmp_path / "s.db", hash_embedder, busy_timeout=600)
    svc = MemoryService(store, clock=fixed_clock(NOW))
    fact = svc.write_fact("ana", "Likes green tea").fact
    other = _hold_write_lock(str(tmp_path / "s.db"))
    try:
        result: dict = {}
        worker = threading.Thread(target=lambda: result.update(
            hits=svc.recall("ana", "green tea", purpose=Purpose.AGENT).hits))
        worker.start()
        worker.join(timeout=120)  # a generous bound: a blocked bump would wait 600 s
        assert not worker.is_alive(), "agent recall waited for the lock"
        assert [h.id for h in result["hits"]] == [fact.id]
        with pytest.raises(StoreUnavailableError, match="locked by another writer"):
            _write_with_timeout(tmp_path, hash_embedder)  # an ordinary write does wait, then fails
    finally:
        other.rollback()
        other.close()
    assert svc.get_fact("ana", fact.id).use_count == 0  # deferred, not lost
    svc.recall("ana", "green tea", purpose=Purpose.AGENT)
    assert svc.get_fact("ana", fact.id).use_count == 2  # the deferred bump and this one
    other = _hold_write_lock(str(tmp_path / "s.db"))
    svc.recall("ana", "green tea", purpose=Purpose.AGENT)  # deferred again
    other.rollback()
    other.close()
    store.close()  # closing tries the deferred bump once more, without waiting
    again = EmbeddedStore(tmp_path / "s.db", hash_embedder)
    assert again.get(fact.kind, "ana", fact.id).use_count == 3
    again.close()


def _write_with_timeout(tmp_path, embedder):
    quick = EmbeddedStore(tmp_path / "s.db", embedder, busy_timeout=0.05)
    try:
        MemoryService(quick, clock=fixed_clock(NOW)).write_episode("ana", "hello")
    finally:
        quick.close()


def test_inv69_a_closed_pipe_ends_the_command_quietly(world, tmp_path):
    """`memdesk audit ... | head -1`: the reader leaves after one line; no BrokenPipeError."""
    store = EmbeddedStore(tmp_path / "big.db", get_embedder("hash"))
    svc = MemoryService(store, clock=fixed_clock(NOW))
    svc.write_episodes("ana", [(f"episode number {i} about the harbour", None, None)
                               for i in range(3000)], actor="cli")
    store.close()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memory", "audit", "--user", "ana", "--limit", "3000", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=world["TMP"],
        env=_env(world, MEMDESK_STORE=f"embedded:{tmp_path / 'big.db'}"))
    first = proc.stdout.readline()
    proc.stdout.close()  # like `head -1`
    err = proc.stderr.read().decode()
    code = proc.wait(timeout=120)
    assert first.strip() == b"["
    assert err == "" and code == 0
