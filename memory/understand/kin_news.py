"""News about a relative on record, and corrections about them (issue 12, invariants 403-410):
a named relative's new employer or school, a graduation and the job after it, "my son doesn't
play rugby, that's his cousin", "her name is Aoibhe, not Aoife". A relative's fact is replaced
only by news naming the same relative; the user's own facts are never touched. Pure functions
(`read`, `more`, `resolve`), deterministic; the agent does the writes (`OfflineAgent._kin`)."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from . import lexicon as lx
from .dates import find_dates
from .model import Statement
from .people import a_name, kin
from .phrases import UPPER, I

_NAME = r"(?P<n>(?-i:" + UPPER + r")[\w'’-]+)"
_CAPS = r"(?-i:" + UPPER + r")[\w&'’-]*(?:\s+(?:(?-i:" + UPPER + r")[\w&'’-]*|of|and|&))*"
_FAMILY = sorted(lx.RELATIONS - {"boss", "manager", "lead", "colleague", "flatmate", "roommate", "housemate",
                                 "neighbour", "neighbor", "parents", "kids", "children", "twins", "in-laws"},
                 key=len, reverse=True)
_REL = r"(?P<rel>" + "|".join(_FAMILY) + r")"
_WHO = r"(?:" + _NAME + r"|(?:my|our)\s+" + _REL + r")"
_PRON = r"(?:she|he)"
_HEDGE = re.compile(r"\b(?:if|might|(?-i:may)|maybe|perhaps|would|could|should|whether|hope|hoping|thinking|"
                    r"considering|wants?|planning|plans?|might)\b|\?", I)
_SCHOOL = re.compile(r"\b(?:school|primary|secondary|nursery|montessori|academy|college|class|year\s+\d+|"
                     r"gaelscoil|scoil|kindergarten|creche|crèche|preschool|pre-school|high)\b", I)
_STUDY = re.compile(r"\b(?:universit(?:y|ies)|uni|college|studying|studies|student|degree|course)\b", I)
_WORKS = re.compile(r"\b(?:works?\s+(?:at|for|in)|job\s+(?:at|with)|employed\s+(?:at|by)|is\s+at|is\s+with|"
                    r"(?:is|works\s+as)\s+an?\s+[a-z][\w -]*?\s+(?:at|for|in)\s+(?:an?\s+|the\s+)?(?-i:[A-Z])?[\w-]+)", I)
_STOP = r"(?=\s+(?:now|from|since|because|as|after|before|this|next|in\s+(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*|the\s+new\s+year))\b|\s*[,.;!?]|\s*$)"

# Invariant 403: a named relative's new employer ("Nneka left Access Bank and she's with
# Flutterwave now", "Chidi is at Paystack now", "Ruth now works for the BBC").
_LEFT_FOR = re.compile(r"^" + _NAME + r"\s+(?:has\s+)?(?:left|quit)\s+(?P<old>" + _CAPS + r")\s*,?\s+(?:and\s+|so\s+)?"
                       + _PRON + r"(?:'s|’s|\s+is)\s+(?:now\s+)?(?:with|at|working\s+(?:at|for))\s+(?P<new>(?:the\s+)?"
                       + _CAPS + r")" + _STOP, I)
_NOW_WITH = re.compile(r"^" + _NAME + r"(?:'s|’s|\s+is)\s+(?:now\s+)?(?:with|working\s+(?:at|for))\s+"
                       r"(?P<new>(?:the\s+)?" + _CAPS + r")\s+now\b", I)
_NOW_WORKS = re.compile(r"^" + _NAME + r"\s+(?:now\s+works|works\s+now)\s+(?:at|for)\s+(?P<new>(?:the\s+)?"
                        + _CAPS + r")" + _STOP, I)

_OWN = re.compile(r"^" + _NAME + r"\s+(?:has\s+|just\s+|finally\s+)*(?:opened|started|launched|set\s+up)\s+(?:his|her|their)\s+"
                  r"own\s+(?P<new>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)(?:\s+in\s+(?P<p>" + _CAPS + r"))?" + _STOP, I)

# Invariant 404: a child moved to another school ("We've moved Kwame to Greensprings School",
# "We're moving Ciara to the Gaelscoil in Lucan after Christmas").
_MOVED_SCHOOL = re.compile(r"^(?:we|i)(?:'ve|’ve|\s+have|'re|’re|\s+are|'m|’m|\s+am)?\s+(?:just\s+|finally\s+)?"
                           r"(?:moved|moving|changed|switched|transferred|transferring)\s+" + _NAME +
                           r"\s+(?:over\s+)?to\s+(?P<new>(?:the\s+)?" + _CAPS + r"(?:\s+in\s+" + _CAPS + r")?)" + _STOP, I)

# ... or got a place at one ("Our daughter got her place at Trinity! She moves to Dublin in
# September"), when no plan reader took it (invariant 421 reads "… He starts on 11 January").
_PLACE_AT = re.compile(r"\b(?:(?:so\s+|and\s+)?(?:we|i)(?:['’]ve|\s+have)?\s+(?:finally\s+|just\s+)*got\s+"
                       r"(?:(?:my|our)\s+" + _REL + r"|" + _NAME + r")|(?:(?:my|our)\s+" + _REL.replace("<rel>", "<rel2>") + r"|"
                       + _NAME.replace("<n>", "<n2>") + r")(?:['’]s|\s+has)?\s+(?:finally\s+|just\s+)*got\s+(?:her|his|their))"
                       r"\s+(?:a\s+)?place\s+at\s+(?P<new>" + _CAPS + r")", re.I)
_THEN_STARTS = re.compile(r"^(?:she|he)\s+(?:starts|moves|begins|goes)\b[^.!?]*", I)


def _place(message: str, today: date) -> list[Statement]:
    m = _PLACE_AT.search(message.strip())
    if not m:
        return []
    rel, n = m.group("rel") or m.group("rel2"), m.group("n") or m.group("n2")
    if not rel and not a_name(n):
        return []
    after = _sentences(message.strip()[m.end():])[1:]
    when = None
    if after and (then := _THEN_STARTS.match(re.sub(r"^\W+", "", after[0]))):
        when = find_dates(then.group(0), today).valid_from
        if when is not None and when < today:
            when = when.replace(year=when.year + 1, day=min(when.day, 28))
    return [_st("assert", f"has a place at {m.group('new')}", n or rel.lower(), "kin:place", message.strip(),
                previous="school", when=when)]


# Invariant 405: a relative on record as studying graduated ("Tunde graduated in law from Unilag
# in October"), and the job they start after ("and he starts at a firm in Ikoyi in January").
_GRADUATED = re.compile(r"^" + _NAME + r"\s+(?:has\s+|just\s+|finally\s+)*graduated\b(?P<what>(?:\s+(?:in|with)\s+"
                        r"(?!(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\d)[\w-]+(?:\s+[\w-]+){0,3}?"
                        r"(?=\s+(?:from|in|at|and|with)\b|\s*[,.;!?]|\s*$))?"
                        r"(?:\s+from\s+" + _CAPS + r")?)(?P<rest>[^.;!?]*)", I)
_STARTS = re.compile(r"\b(?:and\s+)?" + _PRON + r"\s+(?:starts|is\s+starting|'s\s+starting|will\s+start)\s+"
                     r"(?P<job>(?:a\s+(?:new\s+)?job\s+)?(?:at|with)\s+[^,.;!?]+?)(?=\s+(?:in|on|from|next)\s+"
                     r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|the)[a-z]*\b|\s*[,.;!?]|\s*$)", I)

# Invariant 410: a relative on record gave up one activity for another ("Leo quit football, he
# does judo now"): the fact naming them and the old activity is replaced.
_SWAPPED_ACT = re.compile(r"^" + _WHO + r"\s+(?:has\s+)?(?:just\s+)?(?:quit|stopped|gave\s+up|given\s+up|dropped)\s+"
                          r"(?P<x>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s*(?:,|;|\band\b|\.)\s*(?:and\s+|so\s+)?(?P<p>she|he)"
                          r"(?P<v>['’]s\s+doing|\s+is\s+doing|\s+does|\s+plays|['’]s\s+into|\s+is\s+into)\s+"
                          r"(?P<y>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+now\b", I)

# Invariant 406: "My son doesn't play rugby and never has, that's his cousin. He does
# swimming.", "Sofía isn't at Hillside, that's her friend Lucía. She's at Oakwood Primary": what
# the record says of them was someone else's; the true thing takes its place.
_NOT_THEIRS = re.compile(r"^" + _WHO + r"\s+(?P<neg>doesn['’]?t|does\s+not|isn['’]?t|is\s+not|never)\s+"
                         r"(?P<x>[^,.;!?]+?)(?:\s+and\s+never\s+(?:has|had|did|was))?\s*[,;.!-]+\s*"
                         r"(?:that['’]?s|that\s+is|that\s+was|you['’]?re\s+thinking\s+of)\s+(?:his|her|their|my|our)\s+"
                         r"[\w'’-]+(?:\s+(?-i:" + UPPER + r")[\w'’-]+)?\s*[.!;,]+\s*"
                         r"(?P<p>she|he)(?P<v>['’]s|\s+is|\s+does|\s+plays|\s+goes\s+to|\s+goes|\s+swims|\s+attends)\s+"
                         r"(?P<y>[^,.;!?]+?)\s*[.!]*\s*$", I)

_ALWAYS_BEEN = re.compile(r"^" + _WHO + r"\s+(?:never|didn['’]?t|did\s+not|doesn['’]?t|does\s+not|isn['’]?t|is\s+not|wasn['’]?t|"
                          r"was\s+not)\s+(?P<x>[^.;!?]+?)\s*[.;!]+\s*(?P<p>she|he)(?:['’]s|\s+has)\s+always\s+been\s+"
                          r"(?P<y>(?:in|at)\s+" + _CAPS + r")\s*(?:[.;!,]|$)", I)
_MIXED_UP = re.compile(r"\bmix(?:ed|ing)\s+(?:him|her|them)\s+up\b|\bconfus(?:ed|ing)\s+(?:him|her|them)\b|"
                       r"\bthat['’]?s\s+(?:his|her|my|our)\s+\w+|\bthinking\s+of\s+(?:his|her|my|our)\b", I)

# Invariant 407: "Her name is Aoibhe, not Aoife!": a relative's name spelled wrong on record.
_NOT_NAME = re.compile(r"^(?:(?:her|his|their)\s+name\s+is|(?:it['’]?s|it\s+is))\s+(?P<new>(?-i:" + UPPER +
                       r")[\w'’-]+)\s*,?\s+not\s+(?P<old>(?-i:" + UPPER + r")[\w'’-]+)\b", I)


# ... and a relative's date put right the same way ("It's the 21st of May, not the 12th! My
# wife's birthday." over "Wife's birthday is 12 May").
_DAY = r"(?:the\s+)?(?P<{g}>\d{{1,2}})(?:st|nd|rd|th)?(?:\s+of)?(?:\s+(?P<{g}m>(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*))?"
_NOT_DAY = re.compile(r"^(?:it['’]?s|it\s+is)\s+" + _DAY.format(g="new") + r"\s*,?\s+not\s+" + _DAY.format(g="old") +
                      r"\s*[.!]+\s*(?:it['’]?s\s+|that['’]?s\s+)?(?:my|our)\s+" + _REL +
                      r"['’]s\s+(?P<what>birthday|anniversary|name\s+day)\b", I)


def _sentences(message: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", message.strip()) if s.strip()]


def _st(act: str, text: str, who: str, rule: str, clause: str, *, previous: str = "", when: date | None = None,
        harsh: bool = False, target: str | None = None) -> Statement:
    return Statement(act=act, text=text, fact_type="identity", previous=(who + " " + previous).strip(),
                     target=target or who, harsh=harsh, valid_from=when, clause=clause, rule=rule)


def read(message: str, today: date) -> list[Statement] | None:
    """The statements of a message that is news or a correction about a relative, or None
    (the message is read as usual). Pure."""
    if _HEDGE.search(message) and not (_NOT_THEIRS.match(message.strip()) or _NOT_NAME.match(message.strip())
                                       or _NOT_DAY.match(message.strip())
                                       or _WHERE_FROM.match(message.strip())):
        return None
    parts = _sentences(message)
    first = parts[0] if parts else ""
    if (m := _WHERE_FROM.match(message.strip())) and _HEALTH.search(m.group("x")) and (
            w := _WHOSE_IS.match(message.strip()[m.end():])):
        who = w.group("rel").lower() + (f" {w.group('n')}" if w.group("n") else "")
        return [_st("assert", m.group("x"), who, "kin:theirs", message.strip(), previous=m.group("x")),
                Statement(act="deny", target=m.group("x"), harsh=True, clause=message.strip(), rule="deny:kin")]
    if m := _NOT_THEIRS.match(message.strip()):
        who = m.group("n") or m.group("rel")
        if m.group("n") and not a_name(who):
            return None
        verb = {"'s": "is", "’s": "is"}.get(m.group("v").strip(), m.group("v").strip())
        return [_st("change", f"{verb} {m.group('y').strip()}", who, "kin:not-theirs", message.strip(),
                    previous=m.group("x"), harsh=True)]
    if (m := _ALWAYS_BEEN.match(message.strip())) and _MIXED_UP.search(message) and (
            m.group("rel") or a_name(m.group("n"))):
        where = m.group("y")
        said = ("lives " if where.lower().startswith("in ") else "is ") + where
        return [_st("change", said, m.group("n") or m.group("rel"), "kin:not-theirs", message.strip(),
                    previous=m.group("x"), harsh=True)]
    if m := _NOT_DAY.match(message.strip()):
        return [_st("change", f"{m.group('new')} {m.group('newm') or ''}".strip(), m.group("rel").lower(), "kin:date",
                    message.strip(), previous=f"{m.group('what')} {m.group('old')} {m.group('oldm') or ''}".strip(),
                    harsh=True)]
    if m := _NOT_NAME.match(first):
        return [_st("change", m.group("new"), m.group("old"), "kin:name", message.strip(), harsh=True)]
    if (m := _SWAPPED_ACT.match(message.strip())) and (m.group("rel") or a_name(m.group("n"))):
        who = m.group("n") or m.group("rel")
        verb = "plays" if "plays" in m.group("v") else "does"
        return [_st("change", f"{verb} {m.group('y')}", who, "kin:activity", message.strip(), previous=m.group("x"))]
    if (m := _OWN.match(first)) and a_name(m.group("n")) and len(parts) <= 2:
        where = f" in {m.group('p')}" if m.group("p") else ""
        verb = re.search(r"\b(?:opened|started|launched|set\s+up)\b", m.group(0), I)
        an = "an" if m.group("new")[0] in "aeiou" else "a"
        return [_st("change", f"{verb.group(0).lower() if verb else 'opened'} {an} {m.group('new')}{where}",
                    m.group("n"), "kin:employer", first, previous="works", when=find_dates(first, today).valid_from)]
    for lead in (_LEFT_FOR, _NOW_WITH, _NOW_WORKS):
        if (m := lead.match(first)) and a_name(m.group("n")) and len(parts) <= 2:
            return [_st("change", f"works at {m.group('new')}", m.group("n"), "kin:employer", first,
                        previous="works " + (m.groupdict().get("old") or ""))]
    if (m := _MOVED_SCHOOL.match(first)) and a_name(m.group("n")) and len(parts) <= 2:
        return [_st("change", f"attends {m.group('new')}", m.group("n"), "kin:school", first,
                    previous="school", when=find_dates(first, today).valid_from)]
    if (m := _GRADUATED.match(first)) and a_name(m.group("n")) and len(parts) <= 2:
        who, rest = m.group("n"), m.group("rest")
        starts = _STARTS.search(rest)
        grad_when = find_dates(rest[:starts.start()] if starts else rest, today).valid_from
        out = [_st("change", f"graduated{m.group('what')}", who, "kin:graduated", first, previous="university studying",
                   when=grad_when)]
        if starts:
            when = find_dates(rest[starts.end():], today).valid_from
            if when is not None and when < today:
                when = when.replace(year=when.year + 1, day=min(when.day, 28))
            out.append(_st("assert", f"starts {starts.group('job')}", who, "kin:starts", first, when=when))
        return out
    return None


# Invariant 408: "amara's moved to london, she got a job at the BBC", "My husband got a job in
# Düsseldorf so we're moving there": the relative's new job said beside other news is kept too.
_GOT_JOB = re.compile(r"(?:^|[,;.!]\s*|\band\s+|\bso\s+)(?:(?P<p>she|he)|(?:my|our)\s+" + _REL + r")(?:['’]s|\s+has)?\s+"
                      r"(?:just\s+)?(?:got|landed|been\s+offered|started)\s+a\s+(?:new\s+)?job\s+"
                      r"(?P<at>(?:at|with|in)\s+(?:the\s+)?" + _CAPS + r")", I)
_MOVED_NAMED = re.compile(r"^\W*" + _NAME + r"(?:['’]s|\s+has)\s+(?:just\s+)?moved\s+to\b", I)


_EXPECTING = re.compile(r"^\W*" + _NAME + r"(?:['’]s|\s+is)\s+(?:now\s+)?(?P<x>pregnant|expecting(?:\s+(?:a\s+baby|twins))?|engaged)\b"
                        r"(?!\s+(?:to|with)\b)", I)


def more(statements: list[Statement], message: str, today: date | None = None) -> list[Statement]:
    """The statements with a relative's new job said beside other news added (invariant 408)."""
    statements = theirs(statements, message)
    if today is not None and not statements and not _HEDGE.search(message):
        statements = _place(message, today)  # invariant 404, when no plan reader took it
    if any(s.rule.startswith("kin:") for s in statements) or _HEDGE.search(message):
        return statements
    if (e := _EXPECTING.match(message)) and a_name(e.group("n")) and not any(
            e.group("n") in (s.text or "") for s in statements):
        # a named relative's news ("Amara is pregnant!! due in june") is theirs, kept beside
        # the relation a fact on record gives them
        return statements + [_st("assert", f"is {e.group('x').lower()}", e.group("n"), "kin:got-job",
                                 e.group(0).strip())]
    m = _GOT_JOB.search(message)
    if not m:
        return statements
    if m.group("rel"):
        who = m.group("rel").lower()
        if any(re.search(r"\b" + re.escape(who) + r"\b", s.text or "", I) and "job" in (s.text or "")
               for s in statements):
            return statements
        return statements + [_st("assert", f"got a job {m.group('at')}", who, "kin:got-job", m.group(0).strip(" ,;.!"),
                                 previous="")]
    named = _MOVED_NAMED.match(message)
    if not named or not a_name(named.group("n")) or message.find(m.group(0)) < named.end():
        return statements
    return statements + [_st("assert", f"got a job {m.group('at')}", named.group("n"), "kin:got-job",
                             m.group(0).strip(" ,;.!"))]


