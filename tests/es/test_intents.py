"""Intent-first batches survive a crash at every boundary and every lost answer (issue 31,
invariants 92, 470).

The store runs against doccluster.DocCluster, which keeps what lands and follows Elasticsearch's
documented document semantics: `op_type=create` answers 409 on an existing id
(https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-index_.html#docs-index-api-op_type),
`if_seq_no`/`if_primary_term` make index and delete compare-and-set
(https://www.elastic.co/guide/en/elasticsearch/reference/8.15/optimistic-concurrency-control.html),
`_mget` is realtime (https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-multi-get.html)
and bulk items fail one by one (https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-bulk.html).
A supersession, a retraction and a turn are cut before and after every request they send, and
every answer is lost once; the store is then opened again (its sweeper runs) and checked: no
fact lost, never two active heads, the audit log equal to the mutations, no batch left pending.
"""

from __future__ import annotations

import time

import pytest

from memory.clock import fixed_clock
from memory.errors import MemdeskError
from memory.models import AuditEvent, Episode, FactState
from memory.service import MemoryService
from memory.stores.base import AppendAudit, PutMemory
from memory.stores.elasticsearch import ElasticsearchStore, intents
from tests.conftest import NOW
from tests.es.conftest import URL, make_client
from tests.es.doccluster import Crash, DocCluster

LATER = 3600.0  # the store is opened again past the lease: its writer is gone


def open_store(cluster, embedder, offset: float = 0.0) -> ElasticsearchStore:
    return ElasticsearchStore(URL, embedder, client=make_client(cluster),
                              wall=lambda: time.time() + offset)


@pytest.fixture
def world(hash_embedder):
    """A cluster holding one active fact of user u (written through the store itself)."""
    cluster = DocCluster()
    store = open_store(cluster, hash_embedder)
    svc = MemoryService(store, clock=fixed_clock(NOW))
    old = svc.write_fact("u", "Lives in Bristol", fact_type="identity").fact
    return cluster, old


def supersede(svc, old):
    svc.write_fact("u", "Lives in Edinburgh", fact_type="identity", supersedes_id=old.id)


def retract(svc, old):
    svc.retract("u", old.id)


def turn(svc, old):
    ep = Episode(user_id="u", text="we moved the standup to ten", session_id="s1")
    svc.store.apply([PutMemory(doc=ep), AppendAudit(event=AuditEvent(
        actor="agent", user_id="u", action="write_episode", target_ids=[ep.id]))])


ACTIONS = {"supersede": supersede, "retract": retract, "turn": turn}


def requests_of(hash_embedder, action) -> int:
    """How many requests a clean run of the action sends (from the first one after open)."""
    cluster = DocCluster()
    store = open_store(cluster, hash_embedder)
    svc = MemoryService(store, clock=fixed_clock(NOW))
    old = svc.write_fact("u", "Lives in Bristol", fact_type="identity").fact
    cluster.arm({})
    ACTIONS[action](svc, old)
    return cluster.count


