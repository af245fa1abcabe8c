"""Phrase helpers and shared patterns of the statement reader: tidy captured values, articles,
place names, person and verb forms. Pure functions."""

from __future__ import annotations

import re

from . import lexicon as lx

I = re.IGNORECASE

# --- small helpers ------------------------------------------------------------------------------
_TRAIL = re.compile(r"(?:[\s,]+(?:now|too|as well|also|again|any ?more|these days|nowadays|"
                    r"instead|from now on|for now|already|please|though|lol|haha|for good|"
                    r"full stop|really|honestly|mate|thanks|at the moment|currently|anyway|after all|"
                    r"lol|haha|tbh|btw|in\s+my\s+life|ever|at\s+all|mate))+$", I)
_LEAD_ART = re.compile(r"^(?:a|an|the|my|our|some|one)\s+", I)
STOP_AT = re.compile(
    r"\s+(?:(?:that|which|who)\s+(?:i|we)\b|i\s+(?:never|haven'?t|have\s+not|still|just)\b|"
    r"for\s+(?:the|my|our|personal|work|a|an|her|his|their)\b|from\s+(?:the|my|our|ikea|amazon|"
    r"[A-Z])|in\s+(?:the|my|our)\b|at\s+home\b|on\s+(?:the|my|our)\s+(?!\w+\s+(?:seat|shell))|"
    r"because\b|since\b|but\b|so\b|and\s+(?:i|we|it|they|he|she)\b|when\b|while\b|as\s+a\s+"
    r"(?:present|gift)|for\s+(?:christmas|my\s+birthday|our\s+anniversary))", I)


# ", maths and psychology": the rest of a list whose first item was cut at its comma
_LIST_TAIL = re.compile(r"^(?:,\s*(?!(?:and|but|so|i|we|it|he|she|they|my|our)\b)[\w'’+-]+(?:\s+[\w'’+-]+)?)*"
                        r",?\s+(?:and|or|&)\s+(?!(?:i|we|it|he|she|they|my|our|then|now)\b)[\w'’+-]+"
                        r"(?:\s+[\w'’+-]+)?(?=\s*(?:now|too|as\s+well)?\s*[.!?]*$)", I)


def with_list(value: str, after: str) -> str:
    """A value cut at a comma, with the rest of its list when the clause ends on one ("doing
    biology, maths and psychology now" keeps all three, invariant 276)."""
    m = _LIST_TAIL.match(after)
    return value + m.group(0) if m and value.strip() else value


def tidy(value: str) -> str:
    """A captured phrase without trailing filler and punctuation."""
    v = " ".join(value.split()).strip(" ,.;:!?\"'’")
    prev = None
    while prev != v:
        prev = v
        v = _TRAIL.sub("", v).strip(" ,.;:!?\"'’")
    return v


def obj_phrase(value: str, *, keep_article: bool = False) -> str:
    """A thing someone has: cut at a relative clause or place ("... for the lounge")."""
    v = tidy(value)
    m = STOP_AT.search(" " + v)
    if m:
        v = (" " + v)[:m.start()].strip()
    v = re.split(r"\s*[,;(]\s*", v)[0]
    if not keep_article:
        while _LEAD_ART.match(v):
            v = _LEAD_ART.sub("", v, count=1)
    return tidy(v)


def article(noun: str) -> str:
    first = noun.split()[0] if noun.split() else noun
    if re.match(r"^(?:two|three|four|five|six|\d+|some|several|many|a few)\b", noun, I):
        return ""
    if re.match(r"^(?:uni|use|eu|one|euro)", first, I):
        return "a "
    return "an " if first[:1].lower() in "aeiou" else "a "


def cap(text: str) -> str:
    """The first letter upper case, unless the first word is a name written with a capital
    inside it ("eSIM", "iPhone", "iOS", "eBay" stay as they are)."""
    first = text.split(" ", 1)[0]
    if first[:1].islower() and any(ch.isupper() for ch in first[1:]):
        return text
    return text[:1].upper() + text[1:]


def third_person(text: str) -> str:
    """First-person words inside a value, as the canonical third person."""
    t = re.sub(r"\bmy\b", "their", text, flags=I)
    t = re.sub(r"\bmine\b", "theirs", t, flags=I)
    t = re.sub(r"\b(?:me|myself)\b", "them", t, flags=I)
    t = re.sub(r"\bI\b", "they", t)
    return re.sub(r"\bour\b", "their", t, flags=I)


