"""Statements about the user: relations, where they live, work, health and diet, preferences,
identity, plans. Each handler reads one clause and returns statements, or None when it does not
apply ([] when it applies and there is nothing to keep)."""

from __future__ import annotations

import re
from datetime import date

from . import lexicon as lx
from .dates import Dates
from .model import Statement
from .people import a_name
from .phrases import (
    CAP_PLACE,
    IM,
    NAME,
    PLACE,
    REL,
    SUBJ_I,
    UPPER,
    I,
    article,
    cap,
    is_role,
    obj_phrase,
    place,
    third_person,
    tidy,
)

_ADV = r"(?:(?:just|finally|recently|officially|sadly|only|also)\s+)*"
_EVENTS = (
    # (pattern over what is said about the relative, template, rule)
    (r"^(?:has\s+|have\s+)?" + _ADV + r"(?:got|gotten)\s+(?P<e>married|engaged|divorced)"
     r"(?:\s+to\s+(?P<to>(?-i:[^\W\d_a-z])[\w'-]+))?\b", "{who} got {e}{to}", "married"),
    (r"^(?:is|are|'s)\s+" + _ADV + r"getting\s+(?P<e>married|divorced)"
     r"(?:\s+to\s+(?P<to>(?-i:[^\W\d_a-z])[\w'-]+))?\b", "{who} is getting {e}{to}", "married"),
    (r"^(?:is|are|'s)\s+" + _ADV + r"(?P<e>engaged|married|divorced|separated)\b(?!\s+to\s+(?-i:[a-z]))",
     "{who} is {e}", "married"),
    (r"^(?:is|'s)\s+" + _ADV + r"(?:now\s+)?pregnant\b", "{who} is pregnant", "pregnant"),
    (r"^(?:is|'s)\s+" + _ADV + r"expecting(?:\s+(?:a\s+baby|twins|(?:their|her|our)\s+\w+\s+(?:child|baby)))?"
     r"\s*$", "{who} is expecting a baby", "pregnant"),
    (r"^(?:has\s+|have\s+)?" + _ADV + r"retired\b", "{who} retired", "retired"),
    (r"^(?:has\s+|have\s+)?" + _ADV + r"(?:died|passed\s+away)\b", "{who} died", "died"),
    (r"^(?:was|were)\s+" + _ADV + r"born\b", "{who} was born", "born"),
    (r"^(?:and\s+(?:his|her|their)\s+[\w-]+\s+)?(?:has\s+|have\s+)?" + _ADV +
     r"(?:had|welcomed)\s+(?:a\s+|(?:her|his|their)\s+)?(?:(?:baby|little|new)\s+)?(?P<e>baby|boy|girl|son|daughter|twins)"
     r"(?:\s+(?P<g>boy|girl))?\b(?:,?\s+(?:called|named)\s+(?P<n>(?-i:[^\W\d_a-z])[\w'’-]*))?",
     "{who} had {g}{n}", "baby"),
    (r"^(?:has\s+)?" + _ADV + r"(?:got|landed|started)\s+(?:a\s+)?(?:new\s+)?(?:job|role|position)\s+"
     r"(?:at|with)\s+(?P<x>(?-i:[^\W\d_a-z])[\w&'’.-]*(?:\s+(?-i:[^\W\d_a-z])[\w&'’.-]*){0,2})",
     "{who} works at{x}", "job"),
    (r"^(?:has\s+)?" + _ADV + r"turned\s+(?P<n>\d{1,3})\b", "{who} turned {n}", "age"),
    # "my daughter Isla got into Edinburgh uni": a place at a school (invariant 165)
    (r"^(?:has\s+)?" + _ADV + r"(?:got\s+(?:a\s+place\s+)?(?:into|in\s+at|at)|was\s+accepted\s+(?:into|at|to|by)|"
     r"has\s+been\s+accepted\s+(?:into|at|to|by))\s+(?P<x>(?:the\s+)?(?-i:[^\W\d_a-z])[\w'’.-]*(?:\s+[\w'’.-]+){0,3}?"
     r"\s+(?:uni|university|college|school|academy|conservatoire))\b", "{who} got into {x}", "school"),
    (r"^(?P<e>starts?|started|is\s+starting|begins?|began)\s+(?P<s>school|nursery|primary\s+school|"
     r"secondary\s+school|reception|kindergarten|university|uni|college)\b"
     r"(?P<x>(?:\s+(?:in|at)\s+(?-i:[^\W\d_a-z])[^,.;!?]*)?)", "{who} {e} {s}{x}", "school"),
    # "our twins start at the Kita in Prenzlauer Berg", "my son starts at Oakwood Primary":
    # a school named after "at" (invariant 269)
    (r"^(?P<e>starts?|started|is\s+starting|are\s+starting|begins?|began)\s+at\s+(?P<x>(?:the\s+|a\s+)?"
     r"(?:(?-i:[^\W\d_a-z])[\w'’.-]*|kita|nursery|daycare|day\s+care|preschool|pre-school|playgroup|creche|"
     r"crèche|school|primary|secondary|sixth\s+form)(?:\s+[^,.;!?]*?)?)(?=\s*(?:[,.;!?]|$))",
     "{who} {e} at {x}", "school-at"),
)


_CHILDREN = frozenset("son daughter kids children child twins stepson stepdaughter".split())
_SCHOOL_WORD = re.compile(r"\b(?:school|primary|secondary|academy|kita|nursery|college|uni|university|"
                          r"kindergarten|daycare|preschool|pre-school|playgroup|sixth\s+form|reception|gymnasium)\b", I)
# "... on 4 January": when, never where (invariant 269)
_DATE_TAIL = re.compile(r"\s+(?:on|from)\s+(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?(?:\s+of)?\s+(?:jan|feb|mar|apr|may|jun|"
                        r"jul|aug|sep|oct|nov|dec)[a-z]*\.?(?:\s+\d{4})?$|\s+(?:this|last|next)\s+(?:term|semester|"
                        r"year|month|week)$", I)


def family_event(who: str, rest: str) -> Statement | None:
    """A life event of a relative, dated by the words around it ("my brother Jonas got married
    last weekend", "my wife Priya is pregnant", "my daughter starts school in September").
    Invariant 156: a fact about the relation, never about the user."""
    for pat, template, rule in _EVENTS:
        m = re.match(pat, rest, I)
        if not m:
            continue
        g = m.groupdict()
        verb = (g.get("e") or "").lower()
        if rule in ("school", "school-at"):
            verb = {"start": "starts", "begin": "starts", "begins": "starts", "began": "started",
                    "is starting": "starts"}.get(re.sub(r"\s+", " ", verb), verb)
        if "{x}" in template and "{s}" not in template and rule == "school":
            text = template.format(who=who, x=tidy(g.get("x") or ""))
            return Statement(act="assert", text=" ".join(text.split()), fact_type="identity",
                             clause=rest, rule=f"relation:event:{rule}")
        if rule == "school-at":
            x = _DATE_TAIL.sub("", tidy(g.get("x") or "")).strip()
            child = who.split()[0].lower() in _CHILDREN
            if not x or not (child or _SCHOOL_WORD.search(x)):
                continue  # "my wife starts at the Royal Free": a job, not a school
            if who.split()[0].lower() in {"twins", "kids", "children"}:
                verb = {"starts": "start"}.get(verb, verb)
            text = template.format(who=who, e=verb, x=x)
            return Statement(act="assert", text=" ".join(text.split()), fact_type="identity",
                             clause=rest, rule="relation:event:school")
        text = template.format(who=who, e=verb if rule != "baby" else "",
                               to=f" to {g['to']}" if g.get("to") else "",
                               g={"twins": "twins", "son": "a son", "daughter": "a daughter",
                                  "boy": "a baby boy", "girl": "a baby girl"}.get(
                                   (g.get("g") or verb).lower(), "a baby"),
                               n=(" called " + g["n"] if rule == "baby" and g.get("n") else g.get("n") or ""),
                               s=(g.get("s") or "").lower(), x=tidy(g.get("x") or "") and
                               " " + tidy(g.get("x") or ""))
        return Statement(act="assert", text=" ".join(text.split()), fact_type="identity",
                         clause=rest, rule=f"relation:event:{rule}")
    return None


_REL_IS = re.compile(r"^((?i:my|our)\s+(?i:" + REL + r"))['’]s\s+(?=(?i:called|named|moving|studying|working|"
                     r"living|retired|pregnant|engaged|married|divorced|expecting|allergic|starting|"
                     r"getting|doing|training|at|in|now|still|a|an)\b)")
_REL_HAS = re.compile(r"^((?i:my|our)\s+(?i:" + REL + r"))['’]s\s+(?=(?i:got|been|moved|had|just|finally|gone|"
                      r"left|started|joined|become)\b)")