def check(cluster, hash_embedder, old, action) -> dict:
    """Open the store again (its sweeper finishes or undoes what was left) and check the
    invariants. Returns what the reopened store reports, for the caller's own assertions."""
    cluster.revive()
    store = open_store(cluster, hash_embedder, offset=LATER)
    facts = store.list_facts("u")
    active = [f for f in facts if f.state == FactState.ACTIVE]
    events = store.audit("u", limit=1000)
    # no batch document left undecided, no record stamped by one
    batches = cluster.docs.get("memdesk-state", {})
    assert all(b["src"].get("state") in intents.FINISHED for k, b in batches.items()
               if k.startswith("batch_")), batches
    open_ids = {k for k, b in batches.items() if k.startswith("batch_")
                and b["src"].get("state") != intents.COMMITTED}
    for alias, table in cluster.docs.items():
        for doc_id, rec in table.items():
            assert rec["src"].get("batch") not in open_ids, (alias, doc_id)
    actions = sorted(e.action for e in events)
    if action == "supersede":
        assert len(active) == 1, active  # invariant 470: never two active heads (nor none)
        new = [f for f in facts if f.id != old.id]
        if active[0].id == old.id:  # rolled back: nothing of the batch, nothing in the log
            assert not new and actions == ["write_fact"], (facts, actions)
        else:  # rolled forward (or committed): old superseded by the new, and the log says so
            (n,) = new
            assert n.supersedes == old.id and active[0].id == n.id
            got = {f.id: f for f in facts}[old.id]
            assert got.state == FactState.SUPERSEDED and got.superseded_by == n.id
            assert actions == sorted(["write_fact", "write_fact", "supersede"]) or \
                actions.count("write_fact") == 2, actions
    elif action == "retract":
        got = {f.id: f for f in facts}[old.id]  # no fact lost
        tombs = store.list_tombstones("u")
        if got.state == FactState.ACTIVE:
            assert not tombs and actions == ["write_fact"], (tombs, actions)
        else:
            assert got.state == FactState.RETRACTED and len(tombs) == 1
            # rolled forward from the batch document: the tombstone has its vector again
            assert "vector" in cluster.docs["memdesk-tombstones"][tombs[0].id]["src"]
            assert "retract" in actions, actions
    else:
        eps = store.list_episodes("u")
        assert (len(eps), actions.count("write_episode")) in ((0, 0), (1, 1)), (eps, actions)
    store.close()
    return {"facts": facts, "actions": actions}


@pytest.mark.parametrize("action", sorted(ACTIONS))
@pytest.mark.parametrize("how", ["crash", "after", "lost"])
def test_inv470_inv470_inv470_a_cut_at_every_request_leaves_a_whole_batch_or_none(
        hash_embedder, action, how):
    """Invariants 92, 470, for every request the action sends: cut before it (nothing of it
    lands), cut after it landed (the answer is never read), or its answer lost (the process goes
    on: it reads the phase's keys back, never resends blind). The reopened store's sweeper rolls
    an abandoned batch forward (every step landed or still applies) or back."""
    total = requests_of(hash_embedder, action)
    assert total >= 5  # intent, conditional/inserts/audit bulks, commit: every boundary is cut
    outcomes = {}
    for n in range(1, total + 1):
        cluster = DocCluster()
        store = open_store(cluster, hash_embedder)
        svc = MemoryService(store, clock=fixed_clock(NOW))
        old = svc.write_fact("u", "Lives in Bristol", fact_type="identity").fact
        cluster.arm({n: how})
        try:
            ACTIONS[action](svc, old)
        except (Crash, MemdeskError):
            pass
        got = check(cluster, hash_embedder, old, action)
        outcomes[n] = got["actions"]
    # every case ends whole; the extremes are known: cut before the batch document, nothing;
    # after it (or with every answer lost once), the batch is committed
    assert len(outcomes[total]) > 1
    if how == "crash":
        assert outcomes[1] == ["write_fact"]


def test_inv470_readers_take_a_pending_records_before_image(world, hash_embedder):
    """Cut after the conditional write of a supersession landed: the old fact is stored
    `superseded` (stamped with the pending batch) and no new fact exists. A reader in another
    process (lease not over: no sweep) reads the old fact as it was — active — and recall does
    not return the half-written record; audit shows nothing of the batch."""
    cluster, old = world
    writer = MemoryService(open_store(cluster, hash_embedder), clock=fixed_clock(NOW))
    cluster.arm_at("/_bulk", ["after"])  # the conditional bulk lands, then the process dies
    with pytest.raises(Crash):
        supersede(writer, old)
    cluster.revive()
    stored = cluster.docs["memdesk-semantic"][old.id]["src"]
    assert stored["state"] == "superseded" and stored["batch"].startswith("batch_")
    reader = open_store(cluster, hash_embedder)  # within the lease: the sweeper leaves it
    assert reader.swept == {"committed": 0, "rolled_back": 0, "left": 1}
    got = reader.get(old.kind, "u", old.id)
    assert got is not None and got.state == FactState.ACTIVE and got.rev == old.rev
    assert [f.state for f in reader.list_facts("u")] == [FactState.ACTIVE]
    assert [e.action for e in reader.audit("u")] == ["write_fact"]
    # past the lease, the next open rolls it forward: the batch document held every step
    later = open_store(cluster, hash_embedder, offset=LATER)
    assert later.swept == {"committed": 1, "rolled_back": 0, "left": 0}
    facts = {f.id: f for f in later.list_facts("u")}
    assert facts[old.id].state == FactState.SUPERSEDED
    assert sorted(e.action for e in later.audit("u")) == ["supersede", "write_fact", "write_fact"]


