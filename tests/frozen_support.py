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


def assert_answerable(questions: list[dict], docs: Docs, contradicted: dict[str, set[str]],
                      id_prefix: str | None = None) -> None:
    """Invariants 65, 100, 151: ids unique; every answer a document of the asking user (or the
    catalog) that agent recall may return — never a candidate, a never-true value or an episode
    that stated one; the gold of the kind the question says."""
    assert len({q["id"] for q in questions}) == len(questions)
    for q in questions:
        if id_prefix:
            assert q["id"].startswith(f"{id_prefix}_{q['user_id']}_"), q["id"]
        ids = [q["gold_id"], *q["also_ids"]]
        assert len(set(ids)) == len(ids), q["id"]
        for doc_id in ids:
            assert doc_id in docs, (q["id"], doc_id)
            kind, owner, state = docs[doc_id]
            assert owner in (None, q["user_id"]), (q["id"], doc_id)
            assert state in (None, "active", "superseded"), (q["id"], doc_id, state)
            assert doc_id not in contradicted.get(q["user_id"], set()), (q["id"], doc_id)
        assert q["gold_kind"] == docs[q["gold_id"]][0], q["id"]
