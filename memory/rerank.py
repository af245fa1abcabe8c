"""The reranker seam: a reranker reorders the fused candidates before the top k is cut."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from .errors import ValidationError
from .ranking import RankedHit


class Reranker(Protocol):
    name: str

    def rerank(self, query: str, hits: list[RankedHit]) -> list[RankedHit]: ...


RERANKERS: dict[str, Callable[[], Reranker]] = {}


def register(name: str, factory: Callable[[], Reranker]) -> None:
    RERANKERS[name] = factory


def get_reranker(name: str) -> Reranker | None:
    if name in ("", "none"):
        return None
    if name not in RERANKERS:
        known = ", ".join(["none", *RERANKERS]) or "none"
        raise ValidationError(f"unknown reranker {name!r}; choose one of: {known}")
    return RERANKERS[name]()
