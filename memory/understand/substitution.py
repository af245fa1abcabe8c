"""A change said as a substitution inside a fact on record (invariants 375, 376, 395, 400).

People often tell a change by naming only the part that changed, in words that fit no reader of
a kind of statement: "Helio moved the platform from GKE to EKS", "my dotfiles moved from chezmoi
to a Nix setup last week", "Home Assistant backs up to a Synology NAS now instead of Google
Drive", "my EpiPens go in a pouch on my belt now, not the handbag", "Loganair raised the hold
bag limit to 20 kg", "we're up to fifteen Hue bulbs now". Each names an old value (or a count)
that a fact on record says, and the new one: the fact keeps its own words with the one part
put in its place ("Helio's platform runs on Kubernetes on EKS").

`substitution(clause, today)` reads the clause into a statement (pure); which fact it changes,
and the new text, only the agent can tell from what it recalled: `replace_value` and
`replace_count` (pure) do the rewriting, and return None when the fact does not say the old
part exactly once. Nothing is written without such a fact: a substitution with nothing to
substitute in is no statement about the user (a wrong write is worse than a missed one).
This reader runs only on a clause no other reader understood.
"""

from __future__ import annotations

import re
from datetime import date

from ..text import STOP_WORDS, stem, term_set
from . import lexicon as lx
from .dates import find_dates
from .model import Statement
from .phrases import HEDGE_RE, I, tidy

_DET = r"(?:my|our|the|a|an|his|her|their|its|this|that)"
_VERB = (r"(?:moved|moving|moves|switched|switching|switches|migrated|migrating|migrates|changed|"
         r"changing|swapped|swapping|converted|converting|ported|porting|upgraded|upgrading|"
         r"downgraded|downgrading|transferred|transferring|shifted|shifting|"
         r"changed\s+over|switched\s+over|moved\s+over)")
# "… from GKE to EKS", "… off chezmoi onto home-manager", "… from WhatsApp over to Signal"
_FROM_TO = re.compile(r"\b" + _VERB + r"\b(?P<mid>[^,;.!?]{0,60}?)\s+(?:from|off)\s+(?P<a>[^,;.!?]+?)\s+"
                      r"(?:and\s+)?(?:to|onto|over\s+to|into)\s+(?P<b>[^,;.!?]+)", I)
# "… now instead of Google Drive", "…, rather than the handbag"
_INSTEAD = re.compile(r"^(?P<head>.+?)\s*,?\s+(?:now\s+)?(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+"
                      r"(?P<a>[^,;.!?]+?)\s*(?:now)?[.!]*$", I)
# "… now, not the handbag", "… these days, not Tuesdays any more"
_NOT = re.compile(r"^(?P<head>.+?)\s*,?\s+(?:and\s+)?not\s+(?:in|on|at|to|with|by|from|via)?\s*"
                  r"(?P<a>[^,;.!?]+?)(?:\s+any\s*more|\s+any\s+longer)?[.!]*$", I)
# "… doesn't record to the SD card any more, it goes to the NAS"
_ENDED_THEN = re.compile(r"^(?P<neg>.+?\b(?:doesn'?t|don'?t|isn'?t|aren'?t|won'?t|no\s+longer|not|never)\b.+?)"
                         r"\s+(?:any\s*more|any\s+longer)\s*[,;]\s*(?:but\s+|now\s+|so\s+)?(?P<head>.+)$", I)
# "tinylog uses SQLite now", "the boiler runs on a timer these days": a thing, its verb, its new object
_SUBJECT_NOW = re.compile(r"^(?P<s>(?:(?:my|our|the)\s+)?[\w'’&-]+(?:\s+[\w'’&-]+){0,3}?)\s+(?P<v>[a-z]{3,}s)\s+"
                          r"(?P<o>[^,;.!?]+?)\s+(?:now|these\s+days|nowadays)\b(?P<rest>.*)$", I)
_NOT_SUBJECT = frozenset("""i i'm im we we're you he she they it it's this that there here who what
    which everyone everybody nobody someone somebody mum mom dad""".split())
