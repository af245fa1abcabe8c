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
great fine nice lovely amazing awful terrible good bad ok okay sick ill away off on out""".split())
_DEMONYM = re.compile(r"(?:ish|ese|ian|ean|ic|ch|an|i)$", I)
_HEDGE = re.compile(r"\b(?:if|might|may|maybe|perhaps|probably|would|could|should|whether|hope|"
                    r"hoping|think|thinks|rumou?r|rumou?red|supposedly|not|n't|never|told|said|"
                    r"says|asked|wish|wants?)\b", I)


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
    from .matching import terms

    said = terms(re.sub(r"^(?:my|our|the)\s+", "", target.strip(), flags=I)) - {
        stem(w) for w in lx.GENERIC}
    return len(said) >= 3 and len(said & terms(fact_text)) * 2 < len(said)


# Invariant 332: "ok this is awkward but can you forget my ex, Daniel?": a lead-in before a
# forget request is no part of it.
_FORGET_LEAD = re.compile(r"^(?:(?:ok(?:ay)?|so|um+|right|look|sorry|hmm+|erm)\b[^,?.]*?|(?:this|that|it)(?:'s|\s+is|"
                          r"\s+feels)\s+(?:a\s+bit\s+|kind\s+of\s+|so\s+|really\s+)?\w+),?\s+(?:but|so)\s+"
                          r"(?=(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?(?:forget|delete|erase|wipe)\b)", I)


def forget_lead(c: str) -> str:
    return _FORGET_LEAD.sub("", c.strip())
