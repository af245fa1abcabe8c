"""The blind statements set is frozen (invariant 100): its sha256 is pinned, it parses, an edited
copy does not load, and a run never pools it with the tuning splits."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter

import pytest

from memory.errors import ValidationError
from memory.eval.agent_eval import (
    BLIND2_PATH,
    BLIND3_PATH,
    BLIND4_PATH,
    BLIND_PATH,
    DATA_PATH,
    FROZEN_BLIND,
    Case,
    choose_splits,
    load_cases,
    run_agent_eval,
)
from memory.personas.build import DATA_DIR

# Written 2026-12-01 before any run, by a helper who never saw the agent's rules. Never edit the
# file, and never change this hash: a new blind set gets a new file and a new pinned hash.
BLIND_SHA256 = "71f4d73ab03d448751872f776cf75b33a1c5d1878bb3a9d5339e45841b139857"
# The second blind set, written 2026-12-02 the same way by another helper who never saw the rules.
BLIND2_SHA256 = "0217a0dd39a2b5a445d0e397e6ec0623f42875908ee43f006dfb6d24486ac408"
# The third, written 2026-12-02 the same way, in the plain voice of the product's users.
BLIND3_SHA256 = "6bbba1c526a0ba499778263888f83fdba2a2a620139153b7453807865d1b8e74"
# The fourth, written 2026-12-02 the same way (personas and new users, plain chat voice).
BLIND4_SHA256 = "fb8f5d00a7a3a253055591d358c00d63b7b5bb93ef2d819ec6960e75663bb840"


def test_inv100_the_blind_set_is_pinned_by_sha256():
    assert hashlib.sha256(BLIND_PATH.read_bytes()).hexdigest() == BLIND_SHA256
    assert BLIND_SHA256 in FROZEN_BLIND
    readme = (BLIND_PATH.parent / "README-statements-blind.md").read_text(encoding="utf-8")
    assert BLIND_SHA256 in readme


def test_inv100_the_second_blind_set_is_pinned_by_sha256():
    assert hashlib.sha256(BLIND2_PATH.read_bytes()).hexdigest() == BLIND2_SHA256
    assert BLIND2_SHA256 in FROZEN_BLIND and BLIND_SHA256 in FROZEN_BLIND
    readme = (BLIND2_PATH.parent / "README-statements-blind2.md").read_text(encoding="utf-8")
    assert BLIND2_SHA256 in readme


def test_inv100_the_third_blind_set_is_pinned_by_sha256():
    assert hashlib.sha256(BLIND3_PATH.read_bytes()).hexdigest() == BLIND3_SHA256
    assert {BLIND_SHA256, BLIND2_SHA256, BLIND3_SHA256} <= set(FROZEN_BLIND)
    readme = (BLIND3_PATH.parent / "README-statements-blind3.md").read_text(encoding="utf-8")
    assert BLIND3_SHA256 in readme


def test_inv100_the_fourth_blind_set_is_pinned_by_sha256():
    assert hashlib.sha256(BLIND4_PATH.read_bytes()).hexdigest() == BLIND4_SHA256
    assert {BLIND_SHA256, BLIND2_SHA256, BLIND3_SHA256, BLIND4_SHA256} <= set(FROZEN_BLIND)
    readme = (BLIND4_PATH.parent / "README-statements-blind4.md").read_text(encoding="utf-8")
    assert BLIND4_SHA256 in readme


def test_inv100_the_blind_set_parses_and_its_labels_name_live_facts():
    _assert_blind_labels(load_cases(BLIND_PATH), "b", 110)


def test_inv100_the_second_blind_set_parses_and_its_labels_name_live_facts():
    cases = load_cases(BLIND2_PATH)
    _assert_blind_labels(cases, "c", 160)
    assert not {c.text for c in cases} & {c.text for c in load_cases(BLIND_PATH)}


def test_inv100_the_third_blind_set_parses_and_its_labels_name_live_facts():
    cases = load_cases(BLIND3_PATH)
    _assert_blind_labels(cases, "e", 200)
    earlier = {c.text for path in (BLIND_PATH, BLIND2_PATH) for c in load_cases(path)}
    assert not {c.text for c in cases} & earlier
    assert len({c.text for c in cases}) == len(cases)  # no statement twice within the set


def test_inv100_the_fourth_blind_set_parses_and_its_labels_name_live_facts():
    cases = load_cases(BLIND4_PATH)
    _assert_blind_labels(cases, "f", 240)
    earlier = {c.text for path in (BLIND_PATH, BLIND2_PATH, BLIND3_PATH) for c in load_cases(path)}
    assert not {c.text for c in cases} & earlier
    assert len({c.text for c in cases}) == len(cases)  # no statement twice within the set


def _assert_blind_labels(cases: list[Case], prefix: str, at_least: int) -> None:
    assert len(cases) >= at_least
    assert {c.split for c in cases} == {"blind"}
    assert [c.id for c in cases] == [f"{prefix}{n:03d}" for n in range(1, len(cases) + 1)]
    users = Counter(c.user for c in cases)
    assert {"maya-smart-home", "dev-ravi", "lena-travels", "fresh"} <= set(users)
    ops = Counter(e.op for c in cases for e in c.expect)
    assert min(ops[o] for o in ("write", "supersede", "retract", "forget")) >= 5
    assert sum(1 for c in cases if not c.expect) >= 0.25 * len(cases)  # must write nothing
    active = {}
    for path in DATA_DIR.glob("*.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            doc = json.loads(line).get("doc") or {}
            if doc.get("id", "").startswith("fact_"):
                active[doc["id"]] = (doc["user_id"], doc["state"])
    for c in cases:
        for e in c.expect:
            if e.op in ("supersede", "retract", "forget"):
                assert e.old, c.id
            if e.old and re.fullmatch(r"g\d+", e.old):
                assert int(e.old[1:]) < len(c.given), c.id
            elif e.old:  # a persona fact the user still holds
                assert active.get(e.old) == (c.user, "active"), c.id


def test_inv100_an_edited_blind_file_does_not_load(tmp_path):
    for path in (BLIND_PATH, BLIND2_PATH, BLIND3_PATH, BLIND4_PATH):
        lines = path.read_text(encoding="utf-8").splitlines()
        case = Case.model_validate_json(lines[0])
        case.expect = []  # "fixing" one label after a run
        edited = tmp_path / path.name
        edited.write_text("\n".join([case.model_dump_json(), *lines[1:]]) + "\n", encoding="utf-8")
        with pytest.raises(ValidationError, match="invariant 100"):
            load_cases(edited)
    # files without blind cases are not pinned
    tune = tmp_path / "mine.jsonl"
    tune.write_text(case.model_copy(update={"split": "tune"}).model_dump_json() + "\n",
                    encoding="utf-8")
    assert len(load_cases(tune)) == 1
    assert {c.split for c in load_cases(DATA_PATH)} == {"tune", "heldout"}


def test_inv100_blind_is_never_pooled_with_tuning_splits(tmp_path, hash_embedder):
    assert choose_splits({"tune", "heldout"}, "all") == ("tune", "heldout")  # default unchanged
    assert choose_splits({"blind"}, "all") == ("blind",)
    assert choose_splits({"tune", "heldout", "blind"}, "all") == ("tune", "heldout")
    assert choose_splits({"blind"}, "blind") == ("blind",)
    assert choose_splits({"tune", "heldout"}, "blind") == ()

    from memory.agents.offline import OfflineAgent

    # synthetic statements, not the blind set: only how the splits are reported is checked
    cases = [Case(id=f"x{n}", split=split, user="fresh", text=text) for n, (split, text) in
             enumerate([("tune", "hello there"), ("heldout", "thanks a lot"),
                        ("blind", "how are you today?")])]
    report = run_agent_eval(cases, hash_embedder, OfflineAgent,
                            splits=("tune", "heldout", "blind"), workdir=tmp_path)
    assert set(report.splits) == {"tune", "heldout", "blind", "all"}
    assert report.splits["all"].statements == 2  # tune + heldout, without blind
    assert report.splits["blind"].statements == 1


# Issue 28: two fresh sets written blind to the reader before its first run. The dev set is read
# and used for development (split tune); the final set is run once, at the end, aggregates only.
UNSEEN_DEV_SHA256 = "db89105c671832252c59516b6cae7ded21e0552b6aeccc5c9fd536a66c7d26f1"
UNSEEN_FINAL_SHA256 = "93ff629f455ea76b6d2902ac47bb2902eadbbc08406a0a9124d7af69f2eee9db"


def test_inv100_the_unseen_sets_are_pinned_and_parse():
    from memory.eval.agent_eval import UNSEEN_DEV_PATH, UNSEEN_FINAL_PATH

    assert hashlib.sha256(UNSEEN_DEV_PATH.read_bytes()).hexdigest() == UNSEEN_DEV_SHA256
    assert hashlib.sha256(UNSEEN_FINAL_PATH.read_bytes()).hexdigest() == UNSEEN_FINAL_SHA256
    assert UNSEEN_FINAL_SHA256 in FROZEN_BLIND
    for path, sha in ((UNSEEN_DEV_PATH, UNSEEN_DEV_SHA256), (UNSEEN_FINAL_PATH, UNSEEN_FINAL_SHA256)):
        name = path.name.replace("statements_", "README-statements-").replace("_", "-")
        assert sha in (path.parent / name.replace(".jsonl", ".md")).read_text(encoding="utf-8")
    final = load_cases(UNSEEN_FINAL_PATH)
    _assert_blind_labels(final, "u", 120)
    dev = load_cases(UNSEEN_DEV_PATH)
    assert len(dev) >= 120 and {c.split for c in dev} == {"tune"}
    assert not {c.text for c in dev} & {c.text for c in final}


# Later final sets, written 2026-12-07 (final10 2026-12-08) by helpers blind to the reader and to
# every earlier statement set (final2 and final3 by one, final4 to final10 by others, each on
# other topics); each is run once, aggregates only. Never edit a file or change its hash.
UNSEEN_FINAL2_SHA256 = "8ac5b1c360cf004ecb3b02da8b7c14d26317acbdaf2a78cdcd8ebe4f9b1dcfb6"
UNSEEN_FINAL3_SHA256 = "e512a945df2af4e9d0c15d6ea589c10b3194f6750d7501c1d6e60e88460dcf84"
UNSEEN_FINAL4_SHA256 = "836cca01297f716e4bbea6dcbf44ec1d444cd8bdc2e5c6dfad4ec3c0f711b6c6"
UNSEEN_FINAL5_SHA256 = "7aeba071e7cac7322e0e9cc525c3bb9d7abc308fd89225402fa3e39053c1ab29"
UNSEEN_FINAL6_SHA256 = "2f914535d23a8e50d0178dbc5bec07d3e204bdd2ab34b88acc9c30e0d1f63bc0"
UNSEEN_FINAL7_SHA256 = "bfcdc12aff556d2a73408a5fe53174dc371c43d877b251ed95f24d20554c4b71"
UNSEEN_FINAL8_SHA256 = "23778fe05beff02c96b1b1d21d531191f63205e9c1e9bbf62f22334a0dc7db8e"
UNSEEN_FINAL9_SHA256 = "ff161677146476da7fb1e9a8600a9a0dbc374941be5dccc99988c1c53e52aef4"
UNSEEN_FINAL10_SHA256 = "c5dedc6b741ee1278eb859debaf4f03c8717e94ba76e0527295a1da87a53c183"
# (set number, sha256, id prefix, at least this many statements)
LATER_FINALS = [(2, UNSEEN_FINAL2_SHA256, "v", 130), (3, UNSEEN_FINAL3_SHA256, "w", 120),
                (4, UNSEEN_FINAL4_SHA256, "x", 130), (5, UNSEEN_FINAL5_SHA256, "z", 120),
                (6, UNSEEN_FINAL6_SHA256, "y", 150), (7, UNSEEN_FINAL7_SHA256, "y", 160),
                (8, UNSEEN_FINAL8_SHA256, "z", 150), (9, UNSEEN_FINAL9_SHA256, "q", 150),
                (10, UNSEEN_FINAL10_SHA256, "r", 160)]


@pytest.mark.parametrize(("n", "sha", "prefix", "least"), LATER_FINALS,
                         ids=[f"final{n}" for n, *_ in LATER_FINALS])
def test_inv100_each_later_unseen_final_set_is_pinned_and_parses(n, sha, prefix, least):
    from memory.eval import agent_eval

    path = getattr(agent_eval, f"UNSEEN_FINAL{n}_PATH")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == sha
    assert sha in FROZEN_BLIND
    readme = path.parent / f"README-statements-unseen-final{n}.md"
    assert sha in readme.read_text(encoding="utf-8")
    cases = load_cases(path)
    _assert_blind_labels(cases, prefix, least)
    assert len({c.text for c in cases}) == len(cases)  # no statement twice within the set
    earlier = [agent_eval.UNSEEN_FINAL_PATH] + [getattr(agent_eval, f"UNSEEN_FINAL{k}_PATH")
                                                for k in range(2, n)]
    assert not {c.text for c in cases} & {c.text for p in earlier for c in load_cases(p)}
