"""Health, habits, documents and dated plans said plainly (issue 12, invariants 340-349).

Pure, deterministic readers of one clause each: a plan with its dates said without "I'm going to"
("spending Easter in Crete, 2 to 6 April", "work trip to Ghent on 4 March", "a GP appointment on
9 May"), "I don't drive", a language exam passed at a level, a due date said after "I'm
pregnant", a feeling said before the news ("Over the moon, ..."). Each returns None when it does
not read the clause, so the other readers still do.
"""

from __future__ import annotations

import re
from datetime import date

from .dates import Dates
from .model import Statement
from .phrases import CAP_PLACE, I, cap, place, tidy

# --- invariant 345: "I don't drive" -----------------------------------------------------------
_NO_DRIVE = re.compile(r"^(?:i|we)\s+(?:don'?t|do\s+not|can'?t|cannot|never)\s+(?:learned\s+to\s+|learnt\s+to\s+)?"
                       r"drive(?:\s+at\s+all)?(?:\s*,\s*(?:(?:i|we)\s+)?never\s+[\w ]+)?\s*[.!]*$", I)

# --- invariant 346: a plan said with its dates ------------------------------------------------
_OCCASIONS = (r"(?:christmas|xmas|new\s+year(?:'s(?:\s+eve)?)?|hogmanay|easter|the\s+holidays|half[-\s]term|"
              r"the\s+(?:long\s+)?weekend|(?:a|one|two|three|four|\d+)\s+(?:days?|nights?|weeks?)|"
              r"a\s+fortnight|the\s+summer|my\s+birthday|our\s+anniversary)")
_SPENDING = re.compile(r"^(?:(?:i'?m|i\s+am|we'?re|we\s+are|i'?ll\s+be|we'?ll\s+be|i\s+will\s+be|we\s+will\s+be)\s+)"
                       r"(?:going\s+to\s+be\s+)?(?:spending|having)\s+(?P<o>" + _OCCASIONS + r")\s+(?:in|on)\s+"
                       + CAP_PLACE + r"(?P<rest>[^.;!?]*)", I)
_HOLIDAY = r"(?:christmas|xmas|new\s+year(?:'s)?|easter|hogmanay)"
_HOLIDAY_STAY = re.compile(r"^(?:i'?m|i\s+am|we'?re|we\s+are|i'?ll\s+be|we'?ll\s+be|i\s+will\s+be|we\s+will\s+be)\s+"
                           r"(?:staying|spending|having|doing)\s+(?:put\s+|at\s+home\s+)?(?:(?P<o1>" + _HOLIDAY + r")\s+)?"
                           r"(?:in|at)\s+" + CAP_PLACE + r"(?:\s+(?:for|over)\s+(?P<o2>" + _HOLIDAY + r"))?"
                           r"(?:\s+(?:this\s+year|again|instead))?\s*[.!]*$", I)
_VISITORS = re.compile(r"^(?:my|our)\s+(?P<who>parents|mum|mom|dad|mother|father|in-laws|grandparents|family|"
                       r"sister|brother|son|daughter|kids|children)(?P<n>\s+(?-i:[A-Z])[\w'’-]+)?\s+(?P<be>is|are|'s|'re)\s+"
                       r"(?:coming|flying\s+over|coming\s+over|visiting)\s+(?:to\s+(?P<p>(?-i:[A-Z])[\w'’-]+(?:\s+(?-i:[A-Z])"
                       r"[\w'’-]+)?)\s+|to\s+(?:us|ours|stay|stay\s+with\s+us)\s+)?(?:for|over)\s+(?P<o>" + _HOLIDAY + r")"
                       r"(?:\s+(?:this\s+year|again|instead))?\s*[.!]*$", I)
_TRIP_NOUN = re.compile(r"^(?:(?:a|my|our)\s+)?(?P<kind>(?:business|work|work's|family|school|team|ski|"
                        r"weekend|study|research|field|short)\s+)?(?:trip|visit)\s+to\s+" + CAP_PLACE +
                        r"(?P<rest>[^.;!?]*)", I)
