"""People and life events said in the user's own voice (issue 12, invariants 330-339): who the
user reports to now, where a relative on record lives now, the names of the people and pets a
life event brings, and which person a forget request means. Pure functions, deterministic."""

from __future__ import annotations

import re
from datetime import date

from . import lexicon as lx
from .dates import find_dates
from .model import Statement
from .phrases import UPPER, I

# A person's name: one or two capitalised words ("Małgorzata", "Siobhán", "Mary Ann").
_WHO = r"(?-i:" + UPPER + r")[\w'’-]+(?:\s+(?-i:" + UPPER + r")[\w'’-]+)?"
_ROLE = r"(?:line\s+|team\s+)?(?:manager|boss)"
_NOT_A_NAME = frozenset("""i i'm the a an my our your his her their this that these those it its
there here he she they we you who what when where why how not no never now also still just new
great fine nice lovely amazing awful terrible good bad ok okay sick ill away off on out dr mr mrs ms
miss prof doctor professor sir dame""".split())
_DEMONYM = re.compile(r"(?:ish|ese|ian|ean|ic|ch|an|i)$", I)
_HEDGE = re.compile(r"\b(?:if|might|may|maybe|perhaps|probably|would|could|should|whether|hope|"
                    r"hoping|think|thinks|rumou?r|rumou?red|supposedly|not|n't|never|told|said|"
                    r"says|asked|wish|wants?)\b", I)


def a_name(n: str) -> bool:
    """A person's name, not a pronoun, a relation, a role or a nationality (invariant 330)."""
    return _a_name(n)


def _a_name(n: str) -> bool:
    first = n.split()[0]
    if first.lower() in _NOT_A_NAME or first.lower() in lx.RELATIONS | lx.ROLE_WORDS:
        return False
    # "My manager is Irish": a nationality is no name (a name may still end in "-an": "Ivan")
    return not (len(n.split()) == 1 and _DEMONYM.search(first) and first.lower() in _NATIONAL)


_NATIONAL = frozenset("""irish english british scottish welsh french german spanish polish danish
swedish finnish dutch italian indian chinese japanese korean american canadian australian
portuguese brazilian mexican nigerian kenyan greek turkish russian ukrainian czech austrian swiss
belgian norwegian icelandic israeli iranian pakistani bangladeshi egyptian lebanese thai
vietnamese filipino scandinavian european african asian""".split())


def _manager(name: str, c: str, *, changed: bool, when: date | None, org: str | None = None,
             previous: str | None = None, rule: str) -> list[Statement]:
    at = f" at {org}" if org else ""
    return [Statement(act="change" if changed else "assert", text=f"Manager{at} is {name}",
                      fact_type="identity", slot="noun:manager", previous=previous,
                      valid_from=when, clause=c, rule=rule)]


# Invariant 330: the user's manager named in the shapes people say it: "from January my manager
# will be Małgorzata" (dated), "Siobhán is my new manager, she started yesterday", "my manager
# at Nordwind is Henrik now, Sabine left", "I report to someone called Gareth now instead of
# Lisa". A hedge, a negation or a report of someone else's words before it reads nothing.
_WILL_BE = re.compile(r"^(?:from|as\s+of|starting(?:\s+from|\s+in)?|in)\s+(?P<when>[^,;]+?),?\s+"
                      r"(?:my|our)\s+(?:new\s+)?" + _ROLE + r"\s+(?:will\s+be|is\s+going\s+to\s+be|"
                      r"is)\s+(?P<n>" + _WHO + r")\s*(?:[,.;!]|$)", I)
_MY_ROLE_IS = re.compile(r"^(?:and\s+|so\s+)?(?:my|our)\s+(?P<new>new\s+)?" + _ROLE +
                         r"(?:\s+at\s+(?P<org>(?-i:" + UPPER + r")[\w&'’.-]*))?\s+(?:is|'s)\s+"
                         r"(?P<now>now\s+)?(?P<n>" + _WHO + r")(?P<now2>\s+now)?"
                         r"(?=\s*[,.;!]|\s*$|\s+from\s+(?:the\s+)?[a-z])", I)
_IS_MY_ROLE = re.compile(r"^(?P<n>" + _WHO + r")\s+is\s+(?P<now>now\s+)?(?:my|our)\s+(?P<new>new\s+)?"
                         + _ROLE + r"(?P<now2>\s+now)?\s*(?:,\s*(?P<tail>(?:she|he|they)\s+"
                         r"(?:started|joined|took\s+over)\b[^,;]*?)\s*)?(?:[.;!]|$)", I)
_REPORT_TO = re.compile(r"\b(?:i|we)\s+(?:now\s+)?report\s+(?:directly\s+)?to\s+(?:(?:someone|somebody|"
                        r"a\s+(?:guy|man|woman|bloke|lady|chap))\s+(?:called|named)\s+)?"
                        r"(?P<n>" + _WHO + r")(?:\s+now)?\s+(?:instead\s+of|rather\s+than|and\s+not)\s+"
                        r"(?P<o>" + _WHO + r")\b", I)
