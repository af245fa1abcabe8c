"""Elasticsearch commands (issue 3): `memdesk es bootstrap-users`, `memdesk es reindex` and
`memdesk migrate --from embedded:PATH --to elasticsearch:URL`."""

from __future__ import annotations

from pathlib import Path

from ..embeddings import get_embedder
from ..errors import ValidationError
from ..settings import load_settings
from ..stores import check_es_url
from . import _Parser, emit, out


def register(sub, common) -> None:
    es = sub.add_parser("es", help="Elasticsearch store administration")
    es_sub = es.add_subparsers(dest="es_command", required=True, parser_class=_Parser)
    p = es_sub.add_parser("bootstrap-users", parents=[common],
                          help="mint per-user read-only API keys (document-level security)")
    p.add_argument("--user", action="append", default=[],
                   help="user to mint a key for (repeatable; default: every user in the store)")
    p.set_defaults(func=cmd_bootstrap_users)

    p = es_sub.add_parser("reindex", parents=[common],
                          help="move every index to the current mapping version (alias swap)")
    p.set_defaults(func=cmd_reindex)

    p = sub.add_parser("migrate", parents=[common],
                       help="copy an embedded store into Elasticsearch and verify the counts")
    p.add_argument("--from", dest="source", required=True, help="embedded:PATH")
    p.add_argument("--to", dest="target", required=True, help="elasticsearch:URL")
    p.set_defaults(func=cmd_migrate)


def _es_url(store_url: str | None, what: str) -> str:
    url = store_url or load_settings()["store"]
    scheme, _, rest = url.partition(":")
    if scheme != "elasticsearch" or not rest:
        raise ValidationError(f"{what} needs an Elasticsearch store (--store elasticsearch:URL, "
                              f"e.g. elasticsearch:http://127.0.0.1:9200); got {url!r}")
    return check_es_url(rest)  # issue 11: a malformed URL is one clear error


def _open_es(url: str):
    from ..stores.elasticsearch import ElasticsearchStore

    return ElasticsearchStore(url, get_embedder(load_settings()["embedder"]))


def cmd_bootstrap_users(args) -> int:
    store = _open_es(_es_url(getattr(args, "store", None), "es bootstrap-users"))
    try:
        users = args.user or store.users()
        rows = [{"user_id": u, "api_key_id": store.bootstrap_user(u)} for u in users]
    finally:
        store.close()
    emit(args, rows, lambda rows: "\n".join(
        f"{r['user_id']}: key {r['api_key_id']} (reads only this user's memories + catalog)"
        for r in rows) or "no users: nothing to do")
    return 0


def cmd_reindex(args) -> int:
    from elasticsearch import Elasticsearch

    from ..stores.elasticsearch.indices import IndexNames
    from ..stores.elasticsearch.reindex import reindex

    url = _es_url(getattr(args, "store", None), "es reindex")
    embedder = get_embedder(load_settings()["embedder"])
    from elastic_transport import ConnectionError as TransportConnectionError

    from ..errors import StoreUnavailableError
    from ..stores.elasticsearch.store import START_HINT, redact

    try:
        with Elasticsearch(url, request_timeout=600) as es:
            moved = reindex(es, IndexNames(load_settings()["es_prefix"]), embedder.name,
                            embedder.dims)
    except TransportConnectionError as exc:  # invariant 29
        raise StoreUnavailableError(f"cannot reach Elasticsearch at {redact(url)}: {START_HINT}") from exc
    emit(args, moved, lambda m: "\n".join(m) or "every index is on the current mapping")
    return 0


def cmd_migrate(args) -> int:
    from ..stores.elasticsearch.migrate import migrate
    from ..stores.embedded import EmbeddedStore

    scheme, _, path = args.source.partition(":")
    if scheme != "embedded" or not path:
        raise ValidationError(f"--from must be embedded:PATH, got {args.source!r}")
    if not Path(path).is_file():
        raise ValidationError(f"--from {args.source}: no such store file")
    target = _es_url(args.target, "migrate --to")
    embedder = get_embedder(load_settings()["embedder"])
    src = EmbeddedStore(path, embedder)
    try:
        dst = _open_es(target)
        try:
            rows = migrate(src, dst, progress=lambda line: None if getattr(args, "json", False)
                           else out(f"copied {line}"))
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
