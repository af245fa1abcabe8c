"""Documents and when they run out ("my new passport is valid until May 2036", "the ESTA expires
on 20 May"): a renewed document replaces the one on record (invariant 232)."""

from __future__ import annotations

import re
from datetime import date

from .dates import find_dates
from .model import Statement
from .phrases import HARSH_RE, UPPER, I, article, cap, tidy

# The document's words as said, and its name in the fact. Longest first, so "pet passport" is
# not read as "passport".
_DOCS = {"pet passport": "Pet passport", "passport": "Passport", "visa": "Visa", "esta": "ESTA",
         "driving licence": "Driving licence", "driving license": "Driving licence",
         "driver's license": "Driving licence", "drivers license": "Driving licence",
         "id card": "ID card", "identity card": "ID card", "residence permit": "Residence permit",
         "work permit": "Work permit", "green card": "Green card", "railcard": "Railcard",
         "travel insurance": "Travel insurance", "ehic": "EHIC", "ghic": "GHIC",
         "gym membership": "Gym membership", "lease": "Lease", "warranty": "Warranty",
         "epipens": "EpiPen", "epipen": "EpiPen", "epi-pens": "EpiPen", "epi-pen": "EpiPen"}  # inv. 343
_DOC = "|".join(re.escape(d) for d in sorted(_DOCS, key=len, reverse=True))
_RUNS_OUT = (r"(?:(?:is|'s|are)\s+)?(?:now\s+)?(?:valid|good)\s+(?:until|till|til|to|through)|"
             # invariant 343: "my visa extension was approved until June 2028"
             r"(?:(?:extension|renewal)\s+)?(?:was|has\s+been|got|is|'s)\s+(?:(?:approved|granted|extended|"
             r"renewed)\s+)+(?:until|till|til|to|through)|"
             r"(?:now\s+)?(?:expires?|expiring|runs?\s+out|ends?)(?:\s+(?:on|in|at\s+the\s+end\s+of))?")