_REPORT_CALLED = re.compile(r"\b(?:i|we)\s+(?:now\s+)?report\s+(?:directly\s+)?to\s+(?:someone|somebody|"
                            r"a\s+(?:guy|man|woman|bloke|lady|chap))\s+(?:called|named)\s+"
                            r"(?P<n>" + _WHO + r")(?:\s+now)?(?=\s*(?:[,.;!]|$))", I)


def manager_news(c: str, today: date) -> list[Statement] | None:
    t = c.strip()
    if m := _WILL_BE.match(t):
        when = find_dates(t[:m.end("when")], today).valid_from
        if when is not None and _a_name(m.group("n")):
            return _manager(m.group("n"), c, changed=True, when=when, rule="people:manager-from")
    if m := _IS_MY_ROLE.match(t):
        if _a_name(m.group("n")):
            when = find_dates(m.group("tail"), today).valid_from if m.group("tail") else None
            changed = bool(m.group("new") or m.group("now") or m.group("now2") or m.group("tail"))
            return _manager(m.group("n"), c, changed=changed, when=when, rule="people:manager-is")
    if m := _MY_ROLE_IS.match(t):
        rest = t[m.end():]
        left = re.match(r"\s*,\s*(?P<o>" + _WHO + r")\s+(?:has\s+)?(?:left|quit|moved|retired|went)\b", rest)
        dated = re.match(r"\s*,?\s*(?:since|from|as\s+of)\s+[^,;]+", rest, I)
        when = find_dates(dated.group(0), today).valid_from if dated else None
        if _a_name(m.group("n")) and (m.group("new") or m.group("now") or m.group("now2") or left):
            return _manager(m.group("n"), c, changed=True, when=when, org=m.group("org"),
                            previous=left.group("o") if left else None, rule="people:manager-now")
    for pattern in (_REPORT_TO, _REPORT_CALLED):
        if (m := pattern.search(t)) and not _HEDGE.search(t[:m.start()]) and _a_name(m.group("n")):
            old = m.groupdict().get("o")
            return _manager(m.group("n"), c, changed=True, when=None, rule="people:report-to",
                            previous=old if old and _a_name(old) else None)
    return None


# Invariant 332: a forget request that names a person ("delete everything you know about my ex",
# "forget my ex, Daniel", "forget anything about Priya") forgets every active fact about them:
# the facts naming the relation, and the facts naming them by the name those facts give.
_EXES = r"ex(?:-?(?:husband|wife|boyfriend|girlfriend|partner|fianc[eé]e?))?"
_PERSON_TARGET = re.compile(r"^(?:(?:my|our)\s+)?(?:(?P<rel>" + _EXES + r")(?:\s*,\s*|\s+)?)?"
                            r"(?P<n>(?-i:" + UPPER + r")[\w'’-]+)?\W*$", I)


def person_facts(target: str, clause: str, hits) -> tuple[str, list] | None:
    """The person a forget request names and the active facts about them, or None when the
    words name no person ([] when nothing about them is on record). Pure."""
    target = re.sub(r"^(?:everything|anything|all)\s+(?:(?:(?:that\s+)?you\s+(?:know|have|remember)|that'?s)\s+)?"
                    r"(?:about|on)\s+", "", target.strip(), flags=I)
    m = _PERSON_TARGET.match(target)
    if not m or not (m.group("rel") or m.group("n")):
        return None
    name = m.group("n")
    if name and (not _a_name(name) or name.lower() in lx.KIND_NAMES or name.lower() in lx.PETS):
        return None
    if name and not m.group("rel") and not re.search(
            r"\b(?:everything|anything|all)\s+(?:(?:you\s+(?:know|have)|that'?s)\s+)?(?:about|on)\b", clause, I):
        return None  # "forget Lisbon": a bare word is left to the usual reading
    facts = [h for h in hits if h.kind == "semantic" and h.state == "active"]
    names = {name} if name else set()
    about = []
    if m.group("rel"):
        for h in facts:
            if re.search(r"\b" + _EXES + r"\b", h.text, I) and not re.search(r"\bex-?(?:colleague|boss|flatmate)", h.text, I):
                about.append(h)
                names |= {n for n in re.findall(r"\b(?-i:" + UPPER + r")[\w'’-]+", h.text)[1:]
                          if _a_name(n)} if not name else set()
    for h in facts:
        if any(re.search(r"(?<![\w'’-])" + re.escape(n) + r"(?![\w'-])", h.text) for n in names) and h not in about:
            about.append(h)
    return target, about


def loose_fit(target: str, fact_text: str) -> bool:
    """Invariant 332: "forget my frequent flyer number" is not "Has a Portuguese NIF tax number":
    a target of three words or more that shares fewer than half of its own words with the fact
    (synonyms aside) names something else. Pure."""
    from ..text import stem
    from .matching import identifiers, terms

    head = re.sub(r"^(?:my|our|the)\s+", "", target.strip().split(",")[0], flags=I)
    said = terms(head) - {stem(w) for w in lx.GENERIC}
    if identifiers(" x " + head) & terms(fact_text):
        return False  # a name or a number it shares ("... from August") names it
    have = terms(fact_text)
    near = {w for w in said if w in have or any(len(w) >= 5 and h[:5] == w[:5] for h in have)}
    return len(said) >= 3 and len(near) * 2 < len(said)  # "expiry" is near "expires"


