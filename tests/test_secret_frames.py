"""Issue 30, item 5: secrets by meaning, read by handing-over frames from tables of data
(invariant 460): secret nouns in many phrasings and languages, copulas, and tokens shaped like
a secret; ordinary numbers (prices, years, times, flight and room numbers, versions,
postcodes) are not. Rows written for this test, not taken from the measured tables."""

from __future__ import annotations

import json

import pytest

from memory import secret_frames, secret_shapes, sensitive
from memory.sensitive import WITHHELD, masked, secret_in
from tests.secrets_support import frames_edited

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
    # the seventh pass: definite forms, the OS's words, digits of any script, CJK digit words
    ("Lykilorðið á routernum er Norðurljós_7", "Norðurljós_7"),
    ("Паролата за имейла е Бор_Зелен5", "Бор_Зелен5"),
    ("Kata sandi router: Kelapa_Muda9", "Kelapa_Muda9"),
    ("رمز عبور بانک من ۷۳۹۱ است", "۷۳۹۱"),
    ("金庫の暗証番号は五三〇八です", "五三〇八"),
    ("암호는 Sunny4Day입니다", "Sunny4Day"),
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
    "二〇一九年に暗証番号を変えた", "Lykilorðið er of langt", "my gamertag: StormFox_91",
    "the name of the guest wifi is Harbour_Cafe7", "Weak PINs such as 1234 get guessed",
]


@pytest.mark.parametrize("text, secret", HANDED)
def test_inv460_a_secret_handed_over_in_a_frame_is_withheld(text, secret):
    out = masked(text)
    assert secret not in out and WITHHELD in out
    assert secret_in(text)


@pytest.mark.parametrize("text", ORDINARY)
def test_inv460_ordinary_numbers_and_words_are_left_alone(text):
    assert masked(text) == text


def test_inv460_the_frames_are_data_and_a_bad_row_stops_loading(tmp_path, monkeypatch):
    t = secret_frames.tables()
    assert len({lang for row in t.nouns for lang in row.lang.split()}) >= 15
    assert {"is", "est", "ist", "lautet", "=", ":"} <= set(t.frames.copulas)
    (tmp_path / "nouns.jsonl").write_text('{"kind": "a password", "lang": "en", "nouns": []}\n'
                                          '{"kind": "a password", "lang": "en", "nouns": 3}\n')
    (tmp_path / "frames.json").write_text((secret_frames.HERE / "frames.json").read_text())
    monkeypatch.setattr(secret_frames, "HERE", tmp_path)
    sensitive.reload_tables()
    try:
        with pytest.raises(ValueError, match=r"nouns.jsonl:1: "):
            secret_frames.tables()
    finally:
        monkeypatch.undo()
        sensitive.reload_tables()


