"""Which recalled memory a statement refers to. Pure functions over recalled hits.

A change replaces a fact only when the words naming the old value all reappear in it ("from Zed
to Helix" needs a fact saying Zed), or, without such words, when both fill the same single-valued
attribute (home, job, diet, "main editor"...). Nothing else is replaced: "replaced the Hue
bridge" does not touch "Has twelve Philips Hue bulbs" (issue 12).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..text import STOP_WORDS, stem, term_set, words
from . import lexicon as lx
from .life2 import WORK_PATTERN
from .statements import Statement

# Words that say who holds a value or hedge it, not what the value is.
_FILLER = frozenset(["user", "users", "person", "customer", "has", "have", "having", "is", "am",
                     "are", "was", "were", "be", "been", "confirmed", "really", "actually",
                     "definitely", "also", "still", "currently", "now", "today", "said", "says",
                     "told", "an", "a", "the", "i", "me", "my", "mine", "our", "we"])
_NEGATIONS = frozenset({"not", "no", "never", "none", "without", "nothing", "neither", "nor"})


def value_terms(text: str) -> frozenset[str]:
    """The stemmed content words of a value (the one text module's tokens and stemmer)."""
    return term_set(text, stop=STOP_WORDS | _FILLER | _NEGATIONS)


def identifiers(text: str) -> frozenset[str]:
    """Stemmed names and numbers: words with a digit, or capitalised past the first word."""
    out: set[str] = set()
    for i, raw in enumerate(text.split()):
        token = raw.strip(".,;:!?()[]\"'")
        if token and (any(c.isdigit() for c in token) or (i > 0 and token[0].isupper())):
            out.update(stem(w) for w in words(token))
    return frozenset(out)

# Words of canonical templates: they say nothing about which value is meant.
TEMPLATE = frozenset(stem(w) for w in ["lives", "live", "lived", "living", "owns", "own", "owned", "has", "have", "works", "work", "prefers", "prefer", "likes", "like", "dislikes", "uses", "use", "is", "are", "was", "trip", "moving", "moved", "away", "no", "longer", "not", "does", "eat", "eats", "allergic", "called", "name", "user", "them", "their", "they"])

_ROLE = re.compile(r"\b(?:" + "|".join(sorted(lx.ROLE_WORDS, key=len, reverse=True)) + r")s?\b",
                   re.IGNORECASE)
_RELATION_HEAD = re.compile(r"^(?:her|his|their|my)\s+(?:name|manager|lead|boss|team\s+lead|"
                            + "|".join(sorted(lx.RELATIONS, key=len, reverse=True)) + r")\b",
                            re.IGNORECASE)

# "Brother Tom lives in Oslo", "Her brother Jan lived two streets away": about someone else.
_OTHER_PERSON = re.compile(r"^(?:(?:her|his|their|my)\s+)?(" + "|".join(
    sorted(lx.RELATIONS, key=len, reverse=True)) + r")\b(?!['’]s)", re.IGNORECASE)


def relative_of(text: str) -> str | None:
    """The relation a stored text is about when it opens with one ("Brother Tom lives in
    Oslo" -> "brother"), else None: such a fact answers a question about that person, not
    one about the user (invariant 180). Pure."""
    m = _OTHER_PERSON.match(text.strip())
    return m.group(1).lower() if m else None


def _person_named(text: str) -> frozenset[str]:
    """The name right after a relation ("Brother Tom lives…" -> {"tom"}), as terms."""
    m = re.match(r"^(?:(?i:her|his|their|my)\s+)?\w+\s+([A-Z][\w'’-]+)", text.strip())
    return terms(m.group(1)) if m else frozenset()


def terms(text: str) -> frozenset[str]:
    return value_terms(text)


# "Her name is Lena and she is a field service manager at Nordwind": two statements in one fact.
_AND_CLAUSE = re.compile(r",?\s+and\s+(?=(?:she|he|they|i)\s+(?:is|are|am|was|were|works|worked|"
                         r"lives|lived|has|had)\b)", re.IGNORECASE)


def answered_slots(text: str, fact_type: str | None = None) -> set[str]:
    """The attributes a stored text answers, clause by clause (invariant 179): a
    compound fact answers "where do I work?" with its second clause. For answers only: a write
    never replaces a compound fact by one of its clauses (it would drop the other). Pure."""
    parts = [p for p in _AND_CLAUSE.split(text) if p.strip()]
    out = slots_of(text, fact_type)
    if len(parts) > 1:
        for p in parts[1:]:
            out |= slots_of(p, fact_type)
    return out


_HOME_HELD = re.compile(
    r"^(?:rents|owns|shares)\s+(?:a|an|the|their)\s+(?!(?:holiday|second|summer|weekend|rental|"
    r"buy-to-let|investment)\b)(?:[\w'’-]+\s+){0,2}?(?:flat|room|house|apartment|cottage|bungalow|"
    r"place|home|studio|maisonette|townhouse|condo|bedsit|terrace|semi)\s+(?:in|near)\s+(?-i:[A-Z])",
    re.IGNORECASE)


def slots_of(text: str, fact_type: str | None = None) -> set[str]:
    """The single-valued attributes a stored text fills (a fact may fill several)."""
    t = text.strip()
    low = t.lower()
    out: set[str] = set()
    if re.match(r"^(?:lives|lived|living|resides|based|moved\s+(?:to|away))\b|^home\s+is\b", low):
        out.add("home")
    if _HOME_HELD.match(t):
        # Invariant 363: "Rents a flat in Leith" / "Owns a house in Bath" is where the user
        # lives, so a move replaces it; a holiday or second home is not.
        out.add("home")
    relation = bool(_RELATION_HEAD.match(low))
    # "Her name is Lena and she is a field service manager at Nordwind": the user's own job,
    # said after their name (invariant 140)
    own_role = re.match(r"^(?:her|his|their|my)\s+name\s+is\s+[^,;]+?\s+and\s+(?:she|he|they)\s+(?:is|are)\s+"
                        r"(?:a|an|the)\s+(?P<r>[^,;]+)", low)
    # a role word after "with a" / "from the" is someone else's ("lessons with a tutor")
    roles = [m for m in _ROLE.finditer(low)
             if not re.search(r"\b(?:with|from|by|to|for|and)\s+(?:a|an|the|her|his|their|my)\s+(?:[\w-]+\s+)?$",
                              low[:m.start()])]
    if own_role and _ROLE.search(own_role.group("r")):
        out.add("job")
        if re.search(r"\bat\s+[A-Z]", t):
            out.add("employer")
    elif not relation and (re.match(r"^works\s+as\b", low) or (
            fact_type in (None, "identity") and roles
            and not re.match(r"^(?:has|owns|uses|likes|prefers|is\s+learning)\b", low))):
        out.add("job")
    # invariant 398: "… at the Bristol Children's Hospital" names an employer as "at Acme" does
    if re.match(r"^works?\s+(?:at|for)\b", low) or ("job" in out and re.search(r"\bat\s+(?:the\s+)?[A-Z]", t)):
        out.add("employer")
    if re.search(r"\b(?:vegan|vegetarian|pescatarian|omnivore|eats\s+(?:meat|fish|everything)|"
                 r"no\s+meat|eats\s+\w+)\b", low) and "allerg" not in low:
        out.add("diet")
    if re.match(r"^prefers\s+(?:to\s+be\s+contacted\s+by\s+|contact\s+by\s+)?(?:email|e-mail|phone|"
                r"calls|texts?|sms|whatsapp|signal|telegram|post)\b", low) or \
            re.search(r"\bcontact(?:ed)?\s+(?:by|via|on)\b", low):
        out.add("contact")
    if re.match(r"^(?:takes|gets|catches|rides|uses)\s+(?:the\s+|a\s+)?(?:[\w-]+\s+)?(?:tram|bus|train|metro|"
                r"tube|subway|u-bahn|s-bahn|underground|ferry)s?\b|^(?:cycles|bikes|walks|drives|commutes|"
                r"scoots|runs)\s+(?:\w+\s+)?(?:to|into)\s+(?:the\s+|my\s+|their\s+)?(?:[\w-]+\s+)?(?:work|office|"
                r"job|studio|hospital|school|campus)\b", low):
        # "Takes tram 15 to the office", "Cycles to work": how the user commutes, one way at a
        # time (invariant 291)
        out.add("commute")
    if WORK_PATTERN.match(low):
        out.add("workpattern")  # invariant 349: how the user works, one pattern at a time
    if re.search(r"\b\d{1,3}\s+years?\s+old\b", low):
        out.add("age")
    if re.search(r"\b(?:married|divorced|single|widowed|engaged|separated)\b", low):
        out.add("marital")
    head_words = re.findall(r"[a-z]+", low)[:5]
    # "Has Sony WH-1000XM5 noise-cancelling headphones", "Has a Reolink PoE video doorbell whose
    # chime ...": the head of what is had, however many words name its model (invariant 140)
    had = re.match(r"^(?:has|owns|uses|drives|rides)\s+(?P<o>[^,;:(]+?)(?=\s+(?:whose|which|that|with|for|in|on|"
                   r"at|from|to|and|but|rather|instead)\b|[,;:(]|$)", low)
    if had:
        head_words = head_words + re.findall(r"[a-z]+", had.group("o"))[-1:]
    for noun in lx.SLOT_NOUNS:
        if noun in head_words or (noun + "s") in head_words:
            out.add(f"noun:{noun}")
        elif "-" in noun and re.search(r"(?<![\w-])" + re.escape(noun) + r"(?![\w-])", low[:60]):
            out.add(f"noun:{noun}")  # "Primary on-call at ...": a hyphenated noun (invariant 308)
    m = re.match(r"^(\w+)\s", low)
    if m:
        out.add(f"verb:{_base_verb(m.group(1))}")
    for name in re.findall(r"\b([A-Z][\w'’-]+)\b", t[1:] if t else t):
        out.add(f"rel:{name.lower().rstrip('’').rstrip(chr(39))}")
    if relation:
        rel = re.match(r"^(?:her|his|their|my)\s+(\w+)", low)
        if rel:
            out.add(f"rel:{rel.group(1)}")
    return out


def _base_verb(word: str) -> str:
    w = word.lower()
    irregular = {"has": "have", "does": "do", "goes": "go", "is": "be"}
    if w in irregular:
        return irregular[w]
    if w.endswith("ies"):
        return w[:-3] + "y"
    if re.search(r"(?:sses|shes|ches|xes|zes|oes)$", w):
        return w[:-2]
    return w[:-1] if w.endswith("s") and not w.endswith("ss") else w


# One role, several words: "my boss is now Priya" replaces "Manager is Dan" (invariant 272).
_SLOT_ALIASES = {"noun:boss": "noun:manager", "noun:line manager": "noun:manager",
                 "noun:gp": "noun:doctor", "noun:hubby": "noun:husband",
                 "noun:other half": "noun:partner"}


def _strength(slot: str, text: str, fact_type: str | None) -> int:
    """How surely a stored text fills this slot: 2 (as its subject), 1 (mentions it), 0."""
    slot = _SLOT_ALIASES.get(slot, slot)
    slots = slots_of(text, fact_type)
    if slot.startswith("noun:") and slot not in slots and re.search(
            r"^(?:\w+\s+){0,2}" + re.escape(slot.removeprefix("noun:")) + r"\s+(?:is|are|was)\b",
            text, re.IGNORECASE):
        # Invariant 272: "Birthday is 4 March" is the birthday's fact, whatever slots_of reads
        return 2
    if slot.startswith("noun:") and slot not in slots and re.match(
            r"^(?:(?:main|primary|current|usual|regular)\s+)?" + re.escape(slot.removeprefix("noun:"))
            + r"\s+(?:at|with|for|on|in|from)\b", text, re.IGNORECASE):
        # "On-call at Helio one week in eight" is the on-call's fact: it opens with the noun
        # (invariant 291)
        return 2
    if slot not in slots:
        return 0
    if slot.startswith("noun:"):
        noun = slot.removeprefix("noun:")
        return 2 if re.search(r"^(?:\w+\s+){0,2}" + re.escape(noun) + r"s?\b", text, re.IGNORECASE) else 1
    return 2


# One relative, several words: "my mum moved" names "Mother lives in Gdańsk" (invariant 290).
_KIN = {stem(w): stem(head) for head, ws in (
    ("mother", "mum mom mam mummy mommy ma mother"), ("father", "dad daddy pa father"),
    ("grandmother", "gran granny grandma nan nana nanna grandmother"),
    ("grandfather", "grandpa grandad granddad gramps grandfather"),
    ("partner", "partner spouse"), ("husband", "husband hubby"),
) for w in ws.split()}


def _named_object(text: str) -> bool:
    """The word after a habit's verb is a name ("Runs Fedora", "Drinks Guinness"). Pure."""
    parts = text.split()
    return len(parts) > 1 and parts[1][:1].isupper()


def _kin(ts: frozenset[str]) -> frozenset[str]:
    return frozenset(_KIN.get(t, t) for t in ts)


def pick_old(st: Statement, hits: Iterable, *, states: tuple[str, ...] = ("active",)):
    """The recalled fact this change replaces, or None. `hits` are tools.HitView-like objects
    (id, kind, text, state, fact_type, rank), best first."""
    facts = [h for h in hits if h.kind == "semantic" and h.state in states]
    if not facts or not st.text:
        return None
    new_terms = terms(st.text)
    if st.previous:
        want = terms(st.previous) - TEMPLATE
        topic = new_terms - TEMPLATE - want
        if want:
            found = [h for h in facts if _kin(want) <= _kin(terms(h.text)) and terms(h.text) != new_terms]
            if st.rule in _OWN_RULES:
                # Invariant 323: a thing that went is the one a fact holds, never one the fact
                # only mentions in a clause about something else ("Has a Reolink doorbell whose
                # chime plays through the kitchen speaker" does not own the kitchen speaker)
                found = [h for h in found if _kin(want) <= _kin(terms(_RELATIVE.split(h.text, maxsplit=1)[0]))]
                if not found:  # "XM5s" in "WH-1000XM5", "gym" in "PureGym": one fact only
                    inside = {h.id: h for h in facts if terms(h.text) != new_terms and _inside(want, h.text)}
                    found = list(inside.values()) if len(inside) == 1 else []
            if not found and len(want) == 1 and not st.harsh and st.rule.startswith("own:"):
                # "sold the bike, it's the U-Bahn now" over "Cycles to the office": the one word
                # named, or a word the lexicon gives for it, in the fact (invariant 257)
                named = list({h.id: h for h in facts
                              if _names_it(st.previous, h.text) and terms(h.text) != new_terms}.values())
                found = named if len(named) == 1 else []  # one fact, seen in either recall
            if not found and not st.harsh and len(want) >= 2 and st.rule.endswith(
                    ("+instead", "+replaces-no-longer")):
                # Invariant 297: what is given up is named with words of its own ("nursing at
                # DCU", "the LG monitor on Kleinanzeigen"): the one fact holding at least half of
                # them, never just one word of a long name, is what the new thing replaces.
                fit = {h.id: (len(want & terms(h.text)), h) for h in facts if terms(h.text) != new_terms}
                best = max((n for n, _ in fit.values()), default=0)
                top = [h for n, h in fit.values() if n == best]
                found = top if best * 2 >= len(want) and len(top) == 1 else []
            if st.harsh:
                # "X, not Z" retracts only a fact about the same thing, not any fact naming Z.
                found = [h for h in found if (st.slot and _strength(st.slot, h.text, h.fact_type))
                         or topic & (terms(h.text) - want)]
            if found:
                owned = bool(re.match(r"^(?:no\s+longer\s+)?(?:owns|has|drives|rides|uses)\b", st.text,
                                      re.IGNORECASE))
                return max(found, key=lambda h: (
                    _strength(st.slot, h.text, h.fact_type) if st.slot else 0,
                    # a thing that went replaces the fact of having it, not a rule about it
                    owned and bool(re.match(r"^(?:has|owns|drives|rides|uses)\b", h.text,
                                            re.IGNORECASE)),
                    len(topic & terms(h.text)), -h.rank))
            if st.harsh:
                return None
            if re.match(r"^moved\s+away\s+from\b", st.text, re.IGNORECASE):
                # Invariant 221: "I left Google" ends only a fact that names Google; with none
                # on record it replaces nothing (never the home fact by its slot).
                return None
            kind = next((k for k in lx.PET_KINDS if st.previous.lower() in k), None)
            if kind:  # "our dog died": the one fact about a dog of any breed (invariant 140)
                pets = {h.id: h for h in facts
                        if {w.lower() for w in re.findall(r"[\w'-]+", h.text)} & kind}
                return next(iter(pets.values())) if len(pets) == 1 else None
    if st.slot and (st.act == "change" or _single(st.slot)):
        found = [(s, h) for h in facts
                 if (s := _strength(st.slot, h.text, h.fact_type)) and terms(h.text) != new_terms]
        if st.slot.startswith(("rel:", "verb:")):  # a person or a habit: also share a topic word
            topic = new_terms - TEMPLATE
            found = [(s, h) for s, h in found if topic & terms(h.text)]
            if st.slot.startswith("verb:"):
                # one verb, two senses: "Runs on Sunday mornings" (a habit) is not "Runs Fedora
                # on the laptop" (a named thing used): one object named, the other not (inv. 294)
                found = [(s, h) for s, h in found if _named_object(st.text) == _named_object(h.text)]
        if not found and st.slot == "job" and st.act == "change" and "employer" in slots_of(st.text):
            # "new job: data analyst at Monzo" replaces "Works at Barclays" (invariant 163)
            found = [(s, h) for h in facts
                     if (s := _strength("employer", h.text, h.fact_type)) and terms(h.text) != new_terms]
        if not found and st.slot.startswith("noun:") and st.rule.startswith("own:switched"):
            found = [(1, h) for h in _provider_facts(st, facts)]
        if found:
            # Two facts hold the slot ("Primary on-call one week in six", "On-call from August
            # 10 to August 17"): the one sharing words with the new value, never its numbers,
            # which are what changed (invariant 308)
            shared = {w for w in new_terms - TEMPLATE if not w.isdigit()}
            return max(found, key=lambda p: (p[0], len(shared & terms(p[1].text)), -p[1].rank))[1]
    if st.act == "change" and not st.slot and not st.previous and not st.kind:
        # "I now prefer window seats": a stated change of a fact of the same kind about the
        # same thing ("Always wants an aisle seat" shares "seat").
        topic = new_terms - TEMPLATE
        found = [h for h in facts if h.fact_type == st.fact_type and topic & terms(h.text)
                 and terms(h.text) != new_terms]
        if found:
            return max(found, key=lambda h: (len(topic & terms(h.text)), -h.rank))

    if st.act == "change":
        found = _rival(st, facts) or _same_kind(st, facts)
        if found is not None and st.previous and st.rule == "own:replaced" and not _names_it(st.previous, found.text):
            # invariant 256: "swapped my German driving licence for a Portuguese one" names
            # what it replaces; a fact that does not name it (the commute, "drives") is not it
            return None
        return found
    return None


def _provider_facts(st: Statement, facts: list) -> list:
    """Invariant 393: "switched energy supplier to Octopus" over "Electricity and gas with British
    Gas": the switch names what it is of ("energy supplier") and the new name; the one fact that
    says a word of that thing, or a word the lexicon gives for it, and holds another name than
    the new one, is the one replaced. None or several: nothing is. Pure."""
    from ..lexicon import expansions

    m = re.match(r"^(?P<n>.+?)\s+is\s+(?P<v>.+)$", st.text or "")
    if m is None:
        return []
    noun = terms(m.group("n")) - TEMPLATE
    about = set(noun) | set(expansions(noun, 1.0))
    new = identifiers("x " + m.group("v"))  # every capitalised word of the value
    if not about or not new:
        return []
    fit = {h.id: h for h in facts
           if about & terms(h.text) and (identifiers(h.text) - about) and not new & identifiers(h.text)
           and terms(h.text) != terms(st.text or "")}
    return list(fit.values()) if len(fit) == 1 else []


_OWN_RULES = frozenset({"own:gone", "own:replaced", "own:switched"})
_RELATIVE = re.compile(r"\b(?:whose|which|that|who|where)\b", re.IGNORECASE)


def _inside(want: frozenset[str], text: str) -> bool:
    """Each wanted word is a word of the text or sits inside one, three letters or more
    ("xm5" in "1000xm5", "gym" in "puregym"), and one at least is not the whole word. Pure."""
    head = _RELATIVE.split(text, maxsplit=1)[0]
    have = terms(head)
    # only a name made of parts holds a word inside it ("PureGym", "WH-1000XM5"), never a
    # plain word ("car" is not in "card")
    names = {t for t in have if any(t in terms(tok) for tok in re.findall(r"[\w'’-]+", head)
                                    if re.search(r"\d|[a-z][A-Z]|-", tok))}
    inner = [w for w in want if w not in have]
    return bool(want) and bool(inner) and all(
        len(w) >= 3 and any(w in t and len(t) > len(w) for t in names) for w in inner)


def _names_it(previous: str, text: str) -> bool:
    """The fact shares a word of the thing named, or a word the lexicon gives for it ("bike" and
    "Cycles"). Pure."""
    from ..lexicon import expansions

    want = set(terms(previous) - TEMPLATE)
    have = set(terms(text))
    return bool(want & have or set(expansions(want, 1.0)) & have) or _abbreviates(previous, text)


def _abbreviates(short: str, text: str) -> bool:
    """ "PS4" is "PlayStation 4", "HA" is "Home Assistant": a name in capitals and digits is the
    run of capitalised words (camel-case humps too) and numbers whose initials spell it
    (invariant 290). Pure."""
    short = short.strip()
    if not re.fullmatch(r"(?-i:[A-Z][A-Z0-9]{1,4})", short):
        return False
    runs: list[list[str]] = [[]]
    for token in re.findall(r"[\w'’-]+", text):
        if token[:1].isupper() or token.isdigit():
            humps = re.findall(r"[A-Z][a-z]*|\d+", token)
            runs[-1] += [h if h.isdigit() else h[0] for h in humps]
        else:
            runs.append([])
    return any(short in "".join(r) and len(short) > 1 for r in runs if r)


_HOLDS = re.compile(r"^(?:owns|has|drives|rides|uses|banks|no\s+longer\s+\w+|(?:main\s+|new\s+)?"
                    r"[\w-]+\s+is)\b", re.IGNORECASE)
_KIND_SKIP = frozenset("a an the my our their is main new old second another its".split())


def kind_of(text: str) -> str | None:
    """The kind of thing a value names (lexicon.KINDS), or None. A brand or kind noun followed
    by another plain noun is something else ("phone case", "golf bag", "car tyres"); model words
    and names after it keep it ("Pixel 9 pro", "MacBook Air", "Kia Niro")."""
    kind = None
    raw = re.sub(r"^(?:owns|has|drives|rides|uses|banks\s+with|no\s+longer\s+(?:owns|has|drives|"
                 r"uses))\s+", "", text.strip(), flags=re.IGNORECASE)
    # Only the thing itself: "an eSIM ... on a Pixel 8" is an eSIM, not a phone.
    raw = re.split(r"\s+(?:on|in|for|with|from|at|outside|inside|of|by|via|to|under|near)\s+", raw,
                   maxsplit=1, flags=re.IGNORECASE)[0]
    for token in re.findall(r"[\w'-]+", raw):
        low = token.lower()
        if low in _KIND_SKIP:
            continue
        if low in lx.KINDS:
            kind = lx.KINDS[low]
        elif kind and (any(c.isdigit() for c in token) or token[:1].isupper() or low in lx.MODEL_WORDS):
            continue
        else:
            kind = None
    return kind


def _same_kind(st: Statement, facts: list):
    """"I changed my car, now I have a Peugeot": no word in common with "Drives a Volkswagen
    Golf", but both name a car. Only a fact of holding one thing of that kind, only when exactly
    one does, and never when the user named another old value (invariant 155)."""
    if st.previous and re.sub(r"s$", "", st.previous.lower()) not in lx.KIND_NAMES:
        return None  # a named old value that is not on record: nothing else is replaced
    new_kind = kind_of(st.text or "")
    kind: str | None
    if st.previous:  # "sold my bike, got a car": the one bike goes, whatever replaced it
        kind = re.sub(r"s$", "", st.previous.lower())
    else:
        kind = st.kind or new_kind
        if kind is None or (new_kind and new_kind != kind):
            return None
    mine = terms(st.text or "")
    same = {h.id: h for h in facts if _HOLDS.match(h.text) and kind_of(h.text) == kind
            and terms(h.text) != mine}
    return next(iter(same.values())) if len(same) == 1 else None


def contrast_words(text: str) -> set[str]:
    """Lower-case words of a text, with multi-word names of one value joined ("VS Code")."""
    t = re.sub(r"\b(?:vs|visual\s+studio)\s+code\b", "vscode", text.lower())
    return set(re.findall(r"[\w'-]+", t))


def _rival(st: Statement, facts: list):
    """"I prefer the window now": no word in common with "Always wants an aisle seat", but
    window and aisle are values of one kind (lexicon.CONTRASTS). Only an unambiguous rival of
    the same fact type (invariant 140)."""
    words = contrast_words(st.text or "")
    for group in lx.CONTRASTS:
        mine = words & group
        if not mine:
            continue
        # a switch said outright ("switched to X", "X instead of Y") replaces its rival
        # whatever type the record gave it (invariant 299)
        said = st.rule.startswith("own:switched") or "+instead" in st.rule
        rivals = {h.id: h for h in facts if (h.fact_type == st.fact_type or said)
                  and contrast_words(h.text) & (group - mine) and not contrast_words(h.text) & mine}
        if len(rivals) == 1:
            return next(iter(rivals.values()))
    return None


def _single(slot: str) -> bool:
    return slot in {"home", "job", "employer", "diet", "contact", "age", "marital"} or (
        slot.startswith("noun:") and slot.removeprefix("noun:").split()[-1] in lx.SLOT_NOUNS)


def _near(want: frozenset[str] | set[str], have: frozenset[str]) -> int:
    """How many wanted stems a text holds, counting word forms the stemmer keeps apart
    ("allergic"/"allergy": one stem a prefix of the other, five letters or more)."""
    return sum(1 for w in want if w in have or any(
        min(len(w), len(h)) >= 5 and (w.startswith(h) or h.startswith(w)) for h in have))


def pick_target(words: str, hits: Iterable, *, states: tuple[str, ...] = ("active", "superseded"),
                slot: str | None = None, expand: bool = False):
    """The recalled memory a denial or a forget request names, or None when none is named
    clearly: every name and number in the words must appear, and enough of the rest."""
    cleaned = re.sub(r"^(?:lived|been|owned|had|worked|liked|said|eaten|used|bought|drank|drunk|ate|"
                     r"drove|smoked|kept|rode)\s+(?:in|at|"
                     r"a|an|the|with|for)?\s*", "", words.strip(), flags=re.IGNORECASE)
    want = terms(cleaned) - {stem(w) for w in lx.GENERIC}
    said = set(want)  # the user's own words, before synonyms
    if expand:
        for w in list(want):
            for key, alts in lx.SYNONYMS.items():
                if stem(key) == w:
                    want |= {stem(a) for a in alts}
    # a name is folded as its fact's words are ("Sofía" is held as "sofia"; invariant 263)
    names = ({stem(w) for w in identifiers(" x " + cleaned)} | terms(" ".join(identifiers(" x " + cleaned)))) & want
    if not want:
        return None
    best, best_key = None, None
    for h in hits:
        if h.kind not in ("semantic", "procedural") or (h.kind == "semantic" and h.state not in states):
            continue
        have = terms(h.text)
        if names and not names <= have:
            continue
        rel = relative_of(h.text)
        if rel and not (terms(rel) & said or _person_named(h.text) & said):
            continue  # invariant 180: "forget my address" is not the sister's Manchester fact
        shared = want & have
        if not shared:
            continue
        if not names and not expand and len(shared) * 2 < len(want):
            continue
        if not expand and len(want) - _near(want, have) > len(want) // 4:
            # A denial tombstones what it names (invariant 4): "a Hue bridge" is not "Hue bulbs",
            # so every word of a short target (all but one in four of a long one) must be there.
            continue
        # Invariant 149: the words the user said outrank their synonyms ("forget my address"
        # is the address fact, not "lived two streets away" that shares two synonyms).
        fit = (len(shared & said) + (2 if slot and slot in slots_of(h.text, h.fact_type) else 0),
               len(shared), h.state == "active", -h.rank)
        if best_key is None or fit > best_key:
            best, best_key = h, fit
    return best


def already_known(text: str, hits: Iterable):
    """A recalled active fact that already says this (its distinctive words all appear there)."""
    mine = terms(text) - TEMPLATE
    if not mine:
        return None
    negative = bool(re.match(r"^(?:no\s+longer|is\s+no\s+longer|does\s+not|not\b|dislikes)", text, re.IGNORECASE))
    named = bool(mine & identifiers(" x " + text))
    for h in hits:
        if h.kind != "semantic" or h.state not in ("active", "candidate"):
            continue
        theirs = terms(h.text)
        other_negative = bool(re.search(r"\b(?:no\s+longer|not|never|dislikes|doesn'?t)\b", h.text, re.IGNORECASE))
        # One common word said again inside a long, unrelated fact is no restatement ("doing
        # nights" is not "... hallway light at night must be dim"); a name is ("the CKA in
        # January" is the exam on record) (invariant 241).
        if mine <= theirs and negative == other_negative and (
                len(mine) > 1 or len(theirs - TEMPLATE) <= 4 or named
                or mine <= terms(" ".join(h.text.split()[:3]))):  # "Is vegetarian; ..." leads with it
            return h
    return None


_RIVAL_CUE = re.compile(r"\b(?:rather\s+than|instead\s+of|in\s+place\s+of|over|than|not)\b", re.IGNORECASE)


def names_as_rival(text: str, fact_text: str) -> bool:
    """True when a recorded fact names this value only as the one not chosen ("Uses ZHA rather
    than Zigbee2MQTT" for "Uses Zigbee2MQTT"): a switch to it replaces the fact rather than
    being already known (invariant 163). Pure."""
    mine = terms(text) - TEMPLATE
    cue = _RIVAL_CUE.search(fact_text)
    if not mine or cue is None:
        return False
    before, after = terms(fact_text[:cue.start()]), terms(fact_text[cue.end():])
    return mine <= after and not mine & before and bool(before - TEMPLATE)
