"""Levels, statuses, grades and qualifications that change (invariants 385-392): "passed the
German B2 exam", "I lost Senator, they've put me back down to Frequent Traveller", "got my brown
belt in judo", "I got permanent residence last week", "I don't speak German at B1, I'm still
A2". One fact holds a level of one kind (the level of one language, the status with one
programme, the belt of one sport, the permit to live in a country): the new level supersedes
that fact, never another kind's. Pure: no I/O (the agent picks the fact with `settle`).
"""

from __future__ import annotations

import re
from datetime import date

from .dates import find_dates
from .life2 import _LEVEL_EXAM as LEVEL_EXAM
from .model import Statement
from .phrases import HYPO_RE, I

LANGS = ("english|german|french|spanish|italian|portuguese|dutch|swedish|norwegian|danish|finnish|polish|"
         "czech|greek|turkish|russian|ukrainian|arabic|hebrew|japanese|korean|chinese|mandarin|cantonese|"
         "hindi|urdu|irish|welsh|catalan|hungarian|romanian|croatian|serbian|vietnamese|thai|indonesian|"
         "swahili|icelandic|estonian|latvian|lithuanian|slovak|slovenian|bulgarian|persian|farsi|tamil|"
         "bengali|malay|tagalog")
_LANG = r"(?:" + LANGS + r")"
_CEFR = r"(?:[ABC][12])"
# Statuses of a loyalty programme, lowest first within a programme (invariant 386)
_TIER_RANK = {"blue": 0, "basic": 0, "explorer": 0, "member": 0, "frequent traveller": 1, "bronze": 1,
              "silver": 2, "senator": 3, "gold": 3, "platinum": 4, "diamond": 5, "hon circle": 5,
              "titanium": 6, "ambassador": 6}
_TIER = r"(?:frequent\s+traveller|hon\s+circle|senator|bronze|silver|gold|platinum|diamond|titanium)"
# a tier is said alone or as a status, never as the colour of a thing ("lost my gold ring")
_ALONE = r"(?=\s+(?:status|tier)\b|\s*[,.;!)]|\s*$|\s+(?:this|last|in|with|on|at|after|because|so|and|but|now|"\
         r"again|for|from|since|back|already|yesterday|today|ages)\b)"
_BELT = r"(?:white|yellow|orange|green|blue|purple|brown|red|black)\s+belt"
_PROG = r"(?P<prog>(?-i:[A-Z])[\w&'’.-]*(?:\s+(?:&|(?-i:[A-Z])[\w&'’.-]*))*)"
_NOT_NOW = re.compile(r"\?|^\W*(?:if|when|once|unless|hopefully|maybe|did\s+i|have\s+i|should|could|would)\b|"
                      r"\b(?:hope|hoping|want|wants|wanted|trying|try|going\s+to|gonna|will|'ll|plan|"
                      r"planning|aim|aiming|need\s+to|might|may|wish)\b", I)
# someone else's news: "my sister passed her B2", "Tom got his black belt"
_OTHER = re.compile(r"^\W*(?:(?:my|our|his|her|their)\s+\w+|(?!(?:finally|just|also|today|yesterday|then|so|"
                    r"well|guess|officially|eventually|and|oh|yay|woo)\b)(?-i:[A-Z])[\w'’-]+(?<!ly)|he|she|they)\s+"
                    r"(?:has\s+|have\s+|just\s+|finally\s+)*(?:passed|got|lost|was|is|has|made|"
                    r"earned|reached)\b", I)


def _first_person(c: str) -> bool:
    return not _OTHER.match(c) or bool(re.match(r"^\W*(?:i|we)\b", c, I))


def _st(text: str, rule: str, c: str, today: date, *, previous: str | None = None, harsh: bool = False,
        fact_type: str = "identity", kind: str | None = None) -> Statement:
    return Statement(act="change", text=text, previous=previous, harsh=harsh, fact_type=fact_type,
                     kind=kind, valid_from=find_dates(c, today).valid_from, clause=c, rule=rule)


