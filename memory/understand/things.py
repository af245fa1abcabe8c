"""Statements about things and habits: possessions and their replacements, "my X is Y",
activities, and changes to named things or pets."""

from __future__ import annotations

import re

from . import lexicon as lx
from .dates import Dates
from .model import FactTypeName, Statement
from .phrases import (
    STOP_AT,
    SUBJ_I,
    UPPER,
    I,
    article,
    cap,
    obj_phrase,
    third_person,
    third_singular,
    tidy,
    with_list,
)

_THING = r"(?P<v>[^,.;!?]+)"


_MONEY = frozenset(["money", "banking", "account", "current account", "bank account"])


def possessions(c: str, dates: Dates) -> list[Statement] | None:
    t = dates.text
    # "we replaced the Hue bridge with a Zigbee2MQTT stick"; "traded in the Golf for a Tesla"
    m = (re.search(r"\b" + SUBJ_I + r"\s+(?:have\s+|'ve\s+|just\s+|finally\s+)*replaced\s+(?:all\s+(?:of\s+)?)?(?:the|my|our|"
                   r"a|an)\s+(?P<p>[\w'’ .+-]+?)\s+with\s+(?:(?:a|an|the|two|some)\s+)?" + _THING, t, I)
         or re.search(r"\b" + SUBJ_I + r"\s+(?:have\s+|'ve\s+|just\s+)*(?:traded|swapped|exchanged|"
                      r"part-exchanged)\s+(?:in\s+)?(?:(?:the|my|our)\s+)?"
                      r"(?P<p>[\w'’ .+-]+?)\s+(?:in\s+)?for\s+(?:(?:a|an|the)\s+)?" + _THING, t, I)
         or re.search(r"\b" + SUBJ_I + r"\s+(?:have\s+|'ve\s+|just\s+|finally\s+)*sold\s+(?:the|my|our)\s+"
                      r"(?P<p>[\w'’ .+-]+?)\s+and\s+(?:\w+\s+){0,3}?(?:on|use|got|bought|have|own|"
                      r"drive|ride)\s+(?:ourselves\s+|myself\s+|me\s+)?(?:a|an|the)\s+" + _THING, t, I)
         or re.search(r"\b(?:my|our|the)\s+(?P<p>[\w'’ .+-]+?)\s+(?:broke|died|stopped\s+working|"
                      r"was\s+stolen|got\s+stolen|packed\s+in|gave\s+up)\s*,?\s*(?:so\s+)?(?:i|we)\s+"
                      r"(?:have\s+|'ve\s+)?(?:switched|moved|upgraded|changed|went)\s+to\s+(?:a|an|"
                      r"the)?\s*" + _THING, t, I))
    if m and re.search(r"\b(?:traded|swapped)\b", m.group(0), I) and (
            all(re.fullmatch(r"(?-i:[^\W\d_a-z])[\w'-]+(?:\s+(?-i:[^\W\d_a-z])[\w'-]+)?", m.group(g).strip())
                and m.group(g).strip().split()[0].lower() not in lx.KINDS for g in ("p", "v"))
            or re.fullmatch(r"(?:the\s+)?(?:city|countryside|country|coast|seaside|suburbs|sea|mountains|"
                            r"north|south|big\s+smoke)", m.group("v").strip(), I)):
        # "Swapped London for Brighton", "traded the city for the countryside": places, not
        # things owned (invariant 162); two names may be a move, kept only as the replacement
        # of the home on record that names the first (invariant 163)
        if m.group("v").strip()[:1].isupper():
            return [Statement(act="change", text=f"Lives in {m.group('v').strip()}", fact_type="identity",
                              slot="home", previous=m.group("p").strip(), valid_from=dates.valid_from,
                              clause=c, rule="location:swapped+bare")]
        return None
    if m:
        thing = obj_phrase(m.group("v"))
        was = obj_phrase(m.group("p")) or ""
        one = re.match(r"^(?P<adj>(?:[\w'’-]+\s+){0,2}?)ones?\b(?P<rest>.*)$", thing or "", I)
        if one and was:
            # "swapped my German driving licence for a Portuguese one": "one" is the thing
            # swapped, its describing word replaced (invariant 255); where is no part of it
            parts = was.split()
            adj = one.group("adj").strip()
            noun = parts[-2:] if len(parts) >= 3 else parts[-1:]
            thing = " ".join(filter(None, [adj, *noun]))
        if thing:
            # "Hue motion sensors": things said in the plural take no article (invariant 321)
            last = thing.split()[-1].lower()
            a = "" if last.endswith("s") and last[:-1] in lx.THINGS else article(thing)
            return [Statement(act="change", text=f"Owns {a}{thing}", fact_type="world",
                              previous=was or None, valid_from=dates.valid_from,
                              clause=c, rule="own:replaced")]
    # Invariant 299: "switch me to kilometres", "can you put me over to Celsius": the user's
    # own setting asked for by name is what they prefer now; "switch me to a human" is no value.
    m = re.match(r"^(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:switch|change|set|put|move)\s+me\s+"
                 r"(?:over\s+|back\s+)?to\s+(?:(?:a|an|the)\s+)?(?P<v>[\w'’ +/-]+?)(?:\s+please)?"
                 r"(?=\s*(?:[,.;!?]|$))", t, I)
    if m and not re.search(r"\b(?:human|person|agent|someone|somebody|operator|manager|english|"
                           r"another|different|new)\b", m.group("v"), I):
        thing = obj_phrase(m.group("v"), keep_article=False)
        if thing:
            return [Statement(act="change", text=f"Prefers {thing}", fact_type="preference",
                              valid_from=dates.valid_from, clause=c, rule="own:switched")]
    # "I switched from Zed to Helix as my main editor"; "switched my terminal from X to Y";
    # "I switched banks from N26 to Revolut"; "I moved my current account from A to B"
    m = re.search(r"(?:^|\b(?:i|we)\s+)(?:have\s+|'ve\s+|just\s+|also\s+|finally\s+|recently\s+|eventually\s+)*"
                  r"(?P<verb>switched|changed|moved|"
                  r"upgraded|swapped|migrated|went)\s+(?:(?:my|our)\s+(?P<noun>[\w ]+?)\s+|"
                  # "switched the energy to Octopus", "the kids' phones to Lebara" (inv. 301)
                  r"the\s+(?P<whose>(?:kids|children|family)['’]?s?\s+)?(?P<noun3>" + "|".join(sorted(lx.SERVICE_NOUNS)) + r")\s+|"
                  r"(?P<noun2>banks|jobs|editors|browsers|phones|providers|energy\s+suppliers?|"
                  r"suppliers|shells|terminals)\s+)?(?:from\s+(?:(?:a|an|the|my)\s+)?(?P<p>[\w'’ .+-]+?)"
                  r"\s+)?(?:back\s+)?(?:to|over\s+to|for)\s+(?:(?:a|an|the)\s+)?(?P<v>[\w'’ .+/-]+?)"
                  r"(?:\s+as\s+(?:my|our)\s+(?P<role>[\w ]+?))?(?=\s*(?:[,.;!?]|$))", t, I)
    if m and (re.search(r"\bby\s+(?:train|car|bus|coach|plane|air|boat|ferry|bike|taxi|uber)\b|\bon\s+foot\b",
                        m.group("v") or "", I) or (m.group("verb").lower() == "went" and not (
                            m.group("noun") or m.group("noun2") or m.group("noun3")))):
        m = None  # invariant 400: "I went from London to Paris by train" is a journey, no switch
    money = bool(m and (m.group("noun") or "").lower() in _MONEY)
    if m and (m.group("p") or money or m.group("noun2") or m.group("noun3") or m.group("verb").lower() in {
            "switched", "upgraded", "swapped", "migrated"}):
        thing = obj_phrase(m.group("v"), keep_article=False)
        # "switched to vaping completely": how wholly is no part of what is used (inv. 299)
        thing = re.sub(r"\s+(?:completely|entirely|fully|totally|for\s+good|full[- ]time)$", "", thing or "", flags=I)
        if thing and (m.group("noun") or m.group("noun2") or m.group("noun3") or m.group("verb").lower() != "moved"):
            role = m.group("role") or m.group("noun") or m.group("noun2") or (
                (m.group("whose") or "") + re.sub(r"s$", "", m.group("noun3")) if m.group("noun3") else None)
            if money:
                role = "bank"  # "moved my money to Monzo": a bank switch (invariant 155)
            if role:
                role = tidy(role)
                role = re.sub(r"s$", "", role) if m.group("noun2") else role
                text = f"{cap(role)} is {thing}"
                slot = "noun:" + role.split()[-1].lower()
            elif m.group("verb").lower() == "upgraded":
                text, slot = f"Owns {article(thing)}{thing}", None
            elif {lx.KINDS.get(w.lower()) for w in thing.split()} & {"editor", "bank"}:
                # "switched back to Neovim": the kind names the role, so "what editor do I
                # use?" finds it (invariant 215)
                role_kind = "editor" if "editor" in {lx.KINDS.get(w.lower()) for w in thing.split()} \
                    else "bank"
                text, slot = ("Main editor is " if role_kind == "editor" else "Bank is ") + thing, \
                    "noun:" + role_kind
            else:
                text, slot = f"Uses {thing}", None
            previous = obj_phrase(m.group("p")) if m.group("p") else None
            if previous is None and m.group("verb").lower() == "upgraded":
                previous = _base(thing)
            return [Statement(act="change", text=text, fact_type="preference" if text.startswith(
                ("Uses", "Main")) else "world", previous=previous, slot=slot,
                valid_from=dates.valid_from, clause=c, rule="own:switched")]
    # "My doctor switched me from metformin to Ozempic": a prescriber's switch is the user's
    # medication (invariant 242)
    m = re.search(r"\b(?:my|the)\s+(?:doctor|gp|consultant|nurse|specialist|psychiatrist|cardiologist|"
                  r"dermatologist|endocrinologist|pharmacist|clinic|hospital)\s+(?:has\s+|just\s+)*"
                  # "the cardiologist switched me to apixaban": the old one said apart (inv. 293)
                  r"(?:switched|moved|changed|put)\s+me\s+(?:(?:over\s+)?from\s+(?P<p>[\w'’ .-]+?)\s+)?(?:over\s+)?(?:on)?to\s+"
                  r"(?P<v>[\w'’ .-]+?)\s*(?=[,.;!?]|$)", t, I)
    if m and obj_phrase(m.group("v"), keep_article=False):
        thing = obj_phrase(m.group("v"), keep_article=False)
        # "I stopped taking warfarin, the cardiologist switched me to apixaban": what stopped
        stopped = re.search(r"\b(?:stopped|quit|gave\s+up|came\s+off)\s+(?:taking\s+)?(?:my\s+|the\s+)?"
                            r"(?P<p>[\w-]+)", t[:m.start()], I)
        before = m.group("p") or (stopped.group("p") if stopped else None)
        return [Statement(act="change", text=f"Takes {thing}", fact_type="constraint",
                          previous=obj_phrase(before, keep_article=False) if before else None,
                          valid_from=dates.valid_from, clause=c, rule="own:prescribed")]
    # "GP upped my statin to 40mg", "my sertraline dose went down to 50mg": a new dose of the
    # medicine on record; the agent keeps its name and timing from that fact (invariant 266)
    m = (re.search(r"\b(?:(?:my|the)\s+)?(?:doctor|doc|gp|consultant|nurse|specialist|psychiatrist|prescriber|"
                   r"clinic|they)\s+(?:has\s+|have\s+|just\s+)*(?:upped|increased|raised|bumped\s+up|lowered|"
                   r"reduced|cut|dropped|halved|doubled|changed)\s+(?:my|the)\s+(?P<med>[\w-]+)(?:\s+dose)?\s+"
                   r"(?:up\s+|down\s+)?to\s+(?P<dose>" + lx.DOSE + r")", t, I)
         or re.search(r"\b(?:i\s+(?:have\s+|'ve\s+)?(?:upped|increased|raised|lowered|reduced|cut|halved|"
                      r"doubled)\s+my|my)\s+(?P<med>[\w-]+)(?:\s+dose)?\s+(?:(?:went|was|got|has\s+been|is)\s+)?"
                      r"(?:(?:up|down|upped|increased|raised|lowered|reduced|cut)\s+)?(?:up\s+|down\s+)?to\s+"
                      r"(?P<dose>" + lx.DOSE + r")", t, I))
    if m and m.group("med").lower() not in {"dose", "it", "meds", "medication", "tablets", "pills"} | lx.RELATIONS:
        dose = re.sub(r"\s+", "", m.group("dose"))
        return [Statement(act="change", text=f"Takes {dose} {m.group('med')}", fact_type="constraint",
                          previous=m.group("med"), valid_from=dates.valid_from, clause=c, rule="med:dose")]
    # "we don't have the Roborock any more"; "someone stole my Brompton"; "I got rid of the UPS"
    m = (re.search(r"\b" + SUBJ_I + r"\s+(?:don'?t|do\s+not)\s+(?:have|own)\s+(?:(?:the|a|an|my|our)\s+)?"
                   r"(?P<v>[\w'’ .+-]+?)\s+any\s*more\b", t, I)
         or re.search(r"\b" + SUBJ_I + r"\s+(?:have\s+|'ve\s+|just\s+)*gave\s+(?:the|my|our)\s+"
                      r"(?P<v>[\w'’ .+-]+?)\s+(?:to|away)\b", t, I)
         or re.search(r"\b" + SUBJ_I + r"\s+no\s+longer\s+(?:have|own)\s+(?:(?:the|a|an|my|our)\s+)?"
                      + _THING, t, I)
         or re.search(r"\b" + SUBJ_I + r"\s+(?:have\s+|'ve\s+|just\s+|finally\s+)*(?:sold|gave\s+away|got\s+rid\s+of|"
                      r"returned|donated|traded\s+in)\s+(?:the|my|our)\s+" + _THING, t, I)
         or re.search(r"\b(?:someone|somebody|they|thieves)\s+stole\s+(?:the|my|our)\s+" + _THING, t, I)
         or re.search(r"\b(?:my|our)\s+(?P<v>[\w'’ .+-]+?)\s+(?:was|got)\s+stolen\b", t, I)
         # "the LG went to Lukas", "gran's lamp went back to her": given away (invariant 292)
         or re.search(r"^(?:the|my|our)\s+(?:old\s+)?(?P<v>[\w'’ .+-]+?)\s+(?:went|has\s+gone|is\s+going)\s+"
                      r"(?:back\s+)?to\s+(?:(?-i:[A-Z])[\w'’-]+|(?:my|our)\s+[\w-]+|her|him|them)\b", t, I))
    if m:
        # "sold the old Passat": the Passat on record is not called old
        thing = re.sub(r"^(?:old|trusty|beloved|ancient|battered)\s+(?=\S)", "", obj_phrase(m.group("v")),
                       flags=I)
        people = lx.RELATIONS | lx.NAMED_ONLY_RELATIONS | {"friend", "ex"}
        if thing and thing.split()[-1].lower() in people:
            return None  # "dumped my boyfriend": a person is never a possession
        if thing and thing.lower() not in lx.NOT_THINGS:
            # an account or a membership is had, not owned (invariant 320)
            held = re.search(r"\b(?:account|membership|subscription|policy|contract|plan|card)$", thing, I)
            return [Statement(act="change", text=f"No longer {'has' if held else 'owns'} {article(thing)}{thing}",
                              fact_type="world", previous=thing, valid_from=dates.valid_from,
                              clause=c, rule="own:gone")]
    # "We named the puppy Zoë", "we called our new kitten Miso"
    m = re.search(r"\b" + SUBJ_I + r"\s+(?:have\s+|'ve\s+|just\s+)*(?:named|called)\s+(?:the|our|my)\s+"
                  r"(?:new\s+)?(?P<pet>[a-z]+)\s+(?P<n>" + UPPER + r"[\w'-]*)", t, I)
    if m and m.group("pet").lower() in lx.PETS:
        return [Statement(act="assert", text=f"Has a {m.group('pet').lower()} called {m.group('n')}",
                          fact_type="world", clause=c, rule="own:named")]
    # "I got HON Circle status"
    m = re.search(r"\b(?:i|we)\s+(?:have\s+|just\s+|finally\s+)*(?P<verb>got|reached|earned|made|"
                  r"hit|have|achieved|kept|lost)\s+(?P<v>(?-i:[A-Z][\w&'’+-]*(?:\s+[A-Z][\w&'’+-]*)*))"
                  r"\s+status\b", t, I)
    if m:
        return [Statement(act="assert" if m.group("verb").lower() == "have" else "change",
                          text=f"Has {m.group('v')} status", fact_type="world", slot="noun:status",
                          valid_from=dates.valid_from, clause=c, rule="own:status")]
    # "X got me an Apple Watch"
    m = re.search(r"\b(?:[A-Z][\w'’-]+|my\s+\w+)\s+(?:got|bought|gave)\s+me\s+(?:a|an|the)\s+" + _THING, t)
    # Invariant 322: "our new neighbour gave us her old Sonos One": a thing given to the user
    m = m or re.search(r"\b(?:[A-Z][\w'’-]+|(?i:my|our)\s+(?:new\s+|old\s+)?\w+)\s+(?:gave|handed|passed)\s+"
                       r"(?:me|us)\s+(?:(?:a|an|the|her|his|their)\s+)(?:(?:old|spare|used)\s+)?"
                       r"(?P<v>(?-i:[A-Z0-9])[^,.;!?]*)", t)
    if m:
        thing = obj_phrase(m.group("v"))
        appos = re.match(r"^[^,]+,\s*(?:a|an)\s+(?P<x>(?-i:[A-Z0-9])[^,.;!?]*)", t[m.start("v"):])
        if appos and obj_phrase(appos.group("x")):
            thing = obj_phrase(appos.group("x"))  # "a company car, a Tesla Model Y" (inv. 322)
        if thing and thing.lower() not in lx.NOT_THINGS:
            return [Statement(act="assert", text=f"Owns {article(thing)}{thing}", fact_type="world",
                              valid_from=dates.valid_from, clause=c, rule="own:gift")]
    # Invariant 322: "got back from Bunnings with a Weber barbie": a thing brought home
    m = re.search(r"(?:^|\b(?:i|we)\s+)(?:just\s+|finally\s+)*(?:got|came|come)\s+(?:back|home)\s+from\s+"
                  r"[^,.;!?]+?\s+with\s+(?:a|an|two|three|some|a\s+new)\s+(?P<v>[^,.;!?]+)", t, I)
    if m and (thing := obj_phrase(m.group("v"))) and looks_like_a_thing(thing) and not (
            set(re.findall(r"[a-z]+", thing.lower())) & (lx.NOT_THINGS | lx.RELATIONS)):
        verb = "Has" if set(re.findall(r"[a-z]+", thing.lower())) & lx.PETS else "Owns"
        return [Statement(act="assert", text=f"{verb} {article(thing)}{thing}", fact_type="world",
                          valid_from=dates.valid_from if dates.found else None, clause=c, rule="own:brought")]
    # ... "closed on the house in Austin", "completed on the flat in Walthamstow": a home bought,
    # the user's home from now on in place of the one on record
    m = re.search(r"\b(?:closed|completed|exchanged)\s+on\s+(?:the|a|our|my)\s+(?:new\s+)?(?P<k>house|flat|home|"
                  r"place|apartment|condo|cottage|bungalow|townhouse)\s+in\s+(?P<p>" + UPPER +
                  r"[\w'’-]*(?:\s+" + UPPER + r"[\w'’-]*)*)", t, I)
    if m:
        kind = "home" if m.group("k").lower() in ("place", "home") else m.group("k").lower()
        return [Statement(act="change", text=f"Owns {article(kind)}{kind} in {m.group('p')}", fact_type="identity",
                          slot="home", valid_from=dates.valid_from, clause=c, rule="own:home")]
    # Invariant 322: "Tom and I finally got ...", "we've finally got ...": the user's own too
    m = re.search(r"\b(?:(?:(?-i:[A-Z])[\w'’-]+|my\s+[\w-]+)\s+and\s+)?" + SUBJ_I +
                  r"(?:\s+|(?=['’]))(?:now\s+|also\s+|finally\s+|just\s+|recently\s+)*"
                  r"(?P<verb>have|own|bought|got|'ve\s+got|have\s+got|'ve\s+just\s+got|"
                  r"(?:'ve|’ve|have)\s+(?:finally\s+|just\s+|now\s+|also\s+)+(?:got|bought)|"
                  r"picked\s+up|ordered|adopted|rescued|'ve\s+bought)\s+(?:me\s+|myself\s+|"
                  r"ourselves\s+)?(?P<det>a\s+second|a\s+third|a|an|the|two|three|four|five|\d+|another|one|"
                  r"a\s+new|some)\s+(?P<v>[^.;!?]+)", t, I)
    if m:
        raw = m.group("v")
        det = m.group("det").lower()
        apposed = False
        head = re.split(r"\s*,\s*", raw)[0]
        appos = re.match(r"^[^,]+,\s*(?:a|an|the)\s+(?P<x>[^,]+)", raw, I)
        category = obj_phrase(head).lower()
        if appos and (category.split()[-1:] and category.split()[-1] in
                      {"phone", "laptop", "car", "bike", "watch", "tablet", "dog", "cat", "puppy",
                       "kitten", "pet", "camera", "tv", "console", "hub", "router", "ev", "e-bike",
                       "ebike", "motorbike", "van", "scooter", "hybrid", "smartphone", "mobile",
                       "computer", "pc", "speaker", "vacuum", "kindle", "ereader", "e-reader"}):
            thing = obj_phrase(appos.group("x"))
            apposed = True  # "an ev, a kia niro": what the car is, said after its kind
        elif det[:1].isdigit() or det in {"two", "three", "four", "five"}:
            cut = STOP_AT.search(" " + tidy(raw))  # "two cats, Miso and Tofu" keeps its names
            thing = f"{det} " + ((" " + tidy(raw))[:cut.start()].strip() if cut else tidy(raw))
            # "two bikes, a Brompton and a Trek" keeps its names too (invariant 236)
            if "," in thing and not re.search(r",\s*(?:(?i:a|an|the|one|both)\s+)?" + UPPER, thing):
                thing = thing.split(",")[0]  # "two children, one boy and one girl"
        else:
            thing = obj_phrase(head)
        named = re.match(r"^(?P<k>.+?)\s+(?:called|named)\s+(?P<n>[^\W\d_][\w'-]*)", thing, I)
        if named:  # "a dog called rolo he's a cockapoo": the name ends the thing
            thing = f"{tidy(named.group('k'))} called {cap(named.group('n'))}"
        words = set(re.findall(r"[a-z]+", thing.lower()))
        if not thing or words & lx.NOT_THINGS or re.match(r"^(?:to|been|feeling|go)\b", thing, I):
            return None
        if not apposed and not (looks_like_a_thing(thing) or looks_like_a_thing(
                re.split(r"\s+(?:in|at|near|from|called|named)\s+", thing, flags=I)[0])):
            return None  # "a parking ticket", "a bad back", "a promotion": not possessions
        people = lx.RELATIONS | lx.NAMED_ONLY_RELATIONS | {"friend", "kids", "children"}
        if words & people:
            return [Statement(act="assert", text=f"Has {article(thing)}{thing}", fact_type="identity",
                              clause=c, rule="own:relation")]
        pet = bool(words & lx.PETS)
        many = bool(det[:1].isdigit() or det in {"two", "three", "four", "five"})
        if not pet and many and {w[:-1] for w in words if w.endswith("s")} & lx.PETS:
            pet = True  # "two cats": pets, had rather than owned (invariant 364)
        if pet and not named and not re.search(r"\b(?:called|named)\b", thing, I):
            # Invariant 364: the pet's name said later in the clause stays with it ("a cat from
            # the shelter, her name is Kaju" -> "Has a cat called Kaju"; "two cats from the
            # shelter, Salt and Pepper" -> "Has two cats, Salt and Pepper").
            nm = re.search(r"(?:\b(?:called|named)\s+|,\s*(?:she|he|it)(?:'s|’s|\s+is)\s+(?:called|named)\s+)"
                           r"(?P<n>[A-Z][\w'’-]*)\s*[.!]*\s*$", raw)
            both = re.search(r",\s*(?P<n>[A-Z][\w'’-]*(?:\s*,\s*[A-Z][\w'’-]*)*\s+and\s+[A-Z][\w'’-]*)"
                             r"\s*[.!]*\s*$", raw) if many else None
            if both and "," not in thing:
                thing = f"{thing}, {both.group('n')}"
            elif nm and not many:
                thing = f"{thing} called {nm.group('n')}"
        if words & {"phd", "degree", "masters", "diploma", "doctorate", "mba", "bsc", "msc", "ba", "ma",
                    "certificate", "licence", "license"}:
            # "I have a PhD in chemistry": a qualification is held, not owned (invariant 166)
            # ... since the day it was got (invariant 294)
            return [Statement(act="assert", text=f"Has {article(thing)}{thing}", fact_type="identity",
                              valid_from=dates.valid_from, clause=c, rule="own:qualification")]
        verb = "Has" if pet else "Owns"
        instead = re.search(r"\b(?:to\s+replace|replacing|instead\s+of|in\s+place\s+of)\s+(?:the|my|our|"
                            r"a|an)?\s*(?P<p>[^,.;!?]+)", raw, I)
        if instead and obj_phrase(instead.group("p")):
            thing = obj_phrase(re.split(r"\s+(?:to\s+replace|replacing|instead\s+of|in\s+place\s+of)\b",
                                        head, flags=I)[0])
            return [Statement(act="change", text=f"{verb} {article(thing)}{thing}", fact_type="world",
                              previous=obj_phrase(instead.group("p")), valid_from=dates.valid_from,
                              clause=c, rule="own:instead")]
        from .matching import kind_of  # matching imports this package's model; late import

        new = det.endswith("new") or bool(re.match(r"^new\s", raw, I))
        kind = kind_of(f"{verb} {thing}") if new else None
        if new and apposed and kind is None and category.split():
            # "got a new phone, a samsung s24": the kind said before the name is what is
            # replaced, whatever the brand (invariant 322)
            kind = lx.KINDS.get(category.split()[-1])
        renewed = kind is not None
        # "I got a new phone, a Galaxy S24": a new one of a kind replaces the one on record
        # (invariant 155); a new plant or rug is only one more thing.
        return [Statement(act="change" if renewed else "assert",
                          text=f"{verb} {article(thing)}{thing}".replace("  ", " "),
                          fact_type="world", valid_from=dates.valid_from if dates.found else None,
                          kind=kind, clause=c, rule="own:new" if renewed else "own:has")]
    return None