# Invariant 332: "ok this is awkward but can you forget my ex, Daniel?": a lead-in before a
# forget request is no part of it.
_FORGET_LEAD = re.compile(r"^(?:(?:ok(?:ay)?|so|um+|right|look|sorry|hmm+|erm)\b[^,?.]*?|(?:this|that|it)(?:'s|\s+is|"
                          r"\s+feels)\s+(?:a\s+bit\s+|kind\s+of\s+|so\s+|really\s+)?\w+),?\s+(?:but|so)\s+"
                          r"(?=(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?(?:forget|delete|erase|wipe)\b)", I)


def forget_lead(c: str) -> str:
    return _FORGET_LEAD.sub("", c.strip())


# Invariant 333: the names a life event brings stay in its value. A baby, a pet or a partner
# named anywhere in the message ("a boy called Arjun", "born on 20 November: Isla Grace", "her
# name is Kaju", "two cats, Salt and Pepper", "my girlfriend Priya and I are getting married")
# is written with the event; a wedding keeps where it is ("in Seville").
_NAME2 = r"(?P<n>(?-i:" + UPPER + r")[\w'’-]+(?:\s+(?-i:" + UPPER + r")[\w'’-]+)?)"
_PARTNER = r"(?:wife|husband|partner|girlfriend|boyfriend|fianc[eé]e?)"
_BABY_NAME = (re.compile(r"\b(?:boy|girl|baby|son|daughter)\s*,?\s+(?:called|named)\s+" + _NAME2, I),
              re.compile(r"\bborn\b[^.!?:]*:\s*" + _NAME2, I),
              # "We had a baby boy on Thursday! Oisín, 3.4 kg": a name said with the weight
              re.compile(r"(?:^|[.!]\s+)" + _NAME2 + r",\s*\d+(?:[.,]\d+)?\s*(?:kg|lbs?|pounds)\b", I),
              re.compile(r"(?:^|[,.;!]\s*|\band\s+)(?:her|his|their)\s+name(?:'s|\s+is)\s+" + _NAME2, I))
_ITS_NAME = re.compile(r"(?:^|[,.;!]\s*|\band\s+)(?:her|his|its|their)\s+name(?:'s|\s+is)\s+" + _NAME2 +
                       r"\s*(?:[,.;!]|and\b|$)", I)
_OUR_BABY = re.compile(r"^(?:(?:our|my)\s+(?:new\s+|little\s+|beautiful\s+)*(?:baby\s+)?(?P<k>boy|girl|son|daughter)|"
                       r"(?:our\s+|my\s+)?baby)\s+" + _NAME2 + r"\s+(?:was\s+born|arrived|came)\b", I)
_WED_PLACE = re.compile(r"\bmarried\b[^.!?]*?\bin\s+(?!(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|"
                        r"(?:spring|summer|autumn|fall|winter)\b)(?P<p>(?-i:" + UPPER + r")[\w'’-]+(?:\s+(?-i:" + UPPER +
                        r")[\w'’-]+)?)", I)
_MY_PARTNER_AND_I = re.compile(r"\b(?:my|our)\s+(?P<rel>" + _PARTNER + r")\s+" + _NAME2 + r"\s+and\s+i\b", I)
_PET_NAMES = re.compile(r",\s*(?P<a>(?-i:" + UPPER + r")[\w'’-]+)\s+and\s+(?P<b>(?-i:" + UPPER + r")[\w'’-]+)\W*$")


def our_baby(c: str, today: date) -> list[Statement] | None:
    """ "Our baby boy Leo was born on 20 November": the child, named (invariant 333)."""
    m = _OUR_BABY.match(c.strip())
    if not m or not _a_name(m.group("n")):
        return None
    kind = (m.group("k") or "").lower()
    what = {"son": "Son", "daughter": "Daughter", "": "Baby"}.get(kind, f"Baby {kind}")
    return [Statement(act="assert", text=f"{what} {m.group('n')} was born", fact_type="identity",
                      valid_from=find_dates(c, today).valid_from, clause=c, rule="people:baby-named")]


