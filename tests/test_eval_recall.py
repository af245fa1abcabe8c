"""Persona recall eval on a real embedded store: metrics, isolation sweep, gates, exit codes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from memory.cli import main
from memory.errors import ValidationError
from memory.eval.recall_eval import (
    Question,
    eval_config,
    isolation_sweep,
    load_questions,
    render_markdown,
    run_recall_eval,
)
from memory.search_config import PRESETS
from memory.service import MemoryService
from memory.stores import open_store

PERSONAS = {
    "ana": {
        "facts": ["Lives in Edinburgh with two cats", "Allergic to shellfish",
                  "Prefers trains over planes for travel"],
        "episodes": ["My cello lesson moved to Thursday evenings", "The boiler broke again this winter"],
        "playbooks": [("Book a train", "when planning a trip", ["check the sleeper", "book a seat"])],
    },
    "ben": {
        "facts": ["Works as a nurse on night shifts", "Vegetarian since 2019",
                  "Drives an old green Volvo"],
        "episodes": ["Ran the Bristol half marathon in the rain", "My sister visits from Lisbon"],
        "playbooks": [("Sleep after nights", "after a night shift", ["blackout blinds", "no coffee"])],
    },
    "cy": {
        "facts": ["Studies marine biology", "Speaks Portuguese and Welsh",
                  "Keeps a saltwater aquarium"],
        "episodes": ["Saw dolphins on the ferry to Skye", "My thesis deadline is in March"],
        "playbooks": [("Clean the tank", "when the aquarium glass clouds", ["test salinity", "scrape"])],
    },
}
ASK = {  # question per document text, sharing a word or two with it
    "Lives in Edinburgh with two cats": "which city does she live in, with the cats",
    "Allergic to shellfish": "any shellfish allergy",
    "Prefers trains over planes for travel": "trains or planes for travel",
    "My cello lesson moved to Thursday evenings": "when is the cello lesson",
    "The boiler broke again this winter": "what broke this winter",
    "Works as a nurse on night shifts": "what is his nurse job shift",
    "Vegetarian since 2019": "is he vegetarian",
    "Drives an old green Volvo": "what car, the Volvo",
    "Ran the Bristol half marathon in the rain": "which half marathon did he run",
    "My sister visits from Lisbon": "where does his sister visit from",
    "Studies marine biology": "what does she study, biology",
    "Speaks Portuguese and Welsh": "which languages: Portuguese",
    "Keeps a saltwater aquarium": "saltwater aquarium at home",
    "Saw dolphins on the ferry to Skye": "dolphins on the ferry",
    "My thesis deadline is in March": "thesis deadline month",
}


def build_personas(service: MemoryService) -> list[dict]:
    """Write three small personas and return questions in the team's questions.json format."""
    questions = []
    for user, p in PERSONAS.items():
        docs = [(service.write_fact(user, t, actor="seed").fact, "semantic") for t in p["facts"]]
        docs += [(e, "episodic") for e in service.write_episodes(
            user, [(t, None, None) for t in p["episodes"]], actor="seed")]
        docs += [(service.write_playbook(user, n, tr, s, actor="seed"), "procedural")
                 for n, tr, s in p["playbooks"]]
        for doc, kind in docs:
            text = doc.text if kind != "procedural" else None
            q = ASK.get(text, f"how to {doc.name.lower()}" if kind == "procedural" else text)
            questions.append({"id": f"q-{doc.id}", "user_id": user, "question": q,
                              "gold_id": doc.id, "gold_kind": kind, "variant": 1})
    return questions


@pytest.fixture
def personas(service):
    return service, [Question.model_validate(q) for q in build_personas(service)]


def test_recall_eval_reports_overall_per_persona_and_per_type(personas):
    service, questions = personas
    report = run_recall_eval(service, questions)
    assert report.overall.n == len(questions) == 18
    assert set(report.per_persona) == {"ana", "ben", "cy"}
    assert set(report.per_kind) == {"episodic", "semantic", "procedural"}
    assert report.overall.r10 == 1.0  # six documents per persona: every gold is in the top 10
    assert report.sweep.recalls == 2 * len(questions) and report.sweep.hits_inspected > 0
    assert report.sweep.leaks == 0 and report.passed
    assert "## Isolation sweep" in render_markdown(report)


def test_inv55_eval_recall_never_bumps_usage(personas):
    """Invariant 55: eval recalls are read-only, so a run repeats exactly."""
    service, questions = personas
    before = {f.id: (f.use_count, f.last_used_at) for f in service.store.list_facts("ana")}
    first = run_recall_eval(service, questions)
    second = run_recall_eval(service, questions)
    after = {f.id: (f.use_count, f.last_used_at) for f in service.store.list_facts("ana")}
    assert before == after
    assert first.overall == second.overall


def test_inv56_isolation_sweep_catches_a_planted_leak(tmp_path, hash_embedder):
    """Invariant 56: a hit owned by anyone but the asker is counted as a leak and fails the run.
    The leak is planted in the real store's dense cache (ben's row in ana's matrix)."""
    store = open_store(f"embedded:{tmp_path / 'leaky.db'}", hash_embedder)
    service = MemoryService(store)
    questions = [Question.model_validate(q) for q in build_personas(service)]
    clean = isolation_sweep(service, questions, PRESETS["default"])
    assert clean.leaks == 0
    ana = store._view("ana")  # issue 17: the per-user view holds the dense matrix now
    ben = store._view("ben")
    for name in ("rids", "revs", "kinds", "states", "catalog", "position", "matrix", "dense"):
        setattr(ana, name, np.concatenate([getattr(ana, name), getattr(ben, name)[:1]]))
    ana.session = [*ana.session, ben.session[0]]
    ana.index_of[int(ben.rids[0])] = ana.n
    ana.n += 1
    ana.lexical.n_docs += 1
    ana.masks.clear()
    report = run_recall_eval(service, questions)
    assert report.sweep.leaks > 0
    assert report.sweep.examples[0].asked_as == "ana" and report.sweep.examples[0].hit_owner == "ben"
    assert not report.passed and not next(g for g in report.gates if g.name == "leaks").passed
    store.close()


