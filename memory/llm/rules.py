"""Rule-based extraction for the offline model: deterministic, canonical fact texts.

Canonical texts matter: "we're based in Bristol" and "home is bristol" both become
"Lives in Bristol", so a tombstoned value is caught by normalised equality whatever the
wording (invariant 31). `slot_of` reads a canonical text back into the attribute it fills, so
the planner can find a same-slot neighbour to supersede.
"""

from __future__ import annotations

import re
from calendar import monthrange
from datetime import date, timedelta

from ..consolidation.canon import STOP, _clean, content_tokens, slot_of  # noqa: F401
from ..consolidation.extract import (
    EpisodeView,
    ExtractedDenial,
    ExtractedFact,
    ExtractedFeedback,
    ExtractedPlaybook,
    Extraction,
    ExtractionInput,
    FactView,
)
from ..models import Contradiction, FactType
from ..text import normalise

# --- values -----------------------------------------------------------------------------------
_BOUNDARY = (r"(?=\s*(?:[,.;!?)]|$|\s(?:now|these\s+days|nowadays|since|until|till|from|for|"
             r"with|and|but|because|last|this|next|at\s+the|anymore|any\s+more|instead|over|"
             r"rather|ago|on|in\s+(?:19|20)\d\d|in\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|"
             r"nov|dec)[a-z]*)\b))")
_VAL = r"(?P<v>[\w'’&+.-]+(?:\s+[\w'’&+.-]+){0,4}?)" + _BOUNDARY
_PLACE = r"(?P<v>[A-Za-z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,2})"
def _place(value: str) -> str:
    """A place name: the capitalised run, title-cased when typed in lower case."""
    parts = value.split()
    caps = [p for p in parts if p[:1].isupper()]
    if caps and parts[0][:1].isupper():
        out = []
        for p in parts:
            if not p[:1].isupper():
                break
            out.append(p)
        return " ".join(out).rstrip(".")
    return " ".join(p.capitalize() for p in parts[:2]).rstrip(".")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# --- dates ------------------------------------------------------------------------------------
