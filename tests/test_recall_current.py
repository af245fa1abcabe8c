"""Recall quality: current questions (an active fact answers). "How does she
...?" asks about her, not for a procedure (invariant 193); a month with its year is a date
(invariant 193); a fact saying a name weighs less on a question asking for none (invariant
193). Pure detection first, then the real store and retrieval. Own data only."""

from __future__ import annotations

import pytest

from memory.clock import fixed_clock
from memory.models import CatalogDoc, MemoryKind
from memory.ranking import (
    Candidate,
    RankingParams,
    asks_about_person,
    asks_name,
    name_weights,
    says_date,
    when_weights,
)
from memory.search_config import DEFAULT, Purpose, RecallConfig
from memory.service import MemoryService
from tests.recall_support import NOW, embedded_only  # noqa: F401 - the store fixture


# --- invariant 193: "How does she ...?" is about her ---------------------------------------------
@pytest.mark.parametrize("q", [
    "How does she get online when she is abroad?",
    "How does he back up his photos?",
    "how do she and Omar split the rent?",
    "¿Y cómo? How does she pay for the ferry?",
])
def test_inv193_how_does_she_asks_about_her(q):
    assert asks_about_person(q)


@pytest.mark.parametrize("q", [
    "How should she reset her router?",  # a procedure, whoever does it
    "How can he renew his passport from abroad?",
    "How do we restore the backup?",  # invariant 193: "we" with a how-to stays a how-to
    "How does one get online abroad?",
    "How do I get online abroad?",
])
def test_inv193_how_to_questions_still_do_not(q):
    assert not asks_about_person(q)


