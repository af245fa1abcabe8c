"""Resolve readings against the user's facts: new, supersede, retract, forget, or nothing; then
the policy decides what may become active (invariant 533).

The same code resolves the offline reader's readings and a model's: it knows nothing of who
read the message. Rules of the system, not of English:
- a single-valued slot (home, employer, name; a phone, an editor) holds one active value: a new
  value supersedes the one on record, the same value writes nothing;
- an ending or a denial needs a fact on record it points at (shared words, or the same kind of
  thing: "the dog" points at "a beagle called Biscuit"); without one it writes nothing;
- news about a relative changes only a fact about that relative, never the user's own;
- active only when the reading is whole: the user (or a named relative) is the subject, the
  slot is known, the value reads as English, no hedge. Otherwise a candidate with the reason, or
  nothing (invariant 534).
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from ..lexical import analyse
from ..lexicon import expansions
from ..slots import SLOTS, kind_of, kinds_in, single_kind, slot_keys, slot_of
from ..text import STOP_WORDS, term_set
from .links import linked_fact, news_words
from .model import FactRef, Operation, Reading
from .tables import base_forms, words
from .tables import word_list as words_of


def has_any(text: str, table: str) -> bool:
    low = " " + " ".join(re.findall(r"[\w'%-]+", text.lower())) + " "  # "never." is "never"
    return any(f" {w} " in low for w in words_of(table))

_HAVING = re.compile(r"^(?:Has|Owns|Uses|Drives|Rides|Plays)\b")


def _the_thing_had(target: str, active: list[FactRef]) -> FactRef | None:
    """"Ditched the Roborock" beside "Has a Roborock S8" and "The Roborock only runs at
    night": of the facts that name the thing, the one that says the user has it ends."""
    said = _terms(target)
    naming = [f for f in active if own_fact(f) and said & _terms(f.text)]
    having = [f for f in naming if _HAVING.match(f.text)]
    return having[0] if len(having) == 1 and len(naming) > 1 else None


def _before_ending(text: str) -> str:
    """The words said before the first ending word ("my Rimowa" of "my Rimowa got
    destroyed on the flight"), or "" when the clause opens with it."""
    low = " " + " ".join(re.findall(r"[\w'%-]+", text.lower())) + " "
    at = min((i for w in words_of("endings") if (i := low.find(f" {w} ")) >= 0), default=-1)
    return low[:at].strip() if at > 0 else ""


CANDIDATE_CONFIDENCE = 0.6
_STOP = STOP_WORDS | {"new", "no", "longer", "any", "more", "never", "had", "have", "has", "got",
                      "wrong", "true", "actually", "really", "sold", "gave", "away", "stopped",
                      "quit", "left", "anymore", "one", "thing", "i", "we", "my", "our", "it",
                      "want", "wanting", "like", "use", "said", "stuff", "memory",
                      "say", "about", "bit", "part", "note", "fact", "info", "get", "think",
                      "know", "where", "why", "who", "mixed", "mix", "told", "tell", "doing",
                      "idea", "came", "come", "lol", "life", "ever", "what", "please",
                      "pls", "plz", "everything", "anything", "stored", "saved", "notes"}


def _terms(text: str) -> frozenset[str]:
    """Content words, stemmed; an acronym ("UPS", "NIF") as itself, never a stop word."""
    return term_set(base_forms(text), stop=_STOP, min_len=2) | {
        a.lower() for a in re.findall(r"\b[A-Z][A-Z0-9]{1,5}\b", text)}


def _about_relative(fact: FactRef, relation: str | None) -> bool:
    """The fact is about this relation, by any of its names ("Papa" is "Father")."""
    if not relation:
        return False
    groups = words()["relation_groups"]
    assert isinstance(groups, dict)
    names = next((g for c, g in groups.items() if relation == c or relation in g), [relation])
    return any(re.search(r"\b" + re.escape(n) + r"\b", fact.text, re.IGNORECASE)
               for n in [*names, relation])


def own_fact(fact: FactRef) -> bool:
    """A fact about the user, not about a relative of theirs ("Partner is Sam" is the user's
    partner slot)."""
    return bool(re.match(r"^partner is\b", fact.text, re.IGNORECASE)) or not re.match(r"^(?:her|his|their|my)?\s*(?:sister|brother|mum|mom|mother|dad|father|"
                        r"parents|son|daughter|partner|husband|wife|cousin|aunt|uncle|niece|"
                        r"nephew|gran\w*|grand\w*)\b", fact.text, re.IGNORECASE)


