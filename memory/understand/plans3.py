"""Plans, bookings and starts said with their dates (invariants 419-426).

Pure readers of one clause (and, for a pronoun, the message it is in), asked only when no other
reader took the clause: "New Year plan: Madeira from 30 December to 2 January", "flying Emirates
to Melbourne on 18 December, back on 10 January", "I'm starting piano lessons on 8 January",
"our twins start nursery on 5 January", "Mochi's booked in at the vet on 12 January", "Amara's
coming to stay 18-22 December", "Kochi trip moved: I now fly out on 20 December", "the CKA got
pushed back, I've rebooked it for 12 March". Only a date to come makes a plan; the date is
valid_from (valid_to for a range or a return); relative time words never stay in the value; a
hypothetical or a question writes nothing (read before, scope_hypothetical / is_question).
"""

from __future__ import annotations

import re
from datetime import date

from .dates import Dates, find_dates
from .model import Statement
from .phrases import CAP_PLACE, UPPER, I, cap, place, tidy

_NAME = UPPER + r"[\w'’-]+"
_HEDGE = re.compile(r"\b(?:if|maybe|might|(?-i:may)|perhaps|possibly|could|would|should|thinking|considering|"
                    r"wondering|hoping|hope|wish|want|wants|fancy|planning\s+to|probably|unless|not|never|"
                    r"no\s+longer|didn'?t|won'?t|can'?t|cancell?ed|off)\b", I)
_RELATIVE = re.compile(r"\s*\b(?:next|this|last|coming)\s+(?:year|month|week|weekend|summer|spring|autumn|"
                       r"winter)\b|\s*\b(?:tomorrow|tonight|today|now|soon)\b", I)


def _future(dates: Dates, today: date) -> bool:
    return bool(dates.valid_from and dates.valid_from >= today)


def _clean(rest: str) -> str:
    """What a plan keeps after its head: up to its first comma, no relative time word."""
    rest = re.split(r"\s*[,;(]\s*|\s+[-–—]\s+|[.!?]+(?:\s|$)", rest, maxsplit=1)[0]
    return tidy(_RELATIVE.sub("", rest)).strip(" ,:.!")


def _back(text: str, today: date, start: date | None) -> date | None:
    """Invariant 420: "..., back on 10 January", "come back on 5 January": the end of a trip."""
    m = re.search(r"\b(?:back|home|return(?:ing)?|fly(?:ing)?\s+home|flying\s+back)\s+(?:on\s+|by\s+)?(?P<w>.+)$",
                  text, I)
    if not m or start is None:
        return None
    end = find_dates(m.group("w"), today).valid_from
    return end if end and end >= start else None


# --- invariant 419: "<occasion> plan: <Place> ...", "Booked the cruise! <what> from 4 to 11 June"
_HEADING = re.compile(r"^(?:(?-i:I)\s+(?=(?-i:[A-Z])))?(?P<o>(?:[\w'’-]+\s+){0,3}?)(?:plans?|trip|holiday|getaway|break|escape|booked|all\s+booked|confirmed)\s*[:–—-]\s*"
                      + CAP_PLACE + r"(?P<rest>.*)$", I)
_BOOKED_KIND = re.compile(r"(?:^|[.!?]\s+|\b(?:i|we)(?:\s+have\s+|'ve\s+|\s+))(?:just\s+|finally\s+)?booked\s+"
                          r"(?:the|a|an|our|my)\s+"
                          r"(?P<k>cruise|safari|tour|trip|holiday|getaway|city\s+break|break|retreat|road\s+trip)\b"
                          r"\s*[!.]", I)
_VERBISH = re.compile(r"\b(?:i|we|he|she|they|it|is|are|was|were|am|'m|'re|'s|has|have|had|will|did|do|does|"
                      r"going|want|need)\b", I)


