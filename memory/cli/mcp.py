"""`memdesk mcp serve` and `memdesk mcp token create|list|revoke` (issue 15)."""

from __future__ import annotations

import argparse
import sys
from datetime import timedelta
from typing import Any

from .. import inputs, tokens
from ..credentials import TOKEN_ID
from ..errors import ValidationError
from ..text import require_user
from . import CommandParser, Subcommands, emit, out
from . import types as t

DEFAULT_EXPIRY = "90d"


def _lifetime(raw: str) -> timedelta | None:
    try:
        return tokens.parse_lifetime(raw)
    except ValidationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _label(raw: str) -> str | None:
    try:
        return inputs.optional_label(raw, "label", limit=200)
    except ValidationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _token_id(raw: str) -> str:
    if not TOKEN_ID.match(raw):
        raise argparse.ArgumentTypeError(f"invalid token id {raw!r}: expected tok_ and 16 hex "
                                         "digits, as `memdesk mcp token list` shows")
    return raw


def register(sub: Subcommands, common: CommandParser) -> None:
    mcp = sub.add_parser("mcp", help="serve the memory tools over MCP; manage its tokens")
    msub = mcp.add_subparsers(dest="mcp_command", required=True, parser_class=CommandParser)

    p = msub.add_parser("serve", parents=[common], help="run the MCP server (stdio or HTTP)")
    p.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    p.add_argument("--user", help="stdio: the one user this server acts for (HTTP: the token's)")
    p.add_argument("--read-only", action="store_true",
                   help="stdio: recall and read only (HTTP: set per token)")
    p.add_argument("--host", default="127.0.0.1", help="HTTP: address to bind (default loopback)")
    p.add_argument("--port", type=t.count(0, 65535, "port"), default=8765,
                   help="HTTP: port (0: any free one)")
    p.set_defaults(func=cmd_serve)

    tok = msub.add_parser("token", help="bearer tokens for MCP over HTTP")
    tsub = tok.add_subparsers(dest="token_command", required=True, parser_class=CommandParser)
    p = tsub.add_parser("create", parents=[common], help="mint a token for one user (shown once)")
    p.add_argument("--user", required=True, help="the one user the token acts for")
    p.add_argument("--read-only", action="store_true", help="recall and read only")
    p.add_argument("--expires", type=_lifetime, default=_lifetime(DEFAULT_EXPIRY),
                   help=f"lifetime: 30d, 12h, 90m, 2w or never (default {DEFAULT_EXPIRY})")
    p.add_argument("--label", type=_label, help="what the token is for")
    p.set_defaults(func=cmd_token_create)

    p = tsub.add_parser("list", parents=[common], help="tokens (never their secrets)")
    p.add_argument("--user", help="only this user's tokens (default: every user's)")
    p.set_defaults(func=cmd_token_list)

    p = tsub.add_parser("revoke", parents=[common], help="revoke a token at once")
    p.add_argument("token_id", type=_token_id)
    p.add_argument("--reason", type=t.label("reason"))
    p.set_defaults(func=cmd_token_revoke)


def _window(args: argparse.Namespace) -> timedelta:
    return timedelta(seconds=args.runtime.settings.mcp_recall_window)


def cmd_serve(args: argparse.Namespace) -> int:
    svc = args.runtime.service
    if args.transport == "stdio":
        if args.user is None:
            raise ValidationError("mcp serve --transport stdio needs --user: the one user this "
                                  "server acts for")
        require_user(args.user)  # a bad user fails here, before the protocol starts
        import anyio

        from ..mcp_server.stdio import serve_stdio

        anyio.run(lambda: serve_stdio(svc, args.user, read_only=args.read_only,
                                      recall_window=_window(args)))
        return 0
    if args.user or args.read_only:
        raise ValidationError("over HTTP the user and read-only come from each request's token: "
                              "drop --user/--read-only and mint tokens with "
                              "`memdesk mcp token create --user U [--read-only]`")
    from ..mcp_server.http import serve_http

    svc.store  # noqa: B018 - open the store now: a bad store fails before we announce a URL
    serve_http(svc, host=args.host, port=args.port, recall_window=_window(args),
               announce=_announce)
    return 0


def _announce(url: str) -> None:
    out(f"memdesk mcp: listening on {url}", err=True)
    sys.stderr.flush()  # a launcher (or test) reads the URL from this line


def cmd_token_create(args: argparse.Namespace) -> int:
    issued = tokens.create_token(args.runtime.service, args.user, actor="cli",
                                 read_only=args.read_only, lifetime=args.expires,
                                 label=args.label)
    payload = {**issued.credential.public(), "token": issued.token}

    def render(p: dict[str, Any]) -> str:
        expiry = p["expires_at"] or "never"
        mode = "read-only" if p["read_only"] else "read-write"
        return (f"{p['token']}\n\ntoken {p['id']} for user {p['user_id']} ({mode}, expires "
                f"{expiry}). It is shown only now and stored only as a hash: keep it in a "
                "secret store. Revoke with `memdesk mcp token revoke " + p["id"] + "`.")

    emit(args, payload, render)
    return 0


def cmd_token_list(args: argparse.Namespace) -> int:
    svc = args.runtime.service
    now = svc.clock()
    rows = [c.public(now) for c in tokens.list_tokens(svc, args.user)]

    def render(rs: list[dict[str, Any]]) -> str:
        if not rs:
            return "no tokens"
        lines = [(f"{'id':<21} {'user':<16} {'status':<8} {'mode':<10} {'created':<19} "
                  f"{'expires':<19} label")]
        for r in rs:
            lines.append(f"{r['id']:<21} {r['user_id']:<16} {r['status']:<8} "
                         f"{'read-only' if r['read_only'] else 'read-write':<10} "
                         f"{r['created_at'][:19]:<19} {(r['expires_at'] or 'never')[:19]:<19} "
                         f"{r['label'] or ''}")
        return "\n".join(lines)

    emit(args, rows, render)
    return 0


def cmd_token_revoke(args: argparse.Namespace) -> int:
    svc = args.runtime.service
    cred = tokens.revoke_token(svc, args.token_id, actor="cli", reason=args.reason)
    emit(args, cred.public(svc.clock()),
         lambda p: f"token {p['id']} of user {p['user_id']} revoked at {p['revoked_at']}")
    return 0
