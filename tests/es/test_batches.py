"""A batch is all-or-nothing under concurrency (issue 16, invariants 23, 92).

Each test drives the real client through a recording transport whose bulk answers are scripted
per request, the way Elasticsearch answers them: every item of a bulk succeeds or fails on its
own ("The success or failure of an individual operation does not affect other operations in the
request", https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-bulk.html), and a
conditional write whose `if_seq_no`/`if_primary_term` no longer match answers 409
version_conflict_engine_exception (https://www.elastic.co/guide/en/elasticsearch/reference/8.15/optimistic-concurrency-control.html).
"""

from __future__ import annotations

import pytest
from elastic_transport import ConnectionTimeout

from memory.clock import fixed_clock
from memory.corrections import bumped as bump
from memory.errors import ConflictError, MemdeskError, StoreUnavailableError
from memory.models import FactState
from memory.service import MemoryService
from memory.stores.base import SetWatermark
from memory.stores.elasticsearch.results import to_source
from memory.stores.elasticsearch.writes import watermark_id
from tests.conftest import NOW
from tests.es.conftest import bulk_answer, doc_answer


def stored(doc, embedder) -> dict:
    src = to_source(doc, embedder.embed([doc.search_text()])[0])
    src.pop("vector")  # the store asks for sources without vectors
    return src


class Script:
    """Bulk answers in order (callables of the request); the last one repeats. mget answers
    from `docs` ({id: source}), which a test may change between calls."""

    def __init__(self, cluster, *answers):
        self.answers, self.docs, self.seq = list(answers), {}, {}
        cluster.on("PUT", "/_bulk", self.bulk)
        cluster.on("POST", "/_mget", self.mget)

    def bulk(self, req):
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        return answer(req) if callable(answer) else answer

    def mget(self, req):
        return 200, {"docs": [doc_answer(d["_index"], self.docs.get(d["_id"]), d["_id"],
                                         seq_no=self.seq.get(d["_id"], 7))
                              for d in req.body["docs"]]}


def ok(req, seq_no=20):
    return bulk_answer(req, seq_no=seq_no, term=3)


@pytest.fixture
def svc(es_store):
    return MemoryService(es_store, clock=fixed_clock(NOW))


@pytest.fixture
def old(svc, cluster, es_store):
    """An active fact the store holds at revision 1, `_seq_no` 7 (owner check reads it too)."""
    fact = svc.build_fact("u", "Lives in Bristol", fact_type="identity")
    cluster.on("GET", "/memdesk-semantic/_doc/" + fact.id,
               (200, doc_answer("memdesk-semantic", stored(fact, es_store.embedder), fact.id)))
    return fact


def bulk_kinds(cluster) -> list[list[str]]:
    """Each bulk sent, as its "op index" items."""
    return [[f"{next(iter(a))} {next(iter(a.values()))['_index']}" for a, _ in r.bulk_pairs]
            for r in cluster.find("PUT", "/_bulk")]


def test_inv23_a_stale_batch_writes_nothing_when_the_first_bulk_answers_409(svc, cluster, es_store, old):
    """The contract test "a stale batch writes nothing" (tests/contract test_inv10) on
    Elasticsearch, where staleness can also appear *after* the check: the mget sees revision 1,
    then a concurrent writer moves the fact, so the first bulk answers 409. Before issue 16 the
    inserts and audit events rode in that same bulk and landed (both facts active, a
    `supersede` event for nothing); now the first bulk holds only the conditional write, and
    nothing else is sent."""
    script = Script(cluster, lambda req: bulk_answer(req, [409]))
    script.docs[old.id] = stored(old, es_store.embedder)
    moved = bump(old, text="Lives in Leeds")  # what the concurrent writer left
    script.answers.insert(0, lambda req: (script.docs.update({old.id: stored(moved, es_store.embedder)})
                                          or bulk_answer(req, [409])))
    with pytest.raises(ConflictError, match="changed while this batch was written.*nothing of the batch"):
        svc.write_fact("u", "Lives in Edinburgh", fact_type="identity", supersedes_id=old.id)
    assert bulk_kinds(cluster) == [["index memdesk-semantic"]]  # no insert, no audit, no undo
    with pytest.raises(ConflictError):
        svc.retract("u", old.id)  # a retraction: no tombstone for a fact that stayed active
    assert all("memdesk-tombstones" not in " ".join(b) and "memdesk-audit" not in " ".join(b)
               for b in bulk_kinds(cluster))