# Invariant 409: what the user denied having is a relative's ("The peanut allergy is my son's,
# not mine", "I never had a dairy allergy, that's my daughter Chloe", "I'm not diabetic. My
# husband is."): the denial stands, and the same fact is kept about that relative, said in the
# present ("was my sister's" is the past, nothing of hers is written). A bare "that's my mum"
# names whom the record mixed the user up with, not whose the fact is: the denial only.
_HEALTH = re.compile(r"\b(?:allerg\w*|intoleran\w*|diabet\w*|asthma\w*|coeliac|celiac|epilep\w*|eczema|"
                     r"migraines?|adhd|autis\w*|dyslexi\w*|vegan|vegetarian)\b", I)
_IS_THEIRS = re.compile(r"(?:\bis|\bit['’]?s|\bthat['’]?s|\bthat\s+is)\s+(?:actually\s+)?(?:my|our)\s+" + _REL +
                        r"(?:['’]s\b|\s+" + _NAME + r"(?:['’]s)?\b)", I)
_WHOSE_IS = re.compile(r"(?:^|[.!?]\s*)(?:(?:no|nope),?\s+)?(?:my|our)\s+" + _REL + r"(?:\s+" + _NAME + r")?\s+(?:is|does|has)\s*[.!]*\s*$", I)
_WHERE_FROM = re.compile(r"^(?:where\s+did\s+you\s+get|who\s+told\s+you|why\s+do\s+you\s+think|what\s+makes\s+you\s+think)\s+"
                         r"(?:that\s+|the\s+idea\s+that\s+)?i['’]?m\s+(?P<x>[a-z][\w -]*?)\s*\?\s*(?:i['’]?m\s+not|i\s+am\s+not|"
                         r"i['’]?m\s+really\s+not)\b[.!]*\s*", I)


