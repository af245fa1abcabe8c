"""The agent eval: the labelled statements file, the scoring rules, a real run, and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from datetime import date
from pathlib import Path

import pytest

from memory.agents.offline import OfflineAgent
from memory.eval.agent_eval import (
    DATA_PATH,
    Expected,
    Predicted,
    load_cases,
    render_markdown,
    run_agent_eval,
    score_case,
)
from memory.personas.build import DATA_DIR

ROOT = Path(__file__).resolve().parent.parent


def test_inv77_the_statements_file_is_labelled_split_and_consistent():
    """invariant 77: ≥ 120 labelled statements, every persona and beyond, a held-out third,
    and every labelled old fact exists in its persona's data."""
    cases = load_cases()
    assert len(cases) >= 120 and len({c.id for c in cases}) == len(cases)
    splits = Counter(c.split for c in cases)
    assert splits["heldout"] >= 40 and splits["tune"] >= 80
    users = Counter(c.user for c in cases)
    assert {"maya-smart-home", "dev-ravi", "lena-travels", "fresh"} <= set(users)
    ops = Counter(e.op for c in cases for e in c.expect)
    assert min(ops[o] for o in ("write", "supersede", "retract", "forget")) >= 10
    assert sum(1 for c in cases if not c.expect) >= 25  # statements that must write nothing
    persona_ids = set()
    for path in DATA_DIR.glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            doc = json.loads(line).get("doc") or {}
            if doc.get("id", "").startswith("fact_"):
                persona_ids.add(doc["id"])
    for c in cases:
        for e in c.expect:
            if c.user == "fresh":
                assert e.old is None or int(e.old[1:]) < len(c.given), c.id
            else:
                assert e.old is None or e.old in persona_ids, c.id


def test_scoring_rules():
    exp = [Expected(op="supersede", value=["helix"], old="fact_x", valid_from=date(2026, 11, 24))]
    good = Predicted(op="supersede", text="Main editor is Helix", old_id="fact_x",
                     valid_from=date(2026, 11, 24))
    assert score_case(exp, [good], []) == (1, 0, 0)
    for bad in (good.model_copy(update={"old_id": "fact_y"}),
                good.model_copy(update={"op": "write"}),
                good.model_copy(update={"valid_from": None}),
                good.model_copy(update={"text": "Main editor is Helix last week"}),  # inv. 74
                good.model_copy(update={"review": True})):
        assert score_case(exp, [bad], []) == (0, 1, 1)
    assert score_case([], [good], []) == (0, 1, 0)  # a write where none was wanted
    assert score_case([Expected(op="retract", old="g0")],
                      [Predicted(op="retract", old_id="f_given")], ["f_given"]) == (1, 0, 0)
    assert score_case([Expected(op="write", value=["boulder"])],
                      [Predicted(op="write", text="Has given up bouldering")], []) == (1, 0, 0)


def test_a_real_run_over_new_users(tmp_path, hash_embedder):
    cases = [c for c in load_cases() if c.id in {"f62", "f02", "f03", "f11", "f22", "f40"}]
    report = run_agent_eval(cases, hash_embedder, OfflineAgent, workdir=tmp_path)
    assert {r.id for r in report.cases} == {c.id for c in cases}
    assert report.splits["all"].statements == 6
    by = {r.id: r for r in report.cases}
    assert by["f62"].tp == 1 and by["f62"].predicted[0].op == "supersede"
    assert by["f11"].predicted == [] and by["f22"].predicted == []
    md = render_markdown(report, misses=True)
    assert "| all | 6 |" in md and "precision" in md


@pytest.mark.process
def test_cli_lists_the_command_and_refuses_a_missing_file(tmp_path):
    env = {**os.environ, "MEMDESK_EMBEDDER": "hash", "MEMDESK_LLM": "offline"}
    env.pop("ANTHROPIC_API_KEY", None)
    out = subprocess.run([sys.executable, "-m", "memory", "eval", "agent", "--data",
                          str(tmp_path / "none.jsonl")], capture_output=True, text=True, env=env,
                         cwd=ROOT, check=False, timeout=120)
    assert out.returncode == 2 and "no statements file" in out.stderr
    assert Path(DATA_PATH).exists()


