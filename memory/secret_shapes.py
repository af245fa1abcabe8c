"""Secrets known by their shape, whatever words stand around them (invariant 460; the identity
numbers of invariant 273): a password inside a connection string, a recovery phrase of BIP39
words, a card's security code said after the card, an identity number whose check digits hold.
And where a numbered or bulleted list splits a message into items read one by one. Pure: no I/O
past the word list and the noun table, read once."""

from __future__ import annotations

import importlib
import json
import re
import unicodedata
from collections.abc import Callable
from functools import cache, partial
from pathlib import Path

from mnemonic import Mnemonic
from stdnum import luhn
from stdnum.exceptions import InvalidChecksum, InvalidComponent, ValidationError

Span = tuple[int, int]

# Digits in any script (invariant 460): every reader sees a message's digits as ASCII ones, one
# character for one so a span found in the reading cuts the same characters of the message —
# the decimal digits of every script Unicode knows ("๔๕๖๗", "۴۸۲۷", "４８２１") and a run of three
# or more CJK digit words ("三七九一", "一九八二": Chinese and Japanese say a code digit by
# digit; "三楼" or "第三" alone stay words). Unicode's own digit values are the source.
_CJK_DIGITS = {"〇": "0", "零": "0", "一": "1", "二": "2", "三": "3", "四": "4", "五": "5",
               "六": "6", "七": "7", "八": "8", "九": "9"}
_CJK_RUN = re.compile(f"[{''.join(_CJK_DIGITS)}]{{3,}}")


def reading(text: str) -> str:
    """`text` with its digits as ASCII digits, as long as `text` (invariant 460)."""
    if text.isascii():
        return text
    chars = [str(unicodedata.decimal(c)) if not c.isascii() and c.isdecimal() else c
             for c in text]
    for m in _CJK_RUN.finditer(text):
        chars[m.start():m.end()] = [_CJK_DIGITS[c] for c in m.group()]
    return "".join(chars)


# "postgres://billing:Pl4tyPus!x@10.0.3.12:5432", any scheme: the part between "user:" and "@"
_URL_CREDENTIAL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@?#]+:(?P<v>[^\s@/]+)@[\w.\[-]",
                             re.IGNORECASE)
# a connection string's or environment's password field: "Password=...;", "password=... ",
# "&password=...", "PGPASSWORD=..."
_DSN_PASSWORD = re.compile(r"(?:\b|_|(?<=[?&;]))(?:[a-z]*password|pwd|passwd)\s*=\s*"
                           r"(?P<v>[^\s;\"']+)", re.IGNORECASE)
# a setting named for a secret, in any casing or prefix, = or : and its value, quoted or not
# ("SMTP_PASS=…", "client_secret: …", 'SECRET_KEY = "…"', "api_key='…'", '"password": "…"')
_SETTING_SECRET = re.compile(
    r"(?<![\w.-])[\"']?(?P<name>(?:[A-Za-z][\w.-]{0,40}?[_.-]|[A-Za-z][\w.-]{0,40}?(?=[A-Z]))?"
    r"(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|access[_-]?key|account[_-]?key|"
    r"private[_-]?key|auth[_-]?key|secret[_-]?key|apikey))[\"']?[ \t]*[:=][ \t]*"
    r"(?P<q>[\"'`]?)(?P<v>[^\s\"'`,;]+)(?P=q)", re.IGNORECASE)


def _setting_value(m: re.Match) -> bool:
    """A setting's value is a secret when it is one: never a placeholder, a plain word, a
    number of a few digits ("max_tokens=512") or a setting that names a count or a rule."""
    value, name = m.group("v"), m.group("name").lower()
    if name == "pass" or re.search(r"(?:max|min|limit|length|count|size|expiry|ttl|type|policy|file|path|url|"
                 r"name|id|env|var)", name.replace("password", "").replace("token", "")):
        return False
    quoted = bool(m.group("q"))
    return len(value) >= 6 and not _PLACEHOLDER.search(value) and not (
        value.isdigit() and len(value) < 8) and (quoted or not re.fullmatch(r"[a-z]+", value))


