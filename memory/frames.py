"""Two texts in one frame: the same leading words, then a value (issue 30, item 2; invariant 600).

The reader has no slot for many ways a person states one value ("Is from Iran", "Grandpa is
Henry", "Studies in Leuven"). Two texts that say the same leading words and then a value of a
few words are read here as one slot with two values, so the place and name rules can compare
the values: a place the gazetteer tells apart is another value; another of the dead place's
names, or a proper name no gazetteer knows, may be the dead place; a value in another language
or script may be the dead value translated. Each rule only ever holds a write. Pure.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cache, lru_cache

import pycountry

from . import places
from .restatements import MIN_ROOT, _known_name, _languages, _place_keys
from .text import fold
from .values import read

MAX_VALUE = 8  # words a framed value may have ("The Good, the Bad and the Ugly" is seven)
_WORD = re.compile(r"\S+")
_EDGE = ".,;:!?\"“”«»()"
_ARTICLE = re.compile(r"(?i)^(?:the|a|an)\s+")
# Frame endings after which the value names a person ("Grandpa is Henry", "Son is called Tom").
_NAMING_END = frozenset({"is", "called", "named", "was"})
# Frame endings after which the value is a place ("Is from Iran", "Studies in Leuven").
_PLACE_END = frozenset({"from", "in", "near"})


@dataclass(frozen=True)
class Framed:
    frame: tuple[str, ...]  # the shared leading words, folded
    dead: str  # the dead text's value, as written
    new: str  # the new text's value, as written


@lru_cache(maxsize=4096)
def framed(dead_text: str, new_text: str) -> Framed | None:
    """The shared frame of two texts and their values, or None: at least one shared leading
    word, then a value of 1 to MAX_VALUE words on each side."""
    a = list(_WORD.finditer(unicodedata.normalize("NFKC", dead_text)))
    b = list(_WORD.finditer(unicodedata.normalize("NFKC", new_text)))
    n = 0  # a value keeps at least its last word ("Benin" / "Benin City, Nigeria")
    while n < min(len(a), len(b)) - 1 and fold(a[n].group(0)) == fold(b[n].group(0)) and \
            fold(a[n].group(0)):
        n += 1
    if n == 0 or not (0 < len(a) - n <= MAX_VALUE and 0 < len(b) - n <= MAX_VALUE):
        return None
    va = unicodedata.normalize("NFKC", dead_text)[a[n].start():].strip().strip(_EDGE).strip()
    vb = unicodedata.normalize("NFKC", new_text)[b[n].start():].strip().strip(_EDGE).strip()
    if not va or not vb or fold(va) == fold(vb):
        return None
    frame = tuple(w for m in a[:n] for w in fold(m.group(0)))
    return Framed(frame, _ARTICLE.sub("", va), _ARTICLE.sub("", vb))


def _proper(value: str) -> bool:
    """A value written as a name: each word capitalised (joining words aside) or in a script
    without case."""
    words = re.findall(r"[^\W\d_][\w'’-]*", value)
    return bool(words) and all(w[0].isupper() or w[0].lower() == w[0].upper() or
                               w in _JOINING or re.match(r"[dl]['’]", w) for w in words)


_JOINING = frozenset("de del della di la le of the and da do du des von van".split())


def _region(name: str) -> bool:
    """A subdivision in any language `pycountry` translates ISO 3166-2 to ("Catalonia")."""
    k = places.key(name)
    return k in _place_keys().get(k[:MIN_ROOT], ())


def _parts(value: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in value.split(",") if p.strip())


@lru_cache(maxsize=4096)
def place_in_frame(dead_text: str, new_text: str) -> tuple[str, str] | None:
    """('apart'|'held', why) for two framed values when the dead one is a place the gazetteer
    knows, else None (invariant 600): "Is from Latvia" / "Is from Lithuania" are two places
    (apart); "Is from Persia" after "Is from Iran" names no place the gazetteer knows and
    "Studies in Louvain" after "Studies in Leuven" another name of the same place (held)."""
    f = framed(dead_text, new_text)
    if f is None or f.frame[-1] not in _PLACE_END or not _proper(_parts(f.dead)[0]) or \
            any(ch.isdigit() for ch in f.dead + f.new):
        return None  # an address or a flat number is no place's name
    dead, new = _parts(f.dead), _parts(f.new)
    if not places.named(dead[0]):
        return None
    found = places.compare(dead, new)
    if found is not None:
        verdict, why = found
        return ("apart", why) if verdict == "different" else ("held", why)
    if read(dead_text).slot in places.PLACE_SLOTS:
        return None  # the reader's place slots: `restatements.unresolved_place` decides
    if _proper(f.new) and len(new) == 1 and not places.named(new[0]) and \
            not _region(new[0]):
        return "held", f"{f.new!r} is no place the gazetteer knows, and may name {f.dead}"
    return None


@lru_cache(maxsize=4096)
def names_in_frame(dead_text: str, new_text: str) -> tuple[str, str] | None:
    """The two values of a frame that names a person ("Grandpa is Henry" / "Grandpa is Hal"),
    as name-slot texts the name rules read ("Name is Henry", "Name is Hal"), or None: one
    capitalised word each, after "is", "called" or "named", no place, and no slot the reader
    knows for either text."""
    f = framed(dead_text, new_text)
    if f is None or f.frame[-1] not in _NAMING_END or read(dead_text).slot or \
            read(new_text).slot:
        return None  # the reader's own slots are the name rules' own
    if not all(re.fullmatch(r"[^\W\d_]+", v) and v[0].isupper() for v in (f.dead, f.new)):
        return None
    if places.named(f.dead) and not _known_name(" ".join(fold(f.dead))):
        return None  # a place, unless a given name too ("Dolores")
    return f"Name is {f.dead}", f"Name is {f.new}"


def _script(ch: str) -> str:
    """The script of a letter by its Unicode name's first word ("LATIN", "CYRILLIC")."""
    return unicodedata.name(ch, "?").split()[0]