_APPOINTMENT = re.compile(
    r"^(?:(?:i|we)\s+(?:have\s+|'ve\s+)?(?:got|have|booked|made)\s+|(?:i'?m|we'?re|i\s+am|we\s+are)\s+"
    r"booked\s+in\s+for\s+)(?P<what>(?:a|an|my|our)\s+(?:[\w'-]+\s+){0,2}?(?:appointment|check-?up|scan|"
    r"operation|surgery|filling|smear\s+test|blood\s+test|mot|hearing)\b)(?P<rest>[^.;!?]*)", I)


def _rest(rest: str) -> str:
    """What a plan keeps after its head: its dates, a purpose; a trailing remark is no part."""
    rest = re.sub(r"\s*,\s*(?:already|and|but|so|i|we|i'm|we're|can't|cannot|really|which|it|it's)\b.*$",
                  "", rest, flags=I)
    # relative words go stale in a text; the dates are valid_from / valid_to (invariant 74)
    rest = re.sub(r"\s*\b(?:next|this|last)\s+(?:year|month|week|weekend|summer|spring|autumn|winter)\b|"
                  r"\s*\b(?:tomorrow|tonight|today)\b", "", rest, flags=I)
    return tidy(rest).strip(" ,:")


def holiday_visit(c: str, dates: Dates) -> list[Statement] | None:
    """Invariant 346: "My parents are coming to Berlin for Christmas instead": the holiday's plan
    (read before what is said about relatives, which keeps nothing of a visit)."""
    m = _VISITORS.match(dates.text.strip())
    if m is None:
        return None
    occasion = re.sub(r"\s+", " ", m.group("o")).title().replace("'S", "'s")
    occasion = "Christmas" if occasion == "Xmas" else occasion
    be = "is" if m.group("be").lower() in ("is", "'s") else "are"
    where = f" to {m.group('p')}" if m.group("p") else ""
    who = cap(m.group("who").lower()) + (m.group("n") or "")
    return [Statement(act="assert", text=f"{who} {be} coming{where} for {occasion}",
                      fact_type="world", previous=occasion.lower(), clause=c, rule="plan:holiday")]


def dated_plans(c: str, today: date, dates: Dates) -> list[Statement] | None:
    """Invariant 346: "we're spending Christmas in Porto, 23 to 27 December", "Work trip to
    Ghent from 4 to 6 March", "I've got a dentist appointment on 15 May at 10am": a plan with a
    date to come, its dates kept in its words. No date to come, no plan (a past or undated one
    is read elsewhere or not at all)."""
    t = dates.text.strip()
    m = _HOLIDAY_STAY.match(t)
    if m and not (m.group("o1") or m.group("o2")):
        m = None
    if m and (where := place(m.group("p"))):
        # "we're staying put in Belfast for Christmas": the holiday is its date
        occasion = re.sub(r"\s+", " ", (m.group("o1") or m.group("o2"))).title().replace("'S", "'s")
        occasion = "Christmas" if occasion == "Xmas" else occasion
        return [Statement(act="assert", text=f"Spending {occasion} in {where}", fact_type="world",
                          previous=occasion.lower(), clause=c, rule="plan:holiday")]
    if not (dates.valid_from and dates.valid_from >= today):
        return None
    m = _SPENDING.match(t)
    if m and (where := place(m.group("p"))):
        rest = _rest(m.group("rest"))
        occasion = re.sub(r"^(?:my|our)\s+", "their ", tidy(m.group("o")), flags=I)
        occasion = re.sub(r"\b(christmas|xmas|easter|new\s+year|hogmanay)", lambda w: w.group(0).title(), occasion,
                          flags=I)
        return [Statement(act="assert", text=f"Spending {occasion} in {where}" + (f", {rest}" if rest else ""),
                          fact_type="world", valid_from=dates.valid_from, valid_to=dates.valid_to,
                          clause=c, rule="plan:spending")]
    m = _TRIP_NOUN.match(t)
    if m and re.search(r"\b(?:is|was|has|had|got|moved|postponed|cancell?ed|off|rescheduled|delayed|pushed|"
                       r"brought|changed|called)\b", m.group("rest"), I):
        m = None  # "our trip to Canada moved to 3 January": news of a plan, read elsewhere (247)
    if m and (where := place(m.group("p"))):
        rest = _rest(m.group("rest"))
        kind = tidy(m.group("kind") or "")
        return [Statement(act="assert", text=f"{cap(kind) + ' trip' if kind else 'Trip'} to {where}"
                          + (f" {rest}" if rest else ""), fact_type="world", valid_from=dates.valid_from,
                          valid_to=dates.valid_to, clause=c, rule="plan:trip-noun")]
    m = _APPOINTMENT.match(t)
    if m:
        what = re.sub(r"^(?:a|an|my|our)\s+", "", tidy(m.group("what")), flags=I)
        rest = _rest(m.group("rest"))
        return [Statement(act="assert", text=cap(what) + (f" {rest}" if rest else ""), fact_type="world",
                          valid_from=dates.valid_from, clause=c, rule="plan:appointment")]
    return None