def url_credentials(text: str) -> list[Span]:
    spans = [(m.start("v"), m.end("v")) for m in _URL_CREDENTIAL.finditer(text)]
    spans += [(m.start("v"), m.end("v")) for m in _SETTING_SECRET.finditer(text)
              if _setting_value(m)]
    for m in _DSN_PASSWORD.finditer(text):
        value = m.group("v")
        if m.start() and text[m.start() - 1] in "?&":  # a web address's query: "&" ends it
            value = value.split("&")[0]
        value = value.rstrip(".,!?)")
        if value and value.lower() not in ("none", "null", "empty", "field") \
                and not value.startswith(("(", "[", "<", "$", "%")):  # "password = (ask IT)"
            spans.append((m.start("v"), m.start("v") + len(value)))
    return sorted(set(spans))  # a connection string's field is a setting too: once


# Credentials in commands and configuration (invariant 460, issue 30 seventh pass): "curl -u
# mira:Lantern77slate", "mysql -pK3strel", "sshpass -p '…'", "IDENTIFIED BY '…'", "Authorization:
# Basic …", a .netrc line, "<password>…</password>". Where each tool takes a password is data
# from its own manual (secret_frames/credential_flags.json); a variable or a placeholder
# ("$TOKEN", "%PASS%", "<password>", "***") is none.
_PLACEHOLDER = re.compile(r"^(?:\$|%|<|\{\{|\*{3}|x{4}|\.\.\.|…)|^(?:password|pass|secret|"
                          r"token|user|username|changeme|none|null|xxx+)$", re.IGNORECASE)
_ARG = r"(?P<q>['\"`]?)(?P<v>[^\s'\"`]+)(?P=q)"


@cache
def _credential_forms() -> list[tuple[re.Pattern, re.Pattern | None, bool]]:
    """(where the value is, which tools the message must name, value is "user:password")."""
    table = json.loads((Path(__file__).parent / "secret_frames" / "credential_flags.json")
                       .read_text(encoding="utf-8"))
    forms = []
    for row in table["options"]:
        flag = re.escape(row["flag"])
        gap = r"(?=['\"])?" if row.get("glued") else r"(?:=|[ \t]+|(?=['\"]))"
        tools = re.compile(rf"\b(?:{'|'.join(map(re.escape, row['tools']))})\b", re.IGNORECASE) \
            if row["tools"] else None
        forms.append((re.compile(rf"(?<!\S){flag}{gap}{_ARG}(?=\s|$|;)"), tools,
                      row["takes"] == "user:password"))
    for row in table["before"]:
        words = r"[ \t]+".join(r"\S+" if w == "*" else re.escape(w)
                               for w in row["words"].split())
        forms.append((re.compile(rf"\b{words}[ \t]*=?[ \t]*{_ARG}", re.IGNORECASE), None, False))
    names = "|".join(map(re.escape, table["elements"]["names"]))
    forms.append((re.compile(rf"<(?P<tag>{names})>(?P<q>)(?P<v>[^<\s]+)</(?P=tag)>",
                             re.IGNORECASE), None, False))
    return forms


def command_credentials(text: str) -> list[Span]:
    spans: list[Span] = []
    for where, tools, paired in _credential_forms():
        if tools is not None and not tools.search(text):
            continue
        for m in where.finditer(text):
            start, value = m.start("v"), m.group("v").rstrip(".,;)")
            if paired:  # "user:password": the part after the first colon
                if ":" not in value:
                    continue
                start += value.index(":") + 1
                value = value[value.index(":") + 1:]
            plain = not m.group("q") and re.fullmatch(r"[a-z]+", value)  # "-p prompts for it"
            if len(value) >= 4 and not plain and not _PLACEHOLDER.search(value) \
                    and not value.startswith("-"):
                spans.append((start, start + len(value)))
    return spans


