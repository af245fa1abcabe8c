"""The offline agent: deterministic, no network. It reads the message with the rule-based
understander, makes the same tool calls a model would (recall, then write/forget, then recall
for questions), and answers in the second person. When it understood nothing it says so
(invariant 76); it never writes a value with leftover time words (invariant 74)."""

from __future__ import annotations

import re
import time
from datetime import date, timedelta

from ..lexicon import expansions
from ..text import normalise, stem
from ..tools import MAX_HITS
from ..understand import lexicon as lx
from ..understand.endings import DISLIKE, ended_fact, names_liked
from ..understand.events3 import event_fact
from ..understand.kin_news import resolve as kin_resolve
from ..understand.levels import settle as settle_level
from ..understand.life2 import PLAN_EVENT, STOPPED
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
from ..understand.people import (
    aged,
    loose_fit,
    person_facts,
    pregnancy_fact,
    relative_fact,
    reroled,
    their_work_fact,
)
from ..understand.phrases import cap
from ..understand.speak import join, second_person, sentence, to_you
from ..understand.statements import Statement, Understanding, understand
from ..understand.substitution import (
    about_the_fact,
    aligned_value,
    replace_count,
    replace_object,
    replace_value,
)
from ..understand.swaps import swap_into
from ..understand.value_shape import shape
from .base import AgentInput, AgentOutput, ToolRunner

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


def _when(w) -> str:
    if (w.valid_from or w.valid_to) and all(str(d.year) in (w.text or "")
                                            for d in (w.valid_from, w.valid_to) if d):
        return ""  # "ESTA expires on 20 May 2028" says its date already
    if w.valid_from and w.valid_to:
        return f" (from {w.valid_from} to {w.valid_to})"
    if w.valid_from:
        return f" (since {w.valid_from})" if w.op != "write" else f" (from {w.valid_from})"
    if w.valid_to:
        return f" (until {w.valid_to})"
    return ""


