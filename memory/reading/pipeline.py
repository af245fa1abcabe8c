"""The one reading of a message, shared by the chat agent and consolidation (invariant 535):
normalise -> clauses -> read each clause -> resolve against the user's facts -> policy.

Both offline paths call `read_message`; with a model configured, the model produces readings
and the same `resolve` decides what they change. Pure: the facts and the time are arguments.
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache

from pydantic import BaseModel

from ..slots import SLOTS, kind_of
from ..text import stem, term_set
from ..when import strip_dates
from .clauses import MAX_CHARS, clauses, normalise
from .links import linked_fact
from .model import FactRef, Operation, Reading
from .read import check_value, news_text, read_clause, taken_back
from .resolve import has_any, own_fact, resolve
from .tables import word_list, words

_VERDICTS = frozenset(stem(w) for w in "wrong true right correct mistake false not".split())


class MessageReading(BaseModel):
    text: str
    readings: list[Reading]
    operations: list[Operation]
    other_user: bool = False  # the message asks to read or write someone else's memory

    @property
    def unresolved(self) -> list[Reading]:
        """Denials and forget requests that name something, yet point at nothing on record (a
        bare "that's wrong" before its correction names nothing)."""
        pointed = " ".join(o.evidence for o in self.operations)
        if any(o.harsh for o in self.operations):
            return [r for r in self.readings if r.kind == "forget" and r.clause not in pointed]
        return [r for r in self.readings if (r.kind == "forget" or r.act == "deny")
                and r.clause not in pointed and term_set(r.target) - _VERDICTS]

    @property
    def questions(self) -> list[Reading]:
        return [r for r in self.readings if r.kind == "question"]

    @property
    def garbled(self) -> int:
        return sum(r.garbled for r in self.readings)


def read_message(message: str, now: datetime, facts: list[FactRef]) -> MessageReading:
    """Every clause of a message read and resolved. A message too long to read is read as
    nothing (the caller refuses it with a clear message first)."""
    text = normalise(message[:MAX_CHARS])
    patterns = words()["other_user"]
    assert isinstance(patterns, list)
    if any(re.search(p, text, re.IGNORECASE) for p in patterns):
        # scope is never the model's or the message's to choose (invariant 3): nothing is read
        return MessageReading(text=text, readings=[], operations=[], other_user=True)
    readings = _borrowed_targets(_pronouns(_after_sarcasm([read_clause(c, now)
                                                           for c in clauses(text)])))
    ops: list[Operation] = []
    touched: set[str] = set()
    withdrawn = any(r.reason == "forget request taken back" for r in readings) or any(
        taken_back(r.clause) for r in readings)
    for r in readings:
        for op in resolve(r, facts):
            if op.op == "forget" and withdrawn:
                continue
            if op.old_id and op.old_id in touched:
                # one change per fact per message: a whole reading of the change wins over an
                # ending or a link an operator would have had to confirm
                was = next(i for i, o in enumerate(ops) if o.old_id == op.old_id)
                if op.op == "retract" and ops[was].op == "supersede" and not ops[was].harsh:
                    # "I don't drink coffee. Never have.": never true outranks no longer true
                    ops[was] = op
                elif ops[was].op == "retract" and op.op == "supersede" and op.text and \
                        ops[was].status == "active":
                    # "I never lived in Dublin … I live in Bray": the denial and the right
                    # value are one correction (invariant 533)
                    unsure = "candidate" in (op.status, ops[was].status)
                    ops[was] = op.model_copy(update={
                        "harsh": True, "status": "candidate" if unsure else "active",
                        "evidence": f"{ops[was].evidence} {op.evidence}".strip()})
                elif ops[was].status == "candidate" and op.status == "active" or (
                        ops[was].status == op.status and _single(op) and not _single(ops[was])):
                    # (or a single-valued slot's change over a thing had); the date said
                    # with the first ("moved to Lisbon last month, he lives in Graça now")
                    ops[was] = op.model_copy(update={
                        "valid_from": op.valid_from or ops[was].valid_from})
                elif (ops[was].text or "").startswith("No longer") and op.op == "supersede" \
                        and op.text and not op.text.startswith("No longer"):
                    # "sold the moonlander, typing on a Glove80 now": what replaced it
                    ops[was] = op.model_copy(update={
                        "status": "candidate", "confidence": 0.6,
                        "valid_from": op.valid_from or ops[was].valid_from,
                        "evidence": f"{ops[was].evidence} {op.evidence}"})
                elif ops[was].valid_from is None and op.valid_from is not None and \
                        ops[was].op == op.op:
                    # "Callum and I broke up, he moved out last week": the date said with
                    # the second clause dates the one change
                    ops[was] = ops[was].model_copy(update={"valid_from": op.valid_from})
                continue
            if op.text and any(o.text == op.text for o in ops):
                continue
            if op.old_id:
                touched.add(op.old_id)
            ops.append(op)
    ops = _named_after(readings, ops)
    ops = _names_said(readings, ops)
    fixed = _not_that(readings, facts, ops)
    # a whole "X, not Y" correction replaces an unsure reading of the same fact
    ops = [o for o in ops if not any(f.old_id == o.old_id for f in fixed)] + fixed
    ops = _named_later(readings, ops)
    ops = _corrections(readings, _said_next(readings, facts, _ended_then(
        readings, _replacements(ops))))
    ops += _swaps(readings, facts, ops)
    ops = _dated_after(readings, ops, now, text)
    ops = _moved_here(readings, ops)
    return MessageReading(text=text, readings=readings, operations=[
        o for o in _unread_successor(readings, ops) if not (o.text and _UNSIGNABLE.search(o.text))])


# the last check of every text written (invariant 532): no "I", "you", doubled article or
# dangling function word in a fact the user would have to sign
_UNSIGNABLE = re.compile(r"\b(?:i|me|we|you)\b|(?-i:\b(?:my|our)\b)|\b(a|an|the)\s+(?:a|an|the)\b|"
                         r"\b(?:and|or|to|of|the|a|an|with|for|is|are|was|were)\s*$", re.IGNORECASE)


_SWAP = re.compile(r"\bfrom\s+(?:the\s+|my\s+|our\s+)?(?P<a>[\w.+'-]+(?:\s+[\w.+'-]+)?)\s+to\s+"
                   r"(?:the\s+|a\s+|an\s+)?(?P<v>(?-i:[A-Z0-9])[\w.+'-]*(?:\s+(?-i:[A-Z0-9])"
                   r"[\w.+'-]*)*)|(?P<v2>(?-i:[A-Z0-9])[\w.+'-]*(?:\s+(?-i:[A-Z0-9])[\w.+'-]*)*)"
                   r"\s+instead\s+of\s+(?:the\s+|my\s+)?(?P<a2>[\w.+'-]+(?:\s+[\w.+'-]+)?)|"
                   r"(?P<a3>[\w.+'-]+)\s*(?:→|->|=>)\s*(?P<v3>[\w.+'-]+)", re.IGNORECASE)


_ARRIVED = re.compile(r"^(?:and\s+)?(?:it|he|she|they|that)\s+(?:has\s+|had\s+)?(?:came|come|arrived|"
                      r"started|began|went in|was fitted|got fitted|was delivered|got delivered|"
                      r"came through|was born|happened|kicked in|went live)\b", re.IGNORECASE)


def _after_sarcasm(readings: list[Reading]) -> list[Reading]:
    """"yeah right, I totally love spending my weekend on taxes": what follows a sarcastic
    opener says the opposite of its words; nothing is read from it."""
    out = list(readings)
    for k in range(1, len(out)):
        if out[k - 1].clause.strip(" .,!?;:").lower() in word_list("sarcasm"):
            out[k] = out[k].model_copy(update={"kind": "nothing", "reason": "hypothetical or wish",
                                               "text": ""})
    return out


def _dated_after(readings: list[Reading], ops: list[Operation], now: datetime,
                 text: str = "") -> list[Operation]:
    """"I've got Global Entry now, it came through yesterday", "made ward sister, starting 4
    January", "moved the broadband to Sky. The switchover happened yesterday": a clause that says
    only when the thing just named arrived or began dates that thing; it is no fact of its own."""
    out = list(ops)
    for i, o in enumerate(out):  # said in the same clause, after a comma
        r = next((x for x in readings if x.clause == o.evidence), None)
        tail = o.evidence.rsplit(",", 1)[1].strip() if "," in o.evidence else ""
        if r is not None and r.when and tail and (_ARRIVED.match(tail) or _onset_only(tail, now)):
            # "remortgaged with Halifax …, completed in November": the tail is the date's
            out[i] = o.model_copy(update={"valid_from": o.valid_from or r.when,
                                          "text": _ONSET_TAIL.sub("", o.text or "") or o.text})
    for k, r in enumerate(readings[1:], 1):
        if r.when is None or not (_ARRIVED.match(r.clause.strip()) or _onset_only(r.clause, now)):
            continue
        prev = readings[k - 1].clause
        at = next((i for i, o in enumerate(out) if prev in o.evidence and o.valid_from is None
                   and o.op in ("write", "supersede")), None)
        if at is not None:
            out[at] = out[at].model_copy(update={"valid_from": r.when})
        if at is not None or _onset_only(r.clause, now):
            out = [o for o in out if o.evidence != r.clause]
    for k, r in enumerate(readings[1:], 1):
        # "I started eating fish again in September, so I'm pescatarian now": a change said
        # as the consequence of a dated one began when it did
        if r.when is None and readings[k - 1].when and not readings[k - 1].future and (
                _SO.match(r.clause.strip()) or re.search(
                    _SO.pattern + r"[\s,]+" + re.escape(r.clause.strip()[:24]), text, re.I)):
            out = [o.model_copy(update={"valid_from": readings[k - 1].when})
                   if o.evidence == r.clause and o.op == "supersede" and o.valid_from is None
                   else o for o in out]
    return out


_SO = re.compile(r"(?:and\s+)?(?:so|which means|that means|meaning|hence|therefore)\b",
                 re.IGNORECASE)


def _onset_only(clause: str, now: datetime) -> bool:
    """A clause that names a time and otherwise only says something began then ("starting 4
    January 🎉", "it starts 1 January", "effective Monday"): the onset words are data."""
    rest = strip_dates(clause, now)
    if rest.strip() == clause.strip():
        return False
    low = f" {rest.lower()} "
    for phrase in _onsets():
        low = re.sub(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", " ", low)
    left = [w for w in re.findall(r"[\w']+", low) if w not in word_list("function_words")
            and w not in word_list("pronouns")]
    return not left


@lru_cache(maxsize=1)
def _onsets() -> tuple[str, ...]:
    return tuple(sorted(word_list("onsets"), key=len, reverse=True))


_ONSET_TAIL = re.compile(r",\s*(?:completed|complete|starting|started|effective|from|since|"
                         r"happened|went live|kicked in)\s*$", re.IGNORECASE)


def _moved_here(readings: list[Reading], ops: list[Operation]) -> list[Operation]:
    """"I live in Kraków now, I moved here for work in March": the move said of "here" dates
    the home the message names; it is no second fact."""
    home = [i for i, o in enumerate(ops) if o.slot == "home" and o.valid_from is None
            and o.op in ("write", "supersede")]
    moved = [r for r in readings if r.when and not r.future and re.search(
        r"\bmoved\s+(?:\w+\s+)?(?:here|there)\b", r.clause, re.IGNORECASE)]
    if len(home) != 1 or len(moved) != 1:
        return ops
    out = [o for o in ops if o.evidence != moved[0].clause]
    at = out.index(ops[home[0]])
    out[at] = out[at].model_copy(update={"valid_from": moved[0].when})
    return out


def _swaps(readings: list[Reading], facts: list[FactRef],
           ops: list[Operation]) -> list[Operation]:
    """"Trying Holafly instead of Airalo from now on", "switched the bank from N26 to
    Revolut", "fish → nushell": the one fact on record that says the old value, with the new
    one in its place, for an operator to confirm (invariant 534). A fact another operation
    of the message already changes is left to it."""
    taken = {o.old_id for o in ops if o.old_id}
    said = {o.evidence for o in ops}
    out: list[Operation] = []
    for r in readings:
        m = _SWAP.search(r.clause)
        if m is None or r.kind == "question" or r.subject != "self" or any(
                r.clause in e for e in said):
            continue
        old = (m.group("a") or m.group("a2") or m.group("a3")).strip(" .,;:!?")
        new = (m.group("v") or m.group("v2") or m.group("v3")).strip(" .,;:!?")
        named = [f for f in facts if f.state == "active" and own_fact(f) and re.search(
            r"\b" + re.escape(old) + r"\b", f.text, re.IGNORECASE)]
        if len(named) != 1 or named[0].id in taken or check_value(new) or \
                new.lower() == old.lower():
            continue
        fact = named[0]
        taken.add(fact.id)
        out.append(Operation(op="supersede", old_id=fact.id, old_text=fact.text,
                             fact_type=fact.fact_type, status="candidate", confidence=0.6,
                             text=re.sub(r"\b" + re.escape(old) + r"\b", new, fact.text, count=1,
                                         flags=re.IGNORECASE),
                             evidence=r.clause, reason="a value said in place of one on record"))
    return out


_SUCCESSOR = re.compile(r"\b(?:now|instead|switched|these days|went back to|moved (?:on )?to|"
                        r"replaced|in its place)\b", re.IGNORECASE)


def _unread_successor(readings: list[Reading], ops: list[Operation]) -> list[Operation]:
    """"I stopped taking warfarin, the cardiologist switched me to apixaban": an ending is not
    whole when the message also names what came after and no reading took that in; an
    operator confirms (invariant 534)."""
    out = []
    for op in ops:
        if op.status == "active" and (op.text or "").startswith("No longer") and any(
                r.kind == "nothing" and r.reason == "no slot I can read" and r.subject == "self"
                and r.clause not in op.evidence and _SUCCESSOR.search(r.clause)
                for r in readings) or (op.status == "active" and (op.text or "").startswith(
                "No longer") and _SUCCESSOR.search(op.evidence)):
            op = op.model_copy(update={"status": "candidate", "confidence": 0.6,
                                       "reason": "an ending whose successor I could not read"})
        out.append(op)
    return out


_NAMED_THING = re.compile(r"^(?:(?:she|he|it) is |shes |hes |its )?(?P<v>an? [\w' -]{1,30}? "
                          r"(?:called|named) [\w'-]+)", re.IGNORECASE)


def _named_after(readings: list[Reading], ops: list[Operation]) -> list[Operation]:
    """"we adopted a second dog!! a rescue greyhound called Nala": the clause after a new
    thing that names it is that thing, in its own words."""
    out = list(ops)
    for prev, r in zip(readings, readings[1:], strict=False):
        m = _NAMED_THING.match(r.clause.strip())
        if not m or r.kind == "question":
            continue
        for i, o in enumerate(out):
            if o.evidence == prev.clause and o.op == "write" and o.slot in ("owns", "pet"):
                out[i] = o.model_copy(update={"text": f"Has {m.group('v')}",
                                              "evidence": f"{prev.clause} {r.clause}"})
    return out


_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'-]+")
_NAMES = r"(?P<n>[A-Z][\w'-]*(?:\s+(?:and|&|[A-Z0-9][\w'-]*)){0,3})"
_APPOSITION = re.compile(r",\s*(?P<a>(?:an?|the)\s+)?" + _NAMES + r"\s*(?:[,.!;(]|$)")
_LOW_APPOSITION = re.compile(r",\s*(?P<a>an?\s+)(?P<n>[\w-]+(?:\s+[\w-]+){0,3})\s*(?:[,.!;(]|$)")
_NAMED_LATER = re.compile(r"(?:\b(?:her|his|its|their) names? (?:is|are)|"
                          r"^(?:[\w'-]+\s+){0,3}(?:called|named)) " + _NAMES)
_NOT_NAMES = frozenset("I OK January February March April May June July August September "
                       "October November December Monday Tuesday Wednesday Thursday Friday "
                       "Saturday Sunday".split())


def _names_said(readings: list[Reading], ops: list[Operation]) -> list[Operation]:
    """A thing or a pet written without the name the user gave it: the name said beside it
    ("an air purifier for the bedroom, a Levoit"; "two cats from the shelter, Salt and
    Pepper") completes it; a name said in a later clause ("her name is Paprika") completes
    it for an operator to confirm."""
    clauses_ = [r.clause for r in readings]
    out = []
    for o in ops:
        if o.op not in ("write", "supersede") or o.slot not in ("owns", "pet") or not o.text \
                or _NAME.search(o.text) or o.evidence not in clauses_:
            out.append(o)
            continue
        last = o.text.split()[-1].lower()
        at = o.evidence.lower().find(last)
        m = _APPOSITION.search(o.evidence, at) if at >= 0 else None
        low = _LOW_APPOSITION.search(o.evidence, at) if at >= 0 and m is None else None
        if low and (re.search(r"\d", low.group("n")) or kind_of(o.text) and len(
                low.group("n").split()) >= 2) and not check_value(low.group("n")) and \
                not re.search(r"\bones?\b", low.group("n")):
            # "a new car last week, a hyundai ioniq 5": the make and model said beside it
            out.append(o.model_copy(update={"text": f"{o.text}, {low.group('a')}{low.group('n')}"}))
            continue
        if m and not set(m.group("n").split()) & _NOT_NAMES:
            art = m.group("a") or ""
            text = f"{o.text}, {art}{m.group('n')}" if art else f"{o.text} called {m.group('n')}"
            out.append(o.model_copy(update={"text": text}))
            continue
        i = clauses_.index(o.evidence)
        rest = o.evidence[o.evidence.find(",") + 1:].strip() if "," in o.evidence else ""
        # "adopted a cat last weekend, her name is Kaju": said after a comma, or a clause later
        later = next((m for c in [rest, *(r.clause for r in readings[i + 1:i + 3])]
                      if c and (m := _NAMED_LATER.search(c.strip()))), None)
        name = later.group("n") if later else ""
        if later and name and not set(name.split()) & _NOT_NAMES:
            out.append(o.model_copy(update={"text": f"{o.text} called {name}",
                                            "status": "candidate", "confidence": 0.6,
                                            "reason": "named in a later clause"}))
            continue
        out.append(o)
    return out


def _named_later(readings: list[Reading], ops: list[Operation]) -> list[Operation]:
    """"we got a second dog!!! rescue greyhound called Pickle": a thing written with no name
    of its own, in a message that goes on to name something, is not whole (invariant 534):
    an operator sees which name it has."""
    out = []
    for o in ops:
        if o.op == "write" and o.status == "active" and o.slot in ("owns", "pet") and \
                not _NAME.search(o.text or ""):
            later = " ".join(r.clause for r in readings[[r.clause for r in readings].index(
                o.evidence) + 1:]) if o.evidence in [r.clause for r in readings] else ""
            if any(w not in ("I", "OK") for w in _NAME.findall(later)):
                o = o.model_copy(update={"status": "candidate", "confidence": 0.6,
                                         "reason": "the message names it later"})
        out.append(o)
    return out


_IT_IS = re.compile(r"^(?:no,?\s+)?(?:it is|it was|that is|its)\s+(?:actually\s+)?"
                    r"(?P<v>(?:an?\s+|the\s+)?[\w .+'-]{2,40}?)\s*(?:[,;]|$)"
                    r"|^(?P<w>[\w .+'-]{2,30}?)\s+is the one\b", re.IGNORECASE)


def _corrections(readings: list[Reading], ops: list[Operation]) -> list[Operation]:
    """A denial and the right value said together are one correction (invariant 533): "that's
    wrong, I live in Cardiff" replaces the home harshly (it was never true); "the camera's not
    a Eufy, it's a Tapo" retracts the Eufy and writes the Tapo in the retracted fact's words.
    The right value said further on ("…, that's Tom's! mine is the 3rd of February"), after a
    comma ("I'm not lactose intolerant, the gastro says it's IBS") or as the user's own
    statement ("I'm not at Aviva, I'm at Admiral") is offered to an operator (invariant 534)."""
    out = list(ops)
    for i, r in enumerate(readings):
        retract = next((o for o in out if o.op == "retract" and o.evidence == r.clause), None)
        if r.act != "deny" and retract is None:
            continue
        nxt = readings[i + 1] if i + 1 < len(readings) else None
        if retract is None and nxt is not None and nxt.text:
            # the denial named nothing itself: the statement after it is its correction
            out = [o.model_copy(update={"harsh": True, "reason": "the user corrects a value"})
                   if o.evidence == nxt.clause and o.op == "supersede" else o for o in out]
            continue
        if retract is None or not retract.old_text:
            continue
        m = _IT_IS.match(nxt.clause.strip(" .!")) if nxt is not None else None
        if m is not None:
            value = (m.group("v") or m.group("w") or "").strip()
            text = _in_fact_words(retract.old_text, value, r.clause)
            if value and not check_value(value) and text and not value.endswith("'s") and not re.match(
                    r"(?:only|just|even|also|still)\b", value, re.IGNORECASE):
                # ("it's only peanuts" says which one it is, not a new value of the fact)
                was = re.match(r"(?:no,?\s+)?it was\b", nxt.clause.strip(), re.I) if nxt else None
                # "it was a rental" says what the denied thing was, not the slot's right value
                out.append(Operation(op="write", text=text, slot=retract.slot,
                                     fact_type=retract.fact_type, reason="the right value",
                                     status="candidate" if was else "active",
                                     confidence=0.6 if was else 0.9,
                                     evidence=nxt.clause if nxt else ""))
            continue
        instead = _said_instead(r, readings[i + 1:], retract, out)
        if instead is not None:
            out.append(instead)
    return out


_SAID_IT = re.compile(r"\b(?:says?|said|thinks?|told me|turns out|it was|it'?s|it is|mine is|"
                      r"mine's)\s+(?:it'?s\s+|it is\s+|it was\s+)?(?:actually\s+|really\s+)?"
                      r"(?P<v>(?:an?\s+|the\s+)?[\w .+'-]{2,40}?)"
                      r"(?:\s+all along|\s+actually|\s+instead)?\s*(?:[,;.!]|$)", re.IGNORECASE)


_SAID_BY_ME = re.compile(r"(?:i|i'm|im|i am|we|we're|mine)\b", re.IGNORECASE)


def _in_fact_words(old_text: str, value: str, denial: str = "") -> str:
    """The right value in the words of the fact it corrects: "Grew up in Dublin" denied as "I
    didn't grow up in Dublin, it was Galway" is "Grew up in Galway"."""
    said = {w.lower() for w in re.findall(r"[\w'-]+", denial)}
    names = [w for w in re.findall(r"[\w'-]+", old_text)[1:] if w[:1].isupper()
             and w.lower() in said]
    if value[:1].isupper() and len(names) == 1:
        return re.sub(r"\b" + re.escape(names[0]) + r"\b", value, old_text, count=1)
    named = re.match(r"^(?P<k>.{2,40}?) is ", old_text)
    verb = old_text.split()[0] if old_text.split() else ""
    if named:
        return f"{named.group('k')} is {value}"
    return f"{verb} {value}" if verb[:1].isupper() else ""


def _said_instead(denial: Reading, after: list[Reading], retract: Operation,
                  ops: list[Operation]) -> Operation | None:
    """What the user says is true instead of the fact they deny, later in the message or after
    a comma in the same clause; an operator confirms it (only ever a candidate)."""
    tail = denial.clause.split(",", 1)[1] if "," in denial.clause else ""
    pieces: list[tuple[str, Reading | None]] = [(tail, None)] if tail.strip() else []
    for later in after:
        if any(o.op == "retract" and o.evidence == later.clause for o in ops):
            break  # the next denial's own correction
        if later.act != "deny":  # a denial said twice ("I don't run, never did") is skipped
            pieces.append((later.clause, later))
    for piece, r in pieces:
        if r is not None and any(o.evidence == r.clause for o in ops):
            return None  # the statement is written already, in its own right
        m = _SAID_IT.search(piece)
        value = m.group("v").strip() if m else ""
        if value and not check_value(value) and term_set(value) - _PRO:
            named = re.match(r"^(?P<k>.{2,40}?) is ", retract.old_text or "")
            text = f"{named.group('k')} is {value}" if named else news_text(piece.strip())
            if text:
                return Operation(op="write", text=text, status="candidate", confidence=0.6,
                                 fact_type=retract.fact_type, evidence=piece.strip(),
                                 reason="said instead of a fact the user denies")
        if r is not None and r.subject == "self" and r.text and r.kind in (
                "nothing", "statement") and _SAID_BY_ME.match(r.clause.strip()):
            text = f"Is {r.text[:1].lower()}{r.text[1:]}" if re.match(
                r"(?:At|In|On|With|From)\b", r.text) else r.text  # "I'm at Admiral"
            return Operation(op="write", text=text, status="candidate", confidence=0.6,
                             fact_type=retract.fact_type, evidence=r.clause,
                             reason="said instead of a fact the user denies")
    return None


def _replacements(ops: list[Operation]) -> list[Operation]:
    """An ending followed by a new value in the same message is one replacement ("sold the
    Golf and picked up a Škoda", "gave up guitar, switched to ukulele"): the new value
    supersedes the fact that ended, which keeps its history (invariant 533)."""
    out: list[Operation] = []
    for op in ops:
        prev = out[-1] if out else None
        ended = [o for o in (prev, op) if o is not None and o.op == "supersede"
                 and (o.text or "").startswith("No longer")]
        new = [o for o in (prev, op) if o is not None and o.op == "write" and o.text]
        if prev is not None and len(ended) == 1 and len(new) == 1:
            # the new value replaces what ended, in either order ("I have a new insurance
            # with Allianz, so I don't use the card one any more"); unsure if either part was
            # ("sold the moonlander, typing on a Glove80 now")
            unsure = "candidate" in (ended[0].status, new[0].status)
            out[-1] = new[0].model_copy(update={
                "op": "supersede", "old_id": ended[0].old_id, "old_text": ended[0].old_text,
                "evidence": f"{prev.evidence} {op.evidence}",
                "status": "candidate" if unsure else "active",
                "confidence": 0.6 if unsure else new[0].confidence,
                "valid_from": new[0].valid_from or ended[0].valid_from})
            continue
        out.append(op)
    return out


_RUN = re.compile(r"(?<![.!?]\s)\b[A-Z][\w'&.+-]*(?:\s+(?:[A-Z0-9][\w'&.+-]*))*")
_THEN = re.compile(r"(?:(?:and\s+)?(?:went\s+)?back\s+to|now\s+(?:on|using|with)|switched\s+to|"
                   r"using|(?:and\s+)?(?:got|bought|picked\s+up|put)(?:\s+(?:an?|the|some))?(?=\s+\S+.*\b"
                   r"(?:instead|now|in its place)\b)|(?:is\s+)?trying\s+(?:me|us|him|her)\s+on|"
                   r"onto|on\s+to|(?:so\s+)?(?:it\s+is|it's|its)(?=\s+\S+.*\bnow\b)|they\s+go\s+to|"
                   r"it\s+goes\s+to)\s+(?P<v>[\w .+'-]{2,40}?)(?:\s+(?:instead|now|on it|in its "
                   r"place|yesterday|today|last \w+|this \w+))*\s*(?:[,;.!]|$)", re.IGNORECASE)
_FROM_TO = re.compile(r"\bfrom\s+(?:the\s+|my\s+|our\s+)?(?P<a>[\w.+'-]+(?:\s+[\w.+'-]+)?)\s+to\s+"
                      r"(?:the\s+|a\s+|an\s+)?(?P<v>[\w.+'-]+(?:\s+(?-i:[A-Z0-9])[\w.+'-]*)*)",
                      re.IGNORECASE)
_FACT_VERBS = frozenset("Has Uses Takes Drinks Eats Plays Drives Owns Runs Keeps Wears Reads "
                        "Watches Banks Rides Prefers Works".split())
_AND_THEN = re.compile(r",\s*(?:so\s+)?|\s+and\s+(?=(?:got|bought|picked|put|switched|went|now|onto)\b)|"
                       r"\s+(?=onto\b)", re.IGNORECASE)
_NOW = re.compile(r"\s+(?:now|these days|instead|from now on|anymore|full time)\b.*$", re.I)


def _said_phrase(said: str, fact: str) -> str:
    """The longest run of words of `said` that the fact says as they stand ("Google Drive"
    in "…backs up nightly to Google Drive"), naming something (a capitalised word in it)."""
    words_ = re.findall(r"[\w'.+-]+", said)
    best = ""
    for i in range(len(words_)):
        for j in range(len(words_), i, -1):
            run = " ".join(words_[i:j])
            if len(run) > len(best) and any(w[:1].isupper() for w in words_[i:j]) and \
                    words_[i].lower() not in _FUNCTION and re.search(
                        r"\b" + re.escape(run) + r"\b", fact, re.IGNORECASE):
                best = run
                break
    return best


def _ended_then(readings: list[Reading], ops: list[Operation]) -> list[Operation]:
    """"Ditched AeroSpace, plain Rectangle is enough for me"; "Mum left Córdoba, she's in
    Rosario now": what ended is replaced by the value the next clause names, in the old fact's
    own words, for an operator to confirm (invariant 534)."""
    clauses_ = [r.clause for r in readings]
    out = list(ops)
    for i, o in enumerate(out):
        if o.op != "supersede" or not (o.text or "").startswith("No longer") or not o.old_text \
                or o.evidence not in clauses_:
            continue
        k = clauses_.index(o.evidence)
        swap = _FROM_TO.search(o.evidence)
        if swap and re.search(r"\b" + re.escape(swap.group("a")) + r"\b", o.old_text, re.I) \
                and not check_value(swap.group("v")):
            # "switched our broadband from Zen to Sky": the old value in the fact's own words
            # gives way to the new one
            named = re.match(r"^(?P<k>.{2,40}?) is " + re.escape(swap.group("a")) + r"\b",
                             o.old_text, re.IGNORECASE)
            out[i] = o.model_copy(update={
                # "Broadband is Zen Full Fibre 900" -> "Broadband is Sky" (the rest was Zen's)
                "text": f"{named.group('k')} is {swap.group('v')}" if named else re.sub(
                    r"\b" + re.escape(swap.group("a")) + r"\b", swap.group("v"),
                    o.old_text, count=1, flags=re.IGNORECASE),
                "status": "candidate", "confidence": 0.6,
                "reason": "what replaced something that ended"})
            continue
        cut = _AND_THEN.search(o.evidence)
        tail = o.evidence[cut.end():].strip() if cut else ""
        head = o.evidence[:cut.start()] if cut and _THEN.match(tail) else o.evidence
        if _THEN.match(tail):  # "I don't use Helix anymore, back to Neovim"; "sold the LG
            nxt = tail          # monitor and got a Dell U2723QE instead"
        elif k + 1 >= len(readings) or any(p.evidence == clauses_[k + 1] for p in out):
            continue
        else:
            nxt = clauses_[k + 1].strip()
        m = _SAID_IT.search(nxt) or _THEN.match(nxt) or _THEN.search(nxt)
        new = [x for x in _RUN.findall(nxt) if x.lower() not in o.old_text.lower()
               and x not in ("I", "OK") and x.lower() not in head.lower()
               and x.lower() not in _FUNCTION]
        value = new[0] if new else _NOW.sub("", m.group("v")).strip() if m else ""
        old_words = [w for w in re.findall(r"[\w'.+-]+", head)
                     if w.lower() not in _FUNCTION and re.search(
                         r"\b" + re.escape(w) + r"\b", o.old_text, re.IGNORECASE)]
        if not value or check_value(value):
            continue
        said_old = _said_phrase(head, o.old_text)
        one = len(old_words) == 1 and len(re.findall(
            r"\b" + re.escape(old_words[0]) + r"\b", o.old_text, re.IGNORECASE)) == 1
        if one:
            said_old = old_words[0]
        if said_old and (one or re.search(r"\b" + re.escape(said_old) + r"\W*$", o.old_text,
                                          re.IGNORECASE)) and all(
                w.lower() in said_old.lower() for w in old_words if w[:1].isupper()):
            # "moved the HA backups off Google Drive, they go to Nabu Casa now": the words of
            # the old value the fact says, in its place the new one
            text = re.sub(r"\b" + re.escape(said_old) + r"\b", value, o.old_text,
                          flags=re.IGNORECASE)
        elif m is not None and _THEN.search(nxt) and o.old_text.split()[0] in _FACT_VERBS:
            # the old fact says its thing in more words than one: the successor in the
            # fact's own verb ("Has an LG 27 inch 4K monitor…" -> "Has a Dell U2723QE")
            said = _NOW.sub("", m.group("v")).strip()
            said = said if value in said else value
            if o.old_text.startswith(("Has ", "Owns ")) and not re.match(
                    r"(?:an?|the|some|two|\d)\b", said, re.IGNORECASE):
                said = ("an " if said[:1].lower() in "aeio" else "a ") + said
            text = _in_fact_words(o.old_text, said)
            if not text or check_value(said):
                continue
        else:
            continue
        out[i] = o.model_copy(update={"text": text, "status": "candidate", "confidence": 0.6,
                                      "evidence": o.evidence if nxt in o.evidence
                                      else f"{o.evidence} {nxt}",
                                      "reason": "what replaced something that ended"})
    return out


_HEADER = re.compile(r"\b(?:chang\w*|updates?|new|news|plans?)\b", re.IGNORECASE)


def _said_next(readings: list[Reading], facts: list[FactRef],
               ops: list[Operation]) -> list[Operation]:
    """What the clause after a mention says is the mention's news, for an operator (invariant
    534): "Christmas plan's changed: we're spending it at Amara's" (the change is said after
    its header); "Shut the N26 account down, everything runs through Millennium these days"
    (a change with nothing on record of its own, after a clause that names a fact)."""
    out = list(ops)
    said = {o.evidence for o in out}
    taken = {o.old_id for o in out if o.old_id}
    for k, r in enumerate(readings[:-1]):
        nxt = readings[k + 1]
        mine = next((i for i, o in enumerate(out) if o.evidence == r.clause), None)
        if mine is not None and out[mine].op == "supersede" and out[mine].status == \
                "candidate" and out[mine].text == r.text and len(r.text.split()) <= 4 and \
                _HEADER.search(r.text) and out[mine].reason.startswith("read without a slot") and \
                nxt.text and len(nxt.text.split()) >= 2 and nxt.clause not in said and \
                nxt.kind != "question":
            o = out[mine]
            head = re.match(r"new\s+(?P<k>[\w' ]{2,30})$", r.text, re.IGNORECASE)
            # "new coffee order: a cortado" -> "Coffee order is a cortado"
            text = f"{head.group('k')[:1].upper()}{head.group('k')[1:]} is " \
                f"{nxt.text[:1].lower()}{nxt.text[1:]}" if head and re.match(
                    r"(?:an?|the)\s", nxt.text, re.IGNORECASE) else nxt.text
            out[mine] = o.model_copy(update={
                "text": text, "evidence": f"{o.evidence} {nxt.clause}",
                "valid_from": o.valid_from or nxt.when})
            said.add(nxt.clause)
            continue
        if mine is None and len(r.clause.split()) <= 4 and has_any(r.clause, "dated_plans") \
                and nxt.text and nxt.when and nxt.future and nxt.subject == "self" and \
                nxt.clause not in said and nxt.kind == "nothing":
            # "New Year plan: Madeira with two friends from 30 December": the plan its header
            # names, dated by the clause after it
            out.append(Operation(op="write", text=nxt.text, status="candidate", confidence=0.6,
                                 valid_from=nxt.when, evidence=f"{r.clause} {nxt.clause}",
                                 reason="a dated plan said after its header"))
            said.add(nxt.clause)
            continue
        then = next((i for i, o in enumerate(out) if o.evidence == nxt.clause and o.op ==
                     "write" and o.status == "candidate"), None)
        if mine is None and then is not None and nxt.act == "change" and r.subject == "self":
            link = linked_fact(r.clause, [f for f in facts if f.state == "active"
                                          and f.id not in taken and own_fact(f)])
            if link is not None:
                out[then] = out[then].model_copy(update={
                    "op": "supersede", "old_id": link.id, "old_text": link.text,
                    "evidence": f"{r.clause} {nxt.clause}",
                    "reason": "a change said after a clause that names a fact on record"})
                taken.add(link.id)
    return out


def _borrowed_targets(readings: list[Reading]) -> list[Reading]:
    """"why do you think we have a smart meter?? we don't have one": a denial that names only
    "one" or "it" denies what the clause before it said."""
    out: list[Reading] = []
    for r in readings:
        # ("The Fontainebleau trip in September? I never went": a bare verb names nothing;
        # "fluent Spanish? … I don't speak a word of it": "it" is what was said before)
        if r.act == "deny" and out and (not term_set(r.target) - _VERDICTS - _PRO - _BARE or
                                        _POINTS_BACK.search(r.clause.strip(" .!?"))):
            # the thing asked about just before ("fluent Spanish? I wish. I don't…"), else
            # the clause before
            asked = next((p for p in reversed(out[-2:]) if p.kind == "question"), out[-1])
            r = r.model_copy(update={"target": asked.clause})
        out.append(r)
    return out


_BARE = frozenset(stem(w) for w in "went go gone did do done had have been happened happen "
                  "were was".split())
_POINTS_BACK = re.compile(r"\b(?:of|with|about|in|on|to)\s+(?:it|that|them|one)$", re.IGNORECASE)


def _single(op: Operation) -> bool:
    slot = SLOTS.get(op.slot or "")
    return bool(slot and slot.single)


_PRO = term_set("one it that this them those any", stop=frozenset())


def _pronouns(readings: list[Reading]) -> list[Reading]:
    """"she/he/they" is the person the message named just before (a relative or a named
    person), never the user (invariant 533)."""
    out: list[Reading] = []
    last: Reading | None = None
    for r in readings:
        if r.kind == "nothing" and r.reason == "no slot I can read" and last is not None and \
                r.text and re.match(r"(?:she|he|they)\b", r.clause.strip(), re.IGNORECASE):
            # "My sister Amara lives in Leeds. She just got engaged!": their news, unread
            who = " ".join(w for w in ((last.relation or "").capitalize(), last.person) if w)
            said = re.sub(r"^(?:she|he|they)\s+", "", r.text, flags=re.IGNORECASE)
            r = r.model_copy(update={"person": last.person, "relation": last.relation,
                                     "subject": last.subject, "text": f"{who} {said}"})
        elif r.reason == "a pronoun subject" and last is not None and r.text:
            who = " ".join(w for w in ((last.relation or "").capitalize(), last.person) if w)
            r = r.model_copy(update={"person": last.person, "relation": last.relation,
                                     "subject": last.subject, "reason": "",
                                     "text": f"{who} {r.text[:1].lower()}{r.text[1:]}"})
        elif last is not None and r.subject == "self" and r.kind == "statement" and \
                not _FIRST_PERSON.search(r.clause):
            # "Anjali got promoted. still refuses to use vim": a clause with no subject of its
            # own, after someone else's news, is theirs, not the user's
            r = r.model_copy(update={"kind": "nothing", "reason": "about someone else",
                                     "subject": "other"})
        if r.person or r.relation or r.subject in ("other", "relative"):
            last = r
        elif (kin := _MY_KIN().findall(r.clause)) and len(set(kin)) == 1:
            # "I'm a carer for my mum. She has dementia.": the one relative the user named
            last = Reading(clause=r.clause, subject="relative", relation=kin[0].lower())
        elif _FIRST_PERSON.search(r.clause):
            last = None
        out.append(r)
    return out


@lru_cache(maxsize=1)
def _MY_KIN() -> re.Pattern[str]:  # noqa: N802 - a pattern built once from the table
    rel = "|".join(re.escape(w) for w in sorted(word_list("relations"), key=len, reverse=True))
    return re.compile(r"\b(?:my|our)\s+(" + rel + r")\b", re.IGNORECASE)


_FIRST_PERSON = re.compile(r"\b(?:i|me|my|we|our|us|mine)\b", re.IGNORECASE)


_NOT_THAT = re.compile(r"^(?P<new>.{2,80}?),?\s+not\s+(?:the\s+|a\s+|an\s+|on\s+|in\s+)?"
                       r"(?P<old>[\w'-]+(?:\s[\w'-]+)?)\s*(?:[,.!?;]|$)", re.IGNORECASE)
_FUNCTION = frozenset("a an the my our her his their of on in at to for is are was were it "
                      "that this and i we me".split())


def _not_that(readings: list[Reading], facts: list[FactRef],
              ops: list[Operation]) -> list[Operation]:
    """"The sensors take CR2032 batteries, not CR1632": the value on record was never right
    (invariant 533). The fact that says the old value is corrected in its own words, the new
    value in place of the old one, as a harsh supersession (a retraction with its value)."""
    taken = {o.old_id for o in ops if o.old_id and o.status == "active"}
    # "small change for Christmas: …the 29th, not the 28th": a change, not a value never true
    changed = any(re.search(r"\bchang(?:e|ed|es|ing)\b", x.clause, re.IGNORECASE) for x in readings)
    out: list[Operation] = []
    for r in readings:
        m = _NOT_THAT.match(r.clause.strip())
        if not m or r.kind == "question":
            continue
        if re.search(r"\b(?:is|am|are|was|were|do|does|did|have|has|had|will|would)$",
                     m.group("new").strip(), re.IGNORECASE):
            continue  # "my birthday is not in August": a negated statement, not "X, not Y"
        old = m.group("old").strip()
        digits = re.sub(r"(?<=\d)(?:st|nd|rd|th)\b", "", old)
        fact = next((f for f in facts if f.state == "active" and f.id not in taken and (
            re.search(r"\b" + re.escape(old) + r"\b", f.text, re.IGNORECASE)
            or (digits != old and re.search(r"\b" + re.escape(digits) + r"\b", f.text)))), None)
        if fact is None:
            continue
        have = {w.lower() for w in re.findall(r"[\w'-]+", fact.text)}
        runs: list[list[str]] = [[]]
        for w in re.findall(r"[\w'-]+", m.group("new")):  # the last run of words not on record
            if w.lower() not in have and w.lower() not in _FUNCTION:
                runs[-1].append(w)
            elif runs[-1]:
                runs.append([])
        fresh = next((run for run in reversed(runs) if run), [])
        if not fresh or len(fresh) > 3:
            continue
        new = " ".join(fresh)
        said = old if re.search(r"\b" + re.escape(old) + r"\b", fact.text, re.IGNORECASE) \
            else digits
        text = re.sub(r"\b" + re.escape(said) + r"\b", new, fact.text, count=1,
                      flags=re.IGNORECASE)
        if check_value(new) or text == fact.text:
            continue
        taken.add(fact.id)
        out.append(Operation(op="supersede", text=text, old_id=fact.id, old_text=fact.text,
                             fact_type=fact.fact_type, harsh=not r.hedged and not changed,
                             status="candidate" if r.hedged else "active",
                             confidence=0.6 if r.hedged else 0.9,
                             reason="the user corrects a value on record", evidence=r.clause))
    return out