def relation(c: str) -> list[Statement] | None:
    # "my husband's called Dan", "my son's got a peanut allergy": the "'s" is "is" or "has",
    # not a possessive (invariant 165)
    c = _REL_HAS.sub(r"\1 has ", _REL_IS.sub(r"\1 is ", c))
    m = re.match(r"^(?i:my|our)\s+(?P<rel>(?i:" + REL + r"))(?P<poss>['’]s)?(?:,?\s+" + NAME +
                 r"(?=[\s,]))?\s*,?\s*(?P<rest>.+)$", c)
    if not m:
        return None
    rel, name = m.group("rel").lower(), m.group("name")
    if name and name.split()[0].lower() in {"is", "was", "lives", "moved", "works", "has",
                                            "just", "got", "and", "who"}:
        rest = f"{name} {m.group('rest')}"
        name = None
    else:
        rest = m.group("rest")
    rest = tidy(rest)
    plural = rel in {"parents", "kids", "children", "in-laws"}
    lives = "live" if plural else "lives"
    if rel in lx.NAMED_ONLY_RELATIONS | {"friend"} and not name:
        return []  # "my friend lives in Bristol": no one to remember it about
    who = f"{cap(rel)} {name}" if name else cap(rel)
    slot = f"rel:{(name or rel).lower()}"
    # Invariant 162: where an unnamed workmate lives or moved is passing news ("my boss moved
    # to Berlin"); a relative's home is kept (invariant 156).
    workmate = rel in {"boss", "manager", "lead"} and not name
    if m.group("poss"):  # "my mum's birthday is 3 May"
        mm = re.match(r"^(?P<n>[\w ]+?)\s+(?:is|are)\s+(?P<v>.+)$", rest, I)
        if not mm:
            return None
        if mm.group("n").split()[-1].lower() in lx.RELATIONS | lx.NAMED_ONLY_RELATIONS | {
                "friend", "friends", "mate", "mates"}:
            return []  # "my brother's girlfriend is pregnant": news of someone further away
        return [Statement(act="assert", text=f"{cap(rel)}'s {mm.group('n')} is {tidy(mm.group('v'))}",
                          fact_type="identity", slot=f"rel:{rel}:{mm.group('n').lower()}",
                          clause=c, rule="relation:poss")]
    mm = re.match(r"^(?:has\s+|have\s+)?(?:just\s+|finally\s+|recently\s+)*(?:moved|relocated)\s+"
                  # the place moved from never runs over "to" ("from Kochi to Bangalore to be
                  # closer ..." is Kochi, then Bangalore: invariant 253)
                  r"(?:from\s+(?P<from>(?P<f>[^\W\d_][\w'’.-]*(?:\s+(?!to\b)[^\W\d_][\w'’.-]*){0,3}?))\s+)?"
                  r"(?:back\s+|down\s+|up\s+|over\s+|out\s+)?to\s+" + PLACE, rest, I)
    if mm and place(mm.group("p")) and workmate:
        return []
    if mm and place(mm.group("p")):
        prev = " ".join(filter(None, [name or rel, place(mm.group("f")) if mm.group("f") else None]))
        return [Statement(act="change", text=f"{who} {lives} in {place(mm.group('p'))}",
                          fact_type="identity", slot=slot, previous=prev, clause=c,
                          rule="relation:moved")]
    event = family_event(who, rest)
    if event is not None:
        event.slot, event.clause = f"{slot}:{event.rule.split(':')[-1]}", c
        if event.rule.endswith(":job"):
            # a relative's new job replaces the job on record about them, like a move
            event.act, event.slot, event.previous = "change", slot, name or rel
        return [event]
    mm = re.match(r"^(?:now\s+|still\s+)?(?:lives?|is\s+living|is\s+based)\s+in\s+" + PLACE, rest, I)
    if mm and place(mm.group("p")) and workmate:
        return []
    if mm and place(mm.group("p")):
        return [Statement(act="assert", text=f"{who} {lives} in {place(mm.group('p'))}",
                          fact_type="identity", slot=slot, clause=c, rule="relation:lives")]
    mm = re.match(r"^(?:is\s+)?(?:now\s+)?(?:called|named)\s+" + NAME.replace("?P<name>", "?P<n>"),
                  rest, I)
    if mm:
        return [Statement(act="assert", text=f"{cap(rel)} is called {mm.group('n')}",
                          fact_type="identity", slot=f"noun:{rel}", clause=c, rule="relation:name")]
    mm = re.match(r"^(?:is|'s)\s+(?P<now>now\s+)?" + NAME.replace("?P<name>", "?P<n>") +
                  r"\s*(?:,|$)", rest)
    if mm and rel in lx.SLOT_NOUNS | {"manager", "lead", "boss"} and a_name(mm.group("n")):
        left = re.search(r",\s*" + NAME.replace("?P<name>", "?P<o>") + r"\s+(?:left|quit|moved)",
                         c)
        return [Statement(act="change" if (mm.group("now") or left) else "assert",
                          text=f"{cap(rel)} is {mm.group('n')}", fact_type="identity",
                          slot=f"noun:{rel}", previous=left.group("o") if left else None,
                          clause=c, rule="relation:is-name")]
    mm = re.match(r"^(?:is|has|'s)\s+(?:now\s+|just\s+)?(?P<n>\d{1,3})(?:\s+years?(?:\s+old)?)?(?=\s*(?:[,.;!?]|$|and\b))",
                  rest, I)
    if mm and not workmate and rel not in lx.NAMED_ONLY_RELATIONS | {"friend"} and not plural:
        # "my son has 5 years", "my daughter is 7": a relative's age (invariant 165)
        return [Statement(act="assert", text=f"{who} is {mm.group('n')} years old", fact_type="identity",
                          slot=f"{slot}:age", clause=c, rule="relation:age")]
    mm = re.match(r"^(?:has|'s\s+got|has\s+got|has\s+been\s+diagnosed\s+with|was\s+diagnosed\s+with|lives\s+with)\s+"
                  r"(?P<v>dementia|alzheimer'?s|parkinson'?s|cancer|ms|copd|" + "|".join(
                      re.escape(x) for x in sorted(lx.CONDITIONS, key=len, reverse=True)) + r")\b", rest, I)
    if mm and not workmate and rel not in lx.NAMED_ONLY_RELATIONS | {"friend"}:
        # "my mum has dementia": a relative's lasting condition (invariant 165)
        return [Statement(act="assert", text=f"{who} has {mm.group('v')}", fact_type="identity",
                          clause=c, rule="relation:condition")]
    mm = (re.match(r"^(?:is|was)\s+(?:(?:severely|very|also)\s+)?allergic\s+to\s+(?P<v>.+)$", rest, I)
          or re.match(r"^(?:has|have)\s+(?:got\s+)?(?:a|an)\s+(?:severe\s+|mild\s+|bad\s+)?(?P<v>[\w -]+?)\s+"
                      r"allergy\b", rest, I))
    if mm:
        return [Statement(act="assert", text=f"{who} is allergic to {obj_phrase(mm.group('v'))}",
                          fact_type="world", clause=c, rule="relation:allergy")]
    # "my daughter is studying in Manchester", "my dad is moving into a care home in January":
    # what a relative does for a long while, or is about to (invariant 165)
    mm = re.match(r"^(?:is|are)\s+(?:now\s+|currently\s+|still\s+)?(?P<v>(?:studying|training|working|"
                  r"living|teaching|moving|doing\s+(?:a|an|her|his|their)\s+(?:degree|phd|masters|"
                  r"master's|apprenticeship|a-levels|gcses))\b[^,.;!?]*)$", rest, I)
    if mm and not workmate and rel not in lx.NAMED_ONLY_RELATIONS | {"friend"} and not re.search(
            r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening|week)|from\s+home\s+today|late|"
            r"overtime|on\s+it|hard|away)\b", mm.group("v"), I):
        verb = mm.group("v").split()[0].lower()
        if len(mm.group("v").split()) > 1 and (verb != "moving" or re.match(
                r"^moving\s+(?:in)?to\s+", mm.group("v"), I)):
            return [Statement(act="assert", text=f"{who} {'are' if plural else 'is'} {tidy(mm.group('v'))}",
                              fact_type="identity", slot=f"{slot}:{verb}", clause=c,
                              rule="relation:progressive")]
    if re.match(r"^(?:is|was|has|had|'s)\s+(?:been\s+)?(?:away|busy|ill|sick|tired|here|there|"
                r"out|off|home|late|back|on\s+holiday|coming|visiting|staying)\b", rest, I):
        return []  # passing news about someone, nothing durable
    if _OPINION.match(rest):
        # Invariant 198: what someone else says, believes, recommends or wants ("my colleague
        # keeps saying rents will double", "my friend swears by Helix") is their view, not a
        # fact about them or the user.
        return []
    mm = re.match(r"^(?P<verb>[a-z]+s|is|has|started|joined|became|graduated)\s+(?P<v>.+)$", rest)
    unique = rel in {"partner", "wife", "husband", "girlfriend", "boyfriend", "fiance", "fiancee",
                     "mum", "mom", "mother", "dad", "father", "parents"}
    if mm and mm.group("verb") == "is" and not (re.match(r"(?:a|an|the|now\s+a|now\s+an)\s", mm.group("v"), I)
                                                or is_role(mm.group("v"))):
        return []  # "Dave is obsessed with triathlons": a passing remark about someone
    if mm and (name or (unique and re.match(r"(?:lives|works|is|teaches|studies|runs|owns)$",
                                             mm.group("verb")))
               or (mm.group("verb") == "is" and is_role(re.split(r"\s+(?:in|at|for)\s+",
                                                                mm.group("v"))[0]))):
        return [Statement(act="assert", text=f"{who} {mm.group('verb')} {third_person(tidy(mm.group('v')))}",
                          fact_type="identity", slot=slot, clause=c, rule="relation:verb")]
    return []


_WORK_CUE = re.compile(r"\b(?:joined|job|jobs|work|working|works|company|employer|notice|"
                       r"promoted|hired|role|team|redundant|start(?:ed|ing)\s+at)\b", I)


# A relative's speech, opinion or wish (invariant 198): reported, never a fact.
_OPINION = re.compile(r"^(?:(?:always|still|really|just|now|also|constantly)\s+)?(?:keeps?\s+(?:on\s+)?"
                      r"(?:saying|telling|going\s+on|asking|talking|insisting|banging\s+on)|says|said|"
                      r"swears?\s+by|thinks|thought|reckons|believes|claims|insists|argues|wants|"
                      r"wanted|hopes|wishes|recommends|recommended|suggests|suggested|told\s+me|tells\s+me|"
                      r"warns|warned|raves?\s+about|is\s+convinced|is\s+sure|is\s+always\s+(?:saying|"
                      r"telling|on\s+about))\b", I)


def _cased(text: str) -> bool:
    """Typed with capitals beyond the first letter and the pronoun "I": its names are capitalised."""
    rest = re.sub(r"^\W*\w|\bI(?=\b|')", "", text)
    return any(ch.isupper() for ch in rest)


def location(c: str, today: date, dates: Dates) -> list[Statement] | None:
    t = dates.text
    left = None
    m = re.search(r"\b" + SUBJ_I + r"\s+(?:have\s+|'ve\s+|just\s+|finally\s+)*(?:left|moved\s+"
                  r"(?:away\s+)?from|moved\s+out\s+of|no\s+longer\s+live\s+in)\s+" + PLACE, t, I)
    if m and m.group(0).lower().split()[-2:-1] != ["from"] and _WORK_CUE.search(t):
        m = None  # "I left Deloitte and joined KPMG": an employer, not a place
    if m:
        left = place(m.group("p"))
    # only the user's own move: "Amara moved from Leeds to York" and "my dotfiles moved from
    # chezmoi to Nix" leave no home of the user's (invariant 286)
    m_from = re.search(r"\b" + SUBJ_I + r"\s+(?:have\s+|'ve\s+|just\s+|finally\s+|recently\s+|all\s+)*"
                       r"moved\s+from\s+" + PLACE.replace("?P<p>", "?P<f>") + r"\s+to\b", t, I)
    if m_from:
        left = place(m_from.group("f"))
    patterns = [
        r"(?:^|\b" + SUBJ_I + r"\s+(?:have\s+|'ve\s+|just\s+|finally\s+|recently\s+|all\s+)*|\b"
        + IM + r"\s+(?:just\s+|now\s+|finally\s+|soon\s+)?)"
        r"(?:moved|relocated|moving|relocating)\s+(?:from\s+\S+(?:\s+\S+)?\s+)?(?:back\s+)?"
        r"(?:over\s+|down\s+|up\s+|out\s+)?(?:to|into)\s+(?:(?:a|an|the|our|my)\s+(?:new\s+|little\s+|"
        r"small\s+|tiny\s+|big\s+)*(?:flat|house|place|home|apartment|cottage|bungalow|studio)\s+"
        r"(?:of\s+(?:my|our)\s+own\s+)?in\s+)?" + PLACE,
        r"\b" + SUBJ_I + r"\s+(?:now\s+|currently\s+|still\s+|actually\s+)?(?:live|reside|stay|have\s+"
        r"lived|'ve\s+lived|have\s+been\s+living)\s+(?:with\s+(?:my|our)\s+[\w-]+\s+)?(?:in\s+(?:a|an|the|our|my)\s+"
        r"(?:\w+\s+)?(?:flat|house|apartment|cottage|bungalow|studio|terrace|semi|houseboat|room)\s+)?in\s+" + PLACE,
        r"\b" + IM + r"\s+(?:now\s+|currently\s+|still\s+)?(?:living|based|settled|residing|renting)\s+"
        r"(?:in|out\s+of)\s+" + PLACE,
        r"\bhome\s+is\s+(?:now\s+)?(?:(?:in|at)\s+)?" + PLACE,
        r"\b" + SUBJ_I + r"\s+(?:now\s+)?call\s+" + PLACE.replace("{0,3}", "{0,2}") + r"\s+home\b",
        # "we've been in Bristol since March": only with a since/for (not "been in Paris once")
        (r"\b" + SUBJ_I + r"(?:'ve|\s+have)\s+been\s+(?:living\s+|based\s+)?in\s+" + PLACE
         if re.search(r"\bsince\b|\bfor\s+(?:\d+|a|two|three|four|five|six|many|several|ten)\s+"
                      r"(?:years?|months?)\b", c, I) else r"(?!x)x"),
        (r"(?:^|,\s*)(?:(?:i'?m|we'?re|i\s+am|we\s+are)\s+)?(?:now\s+)?in\s+(?P<p>" + UPPER +
         r"[\w'’.-]*(?:\s+" + UPPER + r"[\w'’.-]*){0,2})\s+now\b"),
        # "now in Neukölln", "now I'm in Lisbon", "we're in Philly now"
        (r"^(?:now\s+(?:(?:i'?m|we'?re|i\s+am|we\s+are)\s+)?(?:back\s+)?in|(?:i'?m|we'?re|i\s+am|we\s+are)\s+"
         r"now\s+(?:back\s+)?in)\s+(?P<p>" + UPPER + r"[\w'’.-]*(?:\s+" + UPPER + r"[\w'’.-]*){0,2})\b"),
        # "Our apartment is in Brooklyn", "we moved in together in Islington"
        r"^(?:my|our)\s+(?:new\s+)?(?:flat|apartment|house|home|place|condo)\s+is\s+(?:now\s+)?in\s+" + PLACE,
        r"\b" + SUBJ_I + r"\s+(?:just\s+|finally\s+)?moved\s+in\s+together\s+in\s+" + PLACE,
        r"\b" + IM + r"\s+(?:now\s+)?back\s+in\s+" + PLACE + r"(?=\s*(?:now\b|for\s+good|permanently|[,.;!?]|$))",
    ]
    m = re.search(r"\b" + SUBJ_I + r"\s+(?:now\s+)?live\s+at\s+(?P<a>\d+\w?\s+[^.;!?]+)", t, I)
    if m:
        return [Statement(act="change" if re.search(r"\bnow\b|\bmoved\b", t, I) else "assert",
                          text=f"Lives at {tidy(m.group('a'))}", fact_type="identity", slot="home",
                          valid_from=dates.valid_from, clause=c, rule="location:address")]
    lived = re.search(r"\b(?:lived|living|been\s+living|been\s+based)\b[^,.;!?]*\bfor\s+(?:a|an|one|two|three|four|"
                      r"five|six|ten|many|several|\d+)\s+(?:\w+\s+)?(?:years?|months?)\b", t, I)
    if not lived and re.search(r"\b(?:for\s+(?:work|a|the|business|two|three|\d+)|on\s+holiday|visiting|"
                 r"trip|conference|this\s+week|for\s+the\s+weekend|until|till)\b", t, I):
        # A visit, not a home ("I'm in Paris for work"); a move stays a move ("moved to Zürich
        # for the new job").
        moving = re.search(r"\b(?:moved|relocated)\b", t, I) and not re.search(
            r"\b(?:for\s+(?:a|two|three|\d+)\s+(?:days?|weeks?|months?)|until|till)\b", t, I)
        patterns = patterns[:1] if (left or moving) else []
    for p in patterns:
        m = re.search(p, t, 0 if "[A-Z" in p[-80:] else I)
        if not m:
            continue
        where = place(m.group("p"))
        if not where or where.lower() == (left or "").lower():
            continue
        if m.group("p")[:1].islower() and _cased(c):
            continue  # "moved to day shifts": written with capitals, a place has one (inv. 287)
        future = bool(re.search(r"\b(?:moving|relocating|will|going\s+to|next)\b", t, I)) or (
            dates.valid_from is not None and dates.valid_from > today)
        if future:
            return [Statement(act="assert", text=f"Moving to {where}", fact_type="world",
                              valid_from=dates.valid_from, clause=c, rule="location:plan")]
        moved = left is not None or bool(re.search(r"\b(?:moved|relocated|now|left)\b", t, I))
        return [Statement(act="change" if moved else "assert", text=f"Lives in {where}",
                          fact_type="identity", slot="home", previous=left,
                          valid_from=dates.valid_from, clause=c, rule="location")]
    m = re.search(r"\b(?:i'?m|i\s+am|i\s+come)\s+(?:originally\s+)?from\s+" + PLACE + r"|\bi\s+grew\s+up\s+"
                  r"in\s+" + PLACE.replace("?P<p>", "?P<g>"), t, I)
    if m and not left:
        where = place(m.group("p") or m.group("g"))
        if where:
            return [Statement(act="assert", text=f"Is originally from {where}", fact_type="identity",
                              slot="origin", clause=c, rule="location:origin")]
    m = re.search(r"\bi\s+(?:was\s+born|grew\s+up)\s+in\s+" + PLACE, t, I)
    if m and not left and place(m.group("p")):
        return [Statement(act="assert", text=f"Is originally from {place(m.group('p'))}",
                          fact_type="identity", slot="origin", clause=c, rule="location:origin")]
    if left:
        return [Statement(act="change", text=f"Moved away from {left}", fact_type="identity",
                          slot="home", previous=left, valid_from=dates.valid_from, clause=c,
                          rule="location:left")]
    return None


