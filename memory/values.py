"""Does this text restate a tombstoned value? A three-way decision (invariants 7, 60-62).

A fact is read as a canonical CLAIM (`read`): the SLOT it fills ("lives in", "based in",
"resides in", "home is" -> residence; "works at/for", "employed by" -> employer; "allergic to",
"X allergy" -> allergy; "has N X" -> has; "owns/has a dog called Rex", "Rex is my dog" ->
named:dog; "Tom is my husband" -> spouse; ...), the VALUE filling it, and its polarity
("not", "never", "doesn't", "a non-smoker") and whether it says the state ended ("no longer",
"used to", "sold"). Values are canonical: Unicode folded (memory/text.py: NFKC, accents,
look-alike letters), numbers as numbers ("three", "03", "3rd", "thirty-four", "nineteen
ninety"), common abbreviations and spellings ("St", "km", "colour"), corporate suffixes dropped
in organisation slots (Corp, Inc, Ltd, GmbH), a few Latin-script city exonyms ("München" ->
munich), emoji read by their Unicode names, and stems.

`assess` compares a new text with candidate tombstones and returns a `Verdict`:
- REFUSE: a confident restatement (same slot and same value; the same canonical words without
  a slot) -- the writer refuses it, naming the tombstone.
- REVIEW: a doubtful one (same slot and a similar value: one contains the other, a typo, an
  initialism, a name in another script, an emoji for a word, the same words in another form
  -- "smoker"/"smoke", "guitarist"/"guitar"; a related slot with the same value; a generic
  "is a X" reading restating another slot's value -- "Is a coffee drinker" after "Prefers
  coffee"; a negation restating a state that is itself a negation -- "Does not eat meat"
  after "Is vegetarian"; no slot and one text's word roots inside the other's, or embedding
  cosine >= the threshold). The writer stores a candidate flagged
  `possibly_restates:<tombstone id>` for a person (or a judge, see `assess(judge=...)`).
  Word roots and other scripts only ever lead here, never to a refusal.
- ACCEPT: a different value ("Grew up in Bristol" is another slot; "Has 3 grandchildren" another
  value; "Not allergic to peanuts" the opposite polarity, i.e. the correction itself; "Is not
  vegetarian" too).

Everything here is pure. The store finds the candidates through `index_entry` (a canonical key
and slot terms -- with the Latin reading of a name in another script -- stored beside each
tombstone) plus the nearest tombstones by vector (the only way to a cross-slot or no-slot
paraphrase).
"""

from __future__ import annotations

import difflib
import json
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import lru_cache

from pydantic import BaseModel, ConfigDict

from . import places
from .models import Tombstone
from .places import PLACE_SLOTS
from .slots import kind_of
from .text import STOP_WORDS, fold, normalise, split_cjk, stem

KEY_VERSION = "7"  # bump when canonical keys change: stores recompute theirs on open
POSSIBLY_RESTATES = "possibly_restates"  # flag prefix: possibly_restates:<tombstone id>

# Words that hedge or say who holds a value, not what it is.
FILLER = STOP_WORDS | frozenset(["user", "users", "person", "confirmed", "really", "actually",
                                 "definitely", "also", "still", "currently", "now", "today",
                                 "said", "says", "told", "every", "always", "usually",
                                 "typically", "normally", "generally", "she", "he", "her", "his"])


class Decision(StrEnum):
    REFUSE = "refuse"
    REVIEW = "review"
    ACCEPT = "accept"


class Verdict(BaseModel):
    """What the write path does with a text, and why (the tombstone it concerns, if any)."""

    model_config = ConfigDict(frozen=True)
    decision: Decision
    tombstone: Tombstone | None = None
    reason: str
    similarity: float | None = None
    judged_by: str = "rules"

    def flags(self) -> list[str]:
        """Flags a candidate carries for this verdict (review/queue.py shows them)."""
        if self.tombstone is None or self.decision == Decision.ACCEPT:
            return []
        out = ["previously_rejected"]
        if self.decision == Decision.REVIEW:
            out.append(f"{POSSIBLY_RESTATES}:{self.tombstone.id}")
        return out


# --- canonical tokens ------------------------------------------------------------------------
_UNITS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
          "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
          "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
          "nineteen": 19}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
             "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12,
             "thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "sixteenth": 16,
             "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20,
             "thirtieth": 30}
_MONTHS = {m: i + 1 for i, m in enumerate(["january", "february", "march", "april", "may", "june",
                                             "july", "august", "september", "october", "november",
                                             "december"])}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())} | {"sept": 9})
# Spellings and abbreviations read as one word (after folding, before stemming).
_SAME = {"colour": "color", "favourite": "favorite", "favour": "favor", "centre": "center",
         "theatre": "theater", "metre": "meter", "metres": "meters", "kilometre": "kilometer",
         "kilometres": "kilometers", "km": "kilometers", "kms": "kilometers", "kg": "kilograms",
         "grey": "gray", "mum": "mom", "mummy": "mom", "organisation": "organization",
         "rd": "road", "ave": "avenue", "av": "avenue", "ln": "lane", "mt": "mount",
         "kids": "children", "kid": "child", "grandkids": "grandchildren",
         "grandkid": "grandchild", "email": "email", "bday": "birthday",
         "fav": "favorite", "fave": "favorite", "&": "and"}
# City exonyms and common place abbreviations, in Latin script: the English name is the
# canonical one. A name in another script is transliterated and, found here or spelled
# nearly the same, held for review (`_cross_script`), never refused.
_PLACES = {"munchen": "munich", "koln": "cologne", "wien": "vienna", "praha": "prague",
           "warszawa": "warsaw", "cracow": "krakow", "moskva": "moscow", "moskve": "moscow",
           "lisboa": "lisbon", "roma": "rome", "firenze": "florence",
           "venezia": "venice", "milano": "milan", "napoli": "naples", "torino": "turin",
           "geneve": "geneva", "genf": "geneva", "zuerich": "zurich", "bruxelles": "brussels",
           "brussel": "brussels", "antwerpen": "antwerp", "kobenhavn": "copenhagen",
           "goteborg": "gothenburg", "athina": "athens", "athinai": "athens",
           "bucuresti": "bucharest", "sankt": "saint", "sofiya": "sofia", "kiyev": "kyiv",
           "kiev": "kyiv", "beograd": "belgrade", "peking": "beijing", "bombay": "mumbai",
           "calcutta": "kolkata", "madras": "chennai", "nyc": "new york city",
           "uk": "united kingdom", "gb": "united kingdom", "usa": "united states",
           "u.s.a": "united states", "capetown": "cape town"}
_PLACE_NAMES = frozenset(_PLACES.values())
# Short words inside place names ("Frankfurt an der Oder", "Stratford upon Avon").
_PLACE_PARTICLES = frozenset("an am der die den de la le les of on upon sur del di da do dos das "
                             "los las el y en im i the".split())
# A comma part naming the country or region of the place before it adds nothing.
_COUNTRIES = frozenset(["united kingdom", "england", "scotland", "wales", "britain",
                        "great britain", "united states", "america", "germany", "france",
                        "spain", "italy", "portugal", "ireland", "netherlands", "canada",
                        "australia", "switzerland", "austria", "poland", "russia", "greece",
                        "japan", "china", "egypt", "brazil", "india"])