# Invariant 460: a secret noun reaches its value across its sentence. Rows written for this
# test, not taken from the measured tables.
FAR = [
    ("the door code, if you need it, is 4471", "4471"),
    ("the code for the front door is 1 9 8 4", "1 9 8 4"),
    ("keypad: 2580#", "2580#"),
    ("enter 3917 on the panel to disarm the alarm", "3917"),
    ("My bank password? Sunflower88!", "Sunflower88!"),
    ("I'll tell you my bank password so you can remind me: marmalade", "marmalade"),
    ("the garage opener code 551 29", "551 29"),
    ("seed phrase: apple banana cherry delta eagle falcon grape hotel india juliet kilo lima",
     "apple banana cherry delta eagle falcon grape hotel india juliet kilo lima"),
    ("the answer to 'favourite teacher' is Mrs Patel", "Mrs Patel"),
    ("my first school, for the security question, was Hillside Primary", "Hillside Primary"),
    ("the alarm code here is 7 7 3 1, disarm within 30 seconds", "7 7 3 1"),
    ("the combo for my locker at the gym is 12-40-08", "12-40-08"),
    ("the gate opens with *4417#", "4417#"),
    ("our router: admin / Rout3r!Pass", "Rout3r!Pass"),
    ("Netflix / Tango!Night5", "Tango!Night5"),
    ("the PIN for my debit card? 7734", "7734"),
    ("alarm: 6 7 3 9 then press set", "6 7 3 9"),
    ("PIN for the SIM: 3310, PUK 55120934", "55120934"),
    ("Mein Steuer-ID lautet 98 765 432 109", "98 765 432 109"),
    ("DNI: 12345678Z", "12345678Z"),
    ("the thing I type to unlock my tablet is river-stone-8", "river-stone-8"),
    ("home server jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbmEifQ.q1w2e3r4", "eyJhbGciOiJIUzI1NiJ9"),
    ("la password del wifi è Lupo_Grigio_3", "Lupo_Grigio_3"),
    ("il codice del portone è 2468", "2468"),
    ("ssh passphrase is 'the fox naps at dusk 7'", "the fox naps at dusk 7"),
    ("codes: back door 3318, shed 7702, garage 5541", "7702"),
    ("codes: back door 3318, shed 7702, garage 5541", "5541"),
    ("my logins: argos Pl4net!, boots Cobble#31", "Pl4net"),
    ("6612 is the garage code", "6612"),
    ("the bank card PIN is seven one nine three", "seven one nine three"),
    ("memorable answer for the pension site = crumpets", "crumpets"),
    ("my password is literally just dragon2020", "dragon2020"),
    ("Meine Geheimzahl: 8 3 1 9", "8 3 1 9"),
    ("o código do alarme é 1-9-7-3", "1-9-7-3"),
    ("security Q (first concert): Oasis", "Oasis"),
    ("the answer I gave for 'street you grew up on' is Mill Lane", "Mill Lane"),
    ("my backup codes are 48213 and 99172 in case", "99172"),
    ("Remember that my card number is 4929 1234 5678 9012.", "1234 5678 9012"),
    ("here you go: Qw3rTy7uIo9pAs2dFg5hJk8l", "Qw3rTy7uIo9pAs2dFg5hJk8l"),
    ("Heron88 is my dropbox password", "Heron88"),
    ("Tulip!4 (bank app password)", "Tulip!4"),
    ("Zugangscode fürs Lager 55 81 02", "55 81 02"),
    # the seventh pass: commands and settings, identity schemes by stdnum's names, whatever
    # names a password-shaped value, a login pair, a dial said number first, a sent code
    ("curl --user ops:Granite7Falls https://example.org", "Granite7Falls"),
    ("GRANT ALL ON db.* TO 'app' IDENTIFIED BY 'Tidal#Pool3'", "Tidal#Pool3"),
    ("REDIS_AUTH_TOKEN=Zq8vN2kLm4Rt7Yw9", "Zq8vN2kLm4Rt7Yw9"),
    ("machine ftp.example.net login ana password Quill_9Ink", "Quill_9Ink"),
    ("isikukood 37605030299 for the form", "37605030299"),
    ("the thing for the alarm app is Kestrel#0ak", "Kestrel#0ak"),
    ("uncle's Zoom: uncle.t@example.com, Marigold-1951", "Marigold-1951"),
    ("the shed padlock: 30 left, 12 right, 6 left", "30 left, 12 right, 6 left"),
    ("the login code they texted is 7HQ2W", "7HQ2W"),
    ("the garage panel: 41 key 07", "41 key 07"),
    ("bike lock is 3 digits, 5-0-8", "5-0-8"),
    ("| app | login | password |\n|---|---|---|\n| nas | admin | Slate#Roof4 |", "Slate#Roof4"),
    ("site,user,pin\nbank,ana,5512", "5512"),
    ("Q: the wifi at the flat? A: Larch_Wood_33", "Larch_Wood_33"),
    ("if the gate sticks, punch 7 7 0 2 twice", "7 7 0 2"),
    ("Dad's Switch: 1 9 5 5", "1 9 5 5"),
]
STAYS = [
    "The area code is 0117", "Our zip code is 94110", "my promo code is WELCOME10",
    "The code for this course is CS4012", "the code on the receipt is 8841 for returns",
    "The safe limit is 120 mg a day", "my pin badge collection has 300 pins",
    "the museum opens with 300 new pieces", "the alarm is 10 minutes fast",
    "I need my password to login", "My PIN was blocked after three tries",
    "The token was worth 3 dollars in 2021", "top secret mission 007",
    "the secret ingredient is 2 tbsp miso", "my bus pass is valid until 2026",
    "The boarding pass is on my phone", "the pass is 3 hours long",
    "My security question was about my first pet, which I never had",
    "My mum's maiden name was common in Wales", "the licence number plate is AB12 CDE",
    "To get into the club you need to be 21", "Press 9 to get an outside line",
    "London / Paris / Rome trip in 2025", "v2 / v3 API migration done",
    "the seed round was $2m", "Enter 2025 as the start year",
    "passwords: never reuse them, use 16 characters", "the last four digits of my card are 4455",
    "3 is the number of times my PIN failed", "codes: none yet",
    "one two three four, I declare a thumb war", "2019 was the year I changed my password",
    "le code postal est 75011", "Moved from VS Code to JetBrains Rider for work.",
    "the API returns 404 when the key is missing", "the usual one: flat white with oat milk",
    "the code? It's on GitHub", "the door code changes on 2024-03-01",
    "passcode was updated yesterday", "my pin? no clue", "Flat 4B is the one with the keypad",
    "the doc is at https://docs.google.com/document/d/1AbCdEfGhIjKlMnOpQrStUvWxYz0123456/edit",
    "tracking 1Z999AA10123456784", "commit 3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a",
    "order id 7f3e9a1c-4b2d-4e8f-9a1b-2c3d4e5f6a7b", "ThisIsMyVeryLongCamelCaseName2024Project",
    "the wifi password for room 1204 is on the card", "the door code for building 2201 changed",
    "the password for all 3000 staff changed",
    "Pin 7 on the Raspberry Pi is GPIO4", "the code name is BlueJay7",
    "curl -u is for basic auth", "mysql -p asks for it", "max_tokens=2048 in the call",
    "export API_KEY=$MY_KEY", "the isikukood field was empty", "use code SPRING25 at checkout",
    "the ski combination: 150 cm left, 155 right", "our team name is Blue_Jays22",
    "the IP address of the printer is 10.0.0.24", "password: check the sealed envelope",
    "reply to uncle.t@example.com, Marigold-1951 is his old house name too",
    "| item | code |\n| milk | 4471 |", "| pass | valid until |\n| bus | 2026 |",
    "Q: the wifi at the flat? A: ask the landlord", "checksum: 9b74c9897bac770ffc029102a200c5de",
    "Dad's Switch: 2 hours a day", "Visual Studio Code 1.92 is out",
]


