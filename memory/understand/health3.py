"""Health facts the user says in passing (invariants 411-418).

Pure, deterministic readers of one clause each, for what the user says of their own health
with a date or a reason: an operation had ("Had ACL reconstruction surgery on my left knee
yesterday"), a vaccine dose ("Got my second dose of the shingles vaccine on 25 November"), a
condition had for years ("I've had asthma since I was a kid", "I've been a Type 1 diabetic
since I was nine"), one a clinician found ("The cardiologist confirmed atrial fibrillation on
Monday"), a spell sober ("I'm four months sober as of today"), what a clinician has the user
take or do ("My doctor added a statin, atorvastatin 20mg", "The physio has me doing Pilates
twice a week"), and an aid now needed ("I need reading glasses now"). Each reads only a clause
whose subject is the user (said, or left out): a relative's operation, a question or a
hypothetical is never read here. The value never holds the time words: they are its date.
Each returns None when it does not read the clause, so the other readers still do.
"""

from __future__ import annotations

import re
from datetime import date

from . import lexicon as lx
from .dates import Dates, find_dates
from .model import Statement
from .phrases import I, tidy

# A clinician, as the user names them ("my GP", "the asthma nurse", "the cardiologist").
_CLINICIAN = (r"(?:(?:my|the|our)\s+(?:[\w-]+\s+)?)?(?:doctor|doc|gp|consultant|nurse|specialist|psychiatrist|"
              r"cardiologist|dermatologist|endocrinologist|rheumatologist|neurologist|oncologist|surgeon|"
              r"physio|physiotherapist|osteopath|chiropractor|optician|optometrist|audiologist|dentist|"
              r"hospital|clinic|midwife|dietitian|allergist|pharmacist)")
# What ends the part of a clause that is the value: a reason, a remark, a clause of its own.
_TAIL = re.compile(r"\s*(?:[,;:!?]|\.(?!\d)|\s(?:so|and|but|because|cos|which|after|since|as|while|when|"
                   r"though|although)\b|\s-\s|\s[–—]\s).*$", I)
_SIDE_BODY = (r"(?:(?:left|right|lower|upper)\s+)?(?:knee|hip|shoulder|ankle|wrist|elbow|back|spine|neck|foot|"
              r"hand|eye|eyes|heart|gallbladder|appendix|tonsils|hernia|cataracts?|bunion|thumb|finger|toe|"
              r"achilles|acl|meniscus|rotator\s+cuff|jaw|nose|ear|ears|sinuses|thyroid|bladder|bowel|womb|uterus|"
              r"breast|prostate|kidney|liver|lung|lungs)")


def _past(d: date | None, today: date) -> date | None:
    """A day said of what the user already had is in the past: "had my knee surgery on 3
    March", said in December, is last March (the reader of dates takes a bare day as to come)."""
    if d is not None and d > today:
        return d.replace(year=d.year - 1) if not (d.month == 2 and d.day == 29) else d.replace(year=d.year - 1, day=28)
    return d


def _to_come(m: re.Match[str], dates: Dates, today: date) -> bool:
    """"I've got my booster on Friday", "got knee surgery on 3 March" (said in December): "got"
    with "have", or with a day to come, is a plan, never what the user had (invariant 411)."""
    if m.group("verb").lower() != "got":
        return False
    return bool(re.match(r"^(?:i\s+)?(?:have|'ve)\b", m.group(0), I)) or bool(
        dates.valid_from and dates.valid_from > today)


def _user_only(c: str) -> bool:
    """The clause is the user's own: no relative, pet or other person said as its subject."""
    return not re.match(r"^\W*(?:my|our|his|her|their|the)\s+(?!(?:[\w-]+\s+)?(?:doctor|doc|gp|consultant|nurse|"
                        r"specialist|psychiatrist|cardiologist|dermatologist|endocrinologist|rheumatologist|"
                        r"neurologist|oncologist|surgeon|physio|physiotherapist|osteopath|chiropractor|"
                        r"optician|optometrist|audiologist|dentist|hospital|clinic|midwife|dietitian|"
                        r"allergist|pharmacist)\b)|^\W*(?:he|she|they|it|we|you)\b", c, I)


# --- invariant 411: an operation the user had ---------------------------------------------
# "on 25 November", "on Monday": the day said in the clause is its date, no part of the value
_ON_DAY = (r"(?:\s+(?:on|in)\s+(?:(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?[a-z]+\.?(?:\s+\d{4})?|"
           r"(?:mon|tues|wednes|thurs|fri|satur|sun)day))?")
