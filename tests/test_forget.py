"""Invariants 8, 66 and 67: forget erases, erase empties a user. A unique marker goes into an
episode, facts derived from it, their audit events, a tombstone and a refused restatement;
after `forget --cascade` no byte of it is left in the database file, its write-ahead log or any
CLI listing. Real embedded store through the real CLI (in-process; one subprocess run)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import uuid
from datetime import timedelta
from pathlib import Path

import pytest

from memory.cli import main
from memory.clock import fixed_clock
from memory.errors import NotFoundError, TombstoneError
from memory.models import FactState, MemoryKind
from memory.redaction import KEYED_PREFIX
from memory.search_config import Purpose
from memory.service import MemoryService
from memory.stores import open_store
from memory.stores.base import RecallFilter
from tests.conftest import NOW


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    db = tmp_path / "store.db"
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{db}")

    def run(*argv: str, code: int = 0) -> str:
        got = main(list(argv))
        out = capsys.readouterr()
        assert got == code, (argv, out.err)
        assert "Traceback" not in out.out + out.err
        run.outputs.append(out.out + out.err)
        return out.out

    run.outputs = []
    run.db = db
    return run


def store_bytes(db: Path) -> dict[str, bytes]:
    """The database file and its companions (WAL, shared memory, any journal), as bytes."""
    return {p.name: p.read_bytes() for p in db.parent.iterdir() if p.name.startswith(db.name)}


def hits(marker: str, blobs: dict[str, bytes]) -> dict[str, int]:
    # The marker, its random part alone (the FTS index keeps terms, not phrases), in UTF-8.
    needles = [marker.encode(), marker.split("-")[-1].encode()]
    return {name: sum(blob.count(n) for n in needles) for name, blob in blobs.items()
            if any(n in blob for n in needles)}


LISTINGS = [("users", "--json"), ("audit", "--user", "ana", "--json", "--limit", "1000"),
            ("audit", "--user", "ana", "--limit", "1000"),
            ("facts", "--user", "ana", "--json"), ("facts", "--user", "ana"),
            ("review", "list", "--user", "ana", "--json"), ("review", "history", "--user", "ana"),
            ("recall", "--user", "ana", "street harbour boat", "--explain", "--json")]


def test_inv66_forgotten_marker_leaves_no_byte_in_file_wal_or_output(cli):
    marker = f"zq-marker-{uuid.uuid4().hex}"
    ep = json.loads(cli("write-episode", "--user", "ana", f"I live at {marker} street by the "
                        "harbour and keep a boat", "--json"))
    other = json.loads(cli("write-episode", "--user", "ana", "We adopted a cat", "--json"))
    src = ("--source", ep["id"])
    home = json.loads(cli("write-fact", "--user", "ana", f"Lives at {marker} street", *src,
                          "--fact-type", "identity", "--json"))["fact"]
    boat = json.loads(cli("write-fact", "--user", "ana", f"Keeps the boat {marker}", *src,
                          "--state", "candidate", "--json"))["fact"]
    cli("retract", "--user", "ana", home["id"], "--reason", "never lived there")
    # A restatement is refused and audited (with its text, before the forget).
    cli("write-fact", "--user", "ana", f"Lives at {marker} street", code=4)
    cli("recall", "--user", "ana", f"{marker} street", "--json")  # an agent recall: usage bump
    cli("review", "decide", boat["id"], "edit", "--user", "ana", "--operator", "rita",
        "--text", f"Keeps a boat called {marker}")
    assert hits(marker, store_bytes(cli.db))  # the test can fail: the marker is everywhere

    # Without --cascade the derived facts are listed and kept.
    out = json.loads(cli("forget", "--user", "ana", ep["id"], "--json"))
    assert out["forgotten"] == [ep["id"]] and set(out["kept"]) == {home["id"], boat["id"]}
    # Forgetting them too (each is now the asked memory).
    for fact_id in (home["id"], boat["id"]):
        cli("forget", "--user", "ana", fact_id, "--reason", "user asked")
    cli.outputs.clear()
    for argv in LISTINGS:
        cli(*argv)
    assert not [o for o in cli.outputs if marker in o or marker.split("-")[-1] in o]
    assert hits(marker, store_bytes(cli.db)) == {}
    wal = f"{cli.db}-wal"  # checkpointed and truncated, or removed when the CLI closed the store
    assert not os.path.exists(wal) or os.path.getsize(wal) == 0
    # The events stay, reduced to ids and hashes; nothing else of the user is touched.
    events = json.loads(cli("audit", "--user", "ana", "--json", "--limit", "1000"))
    assert [e["action"] for e in events].count("forget") == 3
    stubs = [s for e in events for s in (e["before"], e["after"]) if s and s.get("forgotten")]
    assert {s.get("id") for s in stubs} >= {ep["id"], home["id"], boat["id"]}
    assert all(len(s["text_sha256"]) == 64 for s in stubs)
    assert json.loads(cli("recall", "--user", "ana", "cat", "--json"))["hits"][0]["id"] == other["id"]
    # The dead value still cannot come back, and its refusal writes no text.
    cli("write-fact", "--user", "ana", f"Lives at {marker} street", code=4)
    assert hits(marker, store_bytes(cli.db)) == {}


def test_inv66_cascade_forgets_the_derived_facts_in_one_go(service):
    ep = service.write_episode("ana", "My sister Jo lives in Porto")
    keep = service.write_episode("ana", "I like green tea")
    a = service.write_fact("ana", "Sister Jo lives in Porto", source_episode_ids=[ep.id]).fact
    b = service.write_fact("ana", "Has a sister", source_episode_ids=[ep.id, keep.id]).fact
    tea = service.write_fact("ana", "Likes green tea", source_episode_ids=[keep.id]).fact
    pb = service.write_playbook("ana", "Porto trip", "visiting Jo", ["book a flight"],
                                source_episode_ids=[ep.id])
    res = service.forget("ana", ep.id, cascade=True, actor="cli")
    assert res.forgotten[0] == ep.id and res.kept == []
    assert sorted(res.forgotten[1:]) == sorted([a.id, b.id, pb.id]) == sorted(res.derived)
    assert {f.id for f in service.facts("ana")} == {tea.id}
    assert service.playbooks("ana") == []
    assert [e.id for e in service.episodes("ana")] == [keep.id]
    forgets = service.audit("ana", action="forget")
    assert {e.target_ids[0] for e in forgets} == {ep.id, a.id, b.id, pb.id}
    assert all("text" not in (e.before or {}) for e in forgets)


def test_inv8_inv66_audit_keeps_the_events_with_hashed_snapshots(service):
    fact = service.write_fact("ana", "Works at Globex in Leeds", fact_type="identity").fact
    new = service.write_fact("ana", "Works at Initech in York", fact_type="identity",
                             supersedes_id=fact.id).fact
    before = {e.id: e for e in service.audit("ana")}
    res = service.forget("ana", fact.id, actor="operator:rita", reason="asked to")
    after = {e.id: e for e in service.audit("ana")}
    assert set(after) - set(before) == {e.id for e in service.audit("ana", action="forget")}
    assert res.redacted_events == 2  # its write_fact and the supersede (before and after)
    sup = next(e for e in after.values() if e.action == "supersede")
    assert sup.before["forgotten"] and sup.before["id"] == fact.id and sup.before["rev"] == 1
    assert sup.after["forgotten"] and "text" not in sup.after
    # The successor's own event is untouched, and so is the successor.
    mine = next(e for e in after.values() if e.action == "write_fact" and e.target_ids == [new.id])
    assert mine.after["text"] == "Works at Initech in York"
    assert service.get_fact("ana", new.id).supersedes == fact.id
    assert [f.id for f in service.chain("ana", new.id)] == [new.id]


def test_inv66_forgotten_tombstone_keeps_a_keyed_hash_that_still_refuses(service):
    fact = service.write_fact("ana", "Allergic to kiwi fruit", fact_type="constraint").fact
    service.retract("ana", fact.id, reason="never was")
    service.forget("ana", fact.id, actor="cli")
    (tomb,) = service.store.list_tombstones("ana")
    assert tomb.forgotten and tomb.text == "" and tomb.normalized.startswith(KEYED_PREFIX)
    assert tomb.source_fact_id == fact.id  # ids stay: the audit and review can point at it
    with pytest.raises(TombstoneError, match="a forgotten value"):
        service.write_fact("ana", "allergic to KIWI fruit!")  # the same value, normalised
    refused = service.audit("ana", action="write_refused")[0]
    assert "text" not in refused.after and refused.after["forgotten"]
    assert "kiwi" not in (refused.reason or "").lower()
    service.write_fact("ana", "Allergic to peanuts", fact_type="constraint")  # others live
    # Another store's secret would give another hash: the key belongs to this store.
    assert service.store.value_key() is not None


def test_inv66_secure_delete_is_on_for_every_embedded_store(tmp_path, hash_embedder):
    from memory.stores.embedded import EmbeddedStore

    store = EmbeddedStore(tmp_path / "s.db", hash_embedder)
    try:
        assert store._conn().execute("PRAGMA secure_delete").fetchone() == (1,)
    finally:
        store.close()


def test_inv66_forget_of_another_users_id_is_missing_and_denied(service):
    ep = service.write_episode("bob", "Bob's secret plan")
    with pytest.raises(NotFoundError):
        service.forget("ana", ep.id, cascade=True)
    assert service.episodes("bob")[0].id == ep.id
    assert service.audit("ana")[0].action == "denied"


def test_inv66_undo_of_a_plan_whose_fact_was_forgotten_is_a_clear_conflict(service):
    from memory.consolidation.apply import apply_plan, undo_plan
    from memory.consolidation.planner import make_plan
    from memory.errors import ConflictError
    from memory.llm import get_llm
    from memory.settings import Settings

    service.write_episode("ana", "I moved to Lisbon last month and I love it")
    plan = make_plan(service, "ana", get_llm(Settings(), "offline"))
    apply_plan(service, plan)
    made = [f for f in service.facts("ana") if f.plan_id == plan.id]
    assert made, "the offline extractor planned no fact: this test needs one to forget"
    service.forget("ana", made[0].id)
    with pytest.raises(ConflictError, match="no longer exists"):
        undo_plan(service, "ana", plan.id)


# Erasing a user ---------------------------------------------------------------------------------

def test_inv67_erase_refuses_without_yes_then_leaves_one_event_and_no_text(cli):
    marker = f"zq-marker-{uuid.uuid4().hex}"
    ep = json.loads(cli("write-episode", "--user", "ana", f"My tag is {marker}", "--json"))
    fact = json.loads(cli("write-fact", "--user", "ana", f"Tag is {marker}", "--source",
                          ep["id"], "--json"))["fact"]
    cli("retract", "--user", "ana", fact["id"])
    cli("write-episode", "--user", "bob", "Bob keeps his own words")
    cli("erase", "--user", "ana", code=2)
    assert hits(marker, store_bytes(cli.db))  # nothing happened without --yes
    res = json.loads(cli("erase", "--user", "ana", "--yes", "--json"))
    assert res["memories"] == 2 and res["tombstones"] == 1 and res["audit_events"] == 3
    (event,) = json.loads(cli("audit", "--user", "ana", "--json"))
    assert event["action"] == "erase_user" and event["reason"] is None
    assert event["after"] == {"memories": 2, "tombstones": 1}
    assert hits(marker, store_bytes(cli.db)) == {}
    assert [u["user_id"] for u in json.loads(cli("users", "--json"))] == ["bob"]
    cli("write-fact", "--user", "ana", f"Tag is {marker}", code=4)  # still dead
    cli("erase", "--user", "nobody", "--yes", code=3)


@pytest.mark.process
def test_inv67_erase_by_subprocess_exits_2_without_yes(tmp_path):
    env = {**os.environ, "MEMDESK_EMBEDDER": "hash",
           "MEMDESK_STORE": f"embedded:{tmp_path / 's.db'}"}
    env.pop("MEMDESK_ES_URL", None)
    run = subprocess.run([sys.executable, "-m", "memory", "erase", "--user", "ana"],
                         capture_output=True, text=True, env=env, timeout=120, check=False)
    assert run.returncode == 2 and "--yes" in run.stderr and "Traceback" not in run.stderr
    assert run.stderr.count("\n") == 1


def test_inv66_recall_and_counts_forget_the_vectors_too(service):
    ep = service.write_episode("ana", "The harbour light at dusk")
    service.forget("ana", ep.id)
    hits_ = service.recall("ana", "harbour light dusk", purpose=Purpose.EXPLAIN).hits
    assert hits_ == [] and service.store.counts("ana").get(MemoryKind.EPISODIC.value) is None
    assert service.store.get(MemoryKind.EPISODIC, "ana", ep.id) is None
    assert FactState.ACTIVE  # (facts untouched: none written)


def test_inv66_wal_is_truncated_even_with_an_idle_second_connection(tmp_path, hash_embedder):
    from memory.clock import fixed_clock
    from memory.service import MemoryService
    from memory.stores.embedded import EmbeddedStore
    from tests.conftest import NOW

    # the checkpoint waits for the reader up to the busy timeout: a short one says the same
    store = EmbeddedStore(tmp_path / "s.db", hash_embedder, busy_timeout=0.5)
    idle = sqlite3.connect(tmp_path / "s.db")  # the desk, open but not reading
    try:
        svc = MemoryService(store, clock=fixed_clock(NOW))
        ep = svc.write_episode("ana", "zq private words")
        assert svc.forget("ana", ep.id).residue == []
        assert os.path.getsize(tmp_path / "s.db-wal") == 0
        idle.execute("BEGIN")
        idle.execute("SELECT count(*) FROM docs").fetchone()  # now a reader holds a snapshot
        ep = svc.write_episode("ana", "zq more private words")
        assert svc.forget("ana", ep.id).residue  # said, not hidden
    finally:
        idle.close()
        store.close()


def test_inv66_consolidation_never_plans_a_forgotten_value_active(service):
    from memory.consolidation.apply import apply_plan
    from memory.consolidation.planner import make_plan
    from memory.llm import get_llm
    from memory.settings import Settings

    service.write_episode("ana", "I live in Bristol now", timestamp="2025-05-01")
    apply_plan(service, make_plan(service, "ana", get_llm(Settings(), "offline")))
    (fact,) = service.facts("ana")
    assert fact.text == "Lives in Bristol"  # the offline extractor's canonical wording
    service.retract("ana", fact.id)
    service.forget("ana", fact.id)
    service.write_episode("ana", "As I said, I live in Bristol now", timestamp="2025-05-20")
    plan = make_plan(service, "ana", get_llm(Settings(), "offline"))
    (op,) = [o for o in plan.ops if o.fact and o.fact.text == "Lives in Bristol"]
    assert op.fact.state == FactState.CANDIDATE and "previously_rejected" in op.fact.flags


def test_inv104_a_forgotten_turn_leaves_its_neighbours_context(tmp_path, hash_embedder):
    """The embedded store keeps no context of its own: its per-user view is rebuilt from the
    remaining turns, so a neighbour found by the forgotten turn's word is found no more (the
    Elasticsearch side: tests/es/test_session_context.py)."""
    store = open_store(f"embedded:{tmp_path / 'ctx.db'}", hash_embedder)
    try:
        svc = MemoryService(store, clock=fixed_clock(NOW))
        first, middle, _ = svc.write_episodes("u", [
            ("We took the beagle to the vet in Görlitz", NOW, "vet-day"),
            ("She said he needs a second jab", NOW + timedelta(minutes=1), "vet-day"),
            ("Then we went for pizza", NOW + timedelta(minutes=2), "vet-day")], actor="cli")
        flt = RecallFilter(user_id="u")
        assert middle.id in [h.doc.id for h in store.search_bm25(flt, "Görlitz", 10)]
        svc.forget("u", first.id, actor="cli")
        assert store.search_bm25(flt, "Görlitz", 10) == []
    finally:
        store.close()


def test_inv75_forget_in_chat_takes_the_source_message_and_the_request(cli):
    # Invariant 75: "forget my address" in chat forgets the fact, the message it came from and
    # the request itself; no byte of the address is left, the audit keeps ids and hashes.
    street = "Zq" + uuid.uuid4().hex[:10]
    said = json.loads(cli("chat", "--user", "ana", "--new-user", "--session", "s1", "--json",
                          f"My address is 14 {street} Street, Leeds"))
    (w,) = [w for c in said["tool_calls"] for w in c["result"].get("writes", [])]
    assert street in w["text"] and said["episode_id"]
    other = json.loads(cli("write-episode", "--user", "ana", "We adopted a cat", "--json"))
    asked = json.loads(cli("chat", "--user", "ana", "--session", "s1", "--json",
                           f"Please forget my address at 14 {street} Street"))
    (f,) = [w for c in asked["tool_calls"] for w in c["result"].get("writes", [])]
    assert (f["op"], f["old_id"], f["also_forgotten"]) == ("forget", w["memory_id"],
                                                           [said["episode_id"]])
    assert asked["episode_forgotten"] is True
    assert hits(street, store_bytes(cli.db)) == {}
    for argv in LISTINGS:
        assert street not in cli(*argv)
    listed = json.loads(cli("recall", "--user", "ana", "cat", "--json", "--no-bump"))
    assert other["id"] in json.dumps(listed)  # an unrelated message stays
    events = json.loads(cli("audit", "--user", "ana", "--json", "--limit", "1000"))
    forgets = [e for e in events if e["action"] == "forget"]
    assert {i for e in forgets for i in e["target_ids"]} == {w["memory_id"], said["episode_id"],
                                                 asked["episode_id"]}


def test_inv75_a_request_that_also_wrote_something_is_kept(service):
    from memory.agent import run_turn
    from memory.agents.offline import OfflineAgent
    service.write_fact("ana", "Prefers email", fact_type="preference")
    t = run_turn(service, "ana", "s1", "I have a beagle called Rex. Forget that I prefer email",
                 agent=OfflineAgent())
    ops = sorted(w.op for w in t.writes())
    assert ops == ["forget", "write"] and not t.episode_forgotten
    assert service.store.get(MemoryKind.EPISODIC, "ana", t.episode_id) is not None