def heading(c: str, message: str, today: date, dates: Dates) -> list[Statement] | None:
    if not _future(dates, today) or _HEDGE.search(c):
        return None
    m = _HEADING.match(dates.text.strip())
    if m and (where := place(m.group("p"))):
        occasion = tidy(m.group("o") or "")
        if occasion and not re.fullmatch(r"(?:(?:christmas|xmas|new\s+year(?:'s)?|easter|hogmanay|summer|winter|"
                                         r"spring|autumn|half[-\s]term|birthday|anniversary|honeymoon|ski|"
                                         r"family|work|business|weekend|the|our|my|big)\s*)+", occasion, I):
            return None
        occasion = re.sub(r"^(?:the|our|my)\s+", "", occasion, flags=I)
        head = f"{cap(occasion)} trip to {where}" if occasion else f"Trip to {where}"
        rest = _clean(re.sub(r"^\s*,\s*(?=(?:from\s+|on\s+)?\d)", " ", m.group("rest")))
        return [Statement(act="assert", text=head + (f" {rest}" if rest else ""), fact_type="world",
                          valid_from=dates.valid_from, valid_to=dates.valid_to, clause=c, rule="plan:heading")]
    # "Booked the cruise! Norwegian fjords with P&O from 4 to 11 June": the clause after names it
    k = _BOOKED_KIND.search(message)
    t = dates.text.strip()
    if k and dates.valid_to and re.match(UPPER, t) and not _VERBISH.search(t):
        what = _clean(t)
        if what and len(what.split()) <= 12:
            return [Statement(act="assert", text=f"{cap(k.group('k').lower())}: {what}", fact_type="world",
                              valid_from=dates.valid_from, valid_to=dates.valid_to, clause=c,
                              rule="plan:booked-named")]
    return None


# --- invariant 420: "flying Emirates to Melbourne on 18 December, back on 10 January";
# "Anjali and I are meeting in Lisbon, flights booked for 3 July"
_CARRIER = re.compile(r"^(?:\w+:\s*)?(?:i'?m|i\s+am|we'?re|we\s+are|i'?ll\s+be|we'?ll\s+be)\s+(?:flying|travell?ing|going|"
                      r"heading)\s+(?P<by>(?:with\s+)?(?:" + UPPER + r"[\w&'’-]*\s+){1,2})to\s+" + CAP_PLACE
                      + r"(?P<rest>.*)$", I)
_MEETING = re.compile(r"^(?:\w+:\s*)?(?:(?P<who>" + _NAME + r")\s+and\s+i\s+(?:are|will\s+be)|i'?m|i\s+am|we'?re|we\s+are|i'?ll\s+be|we'?ll\s+be|i\s+will\s+be|we\s+will\s+be)\s+"
                      r"meeting\s+(?:up\s+)?(?:with\s+(?P<who2>" + _NAME + r")\s+)?(?:in|at)\s+" + CAP_PLACE
                      + r"(?P<rest>.*)$", I)


def travel(c: str, message: str, today: date, dates: Dates) -> list[Statement] | None:
    if not _future(dates, today) or _HEDGE.search(c):
        return None
    t = dates.text.strip()
    m = _CARRIER.match(t)
    if m and (where := place(m.group("p"))):
        carrier = tidy(re.sub(r"^with\s+", "", m.group("by").strip(), flags=I))
        if carrier.lower() in {"back", "home", "out", "over", "down", "up", "off"}:
            return None
        rest = _clean(m.group("rest"))
        end = dates.valid_to or _back(t, today, dates.valid_from) or _back(message, today, dates.valid_from)
        return [Statement(act="assert", text=f"Trip to {where}" + (f" {rest}" if rest else "")
                          + f", flying {carrier}", fact_type="world", valid_from=dates.valid_from,
                          valid_to=end, clause=c, rule="plan:flying")]
    m = _MEETING.match(t)
    if m and (where := place(m.group("p"))):
        who = m.group("who") or m.group("who2")
        said = re.search(r"\b(?P<n>" + _NAME + r")\s+and\s+I\s+(?:are|'re|will\s+be|'ll\s+be)\s+meeting\b", message)
        who = who or (said.group("n") if said else None)
        rest = _clean(m.group("rest"))
        rest = "" if re.match(r"^(?:flights?|tickets?|trains?|hotel)\b", rest, I) else rest
        return [Statement(act="assert", text=f"Meeting {who + ' ' if who else ''}in {where}"
                          + (f" {rest}" if rest else ""), fact_type="world", valid_from=dates.valid_from,
                          valid_to=dates.valid_to, clause=c, rule="plan:meeting")]
    return None


# --- invariant 421: a start to come: "I'm starting piano lessons on 8 January", "our twins,
# Ada and Obi, start nursery on 5 January", "my NHS pension starts paying out in March"
_KIDS = (r"(?:kids?|children|child|sons?|daughters?|twins|baby|babies|boys?|girls?|little\s+ones?|eldest|youngest|"
         r"middle\s+one)")
