"""Session context on Elasticsearch (issue 17; invariants 101 and 104): the pure context of a
turn, the session read and the context bulk a landed batch sends (only turns whose context
changed), a forgotten turn leaving its neighbours' context before it is deleted, the recall
clause, and `memdesk es reindex` recomputing every session. Request shapes on the recording
transport (tests/es/conftest.py); the live variant is in tests/es/test_live.py."""

from __future__ import annotations

import json
import logging
import re
from datetime import timedelta

import pytest

from memory.clock import fixed_clock
from memory.corrections import bumped as bump
from memory.errors import MemdeskError
from memory.lexical import session_contexts
from memory.models import Episode, MemoryKind
from memory.service import MemoryService
from memory.stores.base import DeleteMemory, PutMemory, RecallFilter, UpdateMemory
from memory.stores.elasticsearch import context
from memory.stores.elasticsearch.indices import IndexNames
from memory.stores.elasticsearch.reindex import recompute_contexts
from memory.stores.elasticsearch.results import to_source
from memory.stores.elasticsearch.writes import keep_context
from memory.stores.user_view import IndexParams
from tests.conftest import NOW
from tests.es.conftest import bulk_answer, doc_answer, make_client, search_answer, source_hit

T = [NOW + timedelta(minutes=i) for i in range(6)]
TEXTS = ["We took the beagle to the vet on Monday", "She said he needs a second jab",
         "Danach gingen wir in den Görlitzer Park 🌳", "Then we went for pizza"]
SESSION_READ = {"query": {"bool": {"filter": [{"term": {"user_id": "ana"}},
                                              {"terms": {"session_id": ["s1"]}}]}},
                "sort": [{"timestamp": "asc"}, {"id": "asc"}], "size": 1000,
                "track_total_hits": False}
READ_PARAMS = {"_source_excludes": "vector",
               "_source_includes": "id,session_id,text,timestamp,context"}


def turn(i: int, text: str | None = None, *, session: str = "s1", user: str = "ana") -> Episode:
    return Episode(id=f"ep_{i}", user_id=user, text=TEXTS[i] if text is None else text,
                   timestamp=T[i], session_id=session, recorded_at=NOW)


def stored(ep: Episode, ctx: str | None = None) -> dict:
    """A turn as the session read returns it (SESSION_FIELDS)."""
    src = {k: v for k, v in ep.model_dump(mode="json").items() if k in context.SESSION_FIELDS}
    return {**src, "context": ctx} if ctx is not None else src


def full(ep: Episode, embedder, ctx: str | None = None) -> dict:
    """A turn as the store keeps it (what mget and get return: no vector)."""
    src = to_source(ep, embedder.embed([ep.search_text()])[0])
    src.pop("vector", None)
    return {**src, "context": ctx} if ctx is not None else src


def answer_session(cluster, turns: list[dict]) -> None:
    cluster.on("POST", "/memdesk-episodic/_search", lambda req: (200, search_answer(
        req, [source_hit("memdesk-episodic-v2", s, sort=[s["timestamp"], s["id"]])
              for s in turns])))


def answer_mget(cluster, docs: dict[str, dict]) -> None:
    cluster.on("POST", "/_mget", lambda req: (200, {"docs": [
        doc_answer(d["_index"], docs.get(d["_id"]), d["_id"]) for d in req.body["docs"]]}))


def context_bulks(cluster) -> list:
    return [r for r in cluster.find("PUT", "/_bulk")
            if r.body and "update" in r.body[0] and "doc" in r.body[1]]


def pairs(req) -> list[tuple[str, str]]:
    out = []
    for action, src in req.bulk_pairs:
        assert action == {"update": {"_index": "memdesk-episodic", "_id": action["update"]["_id"],
                                     "retry_on_conflict": 3}}  # partial update, never an upsert
        assert set(src) == {"doc"} and set(src["doc"]) == {"context"}
        out.append((action["update"]["_id"], src["doc"]["context"]))
    return out