def _tier_name(t: str) -> str:
    t = re.sub(r"\s+", " ", t.strip()).lower()
    return {"hon circle": "HON Circle", "frequent traveller": "Frequent Traveller"}.get(t, t.title())


def _prog_of(c: str) -> str | None:
    m = re.search(r"\b(?:with|on|at|in)\s+" + _PROG, c)
    return m.group("prog").strip().rstrip(".!") if m else None


def read(raw: str, today: date, message: str = "") -> list[Statement] | None:
    """The level change said in one sentence, or None (invariants 385-391); an exam passed takes
    the day it was sat from the sentence after it ("Passed the CKA! sat it on 27 November")."""
    c = raw.strip()
    if not c or _NOT_NOW.search(c) or HYPO_RE.search(c) or not _first_person(c):
        return None
    if LEVEL_EXAM.match(c) or LEVEL_EXAM.match("I " + c):
        return None  # "passed my C1 Spanish exam": invariant 347 reads it
    found = _read(c, today)
    after = message[message.find(raw) + len(raw):] if raw and raw in message else ""
    sat = re.match(r"^\W*(?:i\s+)?(?:sat|took|did|wrote)\s+(?:it|the\s+exam|the\s+test)\s+(?P<d>on\s+[^,.;!?]+?)"
                   r"(?=\s+(?:instead|rather|because|as|so|and|but)\b|[,.;!?]|$)", after, I)
    for st in found or []:
        if st.rule == "level:exam" and st.valid_from is None and sat:
            st.valid_from = find_dates(sat.group("d"), today).valid_from
    return found


def _read(c: str, today: date) -> list[Statement] | None:
    return (_language(c, today) or _tier(c, today) or _belt(c, today) or _residence(c, today)
            or _citizen(c, today) or _trusted(c, today) or _exam(c, today))


# --- invariant 385: a language level passed or reached replaces that language's level ------------
_PASSED = re.compile(r"\b(?:passed|got|reached|achieved|did)\s+(?:my\s+|the\s+|an?\s+)?(?:(?P<l1>" + _LANG +
                     r")\s+)?(?P<lvl>" + _CEFR + r")(?:\s+(?P<l2>" + _LANG + r"))?(?:\s+(?:exam|test|"
                     r"certificate|level|diploma))?(?:\s+in\s+(?P<l3>" + _LANG + r"))?\b", I)
_AT_NOW = re.compile(r"\b(?:i'?m|i\s+am)\s+(?:now\s+)?(?:at\s+)?(?P<lvl>" + _CEFR + r")\s+(?:in\s+)?(?P<l1>" +
                     _LANG + r")\s+now\b|\bmy\s+(?P<l2>" + _LANG + r")\s+is\s+(?:at\s+)?(?P<lvl2>" + _CEFR +
                     r")\s+now\b|\b(?:i'?m|i\s+am)\s+(?:now\s+)?(?:at\s+)?(?:a\s+)?(?P<lvl3>" + _CEFR + r")\s+level\b", I)
# invariant 387: "I don't speak German at B1, I'm still A2": never so, and what holds instead
_NOT_LEVEL = re.compile(r"\b(?:i\s+(?:don'?t|do\s+not)\s+speak\s+(?P<l1>" + _LANG + r")\s+at\s+|"
                        r"i'?m\s+not\s+(?:at\s+)?|i\s+am\s+not\s+(?:at\s+)?)(?P<old>" + _CEFR + r")"
                        r"(?:\s+(?:in\s+)?(?P<l2>" + _LANG + r"))?\s*[,;]\s*(?:i'?m|i\s+am)\s+(?P<still>still\s+|"
                        r"only\s+|actually\s+|just\s+)?(?:at\s+)?(?P<new>" + _CEFR + r")\b", I)


def _level(lvl: str) -> str:
    return lvl.upper()


