"""A mapping change is a reindex, not a rebuild by hand (invariant 22): create the current
version's index, copy the documents server-side with `_reindex`, then move the alias in one
atomic `_aliases` call. The old index is kept until an operator deletes it.

Only for mapping changes with the same embedder: vectors of another model (other dims) cannot
be copied and need a fresh store filled with `memdesk migrate`.
"""

from __future__ import annotations

from elasticsearch import Elasticsearch

from .indices import ALL_INDICES, IndexNames, index_body, reindex_actions


def reindex(es: Elasticsearch, names: IndexNames, embedder_name: str, dims: int) -> list[str]:
    """Bring every alias to the current mapping version; returns what moved (old -> new)."""
    moved = []
    for name in ALL_INDICES:
        alias, want = names.alias(name), names.concrete(name)
        live = dict(es.indices.get_alias(name=alias))
        for old in sorted(c for c in live if c != want):
            if not es.indices.exists(index=want):
                es.indices.create(index=want, **index_body(name, embedder_name, dims))
            # op_type create: a re-run after a partial copy only fills what is missing.
            es.reindex(source={"index": old}, dest={"index": want, "op_type": "create"},
                       conflicts="proceed", wait_for_completion=True, refresh=True)
            es.indices.update_aliases(actions=reindex_actions(names, name, old, want)["actions"])
            moved.append(f"{old} -> {want}")
    return moved