def looks_like_a_thing(phrase: str) -> bool:
    """Something a person owns: a named model ("Range Extender", "Pixel 9"), a pet, a person,
    or a known kind of thing (devices, vehicles, furniture, instruments, homes)."""
    words = re.findall(r"[\w'’-]+", phrase)
    if not words:
        return False
    if any((w[:1].isupper() and len(w) > 1) or any(ch.isdigit() for ch in w) for w in words):
        return True
    head = words[-1].lower()  # "a flat tyre" is a tyre, not a flat
    return bool({head, head.rstrip("s")} & (lx.THINGS | lx.PETS | lx.RELATIONS))


def _base(thing: str) -> str | None:
    """The model family of a thing, without its version: "iPhone 15" -> "iPhone"."""
    words = [w for w in thing.split() if not re.match(r"^(?:v?\d+\w*|pro|max|mini|plus|ultra|"
                                                      r"lite|se|gen\s*\d*)$", w, I)]
    return " ".join(words[:2]) or None


_VERBS = ("drink|run|take|play|speak|grow|cycle|swim|walk|practise|practice|study|train|read|"
          "watch|listen|attend|volunteer|teach|type|ride|drive|commute|wear|meditate|bake|cook|"
          "knit|paint|sing|climb|boulder|surf|ski|hike|garden|use|carry|visit|coach|"
          "collect|write|brew|fly|support|follow|own|manage|lead|mentor|sleep|bank")


