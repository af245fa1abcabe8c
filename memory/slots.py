"""The one slot vocabulary: which attribute of a person a fact fills, how many values it holds at
once, and how its canonical text reads (invariant 530).

The reader (`memory/reading/`) writes a fact as its slot's template; consolidation's gates and
the planner ask `slot_of` of a canonical text; the same table answers both, so chat,
consolidation and the tombstone gate cannot disagree on what "Is based in Leeds" is about.
Things a person owns or uses are slotted by their kind ("phone", "editor"): a kind with
`single=True` holds one value at a time (a new phone replaces the old one), another kind holds
many (bulbs, sensors). The kinds and their member words are data (`KINDS`). Pure.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from .text import stem


@dataclass(frozen=True)
class Slot:
    name: str
    single: bool  # one value at a time: a new value supersedes the old one
    fact_type: str  # identity | preference | constraint | world
    template: str  # canonical text, {v} is the value
    query: str  # words a recall for this slot's current value uses


SLOTS: dict[str, Slot] = {s.name: s for s in [
    Slot("home", True, "identity", "Lives in {v}", "lives in home city moved address based flat house"),
    Slot("employer", True, "identity", "Works at {v}", "works at employer job company work"),
    Slot("job", True, "identity", "Works as {v}", "works as job role title position"),
    Slot("name", True, "identity", "Name is {v}", "name called"),
    Slot("age", True, "identity", "Is {v} years old", "age years old"),
    Slot("diet", True, "constraint", "Is {v}", "diet vegetarian vegan eats"),
    Slot("pronouns", True, "identity", "Uses {v} pronouns", "pronouns"),
    Slot("contact", True, "preference", "Prefers to be contacted by {v}", "contact prefers"),
    Slot("manager", True, "world", "Manager is {v}", "manager boss lead"),
    Slot("partner", True, "identity", "Partner is {v}", "partner husband wife girlfriend boyfriend"),
    Slot("bank", True, "world", "Banks with {v}", "bank banks with account"),
    Slot("allergy", False, "constraint", "Allergic to {v}", "allergic allergy"),
    Slot("condition", False, "constraint", "Has {v}", "condition diagnosed health"),
    Slot("medication", False, "constraint", "Takes {v}", "takes medication"),
    Slot("avoids", False, "constraint", "Does not eat {v}", "eat avoids food"),
    Slot("likes", False, "preference", "Likes {v}", "likes prefers loves favourite"),
    Slot("dislikes", False, "preference", "Dislikes {v}", "dislikes hates"),
    Slot("activity", False, "preference", "{v}", "hobby plays learning"),
    Slot("language", False, "identity", "Speaks {v}", "speaks language"),
    Slot("owns", False, "world", "Has {v}", "has owns"),
    Slot("uses", False, "world", "Uses {v}", "uses"),
    Slot("pet", False, "world", "Has {v}", "pet dog cat"),
    Slot("relative", False, "world", "{v}", "family sister brother"),
    Slot("plan", False, "world", "{v}", "trip plan booked appointment"),
    # "my terminal is Ghostty": an attribute the user names; one value per attribute
    Slot("attribute", True, "world", "{v}", ""),
]}

# Kinds of thing, each with the words that name a member. A kind that is `single` holds one
# value at a time. A member word is matched at word level, folded and stemmed.
KINDS: dict[str, tuple[bool, str]] = {
    "phone": (True, "phone smartphone iphone pixel galaxy oneplus fairphone xperia motorola nokia xiaomi redmi huawei"),
    "laptop": (True, "laptop macbook thinkpad xps chromebook notebook zenbook"),
    "car": (True, "car tesla golf polo corsa civic prius yaris fiesta focus octavia skoda volvo bmw audi mercedes kia hyundai toyota honda renault peugeot fiat nissan mini van"),
    "bike": (False, "bike bicycle ebike e-bike"),
    "editor": (True, "editor vim neovim emacs vscode helix zed sublime intellij pycharm"),
    "shell": (True, "shell bash zsh fish nushell"),
    "terminal": (True, "terminal wezterm iterm alacritty kitty ghostty"),
    "broadband": (True, "broadband internet fibre fiber isp"),
    "mobile": (True, "mobile network carrier sim esim vodafone o2 three giffgaff"),
    "energy": (True, "energy electricity gas supplier octopus"),
    "streaming": (False, "netflix spotify disney hulu prime"),
    "music": (True, "spotify tidal deezer"),
    "hub": (True, "hub homey smartthings hubitat"),
    "watch": (True, "watch smartwatch garmin fitbit"),
    "dog": (False, "dog puppy beagle labrador spaniel terrier poodle collie retriever dachshund pug husky whippet greyhound"),
    "cat": (False, "cat kitten tabby"),
    "os": (True, "linux fedora ubuntu debian arch windows macos"),
    "gym": (True, "gym"),
}
PET_KINDS = frozenset({"dog", "cat"})
_KIND_OF: dict[str, str] = {}
for _kind, (_single, _words) in KINDS.items():
    for _w in _words.split():
        _KIND_OF.setdefault(stem(_w), _kind)

# Canonical texts of each slot as stored (the template's verb and the synonyms people and models
# write). Read on stemmed, lowercased words; the first row that matches decides.
_CANON: list[tuple[str, re.Pattern[str]]] = [(slot, re.compile(p)) for slot, p in [
    ("name", r"^(?:(?:her|his|their|my) )?name is\b|^goes by\b|^is called\b"),
    ("home", r"^(?:(?:she|he|they) )?(?:live|lives|living|resid\w*|is based|based|rent\w* a \w+) (?:in|at)\b|^home is\b|^(?:her|his|my) home is\b"),
    ("employer", r"^(?:works?|work) (?:at|for)\b|^employed by\b|^employer is\b"),
    ("job", r"^works? as\b|^(?:her|his|my )?job is\b|^job title is\b"),
    ("age", r"^is \d+ (?:years? old|yo)\b|^aged? \d+"),
    ("diet", r"^is (?:not )?(?:vegetarian|vegan|pescatarian|pescetarian|flexitarian|gluten.free|keto|halal|kosher)\b"),
    ("pronouns", r"^uses .* pronouns\b"),
    ("contact", r"^prefers (?:to be contacted|contact) by\b"),
    ("manager", r"^(?:(?:her|his|my) )?(?:manager|boss|line manager|lead) is\b"),
    ("partner", r"^(?:(?:her|his|my) )?(?:partner|husband|wife|boyfriend|girlfriend|fianc\w*) is\b|^(?:married|engaged) to\b"),
    ("bank", r"^banks? with\b|^(?:(?:her|his|my) )?(?:main )?bank is\b"),
    ("allergy", r"^(?:is )?(?:severely )?allergic to\b|^has an? (?:\w+ )?(?:\w+ )?allergy\b"),
    ("medication", r"^takes \d|^takes (?:\w+ )?(?:mg|tablets?|pills?)\b|^on (?:\w+ )?(?:mg|medication)\b"),
    ("avoids", r"^(?:does not|doesn t|can t|cannot|never) eats?\b|^avoids\b"),
    ("dislikes", r"^(?:dislikes|hates|can t stand)\b"),
    ("likes", r"^(?:likes|loves|prefers|enjoys|favou?rite)\b"),
    ("language", r"^speaks\b"),
    ("uses", r"^(?:uses|runs|is on|switched to)\b|^(?:\w+ )?(?:editor|shell|terminal|broadband|bank|phone|laptop|hub|os) is\b"),
    ("owns", r"^(?:has|owns|bought|got|drives)\b"),
]]


def kind_of(text: str) -> str | None:
    """The kind of thing a value or fact names ("an iPhone 15" -> "phone"), by its words."""
    plain = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch))
    found = re.findall(r"[\w-]+", plain)
    for i, word in enumerate(found):
        kind = _KIND_OF.get(stem(word.lower()))
        prev = found[i - 1] if i else ""
        nxt = found[i + 1] if i + 1 < len(found) else ""
        # "Eve Energy smart plug": a kind word inside a brand, before the thing's own noun,
        # names no kind; "Lumio Hub v2" and "Google Pixel 9" end on theirs
        in_brand = word[:1].isupper() and prev[:1].isupper() and nxt.isalpha() and nxt.islower()
        # "a phone case", "the car keys", "cat food": a kind word before the noun it modifies
        # names the thing's use, not the thing; "an electric car" is a car, "a dog called Rex"
        # a dog
        modifier = word.islower() and nxt.isalpha() and nxt.islower() and nxt not in _AFTER_NOUN
        if kind and not in_brand and not modifier:
            return kind
    return None


# words that may follow a thing's own noun without being a noun it modifies
_AFTER_NOUN = frozenset("and or but for with from in on at to of by called named who which that "
                        "since now again too as is was are were has had have i we he she they it "
                        "there here now then today yesterday last next this every".split())


def kinds_in(text: str) -> set[str]:
    """Every kind of thing a message names by any of its words."""
    plain = unicodedata.normalize("NFKD", text.lower())
    plain = "".join(ch for ch in plain if not unicodedata.combining(ch))
    return {k for w in re.findall(r"[\w-]+", plain) if (k := _KIND_OF.get(stem(w)))}


def single_kind(kind: str | None) -> bool:
    return bool(kind and KINDS.get(kind, (False, ""))[0])


def slot_of(text: str) -> str | None:
    """The slot a canonical fact text fills, or None (invariant 530). Pure."""
    t = " ".join(re.sub(r"[^\w\s]", " ", text.lower().replace("'", " ")).split())
    for slot, pattern in _CANON:
        if pattern.search(t):
            if slot in ("owns", "uses"):
                kind = kind_of(t)
                if kind in PET_KINDS:
                    return "pet"
            return slot
    return None


def slot_key(text: str) -> str | None:
    """The slot of a fact narrowed to what one value fills: a single-valued slot, or a
    possession of a kind that holds one value at a time ("owns:phone"). None when the fact
    holds one of many values (another allergy, another bulb)."""
    slot = slot_of(text)
    if slot is None:
        return None
    if SLOTS[slot].single:
        return slot
    if slot in ("owns", "uses"):
        kind = kind_of(text)
        return f"thing:{kind}" if single_kind(kind) else None
    return None


_ROLE_IN = re.compile(r"\bas an? [\w -]+|^(?:[\w-]+ ){0,3}(?:engineer|developer|nurse|manager|"
                      r"designer|teacher|doctor|analyst|consultant|scientist|architect|"
                      r"lawyer|accountant|officer|technician|director|lead|specialist)\b",
                      re.IGNORECASE)


def slot_keys(text: str) -> set[str]:
    """Every single value a fact holds: "Works at Tesco as a shift manager" holds the employer
    and the job; "Senior backend engineer on the platform team at Helio" the job."""
    keys = {k for k in [slot_key(text)] if k}
    if slot_of(text) in ("owns", "uses"):  # "an eSIM on a Pixel 8" holds the phone too
        keys |= {f"thing:{k}" for k in kinds_in(text) if single_kind(k)}
    if keys <= {"employer", "job"} and not re.match(r"(?:his|her|their|my)\s", text, re.I):
        # ("His manager at Helio is Sofia" is the manager's role, not the user's job)
        if _ROLE_IN.search(text):
            keys.add("job")
        if _ROLE_IN.search(text) and re.search(r"\b(?:at|for) (?:the )?[A-Z]", text) or \
                re.match(r"^works? (?:at|for)\b", text, re.IGNORECASE):
            keys.add("employer")
    return keys


def render(slot: str, value: str) -> str:
    """The canonical text of a value in a slot."""
    text = SLOTS[slot].template.format(v=value.strip())
    return text[:1].upper() + text[1:]