def _near_word(term: str, have: frozenset[str]) -> bool:
    """A long word misspelt by a letter or two ("penicilin" for "penicillin")."""
    return len(term) >= 6 and any(
        len(h) >= 6 and SequenceMatcher(None, term, h).ratio() >= 0.85 for h in have)


def _names_other(target: str, fact: FactRef) -> bool:
    """The request names a thing the fact does not say (the head after "the"/"my", or a
    capitalised name that is no relation): it points at something else, and forgetting is
    never a guess."""
    have = _terms(fact.text)
    # the noun phrase after "the"/"my", up to a new subject, a preposition or a pause
    head = re.match(r"\s*(?:the|my|our|that|this)\s+((?:(?!(?:i|we|he|she|they|in|on|at|from|"
                    r"for|with|of|to|that|which)\b)[\w'-]+\s*){1,4})", target, re.IGNORECASE)
    if head and (said := _terms(head.group(1))) and not any(
            t in have or _near_word(t, have) or {analyse(o)[0] if analyse(o) else o
                                                 for o in expansions([t], 1.0)} & have
            for t in said) and not kinds_in(head.group(1)) & kinds_in(fact.text) and \
            slot_of(fact.text) not in _slots_named(said):  # "my address" names the home
        return True  # "forget the hotel I had in Fortaleza": no hotel in the Fortaleza trip
    names = [w for w in re.findall(r"[\w'-]+", target)[1:] if w[:1].isupper()
             and w.lower() not in words_of("relations") and w.lower() not in words_of(
                 "function_words")]
    return any(not (_terms(w) & have or any(_near_word(t, have) for t in _terms(w)))
               for w in names if _terms(w))


def _slots_named(terms: frozenset[str]) -> set[str]:
    """Single-valued slots a request names by their own words ("my address" names the home;
    "a cat" names no slot: a pet is one of many)."""
    return {name for name, slot in SLOTS.items()
            if slot.single and terms & _terms(slot.query + " " + name)}


def pointed_at(target: str, facts: list[FactRef], *, strong: bool = True,
               coverage: float = 0.0) -> FactRef | None:
    """The fact a denial, ending or forget request points at: most shared words, then the slot
    the request names, then the same kind of thing; the current version before an older one.
    A relative's fact only when the request names the relative. None when nothing on record
    is named (or, with `coverage`, when the fact holds less than that share of the words)."""
    want = _terms(target)
    kind = kind_of(target)
    named = _slots_named(want)
    # the lexicon's other words ("kids" ~ "children") and a typo ("penicilin") still name it
    others = {t: {analyse(o)[0] if analyse(o) else o for o in expansions([t], 1.0)} | {t}
              for t in want}
    best, score = None, 0.0
    need = 0.5 if strong else 1.5
    # a name said in the request ("the Kochi trip") identifies more than a common word
    names = _terms(" ".join(w for w in re.findall(r"[\w'-]+", target) if w[:1].isupper()))
    for f in facts:
        if not own_fact(f) and not want & _terms(" ".join(f.text.split()[:3])):
            continue  # a relative's fact is the target only when the request names them
        have = _terms(f.text)
        direct = sum(1 for t in want if t in have or _near_word(t, have))
        # the lexicon's other words add to a fact the words already name, never alone
        shared = direct + 0.5 * sum(1 for t in want if t not in have and others[t] & have) \
            if direct else 0
        if not direct and len(want) == 1 and others[next(iter(want))] & have:
            shared = 1.0  # "I have no kids" names "Has three children" by its one word

        same_kind = bool(kind and kind_of(f.text) == kind)
        in_slot = bool(named) and slot_of(f.text) in named  # "my address" names the home
        if coverage and want and (shared + same_kind + in_slot) / len(want) < coverage:
            continue
        s = shared + (0.5 if kind and kind_of(f.text) == kind else 0.0)
        s += 1.0 * len(names & have) if direct else 0.0
        s += 1.0 if named and slot_of(f.text) in named else 0.0
        s += 0.25 if f.state == "active" else 0.0
        if s > score:
            best, score = f, s
    return best if score >= need + 0.25 * (best is not None and best.state == "active") else None


def about_person(r: Reading, facts: list[FactRef]) -> FactRef | None:
    """The fact on record about the relative or named person a reading is about, best first:
    the same slot, else the one that says most of what the reading's slot is about."""
    named = [f for f in facts if f.state == "active" and not own_fact(f) or (
        r.person and re.search(r"\b" + re.escape(r.person) + r"\b", f.text, re.IGNORECASE))]
    mine = [f for f in named if (r.relation and _about_relative(f, r.relation)) or (
        r.person and re.search(r"\b" + re.escape(r.person) + r"\b", f.text, re.IGNORECASE))]
    if not mine:
        return None
    for f in mine:
        if slot_of(_predicate(f.text, r.relation or r.person)) == r.slot:
            return f
    want = _terms(SLOTS[r.slot].query) if r.slot in SLOTS else frozenset()
    scored = sorted(mine, key=lambda f: -len(want & _terms(f.text)))
    return scored[0] if want & _terms(scored[0].text) else None


