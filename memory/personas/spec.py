"""The hand-written shape of a persona: episodes as dated lines, facts and playbooks by label.

Persona modules hold data only; memory.personas.build turns a PersonaSpec into store records.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

YEAR = 2026  # every persona lives in 2026, so the data never moves with "now"

# "06-01 08:12 #label text" (the label is optional and names the episode for facts/questions)
_LINE = re.compile(r"^(\d\d)-(\d\d) (\d\d):(\d\d)(?: #([a-z0-9_]+))? (.+)$")


@dataclass(frozen=True)
class EpisodeSpec:
    when: datetime  # minute resolution; the generator adds seeded seconds
    label: str | None
    text: str


@dataclass(frozen=True)
class FactSpec:
    key: str
    fact_type: str
    text: str
    sources: tuple[str, ...]  # episode labels that say it
    keys: tuple[str, ...]  # key words that must appear in the fact and in its sources
    supersedes: str | None = None  # key of the fact it replaces (natural supersession)
    contradiction: str = "natural"
    candidate: bool = False  # waiting in review; with `supersedes` a proposed contradiction
    valid_from: str | None = None  # ISO date, only when the source episode's words date it
    valid_to: str | None = None
    retracted_in: str | None = None  # episode label where the user says it was never true
    confidence: float = 0.8


@dataclass(frozen=True)
class PlaybookSpec:
    key: str
    name: str
    trigger: str
    steps: tuple[str, ...]
    sources: tuple[str, ...]  # episodes that describe the procedure
    outcomes: tuple[str, ...]  # feedback episodes ("that worked" / "still broken"), in order


@dataclass(frozen=True)
class PersonaSpec:
    user_id: str
    slug: str  # short id prefix: ep_<slug>_..., fact_<slug>_...
    name: str
    summary: str
    episodes: tuple[EpisodeSpec, ...]
    facts: tuple[FactSpec, ...]
    playbooks: tuple[PlaybookSpec, ...]
    # (target, question 1, question 2); target is "ep:label", "fact:key" or "pb:key"
    questions: tuple[tuple[str, str, str], ...] = field(default=())


def parse_episodes(block: str) -> tuple[EpisodeSpec, ...]:
    """Parse the persona's diary block; one episode per non-empty line."""
    out = []
    for n, raw in enumerate(block.strip().splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        m = _LINE.match(line)
        if not m:
            raise ValueError(f"episode line {n} is not 'MM-DD HH:MM [#label] text': {line[:60]!r}")
        month, day, hour, minute, label, text = m.groups()
        when = datetime(YEAR, int(month), int(day), int(hour), int(minute), tzinfo=UTC)
        out.append(EpisodeSpec(when=when, label=label, text=text.strip()))
    return tuple(out)


FACT_FLAGS = ("candidate", "supersedes", "valid_from", "valid_to", "retracted_in")


def parse_facts(block: str) -> tuple[FactSpec, ...]:
    """Parse the persona's fact table, one fact a line: `key | type | text | source episode
    labels | key words`, then optionally `| flags`, space-separated: `candidate`, or
    NAME=VALUE for the other FACT_FLAGS. Lines starting with # are comments."""
    out = []
    for n, raw in enumerate(block.strip().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        cells = [c.strip() for c in line.split("|")]
        if len(cells) not in (5, 6):
            raise ValueError(f"fact line {n} is not 'key | type | text | sources | key words "
                             f"[| flags]': {line[:60]!r}")
        kw: dict[str, Any] = {}
        for flag in cells[5].split() if len(cells) == 6 else ():
            name, eq, value = flag.partition("=")
            if name not in FACT_FLAGS or (name == "candidate") == bool(eq):
                raise ValueError(f"fact line {n}: unknown flag {flag!r}")
            kw[name] = value if eq else True
        out.append(fact(*cells[:5], **kw))
    return tuple(out)


def fact(key: str, fact_type: str, text: str, sources: str, keys: str, **kw: Any) -> FactSpec:
    """Compact constructor: `sources` and `keys` are space-separated."""
    return FactSpec(key=key, fact_type=fact_type, text=text, sources=tuple(sources.split()),
                    keys=tuple(k.replace("_", " ") for k in keys.split()), **kw)


def playbook(key: str, name: str, trigger: str, steps: list[str], sources: str,
             outcomes: str) -> PlaybookSpec:
    return PlaybookSpec(key=key, name=name, trigger=trigger, steps=tuple(steps),
                        sources=tuple(sources.split()), outcomes=tuple(outcomes.split()))

# How a user reports a playbook's outcome in their own words. The checker counts these phrases
# in the feedback episodes and requires the playbook's counts to match them exactly.
SUCCESS_PHRASES = ("that worked", "worked again", "did the trick", "worked like a charm")
FAILURE_PHRASES = ("still broken", "didn't work", "no luck")


def feedback_of(text: str) -> bool | None:
    """True for a success report, False for a failure report, None for neither or both."""
    low = text.lower().replace("’", "'")
    ok = any(p in low for p in SUCCESS_PHRASES)
    bad = any(p in low for p in FAILURE_PHRASES)
    return None if ok == bad else ok
