"""The offline agent: deterministic, no network. It reads the message with the rule-based
understander, makes the same tool calls a model would (recall, then write/forget, then recall
for questions), and answers in the second person. When it understood nothing it says so
(invariant 76); it never writes a value with leftover time words (invariant 74)."""

from __future__ import annotations

import re
import time

from ..text import stem
from ..tools import MAX_HITS
from ..understand import lexicon as lx
from ..understand.matching import (
    already_known,
    answered_slots,
    contrast_words,
    identifiers,
    kind_of,
    names_as_rival,
    pick_old,
    pick_target,
    relative_of,
    slots_of,
    terms,
)
from ..understand.speak import join, second_person, sentence
from ..understand.statements import Statement, Understanding, understand
from .base import AgentInput, AgentOutput, ToolRunner

_QSTOP = frozenset(stem(w) for w in ["what", "whats", "where", "which", "who", "when", "why", "how", "do", "does", "did", "i", "my", "me", "you", "your", "know", "tell", "remember", "remind", "have", "has", "is", "are", "was", "were", "any", "anything", "about", "list", "show", "give", "please", "can", "could", "would", "now", "currently", "ever", "still", "the", "a", "an", "of", "on", "in", "to", "for", "right", "thing", "things", "stuff"])
_GENERIC_Q = frozenset(stem(w) for w in ["name", "names", "called", "kind", "type", "sort", "much",
                                          "many", "long", "old", "often", "number", "detail",
                                          "details", "info", "favourite", "favorite"])
_HISTORY_Q = re.compile(r"\b(?:have\s+i|did\s+i|used\s+to|before|previous(?:ly)?|history|"
                        r"over\s+the\s+years|all\s+the|ever|in\s+the\s+past|earlier)\b", re.IGNORECASE)
