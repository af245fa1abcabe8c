"""Endings and resumptions of medicines, conditions, tools and habits (invariants 377-384).

Pure, deterministic readers of one clause each, for the words people use when something on
record stops or starts again: "I came off sertraline in October", "the GP stopped the
ramipril", "the eczema has cleared up completely", "uninstalled AeroSpace", "the kettle flow is
gone", "I'm cycling to the office again this winter", "I started drinking again, just a glass
of wine with dinner". Each returns None when it does not read the clause, so the other readers
still do. The agent replaces only the one active fact that names the thing (`names_ended`);
with none on record an ending writes nothing (invariant 141).
"""

from __future__ import annotations

import re

from . import lexicon as lx
from .dates import Dates
from .life2 import PLAN_EVENT
from .model import Statement
from .phrases import UPPER, I, article, tidy

# --- invariant 377: a medicine stopped ---------------------------------------------------------
# a medicine by name (`lexicon.MEDICINE`) or by its class ("the statins", "my inhaler")
_MED = (r"(?P<x>(?:" + lx.MEDICINE + r"|statins|steroids|antibiotics|painkillers|beta[- ]blockers|blood\s+thinners|"
        r"the\s+pill|inhalers?|hrt|antihistamines|sleeping\s+pills)(?:\s+" + lx.DOSE + r")?)")
_WHO = (r"(?:my|the)\s+(?:doctor|doc|gp|consultant|specialist|psychiatrist|cardiologist|dermatologist|allergist|"
        r"immunologist|endocrinologist|nurse|prescriber|clinic|hospital)")
_OFF_MED = re.compile(
    r"^(?:(?:so|and|but|finally|well)\s+)?(?:i|we)(?:\s+|(?=['’]))(?:have\s+|'ve\s+|had\s+|just\s+|finally\s+|now\s+|"
    r"fully\s+|completely\s+|officially\s+)*(?:(?:came|come|got|gotten|went|gone|been|was|am|'m|’m|tapered|"
    r"weaned\s+(?:myself\s+)?|weaned)\s+(?:fully\s+|completely\s+|right\s+|finally\s+)*off\s+(?:of\s+)?|"
    r"(?:stopped|quit)\s+taking\s+)(?:the\s+|my\s+)?" + _MED + r"(?P<tail>[^,;]*)$", I)
_NO_LONGER_ON = re.compile(
    r"^(?:i'?m|i\s+am)\s+(?:no\s+longer\s+on|not\s+on\s+(?:the\s+|my\s+)?(?=\S+(?:\s+\S+)?\s+any\s*more))\s*"
    r"(?:the\s+|my\s+)?" + _MED + r"(?P<tail>[^,;]*)$", I)
_STOPPED_BY = re.compile(
    r"(?:^|,\s*|\band\s+|\bso\s+)" + _WHO + r"\s+(?:has\s+|have\s+|just\s+|finally\s+)*(?:stopped|discontinued|"
    r"took\s+me\s+off|taken\s+me\s+off|has\s+taken\s+me\s+off)\s+(?:the\s+|my\s+)?" + _MED +
    r"(?P<tail>[^,;]*)$", I)

# --- invariant 384: a medicine taken again ---------------------------------------------------
_BACK_ON = re.compile(
    r"^(?:(?:so|and|but|well)\s+)?(?:(?:i'?m|i\s+am)\s+(?:now\s+)?back\s+on|(?:i|we)\s+(?:have\s+|'ve\s+|just\s+)*"
    r"(?:went|gone|been\s+put)\s+back\s+on|(?:i|we)\s+(?:have\s+|'ve\s+|just\s+)*restarted|"
    + _WHO + r"\s+(?:has\s+|just\s+)*(?:put|started)\s+me\s+back\s+on)\s+(?:the\s+|my\s+)?" + _MED +
    r"(?:\s+(?:again|now))*(?:\s*,[^.;!?]*)?\s*[.!]*$", I)

