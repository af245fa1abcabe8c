"""Every review decision is a label (issue 32): a scripted review session on the demo personas,
measured by the pure function and by `memdesk eval labels`; exported as statements that
`memdesk eval agent` runs unchanged. Real embedded stores, the real review API, the real CLI."""

from __future__ import annotations

import json
import stat
from datetime import UTC, date, datetime

import pytest

from memory.agent import run_turn
from memory.cli import main
from memory.clock import fixed_clock
from memory.consolidation.planner import make_plan
from memory.embeddings import get_embedder
from memory.errors import ValidationError
from memory.eval.agent_eval import load_cases, run_agent_eval
from memory.eval.label_export import export_labels, value_words
from memory.forgetting import erase_user
from memory.llm.offline import OfflineLLM
from memory.models import AuditEvent
from memory.readers import offline_digest, reader_version
from memory.service import MemoryService
from memory.stores import open_store
from review import decide, propose
from review.label_source import collect_labels, label_tables
from review.labels import Outcome, edit_distance, labels_from_events, measure
from tests.label_support import (
    DAY1,
    EXPECTED,
    GERMAN_EDIT,
    LENA,
    MAYA,
    RAVI,
    UNDONE,
    run_session,
    seed_demo,
)


@pytest.fixture
def session(tmp_path, monkeypatch, capsys):
    """The demo personas after the scripted review session; the CLI reads the same file."""
    url = f"embedded:{tmp_path / 'desk.db'}"
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    monkeypatch.setenv("MEMDESK_STORE", url)
    monkeypatch.delenv("MEMDESK_ES_URL", raising=False)
    seed_demo(url)
    run_session(url)
    capsys.readouterr()
    store = open_store(url, get_embedder("hash"))
    svc = MemoryService(store, clock=fixed_clock(DAY1))
    yield svc
    store.close()


def cli(capsys, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(args))
    got = capsys.readouterr()
    return code, got.out, got.err


def _check(rows) -> None:
    got = {(r.reader, r.kind, r.day.isoformat() if r.day else None):
           (r.decided, r.accepted, r.edited, r.merged, r.rejected, r.precision) for r in rows}
    assert got == EXPECTED


def test_inv491_scripted_session_counts_from_the_pure_function(session):
    labels = collect_labels(session, [RAVI, LENA, MAYA])
    assert len(labels) == 10  # 11 decisions, one undone; pending items are never labels
    _check(measure(labels))
    (total,) = measure(labels, by=("reader",))
    assert (total.decided, total.accepted, total.edited, total.merged, total.rejected) == \
        (10, 4, 2, 1, 3)
    assert total.precision == 0.5  # (4 accepted + 1 merged) / 10 decided
    assert total.mean_edit_distance == 20.0  # (34 + 6) / 2
    assert total.rejected_by_reason == {"not what he said": 2, "wrong day": 1}
    german = next(lb for lb in labels if lb.fact_id == "fact_ravi_c_german_b2")
    assert (german.outcome, german.final, german.edit_distance, german.operator) == \
        (Outcome.EDITED, GERMAN_EDIT, 34, "ann")
    assert german.source_episode_ids == ["ep_ravi_1028_1310"]
    merged = next(lb for lb in labels if lb.outcome == Outcome.MERGED)
    assert merged.into == "fact_maya_matter"
    with pytest.raises(ValueError):
        measure(labels, by=("kind",))  # always per reader version


def test_inv491_undo_removes_the_label_and_a_new_decision_makes_one(session):
    assert UNDONE not in {lb.fact_id for lb in collect_labels(session, MAYA)}
    decide(session, MAYA, UNDONE, "reject", operator="ann", expected_rev=3, reason="no garden")
    again = [lb for lb in collect_labels(session, MAYA) if lb.fact_id == UNDONE]
    assert [(lb.outcome, lb.reason) for lb in again] == [(Outcome.REJECTED, "no garden")]


def test_inv491_forgotten_fact_and_erased_user_take_their_labels(session):
    session.forget(RAVI, "fact_ravi_c_german_b2", actor="cli")
    ravi = collect_labels(session, RAVI)
    assert "fact_ravi_c_german_b2" not in {lb.fact_id for lb in ravi} and len(ravi) == 2
    dumped = json.dumps([lb.model_dump(mode="json") for lb in ravi])
    assert "German" not in dumped  # no text of the forgotten fact survives in any label
    erase_user(session, LENA, actor="cli")
    assert collect_labels(session, LENA) == []
    assert len(collect_labels(session, [RAVI, LENA, MAYA])) == 5


