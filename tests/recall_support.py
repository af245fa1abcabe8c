"""What the recall-quality tests (tests/test_recall_*.py) share: their evaluation moment, a
ranking whose dense legs weigh every kind alike, and ranking on the embedded store only."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory.search_config import DEFAULT
from memory.stores.embedded import EmbeddedStore

NOW = datetime(2026, 11, 21, 12, tzinfo=UTC)
# invariant 154 as before the fourteenth pass (full coverage: every kind's dense leg alike): in
# these few-memory stores the min-max dense score alone would put the fact first, hiding the rule
# under test
ALIKE = DEFAULT.ranking.model_copy(update={"distilled_dense_weight": None,
                                           "distilled_weak_dense_weight": 2.5})


@pytest.fixture(name="store")
def embedded_only(embedded_store: EmbeddedStore) -> EmbeddedStore:
    """Ranking on the embedded store only (its per-user statistics): a module that imports
    this has it as its `store`, instead of conftest's, which runs on every backend."""
    return embedded_store