# --- invariant 378: a condition cleared --------------------------------------------------------
_CONDITION = (r"(?P<c>" + "|".join(re.escape(c) for c in sorted(
    (c for c in lx.CONDITIONS if not c.startswith("a ")), key=len, reverse=True)) +
    r"|psoriasis|acne|rosacea|insomnia|gout|shingles|sciatica|anaemia|[a-z]+itis|"
    r"(?:[a-z]+\s+)?(?:allergy|allergies|intolerance))")
_CLEARED_UP = re.compile(
    r"^(?:(?:so|and|but|finally|good\s+news)\s*,?\s+)?(?:" + _WHO + r"\s+(?:says|said|confirmed|told\s+me)\s+"
    r"(?:that\s+)?)?(?:the\s+|my\s+)" + _CONDITION + r"\s+(?:has\s+|is\s+|'s\s+|have\s+|are\s+)?"
    r"(?:now\s+|finally\s+|completely\s+|fully\s+|totally\s+|all\s+)*(?P<how>cleared(?:\s+up)?|gone(?:\s+away)?|"
    r"went\s+away|healed|resolved|in\s+remission|disappeared|cured|stopped)(?:\s+(?:completely|fully|for\s+good|"
    r"now|totally|at\s+last))*(?:\s+(?:after|thanks\s+to|with|since)\s+[^,;]*)?\s*[.!]*$", I)
_OVER_IT = re.compile(r"^(?:i'?m|i\s+am)\s+(?:now\s+|finally\s+)?(?:free\s+of|clear\s+of|cured\s+of|rid\s+of)\s+"
                      r"(?:the\s+|my\s+)?" + _CONDITION + r"(?:\s+(?:now|completely|for\s+good|at\s+last))*\s*[.!]*$", I)
# "my blood pressure is back to normal": high blood pressure, ended
_BP_NORMAL = re.compile(r"^(?:(?:so|and|but|good\s+news)\s*,?\s+)?(?:my|the)\s+(?P<c>blood\s+pressure)\s+(?:is|'s|has\s+been)"
                        r"\s+(?:now\s+)?(?:back\s+(?:to\s+)?normal|normal\s+again|back\s+down)\b", I)

# "keto's done", "the chemo is finished": a diet or a course of treatment over
_REGIME_DONE = re.compile(
    r"^(?:(?:so|and|well)\s*,?\s+)?(?:the\s+|my\s+)?(?P<x>keto|paleo|atkins|whole30|slimming\s+world|weight\s+watchers|"
    r"intermittent\s+fasting|[a-z]+\s+diet|diet|chemo|chemotherapy|radiotherapy|physio|rehab|antibiotics|steroids|"
    r"ivf|immunotherapy)(?:'s|\s+is|\s+has\s+been|\s+are|\s+have\s+been)\s+(?:all\s+|finally\s+|officially\s+)*"
    r"(?:done|over|finished|behind\s+me)(?:\s+(?:now|for\s+good|at\s+last))*\s*[.!]*$", I)

# --- invariant 379: a tool, app or automation removed ------------------------------------------
_TOOL = (r"(?:flow|automation|app|routine|script|rule|scene|shortcut|extension|plugin|add-on|widget|"
         r"reminder|cron\s+job|integration|skill|account|profile|theme|alias|hook|blueprint|"
         r"shop|store|business|blog|channel|podcast|newsletter|website|site)")
# what the user runs rather than uses: "shut down the Etsy candle shop" (invariant 379)
_RUN = re.compile(r"\b(?:shop|store|business|blog|channel|podcast|newsletter|website|site)$", I)
_TOOL_WORDS = frozenset(re.findall(r"[a-z]+", _TOOL.replace("cron\\s+job", "cron job")))
_NAMED = r"(?P<n>" + UPPER + r"[\w&'’+.-]*(?:\s+" + UPPER + r"[\w&'’+.-]*){0,2})"
_REMOVED = re.compile(
    r"^(?:(?:so|and|but|finally)\s+)?(?:(?:i|we)\s+(?:have\s+|'ve\s+|just\s+|finally\s+)*)?(?:uninstalled|"
    r"deinstalled|deleted|removed|disabled|turned\s+off|switched\s+off|shut\s+down|closed(?:\s+down)?|"
    r"wound\s+up)\s+(?:(?:the|my|our)\s+(?P<t>[\w'’ -]+?\s+"
    + _TOOL + r")|" + _NAMED + r")(?P<tail>[^,;]*)$", I)