# --- invariant 347: a language exam passed at a level -----------------------------------------
_LEVEL_EXAM = re.compile(r"^(?:i|we)\s+(?:have\s+|'ve\s+)?(?:just\s+|finally\s+|officially\s+)*passed\s+(?:my|the)\s+"
                         r"(?P<lvl>[abc][12])\s+(?P<lang>(?-i:[A-Z])[a-z]+)\s+(?:exam|test)\b", I)


def habits_and_health(c: str, today: date, dates: Dates) -> list[Statement] | None:
    """Invariants 345-347 and 346's plans: one clause, or None when none of them reads it."""
    t = dates.text.strip()
    found = work_pattern(c, dates) or diagnosed(c, dates) or cleared(c, dates)
    if found is not None:
        return found
    if _NO_DRIVE.match(t):
        # Invariant 345: "I don't drive", "we can't drive": what the user does not do, kept
        return [Statement(act="assert", text="Does not drive", fact_type="constraint",
                          valid_from=dates.valid_from, clause=c, rule="habit:no-drive")]
    m = _LEVEL_EXAM.match(t)
    if m:
        # Invariant 347: "passed my C1 Spanish exam": the level the user now has in the
        # language, replacing the level on record ("Speaks Spanish at B2 ...")
        lvl, lang = m.group("lvl").upper(), m.group("lang")
        return [Statement(act="change", text=f"Speaks {lang} at {lvl} (passed the {lvl} exam)",
                          fact_type="identity", previous=lang, valid_from=dates.valid_from,
                          clause=c, rule="milestone:level")]
    return dated_plans(c, today, dates)


# --- invariant 344: a due date said after "I'm pregnant" ---------------------------------------
DUE_NEXT = re.compile(r"^\W*(?:(?:she'?s|she\s+is|i'?m|i\s+am|we'?re|baby'?s|baby\s+is)\s+)?due\s+(?:on|in|at)\b", I)

# --- invariant 347: a feeling said before the news --------------------------------------------
FEELING_LEAD = re.compile(r"^\W*(?:(?:right|ok|okay|so|well)[,!]?\s+)?(?:(?:so|really|absolutely)\s+)?"
                          r"(?:chuffed(?:\s+to\s+bits)?|over\s+the\s+moon|"
                          r"thrilled|delighted|stoked|buzzing|relieved|made\s+up|ecstatic|so\s+happy|"
                          r"happy\s+days|yay|woo+hoo+|wahey|get\s+in|"
                          # "Right, decided: ...", "Sorted: ...": the news follows (invariant 346)
                          r"(?:it'?s\s+)?(?:decided|sorted|settled|official))\s*[,!:]+\s*(?=\w)", I)
# "..., first time!", "..., at last": how the news went is no part of it
FIRST_GO = re.compile(r",?\s+(?:(?:on\s+)?(?:the\s+)?first\s+(?:time|go|try|attempt)|at\s+(?:long\s+)?last)\s*(?=[.!]*$)", I)


