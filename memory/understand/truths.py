"""A denial that says what was true all along (invariant 353): "I never lived in Denver, I've
always lived in Boulder", "I've never had a Tesla, it's a Polestar 2", "the lactose thing was
wrong, my GP says it's IBS", "I didn't grow up in Dublin, it was Galway". The old fact is
retracted and the true value written in the same correction, never the retraction alone.
Pure: no I/O.
"""

from __future__ import annotations

import re

from .model import Statement
from .phrases import UPPER, I, tidy

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
        if not re.match(r"^(?:not|no|nothing|fine|ok|okay|all|wrong|right|gone|just|only)\b", value, I):
            return st.model_copy(update={"text": f"Has {value}", "fact_type": "identity"})
    return None


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