# Nouns that make a name into another place: "Bristol Road" is not Bristol.
_PLACE_TYPES = frozenset(["road", "street", "avenue", "lane", "close", "drive", "way", "square",
                          "park", "station", "airport", "university", "hospital", "school",
                          "college", "hotel", "bridge", "hill", "gate", "place", "crescent",
                          "terrace", "court", "grove", "row", "gardens", "mews", "walk",
                          "county", "state", "district", "port", "harbour", "bay"])
_CORPORATE = frozenset(["corp", "corporation", "inc", "incorporated", "ltd", "limited", "llc",
                        "plc", "gmbh", "ag", "sa", "co", "company", "bv", "nv", "srl", "spa",
                        "oy", "ab", "pty", "lp", "llp", "kg", "se", "sarl", "sas", "pvt"])
_INTENSITY = frozenset(["severe", "mild", "serious", "bad", "slight", "strong", "terrible",
                        "major", "minor", "life", "threatening", "deadly", "known"])
_EMOJI_NOISE = frozenset(["face", "sign", "symbol", "with", "of", "black", "white", "medium",
                          "heavy", "large", "small", "emoji"])
_TRANSLIT = str.maketrans({
    "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "e", "ж": "zh", "з": "z",
    "и": "i", "й": "y", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p", "р": "r",
    "с": "s", "т": "t", "у": "u", "ф": "f", "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh",
    "щ": "shch", "ъ": "", "ы": "y", "ь": "", "э": "e", "ю": "yu", "я": "ya",
    "α": "a", "β": "v", "γ": "g", "δ": "d", "ε": "e", "ζ": "z", "η": "i", "θ": "th", "ι": "i",
    "κ": "k", "λ": "l", "μ": "m", "ν": "n", "ξ": "x", "ο": "o", "π": "p", "ρ": "r", "σ": "s",
    "ς": "s", "τ": "t", "υ": "y", "φ": "f", "χ": "ch", "ψ": "ps", "ω": "o"})


def _is_emoji(ch: str) -> bool:
    cp = ord(ch)
    return (0x1F000 <= cp <= 0x1FAFF or 0x2600 <= cp <= 0x27BF or 0x2B00 <= cp <= 0x2BFF
            or cp in (0x2764, 0x2B50, 0x2615))


def _emoji_words(ch: str) -> str:
    try:
        name = unicodedata.name(ch).lower()
    except ValueError:
        return ""
    words = [w for w in re.split(r"[\s-]+", name) if w]
    kept = [w for w in words if w not in _EMOJI_NOISE]
    return " ".join(kept or words)


def _with_emoji_names(text: str) -> tuple[str, bool]:
    """Emoji replaced by their names ("🥜" -> "peanuts"); whether there were any."""
    found = False
    out = []
    for ch in text:
        if _is_emoji(ch):
            found = True
            out.append(f" {_emoji_words(ch)} ")
        elif ch in "\ufe0f\u200d" or 0x1F3FB <= ord(ch) <= 0x1F3FF:
            continue  # variation selectors, joiners and skin tones
        else:
            out.append(ch)
    return "".join(out), found


def _tens_value(tokens: list[str], i: int) -> tuple[int, int] | None:
    """'forty' or 'forty two' at tokens[i]: (value, tokens used)."""
    if i >= len(tokens) or tokens[i] not in _TENS:
        return None
    if i + 1 < len(tokens) and tokens[i + 1] in _UNITS and 0 < _UNITS[tokens[i + 1]] < 10:
        return _TENS[tokens[i]] + _UNITS[tokens[i + 1]], 2
    return _TENS[tokens[i]], 1


def _numbers(tokens: list[str]) -> list[str]:
    """Number words, ordinals and zero-padded numbers as digits ("forty two" -> 42); a year
    said as two numbers ("nineteen ninety", "twenty twenty one") -> 1990, 2021."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        m = re.fullmatch(r"0*(\d+)(?:st|nd|rd|th)?", t)
        # Only eighteen, nineteen, twenty: "eleven thirty" is a time, not the year 1130.
        century = {"eighteen": 18, "nineteen": 19, "twenty": 20}.get(t, 0)
        year = _tens_value(tokens, i + 1) if century else None
        if m:
            out.append(m.group(1))
        elif year is not None:
            out.append(str(century * 100 + year[0]))
            i += year[1]
        elif (tens := _tens_value(tokens, i)) is not None:
            out.append(str(tens[0]))
            i += tens[1] - 1
        elif t in _UNITS:
            out.append(str(_UNITS[t]))
        elif t in _ORDINALS:
            out.append(str(_ORDINALS[t]))
        else:
            out.append(t)
        i += 1
    return out


def _dates(tokens: list[str]) -> list[str]:
    """A day and a month, in either order ("3 march", "march 3", "3 of march") -> date:3-3."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        nxt2 = tokens[i + 2] if i + 2 < len(tokens) else ""
        if t.isdigit() and 1 <= int(t) <= 31 and nxt in _MONTHS:
            out.append(f"date:{_MONTHS[nxt]}-{int(t)}")
            i += 2
        elif t.isdigit() and 1 <= int(t) <= 31 and nxt == "of" and nxt2 in _MONTHS:
            out.append(f"date:{_MONTHS[nxt2]}-{int(t)}")
            i += 3
        elif t in _MONTHS and nxt.isdigit() and 1 <= int(nxt) <= 31 and len(t) > 2:
            out.append(f"date:{_MONTHS[t]}-{int(nxt)}")
            i += 2
        else:
            out.append(t)
            i += 1
    return out


def _initialisms(tokens: list[str]) -> list[str]:
    """Runs of single letters are one word: "j p morgan" -> "jp morgan", "s a" -> "sa"."""
    out: list[str] = []
    run: list[str] = []
    for t in [*tokens, ""]:
        if len(t) == 1 and t.isalpha() and t.isascii():
            run.append(t)
            continue
        if len(run) >= 2:
            out.append("".join(run))
        else:
            out += run
        run = []
        if t:
            out.append(t)
    return out


def _expand(tokens: list[str]) -> list[str]:
    out: list[str] = []
    for i, t in enumerate(tokens):
        if t == "st":  # "St Ives" is a saint, "Elm St" a street
            out.append("saint" if i + 1 < len(tokens) and tokens[i + 1] not in ("|",) else "street")
            continue
        t = _SAME.get(t, t)
        t = _PLACES.get(t, t)
        out += t.split()
    return out


_NUMDATE = re.compile(r"\b(\d{1,2})[/.](\d{1,2})(?:[/.](\d{2,4}))?\b")


