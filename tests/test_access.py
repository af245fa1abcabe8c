"""Roles at the layer (issue 14): every mutation kind, for each role, through the real entry
points over a real embedded store. A refused attempt raises AccessDenied (exit 3), changes
nothing and leaves one `denied` audit event naming who tried what (invariants 120, 121)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import pytest

from memory.access import (
    ACTION_ROLES,
    AGENT_ACTIONS,
    OPERATOR_ONLY,
    Access,
    Role,
    RoleMap,
    cli_actor,
    load_roles,
    needed,
)
from memory.agent import run_turn
from memory.agents.offline import OfflineAgent
from memory.clock import fixed_clock
from memory.consolidation.apply import apply_plan, undo_plan
from memory.consolidation.planner import make_plan
from memory.embeddings import get_embedder
from memory.errors import AccessDenied, ValidationError
from memory.export import export_user, import_user
from memory.forgetting import erase_user
from memory.llm.offline import OfflineLLM
from memory.models import CatalogDoc, MemoryKind
from memory.runtime import build_runtime
from memory.service import MemoryService
from memory.settings import Settings
from memory.stores import open_store
from review import decide, decide_many, propose
from review.undo import undo_last
from tests.conftest import NOW

ROOT = Path(__file__).resolve().parent.parent
ROLES = RoleMap(operators={"vic@example.com": "viewer", "rev@example.com": "reviewer",
                           "ada@example.com": "admin"})
WHO = {Role.VIEWER: "vic@example.com", Role.REVIEWER: "rev@example.com",
       Role.ADMIN: "ada@example.com"}


@dataclass
class World:
    svc: MemoryService
    ids: dict[str, str] = field(default_factory=dict)
    other: MemoryService | None = None  # a second store, for import


def world(tmp_path, role: Role) -> World:
    """A user with a chain, a candidate per decision path, a playbook, an applied plan and new
    episodes to plan from; the service checks roles as a desk with login would."""
    store = open_store(f"embedded:{tmp_path / f'{role.value}.db'}", get_embedder("hash"))
    seeder = MemoryService(store, clock=fixed_clock(NOW))
    ids: dict[str, str] = {}
    ep = seeder.write_episode("ana", "I live in Bristol and drink tea")
    ids["bristol"] = seeder.write_fact("ana", "Lives in Bristol", fact_type="identity",
                                       source_episode_ids=[ep.id]).fact.id
    ids["tea"] = seeder.write_fact("ana", "Drinks tea").fact.id
    ids["job"] = seeder.write_fact("ana", "Works at Acme", fact_type="identity").fact.id
    for name in ("approve", "reject", "edit", "merge", "bulk", "undo"):
        ids[name] = propose(seeder, "ana", f"Candidate {name} fact about hobbies").id
    ids["contra"] = propose(seeder, "ana", "Works at Initech", fact_type="identity",
                            supersedes_id=ids["job"]).id
    ids["pb"] = seeder.write_playbook("ana", "Reset the hub", "wifi drops", ["Hold reset"]).id
    seeder.write_episode("ana", "We moved to Edinburgh")
    plan = make_plan(seeder, "ana", OfflineLLM())
    ids["plan"] = apply_plan(seeder, plan).plan_id
    seeder.write_episode("ana", "I am allergic to peanuts",  # the next plan's one op
                         timestamp=NOW + timedelta(days=1))
    # this operator's own decision, for the undo case
    decide(seeder, "ana", ids["undo"], "approve", operator=WHO[role], expected_rev=1)
    seeder.write_episode("bob", "I like jazz")
    guarded = MemoryService(store, clock=fixed_clock(NOW),
                            authorize=Access(ROLES, "login").authorize)
    w = World(svc=guarded, ids=ids)
    # an export of another user, to import here
    src = open_store(f"embedded:{tmp_path / f'{role.value}-src.db'}", get_embedder("hash"))
    MemoryService(src, clock=fixed_clock(NOW)).write_fact("cy", "Plays the cello")
    w.other = MemoryService(src, clock=fixed_clock(NOW))
    return w


def _import(w: World, actor: str) -> None:
    assert w.other is not None
    exp = export_user(w.other, "cy", actor="cli")
    import_user(w.svc, exp, actor=actor)


# (case, action the denial names, role needed, attempt(world, "operator:EMAIL", "EMAIL"))
CASES = [
    ("write_episode", "write_episode", Role.REVIEWER,
     lambda w, a, op: w.svc.write_episode("ana", "I like rain", actor=a)),
    ("write_fact", "write_fact", Role.REVIEWER,
     lambda w, a, op: w.svc.write_fact("ana", "Likes rain", actor=a)),
    ("supersede", "write_fact", Role.REVIEWER,
     lambda w, a, op: w.svc.write_fact("ana", "Drinks coffee", supersedes_id=w.ids["tea"],
                                       actor=a)),
    ("retract", "retract", Role.REVIEWER,
     lambda w, a, op: w.svc.retract("ana", w.ids["tea"], actor=a, reason="never")),
    ("forget", "forget", Role.ADMIN,
     lambda w, a, op: w.svc.forget("ana", w.ids["tea"], actor=a)),
    ("write_playbook", "write_playbook", Role.REVIEWER,
     lambda w, a, op: w.svc.write_playbook("ana", "Boil", "kettle", ["Fill"], actor=a)),
    ("playbook_outcome", "playbook_outcome", Role.REVIEWER,
     lambda w, a, op: w.svc.record_outcome("ana", w.ids["pb"], success=True, actor=a)),
    ("propose", "propose_fact", Role.REVIEWER,
     lambda w, a, op: propose(w.svc, "ana", "Owns a kayak", actor=a)),
    ("review_approve", "review_approve", Role.REVIEWER,
     lambda w, a, op: decide(w.svc, "ana", w.ids["approve"], "approve", operator=op,
                             expected_rev=1)),
    ("review_reject", "review_reject", Role.REVIEWER,
     lambda w, a, op: decide(w.svc, "ana", w.ids["reject"], "reject", operator=op,
                             expected_rev=1, reason="not said")),
    ("review_edit", "review_edit", Role.REVIEWER,
     lambda w, a, op: decide(w.svc, "ana", w.ids["edit"], "edit", operator=op, expected_rev=1,
                             text="Collects stamps")),
    ("review_merge", "review_merge", Role.REVIEWER,
     lambda w, a, op: decide(w.svc, "ana", w.ids["merge"], "merge", operator=op,
                             expected_rev=1, into=w.ids["tea"])),
    ("review_keep_both", "review_keep_both", Role.REVIEWER,
     lambda w, a, op: decide(w.svc, "ana", w.ids["contra"], "keep-both", operator=op,
                             expected_rev=1)),
    ("review_accept", "review_accept", Role.REVIEWER,
     lambda w, a, op: decide(w.svc, "ana", w.ids["contra"], "accept", operator=op,
                             expected_rev=1)),
    ("review_undo", "review_undo", Role.REVIEWER,
     lambda w, a, op: undo_last(w.svc, "ana", operator=op)),
    ("consolidate", "write_fact", Role.REVIEWER,
     lambda w, a, op: apply_plan(w.svc, make_plan(w.svc, "ana", OfflineLLM()), actor=a)),
    ("consolidate_undo", "consolidate_undo", Role.ADMIN,
     lambda w, a, op: undo_plan(w.svc, "ana", w.ids["plan"], actor=a)),
    ("chat", "chat", Role.REVIEWER,
     lambda w, a, op: run_turn(w.svc, "ana", "s1", "I moved to Leeds", agent=OfflineAgent(),
                               operator=a)),
    ("erase_user", "erase_user", Role.ADMIN, lambda w, a, op: erase_user(w.svc, "bob", actor=a)),
    ("export_user", "export_user", Role.ADMIN,
     lambda w, a, op: export_user(w.svc, "ana", actor=a)),
    ("import_user", "import_user", Role.ADMIN, lambda w, a, op: _import(w, a)),
    ("write_catalog", "write_catalog", Role.ADMIN,
     lambda w, a, op: w.svc.add_catalog([CatalogDoc(title="Manual", text="Hub")], actor=a)),
    ("consolidate_dry_run", "consolidate_dry_run", Role.REVIEWER,
     lambda w, a, op: w.svc.require(a, "consolidate_dry_run", "ana")),
]


def snapshot(svc: MemoryService) -> dict:
    s = svc.store
    out = {}
    for user in ("ana", "bob", "cy"):
        out[user] = (sorted(f.model_dump_json() for f in s.list_facts(user)),
                     sorted(e.model_dump_json() for e in s.list_episodes(user)),
                     sorted(p.model_dump_json() for p in s.list_playbooks(user)),
                     sorted(t.model_dump_json() for t in s.list_tombstones(user)),
                     s.watermarks(user))
    out["catalog"] = sorted(d.model_dump_json() for d in s.list_catalog())
    return out


def audit_ids(svc: MemoryService) -> dict[str, list[str]]:
    return {u: [e.id for e in svc.store.audit(u, limit=10**6)]
            for u in ("ana", "bob", "cy", "catalog")}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("role", list(Role), ids=[r.value for r in Role])
def test_every_mutation_kind_checks_the_role_at_the_layer(case, role, tmp_path):
    """Invariant 121, table-driven: allowed for the role the table names and above; below
    it, AccessDenied, nothing written, one `denied` event with who and what."""
    _name, action, need, attempt = case
    assert needed(action) == need  # the table and this test agree
    w = world(tmp_path, role)
    email = WHO[role]
    actor = f"operator:{email}"
    before, events_before = snapshot(w.svc), audit_ids(w.svc)
    if {Role.VIEWER: 1, Role.REVIEWER: 2, Role.ADMIN: 3}[role] >= \
            {Role.VIEWER: 1, Role.REVIEWER: 2, Role.ADMIN: 3}[need]:
        attempt(w, actor, email)  # no AccessDenied: the role suffices
        for user in events_before:
            new = [e for e in w.svc.store.audit(user, limit=10**6)
                   if e.id not in events_before[user]]
            assert all(e.outcome != "denied" for e in new)
        return
    with pytest.raises(AccessDenied) as err:
        attempt(w, actor, email)
    assert err.value.exit_code == 3
    assert f"{actor} may not" in str(err.value) and need.value in str(err.value)
    assert snapshot(w.svc) == before  # nothing changed
    after = audit_ids(w.svc)
    new = {u: [i for i in after[u] if i not in events_before[u]] for u in after}
    assert sum(len(v) for v in new.values()) == 1  # exactly the denial, nothing else
    scope = next(u for u, v in new.items() if v)
    event = w.svc.store.audit(scope, limit=1)[0]
    assert (event.actor, event.action, event.outcome) == (actor, "denied", "denied")
    assert event.after == {"attempted": action} and str(err.value) == event.reason


def test_bulk_decisions_by_a_viewer_are_denied_per_item(tmp_path):
    """A viewer's bulk approve decides nothing; each item says it was denied (exit 3)."""
    w = world(tmp_path, Role.VIEWER)
    out = decide_many(w.svc, [("ana", w.ids["approve"], 1), ("ana", w.ids["bulk"], 1)],
                      "approve", operator=WHO[Role.VIEWER])
    assert [(o.ok, o.exit_code) for o in out] == [(False, 3), (False, 3)]
    assert all("AccessDenied" in (o.error or "") for o in out)
    assert len(w.svc.audit("ana", action="denied")) == 2
    assert w.svc.get_fact("ana", w.ids["approve"]).state.value == "candidate"


