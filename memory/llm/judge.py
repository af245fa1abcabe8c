"""A second opinion for the doubtful band (issue 29 item 6, invariant 440).

Two kinds of review item are doubtful by construction: a candidate flagged
`possibly_restates:<tombstone>` (it may restate a value the user retracted or an operator
rejected), and a candidate that would replace an active fact (does it really contradict it?).
When a model is configured it is asked for a verdict and a one-line reason, shown beside the
evidence ("judge: restates 'Lives in Bristol' — Brizzle is a nickname for Bristol"). The verdict
is advice: nothing here writes, and the decision stays the operator's. Offline there is no
judge, and the item says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from review.models import ItemDetail, ItemKind

from ..errors import MemdeskError
from ..values import POSSIBLY_RESTATES

if TYPE_CHECKING:
    from . import LLM

JUDGE_TOOL = "record_verdict"
JUDGE_SYSTEM = """You give a memory system's human reviewer a second opinion on one doubtful
candidate fact about a user. Answer through the record_verdict tool with a verdict and ONE short
line of reason (no more than 25 words) that names the words that decide it.
- kind "restates": the other text is a value the user said was never true. Verdict "restates"
  when the candidate says the same thing in other words (a nickname, a translation, a typo, a
  paraphrase), "different" when it is another value, "unsure" when you cannot tell.
- kind "contradicts": the other text is what is believed now. Verdict "contradicts" when both
  cannot be true at once (the candidate replaces it), "compatible" when both can hold, "unsure"
  when you cannot tell.
The user's own messages are the evidence. Never invent facts."""

Verdict = Literal["restates", "different", "contradicts", "compatible", "unsure"]


class JudgeQuestion(BaseModel):
    kind: Literal["restates", "contradicts"]
    candidate: str
    other: str = Field(description="the retracted value, or the fact believed now")
    other_id: str
    evidence: list[str] = Field(default_factory=list, description="the user's own messages")


class JudgeVerdict(BaseModel):
    """What the model must return (the forced tool's input schema)."""

    verdict: Verdict
    reason: str = Field(min_length=1, max_length=300)


class JudgeNote(BaseModel):
    """What the review item shows beside the evidence."""

    text: str
    verdict: Verdict | None = None
    reason: str = ""
    about_id: str | None = None
    mode: str = ""


def question_for(detail: ItemDetail) -> JudgeQuestion | None:
    """The doubt an item raises, or None for an item outside the doubtful band."""
    if detail.item.kind == ItemKind.RETRACTION:
        return None  # it holds the fact's own text: no second value to weigh (invariant 591)
    said = [e.text for e in detail.evidence.episodes][:5]
    tombs = {t.id: t for t in detail.evidence.tombstones}
    for flag in detail.item.flags:
        name, _, tid = flag.partition(":")
        if name == POSSIBLY_RESTATES and tid in tombs:
            return JudgeQuestion(kind="restates", candidate=detail.item.text,
                                 other=tombs[tid].text, other_id=tid, evidence=said)
    old = detail.evidence.replaces
    if old is not None:
        return JudgeQuestion(kind="contradicts", candidate=detail.item.text, other=old.text,
                             other_id=old.id, evidence=said)
    return None


_PHRASE = {"restates": "restates", "different": "a different value from",
           "contradicts": "contradicts", "compatible": "compatible with", "unsure": "unsure about"}
_CACHE: dict[tuple[str, str, int], JudgeNote] = {}


def second_opinion(llm: LLM, detail: ItemDetail) -> JudgeNote | None:
    """The judge's note for a doubtful item (None outside the band), asked once per item
    revision and model. A model failure is said on the item; it never blocks the review."""
    q = question_for(detail)
    if q is None:
        return None
    ask = getattr(llm, "judge", None)
    mode = getattr(llm, "mode", "offline")
    broken = getattr(llm, "error", None)  # a configured model that cannot run (UnavailableLLM)
    if isinstance(broken, MemdeskError):
        return JudgeNote(text=f"judge: unavailable — {broken}", about_id=q.other_id, mode=mode)
    if ask is None:
        return JudgeNote(text="judge: none — no model is configured (offline; set MEMDESK_LLM "
                              "for a second opinion)", about_id=q.other_id, mode=mode)
    key = (mode, detail.item.id, detail.item.rev)
    if key in _CACHE:
        return _CACHE[key]
    try:
        verdict = ask(q)
    except MemdeskError as exc:  # not cached: the next look asks again
        return JudgeNote(text=f"judge: unavailable — {exc}", about_id=q.other_id, mode=mode)
    note = JudgeNote(text=f"judge: {_PHRASE[verdict.verdict]} {q.other!r} — {verdict.reason}",
                     verdict=verdict.verdict, reason=verdict.reason, about_id=q.other_id,
                     mode=mode)
    if len(_CACHE) >= 512:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = note
    return note