def _surface(text: str) -> str:
    """Canonical, unstemmed token string of a text; `|` marks comma/semicolon boundaries."""
    t = unicodedata.normalize("NFKC", text).replace("’", "'")
    t = re.sub(r"(?i)\be-mail", "email", t)
    t = re.sub(r"(?i)\bcan\s*not\b", "can't", t)
    t = _NUMDATE.sub(lambda m: f" {int(m.group(1))} {list(_MONTHS)[int(m.group(2)) - 1]} "
                     if 1 <= int(m.group(2)) <= 12 else m.group(0), t)
    t = t.replace("&", " and ")
    segments = [fold(s) for s in re.split(r"\s*[,;]\s*", t)]
    tokens: list[str] = []
    for seg in segments:
        if seg:
            if tokens:
                tokens.append("|")
            tokens += _dates(_numbers(_expand(_initialisms(list(seg)))))
    out = " ".join(tokens)
    out = re.sub(r"\b(?:version|ver|model|mark|mk) (\d+)\b", r"v\1", out)
    return re.sub(r"^(?:is |am |was )?(?:an? )?(?:proud )?((?:great )*)(grand)?(?:mother|father|"
                  r"parent|mom|dad|grandma|grandpa|granny|grandad) of (\d+)\b",
                  lambda m: f"has {m.group(3)} {m.group(1)}{m.group(2) or ''}children", out)


# --- slots -----------------------------------------------------------------------------------
_WHO = r"(?:(?:i|she|he|they|we|user|the user|customer|the customer|my|her|his|their|our) )?"
_AUX = r"(?:(?:does|do|did|will|would|can|could|has|have|had|is|am|are|was) )?"
PRE = "^" + _WHO + _AUX


# Who, in the languages the foreign patterns read (folded: "ona", "sie", "ela", "lei", "zij").
_FWHO = r"(?:(?:ela|ele|eu|ona|on|ja|sie|er|ich|lei|lui|io|zij|hij|ik|hon|han|jag|ella|el|yo) )?"


def _p(pattern: str) -> re.Pattern:
    return re.compile(pattern.replace("{PRE}", PRE).replace("^{WHO}", "^" + _WHO)
                      .replace("{FWHO}", _FWHO))