_STARTER = re.compile(r"^(?P<who>i'?m|i\s+am|we'?re|we\s+are|i'?ll\s+be|we'?ll\s+be|i|we|i\s+will|we\s+will|"
                      r"(?P<kids>(?:my|our)\s+(?:\w+\s+)?" + _KIDS + r"(?:\s*,?\s*" + _NAME + r"(?:\s*,?\s+and\s+"
                      + _NAME + r")?\s*,?)?))\s+(?P<v>(?:is\s+|are\s+|'s\s+|'re\s+)?(?:starting|beginning)|starts?|"
                      r"begins?|(?:will|'ll)\s+(?:start|begin))\s+(?P<what>(?!(?:to|off|out|over|again|at|in|on|from|with|by|for|"
                      r"early|earlier|late|later|back|up|here|there|then|work|working|now|today|tomorrow|next|this|"
                      r"when|after|before|as|as\s+a|as\s+an)\b)[\w'’-].*)$", I)
_THING_STARTS = re.compile(r"^(?:my|our)\s+(?P<what>(?:[\w'’-]+\s+){0,2}(?:pension|annuity|allowance|benefits?|"
                           r"maternity\s+leave|paternity\s+leave|parental\s+leave|sabbatical|retirement|apprenticeship|"
                           r"internship|placement|residency|tenancy|lease|degree|course|masters?|phd))\s+"
                           r"(?P<v>starts?|begins?|kicks\s+in|(?:will|'ll)\s+(?:start|begin|kick\s+in)|is\s+starting)"
                           r"(?P<rest>.*)$", I)


def starts(c: str, today: date, dates: Dates) -> list[Statement] | None:
    if not _future(dates, today) or _HEDGE.search(c):
        return None
    t = dates.text.strip()
    m = _THING_STARTS.match(t)
    if m:
        rest = _clean(m.group("rest"))
        verb = re.sub(r"^(?:will|'ll)\s+(\w+)", r"\1s", m.group("v").lower())
        verb = {"is starting": "starts", "start": "starts", "begin": "begins", "kick in": "kicks in"}.get(verb, verb)
        return [Statement(act="assert", text=f"{cap(tidy(m.group('what')))} {verb}" + (f" {rest}" if rest else ""),
                          fact_type="world", valid_from=dates.valid_from, valid_to=dates.valid_to, clause=c,
                          rule="plan:starts")]
    m = _STARTER.match(t)
    if not m:
        return None
    what = _clean(m.group("what"))
    if not what or re.match(r"^(?:it|this|that|them|something|work|a\s+new\s+job|my\s+new\s+job|"
                            r"a\s+job|the\s+job)\b", what, I):
        return None  # a job is read by the work readers; a pronoun names nothing here
    if re.search(r"\b(?:business|company|firm|startup|start-up|practice|job|role|position|post|career|shifts?|"
                 r"contract|placement|internship|apprenticeship|residency)\b", what, I):
        return None  # "starting my own logistics business": work, which replaces a job (work readers)
    if m.group("kids"):
        kids = re.sub(r"\s*,\s*", " ", m.group("kids")).strip(" ,")
        names = re.findall(r"(?<=\s)" + _NAME, " " + kids)
        names = [n for n in names if n.lower() not in {"my", "our"}]
        who = " and ".join(names) if names else cap(re.sub(r"^(?:my|our)\s+", "", kids, flags=I))
        text = f"{cap(who)} start{'s' if len(names) == 1 else ''} {what}"
    else:
        text = f"Starting {what}"
    return [Statement(act="assert", text=text, fact_type="world", valid_from=dates.valid_from,
                      valid_to=dates.valid_to, clause=c, rule="plan:starts")]


# --- invariant 422: "Mochi's booked in at the vet for her booster on 12 January"; invariant
# Invariant 423: "Amara's coming to stay 18-22 December"
_PET_BOOKED = re.compile(r"^(?P<who>" + _NAME + r"|(?:my|our)\s+(?:dog|cat|puppy|kitten|pup|rabbit|horse|pony))"
                         r"(?:'s|’s|\s+is|\s+has\s+been)\s+(?:all\s+)?booked\s+(?:in\s+)?(?P<prep>at|with|for|into)\s+"
                         r"(?P<what>(?:the\s+|his\s+|her\s+|its\s+|a\s+)?(?:vets?|groomers?|kennels|cattery|dog\s+sitter|boarding|"
                         r"neuter|spay|jabs?|booster|vaccinations?)\b.*)$", I)
