"""What fixed a problem (a playbook) and whether earlier advice worked (feedback), read from the
user's own words. Cue patterns are data-sized: one per way of saying it."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text import content_terms

_HEDGE = re.compile(r"\b(?:i think|maybe|perhaps|might|probably|not sure|i guess|possibly)\b",
                    re.IGNORECASE)
SUCCESS = re.compile(r"\b(?:that|it|this|which)\s+(?:worked|did\s+the\s+trick|fixed\s+it|helped|"
                     r"sorted\s+it)\b|\bworks\s+now\b|\b(?:fixed|solved|sorted)\s+now\b|"
                     r"\bworking\s+again\b|\bproblem\s+solved\b|\bthat\s+solved\b", re.IGNORECASE)
FAILURE = re.compile(r"\bstill\s+(?:broken|not\s+working|doesn'?t\s+work|failing|dropping|the\s+"
                     r"same|crashing|happening)\b|\b(?:didn'?t|did\s+not|doesn'?t|does\s+not)\s+"
                     r"(?:work|help|fix)\b|\bno\s+luck\b|\bsame\s+problem\b", re.IGNORECASE)
FIX = re.compile(r"\b(?:what\s+(?:fixed|solved)\s+it\s+was|i\s+fixed\s+it\s+by|fixed\s+it\s+by|"
                 r"the\s+fix\s+was|the\s+trick\s+was|the\s+solution\s+was|it\s+worked\s+(?:after|"
                 r"when)\s+i)\s*:?\s*(?P<steps>.+)$", re.IGNORECASE)
_STEPS = re.compile(r"\s*(?:,\s*(?:and\s+)?(?:then\s+)?|;\s*|\s+and\s+then\s+|\s+then\s+|"
                    r"\s+and\s+)\s*", re.IGNORECASE)


@dataclass(frozen=True)
class Fix:
    name: str
    trigger: str
    steps: list[str]
    confidence: float


content = content_terms


def fix_in(sentence: str, topic: str) -> Fix | None:
    """The steps the user says fixed a problem, named after the problem (`topic`: the earlier
    message of the session when the sentence does not say it)."""
    m = FIX.search(sentence)
    if not m:
        return None
    steps = [s.strip(" .") for s in _STEPS.split(m.group("steps")) if s.strip(" .")]
    if not steps:
        return None
    before = _HEDGE.sub("", sentence[:m.start()]).strip(" ,.")
    trigger = before if len(content(before)) >= 2 else topic
    short = re.sub(r"^(?:my|our|the)\s+", "", " ".join(trigger.split()[:8]), flags=re.IGNORECASE)
    return Fix(name="Fix: " + short.rstrip(" .,!?"), trigger=trigger[:500],
               steps=[s[:1].upper() + s[1:] for s in steps],
               confidence=0.6 if _HEDGE.search(sentence) else 0.85)


def outcome_in(sentence: str) -> str | None:
    """"success" / "failure" when the user reports how earlier advice went."""
    if FAILURE.search(sentence):
        return "failure"
    return "success" if SUCCESS.search(sentence) else None