def _language(c: str, today: date) -> list[Statement] | None:
    if m := _NOT_LEVEL.search(c):
        lang = m.group("l1") or m.group("l2") or _lang_in(c)
        if not lang:
            return None
        return [_st(f"Speaks {lang.capitalize()} at {_level(m.group('new'))}", "level:language", c, today,
                    previous=f"{lang.capitalize()} {_level(m.group('old'))}", harsh=True,
                    kind="up" if _level(m.group("new")) > _level(m.group("old")) else "down")]
    m = _PASSED.search(c)
    if re.search(r"\b(?:failed|didn'?t\s+pass|did\s+not\s+pass)\b", c, I):
        return None  # "failed the B2 exam": the level on record holds
    lang = None
    if m:
        lang = m.group("l1") or m.group("l2") or m.group("l3") or _lang_in(c)
        lvl = m.group("lvl")
        if not (m.group("l1") or m.group("l2") or m.group("l3")) and (
                not m.group(0).lower().startswith("passed") or re.match(r"\s+in\s+(?!(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|"
                                                           r"\d|the\s+(?:spring|summer|autumn|winter)\b)", c[m.end():], I)):
            return None  # "got an A1 in maths": a mark, not a language's level
    elif (n := _AT_NOW.search(c)) is not None:
        lang, lvl = n.group("l1") or n.group("l2") or _lang_in(c), n.group("lvl") or n.group("lvl2") or n.group("lvl3")
        if not lang:
            return None
    else:
        return None
    if not re.fullmatch(_CEFR, lvl, I) or (lvl.islower() and not lang):
        return None
    text = f"Speaks {lang.capitalize()} at {_level(lvl)}" if lang else f"Speaks at {_level(lvl)}"
    if m and re.search(r"\b(?:exam|test)\b", m.group(0), I):
        text += f" (passed the {_level(lvl)} exam)"  # as invariant 347 writes it
    return [_st(text, "level:language", c, today, previous=lang.capitalize() if lang else None)]


def _lang_in(c: str) -> str | None:
    found = {w.lower() for w in re.findall(r"\b" + _LANG + r"\b", c, I)}
    return found.pop() if len(found) == 1 else None


# --- invariant 386: a programme's status lost, reached or put right -------------------------------
_TIER_DOWN = re.compile(r"\b(?:lost|dropped|lost\s+my|dropped\s+my|no\s+longer\s+have|don'?t\s+have)\s+(?:my\s+)?"
                        r"(?P<old>" + _TIER + r")" + _ALONE + r"(?:\s+status)?\b(?P<mid>.*?)(?:(?:put|moved|bumped|knocked|"
                        r"dropped|downgraded)\s+(?:me\s+)?(?:back\s+)?(?:down\s+)?to|(?:i'?m\s+)?(?:back\s+)?"
                        r"(?:down\s+)?to|i'?m\s+(?:back\s+)?(?:on|at)|back\s+(?:down\s+)?to)\s+(?P<new>"
                        + _TIER + r")\b", I)
_TIER_LOST = re.compile(r"^\W*(?:i\s*)?(?:have\s+|'ve\s+|just\s+)*lost\s+(?:my\s+)?(?P<old>" + _TIER +
                        r")" + _ALONE + r"(?:\s+status)?\b", I)
_TIER_UP = re.compile(r"\b(?:(?:i\s+)?(?:have\s+|'ve\s+|just\s+|finally\s+)*(?:got\s+|been\s+)?(?:upgraded|bumped"
                      r"\s+up|moved\s+up|promoted)\s+to|(?:i\s+)?(?:have\s+|'ve\s+|just\s+|finally\s+)*(?:made|"
                      r"reached|hit|earned|qualified\s+for|requalified\s+for|made\s+it\s+to)|(?:i'?m|i\s+am)"
                      r"(?:\s+now)?)\s+(?P<new>" + _TIER + r")" + _ALONE + r"(?P<st>\s+(?:status|tier|level|member))?\b", I)
_TIER_FIX = re.compile(r"\b(?:i\s+(?:don'?t|do\s+not)\s+have|i'?m\s+not|i\s+am\s+not|i\s+never\s+had)\s+"
                       r"(?P<old>" + _TIER + r")" + _ALONE + r"(?:\s+status)?\b[^,;]*[,;]\s*(?:i\s+(?:have|'ve\s+got|got)|i'?m|"
                       r"i\s+am|it'?s)\s+(?P<still>still\s+|only\s+|actually\s+)?(?P<new>" + _TIER + r")\b", I)