def test_inv491_cli_prints_the_same_table(session, capsys):
    code, out, _ = cli(capsys, "eval", "labels", "--json")
    assert code == 0
    payload = json.loads(out)
    assert payload["labels"] == 10 and payload["users"] == [RAVI, LENA, MAYA]
    got = {(r["reader"], r["kind"], r["day"]): (r["decided"], r["accepted"], r["edited"],
                                                r["merged"], r["rejected"], r["precision"])
           for r in payload["by_reader_kind_day"]}
    assert got == EXPECTED
    assert payload["by_reader"][0]["precision"] == 0.5
    code, out, _ = cli(capsys, "eval", "labels")
    assert code == 0 and "By reader version, kind and day" in out
    line = next(x for x in out.splitlines() if x.startswith("seed") and "all" in x.split()[1:3])
    assert line.split()[:7] == ["seed", "all", "all", "10", "0.5", "4", "2"]
    code, out, _ = cli(capsys, "eval", "labels", "--user", MAYA, "--json")
    assert json.loads(out)["labels"] == 3
    code, _, err = cli(capsys, "eval", "labels", "--user", "nobody")
    assert code == 3 and "unknown user" in err and "Traceback" not in err


def test_inv491_pending_proposals_are_not_counted(tmp_path, monkeypatch, capsys):
    url = f"embedded:{tmp_path / 'fresh.db'}"
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hash")
    seed_demo(url)  # every demo candidate still waits
    code, out, _ = cli(capsys, "eval", "labels", "--store", url)
    assert code == 0 and "no decided proposals for 3 user(s) yet" in out
    code, out, _ = cli(capsys, "eval", "labels", "--store", url, "--json")
    assert json.loads(out)["by_reader"] == []


def test_inv490_readers_name_their_version_on_active_writes_and_plans(tmp_path):
    store = open_store(f"embedded:{tmp_path / 'r.db'}", get_embedder("hash"))
    svc = MemoryService(store)
    trace = run_turn(svc, "sam", None, "I live in Leeds now.", llm=OfflineLLM())
    (w,) = [w for w in trace.writes() if w.status == "applied"]
    fact = svc.get_fact("sam", w.memory_id)
    assert fact.reader == reader_version("offline") == f"offline-reader@{offline_digest()}"
    assert "reader" not in svc.write_fact("sam", "Has a bike", actor="cli").fact.model_dump()
    svc.write_episode("pia", "I have a dog called Rex and I love hiking in the Alps.")
    plan = make_plan(svc, "pia", OfflineLLM())
    planned = [op.fact for op in plan.ops if op.fact is not None]
    assert planned and {f.reader for f in planned} == {reader_version("offline")}
    assert reader_version("anthropic:claude-x") == "anthropic:claude-x"
    store.close()


def test_inv491_active_writes_an_operator_retracted_or_corrected_count_against_the_reader(
        tmp_path):
    store = open_store(f"embedded:{tmp_path / 'a.db'}", get_embedder("hash"))
    svc = MemoryService(store)
    llm = OfflineLLM()
    leeds = next(w for w in run_turn(svc, "sam", None, "I live in Leeds now.", llm=llm).writes()
                 if w.status == "applied").memory_id
    nurse = next(w for w in run_turn(svc, "sam", None, "I work as a nurse at St James's.",
                                     llm=llm).writes() if w.status == "applied").memory_id
    kept = next(w for w in run_turn(svc, "sam", None, "I have a cat called Miso.",
                                    llm=llm).writes() if w.status == "applied").memory_id
    svc.retract("sam", leeds, actor="operator:ann", reason="never said")
    svc.write_fact("sam", "Works as a midwife at St James's", supersedes_id=nurse,
                   actor="cli:bo")
    svc.retract("sam", kept, actor="agent")  # the reader's own correction is no label
    labels = collect_labels(svc, "sam")
    reader = reader_version("offline")
    assert [(lb.fact_id, lb.outcome, lb.reader) for lb in labels] == [
        (leeds, Outcome.RETRACTED, reader), (nurse, Outcome.CORRECTED, reader)]
    assert labels[1].final == "Works as a midwife at St James's" and labels[1].edit_distance
    (row,) = measure(labels, by=("reader",))
    assert (row.decided, row.retracted, row.corrected, row.precision) == (2, 1, 1, 0.0)
    store.close()


def test_inv491_labels_follow_the_log_order_pure():
    at = datetime(2026, 12, 1, tzinfo=UTC)
    cand = {"id": "f1", "text": "Likes jazz", "fact_type": "preference", "state": "candidate",
            "origin": "agent", "reader": "offline-reader@x", "source_episode_ids": ["e1"]}

    def ev(action, before=None, after=None, reason=None, targets=("f1",)):
        return AuditEvent(at=at, actor="operator:ann", user_id="u", action=action,
                          target_ids=list(targets), before=before, after=after, reason=reason)

    approve = ev("review_approve", cand, {**cand, "state": "active", "rev": 2})
    undo = ev("review_undo", {**cand, "state": "active"}, cand)
    reject = ev("review_reject", cand, {**cand, "state": "rejected"}, reason="no")
    newest_first = [reject, undo, approve]
    (lb,) = labels_from_events(newest_first)
    assert (lb.outcome, lb.reader, lb.kind) == (Outcome.REJECTED, "offline-reader@x", "preference")
    assert labels_from_events([undo, approve]) == []
    forget = AuditEvent(at=at, actor="cli", user_id="u", action="forget", target_ids=["f1"])
    assert labels_from_events([forget, reject, undo, approve]) == []
    assert edit_distance("kitten", "sitting") == 3 and edit_distance("", "abc") == 3


