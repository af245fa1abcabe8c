"""Issue 30, item 5: secrets by meaning, read by handing-over frames from tables of data
(invariant 582): secret nouns in many phrasings and languages, copulas, and tokens shaped like
a secret; ordinary numbers (prices, years, times, flight and room numbers, versions,
postcodes) are not. Rows written for this test, not taken from the measured tables."""

from __future__ import annotations

import pytest

from memory import secret_frames
from memory.sensitive import WITHHELD, masked, secret_in

HANDED = [
    ("le mot de passe du wifi est Soleil2024!", "Soleil2024"),
    ("mi contraseña es gato_feliz_99", "gato_feliz_99"),
    ("Das WLAN-Passwort lautet Kx7-pp-Lm2", "Kx7-pp-Lm2"),
    ("a senha é 7781abc", "7781abc"),
    ("het wachtwoord is Fiets!2020", "Fiets!2020"),
    ("lösenordet: sommar-hav-blå", "sommar-hav-blå"),
    ("hasło to Kot12345", "Kot12345"),
    ("пароль это qwerty123", "qwerty123"),
    ("我的密码是abc12345", "abc12345"),
    ("code PIN : 2580", "2580"),
    ("the wifi key here is purple-monkey-dishwasher", "purple-monkey-dishwasher"),
    ("the combination for the garden gate is 4-1-7", "4-1-7"),
    ("my bike lock: 0451", "0451"),
    ("my locker: 4471", "4471"),
]
ORDINARY = [
    "my flight: BA2490 leaves at 10:30", "my room number is 1204", "my order: #A12345 shipped",
    "the password must be 12 characters", "my budget: $1,500", "my PIN expires in 2027",
    "my score: 8500 points", "my phone: 07700 900123", "my postcode: SW1A 1AA",
    "I use Python 3.11.4 at work", "the key is to stay calm", "my birthday: 1990-05-12",
    "my new car: Model3", "la clave es la paciencia", "my goal: 10k steps a day",
    "my gym: PureGym Leeds", "the combination of flavours is great", "my booking ref: X7K9PQ",
    "my username: ana_b", "my version: v2.3.1", "the tour is 3-4 hours",
    "Das Passwort ist abgelaufen", "le mot de passe est trop court",
]


@pytest.mark.parametrize("text, secret", HANDED)
def test_inv582_a_secret_handed_over_in_a_frame_is_withheld(text, secret):
    out = masked(text)
    assert secret not in out and WITHHELD in out
    assert secret_in(text)


@pytest.mark.parametrize("text", ORDINARY)
def test_inv582_ordinary_numbers_and_words_are_left_alone(text):
    assert masked(text) == text


def test_inv582_the_frames_are_data_and_a_bad_row_stops_loading(tmp_path, monkeypatch):
    t = secret_frames.tables()
    assert len({lang for row in t.nouns for lang in row.lang.split()}) >= 15
    assert {"is", "est", "ist", "lautet", "=", ":"} <= set(t.frames.copulas)
    (tmp_path / "nouns.jsonl").write_text('{"kind": "a password", "lang": "en", "nouns": []}\n'
                                          '{"kind": "a password", "lang": "en", "nouns": 3}\n')
    (tmp_path / "frames.json").write_text((secret_frames.HERE / "frames.json").read_text())
    monkeypatch.setattr(secret_frames, "HERE", tmp_path)
    secret_frames.tables.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"nouns.jsonl:1: "):
            secret_frames.tables()
    finally:
        monkeypatch.undo()
        secret_frames.tables.cache_clear()