def named_events(statements: list[Statement], message: str) -> list[Statement]:
    out = list(statements)
    for st in statements:
        text = st.text or ""
        if re.match(r"^Owns\s+(?:two|three|four|five|\d)\s+(?:boys|girls|kids|children|sons|daughters)\b", text):
            st.text = text = "Has" + text[len("Owns"):]  # children are had, not owned
        if re.match(r"^\w+ is getting divorced$", text) and st.rule.startswith("relation:event"):
            # "My sister's getting divorced": someone else's news in the making, not kept
            out.remove(st)
            continue
        if text == "Is married" and re.search(r"\b(?:are|is|'re)\s+getting\s+married\b", st.clause or "", I):
            # "My girlfriend Priya and I are getting married on 12 June": a plan, not the status
            st.text, st.slot, st.act, text = "Is getting married", None, "assert", "Is getting married"
        if st.rule == "health:baby" and " called " not in text or st.rule == "relation:event:born":
            name = next((m.group("n") for p in _BABY_NAME for m in [p.search(message)] if m
                         and _a_name(m.group("n"))), None)
            if not name:
                continue
            if st.rule == "health:baby":
                st.text = f"{text} called {name}"
            else:
                st.text = re.sub(r"^(\w+) was born", rf"\1 {name} was born", text)
        elif re.match(r"^(?:\w+\s+)?is\s+getting\s+married$", text, I):
            place = _WED_PLACE.search(message)
            mate = _MY_PARTNER_AND_I.search(message)
            if mate and _a_name(mate.group("n")):
                st.text = f"{st.text} to {mate.group('n')}"
            if place and not re.search(r"\b(?:live|lives|living|based|work|works)\s+in\s+" + re.escape(
                    place.group("p")), message, I):
                st.text = f"{st.text} in {place.group('p')}"
        elif re.match(r"^(?:Marriage|Wedding)\s+is\b", text) and (m := _ITS_NAME.search(message)) and \
                _a_name(m.group("n")):
            st.text = re.sub(r"^(Marriage|Wedding)", rf"\1 to {m.group('n')}", text)
        elif re.match(r"^(?:Has|Owns)\s+(?:a|an)\s+(?:" + "|".join(lx.PETS) + r")$", text) and \
                (m := _ITS_NAME.search(message)) and _a_name(m.group("n")) and sum(
                    bool(re.match(r"^(?:Has|Owns)\s", s.text or "")) for s in statements) == 1:
            st.text = f"{text} called {m.group('n')}"
        elif re.match(r"^(?:Has|Owns)\s+(?:two|2)\s+(?:" + "|".join(lx.PETS) + r")s?$", text) and \
                (m := _PET_NAMES.search(st.clause or "")) and _a_name(m.group("a")) and _a_name(m.group("b")):
            st.text = f"{text}, {m.group('a')} and {m.group('b')}"
        else:
            continue
        st.rule += "+named"
    mate = _MY_PARTNER_AND_I.search(message)
    if mate and _a_name(mate.group("n")) and any(s.rule.startswith(("health:baby", "people:baby"))
                                                 for s in out) and not any(
            mate.group("n") in (s.text or "") for s in out):
        # "My wife Sunita and I just had our first baby": who the partner is, a fact of its own
        out.append(Statement(act="assert", text=f"{mate.group('rel').capitalize()} is called {mate.group('n')}",
                             fact_type="identity", slot=f"noun:{mate.group('rel').lower()}",
                             clause=mate.group(0), rule="people:partner-named"))
    return out


# Invariant 334: "I've started seeing someone, her name is Amélie", "I've been seeing someone
# for a few months ... His name is Ollie": a relationship, with who it is with; it replaces a
# marital status on record ("Is single"). Without a name it is kept nowhere.
_SEEING = re.compile(r"\b(?:i'?ve|i\s+have|i'?m|i\s+am)\s+(?:been\s+|(?:just\s+|recently\s+)?started\s+|"
                     r"now\s+)?(?:seeing|dating)\s+(?:someone|somebody|a\s+(?:guy|girl|man|woman|lad|lass|"
                     r"bloke|chap))\b", I)
_CALLED = re.compile(r"\b(?:(?:her|his|their)\s+name(?:'s|\s+is)|(?:called|named))\s+" + _NAME2, I)


def seeing_someone(message: str, statements: list[Statement]) -> list[Statement]:
    m = _SEEING.search(message)
    if not m or _HEDGE.search(message[:m.start()]) or any(s.slot == "marital" for s in statements):
        return statements
    name = _CALLED.search(message, m.end())
    if not name or not _a_name(name.group("n")) or re.search(
            r"\babout\s+(?:my|a|the|our)\b|\bfor\s+my\b|\b(?:doctor|gp|therapist|counsell?or|physio|specialist|"
            r"consultant|dentist|psychologist|psychiatrist|coach|tutor)\b", message, I):
        return statements  # "seeing someone called Dr Patel about my back": a doctor, no partner
    who = name.group("n").split()[0]
    return statements + [Statement(act="change", text=f"Is in a relationship with {who}",
                                   fact_type="identity", slot="marital", clause=message.strip(),
                                   rule="people:seeing")]


# Invariant 334: a partner's lasting diet ("my partner Łukasz is vegan"): kept about them.
_PARTNER_DIET = re.compile(r"^(?:my|our)\s+(?P<rel>" + _PARTNER + r")\s+(?:(?P<n>(?-i:" + UPPER +
                           r")[\w'’-]+)\s+)?(?:is|'s)\s+(?:(?:a|also|now|strictly)\s+)*(?P<d>vegan|vegetarian|"
                           r"pescatarian|teetotal|coeliac|celiac|diabetic|lactose\s+intolerant)(?![\w-])", I)


