"""Job changes said in one breath (invariant 357): "I've moved from payments to the fraud team"
is the team moved to, never "Moved away from Payments"; "I've left Skyscanner and moved to
Edinburgh, starting at Baillie Gifford" replaces the employer on record with the new one, never
"No longer works at Skyscanner" beside it. Pure: no I/O.
"""

from __future__ import annotations

import re

from .dates import Dates
from .model import Statement
from .phrases import I, tidy

_TEAM_MOVE = re.compile(r"^(?:(?:so|and|but|oh|also)\s+)*(?:i|we)\s+(?:have\s+|'ve\s+)?(?:just\s+|finally\s+|now\s+)*"
                        r"(?:moved|switched|transferred|gone)\s+(?:over\s+)?from\s+(?:the\s+|my\s+)?"
                        r"(?P<old>[a-z][\w&'’ -]{1,30}?)(?:\s+team)?\s+(?:to|into|onto)\s+(?:the\s+|a\s+)?"
                        r"(?P<team>[a-z][\w&'’ -]{1,30}?)\s+team\b(?P<rest>[^.;!?]*)", I)


def team_move(c: str, dates: Dates) -> list[Statement] | None:
    """"I've moved from payments to the fraud team, same company": the team moved to, which
    takes the old team's place in the job on record (invariant 220). Pure."""
    m = _TEAM_MOVE.match(dates.text.strip())
    if m is None or re.search(r"\b(?:football|rugby|cricket|netball|hockey|quiz|pub|sports?|"
                              r"running|rowing|swim\w*|a|an|new|another|my|our)\b", m.group("team"), I):
        return None
    return [Statement(act="change", text=f"Works on the {tidy(m.group('team'))} team", fact_type="identity",
                      slot="team", valid_from=dates.valid_from,
                      clause=c, rule="work:team")]


def left_for(kept: list[Statement]) -> list[Statement]:
    """"I've left X and moved to P, starting at Y": the new employer Y replaces X, and the
    sentence's move says X is no home; so "left X" is no statement of its own. Pure."""
    left = [st for st in kept if st.rule == "location:left" and st.previous]
    new = [st for st in kept if st.act == "assert" and st.slot == "employer"
           and re.match(r"^Works\s+at\s+\S", st.text or "")]
    homes = [st for st in kept if st is not (left[0] if left else None) and st.slot == "home"
             and re.match(r"^Lives\s+in\s+\S", st.text or "")]
    if len(left) != 1 or len(new) != 1 or not homes:
        return kept
    job = new[0]
    job.act, job.previous = "change", left[0].previous
    job.rule += "+left"
    return [st for st in kept if st is not left[0]]


# "we're moving to Denver", "I'm finally moving to Leeds": the move said with its place; "found
# a flat in Leeds, moving in March" says the place elsewhere and stays a plan
_MOVING_TO = re.compile(r"\b(?:i'?m|we'?re|i\s+am|we\s+are)\s+(?:\w+\s+)?moving\s+to\b", I)


def dated_move(statements: list[Statement], message: str) -> list[Statement]:
    """Invariant 358: "We're moving to Denver in March", said alone, is the home on record
    replaced from that date (the agent writes "Lives in Denver" from 1 March over the home it
    holds; with no home on record it stays a plan, invariant 139). A move beside another change
    in the same message ("left Siemens and we're moving to Graz"), or one that names its place
    elsewhere ("found a flat in Leeds, moving in March"), stays a plan. Pure."""
    if len(statements) == 1 and statements[0].rule == "location:plan" and statements[0].valid_from \
            and (statements[0].text or "").startswith("Moving to ") and _MOVING_TO.search(message):
        statements[0].rule += "+only"
        return statements
    plans = [st for st in statements if st.rule == "location:plan"]
    frm = _MOVING_FROM.search(message)
    for st in plans if len(plans) == 1 and frm else []:
        # Invariant 401: "Moving from Leith to Portobello on 15 January" names the home it
        # leaves: the move replaces that home from its date, whatever else was said beside it
        if st.valid_from and (st.text or "").startswith("Moving to ") and frm:
            st.rule += "+only"
            st.previous = frm.group("x")
    return statements


_MOVING_FROM = re.compile(r"\bmoving\s+(?:house\s+)?from\s+(?P<x>(?-i:[A-Z])[\w'’-]*(?:\s+(?-i:[A-Z])[\w'’-]*)?)\s+to\b", I)


# Invariant 359: a time word typed in a hurry is still a date ("moved to brightn last wek")
_TIME_TYPOS = ((re.compile(r"\b(last|next|this)\s+(?:wek|weeek|wk|wee|weak)\b", I), r"\1 week"),
               (re.compile(r"\b(last|next|this)\s+(?:mnth|mth|monht|moth|motnh)\b", I), r"\1 month"),
               (re.compile(r"\b(last|next|this)\s+(?:yr|yeat|yaer)\b", I), r"\1 year"),
               (re.compile(r"\b(?:yesterdy|yesturday|yesteday|yestreday|yday|yest)\b", I), "yesterday"))