def test_inv92_a_record_equal_to_ours_from_another_batch_is_not_ours(world, hash_embedder):
    """The old rule "an identical record = ours" could undo a concurrent writer's record. Now
    only a record stamped with this batch's id counts as landed (intents.classify)."""
    from memory.stores.elasticsearch.writes import INSERT, Step
    step = Step(INSERT, "create", "memdesk-semantic", "fact_1", {"id": "fact_1", "text": "x",
                                                                 "batch": "batch_a"}, "memory")
    theirs = {"src": {"id": "fact_1", "text": "x", "batch": "batch_b"}, "seq_no": 3, "term": 1}
    ours = {"src": {"id": "fact_1", "text": "x", "batch": "batch_a"}, "seq_no": 3, "term": 1}
    assert intents.classify(step, ours, "batch_a", after_lost=True) == intents.LANDED
    assert intents.classify(step, theirs, "batch_a", after_lost=True) == intents.SAME
    assert intents.classify(step, None, "batch_a", after_lost=True) == intents.SEND


def test_inv470_an_abandoned_batch_that_no_longer_applies_is_rolled_back(world, hash_embedder):
    """Cut after the batch document of a supersession was written (nothing else landed); then
    another process retracts the old fact (a concurrent writer wins). Past the lease, the
    sweeper finds the conditional step no longer applies (the fact is not what the batch saw):
    it rolls the batch back — nothing of it is written, the retraction stands, and the log holds
    the retraction only."""
    cluster, old = world
    store = open_store(cluster, hash_embedder)
    svc = MemoryService(store, clock=fixed_clock(NOW))
    cluster.arm({})
    start = len(cluster.requests)

    def die(req):
        cluster.dead = True  # the process dies as its first bulk leaves: nothing more is sent
        raise Crash("died")
    cluster.on("PUT", "/_bulk", die)
    with pytest.raises(Crash):
        supersede(svc, old)
    assert any("/_create/batch_" in r.path for r in cluster.requests[start:])
    cluster.routes.clear()
    cluster.revive()
    other = MemoryService(open_store(cluster, hash_embedder), clock=fixed_clock(NOW))
    retract(other, old)
    later = open_store(cluster, hash_embedder, offset=LATER)
    assert later.swept == {"committed": 0, "rolled_back": 1, "left": 0}
    (fact,) = later.list_facts("u")
    assert fact.id == old.id and fact.state == FactState.RETRACTED
    assert sorted(e.action for e in later.audit("u")) == ["retract", "write_fact"]


def test_inv470_a_forget_writes_no_deleted_text_into_its_batch_document(world, hash_embedder):
    """A forget deletes the fact; its batch document keeps the delete's before-image as a
    digest only, and once decided the document holds no step at all."""
    cluster, old = world
    store = open_store(cluster, hash_embedder)
    svc = MemoryService(store, clock=fixed_clock(NOW))
    cluster.arm({})
    start = len(cluster.requests)
    svc.forget("u", old.id, actor="cli")
    (created,) = [r for r in cluster.requests[start:] if "/_create/batch_" in r.path]
    (delete,) = [s for s in created.body["body"]["steps"] if s["op"] == "delete"]
    assert set(delete["before"]) == {"digest", "seq_no", "term"}
    assert "Bristol" not in str(created.body)
    marker = cluster.docs["memdesk-state"][created.path.rsplit("/", 1)[1]]["src"]
    assert marker["state"] == intents.COMMITTED and "body" not in marker