# A group names no one thing: "the team uses Linear now" is not the platform team's Terraform
_GROUP_SUBJECT = frozenset(stem(w) for w in """team teams family group company office work job school
    household kids children people everyone staff department class club""".split())
_NOW = re.compile(r"\b(?:now|these\s+days|nowadays|any\s*more|any\s+longer|from\s+now\s+on|since|"
                  r"switched|moved|changed)\b", I)
# What follows a new value and is not part of it: when, how often, why.
_VALUE_END = re.compile(r"\s+(?:(?:in|on|from|since|by|at\s+the\s+(?:start|end)\s+of|starting|as\s+of)\s+"
                        r"(?:the\s+)?(?:\d|next|this|last|monday|tuesday|wednesday|thursday|friday|"
                        r"saturday|sunday|january|february|march|april|may|june|july|august|september|"
                        r"october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|"
                        r"spring|summer|autumn|fall|winter|new\s+year)|last\s+\w+|this\s+\w+|next\s+\w+|"
                        r"yesterday|today|tomorrow|tonight|now|again|already|finally|every\s+\w+|each\s+\w+|"
                        r"nightly|daily|weekly|these\s+days|nowadays|because|as|so|and|but|since|after|"
                        r"before|when|though|which|instead|too|also|for\s+(?:good|now|a\s+while))\b.*$", I)
_NOT_VALUE = frozenset("""it it's its this that these those them they he she him her me i we you
    us now then here there something nothing everything anything one ones same other another
    work home again""".split())
_HYPOTHETICAL = re.compile(r"\b(?:if|unless|whether|would|wouldn'?t|could|might|may|maybe|perhaps|"
                           r"should|thinking\s+(?:of|about)|considering|planning|plan\s+to|want\s+to|"
                           r"wants\s+to|hope|hoping|wish)\b|\?\s*$", I)
# Someone else's switch ("my brother switched his newsletter …"): the lexicon's relatives, and
# the people around the user who are no relatives
_THIRD_PARTY = re.compile(r"^(?:my|our|her|his|their)\s+(?:" + "|".join(sorted(
    lx.RELATIONS | {"friend", "boss", "manager", "colleague", "neighbour", "neighbor", "flatmate", "roommate",
                    "kid", "kids", "children", "parents"}, key=len, reverse=True)) + r")\b(?!['’]s)", I)


def _np(text: str, *, keep_det: bool = False) -> str:
    """A value without trailing time or reason words (and without its determiner, unless kept)."""
    v = _VALUE_END.sub("", " " + text.strip()).strip()
    return tidy(v if keep_det else re.sub(r"^" + _DET + r"\s+", "", v, flags=I))


def _valid(value: str, most: int) -> bool:
    ws = re.findall(r"[\w'’+&.-]+", value)
    return 0 < len(ws) <= most and not all(w.lower() in _NOT_VALUE | STOP_WORDS for w in ws) \
        and ws[0].lower() not in _NOT_VALUE


# Counts: "up to fifteen Hue bulbs", "raised the limit to 20 kg", "down to two coffees a day".
_NUM_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}
_NUM_WORDS.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "hundred": 100})
_NUM = r"(?:\d+(?:[.,]\d+)?|" + "|".join(sorted(_NUM_WORDS, key=len, reverse=True)) + r")"
_UNIT = r"(?P<unit>[a-zA-Z£€$%][\w'’-]*(?:\s+(?!(?:a|an|the|per|each|every|now|for|in|on|at|to|from|and|but|so|"\
        r"because|since|i|we)\b)[a-zA-Z][\w'’-]*){0,2})"
_COUNT = re.compile(r"\b(?:(?:up|down|back)\s+to|(?:raised|lowered|increased|reduced|cut|dropped|bumped|upped|"
                    r"put\s+up|brought\s+down|changed|moved|went\s+up|went\s+down|gone\s+up|gone\s+down)\b"
                    r"[^,;.!?]{0,50}?\bto)\s+(?:(?P<cur>[£€$])(?P<money>\d[\d,]*(?:\.\d+)?)|(?P<n>" + _NUM
                    + r")\s*" + _UNIT + r")", I)