# (slot, pattern) in order; a pattern's `v` group is the value. Slot names ending in ":" take
# the `k` group as their qualifier ("named:" + "sister").
_BEFORE_NEGATION: list[tuple[str, re.Pattern]] = [
    ("cannot_eat", _p(r"{PRE}(?:can t|must not|mustn t|should not|shouldn t) (?:eat|have|drink|consume|touch) (?P<v>.+)$")),
    ("dislikes", _p(r"{PRE}(?:dislikes?|hates?|detests?|loathes?|can t stand|cannot stand|despises?) (?P<v>.+)$")),
]
# Then the slots, in this order, each with its patterns in order (`_p` fills in {PRE}).
_SLOT_PATTERNS: dict[str, list[str]] = {
    "near": [r"{PRE}(?:currently )?(?:lives?|living|is living|based|is based|resides?|stays?) (?:near|close to|outside|just outside|around|by|next to) (?P<v>.+)$"],
    "residence": [
        r"{PRE}(?:currently )?(?:lives?|living|is living|resides?|residing|dwells?|dwelling|based|is based|located|is located|stays?|staying|makes? (?:her|his|their|my) home) (?:in|at|on) (?P<v>.+)$",
        r"{PRE}(?:home|home address|address|residence) is (?:in |at |on )?(?P<v>.+)$",
        r"^(?P<v>.+?) is where (?:i|she|he|they|we|the user|user) (?:lives?|live|resides?|is based|stays?)$",
        r"^(?P<v>.+?) is (?:her|his|my|their) home$",
        r"^(?:живет|живу|живут|живешь|проживает|проживаю) (?:в|во|на) (?P<v>.+)$",
        r"^(?:wohnt|wohne|lebt|lebe) in (?P<v>.+)$",
        r"^(?:habite|habites|vit|vis) (?:a|en|au) (?P<v>.+)$",
        r"^(?:vive|vivo|reside) en (?P<v>.+)$",
        # issue 30 (invariant 600): the same sentence in Portuguese, Polish, Italian, Dutch,
        # the Scandinavian languages and Czech; a name with a case ending is the gazetteer's
        r"^{FWHO}(?:mora|moro|moram|vive|vivo|vivem|reside|resido) (?:em|no|na|nos|nas) (?P<v>.+)$",
        r"^{FWHO}(?:mieszka|mieszkam|mieszkaja|zyje|zyja) (?:w|we|na) (?P<v>.+)$",
        r"^{FWHO}(?:vive|vivo|abita|abito|risiede) (?:a|ad|in) (?P<v>.+)$",
        r"^{FWHO}(?:woont|woon|wonen) in (?P<v>.+)$",
        r"^{FWHO}(?:bor|bo) i (?P<v>.+)$",
        r"^{FWHO}(?:bydli|bydlim|zije) (?:v|ve) (?P<v>.+)$",
        r"^(?:ζει|ζω|μενει|μενω) (?:στην|στη|στο|στον|σε) (?P<v>.+)$",
        r"^(?:يعيش|تعيش|اعيش|يسكن|تسكن|اسكن) في (?P<v>.+)$",
        r"^(?:我|她|他|他们|她们|我们)?(?:住在|居住在|住于|生活在)(?P<v>.+)$",
        r"^(?P<v>.+?)に(?:住んで|住む|在住|暮らして)",
    ],
    "hometown": [
        r"{PRE}(?:grew up|was raised|raised|grows up|was brought up) (?:in|on|at) (?P<v>.+)$",
        r"{PRE}(?:hometown|home town) is (?:in )?(?P<v>.+)$",
    ],
    "birth_year": [
        r"{PRE}(?:was )?born in (?P<v>\d+)$",
        r"{PRE}(?:was )?born in (?P<v>'?\d\d)$",
    ],
    "birthday": [
        r"{PRE}(?:was )?born on (?P<v>.+)$",
        r"{PRE}(?:birthday|birth date|date of birth) (?:is )?(?:on )?(?P<v>.+)$",
    ],
    "birthplace": [r"{PRE}(?:was )?born (?:in|at) (?P<v>.+)$"],
    "anniversary": [r"{PRE}(?:wedding )?anniversary (?:is )?(?:on )?(?P<v>.+)$"],
    "moved_to": [r"{PRE}(?:moved|has moved|relocated|is moving|moving|will move) to (?P<v>.+)$"],
    "works_in": [r"{PRE}(?:works?|working|is working) in (?P<v>.+)$"],
    "employer": [
        r"{PRE}(?:works?|working|is working|is employed|employed) (?:at|for|with) (?P<v>.+)$",
        r"{PRE}(?:is )?employed by (?P<v>.+)$",
        r"{PRE}(?:employer|company|workplace) is (?P<v>.+)$",
        r"^(?:работает|работаю|работал) (?:в|во|на) (?P<v>.+)$",
        r"^(?:arbeitet|arbeite) (?:bei|fur) (?P<v>.+)$",
        r"^{FWHO}(?:trabalha|trabalho) (?:na|no|em|para) (?P<v>.+)$",
        r"^{FWHO}pracuje (?:w|we|dla) (?P<v>.+)$",
        r"^{FWHO}(?:lavora|lavoro) (?:per|presso) (?P<v>.+)$",
        r"^{FWHO}(?:werkt|werk) (?:bij|voor) (?P<v>.+)$",
        r"^(?:travaille|travailles) (?:chez|pour|a) (?P<v>.+)$",
        r"^(?:trabaja|trabajo) (?:en|para) (?P<v>.+)$",
        r"^(?:يعمل|تعمل|اعمل) (?:في|لدى) (?P<v>.+)$",
        r"^(?:δουλευει|δουλευω|εργαζεται) (?:στην|στη|στο|σε) (?P<v>.+)$",
        r"^(?:我|她|他)?在(?P<v>.+?)(?:工作|上班)$",
    ],
    "joined": [r"{PRE}(?:started|began|joined|started working) (?:at |with |working at |working for )?(?P<v>.+)$"],
    "school": [r"{PRE}(?:studies|studying|is studying|is a student|student|goes to school) (?:at|in) (?P<v>.+)$"],
    "bank": [r"{PRE}banks? with (?P<v>.+)$"],
    "of:": [r"{PRE}(?:an? |the )?(?P<k>customer|client|member|fan|user|patient|guest|subscriber|shareholder|friend|student) (?:of|at) (?P<v>.+)$"],
    "role_at": [r"^{WHO}(?:is|am|are|was) (?:the |an? )(?P<k>[a-z ]+?) (?:of|at) (?P<v>.+)$"],
    "allergy": [
        r"{PRE}(?:been )?allergic to (?P<v>.+)$",
        r"{PRE}(?:an? )?(?:allergy|allergies) to (?P<v>.+)$",
        r"{PRE}(?:an? )?(?P<v>.+?) (?:allergy|allergies)$",
        r"^(?:у (?:меня|нее|него|нeе) )?аллергия на (?P<v>.+)$",
        r"^(?:ist )?allergisch (?:gegen|auf) (?P<v>.+)$",
        r"^(?:est )?allergique (?:a|aux|au) (?P<v>.+)$",
        r"^{FWHO}(?:e|sou|esta|é) alergic[oa] (?:a|ao|aos|as|à|às) (?P<v>.+)$",
        r"^{FWHO}tem alergia (?:a|ao|aos|as|de) (?P<v>.+)$",
        r"^{FWHO}(?:ma|mam) alergi[ea] na (?P<v>.+)$",
        r"^{FWHO}(?:jest|jestem) uczulon[ya] na (?P<v>.+)$",
        r"^{FWHO}(?:e|sono) allergic[oa] (?:a|al|alla|alle|ai|agli) (?P<v>.+)$",
        r"^{FWHO}(?:is|ben) allergisch voor (?P<v>.+)$",
        r"^{FWHO}(?:hat|habe) (?:eine )?(?P<v>\w+?)allergie$",
    ],
    "intolerance": [
        r"{PRE}(?P<v>.+?) intolerant$",
        r"{PRE}(?:an? )?(?P<v>.+?) intolerance$",
    ],
    "diet": [r"{PRE}(?:eats |follows |on |keeps )?(?:an? )?(?P<v>vegetarian|vegan|pescatarian|pescetarian|kosher|halal|gluten free|keto|paleo|flexitarian)(?: diet)?$"],
    "status": [r"{PRE}(?P<v>single|married|divorced|widowed|retired|unemployed|pregnant)$"],
    "spouse": [
        r"{PRE}married to (?P<v>.+)$",
        r"{PRE}(?:husband|wife|spouse) is (?P<v>.+)$",
        r"{PRE}(?:an? )?(?:husband|wife|spouse) (?:named|called) (?P<v>.+)$",
    ],
    "partner": [
        r"{PRE}(?:partner|boyfriend|girlfriend) is (?P<v>.+)$",
        r"{PRE}dating (?P<v>.+)$",
    ],
    "fiance": [r"{PRE}engaged to (?P<v>.+)$"],
    "ex_spouse": [r"{PRE}divorced from (?P<v>.+)$"],
    "manager": [r"{PRE}(?:manager|boss|line manager|supervisor) is (?P<v>.+)$"],
    "reports_to": [r"{PRE}reports? to (?P<v>.+)$"],
    "favorite:": [r"{PRE}favorite (?P<k>[a-z ]+?) is (?P<v>.+)$"],
    "named:": [
        r"{PRE}(?:(?:owns?|got|has got|have got|keeps?|possess(?:es)?) )?(?:an? |one |1 )?(?P<k>[^\d|]+?) (?:named|called) (?P<v>.+)$",
        r"{PRE}(?P<k>sister|brother|son|daughter|mother|father|mom|dad|dog|cat|pet|best friend|cousin|aunt|uncle|niece|nephew|grandmother|grandfather|child)(?: s name)? is (?:called |named )?(?P<v>.+)$",
        r"^(?P<v>[^\s|]+) is (?:her|his|my|their|our) (?P<k>[a-z ]+)$",
    ],
    "age": [r"{PRE}(?:aged |age is |age of |age |turned |turns |turning )?(?P<v>\d+)(?: years? old| yrs? old| years of age)?$"],
    "job": [
        r"{PRE}(?:works|working) as (?:an? |the )?(?P<v>.+)$",
        r"^{FWHO}(?:arbeitet|arbeite|trabalha|trabalho|pracuje|lavora|lavoro|werkt|werk|"
        r"trabaja|trabajo|travaille) (?:als|como|jako|come|comme) (?:eine?r? |um |uma |un |una |une )?(?P<v>.+)$",
        r"{PRE}(?:job|occupation|profession) is (?:an? )?(?P<v>.+)$",
        r"^{WHO}(?:is|am|are|was) (?:an? )(?P<v>.+)$",
    ],
    "learning": [r"{PRE}(?:learning|learns?|is learning|studying|studies) (?P<v>.+)$"],
    "likes": [r"{PRE}(?:prefers?|likes?|loves?|enjoys?|adores?|is fond of|fond of|into|favors?|is a fan of|a fan of) (?P<v>.+)$"],
    "has": [r"{PRE}(?:owns?|has|have|uses?|using|possess(?:es)?|got|has got) (?P<v>.+)$"],
    "drives": [r"{PRE}(?:drives?|driving|is driving|rides?|riding|is riding) (?P<v>.+)$"],
    "bought": [r"{PRE}(?:bought|purchased|just bought|has bought) (?P<v>.+)$"],
    "wants": [r"{PRE}(?:wants?|would like|wishes for|is saving for|plans to buy) (?P<v>.+)$"],
}
_SLOTS: list[tuple[str, re.Pattern]] = [
    (slot, _p(pattern)) for slot, patterns in _SLOT_PATTERNS.items() for pattern in patterns]
# Slots whose values mean nearly the same claim: a restated value there is doubtful.
_RELATED = {frozenset(p) for p in [("residence", "moved_to"), ("employer", "role_at"),
                                    ("employer", "joined"), ("has", "drives"), ("has", "bought"),
                                    ("allergy", "cannot_eat"), ("allergy", "intolerance"),
                                    ("spouse", "partner"), ("manager", "reports_to"),
                                    ("likes", "favorite:")]}