@pytest.mark.parametrize("text, secret", FAR)
def test_inv460_a_value_far_from_its_noun_or_said_first_is_withheld(text, secret):
    out = masked(text)
    assert secret not in out and WITHHELD in out, out
    assert secret_in(text)


@pytest.mark.parametrize("text", STAYS)
def test_inv460_ordinary_codes_counts_and_plain_words_are_left_alone(text):
    assert masked(text) == text


def test_inv460_not_after_and_bare_nouns_are_data(tmp_path, monkeypatch):
    """Taking "zip" out of `not_after` makes "zip code is 94110" a code: the table decides."""
    frames = json.loads((secret_frames.HERE / "frames.json").read_text(encoding="utf-8"))
    frames["not_after"] = [w for w in frames["not_after"] if w != "zip"]
    (tmp_path / "frames.json").write_text(json.dumps(frames), encoding="utf-8")
    (tmp_path / "nouns.jsonl").write_text((secret_frames.HERE / "nouns.jsonl").read_text())
    assert masked("Our zip code is 94110") == "Our zip code is 94110"
    monkeypatch.setattr(secret_frames, "HERE", tmp_path)
    sensitive.reload_tables()
    try:
        assert masked("Our zip code is 94110") == f"Our zip code is {WITHHELD}"
    finally:
        monkeypatch.undo()
        sensitive.reload_tables()