def work(c: str, dates: Dates) -> list[Statement] | None:
    t = dates.text
    # "I moved to the payments team", "I'm on the data team now" (invariant 244)
    m = re.search(r"\b(?:i\s+(?:have\s+|'ve\s+|just\s+|finally\s+)*(?P<chg>moved|switched|transferred|joined|"
                  r"changed)\s+(?:over\s+)?(?:from\s+(?:the\s+|a\s+|our\s+)?(?:\w[\w&'’ -]{0,39}?)\s+team\s+)?"
                  # "moved from the platform team to the data team": the team moved to (inv. 311)
                  r"(?:to|into)?\s*|(?:i'?m|i\s+am)\s+(?P<now>now\s+)?(?:on|in)\s+)"
                  r"(?:the\s+|a\s+|our\s+)?(?P<team>(?!(?:my|new|a|an|the|our|another|different|from)\b)\w[\w&'’ -]{0,39}?)\s+team\b(?!\s+(?:lunch|"
                  r"dinner|drinks|meeting|call|event|day|building|offsite|chat))", t, I)
    if m and not re.search(r"\b(?:football|rugby|cricket|netball|hockey|quiz|pub|sports?|volleyball|"
                           r"basketball|running|rowing|swim(?:ming)?|to|into|a|an|new|another|"
                           r"different|my|our|other)\b", m.group("team"), I):
        team = tidy(m.group("team"))
        changed = bool(m.group("chg") or m.group("now") or re.search(r"\bnow\b", c, I))
        return [Statement(act="change" if changed else "assert", text=f"Works on the {team} team",
                          fact_type="identity", slot="team", valid_from=dates.valid_from, clause=c,
                          rule="work:team")]
    org = r"(?P<org>[A-Z][\w&.'’-]*(?:\s+(?:[A-Z][\w&.'’-]*|&|of|and))*)"
    m = (re.search(r"\b(?:" + org + r"|(?i:they|we|the\s+company|my\s+(?:boss|manager|company)))"
                   r"\s+(?:have\s+|has\s+)?(?:just\s+|finally\s+)?promoted\s+me\s*(?:to\s+|[:,–-]\s*)"
                   r"(?:a\s+|an\s+)?(?P<role>[\w -]+?)(?=\s*(?:[,.;!?]|$|\s+at\b|\s+in\b|\s+on\b|\s+for\b|"
                   r"\s+from\b))", t)
         # "Gemma got promoted to director": a bare "got" only with the subject left out
         # (invariant 261: someone named opening the clause keeps their own promotion)
         or re.search(r"(?:\b(?:i|i'?ve|i\s+have|i\s+was|i\s+got)|^(?:just\s+)?got)\s+(?:just\s+)?"
                      r"(?:been\s+)?(?:promoted|made\s+up)\s+to\s+(?:a\s+|an\s+)?(?P<role>[\w -]+?)"
                      # "promoted to ward sister on the children's ward", "got made up to team lead
                      # at the warehouse": the role, before where it is (invariant 392)
                      r"(?=\s*(?:[,.;!?]|$|\s+at\b|\s+in\b|\s+on\s+(?:the|my|our)\b|\s+this\b|\s+last\b|"
                      r"\s+today\b|\s+yesterday\b))", t, I)
         # Invariant 300: "got the staff engineer promotion at Helio", "landed a senior nurse
         # promotion": the promotion named by its role; "Nordwind made me head of service for
         # Iberia": an employer that made the user a role (only a role noun: "made me dinner" is none)
         or re.search(r"^(?:i\s+)?(?:have\s+|'ve\s+|just\s+|finally\s+)*(?:got|landed|was\s+given|earned|won)\s+"
                      r"(?:the|a|an|my|that)\s+(?P<role>(?:(?!(?:for|with|my|the|to|of|and|a|an)\b)[\w-]+\s+){0,3}?"
                      r"(?:" + _ROLE_NOUN + r"))\s+promotion\b(?:\s+at\s+" + org + r")?", t, I)
         or re.search(r"\b(?:" + org + r"|(?i:they|the\s+company|my\s+(?:boss|manager|company)))\s+"
                      r"(?:have\s+|has\s+)?(?:just\s+|finally\s+|officially\s+)?made\s+me\s+(?:a\s+|an\s+|the\s+)?"
                      r"(?P<role>(?:(?!(?:for|with|my|the|to|of|and|a|an|dinner|lunch|breakfast|tea|coffee|cry|"
                      r"laugh|feel|wait|redundant)\b)[\w-]+\s+){0,3}?(?:" + _ROLE_NOUN + r")(?:\s+(?:of|for)\s+"
                      r"[\w -]+?)?)(?=\s*(?:[,.;!?]|$|\s+(?:at|in|on|today|yesterday|this|last|from)\b))", t)
         # "Made staff engineer today", "got made head of field service": a promotion said with
         # "made", only to a role (invariant 253; "made dinner" is none)
         or re.search(r"^(?:i\s+)?(?:was\s+|got\s+|have\s+been\s+|'ve\s+been\s+|just\s+|finally\s+|officially\s+)*"
                      r"made\s+(?:a\s+|an\s+|the\s+)?(?P<role>(?:(?!(?:for|with|my|the|to|of|and|a|an|our|his|her|their|"
                      r"some|friends?)\b)[\w-]+\s+){0,3}?(?:" + _ROLE_NOUN + r")"
                      r"(?:\s+of\s+[\w -]+?)?)(?=\s*(?:[,.;!?]|$|\s+(?:at|in|on|today|yesterday|this|last)\b))",
                      t, I))
    if m:
        role = tidy(m.group("role"))
        at = (m.groupdict().get("org") or "").rstrip(".") or None  # the sentence's full stop
        at = None if at and at.lower() in {"they", "we"} else at
        text = f"Works as {article(role)}{role}" + (f" at {at}" if at else "")
        return [Statement(act="change", text=text, fact_type="identity", slot="job",
                          previous=None, valid_from=dates.valid_from, clause=c, rule="work:promoted")]
    m = (re.search(r"\bi\s+(?:now\s+|currently\s+)?work\s+as\s+(?:a|an)\s+(?P<role>[\w -]+?)"
                   r"(?:\s+(?:at|for|in)\s+(?P<at>[^,.;!?]+))?(?=\s*(?:[,.;!?]|$))", t, I)
         or re.search(r"\b(?:i'?m|i\s+am|i'?ve\s+become|i\s+became|i\s+have\s+become|i'?m\s+now|"
                      r"became)\s+(?:now\s+)?(?:(?P<art>a|an|the)\s+)?(?P<role>[\w -]+?)"
                      r"(?:\s+(?:at|for|in)\s+(?P<at>[^,.;!?]+?))?(?=\s*(?:[,.;!?]|$|\s+now\b|"
                      r"\s+(?:from|since|originally)\b))",
                      t, I)
         or re.search(r"\b(?:i'?ve\s+been|i\s+have\s+been|i\s+(?:\w+\s+)?(?:started|got|took|landed|"
                      r"accepted)\s+(?:a\s+|an\s+)?(?:new\s+)?(?:job|role|position|post)\s+as|"
                      r"(?:they|we|the\s+company|my\s+\w+)\s+(?:have\s+|has\s+|just\s+)*(?:made|appointed|"
                      r"named)\s+me)\s+(?:(?P<art>a|an|the)\s+)?(?P<role>[\w -]+?)"
                      r"(?:\s+(?:at|for|in)\s+(?P<at>[^,.;!?]+?))?(?=\s*(?:[,.;!?]|$|\s+now\b|\s+for\s+"
                      r"(?:\d+|a|two|three|four|five|ten|many|several)\b|\s+since\b))", t, I)
         or re.search(r"\bmy\s+(?:new\s+)?(?:job|role|title|position|job\s+title)\s+is\s+(?:now\s+)?"
                      r"(?:a\s+|an\s+)?(?P<role>[\w -]+?)(?:\s+(?:at|for)\s+(?P<at>[^,.;!?]+))?"
                      r"(?=\s*(?:[,.;!?]|$))", t, I))
    if not m:
        # "I work for the NHS as a physio", "work at the uni as a lecturer" (invariant 166)
        m = re.search(r"\b(?:i|we)\s+(?:now\s+|currently\s+)?work\s+(?:at|for|in)\s+(?P<at>(?:the\s+)?[^,.;!?]+?)"
                      r"\s+as\s+(?P<art>a|an)\s+(?P<role>[\w -]+?)(?=\s*(?:[,.;!?]|$))", t, I)
    if m and is_role(m.group("role")) and not re.match(r"^(?:bit|little|big|huge|fan)\b",
                                                       m.group("role"), I) and not (
            # "I'm registered with a GP": with a provider, no job; "a registered nurse" is one (inv. 304)
            re.match(r"^(?:registered|signed|enrolled|booked|covered|insured)\s+(?:with|at|on|for|up)\b",
                     m.group("role"), I)) and not re.search(
            # invariant 427: "I'm starting physio on the 14th" is something begun, no job
            r"\b(?:never|not|going|gonna|want|wanted|to|be|like|such|kind|sort|no|terrible|bad|doing|job|as|"
            r"starting|beginning|taking|having|getting|trying|learning|seeing|"
            r"awful|rubbish|crap|shit|useless|worst|best)\b", m.group("role"), I):
        role = tidy(re.sub(r"^(?:now|also)\s+", "", m.group("role"), flags=I))
        at = m.groupdict().get("at")
        if role.split()[-1].lower() in {"student", "pupil", "undergrad", "postgrad", "undergraduate",
                                        "postgraduate", "intern", "trainee", "apprentice", "volunteer"}:
            # "I'm a student at Leeds Uni": what they are there, not a job title (invariant 166)
            text = f"Is {article(role)}{role}" + (f" at {tidy(at)}" if at else "")
            return [Statement(act="assert", text=text, fact_type="identity", slot="job",
                              valid_from=dates.valid_from, clause=c, rule="work:student")]
        if at and re.match(r"^(?:\d+|a|an|one|two|three|four|five|six|ten|many|several|the\s+past)\s+"
                           r"(?:\w+\s+)?(?:years?|months?|weeks?|days?)\b", at, I):
            at = None  # "a teacher for ten years": how long, not where
        at = tidy(re.sub(r"^(?:the\s+)", "the ", at)) if at else None
        kin = re.match(r"^(?:my|our)\s+(?P<k>[\w'’-]+)(?P<rest>.*)$", at or "", I)
        if kin and kin.group("k").lower() in lx.RELATIONS:
            # Invariant 366: "a carer for my mum" is who they care for, never an employer
            # ("Works as a carer at my mum"): "Is a carer for their mum"
            return [Statement(act="assert", text=f"Is {article(role)}{role} for their "
                              f"{kin.group('k')}{kin.group('rest')}", fact_type="identity",
                              valid_from=dates.valid_from, clause=c, rule="work:role-for-kin")]
        text = f"Works as {article(role)}{role}" + (f" at {at}" if at else "")
        changed = bool(re.search(r"\b(?:now|became|become|promoted|new|started|from)\b", c, I))
        return [Statement(act="change" if changed else "assert", text=text, fact_type="identity",
                          slot="job", valid_from=dates.valid_from, clause=c, rule="work:role")]
    m = re.search(r"\b(?:i|i\s+have|i'?ve|i\s+just|i'?m\s+now|i\s+am\s+now)\s+(?:just\s+|finally\s+)?"
                  r"(?:retired|am\s+retired|'m\s+retired)\b", t, I) or re.search(
        r"\b(?:i'?m|i\s+am)\s+(?:now\s+)?retired\b", t, I)
    if m:
        return [Statement(act="change", text="Is retired", fact_type="identity", slot="job",
                          valid_from=dates.valid_from, clause=c, rule="work:retired")]
    m = re.search(r"\b(?:i\s+(?:have\s+|'ve\s+)?|i\s+was\s+|i\s+got\s+|^)(?:just\s+)?(?:been\s+|got\s+)?(?:made\s+redundant|"
                  r"laid\s+off|let\s+go)\b(?!\s+(?:from\s+)?(?:a|my)\s+(?:previous|old|last))", t, I)
    if m and not re.search(r"\b(?:years?|ages)\s+ago\b", c, I):
        # "I've just been made redundant": the job on record ended (invariant 166)
        return [Statement(act="change", text="Was made redundant", fact_type="identity", slot="job",
                          valid_from=dates.valid_from, clause=c, rule="work:redundant")]
    m = re.search(r"\b(?:i'?m|i\s+am)\s+(?:now\s+|currently\s+)?(?P<s>unemployed|between\s+jobs|out\s+of\s+work|"
                  r"self-employed|freelance|a\s+freelancer|a\s+stay-at-home\s+(?:mum|mom|dad|parent)|"
                  r"on\s+(?:maternity|paternity|parental)\s+leave|a\s+full-time\s+(?:student|carer|parent))\b", t, I)
    if m:
        state = re.sub(r"^a\s+", "", m.group("s").lower())
        art = "a " if m.group("s").lower().startswith("a ") else ""
        return [Statement(act="change" if re.search(r"\bnow\b|made\s+redundant|lost\s+my\s+job", c, I)
                          else "assert", text=f"Is {art}{state}", fact_type="identity",
                          slot=None if "leave" in state else "job",  # a leave keeps the job
                          valid_from=dates.valid_from, valid_to=dates.valid_to, clause=c,
                          rule="work:state")]
    left = (re.search(r"\b(?i:i\s+(?:have\s+|'ve\s+|just\s+|finally\s+)*(?:left|quit)(?:\s+my\s+(?:job|role|"
                      r"position)\s+(?:at|with))?)\s+(?i:the\s+)?" + org.replace("?P<org>", "?P<left>"), t)
            # "quit my job at acme": after "my job at", a lower-case word is the employer too
            or re.search(r"\b(?i:i\s+(?:have\s+|'ve\s+|just\s+|finally\s+)*(?:left|quit)\s+my\s+(?:job|role|"
                         r"position)\s+(?:at|with))\s+(?i:the\s+)?(?P<left>[^\W\d_][\w&'’-]*)(?=\s*(?:[,.;!?]|$))", t)
            # "handed in my notice at Acme": leaving it (invariant 166)
            or re.search(r"\b(?i:i\s+(?:have\s+|'ve\s+|just\s+|finally\s+)*(?:handed|gave|put)\s+in\s+my\s+"
                         r"(?:notice|resignation)\s+(?:at|to|with))\s+(?i:the\s+)?"
                         + org.replace("?P<org>", "?P<left>"), t))
    m = (re.search(r"\b(?i:(?:i|we)\s+(?:now\s+|currently\s+)?work\s+(?:at|for|with)(?:\s+the)?|(?:i'?m|i\s+am)\s+"
                   r"(?:now\s+|currently\s+)?working\s+(?:at|for|with))\s+" + org, t)
         or re.search(r"(?i:^(?:and\s+)?(?:a\s+|my\s+)?new\s+job\s+(?:at|with)(?:\s+the)?)\s+" + org, t)
         or re.search(r"(?i:\b(?:i'?m|i\s+am)\s+(?:now\s+)?starting\s+(?:a\s+new\s+job\s+|work\s+)?(?:at|with))\s+"
                      + org, t)
         or re.search(r"(?i:\bi\s+(?:have\s+|'ve\s+|just\s+)*(?:been\s+|got\s+)?(?:hired|taken\s+on|"
                      r"employed|recruited)\s+by)\s+" + org, t)
         or (re.search(r"(?i:\b(?:i'?m|i\s+am)\s+(?:now\s+)?at)\s+" + org + r"(?i:\s+now\b|\s*$)", t)
             if _WORK_CUE.search(c) else None)
         or re.search(r"(?i:\b(?:i\s+(?:have\s+|'ve\s+|just\s+)*|and\s+|^)(?:joined|started\s+(?:a\s+"
                      r"new\s+job\s+)?at|started\s+working\s+(?:at|for)|got\s+a\s+(?:new\s+)?job\s+(?:at|with)"
                      r"|went\s+to\s+work\s+(?:at|for))(?:\s+(?:a|an)\s+(?:\w+\s+)?(?:startup|start-up|company|"
                      r"firm|charity|agency|business|school|hospital|bank)\s+(?:called|named))?(?:\s+the)?)\s+"
                      + org, t))
    if not m and left:
        # "I left Deloitte, joined KPMG": what they joined after leaving
        m = re.search(r"(?i:(?:joined|started\s+(?:a\s+new\s+job\s+)?at|got\s+a\s+(?:new\s+)?job\s+(?:at|with)|"
                      r"went\s+to\s+work\s+(?:at|for)|moved\s+to)(?:\s+(?:a|an)\s+(?:\w+\s+)?(?:startup|"
                      r"start-up|company|firm|charity|agency|business)\s+(?:called|named))?(?:\s+the)?)\s+"
                      + org, t[left.end():])
    gone = re.search(r"\b(?i:i\s+no\s+longer\s+work\s+(?:at|for|with))\s+" + org.replace("?P<org>", "?P<g>"), t)
    if not gone and left and re.search(r"\b(?:job|role|position|notice|resignation)\b", left.group(0), I):
        gone = re.search(r"(?P<g>.+)", left.group("left"))
    if not m and gone:
        # "I don't work at Asda anymore": the employer ended (merged with a new one, if said)
        who = tidy(gone.group("g"))
        return [Statement(act="change", text=f"No longer works at {who}", fact_type="identity",
                          slot="employer", previous=who, valid_from=dates.valid_from, clause=c,
                          rule="work:gone")]
    if m and m.group("org").lower() not in {"i", "the", "a"}:
        employer = tidy(m.group("org"))
        changed = bool(left) or bool(re.search(r"\b(?:now|joined|started|new|moved|got\s+a\s+job)\b",
                                               c, I))
        # "joined Monzo as a backend engineer": the role said after the employer stays (inv. 240)
        as_role = re.match(r"^\s+as\s+(?P<a>an?|the)\s+(?P<r>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)"
                        r"(?=\s*(?:[,.;!?]|$|\s+(?:since|from|in|on|at|starting|last|this|next|and|but)\b))",
                        t[m.end():], I)
        head = as_role.group("r").split()[-1].lower() if as_role else ""
        if as_role and not (head in lx.ROLE_WORDS or re.search(r"(?:er|or|ist|ian|ant|ent|eer|ee|ive|"
                                                           r"ess|man|woman|person|lead|head)$", head)):
            as_role = None  # "as a rule": no role
        if as_role and as_role.group("r").split()[0].lower() in {"result", "rule", "matter", "whole", "favour",
                                                            "favor", "treat", "bonus", "joke", "gift", "way"}:
            as_role = None  # "as a result of the merger": no role
        text = f"Works as {as_role.group('a').lower()} {as_role.group('r')} at {employer}" if as_role \
            else f"Works at {employer}"
        return [Statement(act="change" if changed else "assert", text=text,
                          fact_type="identity", slot="employer",
                          previous=tidy(left.group("left")) if left else None,
                          valid_from=dates.valid_from, clause=c, rule="work:employer")]
    return None