def _same_slot(r: Reading, facts: list[FactRef]) -> FactRef | None:
    if r.subject in ("relative", "other"):
        return about_person(r, facts)
    if r.slot == "attribute" and r.key:
        # the fact that names the same attribute at its head: "Terminal is WezTerm ...",
        # "Coffee order: ...", not one that mentions the word in passing
        head = re.compile(r"^(?:(?:her|his|my|the|main)\s+)?" + re.escape(r.key.lower())
                          + r"\b", re.IGNORECASE)
        return next((f for f in facts if f.state == "active" and own_fact(f)
                     and head.search(f.text)), None)
    key = _key(r)
    if key is None:
        return None
    for f in facts:
        if f.state != "active":
            continue
        if own_fact(f) and key in slot_keys(f.text):
            return f
        if own_fact(f) and key == r.slot and slot_of(f.text) == r.slot:
            return f
    return None


def _predicate(text: str, relation: str | None) -> str:
    """"Sister Anjali lives in London" -> "lives in London"."""
    m = re.search(r"\b" + re.escape(relation or "") + r"\b\s*(?:[A-Z][\w'-]+\s+)?(.*)$", text,
                  re.IGNORECASE)
    return m.group(1) if m else text


def _key(r: Reading) -> str | None:
    if r.slot is None:
        return None
    slot = SLOTS.get(r.slot)
    if slot is not None and slot.single:
        return r.slot
    if r.slot in ("owns", "uses"):
        kind = kind_of(r.value)
        return f"thing:{kind}" if single_kind(kind) else None
    return None


def _same_value(r: Reading, fact: FactRef) -> bool:
    mine = _terms(r.value)
    return bool(mine) and mine <= _terms(fact.text)


def _op(r: Reading, op: str, *, text: str | None = None, old: FactRef | None = None,
        status: str = "active", reason: str = "") -> Operation:
    slot = SLOTS.get(r.slot or "")
    fact_type = slot.fact_type if slot else "world"
    if r.subject == "relative":
        fact_type = "world"
    dated = op in ("write", "supersede")
    return Operation(op=op, status=status, text=text, slot=r.slot, fact_type=fact_type,
                     old_id=old.id if old else None, old_text=old.text if old else None,
                     valid_from=r.when if dated else None, valid_to=r.until if dated else None,
                     confidence=CANDIDATE_CONFIDENCE if status == "candidate" else 0.9,
                     reason=reason, evidence=r.clause,
                     # a yearly day said anew was wrong before: birthdays do not change
                     harsh=op == "supersede" and r.cue == "date")


