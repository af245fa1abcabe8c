"""Which recalled memory a statement refers to. Pure functions over recalled hits.

A change replaces a fact only when the words naming the old value all reappear in it ("from Zed
to Helix" needs a fact saying Zed), or, without such words, when both fill the same single-valued
attribute (home, job, diet, "main editor"...). Nothing else is replaced: "replaced the Hue
bridge" does not touch "Has twelve Philips Hue bulbs" (issue 12).
"""

from __future__ import annotations

import re

from ..text import STOP_WORDS, stem, term_set, words
from . import lexicon as lx

# Words that say who holds a value or hedge it, not what the value is.
# How a work pattern is said ("Works nights", "Works from home"): not an employer.
WORK_PATTERN = re.compile(r"^works\s+(?:from\s+home|remotely|remote|(?:fully|mostly|partly)\s+remote|"
                          r"hybrid|in\s+(?:the\s+)?office|on[- ]site|part[- ]time|full[- ]time|days\b|"
                          r"nights\b|night\s+shifts|day\s+shifts|compressed|\d|one\b|two\b|three\b|"
                          r"four\b|five\b|six\b)", re.IGNORECASE)
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




def terms(text: str) -> frozenset[str]:
    return value_terms(text)


# "Her name is Lena and she is a field service manager at Nordwind": two statements in one fact.
_AND_CLAUSE = re.compile(r",?\s+and\s+(?=(?:she|he|they|i)\s+(?:is|are|am|was|were|works|worked|"
                         r"lives|lived|has|had)\b)", re.IGNORECASE)


def answered_slots(text: str, fact_type: str | None = None) -> set[str]:
    """The attributes a stored text answers, clause by clause (invariant 186): a
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
        # "Rents a flat in Leith" / "Owns a house in Bath" is where the user
        # lives, so a move replaces it; a holiday or second home is not.
        out.add("home")
    relation = bool(_RELATION_HEAD.match(low))
    # "Her name is Lena and she is a field service manager at Nordwind": the user's own job,
    # said after their name
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
    # "… at the Bristol Children's Hospital" names an employer as "at Acme" does
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
        # time
        out.add("commute")
    if WORK_PATTERN.match(low):
        out.add("workpattern")  # how the user works, one pattern at a time
    if re.search(r"\b\d{1,3}\s+years?\s+old\b", low):
        out.add("age")
    if re.search(r"\b(?:married|divorced|single|widowed|engaged|separated)\b", low):
        out.add("marital")
    head_words = re.findall(r"[a-z]+", low)[:5]
    # "Has Sony WH-1000XM5 noise-cancelling headphones", "Has a Reolink PoE video doorbell whose
    # chime ...": the head of what is had, however many words name its model
    had = re.match(r"^(?:has|owns|uses|drives|rides)\s+(?P<o>[^,;:(]+?)(?=\s+(?:whose|which|that|with|for|in|on|"
                   r"at|from|to|and|but|rather|instead)\b|[,;:(]|$)", low)
    if had:
        head_words = head_words + re.findall(r"[a-z]+", had.group("o"))[-1:]
    for noun in lx.SLOT_NOUNS:
        if noun in head_words or (noun + "s") in head_words:
            out.add(f"noun:{noun}")
        elif "-" in noun and re.search(r"(?<![\w-])" + re.escape(noun) + r"(?![\w-])", low[:60]):
            out.add(f"noun:{noun}")  # "Primary on-call at ...": a hyphenated noun
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






# One relative, several words: "my mum moved" names "Mother lives in Gdańsk".
_KIN = {stem(w): stem(head) for head, ws in (
    ("mother", "mum mom mam mummy mommy ma mother"), ("father", "dad daddy pa father"),
    ("grandmother", "gran granny grandma nan nana nanna grandmother"),
    ("grandfather", "grandpa grandad granddad gramps grandfather"),
    ("partner", "partner spouse"), ("husband", "husband hubby"),
) for w in ws.split()}


















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










def _near(want: frozenset[str] | set[str], have: frozenset[str]) -> int:
    """How many wanted stems a text holds, counting word forms the stemmer keeps apart
    ("allergic"/"allergy": one stem a prefix of the other, five letters or more)."""
    return sum(1 for w in want if w in have or any(
        min(len(w), len(h)) >= 5 and (w.startswith(h) or h.startswith(w)) for h in have))








