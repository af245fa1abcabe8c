"""Open a store from a URL: embedded:PATH (default) or elasticsearch:URL."""

from __future__ import annotations

from urllib.parse import urlsplit

from ..embeddings import Embedder, get_embedder
from ..errors import ValidationError
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


def open_store(url: str, embedder: Embedder | None = None, *, busy_timeout: float = 5.0) -> Store:
    embedder = embedder or get_embedder()
    scheme, _, rest = url.partition(":")
    if scheme == "embedded" and rest:
        from .embedded import EmbeddedStore

        return EmbeddedStore(rest, embedder, busy_timeout=busy_timeout)
    if scheme == "elasticsearch" and rest:
        try:
            from .elasticsearch import ElasticsearchStore
        except ImportError as exc:  # the backend lands with its own issue
            raise ValidationError(f"the Elasticsearch store is not available: {exc}") from None
        return ElasticsearchStore(check_es_url(rest), embedder)
    raise ValidationError(
        f"invalid store {url!r}: use embedded:PATH (e.g. embedded:.memdesk/memdesk.db) "
        "or elasticsearch:URL (e.g. elasticsearch:http://127.0.0.1:9200)"
    )