def test_inv470_inv92_an_outcome_this_process_could_not_learn_is_settled_at_its_next_write(
        world, hash_embedder):
    """The conditional bulk of a supersession lands but its answer is lost, and so is the
    read-back: the writer cannot know, sends nothing more and leaves the batch pending (an
    error says so). Its next write settles that batch first — no lease to wait for, the writer
    is this process — rolling it forward, then writes."""
    cluster, old = world
    store = open_store(cluster, hash_embedder)
    svc = MemoryService(store, clock=fixed_clock(NOW))
    cluster.arm_at("/_bulk", ["lost", "lost"])  # the first bulk, then its read-back
    with pytest.raises(MemdeskError, match="recorded pending"):
        supersede(svc, old)
    assert len(store._unsettled) == 1
    svc.write_fact("u", "Likes tea")  # settles the earlier batch first
    assert not store._unsettled
    facts = {f.text: f for f in store.list_facts("u")}
    assert facts["Lives in Bristol"].state == FactState.SUPERSEDED
    assert facts["Lives in Edinburgh"].state == FactState.ACTIVE
    assert facts["Likes tea"].state == FactState.ACTIVE
    assert sorted(e.action for e in store.audit("u")).count("supersede") == 1


def test_inv470_inv481_a_forget_reports_pending_batch_documents_as_residue(world, hash_embedder):
    """A batch document still pending (its writer stopped less than the lease ago) holds its
    steps' text; compact(), run after every forget, sweeps first and names what it must leave."""
    cluster, old = world
    store = open_store(cluster, hash_embedder)
    cluster.arm_at("/_bulk", ["crash"])  # a writer dies right after writing its batch document
    with pytest.raises(Crash):
        supersede(MemoryService(store, clock=fixed_clock(NOW)), old)
    cluster.revive()
    reader = open_store(cluster, hash_embedder)
    cluster.on("POST", r"/.*/_forcemerge", (200, {"task": "node-1:11"}))
    residue = reader.compact()
    assert residue and residue[0].startswith("1 batch document(s) still pending")
    later = open_store(cluster, hash_embedder, offset=LATER)  # past the lease: decided
    assert not any("batch document" in r for r in later.compact())


def test_inv470_recall_drops_a_record_of_a_batch_not_committed(hash_embedder):
    """Recall legs (and the rrf retriever) leave out hits stamped with a pending batch; one mget
    of the batch document decides, and a committed batch is remembered (no second mget)."""
    from memory.models import Fact
    from memory.stores.base import RecallFilter
    from memory.stores.elasticsearch.results import to_source
    from tests.es.conftest import Cluster, search_answer, source_hit

    cluster = Cluster()
    store = ElasticsearchStore(URL, hash_embedder, client=make_client(cluster))
    fact = Fact(user_id="u", text="Likes green tea", fact_type="preference", confidence=0.9,
                recorded_at=NOW, valid_from=NOW)
    src = {k: v for k, v in to_source(fact, hash_embedder.embed(["tea"])[0]).items()
           if k != "vector"} | {"batch": "batch_p"}
    cluster.on("POST", r"/.*/_search", lambda req: (200, search_answer(req, [
        source_hit("memdesk-semantic-v3", src, 2.0)])))
    state = {"state": intents.PENDING}
    cluster.on("POST", "/_mget", lambda req: (200, {"docs": [
        {"_index": "memdesk-state-v3", "_id": "batch_p", "found": True, "_seq_no": 1,
         "_primary_term": 1, "_source": {"type": "batch", "name": "batch_p", **state,
                                         "body": {"steps": []}}}]}))
    flt = RecallFilter(user_id="u")
    assert store.search_bm25(flt, "tea", 10) == []
    state["state"] = intents.COMMITTED
    assert [h.doc.id for h in store.search_bm25(flt, "tea", 10)] == [fact.id]
    mgets = len(cluster.find("POST", "/_mget"))
    store.search_bm25(flt, "tea", 10)
    assert len(cluster.find("POST", "/_mget")) == mgets  # committed: remembered
    store.close()
