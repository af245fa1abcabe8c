"""Issue 16 against a real cluster (`make test-es`): what the request-shape tests cannot show —
that Elasticsearch itself answers the phased batch, the write block and the reindex task the way
the store expects. Without MEMDESK_ES_URL this file is not collected (tests/conftest.py).

Not run on the machine this was written on (no cluster can run there): see the README."""

from __future__ import annotations

import os
import threading
from datetime import timedelta

import pytest

from memory.clock import fixed_clock
from memory.corrections import bumped as bump
from memory.errors import ConflictError, StoreUnavailableError, TombstoneError
from memory.models import Episode, FactState, Tombstone, TombstoneKind
from memory.service import MemoryService
from memory.stores.base import PutMemory, PutTombstone, RecallFilter, UpdateMemory
from memory.stores.elasticsearch import ElasticsearchStore, queries, tombkeys
from memory.stores.elasticsearch.indices import index_body
from memory.stores.elasticsearch.reindex import recompute_contexts, reindex
from memory.stores.elasticsearch.store import api_key_doc_id
from memory.stores.embedded import EmbeddedStore
from memory.text import normalise
from memory.values import KEY_VERSION, index_entry, probe
from tests.conftest import ES_SKIP_REASON, NOW, make_store


@pytest.fixture
def live(request, tmp_path, hash_embedder):
    if not os.environ.get("MEMDESK_ES_URL"):
        pytest.skip(ES_SKIP_REASON)
    store = make_store("elasticsearch", tmp_path, hash_embedder, request)
    yield store
    store.close()


def _interleave(store, after_read):
    """Run `after_read` once, right after the batch's up-front mget: a concurrent writer."""
    real = store._read_docs
    done = []

    def read(keys):
        out = real(keys)
        if keys and not done:
            done.append(True)
            after_read()
        return out
    store._read_docs = read


def test_live_inv23_a_write_between_check_and_bulk_leaves_nothing_half_written(live):
    svc = MemoryService(live, clock=fixed_clock(NOW))
    old = svc.write_fact("u", "Lives in Bristol", fact_type="identity").fact
    other = bump(old, text="Lives in Leeds")
    _interleave(live, lambda: live.apply([UpdateMemory(doc=other, expected_rev=1)]))
    with pytest.raises(ConflictError):
        svc.write_fact("u", "Lives in Edinburgh", fact_type="identity", supersedes_id=old.id)
    live.refresh()
    assert [f.text for f in svc.facts("u")] == ["Lives in Leeds"]  # no second active fact
    assert not svc.audit("u", action="supersede")


def test_live_inv92_a_usage_bump_between_check_and_bulk_is_absorbed(live):
    svc = MemoryService(live, clock=fixed_clock(NOW))
    old = svc.write_fact("u", "Lives in Bristol", fact_type="identity").fact
    _interleave(live, lambda: live.bump_usage("u", [(old.kind, old.id)], NOW))
    new = svc.write_fact("u", "Lives in Edinburgh", fact_type="identity", supersedes_id=old.id).fact
    live.refresh()
    kept = svc.get_fact("u", old.id)
    assert kept.state == FactState.SUPERSEDED and kept.use_count == 1
    assert svc.get_fact("u", new.id).state == FactState.ACTIVE


def test_live_inv23_a_failed_insert_undoes_the_update(live):
    """After the check, a concurrent writer takes the new fact's id with other content: the
    insert answers 409, so the supersession that already landed is undone."""
    svc = MemoryService(live, clock=fixed_clock(NOW))
    old = svc.write_fact("u", "Lives in Bristol", fact_type="identity").fact
    new = svc.build_fact("u", "Lives in Edinburgh", fact_type="identity")
    squatter = new.model_copy(update={"text": "Something else entirely"})
    _interleave(live, lambda: live.apply([PutMemory(doc=squatter)]))
    with pytest.raises(ConflictError, match="already exists"):
        live.apply([UpdateMemory(doc=bump(old, state=FactState.SUPERSEDED), expected_rev=1),
                    PutMemory(doc=new)])
    live.refresh()
    back = svc.get_fact("u", old.id)
    assert back.state == FactState.ACTIVE and back.rev == 1
    assert old.id in [h.id for h in svc.recall("u", "Bristol").hits]  # its vector came back too