# Units too common to say on their own which fact is meant.
_GENERIC_UNITS = frozenset(stem(w) for w in """day days week weeks month months year years hour hours
    minute minutes time times people person thing things one ones more less pound pounds euro euros
    dollar dollars percent""".split())


def substitution(clause: str, message: str, today: date) -> Statement | None:
    """The substitution said in one clause no other reader understood, or None. Pure."""
    c = clause.strip()
    if not c or _HYPOTHETICAL.search(c) or _THIRD_PARTY.match(c):
        return None
    dates = find_dates(c, today)
    if dates.found and all(re.fullmatch(r"(?:this|that)\s+(?:year|month|week|time)", f.strip(), I)
                           for f in dates.found):
        dates = find_dates("", today)  # "instead of Leeds this year": which time, not since when
    hedged = bool(HEDGE_RE.search(c))
    conf = 0.55 if hedged else 0.85
    m = _COUNT.search(c)
    if m and m.group("cur"):  # "Sky's gone up to £78 a month": the price on record
        return Statement(act="change", text=m.group("cur") + m.group("money"), previous=m.group("cur"),
                         target=c, clause=c, rule="swap:count", valid_from=dates.valid_from,
                         confidence=conf)
    if m:
        n, unit = m.group("n"), _np(m.group("unit"))
        if unit and _valid(unit, 3):
            return Statement(act="change", text=f"{n} {unit}", previous=unit,
                             target=c, clause=c, rule="swap:count",
                             valid_from=dates.valid_from, confidence=conf)
    m = _FROM_TO.search(c)
    if m:
        a, b = _np(m.group("a")), _np(m.group("b"), keep_det=True)
        if _valid(a, 4) and _valid(b, 5) and term_set(a) != term_set(b):
            return Statement(act="change", text=b, previous=a, target=tidy(c[:m.start()] + " " + m.group("mid")),
                             clause=c, rule="swap:value", valid_from=dates.valid_from, confidence=conf)
    m = _SUBJECT_NOW.match(c)
    if m and m.group("s").split()[0].lower() not in _NOT_SUBJECT and \
            m.group("v").lower() not in ("is", "was", "does", "says", "thinks", "reckons", "seems", "looks") and \
            _valid(_np(m.group("o"), keep_det=True), 6):
        # Invariant 395: "tinylog uses SQLite now": what a thing of the user's does, changed
        return Statement(act="change", text=_np(m.group("o"), keep_det=True), previous=m.group("v"),
                         target=m.group("s"), clause=c, rule="swap:verb", valid_from=dates.valid_from,
                         confidence=conf)
    m = _ENDED_THEN.match(c)
    if m:
        # "the camera doesn't record to the SD card any more, it goes to the NAS": the old value
        # is what the ended clause did it to; the new one is said after the comma
        prep = re.search(r"\b(?:in|on|at|to|with|by|via|from|into|onto|for|through)\s+(?P<a>[^,;]+?)$",
                         m.group("neg").strip(), I)
        a = _np(prep.group("a")) if prep else ""
        if a and _valid(a, 4):
            return Statement(act="change", text=None, previous=a, target=m.group("head").strip(),
                             clause=c, rule="swap:aligned", valid_from=dates.valid_from,
                             confidence=conf)
    for pat in (_INSTEAD, _NOT):
        m = pat.match(c)
        if m is None:
            continue
        if pat is _NOT and not (_NOW.search(m.group("head")) or _NOW.search(c[m.end("a"):]) or
                                re.search(r"\bany\s*more\b|\bany\s+longer\b", c, I)):
            continue  # "X, not Y" said without a change is a correction: the denials' reader
        a = _np(m.group("a"))
        if _valid(a, 4):
            return Statement(act="change", text=None, previous=a, target=m.group("head").strip(),
                             clause=c, rule="swap:aligned", valid_from=dates.valid_from,
                             confidence=conf)
    return None


def _span(fact: str, value: str) -> re.Match[str] | None:
    """Where the fact says the value (with its determiner), when it says it exactly once."""
    words = [re.escape(w) for w in re.findall(r"[\w'’+&.-]+", value)]
    if not words:
        return None
    pat = r"(?<![\w-])(?:" + _DET + r"\s+)?" + r"[\s-]+".join(words) + r"(?![\w-])"
    found = list(re.finditer(pat, fact, I))
    return found[0] if len(found) == 1 else None