# "What do I own?", "what have I got?", "which gadgets do I have?": a question about belongings.
_BELONGINGS_Q = re.compile(r"\b(?:own|owns|have|has|got|possess)\b\W*$", re.IGNORECASE)
_POSSESSION = frozenset({"verb:have", "verb:own"})
_HOWTO = re.compile(r"^(?:how|can\s+i|how\s+do|what'?s\s+the\s+best\s+way|is\s+there\s+a\s+way|"
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


def _when(w) -> str:
    if w.valid_from and w.valid_to:
        return f" (from {w.valid_from} to {w.valid_to})"
    if w.valid_from:
        return f" (since {w.valid_from})" if w.op != "write" else f" (from {w.valid_from})"
    if w.valid_to:
        return f" (until {w.valid_to})"
    return ""


def _yours(words: str) -> str:
    said = re.sub(r"\bmy\b", "your", re.sub(r"\bI\b", "you", words), flags=re.IGNORECASE)
    # A denial's target keeps its verb without the subject: "had a Hue bridge" -> "you had ...".
    if re.match(r"(?:had|lived|owned|worked|been|used|bought|liked|eaten|said|was|were)\b", said,
                re.IGNORECASE):
        return "you " + said
    return said


class OfflineAgent:
    mode = "offline"

    def __init__(self) -> None:
        from ..llm.offline import OfflineLLM

        self.llm = OfflineLLM()  # consolidation after a turn uses the same offline model

    def run(self, inp: AgentInput, tools: ToolRunner) -> AgentOutput:
        history = [m.get("content", "") for m in inp.history if m.get("role") == "user"]
        u = understand(inp.message, inp.today, history)
        if u.other_user:
            return AgentOutput(understood=True, reply=(
                "I can only read and change your own memories, so I haven't looked at or "
                "touched anyone else's. Ask me about yours any time."))
        said: list[str] = []
        if u.statements:
            said += self._statements(u, inp, tools)
        if u.questions:
            said += self._questions(u, inp, tools)
        if not said:
            return AgentOutput(understood=False, reply=self._nothing(u))
        return AgentOutput(understood=True, reply=" ".join(said))

    # --- statements -------------------------------------------------------------------------
    def _statements(self, u: Understanding, inp: AgentInput, tools: ToolRunner) -> list[str]:
        tools.begin_step()
        started = time.perf_counter()
        found = []
        for st in u.statements:
            res = tools.call("recall_memory", {
                "query": _query(st), "include_superseded": st.act in ("deny", "forget"),
                "include_catalog": False, "k": 12})
            found.append(res.hits + list(inp.pre_recall.hits))
        tools.record_tools((time.perf_counter() - started) * 1000, "recall for each statement")
        tools.begin_step()
        started = time.perf_counter()
        said = []
        for st, hits in zip(u.statements, found, strict=False):
            if st.act == "forget":
                said.append(self._forget(st, hits, tools))
            elif st.act == "deny":
                said.append(self._deny(st, hits, tools))
            else:
                said.append(self._write(st, hits, tools))
        tools.record_tools((time.perf_counter() - started) * 1000, "writes")
        return [s for s in said if s]

    def _forget(self, st: Statement, hits, tools: ToolRunner) -> str:
        states = ("active", "superseded", "candidate")
        target = pick_target(st.target or "", hits, states=states, expand=True)
        # Invariant 148: when a past version and the current one both fit the request ("forget
        # my diet"), the user means what is on record now: follow the chain to its head while the
        # newer version fits too. "Forget that I lived in Bristol" stays on Bristol.
        by_id = {h.id: h for h in hits}
        seen: set[str] = set()
        while (target is not None and target.state == "superseded" and target.superseded_by
               and target.superseded_by in by_id and target.id not in seen):
            seen.add(target.id)
            newer = by_id[target.superseded_by]
            if pick_target(st.target or "", [newer], states=states, expand=True) is None:
                break
            target = newer
        what = _yours(st.target or "that")
        if target is None:
            return f"I don't have anything about {what} on record, so there was nothing to forget."
        res = tools.call("forget_memory", {"memory_id": target.id,
                                           "reason": "the user asked to forget it"})
        if not res.ok:
            return f"I couldn't forget {what}: {res.error}"
        said = sum(len(w.also_forgotten) for w in res.writes)
        also = ("" if not said else " and the message you told me in" if said == 1
                else f" and the {said} messages you told me in")
        return f"Done: I've forgotten {what}{also}. It is deleted for good."

    def _deny(self, st: Statement, hits, tools: ToolRunner) -> str:
        target = pick_target(st.target or "", hits, slot=st.slot)
        if target is None:
            if st.text:
                return self._write(st.model_copy(update={"act": "assert", "harsh": False}), hits,
                                   tools)
            return ("I have nothing on record saying " + _yours(st.target or "that")
                    + ", so there is nothing to take back.")
        old = second_person(target.text)
        if st.text and target.state == "active":
            res = tools.call("write_memory", {
                "kind": "fact", "text": st.text, "fact_type": st.fact_type,
                "confidence": st.confidence, "supersedes_id": target.id, "contradiction": "harsh",
                "valid_from": _iso(st.valid_from), "valid_to": _iso(st.valid_to),
                "reason": f"the user says this was never true: {st.clause}"})
            return self._said(res, st) or ""
        res = tools.call("write_memory", {
            "kind": "retraction", "supersedes_id": target.id, "confidence": st.confidence,
            "reason": f"the user says this was never true: {st.clause}"})
        if not res.ok:
            return f"Before I remove that {old} for good, please confirm it was never true."
        out = f"Understood: I had on record that {old}. That was never true, so I've removed it and won't bring it back."
        if st.text:
            out += " " + (self._write(st.model_copy(update={"act": "assert", "harsh": False}),
                                      hits, tools) or "")
        return out

    def _write(self, st: Statement, hits, tools: ToolRunner) -> str:
        st = _reslot(st, hits)
        if "location:now-at" in st.rule and not (st.text or "").startswith("Works at "):
            # "Now at X" after leaving a place is kept only as a new employer (invariant 163)
            return "I'm not sure what that is to you, so I haven't noted it."
        old = pick_old(st, hits)
        if old is None and st.act == "change" and re.match(
                r"^(?:no\s+longer\s+(?:owns|has|likes|uses)|has\s+given\s+up|moved\s+away\s+from)\b",
                st.text or "", re.IGNORECASE):
            # Something that stopped, with nothing on record it ends: no fact to keep
            # ("binned the hub ages ago"); a wrong write is worse than a miss (invariant 141).
            return "That ends something I have nothing on record about, so I haven't noted it."
        if st.rule.endswith("+bare") and (old is None or "home" not in slots_of(old.text, old.fact_type)
                                          or _named_elsewhere(st.text or "", hits)):
            # "Leeds now" alone is a home only beside the one it replaces (invariant 163)
            return "I'm not sure what that place is to you, so I haven't noted it."
        if old is None and st.rule.startswith("third:"):
            # News about someone or something else is kept only as a change of what is on
            # record about them ("Jan lives in Lisbon now"), never as a new fact.
            return "That's about someone else and nothing I have on record, so I haven't noted it."
        known = already_known(st.text or "", hits)
        if known is not None and st.act == "change" and names_as_rival(st.text or "", known.text):
            # "switched to Zigbee2MQTT" over "Uses ZHA rather than Zigbee2MQTT": the fact is
            # replaced, not already known (invariant 163).
            old, known = old or known, None
        if known is not None and st.slot in ("home", "job", "employer", "diet") and \
                st.slot not in slots_of(known.text, known.fact_type):
            known = None  # "Lives in Leeds" is not "Back in Leeds for Christmas" (invariant 140)
        # The fact on record already says it — unless the user is moving away from a value that
        # fact also holds ("Zed; Neovim only on servers" and "no more Zed, back to Neovim").
        away = bool(st.previous) and old is not None and known is not None and \
            known.id == old.id and bool(terms(st.previous or "") & terms(old.text))
        if known is not None and not away and (old is None or known.id != old.id
                                               or not (st.valid_from or st.valid_to)):
            return sentence(f"I already have that: {second_person(known.text)}")
        text = st.text
        if known is not None and old is not None and not away:
            # The fact on record already says it and the user only dated it ("vegetarian since
            # 2019"): the new version keeps the recorded wording, details included.
            text = old.text
        args = {"kind": "fact", "text": text, "fact_type": st.fact_type,
                "confidence": st.confidence, "valid_from": _iso(st.valid_from),
                "valid_to": _iso(st.valid_to), "reason": st.clause}
        if old is not None:
            args["supersedes_id"] = old.id
            args["contradiction"] = "harsh" if st.harsh else "natural"
        res = tools.call("write_memory", args)
        return self._said(res, st)

    def _said(self, res, st: Statement) -> str:
        if not res.ok:
            if "Tombstone" in (res.error or ""):
                return ("You told me before that this was never true, so I haven't recorded "
                        f"“{st.text}”.")
            return f"I couldn't record that: {res.error}"
        w = res.writes[0] if res.writes else None
        if w is None:
            return ""
        new = second_person(w.text or "")
        if w.status == "duplicate":
            return sentence(f"I already have that: {new}")
        if w.status == "review":
            why = res.message.removeprefix("sent to the review queue (").split(")")[0]
            return (f"I've put “{w.text}” in the review queue for an operator to confirm "
                    f"({why}); until then I won't rely on it.")
        if w.op == "supersede" and w.text == w.old_text:
            return sentence(f"Noted when: {new}{_when(w)}")
        if w.op == "supersede":
            return sentence(f"Updated: {new}{_when(w)}, instead of: {_past(second_person(w.old_text or ''))}")
        if w.op == "retract":
            return sentence(f"Corrected: {new}{_when(w)}. I've removed that {second_person(w.old_text or '')}, "
                            "which was never true")
        return sentence(f"Noted: {new}{_when(w)}")

    # --- questions --------------------------------------------------------------------------
    def _questions(self, u: Understanding, inp: AgentInput, tools: ToolRunner) -> list[str]:
        tools.begin_step()
        started = time.perf_counter()
        said = []
        for q in u.questions:
            history = bool(_HISTORY_Q.search(q))
            query, k = _question_query(q), 12
            if _BELONGINGS_Q.search(q) and not history:  # invariant 181: recall what is had
                query, k = query + " has owns", MAX_HITS
            res = tools.call("recall_memory", {"query": query,
                                               "include_superseded": history,
                                               "include_catalog": True, "k": k})
            said.append(self._answer(q, res.hits + list(inp.pre_recall.hits), history))
        tools.record_tools((time.perf_counter() - started) * 1000, "recall for questions")
        return said

    def _answer(self, q: str, hits, history: bool) -> str:
        want = _question_terms(q)
        direct = _question_terms(q, synonyms=False)
        # "What's my partner's name?" is about the partner: a fact sharing only a generic word
        # ("name") does not answer it.
        focus = want - _GENERIC_Q if want - _GENERIC_Q else want
        seen, facts, books, docs = set(), [], [], []
        if history:
            # A version of a chain answers with its chain: "Senior backend engineer at Helio"
            # shares no word with "where have I worked?", its successor "Works as ..." does.
            facts_in = [h for h in hits if h.kind == "semantic"]
            chained = {h.id for c in _chains(_unique(facts_in))
                       if any(want & focus & terms(m.text) for m in c) for h in c}
            facts = [h for h in _unique(facts_in) if h.id in chained]
            seen = {h.id for h in facts_in}
        asked_names = identifiers(q)
        # "Where do I work?" is answered by "... is a field service manager at Nordwind".
        asked_slots = {slot for words, slot in _SLOT_WORDS if direct & words}
        # Invariant 181: what the user has or owns answers a question about belongings; it is
        # admitted, never a filter (the hub "is a Home Assistant Green" stays in the list).
        belongings = _POSSESSION if _BELONGINGS_Q.search(q) and not history else frozenset()
        for h in hits:
            if h.id in seen:
                continue
            seen.add(h.id)
            # A name in the memory matches only a name in the question: "what do I drive?" is
            # not answered by "... backs up to Google Drive".
            overlap = want & (terms(h.text) - (identifiers(h.text) - asked_names))
            rel = relative_of(h.text) if h.kind == "semantic" else None
            if rel and not (terms(rel) & direct or asked_names & identifiers(" x " + h.text)):
                continue  # invariant 180: about a relative, and the question is not
            if h.kind == "semantic" and (history or h.state == "active") and (
                    overlap & focus or asked_slots & answered_slots(h.text, h.fact_type)
                    or (h.fact_type == "world"  # things, not an allergy or a tax number
                        and belongings & answered_slots(h.text, h.fact_type))):
                facts.append(h)
            elif h.kind == "procedural" and len(overlap) >= 2:
                books.append(h)
            elif h.kind == "catalog" and len(overlap) >= 2 and _HOWTO.search(q):
                docs.append(h)
        if history:
            told = _history(facts, direct)
            if told:
                return told
        elif not (_HOWTO.search(q) and (books or docs)):
            # A how-to question is answered by what worked before and the help page that covers
            # it; the user's facts answer it only when neither exists.
            named = [h for h in facts if asked_names & identifiers(" x " + h.text)]
            if named:  # "where does Tom work?": the memories about Tom, not every job
                facts = named
            # Most of the question's words first; recall's order among equals.
            asked = asked_slots
            slotted = [h for h in facts if asked & answered_slots(h.text, h.fact_type)]
            if slotted:  # "where do I live?" is answered by where you live, nothing else
                facts = slotted
            elif asked:
                # Invariant 180: nothing on record fills the attribute asked for ("what is my
                # address?" after it was forgotten): only a memory holding a word the user said
                # answers; "your brother lives in Oslo" shares only a synonym of "address".
                facts = [h for h in facts if direct & focus & terms(h.text)]
            facts = sorted(facts, key=lambda h: (-len(asked & answered_slots(h.text, h.fact_type)),
                                                 -len(want & terms(h.text))))
            listing = [second_person(h.text) for h in facts[:6]]
            if listing:
                return sentence("From what you've told me: " + join(listing))
        out = []
        if books:
            b = books[0]
            out.append(sentence(f"What worked for you before: {b.text}"))
        if docs:
            d = docs[0]
            title, _, body = d.text.partition(": ")
            out.append(f"The help page “{title}” covers this: {body.split('. ')[0].rstrip('.')}.")
        return " ".join(out) or "I don't have anything on record about that yet."

    def _nothing(self, u: Understanding) -> str:
        if u.ignored and all(_hypothetical(c) for c in u.ignored):
            return ("That sounds like something you're considering rather than something that "
                    "happened, so I haven't recorded anything. Tell me once it's decided.")
        return ("I didn't understand anything in that to remember or answer, so I haven't "
                "recorded anything. If you told me something about yourself, try saying it "
                "plainly, e.g. “I live in Leeds” or “I switched from Zed to Helix”.")


# Question words that name a single-valued attribute (matching.slots_of's slots).
_SLOT_WORDS = [(frozenset(stem(w) for w in ws), slot) for ws, slot in [
    (("live", "lived", "living", "home", "moved", "move", "city", "town", "address"), "home"),
    (("work", "worked", "working", "job", "jobs", "role", "roles", "position", "career"), "job"),
    (("work", "worked", "employer", "employers", "company", "companies"), "employer"),
    (("diet", "eat", "ate", "eaten", "vegetarian", "vegan"), "diet"),
]]


_ROLE_START = re.compile(r"^(?:(?:senior|junior|lead|principal|staff|head|chief|assistant|"
                         r"deputy|trainee|freelance)\s+)*(?:\w+\s+){0,2}?(?:"
                         + "|".join(sorted(lx.ROLE_WORDS, key=len, reverse=True)) + r")\b",
                         re.IGNORECASE)


def _article(said: str) -> str:
    return "an" if said[:1].lower() in "aeiou" else "a"


def _unique(hits: list) -> list:
    return list({h.id: h for h in reversed(hits)}.values())[::-1]  # first of each id, in order


def _chains(facts: list) -> list[list]:
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
    groups: dict[str, list] = {}
    for h in facts:  # facts are in rank order, so dict order is best member first
        groups.setdefault(find(h.id), []).append(h)
    return list(groups.values())


def _named_elsewhere(text: str, hits) -> bool:
    """A bare name ("Spotify now") that an active fact other than a home already mentions is
    that fact's thing, not a place (invariant 163)."""
    name = terms(text) - terms("Lives in")
    return any(h.kind == "semantic" and h.state == "active" and name & terms(h.text)
               and "home" not in slots_of(h.text, h.fact_type) for h in hits)


def _history(facts: list, direct: set[str]) -> str | None:
    """A history answer: the chains that changed, each told oldest first. A history question is
    about one attribute ("where did I live before?"), so chains that never changed are left out
    when one did, and chains sharing the question's own words beat those reached through a
    synonym ("home" in "smart home hub")."""
    chains = _chains(facts)
    changed = [c for c in chains if len(c) > 1 or any(h.supersedes or h.superseded_by for h in c)]
    chains = changed or chains
    asked = {slot for words, slot in _SLOT_WORDS if direct & words}
    slotted = [c for c in chains if any(asked & slots_of(h.text, h.fact_type) for h in c)]
    worded = [c for c in chains if any(direct & terms(h.text) for h in c)]
    # "Where have I worked?" asks about the job: the work laptop's chain shares a word only.
    chains = (slotted or worded or chains)[:2]
    told: list[str] = []
    for chain in chains:
        # What stopped being true came first; then by when it started.
        chain.sort(key=lambda h: (h.state == "active", str(h.valid_from or h.recorded_at or "")))
        parts = []
        for h in chain[:6]:
            said = second_person(h.text)
            if not said.startswith("you") and _ROLE_START.match(said):
                said = f"you're {_article(said)} {said[:1].lower()}{said[1:]}"  # a role, no verb
            if h.state == "superseded":
                parts.append(_past(said) + (f" (until {h.valid_to})" if h.valid_to else ""))
            else:
                parts.append(said + (" now" if not h.valid_from else f" (since {h.valid_from})"))
        told.append(sentence(("From what you've told me, in order: " if not told else "Also: ")
                             + "; then ".join(parts)))
    return " ".join(told) or None


def _reslot(st: Statement, hits) -> Statement:
    """"I moved from Spotify to Apple Music": a move away from something the user's facts hold
    as a thing they use, not as a home, is a switch (the slot comes from their facts, inv. 140)."""
    if st.slot != "home" or not st.previous or not (st.text or "").startswith(("Lives in ",
                                                                              "Moved away from ")):
        return st
    want = terms(st.previous)
    named = [h for h in hits if h.kind == "semantic" and h.state == "active"
             and want and want <= terms(h.text)]
    if (st.text or "").startswith("Moved away from "):
        # "I left Acme" with "Works at Acme" on record: an employer left, not a home (inv. 140)
        if named and all("employer" in slots_of(h.text, h.fact_type) and "home" not in
                         slots_of(h.text, h.fact_type) for h in named):
            return st.model_copy(update={"text": f"No longer works at {st.previous}",
                                         "slot": "employer", "rule": st.rule + "+reslot"})
        return st
    if named and all("employer" in slots_of(h.text, h.fact_type) and "home" not in
                     slots_of(h.text, h.fact_type) for h in named):
        # "Left Acme. Now at Globex." with "Works at Acme" on record: a new employer (inv. 163)
        value = (st.text or "").removeprefix("Lives in ")
        return st.model_copy(update={"text": f"Works at {value}", "slot": "employer",
                                     "rule": st.rule + "+reslot"})
    if named and not any("home" in slots_of(h.text, h.fact_type) for h in named):
        value = (st.text or "").removeprefix("Lives in ")
        return st.model_copy(update={"text": f"Uses {value}", "slot": None,
                                     "fact_type": "preference", "rule": st.rule + "+reslot"})
    return st


def _hypothetical(clause: str) -> bool:
    return bool(re.search(lx.HYPOTHETICAL, clause, re.IGNORECASE))


def _iso(d) -> str | None:
    return d.isoformat() if d else None


def _query(st: Statement) -> str:
    """What to recall to find the memory a statement is about."""
    if st.act in ("deny", "forget"):
        words = st.target or ""
        extra: list[str] = []
        for w in re.findall(r"[\w'-]+", words.lower()):
            extra += lx.SYNONYMS.get(w, ())
        return " ".join([words, *extra]).strip() or (st.clause or "")
    parts = [st.text or "", st.previous or ""]
    if st.slot in ("home",):
        parts.append("lives home")
    elif st.slot in ("job", "employer"):
        parts.append("works job role engineer")
    elif st.slot == "diet":
        parts.append("vegetarian vegan pescatarian eats diet")
    elif st.slot == "contact":
        parts.append("prefers contact phone email")
    elif st.slot and st.slot.startswith("noun:"):
        parts.append(st.slot.removeprefix("noun:"))
    for kind in lx.PET_KINDS:  # "our dog died": recall the beagle too
        if (st.previous or "").lower() in kind:
            parts.append(" ".join(sorted(kind)))
    of_kind = st.kind or kind_of(st.text or "")
    if of_kind:  # "now I have a Peugeot": recall the car on record too (invariant 155)
        parts.append(of_kind)
    said = contrast_words(st.text or "")
    for group in lx.CONTRASTS:  # recall the rival values of the same kind too (invariant 140)
        if said & group:
            parts.append(" ".join(sorted(group - said)))
    return " ".join(p for p in parts if p).strip() or st.clause


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
