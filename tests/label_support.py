"""A scripted review session on the demo personas (issue 32): seeded with `memdesk seed`, then
decided through the real review API — approve some, edit some, reject some, merge one, keep both
once, undo one — on two fixed days. `EXPECTED` is what the labels measure must say."""

from __future__ import annotations

from datetime import UTC, datetime

from memory.cli import main
from memory.clock import fixed_clock
from memory.embeddings import get_embedder
from memory.service import MemoryService
from memory.stores import open_store
from review import decide
from review.undo import undo_last

DAY1 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
DAY2 = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
RAVI, LENA, MAYA = "dev-ravi", "lena-travels", "maya-smart-home"
GERMAN_EDIT = "Passed the B1 German exam"  # 34 characters deleted
UPGRADE_EDIT = "Uses miles to upgrade to business class on long-haul flights"  # 6 inserted

# (reader, kind, day) -> (decided, accepted, edited, merged, rejected, precision)
EXPECTED = {
    ("seed", "identity", "2026-12-01"): (1, 0, 1, 0, 0, 0.0),
    ("seed", "preference", "2026-12-01"): (4, 1, 1, 0, 2, 0.25),
    ("seed", "world", "2026-12-01"): (2, 2, 0, 0, 0, 1.0),
    ("seed", "preference", "2026-12-02"): (2, 1, 0, 1, 0, 1.0),
    ("seed", "world", "2026-12-02"): (1, 0, 0, 0, 1, 0.0),
}
UNDONE = "fact_maya_c_garden"


def seed_demo(url: str) -> None:
    """`memdesk seed` on the store at `url` (MEMDESK_EMBEDDER must be set by the caller)."""
    assert main(["seed", "--store", url]) == 0


def run_session(url: str) -> None:
    """The operators' decisions, each one atomic and audited, on DAY1 then DAY2."""
    store = open_store(url, get_embedder("hash"))
    try:
        one = MemoryService(store, clock=fixed_clock(DAY1))
        decide(one, RAVI, "fact_ravi_c_mentor", "approve", operator="ann", expected_rev=1)
        decide(one, RAVI, "fact_ravi_c_german_b2", "edit", operator="ann", expected_rev=1,
               text=GERMAN_EDIT)
        decide(one, RAVI, "fact_ravi_c_coffee_cut", "reject", operator="ann", expected_rev=1,
               reason="Not what he said")
        decide(one, LENA, "fact_lena_c_sns", "approve", operator="bo", expected_rev=1)
        decide(one, LENA, "fact_lena_p_window", "keep-both", operator="bo", expected_rev=1)
        decide(one, LENA, "fact_lena_c_upgrade", "edit", operator="bo", expected_rev=1,
               text=UPGRADE_EDIT)
        decide(one, LENA, "fact_lena_c_tasca", "reject", operator="bo", expected_rev=1,
               reason="wrong day")
        two = MemoryService(store, clock=fixed_clock(DAY2))
        decide(two, MAYA, "fact_maya_p_cool_light", "approve", operator="ann", expected_rev=1)
        decide(two, MAYA, "fact_maya_c_smart_lock", "merge", operator="ann", expected_rev=1,
               into="fact_maya_matter")
        decide(two, MAYA, "fact_maya_c_homey_sell", "reject", operator="ann", expected_rev=1,
               reason="not what he said")
        decide(two, MAYA, UNDONE, "approve", operator="ann", expected_rev=1)
        undo_last(two, [MAYA], operator="ann")  # the garden waits again: no label
    finally:
        store.close()