def test_inv23_a_failed_insert_undoes_the_update_at_the_seq_no_it_got(svc, cluster, es_store, old):
    """The conditional phase landed (the old fact is superseded, `_seq_no` 20, term 3), then
    the insert of the new fact is rejected (429 es_rejected_execution_exception, a per-item
    failure). The update is undone: the old source goes back with if_seq_no=20 /
    if_primary_term=3 — what the update returned — so a writer who came after it would win, not
    be overwritten; its vector is restored; no audit event is written."""
    script = Script(cluster, ok, lambda req: bulk_answer(req, [429]), ok)
    script.docs[old.id] = stored(old, es_store.embedder)
    with pytest.raises(MemdeskError, match="rejected 1 of the inserts.*nothing of the batch was kept"):
        svc.write_fact("u", "Lives in Edinburgh", fact_type="identity", supersedes_id=old.id)
    _conditional, _inserts, undo = cluster.find("PUT", "/_bulk")
    assert bulk_kinds(cluster)[1] == ["create memdesk-semantic"]
    ((action, restored),) = undo.bulk_pairs
    assert action == {"index": {"_index": "memdesk-semantic", "_id": old.id,
                                "if_seq_no": 20, "if_primary_term": 3}}
    assert restored["state"] == "active" and restored["rev"] == 1 and restored["superseded_by"] is None
    assert len(restored["vector"]) == es_store.embedder.dims
    assert undo.params == {"refresh": "wait_for", "require_alias": "true"}
    assert not any("memdesk-audit" in k for b in bulk_kinds(cluster) for k in b)


def test_inv23_inv23_audit_goes_last_and_a_failed_audit_undoes_everything(svc, cluster, es_store, old):
    """Audit events are sent only after every data write landed; when one of them fails the
    batch did not happen, so the new fact is deleted at the `_seq_no` its create returned, the
    old fact is restored, and the audit event that did land is deleted at its own seq_no."""
    script = Script(cluster, lambda req: ok(req, 20), lambda req: ok(req, 30),
                    lambda req: bulk_answer(req, [201, 400], seq_no=40, term=3, errors={
                        1: {"type": "mapper_parsing_exception", "reason": "failed to parse"}}),
                    ok)
    script.docs[old.id] = stored(old, es_store.embedder)
    with pytest.raises(MemdeskError, match="audit events"):
        svc.write_fact("u", "Lives in Edinburgh", fact_type="identity", supersedes_id=old.id)
    kinds = bulk_kinds(cluster)
    assert kinds[:3] == [["index memdesk-semantic"], ["create memdesk-semantic"],
                         ["create memdesk-audit", "create memdesk-audit"]]
    undo = cluster.find("PUT", "/_bulk")[3]
    actions = [a for a, _ in undo.bulk_pairs]
    audit_id = cluster.find("PUT", "/_bulk")[2].bulk_pairs[0][0]["create"]["_id"]
    new_id = cluster.find("PUT", "/_bulk")[1].bulk_pairs[0][0]["create"]["_id"]
    assert actions == [  # newest first
        {"delete": {"_index": "memdesk-audit", "_id": audit_id, "if_seq_no": 40, "if_primary_term": 3}},
        {"delete": {"_index": "memdesk-semantic", "_id": new_id, "if_seq_no": 30, "if_primary_term": 3}},
        {"index": {"_index": "memdesk-semantic", "_id": old.id, "if_seq_no": 20, "if_primary_term": 3}}]