def resolve(r: Reading, facts: list[FactRef]) -> list[Operation]:
    """The operations one reading implies against the user's facts. Pure."""
    active = [f for f in facts if f.state == "active"]
    if r.kind == "forget":
        # the request may name an older version ("forget that I lived in Bristol")
        said = [f for f in facts if f.state in ("active", "superseded")]
        # or the one fact its rarest word names ("my passport expiry date": the one fact that
        # says "passport")
        target = pointed_at(r.target, said, coverage=0.5) or linked_fact(r.target, said)
        if target is not None and _names_other(r.target, target):
            return []  # "forget the Ring doorbell" is not a request to forget the Nest one
        return [_op(r, "forget", old=target).model_copy(update={"said": r.target})] \
            if target else []
    if r.kind == "nothing" and r.reason in _UNREAD:
        return _unread(r, active)
    if r.kind != "statement" or r.reason == "a pronoun subject":
        return []  # a pronoun nobody in the message names: not the user, no one on record
    if r.act == "deny":  # a version replaced since may be the one that was never true
        # (a relative's fact only when the denial names them: pointed_at's rule)
        said = [f for f in facts if f.state in ("active", "superseded")]
        # "I never lived in Leeds": the verb the denial names says which fact ("Lives in … Leeds",
        # not "Back in Leeds for Christmas")
        verb = re.search(r"(\w+)\s+(?:in|at|to|for|with|on)?\s*" + re.escape(r.target.strip()),
                         r.clause, re.IGNORECASE) if r.target.strip() else None
        # (only among facts that say the denied words: the verb never finds a fact alone)
        named = [f for f in said if any(t in (have := _terms(f.text)) or _near_word(t, have)
                                        for t in _terms(r.target))]
        target = (pointed_at(f"{verb.group(1)} {r.target}", named, coverage=0.6)
                  if verb and named and _slots_named(_terms(verb.group(1))) else None) or \
            pointed_at(r.target, said, coverage=0.6)
        if target is None:
            return []
        # "never lived in Leeds" with no home in Leeds on record: the fact that mentions Leeds
        # is not plainly what was denied; an operator confirms
        aside = bool(verb and (slots := _slots_named(_terms(verb.group(1)))) and
                     slot_of(target.text) not in slots)
        return [_op(r, "retract", old=target, status="candidate" if r.hedged or aside else
                    "active", reason="hedged denial" if r.hedged else
                    "a denial of a kind of fact that names a different one" if aside else
                    "the user says it was never true").model_copy(update={"said": r.target})]
    if r.act == "end" and not r.text:
        # an ending said with no slot needs two shared words (or a word and the kind)
        what = _before_ending(r.clause)
        target = pointed_at(r.target, [f for f in active if own_fact(f)], strong=False) or (
            linked_fact(what, active) if what else None) or linked_fact(r.target, active) \
            or _the_thing_had(r.target, active)
        if target is None and r.subject == "self" and r.said_as and not r.hedged and \
                has_any(r.clause, "life_events"):
            # "I broke my wrist falling off my bike": an event of the user's, nothing on
            # record ended: offered as a new fact
            return [_op(r, "write", text=r.said_as, status="candidate",
                        reason="an event of the user's that ends nothing on record")]
        if target is None:
            return []
        # pointed at by shared words only: an operator confirms (invariant 534)
        return [_op(r, "supersede", old=target, text=_ended(r.target, target),
                    status="candidate", reason="an ending read without its slot")]
    if not r.text:
        return []
    if r.act == "end":
        target = pointed_at(r.value, [f for f in active if own_fact(f) or r.subject == "relative"])
        if target is None:
            return []
        return [_op(r, "supersede", old=target, text=_ended(r.value, target),
                    reason="the user says it ended")]
    return _statement(r, active)


def _replaced(r: Reading, active: list[FactRef], old: FactRef | None, by_kind: list[bool]
              ) -> tuple[FactRef | None, bool, bool]:
    """(the fact the user's own statement replaces, whether the statement named it, whether
    it adds one more thing rather than replacing one); `by_kind` gets True when the fact was
    found only as a thing of the same kind."""
    mine = r.subject == "self"
    named_old = old is None and bool(r.old_value) and mine
    if named_old:  # "replaced the Hue bridge": a fact that says most of those words
        old = pointed_at(r.old_value, [f for f in active if own_fact(f)], coverage=0.6)
    if old is None and mine and r.value:
        # "I do drink coffee now" against "Drinks tea, never coffee": the value said as a
        # rival on record replaces that fact
        rival = re.compile(r"\b(?:never|not|no)\s+(?:\w+\s+)?" + re.escape(
            r.value.split()[-1]) + r"\b", re.IGNORECASE)
        old = next((f for f in active if own_fact(f) and rival.search(f.text)), None)
        named_old = named_old or old is not None
    if old is None and mine and r.slot in ("avoids", "dislikes") and r.value:
        # "I don't drink coffee" against "Drinks coffee every morning": the positive on record
        # is replaced by the negative said now
        said = _terms(r.value)
        old = next((f for f in active if own_fact(f) and said and said <= _terms(f.text)
                    and not re.search(r"\b(?:not|never|no|don't|doesn't)\b", f.text, re.I)),
                   None)
        named_old = named_old or old is not None
    if old is None and mine and r.slot == "plan" and has_any(r.clause, "plan_changes"):
        # "moved my passport appointment to the 9th": the plan on record with those words
        old = pointed_at(r.value, [f for f in active if own_fact(f)], coverage=0.5)
        named_old = old is not None
    adds = _ADDS.search(r.clause) is not None  # "a second cat", "another bike": one more
    if adds and old is not None and r.slot in ("owns", "pet", "uses") and not named_old:
        old = None
    if old is None and mine and r.act == "change" and r.slot in ("owns", "uses") and not adds:
        kind = kind_of(r.value)
        old = next((f for f in active if own_fact(f) and kind and kind in kinds_in(f.text)
                    and not _same_value(r, f)), None)
        by_kind.append(old is not None)
    return old, named_old, adds


