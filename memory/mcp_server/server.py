"""The MCP server: the agent's three memory tools and two read-only resources, for one user.

Tools are memory/tools.py's: the same pydantic schemas (listed as each tool's inputSchema), the
same validation (the SDK's own schema check is off so that `execute` strips scope keys and
reports them, exactly as for the chat agent), the same gates and the same writes through the
unit of work, with actor `mcp:<token id>` (invariant 133). The user is the principal's; every
handler asks `principal_of(ctx)` and nothing else (invariant 130).

Resources: `memdesk://facts` (the user's active facts) and `memdesk://facts/{fact_id}/chain`
(one fact's supersession chain). A URI names no user; anything else is not found.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import partial
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from ..errors import MemdeskError
from ..models import Fact, FactState
from ..policy import ReviewPolicy
from ..service import MemoryService
from ..tools import TOOLS, ToolContext, ToolResult, execute
from .principal import Principal, RecallLedger

RESOURCE_NOT_FOUND = -32002  # the MCP spec's code for an unknown resource
WRITE_TOOLS = frozenset({"write_memory", "forget_memory"})
FACTS_URI = "memdesk://facts"
CHAIN_TEMPLATE = "memdesk://facts/{fact_id}/chain"
_CHAIN_URI = re.compile(r"^memdesk://facts/([A-Za-z0-9_-]{1,200})/chain$")

PrincipalOf = Callable[[Any], Principal]
Context = ServerRequestContext[Any]  # what the SDK hands each handler (no lifespan state)


def fact_view(f: Fact) -> dict[str, Any]:
    """A fact as a resource shows it: values and both clocks, no internal bookkeeping."""
    out = f.model_dump(mode="json", include={
        "id", "text", "fact_type", "confidence", "state", "valid_from", "valid_to",
        "recorded_at", "superseded_at", "supersedes", "superseded_by", "contradiction"})
    return {k: v for k, v in out.items() if v is not None}


def _text(payload: Any) -> list[types.TextContent]:
    return [types.TextContent(type="text", text=json.dumps(payload, ensure_ascii=False,
                                                           default=str))]


class MemoryMCP:
    """Handlers bound to a service, a policy, a recall ledger and a way to find the principal."""

    def __init__(self, service: MemoryService, principal_of: PrincipalOf, *,
                 ledger: RecallLedger, policy: ReviewPolicy | None = None) -> None:
        self.service, self.principal_of, self.ledger = service, principal_of, ledger
        self.policy = policy or service.policy

    def build(self) -> Server:
        schemas = {t.name: t.schema_for_model() for t in TOOLS.values()}
        return Server(
            "memdesk", version="0.1.0", title="Memdesk memory",
            instructions=("Long-term memory of one user (the one your credentials belong to). "
                          "Recall before you answer; write durable facts the user states; pass a "
                          "recalled id to replace, retract or forget a memory."),
            on_list_tools=self.list_tools, on_call_tool=self.call_tool,
            on_list_resources=self.list_resources,
            on_list_resource_templates=self.list_resource_templates,
            on_read_resource=self.read_resource,
            # Mcp-Param header checks look the schema up here instead of re-listing the tools
            # on every call (our schemas declare no header parameters).
            get_tool_input_schema=schemas.get)

    # tools ------------------------------------------------------------------------------------
    async def list_tools(self, ctx: Context, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        who = self.principal_of(ctx)
        tools = [types.Tool(name=t.name, description=t.description,
                            input_schema=t.schema_for_model())
                 for t in TOOLS.values() if not (who.read_only and t.name in WRITE_TOOLS)]
        return types.ListToolsResult(tools=tools)

    async def call_tool(self, ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        who = self.principal_of(ctx)
        name, args = params.name, params.arguments if params.arguments is not None else {}
        if who.read_only and name in WRITE_TOOLS:
            await anyio.to_thread.run_sync(self._deny_read_only, who, name)
            result = ToolResult(name=name, ok=False, error=(
                f"{name} refused: this token is read-only (it can recall and read, never "
                "write or forget)"))
        else:
            result = await anyio.to_thread.run_sync(self._run, who, name, args)
        payload = result.for_model()
        return types.CallToolResult(content=_text(payload), structured_content=payload,
                                    is_error=not result.ok)

    def _run(self, who: Principal, name: str, args: Any) -> ToolResult:
        before = self.ledger.ids(who.key)
        tctx = ToolContext(service=self.service, user_id=who.user_id, actor=who.actor,
                           recalled_ids=set(before), policy=self.policy)
        result = execute(tctx, name, args)
        self.ledger.update(who.key, before, tctx.recalled_ids)
        if result.ok and name == "recall_memory":
            self.ledger.touch(who.key, {h.id for h in result.hits})
        return result

    def _deny_read_only(self, who: Principal, name: str) -> None:
        """A refused attempt is recorded like any denied one (invariant 132)."""
        with self.service.batch(who.actor, who.user_id) as b:
            b.record_now("denied", [], outcome="denied", reason=f"{name}: read-only token")

    # resources --------------------------------------------------------------------------------
    async def list_resources(self, ctx: Context,
                             params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
        self.principal_of(ctx)  # unauthenticated callers never get this far over HTTP
        return types.ListResourcesResult(resources=[types.Resource(
            name="active-facts", title="Active facts", uri=FACTS_URI,
            mime_type="application/json",
            description="what is believed about your user now, one JSON object per fact")])

    async def list_resource_templates(self, ctx: Context,
                                      params: types.PaginatedRequestParams | None) -> types.ListResourceTemplatesResult:
        self.principal_of(ctx)
        return types.ListResourceTemplatesResult(resource_templates=[types.ResourceTemplate(
            name="fact-chain", title="A fact's chain", uri_template=CHAIN_TEMPLATE,
            mime_type="application/json",
            description="every version of one fact, oldest first: what it replaced and what "
                        "replaced it, with both clocks")])

    async def read_resource(self, ctx: Context, params: types.ReadResourceRequestParams
                            ) -> types.ReadResourceResult:
        who = self.principal_of(ctx)
        uri = str(params.uri)
        if uri == FACTS_URI:
            reader = partial(self.service.facts, who.user_id, states=[FactState.ACTIVE])
        elif m := _CHAIN_URI.match(uri):
            reader = partial(self.service.chain, who.user_id, m.group(1))
        else:
            raise MCPError(RESOURCE_NOT_FOUND, f"unknown resource {uri!r}; resources: "
                                               f"{FACTS_URI}, {CHAIN_TEMPLATE}")
        try:
            facts = await anyio.to_thread.run_sync(reader)
        except MemdeskError as exc:  # another user's id is a missing id (invariant 3)
            raise MCPError(RESOURCE_NOT_FOUND, str(exc)) from None
        body = json.dumps([fact_view(f) for f in facts], ensure_ascii=False)
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=uri, mime_type="application/json", text=body)])