_DIET = "|".join(re.escape(d) for d in lx.DIETS)
_COND = "|".join(re.escape(d) for d in sorted(lx.CONDITIONS, key=len, reverse=True))


# Invariant 250: a diagnosis said without "I" ("Got diagnosed with a nickel allergy"), or about
# a pet or person named ("Biscuit turns out to be allergic to chicken", "Mochi has been diagnosed
# with kidney disease"); "I might have coeliac disease" is hedged (the caller lowers it to review).
_DIAGNOSED = (r"(?:(?:i\s+)?(?:(?:have|'ve)\s+)?(?:just\s+)?(?:got|been|was|have\s+been|'ve\s+been|"
              r"finally\s+got|was\s+finally)\s+)?diagnosed\s+with")
_WHO = r"(?P<who>(?-i:[^\W\d_a-z])[\w'’-]+)"
_TRAIL_HEALTH = re.compile(r"\s*(?:,|;|\.|!|\?|\s(?:so|and|but|because|since|which|after|from|by)\s|"
                           # "diagnosed with glaucoma on 3 November", "... at 41": the day or the
                           # age said is its date, no part of the value (invariant 414)
                           r"\s(?:on|in)\s+(?:the\s+)?(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|"
                           r"jul|aug|sep|oct|nov|dec)|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s+\d|"
                           r"(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\d{4}\b)|\sat\s+(?:the\s+age\s+of\s+)?\d{1,3}\b|"
                           r"\s(?:the|my|our)\s+(?:vet|doctor|gp|allergist|consultant)\b|"
                           r"[^\w\s'’-]).*$", I)


def _ailment(v: str) -> str | None:
    v = _TRAIL_HEALTH.sub("", v).strip()
    v = re.sub(r"^(?:a|an|some|mild|severe|early|chronic|stage\s+\w+)\s+", "", v, flags=I).strip()
    if not v or len(v.split()) > 4 or v.lower() in {"it", "that", "this", "something", "nothing"}:
        return None
    return v