_DEVICE_TAIL = re.compile(r"(?:\s+(?:from|off)\s+(?:my|the|our)\s+(?:phone|laptop|mac|macbook|computer|pc|ipad|"
                          r"tablet|watch|server|desktop|tv|work\s+laptop))?(?:\s+(?:completely|for\s+good|now|too|"
                          r"as\s+well|altogether))*\s*", I)
_TOOL_GONE = re.compile(r"^(?:the|my|our)\s+(?P<t>[\w'’ -]+?\s+" + _TOOL + r")\s+(?:is|'s|has|was)\s+"
                        r"(?:now\s+|been\s+)?(?:gone|deleted|removed|disabled|uninstalled|switched\s+off|turned\s+off)"
                        r"(?:\s+(?:now|for\s+good))?\s*[.!]*$", I)

# "we've stopped the Gousto boxes", "we cancelled the Ocado deliveries": a named service the
# household had, ended ("I stopped ..." is read by things.activities)
_WE_STOPPED = re.compile(r"^(?:(?:so|and|but|finally)\s+)?we\s+(?:have\s+|'ve\s+|just\s+|finally\s+)*(?:stopped|"
                         r"cancell?ed|ended|paused)\s+(?:the|our)\s+(?P<n>" + UPPER + r"[\w&'’+.-]*(?:\s+[a-z][\w-]*){0,2})"
                         r"(?:\s+(?:delivery|deliveries|subscription|order|orders))?\s*[.!]*$", I)

_PLAN_WORDS = re.compile(r"\b(?:trip|holiday|break|booking|flight|flights|appointment|visit|party|dinner|lunch|"
                         r"meeting|wedding|plans?|tickets?|reservation|stay|cruise|tour|show|gig|concert|match|"
                         r"lessons?|classes|course|call|session)\b", I)

# "no more Pilates for me": a pastime or a named habit given up
_NO_MORE = re.compile(r"^(?:(?:so|and|well)\s*,?\s+)?no\s+more\s+(?P<x>"
                      + "|".join(sorted(lx.PASTIMES | lx.SERVICES, key=len, reverse=True)) + r")\s+for\s+(?:me|us)"
                      r"(?:\s+(?:now|then|any\s*more))*\s*[.!]*$", I)

# --- invariant 380: a habit taken up again, said "started X again" -------------------------------
_HABITS = ("drink|smok|vap|run|cycl|swim|climb|boulder|bak|cook|knit|paint|sing|surf|ski|hik|meditat|"
           "journal|read|writ|eat|walk|row|lift|danc|play|skat|garden|fish|golf|box")
_AGAIN = re.compile(
    r"^(?:(?:so|and|but|finally|well)\s+)?(?:i|we)\s+(?:have\s+|'ve\s+|just\s+|recently\s+)*(?:started|begun|began|"
    r"took\s+up|taken\s+up)\s+(?P<g>(?:" + _HABITS + r")[a-z]*ing)\s+again\b"
    r"(?:\s*,?\s*(?:but\s+)?(?:just|only|mostly|though\s+only)\s+(?P<what>[^,.;!?]+))?\s*[.!]*$", I)

