"""Dead under any name: the other readings of a text that may restate a tombstoned value
(issue 30, item 2; invariant 461).

`variants(text)` gives the texts the tombstone gate also compares with the user's tombstones:
the text reframed in the one slot vocabulary (`memory/slots.py`: "Her home city is Bristol",
"Residence: Bristol" and "Bristolian" read as the `home` template "Lives in Bristol"), its codes
and numerals written out ("BRS" -> Bristol, "III" -> 3, "triplets" -> 3 children), and each
name of a value replaced by every other name of the same thing ("groundnuts" -> peanut,
arachis, ...). The names are data (`memory/aliases/*.jsonl`, sources in its README), loaded
once. A match through a variant only ever holds a write for review (invariant 461). Pure.
"""

from __future__ import annotations

import difflib
import gettext
import json
import os
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from importlib import resources
from os.path import commonprefix
from pathlib import Path

import airportsdata
import pycountry
from nicknames import NickNamer
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from . import places
from .slots import SLOTS, render, slot_of
from .text import STOP_WORDS, fold
from .values import Claim, _cross_script, _sound, compare_values, read, related

DATA = Path(__file__).parent / "aliases"
MAX_VARIANTS = 32  # invariant 461: a text full of alias words costs a bounded number of lookups
# Given names are read as names only in a text that names someone ("will" is also a verb).
_NAME_SLOTS = frozenset({"name", "partner", "manager"})
_FILLER = frozenset("is a an she he they i m s am are proud true born now currently still "
                    "originally user the".split())


class AliasTableError(ValueError):
    """A malformed alias table: the file and line are in the message (invariant 461)."""


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    source: str = Field(min_length=3)


class PlaceRow(_Row):
    name: str = Field(min_length=1)
    names: list[str] = []
    codes: list[str] = []
    demonyms: list[str] = []

    @field_validator("codes")
    @classmethod
    def _capitals(cls, codes: list[str]) -> list[str]:
        bad = [c for c in codes if not c.isupper()]
        if bad:
            raise ValueError(f"codes are matched as written in capitals: {bad}")
        return codes


class SynonymRow(_Row):
    kind: str = Field(min_length=1)
    names: list[str] = Field(min_length=2)


class NumberRow(_Row):
    phrase: str = Field(min_length=1)
    means: str = Field(min_length=1)


class NumberWordsRow(_Row):
    lang: str = Field(min_length=2)
    words: dict[str, int]


class FunctionWordsRow(_Row):
    lang: str = Field(min_length=2)
    words: list[str] = Field(min_length=1)


class PhrasingRow(_Row):
    slot: str
    pattern: str

    @field_validator("slot")
    @classmethod
    def _known_slot(cls, slot: str) -> str:
        if slot not in SLOTS:  # invariant 461: the one slot vocabulary, no other
            raise ValueError(f"unknown slot {slot!r} (memory/slots.py SLOTS)")
        return slot

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, pattern: str) -> str:
        if "(?P<v>" not in pattern:
            raise ValueError("the pattern needs a (?P<v>...) group for the value")
        re.compile(pattern)
        return pattern


@dataclass(frozen=True)
class Tables:
    groups: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...]  # (kind, members as tokens)
    member_of: dict[tuple[str, ...], int]  # a member's folded tokens -> its group
    longest: int  # most tokens in a member
    codes: re.Pattern[str] | None  # every code, as written in capitals
    code_names: dict[str, str]
    demonyms: dict[tuple[str, ...], str]  # folded demonym -> place name
    numbers: tuple[tuple[re.Pattern[str], str], ...]
    phrasings: tuple[tuple[str, re.Pattern[str]], ...]
    number_words: dict[str, int]  # a number word of another language, folded -> its value
    function_words: frozenset[str]  # words that mark a sentence of another language, folded


def _given_names() -> list[tuple[str, tuple[tuple[str, ...], ...]]]:
    """Given names and their diminutives from the `nicknames` package (a hand-curated table of
    English names, names.csv): a diminutive's group holds the names it shortens ("Kate" ->
    Katherine, Kathryn, ...), a name's group its diminutives. After the hand rows, which keep
    the words they name."""
    namer = NickNamer()
    out: list[tuple[str, tuple[tuple[str, ...], ...]]] = []
    for lookup in (namer.canonical_lookup, namer.nickname_lookup):  # diminutives first
        for name, others in sorted(lookup.items()):
            out.append(("name", tuple(dict.fromkeys(fold(n) for n in [name, *sorted(others)]
                                                    if fold(n)))))
    return out


def _rows(name: str, model: type[_Row], directory: Path) -> list:
    path = directory / name
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(model.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValidationError, re.error) as exc:
            why = (f"{'.'.join(map(str, exc.errors()[0]['loc']))}: {exc.errors()[0]['msg']}"
                   if isinstance(exc, ValidationError) else str(exc))
            raise AliasTableError(f"{path}:{n}: {why}") from None
    return out


def load(directory: Path = DATA) -> Tables:
    """Read the alias tables (invariant 461: a bad row names its file and line)."""
    groups: list[tuple[str, tuple[tuple[str, ...], ...]]] = []
    codes: dict[str, str] = {}
    demonyms: dict[tuple[str, ...], str] = {}
    for p in _rows("places.jsonl", PlaceRow, directory):
        groups.append(("place", tuple(dict.fromkeys(fold(n) for n in [p.name, *p.names]
                                                    if fold(n)))))
        codes.update({c: p.name for c in p.codes})
        demonyms.update({fold(d): p.name for d in p.demonyms if fold(d)})
    for s in _rows("synonyms.jsonl", SynonymRow, directory):
        groups.append((s.kind, tuple(dict.fromkeys(fold(n) for n in s.names if fold(n)))))
    groups += _given_names()
    member_of: dict[tuple[str, ...], int] = {}
    for i, (_, members) in enumerate(groups):
        for m in members:
            member_of.setdefault(m, i)  # the first group naming a word keeps it
    code_re = (re.compile(r"(?<![\w.])(" + "|".join(re.escape(c) for c in
                                                   sorted(codes, key=len, reverse=True))
                          + r")(?![\w])") if codes else None)
    numbers = tuple((re.compile(rf"\b{re.escape(' '.join(fold(r.phrase)))}\b"), r.means)
                    for r in sorted(_rows("numbers.jsonl", NumberRow, directory),
                                    key=lambda r: -len(r.phrase)))
    phrasings = tuple((r.slot, re.compile(r.pattern))
                      for r in _rows("phrasings.jsonl", PhrasingRow, directory))
    number_words = {" ".join(fold(w)): n for r in _rows("number_words.jsonl", NumberWordsRow,
                                                         directory) for w, n in r.words.items()}
    return Tables(groups=tuple(groups), member_of=member_of,
                  longest=max((len(m) for m in member_of), default=1), codes=code_re,
                  code_names=codes, demonyms=demonyms, numbers=numbers, phrasings=phrasings,
                  number_words=number_words,
                  function_words=frozenset(" ".join(fold(w)) for r in _rows(
                      "function_words.jsonl", FunctionWordsRow, directory) for w in r.words))


@cache
def tables() -> Tables:
    return load()


_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}
_COUNTED = re.compile(r"\b((?i:has|have|had|owns|own|got|keeps|keep|with|aged|is|are|am))\s+"
                      r"([IVXLC]{2,7}|[VXLC])\b")


def roman(numeral: str) -> int | None:
    """The value of a well-formed Roman numeral ("III" -> 3, "IV" -> 4), else None."""
    total = 0
    for a, b in zip(numeral, numeral[1:] + " ", strict=False):
        if a not in _ROMAN:
            return None
        total += -_ROMAN[a] if b in _ROMAN and _ROMAN[b] > _ROMAN[a] else _ROMAN[a]
    return total if total > 0 and _to_roman(total) == numeral else None