_OP_WORD = (r"(?:surgery|operation|op|replacement|reconstruction|transplant|bypass|repair|removal|"
            r"[a-z]+(?:ectomy|plasty|otomy|ostomy|pexy))")
_PROCEDURE = re.compile(
    r"^(?:i\s+)?(?:have\s+|'ve\s+)?(?:just\s+|finally\s+|recently\s+)*(?P<verb>had|got|underwent|went\s+in\s+for)\s+"
    r"(?:(?P<det>an?)\s+|(?:my|the|some)\s+)?(?P<what>(?:(?!(?:on|for|to|at|in)\b)[\w'-]+\s+){0,4}?" + _OP_WORD + r")"
    r"(?P<on>\s+(?:on|to|for)\s+(?:my|the)\s+" + _SIDE_BODY + r")?" + _ON_DAY +
    r"(?=\s*$|\s*[,;.!]|\s+(?:so|and|but|which|after|because)\b)", I)
# "had my appendix out", "had my gallbladder removed": the part taken out
_TAKEN_OUT = re.compile(
    r"^(?:i\s+)?(?:have\s+|'ve\s+)?(?:just\s+|finally\s+|recently\s+)*had\s+my\s+(?P<part>appendix|gallbladder|"
    r"tonsils|wisdom\s+teeth|thyroid|spleen|womb|uterus|ovaries|ovary|kidney|hernia|cataracts?)\s+"
    r"(?P<how>out|removed|taken\s+out|done|fixed|repaired|operated\s+on)"
    r"(?=\s*$|\s*[,;.!]|\s+(?:so|and|but|which|after|because)\b)", I)


# "had a heart attack in August": an event of the user's health, kept as one
_EVENT = re.compile(
    r"^(?:i\s+)?(?:have\s+|'ve\s+)?(?:just\s+|recently\s+)*(?P<verb>had|suffered)\s+(?P<det>an?)\s+"
    r"(?P<what>(?:minor\s+|mild\s+|small\s+|massive\s+|major\s+)?(?:heart\s+attack|mini[- ]stroke|stroke|tia|"
    r"seizure|blood\s+clot|dvt|pulmonary\s+embolism|concussion|slipped\s+disc|hernia))" + _ON_DAY +
    r"(?=\s*$|\s*[,;.!]|\s+(?:so|and|but|which|after|because)\b)", I)
# "had a pacemaker fitted", "got fitted with a stent": a device the user now has
_DEVICE = (r"(?:pacemaker|stent|defibrillator|icd|cochlear\s+implant|hearing\s+aids?|insulin\s+pump|"
           r"(?:[\w-]+\s+)?(?:implant|shunt))")
_FITTED = re.compile(
    r"^(?:i\s+)?(?:have\s+|'ve\s+)?(?:just\s+|finally\s+|recently\s+)*(?:(?P<verb>had|got)\s+(?P<d1>an?|my)\s+"
    r"(?P<x1>" + _DEVICE + r")\s+(?:fitted|put\s+in|implanted|inserted)|(?:got|been|was|were)\s+fitted\s+with\s+"
    r"(?P<d2>an?)\s+(?P<x2>" + _DEVICE + r"))" + _ON_DAY +
    r"(?=\s*$|\s*[,;.!]|\s+(?:so|and|but|which|after|because)\b)", I)