# --- the pure context of a turn --------------------------------------------------------------
def test_context_is_the_neighbours_in_time_order_without_the_turn():
    turns = [(f"ep_{i}", TEXTS[i], T[i]) for i in (3, 0, 2, 1)]  # given out of order
    got = session_contexts(turns, 2)
    assert got == {
        "ep_0": f"{TEXTS[1]}\n{TEXTS[2]}",  # at the start: only later turns
        "ep_1": f"{TEXTS[0]}\n{TEXTS[2]}\n{TEXTS[3]}",
        "ep_2": f"{TEXTS[0]}\n{TEXTS[1]}\n{TEXTS[3]}",
        "ep_3": f"{TEXTS[1]}\n{TEXTS[2]}",  # at the end: only earlier turns
    }
    assert "Görlitzer Park 🌳" in got["ep_1"]  # text is text, not ASCII
    assert session_contexts(turns, 1)["ep_2"] == f"{TEXTS[1]}\n{TEXTS[3]}"


def test_ties_in_time_are_ordered_by_id_and_trivial_sessions_have_no_context():
    same = [("ep_b", "second", T[0]), ("ep_c", "third", T[0]), ("ep_a", "first", T[0])]
    assert session_contexts(same, 1) == {"ep_a": "second", "ep_b": "first\nthird",
                                         "ep_c": "second"}
    assert session_contexts([("ep_a", "alone", T[0])], 2) == {"ep_a": ""}
    assert session_contexts(same, 0) == {"ep_a": "", "ep_b": "", "ep_c": ""}
    assert session_contexts([], 2) == {}


def test_touched_sessions_follow_text_place_and_deletes():
    t1 = turn(1)
    current = {("episodic", "ep_1"): {"src": t1.model_dump(mode="json"), "seq_no": 1, "term": 1}}
    same_text = UpdateMemory(doc=bump(t1), expected_rev=1)  # a new revision, same words and place
    assert context.touched_sessions([same_text], current) == set()
    moved = UpdateMemory(doc=bump(t1, session_id="s2"), expected_rev=1)
    assert context.touched_sessions([moved], current) == {("ana", "s1"), ("ana", "s2")}
    reworded = UpdateMemory(doc=bump(t1, text="She said he needs a booster"), expected_rev=1)
    assert context.touched_sessions([reworded], current) == {("ana", "s1")}
    gone = DeleteMemory(kind=MemoryKind.EPISODIC, user_id="ana", id="ep_1")
    assert context.touched_sessions([gone], current) == {("ana", "s1")}
    # another user's id is not this user's session; an episode without a session has none
    assert context.touched_sessions([gone.model_copy(update={"user_id": "ben"})], current) == set()
    loose = Episode(user_id="ana", text="no session")
    assert context.touched_sessions([PutMemory(doc=loose)], {}) == set()


def test_keep_context_only_at_the_same_place():
    old = {"kind": "episodic", "user_id": "ana", "session_id": "s1", "timestamp": "t",
           "text": "a", "context": "b\nc"}
    reworded = {**old, "text": "a2"}
    del reworded["context"]
    keep_context(reworded, old)
    assert reworded["context"] == "b\nc"  # a turn's own words are not in its context
    moved = {k: v for k, v in {**old, "session_id": "s2"}.items() if k != "context"}
    keep_context(moved, old)
    assert "context" not in moved


# --- writes ------------------------------------------------------------------------------------
def test_inv101_a_new_session_gets_its_contexts_in_one_bulk_after_the_batch(cluster, es_store):
    eps = [turn(i) for i in range(3)]
    es_store.apply([PutMemory(doc=e) for e in eps])
    (batch, ctx_bulk) = cluster.find("PUT", "/_bulk")
    assert [a["create"]["_id"] for a, _ in batch.bulk_pairs] == ["ep_0", "ep_1", "ep_2"]
    (read,) = cluster.find("POST", "/memdesk-episodic/_search")
    assert read.body == SESSION_READ and read.params == READ_PARAMS
    assert not cluster.find("POST", r"/.*/_refresh")  # nothing unrefreshed before this batch
    # the read does not see the unrefreshed batch yet: its own episodes are merged in
    assert ctx_bulk.params == {"refresh": "false", "require_alias": "true"}
    assert pairs(ctx_bulk) == [("ep_0", f"{TEXTS[1]}\n{TEXTS[2]}"),
                               ("ep_1", f"{TEXTS[0]}\n{TEXTS[2]}"),
                               ("ep_2", f"{TEXTS[0]}\n{TEXTS[1]}")]
    # the batch: its document created, its bulk, the commit flip (issue 31); then the follow-up
    assert [re.sub(r"batch_\w+", "batch_ID", r.path) for r in cluster.requests] == [
        "/memdesk-state/_create/batch_ID", "/_bulk", "/memdesk-state/_doc/batch_ID",
        "/memdesk-episodic/_search", "/_bulk"]
    assert "memdesk-episodic" in es_store._dirty  # a listing read refreshes it (invariant 24)


