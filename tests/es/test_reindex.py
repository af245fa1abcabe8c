"""`memdesk es reindex` never loses a write (issue 16, invariants 22 and 99).

The cluster below answers the requests as the APIs document them:
- `PUT /<index>/_block/write` returns once in-flight writes have completed, and afterwards
  writes fail with cluster_block_exception
  (https://www.elastic.co/guide/en/elasticsearch/reference/8.15/index-modules-blocks.html);
- `POST /_reindex?wait_for_completion=false` returns `{"task": "<node>:<id>"}` and the copy runs
  as a task (docs-reindex.html; rest-api-spec reindex.json `wait_for_completion`);
- `GET /_tasks/<id>` reports `completed`, `task.status` (total, created, updated,
  version_conflicts) and, once done, `response.failures` (tasks.html; rest-api-spec
  tasks.get.json).
"""

from __future__ import annotations

import functools

import pytest
from elastic_transport import ConnectionTimeout

from memory.cli import main
from memory.errors import MemdeskError, StoreUnavailableError
from memory.stores.elasticsearch import connection
from memory.stores.elasticsearch import reindex as reindex_module
from memory.stores.elasticsearch.indices import ALL_INDICES, MAPPING_VERSION, IndexNames, index_body
from tests.es.conftest import Cluster, make_client

NAMES = IndexNames("memdesk")
OLD, NEW, ALIAS = (NAMES.concrete("semantic", MAPPING_VERSION - 1), NAMES.concrete("semantic"),
                   "memdesk-semantic")
TASK = "nodeA:42"


class ReindexCluster:
    """The semantic alias on an old index; every other alias current. State is kept only where
    the run must read back what it changed (block, mapping _meta, task progress)."""

    def __init__(self, dims: int, *, blocked=False, new_exists=False, task_meta=None,
                 polls=None, counts=(3, 3)):
        self.cluster = c = Cluster()
        self.blocked, self.new_exists = blocked, new_exists
        self.meta = dict(index_body("semantic", "hash", dims)["mappings"]["_meta"])
        if task_meta:
            self.meta["reindex"] = {"from": OLD, "task": task_meta}
        self.polls = list(polls or [
            {"completed": False, "task": {"status": {"total": 3, "created": 1}}},
            {"completed": False, "task": {"status": {"total": 3, "created": 2}}},
            {"completed": True, "task": {"status": {"total": 3, "created": 3}},
             "response": {"total": 3, "created": 3, "failures": []}}])
        self.counts = dict(zip((OLD, NEW), counts, strict=False))
        for name in ALL_INDICES:
            if name != "semantic":
                c.on("GET", f"/_alias/memdesk-{name}", (200, {
                    NAMES.concrete(name): {"aliases": {f"memdesk-{name}": {}}}}))
        c.on("GET", f"/_alias/{ALIAS}", (200, {OLD: {"aliases": {ALIAS: {"is_write_index": True}}}}))
        c.on("GET", f"/{OLD}/_settings/index.blocks.write", lambda req: (200, {OLD: {"settings": (
            {"index": {"blocks": {"write": "true"}}} if self.blocked else {})}}))
        c.on("HEAD", f"/{NEW}", lambda req: (200 if self.new_exists else 404, {}))
        c.on("PUT", f"/{OLD}/_block/write", self.block)
        c.on("PUT", f"/{NEW}", self.create)
        c.on("DELETE", f"/{NEW}", self.delete)
        c.on("POST", "/_reindex", (200, {"task": TASK}))
        c.on("PUT", f"/{NEW}/_mapping", self.put_meta)
        c.on("GET", f"/{NEW}/_mapping", lambda req: (200, {NEW: {"mappings": {"_meta": self.meta}}}))
        c.on("GET", f"/_tasks/{TASK}", self.poll)
        c.on("POST", f"/{OLD}/_count", lambda req: (200, {"count": self.counts[OLD]}))
        c.on("POST", f"/{NEW}/_count", lambda req: (200, {"count": self.counts[NEW]}))
        c.on("PUT", f"/{OLD}/_settings", self.unblock)
        c.on("POST", "/_aliases", (200, {"acknowledged": True}))
        c.on("DELETE", f"/{OLD}", (200, {"acknowledged": True}))

    def block(self, req):
        self.blocked = True
        return 200, {"acknowledged": True, "shards_acknowledged": True,
                     "indices": [{"name": OLD, "blocked": True}]}

    def unblock(self, req):
        self.blocked = req.body != {"index.blocks.write": False}
        return 200, {"acknowledged": True}

    def create(self, req):
        self.new_exists = True
        return 200, {"acknowledged": True, "shards_acknowledged": True, "index": NEW}

    def delete(self, req):
        self.new_exists = False
        self.meta.pop("reindex", None)
        return 200, {"acknowledged": True}

    def put_meta(self, req):
        self.meta = req.body["_meta"]
        return 200, {"acknowledged": True}

    def poll(self, req):
        answer = self.polls.pop(0) if len(self.polls) > 1 else self.polls[0]
        if isinstance(answer, BaseException):
            return answer
        return 200, {"task": {"node": "nodeA", "id": 42, "action": "indices:data/write/reindex",
                              **answer.get("task", {})},
                     **{k: v for k, v in answer.items() if k != "task"}}

    def paths(self) -> list[str]:
        return [f"{r.method} {r.path}" for r in self.cluster.requests
                if not r.path.startswith("/_alias/") or ALIAS in r.path]