# "X is my husband", "Anna is his wife", "Acme is her employer" (the `named:` reading of a role
# word) fill the role's own slot.
_ROLE_SLOTS = {f"named:{' '.join(stem(w) for w in role.split())}": slot for slot, roles in [
    ("spouse", ["husband", "wife", "spouse", "hubby"]),
    ("partner", ["partner", "boyfriend", "girlfriend"]),
    ("fiance", ["fiance", "fiancee"]),
    ("employer", ["employer", "workplace"]),  # "her company" may be one she owns
    ("manager", ["manager", "boss", "line manager", "supervisor"]),
    ("hometown", ["hometown", "home town"]),
] for role in roles}
# Readings of a generic frame ("is a coffee drinker" -> job, "is the father of ..." -> role_at)
# rather than of a predicate: another slot's value restated in one is doubtful, not different.
_LOOSE_SLOTS = frozenset(["job", "role_at"])
# States that are themselves a negation, and the stems of what each excludes: "does not eat
# meat" restates "is vegetarian" (review), "eats meat" contradicts it (accept).
_EXCLUDES = {stem(word): frozenset(stem(x) for x in excluded.split()) for word, excluded in [
    ("vegetarian", "meat"), ("pescatarian", "meat"), ("pescetarian", "meat"),
    ("vegan", "meat animal animals dairy eggs milk cheese honey"),
    ("teetotal", "alcohol booze"), ("teetotaller", "alcohol booze"),
    ("teetotaler", "alcohol booze"), ("abstinent", "alcohol"),
]}
_ORG_SLOTS = frozenset(["employer", "role_at", "joined", "bank", "school", "of:"])
_ENDED = re.compile(r"\b(?:no longer|not anymore|any more|anymore|used to|formerly|former|ex|"
                    r"outgrew|outgrown|has outgrown|sold|quit|stopped|gave up|has given up|left)\b")
_NEGATION = re.compile(r"\b(?:not|never|no|cannot|nothing|none|nobody|neither|nor|"
                       r"не|нет|nicht|kein|keine|ne|pas|δεν|لا|ليس|nao|nie|niet|inte|ikke)\b"
                       r"|^(?:不|没有|没)")
_CONTRACTION = re.compile(r"\b(does|do|did|is|are|was|were|has|have|had|ca|can|could|would|"
                          r"should|wo|must|need)n t\b")


@dataclass(frozen=True)
class Claim:
    """A fact text read canonically."""

    slot: str | None
    value: tuple[frozenset[str], ...]  # comma/"and" parts, each a set of stemmed tokens
    raw_value: tuple[str, ...]  # the same parts unstemmed (typos, initialisms, transliteration)
    terms: frozenset[str]  # every stemmed content token of the text (the no-slot comparison)
    negated: bool
    ended: bool
    emoji: bool  # the value was read from emoji names


# Portuguese "no"/"nos" after a verb of place is "em" + the article ("Mora no Brasil": lives
# in Brazil), not a negation.
_PT_IN = re.compile(r"\b(mora|moro|moram|vive|vivo|vivem|reside|resido|trabalha|trabalho|"
                    r"trabalham|nasceu|nasci|estuda|estudo) (?:no|nos)\b")


def _polarity(s: str) -> tuple[str, bool, bool]:
    s = _PT_IN.sub(r"\1 em", s)
    ended = bool(_ENDED.search(s))
    s = _ENDED.sub(" ", s)
    s = re.sub(r"\b(has|have|had) no\b", r"\1 0", s)  # "has no children" is a count
    s = re.sub(r"\bnon (?=\w+(?:ers?|ists?)\b)", "not ", s)  # "a non-smoker" is "not a smoker"
    s, n = _CONTRACTION.subn(lambda m: {"ca": "can", "wo": "will"}.get(m.group(1), m.group(1)), s)
    negated = n % 2 == 1
    found = _NEGATION.findall(s)
    negated ^= len(found) % 2 == 1
    s = _NEGATION.sub(" ", s)
    return re.sub(r"\s+", " ", s).strip(), negated, ended


def _parts(value: str, slot: str | None) -> tuple[tuple[frozenset[str], ...], tuple[str, ...]]:
    chunks = [c.strip() for c in re.split(r"\s*\|\s*|\s+and\s+|\s+or\s+", value) if c.strip()]
    if slot == "likes" and chunks:
        head, *_ = re.split(r"\s+(?:over|to|rather than|instead of|than)\s+", chunks[0])
        if head != chunks[0]:
            chunks = [head, chunks[0][len(head):]] + chunks[1:]
    parts, raws = [], []
    for chunk in chunks:
        toks = [t for t in chunk.split() if t not in FILLER]
        if slot in _ORG_SLOTS:
            toks = [t for t in toks if t not in _CORPORATE] or toks
        if slot == "allergy":
            toks = [t for t in toks if t not in _INTENSITY] or toks
        if slot == "likes":
            toks = [t for t in re.sub(r"^(?:to be )?(?:contacted|reached|contact|communication)"
                                      r"(?: (?:by|via|through|over))? ", "", " ".join(toks)).split()]
        stems = frozenset(s for t in toks for p in split_cjk(t) for s in [_stem_value(p)] if s)
        if stems:
            parts.append(stems)
            # a place keeps the particles of its name ("Frankfurt an der Oder")
            raws.append(" ".join(t for t in chunk.split() if t not in FILLER or t in
                                 _PLACE_PARTICLES) if slot in PLACE_SLOTS else " ".join(toks))
    return tuple(parts), tuple(raws)


def _stem_value(token: str) -> str:
    return token if token.startswith("date:") or token.isdigit() else stem(token)


def _read_surface(s: str, emoji: bool) -> Claim:
    slot, value, negated, ended = None, "", False, False
    for name, pattern in _BEFORE_NEGATION:
        m = pattern.search(s)
        if m:
            slot, value = name, m.group("v")
            if name == "dislikes":  # "hates X" is the opposite polarity of "likes X"
                slot, negated = "likes", True
            break
    body, neg2, ended = _polarity(s)
    if slot is not None:  # the slot phrase carries its own negation ("can't stand", "cannot eat")
        value, neg2, _ = _polarity(value)
    if slot is None:
        negated = neg2
        for name, pattern in _SLOTS:
            m = pattern.search(body)
            if m:
                slot, value = name, m.group("v")
                if name.endswith(":"):
                    slot = name + " ".join(stem(w) for w in m.group("k").split())
                    slot = _ROLE_SLOTS.get(slot, slot)
                break
    else:
        negated ^= neg2
        body = value
    parts, raws = _parts(value, slot) if slot else ((), ())
    if slot == "has" and parts:
        # A count is part of the value: "has 3 children" / "has a sister" (one) / "has no X".
        first = raws[0].split()
        count = first[0] if first and first[0].isdigit() else "1"
        rest = frozenset(parts[0] - {count}) if first and first[0].isdigit() else parts[0]
        if negated and count == "1":  # "doesn't have children" is a count of 0
            count, negated = "0", False
        parts = (rest | {f"n={count}"}, *parts[1:])
    if slot and not parts:
        slot = None
    terms = frozenset(_stem_value(p) for t in body.split() if t != "|" and t not in FILLER
                      for p in split_cjk(t))
    return Claim(slot=slot, value=parts, raw_value=raws, terms=terms, negated=negated,
                 ended=ended, emoji=emoji and slot is not None)


_KNOWN: dict[str, Claim] = {}  # claims a store read back with its tombstones (`remember`)


def read(text: str) -> Claim:
    """The canonical claim of a fact text. Emoji count only where no words fill the slot:
    "Lives in Bristol 🏠" is Bristol, "Allergic to 🥜" is peanuts."""
    known = _KNOWN.get(text)
    return known if known is not None else _read(text)