def _tier(c: str, today: date) -> list[Statement] | None:
    prog = _prog_of(c)
    tail = f" with {prog}" if prog else ""
    if m := _TIER_FIX.search(c):
        old, new = _tier_name(m.group("old")), _tier_name(m.group("new"))
        up = _TIER_RANK.get(new.lower(), 0) > _TIER_RANK.get(old.lower(), 0)
        return [_st(f"Has {new} status{tail}", "level:tier", c, today, previous=old, harsh=True,
                    fact_type="world", kind="up" if up else "down")]
    if m := _TIER_DOWN.search(c):
        old, new = _tier_name(m.group("old")), _tier_name(m.group("new"))
        return [_st(f"Has {new} status{tail}", "level:tier", c, today, previous=old, fact_type="world")]
    if m := _TIER_LOST.search(c):
        old = _tier_name(m.group("old"))
        return [_st(f"No longer has {old} status{tail}", "level:tier", c, today, previous=old, fact_type="world")]
    if m := _TIER_UP.search(c):
        new = _tier_name(m.group("new"))
        if not (m.group("st") or prog or re.search(r"\b(?:status|tier|elite|frequent\s+flyer|miles|points|"
                                                   r"loyalty)\b", c, I)):
            return None  # "got gold in the 100m": a medal, not a status
        return [_st(f"Has {new} status{tail}", "level:tier", c, today, fact_type="world")]
    return None


# --- invariant 388: a belt or a grade reached replaces the one of the same discipline ------------
_GRADED = re.compile(r"\b(?:i\s+)?(?:have\s+|'ve\s+|just\s+|finally\s+)*(?:got|earned|passed|was\s+awarded|"
                     r"got\s+awarded|been\s+awarded|received|went\s+up\s+to|graded\s+to|moved\s+up\s+to)\s+"
                     r"(?:my\s+|the\s+|a\s+|an\s+)?(?P<lvl>" + _BELT + r"|grade\s+\d{1,2}|\d(?:st|nd|rd|th)\s+"
                     r"(?:dan|kyu))(?:\s+(?:in|at|for)\s+(?P<what>[a-z][\w -]*?))?(?:\s+(?:exam|test))?"
                     r"(?=\s*(?:[,.;!]|$|\s+(?:today|yesterday|this|last|on|at|in)\b))", I)


def _belt(c: str, today: date) -> list[Statement] | None:
    m = _GRADED.search(c)
    if not m:
        return None
    lvl, what = m.group("lvl").lower(), (m.group("what") or "").strip().lower()
    what = re.sub(r"^(?:my|the)\s+", "", what)
    if what in {"the", "my", "last", "this"}:
        what = ""
    lvl = re.sub(r"^grade", "grade", lvl)
    text = f"Has {'a ' if 'belt' in lvl else ''}{lvl}" + (f" in {what}" if what else "")
    return [_st(text, "level:grade", c, today, previous=what or None, fact_type="identity")]


# "Passed the CKA early!": an exam named by its letters, passed; it replaces the plan to sit it
_EXAM = re.compile(r"^\W*(?:i\s*)?(?:have\s+|'ve\s+|just\s+|finally\s+|officially\s+)*passed\s+(?:the\s+|my\s+)?"
                   r"(?P<x>(?-i:[A-Z][A-Z0-9]{1,7})(?:\s+(?-i:[A-Z][\w-]*)){0,3})(?:\s+(?:exam|test|certification|cert))?"
                   r"(?=\s*(?:[,.;!]|$|\s+(?:early|today|yesterday|this|last|on|in|at|first)\b))", I)


def _exam(c: str, today: date) -> list[Statement] | None:
    m = _EXAM.match(c)
    if not m or re.match(_CEFR + r"\b", m.group("x")):
        return None
    exam = re.search(r"\s+(?:exam|test|certification|cert)$", m.group(0), I)
    return [_st(f"Passed the {m.group('x')}" + (exam.group(0) if exam else ""), "level:exam", c, today, previous=m.group("x"))]