def test_live_inv98_tombstone_similarity_matches_the_embedded_store(live, hash_embedder, tmp_path):
    tombs = [Tombstone(user_id="u", text=t, normalized=t.lower(), kind=TombstoneKind.RETRACTED,
                       actor="agent") for t in ("Lived in Bristol", "Lives in Bristol now", "Owns a boat")]
    live.apply([PutTombstone(tombstone=t) for t in tombs])
    ref = EmbeddedStore(tmp_path / "ref.db", hash_embedder)
    ref.apply([PutTombstone(tombstone=t) for t in tombs])
    query = hash_embedder.embed(["Lives in Bristol"])[0]
    got, want = live.nearest_tombstones("u", query, 3), ref.nearest_tombstones("u", query, 3)
    ref.close()
    assert [t.id for t, _ in got] == [t.id for t, _ in want]
    assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-6)


def test_live_inv98_no_episode_in_the_watermarks_millisecond_is_dropped(live):
    base = NOW.replace(microsecond=500)
    eps = [Episode(user_id="u", text=f"turn {i}", timestamp=base + timedelta(microseconds=d),
                   recorded_at=NOW) for i, d in enumerate((0, 400, 1500))]
    live.apply([PutMemory(doc=e) for e in eps])
    assert [e.id for e in live.list_episodes("u", after=eps[0].timestamp)] == [eps[1].id, eps[2].id]


def test_live_inv99_reindex_blocks_copies_and_swaps(live, hash_embedder):
    """Put the semantic alias on a `-v0` index (an older mapping version), then reindex."""
    svc = MemoryService(live, clock=fixed_clock(NOW))
    fact = svc.write_fact("u", "Likes green tea").fact
    es, names = live.es, live.names
    alias, old, new = names.alias("semantic"), names.concrete("semantic", 0), names.concrete("semantic")
    es.indices.create(index=old, **index_body("semantic", hash_embedder.name, hash_embedder.dims))
    es.reindex(source={"index": new}, dest={"index": old}, wait_for_completion=True, refresh=True)
    es.indices.update_aliases(actions=[{"remove": {"index": new, "alias": alias}},
                                       {"add": {"index": old, "alias": alias, "is_write_index": True}}])
    es.indices.delete(index=new)
    moved = reindex(es, names, hash_embedder.name, hash_embedder.dims, poll_s=0.2)
    assert moved == [f"{old} -> {new}"]
    assert set(es.indices.get_alias(name=alias)) == {new}
    assert es.indices.get_settings(index=old)[old]["settings"]["index"]["blocks"]["write"] == "true"
    with pytest.raises(Exception, match="cluster_block_exception"):
        es.index(index=old, id="x", document={"user_id": "u"})
    assert svc.get_fact("u", fact.id).text == "Likes green tea"
    svc.write_fact("u", "Likes oolong")  # writes go to the new index
    es.indices.delete(index=old)


def test_live_inv23_writes_to_a_blocked_index_are_a_clear_error(live):
    svc = MemoryService(live, clock=fixed_clock(NOW))
    live.es.indices.add_block(index=live.names.concrete("semantic"), block="write")
    try:
        with pytest.raises(StoreUnavailableError, match="write-blocked"):
            svc.write_fact("u", "Likes tea")
    finally:
        live.es.indices.put_settings(index=live.names.concrete("semantic"),
                                     settings={"index.blocks.write": False})


def test_live_inv95_per_user_keys_are_minted_not_stored(live):
    if not live.dls_available:
        pytest.skip(f"document-level security needs Platinum or the trial (licence: {live.licence})")
    svc = MemoryService(live, clock=fixed_clock(NOW))
    fact = svc.write_fact("ana", "Likes tea").fact
    row = live.bootstrap_user("ana")
    marker = live.es.get(index=live.names.alias("state"), id=api_key_doc_id("ana"))
    assert set(marker["_source"]) == {"type", "user_id"} and row["api_key_id"]  # no secret
    assert svc.get_fact("ana", fact.id).text == "Likes tea"  # read through the minted key