def test_system_actors_and_the_cli_may_do_anything():
    """...but what only a person may do (invariant 541: the search across users)."""
    access = Access(ROLES, "login")
    for actor in ("agent", "consolidation", "seed", "migrate", "cli", "cli:root", cli_actor()):
        for action in [*ACTION_ROLES, "something_new"]:
            if action in OPERATOR_ONLY and not actor.startswith("cli"):
                with pytest.raises(AccessDenied, match="only an operator"):
                    access.authorize(actor, action, "ana")
                continue
            access.authorize(actor, action, "ana")
    assert access.role_of(cli_actor()) == Role.ADMIN


def test_an_mcp_token_may_do_what_the_agents_tools_do():
    access = Access(ROLES, "login")
    for action in AGENT_ACTIONS:
        access.authorize("mcp:tok_1", action, "ana")
    for action in ("review_approve", "erase_user", "export_user", "consolidate_undo"):
        with pytest.raises(AccessDenied, match="MCP token"):
            access.authorize("mcp:tok_1", action, "ana")


def test_operators_by_mode():
    local_viewer = RoleMap(local="viewer", operators={"ada@example.com": "admin"})
    # the CLI: a local admin, whatever --operator names
    assert Access(local_viewer, "cli").role_of("operator:anyone") == Role.ADMIN
    # a desk without login: a typed name proves nothing, every operator has the local role
    assert Access(local_viewer, "local").role_of("operator:ada@example.com") == Role.VIEWER
    assert Access(RoleMap(), "local").role_of("operator:rita") == Role.ADMIN  # the demo
    # login: address, then domain, then default; case does not matter
    roles = RoleMap(default="viewer", operators={"Rita@Example.com": "admin",
                                                 "@example.com": "reviewer"})
    login = Access(roles, "login")
    assert login.role_of("operator:rita@example.COM") == Role.ADMIN
    assert login.role_of("operator:sam@example.com") == Role.REVIEWER
    assert login.role_of("operator:sam@sub.example.com") == Role.VIEWER  # domains are exact
    assert login.role_of("operator:eve@elsewhere.org") == Role.VIEWER
    nobody = Access(RoleMap(operators={"@example.com": "admin"}), "login")
    assert nobody.role_of("operator:eve@elsewhere.org") is None
    with pytest.raises(AccessDenied, match="no role on this desk"):
        nobody.authorize("operator:eve@elsewhere.org", "read", "ana")