def _statement(r: Reading, active: list[FactRef]) -> list[Operation]:
    """A statement read whole or in part: the fact it replaces (same slot, the value it names
    as replaced, a rival, a plan, a thing of the same kind), or a new fact; the policy decides
    what may be active (invariants 533, 534)."""
    status, reason = _policy(r)
    old = _same_slot(r, active)
    if r.subject in ("other", "relative") and old is None and (r.person or r.relation):
        # a named person's or relative's news that no slot ties to their fact: the one fact
        # about them, for an operator ("Noor switched from medicine to pharmacy" beside
        # "daughter Noor studies medicine"; "my sister is relocating to Hyderabad" beside "His
        # sister Anjali is a data scientist in Bangalore")
        theirs = [f for f in active if (r.person and re.search(
            r"\b" + re.escape(r.person) + r"\b", f.text, re.IGNORECASE)) or (
            r.subject == "relative" and not own_fact(f) and _about_relative(f, r.relation))]
        if theirs and r.slot in ("allergy", "condition", "medication", "diet"):
            # "Biscuit is allergic to chicken": one more thing about them, not a new them
            return [_op(r, "write", text=r.text, status="candidate",
                        reason="news about someone on record")]
        if len(theirs) == 1:
            return [_op(r, "supersede", old=theirs[0], text=r.text, status="candidate",
                        reason="news about someone on record, read without their slot")]
    if r.subject == "other" and old is None:
        return []  # someone else's news touches nothing on record: nothing to write
    mine = r.subject == "self"  # someone else's news never reaches the user's own facts
    by_kind: list[bool] = []
    old, named_old, adds = _replaced(r, active, old, by_kind)
    if any(by_kind) and status == "active":
        # "bought a Framework laptop for personal stuff" beside the work laptop: a thing of the
        # same kind may be one more, not a replacement; the user did not say which
        status, reason = "candidate", "may replace a thing of the same kind"
    if old is not None and _STILL.search(r.clause) and (not named_old or _same_value(r, old)):
        return []  # "I still prefer tea": said again, nothing changed
    if old is not None and _same_value(r, old) and not named_old:
        if r.when:  # "vegetarian since 2019": the same value, now dated, in its own words
            return [_op(r, "supersede", old=old, text=old.text, status=status,
                        reason="the user dates a value on record")]
        return []  # already on record
    if any(_same_value(r, f) and r.slot == slot_of(f.text) for f in active if f is not old):
        return []
    if old is not None and mine and r.old_value and not named_old:
        # "moved from Terraform to OpenTofu": the fact that says the old value is the one that
        # changes, whatever slot the new value looked like; an operator confirms
        named = pointed_at(r.old_value, [f for f in active if own_fact(f)], coverage=0.6)
        if named is not None and named.id != old.id:
            return [_op(r, "supersede", old=named, text=r.text, status="candidate",
                        reason="the value it replaces is in another fact")]
    if old is not None and r.subject == "other" and status == "active":
        # a named person's news changes their fact only through an operator: the fact may be
        # the user's own that mentions them ("Lukas's old room is his office")
        status, reason = "candidate", "someone else's news"
    if old is not None and status == "active" and not named_old and _another_of_its_kind(r, old):
        status, reason = "candidate", "may be another thing of the kind, not the one on record"
    if old is not None:
        return [_op(r, "supersede", old=old, text=_in_its_words(r, old), status=status,
                    reason=reason)]
    return _new_value(r, active, status, reason, adds)


def _another_of_its_kind(r: Reading, old: FactRef) -> bool:
    """A thing of a kind found in a fact that is not simply the user having it ("Uses an
    Airalo eSIM … on a Pixel 8" for a new phone), or one the fact qualifies in words the user
    did not say ("Work laptop is …" for a laptop "for personal stuff")."""
    if r.slot not in ("owns", "uses"):
        return False
    kind = kind_of(r.value)
    m = _NAMED.match(old.text)
    if m is not None:
        said = _terms(r.clause)
        return bool(_terms(m.group("k")) - said - _terms(kind or ""))
    return not _HAVING.match(old.text) or bool(kind) and kind_of(
        " ".join(old.text.split()[1:4])) != kind