# --- invariant 348: what the user carries for an allergy is part of it ----------------------
_CARRIED = re.compile(r"^carries\s+(?:an?\s+|my\s+|their\s+)?(?P<x>epi-?pens?|auto-?injectors?|inhalers?|"
                      r"antihistamines?|piriton)\s*$", I)


def carried_with_allergy(statements: list[Statement]) -> list[Statement]:
    """Invariant 348: "I'm allergic to wasp stings, I carry an EpiPen": the pen is said for the
    allergy just named, one fact ("Allergic to wasp stings, carries an EpiPen"), not a habit of
    its own. With no allergy said in the message the clause is left as it was read."""
    allergy = next((s for s in statements if s.rule.startswith("health:allergy") and s.act == "assert"), None)
    if allergy is None:
        return statements
    out = []
    for st in statements:
        m = _CARRIED.match(st.text or "") if st is not allergy and st.act == "assert" else None
        if m:
            thing = m.group("x")
            thing = "an EpiPen" if thing.lower().startswith("epi") else f"{'an' if thing[0] in 'aeiouAEIOU' else 'a'} {thing}" \
                if not thing.lower().endswith("s") else thing
            allergy.text = f"{allergy.text}, carries {thing}"
            continue
        out.append(st)
    return out


# --- invariant 349: a work pattern changed ----------------------------------------------------
_N = r"(?:one|two|three|four|five|six|\d)"
_OFFICE = re.compile(r"\b(?:is|are|'s|'re)\s+(?:now\s+)?(?:making|forcing|telling|asking|getting|having)\s+"
                     r"(?:us|me|everyone|everybody|all\s+of\s+us|staff|people)(?:\s+to)?\s+(?:come|go|be|work)\s+"
                     r"(?:back\s+)?(?:in(?:to)?|at|to)\s+(?:the\s+)?office\s+(?P<n>" + _N + r")\s+days\s+a\s+week\b", I)
_DAYS = re.compile(r"^(?:(?:i'?m|i\s+am|we'?re)\s+(?:going|dropping|cutting|moving|switching|changing)|"
                   r"(?:i|we)\s+(?:have\s+|'ve\s+)?(?:dropped|cut|gone|moved|switched|changed))\s+(?:down\s+|back\s+)?"
                   r"to\s+(?:just\s+|only\s+)?(?P<n>" + _N + r")\s+(?P<long>(?:long|short|full|half)\s+)?days\s+a\s+week"
                   r"(?P<rest>,\s*(?:with\s+)?(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?\s+off|"
                   r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?\s+to\s+(?:mon|tues|wednes|thurs|fri|satur|sun)days?))?"
                   r"\s*[.!]*$", I)
_SHIFTS = re.compile(r"\b(?:i'?m|i\s+am|we'?re)\s+(?:going|moving|switching)\s+back\s+(?:on|on\s+to|onto|to)\s+"
                     r"(?P<s>nights|night\s+shifts|days|day\s+shifts)\b(?P<rest>,\s*" + _N + r"\s+a\s+week)?\s*[.!]*$", I)


def work_pattern(c: str, dates: Dates) -> list[Statement] | None:
    """Invariant 349: "the company is making everyone come into the office two days a week from
    March", "from April I'm dropping to three days a week, with Mondays off", "I'm going back on
    night shifts from June, three a week": how the user works now, replacing the work pattern on
    record ("Works from home full-time", "Works 9 to 5, Monday to Friday"), dated when said."""
    t = dates.text.strip()
    text = None
    if m := _OFFICE.search(t):
        text = f"Works in the office {m.group('n').lower()} days a week"
    elif m := _DAYS.match(t):
        text = f"Works {m.group('n').lower()} {(m.group('long') or '').lower()}days a week{m.group('rest') or ''}"
    elif m := _SHIFTS.search(t):
        text = f"Works {tidy(m.group('s')).lower()}{m.group('rest') or ''}"
    if text is None:
        return None
    return [Statement(act="change", text=text, fact_type="constraint", slot="workpattern",
                      valid_from=dates.valid_from, clause=c, rule="work:pattern")]