# Invariant 460: a card handed over is withheld whole, with its code.
@pytest.mark.parametrize("text, out", [
    ("my visa is 4929 1234 5678 9012 exp 08/28 cvv 331",
     f"my visa is {WITHHELD} exp 08/28 cvv {WITHHELD}"),
    ("card: 4165 9822 0017 3356, 09/29, 617 on the back",
     f"card: {WITHHELD}, 09/29, {WITHHELD} on the back"),
    ("my credit card number is 4111 1111 1111 1111", f"my credit card number is {WITHHELD}"),
    ("new password = Winter2025!", f"new password = {WITHHELD}"),
    ("Ordered 1234 5678 9012 3456 widgets", "Ordered 1234 5678 9012 3456 widgets"),
    ("IBAN DE89 3704 0044 0532 0130 00 for the rent",
     "IBAN DE89 3704 0044 0532 0130 00 for the rent"),
])
def test_inv460_a_card_is_withheld_whole_with_its_code_and_nothing_else(text, out):
    assert masked(text) == out


# Invariants 460 and 273 (issue 30, third pass): each mechanism with its own probe rows, written
# before the detector changed for it (tests/data/secrets_mechanisms.jsonl, README-secrets.md;
# 23 of 60 secret rows withheld and 60 of 73 ordinary rows unchanged before the pass).
MECHANISMS = [json.loads(line) for line in (secret_frames.HERE.parent.parent / "tests" / "data"
              / "secrets_mechanisms.jsonl").read_text(encoding="utf-8").splitlines() if line]


def _row_id(row: dict) -> str:
    return f"{row['mechanism']}:{row['text'][:40]}"


@pytest.mark.parametrize("row", [r for r in MECHANISMS if r["mechanism"] != "tax"], ids=_row_id)
def test_inv460_a_secret_is_read_past_dashes_arrows_connectors_and_the_next_sentence(row):
    out = masked(row["text"])
    if row["secrets"]:
        assert all(s not in out for s in row["secrets"]) and WITHHELD in out, out
        assert secret_in(row["text"])
    else:
        assert out == row["text"] and secret_in(row["text"]) is None


@pytest.mark.parametrize("row", [r for r in MECHANISMS if r["mechanism"] == "tax"], ids=_row_id)
def test_inv273_a_tax_number_is_an_identity_number(row):
    out = masked(row["text"])
    if row["secrets"]:
        assert all(s not in out for s in row["secrets"]) and WITHHELD in out, out
    else:
        assert out == row["text"]


def test_inv460_copulas_anaphora_and_a_kinds_fewest_characters_are_data(tmp_path, monkeypatch):
    """Dropping the dash from the copulas, "it's now" from the openers of a next sentence, or
    raising a Wi-Fi key's fewest characters changes what is withheld: the tables decide."""
    frames = json.loads((secret_frames.HERE / "frames.json").read_text(encoding="utf-8"))
    dash, next_sentence, wifi = ("alarm code at mum's - 4471",
                                 "The office wifi got reset. It's now Kestrel_2290",
                                 "WLAN im Büro: Schreibtisch#44")
    assert all(WITHHELD in masked(t) for t in (dash, next_sentence, wifi))
    frames["copulas"] = [c for c in frames["copulas"] if c != "-"]
    frames["anaphora"] = [a for a in frames["anaphora"] if "now" not in a]
    frames["min_length"] = {"a network key": 20}
    (tmp_path / "frames.json").write_text(json.dumps(frames), encoding="utf-8")
    (tmp_path / "nouns.jsonl").write_text((secret_frames.HERE / "nouns.jsonl").read_text())
    monkeypatch.setattr(secret_frames, "HERE", tmp_path)
    sensitive.reload_tables()
    try:
        assert sensitive._scanned(dash) == [] and sensitive._framed(dash) == []
        assert masked(next_sentence) == next_sentence
        assert masked(wifi) == wifi
    finally:
        monkeypatch.undo()
        sensitive.reload_tables()


