"""Recall quality (issue 17): recall robust to paraphrase. A fact is indexed with its
source episodes' words and vectors (invariant 152), the user's own name is a reference, not
evidence (invariant 153), and a weak lexical match leans on the dense leg (invariant 154) —
pure functions first, then on the real embedded store."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest

from memory.clock import fixed_clock
from memory.lexical import LexicalIndex, Vocabulary, analyse, name_of, without_names
from memory.models import MemoryKind
from memory.ranking import RankingParams, adaptive_dense_weight, kind_dense_weights, term_coverage
from memory.search_config import DEFAULT, Purpose, RecallConfig
from memory.service import MemoryService
from memory.stores.base import RecallFilter
from memory.stores.user_view import IndexParams
from tests.recall_support import NOW, embedded_only  # noqa: F401 - the store fixture


# --- invariant 152: a fact holds the words of what the user said ---------------------------------
def test_inv152_lexical_index_takes_one_weight_per_context_pair():
    vocab = Vocabulary()
    texts = ["hub home assistant green", "box running the automations", "unrelated weather"]
    docs = np.concatenate([np.full(len(analyse(t)), i) for i, t in enumerate(texts)])
    terms = np.concatenate([vocab.encode(analyse(t)) for t in texts])
    pairs = (np.array([0, 0]), np.array([1, 2]), np.array([0, 0]))
    idx = LexicalIndex(3, docs, terms, context=pairs, context_weight=np.array([0.3, 0.0]))
    box = idx.scores(vocab.lookup(analyse("automations box")))
    assert box[0] > 0 and box[1] > box[0]  # the fact found through its source, weaker than it
    weather = idx.scores(vocab.lookup(analyse("weather")))
    assert weather[0] == 0 and weather[2] > 0  # a pair at weight 0 adds nothing
    plain = LexicalIndex(3, docs, terms, context=pairs, context_weight=0.0)
    assert plain.scores(vocab.lookup(analyse("automations")))[0] == 0


def test_inv152_a_fact_is_found_by_the_words_its_source_used(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    [ep] = svc.write_episodes("ana", [("Moved all the automations onto the little box by the "
                                       "router this weekend", NOW - timedelta(days=1), "s1")],
                              actor="cli")
    fact = svc.write_fact("ana", "Smart home hub is a Home Assistant Green",
                          source_episode_ids=[ep.id]).fact
    orphan = svc.write_fact("ana", "Prefers a Zigbee hub to wifi plugs").fact
    flt = RecallFilter(user_id="ana")
    found = {h.doc.id: h.score for h in store.search_bm25(flt, "box running the automations", 10)}
    assert fact.id in found and found[fact.id] < found[ep.id]  # found, at the source's weight
    assert orphan.id not in found
    store.set_index_params(IndexParams(source_weight=0.0, dense_source_weight=0.0))
    assert fact.id not in {h.doc.id for h in store.search_bm25(flt, "box running the automations",
                                                               10)}
    vec = store.embedder.embed(["automations on the little box"])[0]
    plain = {h.doc.id: h.score for h in store.search_dense(flt, vec, 10)}
    store.set_index_params(IndexParams(source_weight=0.0))
    summed = {h.doc.id: h.score for h in store.search_dense(flt, vec, 10)}
    assert summed[fact.id] != plain[fact.id]  # the source's vector moved the fact's
    assert summed[orphan.id] == pytest.approx(plain[orphan.id], abs=0.05)


def test_inv152_only_the_users_own_episodes_count(store):
    from memory.errors import ValidationError
    from memory.stores.embedded import _source_pairs

    svc = MemoryService(store, clock=fixed_clock(NOW))
    [ep] = svc.write_episodes("ana", [("The box running the automations", NOW, "s1")], actor="cli")
    with pytest.raises(ValidationError):  # another user's episode is no source of ben's
        svc.write_fact("ben", "Smart home hub is a Homey Pro", source_episode_ids=[ep.id])
    # and a view pairs a fact only with source rows of the same view (its user's and catalog)
    row = (None,) * 9
    rows = [(*row, "f1", '["e1", "e_other_user"]'), (*row, "e1", None), (*row, "f2", '["f2"]')]
    f_row, e_row = _source_pairs(rows)
    assert f_row.tolist() == [0] and e_row.tolist() == [1]


# --- invariant 153: the user's own name is a reference ---------------------------------------------
def test_inv153_name_of_reads_only_facts_that_name_the_user():
    assert name_of("Her name is Maya") == "Maya"
    assert name_of("Her name is Lena and she is a field service manager") == "Lena"
    assert name_of("His name is Łukasz") == "Łukasz"
    assert name_of("My name is Zoë-Ann") == "Zoë-Ann"
    assert name_of("Her dog's name is Biscuit") is None
    assert name_of("Lives in Bristol; her name is Maya") is None
    assert name_of("") is None


def test_inv153_without_names_drops_the_name_only_when_words_remain():
    names = frozenset({"Maya"})
    assert without_names("What town does Maya live in now?", names) == "What town does live in now?"
    assert "Maya" not in without_names("What is Maya's dog called?", names)
    assert "MAYA" not in without_names("what does MAYA drink", names)
    # nothing else to search for: the question stays as asked
    assert without_names("What's my name?", names) == "What's my name?"
    assert without_names("Who is Maya?", names) == "Who is Maya?"
    assert without_names("Where does Mayan art come from?", names) == \
        "Where does Mayan art come from?"
    assert without_names("Wo wohnt Łukasz jetzt?", frozenset({"Łukasz"})) == "Wo wohnt jetzt?"
    assert without_names("anything", frozenset()) == "anything"


def test_inv153_recall_drops_the_users_name_from_the_lexical_query(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    name = svc.write_fact("ana", "Her name is Maya", fact_type="identity").fact
    home = svc.write_fact("ana", "Lives in Bishopston, Bristol", fact_type="identity").fact
    old = svc.write_fact("ana", "Her name is Mae", fact_type="identity").fact
    svc.write_fact("ana", "Her name is Maya Okafor", fact_type="identity", supersedes_id=old.id)
    svc.write_fact("ben", "His name is Ravi", fact_type="identity")
    assert store.user_names("ana") == frozenset({"Maya"})  # active only, own facts only
    assert store.user_names("ben") == frozenset({"Ravi"})
    hits = svc.recall("ana", "Where does Maya live these days?", purpose=Purpose.EVAL).hits
    assert hits[0].id == home.id
    assert "bm25" not in next(h for h in hits if h.id == name.id).legs  # found by dense only
    kept = svc.recall("ana", "Where does Maya live these days?", purpose=Purpose.EVAL,
                      config=DEFAULT.model_copy(update={"drop_names": "off"})).hits
    assert "bm25" in next(h for h in kept if h.id == name.id).legs
    # a question about the name itself still finds it (three facts: min-max makes the dense
    # leg's best 1 and its worst 0, so the dense leg is weighed as an episode's here)
    alike = DEFAULT.model_copy(update={"ranking": DEFAULT.ranking.model_copy(update={
        "distilled_dense_weight": None})})
    assert svc.recall("ana", "What's my name?", purpose=Purpose.EVAL,
                      config=alike).hits[0].id == name.id
    # explain shows the query each leg got and this query's dense weight
    ex = svc.recall("ana", "Where does Maya live these days?", purpose=Purpose.EXPLAIN,
                    explain=True).explain
    assert ex.query == "Where does Maya live these days?"
    assert "Maya" not in ex.lexical_query and "live" in ex.lexical_query
    assert ex.dense_weight is not None and 0 <= ex.lexical_coverage <= 1


# --- invariant 154: a weak lexical match leans on the dense leg ------------------------------------
def test_inv154_term_coverage():
    assert term_coverage(["hub", "box"], ["box", "green", "hub"]) == 1.0
    assert term_coverage(["hub", "box", "hub"], ["box"]) == 0.5
    assert term_coverage([], ["box"]) == 0.0


def test_inv154_dense_weight_falls_from_weak_to_plain_as_coverage_rises():
    p = RankingParams(dense_weight=0.8, weak_dense_weight=1.6, coverage_full=0.75)
    assert adaptive_dense_weight(0.0, p) == pytest.approx(1.6)
    assert adaptive_dense_weight(0.375, p) == pytest.approx(1.2)
    assert adaptive_dense_weight(0.75, p) == pytest.approx(0.8)
    assert adaptive_dense_weight(1.0, p) == pytest.approx(0.8)
    ws = [adaptive_dense_weight(c / 20, p) for c in range(21)]
    assert ws == sorted(ws, reverse=True)
    off = RankingParams(dense_weight=0.8, weak_dense_weight=None)
    assert {adaptive_dense_weight(c, off) for c in (0.0, 0.5, 1.0)} == {0.8}


def _dense_weight_used(hits) -> float:
    """The dense leg's best candidate has normalised score 1: its contribution is the weight."""
    return max(h.legs["dense"].contribution for h in hits if "dense" in h.legs)