def _foreign_marks(value: str, function_words: frozenset[str]) -> set[str]:
    """Words of a value that mark another language: a letter of another script than Latin, a
    Latin letter with a diacritic in a value of several words, or a function word of another
    language."""
    out = set()
    words = re.findall(r"[^\W\d_]+", unicodedata.normalize("NFC", value))
    for w in words:
        low = w.lower()
        # a diacritic alone marks a phrase, not a name ("Nestlé")
        if any(_script(ch) != "LATIN" for ch in w) or not w.isascii() and len(words) > 1 or \
                " ".join(fold(low)) in function_words:
            out.add(low)
    return out


def translated_value(dead_text: str, new_text: str, function_words: frozenset[str]
                     ) -> str | None:
    """Why the new value of the dead text's frame may be the dead name in another language,
    or None (invariant 600): after "Favourite film is Life Is Beautiful", "Favourite film is
    La vita è bella" (an Italian function word, a diacritic), "Favourite book is Война и мир"
    (another script); after "Supports Benfica", "Supports as Águias". The dead value is a name
    (capitalised), and no place after from/in/near or in a place slot: those are the
    gazetteer's. Only ever holds a write."""
    f = framed(dead_text, new_text)
    if f is None or not _proper(_parts(f.dead)[0]):
        return None
    if places.named(_parts(f.dead)[0]) and (f.frame[-1] in _PLACE_END or
                                            read(dead_text).slot in places.PLACE_SLOTS):
        return None  # a place is the gazetteer's; "Supports Benfica" names a club
    if read(dead_text).negated != read(new_text).negated:
        return None
    langs = _languages()
    known = langs.get(" ".join(fold(f.new)))
    if known and not known & langs.get(" ".join(fold(f.dead)), frozenset()):
        return None  # another language the tables name: "한국어" is Korean
    marks = _foreign_marks(f.new, function_words) - _foreign_marks(f.dead, function_words)
    if marks:
        return f"{f.new!r} may be {f.dead!r} in another language ({sorted(marks)[0]!r})"
    return None