def _to_roman(n: int) -> str:
    out = ""
    for value, letters in ((100, "C"), (90, "XC"), (50, "L"), (40, "XL"), (10, "X"),
                           (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        while n >= value:
            out, n = out + letters, n - value
    return out


_HOUR_WORDS = ["twelve", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
               "ten", "eleven", "twelve"]
_HOUR = r"(1[0-2]|0?[1-9]|" + "|".join(_HOUR_WORDS[1:]) + ")"
_CLOCK = re.compile(rf"(?i)\b(?:(?:a )?(quarter|half|twenty|ten|five|twenty[- ]five) "
                    rf"(to|past|after) {_HOUR}|half {_HOUR}|{_HOUR} o'?\s?clock)\b")
_MINUTES = {"quarter": 15, "half": 30, "twenty": 20, "ten": 10, "five": 5, "twenty-five": 25,
            "twenty five": 25}


_MULTIPLE = {"dozen": 12, "score": 20, "gross": 144}
_TIMES = re.compile(r"(?i)\b(\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) "
                    r"(dozen|score|gross)(?: of)?\b")


# "twin daughters" are 2 daughters (Oxford English Dictionary: twin, triplet, quadruplet).
_BIRTHS = {"twin": 2, "triplet": 3, "quadruplet": 4, "quintuplet": 5}
_MULTIPLE_BIRTH = re.compile(r"(?i)\b(twin|triplet|quadruplet|quintuplet) (\w+s)\b")


def _count(word: str) -> int:
    """ "two dozen" -> 2 (for 24): digits or a number word up to twelve."""
    return int(word) if word.isdigit() else _HOUR_WORDS.index(word.lower(), 1)


def _hour(word: str) -> int:
    return int(word) if word.isdigit() else _HOUR_WORDS.index(word.lower(), 1)


def _clock(m: re.Match[str]) -> str:
    """A time said in words as the clock shows it ("a quarter to eight" -> "7:45")."""
    amount, way, hour, half, oclock = m.groups()
    if oclock:
        return f"{_hour(oclock)}:00"
    if half:  # British "half seven" is 7:30
        return f"{_hour(half)}:30"
    minutes, h = _MINUTES[amount.lower()], _hour(hour)
    if way.lower() == "to":
        return f"{(h - 2) % 12 + 1}:{60 - minutes:02d}"
    return f"{h}:{minutes:02d}"


_MERIDIEM = re.compile(rf"(?i)\b{_HOUR}(?::([0-5]\d))?\s?([ap])\.?m\b\.?")


def _twelve_hour(m: re.Match[str]) -> str:
    """ "ten pm" -> "22:00", "7:30 am" -> "7:30": the clock of a 24-hour day."""
    hour = _hour(m.group(1)) % 12 + (12 if m.group(3).lower() == "p" else 0)
    return f"{hour}:{m.group(2) or '00'}"


_NOON = re.compile(r"(?i)\b(?:(?:twelve )?noon|midday|(?:twelve )?midnight)\b")
_SHORT_YEAR = re.compile(r"(?<![\w'’])['’](\d{2})\b")
CENTURY_PIVOT = 30  # "'94" is 1994, "'05" 2005
_ORDINAL_UNITS = ["", "first", "second", "third", "fourth", "fifth", "sixth", "seventh",
                  "eighth", "ninth"]
_ORDINAL_TEENS = ["tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth",
                  "sixteenth", "seventeenth", "eighteenth", "nineteenth"]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]


def _suffixed(n: int) -> str:
    end = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{end}"


@cache
def _ordinals() -> dict[str, str]:
    """English ordinal words 1-99 ("twenty-first") -> "21st"."""
    out = {w: _suffixed(n) for n, w in enumerate(_ORDINAL_UNITS) if w}
    out |= {w: _suffixed(10 + n) for n, w in enumerate(_ORDINAL_TEENS)}
    for n in range(2, 10):
        out[_TENS[n][:-1] + "ieth"] = _suffixed(10 * n)
        for u in range(1, 10):
            for sep in ("-", " "):
                out[f"{_TENS[n]}{sep}{_ORDINAL_UNITS[u]}"] = _suffixed(10 * n + u)
    return out


_ORDINAL = re.compile(r"(?i)\b(" + "|".join(sorted(map(re.escape, _ordinals()), key=len,
                                                    reverse=True)) + r")\b")
_ORDINAL_HINT = re.compile(r"(?i)(?:first|second|third|th)\b")
_HALF_WORD = re.compile(r"(?i)\b(halb|halv|half) (\w+)\b")


def _half_before(m: re.Match[str], t: Tables) -> str:
    """ "halb neun" -> "8:30": "half" before an hour said in another language counts toward
    that hour (German, Dutch, Scandinavian); British "half nine" (9:30) is read by `_clock`."""
    word = " ".join(fold(m.group(2)))
    n = t.number_words.get(word, 0)
    if word in _HOUR_WORDS or not 1 < n <= 12:
        return m.group(0)
    return f"{n - 1}:30"


def _clock_words(text: str, t: Tables) -> str:
    """Noon and midnight as the clock shows them, a year said by its last two digits ("'94")
    in full, English ordinal words as numerals ("twenty-first" -> "21st"), "half" before an
    hour of another language."""
    text = _NOON.sub(lambda m: "0:00" if "night" in m.group(0).lower() else "12:00", text)
    text = _SHORT_YEAR.sub(lambda m: ("20" if int(m.group(1)) <= CENTURY_PIVOT else "19")
                           + m.group(1), text)
    if _ORDINAL_HINT.search(text):  # the long alternation only where an ordinal may be
        text = _ORDINAL.sub(lambda m: _ordinals()[m.group(1).lower()], text)
    return _HALF_WORD.sub(lambda m: _half_before(m, t), text)


_BARE_TIME = re.compile(r"\b(0?[1-9]|1[01]):([0-5]\d)\b(?!\s?[ap]\.?m)")


def afternoon(text: str) -> str | None:
    """The text with a clock time said without "am"/"pm" read in the afternoon ("8:30" ->
    "20:30"): a time on the twelve-hour clock may be either, or None when it has none."""
    out = _BARE_TIME.sub(lambda m: f"{int(m.group(1)) + 12}:{m.group(2)}", text)
    return out if out != text else None


def _written_out(text: str, t: Tables) -> str:
    """Codes as names ("Lives in BRS" -> "Lives in Bristol"), a time in words as the clock
    shows it ("a quarter to eight" -> "7:45"), a counted Roman numeral as digits ("Has III children" -> "Has 3 children"). Case matters here, so before folding."""
    return _written_out_default(text) if t is tables() else _write_out(text, t)


@lru_cache(maxsize=8192)
def _written_out_default(text: str) -> str:
    return _write_out(text, tables())  # the gate reads each candidate's text several times


def _write_out(text: str, t: Tables) -> str:
    text = _MERIDIEM.sub(_twelve_hour, _CLOCK.sub(_clock, _clock_words(text, t)))
    text = _MULTIPLE_BIRTH.sub(lambda m: f"{_BIRTHS[m.group(1).lower()]} {m.group(2)}", text)
    text = _TIMES.sub(lambda m: str(_count(m.group(1)) * _MULTIPLE[m.group(2).lower()]), text)
    if t.codes is not None:
        text = t.codes.sub(lambda m: t.code_names[m.group(1)], text)
    return _COUNTED.sub(lambda m: f"{m.group(1)} {n}" if (n := roman(m.group(2))) else
                        m.group(0), text)


def _plain(text: str) -> str:
    """Lower case, accents off, apostrophes as spaces, final stops dropped: what the phrasing
    patterns read (they keep ':' and ',')."""
    t = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).lower())
    t = "".join(ch for ch in t if not unicodedata.combining(ch)).replace("’", "'")
    t = re.sub(r"\s*([:=])\s*", r" \1 ", t.replace("'", " "))
    return " ".join(t.split()).rstrip(" .!?")