def test_inv92_a_usage_bump_between_read_and_write_is_not_a_conflict(svc, cluster, es_store, old):
    """Recall bumps use_count on the primary (a scripted update), which moves `_seq_no` without
    changing the fact. The 409 that causes is re-read: same revision, only usage moved, so the
    update is sent again at the new seq_no, keeping the bump."""
    script = Script(cluster, lambda req: bulk_answer(req, [409]), ok)
    script.docs[old.id] = stored(old, es_store.embedder)
    used = stored(old, es_store.embedder) | {"use_count": 5, "last_used_at": "2025-06-01T11:00:00Z"}

    def first(req):
        script.docs[old.id], script.seq[old.id] = used, 8  # a recall bumped it meanwhile
        return bulk_answer(req, [409])
    script.answers[0] = first
    res = svc.write_fact("u", "Lives in Edinburgh", fact_type="identity", supersedes_id=old.id)
    first_try, again = cluster.find("PUT", "/_bulk")[:2]
    assert next(iter(first_try.bulk_pairs[0][0].values()))["if_seq_no"] == 7
    (action, src), = again.bulk_pairs
    assert action["index"]["if_seq_no"] == 8 and src["use_count"] == 5
    assert src["state"] == "superseded" and src["superseded_by"] == res.fact.id
    assert [k for k in bulk_kinds(cluster)[2:]] == [["create memdesk-semantic"],
                                                    ["create memdesk-audit", "create memdesk-audit"]]


def test_inv92_a_phase_whose_answer_was_lost_is_read_back_not_resent(svc, cluster, es_store, old):
    """The first bulk timed out after it landed. Issue 31: nothing is resent blind — the
    phase's keys are read back (one mget, realtime:
    https://www.elastic.co/guide/en/elasticsearch/reference/8.15/docs-multi-get.html); the
    update is there, stamped with this batch's id, so it counts as landed and the batch goes on
    to its inserts, audit events and commit."""
    script = Script(cluster, ok)
    script.docs[old.id] = stored(old, es_store.embedder)

    def landed_then_lost(req):
        src = req.bulk_pairs[0][1]
        script.docs[old.id] = {k: v for k, v in src.items() if k != "vector"}
        script.seq[old.id] = 8
        return ConnectionTimeout("read timed out")
    script.answers.insert(0, landed_then_lost)
    res = svc.write_fact("u", "Lives in Edinburgh", fact_type="identity", supersedes_id=old.id)
    assert bulk_kinds(cluster) == [["index memdesk-semantic"], ["create memdesk-semantic"],
                                   ["create memdesk-audit", "create memdesk-audit"]]
    reads = cluster.find("POST", "/_mget")
    assert [d["_id"] for d in reads[-1].body["docs"]] == [old.id]  # the phase's key, read back
    assert res.fact.state == FactState.ACTIVE
    commit = cluster.find("PUT", "/memdesk-state/_doc/batch_.*")
    assert commit and commit[-1].params["if_seq_no"] == "0"  # compare-and-set on its create


def test_inv92_a_lost_answer_that_did_not_land_is_sent_once_more(svc, cluster, es_store, old):
    """The answer was lost and the read-back shows the fact still as the plan saw it: the update
    did not land, so it is sent again (at the seq_no read) — once."""
    script = Script(cluster, lambda req: ConnectionTimeout("read timed out"), ok)
    script.docs[old.id] = stored(old, es_store.embedder)
    svc.write_fact("u", "Lives in Edinburgh", fact_type="identity", supersedes_id=old.id)
    assert bulk_kinds(cluster)[:2] == [["index memdesk-semantic"], ["index memdesk-semantic"]]


def test_inv92_a_phase_lost_twice_leaves_the_batch_pending_for_the_sweeper(svc, cluster, es_store, old):
    """Lost, read back (not there), sent again, lost again: the outcome is unknown. Nothing
    more is sent and nothing is undone blind; the batch document stays pending (the sweeper
    decides from it) and the error says so."""
    script = Script(cluster, lambda req: ConnectionTimeout("read timed out"))
    script.docs[old.id] = stored(old, es_store.embedder)
    with pytest.raises(StoreUnavailableError, match="recorded pending.*next opened"):
        svc.write_fact("u", "Lives in Edinburgh", fact_type="identity", supersedes_id=old.id)
    assert bulk_kinds(cluster) == [["index memdesk-semantic"], ["index memdesk-semantic"]]
    assert not cluster.find("PUT", "/memdesk-state/_doc/batch_.*")  # no commit, no rollback mark
    assert len(es_store._unsettled) == 1