_CLIPPED = re.compile(r"(?<![\w&])[^\W_][\w]{1,7}(?![\w&])")


def clipped(dead_text: str, new_text: str) -> str | None:
    """Why a word written as an abbreviation (a digit, or a capital inside it: "F1", "FedEx")
    may be the dead text's words clipped and joined ("Formula 1", "Federal Express"), or
    None (invariant 600). Only ever holds a write."""
    dead = [w for w in fold(dead_text) if w not in _JOINING]
    own = set(dead)
    for m in _CLIPPED.finditer(unicodedata.normalize("NFKC", new_text)):
        w = m.group(0)
        if not (any(ch.isdigit() for ch in w) or any(ch.isupper() for ch in w[1:])) or \
                not any(ch.isalpha() for ch in w) or w.lower() in own:
            continue
        low = w.lower()
        for i in range(len(dead) - 1):
            if _joined(low, dead[i:]):
                return f"{w!r} is {' '.join(dead[i:i + 2])!r}... clipped and joined"
    return None


def _joined(token: str, words: list[str]) -> bool:
    """`token` is non-empty starts of two or more words in a row, joined ("fedex")."""
    def go(rest: str, i: int, used: int) -> bool:
        if not rest:
            return used >= 2
        if i >= len(words):
            return False
        return any(rest[:n] == words[i][:n] and go(rest[n:], i + 1, used + 1)
                   for n in range(min(len(words[i]), len(rest)), 0, -1))
    return go(token, 0, 0)


# "Is" in the languages of `aliases/function_words.jsonl`, and the articles after it.
_COPULA = frozenset("is es e est ist jest er ar".split())
_ARTICLES = frozenset("a an un una uno um uma ein eine une".split())
_AT_PLACE = re.compile(r"(?i)\b(?:from|in|near)\s+(?:the\s+)?(.+?)[.!]?$")


def _dead_place(dead_text: str) -> places.Place | None:
    """The place a dead text names: its reader place slot's value, or a value after "from",
    "in" or "near" that the gazetteer knows."""
    claim = read(dead_text)
    if claim.slot in places.PLACE_SLOTS and claim.raw_value:
        found = places.read_place(claim.raw_value)
        return found.places[0] if found and found.places else None
    m = _AT_PLACE.search(unicodedata.normalize("NFKC", dead_text))
    if claim.slot is None and m and _proper(_parts(m.group(1))[0]):
        named = places.named(_parts(m.group(1))[0])
        return named[0] if named else None
    return None


def _currency_country(word: str) -> str | None:
    """The country whose currency's ISO 4217 name starts with `word` ("Swiss Franc": CH; a
    national currency's code starts with its country's ISO 3166 code)."""
    found = _currencies().get(word, ())
    return found[0] if len(found) == 1 else None


@cache
def _currencies() -> dict[str, tuple[str, ...]]:
    """The first word of each ISO 4217 currency name (`pycountry`), folded -> the countries
    of the currencies it starts ("swiss" -> CH)."""
    out: dict[str, list[str]] = {}
    for cur in pycountry.currencies:
        first = " ".join(fold(cur.name.split()[0]))
        if pycountry.countries.get(alpha_2=cur.alpha_3[:2]) and first:
            out.setdefault(first, []).append(cur.alpha_3[:2])
    return {k: tuple(dict.fromkeys(v)) for k, v in out.items()}


def _place_stems(word: str) -> list[str]:
    """Gazetteer keys a word is made from: the key, less at most two final letters, then an
    ending ("paraguayan" from "paraguay", "peruvian" from "peru": a stem of five letters or
    a country's name), or its first five letters or more ("Trini" from "Trinidad")."""
    keys = set(_place_keys().get(word[:MIN_ROOT], ())) | set(_place_keys().get(word[:4], ()))
    out = []
    for k in sorted(keys):
        stem = k[:-2] if len(k) > MIN_ROOT else k
        if len(stem) <= MIN_ROOT and not any(p.id.startswith("country:") for p in
                                             places.gazetteer().named.get(k, ())):
            continue  # a short town's name is the start of too many words ("Port")
        if k != word and " " not in k and (word.startswith(stem) and len(word) > len(k) or
                                           len(word) >= MIN_ROOT and 2 * len(word) > len(k)
                                           and k.startswith(word)):
            out.append(k)
    return out


