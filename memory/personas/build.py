"""Deterministic generator: persona specs -> store operations (final record states + history).

Same seed, same bytes. Each persona becomes one JSONL file of operations (PutMemory of every
record in its final state, PutTombstone, AppendAudit with deterministic ids), so loading is one
atomic `store.apply` per persona and loading twice adds nothing (invariant 51).

Supersession and retraction are the unit of work's own (memory/unit_of_work.py, with the rules
of memory/corrections.py; invariants 4, 5, 6, 51): the history is replayed through a store-less
Batch whose audit ids derive from content. tests/test_personas.py replays one persona through
MemoryService and compares.

Run `python -m memory.personas.build` to regenerate memory/personas/data/.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ..clock import parse_when
from ..errors import ChainError
from ..models import (
    CATALOG,
    AuditEvent,
    CatalogDoc,
    Contradiction,
    Episode,
    Fact,
    FactState,
    Memory,
    MemoryKind,
    Playbook,
    Tombstone,
    coerce_fact_type,
)
from ..stores.base import Op
from ..unit_of_work import Batch
from . import DATA_DIR
from .spec import PersonaSpec, feedback_of

DEFAULT_SEED = 20260601
ACTOR = "seed"
CATALOG_RECORDED = datetime(2026, 5, 15, 9, 0, tzinfo=UTC)


@dataclass
class Built:
    """One persona's generated records, in their final states, plus their history."""

    user_id: str
    episodes: list[Episode] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    playbooks: list[Playbook] = field(default_factory=list)
    tombstones: list[Tombstone] = field(default_factory=list)
    audit: list[AuditEvent] = field(default_factory=list)
    ids: dict[str, str] = field(default_factory=dict)  # "ep:label" / "fact:key" / "pb:key" -> id

    def ops(self) -> list[Op]:
        """The data file: every record in its final state, then the history, oldest first."""
        out = Batch(None, ACTOR, self.user_id, now=CATALOG_RECORDED)
        items: list[Memory | Tombstone | AuditEvent] = [
            *self.episodes, *self.facts, *self.playbooks, *self.tombstones,
            *sorted(self.audit, key=lambda e: (e.at, e.id))]
        for item in items:
            out.restore(item)
        return out.ops


def _seed_event_id(event: AuditEvent, key: str | None) -> str:
    """An audit event id derived from its content: re-seeding never duplicates it."""
    key = f"{event.user_id}|{event.action}|{','.join(event.target_ids)}|{event.at.isoformat()}"
    return "aud_seed_" + hashlib.sha256(key.encode()).hexdigest()[:20]


def _history(user_id: str) -> Batch:
    """A batch with no store: it replays the persona's history through the same correction
    rules as every other writer (invariant 51) and keeps the operations for the data file."""
    return Batch(None, ACTOR, user_id, now=CATALOG_RECORDED, event_ids=_seed_event_id)


def _episode_id(slug: str, when: datetime) -> str:
    return f"ep_{slug}_{when:%m%d_%H%M}"