def _gerund_base(stem: str) -> str:
    """The verb of a gerund stem: "drink" (drinking), "run" (running), "cycl" -> "cycle"."""
    s = stem.lower()
    if len(s) > 2 and s[-1] == s[-2] and s[-1] not in "aeiouls":
        s = s[:-1]
    return s if s in _VERBS.split("|") else s + "e"


_WEEKDAYS_MONTHS = frozenset("""monday tuesday wednesday thursday friday saturday sunday january
february march april may june july august september october november december""".split())


def on_now(c: str, dates: Dates) -> list[Statement] | None:
    """"I'm on Apple Music now", "we're on Octopus Energy these days", "I'm with Vodafone for my
    phone" (invariant 238): a named service, plan or provider the user switched to is what they
    use. "On" needs a cue of change ("now", "these days", "instead"), "with" a provider's word
    (bank, broadband, phone ...); "I'm on holiday", "on Monday", "I'm with Tom now" are not."""
    m = re.search(r"\b(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:now\s+|finally\s+|also\s+)?(?P<on>on|with)\s+(?P<v>" + UPPER +
                  r"[\w'’&+.-]*(?:\s+" + UPPER + r"[\w'’&+.-]*|\s+\d[\w.]*){0,3})\s*(?P<cue>now|these\s+days|"
                  r"nowadays|instead)?\b", dates.text, I)
    if not m:
        return None
    name = tidy(m.group("v"))
    provider = re.search(r"\b(?:bank|banking|energy|electricity|gas|broadband|internet|wifi|phone|mobile|"
                         r"sim|network|provider|supplier|insurer|insurance|contract|tariff|plan|"
                         r"account|mortgage|pension|isp)\b", c, I)
    if m.group("on").lower() == "with" and not provider:
        return None  # "I'm with Tom now" is a person, not a provider
    if not (m.group("cue") or provider and m.group("on").lower() == "with" or re.search(r"\b(?:now|these\s+days|instead|switched|moved|any\s*more|"
                                        r"no\s+longer)\b", c, I)) or name.lower().split()[0] in _WEEKDAYS_MONTHS:
        return None
    # "I don't use Spotify any more, I'm on Apple Music now": what it replaces
    was = re.search(r"\b(?:don'?t|do\s+not|no\s+longer)\s+(?:use|have)\s+(?P<p>" + UPPER +
                    r"[\w'’&+.-]*(?:\s+" + UPPER + r"[\w'’&+.-]*){0,2})|\b(?:from|instead\s+of|left|"
                    r"ditched|dropped|cancell?ed)\s+(?P<q>" + UPPER + r"[\w'’&+.-]*(?:\s+" + UPPER +
                    r"[\w'’&+.-]*){0,2})", c, I)
    previous = tidy(was.group("p") or was.group("q")) if was else None
    tail = re.match(r"\s*(?:now\s+|these\s+days\s+)?for\s+(?:my\s+|our\s+|the\s+)?(?P<f>[a-z][\w -]{1,25}?)"
                    r"(?=\s*(?:[,.;!?]|$|\s+now\b))", dates.text[m.end():], I)
    if tail:
        name += f" for {tidy(tail.group('f'))}"  # "Uses Octopus for energy"
    return [Statement(act="change", text=f"Uses {name}", fact_type="preference", clause=c,
                      previous=previous, valid_from=dates.valid_from, rule="act:on-now")]