def time_typos(text: str) -> str:
    """The message with a misspelt time word after last/next/this, or "yesterday" misspelt, put
    right; every other word as written. Pure."""
    for pat, right in _TIME_TYPOS:
        text = pat.sub(right, text)
    return text


_RETRAIN = re.compile(r"(?:^|,\s*)(?:(?:and\s+)?then\s+|after\s+that\s+)?(?:i'?m|i\s+am|i'?ll\s+be|i\s+will\s+be)\s+"
                      r"(?:re-?training|training)\s+(?:to\s+be\s+|as\s+)(?:a|an)\s+(?P<r>[a-z][\w -]{2,30}?)"
                      r"(?:\s+(?:from|in|at)\s+[^,.;!?]+)?\s*[.!]*$", I)


def retraining(c: str, dates: Dates) -> list[Statement] | None:
    """Invariant 357: "my last day is 18 December, then I'm retraining as a nurse": the role the
    user leaves the job for replaces the job on record. Pure."""
    m = _RETRAIN.search(dates.text.strip())
    if m is None:
        return None
    role = tidy(m.group("r"))
    art = "an" if role[:1].lower() in "aeiou" else "a"
    return [Statement(act="change", text=f"Is retraining as {art} {role}", fact_type="identity",
                      slot="job", clause=c, rule="work:retraining")]


def retrained(statements: list[Statement]) -> list[Statement]:
    """Beside a retraining, the last day at the old job is when it ends, not a fact replacing
    the job: one change of job is kept (invariant 357). Pure."""
    if not any(st.rule == "work:retraining" for st in statements):
        return statements
    return [st for st in statements if st.slot != "noun:last day"]


_MOVED_UP = re.compile(r"\b(moved|moving|relocated)\s+(?:(?:up|down|over|out|across)\s+)?to\s+the\s+"
                       r"(?=(?-i:[A-Z])[\w'’-]+\s+(?-i:[A-Z]))", I)


def moved_up(text: str) -> str:
    """Invariant 358: "Moved up to the Sunshine Coast" is a move to the region named by its
    capitals ("Lives in Sunshine Coast"); "moved to the senior team" is left as said. Pure."""
    return _MOVED_UP.sub(r"\1 to ", text)


_SEPARATING = re.compile(r"\b(we|(?-i:[A-Z])[\w'’-]+\s+and\s+i|i\s+and\s+(?-i:[A-Z])[\w'’-]+)(?:\s+are|'re|’re)\s+"
                         r"(?:now\s+)?(?:separating|splitting\s+up|getting\s+(?:a\s+)?divorced?|divorcing)\b", I)


def separating(text: str) -> str:
    """Invariant 357: "Claire and I are separating", "we're getting divorced": the marriage on
    record ends now, read as "Claire and I have separated" (invariant 272). Pure."""
    return _SEPARATING.sub(r"\1 have separated", text)


_START_AT = re.compile(r"\bi\s+(?:start|begin)\s+(?:work\s+|my\s+new\s+job\s+)?at\s+(?=(?-i:[A-Z])[\w&'’.-]*"
                       r"(?:\s+(?-i:[A-Z])[\w&'’.-]*)*\s+(?:in|on|next|from|this|as)\s)", I)


def start_at(text: str) -> str:
    """Invariant 357: "I start at KPMG in January" is the new employer said ahead, read as "I'm
    starting at KPMG in January": a name after "at", then a date or "as a" ("we start at
    Heathrow then fly to Doha" is no job). Pure."""
    return _START_AT.sub("I'm starting at ", text)


_FOR_THE_JOB = re.compile(r"\b(?P<move>(?:moved|moving|relocated|relocating)\s+(?:back\s+)?to\s+(?-i:[A-Z])[^,;.!?]*?)"
                          r"\s+(?:for|because\s+of)\s+(?:the|a|my|our)\s+(?:new\s+)?(?:job|role|post|position)"
                          r"(?:\s+(?:at|with)\s+(?P<e>(?-i:[A-Z])[\w&'’.-]*(?:\s+(?-i:[A-Z])[\w&'’.-]*)*))?"
                          r"(?=\s*(?:[,;.!?]|$))", I)
_FOR_WORK = re.compile(r"\b(?P<move>(?:moved|moving|relocated|relocating)\s+(?:back\s+)?to\s+(?-i:[A-Z])[^,;.!?]*?)"
                       r"\s+for\s+work(?=\s*(?:[,;.!?]|$))", I)


def moved_for_job(text: str) -> str:
    """Invariant 398: "I'm moving to Lyon in January for the new job at Sanofi" is a move and a
    new employer, read as two sentences ("… to Lyon in January. I've got a new job at Sanofi");
    "for work" or "for the new job" with no name is the reason only, dropped. Only the user's
    own job: "for my husband's job" is left as said. Pure."""
    text = _FOR_THE_JOB.sub(lambda m: m.group("move") + (f". I've got a new job at {m.group('e')}"
                                                         if m.group("e") else ""), text)
    return _FOR_WORK.sub(lambda m: m.group("move"), text)