def _possessive(fact: str) -> str:
    m = re.search(r"\b(her|his|their)\b", fact, I)
    return m.group(1).lower() if m else "their"


def _as_said(new: str, fact: str) -> str:
    """The new value in the fact's voice: "my belt" is "her belt" in a fact about her."""
    who = _possessive(fact)
    return re.sub(r"\b(?:my|our)\b", who, new, flags=I)


def replace_value(fact: str, old: str, new: str) -> str | None:
    """Invariant 375: the fact with the old value put right. Pure."""
    m = _span(fact, old)
    if m is None:
        return None
    det = re.match(_DET + r"\s+", m.group(0), I)
    new = _as_said(new, fact)
    kept = det.group(0).strip().lower() if det else ""
    if det and kept not in ("a", "an") and not re.match(_DET + r"\s+", new, I) and \
            not (kept in ("the", "this", "that") and new[:1].isupper()):
        # "her handbag" -> "her pouch"; a new value's own article wins, a name takes none
        new = det.group(0) + new
    out = fact[:m.start()] + new + fact[m.end():]
    # "Uses ZHA rather than Zigbee2MQTT for now" with ZHA -> Zigbee2MQTT: the rival it named is
    # now the value, so the comparison goes ("Uses Zigbee2MQTT")
    bare = re.sub(r"^" + _DET + r"\s+", "", new, flags=I)
    out = re.sub(r"\s+(?:rather\s+than|instead\s+of|over|not|and\s+not)\s+(?:" + _DET + r"\s+)?"
                 + re.escape(bare) + r"(?:\s+for\s+now)?(?=$|[,;.])", "", out, flags=I)
    return out[:1].upper() + out[1:]


def aligned_value(fact: str, old: str, head: str) -> str | None:
    """Invariant 375: "go in a pouch on my belt now, not the handbag" over "EpiPens travel in her
    handbag": the word before the old value in the fact ("in") finds the new value in what the
    user said ("a pouch on my belt"). None when the user's words do not hold that word. Pure."""
    m = _span(fact, old)
    if m is None:
        return None
    before = re.findall(r"[\w'’-]+", fact[:m.start()])
    if not before:
        return None
    lead = before[-1]
    if lead.lower() in STOP_WORDS and lead.lower() not in ("in", "on", "at", "to", "with", "by", "via",
                                                           "from", "into", "onto", "for", "uses", "use"):
        return None
    hits = list(re.finditer(r"(?<![\w'’-])" + re.escape(lead) + r"(?![\w'’-])", head, I))
    if not hits and lead.lower() in _PLACE_PREPS:
        # "on the pavement" then "they go in the back lane": a place said with another preposition
        hits = list(re.finditer(r"(?<![\w'’-])(?:" + "|".join(_PLACE_PREPS) + r")(?![\w'’-])", head, I))
    if not hits:
        return None
    new = _np(head[hits[-1].end():], keep_det=True)
    if not _valid(new, 8) or term_set(new) <= term_set(fact):
        return None
    return replace_value(fact, old, new)


_PLACE_PREPS = ("in", "on", "at", "into", "onto", "under", "inside", "behind", "beside", "by")


def _number(token: str) -> float | None:
    t = token.lower().replace(",", ".")
    if t in _NUM_WORDS:
        return float(_NUM_WORDS[t])
    try:
        return float(t)
    except ValueError:
        return None