def test_live_inv101_inv104_a_turn_is_found_by_its_neighbours_words_until_they_are_forgotten(live):
    """Issue 17: the middle turn of a session is found by a word only its neighbour says
    (through its `context` field); once that neighbour is forgotten, the word finds nothing."""
    svc = MemoryService(live, clock=fixed_clock(NOW))
    first, middle, last = svc.write_episodes("u", [
        ("We took the beagle to the vet on Monday", NOW, "vet-day"),
        ("She said he needs a second jab", NOW + timedelta(minutes=1), "vet-day"),
        ("Then we went for pizza in Görlitz", NOW + timedelta(minutes=2), "vet-day")], actor="cli")
    live.refresh()
    flt = RecallFilter(user_id="u")
    assert middle.id in [h.doc.id for h in live.search_bm25(flt, "beagle", 10)]
    assert middle.id in [h.doc.id for h in live.search_bm25(flt, "Görlitz", 10)]
    alias = live.names.alias("episodic")
    assert live.es.get(index=alias, id=middle.id)["_source"]["context"] == (
        f"{first.text}\n{last.text}")
    svc.forget("u", first.id, actor="cli")
    live.refresh()
    assert live.search_bm25(flt, "beagle", 10) == []  # in no neighbour's context either
    # `memdesk es reindex` recomputes a context lost meanwhile, and only that one
    live.es.update(index=alias, id=last.id, doc={"context": ""}, refresh=True)
    assert recompute_contexts(live.es, live.names, live.index_params.window) == 1
    assert live.es.get(index=alias, id=last.id)["_source"]["context"] == middle.text


def _stale_keys(live, tomb_id: str, version: str) -> None:
    """What an older matcher left: other keys beside the value, and its version recorded."""
    live.es.update(index=live.names.alias("tombstones"), id=tomb_id, refresh=True,
                   doc={"match_key": "employer=acme corp",
                        "match_terms": ["employer:acme", "employer:corp"]})
    live.es.index(index=live.names.alias("state"), id=tombkeys.STATE_ID,
                  document=tombkeys.state_doc(version), refresh=True)


def _key_hits(live, text: str) -> list[str]:
    p = probe(text)
    body = queries.tombstone_keys(live.names, "u", p.keys, p.normalized, p.terms, 10)
    return [h["_id"] for h in live.es.search(**body)["hits"]["hits"]]


def test_live_inv63_a_key_rule_change_is_followed_on_open_and_a_forgotten_value_stays_keyless(
        live, hash_embedder):
    svc = MemoryService(live, clock=fixed_clock(NOW))
    acme = svc.write_fact("u", "Works at Acme Corp", actor="cli").fact
    dead = svc.retract("u", acme.id, actor="cli")
    zurich = svc.write_fact("u", "Lives in Zürich", actor="cli").fact
    gone = svc.retract("u", zurich.id, actor="cli")
    svc.forget("u", zurich.id, actor="cli")
    _stale_keys(live, dead.id, str(int(KEY_VERSION) - 1))
    assert dead.id not in _key_hits(live, "Employed by ACME Inc.")  # the old keys miss it
    again = ElasticsearchStore(live.es_url, hash_embedder, prefix=live.names.prefix)
    try:
        state = live.es.get(index=live.names.alias("state"), id=tombkeys.STATE_ID)
        assert state["_source"]["value"] == KEY_VERSION
        assert live.es.get(index=live.names.alias("tombstones"), id=dead.id)["_source"][
            "match_key"] == "employer=acm"
        assert _key_hits(live, "Employed by ACME Inc.") == [dead.id]
        hashed = live.es.get(index=live.names.alias("tombstones"), id=gone.id)["_source"]
        assert hashed["forgotten"] and hashed["text"] == ""
        assert "match_key" not in hashed and "match_terms" not in hashed
        with pytest.raises(TombstoneError):  # still dead by its keyed hash (invariant 66)
            MemoryService(again, clock=fixed_clock(NOW)).write_fact("u", "Lives in Zürich")
        ElasticsearchStore(live.es_url, hash_embedder, prefix=live.names.prefix).close()
        assert live.es.get(index=live.names.alias("state"), id=tombkeys.STATE_ID)[
            "_seq_no"] == state["_seq_no"]  # current: nothing recomputed or recorded again
    finally:
        again.close()