# "I've come round to mushrooms", "olives have grown on me": a dislike ended
_COME_ROUND = re.compile(
    r"^(?:(?:so|and|but|well)\s*,?\s+)?(?:(?:i|we)\s+(?:have\s+|'ve\s+|finally\s+|actually\s+)*(?:come|came)\s+(?:a)?round\s+to|"
    r"(?:i|we)\s+(?:have\s+|'ve\s+|finally\s+|actually\s+)*(?:warmed\s+(?:up\s+)?to|got\s+(?:a\s+)?taste\s+for))\s+"
    r"(?P<x>[a-z][\w -]{1,30}?)(?:\s+(?:actually|now|after\s+all|at\s+last|finally))*\s*[.!]*$|"
    r"^(?P<y>[a-z][\w -]{1,30}?)\s+(?:have|has)\s+(?:really\s+|finally\s+)?grown\s+on\s+me(?:\s+(?:now|actually))*\s*[.!]*$", I)

# --- invariant 381: a commute taken up again, said in the progressive ---------------------------
_HOW = {"cycling": "Cycles", "biking": "Cycles", "walking": "Walks", "driving": "Drives", "running": "Runs",
        "scooting": "Scoots"}
_COMMUTE_AGAIN = re.compile(
    r"^(?:(?:so|and|but)\s+)?(?:(?:since|ever\s+since|now\s+that)\s+(?:the\s+)?[\w'’ ]{3,40}?\s+)?"
    r"(?:i'?m|i\s+am|we'?re|we\s+are|i\s+have\s+been|i'?ve\s+been|we\s+have\s+been|we'?ve\s+been)\s+"
    r"(?:now\s+|mostly\s+|actually\s+)?(?P<how>cycling|biking|walking|driving|running|scooting)\s+(?:back\s+)?"
    r"(?:to|into)\s+(?P<to>work|the\s+office|the\s+lab|school|uni|college|the\s+hospital)"
    r"(?P<route>\s+(?:along|via|through|by|past|over)\s+the\s+[\w-]+(?:\s+[\w-]+)?)?"
    r"(?:\s+(?P<cue>again|now|these\s+days)\b(?:\s+(?:again|now|these\s+days)\b)*"
    r"|\s+instead\s+of\s+(?:taking|getting|catching|using|driving|riding)?\s*(?:the\s+|my\s+|a\s+)?(?P<was>[\w-]+))"
    r"(?:\s+(?:this|in\s+the|for\s+the)\s+(?P<season>winter|summer|autumn|spring))?\s*[.!]*$", I)

_NOT_MINE = re.compile(r"\b(?:my|our|his|her|their)\s+(?:" + "|".join(sorted(lx.RELATIONS | {"friend"})) +
                       r")(?:['’]s)?\b", I)


def _clean(x: str) -> str:
    return tidy(re.sub(r"\s+(?:completely|entirely|altogether|for\s+good|now|again|too)$", "", x.strip(), flags=I))