# --- invariant 389: a permit to stay replaced by permanent residence -------------------------------
PERMIT = re.compile(r"\b(?:blue\s+card|(?:work|skilled\s+worker|spouse|family|partner|student|residence|"
                    r"resident|employment|temporary|h-?1b|tier\s*2)\s+(?:visa|permit)|work\s+permit|residence\s+"
                    r"permit|pre-settled\s+status|temporary\s+residence|aufenthaltstitel)\b", I)
_PERMANENT = re.compile(r"\b(?:got|received|was\s+granted|been\s+granted|granted|have\s+now|now\s+have|approved\s+for|"
                        r"came\s+through\s+with)\s+(?:my\s+|the\s+)?(?P<new>permanent\s+residen(?:ce|cy)"
                        r"(?:\s+permit)?|settled\s+status|indefinite\s+leave\s+to\s+remain|niederlassungserlaubnis|"
                        r"(?:a\s+)?green\s+card)\b", I)


def _residence(c: str, today: date) -> list[Statement] | None:
    m = _PERMANENT.search(c)
    if not m:
        return None
    new = re.sub(r"^a\s+", "", m.group("new").lower())
    new = re.sub(r"\s+permit$", "", new).replace("residency", "residence")
    old = PERMIT.search(c[:m.start("new")] + " " + c[m.end("new"):])
    return [_st(f"Has {new}", "level:residence", c, today, previous=old.group(0) if old else None,
                fact_type="constraint")]


# --- invariant 390: a citizenship gained is written, never a death or a trip ----------------------
_NATION = r"(?P<nat>(?-i:[A-Z])[a-z]+(?:ish|ian|an|ese|ic|ch|i))"
_CITIZEN = re.compile(r"\b(?i:got|received|was\s+granted|been\s+granted)\s+(?i:my\s+)?" + _NATION + r"\s+"
                      r"(?i:passport|citizenship|nationality)\b(?P<rest>.*)$|\b(?i:i'?m|i\s+am)\s+(?i:now\s+)?"
                      r"(?i:a\s+)?(?P<dual>(?i:dual)\s+)?(?:" + _NATION.replace("nat", "nat2") + r"\s+)?(?i:citizen)\s+(?i:now)\b|"
                      r"\b(?i:became)\s+(?i:a\s+)?" + _NATION.replace("nat", "nat3") + r"\s+citizen\b")


def _citizen(c: str, today: date) -> list[Statement] | None:
    m = _CITIZEN.search(c)
    if not m:
        return None
    nat = m.group("nat") or m.group("nat2") or m.group("nat3")
    dual = bool(re.search(r"\bdual\s+(?:citizen|national|nationality|citizenship)\b", c, I))
    passport = m.group("nat") and re.search(r"\bpassport\b", m.group(0), I)
    if passport and not (dual or re.search(r"\bcitizen", c, I)):
        return None  # "got my Irish passport back": a document renewed, not a citizenship
    if not nat:
        return None
    text = f"Has {nat} citizenship" + (" and is a dual citizen" if dual else "")
    return [Statement(act="assert", text=text, fact_type="identity", valid_from=find_dates(c, today).valid_from,
                      clause=c, rule="level:citizen")]


# --- invariant 390: a trusted-traveller scheme granted is a status of its own -----------------------
_TRUSTED = re.compile(r"^\W*(?:i\s*)?(?:have\s+|'ve\s+|just\s+|finally\s+)*(?:got|been\s+approved\s+for|was\s+"
                      r"approved\s+for|been\s+granted|was\s+granted|have)\s+(?:my\s+)?(?P<s>global\s+entry|tsa\s+"
                      r"pre-?check|nexus|sentri|registered\s+traveller)\b(?:\s+now)?\s*(?:[,.;!]|$)", I)


