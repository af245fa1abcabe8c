"""A denial that says what was true all along (invariant 353): "I never lived in Denver, I've
always lived in Boulder", "I've never had a Tesla, it's a Polestar 2", "the lactose thing was
wrong, my GP says it's IBS", "I didn't grow up in Dublin, it was Galway". The old fact is
retracted and the true value written in the same correction, never the retraction alone.
Pure: no I/O.
"""

from __future__ import annotations

import re

from .model import Statement
from .phrases import HARSH_RE, REL, UPPER, I, tidy

_NAME = r"(?P<v>" + UPPER + r"[\w'’.-]*?(?:\s+(?:" + UPPER + r"[\w'’.-]*?|\d[\w.]*?)){0,3})"
_ALWAYS_HOME = re.compile(r"^\W*(?:(?:but|no|actually)\W+)*(?:i|we)(?:\s+have|'ve)?\s+(?:always|only\s+ever)\s+"
                          r"(?:lived|been)\s+in\s+" + _NAME + r"\s*(?:[.!]|[^\w]*$)", I)
_ITS_A = re.compile(r"^\W*(?:it'?s|it\s+is|it\s+was|that'?s|mine\s+is|mine'?s)\s+(?:actually\s+|always\s+been\s+)?"
                    r"(?:a|an)\s+" + _NAME + r"\s*(?:[.!]|[^\w]*$)", I)
_HEALTH = re.compile(r"\b(?:allerg\w*|intoleran\w*|diagnos\w*|coeliac|celiac|asthma|diabet\w*|condition)\b", I)
_DOCTOR_SAYS = re.compile(r"^\W*(?:(?:my|the)\s+(?:gp|doctor|consultant|allergist|specialist|dermatologist|"
                          r"dietitian|nurse)\s+(?:says|said|thinks|reckons|confirmed)\s+(?:that\s+)?)?"
                          r"(?:it'?s|it\s+is|it\s+was|it\s+turned\s+out\s+to\s+be)\s+(?:actually\s+|just\s+)?"
                          r"(?P<v>[\w'’ -]{2,30}?)\s*(?:[.!]|[^\w]*$)", I)
_HAVE_VERBS = ("had", "owned", "driven", "drove", "bought")
# "I didn't grow up in Dublin, it was Galway"; "I wasn't born in Cork, it was Limerick"
_DIDNT = re.compile(r"^\W*(?:i|we)\s+(?P<verb>didn'?t\s+grow\s+up|did\s+not\s+grow\s+up|wasn'?t\s+born|"
                    r"was\s+not\s+born|never\s+grew\s+up)\s+in\s+(?P<x>" + UPPER + r"[\w'’.-]*(?:\s+"
                    + UPPER + r"[\w'’.-]*){0,2})\s*,\s*(?:it\s+was|it'?s|that\s+was)\s+(?:actually\s+|always\s+)?"
                    r"(?:in\s+)?" + _NAME + r"\s*[.!]*$", I)


def _after(c: str, message: str, target: str) -> list[str]:
    """What the user said after the words of the target, in the clause and the message; and
    what followed the clause alone."""
    tail = message[message.find(c) + len(c):] if c in message else ""
    last = (target.split() or [""])[-1]
    at = c.lower().rfind(last.lower()) if last else -1
    out = [(c[at + len(last):] if at >= 0 else "") + " " + tail, tail]
    if "," in c[max(at, 0):]:  # "the X thing was wrong, my GP says it's Y": after its comma
        out.append(c[max(at, 0):].split(",", 1)[1] + " " + tail)
    return out


def amend(found: list[Statement] | None, c: str, message: str) -> list[Statement] | None:
    """`found` with each denial that says no true value given the one said after it. Pure."""
    out = list(found) if found else found
    for i, st in enumerate(out or []):
        if st.act == "deny" and not st.text and st.target:
            for after in _after(c, message, st.target):
                new = _amended(st, after)
                if new is not None:
                    out[i] = new  # type: ignore[index]
                    break
    return out