_MONTH = (r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?")
_WHEN = re.compile(r"^(?:(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:" + _MONTH + r")\.?(?:,?\s+\d{4})?|"
                   r"(?:" + _MONTH + r")\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?|"
                   r"(?:" + _MONTH + r")\.?(?:\s+\d{4})?|\d{4}|\d{1,2}[/.]\d{1,2}[/.]\d{2,4})$", I)


# "My Irish passport arrived yesterday", "got my UK spouse visa approved": a document of a kind
# named by a word of its own (never "new" or "renewed") that came (invariant 343)
_ARRIVED = re.compile(r"^(?:(?:i|we)\s+(?:have\s+|'ve\s+)?(?:just\s+|finally\s+)*got\s+(?:my|our)\s+(?P<a1>(?:[\w-]+\s+){1,2}?)"
                      r"(?P<d1>" + _DOC + r")\s+(?:approved|granted|issued|through)|(?:my|our)\s+(?P<a2>(?:[\w-]+\s+){1,2}?)"
                      r"(?P<d2>" + _DOC + r")\s+(?:has\s+|finally\s+|just\s+)*(?:arrived|came(?:\s+through)?|"
                      r"was\s+(?:approved|granted|issued)|got\s+(?:approved|granted|issued)|has\s+been\s+(?:approved|"
                      r"granted|issued)))\b", I)


def arrived(c: str, today: date) -> list[Statement] | None:
    """Invariant 343: "My Irish passport arrived yesterday", "got my UK spouse visa approved
    last week": the user has that document now, replacing the application on record that names
    it, dated when it came. A new or renewed one with no expiry said names no kind of its own."""
    m = _ARRIVED.match(c.strip())
    if m is None:
        return None
    adj = tidy(m.group("a1") or m.group("a2"))
    doc = m.group("d1") or m.group("d2")
    if re.search(r"\b(?:new|renewed|current|old|replacement|first)\b", adj, I):
        return None
    thing = f"{adj} {_DOCS[doc.lower()].lower() if doc.lower() not in ('esta', 'ehic', 'ghic') else doc.upper()}"
    came = find_dates(c, today).valid_from
    return [Statement(act="change", text=f"Has {'a ' if re.match(r'U[A-Z]', thing) else article(thing)}{thing}",
                      fact_type="world", previous=f"{adj} {doc.lower()}", clause=c, rule="document:arrived",
                      valid_from=came if came and came <= today else None)]


def documents(c: str, message: str, today: date) -> list[Statement] | None:
    """"My new passport is valid until 2036" (or "got my new passport, it's valid until 2036"):
    the document's expiry, said with a date that needs no today to read (never "next year")."""
    if HARSH_RE.search(message) or re.search(r",\s*not\s+(?:in\s+|on\s+)?\d", message, I):
        return None  # "valid until 2028, not 2027, I misread it": a correction, read elsewhere
    m = re.search(r"\b(?:my|our|the|her|his|their)\s+(?:new\s+|renewed\s+|current\s+)?(?P<doc>" + _DOC +
                  r")\s+(?P<verb>" + _RUNS_OUT + r")\s+(?P<when>[^,;!?]+?)\s*(?:[,;.!?]|$)", c, I)
    if m is None:
        # "I renewed my driving licence, it expires on 3 June 2036": named, then "it"
        m = re.search(r"\b(?:my|our|the)\s+(?:new\s+|renewed\s+)?(?P<doc>" + _DOC + r")\b[^.;!?]*?,\s*"
                      r"(?:and\s+|which\s+)?(?:(?:it|it's|it\s+is|which\s+is|the\s+new\s+one(?:'s|\s+is)?)\s*|"
                      r"(?=(?:valid|good)\s))(?P<verb>" + _RUNS_OUT +
                      r")\s+(?P<when>[^,;!?]+?)\s*(?:[,;.!?]|$)", c, I)
    if m is None and (got := arrived(c, today)) is not None:
        return got
    if m is None:
        # "..., it's valid until 2036" after the document was named in the same message
        # ("the new one's good until 2036": the renewed one, invariant 343)
        m = re.search(r"^(?:and\s+|which\s+)?(?:it|it's|it\s+is|which\s+is|(?:the|my)\s+new\s+one(?:'s|\s+is)?)\s*"
                      r"(?P<verb>" + _RUNS_OUT +
                      r")\s+(?P<when>[^,;!?]+?)\s*(?:[,;.!?]|$)", c.strip(), I)
        named = re.search(r"\b(?:my|our|the)\s+(?:new\s+|renewed\s+)?(?P<doc>" + _DOC + r")\b", message, I)
        if m is None or named is None:
            return None
        doc = named.group("doc")
    else:
        doc = m.group("doc")
    when = re.sub(r"\b(?:" + _MONTH + r")\b", lambda w: w.group(0).capitalize(), tidy(m.group("when")),
                  flags=I)
    if not _WHEN.match(when):
        return None  # "expires soon", "runs out next year": no date to keep (invariant 232)
    name = _DOCS[doc.lower()]
    prep = "on" if re.search(r"\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?[a-z]|[a-z]\.?\s+\d{1,2}\b(?!\d)|/", when, I) \
        else "in"
    end = find_dates("until " + when, today).valid_to
    # Invariant 343: "my renewed passport arrived yesterday, valid until 2036": the day it came,
    # said before its expiry, dates the new document (a day to come dates nothing)
    came = find_dates(c[:m.start("verb")], today).valid_from if "verb" in m.groupdict() else None
    # an EpiPen's expiry replaces only an EpiPen expiry, never the allergy it is carried for
    # ("Allergic to peanuts, carries two EpiPens", invariant 343)
    previous = f"{doc.lower()} expires" if name == "EpiPen" else doc.lower()
    return [Statement(act="change", text=f"{name} expires {prep} {when}", fact_type="world",
                      previous=previous, valid_to=end, clause=c, rule="document:expiry",
                      valid_from=came if came and came <= today else None)]


_TIER = r"(?P<tier>(?!my\b|the\b|a\b|your\b|his\b|her\b)(?:(?-i:[A-Z])[\w-]*\s+(?=(?-i:[A-Z])))?[\w-]+)"
_WITH = r"(?:\s+(?:with|on|at)\s+(?P<who>(?-i:[A-Z])[\w&'’.-]*(?:\s+(?:&\s+)?(?-i:[A-Z])[\w&'’.-]*){0,2}))?"


def statuses(c: str) -> list[Statement] | None:
    """A loyalty status and its changes (invariant 246): "I got gold status with BA", "my BA
    status dropped to silver", "made Senator on Miles & More": the tier on record replaced."""
    m = re.search(r"\b(?:i|we)\s+(?:have\s+|'ve\s+|just\s+|finally\s+)*(?:got|reached|earned|hit|made|"
                  r"achieved|qualified\s+for|kept|now\s+have)\s+(?:to\s+)?" + _TIER + r"(?:\s+tier)?\s+status" + _WITH,
                  c, I)
    if m is None:
        m = re.search(r"\bmy\s+(?P<who>(?-i:[A-Z])[\w&'’.-]*(?:\s+(?:&\s+)?(?-i:[A-Z])[\w&'’.-]*){0,2}\s+)?(?:tier\s+|"
                      r"loyalty\s+|frequent\s+flyer\s+)?status\s+(?:has\s+|just\s+)*(?:dropped|went\s+(?:down|up)|"
                      r"fell|was\s+(?:downgraded|upgraded|cut|bumped(?:\s+up)?)|got\s+(?:downgraded|upgraded|"
                      r"bumped(?:\s+up)?)|moved|changed)\s+(?:back\s+)?to\s+" + _TIER + _WITH.replace("?P<who>", "?P<who2>"),
                      c, I)
    if m is None:
        # "I dropped to Frequent Traveller status", "we got bumped up to Gold on BA" (inv. 274)
        m = re.search(r"\b(?:i|we)\s+(?:have\s+|'ve\s+|just\s+)*(?:dropped|fell|went\s+(?:down|up)|moved\s+up|"
                      r"was\s+(?:downgraded|upgraded|bumped(?:\s+up)?)|got\s+(?:downgraded|upgraded|"
                      r"bumped(?:\s+up)?))\s+(?:back\s+)?to\s+" + _TIER + r"(?:\s+tier)?(?P<st>\s+status)?" + _WITH,
                      c, I)
        if m is not None and not (m.group("st") or m.group("who")):
            m = None  # "I dropped to 60 kilos": no status said
    if m is None:
        return None
    tier = m.group("tier")
    if tier.lower() in {"status", "the", "some", "new"}:
        return None
    who = m.groupdict().get("who") or m.groupdict().get("who2")
    tier = tier if tier[:1].isupper() else tier.capitalize()
    text = f"Has {tier} status" + (f" with {tidy(who)}" if who else "")
    return [Statement(act="change", text=text, fact_type="world", previous="status", clause=c,
                      rule="status")]


_EVENT = (r"trip|flight|holiday|vacation|appointment|visit|wedding|interview|surgery|operation|"
          r"party|concert|exam|move|conference|retreat")
_RESCHEDULE = (r"(?:postponed|rescheduled|pushed(?:\s+back)?|delayed|brought\s+forward|moved|put\s+off|"
               r"shifted|bumped)")


_DAYS = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_HABIT = r"lessons?|class(?:es)?|sessions?|training|practice|rehearsals?|shifts?|meetings?|standups?|club|course"


def moved_day(c: str) -> list[Statement] | None:
    """Invariant 254: a weekly thing moved to another weekday ("my cello lessons moved to
    Wednesdays", "the coach moved our training to Mondays"): the habit on record replaced, its
    words kept with the new day (`OfflineAgent._redayed`). A single day ("to Thursday") is a
    date, read elsewhere."""
    m = re.search(r"\b" + _RESCHEDULE + r"\s+(?:the\s+|my\s+|our\s+)?(?P<thing>[\w'’ -]{0,30}?)\s*(?P<kind>"
                  + _HABIT + r")\s+(?:to|over\s+to)\s+(?P<day>" + _DAYS + r")s\b", c, I) or \
        re.search(r"\b(?:the\s+|my\s+|our\s+)(?P<thing>[\w'’ -]{0,30}?)\s*(?P<kind>" + _HABIT + r")\s+"
                  r"(?:have\s+|has\s+)?(?:been\s+|got\s+|are\s+|is\s+)?" + _RESCHEDULE + r"\s+(?:to|over\s+to)\s+"
                  r"(?P<day>" + _DAYS + r")s\b", c, I)
    if m is None:
        return None
    name = tidy(f"{m.group('thing')} {m.group('kind')}")
    day = m.group("day").capitalize() + "s"
    return [Statement(act="change", text=f"{cap(name)} on {day}", fact_type="world",
                      previous=name, clause=c, rule="plan:moved-day")]


def rescheduled(c: str, message: str, today: date) -> list[Statement] | None:
    """A plan moved to another date (invariant 247): "we postponed the Japan trip to October",
    "the Japan trip is off, we postponed it to October", "my dentist appointment got moved to 9
    December": the plan on record replaced, dated by the new date (never with "next week" in
    its words)."""
    m = re.search(r"\b" + _RESCHEDULE + r"\s+(?:the\s+|my\s+|our\s+)?(?P<thing>[\w'’ -]{0,30}?)\s*"
                  r"(?P<kind>" + _EVENT + r")\s+(?:to|until|till|for)\s+(?P<when>[^,;!?]+)", c, I) or \
        re.search(r"\b(?:the\s+|my\s+|our\s+)(?P<thing>[\w'’ -]{0,30}?)\s*(?P<kind>" + _EVENT + r")\s+"
                  r"(?:has\s+been\s+|was\s+|got\s+|is\s+)?" + _RESCHEDULE + r"\s+(?:to|until|till)\s+"
                  r"(?P<when>[^,;!?]+)", c, I)
    if m is None:
        it = re.search(r"\b" + _RESCHEDULE + r"\s+it\s+(?:to|until|till)\s+(?P<when>[^,;!?]+)", c, I)
        named = re.search(r"\b(?:the|my|our)\s+(?P<thing>[\w'’ -]{0,30}?)\s*(?P<kind>" + _EVENT + r")\b",
                          message, I)
        if it is None or named is None:
            return None
        thing, kind, when = named.group("thing"), named.group("kind"), it.group("when")
    else:
        thing, kind, when = m.group("thing"), m.group("kind"), m.group("when")
    dates = find_dates("on " + when.strip() if re.match(r"^\d", when.strip()) else "in " + when.strip(),
                       today)
    start = dates.valid_from or dates.valid_to
    if start is None:
        return None  # "postponed it indefinitely": no new date, nothing to keep
    if start < today:
        start = start.replace(year=start.year + 1)  # a plan moved is a plan ahead
    name = tidy(f"{thing} {kind}")
    words = [w for w in name.split() if w]
    where = next((w for w in words if w[:1].isupper()), None)
    on = f"on {start.day} {start:%B %Y}" if re.match(r"^\d|^\w+\s+\d", when.strip()) else f"in {start:%B %Y}"
    text = (f"Trip to {where} {on}" if where and kind.lower() in ("trip", "holiday", "vacation", "visit")
            else f"{cap(name)} {on}")
    return [Statement(act="change", text=text, fact_type="world", valid_from=start,
                      previous=where or kind.lower(), clause=c, rule="plan:rescheduled")]


_CANCEL = r"(?:cancell?ed|called\s+off|scrapped|off)"


def cancelled(c: str, message: str, today: date) -> list[Statement] | None:
    """A plan called off (invariant 237): "we cancelled the Japan trip", "our trip to Japan is
    cancelled", "the dentist appointment got called off". The plan on record is replaced by its
    cancellation; nothing is written when no plan of that name is on record (the agent checks).
    "Cancel my trip?" (a question) and "might cancel" (a hedge) never reach here."""
    place = r"(?P<to>\s+to\s+(?P<where>(?-i:[A-Z])[\w'’-]*(?:\s+(?-i:[A-Z])[\w'’-]*)?))?"
    m = re.search(r"\b(?:i|we)\s+(?:have\s+|'ve\s+|just\s+)*(?:cancell?ed|called\s+off|scrapped|"
                  r"had\s+to\s+(?:cancel|call\s+off|scrap))\s+(?:the\s+|my\s+|our\s+)(?P<thing>[\w'’ -]{0,30}?)\s*(?P<kind>" + _EVENT +
                  r")" + place + r"\b", c, I) or \
        re.search(r"\b(?:the|my|our)\s+(?P<thing>[\w'’ -]{0,30}?)\s*(?P<kind>" + _EVENT + r")"
                  + place + r"\s+"
                  r"(?:has\s+been\s+|have\s+been\s+|was\s+|got\s+|is\s+|'s\s+)(?:been\s+)?" + _CANCEL +
                  r"(?=\s*(?:[,.;!?]|$|\s+(?:now|sadly|unfortunately|because|due|so|after)\b))", c, I)
    trip = re.search(r"\b(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:not|no\s+longer)\s+(?:going|flying|travell?ing|"
                     r"heading)\s+to\s+(?P<where>" + UPPER + r"[\w'’-]*(?:\s+" + UPPER + r"[\w'’-]*)?)"
                     r"(?=.*\b(?:after\s+all|any\s*more|any\s+longer|now|cancell?ed)\b)",
                     c, I)
    if trip is None:  # "we're no longer going to Japan": the cue is "no longer" itself
        trip = re.search(r"\b(?:i'?m|i\s+am|we'?re|we\s+are)\s+no\s+longer\s+(?:going|flying|travell?ing|"
                         r"heading)\s+to\s+(?P<where>" + UPPER + r"[\w'’-]*(?:\s+" + UPPER +
                         r"[\w'’-]*)?)", c, I)
    if trip and re.search(r"\bagain\b", c, I):
        trip = None  # "not going to Fontainebleau again": about a trip that happened
    if m is None and trip:
        where = trip.group("where")
        return [Statement(act="change", text=f"Trip to {where} cancelled", fact_type="world",
                          previous=where, clause=c, rule="plan:cancelled")]
    if m is None or re.search(r"\bset\s+off\b|\btook\s+off\b|\bday\s+off\b", c, I) or \
            re.search(r"\b" + _RESCHEDULE + r"\s+(?:it|them|the|my|our)\b", message, I):
        return None  # "the Japan trip is off, we postponed it to October": moved, not called off
    thing, kind = tidy(m.group("thing") or ""), m.group("kind").lower()
    where = m.group("where") or next((w for w in thing.split() if w[:1].isupper()), None)
    name = (f"{cap(kind)} to {where}" if where and kind in ("trip", "holiday", "vacation", "visit",
                                                            "flight", "move")
            else cap(tidy(f"{thing} {kind}")))
    return [Statement(act="change", text=f"{name} cancelled", fact_type="world",
                      previous=where or tidy(f"{thing} {kind}"), clause=c, rule="plan:cancelled")]
