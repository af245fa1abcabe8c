"""The blind answers set (tests/data/answers_blind.jsonl) is frozen: its sha256 is pinned, it
parses, its ids are unique, its users are the seeded personas and each case's split follows from
its id alone. Nothing here asks the agent: the file was written before any run on it."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter

import pytest

from memory.cli import build_parser
from memory.errors import ValidationError
from memory.eval.answers_cli import cmd_answers
from memory.eval.answers_eval import (
    BLIND_PATH,
    DATA_PATH,
    AnswerCase,
    AnswersReport,
    judge,
    load_answer_cases,
    pass_rates,
    render_markdown,
    select_split,
)
from memory.personas import DATA_DIR
from memory.personas.registry import PERSONAS

# Written 2026-12-02 from the persona data alone, by a helper who never saw the agent's code or
# replies, and frozen before any run. Never edit the file and never change this hash: a new set
# gets a new file and a new pinned hash.
BLIND_ANSWERS_SHA256 = "2be43d2b984d46488fd0ddd894a72a8508fdd14e3db9f1f41a53cd00e8447c0c"


def split_of(case_id: str) -> str:
    """The split rule fixed before the answers were written: sha256(id)'s first hex digit."""
    return "tune" if int(hashlib.sha256(case_id.encode()).hexdigest()[0], 16) % 2 == 0 else "heldout"


def test_the_blind_answers_set_is_pinned_by_sha256():
    assert hashlib.sha256(BLIND_PATH.read_bytes()).hexdigest() == BLIND_ANSWERS_SHA256
    readme = (BLIND_PATH.parent / "README-answers-blind.md").read_text(encoding="utf-8")
    assert BLIND_ANSWERS_SHA256 in readme


def test_the_blind_answers_set_loads_with_unique_ids_and_split_by_id():
    cases = load_answer_cases(BLIND_PATH)
    assert len(cases) >= 180
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids))
    assert all(re.fullmatch(r"a[mlr]\d\d", i) for i in ids)
    assert all(c.split == split_of(c.id) for c in cases)
    assert Counter(c.split for c in cases)["heldout"] >= 0.4 * len(cases)
    assert Counter(c.split for c in cases)["tune"] >= 0.4 * len(cases)


def test_every_blind_question_is_about_a_seeded_persona():
    cases = load_answer_cases(BLIND_PATH)
    personas = {p.user_id for p in PERSONAS}
    per_user = Counter(c.user for c in cases)
    assert set(per_user) == personas
    assert min(per_user.values()) >= 55
    for user in personas:  # each persona's history is in the seed data
        assert (DATA_DIR / f"{user}.jsonl").exists()


def test_every_blind_case_can_pass_and_can_fail():
    for c in load_answer_cases(BLIND_PATH):
        assert c.question.strip() and c.must, c.id
        alts = [a.strip() for e in c.must + c.must_not for a in e.split("|")]
        assert all(alts), c.id  # no empty alternative, which would match nothing
        # a reply holding the first alternative of each must entry passes; an empty one fails
        assert judge(c, " ; ".join(e.split("|")[0] for e in c.must)).passed, c.id
        assert not judge(c, "").passed, c.id
        if c.must_not:  # and stating a forbidden value fails, whatever else it holds
            assert not judge(c, " ; ".join([*c.must, c.must_not[0]])).passed, c.id


def test_the_blind_file_keeps_its_raw_json_fields():
    for line in BLIND_PATH.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        assert set(row) == {"id", "user", "question", "must", "must_not", "split"}


def test_the_original_answers_file_is_all_tune_so_its_default_run_is_unchanged():
    cases = load_answer_cases(DATA_PATH)
    assert cases and {c.split for c in cases} == {"tune"}
    assert select_split(cases, "all") == cases == select_split(cases, "tune")
    assert select_split(cases, "heldout") == []


def test_select_split_and_per_split_rates():
    cases = [AnswerCase(id="t1", user="u", question="q?", must=["Bristol"]),
             AnswerCase(id="h1", user="u", question="q?", must=["Bristol"], split="heldout"),
             AnswerCase(id="h2", user="u", question="q?", must=["Bristol"], must_not=["Leeds"],
                        split="heldout")]
    assert [c.id for c in select_split(cases, "heldout")] == ["h1", "h2"]
    assert [c.id for c in select_split(cases, "tune")] == ["t1"]
    with pytest.raises(ValidationError):
        select_split(cases, "blind")
    results = [judge(cases[0], "Bristol."), judge(cases[1], "Bristol"),
               judge(cases[2], "Bristol, not Leeds")]
    assert pass_rates(results, lambda r: r.split) == {"heldout": 0.5, "tune": 1.0}
    report = AnswersReport(mode="offline", embedder="hash", data="x", seconds=0.0,
                           questions=3, passed=2, rate=0.6667, by_user={"u": 0.6667},
                           by_split=pass_rates(results, lambda r: r.split), cases=results)
    md = render_markdown(report)
    assert "| heldout | 2 | 0.500 |" in md and "| tune | 1 | 1.000 |" in md
    one = report.model_copy(update={"split": "heldout", "by_split": {"heldout": 0.5}})
    assert "split heldout only" in render_markdown(one) and "| split |" not in render_markdown(one)


def test_the_cli_takes_split_and_refuses_an_empty_one(tmp_path):
    data = tmp_path / "q.jsonl"
    data.write_text(json.dumps({"id": "t1", "user": "dev-ravi", "question": "q?",
                                "must": ["x"]}) + "\n", encoding="utf-8")
    args = build_parser().parse_args(["eval", "answers", "--data", str(data),
                                      "--split", "heldout"])
    assert args.split == "heldout"
    with pytest.raises(ValidationError, match="split heldout"):
        cmd_answers(args)  # refused before any store or agent is opened
    assert build_parser().parse_args(["eval", "answers"]).split == "all"
