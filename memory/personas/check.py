"""Consistency check of the generated persona data: invariant 50 (and 53 for playbooks).

Works on the committed data files (what `memdesk seed` loads), with the specs only for each
fact's key words. Returns a list of problems; empty means consistent.
"""

from __future__ import annotations

import calendar
import re
from collections import Counter
from datetime import date, timedelta
from pathlib import Path

from ..models import AuditEvent, CatalogDoc, Episode, Fact, FactState, FactType, Playbook, Tombstone
from ..stores.base import AppendAudit, PutMemory, PutTombstone
from ..text import normalise
from .build import DATA_DIR
from .loader import read_ops
from .spec import PersonaSpec, feedback_of

MIN_EPISODES, MIN_DAYS, MIN_FACTS, MIN_PLAYBOOKS = 150, 90, 40, 3
MIN_CANDIDATES, MIN_PROPOSED, MIN_CHAINS, MIN_LONG_CHAIN = 10, 2, 3, 3
MIN_CATALOG = 50
MONTHS = tuple(m.lower() for m in calendar.month_name[1:])


def _mentions(text: str, word: str) -> bool:
    """Key word present as a word prefix ("charger" matches "chargers"), case-insensitive."""
    return re.search(r"(?<![a-z0-9])" + re.escape(word.lower()), text.lower()) is not None


def _dated_in(text: str, day: date) -> bool:
    """The user's words name this date: its month and day ("September 12", "12 September")."""
    low = text.lower()
    return MONTHS[day.month - 1] in low and re.search(rf"\b{day.day}(st|nd|rd|th)?\b", low) is not None


class PersonaData:
    """The records of one persona data file, by kind."""

    def __init__(self, path: Path) -> None:
        self.episodes: list[Episode] = []
        self.facts: list[Fact] = []
        self.playbooks: list[Playbook] = []
        self.tombstones: list[Tombstone] = []
        self.audit: list[AuditEvent] = []
        for op in read_ops(path):
            if isinstance(op, PutMemory):
                if isinstance(op.doc, Episode):
                    self.episodes.append(op.doc)
                elif isinstance(op.doc, Fact):
                    self.facts.append(op.doc)
                elif isinstance(op.doc, Playbook):
                    self.playbooks.append(op.doc)
                else:
                    raise ValueError(f"{path.name}: {op.doc.kind.value} {op.doc.id} in a "
                                     "persona file")
            elif isinstance(op, PutTombstone):
                self.tombstones.append(op.tombstone)
            elif isinstance(op, AppendAudit):
                self.audit.append(op.event)


def chains(facts: list[Fact]) -> list[list[Fact]]:
    """Supersession chains (length ≥ 2) among believed facts, oldest first."""
    by_id = {f.id: f for f in facts}
    out = []
    for f in facts:
        if f.state == FactState.CANDIDATE or f.supersedes is None:
            continue
        if f.superseded_by:  # not the head
            continue
        chain, cur = [f], f
        while cur.supersedes and cur.supersedes in by_id:
            cur = by_id[cur.supersedes]
            chain.append(cur)
        out.append(list(reversed(chain)))
    return out


