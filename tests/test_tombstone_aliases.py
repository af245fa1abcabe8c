"""Issue 30, item 2: dead under any name. After a retraction, the value written under another
name (a nickname, code, exonym, numeral, synonym, another phrasing of its slot) is held for
review with the tombstone it may restate, never accepted active; a different value is accepted
(invariant 461). Through the real write path on every available store."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memory.errors import TombstoneError
from memory.models import FactState
from memory.restatements import DATA, MAX_VARIANTS, AliasTableError, load, roman, tables, variants
from memory.slots import SLOTS

DEV = Path(__file__).parent / "data" / "tombstone_paraphrases_dev.jsonl"
ROWS = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines() if line.strip()]


def _retracted(svc, user: str, text: str):
    fact = svc.write_fact(user, text, actor="cli").fact
    return svc.retract(user, fact.id, actor="cli")


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['dead']} / {r['new']}" for r in ROWS])
def test_inv461_dead_value_under_another_name_is_held(service, row):
    tomb = _retracted(service, "ana", row["dead"])
    res = service.write_fact("ana", row["new"], actor="cli")  # invariant 461: never refused
    if row["expected"] == "restates":
        assert res.fact.state == FactState.CANDIDATE, res
        assert "previously_rejected" in res.fact.flags
        assert f"possibly_restates:{tomb.id}" in res.fact.flags
        assert res.held is not None and res.held.tombstone is not None
        assert res.held.tombstone.id == tomb.id
        active = service.facts("ana", states=[FactState.ACTIVE])
        assert [f.text for f in active] == []
    else:
        assert res.fact.state == FactState.ACTIVE, res.held
        assert res.held is None and not res.fact.flags


def test_inv461_harsh_correction_to_another_name_of_the_same_value_is_held(service):
    old = service.write_fact("ana", "Lives in Bristol", actor="cli").fact
    res = service.write_fact("ana", "Lives in Brizzle", supersedes_id=old.id,
                             contradiction="harsh", actor="cli")
    assert res.held is not None and res.fact.state == FactState.CANDIDATE
    assert f"possibly_restates:{old.id}" in res.fact.flags
    assert [f.text for f in service.facts("ana", states=[FactState.ACTIVE])] == ["Lives in Bristol"]


def test_inv461_an_alias_holds_and_the_exact_value_still_refuses(service):
    tomb = _retracted(service, "ana", "Lives in Bristol")
    held = service.tombstone_verdict("ana", "Lives in BRS")
    assert held.decision == "review" and held.tombstone is not None
    assert held.tombstone.id == tomb.id and "another name" in held.reason
    with pytest.raises(TombstoneError):
        service.write_fact("ana", "Lives in Bristol", actor="cli")
    # another user's tombstone holds nothing
    assert service.write_fact("bo", "Lives in BRS", actor="cli").fact.state == FactState.ACTIVE


def test_inv461_readings_in_the_slot_vocabulary():
    assert "lives in bristol" in variants("Her home city is Bristol")
    assert "lives in bristol" in variants("Bristolian")
    assert "lives in bristol, united kingdom" in variants("Residence: Bristol, United Kingdom")
    assert "has 3 children" in variants("Has III children")
    assert "has 3 children" in variants("Has triplets")
    assert "allergic to peanut" in variants("Allergic to groundnuts")
    assert "lives in munich" in variants("Lives in MUC")
    assert "prefers email" in variants("Prefers electronic mail")
    # codes only as written in capitals; given names only where a text names someone
    assert variants("Is a man of few words") == []
    assert not any("william" in v for v in variants("Will move next spring"))
    assert roman("III") == 3 and roman("IV") == 4 and roman("IIII") is None
    assert roman("MIX") is None and not any("1" in v for v in variants("Has I children"))


def test_inv461_a_bad_alias_row_names_its_file_and_line(tmp_path):
    bad = tmp_path / "aliases"
    shutil.copytree(DATA, bad)
    with (bad / "places.jsonl").open("a", encoding="utf-8") as f:
        f.write(json.dumps({"name": "Leeds", "codes": ["lba"], "source": "test"}) + "\n")
    lines = (bad / "places.jsonl").read_text(encoding="utf-8").count("\n")
    with pytest.raises(AliasTableError, match=rf"places\.jsonl:{lines}: codes"):
        load(bad)
    (bad / "places.jsonl").write_text((DATA / "places.jsonl").read_text(encoding="utf-8"))
    (bad / "numbers.jsonl").write_text('{"phrase": "twins"}\n', encoding="utf-8")
    with pytest.raises(AliasTableError, match=r"numbers\.jsonl:1: "):
        load(bad)
    assert all(row for row in tables().groups)  # the shipped tables load


def test_inv461_a_text_of_many_alias_words_is_read_a_bounded_number_of_ways():
    text = "Allergic to peanuts, milk, eggs, sesame, soy, shrimp and aubergine; lives in MUC"
    assert 0 < len(variants(text)) <= MAX_VARIANTS


def test_inv461_phrasings_name_slots_of_the_one_vocabulary(tmp_path):
    assert {slot for slot, _ in tables().phrasings} <= set(SLOTS)
    bad = tmp_path / "aliases"
    shutil.copytree(DATA, bad)
    (bad / "phrasings.jsonl").write_text(json.dumps(
        {"slot": "residence", "pattern": "^home is (?P<v>.+)$", "source": "test"}) + "\n",
        encoding="utf-8")
    with pytest.raises(AliasTableError, match="unknown slot 'residence'"):
        load(bad)


def test_inv461_the_agent_tool_holds_another_name_of_a_dead_value(service):
    from memory.policy import ReviewPolicy
    from memory.tools import ToolContext, execute

    _retracted(service, "ana", "Lives in Bristol")
    ep = service.write_episode("ana", "her home city is Bristol", session_id="s")
    c = ToolContext(service=service, user_id="ana", session_id="s", episode_id=ep.id,
                    user_message="her home city is Bristol", policy=ReviewPolicy())
    res = execute(c, "write_memory", {"text": "Her home city is Bristol", "fact_type": "identity"})
    assert res.ok and [w.status for w in res.writes] != ["applied"]
    assert service.facts("ana", states=[FactState.ACTIVE]) == []


@pytest.mark.parametrize("said", ["I live in Brizzle.", "I've become allergic to groundnuts."])
def test_inv461_consolidation_holds_another_name_of_a_dead_value(minilm_service, said):
    from memory.consolidation.apply import apply_plan
    from memory.consolidation.planner import make_plan
    from memory.llm.offline import OfflineLLM
    from memory.policy import ReviewPolicy

    svc = minilm_service
    _retracted(svc, "ana", "Lives in Bristol" if "live" in said else "Allergic to peanuts")
    svc.write_episode("ana", said)
    plan = make_plan(svc, "ana", OfflineLLM(), policy=ReviewPolicy())
    assert [f for op in plan.ops if (f := op.fact) is not None], plan.ops  # it was read
    assert [g.decision for g in plan.gates if g.gate == "tombstone"] == ["review"]
    apply_plan(svc, plan)
    assert svc.facts("ana", states=[FactState.ACTIVE]) == []


def test_inv461_a_name_spelled_another_way_is_held(service):
    from memory.restatements import near_spelling

    tomb = _retracted(service, "ana", "Lives in Bristol")
    res = service.write_fact("ana", "Lives in Brissle", actor="cli")
    assert res.fact.state == FactState.CANDIDATE and res.held is not None
    assert f"possibly_restates:{tomb.id}" in res.fact.flags and "spelled" in res.held.reason
    assert near_spelling("Lives in Edinburgh", "Lives in Edimbourg")
    # another place, another count, another slot, the opposite polarity: not a spelling
    assert near_spelling("Lives in Bristol", "Lives in Brighton") is None
    assert near_spelling("Has 3 cats", "Has 2 cats") is None
    assert near_spelling("Lives in Bristol", "Grew up in Brissle") is None
    assert near_spelling("Allergic to peanuts", "Not allergic to peanutz") is None
    assert service.write_fact("ana", "Lives in Brighton", actor="cli").fact.state == "active"