def _frames(text: str, t: Tables) -> list[str]:
    """The text, and the text as its slot's template when it says the slot another way."""
    frames = [text]
    plain = _plain(text)
    for slot, pattern in t.phrasings:
        m = pattern.search(plain)
        if m and m.group("v").strip():
            frames.append(render(slot, m.group("v").strip(" ,")))
            break
    core = tuple(w for w in fold(text) if w not in _FILLER)
    for form in (core, core[:-1] + (core[-1][:-1],) if core and core[-1].endswith("s") else ()):
        if form in t.demonyms:
            frames.append(render("home", t.demonyms[form]))
            break
    return frames


def _spans(tokens: list[str], t: Tables, names_ok: bool) -> list[tuple[int, int, int]]:
    """(start, end, group) of every alias in the tokens, longest first, not overlapping; a
    final plural "s"/"es" is allowed ("groundnuts")."""
    out: list[tuple[int, int, int]] = []
    i = 0
    while i < len(tokens):
        for n in range(min(t.longest, len(tokens) - i), 0, -1):
            words = tuple(tokens[i:i + n])
            found = t.member_of.get(words)
            if found is None and words[-1].endswith("s"):
                for cut in (1, 2):
                    found = t.member_of.get((*words[:-1], words[-1][:-cut]))
                    if found is not None:
                        break
            if found is not None and (names_ok or t.groups[found][0] != "name"):
                out.append((i, i + n, found))
                i += n
                break
        else:
            i += 1
    return out


def variants(text: str, tables_: Tables | None = None) -> list[str]:
    """Other texts `text` may mean by another name of its value (invariant 461): at most
    MAX_VARIANTS, the text itself left out."""
    t = tables_ or tables()
    seen: dict[str, None] = {}
    framed: list[tuple[list[str], bool]] = []
    written = _written_out(text, t)
    # invariant 600: "halb neun" may be 8:30 pm; "7:30 a.m." says which half itself
    later = None if _MERIDIEM.search(text) else afternoon(written)
    for frame in _frames(written, t) + ([later] if later else []):
        joined = " , ".join(" ".join(fold(part)) for part in re.split(r"[,;]", frame)
                            if fold(part))  # a comma still parts a value from its country
        for pattern, means in t.numbers:
            joined = pattern.sub(means, joined)
        tokens = joined.split()
        seen[_text(tokens)] = None  # the reframed texts first: they are the likeliest
        framed.append((tokens, slot_of(frame) in _NAME_SLOTS or "name" in tokens))
    for tokens, names_ok in framed:
        for start, end, group in _spans(tokens, t, names_ok):
            for member in t.groups[group][1]:
                seen[_text([*tokens[:start], *member, *tokens[end:]])] = None
    own = " ".join(fold(text))
    return [v for v in seen if v and v.replace(" ,", "") != own][:MAX_VARIANTS]


def _longer_names(text: str, t: Tables) -> list[tuple[str, ...]]:
    """Runs of two or more capitalised words after a text's first word that no alias table
    holds whole: one longer name ("San Antonio Spurs", "Inter Miami"), folded."""
    words = [(m.group(0), m.start()) for m in _WORD.finditer(unicodedata.normalize("NFKC",
                                                                                   text))]
    runs: list[list[str]] = []
    prev_end = -2
    for n, (w, start) in enumerate(words):
        if n == 0 or not w[0].isupper():
            prev_end = -2
            continue
        if runs and start == prev_end + 1 and text[prev_end:start] == " ":
            runs[-1].append(w)
        else:
            runs.append([w])
        prev_end = start + len(w)
    folded = [tuple(fold(" ".join(r))) for r in runs if len(r) >= 2]
    return [r for r in folded if r not in t.member_of]


def in_longer_name(dead_text: str, new_text: str, tables_: Tables | None = None
                   ) -> str | None:
    """Why an alias in the new text is only a word of a longer name, or None (invariant 600):
    "Spurs" in "the San Antonio Spurs", "Inter" in "Inter Miami" -- a run of capitalised
    words no table holds whole, with a word the dead text does not say. "VW" in "VW Golf"
    after "Drives a Volkswagen Golf" is not: the rest of the run is the dead text's own."""
    t = tables_ or tables()
    dead = fold(dead_text)
    dead_words = set(dead)
    said = {tuple(dead[i:i + n]) for n in range(1, t.longest + 1) for i in range(len(dead))}
    for run in _longer_names(new_text, t):
        for start, end, group in _spans(list(run), t, names_ok=False):
            rest = run[:start] + run[end:]
            # only an alias read as the dead value ("Spurs" for Tottenham Hotspur) counts
            names_dead = any(m in said and m != run[start:end] for m in t.groups[group][1])
            if names_dead and rest and not set(rest) <= dead_words:
                return f"{' '.join(run[start:end])!r} is a word of the name {' '.join(run)!r}"
    return None


# Kinds whose names are not told apart by the tables: one diminutive shortens several names.
_AMBIGUOUS_KINDS = frozenset({"name", "family"})


def _marked(text: str, t: Tables) -> list[str]:
    """The text's tokens with each alias replaced by its group ("<7>")."""
    tokens = " , ".join(" ".join(fold(part)) for part in re.split(r"[,;]", text)
                        if fold(part)).split()
    out: list[str] = []
    i = 0
    for start, end, group in _spans(tokens, t, names_ok=False):
        out += tokens[i:start] + [f"<{group}>"]
        i = end
    return out + tokens[i:]


# Units of one measure: the same number in another of them is another amount.
_UNITS = {u: kind for kind, units in (
    ("time", "second minute hour day week fortnight month year decade century"),
    ("length", "millimetre millimeter centimetre centimeter metre meter kilometre kilometer "
               "inch foot yard mile"),
    ("mass", "gram kilogram pound ounce stone tonne"),
    ("volume", "millilitre milliliter litre liter pint gallon")) for u in units.split()}


def _unit(word: str) -> str | None:
    return _UNITS.get(word) or (_UNITS.get(word[:-1]) if word.endswith("s") else None)


def names_apart(dead_text: str, new_text: str, tables_: Tables | None = None) -> str | None:
    """Why two texts name different things of one kind in the same words around them, or None
    (invariant 600): "Prefers phone calls" / "Prefers video calls", "Likes Coca-Cola" / "Likes
    Pepsi", "Supports Man City" / "Supports Manchester United" -- two groups of the alias
    tables, which hold each word in one group only. Given names never: "Kate" may shorten
    Katherine or Kathryn."""
    t = tables_ or tables()
    other = another_given_name(dead_text, new_text, t)
    if other:
        return other
    a, b = (_marked(_written_out(x, t), t) for x in (dead_text, new_text))
    later = None if _MERIDIEM.search(new_text) else afternoon(_written_out(new_text, t))
    if later is not None and _marked(later, t) == a:
        return None  # "halb neun" may be the dead "8:30 pm"
    if len(a) != len(b):
        return None
    diff = [(x, y) for x, y in zip(a, b, strict=True)
            if x != y and not (x.isdigit() and y.isdigit() and int(x) == int(y))]
    if not diff:
        return None
    if all(x.isdigit() and y.isdigit() for x, y in diff):  # "a quarter to eight" / "8:15"
        return f"another number ({' '.join(y for _, y in diff)})"
    if len(diff) == 1 and any(w.isdigit() for w in a) and _unit(diff[0][0]) and \
            _unit(diff[0][0]) == _unit(diff[0][1]):  # "for 25 years" / "for 25 months"
        return f"the same number in another unit ({diff[0][1]}, not {diff[0][0]})"
    for x, y in diff:
        if not (x.startswith("<") and y.startswith("<")):
            return None
        gx, gy = t.groups[int(x[1:-1])], t.groups[int(y[1:-1])]
        if gx[0] != gy[0] or gx[0] in _AMBIGUOUS_KINDS:
            return None
    x, y = diff[0]
    return (f"{' '.join(t.groups[int(y[1:-1])][1][0])!r} and "
            f"{' '.join(t.groups[int(x[1:-1])][1][0])!r} are different {t.groups[int(x[1:-1])][0]}s")