def procedure(c: str, today: date, dates: Dates) -> list[Statement] | None:
    """Invariant 411: "Had ACL reconstruction surgery on my left knee yesterday, so I'm on
    crutches", "I've just had a hip replacement", "had my gallbladder out last week": an
    operation the user had, its day its valid_from ("Had ACL reconstruction surgery on the left
    knee"). An operation to come ("having surgery next week"), a relative's or a pet's is no
    part of it; a clause with a date "as a kid" or "years ago" is read here all the same, as
    the fact of an operation had."""
    t = dates.text.strip()
    m = _PROCEDURE.match(t)
    if m and _to_come(m, dates, today):
        return None
    if m:
        what = tidy(m.group("what"))
        if re.match(r"^(?:new|same|next|another|first|second)\b", what, I) and what.lower().split()[-1] == "op":
            return None
        if re.search(r"\b(?:date|appointment|letter|consultation|referral|slot|wait|list)\b", what, I):
            return None  # "got my surgery date": a plan, not an operation had
        on = re.sub(r"\s+(?:my|the)\s+", " the ", tidy(m.group("on") or ""), flags=I)
        det = f"{m.group('det').lower()} " if m.group("det") else ""
        text = f"Had {det}{what}" + (f" {on.strip()}" if on else "")
        return [Statement(act="assert", text=text, fact_type="constraint", valid_from=_past(dates.valid_from, today),
                          confidence=0.9, clause=c, rule="health3:procedure")]
    m = _EVENT.match(t)
    if m:
        return [Statement(act="assert", text=f"Had {m.group('det').lower()} {tidy(m.group('what'))}",
                          fact_type="constraint", valid_from=_past(dates.valid_from, today), confidence=0.9,
                          clause=c, rule="health3:procedure")]
    m = _FITTED.match(t)
    if m and not (m.groupdict().get("verb") and _to_come(m, dates, today)):
        x = tidy(m.group("x1") or m.group("x2"))
        det = (m.group("d1") or m.group("d2")).lower()
        det = ("an" if x[:1].lower() in "aeiou" else "a") if det == "my" else det
        text = f"Has {x}" if x.lower().endswith("aids") else f"Has {det} {x}"
        return [Statement(act="assert", text=text, fact_type="constraint",
                          valid_from=_past(dates.valid_from, today), confidence=0.9, clause=c,
                          rule="health3:procedure")]
    m = _TAKEN_OUT.match(t)
    if m:
        how = "out" if m.group("how").lower() in ("out", "taken out") else m.group("how").lower()
        return [Statement(act="assert", text=f"Had their {m.group('part').lower()} {how}",
                          fact_type="constraint", valid_from=_past(dates.valid_from, today), confidence=0.9,
                          clause=c, rule="health3:procedure")]
    return None


# --- invariant 412: a vaccine dose the user had ---------------------------------------------
_NTH = r"(?:first|second|third|fourth|fifth|final|last|booster|1st|2nd|3rd|4th|5th)"
_VACCINE = re.compile(
    r"^(?:i\s+)?(?:have\s+|'ve\s+)?(?:just\s+|finally\s+|also\s+)*(?P<verb>got|had|received|been\s+given)\s+"
    r"(?:(?:my|the|a|an|our)\s+)?(?:(?P<n>" + _NTH + r")\s+)?"
    r"(?:(?:dose|jab|shot|injection|booster)\s+of\s+(?:the\s+)?(?P<v1>[\w -]+?)\s*(?P<vk>vaccine|vaccination|jab|booster)?|"
    r"(?P<v2>[\w-]+(?:\s+[\w-]+)?)\s+(?P<k>vaccine|vaccination|jab|booster|shot))"
    + _ON_DAY + r"(?=\s*$|\s*[,;.!]|\s+(?:so|and|but|which|after|because|at)\b)", I)
_NOT_VACCINE = frozenset("""a an the my first second new free some one two other flu-like that this""".split())


def vaccine(c: str, today: date, dates: Dates) -> list[Statement] | None:
    """Invariant 412: "Got my second dose of the shingles vaccine on 25 November", "had my flu
    jab yesterday", "I've had the RSV vaccine": the dose the user had, its day its valid_from
    ("Had the second dose of the shingles vaccine"). A jab for a pet or a child ("booked Biscuit
    in for his booster") is never read here."""
    m = _VACCINE.match(dates.text.strip())
    if m is None or _to_come(m, dates, today):
        return None
    what = tidy(m.group("v1") or m.group("v2") or "")
    if not what or what.lower() in _NOT_VACCINE or what.split()[0].lower() in {"pay", "hair", "pep", "vitamin"}:
        return None
    named = re.search(r"\b(?:flu|covid|covid-19|shingles|rsv|hpv|tetanus|mmr|pneumo\w*|hep(?:atitis)?\s*[ab]|typhoid|"
                      r"rabies|yellow\s+fever|polio|measles|whooping\s+cough|meningitis|cholera|mpox|chickenpox)\b", what, I)
    if (m.group("v2") and m.group("k").lower() in ("shot", "booster") or m.group("v1") and not m.group("vk")) \
            and not named:
        return None  # "got a booster seat", "had a shot of tequila", "a dose of paracetamol": no vaccine
    nth = (m.group("n") or "").lower()
    nth = {"1st": "first", "2nd": "second", "3rd": "third", "4th": "fourth", "5th": "fifth"}.get(nth, nth)
    if m.group("v1"):
        text = f"Had the {nth + ' ' if nth else ''}dose of the {what} vaccine"
    else:
        kind = m.group("k").lower()
        text = f"Had the {nth + ' ' if nth and nth != 'booster' else ''}{what} {kind}"
        if nth == "booster" and kind != "booster":
            text = f"Had the {what} booster"
    return [Statement(act="assert", text=text.replace("vaccine vaccine", "vaccine"), fact_type="constraint",
                      valid_from=_past(dates.valid_from, today), confidence=0.9, clause=c, rule="health3:vaccine")]