def _new_value(r: Reading, active: list[FactRef], status: str, reason: str,
               adds: bool) -> list[Operation]:
    """A value with nothing on record it replaces: a new fact, believed only when whole."""
    mine = r.subject == "self"
    if r.subject in ("relative", "other") and status == "active":
        # nothing on record about them: a relative's new fact is proposed, not believed
        status, reason = "candidate", "news about someone with nothing on record"
    if mine and status == "active" and r.act == "change" and r.slot in ("owns", "uses"):
        # "switching to Hyperoptic": a change whose old value is not found is not whole
        status, reason = "candidate", "a change whose old value is not on record"
    if mine:
        # a new value is whole only when nothing on record shares its rarest words: "my
        # manager is Tobias now" beside "His manager at Helio is Sofia" may replace it
        rel = None if adds else linked_fact(r.clause, [f for f in active if own_fact(f)])
        if rel is not None and _terms(r.old_value) & _terms(rel.text):
            # it names what it replaces ("replaced the Hue bridge") and that was looked for
            # already: the bulbs that share "Hue" are another thing
            rel = None
        if rel is not None:
            if r.act == "change" or slot_of(rel.text) == r.slot:
                return [_op(r, "supersede", old=rel, text=_in_its_words(r, rel),
                            status="candidate", reason="may replace a fact on record")]
            return [_op(r, "write", text=r.text, status="candidate",
                        reason="a fact on record shares its words")]
    return [_op(r, "write", text=r.text, status=status, reason=reason)]


_NAMED = re.compile(r"^(?P<k>(?:[\w-]+ ){0,3}?(?:editor|shell|terminal|browser|phone|laptop|"
                    r"hub|bank|broadband|car|gym|os|keyboard|monitor|provider|supplier|"
                    r"network|carrier|router|camera|doorbell|vacuum|watch)) is (?P<v>.+)$",
                    re.IGNORECASE)


def _in_its_words(r: Reading, old: FactRef) -> str:
    """A new value of a thing the fact names in its own words keeps those words: "Main editor
    is Zed" becomes "Main editor is Helix", not "Uses Helix" (invariant 533)."""
    both = re.match(r"^Works at (?P<e>.+?) as (?:an? )?(?P<j>.+)$", old.text)
    if both and r.slot == "job" and r.subject == "self" and r.value and re.search(
            r"\bpromot|\bmade\b|\bbecame\b|\bstepped up\b", r.clause, re.IGNORECASE):
        # "got promoted to senior engineer" beside "Works at Siemens as an engineer": the
        # employer stays
        role = re.sub(r"^(?:an?|the)\s+", "", r.value)
        return f"Works at {both.group('e')} as {role}"
    m = _NAMED.match(old.text)
    if m and r.slot in ("owns", "uses") and r.subject == "self":
        value = re.sub(r"^(?:an?|the)\s+", "", r.value)
        return f"{m.group('k')} is {value}"
    return r.text


_UNREAD = frozenset({"no slot I can read", "about someone else"})
_SELF = re.compile(r"\b(?:i|me|my|we|our|us)\b", re.IGNORECASE)
_STILL = re.compile(r"\bstill\b(?!\s+(?:not|no|never)\b)", re.IGNORECASE)
_ADDS = re.compile(r"\b(?:second|third|another|one more|an extra|two more|also got)\b",
                   re.IGNORECASE)
_BY_SLOT_ONLY = frozenset({"home", "name", "employer", "job"})
_NEGATED = re.compile(r"\b(?:not|never)\b|n't\b", re.IGNORECASE)
_MODAL = re.compile(r"\b(?:can|could|would|should|might|may|must)\b(?!\s+(?:be|have)\b)",
                    re.IGNORECASE)
_VERB_FIRST = re.compile(r"^(?:(?:Always|Usually|Often|Never|Sometimes|Normally|Generally|"
                         r"Mostly|Regularly|Rarely) )?(?:(?:Might|May|Could) (?:have|be)|Has|Is|"
                         r"Was|Had|Does|Did|\w+(?:ed|ing)|Taken|Given|Begun|Grown|Done|Gotten|"
                         r"Went|Got|Spent|Took|Came|Flew|Drove|Met|Bought|Sold|Left|Lost|Won|"
                         r"Became|Began|Ran|Swam|Rode|Saw|Found|Made|Gave|Quit|Hurt|Broke|"
                         r"\w{2,}[^s]s)\b")


_EXPIRES = re.compile(r"\b(?:expires?|expiring|expiry|runs? out|valid until|renewal)\b",
                      re.IGNORECASE)
_PLEASE = re.compile(r"^(?:(?:please|pls|plz|and|also|oh|ok|so)\b[\s,]*)*", re.IGNORECASE)


