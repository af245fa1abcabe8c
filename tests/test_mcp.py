"""The memory tools over MCP (issue 15): real SDK client sessions against the real server, over
stdio (a `memdesk mcp serve` subprocess) and streamable HTTP on loopback (the server in a
thread, and once as a subprocess), on a real embedded store with the hash embedder (meaning
does not matter here; ids and scopes do)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from memory.clock import fixed_clock
from memory.credentials import parse_token
from memory.mcp_server.http import (
    BearerGate,
    LoopbackServer,
    bearer,
    http_principal,
    is_loopback,
)
from memory.mcp_server.principal import RecallLedger
from memory.models import FactState
from memory.service import MemoryService
from memory.stores import open_store
from memory.tokens import create_token, revoke_token
from memory.tools import TOOLS

ROOT = Path(__file__).resolve().parent.parent
WRITE_ACTIONS = {"write_fact", "supersede", "retract", "forget", "write_playbook",
                 "write_refused", "propose"}


@pytest.fixture
def svc(tmp_path, hash_embedder):
    store = open_store(f"embedded:{tmp_path / 'store.db'}", hash_embedder)
    yield MemoryService(store)  # the real clock: token expiry is checked against it
    store.close()


@pytest.fixture
def url(svc):
    with LoopbackServer(svc) as server:
        yield server.url


@contextlib.asynccontextmanager
async def session(url: str, token: str, *, mode: str = "legacy", headers: dict | None = None):
    auth = {"Authorization": f"Bearer {token}", **(headers or {})}
    async with create_mcp_http_client(headers=auth) as http, \
            Client(streamable_http_client(url, http_client=http), mode=mode) as client:
        yield client


async def call(client, name: str, args: dict) -> dict:
    res = await client.call_tool(name, args)
    out = dict(res.structured_content or {})
    assert json.loads(res.content[0].text) == out  # text and structured content agree
    assert res.is_error == (not out["ok"])
    return out


def written_id(result: dict) -> str:
    assert result["ok"], result
    (write,) = result["writes"]
    assert write["status"] == "applied", write
    return write["memory_id"] or write["old_id"]


def hit_ids(result: dict) -> list[str]:
    assert result["ok"], result
    return [h["id"] for h in result["hits"]]


async def read_json(client, uri: str):
    res = await client.read_resource(uri)
    (content,) = res.contents
    assert content.uri == uri and content.mime_type == "application/json"
    return json.loads(content.text)


# --- the whole flow over HTTP ------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["legacy", "auto"])  # 2025-11-25 sessions; 2026-07-28 stateless
def test_inv133_http_session_lists_writes_recalls_supersedes_retracts_forgets(svc, url, mode):
    issued = create_token(svc, "alice", actor="cli")
    actor = f"mcp:{issued.credential.id}"

    async def flow():
        async with session(url, issued.token, mode=mode) as c:
            listed = (await c.list_tools()).tools
            assert {t.name: t.input_schema for t in listed} == {
                n: t.schema_for_model() for n, t in TOOLS.items()}  # the agent's own schemas
            assert {t.name: t.description for t in listed} == {
                n: t.description for n, t in TOOLS.items()}
            bristol = written_id(await call(c, "write_memory", {
                "text": "Lives in Bristol", "fact_type": "identity"}))
            again = await call(c, "write_memory", {"text": "Lives in Bristol"})
            assert again["writes"][0]["status"] == "duplicate"
            assert bristol in hit_ids(await call(c, "recall_memory", {"query": "Bristol"}))
            edinburgh = written_id(await call(c, "write_memory", {
                "text": "Lives in Edinburgh", "fact_type": "identity", "supersedes_id": bristol,
                "contradiction": "natural"}))
            boat = written_id(await call(c, "write_memory", {"text": "Owns a sailing boat"}))
            assert boat in hit_ids(await call(c, "recall_memory", {"query": "sailing boat"}))
            retracted = await call(c, "write_memory", {"kind": "retraction",
                                                       "supersedes_id": boat})
            assert retracted["writes"][0]["op"] == "retract"
            dead = await call(c, "write_memory", {"text": "Owns a sailing boat"})
            assert dead["writes"][0]["status"] == "review" or not dead["ok"], dead  # never back
            jazz = written_id(await call(c, "write_memory", {"text": "Likes jazz",
                                                             "fact_type": "preference"}))
            assert jazz in hit_ids(await call(c, "recall_memory", {"query": "jazz"}))
            forgot = await call(c, "forget_memory", {"memory_id": jazz, "reason": "asked"})
            assert forgot["writes"][0]["op"] == "forget"
            active = await read_json(c, "memdesk://facts")
            chain = await read_json(c, f"memdesk://facts/{edinburgh}/chain")
            return bristol, edinburgh, boat, jazz, active, chain

    bristol, edinburgh, boat, jazz, active, chain = asyncio.run(flow())
    assert svc.get_fact("alice", bristol).state == FactState.SUPERSEDED
    assert svc.get_fact("alice", edinburgh).state == FactState.ACTIVE
    assert svc.get_fact("alice", boat).state == FactState.RETRACTED
    assert not any(f.text == "Owns a sailing boat" and f.state == FactState.ACTIVE
                   for f in svc.facts("alice"))
    assert svc.store.get(svc.get_fact("alice", edinburgh).kind, "alice", jazz) is None
    assert [f["text"] for f in active] == ["Lives in Edinburgh"]
    assert [(v["id"], v["state"]) for v in chain] == [(bristol, "superseded"),
                                                      (edinburgh, "active")]
    events = [e for e in svc.audit("alice", limit=1000) if e.action in WRITE_ACTIONS]
    assert {"write_fact", "supersede", "retract", "forget"} <= {e.action for e in events}
    assert all(e.actor == actor for e in events), [(e.action, e.actor) for e in events]


def test_inv130_a_token_for_alice_never_reads_or_changes_bob(svc, url):
    paris = svc.write_fact("bob", "Lives in Paris", fact_type="identity", actor="cli").fact
    bob_before = ([f.model_dump() for f in svc.facts("bob")],
                  [e.model_dump() for e in svc.audit("bob", limit=1000)])
    issued = create_token(svc, "alice", actor="cli")
    svc.write_fact("alice", "Lives in Lyon", fact_type="identity", actor="cli")
    spoof = {"user_id": "bob", "owner": "bob", "scope": "bob", "index": "memdesk-bob",
             "tenant": "bob", "asUser": "bob"}

    async def attack(c):
        got = await call(c, "recall_memory", {"query": "Paris lives", **spoof})
        assert paris.id not in hit_ids(got) and "user_id" in got["note"]
        assert all(h["text"] != "Lives in Paris" for h in got["hits"])
        rome = await call(c, "write_memory", {"text": "Likes Rome", "user_id": "bob"})
        assert rome["ok"]
        for args in ({"text": "Lives in Nice", "supersedes_id": paris.id},
                     {"kind": "retraction", "supersedes_id": paris.id}):
            assert not (await call(c, "write_memory", {**args, "user_id": "bob"}))["ok"]
        assert not (await call(c, "forget_memory", {"memory_id": paris.id,
                                                    "user_id": "bob"}))["ok"]
        for uri in (f"memdesk://facts/{paris.id}/chain", "memdesk://facts?user=bob",
                    "memdesk://users/bob/facts", "memdesk://facts/../bob", "memdesk://bob/facts"):
            with pytest.raises(MCPError):
                await c.read_resource(uri)
        return await read_json(c, "memdesk://facts")

    async def run():
        async with session(url, issued.token) as c:
            first = await attack(c)
        # headers and the query string name bob too: the token still decides
        async with session(f"{url}?user_id=bob", issued.token, mode="auto",
                           headers={"X-User-Id": "bob", "X-Memdesk-User": "bob",
                                    "Mcp-Param-User-Id": "bob"}) as c:
            second = await attack(c)
        return first, second

    for active in asyncio.run(run()):
        assert {f["text"] for f in active} >= {"Lives in Lyon", "Likes Rome"}
        assert "Lives in Paris" not in {f["text"] for f in active}
    # another path is not another user: it is not the MCP endpoint at all
    r = httpx2.post(url + "/bob", json={}, headers={"Authorization": f"Bearer {issued.token}"})
    assert r.status_code == 404
    assert ([f.model_dump() for f in svc.facts("bob")],
            [e.model_dump() for e in svc.audit("bob", limit=1000)]) == bob_before
    denied = [e for e in svc.audit("alice", limit=1000) if e.outcome == "denied"]
    assert denied and all(e.actor == f"mcp:{issued.credential.id}" for e in denied)


# --- tokens: missing, wrong, expired, revoked, read-only ----------------------------------------
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "test", "version": "1"}}}
ACCEPT = {"Accept": "application/json, text/event-stream"}


def post(url: str, body: dict, **headers) -> httpx2.Response:
    return httpx2.post(url, json=body, headers={**ACCEPT, **headers}, timeout=10)


def test_inv132_missing_unknown_expired_and_revoked_tokens_get_401(svc, url):
    past = MemoryService(svc.store, clock=fixed_clock(datetime.now(UTC) - timedelta(days=2)))
    expired = create_token(past, "alice", actor="cli", lifetime=timedelta(days=1)).token
    revoked = create_token(svc, "alice", actor="cli")
    revoke_token(svc, revoked.credential.id, actor="cli")
    good = create_token(svc, "alice", actor="cli").token
    assert post(url, INIT, Authorization=f"Bearer {good}").status_code == 200
    r = post(url, INIT)
    assert r.status_code == 401 and r.headers["www-authenticate"] == 'Bearer realm="memdesk"'
    cases = {f"Bearer {expired}": "expired", f"Bearer {revoked.token}": "revoked",
             "Bearer mdk_tok_0123456789abcdef." + "A" * 43: "invalid token",
             f"Bearer {good}x": "invalid token", f"Basic {good}": "missing bearer token",
             good: "missing bearer token", "Bearer": "missing bearer token"}
    for header, why in cases.items():
        r = post(url, INIT, Authorization=header)
        assert r.status_code == 401, header
        assert why in r.json()["error_description"]
        assert r.headers["www-authenticate"].startswith('Bearer realm="memdesk"')
    # two Authorization headers are ambiguous: refused, whichever is good
    r = httpx2.post(url, json=INIT, headers=[("Accept", ACCEPT["Accept"]),
                                             ("Authorization", f"Bearer {good}"),
                                             ("Authorization", "Bearer other")])
    assert r.status_code == 401
    # every path is behind the gate, not only /mcp
    assert httpx2.get(url.removesuffix("/mcp") + "/anything").status_code == 401

    async def refused(token):
        async with session(url, token) as c:
            await c.list_tools()

    for token in (expired, revoked.token, "nonsense"):
        with pytest.raises(Exception):  # noqa: B017 - the SDK wraps the 401 in a task group error
            asyncio.run(refused(token))
    assert not [e for e in svc.audit("alice", limit=100) if e.action in WRITE_ACTIONS]


def test_inv132_a_revocation_applies_to_the_next_request(svc, url):
    issued = create_token(svc, "alice", actor="cli")

    async def run():
        async with session(url, issued.token) as c:
            assert (await call(c, "write_memory", {"text": "Likes tea"}))["ok"]
            revoke_token(svc, issued.credential.id, actor="cli")
            with pytest.raises(Exception):  # noqa: B017 - a 401 from the transport
                await asyncio.wait_for(c.call_tool("write_memory", {"text": "Likes coffee"}), 10)

    with contextlib.suppress(Exception):  # the session dies with its token
        asyncio.run(run())
    assert [f.text for f in svc.facts("alice")] == ["Likes tea"]


def test_inv132_a_read_only_token_recalls_but_never_writes_or_forgets(svc, url):
    tea = svc.write_fact("alice", "Likes green tea", fact_type="preference", actor="cli").fact
    ro = create_token(svc, "alice", actor="cli", read_only=True)
    usage = {"use_count", "last_used_at"}  # recall counts a use, as the agent's does
    before = [f.model_dump(exclude=usage) for f in svc.facts("alice")]

    async def run():
        async with session(url, ro.token, mode="auto") as c:
            assert [t.name for t in (await c.list_tools()).tools] == ["recall_memory"]
            assert tea.id in hit_ids(await call(c, "recall_memory", {"query": "green tea"}))
            w = await call(c, "write_memory", {"text": "Likes coffee"})
            f = await call(c, "forget_memory", {"memory_id": tea.id})
            r = await call(c, "write_memory", {"kind": "retraction", "supersedes_id": tea.id})
            facts = await read_json(c, "memdesk://facts")
            return w, f, r, facts

    w, f, r, facts = asyncio.run(run())
    for refused in (w, f, r):
        assert not refused["ok"] and "read-only" in refused["error"]
    assert [x["text"] for x in facts] == ["Likes green tea"]
    assert [f.model_dump(exclude=usage) for f in svc.facts("alice")] == before
    denied = [e for e in svc.audit("alice", limit=100) if e.outcome == "denied"]
    assert [e.reason for e in denied] == ["write_memory: read-only token",
                                          "forget_memory: read-only token",
                                          "write_memory: read-only token"]
    assert all(e.actor == f"mcp:{ro.credential.id}" for e in denied)


def test_inv134_replace_or_forget_needs_this_tokens_recall(svc, url):
    tea = svc.write_fact("alice", "Likes green tea", fact_type="preference", actor="cli").fact
    a = create_token(svc, "alice", actor="cli").token
    b = create_token(svc, "alice", actor="cli").token

    async def run():
        async with session(url, a) as ca, session(url, b, mode="auto") as cb:
            blind = await call(ca, "write_memory", {"text": "Likes black tea",
                                                    "supersedes_id": tea.id})
            assert not blind["ok"] and "not recalled" in blind["error"]
            assert tea.id in hit_ids(await call(ca, "recall_memory", {"query": "green tea"}))
            other = await call(cb, "forget_memory", {"memory_id": tea.id})
            assert not other["ok"] and "not recalled" in other["error"]
            assert (await call(ca, "forget_memory", {"memory_id": tea.id}))["ok"]

    asyncio.run(run())
    assert svc.facts("alice") == []


def test_inv134_the_recall_ledger_forgets_after_its_window():
    now = [datetime(2026, 1, 1, tzinfo=UTC)]
    ledger = RecallLedger(timedelta(minutes=10), clock=lambda: now[0])
    ledger.update("a", set(), {"f1", "f2"})
    assert ledger.ids("a") == {"f1", "f2"} and ledger.ids("b") == set()
    now[0] += timedelta(minutes=9)
    ledger.touch("a", {"f2"})
    now[0] += timedelta(minutes=2)
    assert ledger.ids("a") == {"f2"}  # f1 expired; f2 was shown again
    ledger.update("a", {"f2"}, set())  # forgotten
    assert ledger.ids("a") == set()


def test_inv132_a_legacy_session_is_bound_to_the_token_that_opened_it(svc, url):
    a = create_token(svc, "alice", actor="cli").token
    b = create_token(svc, "bob", actor="cli").token
    opened = post(url, INIT, Authorization=f"Bearer {a}")
    sid = opened.headers["mcp-session-id"]
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert post(url, note, Authorization=f"Bearer {a}", **{"Mcp-Session-Id": sid}).status_code \
        == 202
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    hijack = post(url, listing, Authorization=f"Bearer {b}", **{"Mcp-Session-Id": sid,
                                                                "Mcp-Protocol-Version":
                                                                    "2025-11-25"})
    assert hijack.status_code == 404 and hijack.json()["error"] == "session_not_found"
    own = post(url, listing, Authorization=f"Bearer {a}", **{"Mcp-Session-Id": sid,
                                                             "Mcp-Protocol-Version":
                                                                 "2025-11-25"})
    assert own.status_code == 200 and "recall_memory" in own.text


# --- the gate's parts --------------------------------------------------------------------------
def test_inv130_the_gate_reads_one_bearer_header_and_handlers_fail_closed():
    assert bearer([(b"authorization", b"Bearer abc")]) == "abc"
    assert bearer([(b"authorization", b"bearer  abc ")]) == "abc"
    assert bearer([(b"x-user-id", b"bob")]) is None
    assert bearer([(b"authorization", b"Basic abc")]) is None
    assert bearer([(b"authorization", b"Bearer a"), (b"authorization", b"Bearer b")]) is None
    for ctx in (SimpleNamespace(request=None), SimpleNamespace(),
                SimpleNamespace(request=SimpleNamespace(scope={"memdesk.principal": "bob"}))):
        with pytest.raises(MCPError):
            http_principal(ctx)


def test_inv132_the_gate_lets_only_lifespan_through_without_a_token():
    seen, sent = [], []

    async def app(scope, receive, send):
        seen.append(scope["type"])

    async def send(message):
        sent.append(message)

    gate = BearerGate(app, service=None)  # never consulted: no token reaches the store
    asyncio.run(gate({"type": "lifespan"}, None, send))
    asyncio.run(gate({"type": "websocket", "headers": []}, None, send))
    asyncio.run(gate({"type": "http", "headers": [(b"x-user-id", b"bob")]}, None, send))
    assert seen == ["lifespan"]
    assert sent[0] == {"type": "websocket.close", "code": 1008}
    assert sent[1]["type"] == "http.response.start" and sent[1]["status"] == 401


def test_inv132_loopback_hosts():
    assert all(map(is_loopback, ["127.0.0.1", "::1", "localhost", "127.0.0.2"]))
    assert not any(map(is_loopback, ["0.0.0.0", "::", "192.168.1.4", "example.com"]))


# --- subprocesses: the CLI as a user runs it ---------------------------------------------------
def _env(store: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMDESK_")}
    return {**env, "MEMDESK_STORE": store, "MEMDESK_EMBEDDER": "hash", "MEMDESK_LLM": "offline",
            "PYTHONPATH": str(ROOT)}


@pytest.mark.process
def test_inv133_stdio_session_for_the_user_fixed_at_start_up(svc, tmp_path):
    paris = svc.write_fact("bob", "Lives in Paris", fact_type="identity", actor="cli").fact
    bob_audit = len(svc.audit("bob", limit=1000))
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memory", "mcp", "serve", "--user", "alice"],
        env=_env(f"embedded:{tmp_path / 'store.db'}"), cwd=str(ROOT))

    async def run():
        async with Client(params) as c:
            assert [t.name for t in (await c.list_tools()).tools] == list(TOOLS)
            first = written_id(await call(c, "write_memory", {
                "text": "Lives in Bristol", "fact_type": "identity", "user_id": "bob"}))
            assert first in hit_ids(await call(c, "recall_memory", {"query": "Bristol",
                                                                    "user": "bob"}))
            assert paris.id not in hit_ids(await call(c, "recall_memory", {"query": "Paris"}))
            second = written_id(await call(c, "write_memory", {
                "text": "Lives in Leeds", "fact_type": "identity", "supersedes_id": first}))
            boat = written_id(await call(c, "write_memory", {"text": "Owns a canoe"}))
            await call(c, "recall_memory", {"query": "canoe"})
            assert (await call(c, "write_memory", {"kind": "retraction",
                                                   "supersedes_id": boat}))["ok"]
            assert (await call(c, "forget_memory", {"memory_id": second}))["ok"]
            assert not (await call(c, "forget_memory", {"memory_id": paris.id}))["ok"]
            return first, boat, await read_json(c, f"memdesk://facts/{first}/chain")

    first, boat, chain = asyncio.run(run())
    assert [v["id"] for v in chain] == [first]  # its successor was forgotten
    assert svc.get_fact("alice", boat).state == FactState.RETRACTED
    events = [e for e in svc.audit("alice", limit=1000) if e.action in WRITE_ACTIONS]
    assert len(events) >= 5 and {e.actor for e in events} == {"mcp:stdio"}
    assert [f.id for f in svc.facts("bob")] == [paris.id]
    assert len(svc.audit("bob", limit=1000)) == bob_audit


@pytest.mark.process
def test_inv132_a_read_only_stdio_server_cannot_write(tmp_path, svc):
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memory", "mcp", "serve", "--user", "alice", "--read-only"],
        env=_env(f"embedded:{tmp_path / 'store.db'}"), cwd=str(ROOT))

    async def run():
        async with Client(params) as c:
            assert [t.name for t in (await c.list_tools()).tools] == ["recall_memory"]
            return await call(c, "write_memory", {"text": "Likes tea"})

    assert "read-only" in asyncio.run(run())["error"]
    assert svc.facts("alice") == []


@pytest.mark.process
def test_inv132_cli_serves_http_on_loopback_with_tokens(svc, tmp_path):
    token = create_token(svc, "alice", actor="cli").token
    proc = subprocess.Popen(
        [sys.executable, "-m", "memory", "mcp", "serve", "--transport", "http", "--port", "0"],
        env=_env(f"embedded:{tmp_path / 'store.db'}"), cwd=str(ROOT), stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL, text=True)
    try:
        line = proc.stderr.readline()
        m = re.search(r"listening on (http://127\.0\.0\.1:\d+/mcp)", line)
        assert m, line
        served = m.group(1)
        assert post(served, INIT).status_code == 401

        async def run():
            async with session(served, token) as c:
                return await call(c, "write_memory", {"text": "Likes tea"})

        assert asyncio.run(run())["ok"]
        # revoked in this process, refused by that one at once: no cache in between
        revoke_token(svc, parse_token(token)[0], actor="cli")
        r = post(served, INIT, Authorization=f"Bearer {token}")
        assert r.status_code == 401 and "revoked" in r.json()["error_description"]
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stderr.close()
    assert [f.text for f in svc.facts("alice")] == ["Likes tea"]
