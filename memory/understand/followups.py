"""A correction of the user's previous message in the session (invariant 306): "sorry, I meant
Bath, not Bristol", "oops, it's a Pixel 9 Pro actually", "make that Thursday".

The correction alone names no subject; it is read by putting its value in place of the value
the previous message said, and reading that. The value it replaces was never true (a slip),
unless the new one only refines it ("Pixel 9" → "Pixel 9 Pro"), which is a natural change.
Pure: no I/O.
"""

from __future__ import annotations

import re

from .phrases import UPPER

_I = re.IGNORECASE
_CUE = (r"^(?:(?:sorry|oops|whoops|my\s+bad|ugh|wait|no|nope|correction|typo|err|erm|um|"
        r"scratch\s+that|ah|oh)\W+)*")
# "I meant Bath, not Bristol", "make that Thursday", "it's a Pixel 9 Pro actually"
_SAID = re.compile(_CUE + r"(?:i\s+meant(?:\s+to\s+say)?|i\s+mean|make\s+(?:that|it)|should\s+(?:be|have\s+"
                   r"said)|that\s+should\s+(?:be|say)|meant\s+to\s+say|it'?s|it\s+is|it\s+was|"
                   r"correction:?)\s+(?P<x>[^,.!?;]+?)(?:\s*,?\s*not\s+(?P<y>[^,.!?;]+?))?"
                   r"(?:\s*,?\s*(?:actually|sorry|lol|haha|oops))?\s*[.!]*$", _I)
# "not Bristol, Bath", "not Bristol — Bath"
_NOT_FIRST = re.compile(_CUE + r"not\s+(?P<y>[^,.!?;—–-]+?)\s*[,—–-]+\s*(?:i\s+meant\s+|it'?s\s+|"
                        r"it\s+is\s+)?(?P<x>[^,.!?;]+?)\s*[.!]*$", _I)
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
# "sorry, Thursday not Wednesday": a cue, then the value and the one it replaces
_BARE = re.compile(r"^(?:(?:sorry|oops|whoops|my\s+bad|correction|typo|scratch\s+that)\W+)+"
                   r"(?P<x>[^,.!?;]+?)\s*,?\s+not\s+(?P<y>[^,.!?;]+?)\s*[.!]*$", re.IGNORECASE)
_ARTICLE = re.compile(r"^(?:a|an|the)\s+", _I)
_STOP = frozenset("a an the my our in at on to of and or is are was".split())


def _words(text: str) -> list[str]:
    return re.findall(r"[\w'’+.-]+", text)


def narrowed(message: str, history: list[str]) -> str | None:
    """"Scratch that, not latex, it's just penicillin" after a message naming both: the value
    the user takes back (latex), or None. Pure."""
    prev = next((h for h in reversed(history) if h.strip()), None)
    m = _NOT_FIRST.match(message.strip()) or _SAID.match(message.strip()) or \
        _BARE.match(message.strip())
    if prev is None or m is None or not m.group("y"):
        return None
    y, x = m.group("y").strip(), m.group("x").strip()
    if not re.match(r"^(?:just|only)\s+", x, _I):
        return None
    if re.search(r"(?<![\w'’])" + re.escape(y) + r"(?![\w'’])", prev, _I) is None:
        return None
    return y