def ended(c: str, dates: Dates) -> list[Statement] | None:
    """Invariants 377-384: an ending or a resumption said in new words; None when not said.
    Each comma-part of the clause is read on its own; a remark beside it ("my doctor agreed it
    was time", "the U-Bahn is too crowded") is no part of it."""
    whole = dates.text.strip().rstrip(".!")
    if _NOT_MINE.search(whole.split(",")[0]) and not re.match(r"^(?:my|the)\s+(?:doctor|gp|consultant)", whole, I):
        return None  # "my son's eczema has cleared up": someone else's
    if (back := _BACK_ON.match(whole)) is not None:
        # invariant 384: "I'm back on sertraline": the medicine taken again replaces the fact
        # that says it stopped ("No longer takes sertraline"); with none it is taken now
        x = _clean(back.group("x"))
        return [Statement(act="change", text=f"Takes {x} again", fact_type="constraint", previous=x,
                          valid_from=dates.valid_from, clause=c, rule="act:again")]
    pieces = [p.strip().rstrip(".!") for p in re.split(r"\s*[,;]\s*|\s+(?:and|so)\s+(?=(?:my|the)\s)", whole) if p.strip()]
    commute = _COMMUTE_AGAIN.match(whole) or next((m for p in pieces if (m := _COMMUTE_AGAIN.match(p))), None)
    if commute is not None:
        return _commute(commute, c)
    if (again := _AGAIN.match(whole)) is not None:
        return _again(again, c, dates)
    liked = _COME_ROUND.match(whole) or next((m for p in pieces if (m := _COME_ROUND.match(p))), None)
    if liked is not None:
        # invariant 380: a dislike on record ended; "Likes X" replaces only a dislike naming it
        x = _clean(re.sub(r"^(?:the|my)\s+", "", liked.group("x") or liked.group("y"), flags=I))
        if liked.group("y") and not re.match(r"^.(?-i:[A-Z])", x):
            x = x[:1].lower() + x[1:]  # "Olives have grown on me": capitalised only as said first
        if len(x.split()) <= 2 and not re.search(r"['’]|\b(?:it|that|this|them|idea|way|thought|plan|decision|view|"
                                                  r"views|opinion|fact|notion|thinking|point|side)\b", x, I):
            return [Statement(act="change", text=f"Likes {x}", fact_type="preference", previous=x,
                              valid_from=dates.valid_from, clause=c, rule="pref:come-round")]
    if _UNDONE.search(whole):
        return None  # "came off sertraline but I'm back on it": no ending that holds
    if _SWITCHED.search(whole):
        return None  # "came off X, the GP switched me to Y": a switch, read by things.possessions
    med = next((m for p in pieces if (m := _OFF_MED.match(p) or _NO_LONGER_ON.match(p) or _STOPPED_BY.search(p))),
               None)
    for t in pieces:
        found = _ended(t, c, dates, pieces, med)
        if found is not None:
            return found
    return None


# "..., Home Assistant backs up to the Synology NAS now": what does the job now, said with a
# subject of its own beside the ending, stays with it (invariant 379); "I'm ... now" does not
_NOW_BESIDE = re.compile(r"^(?!(?:i|i'm|im|we|we're|it|it's|that|this|they|there)\b)(?-i:[A-Z])[\w'’&+.-]*"
                         r"(?:\s+[\w'’&+.-]+){1,10}?\s+(?:now|instead|these\s+days)$", I)


def _again(again: re.Match, c: str, dates: Dates) -> list[Statement]:
    # invariant 380: "started drinking again, just a glass of wine with dinner"
    g = again.group("g").lower()
    what = _clean(again.group("what") or "")
    text = f"Is {g} again" + (f", {what}" if what else "")
    return [Statement(act="change", text=text, fact_type="preference", previous=g,
                      valid_from=dates.valid_from, clause=c, rule="act:again")]


def with_replacement(statements: list[Statement], message: str) -> list[Statement]:
    """Invariant 379: a stopped service or removed tool keeps what does the job now when the
    message says it beside the ending with a subject of its own ("We stopped the Google Drive
    backups, Home Assistant backs up to the Synology NAS now"), and nothing else read it."""
    ends = [st for st in statements if st.rule in ("end:stopped", "end:removed")]
    if len(ends) != 1:
        return statements
    pieces = [p.strip().rstrip(".!") for p in re.split(r"\s*[,;]\s*|(?<=[.!?])\s+", message) if p.strip()]
    beside = [p for p in pieces if _NOW_BESIDE.match(p) and (ends[0].previous or "") not in p
              and not any(p in st.clause for st in statements if st is not ends[0])]
    if len(beside) == 1:
        ends[0].text = f"{ends[0].text}; {tidy(beside[0])}"
    return statements


_UNDONE = re.compile(r"\b(?:back\s+on|restarted|started\s+(?:it|them)\s+again|went\s+back|didn'?t\s+last|"
                     r"only\s+for\s+a|for\s+(?:a|one|two|three)\s+(?:day|week|month)s?|came\s+back|returned)\b", I)


_SWITCHED = re.compile(r"\b(?:switched|moved|changed|put|started|trying)\s+me\s+(?:over\s+)?(?:from\s+[\w-]+\s+)?"
                       r"(?:on\s*to|to|on)\b|\binstead\b|\breplaced\b|\bswapped\b", I)