_STAY = re.compile(r"^(?:\w+(?:\s+\w+)?:\s*)?(?P<who>" + _NAME + r"(?:'s|’s)\s+(?:mum|mom|dad|mother|father|parents|sister|"
                   r"brother|gran|grandma|grandad|nan|aunt|uncle|cousin)|" + _NAME + r"(?:\s+and\s+" + _NAME
                   + r")?|(?:my|our)\s+(?:parents|mum|mom|dad|mother|"
                   r"father|in-laws|grandparents|sister|brother|son|daughter|cousin|aunt|uncle|niece|nephew|"
                   r"friends?|best\s+friend)(?:\s+" + _NAME + r")?)(?:'s|’s|\s+is|\s+are|'re)\s+(?:coming\s+"
                   r"(?:over\s+|down\s+|up\s+)?(?P<how>to\s+stay(?:\s+with\s+(?:us|me))?|to\s+visit(?:\s+(?:us|me))?|"
                   r"to\s+see\s+(?:us|me))|(?P<how2>staying\s+(?:with\s+(?:us|me)|in\s+(?:the|our)\s+spare\s+room|"
                   r"at\s+ours|at\s+our\s+(?:place|house|flat))))(?P<rest>.*)$", I)


def visits(c: str, today: date, dates: Dates) -> list[Statement] | None:
    if not _future(dates, today) or _HEDGE.search(c):
        return None
    t = dates.text.strip()
    m = _PET_BOOKED.match(t)
    if m and m.group("who").lower() not in {"i", "we", "it", "she", "he", "they", "that", "this"}:
        who = m.group("who")
        who = cap(re.sub(r"^(?:my|our)\s+", "", who, flags=I)) if re.match(r"(?:my|our)\s", who, I) else who
        what = _clean(m.group("what"))
        what = re.sub(r"\b(?:her|his|its)\b", "the", what, flags=I)
        prep = m.group("prep").lower()
        text = f"{who} booked in {'for' if prep == 'for' else 'at'} {what}"
        return [Statement(act="assert", text=text, fact_type="world", valid_from=dates.valid_from,
                          valid_to=dates.valid_to, clause=c, rule="plan:pet-booked")]
    m = _STAY.match(t)
    if m:
        who = m.group("who")
        who = cap(re.sub(r"^(?:my|our)\s+", "", who, flags=I)) if re.match(r"(?:my|our)\s", who, I) else who
        how = re.sub(r"\b(?:us|me)\b", "them", tidy(m.group("how") or m.group("how2")), flags=I)
        how = re.sub(r"\bour\b", "their", how, flags=I)
        rest = _clean(m.group("rest"))
        return [Statement(act="assert", text=f"{who} {'coming ' if m.group('how') else ''}{how}" + (f" {rest}" if rest else ""),
                          fact_type="world", valid_from=dates.valid_from, valid_to=dates.valid_to, clause=c,
                          rule="plan:staying")]
    return None


# --- invariant 424: "Kochi trip moved: I now fly out on 20 December"; invariant 425: "the CKA
# got pushed back. I've rebooked it for 12 March" -- a change naming the one plan it replaces
_MOVED = (r"(?:has\s+been\s+|have\s+been\s+|got\s+|was\s+|is\s+|'s\s+been\s+)?(?:moved|changed|rescheduled|"
          r"postponed|pushed\s+back|pushed|brought\s+forward|delayed|shifted|cancell?ed|called\s+off)")
_MOVED_HEAD = re.compile(r"^(?:the\s+|my\s+|our\s+)?(?P<n>(?!it\b|that\b|this\b|everything\b)[\w'’ -]{2,40}?)\s+"
                         + _MOVED + r"\s*[:;–—-]\s*(?:(?:i|we)\s+(?:now\s+|'ll\s+now\s+|will\s+now\s+|'ll\s+|will\s+)?)?"
                         r"(?P<rest>.+)$", I)
_REBOOKED = re.compile(r"^(?:(?:i|we)\s+(?:have\s+|'ve\s+)?(?:just\s+|now\s+)?)(?:rebooked|re-booked|rescheduled|"
                       r"moved|booked)\s+(?:it|that|this|them)\s+(?:in\s+)?(?:for|to|on|in)\b", I)