SHORTENED = 0.75  # a name this much shorter may be a pet form no list holds ("Nacho", "Ignacio")
DIMINUTIVE = 0.85  # a diminutive shortens a name: "Bobby" is 83 % of "Robert", "Sepp" 80 % of "Josef"
_VOWELS = str.maketrans("", "", "aeiouy")


def another_given_name(dead_text: str, new_text: str, tables_: Tables | None = None
                       ) -> str | None:
    """Why two texts give one person slot two different names, or None (invariant 600): a
    name about as long as the dead one ("Rupert" / "Robert", "Kathleen" / "Katherine",
    "Karolina" / "Katarzyna") is not a diminutive of it, whatever the `nicknames` package
    joins them by ("Edmund" and "Edward" by "Ed"); a name is single-valued, so it is another
    name. Not when the two differ only in vowels or in how a sound is spelt ("Mohammed" /
    "Muhammad", "Catherine" / "Katherine": a transliteration), nor when a hand-written row
    names both."""
    t = tables_ or tables()
    dead, new = _reading(dead_text, t), _reading(new_text, t)
    if not (_person(dead.slot) and dead.slot == new.slot) or _apart_slots(dead, new) or \
            len(dead.raw_value) != 1 or len(new.raw_value) != 1:
        return None
    x, y = dead.raw_value[0], new.raw_value[0]
    if x == y or not (x.isalpha() and y.isalpha() and x.isascii() and y.isascii()) or \
            len(y) < DIMINUTIVE * len(x):
        return None
    if _sound(x) == _sound(y) or _sound(x).translate(_VOWELS) == _sound(y).translate(_VOWELS):
        return None
    if _name_groups().get((x,), frozenset()) & _name_groups().get((y,), frozenset()):
        return None
    # nor when a list makes one a form of the other ("Natasha" is Nataliya's)
    if related_names(x, y):
        return None
    return f"{y!r} is another name than {x!r}, not a shorter form of it"


def _text(tokens: list[str]) -> str:
    return " ".join(tokens).replace(" , ", ", ")


NEAR_SPELLING = 0.7  # difflib ratio: "Brissle" ~ "Bristol" (0.71); "Brighton" is 0.67
RESPELT = 2  # letters a respelling may add or drop


def near_spelling(dead_text: str, new_text: str) -> str | None:
    """Why `new_text` may be the dead value spelled another way, or None: the same slot and
    polarity, one value word apart, and those words alike ("Lives in Brissle" after "Lives in
    Bristol"; "Édimbourg" / "Edinburgh"). Numbers never: "Has 3 cats" is not "Has 2 cats"."""
    dead, new = read(dead_text), read(new_text)
    if not dead.slot or dead.slot != new.slot or (dead.negated, dead.ended) != (
            new.negated, new.ended):
        return None
    a, b = " ".join(dead.raw_value).split(), " ".join(new.raw_value).split()
    if len(a) != len(b) or compare_values(dead, new)[0] == "decisive":
        return None  # invariant 600: "Austria" is spelled like "Australia", and is not it
    diff = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    if len(diff) != 1 or any(ch.isdigit() for ch in "".join(diff[0])):
        return None
    x, y = diff[0]
    if _base(x) == _base(y) != x and _base(y) != y:
        return None  # one root, two endings: "physicist" is another word than "physician"
    ratio = difflib.SequenceMatcher(None, x, y).ratio()
    # A respelling or a typo keeps the word's length within two letters: "Labradoodle" is
    # another word than "Labrador", not a way to spell it.
    if min(len(x), len(y)) >= 4 and abs(len(x) - len(y)) <= RESPELT and x[:2] == y[:2] and \
            ratio >= NEAR_SPELLING:
        return f"{y!r} is spelled like {x!r} ({ratio:.2f})"
    return None


_ENGLISH_TOO = frozenset(["sex", "en", "elf", "one", "hat"])  # number words that are English
COGNATE = 5  # letters a word of another language shares with the dead value's word
COGNATE_RATIO = 0.75  # and how alike the two are (difflib): "Vegetarierin" ~ "vegetarian"


def _spelling(word: str) -> str:
    """A word as languages of Latin script may spell one sound: "w" as "v", "k" as "c",
    "ph" as "f", "y" as "i" ("weganka" / "vegan")."""
    return word.replace("ph", "f").translate(str.maketrans("wky", "vci"))


# "Half" before an hour in German, Dutch, Swedish, Danish and Norwegian counts toward
# that hour: "halb sieben", "half zeven", "halv sju" are 6:30 (British "half seven" is 7:30).
_HALF_BEFORE = frozenset({"halb", "half", "halv"})


def _script_numerals(words: Iterable[str]) -> set[str]:
    """Whole numbers written as numerals of a script without case ("二" in "猫を二匹飼っている"
    is 2; Unicode's numeric value of the character)."""
    out = set()
    for w in words:
        for ch in w:
            value = unicodedata.numeric(ch, None) if not ch.isascii() else None
            if value is not None and value == int(value) and ch.lower() == ch.upper():
                out.add(str(int(value)))
    return out


def foreign_restatement(dead_text: str, new_text: str, tables_: Tables | None = None
                        ) -> str | None:
    """Why a sentence of another language the reader has no slot for may restate the dead
    value, or None (invariant 600): it says the dead value's number in words of its language
    ("Tem dois filhos" after "Has 2 children") or a word of the same root as the value
    ("Ist Vegetarierin" after "Is vegetarian"). Another language is a sentence with a function
    word of one (`aliases/function_words.jsonl`) or a word in another script, and no English
    one. Only ever holds a write."""
    t = tables_ or tables()
    dead, new = read(dead_text), read(new_text)
    words = fold(new_text)
    if new.slot or not words or any(w in STOP_WORDS for w in words):
        return None
    if not any(w in t.function_words or w in t.number_words and w not in _ENGLISH_TOO
               or not w.isascii() for w in words):
        return None  # "Supports Manchester United" is English without a function word
    if dead.negated != new.negated:
        return None
    numbers = {str(t.number_words[w]) for w in words if w in t.number_words} | \
        {w.lstrip("0") or "0" for w in words if w.isdigit()} | _script_numerals(words)
    for half, hour in zip(words, words[1:], strict=False):  # "halb sieben" is 6:30
        if half in _HALF_BEFORE and 1 < t.number_words.get(hour, 0) <= 12:
            numbers |= {str(t.number_words[hour] - 1), "30"}
    said = {n for part in dead.value for tok in part
            for n in ([tok[2:]] if tok.startswith("n=") else [tok] if tok.isdigit() else [])}
    said |= {w for w in dead.terms if w.isdigit()}
    said.discard("1")
    if said and said <= numbers:
        return f"says {', '.join(sorted(said))} in another language"
    # the value, or the words of a text the reader has no slot for ("Speaks French")
    value = " ".join(dead.raw_value) or " ".join(w for w in fold(dead_text)
                                                 if w not in STOP_WORDS and w not in _FILLER)
    for y in words:  # a word of the alias tables that names the dead value ("francês")
        group = t.member_of.get((y,))
        if group is not None and any(tuple(v.split()) in t.groups[group][1]
                                     for v in (value, *value.split())):
            return f"{y!r} is another name of {value!r}"
    for x in value.split():
        for y in words:
            if not y.isascii() and len(x) >= 4 and _cross_script(x, y):  # "кофе" / "coffee"
                return f"{y!r} is {x!r} in another script"
            kx, ky = _spelling(x), _spelling(y)  # "vegan" / "weganka" (Polish)
            if min(len(kx), len(ky)) >= COGNATE and kx[:COGNATE - 1] == ky[:COGNATE - 1] and \
                    difflib.SequenceMatcher(None, kx, ky).ratio() >= COGNATE_RATIO:
                return f"{y!r} has the root of {x!r} in another language"
    return None