def _ended(t: str, c: str, dates: Dates, pieces: list[str], med: re.Match | None) -> list[Statement] | None:
    said: list[Statement] = []
    bp = next((m for p in pieces if (m := _BP_NORMAL.match(p))), None)
    if med:
        # invariant 377: "came off sertraline", "the GP stopped the ramipril": no longer taken
        x = _clean(re.sub(r"\s+" + lx.DOSE + r"$", "", med.group("x"), flags=I))
        if re.match(r"^(?:inhalers?|statins|steroids|antibiotics|painkillers|beta|blood\s+thinners|antihistamines|"
                    r"sleeping)\b", x, I):
            x = f"the {x}"  # a class of medicine keeps its article: "no longer takes the inhaler"
        text, names = f"No longer takes {x}", x
        gone = next((m for p in pieces if (m := _CLEARED_UP.match(p) or _OVER_IT.match(p))), None)
        if bp:  # "my blood pressure is back to normal, the GP stopped the ramipril": one change
            text = f"Blood pressure is back to normal and no longer takes {x}"
        elif gone:
            # "my asthma has gone, the GP took me off the inhaler": one change, ending the one
            # fact that names either (`ended_fact`)
            ill = tidy(gone.group("c")).lower()
            text, names = f"No longer has {ill} and no longer takes {x}", f"{ill}|{x}"
        said.append(Statement(act="change", text=text, fact_type="constraint", previous=names,
                              valid_from=dates.valid_from, clause=c, rule="end:medicine"))
        return said
    cond = _CLEARED_UP.match(t) or _OVER_IT.match(t)
    if cond:
        # invariant 378: "the eczema has cleared up", "I'm free of sciatica now"
        x = tidy(cond.group("c")).lower()
        a = article(x) if re.search(r"\s(?:allergy|intolerance)$", x) else ""
        return [Statement(act="change", text=f"No longer has {a}{x}", fact_type="constraint", previous=x,
                          valid_from=dates.valid_from, clause=c, rule="end:condition")]
    nomore = _NO_MORE.match(t)
    if nomore:
        x = tidy(nomore.group("x"))
        return [Statement(act="change", text=f"Has given up {x}", fact_type="preference", previous=x,
                          valid_from=dates.valid_from, clause=c, rule="end:habit")]
    regime = _REGIME_DONE.match(t)
    if regime:
        x = tidy(regime.group("x")).lower()
        return [Statement(act="change", text=f"Has finished {x}", fact_type="constraint", previous=x,
                          valid_from=dates.valid_from, clause=c, rule="end:condition")]
    if bp and _BP_NORMAL.match(t):
        return [Statement(act="change", text="Blood pressure is back to normal", fact_type="constraint",
                          previous="blood pressure", valid_from=dates.valid_from, clause=c, rule="end:condition")]
    tool = _REMOVED.match(t) or _TOOL_GONE.match(t)
    if tool:
        # invariant 379: "uninstalled AeroSpace", "the kettle flow is gone": no longer used
        x = _clean(tool.group("t") or tool.groupdict().get("n") or "")
        if not x or x.lower() in {"it", "them", "that", "this"}:
            return None
        if tool.groupdict().get("n") and (
                not re.match(r"^(?:uninstalled|deinstalled|deleted|removed)\b", re.sub(
                    r"^(?:(?:so|and|but|finally)\s+)?(?:(?:i|we)\s+(?:have\s+|'ve\s+|just\s+|finally\s+)*)?", "", t,
                    flags=I), I)
                or not _DEVICE_TAIL.fullmatch(tool.group("tail") or "")):
            # a bare name is an app only when uninstalled or deleted, from a device at most:
            # "deleted Tom from my contacts", "turned off Alexa for the night" end nothing
            return None
        account = bool(re.search(r"\b(?:account|profile)$", x, I))
        named = tool.groupdict().get("n")
        verb = "has" if account else "runs" if _RUN.search(x) else "uses"
        return [Statement(act="change", text=f"No longer {verb} "
                          f"{'' if named else 'the '}{x}", fact_type="preference", previous=x,
                          valid_from=dates.valid_from, clause=c, rule="end:removed")]
    we = _WE_STOPPED.match(t)
    if we and not (PLAN_EVENT.search(we.group("n")) or _PLAN_WORDS.search(we.group("n"))):
        # a trip, a booking or a party called off is a plan (invariant 237), never a service
        x = tidy(we.group("n"))
        # the service by its name, its capitalised words ("Gousto" of "Gousto boxes")
        name = " ".join(re.findall(r"(?-i:[A-Z0-9])[\w&'’+.-]*", x)) or x
        return [Statement(act="change", text=f"Has stopped the {x}", fact_type="world", previous=name,
                          valid_from=dates.valid_from, clause=c, rule="end:stopped")]
    return None