def claim_json(text: str) -> str:
    """A claim as stored beside its tombstone, so matching never re-reads stored texts."""
    c = read(text)
    return json.dumps({"s": c.slot, "v": [sorted(p) for p in c.value], "r": list(c.raw_value),
                       "t": sorted(c.terms), "n": c.negated, "e": c.ended, "m": c.emoji},
                      ensure_ascii=False, separators=(",", ":"))


def remember(text: str, stored: str) -> None:
    """Take a stored claim (written by `claim_json` under this KEY_VERSION) for `text`."""
    if len(_KNOWN) > 100_000:
        _KNOWN.clear()
    d = json.loads(stored)
    _KNOWN[text] = Claim(slot=d["s"], value=tuple(frozenset(p) for p in d["v"]),
                         raw_value=tuple(d["r"]), terms=frozenset(d["t"]), negated=d["n"],
                         ended=d["e"], emoji=d["m"])


@lru_cache(maxsize=65536)
def _read(text: str) -> Claim:
    named, has_emoji = _with_emoji_names(text)
    plain = _read_surface(_surface(text), False)
    if not has_emoji:
        return plain
    spelled = _read_surface(_surface(named), True)
    if plain.slot is not None and plain.slot == spelled.slot and plain.value:
        return plain
    if not plain.terms or spelled.slot is not None:
        return spelled
    return plain


# --- the index a store keeps -----------------------------------------------------------------
def _value_key(claim: Claim) -> str:
    return "|".join(sorted(" ".join(sorted(p)) for p in claim.value))


def canonical_key(text: str) -> str:
    """Equal keys mean the same claim (slot, value, polarity): a confident restatement."""
    c = read(text)
    flags = ("!" if c.negated else "") + ("~" if c.ended else "")
    if c.slot:
        return f"{c.slot}{flags}={_value_key(c)}"
    return f"*{flags}=" + " ".join(sorted(c.terms))


def slot_terms(text: str) -> list[str]:
    """`slot:token` for every value token (and for the Latin reading of a name written in
    another script): the store's lookup for same-slot, similar values."""
    c = read(text)
    if not c.slot:
        return []
    out = {f"{c.slot}:{t}" for part in c.value for t in part if not t.startswith("n=")}
    for raw in c.raw_value:  # a name in another script is also found by its Latin reading
        out |= {f"{c.slot}:{_stem_value(w)}" for name in _latin_names(raw)
                if not raw.isascii() or name in _PLACE_NAMES for w in name.split()}
    if c.slot in PLACE_SLOTS:  # invariant 600: a place is found under any of its names
        where = places.read_place(c.raw_value, _place_readings(c.raw_value))
        out |= {f"{c.slot}:@{p.id}" for p in (where.places if where else ())}
    return sorted(out)


def index_entry(text: str) -> tuple[str, list[str]]:
    """What a store keeps beside a tombstone: its canonical key and its slot terms."""
    return canonical_key(text), slot_terms(text)


class TombstoneProbe(BaseModel):
    """What a store looks up for one new text: exact keys, the normalised text, slot terms
    (the text's own slot and its related slots)."""

    model_config = ConfigDict(frozen=True)
    keys: list[str]
    normalized: str
    terms: list[str]


def probe(text: str) -> TombstoneProbe:
    c = read(text)
    terms = slot_terms(text)
    if c.slot:
        tokens = {t for part in c.value for t in part if not t.startswith("n=")}
        for pair in _RELATED:
            if _slot_family(c.slot) in pair:
                other = next(iter(pair - {_slot_family(c.slot)}), None)
                if other and not other.endswith(":"):
                    terms += [f"{other}:{t}" for t in sorted(tokens)]
    key = canonical_key(text)
    keys = [key]
    if c.negated or c.ended:  # the same value without the negation is still looked up
        keys.append(re.sub(r"^([^=!~]*)[!~]+=", r"\1=", key))
    return TombstoneProbe(keys=keys, normalized=normalise(text), terms=sorted(set(terms)))


# --- comparing -------------------------------------------------------------------------------
def _slot_family(slot: str) -> str:
    return slot.split(":", 1)[0] + ":" if ":" in slot else slot


def related(a: str, b: str) -> bool:
    """Slots whose values mean nearly the same claim ("residence" / "moved_to")."""
    return frozenset((_slot_family(a), _slot_family(b))) in _RELATED


def _numbers_of(tokens: Iterable[str]) -> set[str]:
    """Numbers, dates and model names ("v2", "s21"); a count ("n=3") is compared apart."""
    return {t for t in tokens if any(c.isdigit() for c in t) and not t.startswith("n=")}


def _counts(tokens: Iterable[str]) -> set[str]:
    return {t for t in tokens if t.startswith("n=")}


def _numbers_said(claim: Claim) -> set[str]:
    """The numbers a claim states, a count included ("has 2 daughters" says 2, "has a dog"
    none): slots that hold counts and slots that hold numbers compare."""
    flat = frozenset().union(*claim.value)
    return _numbers_of(flat) | {t[2:] for t in _counts(flat) if t != "n=1"}


def _translit(raw: str) -> str:
    return re.sub(r"[^a-z0-9 ]", "", raw.translate(_TRANSLIT))


def _initials(raw: str) -> str:
    return "".join(w[0] for w in raw.split() if w)


@lru_cache(maxsize=65536)
def _root(token: str) -> str:
    """A stem's root, to compare word forms: an agent noun as its verb or instrument
    ("smoker" -> "smok", "guitarist" -> "guitar", "swimmer" -> "swim"), a final e or o
    dropped ("smoke" -> "smok", "piano" -> "pian"). Equal roots only ever send a write to
    review: "Peter" and "Pete" share one too."""
    if len(token) < 4 or not token.isascii() or not token.isalpha():
        return token
    for suffix in ("ist", "er"):
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            token = token[:-len(suffix)]
            if len(token) >= 4 and token[-1] == token[-2] and token[-1] not in "aeiouslfz":
                token = token[:-1]  # swimm -> swim, runn -> run
            break
    return token[:-1] if token[-1] in "eo" and len(token) >= 4 else token


# How keen someone is adds nothing to what they do: "a keen hiker" hikes.
_ZEAL = frozenset(stem(w) for w in ["keen", "avid", "passionate", "enthusiastic", "devoted",
                                     "dedicated", "lifelong", "committed"])


def _roots(tokens: Iterable[str]) -> frozenset[str]:
    """Roots of value or text tokens; counts ("n=1") and zeal ("keen") are left out."""
    return frozenset(_root(t) for t in tokens if not t.startswith("n=") and t not in _ZEAL)


# Latin letters that `text.fold` may have read from Cyrillic look-alikes ("Москва" in Latin
# text folds to "mockba"), and the Cyrillic letter each came from.
_UNCONFUSE = str.maketrans("abekmhopctyx", "авекмнорстух")
_LOOKALIKE_LATIN = frozenset("abekmhopctyx")


