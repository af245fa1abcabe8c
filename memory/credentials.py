"""Bearer credentials (issue 15): one token, one user, stored only as a hash.

A token reads `mdk_<token id>.<secret>`. The store keeps the token id, the user it belongs to
and the SHA-256 of the id and secret together; the secret itself is shown once, when the token
is minted, and never stored, logged or audited (invariant 131). Data and pure functions only:
minting, listing and revoking go through memory/tokens.py and the unit of work.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .models import UTC, OptUTC

TOKEN_PREFIX = "mdk_"
TOKEN_ID = re.compile(r"^tok_[0-9a-f]{16}$")  # what mint_secret makes; fits mcp:TOKEN_ID actors
_TOKEN = re.compile(r"^mdk_(tok_[0-9a-f]{16})\.([A-Za-z0-9_-]{43})$")
Status = Literal["active", "expired", "revoked"]


class Credential(BaseModel):
    """One bearer token's record. `rev` guards revocation against a concurrent change."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=TOKEN_ID.pattern, description="token id; the audit's mcp:<id>")
    user_id: str = Field(description="the one user this token acts for")
    purpose: Literal["mcp"] = "mcp"
    secret_sha256: str = Field(pattern=r"^[0-9a-f]{64}$", repr=False,
                               description="SHA-256 of the id and secret; the secret is not kept")
    read_only: bool = False
    label: str | None = Field(None, max_length=200, description="what the token is for")
    created_at: UTC
    created_by: str
    expires_at: OptUTC = None
    revoked_at: OptUTC = None
    revoked_by: str | None = None
    rev: int = Field(1, ge=1)

    @model_validator(mode="after")
    def _times(self) -> Credential:
        if self.expires_at is not None and self.expires_at <= self.created_at:
            raise ValueError("a token must expire after it is created")
        return self

    def status(self, now: datetime) -> Status:
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and now >= self.expires_at:
            return "expired"
        return "active"

    def public(self, now: datetime | None = None) -> dict[str, Any]:
        """Everything but the hash: for listings, the desk and audit snapshots."""
        out = self.model_dump(mode="json", exclude={"secret_sha256"})
        if now is not None:
            out["status"] = self.status(now)
        return out


def secret_hash(token_id: str, secret: str) -> str:
    # The id is part of the hashed text, so a stored hash matches only under its own id.
    return hashlib.sha256(f"memdesk-token\x1f{token_id}\x1f{secret}".encode()).hexdigest()


def mint_secret() -> tuple[str, str, str]:
    """(token id, the token to hand out, its hash). 256 random bits of secret."""
    token_id = f"tok_{secrets.token_hex(8)}"
    secret = secrets.token_urlsafe(32)
    return token_id, f"{TOKEN_PREFIX}{token_id}.{secret}", secret_hash(token_id, secret)


def parse_token(presented: str) -> tuple[str, str] | None:
    """(token id, secret) of a well-formed token, else None. Pure."""
    m = _TOKEN.match(presented.strip()) if isinstance(presented, str) else None
    return (m.group(1), m.group(2)) if m else None


def matches(credential: Credential, secret: str) -> bool:
    """Constant-time comparison of the presented secret's hash with the stored one."""
    return hmac.compare_digest(credential.secret_sha256,
                               secret_hash(credential.id, secret))