_MONTHS = {m: i + 1 for i, m in enumerate(
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"])}
_MONTH_RE = r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"


def _month_date(mon: str, year: str | None, ref: date, *, future: bool) -> date:
    m = _MONTHS[mon[:3].lower()]
    if year:
        return date(int(year), m, 1)
    y = ref.year
    if future and m < ref.month:
        y += 1
    if not future and m > ref.month:
        y -= 1
    return date(y, m, 1)


def _relative(expr: str, ref: date) -> date | None:
    expr = expr.lower().strip()
    if expr == "yesterday":
        return ref - timedelta(days=1)
    if expr in {"today", "now"}:
        return ref
    if expr == "last week":
        return ref - timedelta(days=7)
    if expr == "last month":
        first = ref.replace(day=1)
        return (first - timedelta(days=1)).replace(day=1)
    if expr == "last year":
        return date(ref.year - 1, 1, 1)
    m = re.match(r"(\d+|a|an|one|two|three|four|five|six)\s+(day|week|month|year)s?\s+ago", expr)
    if m:
        n = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
             "six": 6}.get(m.group(1)) or int(m.group(1))
        unit = m.group(2)
        if unit == "day":
            return ref - timedelta(days=n)
        if unit == "week":
            return ref - timedelta(weeks=n)
        if unit == "month":
            y, mo = divmod(ref.year * 12 + ref.month - 1 - n, 12)
            return date(y, mo + 1, min(ref.day, monthrange(y, mo + 1)[1]))
        return date(ref.year - n, ref.month, min(ref.day, 28))
    return None


_REL = r"(?P<rel>yesterday|last\s+(?:week|month|year)|(?:\d+|a|an|one|two|three|four|five|six)\s+(?:day|week|month|year)s?\s+ago)"
_ISO = r"(?P<iso>\d{4}-\d{2}-\d{2})"
_DAY_MONTH = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH_RE + r"(?:\s+(?P<dy>\d{4}))?"


def dates_in(sentence: str, ref: date) -> tuple[date | None, date | None]:
    """(valid_from, valid_to) stated in a sentence, relative to when the user said it."""
    s = sentence.lower()
    start = end = None
    m = re.search(r"\b(?:until|till|til|through|up to)\s+(?:" + _ISO + r"|" + _MONTH_RE
                  + r"(?:\s+(?P<year>\d{4}))?)\b", s)
    if m:
        end = (date.fromisoformat(m.group("iso")) if m.group("iso")
               else _month_date(m.group("mon"), m.group("year"), ref, future=True))
        s = s[:m.start()] + s[m.end():]
    m = re.search(r"\bsince\s+(?:" + _ISO + r"|" + _REL + r"|" + _MONTH_RE
                  + r"(?:\s+(?P<year>\d{4}))?|(?P<y>(?:19|20)\d\d))\b", s)
    if m:
        if m.group("iso"):
            start = date.fromisoformat(m.group("iso"))
        elif m.group("rel"):
            start = _relative(m.group("rel"), ref)
        elif m.group("mon"):
            start = _month_date(m.group("mon"), m.group("year"), ref, future=False)
        else:
            start = date(int(m.group("y")), 1, 1)
        return start, end
    m = re.search(r"\b" + _REL + r"\b", s)
    if m:
        return _relative(m.group("rel"), ref), end
    m = re.search(r"\b(?:on\s+)?" + _ISO, s)
    if m:
        return date.fromisoformat(m.group("iso")), end
    m = re.search(r"\b" + _DAY_MONTH + r"\b", s)
    if m:
        base = _month_date(m.group("mon"), m.group("dy"), ref, future=False)
        try:
            return base.replace(day=int(m.group("day"))), end
        except ValueError:
            return base, end
    m = re.search(r"\b(?:in|from|back in)\s+" + _MONTH_RE + r"(?:\s+(?P<year>\d{4}))?\b", s)
    if m:
        return _month_date(m.group("mon"), m.group("year"), ref, future=False), end
    m = re.search(r"\b(?:in|from|back in)\s+(?P<y>(?:19|20)\d\d)\b", s)
    if m:
        return date(int(m.group("y")), 1, 1), end
    return None, end


# --- sentence handlers ------------------------------------------------------------------------
_HEDGE = re.compile(r"\b(?:i think|maybe|perhaps|might|probably|not sure|i guess|possibly)\b", re.IGNORECASE)
_CORRECTION = re.compile(r"\b(?:no,?\s+)?(?:that'?s|that is|thats)\s+(?:wrong|not right|not true|incorrect)\b|\bactually,?\s+no\b|\bi never said\b", re.IGNORECASE)
_NOT_THINGS = {"question", "problem", "issue", "idea", "moment", "minute", "second", "meeting",
               "rota", "shift", "week", "day", "deadline", "job", "plan", "lot", "flight", "trip",
               "headache", "cold", "break", "holiday", "party", "date", "talk", "chat", "word",
               "call", "feeling", "doubt", "bit", "few", "look", "go", "chance", "clue",
               "appointment", "sec", "quick"}


class _Found:
    def __init__(self, text: str, ftype: FactType, conf: float = 0.85, *,
                 previous: str | None = None, change: bool = False):
        self.text, self.ftype, self.conf = text, ftype, conf
        self.previous = previous  # a value the user says no longer holds
        self.change = change


def _location(s: str) -> list[_Found]:
    out: list[_Found] = []
    left = None
    m = re.search(r"\b(?:we|i)\s+(?:have\s+|'ve\s+)?(?:left|moved\s+(?:away\s+)?from|moved\s+out\s+of)\s+" + _PLACE, s, re.IGNORECASE)
    if m:
        left = _place(m.group("v"))
    m = re.search(r"\b(?:no\s+longer|don'?t|do\s+not)\s+(?:live|living)\s+in\s+" + _PLACE + r"(?:\s+any\s*more)?", s, re.IGNORECASE)
    if m and (re.search(r"no\s+longer|any\s*more", s, re.IGNORECASE)):
        left = _place(m.group("v"))
    patterns = [
        r"\b(?:i|we)\s+(?:now\s+|currently\s+|still\s+)?(?:live|reside)\s+in\s+" + _PLACE,
        r"\b(?:i'?m|i\s+am|we'?re|we\s+are|i'?ve\s+been|we'?ve\s+been|i\s+have\s+been|we\s+have\s+been)\s+(?:now\s+|currently\s+|still\s+)?(?:living|based|settled|staying|residing)\s+(?:in|out\s+of)\s+" + _PLACE,
        r"\b(?:moved|relocated|moving|relocating)\s+(?:back\s+)?(?:over\s+)?to\s+" + _PLACE,
        r"\bhome\s+is\s+(?:now\s+)?" + _PLACE,
        r"\bback\s+in\s+" + _PLACE + r"\s+(?:these\s+days|now|for\s+good)",
        r"(?:^|,\s*|\b(?i:i'?m|we'?re|i\s+am|we\s+are)\s+(?i:now\s+)?)(?i:in)\s+(?P<v>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,2})\s+now\b",
        r"\b(?P<v>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,2})\s+(?i:is\s+(?:where\s+(?:i|we)\s+live|(?:my|our)\s+home(?:\s+now)?|home\s+now))\b",
        r"\bmy\s+(?:home\s+)?(?:city|town)\s+is\s+(?:now\s+)?" + _PLACE,
    ]
    for p in patterns:
        m = re.search(p, s, re.IGNORECASE if "[A-Z]" not in p[:40] else 0)
        if m:
            place = _place(m.group("v"))
            if place and place.lower() not in {"a", "the", "my", "our", "here", "there"}:
                out.append(_Found(f"Lives in {place}", FactType.IDENTITY, previous=left,
                                  change=left is not None or bool(re.search(r"\bmoved|relocat|now\b", s, re.IGNORECASE))))
                return out
    if left:
        out.append(_Found(f"Moved away from {left}", FactType.IDENTITY, previous=left, change=True))
    return out


def _owns(obj: str) -> str:
    obj = _clean(obj)
    return f"Owns {'an' if obj[:1].lower() in 'aeiou' else 'a'} {obj}"


def _possessions(s: str) -> list[_Found]:
    m = re.search(r"\b(?:upgraded|switched|changed)\s+(?:my\s+\w+\s+)?to\s+(?:a|an|the)?\s*" + _VAL, s, re.IGNORECASE)
    if m:
        prev = re.search(r"\bfrom\s+(?:a|an|the|my)?\s*(?P<p>[\w'’.-]+(?:\s+[\w'’.-]+){0,3}?)(?=\s+to\b)", s, re.IGNORECASE)
        return [_Found(_owns(m.group("v")), FactType.WORLD,
                       previous=prev.group("p") if prev else None, change=True)]
    m = re.search(r"\breplaced\s+(?:my|the|our)\s+(?P<p>[\w'’.-]+(?:\s+[\w'’.-]+){0,3}?)\s+with\s+(?:a|an|the)?\s*" + _VAL, s, re.IGNORECASE)
    if m:
        return [_Found(_owns(m.group("v")), FactType.WORLD, previous=m.group("p"), change=True)]
    m = re.search(r"\b(?:i|we)\s+(?:now\s+)?(?:have|own|bought|got|use|'ve\s+got|have\s+got|just\s+got|just\s+bought)\s+(?:a|an|the|two|new|one)\s+(?:new\s+)?" + _VAL, s, re.IGNORECASE)
    if m:
        obj = _clean(m.group("v"))
        if obj and not set(obj.lower().split()) & _NOT_THINGS and not re.match(r"^(?:to|been)\b", obj):
            return [_Found(_owns(obj), FactType.WORLD)]
    return []


_CHANNEL = r"(?P<ch>email|e-mail|phone\s+calls?|phone|calls?|texts?|sms|live\s+chat|chat|whatsapp)"


def _preferences(s: str) -> list[_Found]:
    out: list[_Found] = []
    m = re.search(r"\b(?:contact\s+me|reach\s+me|get\s+in\s+touch)\s+(?:by|via|over|through)\s+" + _CHANNEL, s, re.IGNORECASE) \
        or re.search(r"\bi(?:'d|\s+would)?\s+(?:now\s+)?(?:prefer|rather)\s+(?:to\s+be\s+contacted\s+by\s+|be\s+contacted\s+by\s+)?" + _CHANNEL + r"\b", s, re.IGNORECASE)
    if m:
        ch = m.group("ch").lower().replace("e-mail", "email")
        return [_Found(f"Prefers {ch}", FactType.PREFERENCE,
                       change=bool(re.search(r"\bnow\b|instead|rather than|any\s*more|no longer", s, re.IGNORECASE)))]
    m = (re.search(r"\bi\s+(?:don'?t|do\s+not)\s+(?:like|enjoy|want|drink|eat)\s+" + _VAL + r"\s+any\s*more", s, re.IGNORECASE)
         or re.search(r"\bi\s+no\s+longer\s+(?:like|enjoy|want|drink|eat)\s+" + _VAL, s, re.IGNORECASE)
         or re.search(r"\bi(?:\s+have|'ve)?\s+(?:went|gone)\s+off\s+" + _VAL, s, re.IGNORECASE))
    if m:
        obj = _clean(m.group("v"))
        return [_Found(f"No longer likes {obj}", FactType.PREFERENCE, previous=obj, change=True)]
    m = re.search(r"\bi(?:'d|\s+would)?\s+(?:really\s+|now\s+|much\s+|actually\s+)?(?:prefer|rather\s+have)\s+" + _VAL, s, re.IGNORECASE)
    if m:
        prev = re.search(r"\b(?:over|instead\s+of|rather\s+than|to)\s+(?P<p>[\w'’-]+(?:\s+[\w'’-]+){0,2})", s[m.end("v"):], re.IGNORECASE)
        sw = re.search(r"\bswitched\s+from\s+(?P<p>[\w'’-]+(?:\s+[\w'’-]+){0,2}?)\s+to\b", s, re.IGNORECASE)
        said = prev or sw
        previous = said.group("p") if said else None
        out.append(_Found(f"Prefers {_clean(m.group('v'))}", FactType.PREFERENCE,
                          previous=previous, change=previous is not None))
        return out
    m = re.search(r"\bi\s+(?:really\s+)?(?:(?P<neg>don'?t|do\s+not)\s+(?:like|enjoy)|(?P<hate>hate|dislike|can'?t\s+stand|detest))\s+" + _VAL, s, re.IGNORECASE)
    if m:
        return [_Found(f"Dislikes {_clean(m.group('v'))}", FactType.PREFERENCE)]
    m = re.search(r"\bi\s+(?:really\s+|now\s+|also\s+|might\s+|may\s+|probably\s+)?(?P<verb>like|love|enjoy|adore)\s+" + _VAL, s, re.IGNORECASE)
    if m and not re.match(r"^(?:to|it|that|this|the\s+idea)\b", m.group("v"), re.IGNORECASE):
        return [_Found(f"Likes {_clean(m.group('v'))}", FactType.PREFERENCE)]
    return out


def _identity(s: str) -> list[_Found]:
    # A name is capitalised: "call me back" / "call me and not ..." are not names.
    m = re.search(r"\b(?i:my\s+name\s+is|call\s+me|i\s+go\s+by)\s+(?P<v>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?)", s)
    if m:
        return [_Found(f"Name is {_place(m.group('v'))}", FactType.IDENTITY, 0.9)]
    m = re.search(r"\bi\s+work\s+as\s+(?:a|an)\s+" + _VAL, s, re.IGNORECASE) or \
        re.search(r"\bmy\s+job\s+is\s+(?:a|an)?\s*" + _VAL, s, re.IGNORECASE) or \
        re.search(r"\bi'?m\s+(?:a|an)\s+(?P<v>[\w-]+(?:\s+[\w-]+)?)\s+by\s+(?:trade|profession)", s, re.IGNORECASE)
    if m:
        job = _clean(m.group("v"))
        art = "an" if job[:1].lower() in "aeiou" else "a"
        return [_Found(f"Works as {art} {job}", FactType.IDENTITY)]
    m = re.search(r"\bi\s+(?:now\s+)?work\s+(?:at|for)\s+" + _VAL, s, re.IGNORECASE)
    if m:
        return [_Found(f"Works at {_clean(m.group('v'))}", FactType.IDENTITY,
                       change=bool(re.search(r"\bnow\b|new job|started", s, re.IGNORECASE)))]
    m = re.search(r"\bi'?m\s+(?P<n>\d{1,3})\s+(?:years?\s+old|now)\b|\bi\s+am\s+(?P<n2>\d{1,3})\s+years?\s+old", s, re.IGNORECASE)
    if m:
        return [_Found(f"Is {m.group('n') or m.group('n2')} years old", FactType.IDENTITY)]
    m = re.search(r"\bmy\s+pronouns\s+are\s+(?P<v>\w+/\w+)", s, re.IGNORECASE)
    if m:
        return [_Found(f"Uses {m.group('v').lower()} pronouns", FactType.IDENTITY, 0.9)]
    return []


_DIETS = r"(?P<d>vegetarian|vegan|pescatarian|gluten-free|coeliac|celiac|lactose\s+intolerant|halal|kosher|diabetic)"


def _constraints(s: str) -> list[_Found]:
    m = re.search(r"\b(?:i'?m|i\s+am|i've\s+become|i\s+became|i\s+(?:might|may|could)\s+be)\s+(?:severely\s+|very\s+|badly\s+|slightly\s+)?allergic\s+to\s+" + _VAL, s, re.IGNORECASE) \
        or re.search(r"\b(?:i\s+have\s+(?:a|an)\s+)(?P<v>[\w-]+(?:\s+[\w-]+)?)\s+allergy\b", s, re.IGNORECASE) \
        or re.search(r"\ballergy\s+to\s+" + _VAL, s, re.IGNORECASE)
    if m:
        allergen = re.sub(r"^(?:severe|mild|bad|serious|slight|strong)\s+", "",
                          _clean(m.group("v")).lower())
        return [_Found(f"Allergic to {allergen}", FactType.CONSTRAINT, 0.95)]
    m = re.search(r"\b(?:i'?m|i\s+am|we'?re)\s+(?P<no>no\s+longer\s+|not\s+)?" + _DIETS, s, re.IGNORECASE)
    if m and not (m.group("no") or "").lower().startswith("not"):
        diet = " ".join(m.group("d").lower().split())
        if m.group("no"):
            return [_Found(f"Is no longer {diet}", FactType.CONSTRAINT, previous=diet, change=True)]
        return [_Found(f"Is {diet}", FactType.CONSTRAINT, 0.9)]
    m = re.search(r"\bi\s+(?:can'?t|cannot|don'?t|do\s+not|never)\s+eat\s+" + _VAL, s, re.IGNORECASE)
    if m:
        return [_Found(f"Does not eat {_clean(m.group('v')).lower()}", FactType.CONSTRAINT, 0.9)]
    m = re.search(r"\bi\s+(?:can'?t|cannot)\s+(?P<verb>use|climb|drive|hear|see|read|do|take|walk)\s+" + _VAL, s, re.IGNORECASE)
    if m:
        return [_Found(f"Cannot {m.group('verb').lower()} {_clean(m.group('v'))}", FactType.CONSTRAINT)]
    m = re.search(r"\b(?:don'?t|do\s+not|never)\s+(?:call|contact|phone|ring)\s+(?:me\s+)?(?P<w>before|after|on)\s+" + _VAL, s, re.IGNORECASE)
    if m:
        return [_Found(f"Do not contact {m.group('w').lower()} {_clean(m.group('v'))}", FactType.CONSTRAINT, 0.9)]
    return []


_HANDLERS = (_location, _constraints, _identity, _possessions, _preferences)
_DENIAL = re.compile(r"\b(?:i|we)\s+(?:have\s+|'ve\s+)?never\s+(?:lived|been|owned|had|worked|liked|said|eaten|used|bought)\b(?P<rest>[^.;!?]*)"
                     r"|\b(?:i'?m|i\s+am)\s+not\s+(?P<rest2>vegetarian|vegan|pescatarian|married|single|allergic[^.;!?]*|afraid[^.;!?]*|(?:a|an)\s+(?!\w+ing\b)[\w-]+(?:\s+[\w-]+)?)\b(?![^.;!?]*\bany\s*more)", re.IGNORECASE)
_SUCCESS = re.compile(r"\b(?:that|it|this|which)\s+(?:worked|did\s+the\s+trick|fixed\s+it|helped|sorted\s+it)\b|\bworks\s+now\b|\b(?:fixed|solved|sorted)\s+now\b|\bworking\s+again\b|\bproblem\s+solved\b|\bthat\s+solved\b", re.IGNORECASE)
_FAILURE = re.compile(r"\bstill\s+(?:broken|not\s+working|doesn'?t\s+work|failing|dropping|the\s+same|crashing|happening)\b|\b(?:didn'?t|did\s+not|doesn'?t|does\s+not)\s+(?:work|help|fix)\b|\bno\s+luck\b|\bsame\s+problem\b", re.IGNORECASE)
_FIX = re.compile(r"\b(?:what\s+(?:fixed|solved)\s+it\s+was|i\s+fixed\s+it\s+by|fixed\s+it\s+by|the\s+fix\s+was|the\s+trick\s+was|the\s+solution\s+was|it\s+worked\s+(?:after|when)\s+i)\s*:?\s*(?P<steps>.+)$", re.IGNORECASE)
_SPLIT_STEPS = re.compile(r"\s*(?:,\s*(?:and\s+)?(?:then\s+)?|;\s*|\s+and\s+then\s+|\s+then\s+|\s+and\s+)\s*", re.IGNORECASE)


_CLAUSE = re.compile(r"\s*,?\s+(?:and|but|also|plus)\s+(?=(?:i|i'm|i've|i'd|we|we're|we've|my|our)\b)", re.IGNORECASE)


def sentences(text: str) -> list[str]:
    """Sentences, further split where "and I ..." / "but we ..." starts a new statement."""
    out = []
    for part in re.split(r"(?<=[.!?;])\s+|\n+", text):
        out += [c.strip() for c in _CLAUSE.split(part) if c.strip()]
    return out


class _Shown:
    """The shown active facts with their tokens and slots, computed once per extraction."""

    def __init__(self, facts: list[FactView]):
        self.rows = [(f, content_tokens(f.text), slot_of(f.text), normalise(f.text))
                     for f in facts if f.state == "active"]
        self.by_slot: dict[str, list[tuple[FactView, str]]] = {}
        for f, _, slot, key in self.rows:
            if slot:
                self.by_slot.setdefault(slot, []).append((f, key))

    def best(self, text: str, *, slot: str | None = None) -> FactView | None:
        """The fact this text most plausibly refers to (shared content words)."""
        want = content_tokens(text)
        best, best_score = None, 0
        for f, toks, fslot, _ in self.rows:
            score = len(want & toks) + (1 if slot and fslot == slot else 0)
            if score > best_score:
                best, best_score = f, score
        return best

    def same_slot(self, slot: str | None, text: str) -> FactView | None:
        """The latest shown fact in this slot with a different value (a restatement whose
        words the stored fact already contains is not a change)."""
        key, words_ = normalise(text), content_tokens(text)
        for f, fkey in reversed(self.by_slot.get(slot or "", [])):
            if fkey != key and not words_ <= content_tokens(f.text):
                return f
        return None


def _topic(ep: EpisodeView, history: list[EpisodeView]) -> str:
    """The problem a fix refers to: the user's previous message in the session, if any."""
    prior = [e for e in history if e.timestamp <= ep.timestamp and e.id != ep.id
             and (ep.session_id is None or e.session_id == ep.session_id)]
    return prior[-1].text if prior else ep.text


def extract(req: ExtractionInput) -> Extraction:
    out = Extraction()
    facts = _Shown(req.facts)
    history = sorted(req.episodes, key=lambda e: (e.timestamp, e.id))
    for ep in history:
        if not ep.new:
            continue
        ref = ep.timestamp.date()
        correction = bool(_CORRECTION.search(ep.text))
        for s in sentences(ep.text):
            _feedback(s, ep, history, req, out)
            fix = _FIX.search(s)
            if fix:
                _playbook(s, fix, ep, history, out)
                continue
            d = _DENIAL.search(s)
            if d:
                rest = (d.group("rest") or d.group("rest2") or "").strip()
                target = facts.best(rest or s)
                out.denials.append(ExtractedDenial(
                    text=s, target_id=target.id if target else None, evidence=[ep.id],
                    reason="the user says this was never true"))
                continue
            hedge = bool(_HEDGE.search(s))
            start, end = dates_in(s, ref)
            for handler in _HANDLERS:
                found = handler(s)
                if not found:
                    continue
                for f in found:
                    _emit(f, s, ep, facts, out, hedge=hedge, correction=correction,
                          start=start, end=end)
                break
    return out


def _emit(f: _Found, s: str, ep: EpisodeView, facts: _Shown, out: Extraction, *,
          hedge: bool, correction: bool, start: date | None, end: date | None) -> None:
    slot = slot_of(f.text)
    old = None
    if f.previous:
        cand = facts.best(f.previous, slot=slot)
        if cand and content_tokens(f.previous) & content_tokens(cand.text):
            old = cand
    old = old or facts.same_slot(slot, f.text)
    contradiction = None
    if old is not None:
        contradiction = Contradiction.HARSH if correction else Contradiction.NATURAL
    conf = min(f.conf, 0.55) if hedge else f.conf
    why = "user states it in their own words"
    if old is not None:
        why = (f"user corrects {old.text!r}" if correction
               else f"user reports a change from {old.text!r}")
    out.facts.append(ExtractedFact(
        text=f.text, fact_type=f.ftype, slot=slot, confidence=conf, evidence=[ep.id],
        supersedes_id=old.id if old else None, contradiction=contradiction,
        valid_from=start, valid_to=end, reason=why + (" (hedged)" if hedge else "")))


def _feedback(s: str, ep: EpisodeView, history: list[EpisodeView], req: ExtractionInput,
              out: Extraction) -> None:
    ok, bad = _SUCCESS.search(s), _FAILURE.search(s)
    if not (ok or bad) or not req.playbooks:
        return
    context = " ".join([s, _topic(ep, history), *req.assistant_context[-1:]])
    want = content_tokens(context)
    best, best_score = None, 0
    for pb in req.playbooks:
        score = len(want & content_tokens(" ".join([pb.name, pb.trigger, *pb.steps])))
        if score > best_score:
            best, best_score = pb, score
    if best is None:
        return
    outcome = "failure" if bad else "success"
    if any(fb.playbook_id == best.id and ep.id in fb.evidence for fb in out.feedback):
        return
    out.feedback.append(ExtractedFeedback(
        playbook_id=best.id, outcome=outcome, evidence=[ep.id],
        reason=f"user reports the advice {'failed' if bad else 'worked'}: {s!r}"))


def _playbook(s: str, fix: re.Match, ep: EpisodeView, history: list[EpisodeView],
              out: Extraction) -> None:
    steps = [st.strip(" .") for st in _SPLIT_STEPS.split(fix.group("steps")) if st.strip(" .")]
    if not steps:
        return
    topic = _topic(ep, history)
    before = _HEDGE.sub("", s[:fix.start()]).strip(" ,.")
    trigger = before if len(content_tokens(before)) >= 2 else topic
    short = re.sub(r"^(?:my|our|the)\s+", "", " ".join(trigger.split()[:8]), flags=re.IGNORECASE)
    name = "Fix: " + short.rstrip(" .,!?")
    conf = 0.6 if _HEDGE.search(s) else 0.85
    out.playbooks.append(ExtractedPlaybook(
        name=name, trigger=trigger[:500], steps=[_cap(x) for x in steps], confidence=conf,
        evidence=[ep.id], reason="the user says these steps fixed it" + (" (hedged)" if conf < 0.8 else "")))
