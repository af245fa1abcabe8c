"""Elasticsearch commands (issue 3): `memdesk es bootstrap-users`, `memdesk es reindex` and
`memdesk migrate --from embedded:PATH --to elasticsearch:URL`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..access import cli_actor
from ..errors import ValidationError
from ..stores import check_es_url, open_store
from . import CommandParser, Subcommands, emit, out

if TYPE_CHECKING:
    from ..stores.elasticsearch import ElasticsearchStore
    from ..stores.elasticsearch.reindex import Progress


def register(sub: Subcommands, common: CommandParser) -> None:
    es = sub.add_parser("es", help="Elasticsearch store administration")
    es_sub = es.add_subparsers(dest="es_command", required=True, parser_class=CommandParser)
    p = es_sub.add_parser("bootstrap-users", parents=[common],
                          help="mint per-user read-only API keys (document-level security)")
    p.add_argument("--user", action="append", default=[],
                   help="user to mint a key for (repeatable; default: every user in the store)")
    p.set_defaults(func=cmd_bootstrap_users)

    p = es_sub.add_parser("reindex", parents=[common],
                          help="move every index to the current mapping version (write block, "
                               "server-side copy, alias swap); re-run to resume")
    p.add_argument("--delete-old", action="store_true",
                   help="delete each old index after its alias moved (default: keep it, "
                        "write-blocked, as a backup)")
    p.set_defaults(func=cmd_reindex)

    p = es_sub.add_parser("status", parents=[common],
                          help="server, licence, recall path, tombstone matching, batches left "
                               "pending, API keys whose invalidation failed")
    p.set_defaults(func=cmd_status)

    p = sub.add_parser("migrate", parents=[common],
                       help="copy an embedded store into Elasticsearch and verify the counts")
    p.add_argument("--from", dest="source", required=True, help="embedded:PATH")
    p.add_argument("--to", dest="target", required=True, help="elasticsearch:URL")
    p.set_defaults(func=cmd_migrate)


def _es_url(args: argparse.Namespace, store_url: str | None, what: str) -> str:
    url = store_url or args.runtime.settings.store
    scheme, _, rest = url.partition(":")
    if scheme != "elasticsearch" or not rest:
        raise ValidationError(f"{what} needs an Elasticsearch store (--store elasticsearch:URL, "
                              f"e.g. elasticsearch:http://127.0.0.1:9200); got {url!r}")
    return check_es_url(rest)  # issue 11: a malformed URL is one clear error


def _open_es(args: argparse.Namespace, url: str) -> ElasticsearchStore:
    from ..stores.elasticsearch import ElasticsearchStore  # loaded only when asked for

    store = open_store(f"elasticsearch:{url}", args.runtime.embedder, args.runtime.settings)
    assert isinstance(store, ElasticsearchStore)  # the URL names an Elasticsearch store
    return store


def cmd_bootstrap_users(args: argparse.Namespace) -> int:
    store = _open_es(args, _es_url(args, getattr(args, "store", None), "es bootstrap-users"))
    try:
        users = args.user or store.users()
        rows = [store.bootstrap_user(u) for u in users]
    finally:
        store.close()  # also invalidates the keys this command minted to check the privileges
    emit(args, rows, lambda rows: "\n".join(
        f"{r['user_id']}: enabled (reads go through short-lived keys that read only this user's "
        f"memories + catalog; {r['invalidated']} earlier key(s) invalidated)"
        for r in rows) or "no users: nothing to do")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    """Issue 31: what the store runs with, and what needs an operator (invariant 95)."""
    store = _open_es(args, _es_url(args, getattr(args, "store", None), "es status"))
    try:
        row = store.status()
    finally:
        store.close()

    def text(r: dict) -> str:
        lines = [f"Elasticsearch {r['server_version']}, licence {r['licence']}",
                 f"recall: {r['recall_path']}", f"tombstones matched by: {r['tombstone_matching']}"]
        if r["licence_note"]:
            lines.append(r["licence_note"])
        b = r["batches"]
        lines.append(f"batches at open: {b['committed']} rolled forward, {b['rolled_back']} "
                     f"rolled back, {b['left']} left pending")
        fails = r["key_invalidation_failures"]
        lines.append(f"API key invalidations that failed: {len(fails)}")
        lines += [f"  {f['key_id']} at {f['at']}: {f['error']}" for f in fails]
        return "\n".join(lines)
    emit(args, row, text)
    return 0


class _Bar:
    """A one-line progress bar on stderr (plain lines when stderr is not a terminal)."""

    WIDTH = 30

    def __init__(self, quiet: bool) -> None:
        self.quiet, self.tty = quiet, sys.stderr.isatty()
        self.last: tuple[str, str] | None = None

    def __call__(self, p: Progress) -> None:
        if self.quiet:
            return
        if p.step == "copying" and p.total:
            filled = int(self.WIDTH * min(p.done, p.total) / p.total)
            line = f"{p.index:<11} [{'#' * filled}{'.' * (self.WIDTH - filled)}] {p.done}/{p.total}"
            if self.tty:
                print("\r" + line, end="", file=sys.stderr, flush=True)
                return
            if self.last == (p.index, "copying"):
                return  # one line per index when nobody watches the bar
        elif p.step == "copying":
            line = f"{p.index:<11} copying"
        elif p.step == "contexts":
            line = f"{p.index:<11} session contexts: {p.done} of {p.total} turns rewritten"
        elif p.step == "keys":
            line = f"{p.index:<11} match keys: {p.done} of {p.total} tombstones rewritten"
        elif p.step == "keys current":
            line = f"{p.index:<11} match keys: current"
        else:
            line = f"{p.index:<11} {p.step}"
        print(("\n" if self.tty and self.last and self.last[1] == "copying" else "") + line,
              file=sys.stderr, flush=True)
        self.last = (p.index, p.step)


def cmd_reindex(args: argparse.Namespace) -> int:
    from ..clock import utcnow
    from ..models import CATALOG
    from ..stores.elasticsearch.connection import ConnectionSettings, new_client, writer
    from ..stores.elasticsearch.indices import MAPPING_VERSION, IndexNames
    from ..stores.elasticsearch.reindex import Progress, recompute_contexts, reindex, request
    from ..stores.elasticsearch.store import redact
    from ..stores.elasticsearch.tombkeys import ensure_tombstone_keys
    from ..stores.user_view import IndexParams
    from ..unit_of_work import Batch

    url = _es_url(args, getattr(args, "store", None), "es reindex")
    settings = args.runtime.settings
    embedder = args.runtime.embedder
    actor, authorize = cli_actor(), args.runtime.access.authorize
    # Invariant 8: the role before anything is written (the store may not open until the
    # indices moved, so the check cannot wait for it).
    Batch(None, actor, CATALOG, now=utcnow(), authorize=authorize).require("reindex")
    # Short requests: the copy runs as a server task that is polled, so no request waits long.
    es = new_client(ConnectionSettings.from_settings(url, settings, request_timeout=30.0))
    bar = _Bar(getattr(args, "json", False))
    try:
        names = IndexNames(settings.es_prefix)
        moved = reindex(es, names, embedder.name, embedder.dims, progress=bar, where=redact(url),
                        delete_old=args.delete_old)
        # Issue 17: episodes' session contexts from the turns stored now (a store moved from
        # mapping version 1 has none; only turns whose context differs are written).
        contexts = recompute_contexts(es, names, IndexParams().window, progress=bar,
                                      where=redact(url))
        # Invariant 63: tombstone match keys under the current key rules (KEY_VERSION).
        keys = ensure_tombstone_keys(es, writer(es), names,
                                     lambda fn, what: request(fn, what, redact(url)))
        bar(Progress(index="tombstones", step="keys" if keys.recomputed else "keys current",
                     done=keys.written, total=keys.seen))
    finally:
        es.close()
    # Invariant 8: the run is one audited event in the store it moved, through the door.
    store = _open_es(args, url)
    try:
        with Batch(store, actor, CATALOG, now=utcnow(), authorize=authorize) as b:
            b.note("reindex", [], reason=f"{len(moved)} index(es) moved to mapping version "
                                         f"{MAPPING_VERSION}", after={
                "moved": [dict(zip(("from", "to"), m.split(" -> "), strict=True)) for m in moved],
                "mapping_version": MAPPING_VERSION, "delete_old": bool(args.delete_old),
                "contexts_rewritten": contexts, "match_keys": {
                    "recomputed": keys.recomputed, "written": keys.written, "seen": keys.seen}})
    finally:
        store.close()
    emit(args, moved, lambda m: "\n".join(m + ([] if args.delete_old else [
        "old indices kept, write-blocked, as backups: delete them by name when satisfied"]))
        if m else "every index is on the current mapping")
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    from ..migration import migrate
    from ..stores.elasticsearch.store import redact
    from ..stores.embedded import EmbeddedStore

    scheme, _, path = args.source.partition(":")
    if scheme != "embedded" or not path:
        raise ValidationError(f"--from must be embedded:PATH, got {args.source!r}")
    if not Path(path).is_file():
        raise ValidationError(f"--from {args.source}: no such store file")
    target = _es_url(args, args.target, "migrate --to")
    embedder = args.runtime.embedder
    src = EmbeddedStore(path, embedder)
    try:
        dst = _open_es(args, target)
        try:
            rows = migrate(src, dst, progress=lambda line: None if getattr(args, "json", False)
                           else out(f"copied {line}"), actor=cli_actor(),
                           authorize=args.runtime.access.authorize,
                           source_name=f"embedded:{path}", target_name=f"elasticsearch:{redact(target)}")
        finally:
            dst.close()
    finally:
        src.close()
    payload = [r.model_dump() for r in rows]
    emit(args, payload, lambda rows: "\n".join(
        [f"{'scope':<24}{'index':<24}{'source':>8}{'target':>8}"]
        + [f"{r['scope']:<24}{r['index']:<24}{r['source']:>8}{r['target']:>8}" for r in rows]
        + ["verified: every count matches"]))
    return 0