def test_live_inv63_two_processes_opening_at_once_agree(live, hash_embedder):
    texts = ["Works at Acme Corp", "Lives in Zürich", "Живёт в Москве", "Allergic to peanuts",
             *(f"Has {n} cats" for n in range(2, 40))]
    tombs = [Tombstone(user_id="u", text=t, normalized=normalise(t), kind=TombstoneKind.RETRACTED,
                       actor="cli") for t in texts]
    live.apply([PutTombstone(tombstone=t) for t in tombs])
    for t in tombs:
        live.es.update(index=live.names.alias("tombstones"), id=t.id, doc={"match_key": "stale"})
    _stale_keys(live, tombs[0].id, str(int(KEY_VERSION) - 1))
    opened: list[ElasticsearchStore] = []
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            opened.append(ElasticsearchStore(live.es_url, hash_embedder, prefix=live.names.prefix))
        except BaseException as exc:  # reported below: a thread's error is the test's
            errors.append(exc)
    threads = [threading.Thread(target=open_one) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for s in opened:
        s.close()
    assert not errors and len(opened) == 2
    live.es.indices.refresh(index=live.names.alias("tombstones"))
    for t in tombs:
        src = live.es.get(index=live.names.alias("tombstones"), id=t.id)["_source"]
        assert (src["match_key"], src["match_terms"]) == index_entry(t.text)
    assert live.es.get(index=live.names.alias("state"), id=tombkeys.STATE_ID)["_source"][
        "value"] == KEY_VERSION


class _Died(BaseException):  # noqa: N818 - the process stops here: nothing may catch it
    pass


def test_live_inv470_inv470_a_batch_cut_before_its_commit_is_rolled_forward_at_the_next_open(
        live, hash_embedder):
    """Issue 31 on a real cluster: the steps of a supersession land, the process dies before
    the compare-and-set commit. A reader in the meantime sees the old fact as it was; a store
    opened past the lease rolls the batch forward from its document (the new fact gets its
    vector back, so dense recall finds it)."""
    import time

    svc = MemoryService(live, clock=fixed_clock(NOW))
    old = svc.write_fact("u", "Lives in Bristol", fact_type="identity").fact
    real_put = live._put_state

    def put(doc_id, src, if_seq_no, if_term):
        if src.get("state") == "committed":
            raise _Died("the process died before its commit")
        return real_put(doc_id, src, if_seq_no, if_term)
    live._put_state = put
    with pytest.raises(_Died):
        svc.write_fact("u", "Lives in Edinburgh", fact_type="identity", supersedes_id=old.id)
    live._put_state = real_put
    reader = ElasticsearchStore(live.es_url, hash_embedder, prefix=live.names.prefix)
    try:
        assert reader.swept["left"] == 1
        assert reader.get(old.kind, "u", old.id).state == FactState.ACTIVE
    finally:
        reader.close()
    later = ElasticsearchStore(live.es_url, hash_embedder, prefix=live.names.prefix,
                               wall=lambda: time.time() + 3600)
    try:
        assert later.swept["committed"] == 1
        later.refresh()
        facts = {f.text: f for f in later.list_facts("u")}
        assert facts["Lives in Bristol"].state == FactState.SUPERSEDED
        assert facts["Lives in Edinburgh"].state == FactState.ACTIVE
        assert sorted(e.action for e in later.audit("u")).count("supersede") == 1
    finally:
        later.close()