def test_inv101_only_turns_whose_context_changed_are_written(cluster, es_store):
    old = [turn(i) for i in range(3)]
    answer_session(cluster, [stored(old[0], f"{TEXTS[1]}\n{TEXTS[2]}"),
                             stored(old[1], f"{TEXTS[0]}\n{TEXTS[2]}"),
                             stored(old[2], f"{TEXTS[0]}\n{TEXTS[1]}")])
    es_store._dirty.add("memdesk-episodic")  # an earlier episode of this process, unrefreshed
    es_store.apply([PutMemory(doc=turn(3))])
    paths = [f"{r.method} {r.path}" for r in cluster.requests if "batch_" not in r.path]
    assert paths == ["PUT /_bulk", "POST /memdesk-episodic/_refresh",
                     "POST /memdesk-episodic/_search", "PUT /_bulk"]
    # ep_0's neighbours (ep_1, ep_2) are unchanged: it is not rewritten
    assert pairs(context_bulks(cluster)[0]) == [
        ("ep_1", f"{TEXTS[0]}\n{TEXTS[2]}\n{TEXTS[3]}"),
        ("ep_2", f"{TEXTS[0]}\n{TEXTS[1]}\n{TEXTS[3]}"),
        ("ep_3", f"{TEXTS[1]}\n{TEXTS[2]}")]


def test_an_unchanged_session_sends_no_context_bulk_and_a_loose_episode_no_read(cluster, es_store):
    eps = [turn(i) for i in range(2)]
    answer_session(cluster, [stored(eps[0], TEXTS[1]), stored(eps[1], TEXTS[0])])
    answer_mget(cluster, {"ep_0": full(eps[0], es_store.embedder, TEXTS[1]),
                          "ep_1": full(eps[1], es_store.embedder, TEXTS[0])})
    cluster.on("PUT", "/_bulk", lambda req: bulk_answer(req, [409] * len(req.bulk_pairs)))
    es_store.apply([PutMemory(doc=e) for e in eps])  # a retried batch: both already there
    (creates,) = cluster.find("PUT", "/_bulk")  # converged; the contexts are right: no bulk
    assert [next(iter(a)) for a, _ in creates.bulk_pairs] == ["create", "create"]
    assert len(cluster.find("POST", "/memdesk-episodic/_search")) == 1
    cluster.requests.clear()
    cluster.on("PUT", "/_bulk", bulk_answer)
    es_store.apply([PutMemory(doc=Episode(user_id="ana", text="no session", recorded_at=NOW))])
    assert len(cluster.find("PUT", "/_bulk")) == 1
    assert not cluster.find("POST", "/memdesk-episodic/_search")


def test_an_update_keeps_its_own_context_and_its_neighbours_get_the_new_words(cluster, es_store):
    eps = [turn(i) for i in range(3)]
    ctx = {0: f"{TEXTS[1]}\n{TEXTS[2]}", 1: f"{TEXTS[0]}\n{TEXTS[2]}", 2: f"{TEXTS[0]}\n{TEXTS[1]}"}
    answer_mget(cluster, {"ep_1": full(eps[1], es_store.embedder, ctx[1])})
    answer_session(cluster, [stored(e, ctx[i]) for i, e in enumerate(eps)])
    new = bump(eps[1], text="She said he needs a booster")
    es_store.apply([UpdateMemory(doc=new, expected_rev=1)])
    write, ctx_bulk = cluster.find("PUT", "/_bulk")
    ((action, src),) = write.bulk_pairs
    assert action["index"]["_id"] == "ep_1" and src["text"] == new.text
    assert src["context"] == ctx[1]  # carried: its neighbours did not change
    assert pairs(ctx_bulk) == [("ep_0", f"{new.text}\n{TEXTS[2]}"),
                               ("ep_2", f"{TEXTS[0]}\n{new.text}")]