def activities(c: str, dates: Dates) -> list[Statement] | None:
    t = dates.text
    found = on_now(c, dates)
    if found:
        return found
    m = re.search(r"\bi\s+(?:have\s+|'ve\s+|just\s+)*(?:quit|stopped|gave\s+up|given\s+up|give\s+up|no\s+longer\s+"
                  r"do|dropped\s+out\s+of|dropped(?!\s+(?:to|by|in|into|off|round|down|back)\b)|cancell?ed)\s+"
                  r"(?P<v>[^,.;!?]+)", t, I)
    if m:
        # "dropped my sister off": a lift, nothing that ended
        thing = "" if re.search(r"\boff\b", m.group("v"), I) else obj_phrase(m.group("v"), keep_article=True)
        if thing and thing.lower() not in {"it", "that", "this", "my job", "work"} and not re.match(
                r"^(?:my|the|our)\s+(?:job|role|position|work)\b", thing, I):
            gerund = re.fullmatch(r"([a-z]+)ing", thing.lower())
            base = _gerund_base(gerund.group(1)) if gerund else None
            return [Statement(act="change", text=f"Has given up {third_person(thing)}",
                              fact_type="preference", previous=thing,
                              slot=f"verb:{base}" if base in _VERBS.split("|") else None,
                              valid_from=dates.valid_from, clause=c, rule="act:quit")]
    # "I don't run anymore" (read as "I no longer run"): a habit that ended
    m = re.search(r"\bi\s+no\s+longer\s+(?P<verb>" + _VERBS + r")\b(?P<v>[^,.;!?]*)", t, I)
    if m and m.group("verb").lower() not in {"use", "own", "support", "follow", "visit"}:
        verb = m.group("verb").lower()
        rest = tidy(m.group("v"))
        return [Statement(act="change", text=f"No longer {third_singular(verb)} {third_person(rest)}".strip(),
                          fact_type="preference", slot=f"verb:{verb}",
                          previous=obj_phrase(rest) or verb if rest else verb,
                          valid_from=dates.valid_from, clause=c, rule="act:no-longer")]
    # "took up pottery", "started the guitar", "started yoga classes on Thursdays": a pastime
    # (lexicon.PASTIMES) or classes/lessons in something (invariant 166)
    m = re.search(r"\b(?:i|we)\s+(?:have\s+|'ve\s+|just\s+|recently\s+|finally\s+)*(?:took\s+up|taken\s+up|"
                  r"started|began|begun|got\s+into)\s+(?:(?:the|a|an|some)\s+)?(?P<v>[a-z][\w -]*?)"
                  r"(?P<cls>\s+(?:classes|class|lessons|lesson|course))?(?=\s*(?:[,.;!?]|$|\s+(?:on|at|in|with|"
                  r"at|every|twice|once|this|last|and|because|after|since|again)\b))", t, I)
    if m:
        v = m.group("v").lower().strip()
        head = v.split()[-1] if v else ""
        gerund = re.fullmatch(r"([a-z]+)ing", v)
        if gerund and not m.group("cls") and _gerund_base(gerund.group(1)) in _VERBS.split("|"):
            pass  # "started running": a habit of a verb, read below ("Runs")
        elif head in lx.PASTIMES or (m.group("cls") and len(v.split()) <= 2 and head not in lx.NOT_THINGS
                                   and head not in {"new", "evening", "night", "morning"}):
            if re.search(r"\bbut\b[^.;!?]*\b(?:gave\s+up|quit|stopped|hated|dropped|didn'?t|never|no\s+longer)\b", t, I):
                return []  # "started the guitar but gave up": taken up and dropped
            if m.group("cls"):
                text = f"Takes {v} {m.group('cls').strip().lower()}"
            elif head in lx.INSTRUMENTS:
                text = f"Plays the {v}"
            else:
                text = f"Does {v}"
            return [Statement(act="assert", text=text, fact_type="preference",
                              valid_from=dates.valid_from, clause=c, rule="act:pastime")]
    # "I cycle to work", "we get the train to the office": how the user commutes (invariant 166)
    m = re.search(r"^(?:i|we)\s+(?P<adv>(?:now|usually|always|mostly|normally|still|also)\s+)?"
                  r"(?P<how>cycle|bike|walk|drive|run|commute|scoot|(?:get|take|catch|ride)\s+(?:the|a|my)\s+"
                  r"[\w-]+(?:\s+[\w-]+)?)\s+(?:to|into)\s+(?P<to>work|the\s+office|the\s+lab|school|uni|"
                  r"college|the\s+hospital)\b(?P<rest>[^,;!?]*)", t, I)
    if m and not re.search(r"\b(?:today|tonight|tomorrow|this\s+morning)\b", " ".join(dates.found), I):
        how = m.group("how").lower()
        words = how.split()
        verb = third_singular(words[0]) if words[0] != "bike" else "cycles"
        text = cap(" ".join([verb, *words[1:]]) + f" to {m.group('to').lower()}")
        changed = bool(re.search(r"\b(?:now|instead|these\s+days|any\s*more)\b", c, I))
        return [Statement(act="change" if changed else "assert", text=text, fact_type="preference",
                          slot="commute", valid_from=dates.valid_from, clause=c, rule="act:commute")]
    # "I've started drinking coffee", "I took up climbing": a new habit, replacing one of the
    # same verb ("Drinks tea") when there is one.
    m = re.search(r"\bi\s+(?:have\s+|'ve\s+|just\s+|recently\s+|finally\s+)*(?:started|began|begun|"
                  r"took\s+up|taken\s+up|got\s+into)\s+(?P<verb>[a-z]+)ing\b\s*(?P<v>(?:[^,.;!?]|(?<=\d)\.(?=\d))*)",
                  t, I)  # "0.25 mg": a decimal point ends no value (invariant 266)
    if m and _gerund_base(m.group("verb")) in _VERBS.split("|"):
        verb = _gerund_base(m.group("verb"))
        thing = tidy(m.group("v"))
        if not re.match(r"^(?:to|it|that|this|again)\b", thing, I):
            text = (f"Uses {thing}" if verb == "use" else
                    f"{cap(third_singular(verb))} {third_person(thing)}".strip())
            return [Statement(act="change", text=text, fact_type="preference", slot=f"verb:{verb}",
                              valid_from=dates.valid_from, clause=c, rule="act:started")]
    # "I'm not with Vodafone anymore": a provider that ended (invariant 166)
    m = re.search(r"\b(?:i'?m|i\s+am|we'?re|we\s+are)\s+no\s+longer\s+(?:with|on|using)\s+(?P<v>" + UPPER +
                  r"[\w&'’.+-]*(?:\s+" + UPPER + r"[\w&'’.+-]*){0,2})", t, I)
    if m:
        return [Statement(act="change", text=f"No longer uses {m.group('v')}", fact_type="preference",
                          previous=m.group("v"), valid_from=dates.valid_from, clause=c, rule="act:no-longer-with")]
    # "I'm down to 2 espressos a day": how much of a habit now (invariant 166)
    m = re.search(r"\b(?:i'?m|i\s+am)\s+(?:now\s+)?(?:down|up)\s+to\s+(?P<n>\d+|one|two|three|four|five|six)\s+"
                  r"(?P<v>[a-z][\w-]*?)s?\s+(?P<per>a|per|each)\s+(?P<unit>day|week|night|month)\b", t, I)
    if m:
        # invariant 365: one of a thing is said in the singular ("Has one espresso a day")
        one = m.group("n").lower() in {"one", "1"}
        return [Statement(act="change", text=f"Has {m.group('n')} {m.group('v')}{'' if one else 's'} "
                                             f"a {m.group('unit')}",
                          fact_type="preference", previous=m.group("v").lower(),
                          valid_from=dates.valid_from, clause=c, rule="act:down-to")]
    # "I studied law at Durham": what the user studied stays true (invariant 166)
    m = re.search(r"^(?:i|we)\s+(?:have\s+|'ve\s+)?(?:studied|read|trained\s+in)\s+(?P<v>[a-z][\w -]*?)\s+"
                  r"(?:at|in)\s+(?P<at>(?:the\s+)?" + UPPER + r"[\w'’.-]*(?:\s+[\w'’.-]+){0,3}?)\s*(?:[,.;!?]|$)", t, I)
    if m and m.group("v").lower() not in {"it", "that", "this", "hard", "abroad", "there", "for"}:
        return [Statement(act="assert", text=f"Studied {m.group('v')} at {tidy(m.group('at'))}",
                          fact_type="identity", valid_from=dates.valid_from, clause=c, rule="act:studied")]
    # "I'm really into bouldering these days": a liking.
    m = re.search(r"\b(?:i'?m|i\s+am)\s+(?:really\s+|totally\s+|big\s+|well\s+|so\s+|now\s+|very\s+much\s+)*"
                  r"into\s+(?P<v>[^,.;!?]+)", t, I)
    if m and not re.match(r"^(?:it|that|this|you|him|her|them|the\s+idea)\b", m.group("v"), I):
        thing = obj_phrase(m.group("v"), keep_article=True)
        if thing:
            return [Statement(act="assert", text=f"Likes {third_person(thing)}", fact_type="preference",
                              clause=c, rule="act:into")]
    # "I'm on a Galaxy S24 now": the thing they use now.
    m = (re.search(r"\b(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:now\s+)?on\s+(?:a|an|the)\s+(?P<v>[^,.;!?]+?)"
                   r"\s+(?:now|these\s+days|nowadays)\b", t, I)
         or re.search(r"\b(?:i'?m|i\s+am|we'?re|we\s+are)\s+(?:now\s+)?back\s+(?:on|to)\s+(?:(?:a|an|the)\s+)?"
                      r"(?P<v>(?-i:[A-Z0-9])[^,.;!?]*?)(?:\s+(?:now|again))?(?=\s*(?:[,.;!?]|$))", t, I))
    if m and looks_like_a_thing(m.group("v")) and not re.search(r"\b(?:call|train|bus|plane|flight|"
                                                                 r"way|phone\s+call|diet)\b", m.group("v"), I):
        thing = tidy(m.group("v"))
        det = article(thing) if re.search(r"\bon\s+(?:a|an)\s", m.group(0), I) else ""
        return [Statement(act="change", text=f"Uses {det}{thing}",
                          fact_type="preference", clause=c, rule="act:on-now")]
    m = re.search(r"\b(?:i'?m|i\s+am)\s+(?:now\s+|currently\s+|back\s+to\s+)?using\s+(?P<v>[^,.;!?]+?)"
                  r"(?:\s+instead\s+of\s+(?P<p>[^,.;!?]+))?(?=\s*(?:[,.;!?]|$))", t, I)
    if m:
        thing = tidy(m.group("v"))
        changed = bool(m.group("p") or re.search(r"\b(?:now|again|these\s+days|instead)\b", c, I))
        if thing and not re.match(r"^(?:it|that|this|the\s+app|my\s+phone)\b", thing, I):
            return [Statement(act="change" if changed else "assert", text=f"Uses {thing}",
                              fact_type="preference", previous=tidy(m.group("p")) if m.group("p") else None,
                              slot="verb:use" if changed else None, clause=c, rule="act:using")]
    m = re.search(r"\b(?:i'?m|i\s+am)\s+(?:now\s+|currently\s+|also\s+)?(?P<verb>learning|training|"
                  r"studying|taking|doing|playing|volunteering|working\s+on|practising|practicing|"
                  r"writing|building|reading|running|coaching|mentoring)\s+(?P<v>[^,.;!?]+)", t, I) or \
        re.search(r"\b(?:i|we)\s+(?:have\s+|'ve\s+)?(?:just\s+|recently\s+|finally\s+)?(?:started|began|"
                  r"begun|been)\s+(?P<verb>learning|studying)\s+(?P<v>[^,.;!?]+)", t, I)
    if m:
        thing = tidy(with_list(m.group("v"), t[m.end():]))  # a list keeps its items (invariant 276)
        if m.group("verb").lower() == "learning" and re.match(r"^to\s+\w", thing, I):
            pass  # "I'm learning to play the piano"
        elif re.match(r"^(?:to|a\s+break|it|that|this|about)\b", thing, I):
            thing = ""
        if thing and re.search(r"\b(?:today|tonight|tomorrow|this\s+(?:morning|afternoon|evening|"
                               r"weekend)|monday|tuesday|wednesday|thursday|friday|saturday|"
                               r"sunday)\b", " ".join(dates.found), I):
            return []  # "I'm playing football tonight": a one-off, not a habit (invariant 141)
        if thing:
            return [Statement(act="assert", text=f"Is {m.group('verb').lower()} {third_person(thing)}",
                              fact_type="world", valid_from=dates.valid_from, clause=c, rule="act:ing")]
    m = re.search(r"\bi\s+(?P<adv>now\s+|usually\s+|always\s+|also\s+|still\s+|do\s+|mostly\s+|only\s+|"
                  r"normally\s+)?(?P<verb>" + _VERBS + r")\s+(?P<v>[^,;!?]+?)(?P<now>\s+now)?"
                  r"(?:\s+instead\s+of\s+(?P<p>[^,.;!?]+))?\s*(?=[,.;!?]|$)", t, I)
    if m:
        verb = m.group("verb").lower()
        thing = tidy(m.group("v"))
        intransitive = verb in {"run", "cycle", "swim", "walk", "climb", "boulder", "surf", "ski",
                                "hike", "meditate", "bake", "cook", "paint", "sing", "knit", "train"}
        if intransitive and _HABIT.search(thing) and re.match(r"^(?:every|each|daily|weekly|twice|"
                                                              r"once|most|on|at|\w+\s+times)\b",
                                                              thing, I):
            pass  # "I swim twice a week": the habit is the frequency
        elif not thing or re.match(r"^(?:to|it|that|this|you|there|home|out|back|a\s+bit|most|every|"
                                   # "I visit her every summer": who "her" is lives in another
                                   # clause; alone it says nothing (invariant 288)
                                   r"her|him|them|us|"
                                   r"each|daily|weekly|twice|once|sometimes|often|always|a\s+lot|"
                                   r"lots|when|whenever|after|before|late|early|fast|slow|too\s+"
                                   r"late)\b", thing, I):
            return None  # no object: "I practise most evenings" says nothing durable
        if verb == "use":
            text = f"Uses {thing}"
        else:
            text = f"{cap(third_singular(verb))} {third_person(thing)}"
        changed = bool(m.group("now") or m.group("p") or re.search(
            r"\b(?:now|these\s+days|nowadays|instead|any\s*more)\b", c, I))
        return [Statement(act="change" if changed else "assert", text=text,
                          fact_type="preference",
                          previous=obj_phrase(m.group("p"), keep_article=True) if m.group("p") else None,
                          slot=f"verb:{verb}" if changed else None, valid_from=dates.valid_from,
                          clause=c, rule="act:verb")]
    # Any other verb said as a habit ("I go to the gym every day", "we do yoga on Sundays"):
    # the habitual cue is what makes it durable (invariant 138).
    m = re.search(r"^(?:i|we)\s+(?P<adv>(?:usually|always|often|normally|regularly|still)\s+)?"
                  r"(?P<verb>[a-z]+)\s+(?P<v>[^,.;!?]+)", t, I)
    if m and (m.group("adv") or _HABIT.search(t)) and m.group("verb").lower() not in _NOT_HABITS \
            and not re.search(r"(?:ed|n't)$", m.group("verb").lower()):
        verb, thing = m.group("verb").lower(), tidy(m.group("v"))
        if thing and not re.match(r"^(?:to\s+(?:be|do|have|get|go\s+home)|it|that|this|so|not|you)\b",
                                   thing, I):
            return [Statement(act="assert", text=f"{cap(third_singular(verb))} {third_person(thing)}",
                              fact_type="preference", clause=c, rule="act:habit")]
    return None


