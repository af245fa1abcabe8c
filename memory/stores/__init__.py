"""Open a store from a URL: embedded:PATH (default) or elasticsearch:URL."""

from __future__ import annotations

from urllib.parse import urlsplit

from ..embeddings import Embedder, get_embedder
from ..errors import ValidationError
from ..settings import Settings
from .base import Store


def check_es_url(url: str) -> str:
    """An http(s) URL with a host, or one clear error (issue 11, invariant 69)."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - parsing the port raises for a malformed one
    except ValueError as exc:
        raise ValidationError(f"invalid Elasticsearch URL: {exc}; expected e.g. "
                              "elasticsearch:http://127.0.0.1:9200") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValidationError("invalid Elasticsearch URL: expected http(s)://HOST[:PORT], e.g. "
                              "elasticsearch:http://127.0.0.1:9200")
    return url


def open_store(url: str, embedder: Embedder | None = None,
               settings: Settings | None = None) -> Store:
    """The store a URL names, configured from `settings` (the runtime's; defaults otherwise)."""
    embedder = embedder or get_embedder()
    settings = settings or Settings()
    scheme, _, rest = url.partition(":")
    if scheme == "embedded" and rest:
        from .embedded import EmbeddedStore

        return EmbeddedStore(rest, embedder, busy_timeout=settings.busy_timeout)
    if scheme == "elasticsearch" and rest:
        from .elasticsearch import ElasticsearchStore  # loaded only when asked for
        from .elasticsearch.connection import ConnectionSettings

        rest = check_es_url(rest)
        return ElasticsearchStore(rest, embedder, settings.es_prefix,
                                  connection=ConnectionSettings.from_settings(rest, settings),
                                  num_candidates=settings.es_num_candidates)
    raise ValidationError(
        f"invalid store {url!r}: use embedded:PATH (e.g. embedded:.memdesk/memdesk.db) "
        "or elasticsearch:URL (e.g. elasticsearch:http://127.0.0.1:9200)"
    )