# --- invariant 413: a condition the user has had for years ---------------------------------
_COND = "|".join(re.escape(d) for d in sorted(lx.CONDITIONS, key=len, reverse=True))
# words that make a short ailment a diagnosis, when it is not in the lexicon
_AILMENT = re.compile(r"\b\w+(?:itis|osis|aemia|emia)\b|"  # a suffix ends its word ("desensitised" is none)
                      r"\b(?:allerg|intoleran|disease|diabet|arthritis|cancer|syndrome|fibrillation|asthma|epilep|"
                      r"deficien|disorder|failure|pressure|cholesterol|apnoea|apnea|"
                      r"migraine|psoriasis|eczema|glaucoma|cataract|tinnitus|depression|anxiety|adhd|autism|"
                      r"dyslexia|dyspraxia|fibromyalgia|endometriosis|lupus|gout|sclerosis|hypothyroid|"
                      r"hyperthyroid|thyroid|hernia|angina|ptsd|ocd|ibs|copd|reflux|vertigo|insomnia|"
                      r"palpitations|arrhythmia|murmur|stenosis|neuropathy|sciatica|scoliosis|hypertension)\w*", I)
_HAD_SINCE = re.compile(
    r"^(?:i\s+)?(?:have|'ve)\s+(?:had|suffered\s+(?:from|with)|lived\s+with|struggled\s+with|been\s+living\s+with)\s+"
    r"(?P<v>" + _COND + r"|[\w' -]+?)\s+(?P<how>since|for|all\s+my\s+life|my\s+whole\s+life|ever\s+since)\b"
    r"(?P<rest>.*)$", I)
_BEEN_DIABETIC = re.compile(
    r"^(?:i\s+)?(?:have|'ve)\s+been\s+(?:an?\s+)?(?:(?P<t1>type\s+[12])\s+)?(?P<c>diabetic|asthmatic|epileptic|"
    r"coeliac|celiac|anaemic|anemic)(?:\s+(?P<t2>type\s+[12]))?\s+(?:since|for|all\s+my\s+life|my\s+whole\s+life)\b", I)
# "and use a blue inhaler": what the user uses for it, said with no subject of its own
_AND_USE = re.compile(r"\s+and\s+(?:(?:always|still|now)\s+)?(?:use|carry|take|need)\s+(?P<x>(?:an?\s+|my\s+)?"
                      r"(?:[\w-]+\s+){0,2}?(?:inhaler|pump|cgm|monitor|sensor|epipen|tablets|insulin|hearing\s+aids?|"
                      r"cpap(?:\s+machine)?|brace|splint|stick|cane))\s*[.!]*$", I)


