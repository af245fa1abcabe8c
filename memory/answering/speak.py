"""Stored facts said back to the user, in the second person ("Lives in Bath" -> "you live in Bath")."""

from __future__ import annotations

import re

from .lexicon import PETS, RELATIONS, ROLE_WORDS

_IRREGULAR = {"is": "are", "has": "have", "does": "do", "goes": "go", "was": "were"}
# Words that start a canonical fact as its verb (the subject, the user, is left out).
_VERBS = frozenset(["lives", "owns", "has", "is", "works", "prefers", "likes", "dislikes", "loves", "enjoys", "hates", "uses", "drinks", "eats", "runs", "takes", "travels", "carries", "keeps", "wants", "speaks", "plays", "grows", "types", "cycles", "boulders", "avoids", "checks", "joined", "holds", "sits", "mentors", "passed", "stayed", "plans", "needed", "merged", "wrote", "flies", "drives", "rides", "reads", "watches", "writes", "teaches", "studies", "wears", "needs", "sleeps", "cooks", "bakes", "swims", "walks", "climbs", "volunteers", "attends", "supports", "follows", "collects", "brews", "goes", "does", "was", "moved", "started", "stopped", "quit", "left", "bought", "sold", "got", "became", "banks", "commutes", "rents", "learns", "practises", "practices", "trains", "visits", "shops", "codes", "hikes", "skis", "surfs", "paints", "sings", "dances", "knits", "meditates", "manages", "leads", "coaches", "lifts", "bouldered", "gardens", "fasts", "orders", "books", "flew", "pays", "saves", "invests", "donates"])
_STATE_WORDS = frozenset(["interested", "tired", "bored", "excited", "worried", "obsessed",
                          "involved", "based", "qualified", "pregnant", "vaccinated",
                          "certified", "registered", "employed", "unemployed", "self-employed",
                          "separated", "widowed", "left-handed", "right-handed", "colour-blind"])
_PAST_VERBS = frozenset(["went", "saw", "met", "took", "had", "made", "ran", "flew", "drove", "found",
                        "lost", "won", "began", "came", "gave", "spent", "sent", "built", "paid",
                        "sat", "read", "heard", "felt", "kept", "threw", "caught", "taught", "ate",
                        "drank", "swam", "rode", "broke", "chose", "forgot", "grew", "knew", "led"])
_ADJ_START = re.compile(r"^(?:allergic|afraid|scared|terrified|vegan|vegetarian|pescatarian|"
                        r"married|divorced|single|engaged)\b", re.IGNORECASE)


def _base(verb: str) -> str:
    v = verb.lower()
    if v in _IRREGULAR:
        return _IRREGULAR[v]
    if v.endswith(("ed",)) or v in {"joined", "passed", "stayed", "needed", "merged", "wrote",
                                    "moved", "started", "stopped", "quit", "left", "bought",
                                    "sold", "got", "became"}:
        return v
    if v.endswith("ies"):
        return v[:-3] + "y"
    if re.search(r"(?:sses|shes|ches|xes|zes|oes)$", v):
        return v[:-2]
    return v.removesuffix("s")


def _pronouns(text: str) -> str:
    t = re.sub(r"\bthe user's\b", "your", text, flags=re.IGNORECASE)
    t = re.sub(r"\bthe user\b", "you", t, flags=re.IGNORECASE)
    t = re.sub(r"\b(?:she|he)\s+is\b", "you are", t, flags=re.IGNORECASE)
    t = re.sub(r"\b(?:she|he)\s+has\b", "you have", t, flags=re.IGNORECASE)
    t = re.sub(r"\b(?:she|he)\s+was\b", "you were", t, flags=re.IGNORECASE)
    t = re.sub(r"\b(?:she|he)\s+(\w+s)\b",
               lambda m: "you " + (_base(m.group(1)) if len(m.group(1)) > 3 and m.group(1).lower()
                                   not in {"always", "does"} else m.group(1)), t,
               flags=re.IGNORECASE)
    t = re.sub(r"\b(?:she|he)\b", "you", t, flags=re.IGNORECASE)
    # "her" as an object ("got her into", "told her.") is "you"; before a noun it is "your".
    t = re.sub(r"\b(?:her|him)\b(?=\s+(?:into|to|in|on|up|out|about|for|with|at|from|off|over|"
               r"a|an|the|some|that|this|and|or|again|too|every|each|when|if|because|once|twice|"
               r"daily|weekly|often|sometimes|now|then)\b|\s*[.,;:!?)]|\s*$)", "you", t,
               flags=re.IGNORECASE)
    t = re.sub(r"\b(?:her|his)\b", "your", t, flags=re.IGNORECASE)
    t = re.sub(r"\bthem\b", "you", t, flags=re.IGNORECASE)
    return re.sub(r"\btheir\b", "your", t, flags=re.IGNORECASE)


