"""Issue 30, item 5, fifth pass (invariants 460, 273): secrets by meaning, by mechanism. The
rows of tests/data/secrets_probes5.jsonl were written before the detector changed for them
(three rounds, README-secrets.md); each row is a case here. The new readers' words are data
(memory/secret_frames/): removing a row's word changes what is withheld."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory import secret_frames, secret_shapes, sensitive
from memory.sensitive import WITHHELD, masked, secret_in

PROBES = [json.loads(line) for line in (Path(__file__).resolve().parent / "data"
          / "secrets_probes5.jsonl").read_text(encoding="utf-8").splitlines() if line]
# every pass's probe table is run by the same two tests (the sixth and seventh passes' rows too)
ALL_PROBES = PROBES + [json.loads(line) for name in ("secrets_probes6.jsonl",
                                                     "secrets_probes7.jsonl")
                       for line in (Path(__file__).resolve().parent / "data" / name)
                       .read_text(encoding="utf-8").splitlines() if line]


def _row_id(row: dict) -> str:
    return f"{row['mechanism']}:{row['text'][:40]}"


@pytest.mark.parametrize("row", [r for r in ALL_PROBES if r["secrets"]], ids=_row_id)
def test_inv460_a_secret_handed_over_however_phrased_is_withheld(row):
    out = masked(row["text"])
    assert all(s not in out for s in row["secrets"]) and WITHHELD in out, out
    assert secret_in(row["text"])


@pytest.mark.parametrize("row", [r for r in ALL_PROBES if not r["secrets"]], ids=_row_id)
def test_inv460_an_ordinary_sentence_near_a_secret_is_stored_unchanged(row):
    assert masked(row["text"]) == row["text"]
    assert secret_in(row["text"]) is None


def test_inv460_the_probe_table_is_large_enough_and_has_every_kind():
    secret = [r for r in PROBES if r["secrets"]]
    assert len(secret) >= 60 and len(PROBES) - len(secret) >= 100
    kinds = {r["mechanism"].removeprefix("r2-").removeprefix("r3-") for r in secret}
    assert {"langs", "pin", "codes", "cards", "keys", "recovery", "answers", "ids", "before",
            "quoted", "spelled", "derived"} <= kinds


def _reload(tmp_path, monkeypatch, frames: dict) -> None:
    (tmp_path / "frames.json").write_text(json.dumps(frames), encoding="utf-8")
    (tmp_path / "nouns.jsonl").write_text(
        (secret_frames.HERE / "nouns.jsonl").read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(secret_frames, "HERE", tmp_path)
    sensitive.reload_tables()


def test_inv460_derived_words_and_question_topics_are_data(tmp_path, monkeypatch):
    """Without "birthday" among the derived words, "the padlock is the same as my birthday,
    1103" hands nothing over the reader can see; without "first pet" among the topics,
    "first pet? Biscuit" answers nothing."""
    derived, asked = "the padlock is the same as my birthday, 1103", "first pet? Biscuit."
    assert WITHHELD in masked(derived) and WITHHELD in masked(asked)
    frames = json.loads((secret_frames.HERE / "frames.json").read_text(encoding="utf-8"))
    frames["derived"] = [w for w in frames["derived"] if w not in ("birthday", "same as",
                                                                    "the same as")]
    frames["question_topics"] = [w for w in frames["question_topics"] if "pet" not in w]
    _reload(tmp_path, monkeypatch, frames)
    try:
        assert masked(derived) == derived and masked(asked) == asked
    finally:
        monkeypatch.undo()
        sensitive.reload_tables()


@pytest.mark.parametrize("text, value", [
    ("here it is 209847-551320-118800-732915-402776-663344-090912-781254 for the screen",
     "209847-551320-118800-732915-402776-663344-090912-781254"),
    ("apple gave me this: QX7P-3MHK-W9TD-LF2R-8YVC-NB4J-6EGZ", "QX7P-3MHK-W9TD-LF2R-8YVC-NB4J-6EGZ"),
])
def test_inv460_a_recovery_key_is_known_by_its_printed_shape(text, value):
    assert secret_shapes.recovery_keys(text) and value not in masked(text)


@pytest.mark.parametrize("text", ["order ABCD-EFGH-IJKL-MNOP-QRST-UVWX-YZAB shipped",  # no digit
                                  "serial 1234-5678-9012-3456-7890-1234-5678",  # no letter
                                  "ticket 209847-551320-118800 closed"])
def test_inv460_other_grouped_numbers_are_no_recovery_key(text):
    assert secret_shapes.recovery_keys(text) == []


@pytest.mark.parametrize("text, value", [
    ("TOTP: JBSWY3DPEHPK3PXP", "JBSWY3DPEHPK3PXP"),
    ("wpa psk = ocean-breeze-481", "ocean-breeze-481"),
    ("I set it to 1123, the bike lock", "1123"),
    ("Ich hab den Code auf 4711 gesetzt (Garage)", "4711"),
    ("gate code is the last 4 of my phone 3321", "3321"),
    ("netflix: Bluebell_Lane_88 (dont share)", "Bluebell_Lane_88"),
    ("Bluebell_Lane_88 <- netflix", "Bluebell_Lane_88"),
    ("same as my birthday 0412 for the lockbox", "0412"),
    ("wifi is our postcode + birth year: LS61985", "LS61985"),
])
def test_inv460_services_setting_verbs_and_more_cue_words_hand_a_value_over(text, value):
    assert value not in masked(text) and secret_in(text)


@pytest.mark.parametrize("text", ["Lang: C#10", "Chord: C#m7", "Grade: A*2",
                                  "Formula: a+b=c2", "Meeting: Q4-Review!",
                                  "snake_case is the one we use", "team_2024 is the account we share",
                                  "GT-7700 is the one on sale", "Q3_2024 is the one to read",
                                  "> what was the promo code?\nSPRING20",
                                  "> is the wifi password still the same?\nthanks, yes",
                                  "On Mon, Ana wrote:\n> Did the alarm go off?\nYes at 0300 on the dot",
                                  "we scored two double one",
                                  "turn left 2 right 3 left 1 at the lights",  # no lock
                                  "recovery phrase: write it on paper, never in a file",
                                  "security answer was rejected",
                                  "maiden name → married name on the form",
                                  "I set it to 0630, the alarm", "folder: My_Photos_2023",
                                  "My_Photos_2023 - google drive folder",
                                  "der Code auf Seite 1234 ist falsch",
                                  "the authenticator app is on my old phone",
                                  "my memorable word is 8 letters",
                                  "my birthday is 0412, and the lockbox is by the door",
                                  "born in 1987, the padlock is old",
                                  "same as last year 2024 for the alarm clock"])
def test_inv460_labels_names_and_replies_without_a_secret_stay(text):
    assert masked(text) == text


def test_inv460_the_platforms_own_words_for_password_are_a_table_a_hand_row_outranks(
        tmp_path, monkeypatch):
    """platform_nouns.jsonl holds the operating system's words for password, passphrase and PIN
    (Linux-PAM, shadow, GTK, GnuPG catalogues): without it "ססמה: Tapuz_22" (Hebrew, PAM's
    spelling) hands nothing over; a word a hand-written row gives a kind keeps it ("passwort"
    stays "a password", never GnuPG's passphrase)."""
    texts = ["ססמה: Tapuz_22", "şifrə: Baku_2024!", "ಗುಪ್ತಪದ Mysore_Silk9", "கடவுச்சொல் Chennai_Rain7"]
    assert all(WITHHELD in masked(t) for t in texts)
    kinds = {n: row.kind for row in secret_frames.tables().nouns for n in row.nouns}
    assert kinds["passwort"] == "a password" and kinds["lösenfras"] == "a passphrase"
    for name in ("nouns.jsonl", "frames.json"):
        (tmp_path / name).write_text((secret_frames.HERE / name).read_text(encoding="utf-8"),
                                     encoding="utf-8")
    monkeypatch.setattr(secret_frames, "HERE", tmp_path)  # no platform_nouns.jsonl there
    sensitive.reload_tables()
    try:
        assert all(masked(t) == t for t in texts)
    finally:
        monkeypatch.undo()
        sensitive.reload_tables()
