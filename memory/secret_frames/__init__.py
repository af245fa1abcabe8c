"""The handing-over frame tables (invariant 460), read once and validated. See README.md."""

from __future__ import annotations

import json
import re
import unicodedata
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

HERE = Path(__file__).parent


class NounRow(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: str = Field(pattern=r"^an? [a-zA-Z ]+$")
    lang: str = Field(min_length=2)
    nouns: list[str] = Field(min_length=1)


class Frames(BaseModel):
    model_config = ConfigDict(extra="forbid")
    doc: str = Field(alias="_doc")
    copulas: list[str] = Field(min_length=1)
    # copulas after which one plain word closing the clause is a password or an answer
    plain_copulas: list[str] = Field(default_factory=list)
    # how a next sentence opens that hands over the value of the last one's noun
    # ("The office wifi got reset. It's now ...", invariant 460)
    anaphora: list[str] = Field(default_factory=list)
    # the fewest characters a value of a kind has (a Wi-Fi key: WPA2's eight)
    min_length: dict[str, int] = Field(default_factory=dict)
    # nouns whose value after "to", "for" or "at" may be a clock time ("set the alarm to 0630")
    clock_nouns: list[str] = Field(default_factory=list)
    possessives: list[str] = Field(min_length=1)
    ordinary_nouns: list[str]
    ordinary_shapes: dict[str, list[str]]
    filler_words: int = Field(ge=0, le=8)
    not_after: list[str] = Field(default_factory=list)
    scan_words: int = Field(default=10, ge=1, le=16)
    bare_nouns: list[str] = Field(default_factory=list)
    openers: list[str] = Field(default_factory=list)
    # words after a noun that make it ordinary ("kod pocztowy", "código postal": a postcode)
    ordinary_after: list[str] = Field(default_factory=list)
    # words between a noun and a copula that give the copula to another clause ("which my son
    # says is insane")
    reported: list[str] = Field(default_factory=list)
    # words that say a value is derived from something ("same as my birthday, 1103", "the year
    # we moved here, so 2009"): digits after one, in the noun's clause, are its value
    derived: list[str] = Field(default_factory=list)
    # a security question's topics, answered after "?" or ":" ("first pet? Biscuit")
    question_topics: list[str] = Field(default_factory=list)
    # services whose name after a back-pointing cue says a password-shaped token is its login
    services: list[str] = Field(default_factory=list)
    # the keys of a door-entry panel said between a code's digits ("27 klucz 48")
    keypad_keys: list[str] = Field(default_factory=list)
    # things a value may belong to, said before "of/for the <noun>" ("SSID of the cabin wifi
    # is LakeHouse": the network's name, not its key)
    owners: list[str] = Field(default_factory=list)
    # per language, the definite article it glues to a noun's end ("lykilorðið", "паролата",
    # "passordet"): a noun of that language is also said with each (issue 30, seventh pass)
    definite_suffixes: dict[str, list[str]] = Field(default_factory=dict)


class Tables(BaseModel):
    nouns: list[NounRow]
    frames: Frames


def _rows(path: Path) -> list[NounRow]:
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(NounRow.model_validate_json(line))
        except ValidationError as exc:
            raise ValueError(f"{path}:{n}: {exc.errors()[0]['msg']}") from None
    return rows


def _script(ch: str) -> str:
    """"CYRILLIC", "LATIN", "ARABIC" …: the first word of the character's Unicode name."""
    return unicodedata.name(ch, "?").split()[0]


def _with_suffixes(row: NounRow, suffixes: dict[str, list[str]]) -> NounRow:
    """A row's nouns with the definite suffixes of its languages, each only on a noun ending in
    a letter of its script ("парола" + "та", "lykilorð" + "ið", never "password" + "та")."""
    forms = list(row.nouns)
    for lang in row.lang.split():
        for suffix in suffixes.get(lang, []):
            forms += [n + suffix for n in row.nouns
                      if n[-1:].isalpha() and _script(n[-1]) == _script(suffix[0])]
    return row.model_copy(update={"nouns": list(dict.fromkeys(forms))})


@cache
def tables() -> Tables:
    frames = _frames()
    rows = [_with_suffixes(r, frames.definite_suffixes) for r in _rows(HERE / "nouns.jsonl")]
    # the operating system's own words for password, passphrase and PIN in every language its
    # prompts are translated into (build_platform_nouns.py); a word the hand-written rows give
    # a kind keeps that kind
    known = {" ".join(n.lower().split()) for row in rows for n in row.nouns}
    platform = HERE / "platform_nouns.jsonl"
    for row in _rows(platform) if platform.exists() else []:
        row = _with_suffixes(row, frames.definite_suffixes)
        fresh = [n for n in row.nouns if " ".join(n.lower().split()) not in known]
        known.update(fresh)
        if fresh:
            rows.append(row.model_copy(update={"nouns": fresh}))
    return Tables(nouns=rows, frames=frames)


def _frames() -> Frames:
    try:
        frames = Frames.model_validate(json.loads((HERE / "frames.json").read_text("utf-8")))
        for group in frames.ordinary_shapes.values():
            for rx in group:
                re.compile(rx)
    except (ValidationError, re.error) as exc:
        raise ValueError(f"{HERE / 'frames.json'}: {exc}") from None
    return frames