# Invariants 460 and 273 (issue 30, fourth pass): secrets known by their shape
# (memory/secret_shapes.py); the probe rows above (mechanisms url, seed, cvv, idnum, langs,
# list, ordinary) were written before the detector changed for them.
@pytest.mark.parametrize("text, value", [
    ("DATABASE_URL=postgres://billing:Pl4tyPus!x@10.0.3.12:5432/billing", "Pl4tyPus!x"),
    ("Server=sql01;User Id=sa;Password=Tr0ub4dor&3;", "Tr0ub4dor&3"),
])
def test_inv460_a_password_inside_a_connection_string_is_withheld_by_shape(text, value):
    assert [text[s:e] for s, e in secret_shapes.url_credentials(text)] == [value]
    assert value not in masked(text) and secret_in(text) == "a password"


def test_inv460_twelve_bip39_words_in_a_row_are_a_recovery_phrase_and_eleven_are_not():
    words = "ripple sugar canyon mosquito lunar velvet orbit pencil harvest tiger frozen alley"
    assert secret_shapes.recovery_phrases(words) == [(0, len(words))]
    eleven = words.rsplit(" ", 1)[0]
    assert secret_shapes.recovery_phrases(eleven) == []
    broken = words.replace("lunar", "the")  # "the" is on no BIP39 list: the run breaks
    assert secret_shapes.recovery_phrases(broken) == []


@pytest.mark.parametrize("text, code", [("Amex 3782-822463-10005, CID 4421", "4421"),
                                        ("4012888888881881 09/27 cvc2 440", "440"),
                                        ("4111-1111-1111-1111 / 12/27 / 555", "555")])
def test_inv460_a_cards_code_said_after_the_card_is_withheld(text, code):
    assert code not in masked(text).replace("[withheld]", "")


@pytest.mark.parametrize("text, valid", [("PESEL 85031412347", True),
                                         # issue 30, fifth pass: a check digit that fails is a
                                         # mistyped or made-up number, still the user's
                                         ("PESEL 85031412348", True),
                                         ("PESEL 8503141234", False),  # a digit short
                                         ("codice fiscale RSSMRA85T10A562S", True),
                                         ("aadhaar 2345 6789 0123", True),  # Verhoeff fails
                                         ("PAN card: ABCPE1234F", True),
                                         ("Steuer-ID 12345678901", False),  # not its format
                                         ("주민등록번호 900101-1234567", True),
                                         ("passport no. 533918274", False)])
def test_inv273_an_identity_number_is_known_by_its_schemes_shape(text, valid):
    assert bool(secret_shapes.identity_numbers(text)) is valid


def test_inv273_identity_schemes_are_python_stdnum_modules_named_in_the_table(tmp_path,
                                                                             monkeypatch):
    """A scheme is a row of id_numbers.json keyed by its python-stdnum module: adding one adds
    its nouns; a key naming no such module stops loading with the key named."""
    rows = json.loads((secret_frames.HERE / "id_numbers.json").read_text(encoding="utf-8"))
    assert len(rows["schemes"]) >= 35
    text = "my kennitala is 120174-3399"
    assert secret_shapes.identity_numbers(text)
    del rows["schemes"]["is_.kennitala"]
    table = tmp_path / "secret_frames"
    table.mkdir()
    (table / "id_numbers.json").write_text(json.dumps(rows), encoding="utf-8")
    monkeypatch.setattr(secret_shapes, "Path", lambda _f: tmp_path / "x.py")
    sensitive.reload_tables()
    try:
        assert secret_shapes.identity_numbers(text) == []
        rows["schemes"]["zz.nothing"] = ["zz"]
        (table / "id_numbers.json").write_text(json.dumps(rows), encoding="utf-8")
        sensitive.reload_tables()
        with pytest.raises(ValueError, match="zz.nothing"):
            secret_shapes.identity_numbers(text)
    finally:
        monkeypatch.undo()
        sensitive.reload_tables()


def test_inv460_list_items_are_read_one_by_one_and_numbers_out_of_sequence_make_no_list():
    text = "1) alarm 9021 2) shed padlock 404 3) wifi pw SunnyOrchard!"
    assert [text[s:e].strip() for s, e in secret_shapes.list_items(text)] == [
        "alarm 9021", "shed padlock 404", "wifi pw SunnyOrchard!"]
    assert masked(text) == "1) alarm [withheld] 2) shed padlock [withheld] 3) wifi pw [withheld]"
    assert secret_shapes.list_items("1) milk 3) eggs") == []