def place(value: str) -> str | None:
    """A place name: the capitalised run; title-cased when typed in lower case."""
    parts = tidy(value).split()
    if not parts:
        return None
    if len(parts) > 1 and parts[0] in {"New", "The"} and parts[1][:1].isupper():
        parts = parts[:1] + parts[1:]  # "New York", "The Hague": a name, not "a new flat"
    elif parts[0].lower() in {"a", "an", "the", "my", "our", "here", "there", "town", "home",
                            "bed", "work", "together", "with", "it", "them", "london's",
                            "new", "another", "this", "that", "his", "her", "their", "hope",
                            "fear", "denial", "sin", "luxury", "poverty", "comfort", "peace",
                            "harmony", "style", "squalor", "terror", "dread", "limbo", "love",
                            "trouble", "pain", "debt", "shock", "hospital", "jeans", "pyjamas",
                            "pajamas", "misery", "silence", "secret", "reality", "fantasy",
                            "charge", "touch", "shape", "time", "case", "fact", "general",
                            "public", "private", "person", "advance", "bits", "tears", "awe",
                            "hiding", "isolation", "quarantine", "lockdown", "paradise", "heaven",
                            "hell", "chaos", "sync", "line", "order", "progress"}:
        return None
    if re.fullmatch(r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekends?|weekdays?|evenings?|"
                    r"mornings?|nights?", parts[0], I):
        return None  # "bouldering moved to Wednesdays": a day is when, never where (inv. 199)
    out: list[str] = []
    for p in parts[:4]:
        if out and not p[:1].isupper() and p.lower() not in {"de", "do", "da", "del", "la",
                                                             "le", "am", "upon", "on"} and not (
                re.match(r"^[dl]['’]", p, I) and p[2:3].isupper()):
            break
        out.append(p if p[:1].isupper() or re.match(r"^[dl]['’]\S", p, I) else p.capitalize())
    while out and out[-1].lower() in {"de", "do", "da", "del", "la", "le", "am", "upon", "on"}:
        out.pop()
    return " ".join(out).rstrip(".,") or None


def third_singular(verb: str) -> str:
    v = verb.lower()
    irregular = {"have": "has", "do": "does", "go": "goes", "be": "is"}
    if v in irregular:
        return irregular[v]
    if re.search(r"(?:s|sh|ch|x|z|o)$", v):
        return v + "es"
    if re.search(r"[^aeiou]y$", v):
        return v[:-1] + "ies"
    return v + "s"


def is_role(phrase: str) -> bool:
    words = [w for w in re.findall(r"[\w-]+", phrase.lower())]
    if re.match(r"^(?:(?:senior|junior|deputy|assistant|acting|interim)\s+)?(?:head|director|vp|chief|"
                r"manager|lead|professor|lecturer)\s+of\s+\w", phrase, re.IGNORECASE):
        return True  # "head of product"
    return bool(words) and (words[-1] in lx.ROLE_WORDS or words[-1].rstrip("s") in lx.ROLE_WORDS)


HEDGE_RE = re.compile(lx.HEDGES, I)
HYPO_RE = re.compile(lx.HYPOTHETICAL, I)
HARSH_RE = re.compile(lx.HARSH_CUES, I)
CHANGE_RE = re.compile(lx.CHANGE_CUES, I)
# Any capital letter, in every script ("Łódź", "Ōsaka", "Škoda"), as a regex class.
UPPER = "(?-i:[" + "".join(re.escape(chr(c)) for c in range(0x41, 0x2000) if chr(c).isupper()) + "])"
REL = "|".join(sorted(lx.RELATIONS | lx.NAMED_ONLY_RELATIONS | {"friend"}, key=len, reverse=True))
NAME = r"(?P<name>(?-i:" + UPPER + r")[\w'’-]+(?:\s+(?-i:" + UPPER + r")[\w'’-]+)?)"
PLACE = r"(?P<p>[^\W\d_][\w'’.-]*(?:\s+(?:de|do|da|del|la|le|am|upon|on\s+)?[^\W\d_][\w'’.-]*){0,3})"
CAP_PLACE = (r"(?P<p>(?-i:" + UPPER + r"[\w'’.-]*(?:\s+(?:(?:de|da|do|del|di|du|la|le|von|van|der|"
             r"upon|on|sur|am|y)\s+)?(?:d'|l'|d’|l’)?" + UPPER + r"[\w'’.-]*){0,3}))")
SUBJ_I = r"(?:i|we)"
IM = r"(?:i'?m|i\s+am|we'?re|we\s+are|i'?ve\s+been|i\s+have\s+been|we'?ve\s+been)"
