"""Minting, listing, revoking and checking bearer tokens (issue 15).

A token acts for exactly one user, named when it is minted; nothing presented with it (tool
arguments, resource URIs, paths, other headers) can change that user (invariant 130). Minting
and revoking go through the unit of work, so each is audited in the token user's log with the
token id and never the secret (invariant 131). `authenticate` is the one check every MCP request
over HTTP passes: missing, malformed, unknown, expired and revoked tokens are refused (132).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict

from . import credentials as creds
from .credentials import Credential
from .errors import MemdeskError, NotFoundError, ValidationError
from .inputs import optional_label
from .service import MemoryService
from .text import require_user
from .unit_of_work import as_actor

MAX_LIFETIME = timedelta(days=3650)
_UNITS = {"m": timedelta(minutes=1), "h": timedelta(hours=1), "d": timedelta(days=1),
          "w": timedelta(weeks=1)}


class AuthError(MemdeskError):
    """A presented token does not authenticate (HTTP 401). The message says why without
    revealing whether a token id exists unless the caller proved they hold its secret."""

    exit_code = 3


class IssuedToken(BaseModel):
    """What `create_token` returns: the record and the one and only copy of the token."""

    model_config = ConfigDict(frozen=True)
    credential: Credential
    token: str


def parse_lifetime(raw: str) -> timedelta | None:
    """`30d`, `12h`, `90m`, `2w`, or `never` (None). Pure; one clear error otherwise."""
    text = (raw or "").strip().lower()
    if text == "never":
        return None
    m = re.fullmatch(r"([0-9]{1,7})\s*([mhdw])", text)
    if not m:
        raise ValidationError(f"invalid expiry {raw!r}: expected a number and a unit (m, h, d "
                              "or w), e.g. 30d or 12h, or never")
    life = int(m.group(1)) * _UNITS[m.group(2)]
    if life <= timedelta(0) or life > MAX_LIFETIME:
        raise ValidationError(f"invalid expiry {raw!r}: between 1 minute and 3650 days")
    return life


def create_token(svc: MemoryService, user_id: str, *, actor: str, read_only: bool = False,
                 lifetime: timedelta | None = None, label: str | None = None) -> IssuedToken:
    """Mint a token for one user; the caller shows `token` once (it is not stored)."""
    user_id, actor = require_user(user_id), as_actor(actor)
    token_id, token, digest = creds.mint_secret()
    now = svc.clock()
    cred = Credential(id=token_id, user_id=user_id, secret_sha256=digest, read_only=read_only,
                      label=optional_label(label, "label", limit=200), created_at=now, created_by=actor,
                      expires_at=None if lifetime is None else now + lifetime)
    with svc.batch(actor, user_id) as b:
        b.put_credential(cred, action="token_create")
    return IssuedToken(credential=cred, token=token)


def list_tokens(svc: MemoryService, user_id: str | None = None) -> list[Credential]:
    """One user's tokens, or (None) every token: the admins' list. Hashes stay in the records;
    show them through `Credential.public`."""
    return svc.store.list_credentials(None if user_id is None else require_user(user_id))


def revoke_token(svc: MemoryService, token_id: str, *, actor: str,
                 reason: str | None = None) -> Credential:
    """Revoke at once: the next request with it is refused (no cache stands in between)."""
    actor = as_actor(actor)
    cred = svc.store.get_credential(token_id) if creds.TOKEN_ID.match(token_id or "") else None
    if cred is None:
        raise NotFoundError(f"no token {token_id}", target_id=token_id)
    if cred.revoked_at is not None:
        return cred  # already revoked: nothing to change, nothing to audit
    new = cred.model_copy(update={"revoked_at": svc.clock(), "revoked_by": actor,
                                  "rev": cred.rev + 1})
    with svc.batch(actor, cred.user_id, reason=optional_label(reason, "reason")) as b:
        b.put_credential(new, action="token_revoke", before=cred)
    return new


def authenticate(svc: MemoryService, presented: str | None, *,
                 now: datetime | None = None) -> Credential:
    """The credential a presented token proves, or AuthError. Read from the store on every
    call: a revocation in another process applies to the very next request."""
    if not presented:
        raise AuthError("missing bearer token")
    parsed = creds.parse_token(presented)
    cred = svc.store.get_credential(parsed[0]) if parsed else None
    if parsed is None or cred is None or not creds.matches(cred, parsed[1]):
        raise AuthError("invalid token")
    status = cred.status(now or svc.clock())
    if status != "active":
        raise AuthError(f"token {cred.id} is {status}")
    return cred
