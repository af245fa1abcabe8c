"""Recall quality (issue 17): a paraphrased question finds the memory through a small general-English
lexicon (invariant 169) — pure expansion first, then the real embedded store and the real
retrieval pipeline."""

from __future__ import annotations

import numpy as np
import pytest

from memory.clock import fixed_clock
from memory.lexical import LexicalIndex, Vocabulary, analyse
from memory.lexicon import GROUPS, expansions
from memory.retrieval import retrieve
from memory.search_config import DEFAULT, LEGACY_RRF, Purpose
from memory.service import MemoryService
from memory.stores.base import RecallFilter
from tests.recall_support import NOW, embedded_only  # noqa: F401 - the store fixture


# --- pure ---------------------------------------------------------------------------------------
def test_inv169_expansions_add_the_other_words_of_a_group_at_the_weight():
    out = expansions(analyse("When does the hoover run?"), 0.5)
    assert out[analyse("vacuum")[0]] == 0.5
    assert all(w == 0.5 for w in out.values())
    # a hypernym finds its common members and back: "pet" <-> "dog"
    assert analyse("dog")[0] in expansions(analyse("pet"), 0.4)
    assert analyse("pet")[0] in expansions(analyse("dog"), 0.4)


def test_inv169_an_asked_word_is_never_added_and_weight_zero_adds_nothing():
    terms = analyse("hoover vacuum")
    out = expansions(terms, 0.5)
    assert not set(terms) & set(out)
    assert expansions(terms, 0.0) == {}
    assert expansions(analyse("Görlitzer Park weather"), 0.5) == {}  # words in no group


def test_inv169_the_lexicon_is_general_words_only():
    """No names, brands or products: lower-case words, each in at most two groups."""
    seen: dict[str, int] = {}
    for line in GROUPS:
        for w in line.split():
            assert w == w.lower() and w.replace("-", "").isalpha(), w
            seen[w] = seen.get(w, 0) + 1
    assert max(seen.values()) <= 2


def test_inv169_a_term_weight_scales_its_bm25_contribution():
    vocab = Vocabulary()
    texts = ["robot vacuum in the lounge", "hoover bags on the shelf", "weather today"]
    docs = np.concatenate([np.full(len(analyse(t)), i) for i, t in enumerate(texts)])
    terms = np.concatenate([vocab.encode(analyse(t)) for t in texts])
    idx = LexicalIndex(3, docs, terms)
    [vac] = vocab.lookup(analyse("vacuum"))
    full = idx.scores([vac])
    half = idx.scores([vac], [0.5])
    assert full[0] > 0 and half[0] == pytest.approx(0.5 * full[0])
    assert half[2] == 0


# --- the real store and the real pipeline -------------------------------------------------------
def test_inv169_the_store_scores_extra_terms_at_their_weight(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    vac = svc.write_fact("ana", "Has a robot vacuum in the lounge").fact
    svc.write_fact("ana", "The hallway sensor needs a new battery")
    flt = RecallFilter(user_id="ana")
    assert vac.id not in {h.doc.id for h in store.search_bm25(flt, "hoover", 10)}
    extra = expansions(analyse("hoover"), 0.5)
    got = {h.doc.id: h.score for h in store.search_bm25(flt, "hoover", 10, extra=extra)}
    plain = {h.doc.id: h.score for h in store.search_bm25(flt, "vacuum", 10)}
    assert got[vac.id] == pytest.approx(0.5 * plain[vac.id], rel=1e-5)


def test_inv169_recall_finds_a_paraphrase_and_the_asked_word_still_ranks_first(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    vac = svc.write_fact("ana", "Has a robot vacuum in the lounge").fact
    hoover = svc.write_fact("ana", "The old hoover lives in the cupboard").fact
    svc.write_fact("ana", "The hallway sensor needs a new battery")
    cfg = DEFAULT.model_copy(update={"use_dense": False, "k": 10})
    hits = [h.id for h in retrieve(store, svc.embedder, "ana", "hoover", cfg, NOW,
                                   purpose=Purpose.EVAL).hits]
    assert hits[:2] == [hoover.id, vac.id]  # the asked word first, its synonym next
    off = cfg.model_copy(update={"lexicon_weight": 0.0})
    assert vac.id not in [h.id for h in retrieve(store, svc.embedder, "ana", "hoover", off, NOW,
                                                 purpose=Purpose.EVAL).hits]
    assert LEGACY_RRF.lexicon_weight == 0.0  # the old ranking stays the old ranking


def test_inv169_expansion_never_reaches_another_users_memories(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    svc.write_fact("ben", "Has a robot vacuum in the hallway")
    mine = svc.write_fact("ana", "Keeps the bike in the cellar").fact
    hits = svc.recall("ana", "Where is my hoover?", config=DEFAULT.model_copy(update={"k": 50}),
                      purpose=Purpose.EVAL).hits
    assert {h.doc.user_id for h in hits} <= {"ana", None}
    assert mine.id in {h.id for h in hits}


def test_inv169_explain_lists_the_lexicon_words_and_only_a_capable_store_gets_any(store):
    from memory.stores.base import Capability

    svc = MemoryService(store, clock=fixed_clock(NOW))
    svc.write_fact("ana", "Has a robot vacuum in the lounge")
    got = svc.recall("ana", "Where is the hoover?", explain=True, purpose=Purpose.EXPLAIN)
    assert got.explain is not None
    assert got.explain.lexical_extra == {analyse("vacuum")[0]: DEFAULT.lexicon_weight}
    assert Capability.WEIGHTED_TERMS in store.capabilities

    class Plain:  # the same store, minus the capability (a store that declares none)
        def __init__(self, inner):
            self.inner = inner
            self.capabilities = frozenset()
            self.asked: list[dict] = []

        def search_bm25(self, flt, query, limit, **kw):
            self.asked.append(kw)
            return self.inner.search_bm25(flt, query, limit)

        def __getattr__(self, name):
            return getattr(self.inner, name)

    plain = Plain(store)
    r = retrieve(plain, svc.embedder, "ana", "Where is the hoover?", DEFAULT, NOW,  # type: ignore[arg-type]
                 purpose=Purpose.EVAL)
    assert plain.asked == [{}] and r.lexical_extra == {}
