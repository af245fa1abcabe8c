"""Forget one memory, or erase a whole user, so that the text is gone from every place it lived
(invariants 66 and 67). MemoryService.forget delegates here.

Order of a forget (all in one batch, after its role and revision checks, invariant 450): (1) the
store redacts every audit snapshot and tombstone that holds the text
(idempotent), (2) one batch deletes the memories (record, FTS row, vector) with one `forget`
event each, which keeps the id and a SHA-256 of the text, never the text, (3) the store compacts
(embedded: FTS5 'optimize' and a WAL checkpoint; with `secure_delete` on, freed pages are
zeroed). A crash between (1) and (2) leaves the memory in place with its history already
redacted; forgetting it again converges.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from . import inputs, retractions
from .errors import NotFoundError
from .models import Episode, Fact, FactState, MemoryKind, Playbook, Tombstone
from .redaction import Erasure, forgotten_keys, texts_of
from .retractions import RETRACTION_OF
from .stores.base import Capability, Store
from .text import require_user
from .unit_of_work import as_actor

if TYPE_CHECKING:
    from .service import MemoryService  # which calls these

DEAD = (FactState.RETRACTED, FactState.REJECTED)


class ForgetResult(BaseModel):
    forgotten: list[str] = Field(description="ids deleted, the asked one first")
    derived: list[str] = Field(default_factory=list,
                               description="facts and playbooks citing a forgotten episode")
    kept: list[str] = Field(default_factory=list,
                            description="derived memories left in place (no cascade)")
    sources: list[str] = Field(default_factory=list,
                               description="source episodes forgotten with a fact (invariant 75)")
    redacted_events: int = 0
    redacted_tombstones: int = 0
    residue: list[str] = Field(default_factory=list,
                               description="where text may linger until the next compaction")


class EraseResult(BaseModel):
    user_id: str
    memories: int
    tombstones: int
    audit_events: int
    residue: list[str] = Field(default_factory=list)


def derived_from(svc: MemoryService, user_id: str, episode_id: str) -> list[Fact | Playbook]:
    """Every fact (any state) and playbook of the user that cites this episode as a source."""
    facts = [f for f in svc.store.list_facts(user_id) if episode_id in f.source_episode_ids]
    books = [p for p in svc.store.list_playbooks(user_id) if episode_id in p.source_episode_ids]
    return [*facts, *books]


def forget(svc: MemoryService, user_id: str, memory_id: str, *, actor: str = "agent", reason: str | None = None,
           cascade: bool = False, with_sources: bool = False,
           keep: frozenset[str] = frozenset()) -> ForgetResult:
    """Hard-delete one memory (and, with `cascade`, what was derived from it; with
    `with_sources`, the user's own messages a fact or playbook came from, except the ids in
    `keep`) and redact its text from the audit log and tombstones (invariants 66, 75)."""
    user_id, actor = require_user(user_id), as_actor(actor)
    reason = inputs.optional_label(reason, "reason")
    doc = svc.find_memory(user_id, memory_id, actor=actor, action="forget")
    derived = derived_from(svc, user_id, doc.id) if isinstance(doc, Episode) else []
    targets = [doc, *derived] if cascade else [doc]
    # Invariant 591: a proposal to retract a fact holds the fact's text: it goes with the fact.
    proposals = [f for f in svc.store.list_facts(user_id) if retractions.is_proposal(f)
                 and f.supersedes == doc.id] if isinstance(doc, Fact) else []
    targets += proposals
    sources: list[Episode] = []
    if with_sources and isinstance(doc, Fact | Playbook):
        # Invariant 75: the words the user said it in hold the value too; a source that is
        # gone already (forgotten before) is skipped, never an error.
        for ep_id in dict.fromkeys(doc.source_episode_ids):
            ep = svc.store.get(MemoryKind.EPISODIC, user_id, ep_id) if ep_id not in keep else None
            if isinstance(ep, Episode):
                sources.append(ep)
        targets += sources
    source_ids = {e.id for e in sources}
    texts = dict.fromkeys(t for m in targets for t in texts_of(m))
    erasure = Erasure(user_id=user_id, ids=frozenset(m.id for m in targets), texts=tuple(texts))
    with svc.batch(actor, user_id, reason=reason) as b:
        # Invariant 450: the role and the revisions first. A refused forget is audited
        # `denied` and changes nothing: no history redacted, no secret created.
        b.require("forget", [m.id for m in targets])
        b.check_revisions(targets)
        key = b.value_key() if any(isinstance(m, Fact) for m in targets) else None
        b.erase_text(erasure, scan=_only_here(svc, user_id, targets, texts))  # at commit
        for m in targets:
            after: dict = ({"derived": [d.id for d in derived], "cascade": cascade}
                           if m is doc else {"source_of": doc.id} if m.id in source_ids
                           else {RETRACTION_OF: doc.id} if m in proposals
                           else {"cascade_from": doc.id})
            if isinstance(m, Fact) and key is not None and m.state not in DEAD:
                # Invariant 177: keyed hashes of the value (never its text), so consolidation
                # does not plan it again from words said before this forget. A dead value has
                # its tombstone for that (invariants 66, 176).
                exact, claim = forgotten_keys(key, m.text)
                after[VALUE_KEYS] = sorted([*exact, claim])
            b.forget(m, after=after)
    return ForgetResult(forgotten=[m.id for m in targets], derived=[d.id for d in derived],
                        sources=[e.id for e in sources],
                        kept=[] if cascade else [d.id for d in derived],
                        redacted_events=b.redacted.get("events", 0),
                        redacted_tombstones=b.redacted.get("tombstones", 0),
                        residue=b.residue)


def _only_here(svc: MemoryService, user_id: str, targets: list, texts: dict) -> list[str]:
    """The erased texts no memory left in place also holds (the same words said twice): what
    a scan of the files after the forget must not find (invariant 459). Read only where the
    store scans its files."""
    if Capability.SCANS_ERASED not in svc.store.capabilities:
        return []
    gone = {m.id for m in targets}
    kept = [m.search_text() for m in (*svc.store.list_facts(user_id),
                                      *svc.store.list_episodes(user_id),
                                      *svc.store.list_playbooks(user_id)) if m.id not in gone]
    return [t for t in texts if not any(t in k for k in kept)]


def erase_user(svc: MemoryService, user_id: str, *, actor: str = "cli") -> EraseResult:
    """Erase everything a user owns (invariant 67): memories deleted, tombstones reduced to keyed
    hashes (a dead value stays dead if the id returns), watermarks and audit events removed, and
    one `erase_user` event left holding counts only — no text, no reason."""
    user_id, actor = require_user(user_id), as_actor(actor)
    counts = svc.store.counts(user_id)
    memories = sum(n for states in counts.values() for n in states.values())
    tombstones = len(svc.store.list_tombstones(user_id))
    if not memories and not tombstones and not svc.store.audit(user_id, limit=1):
        raise NotFoundError(f"no user {user_id}: nothing to erase", target_id=user_id)
    # What the user's records say, to look for in the store's files after (invariant 459).
    texts = [] if Capability.SCANS_ERASED not in svc.store.capabilities else [*(m.search_text() for m in svc.store.list_facts(user_id)),
             *(m.search_text() for m in svc.store.list_episodes(user_id)),
             *(m.search_text() for m in svc.store.list_playbooks(user_id)),
             *(t.text for t in svc.store.list_tombstones(user_id) if not t.forgotten)]
    with svc.batch(actor, user_id) as b:
        b.erase_user(after={"memories": memories, "tombstones": tombstones}, texts=texts)
    return EraseResult(user_id=user_id, memories=memories, tombstones=tombstones,
                       audit_events=b.erased.get("events", 0), residue=b.residue)


def _value_keys(store: Store, text: str) -> tuple[set[str], str] | None:
    """The keyed hashes of a value (exact forms, canonical claim) under the store's secret, or
    None while the store has none (nothing was ever forgotten there)."""
    key = store.value_key()
    return None if key is None else forgotten_keys(key, text)


def forgotten_match(store: Store, text: str, tombstones: list[Tombstone]) -> Tombstone | None:
    """A forgotten tombstone whose keyed hash is this text's: the exact value, normalised
    (invariant 66), or the same canonical claim in other words (invariant 176)."""
    forgotten = [t for t in tombstones if t.forgotten]
    keys = _value_keys(store, text) if forgotten else None
    if keys is None:
        return None
    exact, claim = keys
    return next((t for t in forgotten if t.normalized in exact or t.claim_key == claim), None)


VALUE_KEYS = "value_keys"


class ForgottenValue(BaseModel):
    """A fact value forgotten at `at`, known only by its keyed hashes (invariant 177)."""

    keys: frozenset[str]
    at: datetime


def forgotten_values(store: Store, user_id: str) -> list[ForgottenValue]:
    """Every fact value this user had forgotten, from the `forget` events of the audit log."""
    out = []
    for event in store.audit(user_id, limit=1_000_000, action="forget"):
        keys = (event.after or {}).get(VALUE_KEYS) if isinstance(event.after, dict) else None
        if keys:
            out.append(ForgottenValue(keys=frozenset(keys), at=event.at))
    return out


def forgotten_since(store: Store, forgotten: list[ForgottenValue], text: str) -> datetime | None:
    """When `text` (in any wording with the same claim) was last forgotten, or None."""
    keys = _value_keys(store, text) if forgotten else None
    if keys is None:
        return None
    exact, claim = keys
    wanted = {*exact, claim}
    times = [f.at for f in forgotten if f.keys & wanted]
    return max(times) if times else None
