"""Who may do what (issue 14): roles, the role each action needs, and the check the unit of work
calls for every mutation. Pure: the roles file is read once by the runtime (`load_roles`).

Three roles, each including the one before:
  viewer    reads everything;
  reviewer  decides review items, plans and applies consolidation, chats as a persona, writes
            and retracts facts;
  admin     forgets, erases and exports a user, imports, undoes plans, runs evals, writes the
            shared catalog.

Who holds which role depends on how operators are known (`OperatorMode`):
  cli    the command line: the person at the shell owns the store's files, so every actor is a
         local admin (`cli:<os user>`; `--operator NAME` only names who decided);
  local  the desk without login (bound to 127.0.0.1): a typed name proves nothing, so every
         operator has the roles file's `local` role (admin unless it says otherwise);
  login  the desk with OIDC login: `operator:<email>` from the identity provider, looked up in
         the roles file by address, then by @domain, then `default` (none: no access).
System actors (agent, consolidation, seed, migrate) may do anything; an MCP token (`mcp:ID`)
may do what the agent's tools do. An action missing from the table needs admin (invariant 120).
"""

from __future__ import annotations

import getpass
import json
import re
import tomllib
from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic import ValidationError as PydanticError

from .errors import AccessDenied, ValidationError
from .models import check_actor


class Role(StrEnum):
    VIEWER = "viewer"
    REVIEWER = "reviewer"
    ADMIN = "admin"


RANK = {Role.VIEWER: 1, Role.REVIEWER: 2, Role.ADMIN: 3}

# Every action a batch checks (memory/unit_of_work.py), and the reads the layers guard, with
# the role it needs (invariant 120). tests/test_access.py fails when code uses an action that
# is not listed here.
ACTION_ROLES: dict[str, Role] = {
    # reads the layers guard
    "read": Role.VIEWER,
    "consolidate_dry_run": Role.REVIEWER,  # a plan costs a model call
    "export_user": Role.ADMIN,
    "run_eval": Role.ADMIN,
    # a persona's words and the agent's turn (the desk's chat)
    "chat": Role.REVIEWER,
    "write_episode": Role.REVIEWER,
    "write_fact": Role.REVIEWER,
    "write_playbook": Role.REVIEWER,
    "supersede": Role.REVIEWER,
    "retract": Role.REVIEWER,
    "record_outcome": Role.REVIEWER,
    "playbook_outcome": Role.REVIEWER,
    # review
    "propose": Role.REVIEWER,
    "propose_fact": Role.REVIEWER,
    "propose_retraction": Role.REVIEWER,  # invariant 590: a denial sent to review
    "review_approve": Role.REVIEWER,
    "review_accept": Role.REVIEWER,
    "review_reject": Role.REVIEWER,
    "review_edit": Role.REVIEWER,
    "review_merge": Role.REVIEWER,
    "review_keep_both": Role.REVIEWER,
    "review_retract": Role.REVIEWER,  # a proposed retraction decided (invariant 591)
    "review_keep": Role.REVIEWER,
    "merge_sources": Role.REVIEWER,
    "review_undo": Role.REVIEWER,  # an operator's own last decision
    "review_claim": Role.REVIEWER,  # issue 34: a short lease on the item on screen
    # consolidation
    "consolidate": Role.REVIEWER,
    "update_playbook": Role.REVIEWER,
    "consolidate_undo": Role.ADMIN,
    # what cannot be taken back, and what spans users
    "forget": Role.ADMIN,
    "erase_user": Role.ADMIN,
    "import_user": Role.ADMIN,
    "restore": Role.ADMIN,
    "migrate": Role.ADMIN,  # a whole store copied into another (invariant 8)
    "reindex": Role.ADMIN,  # every index moved to the current mapping (invariant 8)
    "write_catalog": Role.ADMIN,
    # MCP bearer tokens (issue 15): who may act for a user from outside the desk
    "token_create": Role.ADMIN,
    "token_revoke": Role.ADMIN,
    # issue 34: one search over every user's facts, named as such (memory/cross_user.py)
    "search_all_users": Role.ADMIN,
}
# Actions only a person may take (an admin at the desk, the CLI): never the agent, consolidation
# or an MCP token, whatever else a system actor may do (invariant 541).
OPERATOR_ONLY = frozenset({"search_all_users"})

SYSTEM_ACTORS = frozenset({"agent", "consolidation", "seed", "migrate", "cli"})
# What an MCP token may do: the agent's own tools (memory/tools.py), nothing an operator decides.
AGENT_ACTIONS = frozenset({"read", "write_episode", "write_fact", "write_playbook", "supersede",
                           "retract", "forget", "propose", "propose_fact",
                           "propose_retraction", "record_outcome",
                           "playbook_outcome"})

OperatorMode = Literal["cli", "local", "login"]
_ADDRESS = re.compile(r"^[^@\s]+@[^@\s]+$")
_DOMAIN = re.compile(r"^@[^@\s]+$")