def _diagnosis(t: str, c: str, dates: Dates) -> list[Statement] | None:
    m = re.match(r"^" + _DIAGNOSED + r"\s+(?:a\s+|an\s+)?(?:severe\s+|mild\s+)?(?P<v>[\w -]+?)\s+allergy\b", t, I)
    if m and (v := _ailment(m.group("v"))):
        return [Statement(act="assert", text=f"Allergic to {v.lower()}", fact_type="constraint",
                          slot=f"allergy:{v.lower()}", confidence=0.95, valid_from=dates.valid_from,
                          clause=c, rule="health:allergy+diagnosed")]
    m = re.match(r"^" + _DIAGNOSED + r"\s+(?P<v>[^,.;!?]+)", t, I)
    if m and (v := _ailment(m.group("v"))):
        return [Statement(act="assert", text=f"Has {v}", fact_type="constraint", confidence=0.9,
                          valid_from=dates.valid_from, clause=c, rule="health:condition+diagnosed")]
    m = re.match(r"^(?:i\s+)?(?:might|may|could)\s+have\s+(?P<v>[\w -]+?\s+(?:disease|syndrome|deficiency|"
                 r"intolerance)|" + _COND + r")\b", t, I)
    if m and (v := _ailment(m.group("v"))):
        return [Statement(act="assert", text=f"Has {v}", fact_type="constraint", confidence=0.55,
                          clause=c, rule="health:condition+hedged")]
    m = re.match(r"^(?:i\s*)?(?P<h>(?:might|may|could)\s+be|am|'m|have\s+become|'ve\s+become|became)\s+"
                 r"(?:also\s+|now\s+|mildly\s+|slightly\s+)?(?P<v>[\w-]+)\s+intolerant\b", t, I)
    if m and m.group("v").lower() not in {"very", "so", "quite", "a", "bit", "really", "lactose"}:
        hedged = m.group("h").lower().split()[0] in {"might", "may", "could"}
        return [Statement(act="assert", text=f"Is {m.group('v').lower()} intolerant", fact_type="constraint",
                          confidence=0.55 if hedged else 0.9, valid_from=dates.valid_from, clause=c,
                          rule="health:intolerant")]
    m = (re.match(r"^" + _WHO + r"\s+(?:is|'s|turns?\s+out\s+to\s+be|turned\s+out\s+to\s+be|has\s+turned\s+out\s+"
                  r"to\s+be|is\s+now|has\s+become)\s+(?:also\s+|now\s+|severely\s+|very\s+|mildly\s+)*"
                  r"allergic\s+to\s+(?P<v>[^,.;!?]+)", t)
         or re.match(r"^" + _WHO + r"\s+(?:has\s+been|was|got|'s\s+been|has\s+just\s+been)\s+diagnosed\s+with\s+"
                     r"(?P<d>[^,.;!?]+)", t))
    if m and m.group("who").lower() not in _NOT_WHO and (v := _ailment(m.groupdict().get("v") or m.group("d"))):
        text = (f"{m.group('who')} is allergic to {v.lower()}" if m.groupdict().get("v")
                else f"{m.group('who')} has {v}")
        return [Statement(act="assert", text=text, fact_type="world", confidence=0.9,
                          valid_from=dates.valid_from, clause=c, rule="health:named")]
    return None


_NOT_WHO = frozenset("""i it he she they we you this that there everyone everybody nobody someone
    somebody who what which doctor gp vet nurse allergist consultant""".split())


def health(c: str, dates: Dates) -> list[Statement] | None:
    t = dates.text
    found = _diagnosis(t.strip(), c, dates)
    if found:
        return found
    m = (re.search(r"\b(?:i'?m|i\s+am|i'?ve\s+become|i\s+became|i'?ve\s+been|i\s+have\s+been|"
                   r"i\s+(?:might|may|could)\s+be|i\s+think\s+i'?m)\s+(?:maybe\s+|probably\s+|"
                   r"possibly\s+|also\s+|now\s+)?(?:severely\s+|very\s+|badly\s+|slightly\s+|"
                   r"mildly\s+|really\s+)?allergic\s+to\s+(?P<v>[^,.;!?]+)", t, I)
         or re.search(r"\bi\s+have\s+(?:a|an)\s+(?:severe\s+|mild\s+)?(?P<v>[\w -]+?)\s+allergy\b", t, I))
    if m:
        allergen = obj_phrase(m.group("v"))
        if allergen.lower() in {"it", "that", "this", "anything", "nothing"}:
            return None
        return [Statement(act="assert", text=f"Allergic to {allergen.lower()}", fact_type="constraint",
                          slot=f"allergy:{allergen.lower()}", confidence=0.95, clause=c,
                          rule="health:allergy")]
    m = re.search(r"\b(?:i'?m|i\s+am)\s+no\s+longer\s+allergic\s+to\s+(?P<v>[^,.;!?]+)", t, I)
    if m:
        allergen = obj_phrase(m.group("v")).lower()
        return [Statement(act="change", text=f"No longer allergic to {allergen}",
                          fact_type="constraint", previous=f"allergic {allergen}",
                          valid_from=dates.valid_from, clause=c, rule="health:allergy-gone")]
    m = re.search(r"\b(?:i'?m|i\s+am|we'?re|we\s+are|i'?ve\s+been|i\s+have\s+been|i'?ve\s+become|"
                  r"i\s+became|i\s+went|i\s+think\s+i'?m|i'?ve\s+gone|i\s+have\s+gone|"
                  r"(?:i|we)\s+(?:have\s+)?(?:just\s+)?(?:turned|gone|went))\s+(?P<no>no\s+longer\s+|"
                  r"not\s+)?(?:now\s+|fully\s+|also\s+|again\s+|back\s+to\s+being\s+)?(?:a\s+)?(?P<d>" + _DIET +
                  r")\b", t, I)
    if m and re.search(r"\bfor\s+(?:a|one|two|three|four|five|six|\d+|a\s+few|a\s+couple\s+of)\s+"
                       r"(?:days?|weeks?|months?|while|bit)\b|\bfor\s+(?:lent|january|veganuary)\b",
                       t, I) and re.search(r"\b(?:went|was|were|did|tried)\b", t, I):
        return []  # "I went vegan for a month last year": a spell that ended, not the diet now
    if m and not (m.group("no") or "").lower().startswith("not"):
        diet = " ".join(m.group("d").lower().replace("-", " ").split())
        diet = {"gluten free": "gluten-free", "dairy free": "dairy-free",
                "lactose intolerant": "lactose intolerant", "celiac": "coeliac"}.get(diet, diet)
        if m.group("no"):
            return [Statement(act="change", text=f"Is no longer {diet}", fact_type="constraint",
                              slot="diet", previous=diet, valid_from=dates.valid_from, clause=c,
                              rule="health:diet-gone")]
        changed = bool(re.search(r"\b(?:now|again|since|became|become|went|gone|these\s+days)\b",
                                 c, I)) or dates.valid_from is not None
        if diet not in lx.MEAT_DIETS:
            # Lactose intolerant, gluten-free, halal...: a constraint beside the diet, never a
            # replacement for "pescatarian" (a wrong supersession loses a true fact).
            return [Statement(act="assert", text=f"Is {diet}", fact_type="constraint",
                              valid_from=dates.valid_from, confidence=0.9, clause=c,
                              rule="health:diet-constraint")]
        return [Statement(act="change" if changed else "assert", text=f"Is {diet}",
                          fact_type="constraint", slot="diet", valid_from=dates.valid_from,
                          confidence=0.9, clause=c, rule="health:diet")]
    m = re.search(r"\b(?:i'?m|i\s+am|we'?re)\s+(?:now\s+)?on\s+(?:a\s+|the\s+)?(?P<d>" + _DIET +
                  r")\s+diet\b", t, I)
    if m:
        diet = m.group("d").lower()
        meat = diet in lx.MEAT_DIETS
        return [Statement(act="change" if meat and re.search(r"\bnow\b", c, I) else "assert",
                          text=f"Is {diet}", fact_type="constraint", slot="diet" if meat else None,
                          valid_from=dates.valid_from, clause=c, rule="health:on-diet")]
    m = re.search(r"^(?:i|we)\s+(?:have\s+|'ve\s+)?(?:just\s+|finally\s+)*had\s+(?:a\s+|our\s+)?(?:(?:first|second|third|"
                  r"fourth)\s+)?(?:little\s+|"
                  r"baby\s+|beautiful\s+|healthy\s+)*(?P<b>boy|girl|baby|twins|son|daughter)\b", t, I)
    if m:
        b = m.group("b").lower()
        what = {"twins": "twins", "son": "a son", "daughter": "a daughter", "baby": "a baby"}.get(
            b, f"a baby {b}")
        # "we had a baby boy, Tomás", "... a baby called Tomás": the child's name is kept
        named = re.match(r"^\s*(?:,\s*|\s+(?:called|named)\s+)(?P<n>(?-i:[^\W\d_a-z])[\w'’-]+)\b", t[m.end():])
        if named and b != "twins":
            what += f" called {named.group('n')}"
        return [Statement(act="assert", text=f"Had {what}", fact_type="identity",
                          valid_from=dates.valid_from, clause=c, rule="health:baby")]
    m = (re.search(r"\b(?:i'?m|i\s+am)\s+(?:now\s+)?(?:(?:\d+|a\s+few|\w+)\s+(?:months?|weeks?)\s+)?"
                   r"(?P<p>pregnant)\b", t, I)
         or re.search(r"^(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:now\s+)?(?P<h>having)\s+a\s+baby\b(?!\s+shower)", t, I)
         or re.search(r"\b(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:now\s+)?expecting\s+(?:a\s+baby|our\s+"
                      r"(?P<n>first|second|third|fourth)\s+(?:child|baby|kid)|twins|a\s+(?:baby\s+)?(?P<g>boy|girl))\b", t, I))
    if m:
        gd = m.groupdict()
        text = "Is pregnant" if m.group(0).lower().endswith("pregnant") else (
            f"Is expecting {'their ' + gd['n'] + ' child' if gd.get('n') else 'a baby'}"
            + (f" {gd['g'].lower()}" if gd.get("g") else ""))
        due = dates.valid_from if dates.valid_from and not re.search(r"\bsince\b", c, I) else None
        # "expecting a baby in April": the due date, not when it began (invariant 156)
        return [Statement(act="assert", text=text + (f", due in {due:%B %Y}" if due else ""),
                          fact_type="constraint" if text == "Is pregnant" else "identity",
                          valid_from=None if due else dates.valid_from, clause=c, rule="health:pregnant")]
    m = re.search(r"\bi\s+(?:have\s+|'ve\s+|just\s+)*(?:quit|gave\s+up|given\s+up|cut\s+out|stopped)\s+"
                  r"(?P<v>meat|fish|seafood|dairy|eggs|gluten|sugar|pork|beef|chicken|red\s+meat)\b"
                  r"(?![^,.;!?]*\bfor\s+(?:lent|january|a\s+(?:week|month|bit|while)))", t, I)
    if m:
        food = m.group("v").lower()
        return [Statement(act="change", text=f"No longer eats {food}", fact_type="constraint",
                          slot="diet", previous=food, valid_from=dates.valid_from, clause=c,
                          rule="health:gave-up-food")]
    m = re.search(r"\bi\s+(?:no\s+longer|stopped)\s+eat(?:ing)?\s+(?P<v>[^,.;!?]+)", t, I)
    if m:
        # A stopped habit: it replaces what they ate before (merged with a new diet, if any).
        food = obj_phrase(m.group("v")).lower()
        return [Statement(act="change", text=f"No longer eats {food}", fact_type="constraint",
                          slot="diet", previous=food, valid_from=dates.valid_from, clause=c,
                          rule="health:no-longer-eat")]
    m = re.search(r"\b(?:i'?m|i\s+am)\s+(?:now\s+|completely\s+)?off\s+(?P<v>dairy|meat|gluten|sugar|carbs|bread|"
                  r"alcohol|booze|the\s+booze|caffeine|coffee)\b(?!\s+(?:for|until|till)\b)", t, I)
    if m and not dates.found:  # "I'm off dairy now": a rule of theirs (invariant 166)
        v = re.sub(r"^the\s+", "", m.group("v").lower())
        drink = v in {"alcohol", "booze", "caffeine", "coffee"}
        return [Statement(act="change" if re.search(r"\bnow\b", c, I) else "assert",
                          text=f"Does not {'drink' if drink else 'eat'} {v}", fact_type="constraint",
                          slot=f"{'drink' if drink else 'food'}:{v}", confidence=0.9, clause=c,
                          rule="health:off")]
    m = re.search(r"\bi\s+(?:don'?t|do\s+not|never|can'?t|cannot)\s+drink\s+(?P<v>alcohol|booze|caffeine|coffee|"
                  r"tea|milk|beer|wine|spirits|fizzy\s+drinks)\b(?!\s+(?:today|tonight|this|at\s+the))", t, I)
    if m and not dates.found:  # "I don't drink alcohol": a rule of theirs (invariant 166)
        return [Statement(act="assert", text=f"Does not drink {m.group('v').lower()}", fact_type="constraint",
                          slot=f"drink:{m.group('v').lower()}", confidence=0.9, clause=c, rule="health:no-drink")]
    m = re.search(r"\bi\s+(?:can'?t|cannot)\s+have\s+(?P<v>dairy|gluten|nuts|lactose|caffeine|alcohol|sugar|wheat|"
                  r"soy|soya|shellfish|eggs|meat|fish|garlic|onions?)\b", t, I) or re.search(
        r"\bi\s+(?:can'?t|cannot|don'?t|do\s+not|never|no\s+longer)\s+eat\s+(?P<v>[^,.;!?]+)", t, I)
    if m and re.match(r"(?:that|this|it|those|these|them|any|anything|much|here)\b", m.group("v").strip(), I):
        return []  # "As a vegan I can't eat that": this dish, not a rule (invariant 162)
    if m:
        food = obj_phrase(m.group("v")).lower()
        return [Statement(act="assert", text=f"Does not eat {food}", fact_type="constraint",
                          slot=f"food:{food}", confidence=0.9, clause=c, rule="health:no-eat")]
    m = (re.search(r"\bi\s+(?:have\s+|'ve\s+)?(?:started|began|begun)\s+eating\s+(?P<v>[^,.;!?]+)", t, I)
         or re.search(r"\b(?:i\s+(?:do\s+)?eat|i'?m\s+eating|i\s+am\s+eating|(?:gone|went|going|i'?m)\s+back\s+"
                      r"to\s+eating)\s+(?:again\s+)?"
                      r"(?P<v>meat|fish|seafood|dairy|eggs|chicken|pork|beef|cheese)"
                      r"\b(?P<rest>[^,.;!?]*)", t, I))
    if m:
        food = obj_phrase(m.group("v")).lower()
        changed = bool(re.search(r"\b(?:now|again|started|began|begun|these\s+days|back)\b", c, I))
        is_diet = food in {"meat", "fish", "seafood", "dairy", "eggs", "chicken", "pork", "beef",
                           "cheese"}
        return [Statement(act="change" if changed else "assert", text=f"Eats {food}",
                          fact_type="constraint", slot="diet" if is_diet else None,
                          valid_from=dates.valid_from, clause=c, rule="health:eats")]
    m = (re.search(r"\b(?:i'?m|i\s+am)\s+no\s+longer\s+(?P<c>diabetic|asthmatic|anaemic|anemic|epileptic|"
                   r"pre-?diabetic)\b", t, I)
         or re.search(r"\bmy\s+(?P<c>" + _COND + r")(?:'s|\s+is|\s+has)\s+(?:(?:completely|totally|finally)\s+)?"
                      r"(?:gone|cured|cleared\s+up|in\s+remission|resolved)\b", t, I))
    if m:
        cond = {"diabetic": "diabetes", "pre-diabetic": "diabetes", "prediabetic": "diabetes",
                "asthmatic": "asthma", "anaemic": "anaemia", "anemic": "anemia",
                "epileptic": "epilepsy"}.get(m.group("c").lower(), m.group("c").lower())
        return [Statement(act="change", text=f"No longer has {cond}", fact_type="constraint",
                          previous=cond, valid_from=dates.valid_from, clause=c,
                          rule="health:condition-gone")]
    m = re.search(r"\b(?:i'?m|i\s+am)\s+(?:a\s+)?(?:(?P<t1>type\s+[12])\s+)?diabetic(?:\s+(?P<t2>type\s+[12]))?",
                  t, I)
    if m:
        kind = (m.group("t1") or m.group("t2") or "").lower()
        return [Statement(act="assert", text=f"Has {kind + ' ' if kind else ''}diabetes",
                          fact_type="constraint", confidence=0.9, valid_from=dates.valid_from,
                          clause=c, rule="health:diabetic")]
    m = re.search(r"\bi\s+(?:have|'ve\s+got|have\s+got|live\s+with|was\s+diagnosed\s+with|"
                  r"have\s+been\s+diagnosed\s+with|'ve\s+been\s+diagnosed\s+with|"
                  r"got\s+diagnosed\s+with)\s+(?P<v>" + _COND + r")\b", t, I)
    if m:
        return [Statement(act="assert", text=f"Has {m.group('v').lower()}", fact_type="constraint",
                          confidence=0.9, valid_from=dates.valid_from, clause=c,
                          rule="health:condition")]
    return None