# A recovery phrase: BIP39 (the standard every wallet uses) has 12, 15, 18, 21 or 24 words of
# its English list; twelve list words in a row, commas, numbering or dashes between them, are
# one, said with a noun or not. Ordinary English breaks such a run within a few words: "the",
# "is", "and", "my" are not on the list.
PHRASE_WORDS = 12


@cache
def _bip39() -> frozenset[str]:
    return frozenset(Mnemonic("english").wordlist)


_WORD = re.compile(r"[A-Za-z]+")
_GAP = re.compile(r"^[\s,;/|·•—–-]*(?:\d{1,2}[.):]?[\s,;/|·•—–-]*)?$")


def recovery_phrases(text: str) -> list[Span]:
    words = _bip39()
    spans: list[Span] = []
    run: list[re.Match] = []
    for m in [*_WORD.finditer(text), None]:
        joined = m is not None and bool(run) and _GAP.match(text[run[-1].end():m.start()])
        if m is not None and m.group().lower() in words and (not run or joined):
            run.append(m)
            continue
        if len(run) >= PHRASE_WORDS:
            spans.append((run[0].start(), run[-1].end()))
        run = [m] if m is not None and m.group().lower() in words else []
    return spans


# Recovery keys by their printed shape, with or without a noun: BitLocker's 48-digit recovery
# password in eight groups of six, Apple's 28-character recovery key in seven groups of four
# (letters and digits). Nothing ordinary is printed in either shape.
_RECOVERY_KEY = re.compile(r"(?<![\w-])(?:\d{6}(?:-\d{6}){7}|"
                           r"(?=[A-Z0-9-]*[A-Z])(?=[A-Z0-9-]*\d)[A-Z0-9]{4}(?:-[A-Z0-9]{4}){6})"
                           r"(?![\w-])")


def recovery_keys(text: str) -> list[Span]:
    return [(m.start(), m.end()) for m in _RECOVERY_KEY.finditer(text)]


# A dial combination: "left 12 right 30 left 8", "R 24 L 8 R 36" — three turns or more, both
# ways, with a lock's noun in the message.
_WAY = r"(?:left|right|links|rechts|gauche|droite|izquierda|derecha|sinistra|destra|[LR])"
# the turn's way said before its number or after it ("24 right, 11 left, 36 right")
_DIAL = re.compile(rf"(?<![\w-])(?:(?:{_WAY}[ \t]*\d{{1,2}}|\d{{1,2}}[ \t]*{_WAY}(?![\w-]))"
                   r"[ \t,;-]*){3,}(?<![ \t,;-])", re.IGNORECASE)


# a dial turns on a lock: its noun in the message ("turn left 2 right 3 left 1" is a route)
_DIAL_NOUN = re.compile(r"combin|combo|lock|schloss|slot|lås|safe|tresor|dial|cadenas|candado|"
                        r"lucchetto|cadeado|kłódk|szyfr|замок|сейф|kombinac", re.IGNORECASE)


def dial_combinations(text: str) -> list[Span]:
    if not _DIAL_NOUN.search(text):
        return []
    spans = []
    for m in _DIAL.finditer(text):
        turns = re.findall(r"[a-z]+", m.group().lower())
        if len({t[0] in "lgis" for t in turns}) == 2:  # both ways
            spans.append((m.start(), m.end()))
    return spans


# A card's security code said after its number: "Amex 3782-822463-10005, CID 4421", "exp 09/28
# cvc2 440", "12/27 / 555". Issuers' names for it: CVV/CVV2 (Visa), CVC/CVC2 (Mastercard), CID
# (Amex, Discover), CSC, CVN; or "security code", "the 3 digits on the back".
_CARD = re.compile(r"(?<![\w-])(?:\d[ -]?){12,18}\d(?![\w-])")
_CODE_NOUN = re.compile(r"\b(?:cvv2?|cvc2?|cid|csc|cvn|cav2?|security\s+code|sec\s+code|"
                        r"(?:three|3|four|4)\s+digits(?:\s+on\s+the\s+back)?|on\s+the\s+back)"
                        r"\b\W{0,3}(?:(?:is|are|=|:)\s*)?(?P<v>\d{3,4})(?!\d)", re.IGNORECASE)
