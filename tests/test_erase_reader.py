"""Issue 30, item 8: erase means gone while others read (invariant 459). With a reader holding
a snapshot — another connection of this process, or another process — the erase cannot
checkpoint its write-ahead log: the CLI says the text is not yet gone from disk and what holds
it (exit 6), never "erased"; run again once the reader is done, it says "erased" and a scan of
the file and WAL finds no byte of the text. Real embedded store, the real CLI."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import uuid

import pytest

from memory.cli import main

READER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN")
db.execute("SELECT count(*) FROM docs").fetchone()  # a snapshot, held
print("reading", flush=True)
sys.stdin.readline()  # until told to finish
db.execute("COMMIT")
db.close()
"""


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    db = tmp_path / "store.db"
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{db}")
    monkeypatch.setenv("MEMDESK_BUSY_TIMEOUT", "0.2")  # the checkpoint's wait for readers

    def run(*argv: str) -> tuple[int, str]:
        code = main(list(argv))
        out = capsys.readouterr()
        assert "Traceback" not in out.out + out.err
        return code, out.out + out.err

    run.db = db
    return run


def marker_bytes(db) -> dict[str, int]:
    return {p.name: p.read_bytes().count(run_marker.encode())
            for p in db.parent.iterdir() if p.name.startswith(db.name)
            and run_marker.encode() in p.read_bytes()}


run_marker = f"zqmark{uuid.uuid4().hex[:10]}"


def seed(run) -> None:
    for i in range(5):
        assert run("write-episode", "--user", "ana", f"my {run_marker} note number {i}")[0] == 0
        assert run("write-fact", "--user", "ana", f"Keeps {run_marker} locker {i}")[0] == 0


def test_inv459_an_erase_with_a_reader_in_this_process_says_what_holds_the_text(cli):
    seed(cli)
    reader = sqlite3.connect(cli.db, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM docs").fetchone()
    code, out = cli("erase", "--user", "ana", "--yes")
    assert code == 6 and "NOT yet gone from disk" in out and "erased:" not in out
    assert "this process" in out
    reader.execute("COMMIT")
    reader.close()
    code, out = cli("erase", "--user", "ana", "--yes")  # again, the reader done
    assert code == 0 and "user ana erased" in out, out
    assert marker_bytes(cli.db) == {}


@pytest.mark.process
def test_inv459_an_erase_with_another_process_reading_names_it_then_completes(cli):
    seed(cli)
    proc = subprocess.Popen([sys.executable, "-c", READER, str(cli.db)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "reading"
        code, out = cli("erase", "--user", "ana", "--yes", "--json")
        res = json.loads(out[:out.rindex("}") + 1])
        assert code == 6 and res["residue"]
        assert f"process {proc.pid}" in res["residue"][0]
    finally:
        proc.communicate("done\n", timeout=60)  # the reader finishes (its own process)
    code, out = cli("erase", "--user", "ana", "--yes")
    assert code == 0 and "erased" in out
    assert marker_bytes(cli.db) == {}


def test_inv459_a_forget_with_a_reader_exits_6_and_says_so(cli):
    cli("write-episode", "--user", "ana", f"my {run_marker} secret diary")
    code, out = cli("recall", "--user", "ana", run_marker, "--json")
    ep = json.loads(out)["hits"][0]["id"]
    reader = sqlite3.connect(cli.db, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM docs").fetchone()
    try:
        code, out = cli("forget", "--user", "ana", ep)
        assert code == 6 and "still on disk" in out
    finally:
        reader.execute("COMMIT")
        reader.close()


def test_inv459_words_said_twice_are_no_residue_when_one_is_forgotten(tmp_path, hash_embedder):
    """The scan looks for what no memory left in place holds: the same message said twice,
    one forgotten, is no false alarm."""
    from memory.service import MemoryService
    from memory.stores.embedded import EmbeddedStore

    store = EmbeddedStore(tmp_path / "s.db", hash_embedder)
    try:
        svc = MemoryService(store)
        first = svc.write_episode("ana", f"my {run_marker} twice said words")
        svc.write_episode("ana", f"my {run_marker} twice said words")
        assert svc.forget("ana", first.id).residue == []
        once = svc.write_episode("ana", f"my {run_marker} once said words")
        assert svc.forget("ana", once.id).residue == []
    finally:
        store.close()