def _directive(clause: str) -> str:
    """A request about how to treat the user from now on, in the third person ("always text
    them rather than email"), or "" (a one-off request, a question, no lasting word)."""
    text = _PLEASE.sub("", " ".join(clause.strip(" .!?").split()))
    lead = re.match(r"(?:(?:for|with|in) [\w' -]{2,30}?, )?(?:(?:always|never|only|do not|"
                    r"don't|dont)\s+)?(?P<v>[a-z-]+)\b", text, re.IGNORECASE)
    if not lead or lead.group("v").lower() not in words_of("directive_verbs") or \
            clause.rstrip().endswith("?") or not re.search(r"\b(?:me|us|my|our)\b", text, re.I) \
            or not has_any(text, "lasting"):
        return ""
    out = re.sub(r"\b(?:me|us)\b", "them", text, flags=re.IGNORECASE)
    out = re.sub(r"\b(?:my|our)\b", "their", out, flags=re.IGNORECASE)
    out = out.split(",")[0] if len(out.split()) > 14 else out
    return "" if re.search(r"\b(?:i|we|you)\b", out, re.IGNORECASE) or len(out.split()) > 14 \
        else out[:1].lower() + out[1:]


def _denied_of_them(r: Reading, active: list[FactRef]) -> list[Operation] | None:
    """"Tom doesn't work from home and never has": said against a fact about that person, it
    may deny it; an operator confirms. None when the clause is no such thing."""
    who = r.person if r.subject == "other" else r.relation if r.subject == "relative" else None
    if not who or not _NEGATED.search(" ".join(r.clause.split()[:5])) or has_any(
            r.clause, "endings"):
        return None
    # ("my sister isn't in Bangalore": a relative's fact, by any of the relation's names)
    theirs = [f for f in active if re.search(r"\b" + re.escape(who) + r"\b", f.text, re.I)
              or r.subject == "relative" and _about_relative(f, r.relation)]
    denied = pointed_at(f"{who} {r.target}", theirs, coverage=0.6)
    return [_op(r, "retract", old=denied, status="candidate",
                reason="said in the negative against a fact about someone on record")] \
        if denied is not None else []


def _asked(r: Reading) -> list[Operation] | None:
    """"Please always text me rather than email": how the user wants to be treated, a lasting
    preference for an operator to confirm (never a one-off "send me the link")."""
    asked = _directive(r.clause) if r.subject == "self" else ""
    return [_op(r, "write", text=f"Prefers: {asked}", status="candidate",
                reason="a lasting request about how to treat the user")] if asked else None


def _unread(r: Reading, active: list[FactRef]) -> list[Operation]:
    """A clause no row reads becomes a candidate for an operator, never an active fact
    (invariant 534): news about the one fact on record it names by its rarer words
    ("Luna died last night", "broadband's been Truespeed since the 20th"), or a lasting thing
    the user says of themselves in passing ("I swim at the Alcântara pool"); small talk,
    passing states and other people's news that names nothing on record write nothing."""
    for first in (_denied_of_them(r, active), _asked(r)):
        if first is not None:
            return first
    mine = r.subject == "self"
    if mine and (_NEGATED.search(" ".join(r.clause.split()[:5])) or re.match(
            r"(?:no|zero)\s+\w+", r.clause.strip(), re.IGNORECASE)) and not has_any(
            r.clause, "endings"):
        # "I am not a Liverpool fan, never": said against something on record, it may deny it
        denied = pointed_at(r.target, [f for f in active if own_fact(f)], coverage=0.6)
        if denied is not None:
            plain = has_any(r.clause, "verdicts")  # "wrong, I'm not at Aviva": said outright
            return [_op(r, "retract", old=denied, status="active" if plain else "candidate",
                        reason="the user says it was never true" if plain else
                        "said in the negative against a fact on record")]
        return []
    said = _terms(r.target or r.clause)
    if len(said) < 3 and (has_any(r.clause, "ephemeral") or has_any(r.target, "not_things")):
        return []
    if r.subject == "relative" and r.relation:
        # a relative's news is about that relative's facts only
        pool = [f for f in active if _about_relative(f, r.relation)]
    elif mine:
        # the user's home, name, employer and job change only by a reading of that slot: a
        # meetup "in Kreuzberg" is not news about "Lives in Kreuzberg"
        pool = [f for f in active if own_fact(f) and slot_of(f.text) not in _BY_SLOT_ONLY]
    else:
        pool = active
    link = linked_fact(r.clause, pool)
    if has_any(r.clause, "endings") and (what := _before_ending(r.clause)):
        # "my Rimowa got destroyed on the Fortaleza flight": what ended is what is said
        # before the ending, not the place it ended in
        link = linked_fact(what, pool) or link
    if link is not None and (r.act == "change" or r.when or news_words(r.clause)):
        # "my Rimowa got destroyed", "bramble was put to sleep": what ended, in its own words
        ended = has_any(r.clause, "endings") and not _NEGATED.search(r.clause)
        return [_op(r, "supersede", old=link, text=_ended(r.clause, link) if ended
                    else r.text or None,
                    status="candidate",
                    reason="read without a slot: news about the fact whose words it names")]
    if r.subject == "relative" and r.relation and r.text and (news_words(r.clause) or r.when or re.search(
            r"\b(?:is|are) (?:a|an)\b", r.clause, re.IGNORECASE)) and \
            not r.hedged and not _MODAL.search(r.clause):
        # a relative's lasting news with nothing on record about them: their new fact
        return [_op(r, "write", text=r.text, status="candidate",
                    reason="a relative's news, nothing on record about them")]
    if mine and r.text and r.when and r.future and len(said) >= 2 and not r.hedged and \
            not _MODAL.search(r.clause) and has_any(r.clause, "dated_plans"):
        # "Ski week booked in Val Thorens, 7 to 14 February": a dated plan no row reads
        return [_op(r, "write", text=r.text, status="candidate",
                    reason="a dated plan read without its slot")]
    if mine and r.text and r.when and _EXPIRES.search(r.clause) and not r.hedged:
        # "my driving licence expires on 4 March": a dated fact of the user's, in their words
        return [_op(r, "write", text=r.text.split(",")[0], status="candidate",
                    reason="a date something of the user's runs out")]
    if re.search(r"\b(?:it|them|this|that)$", r.text or "") and len(r.text.split()) <= 5:
        return []  # "Need to renew it": what it is was said elsewhere
    if not mine or not r.text or len(said) < 2 and not has_any(r.clause, "life_events") or \
            _MODAL.search(r.clause) or \
            not _VERB_FIRST.match(r.text) or not (_SELF.search(r.clause) or re.match(
                r"\w+(?:ed|ing)\b", r.text)):
        # the user's own doing, said with its verb ("Started couch to 5k", "Does night
        # shifts"): not a state of a body part ("Their fingers hurt less"), not a "could"
        return []
    return [_op(r, "write", text=r.text, status="candidate",
                reason="read without a slot: something the user says of themselves")]