_EXPIRY_THEN_CODE = re.compile(r"\s*[,/;-]?\s*(?:exp(?:iry|ires)?\.?:?\s*)?(?:0[1-9]|1[0-2])/"
                               r"\d{2}(?:\d{2})?\s*[,/;-]?\s*(?P<v>\d{3,4})(?![\d/])")


def _card_end(m: re.Match) -> int | None:
    """Where a card number ends: the run may take in the month of its expiry ("4012888888881881
    09/27"), so its groups are dropped from the end until the digits pass Luhn's check."""
    said = m.group()
    while said:
        digits = re.sub(r"\D", "", said)
        if 13 <= len(digits) <= 19 and luhn.is_valid(digits):
            return m.start() + len(said)
        cut = max(said.rfind(" "), said.rfind("-"))
        if cut <= 0:
            return None
        said = said[:cut]
    return None


def card_codes(text: str) -> list[Span]:
    spans: list[Span] = []
    for m in _CARD.finditer(text):
        end = _card_end(m)
        if end is None:
            continue
        after = text[end:end + 80]
        code = _CODE_NOUN.search(after) or _EXPIRY_THEN_CODE.match(after)
        if code:  # the card itself too, its expiry's month left out
            spans += [(m.start(), end), (end + code.start("v"), end + code.end("v"))]
    return spans


# Identity numbers (invariant 273): the value after a scheme's noun (in its own languages:
# memory/secret_frames/id_numbers.json) when it has the scheme's shape (python-stdnum's
# validation, its check digit aside: a typed number may be mistyped).
# Passport, IBAN and bank account numbers stay ordinary facts (invariant 273).
# A scheme is named by its python-stdnum module ("in_.aadhaar", "ca.sin"): the table is data.
def _validator(scheme: str) -> Callable[[str], bool]:
    try:
        if not re.fullmatch(r"[a-z]{2}_?\.[a-z]+", scheme):  # a country's module, nothing else
            raise ImportError(scheme)
        module = importlib.import_module(f"stdnum.{scheme}")
    except ImportError:
        raise ValueError(f"id_numbers.json: no python-stdnum module for scheme {scheme!r}") from None
    return partial(_in_shape, module.validate)


def _in_shape(validate: Callable[[str], object], value: str) -> bool:
    """The scheme's own shape (length, format), its check digit or date aside: a number typed
    after its scheme's noun is the user's even when mistyped or made up ("my NIR is 1 85 05 78
    006 845 00" with a wrong key), so only a wrong length or format makes it none. Spaces
    typed for the scheme's dashes are the same number ("my social 536 22 8150")."""
    for typed in dict.fromkeys([value, value.replace(" ", "-")]):
        try:
            validate(typed)
        except (InvalidChecksum, InvalidComponent):
            return True
        except ValidationError:
            continue
        return True
    return False


_ID_TOKEN = re.compile(r"[A-Za-z0-9]+")


def _strict(scheme: str) -> Callable[[str], bool]:
    """The scheme's whole check, check digits too: for the names python-stdnum's documentation
    gives a scheme (stdnum_nouns.json), broader than the hand-written table's ("sin", "bis")."""
    module = importlib.import_module(f"stdnum.{scheme}")
    return lambda value: any(module.is_valid(v) for v in {value, value.replace(" ", "-")})