def test_inv154_recall_uses_the_coverage_of_the_best_lexical_hits(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    svc.write_episodes("ana", [("The hoover robot got stuck under the sofa again", NOW, "s1"),
                               ("Booked the ferry to Bergen for June", NOW, "s2"),
                               ("The kettle is descaled every month", NOW, "s3")], actor="cli")
    p = DEFAULT.ranking
    full = svc.recall("ana", "hoover robot sofa", purpose=Purpose.EVAL, explain=True).hits
    assert _dense_weight_used(full) == pytest.approx(p.dense_weight)
    weak = svc.recall("ana", "hoover bot cleaning schedule problems", purpose=Purpose.EVAL,
                      explain=True).hits  # one of five query words in the best hits
    assert _dense_weight_used(weak) == pytest.approx(adaptive_dense_weight(0.2, p))
    off = RecallConfig(ranking=p.model_copy(update={"weak_dense_weight": None}))
    plain = svc.recall("ana", "hoover bot cleaning schedule problems", purpose=Purpose.EVAL,
                       config=off, explain=True).hits
    assert _dense_weight_used(plain) == pytest.approx(p.dense_weight)


def test_inv154_the_embedded_store_tells_which_query_words_a_hit_holds_through_context(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    svc.write_episodes("ana", [("We took the ferry to Bergen", NOW - timedelta(minutes=2), "s1"),
                               ("It rained the whole weekend", NOW - timedelta(minutes=1), "s1"),
                               ("Lunch was fine", NOW, "s2")], actor="cli")
    hits = store.search_bm25(RecallFilter(user_id="ana"), "ferry weekend Oslo", 10)
    by_text = {h.doc.text: h.matched for h in hits}
    # each turn holds its own word and, through the session context, its neighbour's; "oslo"
    # is in no document
    assert by_text["It rained the whole weekend"] == frozenset(analyse("ferry weekend"))
    assert by_text["We took the ferry to Bergen"] == frozenset(analyse("ferry weekend"))
    assert "Lunch was fine" not in by_text


# --- invariant 154: a distilled memory's dense leg may weigh more than an episode's --------------
def test_inv154_recall_weighs_a_facts_dense_leg_by_kind_on_the_real_store(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    eps = svc.write_episodes("ana", [("The hoover robot got stuck under the sofa again", NOW, "s1"),
                                     ("Booked the ferry to Bergen for June", NOW, "s2"),
                                     ("The kettle is descaled every month", NOW, "s3")],
                             actor="cli")
    svc.write_fact("ana", "Robot vacuum runs on weekday mornings",
                   source_episode_ids=[eps[0].id])
    svc.write_fact("ana", "Takes the ferry when visiting family in Norway")
    svc.write_fact("ben", "Robot vacuum runs at night")  # another user's: never a candidate
    q = "hoover bot cleaning schedule problems"  # a weak lexical match (invariant 154)
    p = DEFAULT.ranking
    assert p.distilled_weak_dense_weight is not None and p.weak_dense_weight is not None
    assert p.distilled_weak_dense_weight > p.weak_dense_weight
    got = svc.recall("ana", q, purpose=Purpose.EVAL, explain=True)
    off = svc.recall("ana", q, purpose=Purpose.EVAL, explain=True, config=RecallConfig(
        ranking=p.model_copy(update={"distilled_weak_dense_weight": None,
                                     "distilled_dense_weight": None})))
    cov = got.explain.lexical_coverage
    assert cov is not None and cov < p.coverage_full and cov == off.explain.lexical_coverage
    want = kind_dense_weights(cov, p)
    assert got.explain.dense_weight == pytest.approx(want.dense_weight)
    assert got.explain.distilled_dense_weight == pytest.approx(want.distilled_dense_weight)
    assert off.explain.distilled_dense_weight is None
    ratio = want.distilled_dense_weight / want.dense_weight
    before = {h.id: h for h in off.hits}
    kinds = set()
    for h in got.hits:
        assert h.doc.user_id == "ana"
        if "dense" not in h.legs:
            continue
        kinds.add(h.doc.kind)
        share, was = h.legs["dense"].contribution, before[h.id].legs["dense"].contribution
        if h.doc.kind == MemoryKind.SEMANTIC:
            assert share == pytest.approx(ratio * was)  # the fact's dense share, by kind
        else:
            assert share == pytest.approx(was)  # an episode's, unchanged
    assert kinds == {MemoryKind.SEMANTIC, MemoryKind.EPISODIC}
    # with the whole query held by the best lexical hit, both kinds get the plain weight
    full = svc.recall("ana", "hoover robot sofa", purpose=Purpose.EVAL, explain=True)
    assert full.explain.dense_weight == pytest.approx(p.dense_weight)
    # ... and a distilled memory its own full weight (fourteenth pass: 1.2, above the episode's)
    assert p.distilled_dense_weight is not None and p.distilled_dense_weight > p.dense_weight
    assert full.explain.distilled_dense_weight == pytest.approx(p.distilled_dense_weight)