def test_an_empty_retriever_cannot_pass_on_zero_leaks(personas):
    """Invariant 56: zero leaks with nothing found must still fail (the recall gates)."""
    service, questions = personas
    wrong = [q.model_copy(update={"gold_id": "fact_nothing"}) for q in questions]
    report = run_recall_eval(service, wrong)
    assert report.sweep.leaks == 0
    assert not report.passed
    assert {g.name for g in report.gates if not g.passed} == {"R@10", "R@5"}


def test_ablation_flags_use_the_presets_and_refuse_nonsense():
    assert eval_config() == ("default", PRESETS["default"])
    assert eval_config(no_bm25=True) == ("no_bm25", PRESETS["dense_only"])
    assert eval_config(no_dense=True) == ("no_dense", PRESETS["bm25_only"])
    label, cfg = eval_config(no_decay=True)
    assert label == "no_decay" and cfg.ranking == PRESETS["no_decay"].ranking
    with pytest.raises(ValidationError, match="no retrieval leg"):
        eval_config(no_bm25=True, no_dense=True)
    label, cfg = eval_config(preset="sharp_rrf", no_dense=True)
    assert label == "sharp_rrf+no_dense" and cfg.ranking.rrf_k == 10 and not cfg.use_dense
    with pytest.raises(ValidationError, match="unknown preset"):
        eval_config(preset="fastest")


def test_rerank_without_a_real_reranker_is_one_clear_error(monkeypatch):
    import memory.eval.recall_eval as re_mod

    monkeypatch.setattr(re_mod, "RERANKERS", {})
    with pytest.raises(ValidationError, match="no model-based reranker"):
        eval_config(rerank=True)


def test_missing_and_malformed_question_files_are_clear_errors(tmp_path):
    with pytest.raises(ValidationError, match="no questions at"):
        load_questions(tmp_path / "nope.json")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"id": "q1", "user_id": "ana"}]))
    with pytest.raises(ValidationError, match="malformed questions file"):
        load_questions(bad)
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    with pytest.raises(ValidationError, match="empty"):
        load_questions(empty)


def _cli_store(tmp_path, hash_embedder, monkeypatch):
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    url = f"embedded:{tmp_path / 'cli.db'}"
    store = open_store(url, hash_embedder)
    questions = build_personas(MemoryService(store))
    store.close()
    return url, questions


def test_gate_exit_codes(tmp_path, hash_embedder, monkeypatch, capsys):
    url, questions = _cli_store(tmp_path, hash_embedder, monkeypatch)
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(questions))
    bad.write_text(json.dumps([{**q, "gold_id": "fact_missing"} for q in questions]))
    out = tmp_path / "reports"
    assert main(["eval", "recall", "--store", url, "--questions", str(good), "--out", str(out)]) == 0
    assert main(["eval", "recall", "--store", url, "--questions", str(bad), "--out", str(out)]) == 1
    assert "gates missed: R@10" in capsys.readouterr().err
    assert main(["eval", "recall", "--store", url, "--questions", str(tmp_path / "no.json")]) == 2
    assert main(["eval", "recall", "--store", url, "--no-bm25", "--no-dense",
                 "--questions", str(good)]) == 2
    assert sorted(p.suffix for p in out.iterdir()) == [".json", ".json", ".md", ".md"]
    saved = json.loads(next(out.glob("recall-default-*.json")).read_text())
    assert saved["kind"] == "recall" and "gates" in saved


def test_ablations_table_in_one_run(tmp_path, hash_embedder, monkeypatch, capsys):
    url, questions = _cli_store(tmp_path, hash_embedder, monkeypatch)
    qpath = tmp_path / "q.json"
    qpath.write_text(json.dumps(questions))
    rc = main(["eval", "recall", "--store", url, "--questions", str(qpath), "--ablations",
               "--out", str(tmp_path / "r"), "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert rc == 0
    labels = [a["label"] for a in payload["ablations"]]
    assert labels[:3] == ["no_bm25", "no_dense", "no_decay"] and "sharp_rrf" in labels
    assert all(g["passed"] for g in payload["gates"])


def test_inv56_a_sweep_with_nobody_to_ask_fails_its_gate(tmp_path, hash_embedder):
    """Invariant 56: one user alone cannot show isolation; the run says so instead of passing."""
    store = open_store(f"embedded:{tmp_path / 'solo.db'}", hash_embedder)
    service = MemoryService(store)
    questions = [Question.model_validate(q) for q in build_personas(service) if q["user_id"] == "ana"]
    for user in ("ben", "cy"):
        for f in service.store.list_facts(user):
            service.forget(user, f.id, actor="cli")
        for e in service.episodes(user):
            service.forget(user, e.id, actor="cli")
        for p in service.playbooks(user):
            service.forget(user, p.id, actor="cli")
    report = run_recall_eval(service, questions)
    assert report.sweep.recalls == 0 and report.overall.r10 == 1.0
    assert not report.passed
    assert [g.name for g in report.gates if not g.passed] == ["sweep recalls"]
    store.close()