def test_inv77_wrong_writes_are_counted_by_kind_without_reading_a_case():
    from memory.eval.agent_eval import Expected, Predicted, wrong_kinds

    sup = Expected(op="supersede", value=["Leeds"], old="f1", valid_from=date(2026, 11, 30))
    right = Predicted(op="supersede", text="Lives in Leeds", old_id="f1",
                      valid_from=date(2026, 11, 30))
    assert wrong_kinds([sup], [right], []) == {}
    assert wrong_kinds([], [right], []) == {"spurious": 1}
    assert wrong_kinds([sup], [right, right], []) == {"extra": 1}
    for field, wrong in [("operation", {"op": "write"}), ("value", {"text": "Lives in Leeds yesterday"}),
                         ("target", {"old_id": "f2"}), ("date", {"valid_from": date(2026, 11, 1)}),
                         ("review", {"review": True})]:
        assert wrong_kinds([sup], [right.model_copy(update=wrong)], []) == {field: 1}
    # A given fact's label names it by position; the closest unmet label decides the kind.
    g = Expected(op="retract", old="g0")
    got = Predicted(op="retract", old_id="other")
    assert wrong_kinds([g, sup], [got], ["given-0"]) == {"target": 1}
    assert score_case([g], [got.model_copy(update={"old_id": "given-0"})], ["given-0"]) == (1, 0, 0)


def test_inv77_a_correction_with_its_new_value_is_a_retraction_and_a_write():
    fix = Predicted(op="retract", text="Door sensors take CR2032 batteries", old_id="f1")
    pair = [Expected(op="retract", old="f1"), Expected(op="write", value=["cr2032"])]
    assert score_case(pair, [fix], []) == (2, 0, 0)
    # one label naming the new value is met by the whole correction, never counted twice
    assert score_case([Expected(op="retract", value=["cr2032"], old="f1")], [fix], []) == (1, 0, 0)
    # a plain retraction writes nothing, so it cannot meet the write label
    plain = Predicted(op="retract", old_id="f1")
    assert score_case(pair, [plain], []) == (1, 0, 1)
    # a correction where only a retraction was wanted wrote a value nobody said: one wrong write
    assert score_case([Expected(op="retract", old="f1")], [fix], []) == (1, 1, 0)
    from memory.eval.agent_eval import wrong_kinds
    assert wrong_kinds([Expected(op="retract", old="f1")], [fix], []) == {"extra": 1}
    # on a statement that should write nothing, both changes are wrong
    assert score_case([], [fix], []) == (0, 2, 0)


def test_inv435_the_eval_sums_model_usage_with_cache_tokens(tmp_path, hash_embedder):
    """`memdesk eval agent --agent anthropic` on a local Messages API server: each turn's tokens,
    cache writes and reads, and retries are summed in the report."""
    from memory.agents import get_agent
    from memory.llm import get_llm
    from memory.settings import Settings
    from tests.llm_server import ScriptedServer, text

    cases = [c for c in load_cases() if c.id in {"f01", "f02"}]
    answers = [text("Noted.", cache=(1500, 0)), text("Noted.", cache=(0, 1500))]
    with ScriptedServer(answers) as server:
        settings = Settings.from_env({"MEMDESK_LLM": "anthropic", "ANTHROPIC_API_KEY": "t",
                                      "ANTHROPIC_BASE_URL": server.url,
                                      "MEMDESK_ANTHROPIC_MODEL": "claude-test"})
        report = run_agent_eval(cases, hash_embedder, lambda: get_agent(get_llm(settings)),
                                workdir=tmp_path)
    u = report.usage
    assert (u.calls, u.input_tokens, u.output_tokens) == (2, 600, 40)
    assert (u.cache_creation_input_tokens, u.cache_read_input_tokens) == (1500, 1500)
    assert "cache write 1500 / read 1500" in render_markdown(report)