def test_inv460_postal_nouns_and_reported_speech_are_data(tmp_path, monkeypatch):
    """Dropping "pocztowy" from ordinary_after, or "which" and "says" from reported, makes the
    postcode and the plain word after another clause's copula a secret again."""
    postcode = "Kod pocztowy to 00-950 Warszawa"
    insane = "i keep my passwords in a notebook which my son says is insane"
    assert masked(postcode) == postcode and masked(insane) == insane
    frames = json.loads((secret_frames.HERE / "frames.json").read_text(encoding="utf-8"))
    frames["ordinary_after"] = [w for w in frames["ordinary_after"] if w != "pocztowy"]
    frames["reported"] = [w for w in frames["reported"] if w not in ("which", "says")]
    (tmp_path / "frames.json").write_text(json.dumps(frames), encoding="utf-8")
    (tmp_path / "nouns.jsonl").write_text((secret_frames.HERE / "nouns.jsonl").read_text())
    monkeypatch.setattr(secret_frames, "HERE", tmp_path)
    sensitive.reload_tables()
    try:
        assert masked(postcode) != postcode and masked(insane) != insane
    finally:
        monkeypatch.undo()
        sensitive.reload_tables()


def _drop_frames(key: str, value: object):
    def edit(tables: dict) -> None:
        tables["frames.json"][key] = value
    return edit


def _drop_curl(tables: dict) -> None:
    rows = tables["credential_flags.json"]["options"]
    tables["credential_flags.json"]["options"] = [r for r in rows if "curl" not in r["tools"]]


def _drop_generated_ids(tables: dict) -> None:
    tables["stdnum_nouns.json"]["schemes"] = {}


# Invariants 460 and 273 (issue 30, seventh pass): each new reader's words are a table; without
# the row the text's secret is kept (or, for `owners`, an ordinary text is changed).
@pytest.mark.parametrize("edit, text, value", [
    (_drop_frames("definite_suffixes", {}), "Lykilorðið á routernum er Norðurljós_7",
     "Norðurljós_7"),
    (_drop_frames("keypad_keys", []), "the garage panel: 41 key 07", "41 key 07"),
    (_drop_curl, "curl --user ops:Granite7Falls https://example.org", "Granite7Falls"),
    (_drop_generated_ids, "my CNIC number is 35202-5821782-1", "35202-5821782-1"),
])
def test_inv460_the_seventh_passs_words_are_data(tmp_path, monkeypatch, edit, text, value):
    assert value not in masked(text)
    names = ("nouns.jsonl", "platform_nouns.jsonl", "frames.json", "id_numbers.json",
             "stdnum_nouns.json", "credential_flags.json")
    tables = {n: (secret_frames.HERE / n).read_text(encoding="utf-8") for n in names}
    parsed = {n: json.loads(t) for n, t in tables.items() if n.endswith(".json")}
    edit(parsed)
    here = tmp_path / "secret_frames"
    here.mkdir()
    for n in names:
        out = json.dumps(parsed[n], ensure_ascii=False) if n in parsed else tables[n]
        (here / n).write_text(out, encoding="utf-8")
    monkeypatch.setattr(secret_frames, "HERE", here)
    monkeypatch.setattr(secret_shapes, "Path", lambda _f: tmp_path / "x.py")
    sensitive.reload_tables()
    try:
        assert value in masked(text)
    finally:
        monkeypatch.undo()
        sensitive.reload_tables()


def test_inv460_owners_named_before_a_noun_are_data(tmp_path, monkeypatch):
    """Without "name" among frames.json's `owners`, "the name of the guest wifi is
    Harbour_Cafe7" hands the network's name over as if it were its key."""
    text = "the name of the guest wifi is Harbour_Cafe7"
    assert masked(text) == text
    def without_name(frames: dict) -> None:
        frames["owners"] = [w for w in frames["owners"] if w != "name"]

    with frames_edited(tmp_path, monkeypatch, without_name):
        assert masked(text) != text