def had_since(c: str, dates: Dates) -> list[Statement] | None:
    """Invariant 413: "I've had asthma since I was a kid and use a blue inhaler", "I've
    suffered from migraines for twenty years", "I've been a Type 1 diabetic since I was nine": a
    condition the user has and has had for long ("Has asthma, uses a blue inhaler", "Has type 1
    diabetes"). How long is no part of the value; an ailment neither in the lexicon nor shaped
    like one ("I've had enough since Monday", "had a cold for a week") is not read."""
    t = c.strip()  # how long is said in the clause (the reader of dates takes "for years" away)
    m = _BEEN_DIABETIC.match(t)
    if m:
        cond = {"diabetic": "diabetes", "asthmatic": "asthma", "epileptic": "epilepsy", "coeliac": "coeliac disease",
                "celiac": "coeliac disease", "anaemic": "anaemia", "anemic": "anemia"}[m.group("c").lower()]
        kind = (m.group("t1") or m.group("t2") or "").lower()
        return [Statement(act="assert", text=f"Has {kind + ' ' if kind else ''}{cond}", fact_type="constraint",
                          confidence=0.9, clause=c, rule="health3:had-since")]
    m = _HAD_SINCE.match(t)
    if m is None:
        return None
    if re.match(r"^(?:a|an)\s", m.group("v"), I) and not re.fullmatch(_COND, m.group("v"), I):
        return None  # "I've had a migraine since lunch": one bout, not a condition
    if m.group("how").lower() == "since" and re.match(
            r"\s*(?:this|last|yesterday|today|tonight|the\s+weekend|lunch|breakfast|(?:mon|tues|wednes|thurs|fri|"
            r"satur|sun)day)\b", m.group("rest"), I):
        return None  # "... since yesterday": a spell
    what = re.sub(r"^(?:really\s+bad|bad|chronic|severe|mild)\s+", "", tidy(m.group("v")), flags=I)
    if not what or len(what.split()) > 4 or not (re.fullmatch(_COND, what, I) or _AILMENT.search(what)):
        return None
    if m.group("how").lower() == "for" and not re.match(
            r"\s*(?:(?:about|nearly|almost|over|more\s+than)\s+)?(?:years|decades|ages|(?:a|an|one|two|three|four|five|"
            r"six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|\d+|many|a\s+few|several)\s+years?)\b",
            m.group("rest"), I):
        return None  # "I've had a rash for a week": a spell, not a condition
    text = f"Has {what.lower() if not re.search(r'[A-Z]{2}', what) else what}"
    use = _AND_USE.search(m.group("rest"))
    if use:
        text += f", uses {tidy(use.group('x'))}"
    return [Statement(act="assert", text=text, fact_type="constraint", confidence=0.9, clause=c,
                      rule="health3:had-since")]


# --- invariant 414: a condition a clinician found -------------------------------------------
_FOUND = re.compile(
    r"^" + _CLINICIAN + r"\s+(?:has\s+|have\s+|just\s+|finally\s+|now\s+)*(?P<verb>confirmed|diagnosed(?:\s+me\s+with)?|"
    r"found|flagged|picked\s+up(?:\s+on)?|spotted|detected|discovered|suspects?|thinks\s+it'?s|reckons\s+it'?s)\s+"
    r"(?:that\s+(?:i\s+(?:have|'ve\s+got|'ve\s+had)\s+)?)?(?P<v>(?:an?\s+)?(?:[\w'-]+\s+){0,3}?[\w'-]+?)"
    # "at my check-up": where it was found; "in my dad" is someone else, never read
    r"(?:\s+(?:at|during|in|on|from|after)\s+(?:my|the|a)\s+(?:[\w-]+\s+)?(?:check-?up|appointment|scan|tests?|"
    r"screening|review|visit|health\s+check|mot|bloods|results|x-?ray|mri|ecg|echo|ultrasound))?"
    r"(?:\s+on\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day)?(?=\s*$|\s*[,;.!]|\s+(?:so|and|but|which|because)\b)", I)


_SAYS_I = re.compile(
    r"^" + _CLINICIAN + r"\s+(?:has\s+|just\s+)*(?:says|said|confirmed|told\s+me)\s+(?:that\s+)?"
    r"(?:(?:i'?m|i\s+am)\s+(?:now\s+|officially\s+)?(?P<adj>pre-?diabetic|diabetic|anaemic|anemic|asthmatic|"
    r"epileptic|coeliac|celiac|hypothyroid|hyperthyroid)|(?:i\s+have|i'?ve\s+got|i\s+have\s+got)\s+(?:now\s+)?"
    r"(?P<v>(?:an?\s+)?(?:[\w'-]+\s+){0,3}?[\w'-]+?))"
    r"(?=\s*$|\s*[,;.!]|\s+(?:so|and|but|which|because)\b)", I)
_ADJ_COND = {"prediabetic": "prediabetes", "pre-diabetic": "prediabetes", "diabetic": "diabetes",
             "anaemic": "anaemia", "anemic": "anemia", "asthmatic": "asthma", "epileptic": "epilepsy",
             "coeliac": "coeliac disease", "celiac": "coeliac disease", "hypothyroid": "an underactive thyroid",
             "hyperthyroid": "an overactive thyroid"}


