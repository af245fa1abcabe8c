"""Who an MCP request acts for, and what it recalled before.

The principal comes from the transport, never from the request's content: over HTTP from the
bearer token the gate checked (memory/mcp_server/http.py), over stdio from `--user` at start-up
(invariant 130).

The agent may replace or forget only an id it recalled in the same turn (invariants 71, 75).
An MCP client has no turn we can see, and the 2026 protocol has no session either, so the
ledger keeps what each principal recalled for a bounded window (MEMDESK_MCP_RECALL_WINDOW):
a write or forget must name an id this same token was shown recently (invariant 134).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime, timedelta

from ..clock import Clock, utcnow
from ..credentials import Credential

STDIO_ACTOR = "mcp:stdio"
MAX_REMEMBERED = 2000  # recalled ids kept per principal (oldest forgotten first)


@dataclass(frozen=True)
class Principal:
    user_id: str
    actor: str  # mcp:<token id>, or mcp:stdio
    read_only: bool = False
    token_id: str | None = None

    @classmethod
    def of(cls, cred: Credential) -> Principal:
        return cls(user_id=cred.user_id, actor=f"mcp:{cred.id}", read_only=cred.read_only,
                   token_id=cred.id)

    @property
    def key(self) -> str:
        return f"{self.actor}\x1f{self.user_id}"


class RecallLedger:
    """Ids each principal was shown by recall_memory, each for `window` after it was shown."""

    def __init__(self, window: timedelta, clock: Clock = utcnow) -> None:
        self.window, self.clock = window, clock
        self._seen: dict[str, OrderedDict[str, datetime]] = {}
        self._lock = threading.Lock()

    def ids(self, key: str) -> set[str]:
        cutoff = self.clock() - self.window
        with self._lock:
            seen = self._seen.get(key)
            if not seen:
                return set()
            for memory_id in [i for i, at in seen.items() if at < cutoff]:
                del seen[memory_id]
            return set(seen)

    def update(self, key: str, before: set[str], after: set[str]) -> None:
        """Record what a call added to (recalled) or took from (forgot) the set it was given."""
        now = self.clock()
        with self._lock:
            seen = self._seen.setdefault(key, OrderedDict())
            for memory_id in before - after:
                seen.pop(memory_id, None)
            for memory_id in after - before:
                seen[memory_id] = now
                seen.move_to_end(memory_id)
            while len(seen) > MAX_REMEMBERED:
                seen.popitem(last=False)

    def touch(self, key: str, ids: set[str]) -> None:
        """Recalled again: the window starts over for these ids."""
        now = self.clock()
        with self._lock:
            seen = self._seen.setdefault(key, OrderedDict())
            for memory_id in ids:
                seen[memory_id] = now
                seen.move_to_end(memory_id)