# "Works from home full-time", "Works days only: ...", "Works 9 to 5, Monday to Friday", "Works
# nights": how the user works, one pattern at a time (invariant 349)
WORK_PATTERN = re.compile(r"^works\s+(?:from\s+home|remotely|remote|(?:fully|mostly|partly)\s+remote|hybrid|"
                          r"in\s+(?:the\s+)?office|on[- ]site|part[- ]time|full[- ]time|days\b|nights\b|"
                          r"night\s+shifts|day\s+shifts|compressed|\d|one\b|two\b|three\b|four\b|five\b|six\b)", I)


# --- invariant 342 (widened): a habit taken up again ------------------------------------------
_AGAIN = re.compile(r"^is\s+(?P<v>[a-z]+ing)\s+again$", I)
# what stopped it: "Can't run because of a knee injury", "Has given up swimming", "Does not drink"
STOPPED = re.compile(r"\b(?:can'?t|cannot|can\s+not|unable|not|no\s+longer|stopped|given\s+up|gave\s+up|quit|"
                     # "Doesn't drink alcohol", "Never smokes": stopped too (invariant 380)
                     r"injur\w*|banned|off|doesn'?t|don'?t|never)\b", I)


def taken_up_again(statements: list[Statement]) -> list[Statement]:
    """Invariant 342: "the knee's healed and I'm running again": what stopped the habit on
    record ("Can't run because of a knee injury") is replaced; the agent takes only a fact that
    says it stopped (`STOPPED`), and with none it is written as said."""
    for st in statements:
        m = _AGAIN.match(st.text or "") if st.act == "assert" and st.rule == "act:ing" else None
        if m:
            st.act, st.previous, st.rule = "change", m.group("v").lower(), "act:again"
    return statements


# --- invariant 348 (widened): a diagnosis of someone the user has -----------------------------
_PRONOUNS = frozenset("i he she they it we you my our his her their the this that there".split())
_DIAGNOSED = re.compile(
    r"^(?:(?:the\s+)?(?:vet|vets|doctor|doctors|specialist|consultant)\s+(?:has\s+|just\s+)*(?:confirmed|says|said|"
    r"found|thinks|reckons)(?:\s+(?:on\s+|last\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day)?\s+(?:that\s+)?(?P<n1>(?-i:[A-Z])[\w'’-]+)\s+has\s+|"
    r"(?P<n2>(?-i:[A-Z])[\w'’-]+)(?:'s|’s|\s+has|\s+was)\s+(?:been\s+|just\s+|finally\s+|officially\s+)*"
    r"diagnosed\s+with\s+)(?P<x>(?:an?\s+)?[\w'’ -]+?)(?:\s*,\s*(?:so|and|but|which|(?:he|she|they|it)(?:'s|’s|\s+is|\s+has))\b[^.!?]*)?\s*[.!]*$", I)


def diagnosed(c: str, dates: Dates) -> list[Statement] | None:
    """Invariant 348: "Pickle's been diagnosed with diabetes", "the vet confirmed that Pickle has
    an egg allergy": news about someone the user has, kept as "Pickle has diabetes" (the agent
    keeps it only beside a fact naming them; a doctor's "thinks" is for review). Pure."""
    m = _DIAGNOSED.match(dates.text.strip())
    if m is None:
        return None
    name = m.group("n1") or m.group("n2")
    if name.lower() in _PRONOUNS:
        return None
    what = tidy(m.group("x"))
    if not re.search(r"(?:allerg|intoleran|disease|diabet|arthritis|cancer|syndrome|infection|asthma|"
                     r"epilep|condition|deficien|disorder|failure|itis)\w*", what, I):
        return None  # "the vet says Pickle has a lovely coat": no diagnosis
    hedged = bool(re.search(r"\b(?:thinks|reckons)\b", m.group(0), I))
    return [Statement(act="assert", text=f"{name} has {what}", fact_type="world", valid_from=dates.valid_from,
                      confidence=0.55 if hedged else 0.85, clause=c, rule="third:diagnosis")]