_SHIFTED = re.compile(r"^(?:(?:i|we)\s+(?:have\s+|'ve\s+)?(?:just\s+|now\s+)?)(?:moved|pushed|postponed|rescheduled|shifted|"
                      r"brought)\s+(?:the|my|our)\s+(?P<n>[\w'’ -]{2,40}?)\s+(?:(?:by\s+)?(?:a|an|one|two|three|four|a\s+couple\s+of|"
                      r"a\s+few)\s+(?:days?|weeks?|months?)\s+(?:later|earlier|back|forward)|(?:back|forward)(?:\s+(?:by\s+)?(?:a|an|one|two|"
                      r"three|four|a\s+couple\s+of|a\s+few)\s+(?:days?|weeks?|months?))?)\s*"
                      r"(?:[,:;–—-]\s*|\s+to\s+|\s+)(?:(?:it's|it\s+is|now|so\s+it's)\s+)?(?:on\s+|from\s+)?(?P<when>.+)$", I)
_IT_NOW = re.compile(r"^(?:it'?s|it\s+is|it\s+will\s+be|it'?ll\s+be)\s+(?:now\s+)?(?:on|for)\s+(?P<when>.+?)"
                     r"(?:\s+now)?(?:\s*,?\s*(?:instead\s+of|not|rather\s+than)\b.*)?[.!]*$", I)
_ANTECEDENT_BY = re.compile(r"(?:^|[.!?]\s+)(?:the\s+)?[\w'’ ]{2,30}?\s+(?:has\s+|have\s+)?(?:moved|rescheduled|postponed|"
                            r"changed|pushed\s+back|cancell?ed)\s+(?:the|my|our)\s+(?P<n>[\w'’ -]{2,40}?)\s*[.!]", I)
_ANTECEDENT = re.compile(r"(?:^|[.!?]\s+)(?:the|my|our)\s+(?P<n>[\w'’ -]{2,40}?)\s+" + _MOVED
                         + r"\b(?!\s+(?:her|his|their|its|my|our|the|a|an|it|them|me|us|this|that)\b)[^.!?]*[.!?]", I)


def _ahead(dates: Dates, today: date) -> Dates:
    """Invariant 426: a plan's day said without a year is its next occurrence, even when the
    sentence speaks in the past ("the trip moved: I now fly out on 3 February")."""
    if not dates.valid_from or dates.valid_from >= today or any(re.search(r"\b\d{4}\b", f) for f in dates.found):
        return dates

    def bump(d: date | None) -> date | None:
        if d is None:
            return None
        try:
            return d.replace(year=d.year + 1)
        except ValueError:  # 29 February
            return d.replace(year=d.year + 1, day=28)
    start = bump(dates.valid_from)
    if start is None or start < today or start > today.replace(year=today.year + 1):
        return dates
    return Dates(start, bump(dates.valid_to), dates.text, dates.found)


