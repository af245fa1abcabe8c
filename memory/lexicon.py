"""A small general-English lexicon for query expansion (issue 17, recall6; invariant 169).

A paraphrased question uses other words than the memory it asks for ("hoover" for "vacuum",
"employer" for "works at", "pet" for "dog"), so BM25 finds nothing and only the dense leg sees
it. Each group below is a handful of everyday words that a person asking about their own life
uses for one thing: synonyms, and a few hypernyms with their common members ("pet": dog, cat).
Words only: no names, brands or products, nothing taken from any one user's memories.

`expansions` (pure) maps a query's analysed terms to the other members of their groups, each
at a weight below an asked word's; the BM25 leg scores them at that weight.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from .lexical import analyse

# One group per line. Kept small on purpose: a word in many groups would drag in noise.
GROUPS: tuple[str, ...] = (
    "home house flat apartment residence address",
    "live lives living reside resides relocate relocated moved",
    "neighbourhood neighborhood district area suburb quarter borough",
    "city town",
    "job work employer employed company firm workplace career profession occupation",
    "colleague coworker teammate",
    "boss manager lead supervisor",
    "commute commuting",
    "bike bicycle cycle cycling",
    "car vehicle automobile",
    "train rail railway metro subway underground tram",
    "plane flight airline aircraft",
    "luggage baggage suitcase",
    "doctor gp physician",
    "medicine medication prescription pills",
    "allergy allergic intolerance",
    "vaccine vaccination vaccinated jab shot inoculation immunisation",
    "diet eat eats",
    "diet vegetarian vegan pescatarian",
    "meat steak beef pork chicken",
    "meal meals food dinner lunch breakfast",
    "coffee espresso latte cappuccino",
    "drink beverage brew",
    "pet dog cat puppy kitten",
    "partner boyfriend girlfriend husband wife spouse",
    "sibling sister brother",
    "parents mother father mum mom dad",
    "child children kid kids son daughter",
    "birthday born",
    "holiday vacation",
    "phone mobile smartphone",
    "computer laptop notebook pc desktop",
    "screen monitor display",
    "headphones earphones headset earbuds",
    "internet broadband wifi isp fibre fiber",
    "lamp lamps bulb bulbs light lights lighting",
    "camera cam webcam cctv",
    "vacuum hoover",
    "thermostat heating heater radiator boiler",
    "hub controller bridge gateway",
    "sensor sensors detector",
    "electricity electric power energy",
    "outage blackout",
    "battery batteries",
    "backup backups snapshot snapshots",
    "bank banking account",
    "insurance insured cover",
    "passport visa",
    "exam certification certificate",
    "course class classes lesson lessons tutor",
    "study studies learn learning",
    "exercise workout sport fitness gym",
    "jog jogging running",
    "climb climbing boulder bouldering",
    "editor ide",
    "shell terminal console",
    "schedule rota roster shift shifts timetable",
    "meeting meetings appointment",
    "gift present",
    "goodbye farewell leaving",
    "price cost costs paid expensive cheap",
    "rent lease tenancy landlord rental",
    "bin rubbish trash garbage",
    "buy bought purchase purchased",
    "broken broke failed failing crash crashed",
    "fix fixed repair repaired solve solved resolve resolved",
    "sleep asleep bedtime nap",
    "tired exhausted fatigue",
    "status tier membership",
    "loyalty programme program scheme",
    "cancel cancelled canceled cancellation scrapped",
    "compensation refund payout",
    "hot heat temperature degrees",
    "cold chilly freezing",
    "pager paged on-call oncall",
    "database db",
    "coding programming",
    "config configuration settings dotfiles",
    "server host",
    "storage disk",
    "ad ads adverts advertising",
    "weekend saturday sunday",
    "speak speaks fluent language",
    "nut nuts peanut peanuts cashew cashews almond almonds walnut walnuts hazelnut hazelnuts",
)


@functools.lru_cache(maxsize=1)
def _index() -> dict[str, frozenset[str]]:
    """Analysed term -> the other analysed terms of its groups."""
    out: dict[str, set[str]] = {}
    for line in GROUPS:
        terms = set(analyse(line))
        for t in terms:
            out.setdefault(t, set()).update(terms - {t})
    return {t: frozenset(o) for t, o in out.items()}


def expansions(terms: Iterable[str], weight: float) -> dict[str, float]:
    """The lexicon's other words for the query's analysed `terms`, each at `weight` (pure;
    invariant 169). A word the query already asks is never added; no weight (<= 0) adds none."""
    if weight <= 0:
        return {}
    asked = set(terms)
    index = _index()
    return {o: weight for t in asked for o in sorted(index.get(t, ())) if o not in asked}


@functools.lru_cache(maxsize=1)
def _words() -> dict[str, tuple[str, ...]]:
    """Analysed term -> the plain words of the groups that analyse to it (for a store that
    analyses text itself, such as Elasticsearch)."""
    out: dict[str, list[str]] = {}
    for line in GROUPS:
        for word in line.split():
            for t in analyse(word):
                if word not in out.setdefault(t, []):
                    out[t].append(word)
    return {t: tuple(ws) for t, ws in out.items()}


def words_of(extra: dict[str, float] | None) -> dict[float, str]:
    """The `expansions` of a query as plain words grouped by weight, for a store whose own
    analyser stems them again (Elasticsearch's `english`; invariant 169). Pure."""
    by_weight: dict[float, list[str]] = {}
    for term, weight in sorted((extra or {}).items()):
        for word in _words().get(term, ()):
            if word not in by_weight.setdefault(weight, []):
                by_weight[weight].append(word)
    return {w: " ".join(ws) for w, ws in by_weight.items() if ws}