def clinician_found(c: str, dates: Dates) -> list[Statement] | None:
    """Invariant 414: "The cardiologist confirmed atrial fibrillation on Monday", "the doctor
    flagged high blood pressure at my check-up, so ...", "my GP diagnosed me with gout": the
    user's condition ("Has atrial fibrillation"); a clinician's guess ("suspects", "thinks it's")
    is the user's doubt, for review at low confidence (invariant 250). Only an ailment read as
    one (`_AILMENT`, the lexicon) is kept: "the doctor confirmed my appointment" is none, nor is
    anything said of a relative ("the vet confirmed that Pickle has ...", invariant 348)."""
    m = _SAYS_I.match(dates.text.strip())
    if m and m.group("adj"):
        return [Statement(act="assert", text=f"Has {_ADJ_COND[m.group('adj').lower()]}", fact_type="constraint",
                          confidence=0.9, valid_from=dates.valid_from, clause=c, rule="health3:found")]
    m = m or _FOUND.match(dates.text.strip())
    if m is None:
        return None
    what = re.sub(r"^(?:an?|some|mild|severe|early|chronic|stage\s+\w+)\s+", "", tidy(m.group("v")), flags=I)
    if not what or re.match(r"^(?:my|his|her|their|that|it|nothing|something|anything|no|the)\b", what, I):
        return None
    if not (re.fullmatch(_COND, what, I) or _AILMENT.search(what)):
        return None
    hedged = bool(re.match(r"suspect|thinks|reckons", m.groupdict().get("verb") or "", I))
    text = f"Has {what.lower() if not re.search(r'[A-Z]{2}', what) else what}"
    return [Statement(act="assert", text=text, fact_type="constraint", confidence=0.55 if hedged else 0.9,
                      valid_from=dates.valid_from, clause=c, rule="health3:found")]


# --- invariant 415: a spell sober -------------------------------------------------------------
_SOBER = re.compile(
    r"^(?:(?:i'?m|i\s+am|i\s+have\s+been|i'?ve\s+been)\s+)?(?:now\s+|officially\s+)?(?P<n>(?:a|an|one|two|three|four|five|six|"
    r"seven|eight|nine|ten|eleven|twelve|eighteen|\d+)\s+(?:days?|weeks?|months?|years?))\s+"
    r"(?P<v>sober|clean|alcohol[- ]free|smoke[- ]free|cancer[- ]free|off\s+(?:the\s+)?(?:booze|drink|alcohol|cigarettes|smokes|"
    r"fags))(?:\s+(?:as\s+of\s+)?(?:today|now|this\s+week))?\s*[.!]*$", I)


def sober(c: str, today: date) -> list[Statement] | None:
    """Invariant 415: "I'm four months sober as of today", "two years smoke-free now": the user
    is sober (does not smoke) since that long ago, its valid_from ("Is sober", from 1 August)."""
    m = _SOBER.match(c.strip())
    if m is None:
        return None
    since = find_dates(f"since {m.group('n')} ago", today).valid_from
    v = m.group("v").lower()
    text = ("Is cancer-free" if v.startswith("cancer") else "Does not smoke" if re.search(r"smoke|cigarette|smokes|fags", v) else
            "Is sober" if v in ("sober", "clean") or "alcohol" in v or "booze" in v or "drink" in v else f"Is {v}")
    return [Statement(act="assert", text=text, fact_type="constraint", valid_from=since, confidence=0.9,
                      clause=c, rule="health3:sober")]


# --- invariant 416: what a clinician has the user take or do ---------------------------------
_MED_CLASS = (r"(?:statin|beta[- ]blocker|blood\s+thinner|anticoagulant|antidepressant|"
              r"painkiller|antihistamine|inhaler|diuretic|ace\s+inhibitor|supplement|water\s+tablet)s?")
_ADDED = re.compile(
    r"^" + _CLINICIAN + r"\s+(?:has\s+|have\s+|just\s+|now\s+)*(?:added|prescribed|started\s+me\s+on|put\s+me\s+on|"
    r"prescribed\s+me)\s+(?:me\s+)?(?P<a>a|an|some)\s+(?P<cls>" + _MED_CLASS + r")"
    r"(?:\s+on\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day)?(?:\s*,\s*"
    r"(?P<name>(?:[\w-]+\s+)?(?:" + lx.MEDICINE + r"|(?-i:[A-Z])[\w-]+))(?P<dose>\s+" + lx.DOSE + r")?)?"
    r"(?P<how>\s+(?:once|twice|three\s+times)\s+(?:a\s+day|daily)|\s+(?:every|each)\s+(?:morning|evening|night|day))?"
    r"\s*[.!]*$", I)