def needed(action: str) -> Role:
    """The role an action needs; an unknown action needs admin (fail closed)."""
    return ACTION_ROLES.get(action, Role.ADMIN)


class RoleMap(BaseModel):
    """The roles file (MEMDESK_ROLES_FILE), TOML or JSON:

        default = "viewer"            # a signed-in operator not listed; omit: no access
        local = "admin"               # every operator of a desk without login
        [operators]
        "rita@example.com" = "admin"
        "@example.com" = "reviewer"   # anyone whose address ends in @example.com
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    default: Role | None = Field(None, description="role of a signed-in operator not listed")
    local: Role = Field(Role.ADMIN, description="role of every operator of a desk without login")
    operators: dict[str, Role] = Field(default_factory=dict)

    @field_validator("operators", mode="after")
    @classmethod
    def _addresses(cls, value: dict[str, Role]) -> dict[str, Role]:
        out: dict[str, Role] = {}
        for key, role in value.items():
            k = key.strip().casefold()
            if not (_ADDRESS.match(k) or _DOMAIN.match(k)):
                raise ValueError(f"{key!r} is neither an email address nor an @domain")
            out[k] = role
        return out

    def lookup(self, email: str) -> Role | None:
        """The address's own entry, else its domain's, else `default`. Case does not matter."""
        addr = email.strip().casefold()
        if addr in self.operators:
            return self.operators[addr]
        if "@" in addr:
            domain = "@" + addr.rsplit("@", 1)[1]
            if domain in self.operators:
                return self.operators[domain]
        return self.default


def load_roles(path: str | Path | None) -> RoleMap:
    """Read the roles file once, at start-up; a bad file fails naming it (invariant 18)."""
    if not path:
        return RoleMap()
    p = Path(path)
    try:
        raw = p.read_bytes().decode("utf-8")
    except OSError as exc:
        raise ValidationError(f"MEMDESK_ROLES_FILE={str(p)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ValidationError(f"MEMDESK_ROLES_FILE={str(p)!r} is not UTF-8 text") from None
    try:
        data = json.loads(raw) if p.suffix.lower() == ".json" else tomllib.loads(raw)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValidationError(f"MEMDESK_ROLES_FILE={str(p)!r} cannot be read: {exc}") from None
    try:
        return RoleMap.model_validate(data)
    except PydanticError as exc:
        first = exc.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ())) or "file"
        msg = str(first.get("msg", "invalid")).removeprefix("Value error, ")
        raise ValidationError(f"MEMDESK_ROLES_FILE={str(p)!r}: {where}: {msg}") from None


def is_system(actor: str) -> bool:
    return actor in SYSTEM_ACTORS or actor.startswith("cli:")


class Access:
    """The authorize hook of every batch (memory/unit_of_work.py), built by the runtime."""

    def __init__(self, roles: RoleMap | None = None, mode: OperatorMode = "cli") -> None:
        self.roles = roles or RoleMap()
        self.mode = mode

    def role_of(self, actor: str) -> Role | None:
        """An operator's role; admin for the CLI; None for the agent, tokens and strangers."""
        if actor == "cli" or actor.startswith("cli:"):
            return Role.ADMIN
        if not actor.startswith("operator:"):
            return None
        if self.mode == "cli":
            return Role.ADMIN
        if self.mode == "local":
            return self.roles.local
        return self.roles.lookup(actor.removeprefix("operator:"))

    def allows(self, actor: str, action: str) -> bool:
        if action in OPERATOR_ONLY and not (actor == "cli" or actor.startswith(("cli:",
                                                                                "operator:"))):
            return False  # invariant 541
        if is_system(actor):
            return True
        if actor.startswith("mcp:"):
            return action in AGENT_ACTIONS
        role = self.role_of(actor)
        return role is not None and RANK[role] >= RANK[needed(action)]

    def authorize(self, actor: str, action: str, user_id: str) -> None:
        """Raise AccessDenied unless `actor` may do `action` (invariant 121)."""
        if self.allows(actor, action):
            return
        role = self.role_of(actor)
        if action in OPERATOR_ONLY and role is None:
            why = "only an operator (a desk admin, the command line) may"
        elif actor.startswith("mcp:"):
            why = "an MCP token may only do what the agent's tools do"
        elif role is None:
            why = "no role on this desk (MEMDESK_ROLES_FILE lists who has one)"
        else:
            why = f"{role.value}, needs {needed(action).value}"
        raise AccessDenied(f"{actor} may not {action} for {user_id}: {why}")


def cli_actor() -> str:
    """`cli:<os user>`: who runs a command, as the operating system knows them. A name that is
    no valid actor (spaces, colons) is made one; no name at all is plain `cli`."""
    try:
        name = getpass.getuser()
    except Exception:  # noqa: BLE001 - no passwd entry (a bare container): still the CLI
        return "cli"
    name = re.sub(r"[\s:]+", "_", name or "").strip("_")[:64]
    try:
        return check_actor(f"cli:{name}") if name else "cli"
    except ValueError:
        return "cli"