def rewrite(message: str, history: list[str]) -> tuple[str, str, bool] | None:
    """(the previous message with the corrected value in place, the value it replaces, whether
    the new value only refines it), or None when `message` is no bare correction of the
    previous message. Pure."""
    prev = next((h for h in reversed(history) if h.strip()), None)
    text = message.strip()
    m = _SAID.match(text) or _NOT_FIRST.match(text) or _BARE.match(text)
    if prev is None or m is None:
        return None
    x, y = m.group("x").strip(), (m.group("y") or "").strip()
    if re.match(r"^(?:just|only)\s+", x, _I):
        return None  # a narrowing takes a value back (`narrowed`), it replaces none
    one = re.fullmatch(r"(?:the|a|an)\s+(?P<w>[\w'’+.-]+)\s+one", x, _I)
    if one and y:
        # Invariant 351: "I meant the green one, not black" says the word "green" in place of
        # "black"; "the Govee one, not Hue" puts the brand in place of the name around "Hue"
        # ("a Philips Hue Gradient lightstrip" -> "a Govee lightstrip")
        x = one.group("w")
        runs = [r for r in re.finditer(r"(?<![\w'’])" + UPPER + r"[\w'’-]*(?:\s+" + UPPER + r"[\w'’-]*)*", prev)
                if r.start() > 0 and re.search(r"(?<![\w'’])" + re.escape(y) + r"(?![\w'’])", r.group(0))
                ] if y[:1].isupper() else []
        if len(runs) == 1 and prev.count(runs[0].group(0)) == 1:
            y = runs[0].group(0)
    elif y and re.search(r"(?<![\w'’])" + re.escape(y) + r"(?![\w'’])", prev, _I) is None and \
            _ARTICLE.match(y) and _ARTICLE.match(x):
        # Invariant 351: "it's the Q2, not the Q1" after "a Keychron Q1": the article is the
        # user's, not part of the value said before
        x, y = _ARTICLE.sub("", x), _ARTICLE.sub("", y)
    if not x or len(_words(x)) > 6 or (y and len(_words(y)) > 6) or re.match(
            r"^(?:i|i'?m|we|we'?re|my|our|you|he|she|they|it)\b", x, _I) or re.search(
            r"\b(?:is|are|was|were|have|has|live|work|moved)\b", x, _I):
        return None  # a whole statement ("sorry, I live in Bath not Bristol") is read as one
    if not y and not re.match(r"^(?:i\s+meant|i\s+mean|make|should|that\s+should|meant|correction|"
                              r"(?:\W*(?:sorry|oops|whoops|my\s+bad|typo|scratch\s+that)\W+)+)", text, _I) \
            and not re.search(r"\bactually\s*[.!]*$", text, _I):
        return None  # "it's raining" is no correction: a cue or "actually" must say so
    if y:
        at = re.search(r"(?<![\w'’])" + re.escape(y) + r"(?![\w'’])", prev, _I)
        if at is None:
            return None
        return prev[:at.start()] + x + prev[at.end():], y, _refines(x, y)
    # Without "not Y": the run of the previous message that the new value continues
    # ("a Pixel 9" → "a Pixel 9 Pro"), or the last name it said ("moved to Bristol" → "Bath").
    xs = [w for w in _words(_ARTICLE.sub("", x))]
    toks = list(re.finditer(r"[\w'’+.-]+", prev))
    for i, t in enumerate(toks):
        if xs and t.group(0).lower() == xs[0].lower() and t.group(0).lower() not in _STOP:
            j = i
            while j + 1 < len(toks) and j - i + 1 < len(xs) and \
                    toks[j + 1].group(0).lower() == xs[j - i + 1].lower():
                j += 1
            start = t.start()
            art = re.search(r"\b(?:a|an|the)\s+$", prev[:start], _I)
            if art and _ARTICLE.match(x):
                start = art.start()
            old = prev[start:toks[j].end()]
            return prev[:start] + x + prev[toks[j].end():], old, _refines(x, old)
    day = re.compile(r"\b(?:\d{1,2}(?:st|nd|rd|th)?\s+" + _MONTH + r"|" + _MONTH + r"\s+\d{1,2}(?:st|nd|rd|th)?|"
                     r"(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b", _I)
    if day.fullmatch(x) and len(day.findall(prev)) == 1:
        # "make that 10 December" after "... on 9 December": the one date said before
        t2 = day.search(prev)
        assert t2 is not None
        return prev[:t2.start()] + x + prev[t2.end():], t2.group(0), False
    if _ARTICLE.match(x) and re.search(r"\bactually\s*[.!]*$", text, _I):
        x = _ARTICLE.sub("", x)  # "it's a Civic actually": the name is the value (invariant 351)
    if re.fullmatch(UPPER + r"[\w'’-]*(?:\s+" + UPPER + r"[\w'’-]*){0,2}", x):
        names = [t for t in re.finditer(UPPER + r"[\w'’-]*(?:\s+" + UPPER + r"[\w'’-]*){0,2}", prev)
                 if t.start() > 0 and t.group(0).split()[0].lower() not in {"i", "my", "our", "we"}]
        if names:
            t = names[-1]
            return prev[:t.start()] + x + prev[t.end():], t.group(0), False
    return None


def _refines(new: str, old: str) -> bool:
    """"a Pixel 9 Pro" after "a Pixel 9": the new value keeps every word of the old one and
    adds to it; a refinement, not a slip."""
    n = {w.lower() for w in _words(new)} - _STOP
    o = {w.lower() for w in _words(old)} - _STOP
    return bool(o) and o < n


def rewrite_head(message: str, history: list[str]) -> tuple[str, str, bool] | None:
    """Invariant 351: a bare correction followed by a remark of its own ("Sorry, I mean Preeti,
    not Priya. Autocorrect.", "It's a Civic actually, I always mix them up"): the correction is
    read from its first sentence, or from what stands before the comma of a remark that opens
    with its own subject; the remark is no statement. None as `rewrite`. Pure."""
    text = message.strip()
    heads = []
    first = re.match(r"^(?P<h>.+?[.!?])\s+(?=\S)", text)
    if first:
        heads.append(first.group("h"))
    comma = re.match(r"^(?P<h>[^,]+?(?:\bactually|,\s*not\s+[^,.!?;]+?))\s*,\s*(?=(?:i|we|my|it|that|"
                     r"they|the|sorry|lol|haha|oops)\b)", text, _I)
    if comma:
        heads.append(comma.group("h"))
    for head in heads:
        fixed = rewrite(head, history)
        if fixed is not None:
            return fixed
    return None