_HABIT = re.compile(r"\b(?:every\s+(?:day|morning|evening|night|week|weekend|month|year|monday|tuesday|"
                    r"wednesday|thursday|friday|saturday|sunday)|each\s+(?:day|week|morning)|twice\s+a|"
                    r"once\s+a|(?:three|four|five|two|\d+)\s+times\s+a|\d+x\s+a|daily|weekly|on\s+(?:mondays|tuesdays|"
                    r"wednesdays|thursdays|fridays|saturdays|sundays|weekends|weekdays)|at\s+weekends|"
                    r"most\s+(?:days|mornings|evenings|weekends))\b", I)
_NOT_HABITS = frozenset("""think guess hope mean know need want wonder feel believe suppose reckon bet
say tell agree understand see hear wish doubt forget remember am was were can could will would
should must might may did do does get go have has had make take come try wake cry worry miss
check call text email message ring ask pay spend waste lose eat sleep""".split()) - {"go", "do"}


def my_noun(c: str, dates: Dates) -> list[Statement] | None:
    """"My new phone is a Pixel 9", "Our broadband is now Community Fibre", "my favourite band is"."""
    t = dates.text
    if re.match(r"^(?:my|our)\s+(?:[\w-]+\s+)?(?:birthday|anniversary)\s+is\s+(?:in|on)\s", c, I):
        t = c  # "my birthday is in June": the date is the value, not when it was said (inv. 317)
    the = re.match(r"^the\s+(?P<n>[\w-]+)\s+(?:is|are)\s+(?!not\b).*\b(?:now|these\s+days|nowadays)\b", t, I)
    if the and (the.group("n").lower() in lx.SLOT_NOUNS or the.group("n").lower() in lx.KIND_NAMES) \
            and re.search(r"\s(?:is|are)\s+(?:now\s+)?(?:(?:a|an|the)\s+)?(?:" + UPPER + r"|\d)", t):
        # a named value only: "the team is brilliant now" is an opinion (invariants 292, 308)
        # "The hub is a Home Assistant Yellow now": the one hub the user has, changed (inv. 292)
        t = "my" + t[3:]
    m = re.match(r"^(?:my|our)\s+(?P<new>new\s+|current\s+|main\s+(?=\w+\s+(?:is|are)))?"
                 r"(?P<n>[\w'’ -]+?)\s+(?:is|are|'s)\s+(?:now\s+|actually\s+|still\s+)?"
                 r"(?P<v>[^,;!?]+?)(?P<now>\s+(?:now|these\s+days|nowadays))?\s*(?:[,;!?].*|(?<!\bDr)(?<!\bMr)(?<!\bMrs)(?<!\bMs)(?<!\bSt)\.(?:\s.*)?)?$", t, I)
    if not m:
        return None
    noun, value = tidy(m.group("n")), tidy(m.group("v"))
    if noun.split()[-1].lower() == "address":
        # Invariant 212: an address holds its commas ("12 Elm Road, Edinburgh EH6 5AA"); only a
        # new clause ("…, and I …", "…, we …") or a sentence end closes it.
        whole = re.match(r"^(?:my|our)\s+[\w'’ -]*?address\s+(?:is|'s)\s+(?:now\s+)?(?P<v>[^;!?]+?)"
                         r"(?:,?\s+(?:and|but|so)\b.*|,\s*(?:i|we)\b.*|\.(?:\s.*)?)?$", t, I)
        if whole:
            value = tidy(whole.group("v"))
    hobby = noun.split()[-1].lower() in {"hobby", "hobbies", "sport", "passion", "pastime"}
    if not value or not hobby and re.match(r"^(?:not|no|broken|jammed|down|off|on|dead|offline|slow|"
                             r"terrible|awful|great|fine|ok|okay|good|bad|weird|acting|playing|"
                             r"going|doing|being|so|very|too|really|still|a\s+mess|a\s+bit|(?-i:[a-z]\w*ing))\b"
                             r"(?!\s+(?:\d|the\s+\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))",
                             value, I):
        return None
    if noun.split()[0].lower() in lx.RELATIONS:
        return None
    head_noun = noun.split()[-1].lower()
    provider = head_noun in {"broadband", "energy", "electricity", "gas", "bank", "phone", "mobile",
                             "insurance", "mortgage", "pension", "internet", "wifi", "contract",
                             "isp", "network", "provider", "supplier", "account", "plan"}
    dated = head_noun in {"birthday", "anniversary", "due", "wedding", "graduation"} and re.match(
        r"^(?:in|on)\s+(?:(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?)?(?:jan|feb|mar|apr|may|jun|jul|"
        r"aug|sep|oct|nov|dec)", value, I)
    if provider and re.match(r"^(?:now\s+)?with\s+" + UPPER, value) or dated:
        pass  # "our broadband is now with BT": who provides it (invariant 238); "my birthday is
        # in June": when (invariant 317)
    elif re.match(r"^(?:in|at|with|under|behind|outside|inside|away|out|over|upstairs|downstairs|"
                r"back|round|around|still\s+in|at\s+home|in\s+the\s+(?:garage|shop|car|bin|loft))\b", value, I):
        return None  # "my car is in the garage": where it is now, not what it is
    if re.fullmatch(r"[a-z]+", value) and not hobby and head_noun not in lx.SLOT_NOUNS and not re.search(
            r"\bfavou?rite\b", noun, I):
        return None  # "my flight is delayed": a passing state, not an attribute
    main = (m.group("new") or "").strip().lower() == "main"
    label = ("Main " if main else "") + noun
    changed = bool(m.group("new") and m.group("new").strip().lower() == "new") or bool(
        m.group("now")) or bool(re.search(r"\b(?:is|are)\s+now\b|\bthese\s+days\b", t, I))
    head = noun.split()[-1].lower()
    ftype: FactTypeName = "world"
    if re.search(r"\bfavou?rite\b", noun, I):
        ftype = "preference"
    elif head in {"name", "pronouns", "age", "nationality", "religion", "birthday"}:
        ftype = "identity"
    text = f"{cap(label)} {'are' if head.endswith('s') and not head.endswith('ss') else 'is'} {value}"
    recurring = re.search(r"\b(?:birthday|anniversary|every|each)\b", t, I)
    slot = f"noun:{head}" if (head in lx.SLOT_NOUNS or re.search(r"\bfavou?rite\b", noun, I)) \
        and not re.search(r"['’]s\s+[\w-]+$", noun) else f"noun:{noun.lower()}"
    # Invariant 396: "my team lead's name", "my dog's name" is someone's or something's name,
    # never the user's own: its slot is the whole phrase, so it replaces only a fact saying it
    return [Statement(act="change" if changed else "assert", text=third_person(text),
                      fact_type=ftype, slot=slot, previous=None,
                      valid_from=None if recurring else dates.valid_from,
                      valid_to=None if recurring else dates.valid_to, clause=c, rule="my-noun")]