def _amended(st: Statement, after: str) -> Statement | None:
    """The denial `st` with the true value said in `after`, or None."""
    target = st.target or ""
    verb = target.split()[0].lower()
    if st.rule == "deny:never" and st.slot == "home" and (m := _ALWAYS_HOME.match(after)):
        return st.model_copy(update={"text": f"Lives in {m.group('v')}", "fact_type": "identity"})
    if st.rule == "deny:never" and verb in _HAVE_VERBS and (m := _ITS_A.match(after)):
        had = re.sub(r"^(?:a|an|the|my|our)\s+", "", target.split(None, 1)[-1], flags=I)
        # the true thing takes the denied one's place in the fact on record (invariant 263)
        return Statement(act="deny", target=tidy(had), text=m.group("v"), harsh=True,
                         clause=st.clause, rule="deny:not-x-y")
    m = _DOCTOR_SAYS.match(after) if st.rule == "deny:was-a-mistake" else None
    if m and (_HEALTH.search(target) or re.search(r"\b(?:gp|doctor|consultant|allergist|specialist)\b",
                                                  after, I)):
        value = tidy(m.group("v"))
        # "it's actually lupin I react to": the allergen, said as an allergy like the one denied
        reacts = re.match(r"^(?P<x>.+?)\s+(?:that\s+)?i(?:'m|\s+am)?\s+(?:react|allergic)\s+to$", value, I)
        if reacts and re.search(r"\ballerg", target, I):
            return st.model_copy(update={"text": f"Allergic to {reacts.group('x')}", "fact_type": "constraint"})
        if not re.match(r"^(?:not|no|nothing|fine|ok|okay|all|wrong|right|gone|just|only)\b", value, I) \
                and not reacts:
            return st.model_copy(update={"text": f"Has {value}", "fact_type": "identity"})
    return None


_PRONOUN_OBJECT = re.compile(r"^(?P<verb>\w+)\s+(?:one|it|that|them|those|any)$", I)


def named_before(found: list[Statement] | None, c: str, message: str) -> list[Statement] | None:
    """Invariant 353: "I don't know where you got the APC UPS from. We've never owned one": the
    pronoun a denial ends on is the thing the message named before it (its last name, or the
    noun after "the"); when nothing was named, the denial is dropped, never matched to whatever
    recall brings back. Pure."""
    out: list[Statement] = []
    for st in found or []:
        m = _PRONOUN_OBJECT.match(st.target or "") if st.act == "deny" and st.rule == "deny:never" else None
        if m is None:
            out.append(st)
            continue
        at = message.find(c) if c in message else message.lower().rfind("never")
        before = message[:at] if at > 0 else ""
        names = [n for n in re.findall(UPPER + r"[\w'’-]*(?:\s+" + UPPER + r"[\w'’-]*)*", before)
                 if n.split()[0].lower() not in {"i", "we", "the", "my", "our", "a", "an", "it", "that"}
                 or len(n.split()) > 1]
        names = [re.sub(r"^(?:The|My|Our|A|An|It|That)\s+", "", n) for n in names]
        names = [n for n in names if n.lower() not in {"i", "we", "the", "my", "our", "a", "an", "it", "that"}
                 and not re.match(r"^(?:i|we|you|they|he|she|it|that|there)['’]", n, I)]
        if names:
            out.append(st.model_copy(update={"target": f"{m.group('verb')} {names[-1]}"}))
    return out if out or not found else []


# "The latex allergy test came back negative, I was never allergic": the allergy named before
_NEVER_ALLERGIC = re.compile(r"(?:^|,\s*)(?:so\s+|and\s+)?(?:i'?m|i\s+am|i\s+was)\s+(?:never|not)\s+(?:actually\s+|really\s+)?"
                             r"(?P<what>allergic|intolerant)\s*[.!]*$", I)


def never_allergic(c: str, message: str) -> list[Statement] | None:
    """Invariant 356: "I was never allergic" says no allergen; "the latex allergy test came back
    negative" before it names it: a denial of that allergy (with "never" or another never-true
    cue; "maybe ... after all" is doubt, read by `not_after_all`). Pure."""
    m = _NEVER_ALLERGIC.search(c.strip())
    if m is None or not (re.search(r"\bnever\b", m.group(0), I) or HARSH_RE.search(message)):
        return None
    named = re.findall(r"\bthe\s+(?P<x>[a-z][\w-]*)\s+(?:allergy|intolerance)\b", message, I)
    if len(set(n.lower() for n in named)) != 1:
        return None
    return [Statement(act="deny", target=f"{m.group('what').lower()} to {named[0]}", harsh=True,
                      clause=c, rule="deny:never-allergic")]


def grew_up(c: str) -> list[Statement] | None:
    """"I didn't grow up in Dublin, it was Galway": a denial with the true place. Pure."""
    m = _DIDNT.match(c.strip())
    if m is None:
        return None
    born = "born" in m.group("verb").lower()
    verb = "Was born in" if born else "Grew up in"
    return [Statement(act="deny", target=f"{'born' if born else 'grew up'} in {m.group('x')}",
                      text=f"{verb} {m.group('v')}", fact_type="identity", harsh=True, clause=c,
                      rule="deny:didnt")]


