"""The unit of work (issue 10): one door for every mutation, typed settings read once, and a
store contract that is declared rather than probed."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from memory.corrections import believed_at, retire, valid_covers
from memory.errors import ChainError, NotFoundError, TombstoneError, ValidationError
from memory.models import Contradiction, Episode, Fact, FactState
from memory.runtime import build_runtime
from memory.settings import Settings, settings_table
from memory.stores.base import Capability, Store
from memory.unit_of_work import Batch
from tests.conftest import NOW

ROOT = Path(__file__).resolve().parent.parent


def test_inv8_a_batch_appends_one_event_per_operation_and_applies_once(service):
    old = service.write_fact("ana", "Lives in Leeds", fact_type="identity", actor="cli").fact
    before = len(service.audit("ana", limit=1000))
    with service.batch("cli", "ana", reason="moved") as b:
        ep = b.add(Episode(user_id="ana", text="We moved to York", recorded_at=NOW))
        new = b.add(Fact(user_id="ana", text="Lives in York", fact_type="identity",
                         source_episode_ids=[ep.id], recorded_at=NOW))
        b.supersede(old, new)
        assert service.get_fact("ana", old.id).state == FactState.ACTIVE  # nothing yet
    events = service.audit("ana", limit=1000)[: len(service.audit("ana", limit=1000)) - before]
    assert sorted(e.action for e in events) == ["supersede", "write_episode", "write_fact"]
    assert {e.reason for e in events} == {"moved"} and {e.actor for e in events} == {"cli"}
    assert service.get_fact("ana", old.id).superseded_by == new.id


def test_inv10_an_exception_inside_the_batch_writes_nothing(service):
    with pytest.raises(RuntimeError), service.batch("cli", "ana") as b:
        b.add(Episode(user_id="ana", text="never stored", recorded_at=NOW))
        raise RuntimeError("boom")
    assert service.episodes("ana") == [] and service.audit("ana") == []


def test_inv3_a_batch_touches_only_its_own_user(service):
    theirs = service.write_fact("bob", "Keeps bees", actor="cli").fact
    b = service.batch("cli", "ana")
    with pytest.raises(NotFoundError):
        b.owned_fact(theirs.id, action="retract")
    assert service.audit("ana", action="denied")[0].outcome == "denied"
    with pytest.raises(ValidationError, match="belongs to"):
        b.add(Fact(user_id="bob", text="Keeps wasps", recorded_at=NOW))
    with pytest.raises(ValidationError, match="user is required"):
        service.batch("cli", "")


def test_inv7_a_harsh_correction_cannot_restate_its_own_dead_value(service):
    old = service.write_fact("ana", "Lives in Bristol", fact_type="identity", actor="cli").fact
    with pytest.raises(TombstoneError):
        service.write_fact("ana", "Lives in Bristol", fact_type="identity", actor="cli",
                           supersedes_id=old.id, contradiction="harsh")
    assert service.get_fact("ana", old.id).state == FactState.ACTIVE  # nothing of the batch
    assert service.store.list_tombstones("ana") == []


def test_inv5_the_pure_rules_refuse_a_non_head_and_close_valid_time():
    a = Fact(user_id="u", text="a", recorded_at=NOW)
    b = Fact(user_id="u", text="b", recorded_at=NOW, valid_from=NOW)
    done = retire(a, b, Contradiction.NATURAL, NOW)
    assert (done.state, done.valid_to, done.rev) == (FactState.SUPERSEDED, NOW, 2)
    with pytest.raises(ChainError):
        retire(done, b, Contradiction.NATURAL, NOW)
    assert not valid_covers(retire(a, b, Contradiction.HARSH, NOW), NOW)
    assert believed_at(a, NOW) and not believed_at(done, NOW)


def test_inv8_a_store_less_batch_only_records():
    b = Batch(None, "seed", "u", now=NOW)
    b.add(Episode(user_id="u", text="hello", recorded_at=NOW))
    assert [op.op for op in b.ops] == ["put", "audit"]
    with pytest.raises(ValidationError):
        b.commit()


def test_inv8_no_product_code_builds_operations_or_events_outside_the_door():
    """Store operations and audit events are built by the unit of work and the stores only."""
    names = {"PutMemory", "UpdateMemory", "DeleteMemory", "PutTombstone", "AppendAudit",
             "SetWatermark", "AuditEvent"}
    allowed = {ROOT / "memory" / "unit_of_work.py"}
    found = []
    for folder in ("memory", "review", "pages", "bench"):
        for path in (ROOT / folder).rglob("*.py"):
            if path in allowed or (ROOT / "memory" / "stores") in path.parents:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                        and node.func.id in names:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.func.id}")
    assert not found, found


@pytest.mark.parametrize("env,name", [
    ({"MEMDESK_REVIEW_CONFIDENCE": "2"}, "MEMDESK_REVIEW_CONFIDENCE"),
    ({"MEMDESK_MAX_RETIRE_PER_RUN": "-1"}, "MEMDESK_MAX_RETIRE_PER_RUN"),
    ({"MEMDESK_HARSH_CONFIDENCE_PENALTY": "-0.1"}, "MEMDESK_HARSH_CONFIDENCE_PENALTY"),
    ({"MEMDESK_TOMBSTONE_SIMILARITY": "nan"}, "MEMDESK_TOMBSTONE_SIMILARITY"),
    ({"MEMDESK_EMBEDDER": "bert"}, "MEMDESK_EMBEDDER"),
    ({"MEMDESK_BUSY_TIMEOUT": "inf"}, "MEMDESK_BUSY_TIMEOUT"),
    ({"MEMDESK_REVEIW_CONFIDENCE": "0.5"}, "unknown setting MEMDESK_REVEIW_CONFIDENCE"),
])
def test_inv18_bad_settings_fail_at_start_up_naming_the_setting(env, name):
    with pytest.raises(ValidationError, match=name):
        build_runtime(Settings.from_env(env))


def test_inv18_nothing_below_the_runtime_reads_the_environment():
    readers = []
    for path in (ROOT / "memory").rglob("*.py"):
        if path.name in ("settings.py",):
            continue
        text = path.read_text(encoding="utf-8")
        for needle in ("os.environ", "os.getenv", "getenv("):
            if needle in text:
                readers.append(f"{path.relative_to(ROOT)}: {needle}")
    # XDG_CACHE_HOME is the OS's cache convention, not a setting (memory/embeddings.py).
    assert [r for r in readers if "embeddings.py" not in r] == []
    assert all(row[0].startswith("MEMDESK_") for row in settings_table())


def test_inv19_both_stores_declare_the_contract(store):
    assert isinstance(store, Store)
    assert all(isinstance(c, Capability) for c in store.capabilities)
    assert isinstance(store.recall_path, str) and store.recall_path


def test_inv19_no_caller_probes_a_store_with_getattr():
    probes = []
    for folder in ("memory", "review", "pages"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            for needle in ("getattr(store", "getattr(self.store", "getattr(svc.store",
                           "getattr(service.store", "hasattr(store", "hasattr(src"):
                if needle in text:
                    probes.append(f"{path.relative_to(ROOT)}: {needle}")
    assert probes == []


def test_inv19_dense_hits_carry_their_cosine(service):
    service.write_fact("ana", "Drinks green tea every morning", actor="cli")
    from memory.stores.base import RecallFilter

    vec = service.embedder.embed(["green tea"])[0]
    hits = service.store.search_dense(RecallFilter(user_id="ana"), vec, 5)
    assert hits and all(abs(h.score - (1 + h.cosine) / 2) < 1e-6 for h in hits)