# Invariant 331: after a move, where they are now said with a pronoun ("…, she's in Brighton
# now", "he's renting a place in Campo de Ourique"): the most specific place.
_THERE_NOW = re.compile(r"^[^.;!?]*?(?:,|\band\b|[.;!]\s*)\s*(?:(?i:she|he|they)(?:'s|’s|\s+is|'re|’re|\s+are)\s+"
                        r"(?:now\s+)?(?:(?:living|based|settled|staying)\s+|renting\s+(?:a|an)\s+"
                        r"(?:place|flat|house|room|apartment|studio)\s+|(?:in\s+)?(?:a|an)\s+(?:new\s+)?"
                        r"(?:place|flat|house|apartment)\s+)?in\s+(?P<q>" + UPPER + r"[\w'’-]*"
                        r"(?:\s+(?:de|do|da|del|la|le|upon|on|am)?\s*" + UPPER + r"[\w'’-]*){0,3}))", re.IGNORECASE)


def _within(spot: str, area: str) -> str:
    return spot if area.lower() in spot.lower() else f"{spot}, {area}"


def refine_move(st: Statement, c: str) -> bool:
    """Invariant 331: the sentence after a move says where they are, more closely ("Jan moved
    to Lisbon. He's renting a place in Campo de Ourique."): the move keeps that place, within
    the one it named. False when the sentence says no such thing."""
    moved = re.match(r"^(?P<who>.+?) lives in (?P<p>.+)$", st.text or "")
    if st.rule != "third:moved" or not moved:
        return False
    said = re.sub(r"^" + re.escape(moved.group("who")) + r"(?=\s|['’])", "she", c.strip())  # "he", read
    m = _THERE_NOW.match(". " + said)
    if not m or not re.fullmatch(r"(?:\s+now)?\W*", said[m.end() - 2:]):
        return False
    st.text = f"{moved.group('who')} lives in {_within(m.group('q'), moved.group('p'))}"
    return True


