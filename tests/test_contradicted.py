"""Invariant 65: a value declared never true reaches the agent from no tier. The episode a
retracted or rejected fact came from is dropped from agent (and evaluation) recall, and shown,
marked, by explain recall. Real stores (embedded; Elasticsearch too when MEMDESK_ES_URL is set)
and the real MiniLM embedder, so the episode is found by meaning as well as by words."""

from __future__ import annotations

import json

from memory.cli import main
from memory.contradicted import contradicted_episodes
from memory.search_config import DEFAULT, Purpose
from review.decisions import decide

QUERY = "where does she live"


def _history(svc, user="ana"):
    home = svc.write_episode(user, "I live in Bristol, near the harbour")
    cat = svc.write_episode(user, "We adopted a cat called Miso last spring")
    job = svc.write_episode(user, "I work as a nurse at the children's hospital")
    fact = svc.write_fact(user, "Lives in Bristol", fact_type="identity",
                          source_episode_ids=[home.id]).fact
    return home, cat, job, fact


def _ids(svc, user, purpose, query=QUERY, **kw):
    res = svc.recall(user, query, config=DEFAULT, purpose=purpose, **kw)
    return [h.id for h in res.hits], res


def test_inv65_agent_recall_drops_the_episode_of_a_retracted_fact(minilm_service):
    svc = minilm_service
    home, cat, job, fact = _history(svc)
    before, _ = _ids(svc, "ana", Purpose.AGENT)
    assert home.id in before[:2]  # the test can fail: the episode is found while believed
    svc.retract("ana", fact.id, reason="she never lived there")
    after, res = _ids(svc, "ana", Purpose.AGENT)
    assert home.id not in after and fact.id not in after
    assert cat.id in after and job.id in after  # nothing else is hidden
    assert res.contradicted == []
    evaluated, _ = _ids(svc, "ana", Purpose.EVAL)  # evaluation measures what the agent gets
    assert home.id not in evaluated
    # Explain recall shows it, marked, and says what agent recall drops.
    explained, res = _ids(svc, "ana", Purpose.EXPLAIN, explain=True)
    assert home.id in explained and res.contradicted == [home.id]
    line = next(f for f in res.explain.filters if f.name == "contradicted")
    assert "agent recall drops them" in line.detail
    _, agent = _ids(svc, "ana", Purpose.AGENT, explain=True)
    assert next(f for f in agent.explain.filters if f.name == "contradicted").removed == 1


def test_inv65_harsh_correction_hides_the_old_source_not_the_new(minilm_service):
    svc = minilm_service
    home, _, _, fact = _history(svc)
    leeds = svc.write_episode("ana", "Correction: I have never lived in Bristol, I live in Leeds")
    svc.write_fact("ana", "Lives in Leeds", fact_type="identity", supersedes_id=fact.id,
                   contradiction="harsh", source_episode_ids=[leeds.id])
    ids, _ = _ids(svc, "ana", Purpose.AGENT)
    assert home.id not in ids and leeds.id in ids


def test_inv65_natural_supersession_keeps_its_evidence(minilm_service):
    """No longer true is not never true: history's episodes stay recallable."""
    svc = minilm_service
    home, _, _, fact = _history(svc)
    svc.write_fact("ana", "Lives in Leeds", fact_type="identity", supersedes_id=fact.id)
    ids, _ = _ids(svc, "ana", Purpose.AGENT)
    assert home.id in ids


def test_inv65_rejected_candidate_hides_its_source_a_merged_one_does_not(service):
    svc = service
    said = svc.write_episode("ana", "I am allergic to peanuts")
    dup = svc.write_episode("ana", "Peanuts make me ill, I avoid them")
    joke = svc.write_episode("ana", "I own a yacht in Monaco, ha ha")
    active = svc.write_fact("ana", "Allergic to peanuts", source_episode_ids=[said.id]).fact
    cand = svc.write_fact("ana", "Owns a yacht", state="candidate",
                          source_episode_ids=[joke.id]).fact
    copy = svc.write_fact("ana", "Avoids peanuts", state="candidate",
                          source_episode_ids=[dup.id]).fact
    decide(svc, "ana", cand.id, "reject", operator="rita", expected_rev=cand.rev,
           reason="a joke, not a fact")
    decide(svc, "ana", copy.id, "merge", operator="rita", expected_rev=copy.rev, into=active.id)
    hidden = contradicted_episodes(svc.store, "ana", [said.id, dup.id, joke.id])
    assert hidden == {joke.id}
    ids, _ = _ids(svc, "ana", Purpose.AGENT, query="yacht Monaco")
    assert joke.id not in ids
    # Another user's dead facts never hide this user's episodes, and ids are per user.
    assert contradicted_episodes(svc.store, "bob", [joke.id]) == set()


def test_inv65_cli_explain_marks_the_contradicted_episode(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_STORE", f"embedded:{tmp_path / 's.db'}")

    def run(*argv):
        code = main(list(argv))
        out = capsys.readouterr()
        assert code == 0, out.err
        return out.out

    ep = json.loads(run("write-episode", "--user", "ana", "I live in Bristol", "--json"))
    fact = json.loads(run("write-fact", "--user", "ana", "Lives in Bristol", "--source", ep["id"],
                          "--json"))["fact"]
    run("retract", "--user", "ana", fact["id"], "--reason", "never")
    agent = json.loads(run("recall", "--user", "ana", "live in Bristol", "--json"))
    assert ep["id"] not in [h["id"] for h in agent["hits"]]
    text = run("recall", "--user", "ana", "live in Bristol", "--explain")
    assert "[episodic, contradicted] I live in Bristol" in text
    assert "contradicted=0" in text  # shown here, not removed