# "I'm not a nurse, I'm a midwife!", "it's not a Corsa, it's a Fiesta": the denied value and the
# true one in one sentence, read whole before its ", I'm ..." is split off as a clause of its own
_NOT_X_BUT_Y = re.compile(r"^(?P<s>i'?m|i\s+am|it'?s|it\s+is|we'?re|we\s+are)\s+not\s+(?:a|an)\s+(?P<old>[\w'’ -]{2,30}?)"
                          r"\s*,\s*(?:(?P=s)|i'?m|i\s+am|it'?s|it\s+is)\s+(?:actually\s+)?(?:a|an)\s+"
                          r"(?P<new>[\w'’ -]{2,30}?)\s*[.!]*$", I)


def not_x_but_y(c: str) -> list[Statement] | None:
    """Invariant 354: "I'm not a nurse, I'm a midwife": the true value replaces the denied one
    in the fact on record, never true (harsh); "not a nurse any more" is a change. Pure."""
    m = _NOT_X_BUT_Y.match(c.strip())
    if m is None or re.search(r"\b(?:any\s*more|anymore|no\s+longer|now|yet|these\s+days)\b", c, I):
        return None
    return [Statement(act="deny", target=tidy(m.group("old")), text=tidy(m.group("new")), harsh=True,
                      clause=c, rule="deny:not-x-y")]


# "..., that's my mum", "that was my husband's application", "you've mixed us up": what the
# record holds is someone else's (invariant 355)
_SOMEONE_ELSES = re.compile(r"\b(?:that'?s|that\s+(?:is|was)|it'?s|it\s+(?:is|was))\s+(?:actually\s+|really\s+)?"
                            r"(?:my|our)\s+(?:" + REL + r")(?:['’]s(?:\s+[a-z][\w-]*)?)?\s*(?:[.!,;]|$)|"
                            r"\byou(?:'ve|\s+have)?\s+(?:mixed|muddled|confused)\s+(?:us|me)\b", I)
# "I don't speak a word of it", "I can't speak Spanish at all": a language on record never spoken
_NO_WORD = re.compile(r"^(?:(?:ha|haha|lol|no|nope|sadly)\W+)*(?:i|we)\s+(?:don'?t|do\s+not|can'?t|cannot|"
                      r"never)\s+(?:actually\s+|really\s+)?(?:speak|spoke)\s+(?P<x>it|" + UPPER + r"[\w'’-]+)"
                      r"(?P<tail>\s+at\s+all)?\s*[.!]*$|"
                      r"^(?:(?:ha|haha|lol|no|nope|sadly)\W+)*(?:i|we)\s+(?:don'?t|do\s+not|can'?t|cannot)\s+"
                      r"speak\s+a\s+(?:single\s+)?word\s+of\s+(?P<y>it|" + UPPER + r"[\w'’-]+)\s*[.!]*$", I)
# "maybe I'm not allergic after all?": a doubted allergy, for review (invariant 356)
_NOT_AFTER_ALL = re.compile(r"(?:^|,\s*)(?:(?:so|and|but)\s+)?(?:maybe|perhaps|possibly)\s+(?:i'?m|i\s+am)\s+not\s+"
                            r"(?P<what>allergic|intolerant)(?:\s+to\s+(?P<x>[\w'’ -]{2,30}?))?\s+after\s+all\W*$", I)


def someone_elses(message: str) -> bool:
    """"I don't have a latex allergy, that's my mum": the record mixed the user up with someone
    close (invariant 355). Pure."""
    return bool(_SOMEONE_ELSES.search(message))


def no_word_of(c: str, message: str) -> list[Statement] | None:
    """Invariant 355: "fluent Spanish? I wish. I don't speak a word of it" denies the language
    on record ("it" is the language the message named before); a plain "I don't speak French"
    only with "at all" or "a word of". Pure."""
    m = _NO_WORD.match(c.strip())
    if m is None or not (m.group("y") or m.group("tail")):
        return None
    lang = m.group("x") or m.group("y")
    if lang.lower() == "it":
        before = message[:message.find(c)] if c in message else ""
        said = [w for w in re.findall(r"\b(" + UPPER + r"[a-z]+(?:ish|ese|ian|ic|an|ch|ic))\b", before)]
        if not said:
            return None
        lang = said[-1]
    return [Statement(act="deny", target=f"speaks {lang}", harsh=True, clause=c, rule="deny:no-word-of")]


def not_after_all(c: str, message: str) -> list[Statement] | None:
    """Invariant 356: "so maybe I'm not allergic after all? I'll ask my GP": the user doubts the
    allergy on record (named in the clause or as "the ibuprofen thing"): a retraction at low
    confidence, which waits for review. Pure."""
    m = _NOT_AFTER_ALL.search(c.strip())
    if m is None:
        return None
    what = m.group("x")
    if not what:
        named = re.findall(r"\bthe\s+(?P<x>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)\s+(?:thing|allergy|bit)\b", message, I)
        if len(set(named)) != 1:
            return None
        what = named[0]
    return [Statement(act="deny", target=f"{m.group('what').lower()} to {tidy(what)}", harsh=True,
                      confidence=0.55, clause=c, rule="deny:after-all")]