@cache
def _id_nouns() -> list[tuple[re.Pattern, Callable[[str], bool]]]:
    here = Path(__file__).parent / "secret_frames"
    rows = json.loads((here / "id_numbers.json").read_text(encoding="utf-8"))["schemes"]
    named = [(nouns, _validator(scheme)) for scheme, nouns in rows.items()]
    generated = here / "stdnum_nouns.json"  # build_id_nouns.py (issue 30, seventh pass)
    if generated.exists():
        named += [(nouns, _strict(scheme)) for scheme, nouns in json.loads(
            generated.read_text(encoding="utf-8"))["schemes"].items()]
    out = []
    for nouns, valid in named:
        alt = "|".join(re.escape(n) for n in sorted(nouns, key=len, reverse=True))
        # "ЕГН-то", "NIK-nya": an article or possessive glued to the name by a hyphen
        noun = re.compile(rf"(?<![\w-])(?:{alt})(?:-[^\W\d_]{{1,3}})?(?![\w-])", re.IGNORECASE)
        out.append((noun, valid))
    return out


def identity_numbers(text: str) -> list[Span]:
    spans: list[Span] = []
    for noun, valid in _id_nouns():
        for m in noun.finditer(text):
            tokens = list(_ID_TOKEN.finditer(text, m.end(), min(len(text), m.end() + 60)))
            found = _valid_run(text, tokens, valid)
            if found:
                spans.append(found)
    return spans


def _valid_run(text: str, tokens: list[re.Match], valid: Callable[[str], bool]) -> Span | None:
    """The first run of up to eight tokens joined by one space, dot, dash or slash ("2345 6789 0124",
    "131052-308T", "1 85 05 78 006 845 09") that the scheme accepts, longest first, starting
    within the first four tokens after the noun ("my SSN is 123-45-6789")."""
    for i, first in enumerate(tokens[:4]):
        for j in range(min(len(tokens), i + 8), i, -1):
            gaps = [text[tokens[k].end():tokens[k + 1].start()] for k in range(i, j - 1)]
            if any(g not in (" ", ".", "-", "/") for g in gaps):  # "855912/0207": rodné číslo
                continue
            value = text[first.start():tokens[j - 1].end()]
            # six digits, or four in ten characters (an Indian PAN: "ABCPE1234F")
            digits = sum(c.isdigit() for c in value)
            if (digits >= 6 or digits >= 4 and sum(c.isalnum() for c in value) >= 10) \
                    and valid(value):
                return first.start(), tokens[j - 1].end()
    return None


# Lists: "1) alarm 9021 2) shed padlock 404 3) wifi pw SunnyOrchard!", "• door 4471 • wifi …",
# "(a) … (b) …": each item is a clause of its own; two markers in sequence make a list.
_MARKER = re.compile(r"(?:^|(?<=\s))(?:\(?(?P<n>\d{1,2}|[a-h])[).]|(?P<n2>\d{1,2})/|[•*·▪‣◦]|"
                     r"(?:(?<=\n)|^)-)(?=\s)")


def list_items(text: str) -> list[Span]:
    """The items of a numbered or bulleted list in `text`, or [] when it holds none."""
    marks = list(_MARKER.finditer(text))
    if len(marks) < 2:
        return []
    numbers = [m.group("n") or m.group("n2") for m in marks]
    if all(numbers):
        keys = [int(n) if n.isdigit() else ord(n) - ord("a") + 1 for n in numbers]
        if keys != list(range(keys[0], keys[0] + len(keys))):
            return []
    elif any(numbers):
        return []
    bounds = [m.start() for m in marks] + [len(text)]
    return [(marks[i].end(), bounds[i + 1]) for i in range(len(marks))]


@cache
def _all_lists() -> frozenset[str]:
    out: set[str] = set()
    for language in Mnemonic.list_languages():
        out.update(Mnemonic(language).wordlist)
    return frozenset(out)


def listed_share(phrase: str) -> float:
    """The share of the words of `phrase` on one of BIP39's lists (any language)."""
    words = [w.strip(".,;:!?()\"'“”‘’") for w in phrase.lower().split()]
    words = [w for w in words if w and not re.fullmatch(r"\d+[.)]?", w)]  # "1." numbers them
    return sum(w in _all_lists() for w in words) / len(words) if words else 0.0