_BEEN_PRESCRIBED = re.compile(
    r"^(?:i\s+)?(?:have|'ve)\s+(?:just\s+|now\s+)*been\s+(?:prescribed|put\s+on|started\s+on)\s+"
    r"(?P<name>(?:" + lx.MEDICINE + r"|(?-i:[A-Z])[\w-]+))(?P<dose>\s+" + lx.DOSE + r")?"
    r"(?P<how>\s+(?:once|twice|three\s+times)\s+(?:a\s+day|daily)|\s+(?:every|each)\s+(?:morning|evening|night|day))?"
    r"(?=\s*$|\s*[,;.!]|\s+(?:so|and|but|which|after|because|for)\b)", I)
_TOLD_TAKE = re.compile(
    r"^" + _CLINICIAN + r"\s+(?:has\s+)?(?:told|advised|asked|wants|recommended)\s+me\s+to\s+(?:start\s+(?:taking\s+)?)?"
    r"take\s+(?P<x>(?:[\w-]+\s+){0,2}?(?:vitamin\s+[a-z]\d*|iron|folic\s+acid|omega[- ]3|fish\s+oil|magnesium|"
    r"calcium|zinc|b12|probiotics?|melatonin|aspirin|" + lx.MEDICINE + r"|(?:[\w-]+\s+)?(?:tablets|supplements)))"
    r"(?P<mid>[^,;]*?)(?P<dose>\s*,\s*\d+(?:[.,]\d+)?\s*(?:mg|mcg|µg|ug|iu|units?)\s+(?:a|per|every)\s+(?:day|week)|"
    r"\s*,\s*(?:once|twice)\s+a\s+(?:day|week))?"
    r"\s*(?:,\s*)?(?:so|and)\s+(?:i\s*)?(?:have|'ve|am|'m)\s+(?:now\s+)?(?:started|starting|begun|taking\s+it|"
    r"doing\s+(?:it|that|so))\b[^,;]*?\s*[.!]*$", I)
_HAS_ME_DOING = re.compile(
    r"^" + _CLINICIAN + r"\s+(?:has|'s\s+got|has\s+got|got|had)\s+me\s+doing\s+"
    r"(?P<x>(?!(?:it|that|this|the\s+waiting\s+list)\b)[\w'-]+(?:\s+[\w'-]+)?)"
    r"(?P<how>\s+(?:once|twice|three\s+times|four\s+times|\w+\s+times|every\s+(?:day|morning|evening|night)|daily)"
    r"(?:\s+(?:a|per)\s+(?:day|week))?)?(?P<for>\s+for\s+(?:my|the)\s+" + _SIDE_BODY + r")?"
    r"(?:\s*,\s*(?:started|starting|since)\b[^,;]*?)?\s*[.!]*$", I)


def regimen(c: str, dates: Dates) -> list[Statement] | None:
    """Invariant 416: "My doctor added a statin last week, atorvastatin 20mg" ("Takes
    atorvastatin 20mg", from last week), "The doctor told me to take vitamin D through the
    winter, 1000 IU a day, so I've started" ("Takes vitamin D, 1000 IU a day"), "The physio has
    me doing Pilates twice a week for my back, started in November" ("Does Pilates twice a week
    for their back", from November). Told to take something and not said to have started ("...
    but I keep forgetting") is no habit and is not read."""
    t = dates.text.strip()
    m = _ADDED.match(t)
    if m:
        name = tidy(m.group("name") or f"{m.group('a').lower()} {m.group('cls').lower()}")
        text = f"Takes {name}{m.group('dose') or ''}{m.group('how') or ''}"
        return [Statement(act="assert", text=tidy(text), fact_type="constraint", valid_from=dates.valid_from,
                          confidence=0.9, clause=c, rule="health3:regimen")]
    m = _BEEN_PRESCRIBED.match(t)
    if m:
        text = f"Takes {tidy(m.group('name'))}{m.group('dose') or ''}{m.group('how') or ''}"
        return [Statement(act="assert", text=tidy(text), fact_type="constraint", valid_from=dates.valid_from,
                          confidence=0.9, clause=c, rule="health3:regimen")]
    m = _TOLD_TAKE.match(t)
    if m:
        x = tidy(m.group("x"))
        x = re.sub(r"\bvitamin\s+([a-z])\b", lambda v: "vitamin " + v.group(1).upper(), x, flags=I)
        dose = tidy((m.group("dose") or "").strip(" ,"))
        return [Statement(act="assert", text=f"Takes {x}" + (f", {dose}" if dose else ""), fact_type="constraint",
                          valid_from=dates.valid_from, confidence=0.85, clause=c, rule="health3:regimen")]
    m = _HAS_ME_DOING.match(t)
    if m and not re.search(r"\b(?:exercises?|stretches|physio|rest|crutches|list|diet)\b", m.group("x"), I) \
            or (m and m.group("how")):
        x = tidy(m.group("x"))
        how = tidy(m.group("how") or "")
        part = re.sub(r"\b(?:my|the)\s+", "their ", tidy(m.group("for") or ""), flags=I)
        text = f"Does {x}" + (f" {how}" if how else "") + (f" {part}" if part else "")
        return [Statement(act="assert", text=text, fact_type="constraint", valid_from=dates.valid_from,
                          confidence=0.85, clause=c, rule="health3:regimen")]
    return None