def third_party(c: str, dates: Dates) -> list[Statement] | None:
    """Named things and pets that changed: "Pi-hole runs on a Pi 5 now", "Max died"."""
    t = dates.text
    subj = r"(?P<s>(?:the\s+)?" + UPPER + r"[\w'’-]*(?:\s+[A-Z0-9][\w'’-]*){0,2})"
    pet = "|".join(sorted(lx.PETS, key=len, reverse=True))
    t = re.sub(r"^(?i:(?:my|our)\s+(?:old\s+|late\s+|beloved\s+|dear\s+|sweet\s+)*(?:" + pet +
               r"))\s+(?=" + UPPER + r")", "", t)  # "our old cat Luna died": Luna
    m = re.match(r"^(?i:(?:my|our)\s+(?:old\s+|late\s+|beloved\s+|dear\s+|sweet\s+)*(?P<pet>" + pet +
                 r"))\s+(?:has\s+)?(?:died|was\s+put\s+down|was\s+put\s+to\s+sleep)\b", t)
    if m:  # "our dog died": the one pet of that kind on record (matching.pick_old)
        kind = m.group("pet").lower()
        return [Statement(act="change", text=f"Their {kind} has died", fact_type="world",
                          previous=kind, valid_from=dates.valid_from, clause=c, rule="third:pet-died")]
    m = re.match(subj + r"\s+(?:has\s+)?(?:died|passed\s+away|was\s+put\s+down)\b", t)
    if m:
        who = tidy(m.group("s"))
        return [Statement(act="change", text=f"{who} has died", fact_type="world", previous=who,
                          valid_from=dates.valid_from, clause=c, rule="third:died")]
    # "Aiko started university in Osaka": a named person's school, kept only when a fact on
    # record names them among the user's people (the agent checks; invariant 269)
    m = re.match(subj + r"\s+(?:has\s+)?(?:just\s+)?(?P<rest>(?:starts?|started|is\s+starting|began|begins?)\s+.+)$", t)
    if m and m.group("s").lower() not in {"i", "it", "that", "this", "there", "the", "we", "she", "he", "they"}:
        from .about_me import family_event  # about_me reads things; late import
        ev = family_event(tidy(m.group("s")), tidy(m.group("rest")))
        if ev is not None and ev.rule == "relation:event:school":
            ev.rule, ev.clause, ev.valid_from = "third:school", c, dates.valid_from
            return [ev]
    # "Amara's moved to London", "Tom got a new job at the council": news of someone named, kept
    # only as the change of what is on record about them where they live or work (invariant 165)
    # invariant 331: "Anjali has moved from Bangalore to Hyderabad", "Amara's moving to Leeds"
    m = re.match(subj + r"(?:'s|\s+has|\s+is)?\s+(?:just\s+|finally\s+)?(?P<mv>moved|relocated|moving|relocating)\s+"
                 r"(?:back\s+)?(?:from\s+" + UPPER + r"[\w'’-]*(?:\s+" + UPPER + r"[\w'’-]*)?\s+)?to\s+(?:the\s+)?"
                 r"(?P<p>" + UPPER + r"[\w'’-]*(?:\s+" + UPPER + r"[\w'’-]*)?)\b", t)
    if m and re.match(r"\s+(?:office|team|branch|site|campus|hq|department|store|shop|ward|project|"
                      r"account|side|group|unit)\b", t[m.end():], re.IGNORECASE):
        m = None  # "Olu moved to the Dubai office": a workplace, not where they live (inv. 331)
    if m and m.group("mv").endswith("ing") and dates.valid_from is None:
        m = None  # "Amara's moving to Leeds" with no when: a plan, not where she lives
    if m and m.group("s").lower() not in {"i", "it", "that", "this", "there", "the", "we"} and not re.fullmatch(
            r"(?:i|we|you|they|he|she|it)['’](?:m|re|ve|d|ll|s)", m.group("s"), re.IGNORECASE):
        # invariant 398: "I'm moving to Lyon" is the user, never a person called "I'm"
        who = re.sub(r"['’]s$", "", tidy(m.group("s")))
        where = m.group("p")
        if (there := _THERE_NOW.match(t[m.end():])) is not None:
            where = _within(there.group("q"), where)  # "..., she's in Brighton now" (inv. 331)
        return [Statement(act="change", text=f"{who} lives in {where}", fact_type="identity",
                          previous=f"{who} lives", valid_from=dates.valid_from, clause=c,
                          rule="third:moved")]
    m = re.match(subj + r"(?:'s|\s+has)?\s+(?:just\s+|finally\s+)?(?:got|landed|started|took|accepted)\s+"
                 r"(?:a\s+)?(?:new\s+)?job\s+(?:at|with)\s+"
                 # "at a design agency", "at DeepMind in London": an employer said with an article,
                 # and where it is (invariant 253)
                 r"(?P<o>(?:an?\s+(?:[\w-]+\s+){0,2}?[\w-]+(?=\s+(?:in|at|near|so|and|but|which|because)\b|"
                 r"\s*[,.;!?]|\s*$)|(?:the\s+)?[\w&'’.-]+(?:\s+" + UPPER + r"[\w&'’.-]*){0,2})"
                 r"(?:\s+in\s+" + UPPER + r"[\w'’-]*(?:\s+" + UPPER + r"[\w'’-]*)?)?)", t)
    if m and m.group("s").lower() not in {"i", "it", "that", "this", "there", "the", "we"}:
        who = re.sub(r"['’]s$", "", tidy(m.group("s")))
        return [Statement(act="change", text=f"{who} works at {tidy(m.group('o'))}", fact_type="identity",
                          previous=f"{who} works", valid_from=dates.valid_from, clause=c, rule="third:job")]
    m = re.match(subj + r"\s+(?:isn'?t|is\s+not|doesn'?t|does\s+not|no\s+longer)\s+(?P<v>[^,.;!?]+?)"
                 r"\s+any\s*more\b", t)
    if m and m.group("s").lower() not in {"i", "it", "that", "this", "there"}:
        who, rest = tidy(m.group("s")), tidy(m.group("v"))
        verb = "is no longer" if re.search(r"isn'?t|is\s+not", m.group(0), I) else "no longer"
        if verb == "no longer" and re.match(r"^[a-z]+\b", rest):
            # "Mochi doesn't fly with me any more": "Mochi no longer flies with them", and the
            # fact it changes is the one about Mochi that shares the verb (invariant 274)
            first, _, tail = rest.partition(" ")
            rest = f"{third_singular(first)} {tail}".strip()
        return [Statement(act="change", text=f"{who} {verb} {third_person(rest)}", fact_type="world",
                          previous=who, clause=c, rule="third:not-any-more")]
    m = re.match(subj + r"\s+(?P<verb>(?:is|are|lives|runs|stays|sleeps|uses|has|works|goes|"
                 r"belongs)\b[^,;!?]*?)\s+(?:now|these\s+days|nowadays)\b(?P<tail>.*)$", t)
    if m and re.match(r"^has\s+(?:a|an)\s+(?:little\s+|big\s+|baby\s+|new\s+)*(?:sister|brother|sibling|"
                      r"friend|companion|playmate|buddy)\b", m.group("verb"), I):
        m = None  # "Biscuit has a little sister now": a new pet said of an old one (inv. 335)
    if m and m.group("s").lower() not in {"i", "it", "that", "this", "there", "the", "we"}:
        who = tidy(m.group("s"))
        dead = re.search(r"(?:the\s+)?(?P<o>[\w'’ -]+?)\s+(?:died|broke|is\s+gone|was\s+stolen)",
                         m.group("tail"), I)
        prev = who if not dead else f"{who}"
        return [Statement(act="change", text=third_person(f"{who} {tidy(m.group('verb'))}"),
                          fact_type="world", previous=prev, clause=c, rule="third:now")]
    return None


