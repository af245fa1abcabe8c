"""Retract or forget many facts at once (issue 34): the role checked once before any write,
then each fact its own audited batch, failures reported per fact."""

from __future__ import annotations

import pytest

from memory.access import Access, RoleMap
from memory.bulk_facts import bulk_facts
from memory.errors import AccessDenied, ValidationError
from memory.models import FactState
from memory.service import MemoryService

ROLES = RoleMap.model_validate({"operators": {"rita@x.org": "reviewer", "ada@x.org": "admin"}})


@pytest.fixture
def svc(store):
    return MemoryService(store, authorize=Access(ROLES, "login").authorize)


def test_inv121_the_role_is_checked_once_before_anything_is_written(svc):
    ids = [svc.write_fact("ana", f"Likes colour {n}", actor="cli").fact.id for n in range(3)]
    with pytest.raises(AccessDenied):
        bulk_facts(svc, "ana", ids, "forget", actor="operator:rita@x.org")  # needs admin
    assert [f.state for f in svc.facts("ana")] == [FactState.ACTIVE] * 3
    denied = svc.audit("ana", action="denied")
    assert len(denied) == 1 and denied[0].after == {"attempted": "forget"}
    out = bulk_facts(svc, "ana", [*ids[:2], "fact_missing"], "retract",
                     actor="operator:rita@x.org", reason="never said")
    assert [o.ok for o in out] == [True, True, False] and "NotFound" in out[2].error
    assert sorted(f.state.value for f in svc.facts("ana", states=list(FactState))) == [
        "active", "retracted", "retracted"]
    out = bulk_facts(svc, "ana", ids[2:], "forget", actor="operator:ada@x.org")
    assert out[0].ok and svc.facts("ana", states=[FactState.ACTIVE]) == []
    with pytest.raises(ValidationError):
        bulk_facts(svc, "ana", [], "retract", actor="operator:ada@x.org")
    with pytest.raises(ValidationError):
        bulk_facts(svc, "ana", ids, "delete", actor="operator:ada@x.org")