def theirs(statements: list[Statement], message: str) -> list[Statement]:
    """The statements with the relative's own fact added after the user's denial of it."""
    denied = [s for s in statements if s.act == "deny" and _HEALTH.search(s.target or "")]
    m = _IS_THEIRS.search(message) or _WHOSE_IS.search(message)
    if len(denied) != 1 or not m or any(s.rule.startswith("kin:") for s in statements):
        return statements
    if m.group("n") and not a_name(m.group("n")):
        return statements
    who = m.group("rel").lower() + (f" {m.group('n')}" if m.group("n") else "")
    # written before the denial is kept, so the relative's fact is no restatement of a value
    # marked never true
    at = statements.index(denied[0])
    return statements[:at] + [_st("assert", denied[0].target or "", who, "kin:theirs", message.strip(),
                                  previous=denied[0].target or "")] + statements[at:]


def cap_first(s: str) -> str:
    return s[:1].upper() + s[1:]


def _names(who: str, text: str) -> bool:
    return re.search(r"(?<![\w'’-])" + re.escape(who) + r"(?![\w'’-])", text, I) is not None


def _head(who: str, text: str) -> str | None:
    """The fact's words up to and including the person ("Wife Nneka", "Her daughter Sofía",
    "Son"), when they open it with their relation; else None. Pure."""
    m = re.match(r"^(?:(?:her|his|their|my)\s+)?(?P<rel>[\w-]+)(?:\s+(?-i:" + UPPER + r")[\w'’-]+)?", text, I)
    if not m or kin(m.group("rel")) not in {kin(r) for r in _FAMILY}:
        return None
    head = m.group(0)
    if kin(who) == kin(m.group("rel")) or _names(who, head):
        return head
    return None


