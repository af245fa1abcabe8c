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

from . import places
from .restatements import MIN_ROOT, _known_name, _place_keys
from .text import fold
from .values import read

MAX_VALUE = 6  # words a framed value may have ("the Good, the Bad and the Ugly" is one)
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


def framed(dead_text: str, new_text: str) -> Framed | None:
    """The shared frame of two texts and their values, or None: at least one shared leading
    word, then a value of 1 to MAX_VALUE words on each side."""
    a = [m for m in _WORD.finditer(unicodedata.normalize("NFKC", dead_text))]
    b = [m for m in _WORD.finditer(unicodedata.normalize("NFKC", new_text))]
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
    words = [w for w in re.findall(r"[^\W\d_][\w'’-]*", value)]
    return bool(words) and all(w[0].isupper() or w[0].lower() == w[0].upper() or
                               w in _JOINING or re.match(r"[dl]['’]", w) for w in words)


_JOINING = frozenset("de del della di la le of the and da do du des von van".split())


def _region(name: str) -> bool:
    """A subdivision in any language `pycountry` translates ISO 3166-2 to ("Catalonia")."""
    k = places.key(name)
    return k in _place_keys().get(k[:MIN_ROOT], ())


def _parts(value: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in value.split(",") if p.strip())


def place_in_frame(dead_text: str, new_text: str) -> tuple[str, str] | None:
    """('apart'|'held', why) for two framed values when the dead one is a place the gazetteer
    knows, else None (invariant 600): "Is from Latvia" / "Is from Lithuania" are two places
    (apart); "Is from Persia" after "Is from Iran" names no place the gazetteer knows and
    "Studies in Louvain" after "Studies in Leuven" another name of the same place (held)."""
    f = framed(dead_text, new_text)
    if f is None or f.frame[-1] not in _PLACE_END or not _proper(_parts(f.dead)[0]) or any(ch.isdigit() for ch in f.dead + f.new):
        return None
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
    (capitalised) and no place: places are the gazetteer's. Only ever holds a write."""
    f = framed(dead_text, new_text)
    if f is None or not _proper(_parts(f.dead)[0]) or places.named(_parts(f.dead)[0]):
        return None
    if read(dead_text).negated != read(new_text).negated:
        return None
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