def build_persona(spec: PersonaSpec, seed: int = DEFAULT_SEED) -> Built:
    rng = random.Random(f"{seed}:{spec.user_id}")  # string seeds hash stably across runs
    out = Built(user_id=spec.user_id)
    user, slug = spec.user_id, spec.slug
    when_of: dict[str, datetime] = {}
    b = _history(user)

    for ep_spec in spec.episodes:
        when = ep_spec.when + timedelta(seconds=rng.randrange(60))
        ep = Episode(id=_episode_id(slug, ep_spec.when), user_id=user, text=ep_spec.text,
                     timestamp=when, recorded_at=when,
                     session_id=f"{slug}-{ep_spec.when:%Y-%m-%d}")
        if out.episodes and ep_spec.when <= out.episodes[-1].timestamp.replace(second=0):
            raise ValueError(f"{user}: episode {ep.id} is not after the one before it")
        out.episodes.append(b.add(ep, at=when))
        if ep_spec.label:
            if f"ep:{ep_spec.label}" in out.ids:
                raise ValueError(f"{user}: episode label {ep_spec.label!r} used twice")
            out.ids[f"ep:{ep_spec.label}"] = ep.id
            when_of[ep.id] = when

    def ep_ids(labels: tuple[str, ...], where: str) -> list[str]:
        missing = [lb for lb in labels if f"ep:{lb}" not in out.ids]
        if missing:
            raise ValueError(f"{user}: {where} cites unknown episode label(s) {missing}")
        return [out.ids[f"ep:{lb}"] for lb in labels]

    # Facts: writes and retractions replayed in time order, so each supersession retires the
    # version that was current at that moment, exactly as the service would.
    events: list[tuple[datetime, int, str, object]] = []
    for n, fs in enumerate(spec.facts):
        fid = f"fact_{slug}_{fs.key}"
        out.ids[f"fact:{fs.key}"] = fid
        sources = ep_ids(fs.sources, f"fact {fs.key}")
        events.append((max(when_of[s] for s in sources), n, "write", (fs, fid, sources)))
        if fs.retracted_in:
            rid = ep_ids((fs.retracted_in,), f"retraction of {fs.key}")[0]
            events.append((when_of[rid], n, "retract", (fs, fid, rid)))

    def current(fact_id: str) -> Fact:
        fact = b.get(MemoryKind.SEMANTIC, fact_id)
        assert isinstance(fact, Fact), fact_id  # written earlier in this history
        return fact

    for at, _, what, payload in sorted(events, key=lambda e: (e[0], e[1], e[2] == "retract")):
        if what == "write":
            fs, fid, sources = payload  # type: ignore[misc]  # "write" events carry this shape
            supersedes = out.ids.get(f"fact:{fs.supersedes}") if fs.supersedes else None
            if fs.supersedes and (supersedes is None or b.get(MemoryKind.SEMANTIC, supersedes) is None):
                raise ValueError(f"{user}: fact {fs.key} supersedes {fs.supersedes}, not yet written")
            new = b.add(Fact(
                id=fid, user_id=user, text=fs.text, fact_type=coerce_fact_type(fs.fact_type),
                confidence=fs.confidence,
                state=FactState.CANDIDATE if fs.candidate else FactState.ACTIVE,
                source_episode_ids=sources, supersedes=supersedes,
                contradiction=Contradiction(fs.contradiction) if supersedes else None,
                recorded_at=at, valid_from=parse_when(fs.valid_from),
                valid_to=parse_when(fs.valid_to), origin=ACTOR), at=at, on_dead="allow")
            if supersedes and not fs.candidate:
                try:  # the service's own rule (invariants 4, 51); history says "no longer"
                    b.supersede(current(supersedes), new, Contradiction.NATURAL, at=at)
                except ChainError:
                    raise ValueError(f"{user}: {fs.key} supersedes {supersedes}, not a chain head") from None
        else:
            fs, fid, rid = payload  # type: ignore[misc]  # "retract" events carry this shape
            b.retract(current(fid), reason=f"the user said it was never true ({rid})", at=at,
                      tombstone_id=f"tomb_{slug}_{fs.key}")
    out.facts = [current(out.ids[f"fact:{fs.key}"]) for fs in spec.facts]

    for ps in spec.playbooks:
        pid = f"pb_{slug}_{ps.key}"
        out.ids[f"pb:{ps.key}"] = pid
        sources = ep_ids(ps.sources, f"playbook {ps.key}")
        start = max(when_of[s] for s in sources)
        pb = b.add(Playbook(id=pid, user_id=user, name=ps.name, trigger=ps.trigger,
                            steps=list(ps.steps), source_episode_ids=sources, recorded_at=start,
                            updated_at=start), at=start)
        for oid in ep_ids(ps.outcomes, f"playbook {ps.key} outcomes"):
            text = next(e.text for e in out.episodes if e.id == oid)
            ok = feedback_of(text)
            if ok is None:
                raise ValueError(f"{user}: outcome episode {oid} reports neither success nor failure")
            counts: dict[str, Any] = ({"success_count": pb.success_count + 1} if ok
                      else {"failure_count": pb.failure_count + 1})
            pb = b.change(pb, action="playbook_outcome", at=when_of[oid],
                          reason=f"feedback in {oid}", updated_at=when_of[oid],
                          source_episode_ids=[*pb.source_episode_ids, oid], **counts)
        out.playbooks.append(pb)
    out.tombstones = list(b.tombstones)
    out.audit = list(b.events)
    return out


def build_catalog(entries: list[tuple[str, str, str, str]]) -> tuple[list[CatalogDoc], list[AuditEvent]]:
    """(slug, title, tags, text) rows -> owner-less catalog docs and their audit events."""
    b = _history(CATALOG)
    docs = [b.add(CatalogDoc(id=f"cat_{slug}", title=title, text=text, tags=tags.split(),
                             recorded_at=CATALOG_RECORDED), at=CATALOG_RECORDED)
            for slug, title, tags, text in entries]
    return docs, list(b.events)


def build_questions(spec: PersonaSpec, built: Built) -> list[dict]:
    kinds = {"ep": "episodic", "fact": "semantic", "pb": "procedural"}
    out = []
    for target, q1, q2 in spec.questions:
        if target not in built.ids:
            raise ValueError(f"{spec.user_id}: question target {target!r} is unknown")
        gold = built.ids[target]
        for variant, q in ((1, q1), (2, q2)):
            out.append({"id": f"q_{gold}_{variant}", "user_id": spec.user_id, "question": q,
                        "gold_id": gold, "gold_kind": kinds[target.split(":")[0]],
                        "variant": variant})
    return out


def _jsonl(ops: list[Op]) -> str:
    return "".join(json.dumps(op.model_dump(mode="json"), sort_keys=True, ensure_ascii=False) + "\n"
                   for op in ops)


def render(seed: int = DEFAULT_SEED) -> dict[str, str]:
    """Every data file's content by file name: the whole generator as one pure function."""
    from .catalog import CATALOG_DOCS  # content modules load on demand
    from .registry import PERSONAS

    files: dict[str, str] = {}
    docs, events = build_catalog(CATALOG_DOCS)
    catalog = Batch(None, ACTOR, CATALOG, now=CATALOG_RECORDED)
    for doc in docs:
        catalog.restore(doc)
    for event in events:
        catalog.restore(event)
    files["catalog.jsonl"] = _jsonl(catalog.ops)
    questions: list[dict] = []
    for spec in PERSONAS:
        built = build_persona(spec, seed)
        files[f"{spec.user_id}.jsonl"] = _jsonl(built.ops())
        questions += build_questions(spec, built)
    files["questions.json"] = json.dumps(questions, indent=1, ensure_ascii=False) + "\n"
    return files


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m memory.personas.build", description=__doc__)
    p.add_argument("--seed", type=int, default=DEFAULT_SEED)
    p.add_argument("--out", type=Path, default=DATA_DIR)
    p.add_argument("--check", action="store_true", help="exit 1 if the committed files differ")
    args = p.parse_args(argv)
    files = render(args.seed)
    stale = [n for n, text in files.items()
             if not (args.out / n).exists() or (args.out / n).read_text(encoding="utf-8") != text]
    if args.check:
        print("data files up to date" if not stale else f"stale: {', '.join(stale)}")
        return 1 if stale else 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (args.out / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(files)} files to {args.out} ({len(stale)} changed)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
