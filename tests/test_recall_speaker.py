"""Recall quality: the speaker a question names (invariant 142) — pure ranking
tests, then on the real embedded store."""

from __future__ import annotations

from datetime import timedelta

from memory.clock import fixed_clock
from memory.models import Episode
from memory.ranking import (
    RankingParams,
    adjust,
    fuse_candidates,
    named_speakers,
    speaker_lifts,
    speaker_of,
)
from memory.search_config import DEFAULT, Purpose
from memory.service import MemoryService
from memory.stores.base import LegHit
from memory.temporal import TimeIntent
from tests.recall_support import NOW, embedded_only  # noqa: F401 - the store fixture

OFF = RankingParams(speaker_lift=())


def _ep(text: str, i: str) -> Episode:
    return Episode(id=i, user_id="u", text=text, timestamp=NOW - timedelta(days=1))


def _cands(docs_scores: list[tuple[Episode, float]]):
    legs = {"bm25": [LegHit(doc=d, score=s) for d, s in docs_scores]}
    return fuse_candidates(legs, NOW, RankingParams(bm25_weight=1.0))


def test_inv142_speaker_of_reads_the_name_before_the_colon():
    assert speaker_of("Caroline: I went to a support group") == "caroline"
    assert speaker_of("Dr. Ana Lima: take two a day") == "dr. ana lima"
    assert speaker_of("Zoë: olá, tudo bem?") == "zoë"
    assert speaker_of("王芳: 我们去了海边") == "王芳"
    assert speaker_of("We met at 10:30 today") is None  # not a prefix
    assert speaker_of("I said: come home") is None  # not written as a name
    assert speaker_of("no colon here") is None


def test_inv142_named_speakers_are_the_words_written_as_names():
    names = named_speakers("What did Caroline's friend Melanie Smith paint?")
    assert {"caroline", "melanie", "melanie smith", "smith"} <= names
    assert "friend" not in names and "paint" not in names
    assert "update" not in named_speakers("what was the update on the roof?")
    assert "王芳" in named_speakers("王芳 去了哪里?")  # a caseless script counts


def _pool():
    # bm25 order: the other speaker's turns that name Caroline first, her own turns below
    docs = [(_ep(f"Melanie: Caroline, that sounds lovely {i}", f"m{i}"), 3.0 - 0.1 * i)
            for i in range(12)]
    docs += [(_ep("Caroline: I painted a sunset by the lake", "c1"), 1.8),
             (_ep("Caroline: the art show is next month", "c2"), 1.0)]
    return _cands(docs)


def test_inv142_the_named_speakers_turns_rise_but_not_into_the_head():
    cands = _pool()
    p = RankingParams(speaker_lift=((5, 1.2), (10, 1.4)))
    scores = [c.fused for c in cands]
    lift = speaker_lifts(cands, "What has Caroline painted?", p, scores)
    by_id = {c.doc.id: lf for c, lf in zip(cands, lift, strict=True)}
    assert all(by_id[f"m{i}"] == 1.0 for i in range(12))
    assert by_id["c1"] > 1.0 and by_id["c2"] > 1.0
    before = [h.id for h in adjust(cands, TimeIntent(), OFF)]
    after = [h.id for h in adjust(cands, TimeIntent(), p, query="What has Caroline painted?")]
    assert before[:5] == after[:5]  # the head is decided by what was said
    assert after.index("c1") < before.index("c1")
    assert after.index("c1") >= 5


def test_inv142_a_lift_never_passes_the_turn_at_its_rank():
    cands = _pool()
    p = RankingParams(speaker_lift=((10, 100.0),))
    hits = adjust(cands, TimeIntent(), p, query="What has Caroline painted?")
    ids = [h.id for h in hits]
    assert ids[:10] == [f"m{i}" for i in range(10)]
    assert ids[10] == "c1"
    assert hits[10].multipliers.lift > 1.0


def test_inv142_no_lift_when_both_or_neither_speaker_is_named_or_it_is_off():
    cands = _pool()
    p = RankingParams(speaker_lift=((5, 1.2), (10, 1.4)))
    scores = [c.fused for c in cands]
    for q in ("What did Caroline and Melanie paint?", "What was painted?", ""):
        assert speaker_lifts(cands, q, p, scores) == [1.0] * len(cands)
    assert speaker_lifts(cands, "What has Caroline painted?", OFF, scores) == [1.0] * len(cands)


def test_inv142_default_is_on():
    assert DEFAULT.ranking.speaker_lift == ((5, 1.2), (10, 1.4))


# --- on the real embedded store ---------------------------------------------------------------------


def test_inv142_recall_lifts_the_named_speakers_turns(store):
    svc = MemoryService(store, clock=fixed_clock(NOW))
    items = [(f"Melanie: Caroline, your painting news is lovely, tell me more {i}",
              NOW - timedelta(days=3, minutes=i), "s1") for i in range(12)]
    # her own turns share only her name with the question: found below the other's turns
    items += [("Caroline: I finished a sunset over the lake last week", NOW - timedelta(days=2),
               "s2"),
              ("Caroline: my teacher liked the colours", NOW - timedelta(days=2, minutes=1), "s2")]
    eps = svc.write_episodes("u", items, actor="cli")
    own = {e.id for e in eps[12:]}
    q = "What has Caroline painted?"
    off = DEFAULT.model_copy(update={"ranking": DEFAULT.ranking.model_copy(
        update={"speaker_lift": ()}), "k": 20})
    on = DEFAULT.model_copy(update={"k": 20})
    before = [h.id for h in svc.recall("u", q, config=off, purpose=Purpose.EVAL).hits]
    hits = svc.recall("u", q, config=on, purpose=Purpose.EVAL).hits
    after = [h.id for h in hits]
    assert after[:5] == before[:5]
    assert all(before.index(i) >= 10 for i in own)
    assert sum(after.index(i) for i in own) < sum(before.index(i) for i in own)
    lifted = {h.id for h in hits if h.multipliers.lift > 1.0}
    assert lifted and lifted <= own