def _commute(m: re.Match, c: str) -> list[Statement]:
    # invariant 381: "I'm cycling to the office again this winter" replaces how the user
    # gets there (that season's when said)
    said_season = re.search(r"\b(?:this|in\s+the|in|for\s+the)\s+(?P<s>winter|summer|autumn|spring)\b", c, I)
    season = (m.group("season") or (said_season.group("s") if said_season else "")).lower()
    text = (f"{_HOW[m.group('how').lower()]} to {tidy(m.group('to')).lower()}{m.group('route') or ''}"
            + (f" in {season}" if season else ""))
    # "... instead of taking the tram": the commute naming the tram is the one replaced
    was = (m.group("was") or "").lower() or None
    return [Statement(act="change", text=text, fact_type="preference", slot="commute",
                      previous=season or was, clause=c, rule="act:commute-again")]


DISLIKE = re.compile(r"\b(?:dislikes?|hates?|can'?t\s+stand|doesn'?t\s+like|does\s+not\s+like|not\s+a\s+fan|"
                     r"avoids|won'?t\s+eat)\b", I)


def names_ended(previous: str, text: str) -> bool:
    """Invariant 382: the fact names what ended: every word of its name, or a word the lexicon
    gives for it; never a fact that already says it stopped. Pure."""
    from .matching import _names_it, terms

    # the name without the word for its kind ("Etsy candle shop" is "Sells candles on Etsy")
    want = terms(previous) - (terms(" ".join(_TOOL_WORDS)) - terms(" ".join(previous.split()[:1])))
    if re.search(r"\ballerg|\bintoleran", previous, I):
        # "the cat allergy has gone": only a fact of that allergy ("Is allergic to cats")
        want = terms(re.sub(r"\b(?:allerg\w*|intoleran\w*)", "", previous, flags=I))
        return bool(want) and want <= terms(text) and bool(re.search(r"allerg|intoleran", text, I))
    if re.match(r"^(?:no\s+longer|has\s+given\s+up|does\s+not|doesn'?t|stopped)\b", text, I):
        return False
    return bool(want) and (want <= terms(text) or (len(want) == 1 and _names_it(previous, text)))


def ended_fact(previous: str, old, hits):
    """Invariant 382: the one active fact an ending replaces: the only recalled active fact
    holding every word of a name ("asthma|inhaler": either), else the only one naming it
    (`names_ended`); None when none or several do, whatever `pick_old` chose."""
    from .matching import terms

    names = [n for n in previous.split("|") if n.strip()]
    naming = {h.id: h for h in hits if h.kind == "semantic" and h.state == "active"
              and any(names_ended(n, h.text) for n in names)}
    full = [h for h in naming.values() if any(terms(n) <= terms(h.text) for n in names)]
    if len(full) == 1:
        return full[0]
    if not full and len(naming) == 1:
        return next(iter(naming.values()))
    return None


def names_liked(previous: str, text: str) -> bool:
    """Invariant 380: the dislike on record names what is liked now. Pure."""
    from .matching import terms

    want = terms(previous)
    return bool(want) and want <= terms(text)