def _ended(said: str, fact: FactRef) -> str:
    """The new version of a fact that ended: "No longer has the Roborock"."""
    text = fact.text
    first = text.split()[0].lower() if text.split() else ""
    if first in ("has", "owns", "uses", "is", "works", "lives", "takes", "plays", "drives",
                 "runs", "drinks", "likes", "does", "speaks"):
        return "No longer " + text[:1].lower() + text[1:]
    return f"No longer: {text}"


def _policy(r: Reading) -> tuple[str, str]:
    """(status, reason) of a reading's write (invariant 534)."""
    if r.hedged:
        return "candidate", "the user hedged"
    if r.subject not in ("self", "relative") and not r.person:
        return "candidate", "not about the user"
    if r.garbled or not r.slot:
        return "candidate", "the reader is unsure of the value"
    if r.cue == "got" and r.slot in ("owns", "pet") and kind_of(r.value) is None and not any(
            w[:1].isupper() for w in r.value.split()):
        # "got a place", "got the promotion": got is the least sure of all verbs of having
        return "candidate", "a thing got, of no kind the reader knows"
    if r.slot == "home" and not re.search(r"\b(?:i|we|me|us)\b", r.clause, re.IGNORECASE):
        # "moved to Porto" with nobody said to have moved: maybe the user, maybe the tutor
        # or the office the clause began with — a home is changed only when the user says so
        return "candidate", "a move with no one said to have moved"
    if r.slot in ("owns", "pet", "uses") and _name_left_out(r):
        # "bought a car, a second-hand Nissan Leaf": the value misses the name the user gave
        return "candidate", "the value leaves out a name the user said"
    if r.slot == "home" and set(r.value.lower().split()) & _CALENDAR:
        return "candidate", "a day or month, not a place"
    return "active", "read as a whole statement"


_CALENDAR = frozenset("monday tuesday wednesday thursday friday saturday sunday mondays tuesdays "
                      "wednesdays thursdays fridays saturdays sundays january february march april "
                      "may june july august september october november december".split())


def _name_left_out(r: Reading) -> bool:
    """A capitalised word said after the value (not a month or day, not "I") that the value
    does not hold."""
    at = r.clause.lower().find(r.value.lower()) if r.value else -1
    if at < 0:
        return False
    after = r.clause[at + len(r.value):]
    names = {w for w in re.findall(r"\b[A-Z][\w'-]+", after) if w.lower() not in _CALENDAR
             and w not in ("I", "OK")}
    return bool(names - set(re.findall(r"[\w'-]+", r.text)))