def _yours(words: str) -> str:
    said = re.sub(r"\bI(?:'|’)m\b|\bI\s+am\b", "you're", words, flags=re.IGNORECASE)
    said = re.sub(r"\bI\s+was\b", "you were", said, flags=re.IGNORECASE)
    said = re.sub(r"\bmy\b", "your", re.sub(r"\bI\b", "you", said), flags=re.IGNORECASE)
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
            elif st.rule.startswith("kin:"):
                said.append(self._kin(st, hits, tools))
            elif st.rule == "swap:date":
                said.append(self._swap(st, hits, tools))
            elif st.rule in ("swap:value", "swap:aligned", "swap:count", "swap:verb"):
                said.append(self._substitute(st, hits, tools, inp.message))
            else:
                said.append(self._write(st, hits, tools))
        tools.record_tools((time.perf_counter() - started) * 1000, "writes")
        return [s for s in said if s]

    def _kin(self, st: Statement, hits, tools: ToolRunner) -> str:
        """Invariants 403-408: news or a correction about a relative replaces only the one fact
        about that same relative; the user's own facts are never touched."""
        found = kin_resolve(st, hits)
        if found is None:
            return "That's about someone else and nothing I have on record, so I haven't noted it."
        old, text = found
        if old is None and st.act == "change":
            return "That's about someone else and nothing I have on record, so I haven't noted it."
        shaped, wrong = shape(text, st.clause or None)
        if shaped is None:
            return sentence(f"I haven't noted “{text}”: {wrong}")
        if st.rule in ("kin:name", "kin:date") and old is not None:
            # Invariant 407: the misspelt name is retracted at once; the new spelling, one the
            # agent cannot check, waits for review (low confidence) instead of replacing it
            res = tools.call("write_memory", {"kind": "retraction", "supersedes_id": old.id,
                                              "confidence": st.confidence, "reason": st.clause})
            if not res.ok:
                return f"I couldn't take that back: {res.error}"
            old, st = None, st.model_copy(update={"confidence": 0.6})
        args = {"kind": "fact", "text": shaped, "fact_type": old.fact_type if old is not None else st.fact_type,
                "confidence": st.confidence, "valid_from": _iso(st.valid_from), "reason": st.clause}
        if old is not None:
            args["supersedes_id"] = old.id
            args["contradiction"] = "harsh" if st.harsh else "natural"
        return self._said(tools.call("write_memory", args), st)

    def _forget(self, st: Statement, hits, tools: ToolRunner) -> str:
        states = ("active", "superseded", "candidate")
        person = person_facts(st.target or "", st.clause, hits)
        if person is not None:
            return self._forget_person(person[0], person[1], tools)  # invariant 332
        target = pick_target(st.target or "", hits, states=states, expand=True)
        if target is not None and loose_fit(st.target or "", target.text):
            target = None  # "my frequent flyer number" is not the NIF tax number (invariant 332)
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

    def _forget_person(self, who: str, about, tools: ToolRunner) -> str:
        """Invariant 332: every active fact about the person the request names is forgotten."""
        what = _yours(who)
        if not about:
            return f"I don't have anything about {what} on record, so there was nothing to forget."
        done = 0
        for h in about:
            res = tools.call("forget_memory", {"memory_id": h.id,
                                               "reason": "the user asked to forget this person"})
            done += int(res.ok)
        if not done:
            return f"I couldn't forget what I had about {what}."
        return (f"Done: I've forgotten everything I had about {what} "
                f"({done} {'memory' if done == 1 else 'memories'}). It is deleted for good.")

    def _deny(self, st: Statement, hits, tools: ToolRunner) -> str:
        if st.rule == "event:never-happened":
            # Invariants 369, 370: only the one event on record that names it is retracted
            event = event_fact(st, hits)
            if event is None:
                return ("I don't have that on record as a plan or trip, so there was nothing to "
                        "take back; I haven't noted anything.")
            res = tools.call("write_memory", {
                "kind": "retraction", "supersedes_id": event.id, "confidence": st.confidence,
                "reason": f"the user says this never happened: {st.clause}"})
            if not res.ok:
                return f"I couldn't take that back: {res.error}"
            return sentence(f"Understood: I had on record that {second_person(event.text)}. It never "
                            "happened, so I've taken it off your record")
        target = pick_target(st.target or "", hits, slot=st.slot)
        if target is None and st.slot == "verb:have" and len((st.target or "").split()) == 1:
            # "I have no kids" over "Has three children": one word, said another way (inv. 263)
            target = pick_target(st.target or "", hits, slot=st.slot, expand=True)
        if st.rule == "deny:not-x-y":
            # "Not a Tesla, a BYD Seal" (invariant 263): the true value takes the denied one's
            # place in the fact on record ("Drives a BYD Seal"); with no such fact, or a fact
            # that does not say the denied words, nothing is written.
            swapped = _swapped(target.text, st.target or "", st.text or "") if target else None
            if target is not None and swapped is not None and \
                    len(swapped.split()) <= len((st.text or "").split()) and re.search(
                        r"\b" + re.escape(st.target or "") + r"\b", target.text.split(",")[0]):
                # Invariant 354: the denied name opened the fact ("Orkney wind farm survey from
                # July 14 ..."): the true one takes its place in the fact's first clause, never
                # the bare name alone
                head = re.split(r"[,;]", target.text)[0]
                swapped = re.sub(r"\b" + re.escape(st.target or "") + r"\b", st.text or "", head, count=1)
            if target is None or swapped is None:
                return ("I have nothing on record saying " + _yours(st.target or "that")
                        + ", so there is nothing to correct.")
            st = st.model_copy(update={"text": swapped, "fact_type": target.fact_type})
        elif target is None:
            if st.text:
                return self._write(st.model_copy(update={"act": "assert", "harsh": False}), hits,
                                   tools)
            return ("I have nothing on record saying " + _yours(st.target or "that")
                    + ", so there is nothing to take back.")
        old = second_person(target.text)
        split = _split_item(target.text, st.target or "")
        rest, gone_value = split if split else (None, None)
        if rest and not st.text and target.state == "active":
            # Invariant 245: "I'm not allergic to shellfish" over "allergic to peanuts and
            # shellfish" denies one item: the rest stays true and in force at once (a natural
            # supersession; a harsh one would hold it back as a restatement, invariant 62)
            res = tools.call("write_memory", {
                "kind": "fact", "text": rest, "fact_type": target.fact_type,
                "confidence": st.confidence, "supersedes_id": target.id,
                "contradiction": "natural", "never_true": gone_value,
                "reason": f"the user says part of this was never true: {st.clause}"})
            if res.ok and res.writes and res.writes[0].status == "applied":
                gone = _yours(st.target or "that")
                gone = gone if re.match(r"^(?:your|the|that|allergic)\b", gone) else "the " + gone
                dead = " and won't bring it back" if res.writes[0].tombstone_id else ""
                return sentence(f"Corrected: {second_person(rest)}, and nothing more; I've taken "
                                f"{gone} off your record{dead}")
            return self._said(res, st) or ""
        if st.text and st.rule == "deny:not-there" and " lives in " in st.text:
            # invariant 256: "my sister isn't in Bangalore, she's in Hyderabad" keeps what the
            # record says of her (name, job) with the place put right
            was, now = (st.target or "").split(None, 1)[-1], st.text.split(" lives in ", 1)[1]
            if was and was in target.text:
                st = st.model_copy(update={"text": target.text.replace(was, now)})
        if st.text and target.state == "active" and not _incomplete(st.text):
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

    def _higher_claim(self, st: Statement, old, tools: ToolRunner) -> str:
        """Invariant 387: "I don't have Senator, I have HON Circle": the status on record was never
        true and is retracted; the higher one claimed instead waits for review."""
        res = tools.call("write_memory", {
            "kind": "retraction", "supersedes_id": old.id, "confidence": st.confidence,
            "reason": f"the user says this was never true: {st.clause}"})
        if not res.ok:
            return f"Before I remove that {second_person(old.text)} for good, please confirm it was never true."
        said = self._said(tools.call("write_memory", {
            "kind": "fact", "text": st.text, "fact_type": st.fact_type, "confidence": min(st.confidence, 0.55),
            "reason": st.clause}), st)
        return (f"Understood: I had on record that {second_person(old.text)}. That was never true, so I've "
                f"removed it. {said}").strip()

    def _substitute(self, st: Statement, hits, tools: ToolRunner, message: str = "") -> str:
        """Invariants 375, 376: the one active fact that says the old part ("GKE", "twelve …
        bulbs") takes the new one in its place, a natural change; with no such fact, or more
        than one, nothing is written."""
        old = st.previous or ""
        rewritten = {}
        for h in _unique(hits):
            if h.kind != "semantic" or h.state != "active":
                continue
            if st.rule == "swap:count":
                new = replace_count(h.text, st.text or "", old, st.target or st.clause)
            elif st.rule == "swap:aligned":
                new = aligned_value(h.text, old, st.target or "")
            elif st.rule == "swap:verb":
                new = replace_object(h.text, st.target or "", old, st.text or "")
            else:
                new = replace_value(h.text, old, st.text or "")
                if new and not about_the_fact(st.target or "", h.text, old):
                    new = None  # invariant 400: "changed trains from Leeds to York" is no move
            if new and new != h.text:
                rewritten[h.id] = (h, new)
        if len(rewritten) > 1:
            # two facts say the old part ("15 kg hold bags", "pets up to 8 kg"): the one sharing
            # most of the user's other words is meant, when one does
            # (the whole message counts: "Christmas plans have changed. We're going to …")
            topic = terms(f"{st.target or st.clause} {message}") - terms(old) - terms(st.text or "")
            fit = {i: len(topic & terms(h.text)) for i, (h, _) in rewritten.items()}
            best = max(fit.values())
            if best and list(fit.values()).count(best) == 1:
                rewritten = {i: v for i, v in rewritten.items() if fit[i] == best}
        if not rewritten and st.text:
            # said again: the fact already holds the new part ("up to fifteen Hue bulbs" twice)
            have = [h for h in _unique(hits) if h.kind == "semantic" and h.state == "active"
                    and terms(st.text) and terms(st.text) <= terms(h.text)
                    and (st.rule == "swap:count" or (terms(st.target or "") - terms(st.text)) & terms(h.text))]
            if len(have) == 1:
                return sentence(f"I already have that: {second_person(have[0].text)}")
        if len(rewritten) != 1:
            what = "that" if st.rule == "swap:count" else f"“{old}”"
            return (f"I have nothing on record saying {what}, so I haven't changed anything."
                    if not rewritten else
                    f"More than one of your memories mentions {what}, so I haven't changed any of them.")
        target, text = next(iter(rewritten.values()))
        res = tools.call("write_memory", {
            "kind": "fact", "text": text, "fact_type": target.fact_type,
            "confidence": st.confidence, "supersedes_id": target.id, "contradiction": "natural",
            "valid_from": _iso(st.valid_from), "reason": st.clause})
        return self._said(res, st)

    def _swap(self, st: Statement, hits, tools: ToolRunner) -> str:
        """Invariant 350: the one fact on record that says the wrong date word about what the
        user names takes the right word in its place: a correction (harsh, never true) unless
        hedged, when it is a natural change left for review at its low confidence."""
        wrong, right, about = st.previous or "", st.text or "", terms(st.target or "")
        fits = [(len(about & terms(h.text)), h) for h in _unique(hits)
                if h.kind == "semantic" and h.state == "active" and about & terms(h.text)
                and swap_into(h.text, wrong, right)]
        best = max((n for n, _ in fits), default=0)
        top = [h for n, h in fits if n == best]
        if len(top) != 1:
            return (f"I have nothing on record saying {wrong} about that, so I haven't changed "
                    "anything.")
        target = top[0]
        res = tools.call("write_memory", {
            "kind": "fact", "text": swap_into(target.text, wrong, right, cut=st.harsh), "fact_type": target.fact_type,
            "confidence": st.confidence, "supersedes_id": target.id,
            "contradiction": "harsh" if st.harsh else "natural", "reason": st.clause})
        return self._said(res, st)

    def _write(self, st: Statement, hits, tools: ToolRunner) -> str:
        if st.rule == "location:plan+only" and st.valid_from:
            homes = [h for h in _unique(hits) if h.kind == "semantic" and h.state == "active"
                     and "home" in slots_of(h.text, h.fact_type)
                     and (not st.previous or terms(st.previous) <= terms(h.text))]  # invariant 401
            if len(homes) == 1:
                # Invariant 358: a dated move said alone replaces the one home on record from
                # that date; the home stays true until then (valid time, invariant 4)
                res = tools.call("write_memory", {
                    "kind": "fact", "text": "Lives in " + (st.text or "").removeprefix("Moving to "),
                    "fact_type": "identity", "confidence": st.confidence, "supersedes_id": homes[0].id,
                    "contradiction": "natural", "valid_from": _iso(st.valid_from), "reason": st.clause})
                w = res.writes[0] if res.ok and res.writes else None
                if w is not None and w.status == "applied" and st.valid_from:
                    return sentence(f"Noted: {second_person(st.text or '')} on {st.valid_from:%-d %B %Y}; "
                                    f"until then {second_person(homes[0].text)}")
                return self._said(res, st)
        if st.rule.endswith("+followup") and st.harsh and st.previous and not any(
                h.kind == "semantic" and h.state == "active" and re.search(
                    r"(?<![\w'’])" + re.escape(st.previous) + r"(?![\w'’])", h.text, re.IGNORECASE)
                for h in hits):
            # Invariant 352: the slip ("Priya" for "Preeti") was never on record, so nothing is
            # retracted: the corrected message is written as if said right the first time
            st = st.model_copy(update={"act": "assert", "harsh": False, "previous": None,
                                       "target": None})
        st = _reslot(st, hits)
        if _incomplete(st.text or ""):
            # Invariant 204: a value cut short ("Mochi is", "Owns a") is a parse that lost its
            # words; a wrong write is worse than a missed one.
            return "I'm not sure I understood that fully, so I haven't noted it."
        if st.rule == "act:verb" and _occasion_only(st.clause):
            # Invariant 368: "my eyes go mad every time I visit my sister": the visit is only
            # when something else happens, a fragment of another clause, not a fact to keep
            return "I'm not sure that's something to keep on its own, so I haven't noted it."
        if "location:now-at" in st.rule and not (st.text or "").startswith("Works at "):
            # "Now at X" after leaving a place is kept only as a new employer (invariant 163)
            return "I'm not sure what that is to you, so I haven't noted it."
        old = pick_old(st, hits)
        if st.rule.startswith("level:"):
            # Invariants 385-391: a level replaces only the one fact holding a level of its kind
            settled = settle_level(st, hits)
            if settled is None:
                return "I can't tell which level on record that changes, so I haven't noted it."
            old, st, claimed_higher = settled
            if claimed_higher and old is not None:
                return self._higher_claim(st, old, tools)
        quit_one = re.match(r"^(?:has\s+given\s+up|no\s+longer\s+(?:owns|has|uses|takes|subscribes\s+to|"
                            r"plays|does))\s+(?:the\s+|my\s+)?(?P<x>.+)$", st.text or "", re.IGNORECASE)
        rest = _split_item(old.text, quit_one.group("x")) if old is not None and quit_one else None
        if rest is not None and old is not None and old.state == "active":
            # Invariant 298: one item of a list on record stopped ("cancelled Disney+" over
            # "Subscribes to Netflix and Disney+"): the rest is what holds now.
            st = st.model_copy(update={"text": rest[0]})
        if st.rule.startswith("end:"):
            # Invariant 382: a medicine, condition or tool that ended replaces only the one
            # active fact naming it; with none on record nothing is written (invariant 141)
            old = ended_fact(st.previous or "", old, hits)
            if old is None:
                return "That ends something I have nothing on record about, so I haven't noted it."
        if st.rule == "pref:come-round":
            # Invariant 380: "I've come round to mushrooms" replaces only a dislike naming them
            old = old if old is not None and DISLIKE.search(old.text) and names_liked(
                st.previous or "", old.text) else None
            if old is None:
                st = st.model_copy(update={"act": "assert", "previous": None})
        if st.rule == "third:not-any-more" and old is not None and not (
                terms(st.text or "") - terms(st.previous or "") - terms("no longer is")) & terms(old.text):
            # Invariant 274: a fact about them that shares what stopped, never just their name
            old = None
        if st.rule == "third:moved":
            # Invariant 272: a relative's move replaces only where they live on record, never
            # the fact of who they are ("Sister is called Jess"); beside that fact it is written
            # as news about them ("Sister Jess lives in Glasgow").
            who = (st.previous or "").removesuffix(" lives")
            if old is not None and not ({"live", "lives", "based"} & set(_words(old.text))
                                        or "home" in slots_of(old.text, old.fact_type)):
                old = None
            if old is None:
                # Invariant 331: the fact naming them beside their relation that says where they
                # are ("His sister Anjali is a data scientist in Bangalore", "Her brother Jan
                # lived two streets away from her in Hamburg") is the one the move replaces
                old = _where_they_live(who, hits)
            kin = _relation_word(old.text) if old is not None else next(
                (r for h in hits if h.kind == "semantic" and h.state == "active"
                 and who and re.search(r"\b" + re.escape(who) + r"\b", h.text)
                 and (r := _relation_word(h.text))), None)
            if kin and old is not None:
                st = st.model_copy(update={"text": f"{cap(kin)} {st.text}"})
            elif kin:
                st = st.model_copy(update={"text": f"{cap(kin)} {st.text}", "act": "assert",
                                           "rule": "relation:moved"})
        if st.rule == "third:died" and st.previous:
            # Invariant 335: a named pet or person who died supersedes the one fact of having
            # them ("Has a labrador called Bruno"); a pair on record keeps the other ("Has two
            # guinea pigs, Salt and Pepper" -> "Has a guinea pig called Pepper"). Named only in
            # other facts ("Mochi has an EU pet passport"), the death is news of its own.
            who = st.previous
            naming = {h.id: h for h in hits if h.kind == "semantic" and h.state == "active"
                      and re.search(r"(?<![\w'’-])" + re.escape(who) + r"(?![\w'-])", h.text)}
            owned = [h for h in naming.values() if re.match(r"^(?:Has|Owns)\b", h.text)]
            old = owned[0] if len(owned) == 1 else next(iter(naming.values())) if len(naming) == 1 else None
            pair = re.match(r"^(?:Has|Owns)\s+(?:two|2)\s+(?P<k>[\w -]+?)s?,\s+(?P<a>[\w'’-]+)\s+and\s+"
                            r"(?P<b>[\w'’-]+)$", old.text) if old is not None else None
            if pair and who in (pair.group("a"), pair.group("b")):
                other = pair.group("b") if who == pair.group("a") else pair.group("a")
                st = st.model_copy(update={"text": f"Has a {pair.group('k')} called {other}"})
            elif old is None and naming:
                st = st.model_copy(update={"act": "assert", "rule": "people:died"})
        if st.rule == "people:moved-in":
            # Invariant 337: where that relative lived on record is what changes
            old = relative_fact((st.slot or "rel:").split(":")[1], hits)
            if old is not None and not re.search(r"\b(?:lives?|lived|living|based)\b", old.text):
                old = None
        if old is None and st.rule.startswith(("health:baby", "people:baby-named")):
            old = pregnancy_fact(hits)  # a birth ends "Is pregnant, due in February" (inv. 333)
        if st.rule == "people:promoted":
            # Invariant 338: the role inside the one fact naming them beside their relation
            role = (st.text or "").split(" is ", 1)[-1]
            fits = list({h.id: (h, t) for h in hits if h.kind == "semantic" and h.state == "active"
                         and _relation_word(h.text) and (t := reroled(h.text, st.previous or "", role))
                         }.values())
            if len(fits) != 1:
                return "That's about someone else and nothing I have on record, so I haven't noted it."
            old, st = fits[0][0], st.model_copy(update={"text": fits[0][1]})
        if st.rule == "people:their-work":
            # Invariant 338: only the fact that says where they work changes, said beside
            # their relation ("Partner Tom works in the office full time")
            old = their_work_fact(st.previous or "", hits)
            if old is None:
                return "That's about someone else and nothing I have on record, so I haven't noted it."
            kin_word = _relation_word(old.text)
            if kin_word:
                st = st.model_copy(update={"text": f"{cap(kin_word)} {st.text}"})
        if st.rule == "people:turned":
            # Invariant 337: the age inside the one fact naming them with an age
            fits = list({h.id: (h, t) for h in hits if h.kind == "semantic" and h.state == "active"
                         and (t := aged(h.text, st.previous or "", (st.text or "").rsplit(" ", 1)[-1]))
                         }.values())
            if len(fits) != 1:
                return "I don't have their age on record, so I haven't noted it."
            old, st = fits[0][0], st.model_copy(update={"text": fits[0][1]})
        if old is None and st.rule == "relation:event:died" and st.act == "assert":
            # Invariant 335: "my nan passed away" over "Her grandmother lives in Cork": the one
            # fact about that relative (any word for them) is superseded by the death
            old = relative_fact((st.slot or "rel::").split(":")[1], hits)
        if st.slot == "marital" and st.text == "Is separated":
            # Invariant 272: a break-up ("we broke up", read as "we separated") ends the partner
            # on record ("Partner is Alex"), not a marital status; it says who it was with.
            mate = next((h for h in hits if h.kind == "semantic" and h.state == "active"
                         and _relation_word(h.text) in _PARTNERS), None)
            if mate is not None:
                name = re.search(r"\b(?:is|called|named)\s+(?P<n>[A-Z][\w'’-]+)|"
                                 r"\b(?:partner|boyfriend|girlfriend|fianc[ée]e?)\s+(?P<m>[A-Z][\w'’-]+)",
                                 mate.text)
                mate_name = (name.group("n") or name.group("m")) if name else None
                old = mate
                st = st.model_copy(update={"text": f"Separated from {mate_name}" if mate_name
                                           else "Separated from partner", "act": "change"})
        if st.rule == "plan:cancelled":
            # Invariant 237: only a plan on record that names it is called off; nothing else
            want = terms(st.previous or "")
            old = next((h for h in hits if h.kind == "semantic" and h.state == "active" and want
                        and want <= terms(h.text)), None)
            if old is None:
                return ("I don't have that plan on record, so there was nothing to cancel; "
                        "I haven't noted anything.")
        if st.rule in ("plan:online", "plan:called-off"):
            # Invariants 370, 371: the event held online (or a trip called off by its place)
            # replaces only the plan on record naming it
            old = event_fact(st, hits)
            if old is None:
                return ("I don't have that plan on record, so there was nothing to change; "
                        "I haven't noted anything.")
        if st.rule == "plan:holiday":
            # Invariant 346: "we're staying in Belfast for Christmas" replaces only the plan on
            # record for the same holiday ("Back in Leeds for Christmas ..."), never another fact
            # naming it ("Smart plug for the Christmas tree lights"); with none it is a new plan
            occ = re.escape(st.previous or "")
            old = next((h for h in hits if h.kind == "semantic" and h.state == "active" and occ and re.search(
                r"(?:\b(?:for|over)\s+|^spending\s+)" + occ + r"\b(?!\s+(?:tree|lights?|presents?|part(?:y|ies)|"
                r"jumpers?|dinner|lunch|market|cards?|shopping|decorations?|bonus|shifts?|food|films?))",
                h.text, re.IGNORECASE)), None)
        if st.rule == "plan:pulled-out":
            # Invariant 346: only a plan on record naming it, an event or a dated one
            want = terms(st.previous or "")
            old = next((h for h in hits if h.kind == "semantic" and h.state == "active" and want
                        and want <= terms(h.text) and PLAN_EVENT.search(h.text)), None)
            if old is None:
                return ("I don't have that plan on record, so there was nothing to call off; "
                        "I haven't noted anything.")
        if st.rule == "health:cleared" and old is None:
            # Invariant 348: an allergy cleared ends the avoidance on record, or nothing
            return "That ends something I have nothing on record about, so I haven't noted it."
        if st.rule == "act:again":
            # Invariant 342: "I'm running again" replaces only what stopped it ("Can't run
            # because of a knee injury"), never a fact that only shares the verb
            old = old if old is not None and STOPPED.search(old.text) else None
            if old is None:
                st = st.model_copy(update={"act": "assert", "previous": None})
        if old is None and st.slot == "team":
            # Invariant 220: the job on record names the old team ("Senior backend engineer on
            # the platform team at Helio"): the move replaces that team inside it.
            for h in hits:
                moved = _reteamed(h.text, st.text or "") if (
                    h.kind == "semantic" and h.state == "active") else None
                if moved:
                    old, st = h, st.model_copy(update={"text": moved, "act": "change"})
                    break
        if old is None and st.rule == "own:home":
            # Invariant 322: a home bought replaces the one rented on record ("Rents a flat in
            # Shoreditch"), the one such fact
            rented = {h.id: h for h in hits if h.kind == "semantic" and h.state == "active"
                      and re.match(r"^rents\s+(?:a|an|the)\s+", h.text, re.IGNORECASE)}
            old = next(iter(rented.values())) if len(rented) == 1 else None
        if old is None and st.rule in ("own:has", "own:brought", "own:gift"):
            # Invariant 324: a thing the user wanted, now got, fulfils the wish on record
            old = _wish_met(st.text or "", hits)
        if st.rule == "med:dose":
            old, text = _dosed(st, hits)
            st = st.model_copy(update={"text": text})
        abstain = _ABSTAINS.match(st.text or "") if old is None else None
        if abstain:
            # Invariant 222: giving up eating, drinking or smoking something is what the user
            # does not do now, a constraint worth keeping even with no habit on record.
            verb, what = abstain.group("v").lower(), (abstain.group("x") or "").strip()
            said = {"eating": f"Does not eat {what}", "drinking": f"Does not drink {what}",
                    "smoking": "Does not smoke", "vaping": "Does not vape"}.get(verb, "Does not drink alcohol")
            # invariant 342: "gave up alcohol / booze / the drink" is not drinking alcohol
            st = st.model_copy(update={"text": said.strip(), "fact_type": "constraint",
                                       "act": "assert"})
        elif old is None and st.act == "change" and re.match(
                r"^(?:no\s+longer\s+(?:owns|has|likes|uses)|has\s+given\s+up|moved\s+away\s+from)\b",
                st.text or "", re.IGNORECASE):
            # Something that stopped, with nothing on record it ends: no fact to keep
            # ("binned the hub ages ago"); a wrong write is worse than a miss (invariant 141).
            return "That ends something I have nothing on record about, so I haven't noted it."
        if st.rule.endswith("+bare") and (old is None or "home" not in slots_of(old.text, old.fact_type)
                                          or _named_elsewhere(st.text or "", hits)):
            # "Leeds now" alone is a home only beside the one it replaces (invariant 163)
            return "I'm not sure what that place is to you, so I haven't noted it."
        if old is None and st.rule == "third:diagnosis" and _named_on_record(st.text or "", hits):
            pass  # "Pickle's been diagnosed with diabetes" beside "Has a cat called Pickle" (inv. 348)
        elif old is None and st.rule == "third:school" and _one_of_theirs(st.text or "", hits):
            pass  # "Aiko started university" beside "Has two kids, Aiko and Ren" (invariant 269)
        elif old is None and st.rule.startswith("third:"):
            # News about someone or something else is kept only as a change of what is on
            # record about them ("Jan lives in Lisbon now"), never as a new fact.
            return "That's about someone else and nothing I have on record, so I haven't noted it."
        known = already_known(st.text or "", hits)
        if known is not None and old is not None and known.id != old.id and st.rule == "own:gone" \
                and not re.match(r"^no\s+longer\b", known.text, re.IGNORECASE):
            # Invariant 320: a thing that ended is never "already known" from another fact
            # about it ("The Roborock only runs when nobody is home"): the ownership ends
            known = None
        if known is not None and st.rule.startswith("plan:") and st.valid_from and known.valid_from and \
                known.valid_from != st.valid_from:
            # Invariant 346: "booked Annecy for 20 to 24 October" beside last spring's "Trip to
            # Annecy from April 2 to April 5": another trip on other dates, not already known
            known = None
        if known is not None and st.act == "change" and names_as_rival(st.text or "", known.text):
            # "switched to Zigbee2MQTT" over "Uses ZHA rather than Zigbee2MQTT": the fact is
            # replaced, not already known (invariant 163).
            old, known = old or known, None
        if known is not None and st.act == "change" and _rival_of_kind(st.text or "", known.text):
            # "switched back to Neovim" over "Main editor is Zed; Neovim only on servers": the
            # fact names another editor, so it is replaced, not already known (invariant 215).
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
        renamed = re.match(r"^Name is (?P<n>\S.*)$", text or "") if old is not None and \
            st.slot == "noun:name" else None
        inner = re.search(r"\bname is (?P<n>[^\W\d_][\w'’-]*)(?=\s+and\b|,)", old.text) if renamed and \
            old is not None else None
        if renamed and inner:
            # Invariant 318: "call me Rav" over "His name is Ravi and he is a backend developer"
            # changes the name inside it; the rest of the fact stays (invariant 179)
            text = old.text[:inner.start("n")] + renamed.group("n") + old.text[inner.end("n"):]
        rerole = _reroled(old.text, text or "") if old is not None and st.slot == "job" else None
        if rerole:
            # Invariant 274: "I'm now a senior field service manager" over "Her name is Lena and
            # she is a field service manager at Nordwind": the role changes inside the fact,
            # the name and employer stay.
            text = rerole
        elif old is not None and st.rule == "work:promoted" and text and not re.search(
                r"\bat\s", text) and "employer" in slots_of(old.text, old.fact_type):
            # Invariant 221: a promotion keeps the employer on record ("Works as a data engineer
            # at Spotify" + "promoted to team lead" → "Works as a team lead at Spotify").
            at = re.search(r"\bat\s+(?P<e>[^,;()]+)", old.text)
            if at:
                text = f"{text} at {at.group('e').strip()}"
        if known is not None and old is not None and not away:
            # The fact on record already says it and the user only dated it ("vegetarian since
            # 2019"): the new version keeps the recorded wording, details included.
            text = old.text
        if old is not None and st.rule == "plan:moved-day":
            # invariant 254: the weekly thing on record keeps its words with the new day
            text = _redayed(old.text, text or "") or text
        if old is not None and st.rule in ("plan:rescheduled", "plan:moved"):
            # invariant 247: the plan on record keeps its words with the new date ("... at the
            # German embassy on 9 December 2026", not "Passport appointment on ...")
            text = _redated(old.text, text or "") or text
        shaped, wrong = shape(text or "", st.clause or None)
        if shaped is None:
            # Invariants 360-362: a garbled value (a dangling last word, a pronoun naming
            # nothing) is not written; the reply says what could not be recorded.
            return sentence(f"I haven't noted “{text}”: {wrong}")
        text = shaped
        args = {"kind": "fact", "text": text, "fact_type": st.fact_type,
                "confidence": st.confidence, "valid_from": _iso(st.valid_from),
                "valid_to": _iso(st.valid_to), "reason": st.clause}
        if old is not None:
            args["supersedes_id"] = old.id
            args["contradiction"] = "harsh" if st.harsh else "natural"

        res = tools.call("write_memory", args)
        if st.rule == "plan:cancelled" and old is not None and res.ok and res.writes and \
                res.writes[0].status == "applied":
            return sentence(f"Noted: {second_person(text or '')}, so I won't count on it any "
                            f"more (it was: {second_person(old.text)}; kept as history)")
        return self._said(res, st)

    def _said(self, res, st: Statement) -> str:
        if not res.ok and "memory never keeps" in (res.error or ""):  # invariant 273
            return sentence("I haven't saved that: " + (res.error or "")[
                (res.error or "").index("memory never keeps"):])
        if not res.ok:
            if "Tombstone" in (res.error or ""):
                return ("You told me before that this was never true, so I haven't recorded "
                        f"“{st.text}”.")
            return f"I couldn't record that: {res.error}"
        w = res.writes[0] if res.writes else None
        if w is None:
            return ""
        new = second_person(w.text or "")
        if w.status == "duplicate" and "awaiting_review" in w.flags:  # invariant 214
            return (f"“{w.text}” is already waiting in the review queue for an operator to "
                    "confirm; until then I won't rely on it.")
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
        asks = [a for q in u.questions for a in _asks(_english(q))]
        for q in asks:
            if _ABOUT_ME.search(q):  # invariant 239: "what do you know about me?"
                said.append(_about_me(inp))
                continue
            q = _rephrase(q)  # "what do I do for a living?" asks for the job
            # "when did my night shifts end?": the version that ended, with its end (inv. 225)
            history = bool(_HISTORY_Q.search(q) or (_WHEN.match(q.strip()) and _ENDED.search(q)))
            window = None if history else _window(q, inp.today)
            # "do I still work nights?": the old versions too, to tell what stopped (inv. 224)
            still = bool(_YESNO.match(q.strip()) and _STILL.search(q))
            # "which laptop did I have at Parcelbird?", "my very first hub?" (invariant 226)
            still = still or bool(_PAST_Q.search(q))
            query, k, catalog = _question_query(q), 12, True
            if _belongings_q(q) and not history:  # invariants 171, 181: recall what is had
                # what the user has is never a help page: the whole window for their facts
                query, k, catalog = query + " has owns", MAX_HITS, False
                if _CATEGORY_Q.search(q):  # "what gear do I have?": everyday kinds (inv. 229)
                    query += " " + _THING_WORDS
            if window:  # invariant 225: what is planned, whatever it is called, on those days
                query, k = query + " " + _EVENT_WORDS + _days_said(window), MAX_HITS
            res = tools.call("recall_memory", {"query": query,
                                               "include_superseded": history or still,
                                               "include_catalog": catalog, "k": k})
            fixed = _correct(q, res.hits + list(inp.pre_recall.hits))
            if fixed != q:  # "keybaord": ask again with the word the memories spell (inv. 223)
                q = fixed
                res = tools.call("recall_memory", {"query": _question_query(q),
                                                   "include_superseded": history or still,
                                                   "include_catalog": catalog, "k": k})
            more: list = []
            if _belongings_q(q) and _CATEGORY_Q.search(q) and not history:
                # invariant 171: a listing of everything had, not only what shares the
                # category's words ("a Roborock" is a device without saying so)
                more = tools.call("recall_memory", {"query": "has owns bought got",
                                                    "include_superseded": False,
                                                    "include_catalog": False, "k": MAX_HITS}).hits
            hits = res.hits + more + list(inp.pre_recall.hits)
            said.append((_dated_answer(q, hits, window) if window else None)
                        or self._answer(q, hits, history))
        tools.record_tools((time.perf_counter() - started) * 1000, "recall for questions")
        intro = "From what you've told me: "
        return [("Also: " + a[len(intro):] if a.startswith(intro) and i and
                 said[i - 1].startswith(intro) else a) for i, a in enumerate(said)]

    def _answer(self, q: str, hits, history: bool) -> str:

        q = _rephrase(q)
        direct = _question_terms(q, synonyms=False)
        # The general lexicon's other words too ("allergic" ~ "allergy"), scored at half.
        want = _question_terms(q) | set(expansions(direct, 1.0))
        # "What's my partner's name?" is about the partner: a fact sharing only a generic word
        # ("name") does not answer it.
        focus = want - _GENERIC_Q if want - _GENERIC_Q else want
        # Invariant 228: the name of one of the user's people or pets said in lower case is
        # still that name ("who looks after mochi?"), never an ordinary word ("drive").
        asked_names = identifiers(q) | (_kin_names(hits) & frozenset(_words(q)))
        # Invariant 186: the question's own attribute, not a compound's word ("smart home hub",
        # "home airport", "work laptop") nor a verb beside another asked noun ("what shifts do
        # I work?"). "Where do I work?" is answered by "... a field service manager at Nordwind".
        asked_slots = _asked_slots(q, direct, asked_names)
        rels = _asked_relations(q)
        yesno = bool(_YESNO.match(q.strip()))
        content = direct - _LIGHT - _SLOT_VERBS - _GENERIC_Q - _TIMEY
        # "my flight got cancelled: what do I usually do?" asks for a routine (invariant 223)
        howto = bool(_HOWTO.search(q) or _ROUTINE.search(q))
        seen, facts, books, docs = set(), [], [], []
        if history:
            # A version of a chain answers with its chain: "Senior backend engineer at Helio"
            # shares no word with "where have I worked?", its successor "Works as ..." does.
            facts_in = [h for h in hits if h.kind == "semantic"]
            chained = {h.id for c in _chains(_unique(facts_in))
                       if any(want & focus & terms(m.text)
                              or asked_slots & answered_slots(m.text, m.fact_type) for m in c)
                       for h in c}
            facts = [h for h in _unique(facts_in) if h.id in chained]
            seen = {h.id for h in facts_in}
        # Invariant 181: what the user has or owns answers a question about belongings; it is
        # admitted, never a filter (the hub "is a Home Assistant Green" stays in the list).
        belongings = _POSSESSION if _belongings_q(q) and not history else frozenset()
        light = _LIGHT | _GENERIC_Q
        for h in hits:
            if h.id in seen:
                continue
            seen.add(h.id)
            # A name in the memory matches only a name in the question: "what do I drive?" is
            # not answered by "... backs up to Google Drive".
            overlap = want & (terms(h.text) - (identifiers(h.text) - asked_names))
            rel = relative_of(h.text) if h.kind == "semantic" else None
            if rel and not (terms(rel) & rels
                            or asked_names & identifiers(" x " + h.text)
                            or _names_said(q, h.text)):
                # invariant 180: about a relative, and the question is not; a name of the
                # memory said in lower case still names it ("who looks after mochi?", inv. 228)
                continue
            if h.kind == "semantic" and (history or h.state == "active") and (
                    overlap & focus or asked_slots & answered_slots(h.text, h.fact_type)
                    or _kind_hit(q, h.text) or (rels and _about(h.text, rels))
                    or (h.fact_type == "world"  # things, not an allergy or a tax number
                        and belongings & answered_slots(h.text, h.fact_type))):
                facts.append(h)
            elif h.kind == "procedural" and len(overlap - light) >= 2 and overlap & direct - light:
                books.append(h)
            elif (h.kind == "catalog" and len(overlap - light) >= 2 and overlap & direct - light
                  and howto):
                docs.append(h)
        # "on call": "call" is the asked thing here, not the generic "called"
        past = _past_scoped(q, hits, content | (direct & _stems("call")), asked_slots) \
            if _PAST_Q.search(q) and not yesno else None  # a yes/no: invariant 189
        if past:
            return past
        told = _history(facts, direct, asked_slots, q, content) if history else None
        if told:
            return told
        stopped = _no_longer(q, direct - _LIGHT - _GENERIC_Q - _FILLER, asked_names, hits) if yesno and _STILL.search(q) else None
        if stopped:
            return stopped
        if history:  # no version changed: what is on record now answers
            facts = [h for h in facts if h.state == "active"]
        people = frozenset(n for n in asked_names & direct if not any(c.isdigit() for c in n))
        slotted = [h for h in facts if asked_slots & answered_slots(h.text, h.fact_type)]
        if yesno and asked_slots & _SINGLE and slotted and not rels and not (
                asked_names & _kin_names(hits)):  # "is Tom still working from home?" (inv. 228)
            # Invariant 189: "do I still work at Parcelbird?" is answered by the employer on
            # record: a single-valued attribute holding something else is a no.
            return _yes_no(content, q, slotted[:3], [_said_now(h, q) for h in slotted[:3]],
                           single=True)
        if howto and (books or docs):
            # Invariant 186: a how-to question is answered by what worked before and the help
            # page; the user's own facts come first only when they hold every asked word
            # ("how do I back up Home Assistant?": it backs up nightly to Google Drive).
            mine = [h for h in facts if content and content <= terms(h.text) | identifiers(h.text)]
            if mine:
                intro = sentence("From what you've told me: " + join([_said_now(h, q)
                                                                    for h in mine[:2]]))
                return intro + " " + self._howto(books, docs)
        else:
            named = [h for h in facts if people & identifiers(" x " + h.text)]
            if named:  # "where does Tom work?": the memories about Tom, not every job
                facts = named
            elif yesno and not all(_held(n, _names_in(facts)) for n in people):
                # Invariant 187: "Is Jonas my team lead?" with no Jonas on record: nothing
                # answers it, whatever else the lead is.
                facts = []
            if rels and not named:
                # Invariant 187: a question about a relative ("where does my sister live?") is
                # answered by what is on record about that relative, never by the user's own
                # facts; with nothing about them, nothing answers.
                facts = [h for h in facts if _about(h.text, rels)]
                now = [h for h in facts if not _WAS.search(h.text)]
                if now:  # invariant 228: "who's my team lead?" is the lead now, not a past one
                    facts = now
            else:
                slotted = [h for h in facts if asked_slots & answered_slots(h.text, h.fact_type)]
                if slotted:  # "where do I live?" is answered by where you live, nothing else
                    facts = slotted
                elif asked_slots:
                    # Invariant 180: nothing on record fills the attribute asked for ("what is
                    # my address?" after it was forgotten): only a memory holding a word the
                    # user said answers; "your brother lives in Oslo" shares only a synonym.
                    facts = [h for h in facts if direct & focus & terms(h.text)]
                head = _head_noun(q)
                if head and not asked_slots and not any(_names_head(head, q, h.text)
                                                        for h in facts):
                    # Invariant 227: "what's my home airport?" with no airport on record:
                    # a memory sharing only "home" is no answer; nothing on record is.
                    facts = []
            if belongings and _CATEGORY_Q.search(q):
                # invariant 171: every thing had, from all that was recalled; none: no answer
                facts = _category_listing(q, _unique(hits))
            elif belongings and _names_a_kind(q):
                # invariant 241: "what pets do I have?" is answered by pets, never by whatever
                # else is had; with no pet on record, nothing answers
                facts = [h for h in facts
                         if (_kind_hit(q, h.text) or (direct - _LIGHT - _GENERIC_Q) & terms(h.text))
                         and (_POSSESSION & answered_slots(h.text, h.fact_type)
                              or _USES.match(h.text) or _THING_IS.match(h.text))
                         and not _NOT_HAD.match(h.text)]
            if facts and not _ABOUT.search(q) and not (belongings and _CATEGORY_Q.search(q)):
                # Invariant 186: the memories that answer best, not every one sharing a word:
                # "what shell do I use?" is the fish shell, not everything else you use.
                # The user's own name for an asked thing ("the robot vacuum" is "the Roborock"
                # of "Has a Roborock S8 robot vacuum") counts as asked.
                sources = {h.id for h in facts if len(direct & terms(h.text) - _LIGHT) >= 2}
                alias = frozenset().union(*(identifiers(h.text) for h in facts
                                            if h.id in sources)) - asked_names
                scores = {h.id: _score(h, q, direct, want, asked_slots, asked_names)
                          + (h.id not in sources and bool(alias & identifiers(h.text)))
                          # "who looks after Pip?" asks for a person: a memory naming one of
                          # the user's people other than the asked ones (invariant 228)
                          + 2 * bool(_WHO.match(q) and _kin_names([h]) - asked_names)
                          for h in facts}
                best = max(scores.values())
                # Half a point short still answers when it holds a word the user said; a
                # synonym alone never does ("shell" ~ "terminal" is not the Gruvbox theme).
                facts = [h for h in facts if scores[h.id] >= best or (
                    scores[h.id] >= best - 0.5 and direct & terms(h.text) - _LIGHT)]
            names = _user_names(hits)
            listing = [_said_now(h, q, names) for h in facts[:6]]
            if listing:
                if yesno:
                    return _yes_no(content, q, facts[:6], listing)
                return sentence("From what you've told me: " + join(listing))
            if yesno:
                return "I have nothing on record that says so."
        return self._howto(books, docs)

    @staticmethod
    def _howto(books: list, docs: list) -> str:
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

    def _nothing(self, u: Understanding) -> str:
        if u.ignored and all(_hypothetical(c) for c in u.ignored):
            return ("That sounds like something you're considering rather than something that "
                    "happened, so I haven't recorded anything. Tell me once it's decided.")
        return ("I didn't understand anything in that to remember or answer, so I haven't "
                "recorded anything. If you told me something about yourself, try saying it "
                "plainly, e.g. “I live in Leeds” or “I switched from Zed to Helix”.")


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