def test_a_failed_context_follow_up_leaves_the_batch_applied_and_says_so(cluster, es_store, caplog):
    cluster.on("POST", "/memdesk-episodic/_search", (503, {"error": {
        "type": "search_phase_execution_exception", "reason": "all shards failed"}}))
    svc = MemoryService(es_store, clock=fixed_clock(NOW))
    with caplog.at_level(logging.WARNING, logger="memory.stores.elasticsearch.store"):
        eps = svc.write_episodes("ana", [(TEXTS[0], T[0], "vet-day"), (TEXTS[1], T[1], "vet-day")])
    assert len(eps) == 2
    batch, audit = cluster.find("PUT", "/_bulk")  # both phases landed; no context bulk
    assert [a["create"]["_id"] for a, _ in batch.bulk_pairs] == [e.id for e in eps]
    (warning,) = [r for r in caplog.records if "session context" in r.getMessage()]
    assert "'ana'" in warning.getMessage() and "vet-day" in warning.getMessage()
    # derived data: the batch's audit events are its own writes, nothing for the context
    assert {s["action"] for _, s in audit.bulk_pairs} == {"write_episode"}


# --- forgetting (invariant 104) ----------------------------------------------------------------
KEY = "ab" * 32


def test_inv104_a_forgotten_turn_leaves_its_neighbours_context_before_it_is_deleted(cluster, es_store):
    eps = [turn(i) for i in range(4)]
    secret = eps[1].text
    ctx = {i: "\n".join(e.text for j, e in enumerate(eps) if j != i and abs(j - i) <= 2)
           for i in range(4)}
    cluster.on("GET", "/memdesk-episodic/_doc/ep_1", (200, doc_answer(
        "memdesk-episodic", full(eps[1], es_store.embedder, ctx[1]), "ep_1")))
    cluster.on("GET", "/memdesk-state/_doc/secret_value_key", (200, doc_answer(
        "memdesk-state", {"type": "secret", "name": "value_key", "encoded": KEY},
        "secret_value_key")))
    answer_mget(cluster, {"ep_1": full(eps[1], es_store.embedder, ctx[1])})
    answer_session(cluster, [stored(e, ctx[i]) for i, e in enumerate(eps)])  # ep_1 still there
    start = len(cluster.requests)
    svc = MemoryService(es_store, clock=fixed_clock(NOW))
    res = svc.forget("ana", "ep_1", actor="cli")
    assert res.forgotten == ["ep_1"]
    sent = cluster.requests[start:]
    steps = [f"{r.method} {r.path}" for r in sent]
    scrub, delete, audit, follow = cluster.find("PUT", "/_bulk")
    # (1) redaction: the neighbours' contexts without the forgotten turn, visible at once
    assert scrub.params == {"refresh": "wait_for", "require_alias": "true"}
    # the remaining turns close up: ep_0 now reaches ep_3 within ±2
    assert pairs(scrub) == [("ep_0", f"{TEXTS[2]}\n{TEXTS[3]}"),
                            ("ep_2", f"{TEXTS[0]}\n{TEXTS[3]}"),
                            ("ep_3", f"{TEXTS[0]}\n{TEXTS[2]}")]
    # (2) then the delete, conditional, and its forget event
    ((action, _),) = delete.bulk_pairs
    assert action == {"delete": {"_index": "memdesk-episodic", "_id": "ep_1", "if_seq_no": 7,
                                 "if_primary_term": 2}}
    assert steps.index("POST /_mget") < steps.index("POST /memdesk-episodic/_search")
    assert sent.index(scrub) < sent.index(delete)
    # (3) the delete's own follow-up computes the same contexts (the canned read still shows
    # the old ones), never from the forgotten turn
    assert follow.params == {"refresh": "false", "require_alias": "true"} and pairs(follow) == pairs(scrub)
    # invariant 66: the forgotten text is in no request sent from the forget on
    assert all(secret not in json.dumps([r.body, r.params], ensure_ascii=False) for r in sent)
    assert {a["create"]["_index"] for a, _ in audit.bulk_pairs} == {"memdesk-audit"}


def test_inv104_a_plain_delete_drops_the_turn_from_its_neighbours(cluster, es_store):
    eps = [turn(i) for i in range(3)]
    answer_mget(cluster, {"ep_0": full(eps[0], es_store.embedder, f"{TEXTS[1]}\n{TEXTS[2]}")})
    answer_session(cluster, [stored(eps[1], f"{TEXTS[0]}\n{TEXTS[2]}"),
                             stored(eps[2], f"{TEXTS[0]}\n{TEXTS[1]}")])
    es_store.apply([DeleteMemory(kind=MemoryKind.EPISODIC, user_id="ana", id="ep_0")])
    _, ctx_bulk = cluster.find("PUT", "/_bulk")
    assert pairs(ctx_bulk) == [("ep_1", TEXTS[2]), ("ep_2", TEXTS[1])]
    assert all(TEXTS[0] not in c for _, c in pairs(ctx_bulk))


