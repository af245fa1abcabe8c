"""Open a store from a URL: embedded:PATH (default) or elasticsearch:URL."""

from __future__ import annotations

from ..embeddings import Embedder, get_embedder
from ..errors import ValidationError
from .base import Store


def open_store(url: str, embedder: Embedder | None = None, *, es_prefix: str = "memdesk") -> Store:
    embedder = embedder or get_embedder()
    scheme, _, rest = url.partition(":")
    if scheme == "embedded" and rest:
        from .embedded import EmbeddedStore

        return EmbeddedStore(rest, embedder)
    if scheme == "elasticsearch" and rest:
        try:
            from .elasticsearch import ElasticsearchStore
        except ImportError as exc:  # the backend lands with its own issue
            raise ValidationError(f"the Elasticsearch store is not available: {exc}") from None
        return ElasticsearchStore(rest, embedder, es_prefix)
    raise ValidationError(
        f"invalid store {url!r}: use embedded:PATH (e.g. embedded:.memdesk/memdesk.db) "
        "or elasticsearch:URL (e.g. elasticsearch:http://127.0.0.1:9200)"
    )
