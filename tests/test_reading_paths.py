"""The one reader as the system uses it (issue 28): chat and consolidation make the same changes
from the same words, unsure readings wait for review, replies never claim what is not active,
bad input is read or refused clearly, and the eval counts what the issue asks for."""

from __future__ import annotations

import pytest

from memory.agent import run_turn
from memory.agents.offline import OfflineAgent
from memory.clock import fixed_clock
from memory.consolidation.planner import gather
from memory.errors import MemdeskError
from memory.eval.agent_eval import Expected, Predicted, reading_counts
from memory.llm.offline import OfflineLLM
from memory.models import FactState
from memory.service import MemoryService
from memory.stores import open_store

from .conftest import NOW

# (facts on record, message): both paths must agree on every row.
PARITY = [
    ([], "I have a Lumio Hub v2 in the living room."),
    ([], "I have a Lumio Hub v2 and two Lumio bulbs"),
    (["Lives in Kreuzberg, Berlin"], "My sister Anjali moved to London"),
    (["Lives in Kreuzberg, Berlin"], "We moved to Leeds last month"),
    (["Has an iPhone 13"], "got a Pixel 9 on black friday, goodbye apple"),
    (["Works as a backend developer"], "I got promoted to staff engineer last week"),
    ([], "I think I might be allergic to penicillin"),
    (["Lives in Bristol"], "No, that's wrong, I live in Cardiff"),
    ([], "I started learning the cello last month"),
    (["Has a beagle called Biscuit"], "That's wrong, I never had a dog"),
]


def _store(tmp_path, name, embedder):
    return open_store(f"embedded:{tmp_path / name}", embedder)


def _seed(svc, facts):
    return {svc.write_fact("ana", t).fact.id: t for t in facts}


@pytest.mark.parametrize("facts,message", PARITY, ids=[m[:40] for _, m in PARITY])
def test_inv535_chat_and_consolidation_make_the_same_changes(tmp_path, hash_embedder, facts,
                                                              message):
    chat_svc = MemoryService(_store(tmp_path, "chat.db", hash_embedder), clock=fixed_clock(NOW))
    texts = _seed(chat_svc, facts)
    trace = run_turn(chat_svc, "ana", "s1", message, agent=OfflineAgent())
    chat = sorted((w.op if not (w.op == "retract" and w.text) else "supersede", w.text or None,
                   texts.get(w.old_id or "")) for w in trace.writes() if w.op != "forget")

    plan_svc = MemoryService(_store(tmp_path, "plan.db", hash_embedder), clock=fixed_clock(NOW))
    texts = _seed(plan_svc, facts)
    plan_svc.write_episode("ana", message, session_id="s1")
    extraction, _ = OfflineLLM().extract(gather(plan_svc, "ana").request())
    planned = sorted([("supersede" if f.supersedes_id else "write", f.text,
                       texts.get(f.supersedes_id or "")) for f in extraction.facts]
                     + [("retract", None, texts.get(d.target_id or "")) for d in extraction.denials])
    assert chat == planned


def test_inv534_relatives_news_never_changes_the_users_own_facts(service):
    home = service.write_fact("ana", "Lives in Kreuzberg, Berlin", fact_type="identity").fact
    trace = run_turn(service, "ana", "s1", "My sister Anjali moved to London", agent=OfflineAgent())
    assert service.get_fact("ana", home.id).state == FactState.ACTIVE
    assert all(w.old_id != home.id for w in trace.writes())
    trace = run_turn(service, "ana", "s1", "My colleague Emre moved to Munich",
                     agent=OfflineAgent())
    assert trace.writes() == []


def test_inv534_a_hedged_statement_waits_for_review_and_is_never_claimed(service):
    trace = run_turn(service, "ana", "s1", "I think I might be allergic to penicillin",
                     agent=OfflineAgent())
    assert [w.status for w in trace.writes()] == ["review"]
    assert "review queue" in trace.reply and "Noted" not in trace.reply
    assert [f.state for f in service.facts("ana")] == [FactState.CANDIDATE]


def test_inv76_a_denial_of_a_fact_on_record_retracts_it_and_no_answer_uses_it(service):
    dog = service.write_fact("ana", "Has a beagle called Biscuit").fact
    trace = run_turn(service, "ana", "s1", "That's wrong, I never had a dog. Do I have any pets?",
                     agent=OfflineAgent())
    assert service.get_fact("ana", dog.id).state == FactState.RETRACTED
    assert "never true" in trace.reply
    answer = trace.reply.split("never true", 1)[1]
    assert "Biscuit" not in answer


def test_inv590_an_unsure_denial_waits_for_an_operator_and_the_reply_says_the_fact_stays(
        service):
    ups = service.write_fact("ana", "Has a UPS for the router").fact
    trace = run_turn(service, "ana", "s1", "hmm I don't think I ever said I had a UPS",
                     agent=OfflineAgent())
    assert service.get_fact("ana", ups.id).state == FactState.ACTIVE
    assert "asked an operator to confirm taking back" in trace.reply
    assert "stays on record" in trace.reply and "never true" not in trace.reply


def test_inv76_a_message_kept_with_nothing_read_says_so(service):
    trace = run_turn(service, "ana", "s1", "Honestly the weather today is awful",
                     agent=OfflineAgent())
    assert trace.writes() == [] and trace.understood is False
    assert "nothing was recorded" in trace.reply and "kept" in trace.reply
    assert [e.text for e in service.episodes("ana")] == ["Honestly the weather today is awful"]


@pytest.mark.parametrize("message", [
    "", " ", "x" * 40_000, "I live in\u0007 Leeds", "I live in \u202eLeeds\u202c",
    "I live in Bos\u200bton", "Я живу в Москве and I have a cat", "لقد انتقلت إلى دبي",
    "\U0001f600\U0001f600", "my name is \u0000Ann"])
def test_inv532_bad_input_is_read_or_refused_with_a_clear_message(service, message):
    try:
        trace = run_turn(service, "ana", "s1", message, agent=OfflineAgent())
    except MemdeskError as exc:  # refused before anything is stored, with what to do
        assert str(exc) and not service.episodes("ana")
        return
    assert trace.reply
    for w in trace.writes():
        assert w.text is None or not any(ord(c) in (0x202E, 0x202C, 0x200B, 7) for c in w.text)
    if "Bos" in message and trace.writes():
        assert trace.writes()[0].text == "Lives in Boston"


def test_inv77_the_eval_counts_active_precision_all_writes_denials_and_kin():
    expected = [Expected(op="retract", old="fact_dog"), Expected(op="write", value=["tapo"])]
    predicted = [Predicted(op="retract", old_id="fact_dog"),
                 Predicted(op="write", text="Has a Tapo C210", review=True),
                 Predicted(op="supersede", text="Lives in London", old_id="fact_home")]
    c = reading_counts("my sister moved, and that's wrong: never had a dog", expected,
                       predicted, [])
    assert (c.active, c.active_right) == (2, 1)  # the review write is not active
    assert (c.labels, c.labels_met_any) == (2, 2)  # it still meets its label for recall
    assert (c.denials, c.denials_handled) == (1, 1)
    assert c.kin_on_user == 1  # a relative's news replaced the user's own home
    assert reading_counts("I live in I", [], [Predicted(op="write", text="Lives in I")],
                          []).garbled == 1