def test_inv104_when_the_neighbours_cannot_be_rewritten_nothing_is_forgotten_yet(cluster, es_store):
    eps = [turn(i) for i in range(2)]
    cluster.on("GET", "/memdesk-episodic/_doc/ep_1", (200, doc_answer(
        "memdesk-episodic", full(eps[1], es_store.embedder, TEXTS[0]), "ep_1")))
    answer_mget(cluster, {"ep_1": full(eps[1], es_store.embedder, TEXTS[0])})
    answer_session(cluster, [stored(eps[0], TEXTS[1]), stored(eps[1], TEXTS[0])])
    cluster.on("PUT", "/_bulk", lambda req: bulk_answer(req, [429] * len(req.bulk_pairs)))
    svc = MemoryService(es_store, clock=fixed_clock(NOW))
    with pytest.raises(MemdeskError, match="context update of episode ep_0 failed"):
        svc.forget("ana", "ep_1", actor="cli")
    (only,) = cluster.find("PUT", "/_bulk")  # the failed scrub; no delete was sent
    assert pairs(only) == [("ep_0", "")]


# --- recall --------------------------------------------------------------------------------------
def test_both_bm25_legs_carry_the_context_clause_and_window_zero_drops_it(cluster, es_store):
    es_store.search_bm25(RecallFilter(user_id="ana"), "beagle vet", 10)
    (req,) = cluster.find("POST", r"/[^_].*/_search")
    assert req.body["query"]["bool"]["should"][1] == {
        "match": {"context": {"query": "beagle vet", "operator": "or",
                              "boost": IndexParams().context_weight}}}
    es_store.index_params = IndexParams(window=0)
    cluster.requests.clear()
    es_store.search_bm25(RecallFilter(user_id="ana"), "beagle vet", 10)
    (req,) = cluster.find("POST", r"/[^_].*/_search")
    assert req.body["query"]["bool"]["must"] == [
        {"match": {"search_text": {"query": "beagle vet", "operator": "or"}}}]
    assert "should" not in req.body["query"]["bool"]


# --- memdesk es reindex ------------------------------------------------------------------------
def test_reindex_recomputes_every_session_and_writes_only_what_differs(cluster):
    a = [turn(i) for i in range(3)]
    b = [turn(i, session="s9", user="ben") for i in range(2)]
    rows = [{**stored(a[0], f"{TEXTS[1]}\n{TEXTS[2]}"), "user_id": "ana"},  # right already
            {**stored(a[1]), "user_id": "ana"},  # never filled (moved from mapping version 1)
            {**stored(a[2], "stale words"), "user_id": "ana"},
            {**stored(b[0]), "user_id": "ben"}, {**stored(b[1]), "user_id": "ben"}]
    cluster.on("POST", "/memdesk-episodic/_search", lambda req: (200, search_answer(
        req, [source_hit("memdesk-episodic-v2", s, sort=[s["user_id"], s["session_id"],
                                                         s["timestamp"], s["id"]])
              for s in rows])))
    events = []
    n = recompute_contexts(make_client(cluster), IndexNames("memdesk"), 2,
                           progress=events.append)
    assert n == 4
    (scan,) = cluster.find("POST", "/memdesk-episodic/_search")
    assert scan.body == {"query": {"bool": {"filter": [{"exists": {"field": "session_id"}}]}},
                         "sort": [{"user_id": "asc"}, {"session_id": "asc"},
                                  {"timestamp": "asc"}, {"id": "asc"}],
                         "size": 1000, "track_total_hits": False}
    assert scan.params == {"_source_includes": "user_id,id,session_id,text,timestamp,context"}
    (bulk,) = context_bulks(cluster)
    assert bulk.params == {"refresh": "false"}
    assert pairs(bulk) == [("ep_1", f"{TEXTS[0]}\n{TEXTS[2]}"), ("ep_2", f"{TEXTS[0]}\n{TEXTS[1]}"),
                           ("ep_0", TEXTS[1]), ("ep_1", TEXTS[0])]  # ben's s9 after ana's s1
    assert [r.path for r in cluster.find("POST", r"/.*/_refresh")] == [
        "/memdesk-episodic/_refresh", "/memdesk-episodic/_refresh"]  # before the scan, after
    assert [(e.index, e.step, e.done, e.total) for e in events] == [("episodic", "contexts", 4, 5)]