def partner_diet(c: str) -> list[Statement] | None:
    m = _PARTNER_DIET.match(c.strip())
    if not m or (m.group("n") and not _a_name(m.group("n"))):
        return None
    who = m.group("rel").capitalize() + (f" {m.group('n')}" if m.group("n") else "")
    return [Statement(act="assert", text=f"{who} is {m.group('d').lower()}", fact_type="world",
                      clause=c, rule="people:partner-diet")]


# Invariant 335: a relative or a pet on record who died. "My nan passed away last month" over
# "Her grandmother lives in Cork", "we had to put Bruno to sleep" over "Has a labrador called
# Bruno": the fact about them is superseded, never left beside a second fact.
_KIN = {"mum": "mother", "mom": "mother", "mummy": "mother", "mommy": "mother", "mam": "mother",
        "ma": "mother", "dad": "father", "daddy": "father", "papa": "father", "da": "father",
        "nan": "grandmother", "nana": "grandmother", "nanna": "grandmother", "gran": "grandmother",
        "granny": "grandmother", "grandma": "grandmother", "grandmom": "grandmother",
        "grandpa": "grandfather", "grandad": "grandfather", "granddad": "grandfather",
        "gramps": "grandfather"}


def kin(word: str) -> str:
    return _KIN.get(word.lower(), word.lower())


def relative_fact(rel: str, hits):
    """The one active fact about the user's relative `rel` (any word for them), or None. Pure."""
    want = kin(rel)
    found = {}
    for h in hits:
        if h.kind != "semantic" or h.state != "active":
            continue
        first = re.match(r"^(?:(?:her|his|their|my)\s+)?(?P<r>[\w-]+)\b(?!['’]s)", h.text, I)
        if first and kin(first.group("r")) == want:
            found[h.id] = h
    return next(iter(found.values())) if len(found) == 1 else None


_PUT_DOWN = re.compile(r"^(?:(?:we|i)\s+)?(?:(?:had|have\s+had|'ve\s+had)\s+to\s+|finally\s+|just\s+)*put\s+"
                       r"(?:(?:our|my)\s+(?:old\s+|dear\s+|beloved\s+)?(?:" + "|".join(sorted(lx.PETS, key=len, reverse=True))
                       + r")\s+)?(?P<s>(?-i:" + UPPER + r")[\w'’-]+)\s+(?:to\s+sleep|down)\b", I)


def put_down(c: str, today: date) -> list[Statement] | None:
    """ "We had to put Bruno to sleep yesterday": Bruno died (read as a named pet's death)."""
    m = _PUT_DOWN.match(c.strip())
    if not m or not _a_name(m.group("s")):
        return None
    who = m.group("s")
    return [Statement(act="change", text=f"{who} has died", fact_type="world", previous=who,
                      valid_from=find_dates(c, today).valid_from, clause=c, rule="third:died")]


# Invariant 336: "so we do have a cat called Pepper now": an emphatic "do" asserts the plain
# statement ("we have a cat called Pepper"); a question or a denial keeps its own reading.
_EMPHATIC = re.compile(r"^(?P<s>(?:i|we)\s+)(?:really\s+|actually\s+)?(?:do|does|did)\s+(?:actually\s+|really\s+)?"
                       r"(?=(?:have|own|live|work|use|keep|drive)\b)", I)




# "I'm a single dad with two boys, Ethan who's 10 and Noah who's 6": "I have two boys, Ethan
# (10) and Noah (6)".
_SINGLE_PARENT = re.compile(r"^(?:i'?m|i\s+am)\s+a\s+(?:single\s+|lone\s+)?(?:dad|mum|mom|parent|father|mother)\s+"
                            r"(?:with|of)\s+(?=(?:two|three|four|five|\d)\s+(?:boys|girls|kids|children|sons|daughters)\b)", I)


def plain_do(c: str) -> str:
    c = c.strip()
    if _SINGLE_PARENT.match(c):
        c = re.sub(r"(?<=[\w’'-])\s+who['’]?s\s+(\d{1,2})\b", r" (\1)", _SINGLE_PARENT.sub("I have ", c, count=1))
    return _EMPHATIC.sub(lambda m: m.group("s"), c, count=1)


# Invariant 337: a relative who moved in with the user ("Mum moved in with us in Galway in
# September", "my father-in-law is moving in with us in January", "... has been living with us
# since September"): where they live now, dated; it replaces where they lived on record.
_FAMILY = sorted((lx.RELATIONS - {"boss", "manager", "lead", "colleague", "flatmate", "roommate",
                                  "housemate", "neighbour", "neighbor"})
                 | {"father-in-law", "mother-in-law", "mummy", "daddy", "mam", "nana", "granny",
                    "grandad", "sister-in-law", "brother-in-law"}, key=len, reverse=True)
_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b"
_MOVED_IN = re.compile(r"^(?:(?:my|our)\s+)?(?P<rel>" + "|".join(_FAMILY) + r")(?:'s|’s|\s+is|\s+has)?\s+"
                       r"(?:just\s+|finally\s+|now\s+)*(?:(?:moved|moving|coming)\s+in\s+with|"
                       r"(?:been\s+)?living\s+with|agreed\s+to\s+(?:come\s+and\s+)?(?:live|move\s+in)\s+with)\s+"
                       r"(?:us|me)\b(?:\s+in\s+(?!" + _MONTHS + r")(?P<p>(?-i:" + UPPER + r")[\w'’-]+(?:\s+(?-i:" + UPPER +
                       r")[\w'’-]+)?))?", I)