def _latin_names(raw: str) -> tuple[str, ...]:
    """A value's readings as a Latin name, other than itself: other scripts transliterated, then
    the exonym table ("αθηνα" -> athina -> athens); and words made only of look-alike letters
    read back as the Cyrillic they may have been folded from ("mockba" -> москва -> moscow)."""
    plain, back = [], []
    for tok in raw.split():
        if not tok.isascii():
            plain.append(_translit(tok))
            back.append(plain[-1])
        else:
            plain.append(tok)
            back.append(_translit(tok.translate(_UNCONFUSE)) if set(tok) <= _LOOKALIKE_LATIN
                        else tok)
    names = dict.fromkeys(" ".join(_PLACES.get(t, t) for t in seq if t) for seq in (plain, back))
    return tuple(n for n in names if n and n != raw)


def _sound(name: str) -> str:
    """A rough spelling key, so transliterations compare: "yandeks" ~ "yandex", "sofiya" ~
    "sofia"."""
    s = name.replace(" ", "")
    for a, b in (("ks", "x"), ("kh", "h"), ("ph", "f"), ("w", "v"), ("y", "i"), ("j", "i"),
                 ("c", "k"), ("q", "k")):
        s = s.replace(a, b)
    return re.sub(r"(.)\1+", r"\1", s)


def _cross_script(ra: str, rb: str) -> bool:
    """The same name, one side written in another script: transliterated, an exonym, or spelled
    nearly the same once transliterated ("yandeks" / "yandex")."""
    na, nb = _latin_names(ra), _latin_names(rb)
    pairs = [(x, y) for x in (ra, *na) for y in (rb, *nb) if (x, y) != (ra, rb)]
    for x, y in pairs:
        kx, ky = _sound(x), _sound(y)
        if x == y or (min(len(kx), len(ky)) >= 4
                      and difflib.SequenceMatcher(None, kx, ky).ratio() >= 0.9):
            return True
    return False


def _countless(claim: Claim) -> Claim:
    """The claim without its count: "Owns a Tesla" (has, n=1) beside "Drives a Tesla"."""
    parts = tuple(p for p in (frozenset(t for t in part if not t.startswith("n="))
                              for part in claim.value) if p)
    return replace(claim, value=parts)


def _place_readings(raw: tuple[str, ...]) -> tuple[str, ...]:
    """Other readings of a place value's first part: another script transliterated, and a
    word of look-alike letters read back as the Cyrillic it was folded from ("mockba")."""
    if not raw:
        return ()
    first = raw[0]
    back = first.translate(_UNCONFUSE) if set(first.replace(" ", "")) <= _LOOKALIKE_LATIN \
        else ""
    return tuple(r for r in (*_latin_names(first), back) if r)


def compare_values(dead: Claim, new: Claim) -> tuple[str, str]:
    """('same'|'similar'|'different'|'decisive', why) for two values of the same (or a
    related) slot; 'decisive' is a difference no wording explains (another number, a
    street named after the dead place, another place in the gazetteer)."""
    same, why = _compare_words(dead, new)
    if same == "different" and dead.slot == new.slot == "has":
        # "Has a puppy" after "Has a dog": a thing of the kind the other names by the kind's
        # own word (the one slot vocabulary's kinds, memory/slots.py) may be the same thing.
        ka, kb = (kind_of(" ".join(c.raw_value)) for c in (dead, new))
        if ka is not None and ka == kb and stem(ka) in {stem(w) for c in (dead, new) for w in
                                                        " ".join(c.raw_value).split()}:
            return "similar", f"a {ka} and the {ka} it may be"
    if dead.slot not in PLACE_SLOTS or new.slot not in PLACE_SLOTS:
        return same, why
    # Invariant 600: a place under any of its names is the same place; invariant 600: two
    # places the gazetteer tells apart are different, however alike their names ("Perth,
    # Scotland" is not the Perth of 2 million people, though Scotland is a country).
    found = places.compare(dead.raw_value, new.raw_value, _place_readings(dead.raw_value),
                           _place_readings(new.raw_value))
    if same == "same" and why == _WITH_COUNTRY and _ambiguous(dead.raw_value):
        # "Newcastle" may be the English, the Australian or the South African city: naming
        # one country after it may be the dead place or another (invariant 600: held).
        return "similar", f"{why}, of a name several cities share"
    if found is None or same == "same" and found[0] != "different":
        return same, why
    kind, reason = found
    return ("decisive" if kind == "different" else "similar"), reason


_WITH_COUNTRY = "the same place, with its country"
AMBIGUOUS = 0.5  # a second city of the name at least this share of the first's population


def _ambiguous(raw: tuple[str, ...]) -> bool:
    """An unqualified place name several large cities share ("Newcastle": 508,000 in
    Australia, 405,000 in South Africa, 300,000 in England)."""
    if len(raw) != 1:
        return False
    cities = [p for p in places.named(raw[0]) if p.id.startswith("city:")]
    return len(cities) > 1 and cities[1].population >= AMBIGUOUS * cities[0].population


def places_apart(dead_text: str, new_text: str) -> bool:
    """Two texts of one place slot that the gazetteer reads as different places (invariant
    601): no other reading of the new text's words makes it the dead place."""
    dead, new = read(dead_text), read(new_text)
    if dead.slot != new.slot or dead.slot not in PLACE_SLOTS or dead.negated != new.negated:
        return False
    found = places.compare(dead.raw_value, new.raw_value, _place_readings(dead.raw_value),
                           _place_readings(new.raw_value))
    return found is not None and found[0] == "different"


def _compare_words(dead: Claim, new: Claim) -> tuple[str, str]:
    a, b = dead.value, new.value
    if set(a) == set(b):
        return "same", "the same value"
    flat_a = frozenset().union(*a)
    flat_b = frozenset().union(*b)
    if flat_a == flat_b:
        return "same", "the same value in other words"
    joined_a = "".join(dead.raw_value).replace(" ", "")
    if joined_a and joined_a == "".join(new.raw_value).replace(" ", ""):
        return "same", "the same words, spaced differently"
    extra_a = [p for p in a if p not in b]
    extra_b = [p for p in b if p not in a]
    if not extra_a or not extra_b:  # whole parts: one value is the other plus parts
        more = extra_a or extra_b
        raws = dead.raw_value if extra_a else new.raw_value
        extra_raw = [r for p, r in zip(a if extra_a else b, raws, strict=False) if p in more]
        if all(r in _COUNTRIES for r in extra_raw):
            return "same", _WITH_COUNTRY
        return "similar", "one value is the other with more parts"
    if _counts(flat_a) != _counts(flat_b):
        return "decisive", "a different count"
    nums_a, nums_b = _numbers_of(flat_a), _numbers_of(flat_b)
    if nums_a != nums_b and (nums_a and nums_b or dead.slot == "birth_year"):
        short = {n for n in nums_a | nums_b if len(n) == 2 and n.isdigit()}
        if dead.slot == "birth_year" and short and any(
                y.endswith(n) for n in short for y in nums_a | nums_b if len(y) == 4):
            return "similar", "a two-digit year"
        return "decisive", f"different numbers ({', '.join(sorted(nums_b))})"
    if flat_a < flat_b or flat_b < flat_a:
        extra = (flat_b - flat_a) or (flat_a - flat_b)
        if extra & {stem(t) for t in _PLACE_TYPES}:
            return "decisive", f"another place ({' '.join(sorted(extra))})"
        return "similar", "one value contains the other"
    ra, rb = " ".join(dead.raw_value), " ".join(new.raw_value)
    if ra and rb and (_translit(ra) == rb or _translit(rb) == ra
                      or _translit(ra) == _translit(rb) != "" or _cross_script(ra, rb)):
        return "similar", "the same name in another script"
    if (len(ra.split()) == 1 and len(rb.split()) > 1 and _initials(rb) == ra) or \
            (len(rb.split()) == 1 and len(ra.split()) > 1 and _initials(ra) == rb):
        return "similar", "an initialism of the other"
    wa, wb = ra.split(), rb.split()
    if len(wa) == len(wb):
        diff = [(x, y) for x, y in zip(wa, wb, strict=False) if x != y]
        if len(diff) == 1:
            x, y = diff[0]
            if not (_numbers_of([x]) or _numbers_of([y])) and (
                    (min(len(x), len(y)) >= 3 and (x.startswith(y) or y.startswith(x)))
                    or (min(len(x), len(y)) >= 4
                        and difflib.SequenceMatcher(None, x, y).ratio() >= 0.85)):
                return "similar", f"{y!r} is close to {x!r}"
    if _roots(flat_a) == _roots(flat_b):
        return "similar", "the same words in another form"
    if dead.emoji != new.emoji:
        return "similar", "an emoji for a word"
    return "different", "a different value"