_CHANNEL = r"(?P<ch>email|e-mail|phone\s+calls?|phone|calls?|texts?|sms|whatsapp|signal|telegram|post|letters?)"


def preferences(c: str, dates: Dates) -> list[Statement] | None:
    t = dates.text
    m = (re.search(r"\b(?:contact|reach|call|text|message|email|ring)\s+me\s+(?:by|via|on|over|"
                   r"through|using)\s+" + _CHANNEL, t, I)
         or re.search(r"\bi(?:'d|\s+would)?\s+(?:now\s+|really\s+)?(?:prefer|rather)\s+(?:to\s+be\s+"
                      r"contacted\s+(?:by|via|on)\s+|be\s+contacted\s+(?:by|via|on)\s+)?"
                      + _CHANNEL + r"\b", t, I))
    if not m:
        # "text me instead of emailing", "please email me from now on": the channel is the verb
        m = re.search(r"^(?:please\s+)?(?:just\s+)?(?P<ch>text|email|e-mail|call|ring|phone|whatsapp|"
                      r"message)\s+me\b(?!\s+" + UPPER + r")"  # "call me Sam": a name (inv. 318)
                      r"(?=.*\b(?:instead|from\s+now\s+on|rather\s+than|not\s+|"
                      r"in\s+future|going\s+forward|only|don'?t|do\s+not|never)\b)", t, I)
    if m:
        ch = m.group("ch").lower().replace("e-mail", "email")
        ch = {"calls": "phone calls", "call": "phone calls", "ring": "phone calls",
              "phone": "phone calls", "text": "texts", "letter": "post", "letters": "post",
              "message": "messages"}.get(ch, ch)
        if ch == "whatsapp":
            ch = "WhatsApp"
        changed = bool(re.search(r"\b(?:now|instead|rather\s+than|any\s*more|no\s+longer|"
                                 r"from\s+now\s+on|not\s+by)\b", c, I))
        return [Statement(act="change" if changed else "assert", text=f"Prefers {ch}",
                          fact_type="preference", slot="contact", clause=c, rule="pref:contact")]
    m = re.search(r"\b(?:please\s+)?(?:never|don'?t|do\s+not)\s+(?P<verb>call|phone|ring|contact|"
                  r"text|email|message|disturb)\s+me\s+(?P<when>(?:before|after|on|at|during|in\s+"
                  r"the)\s+[^,.;!?]+)", t, I)
    if m:
        return [Statement(act="assert", text=f"Do not {m.group('verb').lower()} {tidy(m.group('when'))}",
                          fact_type="constraint", confidence=0.9, clause=c, rule="pref:no-contact")]
    m = re.search(r"\bi\s+(?:don'?t|do\s+not)\s+want\s+(?:any\s+)?(?P<what>calls|phone\s+calls|"
                  r"texts|emails|messages|meetings|visits)\s+(?P<when>(?:before|after|on|at|"
                  r"during)\s+[^,.;!?]+)", t, I)
    if m:
        return [Statement(act="assert", text=f"No {m.group('what').lower()} {tidy(m.group('when'))}",
                          fact_type="constraint", confidence=0.9, clause=c, rule="pref:no-thing")]
    m = (re.search(r"\bi\s+(?:really\s+)?(?:don'?t|do\s+not)\s+(?:like|enjoy|want|drink)\s+"
                   r"(?P<v>[^,.;!?]+?)\s+any\s*more\b", t, I)
         or re.search(r"\bi\s+no\s+longer\s+(?:like|enjoy|want|drink)\s+(?P<v>[^,.;!?]+)", t, I)
         or re.search(r"\bi(?:\s+have|'ve)?\s+(?:went|gone)\s+off\s+(?P<v>[^,.;!?]+)", t, I)
         or re.search(r"\b(?:i'?m|i\s+am)\s+(?:not|no\s+longer)\s+(?:into|a\s+fan\s+of|keen\s+on)\s+"
                      r"(?P<v>[^,.;!?]+?)(?:\s+any\s*more)?(?=\s*(?:[,.;!?]|$))", t, I))
    if m:
        thing = obj_phrase(m.group("v"), keep_article=True)
        if re.search(r"\b(?:i'?m|i\s+am)\s+not\s+(?:into|a\s+fan\s+of|keen\s+on)\b", m.group(0), I) \
                and not re.search(r"\bany\s*more\b", t, I):
            # "I'm not a fan of cilantro": a dislike, not a change
            return [Statement(act="assert", text=f"Dislikes {third_person(thing)}",
                              fact_type="preference", clause=c, rule="pref:not-a-fan")]
        return [Statement(act="change", text=f"No longer likes {thing}", fact_type="preference",
                          previous=thing, clause=c, rule="pref:no-longer")]
    # "texts are better than calls for me": a preference said as a comparison (invariant 166)
    m = re.match(r"^(?P<v>[\w'-]+(?:\s+[\w'-]+)?)\s+(?:is|are)\s+(?:much\s+|way\s+|far\s+|so\s+much\s+)?better\s+"
                 r"than\s+(?P<p>[\w'-]+(?:\s+[\w'-]+)?)\s+(?:for\s+me|imo|in\s+my\s+(?:opinion|book))\b", t, I)
    if m and not re.match(r"^(?:it|that|this|he|she|they|you|we|i)\b", m.group("v"), I):
        v, p = tidy(m.group("v")).lower(), tidy(m.group("p")).lower()
        chan = re.fullmatch(_CHANNEL, v, I)
        if chan:
            ch = {"calls": "phone calls", "call": "phone calls", "phone": "phone calls", "text": "texts",
                  "message": "messages"}.get(v, v)
            return [Statement(act="change", text=f"Prefers {ch}", fact_type="preference", slot="contact",
                              previous=p, clause=c, rule="pref:contact")]
        return [Statement(act="assert", text=f"Prefers {v} to {p}", fact_type="preference", clause=c,
                          rule="pref:better-than")]
    m = re.match(r"^(?:(?:a|an|the)\s+)?(?P<v>[\w'-]+(?:\s+[\w'-]+){0,2})\s+(?:from\s+now\s+on|going\s+"
                 r"forward|only\s+from\s+now)\b(?:\s+please)?(?:\W*$|\s*[,;:]\s*(?:my|the|it'?s|that'?s|this|"
                 # "aisle seats from now on, my bladder has spoken": a remark after it (inv. 270)
                 r"because|since|as|cos)\b[^?]*$)", t, I)
    if m and not re.match(r"^(?:i|we|you|it|that|this|same|me|no|not|call\s+me|please)\b", m.group("v"), I):
        # "window seat from now on please": what they want from now on ("call me Sam from now
        # on" is a name, invariant 318)
        return [Statement(act="change", text=f"Prefers {tidy(m.group('v'))}", fact_type="preference",
                          clause=c, rule="pref:from-now-on")]
    m = re.search(r"\bi(?:'d|\s+would)?\s+(?:really\s+|now\s+|much\s+|actually\s+|definitely\s+)?"
                  r"(?:prefer|rather\s+have)\s+(?P<v>[^,.;!?]+)", t, I)
    if m:
        v = m.group("v")
        prev = re.search(r"\s+(?:over|instead\s+of|rather\s+than|to)\s+(?P<p>[^,.;!?]+)$", v, I)
        if prev:
            v = v[:prev.start()]
        thing = obj_phrase(v, keep_article=True)
        if not thing or re.match(r"^(?:to|not|it|that|this)\b", thing, I):
            return None
        full = tidy(m.group("v"))
        changed = bool(re.search(r"\b(?:now|these\s+days|instead|any\s*more)\b", c, I))
        text = f"Prefers {full if prev and not changed else thing}"
        return [Statement(act="change" if changed else "assert", text=third_person(text),
                          fact_type="preference",
                          previous=obj_phrase(prev.group("p")) if (prev and changed) else None,
                          slot=None, clause=c, rule="pref:prefer")]
    m = re.search(r"\bi\s+(?:really\s+|absolutely\s+|truly\s+)?(?:(?:don'?t|do\s+not)\s+(?:like|enjoy)|"
                  r"hate|dislike|can'?t\s+stand|detest|loathe)\s+(?P<v>[^,.;!?]+)", t, I)
    if m:
        thing = obj_phrase(m.group("v"), keep_article=True)
        if thing and not re.match(r"^(?:it|that|this|these|those|them|him|her|when|how|to|being|having)\b", thing, I):
            return [Statement(act="assert", text=f"Dislikes {third_person(thing)}",
                              fact_type="preference", clause=c, rule="pref:dislike")]
        return None
    m = re.search(r"\bi\s+(?:really\s+|now\s+|also\s+|absolutely\s+|do\s+)?(?P<verb>like|love|"
                  r"enjoy|adore)\s+(?P<v>[^,.;!?]+)", t, I)
    if m:
        thing = obj_phrase(m.group("v"), keep_article=True)
        if thing and not re.match(r"^(?:it|that|this|these|those|them|him|her|you|your|to|the\s+idea|how|when|what)\b",
                                  thing, I):
            return [Statement(act="assert", text=f"Likes {third_person(thing)}",
                              fact_type="preference", clause=c, rule="pref:like")]
    return None