def moved_in(c: str, today: date) -> list[Statement] | None:
    m = _MOVED_IN.match(c.strip())
    if not m:
        return None
    dates = find_dates(c, today)
    if re.search(r"\b(?:moving|coming|agreed)\b", m.group(0), I) and dates.valid_from is None:
        return None  # "Mum's moving in with us" with no when: a plan, not where she lives
    rel = m.group("rel").lower()
    where = f" in {m.group('p')}" if m.group("p") else ""
    return [Statement(act="assert", text=f"{rel.capitalize()} lives with them{where}", fact_type="identity",
                      slot=f"rel:{kin(rel)}", valid_from=dates.valid_from, clause=c,
                      rule="people:moved-in")]


# Invariant 337: "Mia turned nine on Sunday" over "Has two children, Mia (8) and Leo (5)": the
# age inside the fact naming them is the one that changes; with no age on record, nothing.
_NUMBERS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven "
                                        "twelve thirteen fourteen fifteen sixteen seventeen eighteen "
                                        "nineteen twenty".split())}
_TURNED = re.compile(r"^(?P<n>(?-i:" + UPPER + r")[\w'’-]+)\s+(?:has\s+)?(?:just\s+)?turned\s+"
                     r"(?P<a>\d{1,2}|" + "|".join(_NUMBERS) + r")\b", I)


def turned(c: str, today: date) -> list[Statement] | None:
    m = _TURNED.match(c.strip())
    if not m or not _a_name(m.group("n")):
        return None
    age = m.group("a").lower()
    age = str(_NUMBERS.get(age, age))
    return [Statement(act="change", text=f"{m.group('n')} is {age}", fact_type="identity",
                      previous=m.group("n"), valid_from=find_dates(c, today).valid_from, clause=c,
                      rule="people:turned")]


def aged(fact_text: str, who: str, age: str) -> str | None:
    """The fact with `who`'s age replaced ("Mia (8)" -> "Mia (9)", "Mia is 8" -> "Mia is 9"),
    or None when it holds no age of theirs. Pure."""
    m = re.search(r"(?<![\w'’-])" + re.escape(who) + r"(?:\s*\(|,\s*|\s+is\s+|\s+aged\s+)(?P<a>\d{1,2})\b", fact_text)
    if not m:
        return None
    return fact_text[:m.start("a")] + age + fact_text[m.end("a"):]


# Invariant 338: where someone on record works changed ("Tom's gone back to the office full
# time", "Tom started a new job in October and goes into the office four days a week now",
# "Tom got a new job in Cardiff"): kept only as the change of the fact that says where they
# work (from home, remotely, in the office); the agent finds it.
_BACK_TO_OFFICE = re.compile(r"^(?P<n>(?-i:" + UPPER + r")[\w'’-]+)(?:'s|’s|\s+has|\s+is)?\s+(?:now\s+|just\s+)?"
                             r"(?:gone|went|going)\s+back\s+(?:in)?to\s+(?:the\s+)?office(?P<ft>\s+full[\s-]time)?", I)
_INTO_OFFICE = re.compile(r"^(?P<n>(?-i:" + UPPER + r")[\w'’-]+)\b[^.;!?]*?\b(?:goes|is\s+going|now\s+goes)\s+"
                          r"(?:in)?to\s+the\s+office\s+(?P<f>(?:\w+|\d)\s+days?\s+a\s+week)", I)
_JOB_IN = re.compile(r"^(?P<n>(?-i:" + UPPER + r")[\w'’-]+)(?:'s|’s|\s+has)?\s+(?:just\s+)?(?:got|started|landed)\s+"
                     r"a\s+new\s+job\s+in\s+(?P<p>(?-i:" + UPPER + r")[\w'’-]+(?:\s+(?-i:" + UPPER + r")[\w'’-]+)?)", I)


def their_work(c: str, today: date) -> list[Statement] | None:
    t = c.strip()
    said = None
    if m := _BACK_TO_OFFICE.match(t):
        said = (m.group("n"), "works in the office" + (" full time" if m.group("ft") else ""))
    elif m := _INTO_OFFICE.match(t):
        said = (m.group("n"), f"goes into the office {m.group('f')}")
    elif m := _JOB_IN.match(t):
        said = (m.group("n"), f"works in {m.group('p')}")
    if said is None:
        return None
    who = re.sub(r"['’]s$", "", said[0])  # "Tom's gone back"
    if not _a_name(who):
        return None
    return [Statement(act="change", text=f"{who} {said[1]}", fact_type="identity", previous=who,
                      valid_from=find_dates(t, today).valid_from, clause=c, rule="people:their-work")]