# --- the dead value named anywhere in a text (invariant 600) ---------------------------------
# Slots whose value is a person's (or a pet's) name: a name there is single-valued.
_PERSON_SLOTS = frozenset({"name", "partner", "spouse", "fiance", "ex_spouse", "manager"})
_WORD = re.compile(r"[^\W\d_](?:[^\W_]|['’-])*")
MIN_ROOT = 5  # letters a derived word shares with the dead value's word ("asthm-atic")
ROOT_RATIO = 0.75  # and how alike the two words are (difflib)


_SLOT_NAMES = {"home": "residence"}
_CALLED = re.compile(r"^(?:called|named|known as) (?=\w)")  # memory/slots.py names -> the reader's (memory/values.py)


def _reading(text: str, t: Tables) -> Claim:
    """The canonical claim of a text, its slot taken from another phrasing of the slot when
    the reader has none ("His name is Robert", "Call him Bob": the `name` slot). A person's
    value read with its naming verb ("called nacho") is the name alone."""
    claim = read(text)
    if claim.slot:
        if _person(claim.slot) and len(claim.raw_value) == 1 and \
                _CALLED.match(claim.raw_value[0]):
            value = _CALLED.sub("", claim.raw_value[0])
            return replace(claim, raw_value=(value,), value=(frozenset(value.split()),))
        return claim
    plain = _plain(text)
    for slot, pattern in t.phrasings:
        m = pattern.search(plain)
        if m and m.group("v").strip(" ,"):
            value = " ".join(fold(m.group("v")))
            return replace(claim, slot=_SLOT_NAMES.get(slot, slot), raw_value=(value,),
                           value=(frozenset(value.split()),))
    return claim


def _person(slot: str | None) -> bool:
    return bool(slot) and (slot in _PERSON_SLOTS or slot.startswith("named:"))  # type: ignore[union-attr]


# "Can't digest X" says what "Is X intolerant" or "Allergic to X" says, though its form is a
# negation.
_CANNOT = re.compile(r"(?i)\b(?:can ?not|can'?t|cannot|unable to|does ?n'?t|does not|do ?n'?t) "
                     r"(?:eat|digest|have|drink|tolerate|handle|stomach|process|absorb)\b")
_AVERSE = frozenset({"allergy", "intolerance", "cannot_eat"})


def _apart_slots(dead: Claim, new: Claim, new_text: str = "") -> bool:
    """Two readings that cannot restate each other whatever the words: opposite polarity (but
    "Can't digest milk sugar" after "Is lactose intolerant"), a state that ended, or two slots
    the reader tells apart ("Works in Glasgow" is not where she lives)."""
    averse = dead.slot in _AVERSE and new.negated and bool(_CANNOT.search(new_text))
    if (dead.negated, dead.ended) != (new.negated, new.ended) and not averse:
        return True
    return bool(dead.slot and new.slot and dead.slot != new.slot and not related(dead.slot,
                                                                                 new.slot))


def _dead_names(dead_text: str, dead: Claim, new_text: str = "") -> set[tuple[str, ...]]:
    """The dead value as token tuples: each part and each word of it (when the reader found no
    slot, the content words the new text does not share -- the shared ones are the frame,
    "smart home hub" -- and their pairs)."""
    if dead.slot:
        parts = [tuple(p.split()) for p in dead.raw_value]
        words = parts + [(w,) for p in parts for w in p]
    else:
        frame = set(fold(new_text))
        content = [w for w in fold(dead_text) if w not in STOP_WORDS and w not in _FILLER]
        words = [(w,) for w in content if w not in frame] + list(zip(content, content[1:],
                                                                     strict=False))
    out = set(words)
    return out | {n[:-1] + (n[-1][:-cut],) for n in out for cut in (1, 2)
                  if len(n[-1]) > 3 + cut and n[-1].endswith("es"[2 - cut:])}


@cache
def _languages() -> dict[str, frozenset[str]]:
    """Every language with a two-letter ISO 639-1 code, by its name in every language
    `pycountry` translates ISO 639-3 names to ("日本語", "Deutsch", "polski"), folded ->
    ISO 639-3 codes: a language named in its own or another language is the same language."""
    langs = [lang for lang in pycountry.languages if hasattr(lang, "alpha_2")]
    out: dict[str, set[str]] = {}
    for lang in langs:
        out.setdefault(" ".join(fold(lang.name)), set()).add(lang.alpha_3)
    for locale in sorted(os.listdir(pycountry.LOCALES_DIR)):
        try:
            tr = gettext.translation("iso639-3", pycountry.LOCALES_DIR, languages=[locale])
        except OSError:
            continue
        for lang in langs:
            out.setdefault(" ".join(fold(tr.gettext(lang.name))), set()).add(lang.alpha_3)
    return {k: frozenset(v) for k, v in out.items() if k}


@cache
def _airport_words() -> dict[str, frozenset[tuple[str, ...]]]:
    """An IATA code -> the words of its airport's own name ("LHR" -> heathrow): "Flies out of
    LHR" names Heathrow (airportsdata)."""
    generic = {"airport", "international", "intl", "regional", "municipal", "city", "county",
               "field", "airfield", "air", "base", "terminal"}
    return {code: frozenset((w,) for w in fold(a["name"]) if len(w) >= 4 and w not in generic)
            for code, a in airportsdata.load("IATA").items()}


def _language_ids(names: Iterable[tuple[str, ...]]) -> set[str]:
    table = _languages()
    return {c for n in names for c in table.get(" ".join(n), ())}


def _respelt(name: str, word: str) -> bool:
    """`word` is `name` respelt: as long within RESPELT letters, the same first two letters,
    alike (difflib 0.8): "chevvy" / "chevy"."""
    return name != word and min(len(name), len(word)) >= 4 and \
        abs(len(name) - len(word)) <= RESPELT and name[:2] == word[:2] and \
        difflib.SequenceMatcher(None, name, word).ratio() >= 0.8


def _place_ids(names: set[tuple[str, ...]]) -> set[str]:
    return {p.id for n in names for p in places.named(" ".join(n))[:1]}


def _proper_names(text: str) -> list[tuple[str, bool]]:
    """The words a text names something by, with whether each is a code: capitalised or in a
    script without case; three capitals ("DUB") are a code. A stretch of a caseless script
    is kept whole with its vowel marks (Thai "เชียงใหม่": marks are not word letters)."""
    out = []
    for chunk in unicodedata.normalize("NFKC", text).split():
        bare = chunk.strip(".,;:!?\"'()«»“”")
        if bare and not bare.isascii() and all(ch.lower() == ch.upper() for ch in bare):
            out.append((bare, False))
            continue
        for m in _WORD.finditer(chunk):
            w = m.group(0)
            if w[0].isupper() or not w[0].isascii() and w.lower() == w.upper():
                out.append((w, len(w) == 3 and w.isupper() and w.isascii()))
    return out


