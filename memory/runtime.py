"""Build the service bundle from settings: one place that turns configuration into objects."""

from __future__ import annotations

from functools import lru_cache

from .clock import Clock, utcnow
from .embeddings import get_embedder
from .service import MemoryService
from .settings import load_settings
from .stores import open_store


def open_service(store_url: str | None = None, *, clock: Clock = utcnow) -> MemoryService:
    settings = load_settings()
    store = open_store(store_url or settings["store"], get_embedder(settings["embedder"]),
                       busy_timeout=settings["busy_timeout"])  # issue 11 (invariant 69)
    return MemoryService(store, clock=clock,
                         tombstone_similarity=settings["tombstone_similarity"],
                         harsh_confidence_penalty=settings["harsh_confidence_penalty"])


@lru_cache(maxsize=4)
def shared_service(store_url: str | None = None) -> MemoryService:
    """One long-lived service per store URL (the desk reuses it across reruns)."""
    return open_service(store_url)