# Invariant 304: money held with a provider ("opened a savings account with Kuda", "took out
# life insurance with Aviva", "pay into a SIPP with Vanguard", "started paying for YouTube
# Premium"): what the user has, with whom. A thing bought on finance or a card lost is no account.
_ACCOUNT = (r"(?:(?:current|savings?|joint|business|student|easy\s+access|isa|bank)\s+)?account|"
            r"(?:lifetime\s+|stocks\s+and\s+shares\s+|cash\s+|junior\s+)?isa|sipp|pension|"
            r"(?:life|health|home|car|travel|pet|contents|buildings|income\s+protection)\s+(?:insurance|cover|policy)|"
            r"insurance\s+policy|mortgage|credit\s+card|savings\s+pot|premium\s+bonds")
_MONEY_ORG = r"(?P<org>" + UPPER + r"[\w&'’.-]*(?:\s+" + UPPER + r"[\w&'’.-]*){0,2})"


def accounts(c: str, dates: Dates) -> list[Statement] | None:
    t = c.strip()
    m = re.search(r"^(?:(?:i|we)\s+)?(?:have\s+|'ve\s+|just\s+|finally\s+|also\s+|now\s+)*"
                  r"(?:opened|took\s+out|taken\s+out|set\s+up|started|pay\s+into|paying\s+into|"
                  r"started\s+(?:putting|paying|saving)\s+[^,;]*?\s+into|put\s+[^,;]*?\s+into|switched\s+to)\s+"
                  r"(?:(?:a|an|my|our)\s+)?(?:new\s+)?(?:(?P<brand>" + UPPER + r"[\w&'’.-]*(?:\s+" + UPPER +
                  r"[\w&'’.-]*)?)\s+)?(?P<x>" + _ACCOUNT + r")\b(?:\s+(?:with|at|from|through|via)\s+" +
                  _MONEY_ORG + r")?", t, I)
    if m and (m.group("brand") or m.group("org") or not re.match(r"(?i)^(?:mortgage|pension)$", m.group("x"))):
        x = re.sub(r"\s+", " ", m.group("x"))
        x = x if x.isupper() or len(x) > 4 else x.upper() if x.lower() in {"isa", "sipp"} else x
        what = f"{m.group('brand')} {x}" if m.group("brand") else x
        org = f" with {m.group('org').rstrip('.')}" if m.group("org") else ""
        a = "" if re.search(r"(?:insurance|cover|bonds)$", what, I) and not m.group("brand") else article(what)
        return [Statement(act="assert", text=f"Has {a}{what}{org}", fact_type="world",
                          valid_from=dates.valid_from, clause=c, rule="money:account")]
    m = re.search(r"^(?:(?:i|we)\s+)?(?:have\s+|'ve\s+|just\s+|now\s+)*(?:started\s+paying\s+for|signed\s+up\s+(?:for|to)|"
                  r"subscribed\s+to|subscribe\s+to|pay\s+for)\s+(?P<v>" + UPPER + r"[\w&'’.+-]*(?:\s+" + UPPER +
                  r"[\w&'’.+-]*){0,2})", t, I)
    if m:
        return [Statement(act="assert", text=f"Subscribes to {m.group('v').rstrip('.')}", fact_type="world",
                          valid_from=dates.valid_from, clause=c, rule="money:subscribes")]
    return None


# Invariant 304 (health): an injury to a part of the body is a limit worth keeping ("broke my
# wrist", "hurt my knee", "tore my hamstring"); "hurt my feelings" names no part of the body.
_BODY = (r"knee|knees|ankle|ankles|wrist|wrists|arm|leg|back|lower\s+back|shoulder|hip|elbow|finger|"
         r"thumb|toe|foot|hand|neck|hamstring|calf|achilles|acl|rib|ribs|collarbone|shin|groin")
_HURT = {"broke": "a broken", "broken": "a broken", "fractured": "a fractured", "sprained": "a sprained",
         "twisted": "a twisted", "tore": "a torn", "torn": "a torn", "pulled": "a pulled",
         "dislocated": "a dislocated", "hurt": "an injured", "injured": "an injured", "damaged": "an injured"}


def injuries(c: str, dates: Dates) -> list[Statement] | None:
    m = re.search(r"^(?:(?:i|i'?ve|i\s+have)\s+)?(?:just\s+|badly\s+|also\s+)*(?P<v>" + "|".join(_HURT) +
                  r")\s+my\s+(?P<side>(?:left|right)\s+)?(?P<part>" + _BODY + r")\b", c.strip(), I)
    if not m or re.search(r"\b(?:the\s+(?:day|week|month|year|night)\s+before|before\s+that|back\s+then|"
                          r"years?\s+ago|as\s+a\s+(?:kid|child|teenager|boy|girl)|when\s+i\s+was|once)\b", c, I):
        return None  # "I hurt my finger the week before" (a past trip): long healed, no limit now
    part = (m.group("side") or "").lower() + m.group("part").lower()
    return [Statement(act="assert", text=f"Has {_HURT[m.group('v').lower()]} {part}", fact_type="constraint",
                      valid_from=dates.valid_from, clause=c, rule="health:injury")]
