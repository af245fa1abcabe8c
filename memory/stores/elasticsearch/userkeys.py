"""Per-user read keys for document-level security, derived on demand and never stored (issue 16).

`memdesk es bootstrap-users` marks a user in the state index (no secret in the marker) and
invalidates every key minted for that user before. A process that reads that user's memories
mints its own short-lived key (`expiration`), keeps it in memory only, mints a new one before it
expires and invalidates the one it replaces, and invalidates all of its keys on close; a key
lost in a crash expires by itself (invariant 95).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from elasticsearch import ApiError

from ...errors import MemdeskError

log = logging.getLogger(__name__)
KEY_LIFETIME_S = 3600
RENEW_AT = 0.8  # re-mint when 80% of the lifetime has passed
MARKER_TTL_S = 60.0  # how long "this user is (not) bootstrapped" is believed


def expiration(seconds: int = KEY_LIFETIME_S) -> str:
    return f"{seconds}s"


@dataclass
class MintedKey:
    id: str
    encoded: str
    renew_at: float


class UserKeys:
    """In-memory cache of the keys this process minted. `mint(user)` returns the create-API-key
    answer; `invalidate(ids)` invalidates keys; `marked(user)` says whether bootstrap-users
    enabled the user."""

    def __init__(self, mint: Callable[[str], dict], invalidate: Callable[[list[str]], None],
                 marked: Callable[[str], bool], clock: Callable[[], float] = time.monotonic,
                 lifetime_s: int = KEY_LIFETIME_S) -> None:
        self._mint, self._invalidate, self._marked = mint, invalidate, marked
        self.clock, self.lifetime_s = clock, lifetime_s
        self._lock = threading.RLock()
        self._keys: dict[str, MintedKey] = {}
        self._markers: dict[str, tuple[bool, float]] = {}

    def enabled(self, user_id: str) -> bool:
        with self._lock:
            cached = self._markers.get(user_id)
            if cached is not None and self.clock() < cached[1]:
                return cached[0]
        marked = self._marked(user_id)
        with self._lock:
            self._markers[user_id] = (marked, self.clock() + MARKER_TTL_S)
        return marked

    def key_for(self, user_id: str) -> str | None:
        """The encoded key this user's reads go through, or None when the user is not enabled."""
        with self._lock:
            key = self._keys.get(user_id)
            if key is not None and self.clock() < key.renew_at:
                return key.encoded
        if key is None and not self.enabled(user_id):
            return None
        return self.mint(user_id).encoded

    def mint(self, user_id: str) -> MintedKey:
        with self._lock:
            resp = self._mint(user_id)
            new = MintedKey(str(resp["id"]), str(resp["encoded"]),
                            self.clock() + self.lifetime_s * RENEW_AT)
            old = self._keys.get(user_id)
            self._keys[user_id] = new
            self._markers[user_id] = (True, self.clock() + MARKER_TTL_S)
        if old is not None:
            self._quietly_invalidate([old.id])
        return new

    def forget(self, user_id: str) -> None:
        """The cluster refused this user's key (invalidated elsewhere): mint anew next time."""
        with self._lock:
            self._keys.pop(user_id, None)
            self._markers.pop(user_id, None)

    def close(self) -> None:
        with self._lock:
            ids = [k.id for k in self._keys.values()]
            self._keys.clear()
        if ids:
            self._quietly_invalidate(ids)

    def _quietly_invalidate(self, ids: list[str]) -> None:
        try:
            self._invalidate(ids)
        except (ApiError, MemdeskError) as exc:  # it expires anyway; never fail a read over it
            log.warning("could not invalidate API key(s) %s (%s): they expire by themselves",
                        ", ".join(ids), exc)