def _trusted(c: str, today: date) -> list[Statement] | None:
    m = _TRUSTED.search(c)
    if not m:
        return None
    name = {"global entry": "Global Entry", "nexus": "NEXUS", "sentri": "SENTRI",
            "registered traveller": "Registered Traveller"}.get(re.sub(r"\s+", " ", m.group("s").lower()), "TSA PreCheck")
    return [Statement(act="assert", text=f"Has {name}", fact_type="world", valid_from=find_dates(c, today).valid_from,
                      clause=c, rule="level:citizen")]


# --- invariant 391: the one fact holding a level of the same kind ----------------------------------
def settle(st: Statement, hits) -> tuple[object | None, Statement, bool] | None:
    """(the fact this level replaces or None, the statement to write, whether a correction claims a
    higher level and is left for review), or None when nothing is to be written. Pure."""
    facts = list({h.id: h for h in hits if getattr(h, "kind", "") == "semantic"
                  and getattr(h, "state", "") == "active"}.values())
    text = st.text or ""
    if st.rule == "level:citizen":
        return None, st, False
    if st.rule == "level:language":
        lang = (st.previous or "").split(" ")[0] if st.previous else ""
        held = [h for h in facts if re.search(r"\b" + _CEFR + r"\b|\blevel\b", h.text)
                and (not lang or re.search(r"\b" + re.escape(lang) + r"\b", h.text, I))]
        speaks = [h for h in held if re.match(r"^(?:speaks|is\s+learning|learning|learns|studies)\b", h.text, I)]
        held = speaks or held
        if not lang:
            langs = {w.lower() for h in held for w in re.findall(r"\b" + _LANG + r"\b", h.text, I)}
            if len(held) != 1 or len(langs) != 1:
                return None  # a level with no language named and none on record to hold it
            lang = langs.pop().capitalize()
            text = text.replace("Speaks at", f"Speaks {lang} at")
        if len(held) > 1:
            return None
        old = held[0] if held else None
        if old is None and st.harsh:
            return None
        return old, st.model_copy(update={"text": text}), False
    if st.rule == "level:tier":
        tiered = [h for h in facts if re.match(r"^(?:has|holds|is)\b", h.text, I)
                  and re.search(r"\b" + _TIER + r"\b", h.text, I)
                  and re.search(r"\b(?:status|tier|member)\b", h.text, I)]
        prog = _prog_of(text)
        if prog:
            tiered = [h for h in tiered if prog.lower() in h.text.lower()] or tiered
        if st.previous:
            tiered = [h for h in tiered if re.search(r"\b" + re.escape(st.previous) + r"\b", h.text, I)]
        if len(tiered) != 1:
            if st.previous or st.harsh:
                return None  # what was lost or put right is on record once, or nothing changes
            if not re.search(r"\b(?:status|tier)\b", st.clause or "", I) and not prog:
                return None
            return None, st, False
        old = tiered[0]
        if not prog and (p := _prog_of(old.text)):
            text = f"{text} with {p}"
        return old, st.model_copy(update={"text": text}), bool(st.harsh and st.kind == "up")
    if st.rule == "level:grade":
        what = st.previous or ""
        belt = "belt" in text
        graded = [h for h in facts if (re.search(r"\bbelt\b", h.text, I) if belt else re.search(
            r"\bgrade\s+\d", h.text, I)) and (not what or re.search(r"\b" + re.escape(what) + r"\b", h.text, I))]
        if len(graded) > 1:
            return None
        return (graded[0] if graded else None), st, False
    if st.rule == "level:exam":
        x = re.escape(st.previous or "")
        plans = [h for h in facts if re.search(r"\b" + x + r"\b", h.text) and re.search(
            r"\b(?:exam|sits?|sitting|taking|takes|booked|scheduled|studying|revising)\b", h.text, I)]
        if len(plans) > 1:
            return None
        return (plans[0] if plans else None), st, False
    if st.rule == "level:residence":
        permits = [h for h in facts if PERMIT.search(h.text)
                   and re.match(r"^(?:holds|has|is\s+on|on|lives)\b", h.text, I)]
        if len(permits) > 1:
            return None
        return (permits[0] if permits else None), st, False
    return None