def named_within(dead_text: str, new_text: str, tables_: Tables | None = None) -> str | None:
    """Why a text may name the dead value by another of its names anywhere in its words, or
    None (invariant 600): "Weegie through and through" after "Lives in Glasgow" (a demonym),
    "Call him Bob" after "His name is Robert" (a diminutive), "Home airport is DUB" after
    "Flies from Dublin" (a code), "Hat eine Erdnussallergie" after "Allergic to peanuts" (a
    name inside a compound of another language). The text either has no slot the reader knows
    or the dead value's. A word the dead value itself says ("Works in Glasgow") is never
    another name of it. Only ever holds a write."""
    t = tables_ or tables()
    dead, new = _reading(dead_text, t), _reading(new_text, t)
    if _apart_slots(dead, new, new_text):
        return None
    own = _dead_names(dead_text, dead, new_text)
    tokens = list(fold(_written_out(new_text, t)))
    for start, end, group in _spans(tokens, t, names_ok=_person(dead.slot)):
        said = tuple(tokens[start:end])
        members = t.groups[group][1]
        if _person(dead.slot) and said in _name_groups():  # a diminutive of several names
            members = tuple(m for g in sorted(_name_groups()[said]) for m in t.groups[g][1])
        named = [m for m in members if m in own]
        if said not in own and said[:-1] + (said[-1].rstrip("s"),) not in own and named:
            return f"{' '.join(said)!r} is another name of {' '.join(named[0])!r}"
    # given names are not respelt into each other ("Antonia" is not "Antonio")
    others = {m[0] for name in own if name in t.member_of
              and t.groups[t.member_of[name]][0] not in _AMBIGUOUS_KINDS
              for m in t.groups[t.member_of[name]][1] if len(m) == 1 and m not in own}
    for tok in tokens:  # a demonym, or a name of another language inside a compound word
        if (tok,) in own:
            continue
        for other in others:  # another name of the value, spelled another way ("Chevvy")
            if _respelt(other, tok):
                return f"{tok!r} is spelled like {other!r}, another name of the value"
        for form in (tok, tok[:-1]):
            if (form,) in t.demonyms and tuple(fold(t.demonyms[(form,)])) in own:
                return f"{tok!r} names someone from {t.demonyms[(form,)]}"
        for name in own:
            for m in t.groups[t.member_of[name]][1] if name in t.member_of else ():
                if len(m) == 1 and len(m[0]) >= MIN_ROOT and m[0] in tok and m not in own \
                        and tok != m[0]:
                    return f"{tok!r} holds {m[0]!r}, another name of {' '.join(name)!r}"
    return _named_by_gazetteer(dead_text, new_text, dead, own)


def _named_by_gazetteer(dead_text: str, new_text: str, dead: Claim,
                        own: set[tuple[str, ...]]) -> str | None:
    """The dead value named by a gazetteer in the text's proper names: a language in its own
    or another language, an airport by its code, a place by any of its names."""
    proper = _proper_names(new_text)
    dead_codes = [w for w, code in _proper_names(dead_text) if code]
    airports = {w: c for c in dead_codes for w in _airport_words().get(c, ())}
    langs = _language_ids(own)
    for word, code in proper:
        folded = tuple(fold(word))
        if folded in airports and folded not in own:
            return f"{word!r} is the airport {airports[folded]} names"
        if folded not in own and langs & _language_ids([folded]):
            return f"{word!r} names the language {' '.join(next(iter(own)))!r} names"
        if code and not dead_codes and own & _airport_words().get(word, frozenset()):
            return f"{word!r} is the code of {' '.join(sorted(own & _airport_words()[word])[0])}"
    if dead.slot is None or dead.slot in places.PLACE_SLOTS:
        dead_places = _place_ids(own)
        for word, code in proper:
            folded = tuple(fold(word))
            if folded in own or (not code and word.isupper()) or code and dead_codes:
                continue  # two codes name two airports ("LHR" / "LGW")
            caseless = not word.isascii() and word.lower() == word.upper()
            for form in _glued(word) if caseless else [word if code else " ".join(folded)]:
                found = places.named(form)[:1]
                if found and found[0].id in dead_places and (code or caseless or
                                                             word.lower() != word):
                    return f"{form!r} names {found[0].name}"
    return None


MAX_GLUED = 40  # letters of a caseless word whose every stretch is looked up


def _glued(word: str) -> list[str]:
    """A word of a script without case, and every stretch of it of two letters or more,
    longest first: a name may have a particle or another word on either side ("서울에" is
    서울 + 에, "東京在住" 東京 + 在住, Hebrew "בחיפה" ב + חיפה, a Thai sentence written
    without spaces)."""
    word = word[:MAX_GLUED]
    return [word[i:i + n] for n in range(len(word), 1, -1) for i in range(len(word) - n + 1)]


@cache
def _name_groups() -> dict[tuple[str, ...], frozenset[int]]:
    """Every hand-written group of kind `name` a word is in: "sasha" shortens Alexander and
    Alexandra. Not the `nicknames` package's groups, which join two names by a diminutive
    they share ("Wilfred" and "William" by "Will")."""
    packaged = {members for _, members in _given_names()}
    out: dict[tuple[str, ...], set[int]] = {}
    for i, (kind, members) in enumerate(tables().groups):
        if kind == "name" and members not in packaged:
            for m in members:
                out.setdefault(m, set()).add(i)
    return {m: frozenset(g) for m, g in out.items()}


_NAMING = frozenset("call calls called named name known nickname nicknamed dubbed".split())


@cache
def _given() -> frozenset[str]:
    """Every given name and diminutive the `nicknames` package knows, folded."""
    namer = NickNamer()
    names = set()
    for lookup in (namer.canonical_lookup, namer.nickname_lookup):
        for name, others in lookup.items():
            names |= {" ".join(fold(n)) for n in [name, *others]}
    return frozenset(n for n in names if n)


def unknown_name(dead_text: str, new_text: str, tables_: Tables | None = None) -> str | None:
    """Why a text may name the dead person by a name the tables do not know, or None
    (invariant 600): a name is single-valued, so after "His name is Giuseppe", "Everyone calls
    him Peppe" names him by a word no table tells apart from Giuseppe; a known other given
    name ("Her son Billy" after "Her name is Anna") is a different value. Only ever holds."""
    t = tables_ or tables()
    dead, new = _reading(dead_text, t), _reading(new_text, t)
    if not _person(dead.slot) or _apart_slots(dead, new) or len(dead.raw_value) != 1:
        return None
    name = dead.raw_value[0]
    words = set(fold(new_text))
    role = set(dead.slot.split(":", 1)[1].split()) if dead.slot and ":" in dead.slot else set()
    # The text must name someone: a name slot, the dead fact's role ("Her son Billy"), or a
    # word that names ("Everyone calls him Peppe"); a hub called Homey is not the cat Pepper.
    if len(name.split()) != 1 or not (_person(new.slot) or words & (_NAMING | role)):
        return None
    first = _WORD.search(unicodedata.normalize("NFKC", new_text))
    said = new.raw_value[0].split() if _person(new.slot) and new.raw_value else []
    for word, named in [(w, True) for w in said] + [(w, False) for w, _ in
                                                     _proper_names(new_text)]:
        w = " ".join(fold(word))
        if not named and first is not None and word == first.group(0) and \
                len(fold(new_text)) > 1:
            continue  # a sentence's first word is capitalised whatever it is
        if not w or w == name or w in STOP_WORDS or w in _FILLER:
            continue
        group = t.member_of.get((w,))
        if group is not None and t.groups[group][0] != "name":
            continue  # a word of another kind ("Londoner", "Coke")
        if any((name,) in t.groups[g][1] for g in _name_groups().get((w,), ())):
            return f"{word!r} is a name of {name!r} (a diminutive of several names)"
        if related_names(name, w):
            return f"{word!r} and {name!r} are one name in the given-name lists"
        if _known_name(w) and _known_name(name) and len(w) <= SHORTENED * len(name) and \
                (group is None or t.groups[group][0] == "name") and \
                not _pet_forms_listed(name) and _shared_run(name, w) >= PET_FORM_RUN:
            return f"{word!r} is a shorter name than {name!r}, maybe a pet form of it"
        if (w in _given() or group is not None) and (name in _given() or not _cognate(name, w)):
            continue  # a known name the tables already tell apart (or hold) by its group
        if len(w) >= 3 and w.isalpha():
            return f"{word!r} is a name no table tells apart from {name!r}"
    return None


