"""Text that reads as it is stored (issue 30, invariants 11, 68). Pure functions; no I/O.

Invisible format characters (Unicode category Cf: bidi embeddings, overrides and isolates,
LRM/RLM/ALM, zero-width spaces and joiners, the BOM, soft hyphens) can make a stored value
display as another ("Lives in U+202E notsoB" shows as "Lives in Boston") or split a word in
two for every matcher ("Bos U+200B ton"). A value is cleaned of them on the way in; the door
refuses any that reach it by another path (an import). The zero-width joiner inside an emoji
sequence is the one kept: it joins pictures, never letters.

User ids are NFKC-normalised, and a new id whose UTS #39 skeleton equals an existing id's
("аna" with a Cyrillic а, "ana") is refused: the confusables table is the one the maintained
`confusable-homoglyphs` package ships (Unicode's confusables.txt, as JSON).
"""

from __future__ import annotations

import json
import unicodedata
from functools import lru_cache
from importlib import resources

ZWJ = "\u200d"
# The characters that reorder a line (named for messages; all are category Cf too).
BIDI = frozenset([*map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A)),
                  "\u200e", "\u200f", "\u061c"])
# Controls other than tab, newline and carriage return (invariant 11 refuses them in values).
_CONTROLS = frozenset([*map(chr, range(0x00, 0x09)), "\x0b", "\x0c",
                       *map(chr, range(0x0E, 0x20)), *map(chr, range(0x7F, 0xA0))])


def _pictographic(ch: str) -> bool:
    """A character an emoji sequence joins: a symbol (So), a variation selector, or a
    skin-tone modifier (Sk)."""
    return unicodedata.category(ch) in ("So", "Sk") or "\ufe00" <= ch <= "\ufe0f"


def _kept(text: str, i: int) -> bool:
    """Whether the format character at `i` stays: only a joiner between two emoji parts."""
    if text[i] != ZWJ or i == 0 or i == len(text) - 1:
        return False
    return _pictographic(text[i - 1]) and _pictographic(text[i + 1])


def hidden(ch: str) -> bool:
    return unicodedata.category(ch) == "Cf"


def clean(text: str) -> str:
    """`text` without its invisible format characters (an emoji's joiner kept)."""
    if not any(hidden(c) for c in text):
        return text
    return "".join(c for i, c in enumerate(text) if not hidden(c) or _kept(text, i))


def first_unsafe(text: str) -> str | None:
    """The first character the door refuses in a stored value: a control other than tab,
    newline and carriage return, or a format character `clean` would remove; else None."""
    for i, c in enumerate(text):
        if c in _CONTROLS or (hidden(c) and not _kept(text, i)):
            return c
    return None


def describe(ch: str) -> str:
    name = unicodedata.name(ch, "")
    kind = "a bidi control" if ch in BIDI else "an invisible format character" if hidden(ch) \
        else "a control character"
    return f"{kind} (U+{ord(ch):04X}{' ' + name if name else ''})"


# --- user ids ---------------------------------------------------------------------------------
def normal_user_id(value: str) -> str:
    """NFKC: full-width, ligature and compatibility forms read as the plain letters."""
    return unicodedata.normalize("NFKC", value)


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Each confusable character -> its prototype (confusables.txt, UTS #39): a character that
    maps to exactly one other, which in turn lists it among its own look-alikes."""
    raw = resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text(
        encoding="utf-8")
    table: dict[str, list[dict]] = json.loads(raw)
    strip = str.maketrans("", "", "\u200e\u200f")  # the table wraps RTL glyphs in marks

    def glyphs(key: str) -> list[str]:
        return [e["c"].translate(strip) for e in table.get(key, [])]

    out: dict[str, str] = {}
    for key in table:
        src = key.translate(strip)
        targets = glyphs(key)
        if len(src) != 1 or len(targets) != 1 or targets[0] == src:
            continue
        proto = targets[0]
        back = glyphs(proto)
        # A pair that lists only each other: the prototype is the smaller code point string
        # (ASCII first), so both sides agree whichever is looked up.
        if back == [src] and (proto.isascii(), [-ord(c) for c in proto]) < \
                (src.isascii(), [-ord(c) for c in src]):
            continue
        if src in back or not back:
            out[src] = proto
    # Follow chains to a fixed point ("ℓ" -> "l" ...), never looping.
    for src in list(out):
        seen, cur = {src}, out[src]
        while len(cur) == 1 and cur in out and out[cur] not in seen:
            seen.add(cur)
            cur = out[cur]
        out[src] = cur
    return out


def skeleton(value: str) -> str:
    """UTS #39 skeleton: NFD, each character replaced by its prototype, NFD again. Two ids with
    the same skeleton look the same to a reader."""
    protos = _prototypes()
    mapped = "".join(protos.get(c, c) for c in unicodedata.normalize("NFD", value))
    return unicodedata.normalize("NFD", mapped)


def confusable_with(new: str, existing: list[str]) -> str | None:
    """An existing id, other than `new` itself, that looks the same as `new`; else None."""
    target = skeleton(new)
    return next((e for e in sorted(existing) if e != new and skeleton(e) == target), None)