def demonym(dead_text: str, new_text: str) -> tuple[str, str] | None:
    """('held'|'apart', why) when the new text only says someone IS a word after a place's
    tombstone ("Is Bajan" after "Is from Barbados", "Es tico" after "Is from Costa Rica"),
    else None (invariant 600): the adjective of a currency's country ("Swiss") is that
    country's; a word that is a place name with another ending ("Paraguayan") is that
    place's; a language's name is left to the language rules; any other proper word, or a
    word of another language's "is", may name someone from the dead place. Only holds."""
    place = _dead_place(dead_text)
    words = [w.strip(_EDGE) for w in unicodedata.normalize("NFKC", new_text).split()]
    if place is None or len(words) not in (2, 3) or " ".join(fold(words[0])) not in _COPULA:
        return None
    if len(words) == 3 and " ".join(fold(words[1])) not in _ARTICLES:
        return None
    word, lw = words[-1], " ".join(fold(words[-1]))
    foreign = " ".join(fold(words[0])) != "is"
    if not lw.isalpha() or not (word[:1].isupper() or foreign):
        return None  # "Is a teacher": an English word of another slot
    country = _currency_country(lw)
    if country is not None:
        return ("held", f"{word!r} is the adjective of {place.name}") if country == \
            place.country else ("apart", f"{word!r} is of another country ({country})")
    if _languages().get(lw):
        return None
    derived = _place_stems(lw)
    if derived:
        same = any(p.id == place.id for k in derived for p in places.gazetteer().named.get(k, ()))
        return ("held", f"{word!r} is {place.name} with another ending") if same else \
            ("apart", f"{word!r} names someone from another place ({derived[0]})")
    return "held", f"{word!r} may name someone from {place.name}"


def date_by_name(dead_text: str, new_text: str) -> str | None:
    """Why a value of the dead date's slot that reads as no date may be that date by its name,
    or None (invariant 600): after "Birthday is 25 December", "Birthday is on Christmas Day";
    another date ("24 December") is another value. Only ever holds a write."""
    dead, new = read(dead_text), read(new_text)
    if not dead.slot or dead.slot != new.slot or dead.negated != new.negated or \
            not dead.raw_value or not new.raw_value:
        return None
    if all(v.startswith("date:") for v in dead.raw_value) and not any(
            v.startswith("date:") or any(ch.isdigit() for ch in v) for v in new.raw_value):
        return f"{' '.join(new.raw_value)!r} reads as no date, and may name {dead.raw_value[0][5:]}"
    return None


def epithet(dead_text: str, new_text: str) -> str | None:
    """Why a description with a lowercase "the" in the dead name's frame may be a byname of
    it, or None (invariant 600): "Favourite singer is the Boss" after "... is Bruce
    Springsteen", "Supports the Giallorossi" after "Supports AS Roma". Only ever holds."""
    f = framed(dead_text, new_text)
    if f is None or f.frame[-1] == "the" or set(fold(f.new)) & set(fold(f.dead)):
        return None  # "the Newcastle Jets" after "Newcastle United": a longer name's rules'
    raw_new = unicodedata.normalize("NFKC", new_text)
    if not re.search(r"(?<!\S)the\s+" + re.escape(f.new) + r"\W*$", raw_new) or \
            f.new.split()[0].isupper():
        return None  # no lowercase "the" before the value, or an acronym ("the BBC")
    if not _proper(_parts(f.dead)[0]) or places.named(_parts(f.dead)[0]) or \
            re.match(r"(?i)the\b", f.dead):
        return None
    return f"'the {f.new}' may be a byname of {f.dead!r}"
