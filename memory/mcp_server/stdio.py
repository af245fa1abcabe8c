"""MCP over stdio: one client, one user fixed when the process starts (issue 15).

The launching configuration (Claude Desktop, Claude Code) names the user with `--user`; the
process runs with the store's file permissions, so no token is asked for. Writes are audited
as `mcp:stdio` (invariant 133). Nothing but protocol messages goes to stdout.
"""

from __future__ import annotations

from datetime import timedelta

from mcp.server.stdio import stdio_server

from ..service import MemoryService
from ..text import require_user
from .principal import STDIO_ACTOR, Principal, RecallLedger
from .server import MemoryMCP


async def serve_stdio(service: MemoryService, user_id: str, *, read_only: bool = False,
                      recall_window: timedelta = timedelta(hours=1)) -> None:
    who = Principal(user_id=require_user(user_id), actor=STDIO_ACTOR, read_only=read_only)
    ledger = RecallLedger(recall_window, clock=service.clock)
    server = MemoryMCP(service, lambda ctx: who, ledger=ledger).build()
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