# Word endings that derive a noun, adjective or verb form from one root ("plumb-er",
# "plumb-ing", "pharmac-ist", "pharmac-y", "asthma-tic").
_SUFFIXES = tuple(sorted("ations ation ists ist ians ian ers er ings ing ics ic tic eries ery "
                         "ries ry ies y es s e".split(), key=len, reverse=True))
_WORK_SLOTS = frozenset({"job", "employer", "works_in", "role_at", "joined"})


def _base(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[:-len(suffix)]
    return word


def _derived(x: str, y: str, loose: bool) -> bool:
    """`y` is another form of `x`: the same base once a derivational ending is off, or (when
    `loose`) the same first MIN_ROOT letters and alike ("epilepsy" / "epileptic")."""
    if x == y or not (x.isalpha() and y.isalpha()) or min(len(x), len(y)) < 4:
        return False
    if _base(x) == _base(y):
        return True
    n = len(commonprefix([x, y]))
    return loose and n >= MIN_ROOT and (
        difflib.SequenceMatcher(None, x, y).ratio() >= ROOT_RATIO
        or n >= ROOT_RATIO * min(len(x), len(y)))


def _cognate(name: str, known: str) -> bool:
    """A name the tables do not know ("friedrich") and a known name or one it shortens
    ("fritz" -> frederick) spelled alike: the same name in another language."""
    namer = _namer()
    for other in {known} | {" ".join(fold(n)) for n in namer.canonicals_of(known)}:
        if other[:1] == name[:1] and difflib.SequenceMatcher(None, other, name).ratio() >= \
                NEAR_SPELLING:
            return True
    return False


@cache
def _namer() -> NickNamer:
    return NickNamer()


@cache
def _name_lists() -> tuple[frozenset[str], dict[str, frozenset[str]]]:
    """Every given name of the `gender-guesser` package's dictionary (Jörg Michael's
    nam_dict.txt: about 45,000 first names of 54 countries), folded, and its equivalences
    ("=  Pista István": a pet form and its name) both ways."""
    path = resources.files("gender_guesser") / "data" / "nam_dict.txt"
    names: set[str] = set()
    same: dict[str, set[str]] = {}
    def folded_name(name: str) -> str:  # most names are ASCII: fold only the others
        name = name.replace("+", "-")
        return name.lower() if name.isascii() and name.isalpha() else " ".join(fold(name))

    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line[:30].split()
        if len(parts) < 2 or line.startswith("#"):
            continue
        folded = [folded_name(p) for p in parts[1:3]]
        if parts[0] == "=" and len(folded) == 2 and all(folded):
            same.setdefault(folded[0], set()).add(folded[1])
            same.setdefault(folded[1], set()).add(folded[0])
        elif parts[0] != "=" and folded[0]:
            names.add(folded[0])
    return frozenset(names), {k: frozenset(v) for k, v in same.items()}


def _known_name(name: str) -> bool:
    return name in _given() or name in _name_lists()[0]


PET_FORM_RUN = 3  # letters in a row a pet form keeps of its name ("Nacho": Ig-nac-io)


def _shared_run(x: str, y: str) -> int:
    m = difflib.SequenceMatcher(None, x, y).find_longest_match(0, len(x), 0, len(y))
    return m.size


def _pet_forms_listed(name: str) -> bool:
    """A name whose pet forms a list gives ("Margaret": Maggie, Peggy ...): a shorter name
    the lists do not join to it is another name."""
    return bool(_namer().nicknames_of(name)) or name in _name_lists()[1]


def related_names(x: str, y: str) -> bool:
    """Two given names one list makes forms of each other: `nicknames` (a name and its
    diminutive, either way) or nam_dict's equivalences, the far side respelt ("Natasha" is
    Nataliya's, so Natalia's)."""
    namer, same = _namer(), _name_lists()[1]

    def forms(n: str) -> set[str]:  # a pet form of `nicknames` shortens its name
        packaged = {" ".join(fold(o)) for o in namer.canonicals_of(n) | namer.nicknames_of(n)}
        return {o for o in packaged if min(len(o), len(n)) < DIMINUTIVE * max(len(o), len(n))} \
            | set(same.get(n, ()))
    def alike(o: str, n: str) -> bool:  # "delores" / "dolores": one name spelt two ways
        return o == n or o[:1] == n[:1] and abs(len(o) - len(n)) <= RESPELT and \
            difflib.SequenceMatcher(None, o, n).ratio() >= 0.8
    return any(alike(o, y) for o in forms(x)) or any(alike(o, x) for o in forms(y))


def derived_word(dead_text: str, new_text: str) -> str | None:
    """Why a text may say the dead value by a word derived from it, or None (invariant 600):
    "Is asthmatic" after "Has asthma", "Does plumbing for a living" after "Works as a
    plumber" (a text the reader has no slot for), "Works in pharmacy" after "Works as a
    pharmacist" (two slots of work, which the reader tells apart by a preposition only). The
    same word in another frame ("Works in Glasgow") is not derived. Only ever holds."""
    t = tables()
    dead, new = _reading(dead_text, t), _reading(new_text, t)
    work = dead.slot != new.slot and {dead.slot, new.slot} <= _WORK_SLOTS and (
        dead.negated, dead.ended) == (
        new.negated, new.ended)
    if not work and (new.slot is not None or _apart_slots(dead, new, new_text)):
        return None
    own = {w for name in _dead_names(dead_text, dead, new_text) for w in name}
    for y in fold(new_text):
        if y in own or y.rstrip("s") in own or y in STOP_WORDS:
            continue
        for x in own:
            if _derived(x, y, loose=new.slot is None):
                return f"{y!r} is a form of {x!r}"
    return None


_ABBREVIATION = re.compile(r"(?<![\w&])(?:[^\W\d_]&)?[^\W\d_]{2,6}(?![\w&])|"
                           r"(?<![\w&])[^\W\d_]&[^\W\d_](?![\w&])")
# Words an initialism may leave out ("G&T", "OM" for Olympique de Marseille).
_JOINING = frozenset("of the and de del della di du des la le les el y et und von".split())


def _abbreviations(text: str) -> list[str]:
    """Words written as initials: two or more capitals in at most six letters ("GoT", "BotW",
    "OM"), or two letters joined by "&" ("G&T"); an elided article before it is off
    ("l'OM")."""
    out = []
    for m in _ABBREVIATION.finditer(unicodedata.normalize("NFKC", text).replace("’", "'")):
        w = m.group(0)
        if sum(ch.isupper() for ch in w) >= 2:
            out.append(w.replace("&", "").lower())
    return out


def initialism(dead_text: str, new_text: str) -> str | None:
    """Why a word of initials in the new text may name the dead value, or None (invariant
    600): the first letters of words of the dead text in a row, every word's ("GoT": Game of
    Thrones, "BotW": Breath of the Wild) or the words but articles and joining words ("G&T":
    gin and tonic, "OM": Olympique de Marseille). Only ever holds a write."""
    dead, new = read(dead_text), read(new_text)
    if _apart_slots(dead, new, new_text):
        return None
    words = [w for w in fold(dead_text) if w.isalpha()]
    own = set(words)
    for letters in _abbreviations(new_text):
        if letters in own:
            continue
        for i in range(len(words)):
            for j in range(i + 2, len(words) + 1):
                run = words[i:j]
                if run[0] in _JOINING or run[-1] in _JOINING:
                    continue
                content = [w for w in run if w not in _JOINING]
                if len(content) >= 2 and letters in ("".join(w[0] for w in run),
                                                     "".join(w[0] for w in content)):
                    return f"{letters.upper()!r} is the initials of {' '.join(run)!r}"
    return None


def unresolved_place(dead_text: str, new_text: str) -> str | None:
    """Why a value of the dead place's slot that no gazetteer reading resolves may be the
    dead place under a name no table holds, or None (invariant 600): a place slot holds one
    place, so after "Lives in Pittsburgh" (a place the gazetteer knows), "Lives in Steel Town"
    (no place it knows) is held; a place it knows is told apart by it. Only ever holds."""
    t = tables()
    dead, new = _reading(dead_text, t), _reading(new_text, t)
    if dead.slot not in places.PLACE_SLOTS or new.slot != dead.slot or \
            _apart_slots(dead, new) or not new.raw_value:
        return None
    if any(ch.isdigit() for ch in " ".join(new.raw_value)):
        return None  # an address or a flat number, not a name of a place
    dead_place = places.read_place(dead.raw_value)
    if dead_place is None or not dead_place.places:
        return None
    if places.read_place(new.raw_value) is not None or \
            compare_values(dead, new)[0] == "decisive":
        return None
    like = _known_place(new.raw_value[0])
    target = dead_place.places[0]
    if any(p.id == target.id for k in like for p in places.gazetteer().named.get(k, ())):
        return f"{new.raw_value[0]!r} is a name of {target.name} with another ending"
    if like:
        return None  # another place the gazetteer knows, with another ending ("w Krakowie")
    return f"{new.raw_value[0]!r} is no place the gazetteer knows, and may name {target.name}"


@cache
def _regions() -> tuple:
    return tuple(sub for sub in pycountry.subdivisions if sub.parent_code is None)


@cache
def _place_keys() -> dict[str, tuple[str, ...]]:
    """Gazetteer keys by their first MIN_ROOT letters, with ISO 3166-2 subdivision names in
    every language `pycountry` translates them to ("Bavaria", "Bawaria")."""
    keys = set(places.gazetteer().named)
    for locale in sorted(os.listdir(pycountry.LOCALES_DIR)):
        try:
            tr = gettext.translation("iso3166-2", pycountry.LOCALES_DIR, languages=[locale])
        except OSError:
            continue
        keys |= {places.key(tr.gettext(sub.name)) for sub in _regions()}
    out: dict[str, list[str]] = {}
    for k in keys:
        out.setdefault(k[:MIN_ROOT], []).append(k)
    return {p: tuple(v) for p, v in out.items()}


def _known_place(raw: str) -> list[str]:
    """The gazetteer keys a value may be, maybe with another case ending ("w Krakowie",
    "w Niemczech"): the same first MIN_ROOT letters and at most places.INFLECTION letters
    more or fewer than the key's own ending."""
    k = places.key(raw)
    return [c for c in _place_keys().get(k[:MIN_ROOT], ()) if k == c or " " not in k and
            len(k) >= MIN_ROOT and len(commonprefix([c, k])) >= MIN_ROOT and
            max(len(c), len(k)) - len(commonprefix([c, k])) <= places.INFLECTION + 1]


def light_verb(dead_text: str, new_text: str) -> str | None:
    """Why "Has coffee every morning" may say what "Drinks coffee" said, or None (invariant
    600): a text the reader has no slot for, its verb's object said after the light verb
    "has" (the reader's `has` slot). Only ever holds a write."""
    dead, new = read(dead_text), read(new_text)
    if dead.slot is not None or new.slot != "has" or _apart_slots(dead, new):
        return None
    content = [w for w in fold(dead_text) if w not in STOP_WORDS and w not in _FILLER]
    said = {w for part in new.raw_value for w in part.split()}
    if len(content) >= 2 and set(content[1:]) <= said:
        return f"'has' {' '.join(content[1:])!r} may say what {content[0]!r} said"
    return None


_ENGLISH_NUMBERS = {w: n for n, w in enumerate(_HOUR_WORDS) if n}
SENTENCE_SLACK = 2  # words a translation may add or drop ("Hat einen Hund" / "Has a dog")


def _foreign(words: tuple[str, ...], t: Tables) -> bool:
    """A sentence of another language: a function word of one (`aliases/function_words.jsonl`),
    a number word that is not English, or a word in another script; and no English one."""
    return bool(words) and not any(w in STOP_WORDS for w in words) and any(
        w in t.function_words or w in t.number_words and w not in _ENGLISH_TOO
        or not w.isascii() for w in words)


def foreign_sentence(dead_text: str, new_text: str, tables_: Tables | None = None
                     ) -> str | None:
    """Why a sentence of another language in Latin script, about as long as the dead text and
    sharing none of its words, may say the same, or None (issue 30: anything that may be the
    dead value is held): "Pije herbatę każdego ranka" after "Drinks tea every morning". Only
    for a dead text the reader has no slot for (a slot's values are the other rules'
    business: measured, holding "Ist Ärztin" after "Is a nurse" cost more than it caught);
    not when it names another place the gazetteer knows, or another number. Only holds."""
    t = tables_ or tables()
    dead_words, words = fold(dead_text), fold(new_text)
    raw = tuple(w.lower() for w in _WORD.findall(unicodedata.normalize("NFC", new_text)))
    if read(dead_text).slot or read(new_text).slot or \
            not (_foreign(words, t) or _foreign(raw, t)) or \
            any(w in t.function_words or not w.isascii() for w in dead_words):
        return None
    if abs(len(words) - len(dead_words)) > SENTENCE_SLACK or set(words) & set(dead_words) or \
            read(dead_text).negated != read(new_text).negated:
        return None  # a translation shares no word ("Watches Formula E" is English)
    if any(unicodedata.name(ch, "?").split()[0] != "LATIN" for w in words for ch in w
           if ch.isalpha()):
        return None  # other scripts have their own readings (names, numerals, cognates)
    said = {w for w in dead_words if w.isdigit()} | {
        str(n) for w in dead_words if (n := _ENGLISH_NUMBERS.get(w))}
    numbers = {str(t.number_words[w]) for w in words if w in t.number_words
               and w not in _ENGLISH_TOO} | {w for w in words if w.isdigit()} | \
        _script_numerals(words)
    if numbers - said - {"1"}:
        return None  # another number
    dead_places = {p.id for w, _ in _proper_names(dead_text) for p in places.named(w)[:1]}
    first = _WORD.search(unicodedata.normalize("NFKC", new_text))
    for word, _ in _proper_names(new_text):
        if first is not None and word == first.group(0) and len(words) > 1:
            continue  # a sentence's first word is capitalised whatever it is ("Pije")
        found = places.named(word)[:1] or [p for k in _known_place(word)[:1]
                                           for p in places.gazetteer().named.get(k, ())[:1]]
        if found and found[0].id not in dead_places:
            return None  # another place ("Mieszka w Krakowie")
    return (f"a sentence in another language as long as {dead_text!r}, naming no other "
            f"place or number")