def run(rc: ReindexCluster, dims: int, **kw):
    events = []
    moved = reindex_module.reindex(make_client(rc.cluster), IndexNames("memdesk"), "hash", dims,
                    progress=events.append, sleep=lambda s: None, **kw)
    return moved, events


def test_inv99_block_then_copy_as_a_task_then_verify_then_swap(hash_embedder):
    rc = ReindexCluster(hash_embedder.dims)
    moved, events = run(rc, hash_embedder.dims)
    assert moved == [f"{OLD} -> {NEW}"]
    steps = rc.paths()
    # the block comes first: nothing written to the old index after it can be lost
    assert steps.index(f"PUT /{OLD}/_block/write") < steps.index("POST /_reindex")
    assert steps.index("POST /_reindex") < steps.index("POST /_aliases")
    (copy,) = rc.cluster.find("POST", "/_reindex")
    assert copy.params == {"wait_for_completion": "false"}
    assert copy.body == {"source": {"index": OLD}, "dest": {"index": NEW, "op_type": "create"},
                         "conflicts": "proceed"}
    assert len(rc.cluster.find("GET", f"/_tasks/{TASK}")) == 3  # polled until completed
    recorded, cleared = rc.cluster.find("PUT", f"/{NEW}/_mapping")
    assert recorded.body["_meta"]["reindex"] == {"from": OLD, "task": TASK}
    assert "reindex" not in cleared.body["_meta"] and cleared.body["_meta"]["embedder"] == "hash"
    (swap,) = rc.cluster.find("POST", "/_aliases")
    assert swap.body == {"actions": [
        {"remove": {"index": OLD, "alias": ALIAS}},
        {"add": {"index": NEW, "alias": ALIAS, "is_write_index": True}}]}
    copying = [(e.done, e.total) for e in events if e.step == "copying"]
    assert copying == [(1, 3), (2, 3), (3, 3)]
    assert [e.step for e in events if e.step != "copying"] == ["blocked", "copied", "swapped"]
    assert rc.blocked and not rc.cluster.find("DELETE", f"/{OLD}")  # kept as a blocked backup


def test_inv99_an_interrupted_run_resumes_the_same_task(hash_embedder):
    """The first run was cut off while the task ran: the old index is still write-blocked and
    the new one records the task. A re-run polls that task instead of starting a copy."""
    rc = ReindexCluster(hash_embedder.dims, blocked=True, new_exists=True, task_meta=TASK)
    moved, events = run(rc, hash_embedder.dims)
    assert moved == [f"{OLD} -> {NEW}"]
    assert not rc.cluster.find("POST", "/_reindex") and not rc.cluster.find("PUT", f"/{NEW}")
    assert not rc.cluster.find("PUT", f"/{OLD}/_block/write")  # already blocked
    assert "resuming" in [e.step for e in events] and rc.cluster.find("POST", "/_aliases")


def test_inv99_a_copy_left_by_a_run_whose_block_was_lifted_is_started_over(hash_embedder):
    """If the old index is writable again, the earlier partial copy may hold documents since
    updated or deleted there: it is deleted and the copy starts over under a new block."""
    rc = ReindexCluster(hash_embedder.dims, blocked=False, new_exists=True, task_meta="nodeA:1")
    run(rc, hash_embedder.dims)
    steps = rc.paths()
    assert steps.index(f"DELETE /{NEW}") < steps.index(f"PUT /{OLD}/_block/write") \
        < steps.index(f"PUT /{NEW}") < steps.index("POST /_reindex")


def test_inv99_lost_contact_while_polling_is_a_clear_resumable_error(hash_embedder):
    """A client timeout while the server task runs on is never an uncaught ConnectionTimeout:
    polling tolerates lost answers, then stops with how to resume; the block stays on (lifting
    it now would let writes land in an index that is still being copied)."""
    rc = ReindexCluster(hash_embedder.dims, polls=[ConnectionTimeout("read timed out")])
    with pytest.raises(StoreUnavailableError, match="task nodeA:42.*runs on.*re-run `memdesk es reindex` to resume"):
        run(rc, hash_embedder.dims)
    assert rc.blocked and not rc.cluster.find("PUT", f"/{OLD}/_settings")
    assert not rc.cluster.find("POST", "/_aliases")