def moved(c: str, message: str, today: date, dates: Dates) -> list[Statement] | None:
    dates = _ahead(dates, today)
    if not _future(dates, today) or re.search(r"\b(?:if|maybe|might|perhaps|could|would|thinking)\b", c, I):
        return None
    t = dates.text.strip()
    m = _MOVED_HEAD.match(t)
    if m:
        noun = tidy(m.group("n"))
        rest = _clean(re.sub(r"\s+and\s+(?:come|coming|fly|flying|get|getting)\s+back\b.*$", "", m.group("rest"),
                             flags=I))
        if not rest or noun.lower() in {"i", "we", "plan", "plans"}:
            return None
        end = dates.valid_to or _back(t, today, dates.valid_from)
        back = f", back on {end.day} {end:%B}" if end and not dates.valid_to else ""
        return [Statement(act="change", text=f"{cap(noun)}: {rest}{back}", fact_type="world", previous=noun,
                          valid_from=dates.valid_from, valid_to=end, clause=c, rule="plan:moved")]
    m = _SHIFTED.match(t)
    if m and not re.search(r"\b(?:it|that|this|them|everything)$", m.group("n"), I):
        # "we've moved the Crete holiday a week later, 9 to 16 June" (invariant 424)
        noun = tidy(m.group("n"))
        when = _clean(m.group("when"))
        where = next((w for w in noun.split() if w[:1].isupper()), None)
        trip = re.search(r"\b(?:trip|holiday|break|getaway|visit|vacation)$", noun, I)
        if not when or not re.search(r"\d", when):
            return None
        when = when if re.match(r"^(?:on|from|in)\b", when, I) else ("from " if dates.valid_to else "on ") + when
        text = f"Trip to {where} {when}" if where and trip else f"{cap(noun)} {when}"
        return [Statement(act="change", text=text, fact_type="world", previous=where if where and trip else noun,
                          valid_from=dates.valid_from, valid_to=dates.valid_to, clause=c, rule="plan:moved")]
    it_now, rebooked = _IT_NOW.match(c.strip()), _REBOOKED.match(t)
    if rebooked or it_now:
        # "the embassy moved my passport appointment": the thing moved is the object, never who moved it
        by = list(_ANTECEDENT_BY.finditer(message))
        ante = by + [a for a in _ANTECEDENT.finditer(message)
                     if not any(a.start() < b.end() and b.start() < a.end() for b in by)]
        if it_now:
            # "It's on 15 December now instead of tomorrow": the day said, never the one it replaces
            dates = _ahead(find_dates(it_now.group("when"), today), today)
            if not _future(dates, today) or dates.valid_to:
                return None
        if len(ante) == 1 and len(re.findall(_MOVED + r"\b", ante[0].group(0), I)) == 1:
            noun = tidy(ante[0].group("n"))
            if noun.lower() in {"plan", "plans", "thing", "one"}:
                return None
            when = it_now.group("when") if it_now else t[rebooked.end():] if rebooked else ""
            when = re.sub(r"^(?:on|for)\s+", "", when.strip(" .!"), flags=I)
            return [Statement(act="change", text=f"{cap(noun)} on {_clean(when)}", fact_type="world",
                              previous=noun, valid_from=dates.valid_from, clause=c, rule="plan:moved")]
    return None


# --- invariant 421: "we got Jayden a place at Riverside Academy. He starts on 11 January"
_PLACE_AT = r"\s+a\s+place\s+at\s+(?P<p>(?:the\s+)?" + UPPER + r"[\w'’-]*(?:\s+(?:of\s+)?" + UPPER + r"[\w'’-]*){0,4})"
_GOT_PLACE = re.compile(r"\b(?:i|we)\s+(?:have\s+|'ve\s+)?(?:finally\s+|just\s+)?got\s+(?P<who>" + _NAME + r"|(?:my|our)\s+"
                        + _KIDS + r")" + _PLACE_AT + r"|(?:^|[.!?]\s+|,\s*)(?P<who2>" + _NAME + r"|(?:my|our)\s+" + _KIDS
                        + r")\s+(?:has\s+|'s\s+)?(?:finally\s+|just\s+)?got" + _PLACE_AT.replace("(?P<p>", "(?P<p2>"), I)
_HE_STARTS = re.compile(r"^(?:he|she|they)\s+(?:starts?|begins?|(?:is|are|'s|'re)\s+starting|will\s+start|'ll\s+start)\s+"
                        r"(?:there\s+)?(?:on|in|from|after)\b", I)


def placed(c: str, message: str, today: date, dates: Dates) -> list[Statement] | None:
    if not _future(dates, today) or _HEDGE.search(c) or not _HE_STARTS.match(c.strip()):
        return None
    got = list(_GOT_PLACE.finditer(message))
    if len(got) != 1:
        return None
    who, where = got[0].group("who") or got[0].group("who2"), got[0].group("p") or got[0].group("p2")
    if who.lower() in {"i", "we", "he", "she", "they", "it"}:
        return None
    who = cap(re.sub(r"^(?:my|our)\s+", "", who, flags=I)) if re.match(r"(?:my|our)\s", who, I) else who
    day = next((f for f in dates.found if re.match(r"\d", f)), None)
    return [Statement(act="assert", text=f"{who} starts at {tidy(where)}" + (f" on {day}" if day else ""),
                      fact_type="world", valid_from=dates.valid_from, clause=c, rule="plan:starts")]


def read(c: str, message: str, today: date, dates: Dates) -> list[Statement] | None:
    """Invariants 419-426: a plan with a date to come that no other reader took."""
    for found in (moved(c, message, today, dates), heading(c, message, today, dates), travel(c, message, today, dates),
                  starts(c, today, dates), visits(c, today, dates), placed(c, message, today, dates)):
        if found:
            return found
    return None
