"""Recall quality: history questions resolve a fact's chain to the version asked for
(invariant 158), history cues need a past tense (invariant 158), and IDF-weighted lexical
coverage (invariant 154) — pure functions first, then the real store."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory.clock import fixed_clock
from memory.models import Fact, FactState, MemoryKind
from memory.ranking import (
    Candidate,
    RankingParams,
    adjust,
    chain_floor,
    chain_order,
    chain_targets,
    term_coverage,
)
from memory.retrieval import chain_members
from memory.search_config import DEFAULT, Purpose, RecallConfig
from memory.service import MemoryService
from memory.stores.base import RecallFilter
from memory.temporal import TimeIntent, time_intent
from tests.recall_support import NOW

P = RankingParams()


def _chain() -> list[Fact]:
    """SmartThings (June) -> Homey (July-October) -> Home Assistant (since October)."""
    june, july, october = (datetime(2026, m, 1, tzinfo=UTC) for m in (6, 7, 10))
    st = Fact(id="st", user_id="u", text="Her smart home hub is a SmartThings v3 hub",
              state=FactState.SUPERSEDED, superseded_by="homey", valid_from=june, valid_to=july)
    homey = Fact(id="homey", user_id="u", text="Her smart home hub is a Homey Pro",
                 state=FactState.SUPERSEDED, supersedes="st", superseded_by="ha",
                 valid_from=july, valid_to=october)
    ha = Fact(id="ha", user_id="u", text="Her smart home hub is a Home Assistant Green",
              supersedes="homey", valid_from=october)
    return [st, homey, ha]


def _ids(chain: list[Fact], picks: list[int]) -> list[str]:
    return [chain[i].id for i in picks]


# --- invariant 158: history cues -------------------------------------------------------------------
@pytest.mark.parametrize("query", [
    "What do I make before work?",
    "Before work I make coffee, what else?",
    "What should I pack before the flight?",
    "How old is Biscuit?",
    "Biscuit is ten years old, what food suits him?",
    "Where does her older brother live?",
    "What is left in the budget?",
    "What is my first language?",
    "What is her first name?",
    "Which hospital employs her since she left Leeds?",
    "What is the difference between Zigbee and Z-Wave?",
])
def test_inv158_routine_and_current_wording_is_not_a_history_question(query):
    intent = time_intent(query, NOW)
    assert not intent.past and intent.order is None and intent.anchor is None
    assert intent.between is None


@pytest.mark.parametrize("query, anchor", [
    ("What hub did she use before the Homey?", "the Homey"),
    ("Where did Ravi work before Helio Health?", "Helio Health"),
    ("What was her home city before the move to Portugal?", "the move to Portugal"),
    ("What did I have until October?", "October"),
])
def test_inv158_before_a_named_value_is_past_with_an_anchor(query, anchor):
    intent = time_intent(query, NOW)
    assert intent.past and intent.history and intent.anchor == anchor


def test_inv158_other_history_wordings():
    assert time_intent("What was her old laptop?", NOW).past
    assert time_intent("Which job had he left?", NOW).past
    between = time_intent("Which hub did she have between SmartThings and Home Assistant?", NOW)
    assert between.history and between.between == ("SmartThings", "Home Assistant")
    for q in ("What was the first hub she had?", "Which one did I start with?",
              "What was her original diet?"):
        intent = time_intent(q, NOW)
        assert intent.history and intent.order == "first", q
    count = time_intent("How many times has she changed hubs?", NOW)
    assert count.history and count.order == "all"


# --- invariant 158: which member of the chain --------------------------------------------------------
def test_inv158_chain_order_is_oldest_first_and_skips_singletons():
    st, homey, ha = _chain()
    lone = Fact(id="x", user_id="u", text="Has a beagle called Biscuit")
    assert [[f.id for f in c] for c in chain_order([ha, lone, st, homey])] == [["st", "homey", "ha"]]


def test_inv158_chain_targets_by_wording():
    chain = _chain()
    at = lambda q: _ids(chain, chain_targets(chain, time_intent(q, NOW)))  # noqa: E731
    assert at("What hub did she use before the Homey?") == ["st"]
    assert at("What hub did she use before Home Assistant?") == ["homey"]
    assert at("Which hub did she have between SmartThings and Home Assistant?") == ["homey"]
    assert at("What was the first hub she had?") == ["st"]
    assert at("What hub did she use before she moved?") == ["homey"]  # no member named
    assert at("How many times has she changed hubs?") == ["st", "homey", "ha"]
    assert at("What hub did she have in August?") == ["homey"]  # valid in the named time
    assert at("What hub did she use in June?") == ["st"]
    assert chain_targets(chain, TimeIntent(history=True)) == []  # "when": the ranking decides


def test_inv158_chain_floor_lends_the_chain_best_to_the_target_only_on_history():
    st, homey, ha = _chain()
    cands = [Candidate(ha, 1.0, {}, (1.0, 1.0, 1.0), None),
             Candidate(homey, 0.6, {}, (1.0, 1.0, 1.0), None),
             Candidate(st, 0.2, {}, (1.0, 1.0, 1.0), None)]
    scores = [c.fused for c in cands]
    intent = time_intent("What hub did she use before the Homey?", NOW)
    assert chain_floor(cands, scores, intent, P) == [0.0, 0.0, pytest.approx(P.chain_resolve)]
    assert chain_floor(cands, scores, TimeIntent(), P) == [0.0, 0.0, 0.0]
    assert chain_floor(cands, scores, intent, P.model_copy(update={"chain_resolve": 0.0})) \
        == [0.0, 0.0, 0.0]
    ranked = adjust(cands, intent, P)
    assert ranked[0].id == "st" and ranked[0].multipliers.lift > 1.0


def test_inv158_chain_members_fetches_only_the_users_eligible_versions():
    """Missing versions come from the store, but never another user's fact nor a state the
    filter does not allow (invariant 6: never-true values stay out)."""
    st, homey, ha = _chain()
    other = Fact(id="st", user_id="v", text=st.text, superseded_by="homey",
                 state=FactState.SUPERSEDED)
    retracted = st.model_copy(update={"state": FactState.RETRACTED})

    class Stub:
        def __init__(self, docs):
            self.docs = {d.id: d for d in docs}

        def get(self, kind, user_id, memory_id):
            return self.docs.get(memory_id)

    flt = RecallFilter(user_id="u", fact_states=frozenset({FactState.ACTIVE,
                                                           FactState.SUPERSEDED}))
    cands = [Candidate(ha, 1.0, {}, (1.0, 1.0, 1.0), None)]
    got = chain_members(Stub([st, homey]), flt, cands, NOW, P)  # type: ignore[arg-type]
    assert sorted(c.doc.id for c in got) == ["homey", "st"] and all(c.fused == 0 for c in got)
    got = chain_members(Stub([other, homey]), flt, cands, NOW, P)  # type: ignore[arg-type]
    assert [c.doc.id for c in got] == ["homey"]
    got = chain_members(Stub([retracted, homey]), flt, cands, NOW, P)  # type: ignore[arg-type]
    assert [c.doc.id for c in got] == ["homey"]
    episodes_only = flt.model_copy(update={"kinds": frozenset({MemoryKind.EPISODIC})})
    assert chain_members(Stub([st, homey]), episodes_only, cands, NOW, P) == []  # type: ignore[arg-type]


# --- invariant 154: IDF-weighted coverage --------------------------------------------------------------
def test_inv154_weighted_coverage_counts_rare_words_more():
    q = ["hub", "use", "summer"]
    idf = {"hub": 3.0, "use": 0.5, "summer": 1.5}
    assert term_coverage(q, ["use"]) == pytest.approx(1 / 3)
    assert term_coverage(q, ["use"], idf) == pytest.approx(0.5 / 5.0)
    assert term_coverage(q, ["hub"], idf) == pytest.approx(3.0 / 5.0)
    assert term_coverage([], ["hub"], idf) == 0.0
    assert term_coverage(["x"], ["x"], {}) == 1.0  # no weight: counts 1


# --- the real store ------------------------------------------------------------------------------------
def _hubs(svc: MemoryService) -> list[Fact]:
    st = svc.write_fact("maya", "Her smart home hub is a SmartThings v3 hub",
                        valid_from=NOW - timedelta(days=170)).fact
    homey = svc.write_fact("maya", "Her smart home hub is a Homey Pro", supersedes_id=st.id,
                           valid_from=NOW - timedelta(days=140)).fact
    ha = svc.write_fact("maya", "Her smart home hub is a Home Assistant Green",
                        supersedes_id=homey.id, valid_from=NOW - timedelta(days=50)).fact
    svc.write_fact("maya", "Her partner Tom works from home most days")
    svc.write_fact("maya", "Has a beagle called Biscuit who sleeps in a crate")
    return [st, homey, ha]


def test_inv158_recall_resolves_the_chain_on_the_real_store(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    st, homey, ha = _hubs(svc)
    top = lambda q: svc.recall("maya", q, purpose=Purpose.EVAL).hits[0].id  # noqa: E731
    assert top("What hub did she use before the Homey?") == st.id
    assert top("Which hub did she have between SmartThings and Home Assistant?") == homey.id
    assert top("What was the first hub she had?") == st.id
    # a current question: the current version, and no superseded one is eligible (invariant 102)
    hits = svc.recall("maya", "What smart home hub does she use?", purpose=Purpose.EVAL).hits
    assert hits[0].id == ha.id and {st.id, homey.id}.isdisjoint(h.id for h in hits)
    hits = svc.recall("maya", "What does she check before work?", purpose=Purpose.EVAL).hits
    assert {st.id, homey.id}.isdisjoint(h.id for h in hits)


def test_inv158_a_version_the_legs_missed_is_fetched(store):
    """ "Before Helio Health" names the new job; the old one shares no word with the question and
    the BM25 leg alone never finds it: the chain brings it in."""
    svc = MemoryService(store, clock=fixed_clock(NOW))
    old = svc.write_fact("ravi", "Routing developer at Parcelbird, a delivery startup").fact
    new = svc.write_fact("ravi", "Senior backend engineer at Helio Health",
                         supersedes_id=old.id).fact
    bm25 = RecallConfig(use_dense=False)
    q = "Where was he employed before Helio Health?"
    off = bm25.model_copy(update={"ranking": bm25.ranking.model_copy(
        update={"chain_resolve": 0.0})})
    assert old.id not in {h.id for h in svc.recall("ravi", q, config=off,
                                                   purpose=Purpose.EVAL).hits}
    hits = svc.recall("ravi", q, config=bm25, purpose=Purpose.EVAL).hits
    assert [h.id for h in hits[:2]] == [old.id, new.id]


def test_inv154_the_embedded_store_reports_each_query_words_idf(tmp_path, hash_embedder):
    from memory.stores import open_store

    store = open_store(f"embedded:{tmp_path / 'idf.db'}", hash_embedder)
    svc = MemoryService(store, clock=fixed_clock(NOW))
    for n in range(6):
        svc.write_fact("u", f"Coffee note {n}: beans from the market")
    svc.write_fact("u", "Coffee grinder is a Comandante")
    flt = RecallFilter(user_id="u", fact_states=frozenset({FactState.ACTIVE}))
    hits = store.search_bm25(flt, "comandante coffee zeppelin", 10)
    idf = hits[0].term_idf
    assert idf is not None and idf["comandant"] > idf["coffe"]
    assert idf["zeppelin"] >= idf["comandant"]  # a word no document holds: the rarest
    assert all(h.term_idf is None for h in hits[1:])
    store.close()


def test_inv154_idf_coverage_is_off_by_default():
    assert DEFAULT.ranking.coverage_idf is False
