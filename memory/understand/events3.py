"""Events that never happened and hedged health suspicions (invariants 369-374).

"Amara's visit in October never actually happened", "The Fontainebleau trip in September? I
never went", "The Lisbon conference is online only now", "I got injured and pulled out of the
London Marathon": a plan or past event on record that did not take place. "I think Biscuit is
allergic to chicken, the vet isn't sure yet", "Not sure yet, but I think gluten is making me
ill": a suspicion, written for review at low confidence.

`read` takes the sentences of a message it understands and hands back the rest; `event_fact`
picks the one fact on record an event statement is about. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from typing import Protocol

from ..text import STOP_WORDS, term_set
from . import lexicon as lx
from .life2 import pulled_out
from .model import Statement
from .phrases import HYPO_RE, UPPER, I, cap, tidy

# What an event is called: the kind of plan or outing said after its name
EVENT_KINDS = (r"trips?|visits?|holidays?|vacations?|conferences?|weddings?|marathons?|races?|parties|party|"
               r"concerts?|gigs?|appointments?|interviews?|surgery|operations?|exams?|retreats?|workshops?|"
               r"festivals?|tournaments?|matches|match|reunions?|honeymoon|stag(?:\s+do)?|hen(?:\s+do)?|"
               r"tours?|cruises?|flights?|summit|meetup|course|break|getaway|weekend\s+away|"
               r"half(?:\s+marathon)?|10k|5k|triathlon|sportive|camp|show|launch")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
           "october", "november", "december")
_MONTH = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|" \
         r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_WHEN = r"(?:\s+(?:in|on|at|for|back\s+in|this|last)\s+(?:the\s+)?(?P<month>" + _MONTH + r")\b(?:\s+\d{1,2}\w*)?" \
        r"(?:\s+\d{4})?|\s+(?:last|this)\s+(?:year|summer|spring|autumn|winter|month))?"
# "the Texas trip", "Amara's visit", "my cousin's wedding in June", "our Lisbon conference"
_SUBJECT = (r"(?P<subj>(?:(?:the|my|our|that)\s+)?(?:[\w'’-]+['’]s\s+)?(?P<name>(?:[\w'’-]+\s+){0,3}?)"
            r"(?P<kind>" + EVENT_KINDS + r"))" + _WHEN)
_NOT_NAMES = frozenset({"the", "my", "our", "that", "this", "a", "an", "i", "we", "whole", "big", "planned",
                        "little", "last", "next", "first", "long", "weekend", "work", "annual", "usual",
                        "school", "family", "summer", "winter", "spring", "autumn", "christmas", "new"}
                       | set(_MONTHS))
# past tense only: "if the trip never happens" or "it won't happen" is no news (invariant 369)
_DIDNT_HAPPEN = (r"(?:never|didn'?t|did\s+not)\s+(?:actually\s+|really\s+|even\s+|end\s+up\s+|in\s+the\s+end\s+)*"
                 r"(?:happened|happen|took\s+place|take\s+place|went\s+ahead|go\s+ahead|came\s+off|come\s+off)|"
                 r"fell\s+through|never\s+materiali[sz]ed")
_NEVER_HAPPENED = re.compile(r"^\W*(?:(?:so|well|actually|oh|btw|fyi|update)\W+)*" + _SUBJECT +
                             r"\s*,?\s+(?:has\s+|had\s+)?(?:actually\s+|sadly\s+|in\s+the\s+end\s+)?"
                             r"(?:" + _DIDNT_HAPPEN + r")\b(?P<tail>.*)$", I)
# "The Fontainebleau trip in September? I never went": the event named, then a sentence of its own
_TOPIC = re.compile(r"^\W*(?:(?:oh|and|so|re|about|that)\W+)*" + _SUBJECT + r"\s*\?+\s*$", I)
_NEVER_WENT = re.compile(r"^\W*(?:(?:no|nope|well|actually|oh|sadly)\W+)*(?:i|we)\s+(?:never\s+(?:actually\s+|even\s+)*"
                         r"(?:went|made\s+it|got\s+to\s+go)|didn'?t\s+(?:actually\s+|even\s+|end\s+up\s+)*(?:go|make\s+it))"
                         r"(?:\s+in\s+the\s+end|\s+after\s+all)?\s*(?:[,.;!]|$)(?P<tail>.*)$", I)
_IT_NEVER = re.compile(r"^\W*(?:(?:no|nope|well|so|sadly)\W+)*(?:(?:i|we)\s+never\s+(?:actually\s+)?(?:went|made\s+it)|"
                       r"it\s+(?:" + _DIDNT_HAPPEN + r"))\s*[.!]*$", I)
# "I never went to Thailand", "we didn't go to Lisbon in March, that trip got called off"
_NEVER_WENT_TO = re.compile(r"^\W*(?:(?:no|nope|well|actually|oh|sadly)\W+)*(?:i|we)\s+(?P<neg>never|didn'?t|did\s+not)\s+"
                            r"(?:actually\s+|even\s+|end\s+up\s+|ended\s+up\s+|get\s+to\s+)*(?:go|went|going|fly|flew|"
                            r"flying|travel(?:led)?|made\s+it|make\s+it)\s+"
                            r"to\s+(?:the\s+)?(?P<place>" + UPPER + r"[\w'’-]*(?:\s+" + UPPER + r"[\w'’-]*)?)" + _WHEN +
                            r"(?P<tail>.*)$", I)
# "Amara never came in the end", "my mum didn't make it over after all": a visit that never was
_NEVER_CAME = re.compile(r"^\W*(?:(?:no|nope|well|actually|oh|sadly|so)\W+)*(?P<who>(?:my|our)\s+(?:" + "|".join(
    sorted(lx.RELATIONS | {"friend"}, key=len, reverse=True)) + r")(?:\s+" + UPPER + r"[\w'’-]*)?|" + UPPER +
                         r"[\w'’-]+)\s+(?P<neg>never|didn'?t|did\s+not)\s+(?:actually\s+|even\s+|end\s+up\s+)*"
                         r"(?:came|come|visited|visit|made\s+it|make\s+it|turned\s+up|turn\s+up|showed\s+up|show\s+up|"
                         r"came\s+to\s+stay|come\s+to\s+stay)(?:\s+(?:over|to\s+stay|to\s+visit|down|up))?"
                         r"(?:\s+(?:in|on|back\s+in)\s+(?P<month>" + _MONTH + r")\b)?(?P<end>\s+in\s+the\s+end|\s+after\s+all)?"
                         r"\s*(?:[,;.!]|$)", I)
_CALLED_OFF = re.compile(r"\b(?:called\s+off|cancell?ed|cancel|never\s+(?:happened|went)|fell\s+through|"
                         r"pulled\s+out|in\s+the\s+end|after\s+all|didn'?t\s+happen)\b", I)
# "The Lisbon conference is online only now", "the Berlin summit has gone virtual"
_ONLINE = re.compile(r"^\W*(?:(?:so|well|actually|oh|btw|fyi|update)\W+)*" + _SUBJECT + r"\s+(?:is|'s|has|will\s+be|"
                     r"went|has\s+gone|has\s+moved|moved|was\s+moved|got\s+moved|has\s+been\s+moved|switched|"
                     r"has\s+switched|is\s+going|is\s+going\s+to\s+be)\s+(?:now\s+)?(?:to\s+)?(?:fully\s+|entirely\s+|"
                     r"completely\s+)?(?:online|virtual|remote)(?:\s+only)?(?:\s+now)?\b(?P<tail>.*)$", I)
# "I got injured and pulled out of the London Marathon": the subject carried after "and"
_AND_PULLED = re.compile(r"^\W*(?:i|we)\b[^.;!?]*?\s+and\s+(?:then\s+)?(?:had\s+to\s+|have\s+)?"
                         r"(?:pulled\s+out\s+of|withdr[ae]w\s+from|dropped\s+out\s+of)\s+(?P<rest>[^.;!?]+)", I)

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)")


def _sentences(message: str) -> list[str]:
    return [s for s in _SENTENCE.split(message.strip()) if s.strip()]


def _hypothetical(s: str) -> bool:
    return bool(re.match(r"^\W*(?:if|unless|what\s+if|suppose|in\s+case|when|once|whether)\b", s, I)
                or HYPO_RE.search(s) or re.search(r"\b(?:will|won'?t|might|may|could|would)\s+(?:never\s+)?"
                                                  r"(?:happen|go\s+ahead|take\s+place)\b", s, I))


def _names(subj: str) -> list[str]:
    """The words that name the event: what is said before its kind ("Texas", "dentist"),
    and a possessor ("Amara's visit"); never an article, a month or a filler word."""
    words = re.findall(r"[\w'’-]+", subj)
    out: list[str] = []
    for w in words:
        w = re.sub(r"['’]s$", "", w)
        if w.lower() in _NOT_NAMES or re.fullmatch(EVENT_KINDS, w, I) or w.lower() in {o.lower() for o in out}:
            continue
        out.append(w)
    return out


def _full_month(said: str | None) -> str:
    """"Aug", "sept" and "August" are "august"."""
    return next((m for m in _MONTHS if said and m.startswith(said.lower()[:3])), "")


def _event(subj_m: re.Match[str], clause: str, rule: str) -> Statement | None:
    names = _names(subj_m.group("subj")[:subj_m.start("kind") - subj_m.start("subj")])
    if not names:
        return None  # "the trip never happened": no name, too vague to pick a fact (inv. 369)
    kind = subj_m.group("kind").lower()
    month = _full_month(subj_m.group("month"))
    target = " ".join(names + [kind] + ([month] if month else []))
    return Statement(act="deny", target=target, previous=" ".join(names), kind=None, harsh=True,
                     clause=clause, rule=rule)


def _never_happened(s: str) -> Statement | None:
    """Invariant 369: "The Texas trip in August never happened" names the event; the rest of
    the sentence is the reason, no fact of its own."""
    m = _NEVER_HAPPENED.match(s)
    if m is None or s.rstrip().endswith("?") or _hypothetical(s[:m.start("tail")]):
        return None
    return _event(m, s, "event:never-happened")


def _went_nowhere(s: str, message: str) -> Statement | None:
    """Invariant 370: "I never went to Thailand", "we didn't go to Lisbon in March, that trip got
    called off": a named place the user never went to; "didn't go" only with a cue that it was
    called off (never "I didn't go to Leeds in March, I went in April")."""
    m = _NEVER_WENT_TO.match(s)
    if m is None or s.rstrip().endswith("?") or _hypothetical(s):
        return None
    if m.group("neg").lower() != "never" and not _CALLED_OFF.search(message):
        return None
    if re.search(r"\b(?:i|we)\s+(?:went|go|flew|are\s+going|'re\s+going)\s+(?:in|on|there|instead|later)\b|"
                 r"\b(?:instead|again|since|any\s*more|back)\b|\b(?:went|moved|studied|it\s+was|it'?s)\s+(?:to\s+|in\s+|at\s+)?"
                 + UPPER, m.group("tail"), I):
        return None  # "..., we went in April instead": moved, not called off
    place = m.group("place")
    month = _full_month(m.group("month"))
    target = " ".join([place, "trip"] + ([month] if month else []))
    return Statement(act="deny", target=target, previous=place, harsh=True, clause=s,
                     rule="event:never-happened")


def _never_came(s: str) -> Statement | None:
    """Invariant 369: "Amara never came in the end, her flight was cancelled": the visit on
    record naming them never happened; "didn't come" only with "in the end" or "after all"."""
    m = _NEVER_CAME.match(s)
    if m is None or _hypothetical(s) or m.group("who").split()[-1].lower() in _NOT_WHO | {"it", "nobody", "no"}:
        return None
    if m.group("neg").lower() != "never" and not m.group("end"):
        return None
    who = re.sub(r"['’]s$", "", re.sub(r"^(?:my|our)\s+", "", m.group("who"), flags=I))
    month = _full_month(m.group("month"))
    return Statement(act="deny", target=" ".join([who, "visit"] + ([month] if month else [])), previous=who,
                     harsh=True, clause=s, rule="event:never-happened")


# "We've had to cancel Rome", "we called off Lisbon because of the strike": a place, not a plan's name
_CANCEL_PLACE = re.compile(r"^\W*(?:(?:sadly|so|well|unfortunately|annoyingly|update)\W+)*(?:i|we)(?:\s+have|'ve|’ve)?\s+(?:"
                           r"had\s+to\s+(?:cancel|call\s+off|scrap)|(?:just\s+)?(?:cancell?ed|"
                           r"called\s+off|scrapped))\s+(?:the\s+)?(?P<place>" + UPPER + r"[\w'’-]*(?:\s+" + UPPER +
                           r"[\w'’-]*)?)\s*(?:[,;.!]|$|\s+(?:because|as|since|after|due)\b)", I)


def called_off(message: str) -> list[Statement] | None:
    """Invariant 370: "We've had to cancel Rome, my husband's surgery got moved": a trip named
    by its place called off, read only when nothing else in the message was (so "I cancelled
    Netflix" stays a subscription given up); the agent replaces only a trip on record naming
    the place and saying it is a trip or visit (`event_fact`), else nothing."""
    out = []
    for s in _sentences(message):
        m = _CANCEL_PLACE.match(s)
        if m is None or s.rstrip().endswith("?") or _hypothetical(s):
            continue
        place = m.group("place")
        out.append(Statement(act="change", text=f"Trip to {place} cancelled", fact_type="world", previous=place,
                             target=f"{place} trip", clause=s, rule="plan:called-off"))
    return out or None


def _online(s: str) -> Statement | None:
    """Invariant 371: "The Lisbon conference is online only now": the plan on record naming it
    is replaced by the same event held online; nothing when none is on record (the agent)."""
    m = _ONLINE.match(s)
    if m is None or s.rstrip().endswith("?") or _hypothetical(s[:m.start("tail")]):
        return None
    names = _names(m.group("subj")[:m.start("kind") - m.start("subj")])
    if not names:
        return None
    kind = m.group("kind").lower()
    return Statement(act="change", text=f"{cap(' '.join(names))} {kind} is online only", fact_type="world",
                     previous=" ".join(names), target=" ".join(names + [kind]), clause=s, rule="plan:online")


def _and_pulled(s: str) -> list[Statement] | None:
    """Invariant 372: "I got injured and pulled out of the London Marathon": the user pulled out,
    said after "and" with the subject carried (read as invariant 346's pull-out)."""
    m = _AND_PULLED.match(s)
    if m is None or s.rstrip().endswith("?") or _hypothetical(s):
        return None
    return pulled_out(f"I pulled out of {tidy(m.group('rest'))}")


# --- hedged health suspicions (invariants 373, 374) ----------------------------------------------
_DOUBT_LEAD = (r"^\W*(?:(?:not\s+(?:(?:100\s*%|a\s+hundred\s+percent|completely|totally|entirely)\s+)?"
               r"(?:sure|certain)(?:\s+yet)?|no\s+idea\s+yet|early\s+days)\s*,?\s*(?:but\s+)?)?")
_THINK = (r"(?:i\s+(?:kind\s+of\s+|sort\s+of\s+)?(?:think|suspect|reckon|believe)|"
          r"i(?:'m|\s+am)\s+(?:starting|beginning)\s+to\s+(?:think|suspect)|"
          r"i\s+(?:have|'ve\s+got|get)\s+(?:a\s+)?(?:feeling|hunch|suspicion)|"
          r"(?:i(?:'m|\s+am)\s+wondering|i\s+wonder)\s+(?:if|whether)|"
          r"(?:i'?m\s+)?(?:pretty|fairly|half)\s+sure|maybe|perhaps|possibly|"
          r"(?:the|my|our)\s+(?:vet|doctor|gp|allergist|consultant|dermatologist|nurse)\s+(?:thinks|suspects|"
          r"reckons|wonders\s+if))\s+(?:that\s+)?")
# the user about themselves, with a lead the clause readers do not hedge (invariant 373)
_SELF_LEAD = (r"(?:i(?:'m|\s+am)\s+(?:starting|beginning)\s+to\s+(?:think|suspect)|"
              r"i\s+(?:have|'ve\s+got|get)\s+(?:a\s+)?(?:feeling|hunch|suspicion)|"
              r"(?:i(?:'m|\s+am)\s+wondering|i\s+wonder)\s+(?:if|whether))\s+(?:that\s+)?")
_WHO = (r"(?P<who>(?:my|our)\s+(?:dog|cat|puppy|kitten|son|daughter|partner|husband|wife|boyfriend|girlfriend|"
        r"kid|little\s+one|baby|rabbit|horse)(?:\s+" + UPPER + r"[\w'’-]*)?|" + UPPER + r"[\w'’-]+)")
_ALLERGIC = (r"(?:a\s+bit\s+|mildly\s+|slightly\s+)?(?:(?P<what>allergic|intolerant)\s+to\s+(?P<x>[^,.;!?]+?)|"
             r"(?P<y>[\w-]+)\s+intolerant)\s*(?P<rest>(?:[,;]|\s+but\s+|\s+though\b|[.!?]|$).*)$")
_NAMED_ALLERGY = re.compile(_DOUBT_LEAD + r"(?:" + _THINK + _WHO + r"\s+(?:is|'s|might\s+be|may\s+be|could\s+be|"
                            r"has\s+become|is\s+becoming)|" + _WHO.replace("?P<who>", "?P<who2>") +
                            r"\s+(?:might|may|could)\s+be)\s+" + _ALLERGIC, I)
_SELF_ALLERGY = re.compile(_DOUBT_LEAD + _SELF_LEAD + r"(?:i(?:'m|\s+am)|i\s+(?:might|may|could)\s+be)\s+" + _ALLERGIC, I)
_SYMPTOM = (r"(?:ill|sick|unwell|poorly|bloated|nauseous|queasy|itchy|wheezy|(?:a\s+)?rash(?:es)?|hives|"
            r"headaches?|migraines?|stomach\s*aches?|(?:a\s+)?(?:bad\s+|upset\s+)?stomach|eczema|reflux|heartburn|"
            r"cramps|bloating|spots|breakouts?)")
_MAKING_ME = re.compile(_DOUBT_LEAD + _THINK + r"(?P<x>(?:the\s+|my\s+)?[a-z][\w'’ -]{1,30}?)\s+(?:(?P<v>(?:is|are|has\s+been|"
                        r"have\s+been|'s\s+been)\s+(?:making|giving)|makes?|gives?|(?:might|could|may)\s+be\s+"
                        r"(?:making|giving)|seems?\s+to\s+(?:make|give))\s+me\s+(?P<s>" + _SYMPTOM + r")\b|"
                        r"(?P<d>(?:is|are|has\s+been|have\s+been|'s\s+been)\s+disagreeing|disagrees?|seems?\s+to\s+"
                        r"disagree|(?:might|could|may)\s+be\s+disagreeing)\s+with\s+me\b)"
                        r"\s*(?P<rest>(?:[,;]|\s+but\s+|\s+though\b|[.!?]|$).*)$", I)
# the remark after a suspicion that says it is not confirmed; anything else is read on its own
_UNCONFIRMED = re.compile(r"\b(?:sure|certain|tests?|tested|testing|check(?:ing|ed)?|confirm\w*|appointment|vet|"
                          r"doctor|gp|allergist|consultant|specialist|nurse|bloods?|results?|diary|elimination|"
                          r"find\s+out|see|seeing|waiting|yet|quote\s+me|maybe|might|could|though|idk)\b", I)
_NOT_TRIGGERS = frozenset({"work", "job", "jobs", "boss", "stress", "life", "weather", "commute", "kids", "uni",
                           "school", "studying", "exams", "neighbours", "neighbour", "noise", "news", "politics",
                           "everything", "everyone", "people", "this", "thing", "situation", "worry", "anxiety",
                           "colleague", "colleagues", "team", "manager", "flat", "house", "move", "wedding",
                           "vet", "doctor", "gp", "dentist", "landlord", "husband", "wife", "partner", "baby"})
_NOT_WHO = frozenset({"i", "it", "he", "she", "they", "we", "you", "this", "that", "there", "the", "everyone",
                      "my", "our", "something", "nobody", "someone"})


def _suspicion(s: str) -> tuple[Statement, str] | None:
    """Invariants 373, 374: a hedged suspicion about health is written at low confidence, for
    review: "I think Biscuit is allergic to chicken, the vet isn't sure yet" ("Biscuit is allergic
    to chicken"), "Not sure yet, but I think gluten is making me ill" ("Suspects gluten is making
    them ill"). A question ("Do you think ...?"), "I don't think ..." and a condition never
    reach here. The remark after it that says it is unconfirmed is no part of it; anything else
    said after the comma is handed back."""
    body = re.sub(_DOUBT_LEAD + r"(?:" + _THINK + r"|" + _SELF_LEAD + r")", "", s, count=1, flags=I)
    if _hypothetical(re.sub(r"\b(?:might|may|could)\s+be\b", "is", body)) or re.match(
            r"^\W*(?:do|does|did|would|could|can|is|are)\b", s, I):
        return None
    m = _NAMED_ALLERGY.match(s)
    who = (m.group("who") or m.group("who2")) if m is not None else ""
    if m is not None and who.split()[-1].lower() not in _NOT_WHO and who.lower() not in _NOT_WHO:
        who = re.sub(r"^(?:my|our)\s+", "", who, flags=I)
        who = who if who[:1].isupper() else cap(who)
        said = _allergen(m)
        if said is None:
            return None
        return (Statement(act="assert", text=f"{who} is {said}", fact_type="world", confidence=0.55, clause=s,
                          rule="health:named+suspected"), _rest(m.group("rest")))
    m = _SELF_ALLERGY.match(s)
    if m is not None:
        # "I wonder if I'm allergic to latex": the user's own allergy, doubted (invariant 373)
        said = _allergen(m)
        if said is None:
            return None
        x = said.split(" to ", 1)[-1] if m.group("x") else said
        text = f"Allergic to {x}" if m.group("what") and m.group("what").lower() == "allergic" else f"Is {said}"
        return (Statement(act="assert", text=text, fact_type="constraint", confidence=0.55, clause=s,
                          slot=f"allergy:{x.lower()}" if text.startswith("Allergic") else None,
                          rule="health:allergy+suspected"), _rest(m.group("rest")))
    m = _MAKING_ME.match(s)
    if m is not None:
        x = tidy(m.group("x"))
        bare = re.sub(r"^(?:the|my)\s+", "", x, flags=I)
        if {w.lower() for w in bare.split()} & (_NOT_WHO | _NOT_TRIGGERS | lx.RELATIONS) or len(x.split()) > 4 \
                or not bare[:1].islower():
            # "I think it's making me ill", "work is making me ill", "Tom is giving me a headache":
            # no food or thing named
            return None
        x = re.sub(r"^my\s+", "their ", x, flags=I)
        how = re.sub(r"^'s\s+been", "has been", tidy(m.group("v") or m.group("d")).lower())
        text = (f"Suspects {x} {how} them {tidy(m.group('s')).lower()}" if m.group("v")
                else f"Suspects {x} {how} with them")
        return (Statement(act="assert", text=text, fact_type="constraint", confidence=0.55, clause=s,
                          rule="health:suspected"), _rest(m.group("rest")))
    return None


def _allergen(m: re.Match[str]) -> str | None:
    """"allergic to chicken", "lactose intolerant": what the suspicion says, or None when it
    names nothing ("allergic to it")."""
    if m.group("y"):
        y = m.group("y").lower()
        return None if y in {"very", "so", "quite", "a", "bit", "really", "being"} else f"{y} intolerant"
    x = re.sub(r"^(?:the|some)\s+", "", tidy(m.group("x")), flags=I)
    if not x or x.lower() in {"it", "that", "this", "them", "something", "stuff", "anything", "me", "us", "him",
                              "her", "you", "everything"}:
        return None
    return f"{m.group('what').lower()} to {x}"


def _rest(rest: str) -> str:
    """What follows a suspicion and is not the remark that it is unconfirmed."""
    rest = re.sub(r"^[\s,;.!?]+", "", rest or "")
    rest = re.sub(r"^(?:but|though|and)\s+", "", rest, flags=I)
    if not rest or _UNCONFIRMED.search(rest):
        return ""
    return rest


# "If I'm allergic to latex I'll need new gloves": a condition, never an allergy (invariant 373)
_IF_ALLERGIC = re.compile(r"^\W*(?:if|unless|in\s+case|suppose|what\s+if|assuming)\s+(?:i'?m|i\s+am|i\s+was|i\s+were|"
                          r"i\s+(?:might|could|may)\s+be|i\s+turn(?:ed)?\s+out\s+to\s+be)\s+(?:\w+\s+)?"
                          r"(?:allergic|intolerant)\b", I)


def read(message: str) -> tuple[list[Statement], str, list[str]] | None:
    """The statements of the sentences this module understands, the message without them, and
    the sentences it set aside (None: nothing read here). Invariants 369-374."""
    sentences = _sentences(message)
    found: list[Statement] = []
    rest: list[str] = []
    ignored: list[str] = []
    i = 0
    while i < len(sentences):
        s = sentences[i]
        nxt = sentences[i + 1] if i + 1 < len(sentences) else ""
        topic = _TOPIC.match(s)
        went = _NEVER_WENT.match(nxt) if topic and nxt else None
        if topic and went:
            # "The Fontainebleau trip in September? I never went, I hurt my finger": the event
            # asked about, then said not to have happened (invariant 369)
            st = _event(topic, f"{s} {nxt}", "event:never-happened")
            if st is not None:
                found.append(st)
                i += 2
                continue
        st = _never_happened(s) or _went_nowhere(s, message) or _never_came(s)
        if st is not None:
            found.append(st)
            i += 1
            while i < len(sentences) and _IT_NEVER.match(sentences[i]):
                i += 1  # "... that trip got called off. We never went.": the same event
            continue
        st = _online(s)
        if st is not None:
            found.append(st)
            i += 1
            continue
        pulled = _and_pulled(s)
        if pulled:
            found += pulled
            i += 1
            continue
        if _IF_ALLERGIC.match(s):
            ignored.append(s)
            i += 1
            continue
        sus = _suspicion(s)
        if sus is not None:
            found.append(sus[0])
            if sus[1]:
                rest.append(sus[1])
            i += 1
            continue
        rest.append(s)
        i += 1
    if not found and not ignored:
        return None
    return found, " ".join(rest), ignored


def value_terms(text: str) -> frozenset[str]:
    """The stemmed content words of a text (as `matching.value_terms`, which imports this)."""
    return term_set(text, stop=STOP_WORDS | {"the", "a", "an", "my", "our", "i", "we", "is", "has", "was"})


class _Hit(Protocol):
    id: str
    kind: str
    text: str
    state: str | None

    @property
    def valid_from(self) -> object: ...

    @property
    def valid_to(self) -> object: ...


_VISIT_WORD = re.compile(r"\b(?:visit\w*|stay\w*|com(?:e|es|ing)\s+(?:over|to\s+stay|to\s+visit|down|up)|"
                         r"(?:is|are)\s+coming|guest\w*|spare\s+room|over\s+for)\b", I)
_EVENT_WORD = re.compile(r"\b(?:" + EVENT_KINDS + r"|went|going|visit\w*|stays?|staying|travel\w*|flying|"
                         r"running|training\s+for|booked)\b", I)
_EVENTISH = re.compile(r"\b(?:" + EVENT_KINDS + r"|went|going|visit\w*|stays?|staying|travel\w*|flying|"
                       r"running|training\s+for|booked|" + "|".join(_MONTHS) + r")\b", I)


def _months_of(h: _Hit) -> set[int]:
    """The months a fact says, in its words or its valid time."""
    out = {i + 1 for i, m in enumerate(_MONTHS) if re.search(r"\b" + m + r"\b", h.text, I)}
    return out | {d.month for d in (h.valid_from, h.valid_to) if isinstance(d, date)}


def event_fact(st: Statement, hits: Sequence[_Hit]) -> _Hit | None:
    """Invariants 369-371: the one active fact an event statement is about: it holds every word
    that names the event ("Texas", "Amara") and is an event (dated, or saying a trip, visit,
    month ...), never of another month than the one said. With more than one, those that say the
    kind of event said ("visit"), then the month said, then an event word are kept. None when no
    fact, or more than one, fits: a wrong retraction is worse than a missed one."""
    want = value_terms(st.previous or "")
    if not want:
        return None
    words = (st.target or "").split()
    month = next((i + 1 for i, m in enumerate(_MONTHS) if words and words[-1].lower() == m), None)
    kind = words[-2 if month else -1].lower() if len(words) > (1 if not month else 2) else ""
    fits = [h for h in {h.id: h for h in hits}.values() if h.kind == "semantic" and h.state == "active"
            and want <= value_terms(h.text)
            and (h.valid_from is not None or h.valid_to is not None or _EVENTISH.search(h.text))
            and not (month and _months_of(h) and month not in _months_of(h))
            # a visit is a stay: "Mum never came" is never "Mum is going to Spain in July"
            and not (kind.startswith("visit") and not _VISIT_WORD.search(h.text))
            # a place called off is only a trip that says it is one (invariant 370)
            and not (st.rule == "plan:called-off" and not _EVENT_WORD.search(h.text))]
    narrowing = [lambda h: bool(kind) and bool(value_terms(kind) & value_terms(h.text)),
                 lambda h: bool(month) and month in _months_of(h),
                 lambda h: bool(_EVENT_WORD.search(h.text))]
    for keep in narrowing:
        if len(fits) > 1:
            fits = [h for h in fits if keep(h)] or fits
    return fits[0] if len(fits) == 1 else None
