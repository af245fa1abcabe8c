"""Data-subject export and import (issue 14, invariants 123-124): one user's memory out as
JSON and Markdown, and back into a store without that user with the same facts, chains, ids
and clocks. Real embedded stores; the CLI through `memory.cli.main` and one subprocess run."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memory.cli import main
from memory.consolidation.apply import apply_plan
from memory.consolidation.planner import make_plan
from memory.embeddings import get_embedder
from memory.errors import ConflictError, NotFoundError, TombstoneError, ValidationError
from memory.export import FORMAT, export_user, import_user, parse, render_markdown, sha256, to_json
from memory.forgetting import erase_user
from memory.llm.offline import OfflineLLM
from memory.service import MemoryService
from memory.stores import open_store
from review import decide, propose
from tests.desk_support import IMAGE, LINK, TAG, rendered_elements

ROOT = Path(__file__).resolve().parent.parent
T0 = datetime(2025, 1, 10, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self):
        self.at = T0

    def __call__(self):
        self.at += timedelta(minutes=7)
        return self.at


def populate(path: Path) -> dict[str, str]:
    """ana: a chain of three, a harsh retraction (tombstone), a rejected candidate (tombstone),
    a forgotten retracted fact (keyed-hash tombstone), a waiting candidate, a playbook with an
    outcome, an applied consolidation plan (watermark), usage bumps, Markdown payloads; bob:
    untouched by everything done to ana."""
    store = open_store(f"embedded:{path}", get_embedder("hash"))
    svc = MemoryService(store, clock=Clock())
    ids = {}
    ep = svc.write_episode("ana", "I live in Bristol", timestamp=T0)
    a = svc.write_fact("ana", "Lives in Bristol", fact_type="identity",
                       source_episode_ids=[ep.id], valid_from="2019-01-01").fact
    b = svc.write_fact("ana", "Lives in Leeds", fact_type="identity", supersedes_id=a.id,
                       valid_from="2022-05-01").fact
    c = svc.write_fact("ana", f"Lives in Edinburgh {LINK}", fact_type="identity",
                       supersedes_id=b.id, valid_from="2025-03-01").fact
    ids.update(bristol=a.id, leeds=b.id, edinburgh=c.id)
    boat = svc.write_fact("ana", "Owns a boat").fact
    svc.write_fact("ana", "Owns a kayak", supersedes_id=boat.id, contradiction="harsh")
    ids["boat"] = boat.id
    rej = propose(svc, "ana", "Has a twin sister")
    decide(svc, "ana", rej.id, "reject", operator="rita@example.com", expected_rev=1,
           reason="never said")
    ids["twin"] = rej.id
    gone = svc.write_fact("ana", "Secret value to forget").fact
    svc.retract("ana", gone.id, actor="cli", reason="wrong")
    svc.forget("ana", gone.id, actor="cli")
    ids["cand"] = propose(svc, "ana", f"Likes jazz {IMAGE} {TAG}", confidence=0.4).id
    pb = svc.write_playbook("ana", "Reset the hub", "wifi drops", ["Hold reset", "Re-pair"])
    svc.record_outcome("ana", pb.id, success=True)
    svc.write_episode("ana", "I am allergic to peanuts", timestamp=T0 + timedelta(days=3))
    apply_plan(svc, make_plan(svc, "ana", OfflineLLM()))
    svc.recall("ana", "where does she live")  # usage counts: part of the record too
    svc.write_fact("bob", "Lives in Lisbon")
    store.close()
    return ids


def everything(svc: MemoryService, user: str) -> dict:
    s = svc.store
    return {"facts": sorted((f.model_dump(mode="json") for f in s.list_facts(user)),
                            key=lambda f: f["id"]),
            "episodes": sorted((e.model_dump(mode="json") for e in s.list_episodes(user)),
                               key=lambda e: e["id"]),
            "playbooks": [p.model_dump(mode="json") for p in s.list_playbooks(user)],
            "watermarks": s.watermarks(user)}


@pytest.fixture
def stores(tmp_path):
    src = tmp_path / "src.db"
    ids = populate(src)
    store = open_store(f"embedded:{src}", get_embedder("hash"))
    svc = MemoryService(store)
    yield svc, ids, tmp_path
    store.close()


def test_export_holds_chains_both_clocks_and_tombstones_as_hashes(stores):
    svc, ids, _ = stores
    exp = export_user(svc, "ana", actor="cli")
    assert exp.format == FORMAT and exp.user_id == "ana"
    assert [ids["bristol"], ids["leeds"], ids["edinburgh"]] in exp.chains
    facts = {f.id: f for f in exp.facts}
    assert facts[ids["bristol"]].superseded_at and facts[ids["bristol"]].valid_to
    assert facts[ids["edinburgh"]].valid_from.year == 2025 and facts[ids["edinburgh"]].recorded_at
    assert {f.state.value for f in exp.facts} >= {"active", "superseded", "retracted",
                                                  "rejected", "candidate"}
    kinds = sorted((t.kind.value, t.forgotten) for t in exp.tombstones)
    assert kinds == [("rejected", False), ("retracted", False), ("retracted", True)]
    raw = to_json(exp)
    for t in json.loads(raw)["tombstones"]:
        assert "text" not in t and "normalized" not in t  # never the value itself
    boat = next(t for t in exp.tombstones if t.source_fact_id == ids["boat"])
    assert boat.text_sha256 == sha256("Owns a boat")
    assert "Secret value to forget" not in raw  # forgotten stays forgotten
    assert exp.watermarks and exp.playbooks[0].success_count == 1
    assert [e.at for e in exp.audit] == sorted(e.at for e in exp.audit)  # oldest first
    assert all(e.user_id == "ana" for e in exp.audit) and "Lisbon" not in raw
    # taking the export is audited, after the export was taken
    event = svc.audit("ana", limit=1)[0]
    assert (event.action, event.actor, event.after["facts"]) == ("export_user", "cli",
                                                                len(exp.facts))


def test_export_erase_import_gives_back_the_same_facts_chains_and_ids(stores):
    """Invariant 124, the round trip in one store: export, erase, import."""
    svc, ids, _ = stores
    before, bob = everything(svc, "ana"), everything(svc, "bob")
    exp = parse(to_json(export_user(svc, "ana", actor="cli")))
    erase_user(svc, "ana", actor="cli")
    assert not svc.store.list_facts("ana")
    res = import_user(svc, exp, actor="cli")
    assert everything(svc, "ana") == before  # facts (revisions, clocks, usage), episodes, ...
    assert everything(svc, "bob") == bob
    assert [svc.chain("ana", ids["leeds"])[i].id for i in range(3)] == \
        [ids["bristol"], ids["leeds"], ids["edinburgh"]]
    # tombstones: the erased store kept each as a keyed hash under the same id; still there
    assert sorted(res.tombstones_kept) == sorted(t.id for t in exp.tombstones)
    assert {t.id for t in svc.store.list_tombstones("ana")} == {t.id for t in exp.tombstones}
    with pytest.raises(TombstoneError):
        svc.write_fact("ana", "Owns a boat")  # a dead value stays dead through the round trip
    # the history is back, oldest first, then the import's own event
    events = [e.id for e in reversed(svc.audit("ana", limit=10**6))]
    assert [e.id for e in exp.audit] == [i for i in events if i in {e.id for e in exp.audit}]
    imported = svc.audit("ana", action="import_user")
    assert len(imported) == 1 and imported[0].after["facts"] == len(exp.facts)
    assert events.index(imported[0].id) > events.index(exp.audit[-1].id)


def test_import_into_a_fresh_store_restores_tombstones_from_their_facts(stores, tmp_path):
    svc, _, _ = stores
    exp = export_user(svc, "ana", actor="cli")
    fresh = open_store(f"embedded:{tmp_path / 'fresh.db'}", get_embedder("hash"))
    try:
        new = MemoryService(fresh)
        res = import_user(new, exp, actor="cli")
        assert everything(new, "ana") == everything(svc, "ana")
        restored = {t.id: t for t in fresh.list_tombstones("ana")}
        assert sorted(res.tombstones_restored) == sorted(restored)
        assert len(restored) == 2 and {t.text for t in restored.values()} == {
            "Owns a boat", "Has a twin sister"}
        # the forgotten one's keyed hash means something only to the store that made it
        forgotten = [t.id for t in exp.tombstones if t.forgotten]
        assert res.tombstones_not_restored == forgotten
        with pytest.raises(TombstoneError):
            new.write_fact("ana", "Has a twin sister")
        assert not fresh.list_facts("bob")
    finally:
        fresh.close()


def test_import_refuses_what_it_must_not_load(stores, tmp_path):
    svc, _, _ = stores
    exp = export_user(svc, "ana", actor="cli")
    with pytest.raises(ConflictError, match="already has"):
        import_user(svc, exp, actor="cli")  # never over a living user
    data = json.loads(to_json(exp))
    data["facts"][0]["user_id"] = "bob"  # a record of another scope smuggled in
    fresh = open_store(f"embedded:{tmp_path / 'fresh2.db'}", get_embedder("hash"))
    try:
        with pytest.raises(ValidationError, match="refused whole"):
            import_user(MemoryService(fresh), parse(json.dumps(data)), actor="cli")
        assert not fresh.users()
    finally:
        fresh.close()
    with pytest.raises(ValidationError, match="not a Memdesk export"):
        parse('{"facts": []}')
    with pytest.raises(ValidationError, match="not a Memdesk export"):
        parse(b"\xff\xfe")
    data = json.loads(to_json(exp))
    del data["facts"][0]["text"]
    with pytest.raises(ValidationError, match="invalid export at facts.0"):
        parse(json.dumps(data))
    with pytest.raises(NotFoundError):
        export_user(svc, "nobody", actor="cli")


def test_markdown_export_reads_as_text(stores):
    """Stored text stays text in the Markdown export (invariant 80): no link, image or tag."""
    svc, _, _ = stores
    md = render_markdown(export_user(svc, "ana", actor="cli"))
    assert "# Memory held about ana" in md and "## Tombstones" in md and "SHA-256" in md
    assert "Owns a boat" in md  # the retracted fact itself, among the facts
    assert not {"a", "img", "script"} & set(rendered_elements(md))
    assert "| version | text | state | valid from |" in md


def test_cli_export_erase_import_round_trip(tmp_path, monkeypatch, capsys):
    """`memdesk export` → `memdesk erase --yes` → `memdesk import`: the same facts and chains
    (export files are the owner's only: mode 0600)."""
    db = tmp_path / "cli.db"
    ids = populate(db)
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{db}")
    out = tmp_path / "ana.json"
    assert main(["export", "--user", "ana", "--out", str(out)]) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    first = json.loads(out.read_text())
    assert main(["export", "--user", "ana", "--format", "md"]) == 0
    assert "# Memory held about ana" in capsys.readouterr().out
    assert main(["erase", "--user", "ana", "--yes"]) == 0
    capsys.readouterr()
    assert main(["import", str(out), "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert (res["user_id"], res["facts"]) == ("ana", len(first["facts"]))
    assert main(["export", "--user", "ana", "--out", str(tmp_path / "again.json")]) == 0
    again = json.loads((tmp_path / "again.json").read_text())
    assert again["facts"] == first["facts"] and again["chains"] == first["chains"]
    assert again["episodes"] == first["episodes"] and again["playbooks"] == first["playbooks"]
    assert [t["id"] for t in again["tombstones"]] == [t["id"] for t in first["tombstones"]]
    assert [ids["bristol"], ids["leeds"], ids["edinburgh"]] in again["chains"]
    assert main(["import", str(out)]) == 5  # ana has memories again: refused, exit 5
    assert "already has" in capsys.readouterr().err


@pytest.mark.process
def test_cli_import_of_a_bad_file_is_one_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something-else"}')
    env = {**os.environ, "MEMDESK_EMBEDDER": "hash",
           "MEMDESK_STORE": f"embedded:{tmp_path / 'x.db'}"}
    res = subprocess.run([sys.executable, "-m", "memory", "import", str(bad)], cwd=ROOT,
                         capture_output=True, text=True, env=env, timeout=120, check=False)
    assert res.returncode == 2 and "not a Memdesk export" in res.stderr
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1
