"""The desk's HTTP front (issue 34): Streamlit's own server, with one ASGI middleware that tells
the browser where the server is before Streamlit's page script starts.

Streamlit's page script does not know the server's base path. Opened at `/facts`, it first asks
`/facts/_stcore/health` (a 404), waits 100 ms, then asks `/_stcore/health`: 120-210 ms before
every page but the first one could connect. The script takes the base path from
`window.__streamlit.BACKEND_BASE_URL` when a host page sets it, and then asks only there; this
middleware sets it in the HTML page the server returns. Nothing else reads that setting, and a
Streamlit that ignored it would probe as before."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# Paths the page script fetches itself (never the HTML page): passed through untouched.
NOT_A_PAGE = ("/_stcore/", "/static/", "/media/", "/component/", "/app/static/", "/auth/",
              "/oauth2callback")


def base_script(base_url_path: str) -> bytes:
    """The tag set before Streamlit's own script: the server's base URL, from the origin the
    browser used and the configured `server.baseUrlPath` (a JS string with `<` escaped, so no
    configured text can end the tag: never markup)."""
    base = "/" + "/".join(p for p in base_url_path.split("/") if p)
    base = base if base.endswith("/") else base + "/"
    quoted = json.dumps(base).replace("<", "\\u003c")
    return (f"<script>window.__streamlit = Object.assign({{BACKEND_BASE_URL: location.origin + "
            f"{quoted}}}, window.__streamlit || {{}});</script>").encode()


def inject(html: bytes, tag: bytes) -> bytes:
    """`tag` before the page's first script, so it runs first; the page unchanged without one."""
    at = html.find(b"<script")
    return html if at < 0 else html[:at] + tag + html[at:]


def is_page_request(scope: Scope) -> bool:
    if scope.get("type") != "http" or scope.get("method") != "GET":
        return False
    path = scope.get("path", "")
    if any(part in path for part in NOT_A_PAGE) or "." in path.rsplit("/", 1)[-1]:
        return False
    accept = dict(scope.get("headers") or []).get(b"accept", b"")
    return b"text/html" in accept


class BackendBase:
    """ASGI middleware: HTML pages get base_script(); everything else passes through."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not is_page_request(scope):
            await self.app(scope, receive, send)
            return
        # Ask for the page uncompressed (it is ~10 kB on a local connection), so it can be read.
        scope = {**scope, "headers": [(k, v) for k, v in scope["headers"]
                                      if k.lower() != b"accept-encoding"]}
        start: Message | None = None
        body = b""

        async def hold(message: Message) -> None:
            nonlocal start, body
            if message["type"] == "http.response.start":
                start = message
                return
            if message["type"] != "http.response.body" or start is None:
                await send(message)
                return
            body += message.get("body", b"")
            if message.get("more_body"):
                return
            await send_page(start, body)

        async def send_page(head: Message, page: bytes) -> None:
            headers = list(head.get("headers") or [])
            kind = dict(headers).get(b"content-type", b"")
            if kind.startswith(b"text/html"):
                from streamlit import config

                page = inject(page, base_script(config.get_option("server.baseUrlPath") or ""))
                headers = [(k, v) for k, v in headers if k.lower() != b"content-length"]
                headers.append((b"content-length", str(len(page)).encode()))
            await send({**head, "headers": headers})
            await send({"type": "http.response.body", "body": page})

        await self.app(scope, receive, hold)