def their_work_fact(who: str, hits):
    """The one active fact naming `who` beside a relation that says where they work ("Her
    partner Tom works from home most days"), or None (invariant 338). Pure."""
    found = {h.id: h for h in hits if h.kind == "semantic" and h.state == "active"
             and re.search(r"(?<![\w'’-])" + re.escape(who) + r"(?![\w'-])", h.text)
             and re.search(r"\b(?:from\s+home|remote(?:ly)?|in\s+the\s+office|wfh|hybrid)\b", h.text, I)}
    return next(iter(found.values())) if len(found) == 1 else None


# Invariant 339: "Jess and I broke up ... Please forget anything about her": a pronoun in a
# forget request is the one person the message named before it; nothing else the message says
# about them is written (the user wants them gone, not updated).
_PRONOUN_TARGET = re.compile(r"^(?:her|him|them)$", I)
_LEAD_WORDS = frozenset("""please i i'm i've we we're my our the a an and but so then now also just
ok okay oh well yes no hi hey sorry thanks""".split())


def forget_pronoun(statements: list[Statement], message: str) -> list[Statement]:
    forgets = [s for s in statements if s.act == "forget" and _PRONOUN_TARGET.match((s.target or "").strip())]
    if len(forgets) != 1:
        return statements
    st = forgets[0]
    before = message[:message.find(st.clause)] if st.clause and st.clause in message else ""
    names = {n for n in re.findall(r"(?<![\w'’-])(?-i:" + UPPER + r")[\w'’-]+", before)
             if n.lower() not in _LEAD_WORDS and _a_name(re.sub(r"['’]s$", "", n))}
    names = {re.sub(r"['’]s$", "", n) for n in names}
    if len(names) != 1:
        return statements
    (who,) = names
    st.target, st.clause = who, f"forget everything about {who}"
    st.rule += "+pronoun"
    return [s for s in statements if s is st or not (
        s.act in ("assert", "change") and (who in (s.text or "") or s.slot == "marital"))]


def pregnancy_fact(hits):
    """The one active fact that the user is expecting ("Is pregnant, due in February"), which a
    birth ends (invariant 333), or None. Pure."""
    found = {h.id: h for h in hits if h.kind == "semantic" and h.state == "active"
             and re.match(r"^(?:Is\s+(?:pregnant|expecting)|Expecting\s+(?:a\s+)?baby|Baby\s+(?:is\s+)?due)\b",
                          h.text, I)}
    return next(iter(found.values())) if len(found) == 1 else None


# Invariant 330: "she's not my manager anymore. It's Arjun now": the role's new holder said
# after the old one left it.
_NOT_MY_ROLE = re.compile(r"(?:\bnot|n['’]t|\bno\s+longer)\s+my\s+(?:line\s+)?(?:manager|boss)\b", I)
_ITS_NOW = re.compile(r"(?:^|[.;!,]\s*)(?:it'?s|it\s+is)\s+(?:now\s+)?(?P<n>" + _WHO + r")\s+now\b", I)


def role_taken_over(statements: list[Statement], message: str) -> list[Statement]:
    gone = _NOT_MY_ROLE.search(message)
    if gone:  # "Deepa got promoted, so she's not my manager any more": the manager's change only
        statements = [s for s in statements if not s.rule.startswith("people:promoted")]
    new = _ITS_NOW.search(message, gone.end()) if gone else None
    if not new or not _a_name(new.group("n")) or any(s.slot == "noun:manager" for s in statements):
        return statements
    return statements + _manager(new.group("n"), new.group(0).strip(" .;!,"), changed=True, when=None,
                                 rule="people:manager-its")


# Invariant 335: two changes of marital status in one message ("we separated in the summer and
# the divorce was finalised last week"): the later one is what holds now.
def last_status(statements: list[Statement]) -> list[Statement]:
    status = [s for s in statements if s.slot == "marital" and s.act == "change"]
    if len(status) < 2:
        return statements
    return [s for s in statements if s not in status[:-1]]


# Invariant 333: "We're expecting our second in May, a girl this time!": a baby on the way,
# with when it is due.
_EXPECTING = re.compile(r"^(?:we'?re|we\s+are|i'?m|i\s+am)\s+(?:now\s+)?expecting\s+(?:our|my|a|another)\s+"
                        r"(?:first|second|third|fourth|fifth|next|baby|child|little\s+one)\b", I)


def expecting(c: str, today: date) -> list[Statement] | None:
    if not _EXPECTING.match(c.strip()):
        return None
    due = find_dates(c, today).valid_from
    text = "Is expecting a baby" + (f", due in {due:%B %Y}" if due and due > today else "")
    return [Statement(act="assert", text=text, fact_type="identity", clause=c, rule="people:expecting")]


# Invariant 333: a pet named in the message after the one that got it ("I adopted a dog last
# week." then "Her name is Nala, she's a border collie."): the pet, named, with what it is.
_PET_P = "|".join(sorted(lx.PETS, key=len, reverse=True))
_GOT_PET = re.compile(r"\b(?:i|we)\s+(?:have\s+|'ve\s+)?(?:just\s+|finally\s+)?(?:adopted|got|rescued|bought|brought\s+home)\s+"
                      r"(?:a|an)\s+(?:new\s+|rescue\s+|little\s+)*(?P<k>" + _PET_P + r")\b", I)