def _no_slot(dead: Claim, new: Claim, cosine: float | None, threshold: float,
             close_cosine: float) -> tuple[Decision, str]:
    a, b = dead.terms, new.terms
    if a and a == b:
        return Decision.REFUSE, "the same words"
    nums_a, nums_b = _numbers_of(a), _numbers_of(b)
    if nums_a and nums_b and nums_a != nums_b:
        return Decision.ACCEPT, "different numbers or dates"
    ra, rb = _roots(a), _roots(b)
    if ra and ra == rb:
        return Decision.REVIEW, "the same words in another form"
    if ra and rb and (ra < rb or rb < ra) and len(ra ^ rb) <= 3:
        return Decision.REVIEW, "one text's words inside the other's"
    if cosine is not None and cosine >= threshold:
        return Decision.REVIEW, f"similar meaning (cosine {cosine:.2f})"
    if cosine is not None and cosine >= close_cosine and ra and rb and (ra <= rb or rb <= ra):
        return Decision.REVIEW, f"one text's words inside the other's (cosine {cosine:.2f})"
    return Decision.ACCEPT, "different words"


def _negated_by_meaning(a: Claim, b: Claim) -> str | None:
    """Why two texts of opposite polarity say the same thing, if they do: one names a state
    that is itself a negation ("is vegetarian": eats no meat) and the other negates what it
    excludes ("does not eat meat"), or the other way round ("is not vegetarian" / "eats
    meat"). "Is not vegetarian" after "Is vegetarian" is a correction and excludes nothing."""
    pos, neg = (a, b) if b.negated else (b, a)
    for word, excluded in _EXCLUDES.items():
        if word in pos.terms and neg.terms & excluded:
            return f"a negation restating {word!r} ({', '.join(sorted(neg.terms & excluded))})"
        if word in neg.terms and pos.terms & excluded:
            return f"restates 'not {word}' ({', '.join(sorted(pos.terms & excluded))})"
    return None


def judge_pair(dead_text: str, new_text: str, cosine: float | None,
               threshold: float, *, close_cosine: float = 0.7, moderate_cosine: float = 0.55,
               dead_normalized: str | None = None) -> tuple[Decision, str]:
    """The rules for one (dead, new) pair."""
    if (dead_normalized if dead_normalized is not None else normalise(dead_text)) == \
            normalise(new_text):
        return Decision.REFUSE, "the same text"
    dead, new = read(dead_text), read(new_text)
    if dead.negated != new.negated:
        meaning = _negated_by_meaning(dead, new)
        if meaning:
            return Decision.REVIEW, meaning
        return Decision.ACCEPT, "the opposite polarity (a correction, not the dead value)"
    if dead.ended != new.ended:
        return Decision.ACCEPT, "says the state ended (a correction, not the dead value)"
    if dead.slot and new.slot:
        if dead.slot == new.slot:
            same, why = compare_values(dead, new)
            if same == "same":
                return Decision.REFUSE, f"same {new.slot}: {why}"
            if same == "similar":
                return Decision.REVIEW, f"same {new.slot}, similar value: {why}"
            shared = frozenset().union(*dead.value) & frozenset().union(*new.value)
            if (same == "different" and (cosine is None or cosine >= close_cosine)
                    and shared - _counts(shared)):
                cos = "" if cosine is None else f" (cosine {cosine:.2f})"
                return Decision.REVIEW, f"same {new.slot}, overlapping value{cos}"
            return Decision.ACCEPT, f"same {new.slot}, {why}"
        if related(dead.slot, new.slot):
            same, why = compare_values(_countless(dead), _countless(new))
            if same in ("same", "similar"):
                return Decision.REVIEW, f"{new.slot} is close to {dead.slot}: {why}"
        if {_slot_family(dead.slot), _slot_family(new.slot)} & _LOOSE_SLOTS and \
                (cosine is None or cosine >= moderate_cosine):
            a, b = _roots(frozenset().union(*dead.value)), _roots(frozenset().union(*new.value))
            if a and b and (a <= b or b <= a) and _numbers_said(dead) == _numbers_said(new):
                cos = "" if cosine is None else f" (cosine {cosine:.2f})"
                return Decision.REVIEW, f"{new.slot} restates the {dead.slot} value{cos}"
        return Decision.ACCEPT, f"another slot ({new.slot}, not {dead.slot})"
    return _no_slot(dead, new, cosine, threshold, close_cosine)


Judge = Callable[[str, Tombstone, str], tuple[Decision, str] | None]


def assess(text: str, candidates: Iterable[tuple[Tombstone, float | None]], threshold: float,
           *, judge: Judge | None = None) -> Verdict:
    """The verdict for `text` against candidate tombstones (with cosines where known): the
    strongest of refuse > review > accept. A `judge` (an LLM, when configured) may settle the
    review band: it gets (text, tombstone, the rules' reason) and returns a decision and a
    reason, or None to leave it to a person."""
    best: Verdict | None = None
    rank = {Decision.REFUSE: 2, Decision.REVIEW: 1, Decision.ACCEPT: 0}
    seen: set[str] = set()
    for tomb, cosine in candidates:
        if tomb.id in seen:
            continue
        seen.add(tomb.id)
        decision, reason = judge_pair(tomb.text, text, cosine, threshold,
                                      dead_normalized=tomb.normalized)
        if decision == Decision.ACCEPT:
            continue
        v = Verdict(decision=decision, tombstone=tomb, similarity=cosine,
                    reason=f"{reason} (tombstone {tomb.id}: {tomb.text!r})")
        if best is None or (rank[v.decision], v.similarity or 0.0) > (rank[best.decision], best.similarity or 0.0):
            best = v
    if best is None:
        return Verdict(decision=Decision.ACCEPT, reason="restates no tombstone of this user")
    if best.decision == Decision.REVIEW and judge is not None and best.tombstone is not None:
        ruled = judge(text, best.tombstone, best.reason)
        if ruled is not None:
            return best.model_copy(update={"decision": ruled[0], "judged_by": "llm",
                                           "reason": f"{ruled[1]} (rules: {best.reason})"})
    return best