def test_inv494_export_runs_through_the_agent_eval_unchanged(session, tmp_path, capsys):
    out = tmp_path / "labels.jsonl"
    code, text, err = cli(capsys, "eval", "export-labels", "--since", "2026-12-01",
                          "--out", str(out))
    assert code == 0, err
    assert "wrote 10 cases from 10 labels" in text
    assert stat.S_IMODE(out.stat().st_mode) == 0o600  # the users' words, for the owner only
    raw = out.read_text(encoding="utf-8")
    for user in (RAVI, LENA, MAYA, "ravi", "lena", "maya"):
        assert user not in raw.lower()  # user ids replaced (invariant 494)
    cases = load_cases(out)
    assert len(cases) == 10 and {c.user for c in cases} == {"fresh"}
    assert {c.split for c in cases} == {"tune"}
    ops = sorted(e.op for c in cases for e in c.expect)
    # approve ×2, keep both, edit ×2 write; the accepted contradiction supersedes its given fact
    assert ops == ["supersede", "write", "write", "write", "write", "write"]
    sup = next(c for c in cases if any(e.op == "supersede" for e in c.expect))
    assert sup.given and sup.expect[0].old == "g0"
    assert sum(not c.expect for c in cases) == 4  # rejected ×3 and merged: nothing to write
    report = run_agent_eval(cases, get_embedder("hash"), lambda: __import__(
        "memory.agents.offline", fromlist=["OfflineAgent"]).OfflineAgent(), splits=("tune",),
        data=str(out))
    assert report.splits["tune"].statements == 10
    assert report.splits["tune"].labelled_ops == 6
    assert {r.id for r in report.cases} == {c.id for c in cases}
    # --since after the session: nothing decided since
    code, text, _ = cli(capsys, "eval", "export-labels", "--since", "2026-12-03",
                        "--out", str(tmp_path / "none.jsonl"))
    assert code == 0 and "wrote 0 cases" in text


def test_inv494_erased_users_are_refused_and_secrets_left_out(session, tmp_path, capsys):
    erase_user(session, LENA, actor="cli")
    code, _, err = cli(capsys, "eval", "export-labels", "--since", "2026-01-01", "--out",
                       str(tmp_path / "x.jsonl"), "--user", LENA)
    assert code == 2 and "erased" in err and not (tmp_path / "x.jsonl").exists()
    # The id returns with a new decision: still refused, counted, never written.
    ep = session.write_episode(LENA, "I sing in a choir on Tuesdays")
    item = propose(session, LENA, "Sings in a choir", source_episode_ids=[ep.id])
    decide(session, LENA, item.id, "approve", operator="bo", expected_rev=1)
    res = export_labels(session, [RAVI, LENA, MAYA], since=date(2026, 1, 1), actor="cli")
    assert res.refused_users == [LENA] and res.left_out == {"erased user": 1}
    assert "choir" not in json.dumps([c.model_dump() for c in res.cases])
    # A message holding a secret never leaves, even when its proposal was approved.
    ep = session.write_episode(RAVI, "my card is 4111 1111 1111 1111 and I like tea")
    item = propose(session, RAVI, "Likes tea", source_episode_ids=[ep.id])
    decide(session, RAVI, item.id, "approve", operator="bo", expected_rev=1)
    res = export_labels(session, [RAVI], since=date(2026, 1, 1), actor="cli")
    assert "4111" not in json.dumps([c.model_dump() for c in res.cases])
    with pytest.raises(ValidationError):
        export_labels(session, [], since=date(2026, 1, 1), actor="cli")  # no scope, no export


def test_inv494_a_forgotten_source_message_leaves_its_case_out(session):
    session.forget(RAVI, "ep_ravi_1114_1510", actor="cli")  # the mentor message; fact kept
    res = export_labels(session, [RAVI], since=date(2026, 1, 1), actor="cli")
    assert res.labels == 3 and len(res.cases) == 2
    assert res.left_out == {"source message forgotten": 1}
    assert "mentor" not in json.dumps([c.model_dump() for c in res.cases]).lower()


def test_inv494_value_words_are_the_values_own_longest_words():
    assert value_words("Prefers a window seat on long-haul flights") == \
        ["window", "seat", "flights"]
    assert value_words("Mentors the new junior engineer Emre") == ["Mentors", "junior", "engineer"]
    assert value_words("a b c") == []


def test_label_tables_for_the_page(session):
    tables = label_tables(session, [RAVI, LENA, MAYA])
    assert len(tables.by_reader) == 1 and len(tables.by_reader_kind_day) == len(EXPECTED)
    assert tables.users == [RAVI, LENA, MAYA] and len(tables.labels) == 10