def identity(c: str, dates: Dates) -> list[Statement] | None:
    t = dates.text
    m = re.search(r"\b(?i:my\s+name\s+is|(?:please\s+)?call\s+me|i\s+go\s+by|i'?m\s+called|"
                  # "I prefer to be called Sam" (invariant 318)
                  r"i(?:'d|\s+would)?\s+(?:prefer|like|rather)\s+(?:to\s+)?be\s+called)\s+" + NAME, t)
    if m:
        return [Statement(act="assert", text=f"Name is {m.group('name')}", fact_type="identity",
                          slot="noun:name", confidence=0.9, clause=c, rule="id:name")]
    m = (re.search(r"\b(?:i'?m|i\s+am)\s+(?P<n>\d{1,3})(?:\s+years?\s+old)?\s*(?:[,.;!?]|$|now\b)", t, I)
         or re.search(r"\bi\s+(?:just\s+)?turned\s+(?P<n>\d{1,3})\b", t, I))
    if m:
        changed = bool(re.search(r"\bturned\b|\bnow\b", t, I))
        return [Statement(act="change" if changed else "assert",
                          text=f"Is {m.group('n')} years old", fact_type="identity", slot="age",
                          valid_from=dates.valid_from, clause=c, rule="id:age")]
    m = re.search(r"\b(?:i'?m|i\s+am|i\s+(?:have\s+|'ve\s+)?(?:just\s+|finally\s+|recently\s+)?got)\s+"
                  r"(?:now\s+|happily\s+|newly\s+|officially\s+)?(?P<s>married|engaged)\s+to\s+"
                  + NAME + r"(?=\s*(?:[,.;!?]|$|\d|on\b|in\b|last\b|this\b|at\b))|"
                  r"\bi\s+(?:just\s+|finally\s+)?(?P<s2>married)\s+" + NAME.replace("?P<name>", "?P<n2>")
                  + r"(?=\s*(?:[,.;!?]|$|\d|on\b|in\b|last\b|this\b|at\b))", t, I)
    if m:
        # "Got married to Aiyana", "Tom and I got engaged" (read as "I got engaged to Tom"): the
        # partner is part of the status (invariant 203)
        return [Statement(act="change", text=f"Is {(m.group('s') or m.group('s2')).lower()} to "
                                              f"{m.group('name') or m.group('n2')}",
                          fact_type="identity", slot="marital", valid_from=dates.valid_from,
                          clause=c, rule="id:marital-to")]
    m = (re.search(r"\b(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:now\s+|happily\s+|newly\s+)?"
                   r"(?P<s>married|divorced|single|widowed|engaged|separated)\b", t, I)
         or re.search(r"\b(?:we|i)(?:\s+have|'ve)\s+been\s+(?P<s>married|divorced|engaged|separated)\s+"
                      r"(?:for|since)\b", t, I)
         or re.search(r"\b(?:we|i)\s+(?:have\s+|'ve\s+)?(?:just\s+|finally\s+|recently\s+)?"
                      r"(?:got\s+|are\s+getting\s+)?(?P<s>married|divorced|engaged|separated)\b"
                      r"(?!\s+(?:to|with|in\s+(?:a|the)\s+\w+\s+way))", t, I))
    if m:
        changed = bool(re.search(r"\bgot\b|\bnow\b|\b(?:we|i)\s+(?:\w+\s+)?(?:married|divorced|"
                                 r"separated|engaged)\b", t, I))
        return [Statement(act="change" if changed else "assert", text=f"Is {m.group('s').lower()}",
                          fact_type="identity", slot="marital", valid_from=dates.valid_from,
                          clause=c, rule="id:marital")]
    m = re.search(r"\b(?:i'?m|i\s+am|we'?re|we\s+are)\s+no\s+longer\s+(?P<s>married|engaged|together|a\s+couple)\b", t, I)
    if m:
        # "not married anymore": the marital status on record ended (invariant 166)
        return [Statement(act="change", text="Is no longer " + m.group("s").lower(), fact_type="identity",
                          slot="marital", previous=m.group("s").lower(), valid_from=dates.valid_from,
                          clause=c, rule="id:marital-gone")]
    m = re.search(r"^(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:finally\s+|officially\s+)?getting\s+(?P<s>married|divorced|"
                  r"hitched)\b", t, I)
    if m:
        # "I'm getting married in June": a plan, dated, not yet the status (invariant 166)
        s = "married" if m.group("s").lower() == "hitched" else m.group("s").lower()
        return [Statement(act="assert", text=f"Is getting {s}", fact_type="identity",
                          valid_from=dates.valid_from, clause=c, rule="id:marital-plan")]
    m = re.search(r"\b(?:i'?m|i\s+am)\s+(?:really\s+|very\s+|terribly\s+|still\s+)?(?P<a>afraid|"
                  r"scared|terrified|frightened)\s+of\s+(?P<v>[^,.;!?]+)", t, I)
    if m:
        return [Statement(act="assert", text=f"Is {m.group('a').lower()} of {tidy(m.group('v'))}",
                          fact_type="identity", clause=c, rule="id:afraid")]
    # "I'm not a morning person", "I'm a huge Cowboys fan", "I'm a lefty": what kind of person.
    m = re.search(r"\b(?:i'?m|i\s+am)\s+(?P<neg>not\s+|no\s+longer\s+)?(?:really\s+)?(?P<v>(?:a|an)\s+"
                  r"(?:[\w'-]+\s+){0,3}?(?:person|people\s+person|fan|supporter|lefty|left-hander|"
                  r"right-hander|smoker|non-smoker|night\s+owl|early\s+bird|early\s+riser|"
                  r"dog\s+person|cat\s+person|introvert|extrovert|member|season\s+ticket\s+holder))\b", t, I)
    if m and not re.match(r"^(?:a|an)\s+(?:bit|little|big|huge|total|massive)\s+(?:of\s+)?(?:a\s+)?"
                          r"(?:person|people)\b", m.group("v"), I):
        neg = (m.group("neg") or "").strip().lower()
        verb = {"not": "Is not", "no longer": "Is no longer"}.get(neg, "Is")
        return [Statement(act="change" if neg == "no longer" else "assert",
                          text=f"{verb} {tidy(m.group('v'))}", fact_type="identity",
                          previous=tidy(m.group("v")) if neg == "no longer" else None,
                          clause=c, rule="id:kind")]
    m = re.search(r"\b(?:i'?m|i\s+am)\s+(?P<v>left[- ]handed|right[- ]handed|ambidextrous|colou?r-?blind|"
                  r"deaf|hard\s+of\s+hearing|short-sighted|long-sighted|partially\s+sighted|"
                  r"neurodivergent|autistic|dyslexic|asthmatic|epileptic)\b", t, I)
    if m:
        return [Statement(act="assert", text=f"Is {m.group('v').lower()}", fact_type="identity",
                          clause=c, rule="id:trait")]
    m = re.search(r"\bmy\s+pronouns\s+are\s+(?P<v>\w+/\w+(?:/\w+)?)", t, I)
    if m:
        return [Statement(act="assert", text=f"Pronouns are {m.group('v').lower()}",
                          fact_type="identity", slot="noun:pronouns", confidence=0.9, clause=c,
                          rule="id:pronouns")]
    m = re.search(r"\bi\s+(?:also\s+|now\s+)?speak\s+(?P<v>[A-Z][^,.;!?]+)", t)
    if m:
        return [Statement(act="assert", text=f"Speaks {tidy(m.group('v'))}", fact_type="identity",
                          clause=c, rule="id:speaks")]
    return None


_TRIP_BACK = re.compile(
    r"^(?:(?:i|we)\s+)?(?:(?:have|has|am|are|'m|'re|just|finally|only)\s+)*(?:got\s+back|came\s+back|"
    r"back|returned|home)\s+from\s+(?:(?:a|an|the|our|my|two|three|\w+)\s+(?:[\w-]+\s+){0,2}?"
    r"(?:in|to|at|around|across)\s+)?" + CAP_PLACE + r"(?P<rest>.*)$", I)
_TRIP_WENT = re.compile(
    r"^(?:i|we)\s+(?:just\s+)?(?:(?P<went>went|travelled|traveled|flew|drove)\s+to|(?:had|spent)\s+"
    r"(?:a|an|the|two|three|four|five|\d+|our|my)\s+(?:[\w-]+\s+){0,2}?(?:days?|weeks?|weekend|"
    r"fortnight|nights?|holiday|months?|break|trip)\s+(?:in|at|on|around))\s+" + CAP_PLACE
    + r"(?P<rest>.*)$", I)


_TRIP_CONTEXT = re.compile(r"\b(?:trip|holiday|vacation|honeymoon|week|weekend|fortnight|days|flight|"
                           r"flew|jet\s*lag|loved|amazing|beautiful|lovely|gorgeous|incredible|"
                           r"stunning|break|visit|visiting|sightseeing|beach)\b", I)


def trips(c: str, today: date, dates: Dates) -> list[Statement] | None:
    """A trip that happened ("just got back from Porto", "we spent a week in Bruges in
    September"): "Visited Porto", dated when the user dated it. A place a plain "went to" names
    counts only with a trip's length or a date at least three days back (not an errand: "went to
    Tesco yesterday"), and a date to come is a plan, not a visit (invariant 157)."""
    t = dates.text
    if dates.valid_from and dates.valid_from > today:
        return None
    m = _TRIP_BACK.match(t) or _TRIP_WENT.match(t)
    if not m:
        return None
    where = place(m.group("p"))
    if not where or where.split()[0].lower() in {"work", "school", "uni", "church", "the"}:
        return None
    if m.re is _TRIP_BACK and not (re.search(r"\s(?:in|to|at|around|across)\s", m.group(0)[:m.start("p")])
                                   or _TRIP_CONTEXT.search(c)):
        return None  # "just back from Lidl": an errand, unless something says it was a trip
    if not dates.found and re.match(r"^(?:i|we)\s+(?:just\s+)?(?:had|spent)\s+(?:(?:a|an|the|one)\s+(?:lovely\s+|nice\s+|"
                                    r"quick\s+|great\s+)?(?:day|night|evening|afternoon|morning)|the\s+weekend)\s",
                                    m.group(0), I):
        # Invariant 341: "spent the weekend in Kraków, lovely city": a day or the weekend away,
        # said with no date, is an outing told, not something to keep about the user ("a long
        # weekend in Bruges in September" is a trip, dated)
        return []
    went = m.groupdict().get("went")
    if went and not (re.match(r"^\s+for\s+(?:a|an|the|two|three|\d+)\s+(?:\w+\s+)?(?:days?|weeks?|"
                              r"weekend|fortnight|nights?|holiday|months?)\b", m.group("rest"), I)
                     or (dates.valid_from and (today - dates.valid_from).days >= 3)):
        return None
    return [Statement(act="assert", text=f"Visited {where}", fact_type="world",
                      valid_from=dates.valid_from, clause=c, rule="trip:visited")]