def _history(facts: list, direct: set[str], asked: set[str], q: str = "",
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


# --- answering rules (invariants 186-189) ---------------------------------------------------
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
# Time words that only say "at present" ("late", "early", "days" are values, inv. 224).
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
# "do I still ...?", "is X still ...?", "... anymore?": asks whether something stopped (inv. 224)
_STILL = re.compile(r"\b(?:still|any\s?more|no\s+longer)\b", re.IGNORECASE)
# What the user does when something happens: a routine, answered like a how-to (inv. 223).
_ROUTINE = re.compile(r"\b(?:what\s+do\s+i\s+(?:usually\s+|normally\s+|typically\s+|generally\s+)?do\b(?!\s+for\s+(?:a\s+|my\s+)?(?:living|work|job))|"
                      r"what(?:'s|’s|\s+is)\s+my\s+(?:usual\s+)?(?:routine|fix|process|drill)|"
                      r"what\s+should\s+i\s+do|how\s+(?:do|can|should)\s+i)\b",
                      re.IGNORECASE)
# A question about what is on in some days (invariant 225).
_DATED_Q = re.compile(r"\b(?:coming\s+up|upcoming|planned|ahead|on\s+(?:today|tomorrow)|tomorrow|"
                      r"(?:this|next)\s+(?:week|weekend|month|year))\b", re.IGNORECASE)
# Everyday words an event can open with; anything else opening it is taken for a name.
_COMMON_START = frozenset("""passport visa dentist doctor hospital appointment meeting exam test
interview flight trip holiday vacation visit weekend wedding birthday party conference course
class lessons lesson surgery operation check-up checkup concert match race marathon booking
dinner lunch move moving annual family work team school""".split())
# A question set in the past: "was I", "did I have", "very first", "back in" (invariant 226).
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
# "when did my night shifts end?": asks when a replaced version stopped (invariant 225)
_ENDED = re.compile(r"\b(?:end|ended|stop|stopped|finish|finished)\b", re.IGNORECASE)
_WHEN = re.compile(r"^(?:(?:so|and|hey|ok|okay)[,!]?\s+)?(?:when|since\s+when|what\s+date)\b",
                   re.IGNORECASE)
# "when did I get Biscuit?" asks for a date; "when does the vacuum run?" for a habit.
_WHEN_DATE = re.compile(r"^(?:(?:so|and|hey|ok|okay)[,!]?\s+)?(?:since\s+when|what\s+date|when(?:'s|"
                        r"\s+(?:did|was|were|is|am|are|will|have|has)))\b", re.IGNORECASE)
# Invariant 239: a question about the user as a whole is answered from core memory.
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
        slots.add("employer")  # "what's my job?" is answered by "Works at Monzo" too (inv. 305)
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


def _user_names(hits) -> frozenset[str]:
    """Names the user's memories use past their first word ("a beagle called Biscuit")."""
    return frozenset(w.lower() for h in hits for w in re.findall(r"(?<=\s)[A-Z][a-z]+\b", h.text))


def _names_in(facts: list) -> frozenset[str]:
    return frozenset().union(*(identifiers(" x " + h.text) for h in facts))


def _rival_of_kind(new: str, known: str) -> bool:
    """The fact on record names another thing of the new value's kind (another editor, another
    phone): it holds the new value only beside a rival, so a switch replaces it (invariant 215)."""
    mine = {lx.KINDS[w] for w in _words(new) if w in lx.KINDS}
    have = set(_words(new))
    return any(lx.KINDS.get(w) in mine and w not in have for w in _words(known))


def _about_me(inp: AgentInput) -> str:
    """Invariant 239: the user as a whole — who they are and what must hold (the core memory
    chosen for the turn: identity first, then constraints), said to them, at most six."""
    order = {"identity": 0, "constraint": 1}
    items = sorted(inp.core_memory, key=lambda c: (order.get(c.fact_type, 2),
                                                   not re.search(r"\bname\s+is\b", c.text, re.I)))[:6]
    if not items:
        return "I don't have anything on record about you yet."
    return sentence("Here's what I know about you: " + join([_role(second_person(c.text))
                                                              for c in items]))


_NOT_ITEM = re.compile(r"^(?:always|never|often|usually|also|then|still|now|sometimes|is|are|was|"
                       r"were|has|have|had|got|gets|lives|works|uses|takes|carries|keeps|goes|"
                       r"she|he|they|it|her|his|their|so|but)\b", re.IGNORECASE)
_LIST_SPLIT = re.compile(r",\s*(?:and\s+)?|\s+and\s+|\s*&\s*", re.IGNORECASE)
_ITEM_HEAD = re.compile(r"^(.*\b(?:to|of|with|for|has|have|owns|uses|likes|loves|avoids|hates|"
                        r"dislikes|eats|takes|speaks|plays|a|an|the)\s+)(\S.*)$", re.IGNORECASE)


def _without_item(text: str, denied: str) -> str | None:
    """Invariant 245: a list fact without the one item a denial names ("Is allergic to peanuts
    and shellfish" less "shellfish" is "Is allergic to peanuts"); None when the fact lists
    nothing, or the denial names no single item of it. Pure."""
    split = _split_item(text, denied)
    return split[0] if split else None


def _split_item(text: str, denied: str) -> tuple[str, str] | None:
    """(the list fact without the denied item, the denied item said as a fact of its own:
    "Is allergic to shellfish", invariant 219), or None. Pure."""
    counted = re.match(r"^(?P<lead>(?:owns|has)\s+)(?:two|three|four|five|\d+)\s+[\w-]+,\s*(?P<rest>.+)$",
                       text.strip().rstrip("."), re.IGNORECASE)
    if counted:
        # "Owns two bikes, a Brompton and a Trek": the count goes with the item (inv. 219, 236)
        text = counted.group("lead") + counted.group("rest")
    parts = [p.strip() for p in _LIST_SPLIT.split(text.strip().rstrip(".")) if p.strip()]
    head = _ITEM_HEAD.match(parts[0]) if len(parts) >= 2 else None
    if head and re.search(r"\b(?:to|with|of)\s+$", head.group(1)):
        # "Allergic to penicillin and also to latex": the list's preposition said again
        parts = [parts[0]] + [re.sub(r"^(?:also\s+|too\s+)?(?:to|with|of)\s+", "", p, flags=re.IGNORECASE)
                              for p in parts[1:]]
    items = [head.group(2)] + parts[1:] if head else []
    if head is None or any(len(p.split()) > 3 or _NOT_ITEM.match(p) for p in items):
        return None  # not a short list of things ("... and always carries two EpiPens")
    want = terms(denied) - terms(head.group(1))
    hit = [i for i, item in enumerate(items) if want & terms(item)]
    if len(hit) != 1:
        return None
    kept = [item for i, item in enumerate(items) if i != hit[0]]
    lead = head.group(1)
    if re.match(r"^(?:a|an|the)\s", kept[0], re.IGNORECASE):
        lead = re.sub(r"\b(?:a|an|the)\s+$", "", lead, flags=re.IGNORECASE)  # "Has a cat and a dog"
    gone = items[hit[0]]
    gone_lead = (re.sub(r"\b(?:a|an|the)\s+$", "", head.group(1), flags=re.IGNORECASE)
                 if re.match(r"^(?:a|an|the)\s", gone, re.IGNORECASE) else head.group(1))
    return lead + join(kept), gone_lead + gone


_TEAM_IN = re.compile(r"\b(?P<prep>on|in|with)\s+the\s+(?P<team>[\w&'’-]+(?:\s+[\w&'’-]+){0,2}?)"
                      r"\s+team\b", re.IGNORECASE)


# "Has given up eating meat", "... drinking alcohol", "... smoking" (invariant 222); a thing that
# is not eaten or drunk ("eating out", "drinking with friends") is no abstinence.
_ABSTAINS = re.compile(r"^has\s+given\s+up\s+(?P<v>eating|drinking|smoking|vaping|alcohol|booze|the\s+booze)"
                       r"(?:\s+(?P<x>(?!out\b|in\b|with\b|at\b|late\b|alone\b|before\b|after\b)"
                       r"[\w'’ -]{2,40}?))?\s*$", re.IGNORECASE)


_PARTNERS = frozenset({"partner", "boyfriend", "girlfriend", "fiance", "fiancee", "fiancé",
                       "fiancée"})


def _reroled(known: str, said: str) -> str | None:
    """The job fact on record with its role replaced by the one said, when both roles end in the
    same noun ("field service manager" → "senior field service manager", "data engineer" →
    "senior data engineer"); None otherwise, or when the new role names its own employer. Pure."""
    new = re.match(r"^Works\s+as\s+(?:a|an)\s+(?P<r>[\w -]+?)$", said, re.IGNORECASE)
    if new is None:
        return None
    role = new.group("r").strip()
    head = role.split()[-1]
    old = re.search(r"\b(?P<art>a|an)\s+(?P<r>(?:[\w-]+\s+){0,4}?" + re.escape(head) + r")\b", known,
                    re.IGNORECASE)
    if old is None:
        lead = re.match(r"^(?P<r>(?:[\w-]+\s+){0,4}?" + re.escape(head) + r")\b(?=\s+(?:on|at|in|for|with)\b)",
                        known, re.IGNORECASE)  # "Senior backend engineer on the platform team ..."
        if lead is None or normalise(lead.group("r")) == normalise(role):
            return None
        return cap(role) + known[lead.end():]
    if normalise(old.group("r")) == normalise(role):
        return None
    art = "an" if role[:1].lower() in "aeiou" else "a"
    return known[:old.start()] + f"{art} {role}" + known[old.end():]


def _where_they_live(who: str, hits):
    """The one active fact that names `who` beside one of the user's relations and says where
    they live or are ("... lived ... in Hamburg", "... is a data scientist in Bangalore"), or
    None (invariant 331). Pure."""
    if not who:
        return None
    found = {h.id: h for h in hits if h.kind == "semantic" and h.state == "active"
             and re.search(r"\b" + re.escape(who) + r"\b", h.text) and _relation_word(h.text)
             and ({"live", "lives", "lived", "living", "based"} & set(_words(h.text))
                  or re.search(r"\bin\s+(?-i:[A-Z])[\w'’-]+\s*(?:[,;.]|$)", h.text))}
    return next(iter(found.values())) if len(found) == 1 else None


def _relation_word(text: str) -> str | None:
    """The user's relation a fact names first ("Sister is called Jess" → "sister"), or None.
    Another person's relation ("Tom's sister") is not the user's. Pure."""
    for m in re.finditer(r"[\w'’-]+", text):
        w = m.group(0).lower()
        if w in lx.RELATIONS and not re.search(r"['’]s\s*$", text[:m.start()]):
            return w
    return None


def _reteamed(known: str, said: str) -> str | None:
    """Invariant 220: a job fact naming one work team, with the team the user moved to put in
    its place ("... on the platform team at Helio" + "Works on the payments team" → "... on the
    payments team at Helio"); None when the fact is no job naming one team, or names this one.
    Pure."""
    new = re.search(r"\bon\s+the\s+(?P<team>.+?)\s+team\b", said, re.IGNORECASE)
    olds = list(_TEAM_IN.finditer(known))
    if new is None or len(olds) != 1 or not re.search(
            r"\b(?:works?|engineer|developer|manager|lead|analyst|designer|nurse|scientist|"
            r"consultant|at)\b", known[:olds[0].start()] + known[olds[0].end():], re.IGNORECASE):
        return None
    if re.match(r"^(?:his|her|their|my)\b|\bwas\b", known, re.IGNORECASE):
        return None  # someone else's team, or a past one ("His lead ... runs the routing team")
    team = new.group("team").strip()
    if normalise(team) == normalise(olds[0].group("team")):
        return None
    m = olds[0]
    return known[:m.start("team")] + team + known[m.end("team"):]


_MONTHS = (r"(?:January|February|March|April|May|June|July|August|September|October|November|"
           r"December)")
_NO_PREP = r"(?:(?!\b(?:on|in|from|between|for|at)\b)[^,;])*?"
_DATE_PHRASE = re.compile(r"\b(?:on|in|from|between|for)\s+" + _NO_PREP + r"\b" + _MONTHS +
                          r"(?:\s+\d{1,2}(?:st|nd|rd|th)?\b)?(?:,?\s+\d{4})?(?:\s+to\s+" + _NO_PREP +
                          r"\b" + _MONTHS + r"(?:\s+\d{1,2}(?:st|nd|rd|th)?\b)?(?:,?\s+\d{4})?)?")


def _named_on_record(text: str, hits) -> bool:
    """The name a statement opens with is a word of an active fact ("Has a cat called Pickle").
    Invariant 348."""
    name = (text.split() or [""])[0]
    return name[:1].isupper() and any(h.kind == "semantic" and h.state == "active"
                                      and name in re.findall(r"[\w'’-]+", h.text) for h in hits)


def _one_of_theirs(text: str, hits) -> bool:
    """The person a statement opens with is named in an active fact about the user's people
    ("Has two kids, Aiko and Ren", "Her son Leo ..."). Invariant 269."""
    name = (text.split() or [""])[0]
    if not name[:1].isupper():
        return False
    people = lx.RELATIONS | {"twins", "kids"}
    return any(h.kind == "semantic" and h.state == "active" and name in re.findall(r"[\w'’-]+", h.text)
               and {w.lower() for w in re.findall(r"[\w'’-]+", h.text)} & people for h in hits)


def _dosed(st: Statement, hits) -> tuple:
    """The one medicine fact a new dose changes and its new text: "statin" names "Takes 20mg
    atorvastatin at night" (a name ending in the word said), which becomes "Takes 40mg
    atorvastatin at night". With none or several, no fact and the words said. Invariant 266."""
    med = (st.previous or "").lower()
    dose = (st.text or "").split()[1] if len((st.text or "").split()) > 1 else ""
    found = {h.id: h for h in hits if h.kind == "semantic" and h.state == "active"
             and re.match(r"^(?:takes|is\s+on)\b", h.text, re.IGNORECASE)
             and any(w.lower().endswith(med) for w in re.findall(r"[\w-]+", h.text))}
    if len(found) != 1 or not med:
        return None, st.text
    old = next(iter(found.values()))
    text, n = re.subn(lx.DOSE, dose, old.text, count=1, flags=re.IGNORECASE)
    if not n:
        word = next(w for w in re.findall(r"[\w-]+", old.text) if w.lower().endswith(med))
        text = re.sub(r"\b" + re.escape(word) + r"\b", f"{dose} {word}", old.text, count=1)
    return old, text


_WISH = re.compile(r"^(?:wants|would\s+like|hopes\s+to\s+(?:get|buy)|plans\s+to\s+(?:get|buy)|is\s+saving\s+for)\s+"
                   r"(?:(?:a|an|some|to\s+(?:get|buy)\s+(?:a|an))\s+)(?P<x>[\w'’ -]+?)(?=\s+(?:for|in|on|under|at|by|"
                   r"after|before|so|because|that|which|to)\b|[,;.]|$)", re.IGNORECASE)


def _wish_met(text: str, hits) -> object | None:
    """The one wish on record ("Wants a leak sensor under the fridge") whose thing, its kind
    among the things people own, the new possession names ("Owns an Aqara leak sensor")."""
    got = terms(text)
    wishes = {h.id: h for h in hits if h.kind == "semantic" and h.state == "active"
              and (m := _WISH.match(h.text)) and terms(m.group("x")) and terms(m.group("x")) <= got
              and m.group("x").split()[-1].lower() in lx.THINGS | {w + "s" for w in lx.THINGS}}
    return next(iter(wishes.values())) if len(wishes) == 1 else None


def _swapped(old: str, denied: str, new: str) -> str | None:
    """The fact on record with the denied value replaced by the true one, its model words
    going with it ("Drives a Tesla Model 3", "Tesla", "BYD Seal" -> "Drives a BYD Seal");
    what followed it is dropped ("Is a nurse at St Thomas'" -> "Is a midwife"): kept, the
    new text would nearly restate the one it retracts and meet its tombstone (invariant 62).
    None when the fact does not say the denied words. Invariant 263. Pure."""
    m = re.search(r"(?P<art>\b(?:a|an)\s+)?\b" + re.escape(denied) + r"\b(?:\s+(?:(?-i:[A-Z0-9])[\w.+-]*|"
                  + "|".join(sorted(lx.MODEL_WORDS, key=len, reverse=True)) + r")\b)*", old, re.IGNORECASE)
    if m is None or not new.strip():
        return None
    art = "" if not m.group("art") else ("an " if re.match(r"[aeiou]", new, re.IGNORECASE) else "a ")
    return old[:m.start()] + art + new
_WEEKDAYS_RE = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"


def _redayed(old: str, new: str) -> str | None:
    """Invariant 254: "Takes cello lessons on Tuesdays with Ana" and "Cello lessons on Wednesdays"
    → "Takes cello lessons on Wednesdays with Ana": the weekday said on record replaced by the new
    one; None when the record names no weekday. Pure."""
    day = re.search(r"\b" + _WEEKDAYS_RE + r"\b", new, re.IGNORECASE)
    said = list(re.finditer(r"\b" + _WEEKDAYS_RE + r"\b", old, re.IGNORECASE))
    if day is None or len(said) != 1:
        return None
    return old[:said[0].start()] + day.group(0) + old[said[0].end():]


def _redated(old: str, new: str) -> str | None:
    """Invariant 247: a rescheduled plan's words on record with the new date put in place of the
    old one ("Going to Japan from 3 to 17 April" → "Going to Japan in October 2027"); None when
    either says no date. Pure."""
    when = re.search(r"\b(?:on|in)\s+(?:\d{1,2}\s+)?" + _MONTHS + r"(?:\s+\d{4})?\s*$", new)
    said = _DATE_PHRASE.search(old)
    if when is None or said is None:
        return None
    return old[:said.start()] + when.group(0).strip() + old[said.end():]


def _belongings_q(q: str) -> bool:
    """"What do I own?", "which gadgets have I got?", "list my devices" (invariants 171, 181)."""
    return bool(_BELONGINGS_Q.search(q) or _MY_CATEGORY.search(q))


def _category_listing(q: str, hits: list) -> list:
    """Invariant 171: a question about a broad category of belongings ("what devices do I
    have?") is answered by every active thing the user has or owns, in recall order, and for
    devices by what names a device ("... on a Pixel 8"); a pet is a belonging only for "stuff" /
    "things", never a device; "has had the vaccine" is no belonging."""
    living = bool(_LIVING.search(q))

    def had(h) -> bool:
        return not _NOT_HAD.match(h.text) and bool(_POSSESSION & answered_slots(h.text, h.fact_type))

    def named(h) -> bool:  # "Her work laptop is a MacBook Pro", "Her hub is a Home Assistant Green"
        m = _THING_IS.match(h.text)
        return bool(m and (m.group("w").lower() in lx.THINGS
                           or lx.KINDS.get(m.group("w").lower()) in _DEVICE_KINDS))

    def device(h) -> bool:  # a thing one can hold: "twelve Hue bulbs", not "Senator status"
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
    answer to "what suitcase do I travel with?" (invariant 223)."""
    m = re.match(r"^(?:(?:her|his|their|my|the)\s+)?((?:[\w'’-]+\s+){0,3}?[\w'’-]+)\s*(?:\bis\b|\bare\b|:)",
                 text.strip(), re.IGNORECASE)
    return bool(m and terms(m.group(1).split()[-1]) & direct)


def _score(h, q: str, direct: set[str], want: set[str], slots: set[str],
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


def _said_now(h, q: str, names: frozenset[str] = frozenset()) -> str:
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


def _dated(h) -> str:
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
    # A word the memory says another way counts as held ("jab" ~ "vaccine", invariant 224).
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


def _past_scoped(q: str, hits, content, slots: set[str] | frozenset[str] = frozenset()
                 ) -> str | None:
    """Invariant 226: a question about a past time ("which laptop did I have at Parcelbird?",
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


def _kin_names(hits) -> frozenset[str]:
    """Names the user's memories give their people and pets ("her brother Jan", "a beagle
    called Biscuit"), lower-cased."""
    return frozenset(m.group(1).lower() for h in hits if h.kind == "semantic"
                     for m in _KIN.finditer(h.text))


def _asks(q: str) -> list[str]:
    """Invariant 223: "which terminal and which shell do I use?" is two questions, each with
    the shared tail ("which terminal do I use?", "which shell do I use?"). Pure."""
    m = re.match(r"^(?P<pre>.*?\b)(?P<w>which|what)\s+(?P<a>[\w'’-]+)\s+and\s+(?:which|what)\s+"
                 r"(?P<b>[\w'’-]+)\s+(?P<tail>(?:do|did|does|am|is|are|have|i)\b.*)$", q, re.IGNORECASE)
    if not m:
        return [q]
    return [f"{m.group('pre')}{m.group('w')} {m.group('a')} {m.group('tail')}",
            f"{m.group('w')} {m.group('b')} {m.group('tail')}"]


# Invariant 223: a question in German, Portuguese, Spanish or French is read word by word
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


def _window(q: str, today) -> tuple[date, date] | None:
    """Invariant 225: the days a question about what is on asks for ("anything on tomorrow?",
    "any trips coming up?", "list my trips this year"), or None. Pure."""
    if not _DATED_Q.search(q) or re.search(r"\bhow\s+(?:many|much|long|often)\b", q, re.I):
        return None  # "how many flights can I take next year?" asks for a number
    # the most exact period said wins: "anything planned this weekend?" is the weekend
    said = min((re.sub(r"\s+", " ", x.group(0).lower()).removeprefix("on ")
                for x in _DATED_Q.finditer(q)), key=lambda w: _OPEN_WORDS.count(w.split()[0]))
    if said == "today":
        return today, today
    if said == "tomorrow":
        return today + timedelta(days=1), today + timedelta(days=1)
    if said.endswith("weekend"):
        sat = today + timedelta(days=(5 - today.weekday()) % 7 + (7 if said.startswith("next") else 0))
        return max(today, sat), sat + timedelta(days=1)
    if said.endswith("week"):
        start = today + timedelta(days=7 - today.weekday()) if said.startswith("next") else today
        return start, start + timedelta(days=6 - start.weekday())
    if said.endswith("month"):
        first = today.replace(day=1)
        if said.startswith("next"):
            first = (first + timedelta(days=32)).replace(day=1)
        last = (first + timedelta(days=32)).replace(day=1) - timedelta(days=1)
        return max(today, first), last
    if said.endswith("year"):
        year = today.year + (1 if said.startswith("next") else 0)
        return date(year, 1, 1), date(year, 12, 31)
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


def _dated_answer(q: str, hits, window: tuple[date, date]) -> str | None:
    """Invariant 225: what is on in the asked days: the user's active dated facts whose days
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
    events = sorted(named or events, key=lambda h: h.valid_from)
    if not events:
        # "anything on next week?" with nothing dated then: nothing is on record for those
        # days; another question naming days ("my salary next year?") goes to the other rules
        if not _EVENT_Q.search(q):
            return None
        # "what trips do I have planned?" asks about anything ahead, not a day (invariant 225)
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


def _correct(q: str, hits) -> str:
    """Invariant 223: a question word no memory spells, one slip from a word a recalled memory
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


def _no_longer(q: str, content, names: frozenset[str], hits) -> str | None:
    """Invariant 224: "do I still work nights?", "is the Homey still running the house?": when
    no current memory holds what is asked (its names, or else every asked word, the verb
    included: "work" and "nights", not a robot that never runs at night) and a replaced
    version does, the answer is no, with what holds now. None when a current memory holds it
    (the yes/no rules answer) or no version ever did."""
    named = frozenset(w for w in content if w in names)
    key = named or frozenset(content)
    if not key:
        return None
    facts = [h for h in _unique(hits) if h.kind == "semantic"]

    def holds(h) -> bool:  # a name is held as itself ("SmartThings" is not "smart")
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


def _yes_no(content, q: str, facts: list, listing: list[str], single: bool = False) -> str:
    verdicts = [_verdict(content, q, h.text, single) for h in facts]
    listing = [re.sub(r"^(No|The|A|An)\b", lambda m: m.group(1).lower(), said) for said in listing]
    for word, v in (("Yes", "yes"), ("No", "no")):
        keep = [said for said, got in zip(listing, verdicts, strict=False) if got == v]
        if keep:
            return sentence(f"{word}: " + join(keep))
    return sentence("I have nothing on record that says exactly that. What I do have: "
                    + join(listing[:2]))


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


_DANGLING = frozenset("""is are was were be been am has have had a an the to of with and or but in
at on for from by as than their his her my our your its that which who whose not no""".split())


def _incomplete(text: str) -> bool:
    """A value that ends on a word that needs one after it ("Mochi is", "Owns a", "Works at"):
    a parse that lost the value (invariant 204); "Runs" alone is whole. Pure."""
    words = re.findall(r"[^\W_][\w'’.-]*", text)
    # invariant 361: a capitalised last word is part of a name ("Listens to The The")
    return not words or words[-1] in _DANGLING


def _occasion_only(clause: str) -> bool:
    """The user's verb is said only as the occasion of something else ("I sneeze whenever I
    visit my aunt"): the clause has words before "every time / whenever" (invariant 368). Pure."""
    return bool(re.search(r"\S\s+(?:every\s+time|each\s+time|any\s+time|whenever)\s+(?:i|we)\b",
                          clause, re.IGNORECASE))


def _hypothetical(clause: str) -> bool:
    return bool(re.search(lx.HYPOTHETICAL, clause, re.IGNORECASE))


def _iso(d) -> str | None:
    return d.isoformat() if d else None


def _query(st: Statement) -> str:
    """What to recall to find the memory a statement is about."""
    if st.rule == "swap:date":  # invariant 350: what the date word is about, and the word
        return f"{st.target} {st.previous}"
    if st.rule in ("swap:value", "swap:aligned", "swap:count", "swap:verb"):  # invariants 375, 376, 395
        return f"{st.target or ''} {st.previous or ''}".strip()
    if st.rule == "location:plan+only":  # invariant 358: the home a dated move replaces
        return f"{st.text} lives home"
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
