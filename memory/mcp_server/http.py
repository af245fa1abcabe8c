"""Streamable HTTP with a bearer-token gate in front (issue 15).

`BearerGate` is the whole of authentication: every HTTP request, on any path, must carry
`Authorization: Bearer <token>` that memory/tokens.py authenticates now (no cache, so a
revocation applies to the next request); otherwise 401, and the MCP app never sees the request
(invariant 132). The gate reads no other header, no query string and no path segment for
identity: it puts the token's principal into the ASGI scope, and the handlers read it from
there only (invariant 130). A legacy-era MCP session is bound to the token that opened it: a
request with another token's session id is answered as an unknown session.

The server binds 127.0.0.1 unless told otherwise; the SDK's DNS-rebinding protection is on
for loopback hosts.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import socket
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Self

import anyio
import uvicorn
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_REQUEST

from ..errors import MemdeskError
from ..service import MemoryService
from ..tokens import AuthError, authenticate
from .principal import Principal, RecallLedger
from .server import MemoryMCP

if TYPE_CHECKING:  # the ASGI types of the SDK's own web framework
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger(__name__)
SCOPE_KEY = "memdesk.principal"
SESSION_HEADER = b"mcp-session-id"
MAX_SESSIONS = 10_000


def bearer(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The token of the one Authorization header, if it is a Bearer one. Pure."""
    values = [v for k, v in headers if k.lower() == b"authorization"]
    if len(values) != 1:
        return None  # none, or an ambiguous pair: refuse rather than pick one
    scheme, _, token = values[0].decode("latin-1").strip().partition(" ")
    return (token.strip() or None) if scheme.lower() == "bearer" else None


async def _refuse(send: Send, status: int, error: str, description: str, *,
                  challenge: bool = True) -> None:
    body = json.dumps({"error": error, "error_description": description}).encode()
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode())]
    if challenge:  # RFC 6750 section 3
        value = 'Bearer realm="memdesk"' if error == "missing_token" else \
            f'Bearer realm="memdesk", error="{error}", error_description="{description}"'
        headers.append((b"www-authenticate", value.encode("latin-1", "replace")))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class BearerGate:
    """ASGI middleware: authenticate, bind sessions to tokens, pass the principal on."""

    def __init__(self, app: ASGIApp, service: MemoryService) -> None:
        self.app, self.service = app, service
        self._sessions: OrderedDict[str, str] = OrderedDict()  # MCP session id -> token id
        self._lock = threading.Lock()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":  # start and stop the session manager
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # a websocket: nothing here speaks it, and it has no token
            await send({"type": "websocket.close", "code": 1008})
            return
        token = bearer(scope.get("headers") or [])
        try:
            if token is None:
                raise AuthError("missing bearer token")
            cred = await anyio.to_thread.run_sync(authenticate, self.service, token)
        except AuthError as exc:
            error = "missing_token" if token is None else "invalid_token"
            await _refuse(send, 401, error, str(exc))
            return
        except MemdeskError as exc:  # the store is down: not the caller's fault
            log.warning("token check failed: %s", exc)
            await _refuse(send, 503, "temporarily_unavailable", "the memory store is not "
                          "reachable", challenge=False)
            return
        session = dict(scope.get("headers") or []).get(SESSION_HEADER)
        if session is not None:
            with self._lock:
                owner = self._sessions.get(session.decode("latin-1"))
            if owner is not None and owner != cred.id:
                await _refuse(send, 404, "session_not_found", "no such session for this token",
                              challenge=False)
                return
        scope[SCOPE_KEY] = Principal.of(cred)

        async def bind_session(message: Message) -> None:
            if message["type"] == "http.response.start" and session is None:
                for k, v in message.get("headers") or []:
                    if k.lower() == SESSION_HEADER:
                        self._bind(v.decode("latin-1"), cred.id)
            await send(message)

        await self.app(scope, receive, bind_session)

    def _bind(self, session: str, token_id: str) -> None:
        with self._lock:
            self._sessions[session] = token_id
            while len(self._sessions) > MAX_SESSIONS:
                self._sessions.popitem(last=False)


def http_principal(ctx: Any) -> Principal:
    """The principal the gate put in this request's scope; nothing else is consulted."""
    request = getattr(ctx, "request", None)
    who = request.scope.get(SCOPE_KEY) if request is not None else None
    if not isinstance(who, Principal):  # fail closed: never a default user
        raise MCPError(INVALID_REQUEST, "not authenticated")
    return who


def http_app(service: MemoryService, *, recall_window: timedelta,
             host: str = "127.0.0.1") -> BearerGate:
    """The ASGI app: the bearer gate around the SDK's streamable HTTP app at /mcp."""
    ledger = RecallLedger(recall_window, clock=service.clock)
    server = MemoryMCP(service, http_principal, ledger=ledger).build()
    return BearerGate(server.streamable_http_app(streamable_http_path="/mcp", host=host), service)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """A listening socket (port 0: a free one), bound before anything is announced."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise MemdeskError(f"cannot resolve host {host!r}: {exc.strerror}") from None
    family, _, _, _, addr = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Answers go out as soon as they are written: without this a JSON answer's headers and
    # body meet Nagle's algorithm and the client's delayed ACK, ~40 ms per call on loopback
    # (bench/bench_mcp.py). Accepted connections inherit it on Linux.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind(addr)
    except OSError as exc:
        sock.close()
        raise MemdeskError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(128)
    sock.setblocking(False)
    return sock


def _uvicorn(app: ASGIApp) -> uvicorn.Server:
    return uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on",
                                         access_log=False))


def serve_http(service: MemoryService, *, host: str, port: int, recall_window: timedelta,
               announce: Callable[[str], None]) -> None:
    """Serve until interrupted. `announce` gets the URL once the socket is listening."""
    sock = bind(host, port)
    url = f"http://{_netloc(host, sock.getsockname()[1])}/mcp"
    if not is_loopback(host):  # invariant 132
        print(f"memdesk: warning: listening on {host}, not loopback: put TLS in front, or "
              "tokens cross the network in clear text", file=sys.stderr)
    server = _uvicorn(http_app(service, recall_window=recall_window, host=host))
    announce(url)
    server.run(sockets=[sock])


def _netloc(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class LoopbackServer:
    """The HTTP server in a background thread on 127.0.0.1 and a free port (tests, bench)."""

    def __init__(self, service: MemoryService, *, recall_window: timedelta = timedelta(hours=1)) -> None:
        self.sock = bind("127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/mcp"
        self.server = _uvicorn(http_app(service, recall_window=recall_window))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        for _ in range(500):
            if self.server.started:
                return self
            self.thread.join(0.01)
        raise MemdeskError("the MCP HTTP server did not start")

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()