# --- invariant 347 (widened): "I've actually started ..." -------------------------------------
# "actually" after the subject adds nothing to what the user says they do
ACTUALLY = re.compile(r"\b(?P<s>(?:i|we)(?:'ve|’ve|\s+have|'m|’m|\s+am)?)\s+actually\s+(?=[a-z])", I)


# --- invariant 346 (widened): pulled out of a plan --------------------------------------------
_PULLED_OUT = re.compile(r"\b(?:i|we)\s+(?:have\s+|'ve\s+|had\s+to\s+|just\s+)*(?:pulled\s+out\s+of|withdrawn\s+from|"
                         r"withdrew\s+from|dropped\s+out\s+of)\s+(?P<thing>(?:the\s+|my\s+|our\s+)?[^,;.!?]+?)\s*(?:[,;.!?]|$)", I)
# what a plan one pulls out of is: an event, or a thing with its date
PLAN_EVENT = re.compile(r"\b(?:marathon|race|half|10k|5k|triathlon|ironman|tournament|match|trip|tour|conference|"
                        r"wedding|event|competition|festival|sportive|ultra|(?:jan|febr)uary|march|april|may|june|"
                        r"july|august|september|october|november|december)\b", I)


def pulled_out(c: str) -> list[Statement] | None:
    """Invariant 346: "I've pulled out of Valencia, my calf is still torn", "we withdrew from the
    Leeds 10k": a named plan called off; the agent replaces only a plan on record that names it
    and is an event or dated (`PLAN_EVENT`), never "Lives in Valencia"."""
    m = _PULLED_OUT.search(c)
    if m is None:
        return None
    thing = tidy(m.group("thing"))
    where = next((w for w in thing.split() if w[:1].isupper()), None)
    if where is None:
        return None  # "dropped out of uni": no named plan
    thing = re.sub(r"^(?:my|our)\s+", "the ", thing, flags=I)
    return [Statement(act="change", text=f"Pulled out of {thing}", fact_type="world", previous=where,
                      clause=c, rule="plan:pulled-out")]


# --- invariant 348 (widened): an allergy cleared ----------------------------------------------
_CLEARED = re.compile(
    r"^(?:(?:the\s+|my\s+)?(?:allergist|doctor|gp|specialist|consultant|dietitian|immunologist)\s+(?:says|said|"
    r"confirmed|thinks)\s+(?:that\s+)?(?P<x1>[a-z][\w -]*?)\s+(?:are|is)\s+(?:fine|ok|okay|safe)(?:\s+for\s+me)?|"
    r"(?:i|we)\s+(?:(?:don'?t|do\s+not|no\s+longer)\s+(?:need|have)\s+to|no\s+longer)\s+avoid\s+(?P<x2>[a-z][\w -]*?)"
    r"(?:\s+any\s*more)?|"
    r"(?:i|we)\s+can\s+(?:eat|have)\s+(?P<x3>[a-z][\w -]*?)\s+again)(?:\s+(?:now|again))?\s*[.!]*$", I)


def cleared(c: str, dates: Dates) -> list[Statement] | None:
    """Invariant 348: "the allergist says pistachios are fine for me", "I don't need to avoid
    pistachios any more", "I can eat pistachios again": the avoidance or allergy on record that
    names them is replaced ("No longer avoids pistachios", "Can eat pistachios again"); with none
    on record nothing is written."""
    m = _CLEARED.match(dates.text.strip())
    if m is None:
        return None
    what = tidy(m.group("x1") or m.group("x2") or m.group("x3"))
    if what.lower() in {"them", "it", "that", "those", "this", "these"}:
        return []
    text = f"Can eat {what} again" if m.group("x3") else f"No longer avoids {what}"
    return [Statement(act="change", text=text, fact_type="constraint", previous=what,
                      clause=c, rule="health:cleared")]