def test_unknown_actions_need_admin():
    assert needed("brand_new_thing") == Role.ADMIN
    with pytest.raises(AccessDenied, match="needs admin"):
        Access(ROLES, "login").authorize("operator:rev@example.com", "brand_new_thing", "ana")


def test_roles_file_toml_and_json(tmp_path):
    toml = tmp_path / "roles.toml"
    toml.write_text('default = "viewer"\nlocal = "reviewer"\n[operators]\n'
                    '"rita@example.com" = "admin"\n"@example.com" = "reviewer"\n')
    roles = load_roles(toml)
    assert (roles.default, roles.local) == (Role.VIEWER, Role.REVIEWER)
    assert roles.lookup("rita@example.com") == Role.ADMIN
    js = tmp_path / "roles.json"
    js.write_text(json.dumps({"operators": {"ravi@example.org": "viewer"}}))
    assert load_roles(js).lookup("RAVI@example.org") == Role.VIEWER
    assert load_roles("") == RoleMap()
    for body, msg in [('[operators]\n"rita" = "admin"\n', "neither an email address"),
                      ('[operators]\n"rita@example.com" = "owner"\n', "operators"),
                      ('colour = "blue"\n', "colour"),
                      ("operators = [", "cannot be read")]:
        toml.write_text(body)
        with pytest.raises(ValidationError, match=msg):
            load_roles(toml)
    with pytest.raises(ValidationError, match="MEMDESK_ROLES_FILE"):
        load_roles(tmp_path / "missing.toml")