def to_you(text: str) -> str:
    """Words about the user in the third person said to them ("one of her flights" -> "one of
    your flights"), the rest left as it is (a routine's steps)."""
    return _pronouns(text)


def _and_verbs(said: str) -> str:
    """The second verb of "you have ... and always carries two EpiPens" agrees with "you"."""
    if not said.startswith(("you ", "you're ")):
        return said

    def agree(m: re.Match) -> str:
        verb = m.group(3)
        if verb.lower() not in _VERBS or verb.lower() in {"was", "joined", "passed", "stayed",
                                                          "needed", "merged", "wrote", "moved",
                                                          "started", "stopped", "quit", "left",
                                                          "bought", "sold", "got", "became"}:
            return m.group(0)
        base = {"is": "are", "has": "have", "does": "do", "goes": "go"}.get(verb.lower(), _base(verb))
        return f"{m.group(1)} {m.group(2) or ''}{base}"
    return re.sub(r"\b(and|but)\s+((?:always|also|usually|often|never|still|sometimes|now)\s+)?([a-z]+s)\b",
                  agree, said)


def second_person(text: str) -> str:
    """A stored fact as said to the user: "Lives in Bath" -> "you live in Bath"."""
    return _and_verbs(_second_person(text))


def _second_person(text: str) -> str:
    t = " ".join(text.split()).rstrip(".")
    if not t:
        return t
    words = t.split()
    first = words[0].lower()
    if first in {"always", "usually", "never", "often", "sometimes", "only", "mostly", "still",
                 "now", "also", "rarely"} and len(words) > 1:
        said = _second_person(" ".join(words[1:]))
        if said.startswith("you're "):
            return f"you're {first} " + said[len("you're "):]
        if said.startswith("you "):
            return f"you {first} " + said[len("you "):]
        return said
    rest = " ".join(words[1:])
    off = re.match(r"^(?P<plan>.+?)\s+cancell?ed$", t)
    if off and first not in _VERBS and first not in {"has", "was", "is", "had"}:
        # "Trip to Japan cancelled": "your trip to Japan is cancelled"
        plan = off.group("plan")
        return f"your {plan[:1].lower() + plan[1:]} is cancelled"
    if first == "trip" and rest.lower().startswith("to "):
        return "you're going " + _pronouns(rest)
    if first == "moving" and rest.lower().startswith("to "):
        return "you're moving " + _pronouns(rest)
    if first in RELATIONS or first.rstrip("'s’") in RELATIONS:
        return "your " + _pronouns(t[:1].lower() + t[1:])
    if first in {"her", "his", "their", "my"}:
        return "your " + _pronouns(rest)
    if first == "no" and rest.lower().startswith("longer "):
        verb, _, tail = rest[len("longer "):].partition(" ")
        return f"you no longer {_base(verb)} {_pronouns(tail)}".strip()
    if first == "is" and rest.lower().startswith("no longer "):
        return "you're no longer " + _pronouns(rest[len("no longer "):])
    if first == "does" and rest.lower().startswith("not "):
        return "you don't " + _pronouns(rest[len("not "):])
    if first == "is":
        return "you're " + _pronouns(rest)
    if first in _VERBS:
        return f"you {_base(first)} {_pronouns(rest)}".strip()
    if first in _STATE_WORDS or (first.endswith("ed") and not rest) or (first.endswith("ed") and rest and re.match(
            r"(?:of|about|with)\b", rest, re.IGNORECASE)):
        return "you're " + _pronouns(t[:1].lower() + t[1:])  # "Tired of winter": a state
    if first in _PAST_VERBS or (first.endswith("ed") and len(first) > 4 and rest
                                and not _ADJ_START.match(t)):
        return f"you {first} {_pronouns(rest)}".strip()  # "Visited Porto" -> "you visited Porto"
    if _ADJ_START.match(t):
        return "you're " + _pronouns(t[:1].lower() + t[1:])
    if re.match(r"^(?:[A-Z][a-z]+|[A-Z]{2,5})(?:\s+[a-z][\w'-]*){0,3}(?:\s+(?:is|are|expires|runs\s+out|ends)\b|\s*:)",
                t) and not re.match(
            r"^(?:The|A|An)\b", t):
        # "Coffee order: flat white" is said as "your coffee order is flat white"
        if _PERSON_SAID.match(t) and t.split()[0].lower() not in ROLE_WORDS | RELATIONS:
            return _pronouns(t)  # "Tom is allergic to nuts": someone named, never "your tom"
        t = re.sub(r"^([^:]+?)\s*:\s*", r"\1 is ", t, count=1)
        acronym = t.split()[0].isupper()  # "ESTA expires ..." stays "your ESTA"
        return "your " + _pronouns(t if acronym else t[:1].lower() + t[1:])
    role = _ROLE_FIRST.match(t)
    if role and role.group("role").lower() in ROLE_WORDS and first not in RELATIONS:
        # A job said by its role ("Senior backend engineer on the payments team
        # at Helio") is what you are: "you're a senior backend engineer on ..."
        acronym = t.split()[0].isupper()  # "SRE at Monzo": "an SRE"
        low = t if acronym else t[:1].lower() + t[1:]
        an = low[:1] in ("AEFHILMNORSX" if acronym else "aeiou")
        return f"you're {'an' if an else 'a'} " + _pronouns(low)
    if t[:1].isupper() and _EVENT_NOUN.match(t[:1].lower() + t[1:]):
        # "Dentist appointment on 9 December" is said "your dentist appointment on
        # 9 December", never as a bare label.
        return "your " + _pronouns(t[:1].lower() + t[1:])
    return _pronouns(t)