def resolve(st: Statement, hits) -> tuple[Any | None, str] | None:
    """The one active fact the statement replaces (or None for a new fact) and the text to
    write, or None when nothing may be written: a relative's fact is replaced only by news of
    the same relative, named or called by the same relation word. Pure."""
    who = st.target or ""
    active = {h.id: h for h in hits if h.kind == "semantic" and h.state == "active"}.values()
    theirs = [(h, hd) for h in active if (hd := _head(who, h.text))]
    if st.rule == "kin:name":
        fits = [h for h in active if _names(who, h.text)
                and re.search(r"\bname\b|\bcalled\b|\bnamed\b", h.text, I)]
        if len(fits) != 1 or not re.search(r"\b(?:" + "|".join(_FAMILY) + r")\b", fits[0].text, I):
            return None
        h = fits[0]
        return h, re.sub(r"(?<![\w'’-])" + re.escape(who) + r"(?![\w'’-])", st.text or "", h.text, count=1)
    if st.rule == "kin:date":
        old_day = re.search(r"\b(\d{1,2})\b", st.previous or "")
        what = (st.previous or "").split(who, 1)[-1].split()[0]
        fits = [(h, hd) for h, hd in theirs if what.lower() in h.text.lower() and old_day
                and re.search(r"(?<!\d)" + old_day.group(1) + r"(?:st|nd|rd|th)?(?!\d)", h.text)]
        if len(fits) != 1 or not old_day:
            return None
        h = fits[0][0]
        new = (st.text or "").split()
        text = re.sub(r"(?<!\d)" + old_day.group(1) + r"(?:st|nd|rd|th)?(?!\d)", new[0], h.text, count=1)
        if len(new) > 1:
            text = re.sub(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b", new[1].capitalize(), text,
                          count=1, flags=I)
        return h, text
    want = {"kin:employer": _WORKS, "kin:school": _SCHOOL, "kin:graduated": _STUDY}.get(st.rule)
    if st.rule in ("kin:not-theirs", "kin:activity"):
        said = {w.lower() for w in re.findall(r"[\w'’-]{4,}", (st.previous or "").removeprefix(who))}
        said -= {"play", "plays", "does", "goes", "school", "never", "near", "with", "always", "from"}
        fits = [(h, hd) for h, hd in theirs
                if said & {w.lower().rstrip("s") for w in re.findall(r"[\w'’-]+", h.text)} | said & {
                    w.lower() for w in re.findall(r"[\w'’-]+", h.text)}]
        if len(fits) != 1:
            return None
        h, hd = fits[0]
        return h, f"{hd} {st.text}"
    if want is not None:
        fits = [(h, hd) for h, hd in theirs if want.search(h.text)]
        if len(fits) != 1:
            return None
        h, hd = fits[0]
        return h, f"{hd} {st.text}"
    if st.rule == "kin:theirs":
        stems = {w.lower()[:5] for w in re.findall(r"[\w'’-]{4,}", st.text or "")} - {"never", "have", "had"}
        mine = [h for h in active if _head(who.split()[0], h.text) is None and re.match(r"^(?:Has|Is)\s", h.text)
                and stems and stems <= {w.lower()[:5] for w in re.findall(r"[\w'’-]+", h.text)}]
        if len(mine) != 1:
            return None
        return None, f"{cap_first(who)} {mine[0].text[0].lower()}{mine[0].text[1:]}"
    if st.rule == "kin:place":
        schools = [(h, hd) for h, hd in theirs if _SCHOOL.search(h.text)]
        if len(schools) == 1:
            return schools[0][0], f"{schools[0][1]} {st.text}"
    if st.rule in ("kin:starts", "kin:got-job", "kin:place"):
        heads = {hd for _h, hd in theirs}
        if len(heads) == 1:
            return None, f"{heads.pop()} {st.text}"
        if not heads and who.lower() in _FAMILY:
            return None, f"{who.capitalize()} {st.text}"
        return None
    return None