def test_inv193_recall_puts_her_habit_above_the_catalog_on_the_real_store(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    svc.add_catalog([CatalogDoc(title="Getting online abroad",
                                text="Prepaid data SIM cards or roaming packs get you online "
                                     "abroad")])
    fact = svc.write_fact("zoe", "Gets online abroad with a prepaid data SIM from the kiosk").fact
    for t in ("Has a tabby called Pixel", "Lives in Trieste", "Swims on Sundays"):
        svc.write_fact("zoe", t)
    svc.write_fact("omar", "Gets online abroad with a prepaid SIM")  # never a candidate for zoe
    q = "How does she get online abroad?"
    off = RecallConfig(ranking=DEFAULT.ranking.model_copy(update={"person_catalog_weight": 1.0}))
    before = svc.recall("zoe", q, purpose=Purpose.EVAL, config=off).hits
    after = svc.recall("zoe", q, purpose=Purpose.EVAL).hits
    assert before[0].doc.kind == MemoryKind.CATALOG and before[1].doc.id == fact.id
    assert after[0].doc.id == fact.id
    assert {h.id for h in after} == {h.id for h in before}  # reorders, never adds or drops
    cat = next(h for h in after if h.doc.kind == MemoryKind.CATALOG)
    assert cat.multipliers.lift == pytest.approx(DEFAULT.ranking.person_catalog_weight)
    assert all(h.doc.user_id in ("zoe", None) for h in after)
    # the same words as a how-to keep the catalog's weight
    how_to = svc.recall("zoe", "How should she get online abroad?", purpose=Purpose.EVAL).hits
    assert next(h for h in how_to if h.doc.kind == MemoryKind.CATALOG).multipliers.lift == 1.0


# --- invariant 193: a month with its year is a date ----------------------------------------------
@pytest.mark.parametrize("text,dated", [
    ("Her gold card lasts until February 2028", True),
    ("Lease runs to Sept 2027", True),
    ("Visa valid till août 2029 — i.e. August 2029", True),
    ("Joined the club in 2024", False),  # a bare year is still no date
    ("Her 2027 budget is tight", False),
    ("Moved to Graz", False),
])
def test_inv193_says_date_reads_month_and_year(text, dated):
    assert says_date(text) is dated


def test_inv193_when_weights_lift_a_fact_dated_by_month_and_year(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    month = svc.write_fact("zoe", "Her gold card lasts until February 2028").fact
    plain = svc.write_fact("zoe", "Her gold card came with the new job").fact
    cands = [Candidate(d, 1.0, {}, (1.0, 1.0, 1.0), None) for d in (month, plain)]
    p = RankingParams()
    assert when_weights(cands, "How long will her gold card stay valid?", p) \
        == [p.when_dated_lift, 1.0]
    assert when_weights(cands, "What does her gold card give her?", p) == [1.0, 1.0]
    got = svc.recall("zoe", "How long will her gold card stay valid?", purpose=Purpose.EVAL).hits
    lift = {h.id: h.multipliers.lift for h in got}
    assert lift[month.id] == pytest.approx(lift[plain.id] * p.when_dated_lift)
    assert all(h.doc.user_id == "zoe" for h in got)


# --- invariant 193: the name fact answers only a question about the name --------------------------
@pytest.mark.parametrize("q,asks", [
    ("What's her name again?", True),
    ("What is this customer called?", True),
    ("Who is she?", True),
    ("Does Zoë have any cousins?", False),
    ("Where does Zoe swim these days?", False),
    ("Who is her landlord now?", False),
])
def test_inv193_asks_name(q, asks):
    assert asks_name(q) is asks


def test_inv193_name_weights_touch_only_facts_saying_a_name(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    name = svc.write_fact("zoe", "Her name is Zoë", fact_type="identity").fact
    both = svc.write_fact("zoe", "Her name is Zoë and she is a ferry pilot").fact
    other = svc.write_fact("zoe", "Her cousin Ilse lives in Graz").fact
    ep = svc.write_episodes("zoe", [("My name is on the ferry rota again", NOW, "s1")],
                            actor="cli")[0]
    cands = [Candidate(d, 1.0, {}, (1.0, 1.0, 1.0), None) for d in (name, both, other, ep)]
    p = RankingParams()
    w = p.name_fact_weight
    assert w < 1.0
    assert name_weights(cands, "Does Zoë have any cousins?", p) == [w, w, 1.0, 1.0]
    assert name_weights(cands, "What is her name?", p) == [1.0] * 4
    off = p.model_copy(update={"name_fact_weight": 1.0})
    assert name_weights(cands, "Does Zoë have any cousins?", off) == [1.0] * 4


def test_inv193_recall_puts_the_fact_asked_for_above_the_name_on_the_real_store(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    name = svc.write_fact("zoe", "Her name is Zoë", fact_type="identity").fact
    cousin = svc.write_fact("zoe", "Has one cousin, Ilse, in Graz").fact
    for t in ("Swims at the Lido on Sundays", "Pilots the morning ferry to Grado",
              "Her bike is a red Bianchi"):
        svc.write_fact("zoe", t)
    svc.write_fact("omar", "His cousin lives in Graz")  # another user's: never a candidate
    q = "Does Zoë have any cousins nearby?"
    off = RecallConfig(ranking=DEFAULT.ranking.model_copy(update={"name_fact_weight": 1.0}))
    before = svc.recall("zoe", q, purpose=Purpose.EVAL, config=off).hits
    after = svc.recall("zoe", q, purpose=Purpose.EVAL).hits
    assert before[0].doc.id == name.id and before[1].doc.id == cousin.id
    assert after[0].doc.id == cousin.id
    assert {h.id for h in after} == {h.id for h in before}  # reorders, never adds or drops
    lift = {h.id: h.multipliers.lift for h in before}
    got = next(h for h in after if h.id == name.id)
    assert got.multipliers.lift == pytest.approx(lift[name.id] * DEFAULT.ranking.name_fact_weight)
    assert all(h.doc.user_id == "zoe" for h in after)
    # asked for the name, it keeps its place
    assert svc.recall("zoe", "What's her name?", purpose=Purpose.EVAL).hits[0].id == name.id