# --- invariant 417: an aid the user now needs -------------------------------------------------
_AID = re.compile(
    r"^(?:i\s+)?(?:now\s+)?(?:need|wear|have\s+to\s+wear|'ve\s+got|have\s+got|got|use)\s+"
    r"(?P<x>(?:reading\s+|distance\s+)?glasses|varifocals|bifocals|contact\s+lenses|hearing\s+aids|a\s+hearing\s+aid|"
    r"a\s+walking\s+stick|a\s+(?:cpap|c-pap)(?:\s+machine)?|a\s+wheelchair)"
    r"(?P<now>\s+(?:now|these\s+days|from\s+now\s+on)|\s+for\s+(?:reading|driving|the\s+computer|screens))+\s*[.!]*$", I)


def aid_needed(c: str, dates: Dates) -> list[Statement] | None:
    """Invariant 417: "Went to the optician and I need reading glasses now", "I wear hearing
    aids now": what the user now needs for their sight, hearing or walking ("Needs reading
    glasses"). Only said with "now" (or what it is for): "I need new glasses" is a thing to buy,
    "I need glasses?" a question, neither read here."""
    m = _AID.match(dates.text.strip()) or _AID.match(c.strip())
    if m is None:
        return None
    x = tidy(m.group("x"))
    verb = "Wears" if re.search(r"\bwear\b", m.group(0), I) else "Uses" if re.search(r"\buse\b", m.group(0), I) \
        else "Needs" if re.search(r"\bneed\b", m.group(0), I) else "Has"
    use = re.search(r"\bfor\s+(?:reading|driving|the\s+computer|screens)\b", m.group(0), I)
    return [Statement(act="assert", text=f"{verb} {x}" + (f" {use.group(0)}" if use else ""), fact_type="constraint",
                      valid_from=dates.valid_from, confidence=0.9, clause=c, rule="health3:aid")]


def told_and_started(c: str, today: date) -> list[Statement] | None:
    """Invariant 416: "The doctor told me to take vitamin D ..., so I've started": read on the
    whole clause, before its parts are split, since the part after "so" is what makes the
    advice a habit of the user's."""
    dates = find_dates(c.strip(), today)
    if not _TOLD_TAKE.match(dates.text.strip()):
        return None
    return regimen(c.strip(), dates)


_KIN = re.compile(r"\b(?:my|our|his|her|their)\s+(?:[\w-]+\s+)?(?:" + "|".join(sorted(lx.RELATIONS | lx.NAMED_ONLY_RELATIONS
                                                                             | {"friend", "dog", "cat", "pet"},
                                                                             key=len, reverse=True))
                  + r")\b|^\W*(?:he|she|they|" + "|".join(sorted(lx.RELATIONS, key=len, reverse=True)) + r")\b", I)


def not_after_someone(kept: list[Statement], before: str) -> list[Statement]:
    """Invariant 418: "My dad fell last week. Had hip surgery on Monday.": a health fact said
    with no subject right after a sentence about someone else is theirs, not the user's; it is
    not kept (a wrong write is worse than a miss). Said with "I" or "my" ("Had my flu jab"), it
    is the user's."""
    if not before or not _KIN.search(before):
        return kept
    return [st for st in kept if not (st.rule.startswith("health3:")
                                      and not re.match(r"^\W*(?:i\b|i'|the\b)", st.clause or "", I)
                                      and not re.search(r"\bmy\b", st.clause or "", I))]


def said_in_passing(c: str, today: date, dates: Dates) -> list[Statement] | None:
    """Invariants 411-417: one clause, or None when none of them reads it. A clause said of
    someone else ("my dad had a hip replacement") is never read here."""
    if not _user_only(c):
        return None
    return (procedure(c, today, dates) or vaccine(c, today, dates) or had_since(c, dates) or clinician_found(c, dates)
            or sober(c, today) or regimen(c, dates) or aid_needed(c, dates))