def test_inv99_a_failed_copy_lifts_the_block_and_moves_nothing(hash_embedder):
    rc = ReindexCluster(hash_embedder.dims, polls=[{
        "completed": True, "task": {"status": {"total": 3, "created": 2}},
        "response": {"total": 3, "created": 2, "failures": [
            {"index": NEW, "id": "fact_1", "status": 400, "cause": {
                "type": "document_parsing_exception", "reason": "failed to parse"}}]}}])
    with pytest.raises(MemdeskError, match="failed.*writable again and nothing moved"):
        run(rc, hash_embedder.dims)
    (lift,) = rc.cluster.find("PUT", f"/{OLD}/_settings")
    assert lift.body == {"index.blocks.write": False} and not rc.blocked
    assert not rc.cluster.find("POST", "/_aliases")


def test_inv99_counts_that_differ_after_the_copy_move_nothing(hash_embedder):
    rc = ReindexCluster(hash_embedder.dims, counts=(3, 2))
    with pytest.raises(MemdeskError, match=f"{OLD} holds 3 documents but {NEW} 2"):
        run(rc, hash_embedder.dims)
    assert not rc.cluster.find("POST", "/_aliases") and not rc.blocked


def test_inv99_cli_shows_progress_and_reports_a_lost_cluster_in_one_line(monkeypatch, capsys, hash_embedder):
    rc = ReindexCluster(hash_embedder.dims)
    monkeypatch.setattr(connection, "Elasticsearch", functools.partial(
        connection.Elasticsearch, node_class=rc.cluster.node_class(), meta_header=False))
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setattr(reindex_module, "POLL_S", 0.0)
    assert main(["es", "reindex", "--store", "elasticsearch:http://127.0.0.1:9200",
                 "--delete-old"]) == 0
    out, err = capsys.readouterr()
    assert f"{OLD} -> {NEW}" in out and "semantic    [###" in err and "swapped" in err
    assert rc.cluster.find("DELETE", f"/{OLD}")  # --delete-old, only after the swap

    down = Cluster()
    down.on("GET", r"/_alias/.*", lambda req: ConnectionTimeout("connect timed out"))
    monkeypatch.setattr(connection, "Elasticsearch", functools.partial(
        connection.Elasticsearch.func, node_class=down.node_class(), meta_header=False))
    assert main(["es", "reindex", "--store", "elasticsearch:http://127.0.0.1:9200"]) == 6
    err = capsys.readouterr().err
    assert err.startswith("memdesk: error: no answer from Elasticsearch") and err.count("\n") == 1


def _cli_on(monkeypatch, rc) -> None:
    monkeypatch.setattr(connection, "Elasticsearch", functools.partial(
        connection.Elasticsearch, node_class=rc.cluster.node_class(), meta_header=False))
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setattr(reindex_module, "POLL_S", 0.0)


def test_inv8_a_reindex_is_one_audited_event_naming_the_actor_and_the_move(
        monkeypatch, hash_embedder):
    """The run is recorded once, through the unit of work, in the store it moved: the audit
    append is a `create` on the alias with require_alias (docs-bulk.html), after the swap."""
    rc = ReindexCluster(hash_embedder.dims)
    _cli_on(monkeypatch, rc)
    monkeypatch.setattr("memory.cli.es.cli_actor", lambda: "cli:ops")
    assert main(["es", "reindex", "--store", "elasticsearch:http://127.0.0.1:9200"]) == 0
    events = [(i, s) for i, r in enumerate(rc.cluster.requests) if r.path == "/_bulk"
              for a, s in r.bulk_pairs if a.get("create", {}).get("_index") == "memdesk-audit"]
    ((at, event),) = events
    assert (event["action"], event["actor"], event["user_id"]) == ("reindex", "cli:ops", "catalog")
    assert event["after"]["moved"] == [{"from": OLD, "to": NEW}]
    assert event["after"]["mapping_version"] == MAPPING_VERSION
    assert event["after"]["match_keys"] == {"recomputed": True, "written": 0, "seen": 0}
    assert rc.cluster.requests[at].params["require_alias"] == "true"
    swap = max(i for i, r in enumerate(rc.cluster.requests) if r.path == "/_aliases")
    assert at > swap


def test_inv8_a_reindex_by_an_actor_without_the_role_sends_nothing(monkeypatch, capsys,
                                                                      hash_embedder):
    rc = ReindexCluster(hash_embedder.dims)
    _cli_on(monkeypatch, rc)
    monkeypatch.setattr("memory.cli.es.cli_actor", lambda: "mcp:tok_1")
    assert main(["es", "reindex", "--store", "elasticsearch:http://127.0.0.1:9200"]) != 0
    assert "may not reindex" in capsys.readouterr().err
    assert rc.cluster.requests == []  # the role before any request, let alone a write
