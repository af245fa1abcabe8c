"""Issue 30, item 9: secrets by phrasing (invariant 460). A message that hands over a secret is
kept with the secret replaced by a marker in the episode, its audit event and the indexes, and
the reply says so; measured on the held-out table written before the detector changed
(tests/data/secrets_heldout.jsonl), a fresh one written after (secrets_fresh.jsonl) and one
written blind (secrets_blind.jsonl); all three are tuning data now (invariant 460)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory.agent import WITHHELD_NOTE, run_turn
from memory.agents.offline import OfflineAgent
from memory.sensitive import masked, secret_in

DATA = Path(__file__).resolve().parent / "data"
# Bank account numbers stay ordinary facts (invariant 273: "Account number 12345678" holds
# none); the table counts them as secrets, so they are the two it still keeps.
ACCOUNT_ROWS = {"my bank account number is 12345678", "sort code 12-34-56, account 87654321"}


def rows(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines()
            if line]


def kept(table: list[dict]) -> list[str]:
    return [r["text"] for r in table if r["secrets"]
            and any(s in masked(r["text"]) for s in r["secrets"])]


def wrong(table: list[dict]) -> list[str]:
    return [r["text"] for r in table if not r["secrets"] and masked(r["text"]) != r["text"]]


def test_inv460_the_held_out_table_keeps_no_secret_and_leaves_ordinary_words_alone():
    table = rows("secrets_heldout.jsonl")
    assert sum(1 for r in table if r["secrets"]) >= 60
    assert sum(1 for r in table if not r["secrets"]) >= 100
    assert set(kept(table)) == ACCOUNT_ROWS
    assert len(wrong(table)) <= 0.02 * sum(1 for r in table if not r["secrets"])
    assert all(secret_in(r["text"]) for r in table if r["secrets"]
               and r["text"] not in ACCOUNT_ROWS)


def test_inv460_the_fresh_table_keeps_no_secret_and_changes_no_ordinary_sentence():
    """Tuning data since issue 30's second pass (invariant 460): 0 of 20 kept, 0 of 30
    ordinary sentences changed (before: 4 kept, 2 changed)."""
    table = rows("secrets_fresh.jsonl")
    # counts only: the rows are read in bench/bench_secrets.py
    n_kept, n_wrong = len(kept(table)), len(wrong(table))
    assert n_kept == 0 and n_wrong == 0, f"fresh table: {n_kept} kept, {n_wrong} changed"


# What the blind table counts as secrets and the house keeps as ordinary facts: bank accounts
# and an IBAN (invariant 273), passport numbers (invariant 273), an online bank's customer
# number (a login name, like an email address).
BLIND_ORDINARY_BY_RULE = 5


def test_inv460_the_blind_table_keeps_only_what_the_rules_keep():
    """tests/data/secrets_blind.jsonl, measured blind once (30 of 69 kept, 0 of 125 changed),
    tuning data since issue 30's second pass: 5 of 69 kept, all ordinary by rule, 0 of 125
    ordinary sentences changed."""
    table = rows("secrets_blind.jsonl")
    n_kept, n_wrong = len(kept(table)), len(wrong(table))
    assert n_kept <= BLIND_ORDINARY_BY_RULE and n_wrong == 0, \
        f"blind table: {n_kept} kept, {n_wrong} changed"


def test_inv460_the_second_blind_table_keeps_only_what_the_rules_keep():
    """tests/data/secrets_blind2.jsonl, written blind (branch blind7) and measured once after the
    detector was frozen (11 of 66 secrets kept, 1 of 107 ordinary sentences changed); tuning data
    since issue 30's third pass (invariants 460, 273): 3 of 66 kept, all ordinary by rule (a
    passport number, an IBAN, a bank customer number: invariants 273, 296), 0 of 107 changed."""
    table = rows("secrets_blind2.jsonl")
    n_kept, n_wrong = len(kept(table)), len(wrong(table))
    assert n_kept <= 3 and n_wrong == 0, f"blind2 table: {n_kept} kept, {n_wrong} changed"


# What the third blind table counts as secrets and the house keeps as ordinary facts
# (invariant 273): a passport number and a bank account number.
BLIND3_ORDINARY_BY_RULE = {
    "passport no. 533380006, can you keep it handy for the visa form",
    "my account number is 41839276 if nan wants to send the birthday money straight in"}


def test_inv460_the_third_blind_table_keeps_only_what_the_rules_keep():
    """tests/data/secrets_blind3.jsonl, written blind and measured once (16 of 71 kept, 2 of 117
    ordinary messages changed); tuning data since issue 30's fourth pass (invariants 460, 273):
    only the two rows invariant 273 keeps, 0 of 117 changed."""
    table = rows("secrets_blind3.jsonl")
    assert set(kept(table)) <= BLIND3_ORDINARY_BY_RULE and wrong(table) == []


def test_inv460_the_fourth_blind_table_keeps_no_secret_and_changes_no_ordinary_sentence():
    """tests/data/secrets_blind4.jsonl, written blind and run twice with counts only (18 of 124
    kept and 4 of 203 changed; 3 and 3 after the fifth pass); tuning data since issue 30's sixth
    pass (invariants 460, 273): 0 of 124 kept, 0 of 203 ordinary messages changed."""
    table = rows("secrets_blind4.jsonl")
    assert kept(table) == [] and wrong(table) == []


def test_inv460_the_fifth_blind_table_keeps_no_secret_and_changes_no_ordinary_sentence():
    """tests/data/secrets_blind5.jsonl, written blind and run twice with counts only (22 of 105
    kept both times, 4 then 3 of 168 changed); tuning data since issue 30's seventh pass
    (invariants 460, 273): 0 of 105 kept, 0 of 168 ordinary messages changed."""
    table = rows("secrets_blind5.jsonl")
    assert kept(table) == [] and wrong(table) == []


@pytest.mark.parametrize("message, secret", [
    ("the wifi password here is hunter2, save it pls", "hunter2"),
    ("Remember my PIN, it's 4921", "4921"),
    ("use 5531 to get into the garage, that's the keypad code", "5531"),
    # the fifth pass: a quoted reply's answer, spelled digits with "double", a value first
    ("On Tue, Sam wrote:\n> whats the wifi password at your place pls\n\nKestrel_Moon_4 x",
     "Kestrel_Moon_4"),
    ("alarm code is four double seven one", "four double seven one"),
    ("Ravenna#31 = the netflix one", "Ravenna#31"),
    # the sixth pass: a changed code's new value after a comma
    ("gate code changed again, new one: 9027", "9027"),
    # the seventh pass: a password in a command, a code in CJK digit words
    ("run mysql -u root -pWillow_88 shop", "Willow_88"),
    ("储物柜密码：四三八一", "四三八一"),
])
def test_inv460_a_secret_by_phrasing_is_stored_nowhere_and_the_reply_says_so(
        service, message, secret):
    t = run_turn(service, "ana", "s1", message, agent=OfflineAgent())
    assert WITHHELD_NOTE in t.reply
    assert [e.text for e in service.episodes("ana")] == [masked(message)]
    assert secret not in str([e.model_dump() for e in service.store.audit("ana", limit=50)])
    assert all(secret not in f.text for f in service.facts("ana"))
    hits = service.recall("ana", f"wifi password {secret}").hits
    assert all(secret not in h.doc.search_text() for h in hits)
