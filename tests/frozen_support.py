"""Shared by the frozen question-set tests: what a store seeded with the personas holds."""

from __future__ import annotations

from pathlib import Path

from memory.embeddings import get_embedder
from memory.personas.loader import seed
from memory.stores import open_store

Docs = dict[str, tuple[str, str | None, str | None]]


def seeded_documents(path: Path) -> tuple[Docs, dict[str, set[str]]]:
    """A real embedded store after `seed` (what `python -m memory seed` loads): id -> (kind,
    owner, fact state), and the episodes agent recall screens out (invariant 65)."""
    store = open_store(f"embedded:{path}", get_embedder("hash"))
    try:
        seed(store)
        docs: Docs = {}
        for user in store.users():
            docs |= {e.id: ("episodic", user, None) for e in store.list_episodes(user)}
            docs |= {f.id: ("semantic", user, f.state.value) for f in store.list_facts(user)}
            docs |= {p.id: ("procedural", user, None) for p in store.list_playbooks(user)}
        docs |= {c.id: ("catalog", None, None) for c in store.list_catalog()}
        contradicted = {user: set(store.contradicted_sources(
            user, [i for i, (k, u, _) in docs.items() if k == "episodic" and u == user]))
            for user in store.users()}
    finally:
        store.close()
    return docs, contradicted