_MILESTONE = re.compile(
    r"^(?:i|we)\s+(?:have\s+|'ve\s+)?(?:just\s+|finally\s+|officially\s+|recently\s+)*(?:"
    r"(?P<v1>passed|finished|completed|failed)\s+(?:my|our|the)\s+(?P<o1>(?:[\w-]+\s+){0,2}?(?:test|exam|exams|"
    r"phd|masters|master's|degree|course|apprenticeship|training|dissertation|thesis|qualification|"
    r"a-levels|gcses|bar|boards))|"
    r"(?P<v2>joined)\s+(?:a|an|the)\s+(?P<o2>(?:[\w-]+\s+){0,2}?(?:club|choir|band|team|gym|orchestra|"
    r"society|league|group|union))|"
    r"(?P<v3>paid\s+off)\s+(?:my|our|the)\s+(?P<o3>mortgage|loan|student\s+loan|debt|car|overdraft|credit\s+card)|"
    r"(?P<v4>bought|got)\s+(?:my|our)\s+first\s+(?P<o4>house|home|flat|place|apartment|car)|"
    # "got my driving licence", "finished uni", "graduated with a 2:1 in history" (invariant 166)
    r"(?P<v5>got|earned|received)\s+(?:my|our)\s+(?P<o5>(?:[\w-]+\s+){0,2}?(?:licence|license|degree|diploma|"
    r"black\s+belt|citizenship|visa|green\s+card|phd|masters|certificate))|"
    r"(?P<v6>finished|graduated\s+from|left)\s+(?P<o6>uni|university|college|school|sixth\s+form)|"
    r"(?P<v7>graduated)(?P<o7>(?:\s+(?:with|in)\s+[^,.;!?]+)?))"
    r"(?P<rest>(?:\s+(?:in|at|with|from)\s+(?-i:[^\W\d_a-z])[^,.;!?]*)?)\s*[.!]*$", I)


def milestones(c: str, dates: Dates) -> list[Statement] | None:
    """Something the user did that stays true ("I passed my driving test", "finished my PhD in
    May", "joined a choir", "paid off the mortgage", "bought our first house in March"), dated
    when said. Invariant 156."""
    m = _MILESTONE.match(dates.text.strip())
    if not m:
        return None
    g = m.groupdict()
    verb = next(g[k] for k in ("v1", "v2", "v3", "v4", "v5", "v6", "v7") if g.get(k)).lower()
    obj = next((g[k] for k in ("o1", "o2", "o3", "o4", "o5", "o6", "o7") if g.get(k)), "")
    if verb == "graduated":
        return [Statement(act="assert", text=f"Graduated{' ' + tidy(obj) if tidy(obj) else ''}",
                          fact_type="identity", valid_from=dates.valid_from, clause=c, rule="milestone")]
    if verb in ("left", "finished", "graduated from") and g.get("v6"):
        return [Statement(act="assert", text=f"{cap(verb)} {obj.lower()}", fact_type="identity",
                          valid_from=dates.valid_from, clause=c, rule="milestone")]
    if g.get("v5"):
        return [Statement(act="assert", text=f"Has their {obj}", fact_type="identity",
                          valid_from=dates.valid_from, clause=c, rule="milestone")]
    rest = tidy(g.get("rest") or "")
    tail = f" {rest}" if rest else ""
    if verb == "joined":
        text = f"Is a member of {article(obj)}{obj}{tail}"
    elif verb in ("bought", "got"):
        text = f"Owns {article(obj)}{obj}{tail}"
    else:
        text = f"{cap(' '.join(verb.split()))} their {obj}{tail}"
    return [Statement(act="assert", text=text, fact_type="identity" if verb != "bought" else "world",
                      valid_from=dates.valid_from, clause=c, rule="milestone")]


_SCHEDULE = re.compile(
    r"^(?:i'?m|i\s+am|we'?re|we\s+are|i|we)\s+(?:(?:now|also|currently|mostly|officially)\s+)*"
    r"(?:(?:have\s+|'ve\s+)?(?:gone|went|switched\s+to|moved\s+to)\s+|(?:working|work|going)\s+|"
    # "I've started working from home full time" (invariant 318)
    r"(?:have\s+|'ve\s+)?(?:just\s+)?(?:started|begun|began)\s+(?:working|to\s+work)\s+)?"
    r"(?P<how>(?:fully\s+|mostly\s+|completely\s+|partly\s+)?remote(?:ly)?|from\s+home|hybrid|"
    r"part[- ]time|full[- ]time|(?:a\s+)?four[- ]day\s+week|(?:\d|one|two|three|four|five)\s+days\s+a\s+week|"
    r"compressed\s+hours|nights|night\s+shifts?)"
    r"\b(?P<rest>[^,.;!?]*(?:,\s*(?:on\s+)?(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekends?|"
    r"\d|one|two|three|four)[^,.;!?]*)?)", I)


def schedule(c: str, dates: Dates) -> list[Statement] | None:
    """How the user works ("I'm now working remotely on Fridays", "I've gone part-time,
    Mondays to Wednesdays"). One day of it ("working from home today") is not a fact."""
    m = _SCHEDULE.match(dates.text.strip())
    if not m:
        return None
    if dates.found and dates.valid_from:
        return []  # "working from home today": one day, nothing durable
    how = re.sub(r"\s+", " ", m.group("how").lower())
    how = re.sub(r"^(fully|mostly|completely|partly)\s+remote$", r"\1 remote", how)
    how = "remotely" if how == "remote" else how
    rest = tidy(re.sub(r"\s+(?:now|these\s+days|nowadays)\b", "", m.group("rest"), flags=I))
    if re.match(r"^(?:for|with|at|because|since|while|until|but)\b", rest, I):
        rest = ""
    text = f"Works {how}" + (f"{'' if rest.startswith(',') else ' '}{rest}" if rest else "")
    changed = bool(re.search(r"\b(?:now|gone|switched|moved|from\s+now\s+on|these\s+days|started|"
                             r"begun|began)\b", c, I))
    return [Statement(act="change" if changed else "assert", text=text, fact_type="identity",
                      clause=c, rule="work:schedule")]


_BOOKED = r"(?:^|\b(?:i|we)\s+)(?:have\s+|'ve\s+|just\s+|already\s+|finally\s+|also\s+)*booked\s+"
_AFTER = re.compile(r"\s*,\s*(?:already|and|but|so|i|we|i'm|we're|can't|cannot|really)\b.*$|[!?]+.*$", I)


def _booked(t: str, c: str, today: date, dates: Dates) -> list[Statement] | None:
    """Invariant 252: a trip or a course booked, said without "I" or as a bare name with its
    dates ("Booked Porto for the conference, 3–5 May", "the Kyoto trip is booked for 2 April",
    "Lyon again 12 to 14 June with the choir", "booked Rex into agility classes starting
    6 March"). Only a date to come makes it a plan; the dates stay in a trip's words."""
    if not (dates.valid_from and dates.valid_from >= today):
        return None
    m = re.search(_BOOKED + r"(?P<who>(?:my|our)\s+\w+|(?-i:" + UPPER + r")[\w'’-]+)\s+(?:into|onto|on|in|for)\s+"
                  r"(?P<what>(?:a\s+|an\s+|the\s+|some\s+)?[\w' -]*?\b(?:training|classes|class|course|lessons?|"
                  r"camp|club|sessions?|school|nursery|daycare|day\s+care|kennels?|cattery|grooming))\b(?P<rest>.*)$",
                  t, I)
    if m and m.group("who").lower() not in {"myself", "me", "us", "ourselves", "it"}:
        who = re.sub(r"^(?:my|our)\s+", "", m.group("who"), flags=I)
        who = who if who[:1].isupper() else f"Their {who}"
        rest = _AFTER.sub("", m.group("rest")).strip(" ,")
        return [Statement(act="assert", text=f"{who} is booked into {tidy(m.group('what'))}"
                          + (f", {rest}" if rest else ""), fact_type="world",
                          valid_from=dates.valid_from, clause=c, rule="plan:booked-into")]
    m = (re.search(_BOOKED + r"(?:(?:(?:a|an|our|my)\s+)?(?:trip|flights?|week|weekend|holiday|break)\s+to\s+)?"
                   + CAP_PLACE + r"(?P<rest>\s+for\s+(?:the|a|an|our|my)\s+[^,.;!?]+|[^,.;!?]*)", t, I)
         or re.search(r"(?:^|\band\s+|[,;]\s*)(?:the|our|my)\s+(?P<p>[^\s,]+(?:\s+[^\s,]+)?)\s+(?:trip|holiday|visit)\s+(?:is|'s|got|"
                      r"has\s+been)\s+(?:all\s+|now\s+)?booked\b(?P<rest>)", t, I)
         or re.search(r"^" + CAP_PLACE + r"\s+again\b(?:\s+after\s+all)?(?P<rest>.*)$", t))
    if m:
        where = place(m.group("p")) if m.group("p")[:1].isascii() else m.group("p")
        if where and where.lower() not in lx.RELATIONS | lx.PETS | {"i", "we"}:
            rest = _AFTER.sub("", m.group("rest") or "").strip(" ,:")
            # Invariant 346: "for next year, 9 to 12 April": the dates are valid_from / valid_to;
            # a relative word would go stale in the text (invariant 74)
            rest = re.sub(r"^(?:for\s+)?(?:next|this)\s+(?:year|month|week|summer|spring|autumn|winter)\b[\s,]*",
                          "", rest, flags=I).strip(" ,:")
            return [Statement(act="assert", text=f"Trip to {where}" + (f" {rest}" if rest else ""),
                              fact_type="world", valid_from=dates.valid_from, valid_to=dates.valid_to,
                              clause=c, rule="plan:booked-trip")]
    return None


_ROLE_NOUN = "|".join(sorted({w for w in lx.ROLE_WORDS if re.fullmatch(r"[a-z-]+", w)}
                             | {"head", "partner", "vp", "cto", "ceo", "cfo", "coo"}, key=len, reverse=True))


def plans(c: str, today: date, dates: Dates) -> list[Statement] | None:
    t = dates.text
    found = trips(c, today, dates)
    if found is not None:
        return found
    m = re.search(r"^(?:(?:i'?m|i\s+am|we'?re|we\s+are|i'?ll\s+be|we'?ll\s+be|i\s+will\s+be|"
                  r"we\s+will\s+be)\s+)?(?P<how>flying|going|travell?ing|heading|off|driving|"
                  r"taking\s+the\s+train|off\s+on\s+holiday)\s+(?:back\s+|home\s+)?to\s+"
                  + CAP_PLACE + r"(?P<rest>.*)$", t, I)
    if m and dates.valid_from and dates.valid_from >= today:
        where = place(m.group("p"))
        if where:
            rest = tidy(m.group("rest"))
            return [Statement(act="assert", text=f"Trip to {where}" + (f" {rest}" if rest else ""),
                              fact_type="world", valid_from=dates.valid_from,
                              valid_to=dates.valid_to, clause=c, rule="plan:trip")]
    found = _booked(t, c, today, dates)
    if found is not None:
        return found
    # "I've booked a week in Crete for June", "going skiing in Val d'Isère in February",
    # "I'll be in Tokyo from 2 to 9 April": a trip with a date to come
    m = (re.search(r"\b(?:i|we)\s+(?:have\s+|'ve\s+|just\s+)*booked\s+(?:a|an|our|my)\s+(?:\w+\s+){0,2}?"
                   r"(?:week|weekend|fortnight|holiday|trip|break|flight|flights|city\s+break|"
                   r"cruise)\s+(?:in|to|for)\s+" + CAP_PLACE, t, I)
         or re.search(r"\b(?:i'?m|we'?re|i\s+am|we\s+are)\s+going\s+[a-z]+ing\s+(?:in|to|around)\s+"
                      + CAP_PLACE, t, I)
         or re.search(r"\b(?:i'?ll|we'?ll|i\s+will|we\s+will)\s+be\s+(?:in|visiting)\s+" + CAP_PLACE, t, I))
    if m and dates.valid_from and dates.valid_from >= today and place(m.group("p")):
        return [Statement(act="assert", text=f"Trip to {place(m.group('p'))}", fact_type="world",
                          valid_from=dates.valid_from, valid_to=dates.valid_to, clause=c,
                          rule="plan:booked")]
    # "The CKA exam moved to 20 January"
    m = re.search(r"^(?:the|my|our)\s+(?P<n>[\w' -]+?)\s+(?:has\s+|have\s+)?(?:been\s+|was\s+|got\s+|"
                  r"is\s+)?(?:moved|rescheduled|postponed|pushed|brought\s+forward|changed)\s+"
                  r"(?:back\s+)?(?:to|until|till)\s+(?P<when>.+)$", t, I)
    if m and dates.found and dates.valid_from:
        noun = tidy(m.group("n"))
        return [Statement(act="change", text=f"{cap(noun)} on {tidy(m.group('when'))}",
                          fact_type="world", previous=noun, valid_from=dates.valid_from,
                          clause=c, rule="plan:moved")]
    return None