def check_persona(spec: PersonaSpec, path: Path | None = None) -> list[str]:
    """Every rule the demo data promises, for one persona; returns the problems found."""
    d = PersonaData(path or DATA_DIR / f"{spec.user_id}.jsonl")
    p: list[str] = []
    user = spec.user_id
    eps = {e.id: e for e in d.episodes}
    facts = {f.id: f for f in d.facts}

    # ownership: every record belongs to this persona
    records: list[Episode | Fact | Playbook | Tombstone | AuditEvent] = [
        *d.episodes, *d.facts, *d.playbooks, *d.tombstones, *d.audit]
    for rec in records:
        if rec.user_id != user:
            p.append(f"{rec.id} belongs to {rec.user_id}, not {user}")

    # dates only move forward (invariant 50)
    for a, b in zip(d.episodes, d.episodes[1:], strict=False):
        if b.timestamp <= a.timestamp:
            p.append(f"episode {b.id} is not after {a.id}")
    for e in d.episodes:
        if e.recorded_at != e.timestamp:
            p.append(f"episode {e.id}: recorded_at differs from when it was said")
    if d.episodes and d.episodes[-1].timestamp - d.episodes[0].timestamp < timedelta(days=MIN_DAYS):
        p.append(f"episodes span less than {MIN_DAYS} days")

    # evidence: sources exist, say the key words, date the validity (invariant 50)
    keys = {f"fact_{spec.slug}_{fs.key}": fs.keys for fs in spec.facts}
    for f in d.facts:
        srcs = [eps[s] for s in f.source_episode_ids if s in eps]
        if not srcs or len(srcs) < len(f.source_episode_ids):
            p.append(f"fact {f.id}: missing source episode(s)")
            continue
        said = " ".join(e.text for e in srcs)
        if f.recorded_at != max(e.timestamp for e in srcs):
            p.append(f"fact {f.id}: recorded_at is not when its last source was said")
        for word in keys.get(f.id, ()):
            if not _mentions(f.text, word) or not _mentions(said, word):
                p.append(f"fact {f.id}: key word {word!r} missing from the fact or its sources")
        if not keys.get(f.id):
            p.append(f"fact {f.id}: no key words declared")
        for label, day in (("valid_from", f.valid_from), ("valid_to", f.valid_to)):
            if day and not _dated_in(said, day) and not (
                    label == "valid_to" and f.superseded_by
                    and facts.get(f.superseded_by) and facts[f.superseded_by].valid_from == day):
                p.append(f"fact {f.id}: {label} {day.date()} is not in its sources' words")

    # chains link both ways, with the service's supersession fields (invariants 4, 5, 50)
    for f in d.facts:
        if f.supersedes and f.state != FactState.CANDIDATE:
            old = facts.get(f.supersedes)
            if old is None or old.superseded_by != f.id or old.superseded_at != f.recorded_at:
                p.append(f"chain {f.supersedes} -> {f.id} does not link back")
            elif old.state != FactState.SUPERSEDED or old.rev != 2:
                p.append(f"{old.id}: superseded once, expected state superseded and rev 2")
            elif f.valid_from and old.valid_to is None:
                p.append(f"{old.id}: valid_to does not close at {f.id}'s valid_from")
            elif old.recorded_at >= f.recorded_at:
                p.append(f"chain {old.id} -> {f.id} goes back in time")
        if f.superseded_by:
            nxt = facts.get(f.superseded_by)
            if nxt is None or nxt.supersedes != f.id:
                p.append(f"chain {f.id} -> {f.superseded_by} does not link forward")
        if f.valid_from and f.valid_to and f.valid_to < f.valid_from:
            p.append(f"fact {f.id}: valid_to before valid_from")
    found = chains(d.facts)
    if len(found) < MIN_CHAINS or max((len(c) for c in found), default=0) < MIN_LONG_CHAIN:
        p.append(f"need {MIN_CHAINS} chains, one of length {MIN_LONG_CHAIN}: "
                 f"have lengths {sorted(len(c) for c in found)}")

    # retraction: state retracted and a tombstone for the value (invariants 6, 50)
    retracted = [f for f in d.facts if f.state == FactState.RETRACTED]
    if not retracted:
        p.append("no retracted fact")
    for f in retracted:
        t = next((t for t in d.tombstones if t.source_fact_id == f.id), None)
        if t is None or t.normalized != normalise(f.text) or t.created_at != f.superseded_at:
            p.append(f"retracted fact {f.id} has no matching tombstone")

    # counts (invariant 50)
    believed = [f for f in d.facts if f.state != FactState.CANDIDATE]
    if len(d.episodes) < MIN_EPISODES:
        p.append(f"{len(d.episodes)} episodes < {MIN_EPISODES}")
    if len(believed) < MIN_FACTS:
        p.append(f"{len(believed)} facts < {MIN_FACTS}")
    types = Counter(f.fact_type for f in believed)
    if set(types) != set(FactType):
        p.append(f"fact types used: {sorted(types)}; all four are required")
    if not any(f.valid_from or f.valid_to for f in believed):
        p.append("no fact carries validity dates")
    cands = [f for f in d.facts if f.state == FactState.CANDIDATE]
    plain = [f for f in cands if f.supersedes is None]
    proposed = [f for f in cands if f.supersedes and facts.get(f.supersedes)
                and facts[f.supersedes].state == FactState.ACTIVE]
    if len(plain) < MIN_CANDIDATES or len(proposed) < MIN_PROPOSED:
        p.append(f"review queue: {len(plain)} candidates, {len(proposed)} proposed contradictions")
    if len(d.playbooks) < MIN_PLAYBOOKS:
        p.append(f"{len(d.playbooks)} playbooks < {MIN_PLAYBOOKS}")

    # playbook counts equal the users' own feedback (invariant 50)
    for pb in d.playbooks:
        verdicts = [feedback_of(eps[s].text) for s in pb.source_episode_ids if s in eps]
        if len(verdicts) != len(pb.source_episode_ids):
            p.append(f"playbook {pb.id}: missing source episode")
        if (pb.success_count, pb.failure_count) != (verdicts.count(True), verdicts.count(False)):
            p.append(f"playbook {pb.id}: counts {pb.success_count}/{pb.failure_count} != feedback "
                     f"{verdicts.count(True)}/{verdicts.count(False)}")
        if pb.rev != 1 + pb.success_count + pb.failure_count:
            p.append(f"playbook {pb.id}: rev {pb.rev} does not match its outcome history")
    # and no feedback goes uncounted: every episode that reports an outcome belongs to a playbook
    counted = Counter(s for pb in d.playbooks for s in pb.source_episode_ids)
    for e in d.episodes:
        if feedback_of(e.text) is not None and counted[e.id] != 1:
            p.append(f"episode {e.id} reports an outcome that {counted[e.id]} playbooks count")

    # every record has its audit trail (invariant 8)
    audited = {t for e in d.audit for t in e.target_ids}
    for mem in [*d.episodes, *d.facts, *d.playbooks]:
        if mem.id not in audited:
            p.append(f"{mem.id} has no audit event")
    if len({e.id for e in d.audit}) != len(d.audit):
        p.append("duplicate audit event ids")
    return p


def check_catalog(path: Path | None = None) -> list[str]:
    docs = [op.doc for op in read_ops(path or DATA_DIR / "catalog.jsonl")
            if isinstance(op, PutMemory)]
    p = [f"{d.id} is not an owner-less catalog doc" for d in docs
         if not isinstance(d, CatalogDoc) or d.user_id is not None]
    if len(docs) < MIN_CATALOG:
        p.append(f"{len(docs)} catalog docs < {MIN_CATALOG}")
    return p