def replace_count(fact: str, new: str, unit: str, topic: str) -> str | None:
    """Invariant 376: "up to fifteen Hue bulbs" over "Has twelve Philips Hue bulbs": the one count
    of that unit in the fact takes the new number. The unit's last word must follow the fact's
    number within three words; a unit as common as "days" must also share a topic word. Pure."""
    if unit in ("£", "€", "$"):
        # a price: the one amount in that currency, and a topic word in common always
        prices = list(re.finditer(re.escape(unit) + r"\s?(\d[\d,]*(?:\.\d+)?)", fact))
        topic_terms = term_set(topic) - {"month", "year", "week"}
        if len(prices) != 1 or prices[0].group(1) == new[1:] or not topic_terms & term_set(fact):
            return None
        return fact[:prices[0].start(1)] + new[1:] + fact[prices[0].end(1):]
    n = new.split()[0]
    head = stem(re.findall(r"[\w'’%£€$-]+", unit)[-1].lower())
    found = []
    for m in re.finditer(r"(?<![\w.])(" + _NUM + r")\s*((?:[\w'’-]+(?:\s+|$)){0,3})", fact, I):
        after = [stem(w.lower()) for w in re.findall(r"[\w'’-]+", m.group(2))]
        if head in after[:4] or (not after and head in ("%",)):
            found.append(m)
    if not found and head in {stem(w.lower()) for w in re.findall(r"[\w'’-]+", fact)}:
        # "down to two espressos a day" over "Drinks a lot of espresso, about four a day": the
        # fact names the unit and says one number only
        found = list(re.finditer(r"(?<![\w.])(" + _NUM + r")(?![\w.])", fact, I))
    if len(found) != 1:
        return None
    m = found[0]
    if _number(m.group(1)) == _number(n):
        return None
    if head in _GENERIC_UNITS or len(head) < 3:
        topic_terms = term_set(topic) - term_set(unit)
        if not topic_terms & term_set(fact):
            return None
    return fact[:m.start(1)] + n + fact[m.end(1):]


def replace_object(fact: str, subject: str, verb: str, new: str) -> str | None:
    """Invariant 395: "tinylog uses SQLite now" over "Side project tinylog is a terminal log viewer
    in Rust that uses DuckDB": in the fact that names the subject and says the verb once, what
    follows the verb up to the end of its clause is the new object. A preposition the new object
    opens with must open the old one too ("runs on a timer" over "runs on the thermostat"). Pure."""
    subject_terms = term_set(re.sub(r"^(?:my|our|the)\s+", "", subject, flags=I))
    if not subject_terms or not subject_terms <= term_set(fact) or subject_terms <= _GROUP_SUBJECT:
        return None
    found = list(re.finditer(r"(?<![\w'’-])" + re.escape(verb) + r"(?![\w'’-])", fact, I))
    if len(found) != 1:
        return None
    tail = fact[found[0].end():]
    end = re.search(r"\s*(?:[,;(]|\s(?:because|but|and|which|so|since|when|while|though)\b)", tail)
    obj = tail[:end.start()] if end else tail
    if not obj.strip():
        return None
    lead_old = obj.split()[0].lower()
    lead_new = new.split()[0].lower()
    preps = {"on", "in", "at", "to", "with", "from", "by", "via", "for", "into", "onto", "through"}
    if (lead_old in preps or lead_new in preps) and lead_old != lead_new:
        return None
    if lead_new not in preps:
        # "runs NixOS" over "Runs Fedora on his laptop": the object ends at its place
        cut = re.search(r"\s(?:on|in|at|for|with|from|by|via|through|during|every|each)\s", obj)
        obj = obj[:cut.start()] if cut else obj
    if term_set(new) <= term_set(obj) or term_set(obj) <= term_set(new):
        return None
    new = _as_said(new, fact)
    return fact[:found[0].end()] + " " + new + tail[len(obj):]


_PRONOUNS = frozenset(stem(w) for w in """i we you he she they it me us them my our your his her their its
    everything all stuff things thing lot whole rest over okay ok so""".split())


def about_the_fact(said_of: str, fact: str, old: str) -> bool:
    """Invariant 400: what the user said the change was of ("the platform", "our mortgage",
    "trains") must be something the fact speaks of, or a word the lexicon gives for it; with
    nothing said it was of, the fact must not be where the user lives ("I changed from Leeds
    to York" is no move). Pure."""
    from ..lexicon import expansions
    from .matching import TEMPLATE, slots_of

    topic = term_set(said_of) - term_set(old) - TEMPLATE - _PRONOUNS
    if topic:
        have = term_set(fact)
        return bool(topic & have or set(expansions(topic, 1.0)) & have)
    return "home" not in slots_of(fact)