# A name and what is said of a person ("Tom is allergic to nuts", "Jess is a
# teacher", "Amara is pregnant") is no attribute of the user's.
_PERSON_SAID = re.compile(
    r"^(?-i:[A-Z])[a-z'’-]+\s+(?:is|was)\s+(?:(?:now|still|also)\s+)?(?:allergic|afraid|scared|"
    r"vegan|vegetarian|pescatarian|pregnant|expecting|married|engaged|divorced|separated|retired|"
    r"ill|sick|unwell|diabetic|coeliac|lactose|intolerant|moving|studying|working|learning|"
    r"training|based|from|back|away|home|in\s+hospital|off\s+work|"
    r"(?:a|an)\s+(?:[\w-]+\s+){0,2}(?:" + "|".join(sorted(ROLE_WORDS | PETS, key=len, reverse=True))
    + r")\b)",
    re.IGNORECASE)


# A role and its place: up to three words before a role noun, then on / at / for / with / in.
_ROLE_FIRST = re.compile(r"^(?:[A-Za-z][\w-]*\s+){0,3}?(?P<role>[A-Za-z][\w-]*)\s+"
                         r"(?:on|at|for|with|in)\s+\S")


# A plan named by its noun, then when or where it is ("Dentist appointment on 9 December").
_EVENT_NOUN = re.compile(
    r"^(?!the\b|a\b|an\b)(?:[a-z][a-z'’-]*(?:\s+[a-z][\w'’-]*){0,3}?\s+)?(?:appointment|booking|flight|meeting|interview|"
    r"exam|surgery|operation|check-?up|deadline|wedding|party|holiday|vacation|concert|match|race|"
    r"marathon|lesson|class|course|visit|scan|procedure|hearing|viewing|move)s?\s+"
    r"(?:on|at|in|with|to|from|for|next|this|booked)\b")


def sentence(text: str) -> str:
    t = text.strip()
    return (t[:1].upper() + t[1:]).rstrip(".") + "."


def join(items: list[str]) -> str:
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