_SHE_IS_A = re.compile(r"\b(?:she|he|it)(?:'s|’s|\s+is)\s+(?:a|an)\s+(?P<b>(?:[a-z-]+\s+){0,2}(?:" + _PET_P + r"))\b", I)


def named_after(statements: list[Statement], message: str, history: list[str]) -> list[Statement]:
    m = re.match(r"^\W*(?:her|his|its|their)\s+name(?:'s|\s+is)\s+" + _NAME2, message.strip(), I)
    if statements or not m or not history or not _a_name(m.group("n")):
        return statements
    got = _GOT_PET.search(history[-1])
    if not got:
        return statements
    breed = _SHE_IS_A.search(message)
    what = (breed.group("b") if breed else got.group("k")).lower()
    an = "an" if what[0] in "aeiou" else "a"
    return [Statement(act="assert", text=f"Has {an} {what} called {m.group('n')}", fact_type="world",
                      clause=message.strip(), rule="people:named-after")]


# Invariant 337: a relative's stay with the user, dated ("My parents are coming from Lucknow to
# stay with us in Bengaluru from 15 December till the end of February"): kept with its dates;
# undated it is passing news.
_STAYING = re.compile(r"^(?:my|our)\s+(?P<rel>" + "|".join(_FAMILY) + r")(?:'s|’s|'re|’re|\s+is|\s+are)\s+"
                      r"(?:coming\s+(?:over\s+)?(?:from\s+(?-i:" + UPPER + r")[\w'’-]+\s+)?to\s+(?P<v>stay\s+with|visit)|"
                      r"staying\s+with)\s+(?:us|me)\b(?:\s+in\s+(?!" + _MONTHS + r")(?P<p>(?-i:" + UPPER + r")[\w'’-]+))?", I)


def staying(c: str, today: date) -> list[Statement] | None:
    m = _STAYING.match(c.strip())
    if not m:
        return None
    dates = find_dates(c, today)
    start = dates.valid_from
    if start is not None and start < today and re.search(r"\bcoming\b", m.group(0), I):
        start = start.replace(year=start.year + 1, day=min(start.day, 28))  # "… in April": the next April
    if start is None or start < today:
        return None
    rel = m.group("rel").lower()
    plural = rel in {"parents", "kids", "children", "in-laws", "twins"}
    where = f" in {m.group('p')}" if m.group("p") else ""
    doing = "visiting them" if (m.group("v") or "").lower() == "visit" else "staying with them"
    return [Statement(act="assert", text=f"{rel.capitalize()} {'are' if plural else 'is'} {doing}{where}",
                      fact_type="world", valid_from=start,
                      valid_to=dates.valid_to if dates.valid_to and dates.valid_to >= start else None, clause=c,
                      rule="people:staying")]


# Invariant 338: "Anjali has been promoted to lead data scientist": the role inside the one fact
# naming them beside their relation ("His sister Anjali is a data scientist in Bangalore" ->
# "... is a lead data scientist in Bangalore"); with no role of theirs on record, nothing.
_PROMOTED = re.compile(r"^(?P<n>(?-i:" + UPPER + r")[\w-]+)(?:['’]s|\s+has|\s+was|\s+got)?\s+(?:been\s+|just\s+|finally\s+)*"
                       r"promoted\s+to\s+(?:a\s+|an\s+)?(?P<r>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?)(?=\s*(?:[,.;!?]|$))", I)
_ROLE_IN = re.compile(r"\b(?P<v>is|works\s+as)\s+(?P<a>a|an)\s+(?P<r>[a-z][\w -]*?)(?=\s+(?:in|at|for|with)\b|\s*[,.;]|\s*$)")


def promoted(c: str, today: date) -> list[Statement] | None:
    m = _PROMOTED.match(c.strip())
    if not m or not _a_name(m.group("n")):
        return None
    role = m.group("r").lower().split()
    if role[0] in {"the", "a", "an", "her", "his", "their"} or not (
            role[-1] in lx.ROLE_WORDS or re.search(r"(?:er|or|ist|ian|ant|ent|head|lead|chief|nurse|sister|"
                                                   r"officer|partner)$", role[-1])):
        return None  # "promoted to the A team": a team, not a role
    return [Statement(act="change", text=f"{m.group('n')} is {m.group('r')}", fact_type="identity",
                      previous=m.group("n"), valid_from=find_dates(c, today).valid_from, clause=c,
                      rule="people:promoted")]


def reroled(fact_text: str, who: str, role: str) -> str | None:
    """The fact naming `who` with their role replaced ("… is a data scientist in Bangalore" ->
    "… is a lead data scientist in Bangalore"), or None when it holds no role of theirs. Pure."""
    if not re.search(r"(?<![\w'’-])" + re.escape(who) + r"(?![\w'-])", fact_text):
        return None
    m = _ROLE_IN.search(fact_text)
    if not m:
        return None
    an = "an" if role[:1].lower() in "aeiou" else "a"
    return fact_text[:m.start("a")] + f"{an} {role}" + fact_text[m.end("r"):]
