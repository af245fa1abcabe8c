"""Answers to a user's questions from their recalled memories, in the second person: the offline
agent's second half (the first is the reader, `memory/reading/`). Deterministic, no network."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import cast

from ..answering import lexicon as lx
from ..answering.matching import (
    answered_slots,
    identifiers,
    relative_of,
    slots_of,
    terms,
)
from ..answering.speak import join, second_person, sentence, to_you
from ..lexicon import expansions
from ..text import stem
from ..tools import MAX_HITS, HitView
from ..when import span_of
from .base import AgentInput, ToolRunner

_QSTOP = frozenset(stem(w) for w in ["what", "whats", "where", "which", "who", "when", "why", "how", "do", "does", "did", "i", "my", "me", "you", "your", "know", "tell", "remember", "remind", "have", "has", "is", "are", "was", "were", "any", "anything", "about", "list", "show", "give", "please", "can", "could", "would", "now", "currently", "ever", "still", "the", "a", "an", "of", "on", "in", "to", "for", "right", "thing", "things", "stuff"])
_GENERIC_Q = frozenset(stem(w) for w in ["name", "names", "called", "kind", "type", "sort", "much",
                                          "many", "long", "old", "often", "number", "detail",
                                          "details", "info", "favourite", "favorite"])
_HISTORY_Q = re.compile(r"\b(?:have\s+i(?!\s+got\b)|did\s+i|used\s+to|before|previous(?:ly)?|history|"
                        r"over\s+the\s+years|all\s+the|ever|in\s+the\s+past|earlier|"
                        r"(?:my|the|our)\s+(?:old|former)|used\s+to)\b", re.IGNORECASE)
# "What do I own?", "what have I got?", "which gadgets do I have?": a question about belongings.
_BELONGINGS_Q = re.compile(r"\b(?:own|owns|have|has|got|possess)\b\W*$", re.IGNORECASE)
# Invariant 171: a broad category of belongings ("what devices do I have?", "list my gadgets") is
# answered by the things the user has, not by whatever memory happens to say "device".
_CATEGORY = (r"(?:devices?|gadgets?|gizmos?|tech|electronics|equipment|hardware|appliances?|kit|"
             r"gear|stuff|things|belongings|possessions)")
_CATEGORY_Q = re.compile(r"\b" + _CATEGORY + r"\b", re.IGNORECASE)
_MY_CATEGORY = re.compile(r"\bmy\s+(?:[\w-]+\s+){0,2}" + _CATEGORY + r"\b", re.IGNORECASE)
_NOT_HAD = re.compile(r"^(?:has|have|owns)\s+(?:had|been|never|given|got\s+to|done|made|taken|lost|"
                      r"no|not)\b", re.IGNORECASE)
_THING_IS = re.compile(r"^(?:(?:her|his|my|their)\s+)?(?:[\w-]+\s+){0,2}(?P<w>[\w-]+)\s+(?:is|are)\s+"
                       r"(?:a|an|the|two|three|four|\d+)\s", re.IGNORECASE)
_USES = re.compile(r"^(?:uses|runs|carries|keeps)\b", re.IGNORECASE)  # "Uses ... on a Pixel 8"
_DEVICE_KINDS = frozenset({"phone", "laptop", "tablet", "e-reader", "watch", "console"})
_THING_WORDS = "headphones earbuds laptop phone tablet monitor keyboard camera speaker watch bike car"
_LIVING = re.compile(r"\b(?:stuff|things|belongings|possessions)\b", re.IGNORECASE)
_POSSESSION = frozenset({"verb:have", "verb:own"})
_HOWTO = re.compile(r"^(?:how(?!\s+(?:many|much|often|long|old|far|big|soon|come)\b)|can\s+i|how\s+do|what'?s\s+the\s+best\s+way|is\s+there\s+a\s+way|"
                    r"why\s+(?:does|is|do)|what\s+should)\b", re.IGNORECASE)
_PAST = {"are": "were", "have": "had", "live": "lived", "own": "owned", "work": "worked",
         "use": "used", "prefer": "preferred", "like": "liked", "drink": "drank", "run": "ran",
         "take": "took", "eat": "ate", "speak": "spoke"}


def _past(said: str) -> str:
    m = re.match(r"^you(?:'re| are)?\s*(\w+)", said)
    if said.startswith("you're "):
        return "you were " + said[len("you're "):]
    if m and said.startswith("you ") and m.group(1) in _PAST:
        return f"you {_PAST[m.group(1)]}" + said[len("you ") + len(m.group(1)):]
    if said.startswith("your "):  # "your hub is a Homey Pro" -> "your hub was a Homey Pro"
        return re.sub(r"\b(is|are|has)\b", lambda v: {"is": "was", "are": "were", "has": "had"}[v.group(1)],
                      said, count=1)
    return said






class Answering:
    """Answers questions from recalled memories (the offline agent's second half)."""

    def _questions(self, questions: list[str], inp: AgentInput, tools: ToolRunner) -> list[str]:
        tools.begin_step()
        started = time.perf_counter()
        said = []
        asks = [a for q in questions for a in _asks(_english(q))]
        for q in asks:
            if _ABOUT_ME.search(q):  # invariant 186: "what do you know about me?"
                said.append(_about_me(inp))
                continue
            q = _rephrase(q)  # "what do I do for a living?" asks for the job
            # "when did my night shifts end?": the version that ended, with its end (inv. 188)
            history = bool(_HISTORY_Q.search(q) or (_WHEN.match(q.strip()) and _ENDED.search(q)))
            window = None if history else _window(q, inp.today)
            # "do I still work nights?": the old versions too, to tell what stopped (inv. 189)
            still = bool(_YESNO.match(q.strip()) and _STILL.search(q))
            # "which laptop did I have at Parcelbird?", "my very first hub?" (invariant 188)
            still = still or bool(_PAST_Q.search(q))
            query, k, catalog = _question_query(q), 12, True
            if _belongings_q(q) and not history:  # invariant 171: recall what is had
                # what the user has is never a help page: the whole window for their facts
                query, k, catalog = query + " has owns", MAX_HITS, False
                if _CATEGORY_Q.search(q):  # "what gear do I have?": everyday kinds (inv. 171)
                    query += " " + _THING_WORDS
            if window:  # invariant 188: what is planned, whatever it is called, on those days
                query, k = query + " " + _EVENT_WORDS + _days_said(window), MAX_HITS
            res = tools.call("recall_memory", {"query": query,
                                               "include_superseded": history or still,
                                               "include_catalog": catalog, "k": k})
            fixed = _correct(q, res.hits + list(inp.pre_recall.hits))
            if fixed != q:  # "keybaord": ask again with the word the memories spell (inv. 186)
                q = fixed
                res = tools.call("recall_memory", {"query": _question_query(q),
                                                   "include_superseded": history or still,
                                                   "include_catalog": catalog, "k": k})
            more: list[HitView] = []
            if _belongings_q(q) and _CATEGORY_Q.search(q) and not history:
                # invariant 171: a listing of everything had, not only what shares the
                # category's words ("a Roborock" is a device without saying so)
                more = tools.call("recall_memory", {"query": "has owns bought got",
                                                    "include_superseded": False,
                                                    "include_catalog": False, "k": MAX_HITS}).hits
            hits = res.hits + more + list(inp.pre_recall.hits)
            q = _respelled(q, hits)
            said.append((_dated_answer(q, hits, window) if window else None)
                        or self._answer(q, hits, history))
        tools.record_tools((time.perf_counter() - started) * 1000, "recall for questions")
        intro = "From what you've told me: "
        return [("Also: " + a[len(intro):] if a.startswith(intro) and i and
                 said[i - 1].startswith(intro) else a) for i, a in enumerate(said)]

    def _answer(self, q: str, hits: list[HitView], history: bool) -> str:
        a = _ask(q, hits, history)
        facts, books, docs = _candidates(a, hits)
        early = _history_answer(a, facts, hits)
        if early:
            return early
        if history:  # no version changed: what is on record now answers
            facts = [h for h in facts if h.state == "active"]
        slotted = [h for h in facts if a.asked_slots & answered_slots(h.text, h.fact_type)]
        if a.yesno and a.asked_slots & _SINGLE and slotted and not a.rels and not (
                a.asked_names & _kin_names(hits)):  # "is Tom still working from home?" (inv. 180)
            # Invariant 189: "do I still work at Parcelbird?" is answered by the employer on
            # record: a single-valued attribute holding something else is a no.
            return _yes_no(a.content, a.q, slotted[:3], [_said_now(h, a.q) for h in slotted[:3]],
                           single=True)
        if a.howto and (books or docs):
            # Invariant 186: a how-to question is answered by what worked before and the help
            # page; the user's own facts come first only when they hold every asked word
            # ("how do I back up Home Assistant?": it backs up nightly to Google Drive).
            mine = [h for h in facts
                    if a.content and a.content <= terms(h.text) | identifiers(h.text)]
            if mine:
                intro = sentence("From what you've told me: " + join([_said_now(h, a.q)
                                                                    for h in mine[:2]]))
                return intro + " " + self._howto(books, docs)
            return self._howto(books, docs)
        facts = _best(a, _narrow(a, facts, hits), hits)
        listing = [_said_now(h, a.q, _user_names(hits)) for h in facts[:6]]
        if listing:
            if a.yesno:
                return _yes_no(a.content, a.q, facts[:6], listing)
            return sentence("From what you've told me: " + join(listing))
        if a.yesno:
            return "I have nothing on record that says so."
        return self._howto(books, docs)

    @staticmethod
    def _howto(books: list[HitView], docs: list[HitView]) -> str:
        out = []
        if books:
            b = books[0]
            # said to the user: "when an airline cancels one of her flights" is "your flights"
            out.append(sentence(f"What worked for you before: {to_you(b.text)}"))
        if docs:
            d = docs[0]
            title, _, body = d.text.partition(": ")
            out.append(f"The help page “{title}” covers this: {body.split('. ')[0].rstrip('.')}.")
        return " ".join(out) or "I don't have anything on record about that yet."



# Question words that name a single-valued attribute (matching.slots_of's slots).
_SLOT_WORDS = [(frozenset(stem(w) for w in ws), slot) for ws, slot in [
    (("live", "lived", "living", "home", "moved", "move", "city", "town", "address", "based"),
     "home"),
    (("work", "worked", "working", "job", "jobs", "role", "roles", "position", "career"), "job"),
    (("work", "worked", "employer", "employers", "company", "companies"), "employer"),
    (("diet", "eat", "ate", "eaten", "vegetarian", "vegan", "meat"), "diet"),
]]


_ROLE_START = re.compile(r"^(?:(?:senior|junior|lead|principal|staff|head|chief|assistant|"
                         r"deputy|trainee|freelance)\s+)*(?:\w+\s+){0,2}?(?:"
                         + "|".join(sorted(lx.ROLE_WORDS, key=len, reverse=True)) + r")\b",
                         re.IGNORECASE)


def _respelled(q: str, hits: list[HitView]) -> str:
    """A name typed in lower case is the name the memories spell with a capital ("when do i
    get back from kochi" asks about Kochi): those words take the memories' spelling."""
    names: dict[str, str] = {}
    plain: set[str] = set()
    for h in hits:
        raws = h.text.split()
        for i, raw in enumerate(raws):
            token = raw.strip(".,;:!?()[]\"'")
            near = [r.strip(".,;:!?()[]\"'") for r in raws[max(0, i - 1):i] + raws[i + 1:i + 2]]
            alone = not any(w[:1].isupper() for w in near)  # "Kochi", not "Google Drive"
            if i and token[:1].isupper() and token[1:].islower() and len(token) > 2 and alone:
                names.setdefault(token.lower(), token)
            elif token.islower():
                plain.add(token)
    # only words the memories never write in lower case: "Kochi", not "Home" of "Home Assistant"
    # a place or person after a preposition ("back from kochi", "flights to porto"); an
    # asked yes/no subject ("is hamburg still ...") stays a word
    return re.sub(r"\b(from|to|in|at|with|for|about|near) ([\w']+)",
                  lambda m: m.group(0) if m.group(2) in plain
                  else f"{m.group(1)} {names.get(m.group(2), m.group(2))}", q)


@dataclass(frozen=True)
class _Asked:
    """What a question asks, read once: its words, the attributes, people and relations it
    names, and whether it asks yes/no, for history or how to do something."""

    q: str
    direct: frozenset[str]
    want: frozenset[str]
    focus: frozenset[str]
    asked_names: frozenset[str]
    asked_slots: frozenset[str]
    rels: frozenset[str]
    yesno: bool
    content: frozenset[str]
    howto: bool
    history: bool
    belongings: frozenset[str]


def _ask(q: str, hits: list[HitView], history: bool) -> _Asked:
    q = _rephrase(q)
    direct = frozenset(_question_terms(q, synonyms=False))
    # The general lexicon's other words too ("allergic" ~ "allergy"), scored at half.
    want = frozenset(_question_terms(q)) | frozenset(expansions(direct, 1.0))
    # "What's my partner's name?" is about the partner: a fact sharing only a generic word
    # ("name") does not answer it.
    focus = want - _GENERIC_Q if want - _GENERIC_Q else want
    # Invariant 180: the name of one of the user's people or pets said in lower case is
    # still that name ("who looks after mochi?"), never an ordinary word ("drive").
    asked_names = identifiers(q) | (_kin_names(hits) & frozenset(_words(q)))
    return _Asked(
        q=q, direct=direct, want=want, focus=focus, asked_names=asked_names,
        # Invariant 186: the question's own attribute, not a compound's word ("smart home
        # hub", "home airport", "work laptop") nor a verb beside another asked noun.
        asked_slots=frozenset(_asked_slots(q, set(direct), asked_names)),
        rels=_asked_relations(q), yesno=bool(_YESNO.match(q.strip())),
        content=direct - _LIGHT - _SLOT_VERBS - _GENERIC_Q - _TIMEY,
        # "my flight got cancelled: what do I usually do?" asks for a routine (invariant 186)
        howto=bool(_HOWTO.search(q) or _ROUTINE.search(q)), history=history,
        # Invariant 171: what the user has or owns answers a question about belongings; it is
        # admitted, never a filter (the hub "is a Home Assistant Green" stays in the list).
        belongings=_POSSESSION if _belongings_q(q) and not history else frozenset())


def _candidates(a: _Asked, hits: list[HitView]) -> tuple[list[HitView], list[HitView], list[HitView]]:
    """(facts, playbooks, help pages) that may answer: sharing an asked word, filling the asked
    attribute, of the asked kind, about the asked relative; history brings whole chains."""
    seen: set[str] = set()
    facts: list[HitView] = []
    books: list[HitView] = []
    docs: list[HitView] = []
    if a.history:
        # A version of a chain answers with its chain: "Senior backend engineer at Helio"
        # shares no word with "where have I worked?", its successor "Works as ..." does.
        facts_in = [h for h in hits if h.kind == "semantic"]
        chained = {h.id for c in _chains(_unique(facts_in))
                   if any(a.want & a.focus & terms(m.text)
                          or a.asked_slots & answered_slots(m.text, m.fact_type) for m in c)
                   for h in c}
        facts = [h for h in _unique(facts_in) if h.id in chained]
        seen = {h.id for h in facts_in}
    light = _LIGHT | _GENERIC_Q
    for h in hits:
        if h.id in seen:
            continue
        seen.add(h.id)
        # A name in the memory matches only a name in the question: "what do I drive?" is
        # not answered by "... backs up to Google Drive".
        overlap = a.want & (terms(h.text) - (identifiers(h.text) - a.asked_names))
        rel = relative_of(h.text) if h.kind == "semantic" else None
        if rel and not (terms(rel) & a.rels or a.asked_names & identifiers(" x " + h.text)
                        or _names_said(a.q, h.text)):
            # invariant 180: about a relative, and the question is not; a name of the
            # memory said in lower case still names it ("who looks after mochi?", inv. 180)
            continue
        if h.kind == "semantic" and (a.history or h.state == "active") and (
                overlap & a.focus or a.asked_slots & answered_slots(h.text, h.fact_type)
                or _kind_hit(a.q, h.text) or (a.rels and _about(h.text, a.rels))
                or (h.fact_type == "world"  # things, not an allergy or a tax number
                    and a.belongings & answered_slots(h.text, h.fact_type))):
            facts.append(h)
        elif h.kind == "procedural" and len(overlap - light) >= 2 and overlap & a.direct - light:
            books.append(h)
        elif (h.kind == "catalog" and len(overlap - light) >= 2 and overlap & a.direct - light
              and a.howto):
            docs.append(h)
    return facts, books, docs


def _history_answer(a: _Asked, facts: list[HitView], hits: list[HitView]) -> str | None:
    """An answer about the past: a past place or time, a chain that changed, or what stopped."""
    if _PAST_Q.search(a.q) and not a.yesno:  # a yes/no keeps the history rule (invariant 189)
        # "on call": "call" is the asked thing here, not the generic "called"
        past = _past_scoped(a.q, hits, a.content | (a.direct & _stems("call")), a.asked_slots)
        if past:
            return past
    told = _history(facts, set(a.direct), set(a.asked_slots), a.q, a.content) \
        if a.history else None
    if told:
        return told
    if a.yesno and _STILL.search(a.q):
        return _no_longer(a.q, a.direct - _LIGHT - _GENERIC_Q - _FILLER, a.asked_names, hits)
    return None


def _narrow(a: _Asked, facts: list[HitView], hits: list[HitView]) -> list[HitView]:
    """Only the facts about what was asked: the named person, the asked relative, the asked
    attribute, the asked kind of thing (invariants 171, 180, 186)."""
    people = frozenset(n for n in a.asked_names & a.direct if not any(c.isdigit() for c in n))
    named = [h for h in facts if people & identifiers(" x " + h.text)]
    if named:  # "where does Tom work?": the memories about Tom, not every job
        facts = named
    elif a.yesno and not all(_held(n, _names_in(facts)) for n in people):
        # Invariant 180: "Is Jonas my team lead?" with no Jonas on record: nothing answers it.
        facts = []
    if a.rels and not named:
        # Invariant 180: a question about a relative is answered by what is on record about
        # that relative, never by the user's own facts; with nothing about them, nothing.
        facts = [h for h in facts if _about(h.text, a.rels)]
        now = [h for h in facts if not _WAS.search(h.text)]
        if now:  # invariant 180: "who's my team lead?" is the lead now, not a past one
            facts = now
    else:
        slotted = [h for h in facts if a.asked_slots & answered_slots(h.text, h.fact_type)]
        if slotted:  # "where do I live?" is answered by where you live, nothing else
            facts = slotted
        elif a.asked_slots:
            # Invariant 180: nothing on record fills the attribute asked for: only a memory
            # holding a word the user said answers.
            facts = [h for h in facts if a.direct & a.focus & terms(h.text)]
        head = _head_noun(a.q)
        if head and not a.asked_slots and not any(_names_head(head, a.q, h.text) for h in facts):
            # Invariant 186: "what's my home airport?" with no airport on record: nothing is.
            facts = []
    if a.belongings and _CATEGORY_Q.search(a.q):
        # invariant 171: every thing had, from all that was recalled; none: no answer
        return _category_listing(a.q, _unique(hits))
    if a.belongings and _names_a_kind(a.q):
        # invariant 171: "what pets do I have?" is answered by pets, never by whatever
        # else is had; with no pet on record, nothing answers
        facts = [h for h in facts
                 if (_kind_hit(a.q, h.text) or (a.direct - _LIGHT - _GENERIC_Q) & terms(h.text))
                 and (_POSSESSION & answered_slots(h.text, h.fact_type)
                      or _USES.match(h.text) or _THING_IS.match(h.text))
                 and not _NOT_HAD.match(h.text)]
    return facts


def _best(a: _Asked, facts: list[HitView], hits: list[HitView]) -> list[HitView]:
    """Invariant 186: the memories that answer best, not every one sharing a word ("what shell
    do I use?" is the fish shell, not everything else you use)."""
    if not facts or _ABOUT.search(a.q) or (a.belongings and _CATEGORY_Q.search(a.q)):
        return facts
    # The user's own name for an asked thing ("the robot vacuum" is "the Roborock" of "Has a
    # Roborock S8 robot vacuum") counts as asked.
    sources = {h.id for h in facts if len(a.direct & terms(h.text) - _LIGHT) >= 2}
    alias = frozenset().union(*(identifiers(h.text) for h in facts
                                if h.id in sources)) - a.asked_names
    scores = {h.id: _score(h, a.q, set(a.direct), set(a.want), set(a.asked_slots),
                           a.asked_names)
              + (h.id not in sources and bool(alias & identifiers(h.text)))
              # "who looks after Pip?" asks for a person: a memory naming one of the user's
              # people other than the asked ones (invariant 180)
              + 2 * bool(_WHO.match(a.q) and _kin_names([h]) - a.asked_names)
              for h in facts}
    best = max(scores.values())
    # Half a point short still answers when it holds a word the user said; a synonym alone
    # never does ("shell" ~ "terminal" is not the Gruvbox theme).
    return [h for h in facts if scores[h.id] >= best or (
        scores[h.id] >= best - 0.5 and a.direct & terms(h.text) - _LIGHT)]


def _article(said: str) -> str:
    return "an" if said[:1].lower() in "aeiou" else "a"


def _unique(hits: list[HitView]) -> list[HitView]:
    return list({h.id: h for h in reversed(hits)}.values())[::-1]  # first of each id, in order


def _chains(facts: list[HitView]) -> list[list[HitView]]:
    """Recalled facts grouped by supersession chain (linked through supersedes/superseded_by),
    chains in the order of their best-ranked member."""
    by_id = {h.id: h for h in facts}
    root: dict[str, str] = {}

    def find(i: str) -> str:
        while root.get(i, i) != i:
            i = root[i]
        return i

    for h in facts:
        for other in (h.supersedes, h.superseded_by):
            if other in by_id:
                root[find(h.id)] = find(other)
    groups: dict[str, list[HitView]] = {}
    for h in facts:  # facts are in rank order, so dict order is best member first
        groups.setdefault(find(h.id), []).append(h)
    return list(groups.values())




def _history(facts: list[HitView], direct: set[str], asked: set[str], q: str = "",
             content: set[str] | frozenset[str] = frozenset()) -> str | None:
    """A history answer: the chains that changed, each told oldest first. A history question is
    about one attribute ("where did I live before?"), so chains that never changed are left out
    when one did, and chains sharing the question's own words beat those reached through a
    synonym ("home" in "smart home hub")."""
    chains = _chains(facts)
    changed = [c for c in chains if len(c) > 1 or any(h.supersedes or h.superseded_by for h in c)]
    if not changed:
        return None  # nothing changed: the current facts answer ("what headphones have I got?")
    chains = changed
    slotted = [c for c in chains if any(asked & slots_of(h.text, h.fact_type) for h in c)]
    # "What was my old work laptop?": the chain holding most of the question's own words.
    held = {id(c): max(len(direct & terms(h.text) - _LIGHT) for h in c) for c in chains}
    most = max(held.values(), default=0)
    worded = [c for c in chains if most and held[id(c)] == most]
    # "Where have I worked?" asks about the job: the work laptop's chain shares a word only.
    chains = (slotted or worded or chains)[:2]
    if content and _WHEN.match(q.strip()):
        # Invariant 188: "when did I move to Bristol?" is answered by the version that holds
        # "Bristol", with the date it started (or ended), not by the whole history.
        members = [h for c in chains for h in c]
        best = max(len(content & _holds(h.text)) for h in members)
        dated = [h for h in members if best and len(content & _holds(h.text)) == best]
        if dated:
            return sentence("From what you've told me: " + join([_dated(h) for h in dated[:3]]))
    told: list[str] = []
    for chain in chains:
        # What stopped being true came first; then by when it started.
        chain.sort(key=lambda h: (h.state == "active", str(h.valid_from or h.recorded_at or "")))
        parts = []
        for h in chain[:6]:
            said = _role(second_person(h.text))
            if h.state == "superseded":
                parts.append(_past(said) + (f" (until {h.valid_to})" if h.valid_to else ""))
            else:
                parts.append(said + (" now" if not h.valid_from else f" (since {h.valid_from})"))
        told.append(sentence(("From what you've told me, in order: " if not told else "Also: ")
                             + "; then ".join(parts)))
    if told and _YESNO.match(q.strip()) and content and any(
            content <= _holds(h.text) for c in chains for h in c):
        # Invariant 189: "did I use to live in Hamburg?" is a yes when a version holds it.
        return "Yes. " + " ".join(told)
    return " ".join(told) or None


def _role(said: str) -> str:
    """A role said without a verb ("Senior backend engineer at Helio") is what you are."""
    m = _ROLE_START.match(said)
    # "Senior backend engineer on the platform team": a role; "Home Assistant backs up": not
    if not said.startswith("you") and m and re.match(r"\s*(?:$|[,;]|(?:at|on|in|for|with|of)\b)",
                                                     said[m.end():]):
        return f"you're {_article(said)} {said[:1].lower()}{said[1:]}"
    return said


# --- answering rules (invariants 180, 186, 188, 189) ------------------------------------
def _stems(*words: str) -> frozenset[str]:
    return frozenset().union(*(terms(w) for w in words))


_LIGHT = _stems("have", "has", "had", "having", "own", "owns", "owned", "use", "uses", "used",
                "using", "get", "gets", "got", "take", "takes", "like", "likes", "want", "wants",
                "go", "goes", "do", "does", "make", "makes", "keep", "keeps", "need", "needs",
                "start", "started", "begin", "began",
                "say", "said", "tell", "told", "still", "always")
_SLOT_VERBS = _stems("live", "lives", "lived", "living", "home", "work", "works", "worked",
                     "working", "job", "jobs", "eat", "eats", "ate", "eaten", "move", "moved",
                     "diet", "diets")
_SINGLE = frozenset({"home", "job", "employer", "diet"})
_SLOT_ALL = frozenset().union(*(ws for ws, _ in _SLOT_WORDS))
_TIMEY = _stems("day", "days", "moment", "nowadays", "lately", "today", "week", "weeks", "year",
                "years", "time", "times", "these", "those", "before", "after", "ago", "first",
                "previously", "since", "again", "ever", "used", "old", "former", "now")
# Time words that only say "at present" ("late", "early", "days" are values, inv. 189).
_FILLER = _stems("now", "nowadays", "today", "currently", "these", "moment", "anymore", "more",
                 "longer", "ever")
_HOME_T, _WORK_T = _stems("home"), _stems("work")
_AFTER_OK = (r"(?!(?:now|these|nowadays|currently|again|at|in|on|for|and|or|to|from|is|was|are|"
             r"were|then|right|lately|today|before|since|with|after|anymore|any)\b)")
# "smart home hub", "home airport", "home office": a compound, not where the user lives.
_COMPOUND_HOME = re.compile(r"\bsmart\s+home\b|\bhome\s+" + _AFTER_OK + r"[a-z]", re.IGNORECASE)
# "work laptop", "work email"; "get to work" is a commute (rephrased first).
_COMPOUND_WORK = re.compile(r"\bwork\s+" + _AFTER_OK + r"[a-z]", re.IGNORECASE)
_YESNO = re.compile(r"^(?:(?:so|and|hey|ok|okay|um|wait|quick\s+question)[,!]?\s+)?"
                    r"(?:do|does|did|am|is|are|was|were|have|has|had)\b", re.IGNORECASE)
# "do I still ...?", "is X still ...?", "... anymore?": asks whether something stopped (inv. 189)
_STILL = re.compile(r"\b(?:still|any\s?more|no\s+longer)\b", re.IGNORECASE)
# What the user does when something happens: a routine, answered like a how-to (inv. 186).
_ROUTINE = re.compile(r"\b(?:what\s+do\s+i\s+(?:usually\s+|normally\s+|typically\s+|generally\s+)?do\b(?!\s+for\s+(?:a\s+|my\s+)?(?:living|work|job))|"
                      r"what(?:'s|’s|\s+is)\s+my\s+(?:usual\s+)?(?:routine|fix|process|drill)|"
                      r"what\s+should\s+i\s+do|how\s+(?:do|can|should)\s+i)\b",
                      re.IGNORECASE)
# A question about what is on in some days (invariant 188).
_DATED_Q = re.compile(r"\b(?:coming\s+up|upcoming|planned|ahead|on\s+(?:today|tomorrow)|tomorrow|"
                      r"(?:this|next)\s+(?:week|weekend|month|year))\b", re.IGNORECASE)
# Everyday words an event can open with; anything else opening it is taken for a name.
_COMMON_START = frozenset("""passport visa dentist doctor hospital appointment meeting exam test
interview flight trip holiday vacation visit weekend wedding birthday party conference course
class lessons lesson surgery operation check-up checkup concert match race marathon booking
dinner lunch move moving annual family work team school""".split())
# A question set in the past: "was I", "did I have", "very first", "back in" (invariant 188).
_PAST_Q = re.compile(r"\b(?:was\s+(?:i|my)|did\s+i\s+(?:have|use|own|get)|(?:very\s+)?first|"
                     r"original|earliest|back\s+(?:in|at|when))\b", re.IGNORECASE)
_PAST_PLACE = re.compile(r"\b(?:at|in|back\s+in|with)\s+((?:[\w'’-]+)(?:\s+(?-i:[A-Z])[\w'’-]+)*)",
                         re.IGNORECASE)
_FIRST = re.compile(r"\b(?:first|original|earliest)\b", re.IGNORECASE)
# A memory about someone that says what they were ("His lead at Parcelbird was Priya").
_WAS = re.compile(r"\b(?:was|were|used\s+to\s+be)\b", re.IGNORECASE)
_WHO = re.compile(r"^\W*who\b", re.IGNORECASE)
_EVENT_Q = re.compile(r"\b(?:anything|something|what'?s\s+on|what\s+is\s+on|plans?|planned|trips?|"
                      r"events?|appointments?|coming\s+up|upcoming|happening|booked)\b", re.IGNORECASE)
_OPEN_WORDS = ("coming", "upcoming", "planned", "ahead")
_EVENT_WORDS = "trip trips travel flying flight visit visiting appointment exam holiday booked plans"
_EVENT_T = _stems(*_EVENT_WORDS.split(), "anything", "something", "event", "events", "happening",
                  "list", "schedule", "calendar", "diary", "on", "coming", "up", "upcoming",
                  "ahead", "tomorrow", "month", "weekend", "next", "this")
# "when did my night shifts end?": asks when a replaced version stopped (invariant 188)
_ENDED = re.compile(r"\b(?:end|ended|stop|stopped|finish|finished)\b", re.IGNORECASE)
_WHEN = re.compile(r"^(?:(?:so|and|hey|ok|okay)[,!]?\s+)?(?:when|since\s+when|what\s+date)\b",
                   re.IGNORECASE)
# "when did I get Biscuit?" asks for a date; "when does the vacuum run?" for a habit.
_WHEN_DATE = re.compile(r"^(?:(?:so|and|hey|ok|okay)[,!]?\s+)?(?:since\s+when|what\s+date|when(?:'s|"
                        r"\s+(?:did|was|were|is|am|are|will|have|has)))\b", re.IGNORECASE)
# Invariant 186: a question about the user as a whole is answered from core memory.
_ABOUT_ME = re.compile(r"^\W*(?:so\W+|ok\W+|okay\W+|hey\W+)?(?:what\s+(?:do|did)\s+you\s+(?:know|remember|have)"
                       r"(?:\s+(?:on\s+record\s+)?(?:about|on)\s+me)?|tell\s+me\s+(?:about\s+(?:me|myself)|what\s+you\s+"
                       r"know(?:\s+about\s+me)?|everything\s+(?:you\s+know|about\s+me))|what\s+have\s+i\s+told\s+you"
                       r"(?:\s+about\s+(?:me|myself))?|who\s+am\s+i|what\s+do\s+you\s+know\s+about\s+myself)"
                       r"(?:\s+so\s+far)?\W*$", re.IGNORECASE)
_ABOUT = re.compile(r"\b(?:tell\s+me\s+(?:about|everything)|what\s+do\s+you\s+know|"
                    r"anything\s+about|everything\s+about)\b", re.IGNORECASE)
_HAS_DATE = re.compile(r"\b(?:january|february|march|april|may|june|july|august|september|"
                       r"october|november|december|\d{4})\b", re.IGNORECASE)
_NEGATORS = frozenset({"not", "never", "no", "without", "nor", "rather", "instead", "isn't",
                       "doesn't", "don't", "hasn't", "isn’t", "doesn’t", "don’t", "longer"})
_RIVALS = tuple(_stems(*g) for g in (
    *lx.CONTRASTS, frozenset({"vegan", "vegetarian", "pescatarian", "omnivore"})))
# Values that exclude one another (a diet, a pet kind, a kind of thing, a contrast's side).
_VALUES = frozenset().union(*_RIVALS, _stems(*lx.KINDS, *(w for g in lx.PET_KINDS for w in g),
                                            *lx.DIETS, "pet", "pets", "animal"))
_DIET_EXCLUDES = {next(iter(terms(d))): _stems(*ws.split()) for d, ws in (
    ("vegan", "meat fish dairy eggs egg cheese milk honey"), ("vegetarian", "meat fish"),
    ("pescatarian", "meat"))}
_RELATION = re.compile(r"\b(?:my|our)\s+(?:[\w-]+\s+)?(" + "|".join(
    sorted(lx.RELATIONS, key=len, reverse=True)) + r")(?:['’]s)?\b", re.IGNORECASE)
_REPHRASE = [
    # "what do I do for a living?" asks for the job
    (re.compile(r"\bdo\s+for\s+(?:a\s+)?(?:living|work)\b", re.IGNORECASE), "do for my job"),
    # "how do I get to work?" asks how the user commutes, not about the job
    (re.compile(r"\b(?:get|go|travel|come)\s+(?:in\s+)?to\s+(?:work|the\s+office)\b",
                re.IGNORECASE), "commute"),
    (re.compile(r"\bcommute\b", re.IGNORECASE),
     "commute to the office by bike, car, bus, tram, train or on foot"),
]


def _rephrase(q: str) -> str:
    for pattern, said in _REPHRASE:
        q = pattern.sub(said, q)
    return q


def _asked_slots(q: str, direct: set[str], names: frozenset[str]) -> set[str]:
    """The single-valued attributes a question asks for (invariant 186): a slot word inside a
    compound ("smart home hub", "work laptop") asks for none, and a slot verb beside another
    asked noun ("what shifts do I work?", "where does my sister live?") asks about that noun."""
    words = set(direct)
    if _COMPOUND_HOME.search(q):
        words -= _HOME_T
    if _COMPOUND_WORK.search(q):
        words -= _WORK_T
    slots = {slot for ws, slot in _SLOT_WORDS if words & ws}
    if "job" in slots:
        slots.add("employer")  # "what's my job?" is answered by "Works at Monzo" too
    other = words - _SLOT_ALL - _GENERIC_Q - _LIGHT - _TIMEY - names
    return set() if other else slots


def _asked_relations(q: str) -> frozenset[str]:
    """The relatives a question asks about ("my sister", "my boss", "my team lead"), as terms,
    with the words for the same person: "boss" ~ "manager", "wife" ~ "partner", "mum" ~
    "parents" (never a sister for a brother, nor a mum for a dad)."""
    out: set[str] = set()
    for m in _RELATION.finditer(q):
        w = m.group(1).lower()
        out.add(w)
        for same in _REL_SAME:
            if w in same:
                out |= same
        for generic, specific in _REL_GENERIC.items():
            if w == generic:
                out |= specific
            elif w in specific:
                out.add(generic)
    return _stems(*out) if out else frozenset()


_REL_SAME = (frozenset({"boss", "manager", "lead", "supervisor"}),
             frozenset({"kids", "children", "child"}))
_REL_GENERIC = {"partner": frozenset({"wife", "husband", "girlfriend", "boyfriend", "spouse",
                                      "fiance", "fiancee"}),
                "parents": frozenset({"mum", "mom", "mother", "dad", "father"}),
                "sibling": frozenset({"sister", "brother"}),
                "kids": frozenset({"son", "daughter"}), "children": frozenset({"son", "daughter"})}


def _about(text: str, rels: frozenset[str]) -> bool:
    """The memory is about the asked relative: it opens with them ("Her sister Amara ...") or
    names them as someone's ("... stays with her brother Jan"), not a word that stems alike
    ("a repo managed with chezmoi" is no manager)."""
    rel = relative_of(text)
    return bool((rel and terms(rel) & rels) or any(
        terms(m.group(1)) & rels for m in re.finditer(r"\b(?:her|his|their|my|your)\s+([\w-]+)",
                                                       text, re.IGNORECASE)))


def _user_names(hits: list[HitView]) -> frozenset[str]:
    """Names the user's memories use past their first word ("a beagle called Biscuit")."""
    return frozenset(w.lower() for h in hits for w in re.findall(r"(?<=\s)[A-Z][a-z]+\b", h.text))


def _names_in(facts: list[HitView]) -> frozenset[str]:
    return frozenset().union(*(identifiers(" x " + h.text) for h in facts))




def _about_me(inp: AgentInput) -> str:
    """Invariant 186: the user as a whole — who they are and what must hold (the core memory
    chosen for the turn: identity first, then constraints), said to them, at most six."""
    order = {"identity": 0, "constraint": 1}
    items = sorted(inp.core_memory, key=lambda c: (order.get(c.fact_type, 2),
                                                   not re.search(r"\bname\s+is\b", c.text, re.I)))[:6]
    if not items:
        return "I don't have anything on record about you yet."
    return sentence("Here's what I know about you: " + join([_role(second_person(c.text))
                                                              for c in items]))








































def _belongings_q(q: str) -> bool:
    """"What do I own?", "which gadgets have I got?", "list my devices" (invariant 171)."""
    return bool(_BELONGINGS_Q.search(q) or _MY_CATEGORY.search(q))


def _category_listing(q: str, hits: list[HitView]) -> list[HitView]:
    """Invariant 171: a question about a broad category of belongings ("what devices do I
    have?") is answered by every active thing the user has or owns, in recall order, and for
    devices by what names a device ("... on a Pixel 8"); a pet is a belonging only for "stuff" /
    "things", never a device; "has had the vaccine" is no belonging."""
    living = bool(_LIVING.search(q))

    def had(h: HitView) -> bool:
        return not _NOT_HAD.match(h.text) and bool(_POSSESSION & answered_slots(h.text, h.fact_type))

    def named(h: HitView) -> bool:  # "Her work laptop is a MacBook Pro", "Her hub is a Home Assistant Green"
        m = _THING_IS.match(h.text)
        return bool(m and (m.group("w").lower() in lx.THINGS
                           or lx.KINDS.get(m.group("w").lower()) in _DEVICE_KINDS))

    def device(h: HitView) -> bool:  # a thing one can hold: "twelve Hue bulbs", not "Senator status"
        words = set(_words(h.text))
        return bool(words & lx.THINGS) or any(lx.KINDS.get(w) in _DEVICE_KINDS for w in words)

    return [h for h in hits
            if h.kind == "semantic" and h.state == "active" and h.fact_type == "world"
            and ((had(h) and (living or device(h))) or (not living and device(h)
                                                         and not _NOT_HAD.match(h.text)
                                                         and (_USES.match(h.text) or named(h))))
            and (living or not any(set(_words(h.text)) & g for g in lx.PET_KINDS))]


def _words(text: str) -> list[str]:
    return re.findall(r"[\w'’-]+", text.lower())


def _names_a_kind(q: str) -> bool:
    """The question names a kind of thing ("pets", "car", "phones")."""
    for w in _words(re.sub(r"['’]s\b", "", q)):
        if w in lx.KIND_NAMES or (w.endswith("s") and w[:-1] in lx.KIND_NAMES) or \
                w in ("pet", "pets", "dog", "dogs", "puppy", "cat", "cats", "kitten"):
            return True
    return False


def _kind_hit(q: str, text: str) -> bool:
    """The question names a kind ("phone", "dog") and the memory names one of that kind
    ("a Pixel 8", "a beagle")."""
    have = set(_words(text))
    for w in _words(re.sub(r"['’]s\b", "", q)):
        kind = w if w in lx.KIND_NAMES else w[:-1] if w.endswith("s") and w[:-1] in lx.KIND_NAMES \
            else None
        if kind and any(lx.KINDS.get(x) == kind for x in have):
            return True
        if w in ("pet", "pets") and any(have & g for g in lx.PET_KINDS):
            return True
        if w in ("dog", "dogs", "puppy", "cat", "cats", "kitten"):
            if any(w in g and have & g for g in lx.PET_KINDS):
                return True
    return False


def _holds(text: str) -> frozenset[str]:
    return terms(text) | identifiers(" x " + text)


def _defines(text: str, direct: set[str]) -> bool:
    """"Main editor is Zed", "Coffee order: flat white": the memory is the asked thing's value.
    The thing is the subject's last word: "Her 2027 travel budget is ..." is a budget, not an
    answer to "what suitcase do I travel with?" (invariant 186)."""
    m = re.match(r"^(?:(?:her|his|their|my|the)\s+)?((?:[\w'’-]+\s+){0,3}?[\w'’-]+)\s*(?:\bis\b|\bare\b|:)",
                 text.strip(), re.IGNORECASE)
    return bool(m and terms(m.group(1).split()[-1]) & direct)


def _score(h: HitView, q: str, direct: set[str], want: set[str], slots: set[str],
           names: frozenset[str]) -> float:
    """How well one memory answers (invariant 186): the question's own words (a light verb such
    as "have" or "use" counts for nothing), its synonyms at half, the attribute asked for, a
    memory that states the asked thing's value, a thing of the asked kind."""
    t = terms(h.text) - (identifiers(h.text) - names)
    score = sum(0.0 if w in _LIGHT else 1.0 for w in direct & t)
    score += 0.5 * len((want - direct) & t - _LIGHT)
    if slots & answered_slots(h.text, h.fact_type):
        score += 2
    if _defines(h.text, direct):
        score += 1.5
    if _kind_hit(q, h.text):
        score += 1
    return score


def _said_now(h: HitView, q: str, names: frozenset[str] = frozenset()) -> str:
    """A current fact said to the user; a when-question gets its date (invariant 188): when it
    started, or when the user said it. A fact opening with a name the user uses elsewhere
    ("Biscuit is terrified of fireworks") keeps it: it is not "your biscuit"."""
    said = _role(second_person(h.text))
    first = h.text.split()[0] if h.text.split() else ""
    if first.lower() in names and said.lower().startswith("your " + first.lower()):
        said = first + said[len("your ") + len(first):]
    if re.match(r"^(?:The|A|An)\s", said):  # "the Aqara door sensors take ..." mid-sentence
        said = said[:1].lower() + said[1:]
    elif re.match(r"^(?:[A-Z][a-z]+ing\s+(?:to|home|in|at|on|from|with|for|back|out|up|away)|On|In|At|"
                  r"Back\s+(?:in|to|home|at))\b",
                  said):  # "Flying home to Kochi ..." is what you're doing
        said = "you're " + said[:1].lower() + said[1:]
    if _WHEN_DATE.match(q.strip()) and not _HAS_DATE.search(h.text):
        if h.valid_from:
            said += f" (since {h.valid_from})"
        elif h.recorded_at:
            said += f" (you told me on {h.recorded_at.date()})"
    return said


def _dated(h: HitView) -> str:
    said = _role(second_person(h.text))
    if h.state == "superseded":
        said = _past(said)
        return said + (f" (until {h.valid_to})" if h.valid_to else "")
    if h.valid_from:
        return said + f" (since {h.valid_from})"
    return said + (f" (you told me on {h.recorded_at.date()})" if h.recorded_at else "")


def _held(word: str, held: frozenset[str]) -> bool:
    """The word, or a word of the same root ("portug" / "portugues", "german" / "germani")."""
    return word in held or (len(word) >= 5 and any(
        len(h) >= 5 and (h.startswith(word) or word.startswith(h)) for h in held))


def _verdict(content: set[str] | frozenset[str], q: str, text: str,
             single: bool = False) -> str | None:
    """Yes, no or None (can't tell) for a yes/no question against one memory (invariant 189):
    a negated mention ("never coffee", "rather than Zigbee2MQTT") is a no; every asked word held
    (or a thing of the asked kind) is a yes; a rival value of the same kind ("pescatarian" for
    "vegan") is a no."""
    if not content:
        return None
    toks = _words(text)
    for w in content:
        at = next((i for i, tok in enumerate(toks) if w in terms(tok)), None)
        if at is not None and set(toks[max(0, at - 3):at]) & _NEGATORS:
            return "no"
    held = _holds(text)
    # A word the memory says another way counts as held ("jab" ~ "vaccine", invariant 189).
    # Never a value of the same kind: "vegetarian" is not "pescatarian", a dog not a cat.
    missing = {w for w in content if not _held(w, held)
               and not (set(expansions([w], 1.0)) & held) - _VALUES}
    if not missing or (_kind_hit(q, text) and not missing - _stems(*lx.KINDS, "pet", "pets",
                                                                   *(w for g in lx.PET_KINDS for w in g))):
        return "yes"
    # A rival value answers no only where one value excludes the other: a diet, or a state
    # asked with "am I" ("am I a morning person?"); a cat is no answer to "do I have a dog?".
    if single:  # the one value of the attribute asked holds something else
        return "no"
    state = bool(re.match(r"^(?:am\s+i|is\s+my|are\s+my)\b", q.strip(), re.IGNORECASE))
    for group in _RIVALS if state else _RIVALS[-1:]:
        if content & group and not content & held and held & (group - content):
            return "no"
    for diet, without in _DIET_EXCLUDES.items():  # "do I eat meat?" -> "you're vegetarian"
        if diet in held and content & without:
            return "no"
    return None


def _past_scoped(q: str, hits: list[HitView], content: frozenset[str],
                 slots: set[str] | frozenset[str] = frozenset()) -> str | None:
    """Invariant 188: a question about a past time ("which laptop did I have at Parcelbird?",
    "how often was I on call at Parcelbird?", "what was the very first hub I had, back in
    Leeds?") is answered by the replaced versions of the asked thing: those naming the past
    place, else the first version for "first", else the versions that stopped being true; said
    in the past tense. None when the question names no past place nor "first", or no version of
    the asked thing changed."""
    facts = [h for h in _unique(hits) if h.kind == "semantic"
             and h.state in ("active", "superseded")]
    old = [h for h in facts if h.state == "superseded"]
    quals: set[str] = set()
    for m in _PAST_PLACE.finditer(q):
        said = terms(m.group(1))
        if said and any(said <= _holds(h.text) for h in old):  # a place the user has left
            quals |= said
    first = bool(_FIRST.search(q))
    if not (quals or first):
        return None
    asked = set(content) - quals - _stems("first", "very", "back", "original", "earliest")
    if not (asked or slots):
        return None
    chains = [c for c in _chains(facts) if len(c) > 1 and any(
        (asked and asked <= _holds(h.text)) or _kind_hit(q, h.text)
        or (not asked and slots & answered_slots(h.text, h.fact_type)) for h in c)]
    if not chains:
        return None
    chain = sorted(chains[0], key=lambda h: (h.state == "active",
                                             str(h.valid_from or h.recorded_at or "")))
    then = [h for h in chain if quals and quals <= _holds(h.text)]
    if not then:
        then = chain[:1] if first else [h for h in chain if h.state == "superseded"]
    if not then:
        return None
    told = [_was(_past(_role(second_person(h.text))))
            + (f" (until {h.valid_to})" if h.valid_to else "") for h in then[:3]]
    return sentence("From what you've told me: " + join(told))


_KIN = re.compile(r"\b(?:" + "|".join(sorted(lx.RELATIONS | lx.PETS, key=len, reverse=True))
                  + r")\s+(?:called\s+|named\s+)?((?-i:[A-Z])[a-z]{2,})\b", re.IGNORECASE)


def _kin_names(hits: list[HitView]) -> frozenset[str]:
    """Names the user's memories give their people and pets ("her brother Jan", "a beagle
    called Biscuit"), lower-cased."""
    return frozenset(m.group(1).lower() for h in hits if h.kind == "semantic"
                     for m in _KIN.finditer(h.text))


def _asks(q: str) -> list[str]:
    """Invariant 186: "which terminal and which shell do I use?" is two questions, each with
    the shared tail ("which terminal do I use?", "which shell do I use?"). Pure."""
    m = re.match(r"^(?P<pre>.*?\b)(?P<w>which|what)\s+(?P<a>[\w'’-]+)\s+and\s+(?:which|what)\s+"
                 r"(?P<b>[\w'’-]+)\s+(?P<tail>(?:do|did|does|am|is|are|have|i)\b.*)$", q, re.IGNORECASE)
    if not m:
        return [q]
    return [f"{m.group('pre')}{m.group('w')} {m.group('a')} {m.group('tail')}",
            f"{m.group('w')} {m.group('b')} {m.group('tail')}"]


# Invariant 186: a question in German, Portuguese, Spanish or French is read word by word
# through a glossary of question words and everyday words (no model, no network).
_GLOSSARY = {
    # German
    "wo": "where", "wohne": "live", "arbeite": "work", "ich": "I", "jetzt": "now", "mein": "my",
    "meine": "my", "meinen": "my", "was": "what", "ist": "is", "wann": "when", "wer": "who",
    "welche": "which", "welcher": "which", "welches": "which", "habe": "have", "bin": "am",
    "noch": "still", "läuft": "expires", "ab": "", "kaffee": "coffee", "hund": "dog",
    "katze": "cat", "schwester": "sister", "bruder": "brother", "eltern": "parents",
    "reisepass": "passport", "pass": "passport", "geburtstag": "birthday", "arbeit": "work",
    "beruf": "job", "wie": "how", "viele": "many", "esse": "eat", "fleisch": "meat",
    # Portuguese
    "onde": "where", "moro": "live", "vivo": "live", "trabalho": "work", "eu": "I",
    "agora": "now", "qual": "what", "é": "is", "o": "", "a": "", "meu": "my", "minha": "my",
    "quando": "when", "quem": "who", "expira": "expires", "passaporte": "passport",
    "café": "coffee", "cão": "dog", "gato": "cat", "irmã": "sister", "irmão": "brother",
    "pais": "parents", "aniversário": "birthday", "emprego": "job", "tenho": "have",
    # Spanish
    "dónde": "where", "donde": "where", "trabajo": "work", "yo": "I", "ahora": "now",
    "cuál": "what", "es": "is", "mi": "my", "cuándo": "when", "quién": "who", "caduca": "expires",
    "pasaporte": "passport", "perro": "dog", "hermana": "sister", "hermano": "brother",
    "padres": "parents", "cumpleaños": "birthday", "el": "", "la": "",
    # French
    "où": "where", "j'habite": "I live", "habite": "live", "travaille": "work", "je": "I",
    "maintenant": "now", "quel": "what", "quelle": "what", "est": "is", "mon": "my", "ma": "my",
    "quand": "when", "qui": "who", "expire": "expires", "passeport": "passport",
    "chien": "dog", "chat": "cat", "sœur": "sister", "frère": "brother", "anniversaire": "birthday",
}
_FOREIGN_Q = frozenset({"wo", "was", "wann", "wer", "welche", "welcher", "welches", "wie",
                        "onde", "qual", "quando", "quem", "dónde", "donde", "cuál", "cuándo",
                        "quién", "où", "quel", "quelle", "quand", "qui"})


def _english(q: str) -> str:
    """The question in English words when it opens with a German, Portuguese, Spanish or French
    question word and most of its words are in the glossary ("wo arbeite ich jetzt?" -> "where
    work I now?"); an English question is left as it is. Pure."""
    words = re.findall(r"[^\W\d_][\w'’-]*", q.lower())
    if not words or words[0] not in _FOREIGN_Q:
        return q
    known = sum(w in _GLOSSARY for w in words)
    if known * 2 <= len(words):
        return q
    said = " ".join(_GLOSSARY.get(w, w) for w in words)
    return " ".join(said.split()) + "?"


def _names_said(q: str, text: str) -> bool:
    """The question says, in any case, a name the memory writes past its first word ("Her cat
    Mochi stays with ..." and "who looks after mochi?"), never a pronoun or a light word."""
    names = {w.lower() for w in re.findall(r"(?<=\s)(?-i:[A-Z])[a-z]{2,}\b", text)}
    return bool(names & set(_words(q)) - {"her", "his", "their", "the"})


def _head_noun(q: str) -> str | None:
    """The thing a "home ..." / "work ..." compound asks for ("what's my home airport?" ->
    "airport", "my work phone?" -> "phone"), or None. Pure."""
    for compound in (_COMPOUND_HOME, _COMPOUND_WORK):
        for m in compound.finditer(q):
            after = re.match(r"\s*([^\W\d_][\w'’-]*)", q[m.end() - 1:])
            if m.group(0).lower().startswith("smart") or not after:
                continue
            head = after.group(1).lower()
            if terms(head) and not terms(head) <= _GENERIC_Q | _LIGHT | _QSTOP:
                return head
    return None


def _names_head(head: str, q: str, text: str) -> bool:
    """The memory holds the asked thing: its word, a word the lexicon gives for it, or a thing
    of its kind ("a Pixel 8" for "phone")."""
    held = _holds(text)
    want = terms(head)
    return bool(want & held or set(expansions(want, 1.0)) & held
                or any(_held(w, held) for w in want) or _kind_hit(head, text))


def _was(said: str) -> str:
    """A past state said without a verb ("Primary on-call at Parcelbird ...") is what you were."""
    if re.match(r"^(?:you|your)\b", said, re.IGNORECASE):
        return said
    return "you were " + said[:1].lower() + said[1:]


def _window(q: str, today: date) -> tuple[date, date] | None:
    """Invariant 188: the days a question about what is on asks for ("anything on tomorrow?",
    "any trips coming up?", "list my trips this year"), or None. Pure."""
    if not _DATED_Q.search(q) or re.search(r"\bhow\s+(?:many|much|long|often)\b", q, re.I):
        return None  # "how many flights can I take next year?" asks for a number
    # the most exact period said wins: "anything planned this weekend?" is the weekend
    said = min((re.sub(r"\s+", " ", x.group(0).lower()).removeprefix("on ")
                for x in _DATED_Q.finditer(q)), key=lambda w: _OPEN_WORDS.count(w.split()[0]))
    if said.split()[0] not in _OPEN_WORDS:
        # the days come from the one date module (issue 28): "this weekend", "next month"
        span = span_of(said, datetime(today.year, today.month, today.day, tzinfo=UTC), "future")
        if span is not None:
            last = span.end - timedelta(days=1)
            # what is on: from today, except a whole year, which is listed whole
            return (span.first if said.endswith("year") else max(today, span.first)), last
    return today, date.max  # coming up, upcoming, planned, ahead, soon, next


def _yours_event(said: str) -> str:
    """An event named as a thing ("Brazil trip to Fortaleza ...") is the user's own."""
    if re.match(r"^(?!you\b|your\b)[A-Z]", said):
        first = said.split()[0]
        # a common word opening it is lowered ("your passport renewal"), a name keeps its
        # capital ("your Brazil trip")
        return "your " + (said[:1].lower() + said[1:] if first.lower() in _COMMON_START else said)
    return said


def _days_said(window: tuple[date, date]) -> str:
    """The asked days as a memory writes them ("December 2"), for a window of a week or less."""
    start, end = window
    if (end - start).days > 6:
        return ""
    days = [start + timedelta(days=i) for i in range((end - start).days + 1)]
    return "".join(f" {d.strftime('%B')} {d.day}" for d in days)


def _dated_answer(q: str, hits: list[HitView], window: tuple[date, date]) -> str | None:
    """Invariant 188: what is on in the asked days: the user's active dated facts whose days
    meet them (a span, or a start still ahead), by start date; the asked words pick among them
    when some hold them ("any flights next month?"), and a home, job or diet that merely
    started on a date is no event. With nothing on then, a question about what is on is told
    nothing is on record ("nothing coming up" when it asks about anything ahead); None for any
    other question."""
    start, end = window
    today = start if end != date.max else None
    events = []
    for h in _unique(hits):
        if h.kind != "semantic" or h.state != "active" or not h.valid_from:
            continue
        if answered_slots(h.text, h.fact_type) & _SINGLE:
            continue
        last = h.valid_to or h.valid_from
        if h.valid_to is None and h.valid_from < start:
            continue  # started and never ends: a state, not something on
        if h.valid_from <= end and last >= start and (today is None or last >= today):
            events.append(h)
    asked = _question_terms(q, synonyms=False) - _LIGHT - _GENERIC_Q - _TIMEY - _EVENT_T
    named = [h for h in events if asked & _holds(h.text)]
    # every event has a start (those without one were skipped above)
    events = sorted(named or events, key=lambda h: cast(date, h.valid_from))
    if not events:
        # "anything on next week?" with nothing dated then: nothing is on record for those
        # days; another question naming days ("my salary next year?") goes to the other rules
        if not _EVENT_Q.search(q):
            return None
        # "what trips do I have planned?" asks about anything ahead, not a day (invariant 188)
        return ("I have nothing on record coming up." if end == date.max
                else "I have nothing on record for then.")
    told = [_yours_event(_said_now(h, q))
            + ("" if _HAS_DATE.search(h.text) else f" (on {h.valid_from})") for h in events[:6]]
    return sentence("From what you've told me: " + join(told))


def _near(a: str, b: str) -> bool:
    """One letter added, dropped, changed or two swapped ("asistant", "keybaord"). Pure."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long_ = sorted((a, b), key=len)
    return any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


def _correct(q: str, hits: list[HitView]) -> str:
    """Invariant 186: a question word no memory spells, one slip from a word a recalled memory
    uses (same first letter, five letters or more, one candidate only), read as that word:
    "how is home asistant backed up" asks about Home Assistant. Pure."""
    vocab = {w for h in hits for w in _words(h.text) if len(w) >= 4}
    stems = {stem(w) for w in vocab}

    def fix(m: re.Match) -> str:
        w = m.group(0)
        low = w.lower()
        if len(low) < 5 or low in vocab or stem(low) in stems or stem(low) in _QSTOP:
            return w
        near = {v for v in vocab if v[0] == low[0] and v.isalpha() and _near(low, v)}
        return near.pop() if len(near) == 1 else w
    return re.sub(r"[^\W\d_]+", fix, q)


def _no_longer(q: str, content: frozenset[str], names: frozenset[str],
               hits: list[HitView]) -> str | None:
    """Invariant 189: "do I still work nights?", "is the Homey still running the house?": when
    no current memory holds what is asked (its names, or else every asked word, the verb
    included: "work" and "nights", not a robot that never runs at night) and a replaced
    version does, the answer is no, with what holds now. None when a current memory holds it
    (the yes/no rules answer) or no version ever did."""
    named = frozenset(w for w in content if w in names)
    key = named or frozenset(content)
    if not key:
        return None
    facts = [h for h in _unique(hits) if h.kind == "semantic"]

    def holds(h: HitView) -> bool:  # a name is held as itself ("SmartThings" is not "smart")
        return all(w in _holds(h.text) if named else _held(w, _holds(h.text)) for w in key)
    if any(h.state == "active" and holds(h) for h in facts):
        return None
    old = [h for h in facts if h.state == "superseded" and holds(h)]
    if not old:
        return None
    by_id = {h.id: h for h in facts}
    h, seen = old[0], set()
    while h.superseded_by in by_id and h.id not in seen:  # follow the chain to what holds now
        seen.add(h.id)
        h = by_id[h.superseded_by]
    was = _past(_role(second_person(old[0].text)))
    if h.state == "active":
        return sentence(f"No: {_said_now(h, q)} now; before that, {was}")
    return sentence(f"No: that has changed; before, {was}")


def _yes_no(content: frozenset[str], q: str, facts: list[HitView], listing: list[str],
            single: bool = False) -> str:
    verdicts = [_verdict(content, q, h.text, single) for h in facts]
    listing = [re.sub(r"^(No|The|A|An)\b", lambda m: m.group(1).lower(), said) for said in listing]
    for word, v in (("Yes", "yes"), ("No", "no")):
        keep = [said for said, got in zip(listing, verdicts, strict=False) if got == v]
        if keep:
            return sentence(f"{word}: " + join(keep))
    return sentence("I have nothing on record that says exactly that. What I do have: "
                    + join(listing[:2]))
















def _question_terms(q: str, *, synonyms: bool = True) -> set[str]:
    base = {t for t in terms(q) if t not in _QSTOP}
    if not synonyms:
        return base
    for w in re.findall(r"[\w'-]+", q.lower()):
        for alt in lx.SYNONYMS.get(w, ()):
            base.add(stem(alt))
    return base


def _question_query(q: str) -> str:
    extra: list[str] = []
    for w in re.findall(r"[\w'-]+", q.lower()):
        extra += lx.SYNONYMS.get(w, ())
    return " ".join([q.rstrip("?"), *extra])