# "I don't have Sony headphones, those were my old flatmate's. Mine are AirPods Max."
_THEIRS_NOT_MINE = re.compile(r"^(?:i|we)\s+(?:don'?t|do\s+not)\s+(?:have|own)\s+(?:a\s+|an\s+|any\s+|"
                              r"the\s+)?(?P<n>[\w'’ -]{2,40}?)\s*,\s*(?:those|that|it|they|these)\s*(?:\s+was|\s+were|"
                              r"\s+is|\s+are|'s|'re)\s+(?:actually\s+|all\s+)?(?:my|our)\s+(?:old\s+|former\s+|ex-?)?"
                              r"(?:" + REL + r"|flatmate|housemate|roommate|colleague|neighbour|neighbor|friend|"
                              r"partner|ex)['’]s?\b[^,;]*$", I)
# Invariant 397: "The Pixel 8 is Jan's, not mine", "that bike was my brother's, not mine"
_ITS_THEIRS = re.compile(r"^(?:the|that|this|those|these)\s+(?!.*\b(?:allerg|intoleran|diagnos))(?P<n>[\w'’ -]{2,40}?)\s+(?:is|was|are|were|'s)\s+"
                         r"(?:actually\s+|really\s+|all\s+)?(?:(?:my|our)\s+(?:old\s+|former\s+|ex-?)?(?:" + REL
                         + r"|flatmate|housemate|roommate|colleague|neighbour|neighbor|friend|partner|ex)|"
                         r"(?-i:[A-Z])[\w’-]+)['’]s?\s*,?\s*(?:and\s+)?not\s+(?:mine|ours)\b[^,;]*$", I)
_MINE_IS = re.compile(r"^\W*(?:mine|ours)\s+(?:is|are|'s)\s+(?:actually\s+)?(?:a\s+|an\s+|the\s+)?" + _NAME
                      + r"\s*(?:[.!]|[^\w]*$)", I)


def theirs_not_mine(c: str, message: str) -> list[Statement] | None:
    """Invariant 355: the thing on record was someone else's ("those were my old flatmate's"),
    said with no article; "Mine are AirPods Max" after it is the user's own, the true value.
    Pure."""
    m = _THEIRS_NOT_MINE.match(c.strip()) or _ITS_THEIRS.match(c.strip())
    if m is None:
        return None
    st = Statement(act="deny", target=tidy(m.group("n")), harsh=True, clause=c, slot="verb:have",
                   rule="deny:theirs-not-mine")
    tail = message[message.find(c) + len(c):] if c in message else ""
    mine = _MINE_IS.match(tail)
    if mine:
        st.text = f"Has {mine.group('v').rstrip('.')}"
    return [st]


# "That July survey wasn't Orkney, it was Shetland, I always mix them up"
_WASNT_NAME = re.compile(r"^(?:the|that|this|my|our)\s+(?P<subj>[\w'’ -]{1,40}?)\s+(?:wasn'?t|isn'?t|was\s+not|is\s+not)\s+"
                         r"(?:in\s+|at\s+|on\s+|with\s+)?(?P<old>" + UPPER + r"[\w'’-]*(?:\s+" + UPPER + r"[\w'’-]*){0,2})"
                         r"\s*,\s*(?:it|that|she|he|they)(?:'s|\s+was|\s+is|\s+were)\s+(?:actually\s+|always\s+)?"
                         r"(?:in\s+|at\s+|on\s+|with\s+)?(?P<new>" + UPPER + r"[\w'’-]*(?:\s+" + UPPER + r"[\w'’-]*){0,2})"
                         r"\s*(?:[.!]*$|,\s*(?:i|we|sorry|my\s+bad|you)\b[^,;]*$)", I)


def wasnt_name(c: str) -> list[Statement] | None:
    """Invariant 354: "That July survey wasn't Orkney, it was Shetland (, I always mix them up)":
    the true name takes the denied one's place in the fact on record, never true; the remark
    after it is no statement. "… isn't X any more" is a change. Pure."""
    m = _WASNT_NAME.match(c.strip())
    if m is None or re.search(r"\b(?:any\s*more|anymore|no\s+longer|now)\b", c, I):
        return None
    return [Statement(act="deny", target=m.group("old"), text=m.group("new"), harsh=True, clause=c,
                      rule="deny:not-x-y")]