def test_inv92_a_retried_batch_is_detected_as_already_applied(cluster, es_store):
    """Re-applying a batch whose watermark move already landed sends nothing for it."""
    script = Script(cluster, ok)
    script.docs[watermark_id("u", "consolidation")] = {
        "type": "watermark", "user_id": "u", "name": "consolidation", "value": "ep_2"}
    es_store.apply([SetWatermark(user_id="u", name="consolidation", value="ep_2", expected="ep_1")])
    assert not cluster.find("PUT", "/_bulk")


def test_inv23_a_write_block_is_a_clear_unavailable_error_and_nothing_is_kept(svc, cluster, es_store):
    """A write-blocked index (a reindex is copying it) refuses each item with 403
    cluster_block_exception (index-modules-blocks.html); the batch says so and keeps nothing."""
    Script(cluster, lambda req: bulk_answer(req, [403], errors={0: {
        "type": "cluster_block_exception",
        "reason": "index [memdesk-semantic-v1] blocked by: [FORBIDDEN/8/index write (api)];"}}), ok)
    with pytest.raises(StoreUnavailableError, match="write-blocked.*memdesk es reindex.*Nothing"):
        svc.write_fact("u", "Likes tea")
    assert bulk_kinds(cluster) == [["create memdesk-semantic"]]  # nothing landed: nothing to undo


def test_inv23_an_undo_that_meets_a_later_writer_reports_what_is_left(svc, cluster, es_store, old):
    """If another writer changed the superseded fact after our update, the undo answers 409 and
    that writer's version is kept; the error names what could not be undone."""
    script = Script(cluster, ok, lambda req: bulk_answer(req, [429]),
                    lambda req: bulk_answer(req, [409]))
    script.docs[old.id] = stored(old, es_store.embedder)
    later = bump(bump(old, state=FactState.SUPERSEDED), text="Lives in York")

    def rejected(req):
        script.docs[old.id] = stored(later, es_store.embedder)
        return bulk_answer(req, [429])
    script.answers[1] = rejected
    with pytest.raises(MemdeskError, match=f"could not be fully undone: memdesk-semantic/{old.id}"):
        svc.write_fact("u", "Lives in Edinburgh", fact_type="identity", supersedes_id=old.id)


def test_inv23_a_whole_bulk_refused_after_the_first_phase_undoes_it(svc, cluster, es_store, old):
    """A bulk refused as a whole (413 when it exceeds http.max_content_length, 400 when it
    cannot be parsed) applied none of its items: the landed first phase is undone."""
    script = Script(cluster, ok, (413, {"error": {"type": "content_too_long_exception",
                                                  "reason": "request too large"}, "status": 413}), ok)
    script.docs[old.id] = stored(old, es_store.embedder)
    with pytest.raises(MemdeskError, match="refused the batch.*413.*nothing of it was kept"):
        svc.write_fact("u", "Lives in Edinburgh", fact_type="identity", supersedes_id=old.id)
    assert [k[0] for k in bulk_kinds(cluster)] == ["index memdesk-semantic", "create memdesk-semantic",
                                                   "index memdesk-semantic"]  # the third: the undo


def test_inv92_a_refused_login_is_not_mistaken_for_a_lost_answer(svc, cluster):
    """401/403 security_exception is an answer: the bulk is not sent again."""
    err = {"type": "security_exception", "reason": "action [indices:data/write/bulk] is unauthorized"}
    Script(cluster, (403, {"error": {"root_cause": [err], **err}, "status": 403}))
    with pytest.raises(StoreUnavailableError, match="refused the request.*403"):
        svc.write_fact("u", "Likes tea")
    assert len(bulk_kinds(cluster)) == 1