def test_the_runtime_wires_roles_into_every_batch(tmp_path):
    """Holds by construction: the runtime's service checks roles; a bad roles file fails at
    start-up, before anything opens (invariants 18, 120)."""
    roles = tmp_path / "roles.toml"
    roles.write_text('[operators]\n"vic@example.com" = "viewer"\n')
    settings = Settings.from_env({"MEMDESK_ROLES_FILE": str(roles), "MEMDESK_EMBEDDER": "hash"})
    rt = build_runtime(settings, store_url=f"embedded:{tmp_path / 'rt.db'}", operators="login")
    try:
        with pytest.raises(AccessDenied):
            rt.service.write_episode("ana", "hello", actor="operator:vic@example.com")
        assert rt.service.audit("ana", action="denied")[0].actor == "operator:vic@example.com"
        rt.service.write_episode("ana", "hello", actor="agent")  # the agent writes as before
    finally:
        rt.close()
    roles.write_text("[operators\n")
    with pytest.raises(ValidationError, match="MEMDESK_ROLES_FILE"):
        build_runtime(settings, store_url=f"embedded:{tmp_path / 'rt2.db'}")
    with pytest.raises(ValidationError, match="MEMDESK_ALLOW_ANONYMOUS"):
        Settings.from_env({"MEMDESK_ALLOW_ANONYMOUS": "yes please"})
    assert Settings.from_env({"MEMDESK_ALLOW_ANONYMOUS": "true"}).allow_anonymous


def test_every_action_in_the_code_is_in_the_role_table():
    """Invariant 120: no action can slip past the table (an unlisted one needs admin, which
    would quietly lock reviewers out of a new feature)."""
    pattern = re.compile(r"""(?:action=|\.note\(|\.event_for\(|\.require\(|record_now\()"""
                         r"""\s*f?["']([a-z_{}.\-]+)["']""")
    found = set()
    service_require = re.compile(r"""\.require\(\s*[\w.]+,\s*["']([a-z_]+)["']""")
    for path in [*ROOT.glob("memory/**/*.py"), *ROOT.glob("review/*.py"), *ROOT.glob("pages/*.py")]:
        if "eval" in path.parts and path.name != "desk_runs.py":
            continue  # throwaway stores of the stress scenarios, never a runtime's
        text = path.read_text(encoding="utf-8")
        found |= {m.group(1) for p in (pattern, service_require) for m in p.finditer(text)}
    # f-strings: review_{decision.value} expands to every decision; writes by kind and the
    # review undo are named by constants
    from memory.unit_of_work import _WRITE_ACTION
    from review.undo import UNDO_ACTION

    found = {a for a in found if "{" not in a} | {f"review_{d}" for d in (
        "approve", "accept", "reject", "edit", "merge", "keep_both")}
    found |= {*_WRITE_ACTION.values(), UNDO_ACTION}
    recorded_only = {"denied", "write_refused", "review_refused"}  # record_now: no check
    argparse = {"store_true", "append", "store_false"}
    missing = found - set(ACTION_ROLES) - recorded_only - argparse
    assert not missing, f"actions without a role: {sorted(missing)}"
    assert {"consolidate_undo", "erase_user", "forget", "export_user", "run_eval"} <= found


def test_kinds_write_actions_are_listed():
    from memory.unit_of_work import _WRITE_ACTION

    assert set(_WRITE_ACTION.values()) <= set(ACTION_ROLES)
    assert set(_WRITE_ACTION) == set(MemoryKind)
